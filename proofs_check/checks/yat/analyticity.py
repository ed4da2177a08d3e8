"""yat.analyticity: x -> K(w, x) is real-analytic on R^d for eps > 0."""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Scope, register
from proofs_check.support.yat_bounds_gradients import sym_K, sym_vectors

def _taylor_coeffs_line(w, x, v, eps, order):
    """Exact (mpmath) Taylor coefficients of t -> K(w, x + t v) at t = 0 up to ``order``.

    K = (A + B t)^2 / (a0 + b t + c t^2) with A = w.x, B = w.v, a0 = ||x-w||^2+eps,
    b = 2 (x-w).v, c = ||v||^2; 1/(a0 + b t + c t^2) = sum e_n t^n with a0 e_n + b e_{n-1} +
    c e_{n-2} = [n = 0].
    """
    w, x, v = ([mp.mpf(float(t)) for t in arr] for arr in (w, x, v))
    A = mp.fsum(a * b for a, b in zip(w, x))
    B = mp.fsum(a * b for a, b in zip(w, v))
    a0 = mp.fsum((xi - wi) ** 2 for xi, wi in zip(x, w)) + mp.mpf(eps)
    b = 2 * mp.fsum((xi - wi) * vi for xi, wi, vi in zip(x, w, v))
    c = mp.fsum(vi * vi for vi in v)
    e = []
    for n in range(order + 3):
        val = (1 if n == 0 else 0) - (b * e[n - 1] if n >= 1 else 0) - (c * e[n - 2] if n >= 2 else 0)
        e.append(val / a0)
    num = [A * A, 2 * A * B, B * B]
    coeffs = [mp.fsum(num[j] * e[n - j] for j in range(3) if n - j >= 0) for n in range(order + 1)]
    radius = mp.sqrt(a0 / c)  # |complex root| of a0 + b t + c t^2 (discriminant b^2 - 4 a0 c < 0)
    return coeffs, radius, (b * b - 4 * a0 * c)


def _mp_line(w, x, v, eps):
    """t -> K(w, x + t v) in mpmath (60 digits): the reference for Taylor remainders."""
    w, x, v = ([mp.mpf(float(t)) for t in arr] for arr in (w, x, v))
    e = mp.mpf(eps)

    def f(t):
        y = [xi + t * vi for xi, vi in zip(x, v)]
        return mp.fsum(a * b for a, b in zip(w, y)) ** 2 / (mp.fsum((b - a) ** 2 for a, b in zip(w, y)) + e)
    return f



@register("yat.analyticity",
          method="sympy: K is a rational function whose denominator ||w-x||^2 + eps is a sum of squares "
                 "plus eps > 0 (never zero on R^d), hence real-analytic; Taylor remainder exponents "
                 "(mpmath, 60 digits) and the root-test radius as illustration")
def check_analyticity(ctx):
    rng = ctx.rng("analytic")
    d = 3
    w, x, eps = sym_vectors(d)
    Kexpr = sp.together(sym_K(w, x, eps))
    num, den = sp.fraction(Kexpr)
    sos = sp.expand(den - eps - sum((wi - xi) ** 2 for wi, xi in zip(w, x)))
    num_poly = num.is_polynomial(*w, *x)
    den_ok = sos == 0
    t = sp.symbols("t", real=True)
    v = sp.Matrix(sp.symbols("v1:4", real=True))
    Dt = sp.expand((w - x - t * v).dot(w - x - t * v) + eps)
    disc = sp.expand(sp.discriminant(Dt, t) + 4 * eps * v.dot(v))  # = -4 (cross term)^2 <= 0
    exps, radius_err = {}, []
    n_lines = ctx.pick(5, 20)
    with mp.workdps(60):
        for _ in range(n_lines):
            wv, xv, vv = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
            epsv = float(10 ** rng.uniform(-2, 1))
            coeffs, rad, _ = _taylor_coeffs_line(wv, xv, vv, epsv, ctx.pick(40, 80))
            f = _mp_line(wv, xv, vv, epsv)
            hs = [float(rad) * 2.0 ** -j for j in range(4, 10)]
            for p in range(1, 6):
                R = [float(abs(f(mp.mpf(h)) - mp.fsum(coeffs[j] * mp.mpf(h) ** j for j in range(p + 1)))) for h in hs]
                exps.setdefault(p, []).append((hs, R))
            n_hi = len(coeffs) - 1
            radius_err.append(abs(float(abs(coeffs[n_hi]) ** (-mp.mpf(1) / n_hi)) / float(rad) - 1))
    summary, series = {}, {}
    for p, lst in exps.items():
        slopes = [stats.loglog_fit(h, R, rng, n_boot=50).slope for h, R in lst]
        summary[f"p={p}"] = {"min_slope": float(min(slopes)), "max_slope": float(max(slopes)), "expected": p + 1}
        series[f"order {p}"] = (lst[0][0], lst[0][1])
    return Evidence(
        verdict=V.holds(bool(num_poly) and den_ok),
        numbers={"numerator_is_polynomial": bool(num_poly), "denominator_minus_eps_is_sum_of_squares": den_ok,
                 "line_discriminant_plus_4eps|v|^2": str(sp.factor(disc)),
                 "taylor_remainder_exponents": summary,
                 "root_test_radius_max_rel_err": float(max(radius_err)), "lines": n_lines},
        scope=Scope("symbolic", "every w, x in R^d, eps > 0 (d = 3 symbolic entries; the "
                    "argument, polynomial over a sum of squares + eps, is the same for every d)",
                    universal=True),
        plot=Plot(series=series, xlabel="step h", ylabel="|Taylor remainder| along a random line"),
        notes="K = (w.x)^2/(sum (w_i - x_i)^2 + eps): a polynomial over a polynomial that is >= eps > 0 "
              "on R^d, hence real-analytic there. Along a line x + t v the denominator's discriminant is "
              "<= -4 eps ||v||^2 < 0 (no real roots); the Taylor radius is sqrt(||x-w||^2+eps)/||v||, and "
              "order-p remainders scale as h^(p+1) (illustration).")
