"""yat.imq_fourier (claims.md A2; 001 Lemma C.13, 002 App G.6 part 2, 000 App C.16 step 2): the
Fourier transform of the IMQ (||x||^2 + eps)^-1 on R^d.

Convention f^(xi) = int f(x) exp(-i x.xi) dx.  ``yatmath.features.fourier.imq_fourier_transform``
computes the transform from the Laplace mixture (no Bessel function);
``imq_fourier_bessel`` is the printed closed form (28) with C = 2 pi^{d/2} (2 sqrt(eps))^{d/2-1}.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import scipy.optimize as opt
import sympy as sp
from scipy import integrate

from yatmath.features import fourier as FF
from proofs_check import verdicts as V
from proofs_check.registry import (Evidence, Plot, Reading, Repro, Scope, Threshold, register)
from proofs_check.support import yat_kernel_theory as C

DIMS = (1, 2, 3, 4, 5, 6)
FORM_TOL = 1e-9


def _form_dev(p, d):
    rho, eps = math.exp(p[0]), math.exp(p[1])
    return -abs(FF.imq_fourier_transform(rho, d, eps) / FF.imq_fourier_bessel(rho, d, eps) - 1)


def _tail_order(d, p):
    """Order at infinity of r^{d-1} (r^2 + eps)^{-p} (sympy limit certificate): r^{d-1-2p}."""
    r, eps = sp.Symbol("r", positive=True), sp.Symbol("eps", positive=True)
    e = d - 1 - 2 * p
    lim = sp.limit(r ** (d - 1) / (r ** 2 + eps) ** p / r ** e, r, sp.oo)
    return e, bool(lim.is_finite and lim.is_positive)


@register("yat.imq_fourier",
          method="adversarial search of |Laplace-mixture FT / Bessel form - 1| over (rho, eps) "
                 "for d=1..6 (>= 20 restarts) + direct Hankel/Parseval spot checks; sympy "
                 "integrability orders, limits at xi->0, integrand positivity")
def check_imq_fourier(ctx):
    parts = {}
    # (a) Bessel form with C > 0
    rng = ctx.rng("form")
    restarts = ctx.pick(20, 60)
    dev, dev_arg = 0.0, None
    for k in range(restarts):
        d = DIMS[k % len(DIMS)]
        p0 = np.array([rng.uniform(-3, 3), rng.uniform(-3, 3)])
        res = opt.minimize(_form_dev, p0, args=(d,), method="L-BFGS-B",
                           bounds=[(-4.6, 3.9), (-4.6, 3.0)],
                           options={"maxiter": ctx.pick(3, 40)})
        if -res.fun > dev:
            dev, dev_arg = float(-res.fun), {"d": d, "rho": math.exp(res.x[0]),
                                             "eps": math.exp(res.x[1])}
    eps = 0.5
    hank = []
    for rho in (0.3, 1.0, 3.0):
        v1 = 2 * integrate.quad(lambda r: 1 / (r * r + eps), 0, np.inf, weight="cos", wvar=rho)[0]
        v3 = 4 * np.pi / rho * integrate.quad(lambda r: r / (r * r + eps), 0, np.inf,
                                              weight="sin", wvar=rho)[0]
        hank += [abs(v1 / FF.imq_fourier_bessel(rho, 1, eps) - 1),
                 abs(v3 / FF.imq_fourier_bessel(rho, 3, eps) - 1)]
    with mp.workdps(20):
        v2 = 2 * mp.pi * mp.quadosc(lambda r: r * mp.besselj(0, r) / (r * r + eps), [0, mp.inf],
                                    omega=1.0)
    hank.append(abs(float(v2) / FF.imq_fourier_bessel(1.0, 2, eps) - 1))
    parts["bessel_form_C_positive"] = Evidence(
        verdict=V.holds(dev <= FORM_TOL),
        numbers={"max_rel_dev_laplace_vs_bessel": dev, "argmax": dev_arg, "restarts": restarts,
                 "direct_hankel_rel_errs_d1_d3_d2": hank,
                 "C_formula": "2 pi^{d/2} (2 sqrt(eps))^{d/2-1} > 0"},
        thresholds=[Threshold("max |FT_laplace / FT_bessel - 1| <= 1e-9", FORM_TOL, "precision",
                              "quadrature epsrel 1e-13 in tau = ln t plus scipy kv (~1e-15) "
                              "and a few float64 roundings", dev, dev)],
        scope=Scope("search", f"L-BFGS-B over rho in [0.01, 50], eps in [0.01, 20], d = 1..6, "
                    f"{restarts} restarts (maximiser in argmax)", universal=True))
    # (b) "distributional for d >= 4; classical otherwise"
    integ = {f"d{d}": {"L1": (lambda e: e[1] and e[0] < -1)(_tail_order(d, 1)),
                       "L2": (lambda e: e[1] and e[0] < -1)(_tail_order(d, 2))} for d in DIMS}
    printed = {1, 2, 3}
    l1 = {d for d in DIMS if integ[f"d{d}"]["L1"]}
    l2 = {d for d in DIMS if integ[f"d{d}"]["L2"]}
    sc_b = Scope("symbolic", "sympy order at infinity of r^{d-1}(r^2+eps)^{-p}, p = 1 (L1) and "
                 "p = 2 (L2), d = 1..6", universal=True)
    r_l1 = Evidence(
        verdict=V.holds(l1 == printed), numbers={"dims_L1": sorted(l1)},
        reading=Reading("'classical' = Lebesgue integral of an L1 function",
                        "001 Lemma C.13: '(distributional for d >= 4; classical otherwise)'"),
        scope=sc_b,
        counterexample=None if l1 == printed else {"d": 2, "eps": 1.0, "R": 1e6,
                                                    "int_{|x|<R} K": 2 * math.pi * 0.5 * math.log(1e12 + 1)},
        repro=None if l1 == printed else Repro(
            "2 * math.pi * 0.5 * math.log((R**2 + eps) / eps)", {"R": 1e6, "eps": 1.0},
            expected=2 * math.pi * 0.5 * math.log(1e12 + 1), rtol=1e-12,
            tol_reason="closed form of int_{|x|<R} (|x|^2+eps)^-1 dx in R^2; grows like log R"),
        notes="the IMQ is in L1(R^d) only for d = 1")
    parts["classical_vs_distributional"] = Evidence(
        verdict=V.holds(l2 == printed), numbers={"dims_L2": sorted(l2), "dims_L1": sorted(l1),
                                                 "integrability": integ},
        reading=Reading("'classical' = the Fourier-Plancherel transform of an L2 function",
                        "001 Lemma C.13's cut '(distributional for d >= 4; classical otherwise)' "
                        "is exactly where (||x||^2+eps)^-1 leaves L2(R^d) (int r^{d-1} r^{-4} dr "
                        "< inf iff d < 4), and its proof's Hankel integral int_0^inf r^{d/2} K(r) "
                        "J_{d/2-1}(r|xi|) dr is not absolutely convergent for d = 2, 3, so an L1 "
                        "sense is not what the proof uses"),
        other_readings={"L1": r_l1}, scope=sc_b)
    # (c) positive for xi != 0
    pos = C.sympy_imq_ft_integrand_positive()
    grid = np.logspace(-4, 1.5, 120)
    min_by_d = {f"d{d}": min(float(np.min(FF.imq_fourier_bessel(grid, d, e))) for e in (0.5, 2.0))
                for d in DIMS}
    parts["positive_off_0"] = Evidence(
        verdict=V.holds(pos), numbers={"sympy_integrand_positive": pos, "min_on_grid_by_d": min_by_d},
        scope=Scope("symbolic", "FT = pi^{d/2} int_0^inf t^{-d/2} e^{-eps t - rho^2/4t} dt "
                    "(part a); sympy: the integrand is > 0 for all t, eps, rho > 0 and every d",
                    universal=True))
    # (d) 'the removable value at xi = 0 taken by continuity'
    xi, es = sp.symbols("xi eps", positive=True)
    limits = {f"d{d}": str(sp.limit(xi ** (1 - sp.Rational(d, 2)) * sp.besselk(
        sp.Rational(d, 2) - 1, sp.sqrt(es) * xi), xi, 0, "+")) for d in DIMS}
    finite = {d: limits[f"d{d}"] not in ("oo", "zoo", "nan", "-oo") for d in DIMS}
    small = [1e-2, 1e-4, 1e-6]
    vals3 = [float(v) for v in FF.imq_fourier_transform(np.array(small), 3, 1.0)]
    vals2 = [float(v) for v in FF.imq_fourier_transform(np.array(small), 2, 1.0)]
    ok_d = all(finite.values())
    parts["removable_at_0"] = Evidence(
        verdict=V.holds(ok_d),
        numbers={"limit_xi_to_0_of_xi^(1-d/2)K_(d/2-1)(sqrt(eps)xi)": limits,
                 "FT_d3_eps1_at_xi_1e-2_1e-4_1e-6": vals3, "FT_d2_eps1_at_xi_1e-2_1e-4_1e-6": vals2},
        scope=Scope("symbolic", "sympy limit xi -> 0+ of the Bessel form for d = 1..6",
                    universal=True),
        counterexample=None if ok_d else {"d": 3, "eps": 1.0, "xi": small, "FT": vals3,
                                          "closed_form": "2 pi^2 exp(-|xi|)/|xi| -> +inf"},
        repro=None if ok_d else Repro(
            "[float(v) for v in yatmath.features.fourier.imq_fourier_transform(np.array(xi), d, eps)]",
            {"xi": small, "d": 3, "eps": 1.0}, expected=vals3, rtol=1e-10,
            tol_reason="adaptive quadrature, epsrel 1e-13, same code path"),
        plot=Plot(series={"d=3 (Laplace quadrature)": (small, vals3),
                          "d=2 (Laplace quadrature)": (small, vals2)},
                  xlabel="|xi|", ylabel="FT of (|x|^2+1)^-1",
                  reference={"2 pi^2 / |xi| (d=3)": (small, [2 * math.pi ** 2 / s for s in small])},
                  title="IMQ transform near 0: not removable for d >= 2"),
        notes=("001 Lemma C.13 states the lemma on R^d for every d: 'with the removable value at "
               "xi=0 taken by continuity' and 'Continuity gives positivity at xi=0 as well'. The "
               "limit is finite only for d = 1; for d = 2 the transform diverges like -log|xi|, "
               "for d >= 3 like |xi|^(2-d)."))
    # (e) density via Hahn-Banach: FT > 0 off 0 and locally integrable at 0 suffice
    rr = sp.Symbol("rho", positive=True)
    loc = {}
    for d in DIMS:
        expr = {1: rr ** 0, 2: -sp.log(rr) * rr}.get(d, rr ** (2 - d) * rr ** (d - 1))
        loc[f"d{d}"] = bool(sp.integrate(expr, (rr, 0, 1)).is_finite)
    parts["density_of_translates"] = Evidence(
        verdict=V.holds(pos and all(loc.values())),
        numbers={"locally_integrable_at_0": loc},
        scope=Scope("symbolic", "sympy: rho^{d-1} x (FT ~ 1, -log rho, rho^{2-d} near 0) is "
                    "integrable on (0, 1] for d = 1..6; with FT > 0 off 0 (part c), K*mu = 0 "
                    "forces mu^ = 0 on R^d minus 0, hence mu = 0", universal=True),
        notes=("Positivity almost everywhere suffices, so the density conclusion of Thm C.14 "
               "survives the refuted value at 0."))
    return Evidence.of_parts(
        parts,
        numbers={"part_verdicts": {k: p.verdict for k, p in parts.items()},
                 "limit_at_0": limits, "bessel_form_max_dev": dev},
        notes=("Bessel form, C > 0, positivity off 0 and density hold; 'classical otherwise' "
               "holds in the L2 sense (operative) though not in L1 (d = 2, 3). Refuted: the value "
               "at xi = 0 is not removable for d >= 2 (FT -> +inf)."),
    )
