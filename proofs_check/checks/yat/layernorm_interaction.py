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
from proofs_check.registry import Evidence, Reading, Scope, Tried, register

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
    # rule 5(b): how much of the denominator's spread LN removes, over d and the prototype's scale
    spread = {}
    for dd in (8, 64, 512):
        Xd = np.exp(rng.uniform(np.log(0.1), np.log(10), m))[:, None] * rng.standard_normal((m, dd))
        Xd += rng.standard_normal((m, 1))
        Ld = _layernorm(Xd, eps_ln)
        for ws in (0.1, 1.0, 10.0):
            wd = ws * rng.standard_normal(dd)
            Db = np.sum((Xd - wd) ** 2, axis=1) + eps
            Da = np.sum((Ld - wd) ** 2, axis=1) + eps
            spread[f"d={dd},|w|~{ws:g}sqrt(d)"] = [float(Db.std() / Db.mean()), float(Da.std() / Da.mean())]
    ratios_sp = [a / b for b, a in spread.values()]
    parts["proximity_collapse"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        tried=Tried(
            printed="000 §3.5-3.6 print no measurement of the proximity structure: the only numbers are "
                    "'||x||^2 ~ d' (checked exactly in part norm_sq_equals_d: d v/(v + eps_LN)) and Table 4's "
                    "losses (4.5747 converged, '>>10' diverged), which do not measure it; nothing to compare.",
            search="'Collapse' was measured as the coefficient of variation of D = ||w - x||^2 + eps before and after "
                   "LN over d = 8, 64, 512 and prototype scales |w| ~ 0.1, 1, 10 sqrt(d) (inputs with log-uniform "
                   f"scales 0.1..10): LN keeps {min(ratios_sp):.3f}..{max(ratios_sp):.3f} of the spread of D "
                   "(pairs [before, after] recorded). The radial (scale) information is removed up to eps_LN "
                   "(K(w, LN(cx)) depends on c only through eps_LN), the directional part of D survives, and how "
                   "much survives depends on d and ||w||: 'collapsing' is true for the scale, false for the "
                   "directions, and in between for any threshold on the spread.",
            budget="Well under a second at quick. A larger grid would map the same trade-off; the papers give no "
                   "threshold at which a reduced spread counts as a collapse, so no budget decides it."),
        reading=Reading("LN removes the proximity information the denominator uses", PASSAGE),
        numbers={"cv_norm_after_LN": float(rn.std() / rn.mean()),
                 "cv_norm_before_LN": float(np.linalg.norm(X, axis=1).std() / np.linalg.norm(X, axis=1).mean()),
                 "cv_D_before": float(D_before.std() / D_before.mean()),
                 "cv_D_after": float(D_after.std() / D_after.mean()),
                 "K_rel_change_x->cx_after_LN": float(np.max(np.abs(Ks - Ks[1]) / Ks[1])),
                 "K_rel_change_x->cx_without_LN": float(np.max(np.abs(Kb - Kb[1]) / Kb[1])),
                 "cv_D_[before,after]_by_d_and_prototype_scale": spread},
        notes="'Collapsing' names no measure. The scale (radial) information is removed exactly "
              "(K(w, LN(cx)) does not depend on c), but D = ||w||^2 + ||LN x||^2 - 2 w.LN(x) + eps still "
              "varies with the direction of x (cv_D_after above): whether that is a 'collapse' depends on "
              "a threshold the paper does not give.")
    parts["ln_redundant"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        tried=Tried(
            printed="Table 4 (000 §3.6) against Table 3 and the text: Aether without LN 4.5747 in both tables (the "
                    "same value); Pre-LN and Post-LN '>>10 Diverged' against §3.6's 'validation loss diverging within "
                    "the first 1000 steps' (agree). '>>10' is a lower bound under ln 50257 = 10.82, the loss of a "
                    "uniform predictor (yat.exp.gpt2_000). No pair of these numbers contradicts another.",
            search="The two premises the paper gives for redundancy were checked where they are checkable: Prop 1's "
                   "bounded outputs (yat.limit.self_regulation, yat.bound.self_regulation_bounded) and Cor 2's O(1) "
                   "expectation at init (yat.dim_scaling), both hold; this record's other parts show what LN does to "
                   "the Yat inputs (norms pinned to sqrt(d), denominator spread reduced). None of that says whether a "
                   "trained Aether-GPT2 needs LN: 'redundant' and the divergence are statements about the 124M-model "
                   "trainings.",
            budget="Nothing more was run for this part. Deciding it means training Aether-GPT2 (124M parameters, "
                   "2.5B FineWeb tokens) with and without Pre-/Post-LN; even the 1000-step divergence window of "
                   "Table 4 needs the model, tokenizer pipeline and data, far beyond a minute at quick."),
        notes="'LN is redundant given Prop 1 and Cor 2' and the Table 4 divergence need the Aether-GPT2 "
              "trainings (not available); no toy substitute decides it.")
    return Evidence.of_parts(parts, numbers={k: p.verdict for k, p in parts.items()})
