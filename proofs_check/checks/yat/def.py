"""Checks of the Yat kernel's definition (claims.md A1): yat.def.basic, yat.def.expanded_form.

(Module ``proofs_check.checks.yat.def``: the id ``yat.def.*`` leads here.)

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
from proofs_check.registry import Evidence, Repro, Scope, register

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


def sympy_basic(d: int) -> dict:
    """Symbolic symmetry, positivity of the denominator and numerator = (w.x)^2 for d-vectors of
    real symbols and eps > 0.  With D > 0 and numerator s^2, K >= 0 and K = 0 iff s = 0 follow."""
    w = sp.symbols(f"w0:{d}", real=True)
    x = sp.symbols(f"x0:{d}", real=True)
    eps = sp.Symbol("eps", positive=True)

    def K(a, b):
        s = sum(ai * bi for ai, bi in zip(a, b))
        return s ** 2 / (sum((ai - bi) ** 2 for ai, bi in zip(a, b)) + eps)

    sym_ok = sp.simplify(K(w, x) - K(x, w)) == 0
    num, den = sp.fraction(sp.together(K(w, x)))
    s = sum(wi * xi for wi, xi in zip(w, x))
    return {"symmetric": bool(sym_ok), "denominator_positive": bool(den.is_positive),
            "numerator_is_s_squared": bool(sp.expand(num - s ** 2) == 0)}


BASIC_DIMS = (1, 2, 3, 4)


@register("yat.def.basic",
          method="sympy for d=1..4 (symmetry, D>0, numerator = s^2, hence K>=0 and K=0 iff "
                 "s=0); exact-integer random pairs incl. w=x, w=0, x=0, w⊥x: asymmetry, min K, "
                 "agreement of {K=0} with {w.x=0}")
def check_def_basic(ctx):
    rng = ctx.rng("pairs")
    n, d = ctx.pick(4000, 100000), 4
    sym = {f"d{k}": sympy_basic(k) for k in BASIC_DIMS}
    proved = all(all(v.values()) for v in sym.values())
    # Integer-valued vectors: w.x is exact in float64, so {w.x = 0} is decided exactly.
    W = rng.integers(-3, 4, size=(n, d)).astype(float)
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    k = n // 5
    X[:k] = W[:k]                                   # w = x
    W[k:2 * k] = 0.0                                # w = 0
    X[2 * k:3 * k] = 0.0                            # x = 0
    X[3 * k:4 * k] = W[3 * k:4 * k][:, [1, 0, 3, 2]] * np.array([1.0, -1.0, 1.0, -1.0])  # w ⊥ x
    eps_vals = np.array([1e-3, 1.0, 10.0])
    eps_of = eps_vals[rng.integers(0, 3, size=n)]
    K_wx = np.empty(n)
    K_xw = np.empty(n)
    for e in eps_vals:
        m = eps_of == e
        K_wx[m] = Y.product(W[m], X[m], e, backend="numpy")
        K_xw[m] = Y.product(X[m], W[m], e, backend="numpy")
    s = np.sum(W * X, axis=1)            # exact for these integers
    G1 = rng.standard_normal((n, 8)) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    G2 = rng.standard_normal((n, 8)) * 10.0 ** rng.uniform(-3, 3, (n, 1))
    Kg12 = Y.product(G1, G2, 0.5, backend="numpy")
    Kg21 = Y.product(G2, G1, 0.5, backend="numpy")
    scale = max(np.max(np.abs(K_wx)), np.max(np.abs(Kg12)), 1e-300)
    asym = max(np.max(np.abs(K_wx - K_xw)), np.max(np.abs(Kg12 - Kg21))) / scale
    min_K = float(min(K_wx.min(), Kg12.min()))
    agreement = float(np.mean((K_wx == 0.0) == (s == 0.0)))
    w0, x0 = [1.0, 2.0, 0.0, 0.0], [-2.0, 1.0, 3.0, 0.0]
    k0 = float(Y.product(np.array(w0), np.array(x0), 1.0))
    return Evidence(
        verdict=V.holds(proved),
        numbers={"sympy": sym, "max_asymmetry_rel": float(asym), "min_K": min_K,
                 "zero_set_agreement_rate": agreement, "n_pairs": int(n),
                 "n_pairs_with_w_dot_x_0": int((s == 0).sum()), "eps_values": eps_vals.tolist(),
                 "orthogonal_example_K": k0},
        scope=Scope("symbolic", "sympy with real symbols w, x in R^d (d = 1..4) and eps > 0: "
                    "K(w,x) - K(x,w) simplifies to 0, the denominator is positive, the numerator "
                    "is (w.x)^2; the argument is the same for every d. Numeric pairs (integer "
                    "entries, exact w.x; Gaussian pairs of norms 1e-3..1e3) illustrate.",
                    universal=True),
        repro=Repro("yatmath.yat.product(np.array(w), np.array(x), eps)",
                    {"w": w0, "x": x0, "eps": 1.0}, expected=k0, rtol=0.0, atol=0.0,
                    tol_reason="w.x = 0 exactly for these integers, so K is exactly 0.0"),
        notes=("Proof: D = ||w-x||^2 + eps > 0 and the numerator is s^2, so K >= 0, K(w,x) = "
               "K(x,w), and K = 0 iff s = 0. The numeric zero sets agree exactly (integer "
               "pairs). In floating point K can underflow to 0 for |w.x| < ~1e-154 with w.x "
               "!= 0; that is rounding, not the claim."),
    )


# ---------------------------------------------------------------------------------------------
# yat.def.expanded_form


def sympy_expanded(d: int = 3, layer: bool = True) -> dict:
    w = sp.symbols(f"w0:{d}", real=True)
    x = sp.symbols(f"x0:{d}", real=True)
    eps = sp.Symbol("eps", positive=True)
    s = sum(a * b for a, b in zip(w, x))
    direct = sum((a - b) ** 2 for a, b in zip(w, x)) + eps
    expanded = sum(a * a for a in w) + sum(b * b for b in x) - 2 * s + eps
    ident = sp.expand(direct - expanded) == 0
    Xs = sp.Matrix(2, d, lambda i, j: sp.Symbol(f"X{i}{j}", real=True))
    Ws = sp.Matrix(2, d, lambda i, j: sp.Symbol(f"W{i}{j}", real=True))
    S = Xs * Ws.T
    layer_ok = True
    for i in range(2 if layer else 0):
        for j in range(2):
            xi, wj = Xs.row(i), Ws.row(j)
            Yd = S[i, j] ** 2 / (sum((xi[k] - wj[k]) ** 2 for k in range(d)) + eps)
            Ye = S[i, j] ** 2 / ((xi * xi.T)[0] + (wj * wj.T)[0] - 2 * S[i, j] + eps)
            layer_ok &= sp.simplify(Yd - Ye) == 0
    out = {"identity": bool(ident)}
    if layer:
        out["layer_form"] = bool(layer_ok)
    return out


@register("yat.def.expanded_form",
          method="sympy identity (pair and layer form); printed expanded vs direct as x->w in "
                 "fp64, fp32 and bf16 (rounded after every op), vs the float64 direct oracle")
def check_def_expanded_form(ctx):
    rng = ctx.rng("approach")
    sym = {f"d{k}": sympy_expanded(k, layer=(k == 2)) for k in (1, 2, 3)}
    proved = all(all(v.values()) for v in sym.values())
    d = 64
    Xg = rng.standard_normal((ctx.pick(64, 512), d))
    Wg = rng.standard_normal((ctx.pick(48, 256), d))
    S = Xg @ Wg.T
    Y_exp = S ** 2 / (np.sum(Xg ** 2, 1)[:, None] + np.sum(Wg ** 2, 1)[None, :] - 2 * S + 0.5)
    layer_err = float(np.max(np.abs(Y_exp - Y.gram(Xg, Wg, 0.5, backend="numpy")))
                      / np.max(np.abs(Y_exp)))
    n_pairs = ctx.pick(200, 2000)
    deltas = np.logspace(0, -6, 13)
    eps_list = [2.0 ** -10, 2.0 ** -4, 1.0]          # exactly representable in bf16
    W = rng.standard_normal((n_pairs, d))
    U = rng.standard_normal((n_pairs, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    per = {p: {"max_rel_diff_expanded": 0.0, "max_rel_diff_direct": 0.0,
               "min_denominator": np.inf, "n_nonpositive_denominators": 0,
               "n_evaluations": 0} for p in PRECISIONS}
    for eps in eps_list:
        for delta in deltas:
            Xn = W + delta * U
            for p in PRECISIONS:
                rd = _rounder(p)
                wq = np.asarray(rd(W), np.float64)
                xq = np.asarray(rd(Xn), np.float64)
                Kref = Y.product(wq, xq, float(rd(eps)), backend="numpy")
                Kd, Ke, De = printed_forms(W, Xn, eps, p)
                ok = De > 0
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel_e = np.abs(Ke - Kref) / Kref
                    rel_d = np.abs(Kd - Kref) / Kref
                st = per[p]
                st["n_evaluations"] += int(De.size)
                st["n_nonpositive_denominators"] += int(np.sum(De <= 0))
                st["min_denominator"] = float(min(st["min_denominator"], De.min()))
                if ok.any():
                    st["max_rel_diff_expanded"] = float(max(st["max_rel_diff_expanded"],
                                                            np.max(rel_e[ok])))
                st["max_rel_diff_direct"] = float(max(st["max_rel_diff_direct"], np.max(rel_d)))
    return Evidence(
        verdict=V.holds(proved),
        numbers={"sympy": sym,
                 "max_rel_diff_expanded": {p: per[p]["max_rel_diff_expanded"] for p in PRECISIONS},
                 "n_nonpositive_denominators": {p: per[p]["n_nonpositive_denominators"]
                                                for p in PRECISIONS},
                 "min_denominator": {p: per[p]["min_denominator"] for p in PRECISIONS},
                 "per_precision": per, "layer_form_fp64_max_rel_diff": layer_err, "d": d,
                 "deltas": [float(deltas[0]), float(deltas[-1])], "eps_values": eps_list,
                 "n_pairs_per_delta": n_pairs},
        scope=Scope("symbolic", "sympy: ||w-x||^2 + eps - (||w||^2 + ||x||^2 - 2 w.x + eps) "
                    "expands to 0 for d = 1, 2, 3 (the expansion is termwise, so every d), and "
                    "the layer form Y_ij equals the direct form entrywise for 2x2 symbolic X, W (d = 2).",
                    universal=True),
        notes=("The claim is an algebraic identity; the verdict is sympy's. Measured beside it "
               "(not part of the claim, which states no precision): as a numerical recipe the "
               "expanded form cancels catastrophically as x->w; its denominator "
               "||w||^2+||x||^2-2s has absolute error ~u(||w||^2+||x||^2), and in bf16 it turns "
               "non-positive for pairs where the true D = delta^2+eps > 0 (counts per precision "
               "in n_nonpositive_denominators), while the direct form in the same precision "
               "stays accurate. algorithms.md Y1 clamps D >= eps. 'bf16' rounds after every "
               "multiply and add; 'bf16_acc32' accumulates dot products in float32."),
    )
