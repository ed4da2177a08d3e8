"""itnet.uat (003 Thm 4, Thm F.1)."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Threshold, register
from proofs_check.support.itnet_b4b7_helpers import best_additive_error
from yatmath.itnet.diagnostic import mixed_difference
from yatmath.itnet.network import gelu

PROD = ("np.abs(yatmath.itnet.mixed_difference(lambda V: np.stack([V[1] * V[2], 0 * V[1], 0 * V[2]]), "
        "np.array(U), 0, 1, 2, np.array(a), np.array(a2), np.array(b), np.array(b2))).max() / 4")


@register("itnet.uat",
          method="single-layer reading (Thm F.1): mixed-difference lower bound and LP optimum for the target "
                 "u(x2)*u(x3) at x1; stack reading: gather + GELU-FFN least-squares fits (reported)")
def check_uat(ctx):
    rng = ctx.rng("uat")
    U = rng.uniform(-1, 1, (3, 2))
    a, a2, b, b2 = np.ones(2), -np.ones(2), np.ones(2), -np.ones(2)
    F = lambda V_: np.stack([V_[1] * V_[2], 0 * V_[1], 0 * V_[2]])          # noqa: E731
    lb = float(np.abs(mixed_difference(F, U, 0, 1, 2, a, a2, b, b2)).max() / 4)
    lp = best_additive_error(np.linspace(-1, 1, ctx.pick(9, 21)))
    bind = {"U": U.tolist(), "a": a.tolist(), "a2": a2.tolist(), "b": b.tolist(), "b2": b2.tolist()}
    xs, xt = rng.uniform(-1, 1, (4000, 2)), rng.uniform(-1, 1, (4000, 2))
    widths, errs = ctx.pick([8, 32, 128], [8, 32, 128, 512]), []
    for w in widths:
        Wh, bh = rng.normal(0, 2.0, (w, 2)), rng.uniform(-2, 2, w)
        feats = lambda Z, Wh=Wh, bh=bh: np.concatenate([gelu(Z @ Wh.T + bh), np.ones((len(Z), 1))], 1)  # noqa: E731
        coef = np.linalg.lstsq(feats(xs), xs[:, 0] * xs[:, 1], rcond=None)[0]
        errs.append(float(np.abs(feats(xt) @ coef - xt[:, 0] * xt[:, 1]).max()))
    stack = Evidence(V.NOT_CHECKABLE, {"widths": widths, "sup_error": errs},
                     reading=Reading("a depth-L stack with LN and FFN approximates every continuous F",
                                     '003 Thm 4 eq.11: "there exist parameters theta and depth L"'),
                     notes="a density statement over all continuous operators: finite fits of one target (a gather "
                           "layer + GELU FFN, sup error falling with width, reported) neither confirm nor refute it")
    return Evidence(
        V.holds(lb <= 0), {"sup_error_lower_bound": lb, "lp_best_single_layer_error": lp},
        reading=Reading("a single ITNet layer approximates every continuous F on compact U_c",
                        '003 Thm F.1 (the full proof of Thm 4, App F): "That is, a single ITNet layer can uniformly '
                        'approximate any continuous operator on any compact input set to any desired precision"'),
        thresholds=[Threshold("sup error of any single Def.-1 layer >= |D|/4 vs every eps > 0", 0.0, "paper",
                              '003 eq.166 "< eps" for every eps > 0: refuted for every eps below the bound',
                              lb, lb)],
        counterexample={**bind, "target": "F(u)(x1) = u(x2) * u(x3) (0 at x2, x3), U_c = [-1,1]^(3x2)",
                        "lower_bound": lb},
        repro=Repro(PROD, bind, lb, rtol=1e-12),
        other_readings={"R2_stack": stack},
        notes="a Def.-1 layer's output at x1 is additive in (u(x2), u(x3)) at fixed u(x1), so its mixed difference "
              "vanishes and its sup error on the product target is >= |D|/4 = 1 (the LP optimum equals it)")
