"""Check of claims.md A9 yat.layernorm_interaction (000 §3.5-3.6).

The norm identity ||LN(x)||^2 = d v/(v + eps_LN) is proved symbolically; 'collapsing the
proximity structure' names no measure, and 'LN is redundant' needs the GPT-2 trainings, so those
parts are NOT_CHECKABLE with their measurements recorded.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Scope, register

PASSAGE = ('000 §3.5: "When inputs are pre-normalized via LayerNorm (forcing ||x||^2 ~ d and removing '
           'variance information), the denominator loses its adaptive regularization: all inputs become '
           'equidistant from the origin, collapsing the proximity structure that the product exploits"')


def _layernorm(X, eps_ln=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=-1, keepdims=True) + eps_ln)


@register("yat.layernorm_interaction",
          method="sympy identity ||LN(x)||^2 = d v/(v+eps_LN) (d = 4 symbolic entries); spread of "
                 "||LN x|| and of the Yat denominator before/after LN; scale invariance of K(w, LN(cx))")
def check_layernorm(ctx):
    xs = sp.symbols("x1:5", real=True)
    e = sp.symbols("e", positive=True)
    d_ = len(xs)
    mu = sum(xs) / d_
    v = sum((xi - mu) ** 2 for xi in xs) / d_
    norm2 = sum((xi - mu) ** 2 for xi in xs) / (v + e)
    ident = sp.simplify(norm2 - d_ * v / (v + e)) == 0
    parts = {"norm_sq_equals_d": Evidence(
        verdict=V.holds(ident),
        reading=Reading("LayerNorm without affine gives ||LN(x)||^2 = d v/(v + eps_LN), i.e. d up to the "
                        "relative error eps_LN/v: every normalised input lies on the sphere of radius "
                        "~sqrt(d) ('equidistant from the origin')", PASSAGE),
        numbers={"identity_holds_d4": bool(ident)},
        scope=Scope("symbolic", "sympy with 4 symbolic entries and symbolic eps_LN > 0; the algebra "
                    "sum (x_i - mu)^2 = d v is the same for every d", universal=True))}
    rng = ctx.rng("x")
    d, eps_ln, eps = 64, 1e-5, 1.0
    m = ctx.pick(400, 4000)
    scales = np.exp(rng.uniform(np.log(0.1), np.log(10), m))[:, None]
    X = scales * rng.standard_normal((m, d)) + rng.standard_normal((m, 1))
    LN = _layernorm(X, eps_ln)
    w = rng.standard_normal(d)
    D_before = np.sum((X - w) ** 2, axis=1) + eps
    D_after = np.sum((LN - w) ** 2, axis=1) + eps
    x1 = X[:5]
    Ks = np.array([Y.product(w, _layernorm(c * x1, eps_ln), eps, backend="numpy") for c in (0.1, 1.0, 10.0)])
    Kb = np.array([Y.product(w, c * x1, eps, backend="numpy") for c in (0.1, 1.0, 10.0)])
    rn = np.linalg.norm(LN, axis=1)
    parts["proximity_collapse"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        reading=Reading("LN removes the proximity information the denominator uses", PASSAGE),
        numbers={"cv_norm_after_LN": float(rn.std() / rn.mean()),
                 "cv_norm_before_LN": float(np.linalg.norm(X, axis=1).std() / np.linalg.norm(X, axis=1).mean()),
                 "cv_D_before": float(D_before.std() / D_before.mean()),
                 "cv_D_after": float(D_after.std() / D_after.mean()),
                 "K_rel_change_x->cx_after_LN": float(np.max(np.abs(Ks - Ks[1]) / Ks[1])),
                 "K_rel_change_x->cx_without_LN": float(np.max(np.abs(Kb - Kb[1]) / Kb[1]))},
        notes="'Collapsing' names no measure. The scale (radial) information is removed exactly "
              "(K(w, LN(cx)) does not depend on c), but D = ||w||^2 + ||LN x||^2 - 2 w.LN(x) + eps still "
              "varies with the direction of x (cv_D_after above): whether that is a 'collapse' depends on "
              "a threshold the paper does not give.")
    parts["ln_redundant"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        notes="'LN is redundant given Prop 1 and Cor 2' and the Table 4 divergence need the Aether-GPT2 "
              "trainings (not available); no toy substitute decides it.")
    return Evidence.of_parts(parts, numbers={k: p.verdict for k, p in parts.items()})
