"""Checks of the yat.ntk.* claims (000 Prop 6, Thm 15, Thm 17, Cor 4, Prop 7, App C.18-C.20).

The Yat kernel and grad_w K are evaluated by ``yatmath.yat.product`` / ``yatmath.yat.grad``; the
Monte Carlo infinite-width NTK by ``yatmath.yat.kernel.ntk_gram`` (public, so that reproductions
run as printed).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
import sympy.stats as spstats

import yatmath.yat as Y
from proofs_check import stats as S
from proofs_check import verdicts as V
from proofs_check.registry import Bound, Evidence, Plot, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.repro import evaluate

Z95 = 1.959963984540054   # two-sided 95% normal quantile


def _K(w, x, eps):
    return Y.product(w, x, eps, backend="numpy")


def _gw(w, x, eps):
    return Y.grad(w, x, eps).w


def _ntk_features(W, X, eps):
    Wb, Xb = W[:, None, :], X[None, :, :]
    return _K(Wb, Xb, eps), _gw(Wb, Xb, eps)


def _relu_ntk(X):
    """Bias-free two-layer ReLU NTK (arc-cosine form of 000 Remark 8), w ~ N(0, I), a ~ N(0, 1)."""
    nx = np.linalg.norm(X, axis=1)
    dot = X @ X.T
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.clip(dot / np.outer(nx, nx), -1.0, 1.0)
    c = np.where(np.isfinite(c), c, 1.0)
    th = np.arccos(c)
    return np.outer(nx, nx) / (2 * np.pi) * (np.sin(th) + (np.pi - th) * c) + dot * (np.pi - th) / (2 * np.pi)


# --------------------------------------------------------------------------------------------
# the orthogonal pair x = r e1, x' = r e2 under w ~ N(0, sigma^2 I_d): an exact reduction
# --------------------------------------------------------------------------------------------
def _perp_integrands(w1, w2, q, r, eps):
    """Per-sample integrands (cross, diag x, diag x') of K_NTK = E[K K'] + E[grad_w K . grad_w K']
    for x = r e1, x' = r e2, from the three numbers they depend on: w1, w2 and q = ||w_{3:d}||^2.

    With s = w.x, t = w.x', D = ||w - x||^2 + eps and grad_w K = a x - b (w - x), a = 2s/D,
    b = 2s^2/D^2 (000 Thm 5): x.x' = 0, x.(w - x') = s, (w - x).x' = t and (w - x).(w - x') =
    ||w||^2 - s - t give every inner product in closed form (checked against ``yatmath.yat.grad``
    to rounding in the check itself)."""
    s, t = r * w1, r * w2
    nw = w1 * w1 + w2 * w2 + q
    D = nw - 2 * s + r * r + eps
    Dp = nw - 2 * t + r * r + eps
    K, Kp = s * s / D, t * t / Dp
    a, b = 2 * s / D, 2 * s * s / (D * D)
    ap, bp = 2 * t / Dp, 2 * t * t / (Dp * Dp)
    cross = K * Kp - a * bp * s - b * ap * t + b * bp * (nw - s - t)
    g2 = a * a * r * r - 2 * a * b * (s - r * r) + b * b * (nw - 2 * s + r * r)
    gp2 = ap * ap * r * r - 2 * ap * bp * (t - r * r) + bp * bp * (nw - 2 * t + r * r)
    return cross, K * K + g2, Kp * Kp + gp2


def _perp_T2(w1, w2, q, r, eps):
    """The gradient-term integrands (T2 cross, T2 diagonal at x) for x = r e1, x' = r e2: those of
    ``_perp_integrands`` less the feature products K K' and K^2."""
    cross, dx, _ = _perp_integrands(w1, w2, q, r, eps)
    nw = w1 * w1 + w2 * w2 + q
    K = (r * w1) ** 2 / (nw - 2 * r * w1 + r * r + eps)
    Kp = (r * w2) ** 2 / (nw - 2 * r * w2 + r * r + eps)
    return cross - K * Kp, dx - K * K


def _perp_draw(d, sigma, r, eps, n, rng):
    """The integrands for n weights w ~ N(0, sigma^2 I_d): w1, w2 ~ N(0, sigma^2) and
    ||w_{3:d}||^2 ~ sigma^2 chi^2_{d-2}, drawn exactly (cost independent of d)."""
    w1 = sigma * rng.standard_normal(n)
    w2 = sigma * rng.standard_normal(n)
    q = sigma * sigma * rng.chisquare(d - 2, n) if d > 2 else np.zeros(n)
    return _perp_integrands(w1, w2, q, r, eps)


def _perp_normalised(d, sigma, r, eps, *, n, batches, rng):
    """K_NTK(x,x') / sqrt(K_NTK(x,x) K_NTK(x',x')) per batch of n weights; (mean, 95% t-CI)."""
    vals = []
    for _ in range(batches):
        c, a, b = _perp_draw(d, sigma, r, eps, n, rng)
        vals.append(c.mean() / math.sqrt(a.mean() * b.mean()))
    m, ci = S.mean_ci(vals)
    return float(m), (float(ci[0]), float(ci[1]))


def _perp_reduction_error(rng):
    """Max relative difference between the reduced integrands and the full d-dimensional ones
    computed by yatmath.yat.product / yatmath.yat.grad on the same weights."""
    worst = 0.0
    for d, sig, r, eps in ((2, 0.5, 0.1, 0.01), (7, 1.3, 0.8, 0.3), (40, 3.0, 2.0, 1.0)):
        W = sig * rng.standard_normal((2000, d))
        X = np.zeros((2, d))
        X[0, 0] = X[1, 1] = r
        K, G = _ntk_features(W, X, eps)
        full = (K[:, 0] * K[:, 1] + (G[:, 0] * G[:, 1]).sum(1), K[:, 0] ** 2 + (G[:, 0] ** 2).sum(1),
                K[:, 1] ** 2 + (G[:, 1] ** 2).sum(1))
        red = _perp_integrands(W[:, 0], W[:, 1], (W[:, 2:] ** 2).sum(1), r, eps)
        worst = max(worst, *(S.rel_err(g, f) for f, g in zip(full, red)))
    return worst


def _pattern_search(f, z, lo, hi, *, step=0.5, min_step=0.1):
    """Maximise f over z = (d, log10 sigma, log10 r, log10 eps) in the box [lo, hi] by a compass
    search (d moved by about step*d, the logs by step), halving the step when nothing improves."""
    fz = f(z)
    while step > min_step:
        improved = False
        for i in range(len(z)):
            for sgn in (-1, 1):
                zz = list(z)
                zz[i] = z[i] + sgn * (max(1, round(z[i] * step)) if i == 0 else step)
                zz[i] = min(max(zz[i], lo[i]), hi[i])
                if zz == list(z):
                    continue
                fn = f(zz)
                if fn > fz:
                    z, fz, improved = zz, fn, True
        if not improved:
            step /= 2
    return fz, z


# --------------------------------------------------------------------------------------------
# yat.ntk.formula
# --------------------------------------------------------------------------------------------
_EMP_EXPR = ("(lambda W, a: float(np.sum(yatmath.yat.product(W, np.array(x), eps, backend='numpy') ** 2)"
             " + np.sum(a ** 2 * np.sum(yatmath.yat.grad(W, np.array(x), eps).w ** 2, axis=1))))"
             "(sigma * np.random.default_rng(seed).standard_normal((m, len(x))),"
             " np.random.default_rng(seed + 1).standard_normal(m) / math.sqrt(m))")


@register("yat.ntk.formula",
          method="finite-width NTK K_m(x,x) of f = sum alpha_i K(w_i,x) with alpha_i ~ N(0,1/m) (the "
                 "proof's own parameterisation) for m = 1e2..1e5 vs the formula E[K K'] + "
                 "E[grad K . grad K'] (Monte Carlo, ntk_gram); R2 m^-1/2 sum a_i K; PSD by construction")
def check_ntk_formula(ctx):
    d, eps, sig = 3, 1.0, 1.0
    X = ctx.rng("points").standard_normal((4, d)) / math.sqrt(d) * 1.2
    n_ref = ctx.pick(400_000, 1_000_000)
    T1, T2 = Y.kernel.ntk_gram(X, eps, sigma=sig, n_w=n_ref, seed=11, terms=True)
    Th = T1 + T2
    x = X[0].tolist()
    ms = [100, 1_000, 10_000, 100_000]
    emp_r1, emp_r2 = [], []
    for m in ms:
        b = {"x": x, "eps": eps, "sigma": sig, "m": m, "seed": 5}
        emp_r1.append(float(evaluate(_EMP_EXPR, b)))
        W = sig * np.random.default_rng(5).standard_normal((m, d))
        a = np.random.default_rng(6).standard_normal(m)
        K, G = _K(W, X[0], eps), _gw(W, X[0], eps)
        emp_r2.append(float((np.sum(K * K) + np.sum(a * a * np.sum(G * G, 1))) / m))
    th00 = float(Th[0, 0])
    ratio_r1 = [e / th00 for e in emp_r1]
    rel_r2 = [abs(e - th00) / th00 for e in emp_r2]
    # R1: K_m(x,x) = sum_i K^2 + sum_i alpha_i^2 |grad|^2 ~ m E[K^2] + E|grad|^2: grows linearly in m
    grows = ratio_r1[-1] > 1.0 + 10 * max(rel_r2[-1], 0.01) and ratio_r1[-1] > ratio_r1[0]
    r1 = V.holds(not grows)
    ce = {"x": x, "eps": eps, "sigma_w": sig, "m": ms[-1], "alpha_law": "N(0, 1/m)",
          "K_m(x,x)": emp_r1[-1], "formula_Theta(x,x)": th00, "ratio": ratio_r1[-1]}
    r2_ev = Evidence(
        verdict=V.holds(rel_r2[-1] < rel_r2[0]),
        reading=Reading("f = m^-1/2 sum a_i K(w_i,x), a_i ~ N(0,1): K_m = (1/m)(sum K K' + sum a^2 grad.grad) "
                        "-> the formula (law of large numbers)",
                        "catalogue Read R2 (the standard NTK parameterisation; not the one 000 App C.18 writes)"),
        numbers={"m": ms, "rel_err": rel_r2},
        scope=Scope("symbolic", "strong law of large numbers for the two i.i.d. averages; numeric instance "
                    "m = 1e2..1e5", universal=True),
        notes="rel. error decreases roughly like m^-1/2 (the Monte Carlo rate).")
    formula = Evidence(
        verdict=r1,
        reading=Reading("f = sum_i alpha_i K(w_i,x) with alpha_i ~ N(0,1/m), K_m = sum K K' + sum alpha_i^2 "
                        "grad.grad' -> E[K K'] + E[grad.grad']",
                        '000 App C.18 proof of Prop 6: "K_m(x,x\') = sum_i K(w_i,x)K(w_i,x\') + sum_i alpha_i^2 '
                        '<grad K, grad K\'> ... assuming appropriate scaling alpha_i ~ N(0,1/m) ... the sums '
                        'converge to expectations"'),
        numbers={"m": ms, "K_m(x,x)": emp_r1, "formula": th00, "K_m_over_formula": ratio_r1,
                 "T1_formula": float(T1[0, 0]), "T2_formula": float(T2[0, 0]), "n_w_reference": n_ref},
        counterexample=ce if r1 == V.REFUTED else None,
        repro=Repro(_EMP_EXPR, {"x": x, "eps": eps, "sigma": sig, "m": ms[-1], "seed": 5},
                    expected=emp_r1[-1], rtol=1e-9,
                    tol_reason="the same float64 expression; only BLAS summation order may differ"),
        thresholds=[Threshold("K_m / formula at m = 1e5 (limit claimed: 1)", 1.0, "statistical",
                              "the Monte Carlo error of the reference (n_w >= 4e5) is < 1%; a ratio that grows "
                              "like m is far beyond it", ratio_r1[-1], ratio_r1[-1])],
        other_readings={"R2_m^-1/2_scaling": r2_ev},
        scope=Scope("instance", f"x = X[0], d = {d}, eps = {eps}, m in {ms}"),
        notes="The unscaled feature term sum_i K(w_i,x)^2 grows like m E[K^2]: under the proof's own "
              "alpha_i ~ N(0,1/m) the finite-width NTK diverges; only the gradient term converges.")
    # the proof (a mixture of feature Gram matrices) is the decision; the Monte Carlo Gram T1 + T2,
    # itself such a mixture, must pass the PSD rule of claims.md or the proof has been misread
    psd_num = S.psd_report(T1 + T2)
    psd = Evidence(
        verdict=V.holds(psd_num["psd"]),
        reading=Reading("K_NTK is positive semidefinite (every Gram matrix PSD)",
                        '000 App C.18: "Thus K^NTK ⪰ 0" (the proof proves PSD; strict PD fails: x = 0 gives a '
                        'zero row since K(w,0) = 0 and grad_w K(w,0) = 0)'),
        numbers={"monte_carlo_gram_psd_report": psd_num},
        scope=Scope("symbolic", "K_NTK(x,x') = E_w[<phi_w(x), phi_w(x')>] with phi_w = (K, grad_w K): a "
                    "mixture of Gram matrices of feature maps is PSD", universal=True))
    P = Y.kernel.ntk_gram(np.vstack([X, np.zeros((1, d))]), eps, sigma=sig, n_w=20_000, seed=3)
    rep = S.psd_report(P)
    psd.numbers = {"mc_gram_lambda_min_ratio": rep["ratio"], "rank_with_origin": rep["rank"], "n": 5,
                   "origin_row_max_abs": float(np.abs(P[-1]).max())}
    return Evidence.of_parts(
        {"formula": formula, "psd": psd}, numbers={"K_m_over_formula_R1": ratio_r1, "rel_err_R2": rel_r2},
        notes="'inherits the orthogonality-sensitivity' is the subject of yat.ntk.orthogonality.")


# --------------------------------------------------------------------------------------------
# yat.ntk.orthogonality
# --------------------------------------------------------------------------------------------
_NTK_EXPR = ("(lambda G: [float(G[0, 1]), float(G[0, 1] / math.sqrt(G[0, 0] * G[1, 1]))])"
             "(yatmath.yat.kernel.ntk_gram(np.array([x, xp]), eps, sigma=sigma, n_w=n_w, seed=seed))")
_NTK_EXPR_CHUNK = _NTK_EXPR.replace("seed=seed)", "seed=seed, chunk=chunk)")


@register("yat.ntk.orthogonality",
          method="Monte Carlo (ntk_gram, w ~ N(0, sigma^2 I)) of K_NTK(x, x_perp) with batch 95% CIs for "
                 "d in {2,4,16,64}, sigma in {1, 1/sqrt d}, ||x|| in {0.5,1,2}, eps in {0.1,1}; R3: compass "
                 "search (>= 24 restarts) over d, sigma, ||x||, eps against the ReLU NTK's 1/(2 pi); R2: the "
                 "d -> infinity limit sigma^2/(3 sigma^2 + 4) derived (sympy moments) and measured to d = 1e6 "
                 "(exact reduction of the integrands to w1, w2, ||w_3:d||^2)")
def check_ntk_orthogonality(ctx):
    n_w = ctx.pick(40_000, 80_000)
    B = 10
    ds = (2, 4, 16, 64)
    rows = []
    for d in ds:
        for sname, sig in (("sigma_1", 1.0), ("sigma_1/sqrt(d)", 1 / math.sqrt(d))):
            for r in ((1.0,) if d > 4 else (0.5, 1.0, 2.0)):
                for eps in (0.1, 1.0):
                    X = np.zeros((2, d))
                    X[0, 0] = r
                    X[1, 1] = r
                    offs, nrms = [], []
                    for b in range(B):
                        G = Y.kernel.ntk_gram(X, eps, sigma=sig, n_w=n_w // B, seed=1000 * d + b)
                        offs.append(G[0, 1])
                        nrms.append(G[0, 1] / math.sqrt(G[0, 0] * G[1, 1]))
                    m, ci = S.mean_ci(offs)
                    mn, cin = S.mean_ci(nrms)
                    rows.append({"d": d, "w_law": sname, "sigma": sig, "r": r, "eps": eps,
                                 "K_ntk_perp": float(m), "ci": [float(ci[0]), float(ci[1])],
                                 "normalised": float(mn), "normalised_ci": [float(cin[0]), float(cin[1])]})
    nonzero = [q for q in rows if q["ci"][0] > 0 or q["ci"][1] < 0]
    # the decisive example: d = 2, r = 1, eps = 1, sigma = 1, one long run through the public function
    xq, xpq = [1.0, 0.0], [0.0, 1.0]
    b = {"x": xq, "xp": xpq, "eps": 1.0, "sigma": 1.0, "n_w": 400_000, "seed": 7}
    val, nval = evaluate(_NTK_EXPR, b)
    ex = next(q for q in rows if q["d"] == 2 and q["w_law"] == "sigma_1" and q["r"] == 1.0 and q["eps"] == 1.0)
    r1 = V.holds(len(nonzero) == 0)
    relu_norm = 1 / (2 * np.pi)
    grid_worst = max(rows, key=lambda q: abs(q["normalised"]))
    # the exact reduction (w1, w2, ||w_3:d||^2) behind the search and the large-d runs, against the
    # full d-dimensional integrands of yatmath.yat.product / yatmath.yat.grad on the same weights
    red_err = _perp_reduction_error(ctx.rng("reduction"))
    red_tol = 1e-12
    # ---- R3: adversarial search of the normalised value over the theorem's free parameters ----
    lo_b, hi_b = (2, -1.0, -2.0, -3.0), (64, 2.0, 1.0, 1.0)   # d, log10 sigma, log10 ||x||, log10 eps
    n_s = ctx.pick(3_000, 10_000)
    crn = int(ctx.rng("crn").integers(2 ** 31))
    n_evals = [0]

    def signed(z):
        n_evals[0] += 1
        c, a, b_ = _perp_draw(int(z[0]), 10 ** z[1], 10 ** z[2], 10 ** z[3], n_s, np.random.default_rng(crn))
        return float(c.mean() / math.sqrt(a.mean() * b_.mean()))

    srng = ctx.rng("r3_starts")
    d_starts, per_d = (2, 3, 4, 6, 8, 16, 32, 64), ctx.pick(3, 6)
    found = []
    for d0 in d_starts:
        for _ in range(per_d):
            z0 = [d0, *srng.uniform(lo_b[1:], hi_b[1:]).tolist()]
            for sgn in (1.0, -1.0):
                fz, z = _pattern_search(lambda zz, sgn=sgn: sgn * signed(zz), z0, lo_b, hi_b)
                found.append((fz, sgn, z))
    n_starts = len(d_starts) * per_d

    def confirm(z, tag):
        m, ci = _perp_normalised(int(z[0]), 10 ** z[1], 10 ** z[2], 10 ** z[3], n=20_000, batches=10,
                                 rng=ctx.rng(tag))
        return {"d": int(z[0]), "sigma": 10 ** z[1], "norm_x": 10 ** z[2], "eps": 10 ** z[3],
                "normalised": m, "ci95": list(ci)}

    top = confirm(max(found, key=lambda f: f[0])[2], "r3_confirm")
    top_pos = confirm(max((f for f in found if f[1] > 0), key=lambda f: f[0])[2], "r3_confirm_pos")
    lo_abs = min(abs(top["ci95"][0]), abs(top["ci95"][1])) if top["ci95"][0] * top["ci95"][1] > 0 else 0.0
    hi_abs = max(abs(top["ci95"][0]), abs(top["ci95"][1]))
    r3_v = V.INCONCLUSIVE if red_err > red_tol else (
        V.REFUTED if lo_abs > relu_norm else V.holds(hi_abs < relu_norm, otherwise=V.INCONCLUSIVE))
    dq, rq = top["d"], top["norm_x"]
    bx = {"x": [rq] + [0.0] * (dq - 1), "xp": [0.0, rq] + [0.0] * (dq - 2), "eps": top["eps"],
          "sigma": top["sigma"], "n_w": 100_000, "seed": 9}
    r3_val = [float(v) for v in evaluate(_NTK_EXPR, bx)]
    r3 = Evidence(
        verdict=r3_v,
        reading=Reading("|normalised K_NTK(x,x_perp)| < the ReLU NTK's 1/(2 pi) for every w ~ N(0, sigma^2 I_d), "
                        "every x ⊥ x' and every eps > 0 (the ⵟ-NTK is closer to zero than the ReLU NTK)",
                        '000 Remark 8: "At theta = pi/2 (orthogonality), K_ReLU ∝ ||x|| ||x\'||, which is non-zero. '
                        'In contrast, the ⵟ-NTK approaches zero, providing stronger implicit separation"; Thm 17: '
                        '"suppose the weight initialization distribution mu over w is spherically symmetric (e.g., '
                        'w ~ N(0, sigma^2 I))" (sigma, d, ||x|| and eps are free)'),
        numbers={"relu_normalised": relu_norm, "search_maximiser_fresh_seeds": top,
                 "search_maximiser_ntk_gram_100k": r3_val, "largest_positive_found": top_pos,
                 "restarts": n_starts, "evaluations": n_evals[0], "weights_per_evaluation": n_s,
                 "grid_32_worst": {k: grid_worst[k] for k in ("d", "w_law", "r", "eps", "normalised",
                                                              "normalised_ci")},
                 "reduction_max_rel_diff": red_err},
        thresholds=[Threshold("lower end of the 95% CI of |normalised K_NTK(x,x_perp)| at the search maximiser "
                              "vs the ReLU NTK's 1/(2 pi)", relu_norm, "statistical",
                              "Student-t 95% CI over 10 batches of 20000 fresh weights at the maximiser; 1/(2 pi) "
                              "is the bias-free ReLU NTK (000 Remark 8's arc-cosine form plus its x.x' term) "
                              "normalised at theta = pi/2", lo_abs, lo_abs),
                    Threshold("reduced vs full-dimensional NTK integrands (max relative difference)", red_tol,
                              "precision", "float64: the same closed-form products summed in another order "
                              "(rounding ~1e-15 relative)", red_err, red_err)],
        scope=Scope("search", f"compass search from {n_starts} random starts ({len(d_starts)} values of d x "
                    f"{per_d}), each run to maximise +value and -value: d in [2, 64], sigma in [0.1, 100], "
                    f"||x|| = ||x'|| in [0.01, 10], eps in [1e-3, 10]; {n_s} weights per evaluation with common "
                    f"random numbers, {n_evals[0]} evaluations; the maximiser re-estimated on fresh weights",
                    universal=True),
        counterexample=None if r3_v != V.REFUTED else {
            "x": bx["x"], "x_perp": bx["xp"], "eps": top["eps"], "sigma_w": top["sigma"], "d": dq,
            "normalised_mean_10x20k": top["normalised"], "ci95": top["ci95"], "relu_normalised": relu_norm,
            "ntk_gram_100k_[K_perp, normalised]": r3_val},
        repro=Repro(_NTK_EXPR, bx, expected=r3_val, rtol=1e-9,
                    tol_reason="the same float64 Monte Carlo sum; only BLAS summation order may differ"),
        notes="Decided by an adversarial search (claims.md rule 5(b)): the free parameters of Thm 17 (sigma of "
              "N(0, sigma^2 I), d, ||x||, eps > 0) are searched, since a 32-configuration instance grid cannot "
              "confirm a universal statement (its worst interval, "
              f"{[round(v, 4) for v in grid_worst['normalised_ci']]}, already reaches 1/(2 pi) = {relu_norm:.4f}). "
              f"The search maximiser has |normalised| = {abs(top['normalised']):.3f} (95% CI of the signed value "
              f"[{top['ci95'][0]:.4f}, {top['ci95'][1]:.4f}] at d = {top['d']}, sigma = {top['sigma']:.3g}, ||x|| = "
              f"{top['norm_x']:.3g}, eps = {top['eps']:.3g}), "
              f"{abs(top['normalised']) / relu_norm:.1f} times the ReLU value.  Read with its sign (Yat below "
              f"+1/(2 pi)), the largest positive value found is {top_pos['normalised']:.3f} (95% CI "
              f"[{top_pos['ci95'][0]:.3f}, {top_pos['ci95'][1]:.3f}], sigma = {top_pos['sigma']:.3g}, d = "
              f"{top_pos['d']}), {'also above' if top_pos['ci95'][0] > relu_norm else 'not above'} it.  "
              "The search uses the exact reduction of the integrands to (w1, w2, "
              "||w_3:d||^2) (checked against yatmath.yat.grad); the reproduction uses the public ntk_gram.")
    # ---- R2: the limit d -> infinity, derived and measured ----
    sg, rr = sp.symbols("sigma r", positive=True)
    s_n = spstats.Normal("s", 0, sg * rr)
    Es2, Es4 = spstats.E(s_n ** 2), spstats.E(s_n ** 4)
    lim = sp.simplify((Es2 ** 2 / sg ** 4) / (Es4 / sg ** 4 + 4 * rr ** 2 * Es2 / sg ** 4))
    lim1 = float(lim.subs(sg, 1))
    n_b = ctx.pick(20_000, 100_000)
    d_grid = (64, 512, 10_000, 1_000_000)
    curves = {}
    for sv in (0.5, 1.0, 2.0):
        curves[f"sigma={sv}"] = [_perp_normalised(dd, sv, 1.0, 1.0, n=n_b, batches=10, rng=ctx.rng(f"r2_{sv}_{dd}"))
                                 for dd in d_grid]
    fanin = [_perp_normalised(dd, 1 / math.sqrt(dd), 1.0, 1.0, n=n_b, batches=10, rng=ctx.rng(f"r2_fanin_{dd}"))
             for dd in d_grid]
    m_big, ci_big = curves["sigma=1.0"][-1]
    corroborated = V.from_interval(ci_big, lim1) == V.CONFIRMED and ci_big[0] > 0 and red_err <= red_tol
    r2_v = V.holds(lim1 == 0.0) if corroborated else V.INCONCLUSIVE
    b2 = {"x": [1.0] + [0.0] * 511, "xp": [0.0, 1.0] + [0.0] * 510, "eps": 1.0, "sigma": 1.0, "n_w": 20_000,
          "seed": 3, "chunk": 4_000}
    r2_val = [float(v) for v in evaluate(_NTK_EXPR_CHUNK, b2)]
    r2 = Evidence(
        verdict=r2_v,
        reading=Reading("the normalised K_NTK(x,x_perp) -> 0 as d -> infinity",
                        '000 App C.20 proof: "O(1/d^2) relative to the aligned case ... cross-correlations '
                        'vanish or become O(1/d)"'),
        numbers={"limit_formula": str(lim), "limit_sigma_1": lim1,
                 "d": list(d_grid),
                 "normalised_[mean,ci]": {k: [[m, list(c)] for m, c in v] for k, v in curves.items()},
                 "limits": {f"sigma={sv}": float(lim.subs(sg, sv)) for sv in (0.5, 1.0, 2.0)},
                 "fan_in_sigma_1/sqrt(d)_[mean,ci]": [[m, list(c)] for m, c in fanin],
                 "ntk_gram_d512_sigma1_20k_[K_perp, normalised]": r2_val, "weights_per_batch": n_b},
        thresholds=[Threshold("lower end of the 95% CI of the normalised value at d = 1e6, sigma = 1 (the "
                              "reading claims the limit 0)", 0.0, "statistical",
                              "Student-t 95% CI over 10 batches (exact reduced sampler); the same interval "
                              f"contains the derived limit sigma^2/(3 sigma^2 + 4) = {lim1:.6f}", ci_big[0],
                              ci_big[0])],
        scope=Scope("proof", "written argument (notes) with sympy for the Gaussian moments; Monte Carlo at d = 64, "
                    "512, 1e4, 1e6 for sigma in {0.5, 1, 2} corroborates the limit", universal=True),
        counterexample=None if r2_v != V.REFUTED else {
            "w_law": "N(0, I_d) (sigma = 1)", "x": "e1", "x_perp": "e2", "eps": 1.0, "limit": lim1,
            "d=1e6_mean": m_big, "d=1e6_ci95": list(ci_big), "d=512_ntk_gram_20k_normalised": r2_val[1]},
        repro=Repro(_NTK_EXPR_CHUNK, b2, expected=r2_val, rtol=1e-9,
                    tol_reason="the same float64 Monte Carlo sum; only BLAS summation order may differ"),
        plot=Plot({k: (list(d_grid), [m for m, _ in v]) for k, v in curves.items()}, "d", "normalised K_NTK(x, x_perp)",
                  reference={f"limit sigma={sv}": (list(d_grid), [float(lim.subs(sg, sv))] * len(d_grid))
                             for sv in (0.5, 1.0, 2.0)}, logy=False),
        notes="Proof of the limit (sigma fixed, ||x|| = ||x'|| = r, eps fixed): s = w.x and t = w.x' are independent "
              "N(0, sigma^2 r^2); D = ||w||^2 - 2s + r^2 + eps and D' satisfy D/(sigma^2 d) -> 1 in probability "
              "(chi^2_d / d concentrates), and D, D' >= ||w_3:d||^2 = sigma^2 chi^2_{d-2}, whose negative moments "
              "E[(d/chi^2_{d-2})^k] stay bounded for d > 2k + 2: the uniform integrability that passes the limit "
              "through each expectation below.  Hence d^2 T1(x,x') -> "
              "E[s^2]E[t^2]/sigma^4 = r^4 and d^2 T1(x,x) -> E[s^4]/sigma^4 = 3 r^4.  With grad_w K = 2s x/D - "
              "2s^2 (w-x)/D^2: d^2 E|grad K(w,x)|^2 = d^2 E[4 s^2 r^2/D^2 - 8 s^3 (s - r^2)/D^3 + 4 s^4 ||w-x||^2/D^4] "
              "-> 4 r^2 E[s^2]/sigma^4 = 4 r^4/sigma^2 (the last two terms are O(1/d)), and d^2 E[grad K(w,x) . "
              "grad K(w,x')] = d^2 E[-4 s^2 t^2/(D D'^2) - 4 s^2 t^2/(D^2 D') + 4 s^2 t^2 (||w||^2 - s - t)/(D^2 "
              "D'^2)] = O(1/d).  So the normalised value -> r^4/(3 r^4 + 4 r^4/sigma^2) = sigma^2/(3 sigma^2 + 4) "
              f"(sympy: {lim}), which is 1/7 at sigma = 1 and positive for every sigma > 0: not 0.  Measured at "
              f"sigma = 1: {m_big:.4f} (95% CI [{ci_big[0]:.4f}, {ci_big[1]:.4f}]) at d = 1e6; the public "
              f"ntk_gram gives {r2_val[1]:.4f} at d = 512.  Only a law whose scale shrinks with d (fan-in sigma = "
              "1/sqrt(d), a different law at each d) drives the value towards 0 (recorded).")
    main = Evidence(
        verdict=r1,
        reading=Reading("K_NTK(x, x_perp) = 0 (lim of K_NTK / (||x||^2 ||x'||^2) as the angle -> pi/2 is 0)",
                        '000 Thm 17: "If x ⊥ x\' ... K^NTK(x,x\') = o(||x||^2||x\'||^2) as the angle between x '
                        'and x\' approaches pi/2"; Remark 1(ii) "the NTK -> 0 as x ⊥ x\'"; Remark 8 "the ⵟ-NTK '
                        'approaches zero"'),
        numbers={"n_configs": len(rows), "n_ci_excluding_0": len(nonzero), "rows": rows,
                 "example_d2": ex, "example_long_run": {"K_ntk": float(val), "normalised": float(nval)}},
        counterexample={"x": xq, "x_perp": xpq, "eps": 1.0, "sigma_w": 1.0, "d": 2,
                        "K_ntk_perp_400k": float(val), "normalised": float(nval),
                        "batch_ci95_40k": ex["ci"]} if r1 == V.REFUTED else None,
        repro=Repro(_NTK_EXPR, b, expected=[float(val), float(nval)]),
        thresholds=[Threshold("95% CI of K_NTK(x,x_perp) excludes 0", 0.0, "statistical",
                              "Student-t 95% CI over 10 Monte Carlo batches", ex["ci"][1], ex["ci"][1])],
        other_readings={"R2_d_to_infinity": r2, "R3_below_relu": r3},
        scope=Scope("instance", f"d in {ds}, sigma in (1, 1/sqrt d), ||x|| in (0.5,1,2), eps in (0.1,1), "
                    f"n_w = {n_w} per configuration"),
        notes="T1 = E[K(w,x)K(w,x')] > 0 for every w-law with a density; T2 is negative; their sum is "
              "non-zero at exact orthogonality.")
    return main


# --------------------------------------------------------------------------------------------
# yat.ntk.moment_identity
# --------------------------------------------------------------------------------------------
@register("yat.ntk.moment_identity",
          method="sympy integration over S^1 and S^2; Gaussian-norm factorisation for every d; Monte Carlo "
                 "d <= 128 with CIs; the orthogonal/aligned ratio of the identity itself; T2 cross/diagonal "
                 "ratio vs d with a bootstrap log-log fit")
def check_ntk_moment_identity(ctx):
    t, p = sp.symbols("t p", real=True)
    a, b, c, e = sp.symbols("a b c e", real=True)
    I2 = sp.integrate(sp.expand((sp.cos(t) * a + sp.sin(t) * b) ** 2 * (sp.cos(t) * c + sp.sin(t) * e) ** 2),
                      (t, 0, 2 * sp.pi)) / (2 * sp.pi)
    res2 = sp.simplify(I2 - ((a * a + b * b) * (c * c + e * e) + 2 * (a * c + b * e) ** 2) / 8)
    b1, b2 = sp.symbols("b1 b2", real=True)
    o3 = (sp.sin(t) * sp.cos(p), sp.sin(t) * sp.sin(p), sp.cos(t))
    I3 = sp.integrate(sp.integrate(sp.expand((a * o3[0]) ** 2 * (b1 * o3[0] + b2 * o3[1]) ** 2 * sp.sin(t)),
                                   (p, 0, 2 * sp.pi)), (t, 0, sp.pi)) / (4 * sp.pi)
    res3 = sp.simplify(I3 - (a * a * (b1 * b1 + b2 * b2) + 2 * (a * b1) ** 2) / 15)
    rng = ctx.rng("mc")
    n = ctx.pick(100_000, 200_000)
    max_z, mc = 0.0, []
    for d in (2, 4, 16, 64, 128):
        O = rng.standard_normal((n, d))
        O /= np.linalg.norm(O, axis=1, keepdims=True)
        x, xp = rng.standard_normal(d), rng.standard_normal(d)
        for y2 in (xp, x):
            vals = (O @ x) ** 2 * (O @ y2) ** 2
            m, ci = S.mean_ci(vals)
            f = ((x @ x) * (y2 @ y2) + 2 * (x @ y2) ** 2) / (d * (d + 2))
            se = (ci[1] - ci[0]) / (2 * 1.96)
            max_z = max(max_z, abs(m - f) / se)
        mc.append(d)
    ident = Evidence(
        verdict=V.holds(res2 == 0 and res3 == 0 and max_z < 4.0),
        reading=Reading("E[(w.x)^2 (w.x')^2] = (|x|^2|x'|^2 + 2(x.x')^2)/(d(d+2)) for w uniform on S^{d-1}",
                        "000 App C.20 proof of Thm 17"),
        numbers={"sympy_residual_d2": str(res2), "sympy_residual_d3": str(res3), "mc_max_z": max_z, "mc_d": mc},
        scope=Scope("symbolic", "every d: for g ~ N(0,I_d), g = |g| w with |g| independent of w, "
                    "E[(g.x)^2(g.x')^2] = |x|^2|x'|^2 + 2(x.x')^2 (Isserlis) and E|g|^4 = d(d+2); sympy "
                    "integration d = 2, 3; Monte Carlo d <= 128 within 4 s.e.", universal=True),
        thresholds=[Threshold("Monte Carlo |z| vs the formula", 4.0, "statistical",
                              "4 standard errors (two-sided p < 1e-4 per comparison)", max_z, max_z)])
    # orthogonal vs aligned, from the identity itself: (1*1 + 0)/(d(d+2)) over (1*1 + 2*1)/(d(d+2)) = 1/3
    d0 = 128
    expr = "((nx2 * ny2 + 2 * 0.0) / (d * (d + 2))) / ((nx2 * nx2 + 2 * nx2 ** 2) / (d * (d + 2)))"
    bnd = {"nx2": 1.0, "ny2": 1.0, "d": d0}
    ratio = float(evaluate(expr, bnd))
    d_s = sp.Symbol("d", positive=True)
    ratio_sym = sp.simplify((1 / (d_s * (d_s + 2))) / (3 / (d_s * (d_s + 2))))      # |x| = |x'| = 1, x.x' = 0 / = 1
    lim_ratio = sp.limit(ratio_sym, d_s, sp.oo)
    lim_ratio_d2 = sp.limit(ratio_sym * d_s ** 2, d_s, sp.oo)
    ortho = Evidence(
        verdict=V.holds(lim_ratio == 0),
        reading=Reading("E[(w.x)^2(w.x_perp)^2] / E[(w.x)^4] = O(1/d^2) for |x| = |x_perp|",
                        '000 App C.20: "leaving only the ||x||^2||x\'||^2 term which is O(1/d^2) relative to the '
                        'aligned case"'),
        numbers={"ratio_exact": ratio, "d": d0, "ratio_for_every_d": str(ratio_sym),
                 "lim_d_to_inf_ratio": str(lim_ratio), "lim_d_to_inf_ratio_times_d^2": str(lim_ratio_d2)},
        counterexample={"d": d0, "x": "e1", "x_perp": "e2", "E_orth": 1 / (d0 * (d0 + 2)),
                        "E_aligned": 3 / (d0 * (d0 + 2)), "ratio": ratio},
        repro=Repro(expr, bnd, expected=ratio, rtol=1e-15, tol_reason="exact rational in float64"),
        thresholds=[Threshold("lim_{d->inf} E_orth/E_aligned (O(1/d^2) relative to the aligned case needs 0)", 0.0,
                              "precision", "exact arithmetic (sympy): the ratio is 1/3 for every d, so its limit is "
                              "1/3 and ratio * d^2 = d^2/3 -> inf; no constant C has ratio <= C/d^2 for d > sqrt(3 C)",
                              float(lim_ratio), float(lim_ratio))],
        notes="Both numerators share the 1/(d(d+2)) factor; the ratio is exactly 1/3 for every d.")
    # T2 cross term vs diagonal, sigma = 1, |x| = 1, eps = 1
    ds = (16, 32, 64, 128)
    R = 10
    vals = np.zeros((len(ds), R))
    for i, d in enumerate(ds):
        X = np.zeros((2, d))
        X[0, 0] = X[1, 1] = 1.0
        for r_ in range(R):
            _, T2 = Y.kernel.ntk_gram(X, 1.0, sigma=1.0, n_w=ctx.pick(10_000, 20_000), seed=d * 100 + r_,
                                      terms=True)
            vals[i, r_] = abs(T2[0, 1]) / T2[0, 0]
    fit = S.loglog_fit(ds, vals, ctx.rng("fit"))
    # the asymptotic decided by a proof (rule 5(b)/(c)): d |T2(x,x_perp)| / T2(x,x) -> 1 for every sigma,
    # r = |x| = |x'| and eps, measured with the exact reduced sampler up to d = 1e6 for several (sigma, r, eps)
    big_d = (100, 1_000, 10_000, 1_000_000)
    lim_rows = {}
    for sg_, r_, e_ in ((1.0, 1.0, 1.0), (0.5, 2.0, 0.1), (2.0, 0.5, 3.0)):
        row = []
        for dd in big_d:
            rg = ctx.rng(f"t2_{sg_}_{r_}_{e_}_{dd}")
            per = []
            for _ in range(10):
                w1_ = sg_ * rg.standard_normal(ctx.pick(20_000, 100_000))
                w2_ = sg_ * rg.standard_normal(w1_.size)
                q_ = sg_ * sg_ * rg.chisquare(dd - 2, w1_.size)
                crs, dia = _perp_T2(w1_, w2_, q_, r_, e_)
                per.append(dd * abs(crs.mean()) / dia.mean())
            m_, ci_ = S.mean_ci(per)
            row.append([float(m_), [float(ci_[0]), float(ci_[1])]])
        lim_rows[f"sigma={sg_},r={r_},eps={e_}"] = row
    at_big = [row[-1] for row in lim_rows.values()]
    corroborated = all(V.from_interval(tuple(ci_), 1.0) == V.CONFIRMED for _, ci_ in at_big)
    # the limit 1 lies in every interval iff it lies in their intersection [max lower, min upper]; the verdict
    # flips when 1 leaves it, i.e. at whichever end is nearer 1
    lo_max, hi_min = max(ci_[0] for _, ci_ in at_big), min(ci_[1] for _, ci_ in at_big)
    near_end = lo_max if abs(1.0 - lo_max) <= abs(hi_min - 1.0) else hi_min
    t2_bound = Bound("decay exponent a in |T2(x,x_perp)| / T2(x,x) = O(d^a)", -1.0, -1.0, "smaller", 0.0,
                     "proof (notes): d |T2(x,x_perp)|/T2(x,x) -> 1, a finite non-zero limit, so the exponent is "
                     "exactly -1; corroborated by the reduced sampler to d = 1e6")
    t2 = Evidence(
        verdict=V.from_tight(t2_bound.tight, t2_bound.claimed, rtol=0.0, better="smaller") if corroborated
        else V.INCONCLUSIVE,
        reading=Reading("|T2(x,x_perp)| / T2(x,x) = O(1/d) or 0", '000 App C.20: "these cross-correlations vanish '
                        'or become O(1/d)"'),
        numbers={"d": list(ds), "ratio_mean": vals.mean(1).tolist(), "fit_d16_128": fit.to_dict(),
                 "d_times_ratio_[mean,ci95]_reduced_sampler": lim_rows, "d_large": list(big_d), "limit": 1.0,
                 "d=1e6_point_estimates": [m_ for m_, _ in at_big], "d=1e6_ci95_intersection": [lo_max, hi_min]},
        bounds=[t2_bound],
        scope=Scope("proof", "written argument (notes) for every sigma > 0, |x| = |x'| = r > 0, eps > 0, w ~ "
                    "N(0, sigma^2 I_d); d * ratio measured at d = 1e2..1e6 for three (sigma, r, eps)",
                    universal=True),
        thresholds=[Threshold("the derived limit 1 inside every 95% CI of d |T2(x,x_perp)|/T2(x,x) at d = 1e6 (three "
                              "(sigma, r, eps)); compared: the end of their intersection [max lower, min upper] "
                              "nearest 1 (a CI bound, not a point estimate)", 1.0, "statistical",
                              "Student-t 95% CI over 10 batches of the exact reduced sampler", near_end, near_end)],
        tried=None if corroborated else Tried(
            printed="000 App C.20 prints only 'O(1/d)'; no constant to compare.",
            search="d = 1e2..1e6 for (sigma, r, eps) in {(1,1,1), (0.5,2,0.1), (2,0.5,3)}: " + str(at_big),
            budget="The sampler at d = 1e6 with 10x more weights (about a minute)."),
        plot=Plot({k: (list(big_d), [m_ for m_, _ in v]) for k, v in lim_rows.items()}, "d",
                  "d |T2(x,x_perp)| / T2(x,x)", reference={"limit 1": (list(big_d), [1.0] * len(big_d))},
                  logy=False),
        notes="Proof (w ~ N(0, sigma^2 I_d), x = r e1, x' = r e2, eps fixed, d -> inf). With s = w.x, t = w.x', "
              "n = ||w||^2, D = n - 2s + r^2 + eps, D' = n - 2t + r^2 + eps and grad_w K = a x - b (w - x), a = "
              "2s/D, b = 2s^2/D^2 (000 Thm 5): T2(x,x_perp) = E[-4 s^2 t^2/(D D'^2) - 4 s^2 t^2/(D^2 D') + "
              "4 s^2 t^2 (n - s - t)/(D^2 D'^2)] and T2(x,x) = E[4 s^2 r^2/D^2 - 8 s^3 (s - r^2)/D^3 + 4 s^4 (D - "
              "eps)/D^4]. Since D/n, D'/n = 1 + O(1/d) and (n - s - t)/n = 1 + O(1/d), the cross integrand is "
              "-4 s^2 t^2/n^3 (1 + O(1/d)) and the diagonal one 4 s^2 r^2/n^2 (1 + O(1/d)); s, t are independent "
              "N(0, sigma^2 r^2) and n/(sigma^2 d) -> 1 with E[(d/chi^2_{d-2})^k] bounded for d > 2k + 2 "
              "(uniform integrability, as in yat.ntk.orthogonality R2). Hence d^3 T2(x,x_perp) -> -4 r^4/sigma^2 "
              "and d^2 T2(x,x) -> 4 r^4/sigma^2, so d |T2(x,x_perp)|/T2(x,x) -> 1: the ratio is O(1/d), with "
              "exponent exactly -1 (the claim's rate is tight). The finite-d fit over d = 16..128 (ntk_gram) is "
              "kept for the record; its slope is not asymptotic. Measured d * ratio at d = 1e6: "
              + "; ".join(f"{k}: {row[-1][0]:.4f}" for k, row in lim_rows.items()) + ".")
    return Evidence.of_parts({"identity": ident, "orth_vs_aligned_O(1/d^2)": ortho, "T2_cross_O(1/d)": t2},
                             numbers={"orth_over_aligned": ratio, "T2_slope": fit.slope})


# --------------------------------------------------------------------------------------------
# yat.ntk.class_separation
# --------------------------------------------------------------------------------------------
@register("yat.ntk.class_separation",
          method="Cor 4 under Thm 17's hypotheses (any N(0, sigma^2 I), sigma free): cross/same Yat-NTK ratio "
                 "K(x_i,x_j)/K(x_i,x_k) for x_i = e1 ⊥ x_j = e2 and x_k = x_i (d = 32, eps = 1) over a sigma grid "
                 "in [0.1, 100] (exact reduced sampler, 95% batch CIs) against the ReLU NTK's ratio on the same "
                 "inputs (000 Remark 8); synthetic classes with cross-class cosine c (ntk_gram) recorded")
def check_ntk_class_separation(ctx):
    d, eps = 32, 1.0
    # the orthogonal pair: x_i = e1 (class c), x_j = e2 (class c'), same-class partner x_k = x_i
    Xo = np.eye(2, d)
    Gr = _relu_ntk(Xo)
    relu_ratio = float(Gr[0, 1] / Gr[0, 0])                       # = 1/(2 pi)
    remark8_ratio = 1.0 / math.pi                                 # Remark 8's printed form: 1 / pi at pi/2
    sigmas = np.logspace(-1, 2, ctx.pick(31, 61))
    n_b = ctx.pick(20_000, 50_000)
    grid = []
    for i, sg in enumerate(sigmas):
        m, ci = _perp_normalised(d, float(sg), 1.0, eps, n=n_b, batches=10, rng=ctx.rng(f"sigma{i}"))
        grid.append({"sigma": float(sg), "ratio": m, "ci95": list(ci)})
    best = max(grid, key=lambda g: g["ci95"][0])
    max_hi = max(g["ci95"][1] for g in grid)
    if best["ci95"][0] > relu_ratio:
        verdict = V.REFUTED
    elif max_hi < relu_ratio:
        verdict = V.NOT_CHECKABLE       # below the ReLU value everywhere: '<<' beyond that has no number
    else:
        verdict = V.INCONCLUSIVE
    bx = {"x": Xo[0].tolist(), "xp": Xo[1].tolist(), "eps": eps, "sigma": best["sigma"], "n_w": 100_000,
          "seed": 5}
    rep_val = [float(v) for v in evaluate(_NTK_EXPR, bx)]
    # synthetic classes with a controlled cross-class cosine c (recorded beside the decision)
    rng = ctx.rng("data")
    per, tau = ctx.pick(8, 10), 0.3
    cs = (0.0, 0.3, 0.6, 0.9)
    n_w = ctx.pick(5_000, 15_000)
    laws = (("yat_sigma_1", 1.0), ("yat_sigma_1/sqrt(d)", 1 / math.sqrt(d)), ("yat_sigma_10", 10.0))
    curves = {name: [] for name, _ in laws} | {"relu": []}
    for c in cs:
        mu1 = np.zeros(d)
        mu1[0] = 1.0
        mu2 = np.zeros(d)
        mu2[0], mu2[1] = c, math.sqrt(1 - c * c)
        X = np.vstack([mu1 + tau * rng.standard_normal((per, d)) / math.sqrt(d),
                       mu2 + tau * rng.standard_normal((per, d)) / math.sqrt(d)])
        lab = np.repeat([0, 1], per)
        same = (lab[:, None] == lab[None, :]) & ~np.eye(2 * per, dtype=bool)
        cross = lab[:, None] != lab[None, :]
        for k, (name, sw) in enumerate(laws):
            G = Y.kernel.ntk_gram(X, eps, sigma=sw, n_w=n_w, seed=int(100 * c) + 7 * k, chunk=5_000)
            dg = np.sqrt(np.diag(G))
            G = G / np.outer(dg, dg)
            curves[name].append(float(G[cross].mean() / G[same].mean()))
        G = _relu_ntk(X)
        dg = np.sqrt(np.diag(G))
        G = G / np.outer(dg, dg)
        curves["relu"].append(float(G[cross].mean() / G[same].mean()))
    at0 = {k: v[0] for k, v in curves.items()}
    return Evidence(
        verdict=verdict,
        reading=Reading("for x_i ⊥ x_j of different classes and x_k of x_i's class, K_NTK(x_i,x_j) << "
                        "K_NTK(x_i,x_k) under every weight law Thm 17 admits (N(0, sigma^2 I), sigma free); '<<' "
                        "is at least the separation the paper claims over the ReLU NTK, i.e. a cross/same ratio "
                        "below the ReLU NTK's on the same inputs",
                        '000 Cor 4 proof: "Direct consequence of Theorem 17: ... different-class inputs (which '
                        'become orthogonal) produce small NTK entries"; Thm 17: "suppose the weight initialization '
                        'distribution mu over w is spherically symmetric (e.g., w ~ N(0, sigma^2 I))"; Remark 8: '
                        '"At theta = pi/2 (orthogonality), K_ReLU ∝ ||x|| ||x\'||, which is non-zero. In contrast, '
                        'the ⵟ-NTK approaches zero, providing stronger implicit separation"'),
        numbers={"d": d, "eps": eps, "relu_ratio": relu_ratio, "remark8_printed_form_ratio": remark8_ratio,
                 "sigma_grid": grid, "maximiser": best, "ntk_gram_100k_at_maximiser_[K_perp, ratio]": rep_val,
                 "weights_per_batch": n_b, "synthetic_classes": {"cos": list(cs), "ratio_curves": curves,
                                                                 "ratio_at_c0": at0, "per_class": per,
                                                                 "noise_tau": tau, "n_w": n_w}},
        thresholds=[Threshold("lower end of the 95% CI of the Yat cross/same NTK ratio at the sigma maximiser vs "
                              "the ReLU NTK's ratio on the same inputs", relu_ratio, "paper",
                              "000 Remark 8: the ReLU NTK's non-zero value at theta = pi/2 is the contrast the paper "
                              "draws ('in contrast, the ⵟ-NTK approaches zero'); bias-free ReLU NTK normalised at "
                              "pi/2 = 1/(2 pi); Student-t 95% CI over 10 batches", best["ci95"][0],
                              best["ci95"][0])],
        scope=Scope("instance", f"{len(sigmas)} values of sigma log-spaced in [0.1, 100] (the free scale of Thm 17's "
                    f"example law), d = {d}, eps = {eps}, x_i = e1, x_j = e2, x_k = x_i; 10 batches of {n_b} weights "
                    "each (exact reduction of the integrands to w1, w2, ||w_3:d||^2)"),
        counterexample=None if verdict != V.REFUTED else {
            "x_i": "e1", "x_j": "e2 (x_i . x_j = 0, different class)", "x_k": "x_i (same class)", "d": d,
            "eps": eps, "w_law": f"N(0, {best['sigma']:.4g}^2 I_d)", "sigma_w": best["sigma"],
            "ratio_K(x_i,x_j)/K(x_i,x_k)": best["ratio"], "ci95": best["ci95"], "relu_ratio": relu_ratio,
            "ntk_gram_100k_[K_perp, ratio]": rep_val},
        repro=Repro(_NTK_EXPR, bx, expected=rep_val, rtol=1e-9,
                    tol_reason="the same float64 Monte Carlo sum; only BLAS summation order may differ"),
        plot=Plot({"Yat NTK cross/same (95% CI mid)": ([g["sigma"] for g in grid], [g["ratio"] for g in grid])},
                  "sigma_w", "K(x_i,x_j) / K(x_i,x_k)", logy=False,
                  reference={"ReLU NTK 1/(2 pi)": ([sigmas[0], sigmas[-1]], [relu_ratio] * 2),
                             "Remark 8 printed form 1/pi": ([sigmas[0], sigmas[-1]], [remark8_ratio] * 2)}),
        notes="'<<' has no printed constant, but the paper fixes a floor: Remark 8 presents the ReLU NTK's "
              "non-zero orthogonal value as the case the ⵟ-NTK improves on, so any reading of '<<' under which "
              "Cor 4 holds needs a ratio below the ReLU NTK's on the same inputs.  Thm 17 (and so Cor 4) admits "
              "every spherically symmetric law; sigma of N(0, sigma^2 I) is searched (claims.md rule 5(b)).  "
              "x_k = x_i is the most favourable same-class partner of equal norm (K_NTK is PSD and K(x,x) depends "
              "only on ||x||, so K(x_i,x_k) <= K(x_i,x_i)).  Measured ratio: "
              f"{grid[0]['ratio']:.3f} at sigma = 0.1, {min(grid, key=lambda g: abs(g['sigma'] - 1))['ratio']:.3f} "
              f"at sigma = 1, {min(grid, key=lambda g: abs(g['sigma'] - 10))['ratio']:.3f} at sigma = 10, "
              f"{best['ratio']:.3f} (95% CI [{best['ci95'][0]:.3f}, {best['ci95'][1]:.3f}]) at sigma "
              f"= {best['sigma']:.3g}; it tends to 1/3 as sigma grows (K -> (w.x)^2/||w||^2, whose orthogonal/"
              f"aligned moment ratio is 1/3); the lower end of its interval is "
              f"{'above' if best['ci95'][0] > relu_ratio else 'not above'} the ReLU NTK's {relu_ratio:.3f} and "
              f"{'above' if best['ci95'][0] > remark8_ratio else 'not above'} Remark 8's printed form's 1/pi = "
              f"{remark8_ratio:.3f}.  Synthetic classes (noise tau = {tau}, orthogonal means): Yat "
              f"sigma_w = 10 {at0['yat_sigma_10']:.3f}, sigma_w = 1 {at0['yat_sigma_1']:.3f}, sigma_w = 1/sqrt(d) "
              f"{at0['yat_sigma_1/sqrt(d)']:.3f}, ReLU {at0['relu']:.3f}.  Where the Yat ratio is below ReLU's "
              "(small sigma) '<<' stays a vague word; the claim is universal over the laws Thm 17 admits, so one "
              "law above the floor refutes it.")


# --------------------------------------------------------------------------------------------
# yat.ntk.spectral_decay
# --------------------------------------------------------------------------------------------
def _ball(rng, n, d):
    z = rng.standard_normal((n, d))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    return z * rng.uniform(0, 1, (n, 1)) ** (1 / d)


@register("yat.ntk.spectral_decay",
          method="Nystrom spectra (G/N) on uniform points of the unit ball, d in {1,2,3}: Monte Carlo Yat "
                 "NTK, Gaussian and ReLU NTK; log-log slope over k in [4,16] with bootstrap over point sets "
                 "(stats.loglog_fit); trace-class and smoothness arguments")
def check_ntk_spectral_decay(ctx):
    N = ctx.pick(300, 800)
    B = ctx.pick(4, 8)
    eps = 1.0
    ks = np.arange(4, 17)
    rng = ctx.rng("points")
    slopes, series, relu_rank_d1 = {}, {}, None
    for d in (1, 2, 3):
        lam = {"yat_ntk": [], "gaussian": [], "relu_ntk": []}
        for b in range(B):
            X = _ball(rng, N, d)
            sq = ((X[:, None, :] - X[None]) ** 2).sum(-1)
            kern = {"yat_ntk": Y.kernel.ntk_gram(X, eps, n_w=ctx.pick(1_000, 2_000), seed=b, chunk=250),
                    "gaussian": np.exp(-sq / (2 * 0.5 ** 2)), "relu_ntk": _relu_ntk(X)}
            for name, G in kern.items():
                ev = np.sort(np.linalg.eigvalsh(G / N))[::-1]
                lam[name].append(np.maximum(ev[ks - 1], 1e-300))
                if d == 1 and name == "relu_ntk" and b == 0:
                    relu_rank_d1 = S.psd_report(G)["rank"]
        for name, L in lam.items():
            Lm = np.array(L).T          # (len(ks), B)
            if np.all(Lm > 1e3 * np.finfo(float).eps * Lm.max()):
                f = S.loglog_fit(ks, Lm, ctx.rng(f"fit{d}{name}"), n_boot=300)
                slopes[(d, name)] = f
                series[f"{name} d={d}"] = (ks.tolist(), Lm.mean(1).tolist())
            else:
                slopes[(d, name)] = None
    tab = {f"{name},d={d}": (None if f is None else {"slope": f.slope, "ci": list(f.ci)})
           for (d, name), f in slopes.items()}

    def loose(name, claim_of_d):
        fs = [(d, slopes[(d, name)]) for d in (1, 2, 3) if slopes[(d, name)] is not None]
        steeper = all(f.ci[1] < claim_of_d(d) for d, f in fs)
        worst = max((f.ci[1] - claim_of_d(d) for d, f in fs), default=float("nan"))
        return (V.CONFIRMED_LOOSE if steeper else V.CONFIRMED), worst, [d for d, _ in fs]

    arg = ("lambda_k decreasing and sum lambda_k = trace < inf give k lambda_k <= trace, so lambda_k = O(1/k) "
           "<= O(k^-2/d) for d >= 2 and <= O(k^-1/d) for every d; for d = 1 the Yat NTK is a smooth (analytic) "
           "kernel on a compact interval, whose eigenvalues decay faster than any power (Reade 1983)")
    parts = {}
    for key, name, claim, passage in (
            ("yat_ntk_O(k^-2/d)", "yat_ntk", lambda d: -2.0 / d, '000 Prop 7: "lambda_k = O(k^{-2/d})"'),
            ("gaussian_matches", "gaussian", lambda d: -2.0 / d,
             '000 Prop 7: "This rate matches the Gaussian kernel"; its proof sketch: "Gaussian kernels on '
             'compact domains have exponentially decaying eigenvalues"'),
            ("relu_ntk_O(k^-1/d)", "relu_ntk", lambda d: -1.0 / d,
             '000 Prop 7: "the ReLU-NTK, which exhibits lambda_k = O(k^{-1/d})"')):
        v, worst, dd = loose(name, claim)
        parts[key] = Evidence(
            verdict=v,
            reading=Reading("an upper bound lambda_k <= C k^rate (big-O), as printed", passage),
            numbers={"slopes": {k_: v_ for k_, v_ in tab.items() if k_.startswith(name)}, "d_fitted": dd},
            scope=Scope("symbolic", arg, universal=True),
            thresholds=[Threshold("upper CI of the measured slope vs the claimed exponent", 0.0, "statistical",
                                  "95% bootstrap CI over point sets (stats.loglog_fit), k in [4,16]", worst, 0.0)],
            notes="The bound holds; the measured decay is much steeper than the claimed exponent "
                  "(CONFIRMED_LOOSE) where every fitted CI lies below it.")
    _d = sp.Symbol("d", positive=True)
    parts["faster_than_relu"] = Evidence(
        verdict=V.holds(bool(sp.simplify(2 / _d - 1 / _d).is_positive)),
        reading=Reading("the printed rate O(k^-2/d) is faster than the printed ReLU-NTK rate O(k^-1/d)",
                        '000 Prop 7: "This rate ... is faster than the ReLU-NTK, which exhibits lambda_k = '
                        'O(k^{-1/d})" (the subject is "this rate")'),
        scope=Scope("symbolic", "2/d > 1/d for every d >= 1", universal=True),
        other_readings={"actual_spectra_d=1": Evidence(
            # a ReLU-NTK Gram of finite rank has exactly-zero eigenvalues past it: nothing decays faster
            verdict=V.holds(relu_rank_d1 is None or relu_rank_d1 > 2),
            reading=Reading("the actual Yat-NTK spectrum decays faster than the actual ReLU-NTK spectrum",
                            "000 Prop 7, read as a comparison of spectra"),
            numbers={"relu_ntk_rank_d1": relu_rank_d1},
            counterexample={"d": 1, "X": "points of [-1,1]", "relu_ntk": "Remark 8 form: pi |x||x'| 1{x x' > 0} "
                            "/(2 pi) + x x' (pi - theta)/(2 pi)", "rank": 2},
            repro=Repro("int(np.linalg.matrix_rank(np.where(np.outer(np.array(x), np.array(x)) > 0, "
                        "np.abs(np.outer(np.array(x), np.array(x))), 0.0)))",
                        {"x": np.linspace(-1, 1, 41).tolist()}, expected=2, rtol=0, atol=0,
                        tol_reason="an integer rank"),
            notes="In d = 1 the bias-free ReLU NTK has rank 2 (lambda_k = 0 for k >= 3) while the Yat NTK "
                  "has infinitely many positive eigenvalues.")})
    return Evidence.of_parts(
        parts, numbers={"N": N, "point_sets": B, "k_window": [4, 16], "slopes": tab},
        plot=Plot(series, "k", "lambda_k", reference={
            "k^-2 (claim d=1)": (ks.tolist(), (ks.astype(float) ** -2 * 1e-1).tolist())}))


# --------------------------------------------------------------------------------------------
# yat.ntk.lazy_convergence
# --------------------------------------------------------------------------------------------
@register("yat.ntk.lazy_convergence",
          method="the stated loss L_AFCL is undefined (NOT_CHECKABLE); other reading MSE (000 Cor 4's "
                 "f' = -K(f - y)): exact solution of the preconditioned flow with the Monte Carlo Yat NTK "
                 "Gram, lambda_min, monotone decrease, explicit Euler")
def check_ntk_lazy_convergence(ctx):
    rng = ctx.rng("data")
    n, d, k, eps = 12, 3, 2, 1.0
    X = rng.standard_normal((n, d))
    Yt = rng.standard_normal((n, k))
    Th = Y.kernel.ntk_gram(X, eps, n_w=ctx.pick(20_000, 200_000), seed=1)
    ev, U = np.linalg.eigh(Th)
    lmin, lmax = float(ev[0]), float(ev[-1])
    E0 = rng.standard_normal((n, k))
    R0 = U.T @ (E0 - Yt)
    ts = np.linspace(0, 50.0 / max(lmin, 1e-12), 200)
    L = np.array([0.5 * np.sum((np.exp(-ev * t)[:, None] * R0) ** 2) for t in ts])
    mono = bool(np.all(np.diff(L) <= 1e-14 * L[0]))
    E = E0.copy()
    Le = [0.5 * np.sum((E - Yt) ** 2)]
    for _ in range(ctx.pick(2000, 10000)):
        E = E - (1.0 / lmax) * Th @ (E - Yt)
        Le.append(0.5 * np.sum((E - Yt) ** 2))
    mono_e = bool(np.all(np.diff(Le) <= 1e-14 * Le[0]))
    mse = Evidence(
        verdict=V.holds(lmin > 0 and mono and mono_e),
        reading=Reading("L = MSE: dE/dt = -Theta (E - Y) with Theta > 0 converges to E = Y",
                        '000 Cor 4 proof: "gradient descent dynamics are governed by f\' = -K^NTK(f - y)"'),
        numbers={"lambda_min": lmin, "lambda_max": lmax, "monotone_exact": mono, "monotone_euler": mono_e,
                 "L_T_over_L_0": float(L[-1] / L[0]), "euler_final_over_initial": float(Le[-1] / Le[0])},
        scope=Scope("symbolic", "linear ODE: E(t) - Y = exp(-Theta t)(E0 - Y) -> 0 exponentially iff "
                    "lambda_min(Theta) > 0; lambda_min of the Monte Carlo Gram measured", universal=True),
        notes="The Lojasiewicz step needs the loss analytic in E; that is a property of the loss, not of "
              "Lemma 1 (which concerns K in (w, x)).")
    # R1 of claims.md, "any analytic loss": L(e) = sum exp(-e_i) is analytic and bounded below, and
    # with Theta = I the flow e' = exp(-e) solves to e(t) = log(exp(e0) + t) -> inf: no critical point.
    t_big = 1e6
    e_t = math.log(math.exp(0.0) + t_big)
    any_loss = Evidence(
        verdict=V.holds(math.exp(-e_t) == 0.0),     # a critical point needs grad L = exp(-e) = 0
        reading=Reading("R1: for any analytic loss, the flow converges to a critical point",
                        'claims.md Read R1 (000 Thm 15 leaves L_AFCL undefined; its proof cites only '
                        'analyticity for the Lojasiewicz step)'),
        numbers={"e_at_t": e_t, "t": t_big, "grad_norm_at_t": math.exp(-e_t)},
        counterexample={"loss": "sum exp(-e_i)", "Theta": "I", "e0": 0.0, "t": t_big, "e_t": e_t},
        repro=Repro("math.log(math.exp(e0) + t)", {"e0": 0.0, "t": t_big}, expected=e_t,
                    tol_reason="closed form of e' = exp(-e)"),
        thresholds=[Threshold("|grad L(e(t))| = exp(-e(t)) reaches 0 (a critical point)", 0.0, "precision",
                              "exact: exp(-e) > 0 for every finite e, and e(t) = log(e^{e0} + t) is "
                              "unbounded", math.exp(-e_t), math.exp(-e_t))],
        scope=Scope("proof", "closed-form solution of the flow for L = sum exp(-e_i), Theta = I"),
        notes="An analytic loss bounded below with no critical point: the flow runs off to infinity "
              "(second reader, this session). Analyticity alone does not give convergence.")
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        reading=Reading("as stated: dE/dt = -Theta grad_E L_AFCL converges to a critical point",
                        '000 Thm 15 (App C.18): "... grad_E L_AFCL ..."; L_AFCL is defined nowhere in 000'),
        other_readings={"MSE_000_Cor4": mse, "R1_any_analytic_loss": any_loss},
        numbers={"lambda_min": lmin},
        tried=Tried(
            printed="000 Thm 15 and its proof print no number (assumptions: m -> inf, eta = O(1/m), lambda_min > 0); "
                    "L_AFCL appears only in Thm 15 and its proof (000 App C.18), and the five papers define it "
                    "nowhere: 002's reference [20] gives a title, 'SimO Loss: Anchor-Free Contrastive Loss', and no "
                    "formula. There is no printed quantity to set against another.",
            search="The proof uses only two properties of L_AFCL: L >= 0 and analyticity in E. That class was "
                   "searched as reading R1: L = sum exp(-e_i) (>= 0, analytic) under Theta = I flows to infinity "
                   "(e(t) = log(e^{e0} + t)) with no critical point, so the two properties do not give the "
                   "conclusion; the MSE loss of 000 Cor 4 does converge (lambda_min of the Monte Carlo NTK Gram = "
                   f"{lmin:.3g} > 0). Which behaviour L_AFCL has depends on whether it attains its infimum (a "
                   "contrastive repulsion that keeps decreasing as negatives separate behaves like exp(-e)), i.e. "
                   "on its definition.",
            budget="Both readings cost well under a second at quick. No budget supplies an undefined loss: the "
                   "as-stated reading stays NOT_CHECKABLE until L_AFCL is written down."),
        notes="L_AFCL is never defined in 000, so the theorem's flow is not specified (an undefined object). "
              "The MSE reading (the dynamics 000 Cor 4 writes) is checked beside it.")
