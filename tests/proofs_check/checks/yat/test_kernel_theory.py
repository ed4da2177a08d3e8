"""Ledger checks of claims.md A2 (kernel theory), one module per id under checks/yat/.

Each record is valid and its repro runs; key numbers are re-derived independently (mpmath,
sympy, exact rationals, the plain formula) and each verdict is re-derived from the recorded
numbers by the rules."""
from __future__ import annotations

import importlib
import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from tests.checkrun import run_quick
from proofs_check import verdicts as V
from proofs_check.registry import module_for

IDS = ["yat.mercer_psd", "yat.mercer_proof_steps", "yat.rkhs_existence", "yat.uat_biased",
       "yat.uat_bias_identity", "yat.imq_fourier", "yat.uat_unbiased",
       "yat.universal_kernel_proof_002", "yat.rkhs_relu_comparison", "yat.background_theorems"]
MODS = {cid: importlib.import_module(module_for(cid)[-1]) for cid in IDS}   # registers them


def _yat_gram(X, eps):
    X = np.asarray(X, float)
    return (X @ X.T) ** 2 / (((X[:, None] - X[None]) ** 2).sum(-1) + eps)


def test_mercer_psd_argmin_reevaluated_with_plain_formula():
    ev = run_quick("yat.mercer_psd")
    a = ev.numbers["adversarial_argmin"]
    lam = np.linalg.eigvalsh(_yat_gram(a["points"], a["eps"]))
    assert lam[0] / max(abs(lam)) == pytest.approx(a["ratio"], abs=1e-10)
    t = ev.thresholds[0]
    assert ev.verdict == V.holds(t.measured >= t.value)
    assert ev.numbers["adversarial_restarts"] >= 20
    assert "contains_zero" in ev.numbers["singular_sets"]


@pytest.mark.slow
def test_imq_fourier_refuted_at_0_and_bessel_form_independent():
    ev = run_quick("yat.imq_fourier")
    assert ev.parts["removable_at_0"].verdict == V.REFUTED
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values()) == V.REFUTED
    # d = 3, eps = 1: FT = 2 pi^2 e^{-xi}/xi (mpmath), unbounded as xi -> 0
    ce = ev.parts["removable_at_0"].counterexample
    for xi, v in zip(ce["xi"], ce["FT"]):
        with mp.workdps(30):
            assert v == pytest.approx(float(2 * mp.pi ** 2 * mp.e ** (-xi) / xi), rel=1e-9)
    # the operative 'classical' reading (L2): IMQ in L2(R^d) iff d < 4 (sympy)
    r = sp.Symbol("r", positive=True)
    l2 = [d for d in range(1, 7)
          if sp.integrate(r ** (d - 1) / (r ** 2 + 1) ** 2, (r, 1, sp.oo)).is_finite]
    assert l2 == [1, 2, 3] == ev.parts["classical_vs_distributional"].numbers["dims_L2"]
    assert ev.parts["classical_vs_distributional"].verdict == V.CONFIRMED
    assert ev.parts["classical_vs_distributional"].other_readings["L1"].verdict == V.REFUTED
    b = ev.parts["bessel_form_C_positive"]
    assert b.verdict == V.holds(b.thresholds[0].measured <= b.thresholds[0].value)


def test_uat_unbiased_counterexample_exact():
    ev = run_quick("yat.uat_unbiased")
    ce = ev.counterexample
    g0 = mp.mpf(0)
    for w, c in zip(ce["W"], ce["c"]):
        g0 += mp.mpf(c) * (mp.mpf(w[0]) * 0) ** 2 / (mp.mpf(w[0]) ** 2 + mp.mpf(ce["eps"]))
    assert g0 == 0 and abs(1 - g0) == 1
    assert ev.verdict == V.REFUTED
    # the recorded least-squares fits never beat the lower bound 1 on [-1, 1]
    errs = ev.numbers["substitute_sweeps"]["d1_with0"]["rel_sup_error"]["one"]
    assert min(errs) >= 1.0 - 1e-9

    # the other reading (0 not in K) is decided by the proof: the Laplace/Gaussian-mixture identities it uses
    r = ev.other_readings["K_without_0"]
    assert r.verdict == V.CONFIRMED and r.scope.kind == "proof"
    t, rr, e = sp.symbols("t r e", positive=True)
    assert sp.simplify(sp.integrate(sp.exp(-t * (rr + e)), (t, 0, sp.oo)) - 1 / (rr + e)) == 0
    # psi integrates to 1/eps: int_0^inf e^{-t eps} dt, the finite mass the Tonelli step needs
    assert mp.quad(lambda s: mp.e ** (-s * mp.mpf("0.5")), [0, mp.inf]) == pytest.approx(2.0, rel=1e-12)


def test_universal_kernel_proof_002_rank_exact():
    ev = run_quick("yat.universal_kernel_proof_002")
    P = sp.Matrix(ev.parts["a_polynomial_universal"].counterexample["points"])
    G = (P * P.T).applyfunc(lambda v: v ** 2)
    assert G.rank() == 3 < 4
    assert ev.parts["a_polynomial_universal"].verdict == V.REFUTED
    assert ev.verdict == V.REFUTED
    for v in ev.parts["a_polynomial_universal"].numbers["ranks"].values():
        assert v["rank_<w,x>^2"] == v["d(d+1)/2"]


def test_rkhs_relu_lower_bound_grows_like_sqrt_eps_over_t():
    ev = run_quick("yat.rkhs_relu_comparison")
    cor3 = ev.parts["cor3"]
    eps = cor3.counterexample["eps"]
    for t, lb in zip(cor3.numbers["ts"], cor3.numbers["lower_bound_on_||f||_Yat"]):
        # f(t z) = t for z = (1, 0); k_Yat(x, x) = |x|^4 / eps
        assert lb == pytest.approx(t / math.sqrt(t ** 4 / eps), rel=1e-9)
    assert cor3.verdict == V.REFUTED and ev.parts["remark7"].verdict == V.NOT_CHECKABLE
    assert ev.verdict == V.REFUTED
    assert cor3.other_readings["literal"].verdict == V.CONFIRMED


def test_bias_identity_and_biased_uat_follow_from_sympy():
    s, b, h = sp.symbols("s b h", real=True)
    D = sp.Symbol("D", positive=True)
    g = lambda bb: (s + bb) ** 2 / D
    assert sp.simplify((g(b + h) - 2 * g(b) + g(b - h)) / h ** 2 - 2 / D) == 0
    ev = run_quick("yat.uat_bias_identity")
    assert ev.verdict == V.CONFIRMED and ev.other_readings["001_closure"].verdict == V.CONFIRMED
    ev2 = run_quick("yat.uat_biased")
    assert ev2.verdict == V.holds(all(ev2.numbers["sympy_bias_identity"].values())
                                  and ev2.numbers["sympy_imq_ft_integrand_positive"])


def test_proof_steps_and_rkhs_parts_follow_their_numbers():
    ev = run_quick("yat.mercer_proof_steps")
    dom = ev.parts["domination_bound"]
    assert dom.numbers["max_ratio"] <= 1.0 + 1e-12
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values())
    rk = run_quick("yat.rkhs_existence")
    nb = rk.parts["norm_bound"]
    a = nb.numbers["argmax"]
    Z, c, x, eps = np.array(a["Z"]), np.array(a["c"]), np.array(a["x"]), a["eps"]
    kz = (Z @ x) ** 2 / (((Z - x) ** 2).sum(1) + eps)
    fnorm = math.sqrt(c @ _yat_gram(Z, eps) @ c)
    kxx = (x @ x) ** 2 / eps
    if kxx > 0:
        assert abs(c @ kz) / (fnorm * math.sqrt(kxx)) == pytest.approx(nb.numbers["max_ratio"],
                                                                        rel=1e-6)
    assert nb.verdict == V.holds(nb.numbers["max_ratio"] <= 1 + 1e-9)


def test_background_items_all_parts_and_gibbs():
    ev = run_quick("yat.background_theorems")
    assert set(ev.parts) == {"pd_closure", "laplace_identity", "bernstein", "tonelli_fubini",
                             "gibbs", "bochner", "hahn_banach", "classical_uat"}
    assert ev.parts["bochner"].numbers["sanity_box_kernel_min_ratio"] < 0
    assert ev.parts["gibbs"].numbers["sanity_min_kl_distinct"] > 0
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values())
