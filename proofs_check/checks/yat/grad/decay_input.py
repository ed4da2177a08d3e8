"""yat.grad.decay_input: ||grad_x K(w, x)|| -> 0 at rate O(1/||x||)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Bound, Evidence, Plot, Repro, Scope, register
from proofs_check.support.yat_bounds_gradients import grad_x, sympy_ray_gradients


@register("yat.grad.decay_input",
          method="sympy: lim k*grad_x K(w, k u) (any w, u by rotation invariance) and the uniform bound "
                 "||grad_x K|| <= Phi(||x||) with lim r Phi(r) = 4||w||^2; log-log slopes over "
                 "k in [10,1e6] (generic, u||w, u perp w) with bootstrap CI as illustration")
def check_decay_input(ctx):
    rng = ctx.rng("decay")
    lim_gx, lim_kgx, _, (w1, w2) = sympy_ray_gradients()
    sym_zero = all(sp.simplify(g) == 0 for g in lim_gx)
    kfinite = all(g.is_finite is not False and not g.has(sp.oo, sp.zoo) for g in lim_kgx)
    knorm2 = sp.simplify(sum(g ** 2 for g in lim_kgx) - 4 * w1 ** 2 * w2 ** 2)
    # uniform in the direction: ||grad_x K|| <= Phi(r) (|s| <= a r, D >= (r-a)^2 + eps,
    # ||x - w|| <= r + a), and r Phi(r) -> 4 a^2
    a, eps, r = sp.symbols("a epsilon r", positive=True)
    q = (r - a) ** 2 + eps
    phi = 2 * a ** 2 * r / q + 2 * a ** 2 * r ** 2 * (r + a) / q ** 2
    rphi = sp.limit(r * phi, r, sp.oo)
    ok = sym_zero and kfinite and sp.simplify(rphi - 4 * a ** 2) == 0
    # illustration: slopes along three directions
    ks = np.logspace(1, 6, 11)
    w = np.array([1.0, 0.5, -0.3])
    dirs = {"generic": rng.normal(size=3), "parallel": w.copy(), "perpendicular": np.cross(w, [0.0, 0.0, 1.0])}
    slopes, series = {}, {}
    for name, u in dirs.items():
        u = u / np.linalg.norm(u)
        g = np.linalg.norm(grad_x(w, ks[:, None] * u[None, :], 0.5), axis=1)
        if np.all(g == 0):
            slopes[name] = {"grad_identically_zero": True}
            continue
        fit = stats.loglog_fit(ks, g, rng, n_boot=ctx.pick(300, 1000))
        slopes[name] = fit.to_dict() | {"k*|grad|_at_1e6": float(ks[-1] * g[-1])}
        series[name] = (ks.tolist(), g.tolist())
    u = [0.6, 0.8, 0.0]
    val = float(1e6 * np.linalg.norm(grad_x(w, 1e6 * np.array(u), 0.5)))
    # the claimed rate O(1/||x||) against the tight one: k ||grad_x K(w, k u)|| tends to a^2 |sin 2 theta| (sympy,
    # knorm2 = 0), non-zero for generic u, so no faster decay holds uniformly: the exponent -1 is exact
    tight_exp = -1.0 if (knorm2 == 0 and ok) else 0.0
    bound = Bound("decay exponent a in ||grad_x K(w, x)|| = O(||x||^a)", -1.0, tight_exp, "smaller", 0.0,
                  "sympy: lim k grad_x K(w, k u) is a vector of norm 2|w1 w2| = a^2 |sin 2 theta| (non-zero off "
                  "the axes of w), and the uniform bound r Phi(r) -> 4 a^2: the decay is exactly 1/||x||")
    return Evidence(
        verdict=V.from_tight(bound.tight, bound.claimed, rtol=0.0, better="smaller") if ok else V.REFUTED,
        bounds=[bound],
        numbers={"sympy_lim_grad_(u=e1)": [str(g) for g in lim_gx],
                 "sympy_lim_k*grad_(u=e1)": [str(g) for g in lim_kgx],
                 "sympy_|lim k grad|^2 - 4 w1^2 w2^2": str(knorm2),
                 "sympy_lim_r*Phi(r)": str(rphi), "slopes_eps0.5_w=(1,.5,-.3)": slopes},
        scope=Scope("symbolic", "every w, x in R^d, eps > 0 (ray limit with w = (w1, w2), u = e1 after "
                    "a rotation; uniform bound through Phi)", universal=True),
        plot=Plot(series=series, xlabel="k = ||x||", ylabel="||grad_x K(w, k u)||",
                  reference={"1/k": (ks.tolist(), (series["generic"][1][0] * ks[0] / ks).tolist())}),
        repro=Repro("float(1e6 * np.linalg.norm(yatmath.yat.grad(np.array(w), 1e6 * np.array(u), eps).x))",
                    {"w": w.tolist(), "u": u, "eps": 0.5}, expected=val, rtol=1e-7,
                    tol_reason="float64 gradient at ||x|| = 1e6: relative error ~1e-10 from the r = s/D "
                               "cancellation"),
        notes="lim grad_x K(w, k u) = 0 and k grad_x K(w, k u) -> a finite vector of norm "
              "2|c| sqrt(a^2 - c^2) = a^2 |sin 2 theta| (sympy); uniformly in the direction, "
              "||grad_x K|| <= Phi(||x||) ~ 4 a^2/||x||. So the decay is O(1/||x||) (exactly 1/||x|| "
              "for generic directions, faster along w, identically 0 perpendicular to w).")
