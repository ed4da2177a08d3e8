"""Checks of claims.md A9 squashers: yat.squash.softermax, yat.squash.soft_sigmoid_tanh.

Universal statements are decided symbolically (sympy) or by an adversarial search (>= 20
restarts, maximiser reported).  The stability sub-claim evaluates the *printed* formula
x_k^n / (eps + sum x_i^n) with every operation rounded to fp16 / bf16 / fp32 (the library's
``softermax`` is evaluated stably and is not the object of that claim).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import optimize, special

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.support.records import decisive_repro
from proofs_check.support.lowprec_rounding import DTYPE_MAX, ROUND

F64 = float(np.finfo(np.float64).eps)

SRC_SOFTERMAX = ('000 App B.1 eq.3: "softermax_n(x_k,{x}) = x_k^n/(eps + sum_i x_i^n) ... n > 0 ... '
                 'eps > 0"; 001 App C.3 eq.11; 002 §3.6 eq.13 (printed "softmax_n")')


def _printed_softermax(x, n, eps, fmt):
    r = ROUND[fmt]
    with np.errstate(all="ignore"):
        p = r(np.power(r(x), n))
        den = r(eps + r(np.sum(p)))
        return r(p / den)


def _printed_softmax(x, fmt):
    r = ROUND[fmt]
    x = r(x)
    with np.errstate(all="ignore"):
        e = r(np.exp(x))
        return r(e / r(np.sum(e)))


def _entropy_slope(z):
    """Central-difference dH/dn of the renormalised softermax at x = exp(z[:-1]), n = exp(z[-1])."""
    x, n = np.exp(z[:-1]), math.exp(z[-1])
    h = 1e-5 * n

    def H(nn):
        p = Y.softermax(x, nn, 0.0)
        return float(-np.sum(special.xlogy(p, p)))
    return (H(n + h) - H(n - h)) / (2 * h)


@register("yat.squash.softermax",
          method="sympy (n=1 substitution; dH/dn = -n Var for m=2; sum deficit); adversarial search "
                 "of dH/dn over x, n (20+ restarts); printed formula in fp16/bf16/fp32 vs naive softmax")
def check_softermax(ctx):
    parts = {}
    xk, e_ = sp.symbols("x_k epsilon", positive=True)
    xs = sp.symbols("x1:4", positive=True)
    nsym = sp.symbols("n", positive=True)
    smx = xs[0] ** nsym / (e_ + sum(xi ** nsym for xi in xs))
    unpowered = sp.simplify(smx.subs(nsym, 1) - xs[0] / (e_ + sum(xs))) == 0
    base2 = [0.2, 0.8]                    # Stevens et al. 2021 Softermax (base-2 softmax) at x = (1, 3)
    ours = (np.array([1.0, 3.0]) / 4.0).tolist()
    stevens = Evidence(
        verdict=V.holds(abs(ours[0] - base2[0]) < 1e-12),
        reading=Reading("n = 1 gives the 'Softermax' of Stevens et al. 2021 (base-2 softmax "
                        "2^x_k / sum 2^x_i)", "001 App C.3: 'n = 1 recovers the original Softermax' "
                        "(no citation given)"),
        numbers={"x": [1.0, 3.0], "softermax_1_eps0": ours, "base2_softmax": base2},
        counterexample={"x": [1.0, 3.0], "n": 1.0, "eps": 0.0, "softermax_1": ours, "base2_softmax": base2},
        repro=Repro("float(yatmath.yat.softermax(np.array(x), 1.0, 0.0)[0])", {"x": [1.0, 3.0]},
                    expected=float(Y.softermax(np.array([1.0, 3.0]), 1.0, 0.0)[0])),
        notes="the base-2 softmax gives 0.2 at x=(1,3); softermax_1 gives 0.25")
    parts["n1_recovers_original"] = Evidence(
        verdict=V.holds(unpowered),
        reading=Reading("n = 1 gives the unpowered softermax x_k/(eps + sum_i x_i) of the same "
                        "definition (002's 'Softmax' is its global renaming of softermax, corrected)",
                        '002 §3.6 eq.13 names the function "softmax_n" and then says "Unlike softmax, '
                        'softmax does not use exponentials": the same paper uses "softmax" for the '
                        'exponential-free softermax, so "recovers the original Softmax" reads '
                        '"Softermax" as in 001 App C.3'),
        other_readings={"stevens2021_base2": stevens},
        scope=Scope("symbolic", "sympy substitution n = 1 in eq.3 with 3 symbolic scores", universal=True),
        numbers={"unpowered_identity": bool(unpowered)})
    # (b) harder for n > 1, softer for n < 1: entropy of the renormalised output decreases in n
    n, l = sp.symbols("n", positive=True), sp.symbols("l1:3", real=True)
    Z = sum(sp.exp(n * li) for li in l)
    p = [sp.exp(n * li) / Z for li in l]
    H = -sum(pi * (n * li - sp.log(Z)) for pi, li in zip(p, l))
    mean = sum(pi * li for pi, li in zip(p, l))
    var = sum(pi * (li - mean) ** 2 for pi, li in zip(p, l))
    ident = sp.simplify(sp.together(sp.expand(sp.diff(H, n) + n * var))) == 0
    rng = ctx.rng("search")
    restarts = ctx.pick(20, 60)
    best, arg = -np.inf, None
    for _ in range(restarts):
        z0 = np.concatenate([rng.uniform(-4, 3, 5), [rng.uniform(-2, 2)]])
        res = optimize.minimize(lambda z: -_entropy_slope(np.clip(z, -6, 3)), z0, method="Nelder-Mead",
                                options={"maxiter": ctx.pick(80, 400), "xatol": 1e-6, "fatol": 1e-12})
        zc = np.clip(res.x, -6, 3)
        val = _entropy_slope(zc)
        if val > best:
            best, arg = val, zc
    fd_tol = 1e-6   # central difference, h = 1e-5 n, fp64: error ~ h^2 |H'''| + u/h, well below 1e-6
    parts["harder_for_larger_n"] = Evidence(
        verdict=V.holds(ident and best <= fd_tol),
        reading=Reading("the entropy of the (renormalised) output is non-increasing in n, so n > 1 is "
                        "more peaked and 0 < n < 1 less peaked than n = 1",
                        '001 App C.3: "n > 1 makes the distribution harder (more peaked), and 0 < n < 1 '
                        'makes it softer"; 000 App B.1: "n > 0 controls the distribution sharpness '
                        '(analogous to inverse temperature)"'),
        numbers={"symbolic_dH_dn_equals_minus_n_var_m2": bool(ident), "max_dH_dn_found": best,
                 "maximiser_x": np.exp(arg[:-1]).tolist(), "maximiser_n": float(np.exp(arg[-1])),
                 "restarts": restarts},
        thresholds=[Threshold("max dH/dn <= 0 (finite-difference precision)", fd_tol, "precision",
                              "central difference in float64, h = 1e-5 n", best, best)],
        scope=Scope("search", f"x in [e^-6, e^3]^5, n in [e^-6, e^3]; {restarts} Nelder-Mead restarts; "
                    "plus the sympy identity dH/dn = -n Var_p(ln x) (m = 2)", universal=True),
        notes="softermax with eps = 0 is softmax(n ln x); eps > 0 only rescales the whole vector, so "
              "the renormalised shape is the same.")
    # (c) stability for large inputs vs softmax: overflow of the printed formula
    thr, bad = {}, []
    for fmt, M in DTYPE_MAX.items():
        for nn in (1.0, 2.0, 4.0, 8.0, 16.0, 32.0):
            t_sx, t_sm = M ** (1.0 / nn), math.log(M)
            thr[f"{fmt}_n{nn:g}"] = {"softermax_overflow_x": t_sx, "naive_softmax_overflow_x": t_sm}
            if t_sx < t_sm:
                bad.append((fmt, nn, t_sx, t_sm))
    fmt, nn = "fp16", 8.0
    xce = [5.0, 1.0]
    eps_ce = 1e-3
    sx = _printed_softermax(np.array(xce), nn, eps_ce, fmt)
    sm = _printed_softmax(np.array(xce), fmt)
    fin = [bool(np.all(np.isfinite(sx))), bool(np.all(np.isfinite(sm)))]
    expr = ("(bool(np.all(np.isfinite(np.float16(np.array(x, dtype=np.float16)**n) / (np.float16(eps) + "
            "np.sum(np.array(x, dtype=np.float16)**n, dtype=np.float16))))), "
            "bool(np.all(np.isfinite(np.exp(np.array(x, dtype=np.float16)) / np.sum(np.exp("
            "np.array(x, dtype=np.float16)), dtype=np.float16)))))")
    parts["stability_large_inputs"] = Evidence(
        verdict=V.holds(not bad),
        reading=Reading("for every n > 0, evaluating eq.3 as printed overflows no earlier (in x) than "
                        "the exponential softmax the paper contrasts it with",
                        '000 App B.1: "Unlike softmax, this formulation avoids exponential terms, '
                        'improving numerical stability for large input magnitudes"; 002 §3.6: "softmax '
                        'can suffer from numerical instability for large input values due to the '
                        'exponentials" (the naive exp form)'),
        numbers={"overflow_thresholds": thr, "formats_and_n_where_softermax_overflows_first":
                 [{"fmt": f, "n": k, "softermax_x": a, "softmax_x": b} for f, k, a, b in bad],
                 "counterexample_finite_[softermax, softmax]": fin},
        counterexample={"fmt": fmt, "x": xce, "n": nn, "eps": eps_ce, "printed_softermax": sx.tolist(),
                        "naive_softmax": sm.tolist()},
        repro=Repro(expr, {"x": xce, "n": nn, "eps": eps_ce}, expected=fin, rtol=0.0,
                    tol_reason="booleans (finite or not)"),
        thresholds=[Threshold("softermax overflow point x* = max^(1/n) vs softmax's ln(max), fp16, n=8",
                              math.log(DTYPE_MAX["fp16"]), "precision",
                              "IEEE fp16 max 65504 (every op rounded to fp16)",
                              DTYPE_MAX["fp16"] ** (1 / 8), DTYPE_MAX["fp16"] ** (1 / 8))],
        notes="x^n overflows at max^(1/n), earlier than exp at ln(max) once n > ln(max)/ln(ln(max)) "
              "(fp16 n > 4.6, bf16/fp32 n > 19.8). For n <= 4 the printed form is the more stable one. "
              "The max-shifted softmax never overflows, so against it the claim fails for every n.")
    # (d) the output is a distribution
    S_ = sp.symbols("S", positive=True)
    deficit = sp.simplify(S_ / (e_ + S_) - 1)
    x0, n0, e0 = [1e-3, 2e-3, 0.0], 1.0, 1e-3
    s0 = float(np.sum(Y.softermax(np.array(x0), n0, e0)))
    parts["output_is_distribution"] = Evidence(
        verdict=V.holds(abs(s0 - 1.0) <= 1e-12),
        reading=Reading("for x >= 0 and eps > 0 the outputs are >= 0 and sum to 1",
                        '001 App C.3: "a more direct, interpretable translation of the underlying scores '
                        'into a normalized distribution", with "a small constant eps > 0" in eq.11'),
        numbers={"sum_at_counterexample": s0, "sum_minus_1_symbolic": str(deficit)},
        counterexample={"x": x0, "n": n0, "eps": e0, "sum": s0},
        repro=Repro("float(np.sum(yatmath.yat.softermax(np.array(x), n, eps)))",
                    {"x": x0, "n": n0, "eps": e0}, expected=s0),
        thresholds=[Threshold("|sum - 1| (float64 precision)", 1e-12, "precision",
                              "float64 sum of 3 terms", abs(s0 - 1), abs(s0 - 1))],
        notes="The outputs sum to S/(eps+S) with S = sum x^n: always < 1 for eps > 0, and far from 1 "
              "when S is comparable to eps. A weaker reading (a sub-probability vector, ~1 when "
              "S >> eps) holds.")
    return Evidence.of_parts(parts, numbers={k: p.verdict for k, p in parts.items()},
                             notes="Four sub-claims of the entry; (c) and (d) are refuted.")


@register("yat.squash.soft_sigmoid_tanh",
          method="sympy identities, limits and derivatives for symbolic n > 0 (range, tau = 2 sigma - 1, "
                 "polynomial tail, slope at 1, monotone saturation in n)")
def check_soft_sigmoid_tanh(ctx):
    x, n = sp.symbols("x n", positive=True)
    sig = x ** n / (1 + x ** n)
    tau = (x ** n - 1) / (x ** n + 1)
    parts = {}
    # sigma in [0, 1): 1 - sigma = 1/(1+x^n) > 0, sigma >= 0; sigma(0) = 0
    one_minus = sp.simplify(1 - sig)
    dsig = sp.simplify(sp.diff(sig, x))
    ok_sig = (sp.simplify(one_minus - 1 / (1 + x ** n)) == 0
              and sp.simplify(dsig - n * x ** (n - 1) / (1 + x ** n) ** 2) == 0
              and sp.limit(sig, x, 0, "+") == 0 and sp.limit(sig, x, sp.oo) == 1)
    parts["sigma_range"] = Evidence(
        verdict=V.holds(ok_sig),
        numbers={"1-sigma": str(one_minus), "dsigma/dx": str(dsig)},
        scope=Scope("symbolic", "sympy, x >= 0 and n > 0 symbolic: 1-sigma = 1/(1+x^n) > 0, "
                    "dsigma/dx > 0, sigma(0+) = 0, sigma(oo) = 1 (sup not attained)", universal=True))
    ok_tau = sp.simplify(tau - (2 * sig - 1)) == 0 and sp.limit(tau, x, 0, "+") == -1 \
        and sp.limit(tau, x, sp.oo) == 1
    parts["tau_identity_range"] = Evidence(
        verdict=V.holds(ok_tau), numbers={"tau-(2sigma-1)": str(sp.simplify(tau - (2 * sig - 1)))},
        scope=Scope("symbolic", "sympy, symbolic n > 0; tau(0+) = -1 attained at x = 0, tau(oo) = 1 "
                    "not attained", universal=True))
    tail = sp.limit(x ** n * (1 - sig), x, sp.oo)
    tail_log = sp.limit(sp.exp(x) * (1 - 1 / (1 + sp.exp(-x))), x, sp.oo)
    slope_s = sp.simplify(sp.diff(sig, x).subs(x, 1))
    slope_t = sp.simplify(sp.diff(tau, x).subs(x, 1))
    parts["heavy_tail_and_gain_000"] = Evidence(
        verdict=V.holds(tail == 1 and tail_log == 1 and sp.simplify(slope_s - n / 4) == 0
                        and sp.simplify(slope_t - n / 2) == 0),
        numbers={"lim x^n (1-sigma_n)": str(tail), "lim e^x (1-logistic)": str(tail_log),
                 "sigma_slope_at_1": str(slope_s), "tau_slope_at_1": str(slope_t)},
        scope=Scope("symbolic", "sympy limits and derivatives, symbolic n > 0", universal=True),
        notes="1 - sigma_n ~ x^-n (polynomial) vs e^-x for the logistic; the slope at the midpoint "
              "x = 1 is n/4 (sigma) and n/2 (tau): n is the gain.")
    # 001/002 'higher n makes the function approach zero faster for large x' / 'approach -1 more quickly',
    # judged as written: no version corrects the sentences (000 App B.2 drops them)
    d_sig_n = sp.simplify(sp.diff(sig, n))                  # = x^n ln x / (1 + x^n)^2
    d_tau_n = sp.simplify(sp.diff(1 + tau, n))              # = 2 x^n ln x / (1 + x^n)^2
    moves_away = (sp.simplify(d_sig_n - x ** n * sp.log(x) / (1 + x ** n) ** 2) == 0
                  and sp.simplify(d_tau_n - 2 * x ** n * sp.log(x) / (1 + x ** n) ** 2) == 0
                  and sp.limit(sig, x, sp.oo) == 1 and sp.limit(tau, x, sp.oo) == 1)
    xc, n1, n2 = 10.0, 1.0, 2.0
    vals = {f"{f}_{k:g}(10)": float(getattr(Y, name)(xc, k)) for f, name in (("sigma", "soft_sigmoid"),
                                                                          ("tau", "soft_tanh")) for k in (n1, n2)}
    step = [vals["sigma_2(10)"] - vals["sigma_1(10)"], vals["tau_2(10)"] - vals["tau_1(10)"]]
    fp = 8 * F64                                          # two float64 quotients of O(1) values, a few ulps
    parts["saturation_faster_in_n_001_002"] = Evidence(
        verdict=V.holds(max(step) <= fp and not moves_away),
        reading=Reading("as written: for large x a higher n brings soft-sigmoid_n(x) closer to 0 and soft-tanh_n(x) "
                        "closer to -1",
                        '001 App C.3 and 002 §3.6: "The power n modulates the softness: higher n makes the function '
                        'approach zero faster for large x, while n < 1 makes the decay slower" (soft-sigmoid) and "higher '
                        'n makes the function approach -1 more quickly for large x" (soft-tanh); neither paper corrects '
                        'them, and 000 App B.2 drops both sentences (its "gain factor, controlling the steepness of the '
                        'transition" states no direction of approach)'),
        numbers={**vals, "sigma_2(10)-sigma_1(10)": step[0], "tau_2(10)-tau_1(10)": step[1],
                 "d sigma_n/dn": str(d_sig_n), "d (1+tau_n)/dn": str(d_tau_n),
                 "lim_x->oo sigma_n, tau_n": [str(sp.limit(sig, x, sp.oo)), str(sp.limit(tau, x, sp.oo))]},
        counterexample={"x": xc, "n1": n1, "n2": n2, **vals,
                        "claim": "sigma_2(10) < sigma_1(10) and tau_2(10) < tau_1(10)"},
        repro=Repro("[float(yatmath.yat.soft_sigmoid(x, n2) - yatmath.yat.soft_sigmoid(x, n1)), "
                    "float(yatmath.yat.soft_tanh(x, n2) - yatmath.yat.soft_tanh(x, n1))]",
                    {"x": xc, "n1": n1, "n2": n2}, expected=step, rtol=1e-12,
                    tol_reason="float64 quotients x^n/(1+x^n), (x^n-1)/(x^n+1)"),
        thresholds=[Threshold("sigma_2(10) - sigma_1(10) <= 0 (a larger n moves sigma toward 0), float64 rounding",
                              fp, "precision", "float64: two quotients of O(1) values, 8 ulps", step[0], step[0])],
        scope=Scope("symbolic", "sympy, symbolic n > 0: sigma_n -> 1 and tau_n -> +1 as x -> oo (never 0 or -1), and "
                    "d sigma_n/dn = x^n ln x/(1+x^n)^2 > 0, d(1+tau_n)/dn = 2 x^n ln x/(1+x^n)^2 > 0 for every x > 1: "
                    "at every large x a higher n moves sigma_n away from 0 and tau_n away from -1; instance x = 10, "
                    "n = 1 -> 2", universal=True),
        notes="Both functions tend to +1 for every n > 0, and for x > 1 a higher n moves them further from 0 and -1 "
              "(sigma_1(10) = 0.909, sigma_2(10) = 0.990; tau_1(10) = 0.818, tau_2(10) = 0.980). What holds instead "
              "(recorded, not a reading: no version prints it) is that the tail 1 - sigma_n(x) = 1/(1+x^n) shrinks "
              "in n for x > 1, i.e. sigma_n approaches 1 faster; a correction must come from the papers, and none "
              "does.")
    lg0 = sp.limit(1 / (1 + sp.exp(-x)), x, 0, "+")
    parts["logistic_on_nonneg"] = Evidence(
        verdict=V.holds(lg0 == sp.Rational(1, 2) and sp.limit(1 / (1 + sp.exp(-x)), x, sp.oo) == 1),
        numbers={"logistic(0)": str(lg0)},
        scope=Scope("symbolic", "logistic(0) = 1/2, increasing, sup 1 not attained", universal=True))
    return Evidence.of_parts(parts, numbers={k: p.verdict for k, p in parts.items()}, repro=decisive_repro(parts),
                             notes="Tried (rule 5): sympy identities, limits and derivatives for symbolic n > 0 for "
                                   "every part; the 001/002 sentences on large x judged as written (symbolic sign of "
                                   "d/dn, and the instance x = 10, n = 1 -> 2).")
