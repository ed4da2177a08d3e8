"""Ledger checks itnet.tiling.* (003 Alg 1, Prop 10, App H.7-H.10, Table 19)."""
import importlib

import pytest

from checkrun import assert_valid_evidence, run_quick
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
