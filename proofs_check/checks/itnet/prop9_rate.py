"""itnet.prop9_rate (003 Prop 9, App F.5, eq.184)."""
from __future__ import annotations

import math

import numpy as np
from scipy.special import erf

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Scope, Threshold, register
from proofs_check.support.itnet_b4b7_helpers import of_parts
from yatmath.itnet.measures import grid_rule

C0 = np.array([0.3, 0.6, 0.45])


def _f(Y):
    return np.exp(-((Y - C0[:Y.shape[1]]) ** 2).sum(1)) * (1 + Y[:, 0])


def _exact(s):
    out = 1.0
    for k in range(s):
        ck = C0[k]
        g = math.sqrt(math.pi) / 2 * (erf(1 - ck) + erf(ck))
        out *= g + (0.5 * (math.exp(-ck ** 2) - math.exp(-(1 - ck) ** 2)) + ck * g if k == 0 else 0.0)
    return out


@register("itnet.prop9_rate",
          method="fitted midpoint-rule exponents (s = 1..3, bootstrap 95% CI) against M^(-1/s); the width term "
                 "has unspecified constants (C1, Barron norm B)")
def check_prop9(ctx):
    rng = ctx.rng("prop9")
    grids = {1: [4, 8, 16, 32, 64], 2: [4, 8, 16, 32], 3: [4, 6, 8, 12]}
    fits, series = {}, {}
    for s, ms in grids.items():
        Ms = [m ** s for m in ms]
        errs = []
        for m in ms:
            meas = grid_rule("midpoint", (m,) * s)
            errs.append(abs(meas.integrate(_f(meas.nodes)) - _exact(s)))
        fits[s] = stats.loglog_fit(Ms, errs, rng, n_boot=ctx.pick(400, 2000))
        series[f"midpoint s={s}"] = (Ms, errs)
    quad = Evidence(
        V.INCONCLUSIVE,
        {"exponents": {str(s): fits[s].to_dict() for s in fits}},
        reading=Reading("a deterministic M-point rule has error <= C2 L_F C_u M^(-1/s), C2 depending on the rule "
                        "and the smoothness", '003 Prop 9: "C2 depends on the smoothness of the integrand and the '
                        'quadrature rule"'),
        thresholds=[Threshold(f"upper CI of the midpoint exponent (s={s}) <= -1/s", -1.0 / s, "statistical",
                              "bootstrap 95% CI (stats.loglog_fit)", fits[s].ci[1], fits[s].ci[1]) for s in fits],
        scope=Scope("instance", "one smooth integrand, midpoint rule, s = 1..3", universal=True),
        plot=Plot(series, "M (nodes)", "|error|", reference={f"M^(-1/{s})": (series[f'midpoint s={s}'][0],
                  [series[f'midpoint s={s}'][1][0] * (M / series[f'midpoint s={s}'][0][0]) ** (-1.0 / s)
                   for M in series[f'midpoint s={s}'][0]]) for s in fits}),
        notes="every fitted exponent lies below -1/s (consistent), but an O() bound over all Lipschitz F with "
              "an unspecified C2 is a universal statement one integrand cannot confirm; a proof decides it")
    width = Evidence(V.NOT_CHECKABLE, notes="C1 B C_u mu(Omega)/sqrt(w): C1 and the Barron norm B of the ideal "
                                            "kernel are unspecified, so no finite width fit can test the term")
    return of_parts({"quadrature_term": quad, "width_term": width},
                             numbers={"midpoint_exponents": {str(s): fits[s].slope for s in fits}})
