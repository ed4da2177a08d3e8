"""Ledger checks itnet.tiling.* (003 Alg 1, Prop 10, App H.7-H.10, Table 19)."""
import importlib

import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.repro import run_repro

MOD = importlib.import_module("proofs_check.checks.itnet.tiling")


@pytest.mark.parametrize("name", ["alg1_correctness", "io_prop10", "memory"])
def test_record_is_valid(name):
    ev = run_quick(f"itnet.tiling.{name}")
    assert_valid_evidence(f"itnet.tiling.{name}", ev, MOD)
    assert ev.problems() == []
    for node in [ev, *ev.parts.values()]:
        if node.repro is not None:
            assert run_repro(node.repro.to_dict())[1]


def test_alg1_counterexample_is_ragged():
    ce = run_quick("itnet.tiling.alg1_correctness").counterexample
    assert ce["n"] % ce["bq"] != 0 or ce["n"] % ce["bk"] != 0


def test_memory_numbers_by_hand():
    ev = run_quick("itnet.tiling.memory")
    assert (64 + 64) * 768 * 2 == 192 * 1024
    per_head = 512 ** 2 * 12 * 64 ** 2 * 2 * 32
    assert ev.parts["table19_kernel_matrix"].numbers["kernel_bytes_per_head_form"] == per_head > 141e9
    assert ev.verdict == V.REFUTED


def test_matvec_share_by_hand():
    w, d_h, L = 128, 64, 64
    share = d_h * d_h / (w * (6 * L + 1 + 3 * d_h) + w * d_h * d_h + d_h * d_h)
    assert share < 0.5
    assert abs(run_quick("itnet.tiling.io_prop10").parts["matvec_dominates"].numbers["matvec_share"] - share) < 1e-15


def test_io_optimality_against_the_pebble_lower_bound():
    opt = run_quick("itnet.tiling.io_prop10").parts["optimality"]
    assert opt.verdict == V.CONFIRMED and opt.numbers["limit_ratio_square_tiles_n_to_inf"] == "8*(d + s + 1)/d"
    # independent: Alg 1 with square tiles B = S/(2d) reads n d + (n/B) n d = n d + 2 n^2 d^2/S (U only), the
    # lower bound is n^2 d^2/(4S) - S; their ratio tends to 8 for large n
    n, d, S = 2 ** 20, 64, 64 * 128
    B = S // (2 * d)
    assert (n * d + (n // B) * n * d) / (n * n * d * d / (4 * S) - S) == pytest.approx(8, rel=1e-3)


def test_reads_part_is_a_symbolic_loop_count():
    reads = run_quick("itnet.tiling.io_prop10").parts["reads"]
    assert reads.verdict == V.CONFIRMED and reads.scope.kind == "symbolic" and reads.scope.universal
    assert reads.numbers["closed_form_vs_loop_walk_mismatches"] == []
    # independent: walk Alg 1's loops by hand (U, X once per query row; U, X, omega per key row per query tile)
    n, d, s, bq, bk = 10, 3, 2, 4, 3
    walked = sum(min(bq, n - i) * (d + s) for i in range(0, n, bq)) + sum(
        min(bk, n - j) * (d + s + 1) for i in range(0, n, bq) for j in range(0, n, bk))
    assert walked == n * (d + s) + -(-n // bq) * n * (d + s + 1) == MOD.iomodel.alg1_reads(n, d, s, bq, bk)["reads"]


def test_printed_flops_formula_depends_on_sram_but_the_count_does_not():
    ev = run_quick("itnet.tiling.io_prop10")
    fl = ev.parts["flops_eq201"]
    assert fl.verdict == V.REFUTED and ev.verdict == V.REFUTED
    # independent: every (query, key) pair is evaluated once whatever the tiles, at w(6L+1+3d) + w d^2 + d^2 MACs
    n, d, w, L, l = 1024, 64, 128, 64, 2
    per = w * (6 * L + 1 + 3 * d) + w * d * d + d * d
    ce = fl.counterexample
    assert ce["alg1_macs"] == [n * n * per] * 2
    S = [(a + b) * d for a, b in ce["tiles"]]
    assert ce["S_words"] == S and S[1] == 8 * S[0]
    assert ce["printed_n2wl_over_S"] == pytest.approx([n * n * w * l / x for x in S])   # falls 8x, the count does not
    value, ok = run_repro(fl.repro.to_dict())
    assert ok and value[0][0] == value[1][0] == n * n * per
    der = fl.other_readings["as_derived_O(n^2(wl+d^2))"]
    assert der.verdict == V.REFUTED and run_repro(der.repro.to_dict())[1]
    m = 1024
    assert (m * (6 * L + 1 + 3 * m) + m ** 3 + m * m) / (m * l + m * m) > m      # the w d^2 term along w = d = m
