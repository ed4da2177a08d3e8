"""Checks of the Yat kernel's definition (claims.md A1): yat.def.basic, yat.def.expanded_form.

K(w, x) = (w.x)^2 / (||w - x||^2 + eps), eps > 0; the float64 oracle is ``yatmath.yat.product`` /
``yatmath.yat.gram`` (direct form, backend="numpy").

The expanded ("GEMM") form printed in 000 eq.2 / App C.21.1 and 001 eq.14,

    K = s^2 / (||w||^2 + ||x||^2 - 2 s + eps),   s = w.x,

is the object under test of yat.def.expanded_form, so it is evaluated here *as printed*, one
operation at a time in a chosen precision (float64, float32, or bfloat16 emulated by rounding to
bfloat16 after every operation, algorithms.md §0), with no clamp of the denominator.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, register

# ---------------------------------------------------------------------------------------------
# bfloat16 emulation


def round_bf16(a) -> np.ndarray:
    """Round to the nearest bfloat16 (ties to even), returned as float32.

    A float32 keeps 24 significant bits, a bfloat16 8 (unit roundoff 2^-8 = 3.9e-3), with the
    same exponent range, so rounding is done on the bit pattern: add 0x7FFF plus the lowest kept
    bit, then clear the 16 low bits.  Exact for finite inputs (float64 inputs are first rounded to
    float32, a double rounding that can differ from direct float64->bf16 rounding only on exact
    float32 ties, irrelevant at the 2^-8 level).  Overflow rounds to +-inf as in hardware.
    """
    a32 = np.asarray(a, dtype=np.float32)
    bits = a32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).reshape(a32.shape)


PRECISIONS = ("fp64", "fp32", "bf16", "bf16_acc32")
UNIT_ROUNDOFF = {"fp64": 2.0 ** -53, "fp32": 2.0 ** -24, "bf16": 2.0 ** -8, "bf16_acc32": 2.0 ** -8}


def _rounder(prec: str):
    if prec == "fp64":
        return lambda a: np.asarray(a, dtype=np.float64)
    if prec == "fp32":
        return lambda a: np.asarray(a, dtype=np.float32)
    if prec in ("bf16", "bf16_acc32"):
        return round_bf16
    raise ValueError(f"prec must be one of {PRECISIONS}, got {prec!r}")


def _dot(a, b, prec: str):
    """sum_k a_k b_k over the last axis, each multiply and add rounded in ``prec``.

    "bf16": every product and every partial sum is rounded to bfloat16 (strict §0 emulation);
    "bf16_acc32": bfloat16 inputs, float32 accumulation, result rounded to bfloat16 (what a
    tensor-core GEMM or a framework reduction does); fp32/fp64: numpy arithmetic in that dtype.
    """
    if prec == "bf16":
        acc = np.zeros(np.broadcast_shapes(a.shape, b.shape)[:-1], dtype=np.float32)
        for k in range(a.shape[-1]):
            acc = round_bf16(acc + round_bf16(a[..., k] * b[..., k]))
        return acc
    if prec == "bf16_acc32":
        return round_bf16(np.sum(a.astype(np.float32) * b.astype(np.float32), axis=-1,
                                 dtype=np.float32))
    dt = np.float64 if prec == "fp64" else np.float32
    return np.sum(a.astype(dt) * b.astype(dt), axis=-1, dtype=dt)


def printed_forms(w, x, eps, prec: str):
    """The printed direct and expanded forms evaluated op by op in ``prec`` (object under test).

    Returns (K_direct, K_expanded, D_expanded) as float64 arrays over the leading axes.
    D_expanded = ((||w||^2 + ||x||^2) - 2 s) + eps is *not* clamped (the papers print no clamp);
    a non-positive D_expanded gives a K of the wrong sign or infinite.
    """
    rd = _rounder(prec)
    w, x = rd(w), rd(x)
    e = rd(eps)
    s = _dot(w, x, prec)
    nw, nx = _dot(w, w, prec), _dot(x, x, prec)
    diff = rd(w - x)
    D_dir = rd(_dot(diff, diff, prec) + e)
    D_exp = rd(rd(rd(nw + nx) - rd(2 * s)) + e)
    num = rd(s * s)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        K_dir = rd(num / D_dir)
        K_exp = rd(num / D_exp)
    return (np.asarray(K_dir, np.float64), np.asarray(K_exp, np.float64),
            np.asarray(D_exp, np.float64))


# ---------------------------------------------------------------------------------------------
# yat.def.basic


def _sympy_basic(d: int = 3) -> dict:
    """Symbolic symmetry, sign and zero set of K for d-vectors of real symbols, eps > 0."""
    w = sp.symbols(f"w0:{d}", real=True)
    x = sp.symbols(f"x0:{d}", real=True)
    eps = sp.Symbol("eps", positive=True)

    def K(a, b):
        s = sum(ai * bi for ai, bi in zip(a, b))
        return s ** 2 / (sum((ai - bi) ** 2 for ai, bi in zip(a, b)) + eps)

    sym_ok = sp.simplify(K(w, x) - K(x, w)) == 0
    num, den = sp.fraction(sp.together(K(w, x)))
    s = sum(wi * xi for wi, xi in zip(w, x))
    den_positive = bool(den.is_positive)
    num_is_square_of_s = sp.expand(num - s ** 2) == 0
    return {"symmetric": bool(sym_ok), "denominator_positive": den_positive,
            "numerator_is_s_squared": bool(num_is_square_of_s)}


@register("yat.def.basic",
          method="sympy (symmetry, D>0, numerator = s^2) + exact-integer random pairs incl. w=x, "
                 "w=0, x=0, w⊥x: asymmetry, min K, agreement of {K=0} with {w.x=0}")
def check_def_basic(ctx):
    rng = ctx.rng("pairs")
    n, d = ctx.pick(4000, 100000), 4
    sym = _sympy_basic(3)
    # Integer-valued vectors: w.x is exact in float64, so {w.x = 0} is decided exactly.
    W = rng.integers(-3, 4, size=(n, d)).astype(float)
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    k = n // 5
    X[:k] = W[:k]                                   # w = x
    W[k:2 * k] = 0.0                                # w = 0
    X[2 * k:3 * k] = 0.0                            # x = 0
    # w ⊥ x: x = (w1, -w0, w3, -w2), exactly orthogonal
    X[3 * k:4 * k] = W[3 * k:4 * k][:, [1, 0, 3, 2]] * np.array([1.0, -1.0, 1.0, -1.0])
    # the rest: generic integer pairs (many also orthogonal by chance)
    eps_vals = np.array([1e-3, 1.0, 10.0])
    eps_of = eps_vals[rng.integers(0, 3, size=n)]
    K_wx = np.empty(n)
    K_xw = np.empty(n)
    for e in eps_vals:
        m = eps_of == e
        K_wx[m] = Y.product(W[m], X[m], e, backend="numpy")
        K_xw[m] = Y.product(X[m], W[m], e, backend="numpy")
    s = np.sum(W * X, axis=1)            # exact for these integers
    # Gaussian pairs for symmetry / sign at all magnitudes of practical interest
    G1 = rng.standard_normal((n, 8)) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    G2 = rng.standard_normal((n, 8)) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    Kg12 = Y.product(G1, G2, 0.5, backend="numpy")
    Kg21 = Y.product(G2, G1, 0.5, backend="numpy")
    Gm = Y.gram(G1[:200], G2[:150], 0.5, backend="numpy")
    GmT = Y.gram(G2[:150], G1[:200], 0.5, backend="numpy")

    scale = max(np.max(np.abs(K_wx)), np.max(np.abs(Kg12)), 1e-300)
    asym = max(np.max(np.abs(K_wx - K_xw)), np.max(np.abs(Kg12 - Kg21)),
               np.max(np.abs(Gm - GmT.T))) / scale
    min_K = float(min(K_wx.min(), Kg12.min(), Gm.min()))
    zero_K = K_wx == 0.0
    zero_s = s == 0.0
    agreement = float(np.mean(zero_K == zero_s))
    n_orth = int(zero_s.sum())
    ok = (all(sym.values()) and asym == 0.0 and min_K >= 0.0 and agreement == 1.0)
    bad = np.flatnonzero(zero_K != zero_s)
    cex = None
    if bad.size:
        i = int(bad[0])
        cex = {"w": W[i].tolist(), "x": X[i].tolist(), "eps": float(eps_of[i]),
               "K": float(K_wx[i]), "w_dot_x": float(s[i])}
    return Evidence(
        verdict=V.holds(ok),
        numbers={"max_asymmetry_rel": float(asym), "min_K": min_K,
                 "zero_set_agreement_rate": agreement, "n_pairs": int(n),
                 "n_pairs_with_w_dot_x_0": n_orth, "sympy": sym,
                 "eps_values": eps_vals.tolist()},
        counterexample=cex,
        repro=("import numpy as np, yatmath.yat as y; "
               "y.product(np.array([1.,2,0,0]), np.array([-2.,1,3,0]), 1.0)  # w.x=0 -> 0.0"),
        notes=("Exact-integer pairs (entries in -3..3, d=4) make w.x exact, so the zero sets are "
               "compared without tolerance; 1/5 each of w=x, w=0, x=0 and constructed w⊥x. "
               "Symmetry and sign also over Gaussian pairs with norms 1e-3..1e3 and Gram "
               "matrices. In floating point K can underflow to 0 for |w.x| below ~1e-154 with "
               "w.x != 0; that is rounding, not the claim, and such inputs are not drawn."),
    )


# ---------------------------------------------------------------------------------------------
# yat.def.expanded_form


def _sympy_expanded(d: int = 3) -> dict:
    w = sp.symbols(f"w0:{d}", real=True)
    x = sp.symbols(f"x0:{d}", real=True)
    eps = sp.Symbol("eps", positive=True)
    s = sum(a * b for a, b in zip(w, x))
    direct = sum((a - b) ** 2 for a, b in zip(w, x)) + eps
    expanded = sum(a * a for a in w) + sum(b * b for b in x) - 2 * s + eps
    ident = sp.expand(direct - expanded) == 0
    # layer form: Y_ij = S_ij^2/(||X_i||^2 + ||W_j||^2 - 2 S_ij + eps), S = X W^T (B = n = 2)
    Xs = sp.Matrix(2, d, lambda i, j: sp.Symbol(f"X{i}{j}", real=True))
    Ws = sp.Matrix(2, d, lambda i, j: sp.Symbol(f"W{i}{j}", real=True))
    S = Xs * Ws.T
    layer_ok = True
    for i in range(2):
        for j in range(2):
            xi, wj = Xs.row(i), Ws.row(j)
            Yd = S[i, j] ** 2 / (sum((xi[k] - wj[k]) ** 2 for k in range(d)) + eps)
            Ye = S[i, j] ** 2 / ((xi * xi.T)[0] + (wj * wj.T)[0] - 2 * S[i, j] + eps)
            layer_ok &= sp.simplify(Yd - Ye) == 0
    return {"identity": bool(ident), "layer_form": bool(layer_ok)}


@register("yat.def.expanded_form",
          method="sympy identity (pair and layer form); printed expanded vs direct as x->w in "
                 "fp64, fp32 and bf16 (rounded after every op), vs the float64 direct oracle")
def check_def_expanded_form(ctx):
    rng = ctx.rng("approach")
    sym = _sympy_expanded(3)
    # (1) layer form in fp64 on generic (independent) points: S = X W^T, norms, no repair.
    d = 64
    Xg = rng.standard_normal((ctx.pick(64, 512), d))
    Wg = rng.standard_normal((ctx.pick(48, 256), d))
    S = Xg @ Wg.T
    Y_exp = S ** 2 / (np.sum(Xg ** 2, 1)[:, None] + np.sum(Wg ** 2, 1)[None, :] - 2 * S + 0.5)
    Y_ref = Y.gram(Xg, Wg, 0.5, backend="numpy")
    layer_err = float(np.max(np.abs(Y_exp - Y_ref)) / np.max(np.abs(Y_ref)))
    layer_tol = 1e-12        # (d+4) u * cond(D) with cond ~ 1 for independent Gaussians: ~1e-14

    # (2) x -> w: x = w + delta u, ||u|| = 1, delta from 1 down to 1e-6.
    n_pairs = ctx.pick(200, 2000)
    deltas = np.logspace(0, -6, 13)
    eps_list = [2.0 ** -10, 2.0 ** -4, 1.0]          # exactly representable in bf16
    W = rng.standard_normal((n_pairs, d))
    U = rng.standard_normal((n_pairs, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    per = {p: {"max_rel_diff_expanded": 0.0, "max_rel_diff_direct": 0.0,
               "min_denominator": np.inf, "n_negative_denominators": 0,
               "n_zero_denominators": 0, "n_evaluations": 0} for p in PRECISIONS}
    per_eps = {p: {} for p in PRECISIONS}
    worst = None
    for eps in eps_list:
        for p in PRECISIONS:
            per_eps[p][f"{eps:g}"] = 0
        for delta in deltas:
            Xn = W + delta * U
            for p in PRECISIONS:
                rd = _rounder(p)
                wq = np.asarray(rd(W), np.float64)
                xq = np.asarray(rd(Xn), np.float64)
                # oracle on the rounded inputs: measures the formula's error, not input rounding
                Kref = Y.product(wq, xq, float(rd(eps)), backend="numpy")
                Kd, Ke, De = printed_forms(W, Xn, eps, p)
                ok = De > 0
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel_e = np.abs(Ke - Kref) / Kref
                    rel_d = np.abs(Kd - Kref) / Kref
                st = per[p]
                st["n_evaluations"] += int(De.size)
                st["n_negative_denominators"] += int(np.sum(De < 0))
                st["n_zero_denominators"] += int(np.sum(De == 0))
                per_eps[p][f"{eps:g}"] += int(np.sum(De <= 0))
                st["min_denominator"] = float(min(st["min_denominator"], De.min()))
                if ok.any():
                    st["max_rel_diff_expanded"] = float(max(st["max_rel_diff_expanded"],
                                                            np.max(rel_e[ok])))
                st["max_rel_diff_direct"] = float(max(st["max_rel_diff_direct"],
                                                      np.max(rel_d)))
                if p == "bf16" and worst is None and (De <= 0).any():
                    i = int(np.flatnonzero(De <= 0)[0])
                    worst = {"precision": p, "eps": eps, "delta": float(delta),
                             "w": W[i].tolist(), "x": Xn[i].tolist(),
                             "D_expanded_bf16": float(De[i]), "K_expanded_bf16": float(Ke[i]),
                             "K_reference_fp64": float(Kref[i])}
    for p in PRECISIONS:
        per[p]["n_nonpositive_by_eps"] = per_eps[p]
    # A one-line example: w = (1,...,1) in R^64, x = w + 0.5 e_1, eps = 2^-10.  In bf16 the
    # term r^2 = 0.25 is lost below the rounding of ||w||^2 + ||x||^2 - 2s ~ 128.
    w1 = np.ones(d)
    x1 = w1.copy()
    x1[0] += 0.5
    _, Ke1, De1 = printed_forms(w1, x1, 2.0 ** -10, "bf16")
    K1 = float(Y.product(w1, x1, 2.0 ** -10, backend="numpy"))
    example = {"w": "ones(64)", "x": "ones(64) + 0.5 e_1", "eps": 2.0 ** -10,
               "D_true": 0.25 + 2.0 ** -10, "D_expanded_bf16": float(De1),
               "K_expanded_bf16": float(Ke1), "K_reference_fp64": K1,
               "ratio_expanded_over_true": float(Ke1) / K1}
    verdict = V.holds(sym["identity"] and sym["layer_form"] and layer_err <= layer_tol)
    return Evidence(
        verdict=verdict,
        numbers={"max_rel_diff_expanded": {p: per[p]["max_rel_diff_expanded"] for p in PRECISIONS},
                 "n_nonpositive_denominators": {p: per[p]["n_negative_denominators"]
                                                + per[p]["n_zero_denominators"]
                                                for p in PRECISIONS},
                 "min_denominator": {p: per[p]["min_denominator"] for p in PRECISIONS},
                 "sympy": sym, "layer_form_fp64_max_rel_diff": layer_err,
                 "layer_form_tol": layer_tol, "d": d, "deltas": [float(deltas[0]),
                                                              float(deltas[-1])],
                 "eps_values": eps_list, "n_pairs_per_delta": n_pairs,
                 "per_precision": per,
                 "worst_bf16_case": None if worst is None else {
                     k: worst[k] for k in ("eps", "delta", "D_expanded_bf16",
                                           "K_expanded_bf16", "K_reference_fp64")},
                 "bf16_example": example},
        counterexample=None,
        repro=("import numpy as np, yatmath.yat as y; from proofs_check.checks.yat_definitions "
               "import printed_forms; w=np.ones(64); x=w.copy(); x[0]+=0.5; "
               "printed_forms(w, x, 2**-10, 'bf16'), y.product(w, x, 2**-10)"),
        notes=("The identity is exact algebra (sympy), so the verdict rests on it and on the "
               "fp64 layer form on generic points. As a numerical recipe the printed expanded "
               "form cancels catastrophically as x->w: ||w||^2+||x||^2-2s has absolute error "
               "~u(||w||^2+||x||^2); with d=64 Gaussian w it can fall below eps or turn "
               "non-positive where the true D = delta^2+eps > 0 (counts per precision in "
               "per_precision), while the direct form in the same precision stays accurate "
               "to ~d u. algorithms.md Y1 "
               "clamps D >= eps and yatmath.yat.gram repairs such pairs from the direct form. "
               "Inputs are rounded to the precision first and the float64 oracle is evaluated "
               "on the rounded inputs. 'bf16' rounds after every multiply and add; "
               "'bf16_acc32' accumulates dot products in float32 (GEMM-like). Example inputs "
               "for a non-positive bf16 denominator (random w, seeded): "
               + ("none found" if worst is None else
                  f"eps={worst['eps']:g}, delta={worst['delta']:g}") + "."),
    )
