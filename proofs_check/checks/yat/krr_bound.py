"""Check of yat.krr_bound (000 Thm 16, App C.19, Remark 1(i)).

The KRR estimator is evaluated through the public ``yatmath.yat.gram``; the whole Monte Carlo is one
expression (``_KRR_EXPR``) that the ledger's reproduction re-runs as printed.
"""
from __future__ import annotations

from proofs_check import stats as S
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate


# --------------------------------------------------------------------------------------------
# yat.krr_bound
# --------------------------------------------------------------------------------------------
_KRR_EXPR = ("[(lambda B: float(np.mean((yatmath.yat.gram(B[1], B[0], eps=eps, backend='numpy') @ "
             "np.linalg.solve(yatmath.yat.gram(B[0], eps=eps, backend='numpy') + math.sqrt(n) * np.eye(n), "
             "M * g.choice([-1.0, 1.0], n))) ** 2)))([R * z / np.linalg.norm(z, axis=1, keepdims=True) "
             "* g.uniform(0, 1, (len(z), 1)) ** (1 / d) for z in (g.standard_normal((n, d)), "
             "g.standard_normal((nt, d)))]) for g in [np.random.default_rng(seed + i) for i in range(reps)]]")


@register("yat.krr_bound",
          method="f* = 0 (in H, norm 0), Rademacher noise |y| <= M, x uniform in the ball of radius R (d = 3, R = 1, eps = 0.1): Monte "
                 "Carlo of E||f_lambda||^2_L2 with lambda = n^-1/2 over repetitions (95% CI) vs the printed "
                 "bound M^2 kappa / n, kappa = R^4/eps")
def check_krr_bound(ctx):
    R, M, eps, d = 1.0, 1.0, 0.1, 3
    reps = ctx.pick(8, 16)
    nt = 500
    rows = []
    for n in ctx.pick((1000,), (400, 1000, 1600)):
        b = {"n": n, "nt": nt, "d": d, "eps": eps, "R": R, "M": M, "seed": 1000 * n, "reps": reps}
        errs = evaluate(_KRR_EXPR, b)
        m, ci = S.mean_ci(errs)
        bound = M ** 2 * (R ** 4 / eps) / n
        rows.append({"n": n, "mean_err": float(m), "ci": [float(ci[0]), float(ci[1])], "bound": bound,
                     "ratio": float(m / bound), "bindings": b, "errs": [float(e) for e in errs]})
    worst = max(rows, key=lambda q: q["ci"][0] / q["bound"])
    v = V.REFUTED if worst["ci"][0] > worst["bound"] else (V.CONFIRMED if all(q["ci"][1] < q["bound"] for q in rows)
                                                          else V.INCONCLUSIVE)
    ev = Evidence(
        verdict=v,
        reading=Reading("E||f* - f_lambda||^2_{L2(rho_X)} <= ||f*||^2/(lambda n) + lambda ||f*||^2 + M^2 kappa/n "
                        "for lambda = n^-1/2, expectation over sample and noise",
                        "000 Thm 16 (App C.19), the L2 norm as printed"),
        numbers={"rows": [{k: q[k] for k in ("n", "mean_err", "ci", "bound", "ratio")} for q in rows],
                 "kappa": R ** 4 / eps, "reps": reps},
        thresholds=[Threshold("lower 95% CI of E error vs the printed bound", worst["bound"], "statistical",
                              "Student-t 95% CI over repetitions", worst["ci"][0], worst["ci"][0])],
        scope=Scope("instance", f"d = {d}, R = {R}, M = {M}, eps = {eps}, f* = 0, {reps} repetitions"),
        plot=Plot({"E error": ([q["n"] for q in rows], [q["mean_err"] for q in rows])}, "n", "L2 error",
                  reference={"printed bound": ([q["n"] for q in rows], [q["bound"] for q in rows])}),
        notes="With f* = 0 the bound is M^2 kappa/n, but the KRR variance is ~ M^2 df(lambda)/n with df the "
              "effective dimension, which exceeds kappa once several eigenvalues exceed lambda = n^-1/2.")
    if v == V.REFUTED:
        ev.counterexample = {"f*": 0, "x_law": "uniform in the ball of radius R", "d": d, "noise": "Rademacher +-M", "R": R, "M": M,
                             "eps": eps, "n": worst["n"], "lambda": worst["n"] ** -0.5,
                             "mean_err": worst["mean_err"], "ci95": worst["ci"], "bound": worst["bound"]}
        ev.repro = Repro(_KRR_EXPR, worst["bindings"], expected=worst["errs"], rtol=1e-7,
                         tol_reason="float64 linear solves; LAPACK/BLAS order may differ")
    return ev
