"""yat.bound.*: the global upper bound of K(w, .) and the boundedness part of self-regulation."""
from __future__ import annotations

import numpy as np
import sympy as sp

from proofs_check import verdicts as V
from proofs_check.registry import (Bound, Evidence, Reading, Repro, Scope, Threshold, bound_threshold,
                                   register)
from proofs_check.support.yat_bounds_gradients import F64_RTOL, K, sup_K_over_x


def _sympy_sup_closed_form():
    """sup_x K(w, x) = a^4/eps + a^2, by K <= f(r) := a^2 r^2/((r-a)^2+eps) (Cauchy-Schwarz
    s^2 <= a^2 r^2 and ||w - x|| >= |r - a|, r = ||x||) with equality on the ray x = (r/a) w, and
    f's only critical point on r > 0 (sympy)."""
    a, eps, r = sp.symbols("a epsilon r", positive=True)
    f = a ** 2 * r ** 2 / ((r - a) ** 2 + eps)
    crit = sp.solve(sp.diff(f, r), r)
    vmax = sp.simplify(f.subs(r, crit[0])) if len(crit) == 1 else None
    lim = sp.limit(f, r, sp.oo)
    ok = (len(crit) == 1 and sp.simplify(crit[0] - (a + eps / a)) == 0
          and sp.simplify(vmax - (a ** 4 / eps + a ** 2)) == 0 and f.subs(r, 0) == 0
          and sp.simplify(lim - a ** 2) == 0)
    return ok, {"critical_r": str(crit), "f_at_critical_r": str(vmax), "f(0)": "0",
                "lim_r_to_inf_f": str(lim), "sup_x_K": "a**4/epsilon + a**2 at x* = (1 + eps/a^2) w"}


def _search(ctx, rng, dims, norms, eps_grid, n_starts):
    rows, worst = [], None
    for d in dims:
        for a in norms:
            for eps in eps_grid:
                w = rng.normal(size=d)
                w *= a / np.linalg.norm(w)
                sup, xs, _ = sup_K_over_x(w, eps, rng, n_starts)
                rows.append({"d": d, "norm_w": a, "eps": eps, "sup": sup, "a^4/eps": a ** 4 / eps,
                             "ratio_sup/(a^4/eps)": sup * eps / a ** 4,
                             "closed_form_ratio_1+eps/a^2": 1 + eps / a ** 2,
                             "x*/w": float(xs @ w / a ** 2)})
                if worst is None or sup * eps / a ** 4 > worst["ratio"]:
                    worst = {"w": w.tolist(), "x": xs.tolist(), "eps": eps, "ratio": sup * eps / a ** 4}
    return rows, worst


@register("yat.bound.global_upper",
          method="sympy sup over R^d (Cauchy-Schwarz reduction to r = ||x||, critical points); "
                 "multi-start BFGS sup of K(w,.) over R^d, d in {2,5,20}, ||w|| in {0.1..10}, "
                 "eps in {1e-3..10}; exact counterexample w=(1,0), x=(2,0), eps=1")
def check_global_upper(ctx):
    rng = ctx.rng("bfgs")
    sym_ok, sym = _sympy_sup_closed_form()
    rows, worst = _search(ctx, rng, ctx.pick((2, 5), (2, 5, 20)),
                          ctx.pick((0.1, 1.0, 10.0), (0.1, 0.5, 1.0, 2.0, 10.0)),
                          ctx.pick((1e-3, 1.0, 10.0), (1e-3, 0.1, 1.0, 10.0)), ctx.pick(20, 24))
    dev = max(abs(r["ratio_sup/(a^4/eps)"] / r["closed_form_ratio_1+eps/a^2"] - 1) for r in rows)
    # the simplest counterexample, on the ray x = k w at k* = 1 + eps/a^2 = 2
    w, x, eps = [1.0, 0.0], [2.0, 0.0], 1.0
    Kx = float(K(np.array(w), np.array(x), eps))
    Kw = float(K(np.array(w), np.array(w), eps))
    ratio = Kx * eps / np.linalg.norm(w) ** 4
    src = '000 Prop 11(1)-(2) (App E.1): "0 <= K(w,x) <= ||w||^4/eps ... maximum K(w,w) = ||w||^4/eps attained at x = w"'
    search_scope = Scope("search", f"{len(rows)} (d, ||w||, eps) configurations, {ctx.pick(20, 24)} BFGS "
                         "restarts each (half on the ray through w, half random)", universal=True)
    nonneg = Evidence(
        verdict=V.holds(True),
        numbers={"proof": "K = s^2/D with s^2 >= 0 and D = ||w-x||^2 + eps >= eps > 0"},
        scope=Scope("symbolic", "every w, x in R^d, eps > 0", universal=True))
    bound = Evidence(
        verdict=V.from_bound(ratio, 1.0, rtol=F64_RTOL),
        numbers={"K(w,x)": Kx, "||w||^4/eps": 1.0, "ratio": ratio, "sympy": sym,
                 "max_search_ratio_sup/(a^4/eps)": worst["ratio"],
                 "max_rel_dev_search_vs_closed_form": dev},
        thresholds=[bound_threshold("K(w,x) eps/||w||^4 <= 1", ratio, 1.0, source=src)],
        scope=search_scope,
        counterexample={"w": w, "x": x, "eps": eps, "K(w,x)": Kx, "claimed_bound": 1.0,
                        "largest_search_ratio": worst},
        repro=Repro("float(yatmath.yat.product(np.array(w), np.array(x), eps) * eps "
                    "/ np.linalg.norm(np.array(w)) ** 4)", {"w": w, "x": x, "eps": eps}, expected=ratio))
    gap = Kx - Kw
    argmax = Evidence(
        verdict=V.holds(gap <= F64_RTOL * Kw),
        numbers={"K(w,x)": Kx, "K(w,w)": Kw, "K(w,x)-K(w,w)": gap},
        thresholds=[Threshold("K(w,x) - K(w,w) <= 0 (x = w is the maximiser)", 0.0, "precision",
                              "float64 evaluation, relative 1e-9 of K(w,w)", gap, gap)],
        scope=search_scope,
        counterexample={"w": w, "x": x, "eps": eps, "K(w,x)": Kx, "K(w,w)": Kw},
        repro=Repro("float(yatmath.yat.product(np.array(w), np.array(x), eps) "
                    "- yatmath.yat.product(np.array(w), np.array(w), eps))",
                    {"w": w, "x": x, "eps": eps}, expected=gap))
    return Evidence.of_parts(
        {"nonnegative": nonneg, "K<=||w||^4/eps_for_all_x": bound, "maximum_at_x=w": argmax},
        numbers={"configs": len(rows), "grid_rows": rows, "sympy_sup": sym, "sympy_ok": sym_ok},
        counterexample=bound.counterexample, repro=bound.repro,
        notes="K(w, .) is not maximised at x = w: along x = k w it peaks at k* = 1 + eps/||w||^2 with "
              "value ||w||^4/eps + ||w||^2 (sympy: K <= a^2 r^2/((r-a)^2+eps) whose only critical "
              "point is r = a + eps/a), so sup_x K = ||w||^4/eps + ||w||^2 > ||w||^4/eps. The BFGS "
              "search reproduces this closed form in every configuration. Non-negativity holds.")


@register("yat.bound.self_regulation_bounded",
          method="sympy ray limit (Cauchy-Schwarz |w.u| <= ||w||) and sympy sup over R^d; "
                 "other reading (0 <= K <= ||w||^2 for all x) by an exact counterexample")
def check_self_regulation_bounded(ctx):
    rng = ctx.rng("sup")
    A, eps_s, k = sp.symbols("A epsilon k", positive=True)  # A = ||w||^2
    c = sp.symbols("c", real=True)  # c = w.u, |c| <= sqrt(A)
    Kray = k ** 2 * c ** 2 / (A - 2 * k * c + k ** 2 + eps_s)
    lim = sp.limit(Kray, k, sp.oo)
    corr = sp.limit(k * (Kray - c ** 2), k, sp.oo)
    lim_ok = sp.simplify(lim - c ** 2) == 0
    sup_ok, sym = _sympy_sup_closed_form()
    # the claimed bound ||w||^2 on the ray limit is attained (u = w/||w||: c^2 = ||w||^2), so it is tight
    att = sp.simplify((k ** 2 * A / (A - 2 * k * sp.sqrt(A) + k ** 2 + eps_s)).limit(k, sp.oo) / A)
    lim_bound = Bound("sup over unit u of lim_k K(w, k u) / ||w||^2", 1.0, float(att), "smaller", 0.0,
                      "Cauchy-Schwarz (w.u)^2 <= ||w||^2, attained at u = w/||w|| (sympy limit of the ray value "
                      "with c = sqrt(A))")
    p_limit = Evidence(
        verdict=V.from_tight(lim_bound.tight, lim_bound.claimed, rtol=0.0) if lim_ok else V.REFUTED,
        bounds=[lim_bound],
        numbers={"sympy_limit": str(lim), "limit_in_[0,||w||^2]": "c^2 <= ||w||^2 by Cauchy-Schwarz",
                 "sympy_lim_k(K-c^2)": str(corr)},
        scope=Scope("symbolic", "every w, unit u, eps > 0 (c = w.u symbolic)", universal=True))
    p_sup = Evidence(
        verdict=V.holds(sup_ok),
        numbers={"sympy": sym},
        scope=Scope("symbolic", "every w in R^d, eps > 0: sup_x K = ||w||^4/eps + ||w||^2 < inf",
                    universal=True))
    # the other reading: 0 <= K <= ||w||^2 for every x
    w, x, eps = [1.0, 0.0], [1.0, 0.0], 0.1
    ratio = float(K(np.array(w), np.array(x), eps)) / 1.0
    rows = []
    for a in (0.1, 1.0, 10.0):
        wv = rng.normal(size=3)
        wv *= a / np.linalg.norm(wv)
        sup, xs, _ = sup_K_over_x(wv, 1.0, rng, ctx.pick(20, 40))
        rows.append({"norm_w": a, "eps": 1.0, "sup/||w||^2": sup / a ** 2,
                     "closed_form_1+a^2/eps": 1 + a ** 2})
    src_r2 = ('002 Thm A3, end of proof: "the output of the Yat-product is bounded by '
              '0 <= Yat(w,x) <= ||w||^2"')
    r2 = Evidence(
        verdict=V.from_bound(ratio, 1.0, rtol=F64_RTOL),
        reading=Reading("0 <= K(w,x) <= ||w||^2 for every x", src_r2),
        numbers={"K(w,w)/||w||^2": ratio, "search_sup/||w||^2": rows},
        thresholds=[bound_threshold("K(w,x)/||w||^2 <= 1", ratio, 1.0, source=src_r2)],
        scope=Scope("instance", "exact point x = w; BFGS search for three ||w||", universal=True),
        counterexample={"w": w, "x": x, "eps": eps, "K": ratio, "||w||^2": 1.0},
        repro=Repro("float(yatmath.yat.product(np.array(w), np.array(x), eps) "
                    "/ np.linalg.norm(np.array(w)) ** 2)", {"w": w, "x": x, "eps": eps}, expected=ratio))
    return Evidence.of_parts(
        {"limit_in_[0,||w||^2]": p_limit, "sup_x_K_finite": p_sup},
        reading=Reading(
            "for fixed w, K(w,.) is bounded on R^d and converges along every ray to (w.u)^2 in "
            "[0, ||w||^2]",
            '001 Prop C.6: "remains bounded and converges to a finite value as ||x|| -> inf"; its '
            'proof proves the ray limit "which lies in [0, ||w||^2]"; 001 App E.5: '
            '"E(w,w) = ||w||^4/eps and limsup_{||x||->inf} E(w,x) <= ||w||^2" (the same paper puts '
            'the value at x = w above ||w||^2, so ||w||^2 bounds the limit, not every x); 000 '
            'Remark 9(1): "Self-regulation ... ensures K <= ||W||^4/eps" (boundedness = a finite sup)'),
        other_readings={"R2_K<=||w||^2_for_all_x": r2},
        numbers={"sympy_limit": str(lim), "sympy_sup": sym},
        notes="Operative reading (limit in [0,||w||^2] and finite sup) holds symbolically. The other "
              "reading, 0 <= K <= ||w||^2 for all x (the closing sentence of 002 Thm A3's proof), is "
              "false at x = w: K(w,w) = ||w||^4/eps. Rays approach the limit from above when "
              "w.u > 0 and from below when w.u < 0 (k (K - c^2) -> 2 c^3).")
