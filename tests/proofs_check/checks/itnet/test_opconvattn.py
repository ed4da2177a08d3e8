"""Checks of the ITNet operator / convolution / attention claims (itnet.op.*, itnet.special_case.conv_*,
attention, mha, linear_attention, causal_attention, itnet.conv_strictness, itnet.attn_strictness)."""
import importlib
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import runner
from proofs_check import verdicts as V
from proofs_check.report import walk
from proofs_check.repro import run_repro

runner.load_checks()

IDS = ["itnet.op.identity", "itnet.op.input_dims", "itnet.op.multihead_cost",
       "itnet.special_case.conv_continuous", "itnet.special_case.conv_discrete",
       "itnet.special_case.conv_variants", "itnet.special_case.conv_boundary", "itnet.conv_strictness",
       "itnet.special_case.attention", "itnet.special_case.mha", "itnet.special_case.linear_attention",
       "itnet.special_case.causal_attention", "itnet.attn_strictness"]


def _module(cid):
    from proofs_check.registry import module_for
    return importlib.import_module(module_for(cid)[-1] if cid.startswith("itnet.special_case") else module_for(cid)[0])


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_record_valid_and_repros_run(cid):
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, _module(cid))
    assert ev.problems() == []
    for _, node in walk(ev.to_dict()):
        if node.get("repro"):
            assert run_repro(node["repro"])[1]


def test_identity_refuted_by_a_kernel_rederived():
    ev = run_quick("itnet.op.identity")
    assert ev.verdict == V.REFUTED and ev.parts["a_kappa0_W_I"].verdict == V.CONFIRMED
    ce = ev.parts["b_integral_alone_cannot"].counterexample
    n, U, delta = ce["n"], np.array(ce["U"]), ce["delta"]
    x = (np.arange(n) + 0.5) / n
    K = np.maximum(0, 1 - np.abs(x[:, None] - x[None, :]) / delta) * n      # hat kernel, plain numpy
    out = (K / n) @ U                                                        # sum_j (1/n) K_ij u_j
    assert np.abs(out - U).max() < 1e-12
    assert ev.parts["b_integral_alone_cannot"].other_readings["atomless_mu"].verdict == V.CONFIRMED


def test_input_dims_and_cost_arithmetic():
    assert 6 * 64 + 1 + 3 * 64 == 577
    ev = run_quick("itnet.op.input_dims")
    assert ev.parts["dimensions"].verdict == V.CONFIRMED and ev.verdict == V.NOT_CHECKABLE
    # ||x - y|| enters raw: eq. 3's count 3(2L) + 1 + 3d is the printed 577 at L = d = 64; lifting it would give 704
    raw = ev.parts["distance_enters_raw"]
    assert raw.verdict == V.CONFIRMED and 3 * 2 * 64 + 1 + 3 * 64 == 577 and 4 * 2 * 64 + 3 * 64 == 704
    assert raw.numbers["if_lifted_at_L64_d64"] == 704
    fr = ev.parts["frequency_scale"]
    # '~10' is vague and the paper's B is one unpublished draw: under the largest-frequency reading the expectation at
    # s = 3 exceeds even the widest tolerance (half a decade) by ~7%, at s = 2 it meets it, and a single draw at s = 3
    # meets it ~30% of the time, so no reasonable tolerance settles it (rule 3): NOT_CHECKABLE, with what was tried
    assert fr.verdict == V.NOT_CHECKABLE and fr.counterexample is None and not fr.tried.missing()
    # the flip point of '~': E[max] at s = 3 over the stated 10 (E[max] is re-derived by Monte Carlo below)
    assert fr.numbers["flip_point_tolerance_factor_of_~_at_worst_s"] == pytest.approx(
        fr.numbers["norm_B_quantiles"]["3"]["expected_max_of_64"] / 10, rel=1e-12)
    assert "3.39x" in fr.notes and "3.39x" in fr.tried.search
    th = fr.thresholds[0]
    assert th.kind == "statistical" and th.value == 0.05 and th.measured == th.flip
    assert fr.numbers["settled_per_s_for_a_single_draw"] == {
        s_: "depends on the tolerance or on the draw" for s_ in "123"}
    assert fr.other_readings["scale"].verdict == V.CONFIRMED
    assert fr.other_readings["per_axis_maxima"].verdict == V.NOT_CHECKABLE
    assert run_repro(fr.repro.to_dict())[1]
    mr = fr.numbers["measured_under_each_reading_of_~10"]
    assert mr["scale: per-axis std of B_ij (random-Fourier-feature usage)"] == {"1": 10.0, "2": 10.0, "3": 10.0}
    assert [round(v, 1) for v in mr["largest row frequency: E[max_i ||B_i||] of 64 rows"].values()] == [26.0, 30.5, 33.9]
    assert [round(v, 1) for v in mr["typical row frequency: median ||B_i||"].values()] == [6.7, 11.8, 15.4]
    assert mr["context (ImageNet ablation, s = 2): E[max_i ||B_i||]"] < 10 ** 1.5
    # per-axis maxima: largest |B_ij| of 64 s entries, plain NumPy Monte Carlo
    ax = fr.numbers["norm_B_quantiles"]
    for s_ in (1, 2, 3):
        E = 10.0 * np.abs(np.random.default_rng(s_).standard_normal((20_000, 64 * s_))).max(axis=1)
        assert abs(E.mean() - ax[str(s_)]["expected_max_abs_entry"]) < 4 * 1.96 * E.std(ddof=1) / np.sqrt(E.size)
    assert [round(ax[k]["expected_max_abs_entry"], 1) for k in "123"] == [26.0, 28.3, 29.6]
    # independently: the largest of 64 row norms of B ~ N(0, 10^2 I_3), plain NumPy Monte Carlo
    B = 10.0 * np.random.default_rng(11).standard_normal((20_000, 64, 3))
    mx = np.linalg.norm(B, axis=2).max(axis=1)
    half = 1.96 * mx.std(ddof=1) / np.sqrt(mx.size)
    q3 = fr.numbers["norm_B_quantiles"]["3"]
    assert abs(mx.mean() - q3["expected_max_of_64"]) < 4 * half
    assert mx.mean() - 4 * half > 10 ** 1.5                  # 3.4 x the stated "~10"
    # ... but a single draw (the paper's frozen B) stays within 10^1.5 about 30% of the time (binomial 4-sigma band)
    p_in = float(np.mean(mx <= 10 ** 1.5))
    p_rec = fr.numbers["P(single frozen draw within each tolerance)"]["3"]["half_decade (< 10^1.5, the widest)"]
    assert abs(p_in - p_rec) < 4 * np.sqrt(p_rec * (1 - p_rec) / mx.size) and 0.05 < p_rec < 0.95
    assert th.measured == pytest.approx(p_rec)
    # s = 2 in closed form: ||B_i|| is Rayleigh(10), median 10 sqrt(2 ln 2) = 11.77 > 10
    assert fr.numbers["norm_B_quantiles"]["2"]["median"] == pytest.approx(10 * np.sqrt(2 * np.log(2)), rel=1e-12)
    ev = run_quick("itnet.op.multihead_cost")
    assert ev.parts["cost_factor_H"].verdict == V.CONFIRMED
    # total MACs incl. the kernel MLP: reduction below H (independent arithmetic)
    d, H, w, L = 384, 6, 128, 64
    one = w * (6 * L + 1 + 3 * d) + w * d * d + d * d
    dh = d // H
    many = H * (w * (6 * L + 1 + 3 * dh) + w * dh * dh + dh * dh)
    assert one / many < H
    assert ev.parts["cost_factor_H"].other_readings["total_MACs_incl_kernel_MLP"].verdict == V.REFUTED
    assert ev.parts["theorems_apply_per_head"].other_readings["eq4_recovers_standard_MHA"].verdict == V.REFUTED


def test_conv_strictness_lower_bound_mpmath():
    ev = run_quick("itnet.conv_strictness")
    lb = abs(1 / (1 + mp.e ** -1) - 1 / (1 + mp.e)) / 2
    part = ev.parts["T_in_ITNet_via_eq40"]
    assert abs(part.numbers["sup_error_lower_bound"] - float(lb)) < 1e-15
    assert part.verdict == V.REFUTED and ev.verdict == V.REFUTED
    assert abs(float(1 / (1 + mp.e ** -4)) - 0.982) < 5e-4 and abs(float(1 / (1 + mp.e ** -1)) - 0.731) < 5e-4


def test_linear_attention_ratio_rederived():
    ev = run_quick("itnet.special_case.linear_attention")
    ce = ev.parts["bounded_by_||W_V||"].counterexample
    U, Wq, Wk, Wv = (np.array(ce[k]) for k in ("U", "Wq", "Wk", "Wv"))
    phi = lambda z: np.where(z > 0, z + 1, np.exp(np.minimum(z, 0)))      # noqa: E731  elu + 1
    S = phi(U @ Wq.T) @ phi(U @ Wk.T).T
    weight = S / S.mean(axis=1, keepdims=True)                            # phi.phi / Z_phi, Z_phi with mu = 1/n
    assert weight.max() > 1.0
    assert abs(weight.max() - ev.parts["bounded_by_||W_V||"].numbers["sup_ratio"]) < 1e-9
    assert ev.verdict == V.REFUTED


def test_mha_printed_shape_and_attention_readings():
    ev = run_quick("itnet.special_case.mha")
    d, H, dv = 4, 2, 2
    assert ev.other_readings["printed_BlockDiag"].numbers["BlockDiag_shape"] == [H * dv, H * d]
    # the proof's stacked kernel with the normalisers Z_h is exact, but only outside Def. 8 (reported beside)
    r1 = ev.other_readings["R1_global_normalisers"]
    assert r1.verdict == V.CONFIRMED and r1.numbers["max_rel_err"] < 1e-12


# Thm D.1(a) (Z), D.1(b) (Z_h), Prop 6 (Z_causal), Prop 5 (Z_phi): one operative reading (Def. 8), one machinery
DEF8_FAMILY = {"itnet.special_case.attention": ("def8_layer_gives_attention", "R1_global_normaliser"),
               "itnet.special_case.mha": ("def8_layer_gives_mha", "R1_global_normalisers"),
               "itnet.special_case.causal_attention": ("def8_layer_gives_causal_attention",
                                                       "R1_global_causal_normaliser"),
               "itnet.special_case.linear_attention": ("def8_layer_gives_eq91", "R1_global_normaliser")}


@pytest.mark.parametrize("cid", sorted(DEF8_FAMILY))
def test_attention_family_one_def8_reading(cid):
    from proofs_check.support import itnet_operators as C
    ev = run_quick(cid)
    part, r1 = DEF8_FAMILY[cid]
    assert ev.verdict == V.REFUTED
    assert ev.reading.text.startswith(C.DEF8_TEXT) and C.def8_passage() in ev.reading.passage
    for words in ("Definitions 5 and 8", "one theta for every u", "Attn ⊊ ITNet", "solely as a function of"):
        assert words in ev.reading.passage
    d8 = ev.parts[part]
    assert d8.verdict == V.REFUTED and d8.numbers["|D|"] > 1e-6 and d8.numbers["sup_error_lower_bound"] > 1e-7
    assert "no Def.-8 layer" in d8.notes
    assert run_repro(d8.repro.to_dict())[1] and run_repro(ev.repro.to_dict())[1]
    # the proofs' kernels: exact, reported beside under 'u fixed before the kernel', with why that reading is empty
    other = ev.other_readings[r1]
    assert other.verdict == V.CONFIRMED and other.reading.text.startswith("R1, u fixed before the kernel")
    assert "Thm 4" in other.notes and "Cor 2.1" in other.notes and "Case 2" in other.notes


def test_u_fixed_kernel_gives_any_operator_rederived():
    # with u fixed, kappa_u(x_i, y_j) = F(u)_i u_j^T / mean_j |u_j|^2 reproduces any F under mu = 1/n (here u^3)
    from proofs_check.support import itnet_operators as C
    _, numbers, _ = C.u_fixed_reading("t", "p")
    U = np.array(numbers["u_fixed_example"]["U"])
    F = U ** 3
    out = np.stack([sum(np.outer(F[i], U[j]) @ U[j] for j in range(len(U))) / len(U) for i in range(len(U))])
    out /= np.mean(np.sum(U ** 2, 1))
    assert np.abs(out - F).max() < 1e-12 and numbers["u_fixed_kernel_gives_u^3_rel_err"] < 1e-14
    from proofs_check.repro import evaluate
    assert evaluate(numbers["u_fixed_example"]["expr"], {"U": U.tolist()}) < 1e-14


def test_attention_refuted_under_def8_confirmed_only_under_the_proofs_kernel():
    ev = run_quick("itnet.special_case.attention")
    assert ev.verdict == V.REFUTED and "Definitions 5 and 8" in ev.reading.passage
    d8 = ev.parts["def8_layer_gives_attention"]
    assert d8.verdict == V.REFUTED and d8.numbers["|D|"] > 1e-6
    # independent: every Def.-8 layer has zero mixed difference over two key slots (a random kernel here), while
    # softmax attention re-evaluated from the counterexample's own values does not
    ce = d8.counterexample
    rng = np.random.default_rng(3)
    A = rng.normal(size=(9, 9))

    def layer(U):                      # (1/n) sum_j kappa(u_i, u_j) u_j + W u_i with a nonlinear kappa
        n = len(U)
        out = np.zeros_like(U)
        for i in range(n):
            for j in range(n):
                k = np.tanh(A @ np.concatenate([U[i], U[j], U[i] * U[j]]))[:9].reshape(3, 3)
                out[i] += k @ U[j] / n
        return out + 0.3 * U

    def mixed(F):
        U = np.array(ce["U"])
        vals = []
        for x0, x1 in ((ce["a"], ce["b"]), (ce["a2"], ce["b"]), (ce["a"], ce["b2"]), (ce["a2"], ce["b2"])):
            V_ = U.copy()
            V_[0], V_[1] = x0, x1
            vals.append(F(V_)[3])
        return vals[0] - vals[1] - vals[2] + vals[3]

    from yatmath.itnet.special import attention as at
    attn = lambda V_: at.softmax_attention(V_, np.array(ce["Wq"]), np.array(ce["Wk"]), np.array(ce["Wv"]))  # noqa
    assert np.abs(mixed(layer)).max() < 1e-12
    assert abs(np.linalg.norm(mixed(attn)) - ce["|D|"]) < 1e-9
    assert run_repro(d8.repro.to_dict())[1] and run_repro(ev.repro.to_dict())[1]
    r1 = ev.other_readings["R1_global_normaliser"]
    assert r1.verdict == V.CONFIRMED and r1.parts["kernel_gives_attention"].numbers["max_rel_err"] < 1e-12
    zb = ev.parts["Z_bounds"]
    assert zb.verdict == V.CONFIRMED and abs(zb.numbers["witness_|log Z|/M"] - 1.0) < 1e-12   # e^M attained


def test_attn_strictness_printed_example_exact():
    # x1 = 0, x2 = 1, u = (e1, e2), omega = 1/2, swap: both sides are e1/2 at x1 (fractions)
    half = Fraction(1, 2)
    T = lambda u: [[sum(half * abs(xi - xj) * u[j][c] for j, xj in enumerate((0, 1))) for c in range(2)]  # noqa
                   for xi in (0, 1)]
    u = [[1, 0], [0, 1]]
    assert T(u[::-1]) == T(u)[::-1]
    ev = run_quick("itnet.attn_strictness")
    assert ev.parts["b_printed_example"].verdict == V.REFUTED
    assert ev.parts["b_not_equivariant"].verdict == V.CONFIRMED


def test_conv_verdicts_follow_numbers():
    for cid in ("itnet.special_case.conv_continuous", "itnet.special_case.conv_discrete",
                "itnet.special_case.conv_variants", "itnet.special_case.conv_boundary"):
        ev = run_quick(cid)
        assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) if ev.parts else True
    ev = run_quick("itnet.special_case.conv_continuous")
    assert ev.parts["convolution_identity"].other_readings["w_in_L1_only"].verdict == V.REFUTED
    assert ev.parts["young"].numbers["max_ratio"] <= 1 + 1e-12
    ev = run_quick("itnet.special_case.conv_variants")
    assert "strided_S2" in ev.numbers["variants_with_separate_query_set"]
