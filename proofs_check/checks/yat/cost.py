"""Checks of claims.md A10 (complexity and implementation): yat.cost.*.

Operation counts use ``yatmath.yat.opcount`` (algorithms.md Y11) under the papers' own convention
(001 App C.6.1: "One multiply-add = 2 FLOPs; element-wise unary/binary ops = 1 FLOP; reciprocal
counts as 1 FLOP").  Counts are exact integers, polynomial in (B, n, d): their coefficients are
identified exactly from 8 shapes (zero residual), which makes them symbolic facts, not samples.
"""
from __future__ import annotations

import math
import platform
import time

import numpy as np
import sympy as sp

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, Tried, register
from yatmath.yat import opcount
from yatmath.yat.layer import layer_forward

CONVENTION = ('001 App C.6.1: "One multiply-add = 2 FLOPs; element-wise unary/binary ops = 1 FLOP; '
              'reciprocal counts as 1 FLOP (fused divide). Caching costs amortized over steps."')


def _poly_coeffs(count_fn, sizes, terms):
    """Exact integer coefficients of a FLOP count in the monomials ``terms`` of (B, n, d)."""
    A = np.array([[t(B, n, d) for t in terms] for B, n, d in sizes], float)
    y = np.array([count_fn(B, n, d) for B, n, d in sizes], float)
    c, *_ = np.linalg.lstsq(A, y, rcond=None)
    resid = float(np.max(np.abs(A @ c - y)))
    return [int(round(v)) for v in c], resid


_TERMS = {"Bnd": lambda B, n, d: B * n * d, "Bd": lambda B, n, d: B * d,
          "nd": lambda B, n, d: n * d, "Bn": lambda B, n, d: B * n,
          "B": lambda B, n, d: B, "n": lambda B, n, d: n}
_SIZES = [(3, 5, 7), (4, 6, 5), (2, 7, 9), (5, 3, 4), (6, 4, 3), (7, 2, 6), (3, 8, 2), (9, 5, 5)]


def _yat_counts(B, n, d, phase, rng=None, **kw):
    rng = np.random.default_rng(0) if rng is None else rng
    X, W = rng.standard_normal((B, d)), rng.standard_normal((n, d))
    G = rng.standard_normal((B, n))
    c = opcount.count_yat_layer(X, W, 0.5, G, **kw)[0]
    return c.total(phase)


def _linear_counts(B, n, d, phase, **kw):
    c = opcount.count_linear_layer(np.ones((B, d)), np.ones((n, d)), np.ones((B, n)), **kw)[0]
    return c.total(phase)




def _saved_elements(d, L, h, mlp, policy):
    """Saved-for-backward elements per token per layer (floats; LN stats counted as 2)."""
    if policy == "eager_store_all":
        gpt = {"ln1_in+stats": d + 2, "qkv_in": d, "qkv": 3 * d, "attn_probs": h * L,
               "o_in": d, "ln2_in+stats": d + 2, "fc_in": d, "gelu_in": mlp, "proj_in": mlp}
        aeth = {"qkv_in": d, "qkv": 3 * d, "yat_S_D_probs": 3 * h * L, "o_in": d,
                "nmn_in": d, "nmn_S_D": 2 * mlp, "proj_in": mlp}
    elif policy == "recompute_S_D":
        gpt = {"ln1_in+stats": d + 2, "qkv_in": d, "qkv": 3 * d, "attn_probs": h * L,
               "o_in": d, "ln2_in+stats": d + 2, "fc_in": d, "gelu_in": mlp, "proj_in": mlp}
        aeth = {"qkv_in": d, "qkv": 3 * d, "attn_probs": h * L, "o_in": d, "nmn_in": d,
                "proj_in": mlp}
    else:  # fused attention (flash style: logsumexp + output), S and D recomputed
        gpt = {"ln1_in+stats": d + 2, "qkv_in": d, "qkv": 3 * d, "lse": h, "o_in": d,
               "ln2_in+stats": d + 2, "fc_in": d, "gelu_in": mlp, "proj_in": mlp}
        aeth = {"qkv_in": d, "qkv": 3 * d, "lse": h, "o_in": d, "nmn_in": d, "proj_in": mlp}
    return gpt, aeth




def _exact(B, n, d, coeffs):
    return sum(coeffs.get(t, 0) * _TERMS[t](B, n, d) for t in _TERMS)


@register("yat.cost.forward",
          method="instrumented operation count (yatmath.yat.opcount, Y11) of the Y3 expanded forward; "
                 "exact polynomial coefficients in (B, n, d) vs 2Bnd + Bd + nd + 5Bn")
def check_cost_forward(ctx):
    terms = list(_TERMS)
    coeff, resid = {}, {}
    for variant, kw in (("minimal", dict(fold_eps=True, clamp=False)),
                        ("reference_clamped", dict(fold_eps=False, clamp=True))):
        c, r = _poly_coeffs(lambda B, n, d: _yat_counts(B, n, d, "forward", **kw), _SIZES,
                            [_TERMS[t] for t in terms])
        coeff[variant], resid[variant] = dict(zip(terms, c)), r
    claimed = {"Bnd": 2, "Bd": 1, "nd": 1, "Bn": 5}
    counted = coeff["minimal"]
    exact_fit = max(resid.values()) < 1e-6
    lower = [t for t in terms if t != "Bnd"]
    B, n, d = 64, 768, 768
    ratio = _exact(B, n, d, counted) / _exact(B, n, d, claimed)
    src = '001 App C.5.1 eq.15: "T_forward = 2Bnd + Bd + nd + 5Bn = Theta(Bnd)"; 000 Thm 18'
    parts = {
        "theta_Bnd": Evidence(
            verdict=V.holds(exact_fit and counted["Bnd"] > 0),
            numbers={"counted": counted, "fit_residual": resid["minimal"]},
            scope=Scope("symbolic", "exact integer polynomial of the instrumented count (8 shapes, "
                        "monomials Bnd, Bd, nd, Bn, B, n; zero residual): leading term 2Bnd, the rest "
                        "lower order", universal=True)),
        "constants": Evidence(
            verdict=(V.CONFIRMED if counted == {**{t: 0 for t in terms}, **claimed} else
                     V.CONFIRMED_LOOSE if counted["Bnd"] == claimed["Bnd"] else V.REFUTED),
            reading=Reading("the exact forward FLOP count under the papers' own counting convention",
                            src + "; " + CONVENTION),
            numbers={"counted_minimal": counted, "counted_reference_clamped": coeff["reference_clamped"],
                     "claimed": claimed, "counted_over_claimed_at_B64_n768_d768": ratio},
            thresholds=[Threshold("leading coefficient of Bnd equal (exact integer counts)", 2, "precision",
                                  "exact integer operation counts", counted["Bnd"], counted["Bnd"])],
            scope=Scope("symbolic", "exact integer coefficients of the count", universal=True),
            notes="Leading 2Bnd holds; with multiply-add = 2 FLOPs (C.6.1) the norms cost 2Bd and 2nd, not "
                  "Bd and nd, and the elementwise part is 5Bn + B at best (eps folded into the row norms), "
                  "7Bn for the clamped Y3 reference. The constants of the lower-order terms differ "
                  "(CONFIRMED_LOOSE): claimed and counted are recorded with their ratio.")}
    return Evidence.of_parts(parts, numbers={"counted": counted, "claimed": claimed,
                                             "ratio_at_B64_n768_d768": ratio, "lower_order_terms": lower})


def _sym_grads():
    """Symbolic check of eqs 16, 18, 19 (d = 2) and of the S-path split of the complete gradient."""
    x = sp.symbols("x1:3", real=True)
    w = sp.symbols("w1:3", real=True)
    e = sp.symbols("epsilon", positive=True)
    s = sum(a * b for a, b in zip(x, w))
    A, Bn = sum(a * a for a in x), sum(b * b for b in w)
    D = A + Bn - 2 * s + e
    y = s ** 2 / D
    ss, aa, bb = sp.symbols("s a b")
    dyds_printed = 2 * ss * (aa + bb + e - ss) / (aa + bb - 2 * ss + e) ** 2
    eq16 = sp.simplify(sp.diff(ss ** 2 / (aa + bb - 2 * ss + e), ss) - dyds_printed) == 0
    dyds = dyds_printed.subs({ss: s, aa: A, bb: Bn})
    eq18 = all(sp.simplify(sp.diff(y, xi) - (dyds * wi - 2 * s ** 2 / D ** 2 * xi)) == 0 for xi, wi in zip(x, w))
    eq19 = all(sp.simplify(sp.diff(y, wi) - (dyds * xi - 2 * s ** 2 / D ** 2 * wi)) == 0 for xi, wi in zip(x, w))
    # S-path contribution of the complete gradient is dY/dS * w, exactly (R2)
    spath = all(sp.simplify((sp.diff(y, xi) + 2 * s ** 2 / D ** 2 * xi) - dyds * wi) == 0 for xi, wi in zip(x, w))
    return bool(eq16), bool(eq18 and eq19), bool(spath)


R1_EXPR = ("(lambda X, W, G: (lambda S, a, b, full: float(np.linalg.norm((G * 2 * S * (a + b + eps - S) / "
           "(a + b - 2 * S + eps) ** 2) @ W - full) / np.linalg.norm(full)))(X @ W.T, np.sum(X * X, 1)[:, None], "
           "np.sum(W * W, 1)[None, :], yatmath.yat.layer_backward(G, yatmath.yat.layer_forward(X, W, eps, "
           "alpha=0.0, return_cache=True, backend='numpy')[1]).X))(np.array(X), np.array(W), np.array(G))")


@register("yat.cost.backward_formulas",
          method="sympy (eqs 16, 18, 19 and the S-path split, d = 2); eqs 20-22 vs the complete gradient "
                 "(library backward, itself checked by central differences in fp64); instrumented count "
                 "of the complete backward")
def check_cost_backward(ctx):
    eq16, eq1819, spath = _sym_grads()
    rng = ctx.rng("data")
    B, n, d, eps, h = 3, 2, 4, 0.7, 1e-6
    X, W, G = rng.standard_normal((B, d)), rng.standard_normal((n, d)), rng.standard_normal((B, n))
    S = X @ W.T
    a, b = np.sum(X * X, 1)[:, None], np.sum(W * W, 1)[None, :]
    GS = G * 2 * S * (a + b + eps - S) / (a + b - 2 * S + eps) ** 2
    full = Y.layer_backward(G, layer_forward(X, W, eps, alpha=0.0, return_cache=True, backend="numpy")[1]).X
    loss = lambda X_: float(np.sum(G * Y.gram(X_, W, eps, backend="numpy")))
    fd = np.zeros_like(X)
    for idx in np.ndindex(*X.shape):
        Xp, Xm = X.copy(), X.copy()
        Xp[idx] += h
        Xm[idx] -= h
        fd[idx] = (loss(Xp) - loss(Xm)) / (2 * h)
    lib_vs_fd = float(np.linalg.norm(full - fd) / np.linalg.norm(fd))
    rel = float(np.linalg.norm(GS @ W - full) / np.linalg.norm(full))
    fd_tol = 1e-6   # central difference h = 1e-6 in fp64: truncation ~1e-12, rounding ~1e-10 relative
    src = ('001 App C.5.2 eqs 21-22: "dL/dW = G_S^T X (2Bnd)", "dL/dX = G_S W (2Bnd)", then "Hence T_backward '
           '= 4Bnd + 6Bn + O(Bd + nd)" (eq.23): the loss gradients of the layer, whose cost is the backward pass')
    r2 = Evidence(verdict=V.holds(spath),
                  reading=Reading("G_S^T X and G_S W are only the S-path contribution of the gradients",
                                  "001 eq.17 lists the separate norm-path derivatives -s^2/D^2"),
                  scope=Scope("symbolic", "sympy, d = 2: grad_x y + 2 s^2/D^2 x = dY/dS w", universal=True))
    parts = {
        "eq16_dYdS": Evidence(verdict=V.holds(eq16), scope=Scope("symbolic", "sympy", universal=True)),
        "eq18_19_pair_gradients": Evidence(verdict=V.holds(eq1819),
                                           scope=Scope("symbolic", "sympy, d = 2 symbolic vectors", universal=True)),
        "eqs20_22_complete_gradients": Evidence(
            verdict=V.holds(rel <= fd_tol and lib_vs_fd <= fd_tol) if lib_vs_fd <= fd_tol else V.INCONCLUSIVE,
            reading=Reading("eqs 20-22 give the complete gradients dL/dW, dL/dX of the layer", src),
            other_readings={"S_path_only": r2},
            numbers={"rel_err_GS_W_vs_complete": rel, "library_vs_central_difference": lib_vs_fd},
            thresholds=[Threshold("relative error of G_S W vs the complete dL/dX", fd_tol, "precision",
                                  "fp64 central differences, h = 1e-6 (the library gradient agrees with "
                                  "them to the recorded library_vs_central_difference)", rel, rel)],
            counterexample={"X": X.tolist(), "W": W.tolist(), "G": G.tolist(), "eps": eps,
                            "rel_err": rel, "missing_term": "-2 diag(sum_j G S^2/D^2) X"},
            repro=Repro(R1_EXPR, {"X": X.tolist(), "W": W.tolist(), "G": G.tolist(), "eps": eps},
                        expected=rel, rtol=1e-8, tol_reason="float64; same formulas, summation order"),
            notes="The complete dL/dX adds -2 (sum_j G_ij S_ij^2/D_ij^2) x_i (the norm path of eq.17), "
                  "which eqs 21-22 omit; nothing in 001 says they are partial.")}
    terms = list(_TERMS)
    cb, resid = _poly_coeffs(lambda B_, n_, d_: _yat_counts(B_, n_, d_, "backward"), _SIZES,
                             [_TERMS[t] for t in terms])
    counted = dict(zip(terms, cb))
    parts["count_complete_backward"] = Evidence(
        verdict=(V.CONFIRMED if counted["Bnd"] == 4 and counted["Bn"] == 6 else
                 V.CONFIRMED_LOOSE if counted["Bnd"] == 4 else V.REFUTED),
        numbers={"counted": counted, "claimed_leading": {"Bnd": 4, "Bn": 6}, "fit_residual": resid},
        scope=Scope("symbolic", "exact integer coefficients of the instrumented complete backward", universal=True),
        notes="The Theta(Bnd) order and 4Bnd hold; the Bn coefficient of a complete backward is larger "
              "than 6 (norm path: Q = G S^2/D^2 and its row/column sums).")
    return Evidence.of_parts(parts, numbers={"rel_err_eqs21_22": rel, "backward_count": counted})


@register("yat.cost.overhead_ratio",
          method="printed formula on d,n >= 64, B >= 16 (decreasing in each variable: sup at the corner); "
                 "ratio rebuilt from Table 3/5's own terms (sympy); instrumented counts at the corner")
def check_overhead(ctx):
    B, n, d = sp.symbols("B n d", positive=True)
    yat_tab = 2 * B * n * d + B * d + n * d + 5 * B * n + 4 * B * n * d + 6 * B * n + B * d + n * d
    lin_tab = 2 * B * n * d + B * n + 4 * B * n * d + 2 * B * n
    ratio_tab = sp.simplify(yat_tab / lin_tab)
    printed = 1 + 1 / (2 * n) + 1 / (2 * B) + 2 / d
    t, b_, m_, k_ = sp.symbols("t b m k", positive=True)
    sub = {B: b_ / t, n: m_ / t, d: k_ / t}
    tab_first = sp.simplify(sp.series(ratio_tab.subs(sub), t, 0, 2).removeO().subs(t, 1).subs(
        {b_: B, m_: n, k_: d}))
    decreasing_printed = all(sp.simplify(sp.diff(printed, v)).is_negative for v in (B, n, d))
    # the table ratio: (6 + 2/n + 2/B + 11/d)/(6 + 3/d); d-derivative has the sign of 3c - 66, c = 6+2/n+2/B
    c = 6 + 2 / n + 2 / B
    rr = (c + 11 / d) / (6 + 3 / d)
    same = sp.simplify(rr - ratio_tab) == 0
    dsign = sp.simplify(sp.diff(rr, d) * d ** 2 * (6 + 3 / d) ** 2 - (3 * c - 66)) == 0
    c_max = float(c.subs({n: 64, B: 16}))
    corner = {"B": 16, "n": 64, "d": 64}
    f_corner = 1 + 1 / (2 * 64) + 1 / (2 * 16) + 2 / 64
    tab_corner = float(ratio_tab.subs({B: 16, n: 64, d: 64}))
    rng = np.random.default_rng(0)
    Xc, Wc, Gc = rng.standard_normal((16, 64)), rng.standard_normal((64, 64)), rng.standard_normal((16, 64))
    inst = (opcount.count_yat_layer(Xc, Wc, 1.0, Gc)[0].total()
            / opcount.count_linear_layer(Xc, Wc, Gc, bias=True, relu=True)[0].total())
    src = ('001 Table 3 caption: "Overhead < 5% once d, n >= 64, B >= 16 (ratio simplifies to 1 + 1/(2n) + '
           '1/(2B) + 2/d)"; 000 Table 5 and caption')
    table_reading = Evidence(
        verdict=V.holds(bool(same and dsign and c_max < 22 and tab_corner < 1.05)),
        reading=Reading("the overhead computed from the table's own forward+backward terms is < 5% on the region",
                        "001 Table 3 rows 'Forward/Backward main/aux' (Linear: 2Bnd, Bn, 4Bnd, 2Bn; "
                        "E: 2Bnd, Bd+nd+5Bn, 4Bnd, 6Bn+Bd+nd)"),
        numbers={"ratio_from_table_at_corner": tab_corner, "first_order": str(tab_first),
                 "instrumented_complete_counts_at_corner": inst},
        thresholds=[Threshold("table ratio - 1 <= 0.05 at the corner (its sup)", 0.05, "paper",
                              "001 Table 3 caption '< 5%'", tab_corner - 1, tab_corner - 1)],
        scope=Scope("symbolic", "ratio = (6 + 2/n + 2/B + 11/d)/(6 + 3/d) decreases in B, n and (since "
                    "3c - 66 < 0) in d: sup at (16, 64, 64)", universal=True))
    parts = {
        "printed_formula_below_5pct": Evidence(
            verdict=V.from_bound(f_corner - 1, 0.05, rtol=1e-12),
            reading=Reading("the printed overhead 1 + 1/(2n) + 1/(2B) + 2/d is < 1.05 for d, n >= 64, B >= 16", src),
            other_readings={"table_terms_ratio": table_reading},
            numbers={"formula_at_corner": f_corner, "formula_decreasing_in_B_n_d": bool(decreasing_printed)},
            thresholds=[Threshold("printed formula - 1 <= 0.05", 0.05, "paper", "001 Table 3 caption '< 5%'",
                                  f_corner - 1, f_corner - 1)],
            counterexample={**corner, "formula": f_corner},
            repro=Repro("1 + 1/(2*n) + 1/(2*B) + 2/d", corner, expected=f_corner)),
        "formula_from_table_terms": Evidence(
            verdict=V.holds(sp.simplify(tab_first - printed) == 0),
            reading=Reading("the printed ratio is what the table's terms simplify to", src),
            numbers={"first_order_of_table_ratio": str(tab_first), "printed": str(printed),
                     "table_ratio_at_corner": tab_corner, "formula_at_corner": f_corner},
            counterexample={**corner, "table_ratio": tab_corner, "printed_formula": f_corner},
            repro=Repro("(6*B*n*d + 2*B*d + 2*n*d + 11*B*n) / (6*B*n*d + 3*B*n)", corner, expected=tab_corner),
            notes="The table's terms give 1 + 1/(3n) + 1/(3B) + 4/(3d) to first order; the printed "
                  "formula is the forward-only ratio.")}
    return Evidence.of_parts(parts, numbers={"formula_at_corner": f_corner, "table_ratio_at_corner": tab_corner,
                                             "instrumented_at_corner": inst})


PAPER_WIDTHS = (768, 784, 3072)   # GPT-2 (000/001 §4), MNIST input (001 E.8), GPT-2 MLP


def _gelu_part(r_gelu, d, ratios, ds, gelu_ds):
    """'Linear+GELU 2d+15, ~1.03x' to the printed digits (half a unit: 0.005) at the papers' widths."""
    at = {w: float(r_gelu.subs(d, w)) for w in PAPER_WIDTHS}
    w_bad = max(at, key=lambda w: abs(at[w] - 1.03))
    dev = abs(at[w_bad] - 1.03)
    refuted = all(abs(v - 1.03) > 0.005 for v in at.values())
    return Evidence(
        verdict=V.holds(not refuted),
        numbers={"ratio_at_d": dict(zip(map(str, ds), ratios)),
                 "d_interval_where_it_rounds_to_1.03": sorted(gelu_ds)},
        counterexample={"d": w_bad, "ratio": at[w_bad], "printed": 1.03} if refuted else None,
        repro=Repro("(2 * d + 15) / (2 * d + 1)", {"d": w_bad}, expected=at[w_bad],
                    tol_reason="float64 of a ratio of small integers") if refuted else None,
        thresholds=[Threshold("|(2d+15)/(2d+1) - 1.03| <= half a unit of the printed last digit", 0.005,
                              "paper", "001 Table 4 / 000 Table 6 print '~1.03' (two decimals)",
                              dev, dev)],
        scope=Scope("symbolic", "the ratio is exact in d; it rounds to 1.03 only for d in about "
                    "[200, 280], and the papers' widths are 768, 784 and 3072"),
        notes="(2d+15)/(2d+1) is 1.009 at d = 768 and 784 and 1.002 at 3072 (1.11 at d = 64): the printed "
              "1.03 matches no layer width the papers use (second reader, this session).")


@register("yat.cost.per_neuron",
          method="Table 4/6 ratios (sympy, as functions of d) against the printed rounding; savings of the "
                 "optimised form; monotonicity in d; amortised counts (opcount) as context")
def check_per_neuron(ctx):
    d = sp.symbols("d", positive=True)
    base = 2 * d + 1
    src = '001 Table 4 / 000 Table 6: "Linear+GELU 2d+15 ~1.03; E (naive) 5d+1 ~2.5; E (optimized) 4d+4 ~2.0"'
    r_naive, r_opt, r_gelu = (5 * d + 1) / base, (4 * d + 4) / base, (2 * d + 15) / base
    # |ratio - printed| <= half a unit of the printed last digit, for which d?
    # r_naive - 5/2 = -3/(2(2d+1)) and r_opt - 2 = 2/(2d+1): both within 1/20 exactly for d >= d_min
    assert sp.simplify(r_naive - sp.Rational(5, 2) + sp.Rational(3, 2) / base) == 0
    assert sp.simplify(r_opt - 2 - 2 / base) == 0
    ok_naive = sp.Interval(sp.solve(sp.Eq(sp.Rational(3, 2) / base, sp.Rational(1, 20)), d)[0], sp.oo)
    ok_opt = sp.Interval(sp.solve(sp.Eq(2 / base, sp.Rational(1, 20)), d)[0], sp.oo)
    gelu_ds = [float(v) for v in sp.solve(sp.Eq(r_gelu, sp.Rational(1035, 1000)), d)] + \
        [float(v) for v in sp.solve(sp.Eq(r_gelu, sp.Rational(1025, 1000)), d)]
    ds = (64, 768, 784, 3072)
    table = {name: [float(r.subs(d, v)) for v in ds] for name, r in
             (("gelu", r_gelu), ("naive", r_naive), ("optimized", r_opt))}
    ratios = Evidence.of_parts({
        "naive_2.5": Evidence(verdict=V.holds(ok_naive.contains(64) == sp.true and ok_naive.contains(10 ** 9) == sp.true),
                              numbers={"d_set_within_rounding": str(ok_naive)},
                              scope=Scope("symbolic", "|(5d+1)/(2d+1) - 2.5| <= 0.05 solved in d: holds for "
                                          "all d >= 15, so every layer width in the papers", universal=True)),
        "optimized_2.0": Evidence(verdict=V.holds(ok_opt.contains(64) == sp.true and ok_opt.contains(10 ** 9) == sp.true),
                                  numbers={"d_set_within_rounding": str(ok_opt)},
                                  scope=Scope("symbolic", "|(4d+4)/(2d+1) - 2| <= 0.05 for all d >= 15", universal=True)),
        "gelu_1.03": _gelu_part(r_gelu, d, table["gelu"], ds, gelu_ds),
    }, reading=Reading("the per-neuron ratios to Linear+ReLU, to the printed digits, at the papers' layer widths",
                       src))
    sav = 1 - (4 * d + 4) / (5 * d + 1)
    sav_set = sp.Interval(sp.solve(sp.Eq(sav, sp.Rational(195, 1000)), d)[0], sp.oo)   # sav increases in d
    saves = Evidence(
        verdict=V.holds(sp.limit(sav, d, sp.oo) == sp.Rational(1, 5) and sav_set.contains(128) == sp.true),
        reading=Reading("the optimised form saves 20% (to the printed integer percent) for the layer widths "
                        "the papers use (d = 768, 784, 3072)", '001 C.5.5: "Optimized variant saves 20% vs '
                        'naive by avoiding explicit difference vector"'),
        numbers={"savings_at_d": dict(zip(map(str, ds), [float(sav.subs(d, v)) for v in ds])),
                 "d_set_rounding_to_20pct": str(sav_set)},
        scope=Scope("symbolic", "savings (d-3)/(5d+1) -> 1/5, >= 19.5% exactly for d >= 128 (19.0% at d = 64)"))
    decreasing = sp.simplify(sp.diff(r_opt, d)).is_negative
    parts = {
        "table_ratios": ratios,
        "saves_20pct": saves,
        "about_2x_yet_Theta_Bnd": Evidence(
            verdict=V.holds(ok_opt.contains(768) == sp.true),
            reading=Reading("per neuron (Table 4 accounting, ||x||^2 recomputed) the cost is ~2x Linear+ReLU, "
                            "while the layer's order is Theta(Bnd) like a linear layer (Table 3 accounting)",
                            '000 §2.3 / 001 §2.4: "approximately 2x the FLOPs" yet "Theta(Bnd), identical"; '
                            "001 Table 3 and Table 4 are two accountings"),
            numbers={"optimized_ratio_at_d": dict(zip(map(str, ds), table["optimized"]))},
            scope=Scope("symbolic", "ratio (4d+4)/(2d+1) within 0.05 of 2 for d >= 15; Theta(Bnd) from "
                        "yat.cost.forward's exact count", universal=True),
            notes="With the norm reuse Table 3 describes, a Yat output costs ~2d + 5 (about 1x Linear+ReLU): "
                  "the '2x' is the per-neuron accounting, not the layer's."),
        "more_efficient_when_larger": Evidence(
            verdict=V.holds(bool(decreasing)),
            numbers={"d_ratio_opt": str(sp.simplify(sp.diff(r_opt, d)))},
            scope=Scope("symbolic", "d/dd (4d+4)/(2d+1) = -4/(2d+1)^2 < 0", universal=True)),
    }
    return Evidence.of_parts(parts, numbers={"ratios_at_d": table, "d": list(ds)})


@register("yat.cost.memory",
          method="analytic saved-for-backward bytes per token per layer, GPT-2 vs Aether block (d=768, "
                 "L=1024, 12 heads, MLP 3072), three storage policies, fp32 and bf16 (a substitute)")
def check_memory(ctx):
    d, L, h, mlp = 768, 1024, 12, 3072
    res = {}
    for pol in ("eager_store_all", "recompute_S_D", "fused_attention"):
        g, a = _saved_elements(d, L, h, mlp, pol)
        eg, ea = sum(g.values()), sum(a.values())
        g16 = 2 * eg + 2 * 2 * 2
        d_fp32 = (h * L + mlp) if pol == "eager_store_all" else 0
        a16 = 2 * ea + 2 * d_fp32
        res[pol] = {"gpt2_bytes_fp32": 4 * eg, "aether_bytes_fp32": 4 * ea, "gpt2_bytes_bf16": g16,
                    "aether_bytes_bf16": a16, "reduction_fp32": 1 - ea / eg, "reduction_bf16": 1 - a16 / g16,
                    "ln_share_of_gpt2": 2 * (d + 2) / eg}
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        reading=Reading("the measured peak memory of the Aether-GPT2 runs is 15-25% below GPT-2's",
                        '000 App C.21.7: "Empirical performance: ... in our BF16 runs; 15-25% memory '
                        'reduction from eliminated activation storage"; 001 App C.5 "peak memory reduced '
                        '15-25%"'),
        numbers={"substitute_analytic_saved_bytes": res},
        tried=Tried(
            printed="'15-25%' is printed in 000 §1, §2.3, Table 3 ('Memory -15-25%'), §3.5 and App C.21.7, and in "
                    "001 §1, §2.4, §3.4, App C.5 and E.9.1: always the same range, never an absolute peak (GB) or a "
                    "per-run value, so no two printed numbers can disagree. The attributions differ in words only "
                    "(000: 'elimination of activation storage'; 001 E.9.1: 'intermediate activations for "
                    "backpropagation through normalization layers').",
            search="The free implementation choice (what is saved for backward) was varied over three storage "
                   "policies and two precisions for one GPT-2 vs Aether block (d = 768, L = 1024, 12 heads, MLP "
                   "3072): Aether's saved bytes are "
                   + ", ".join(f"{pol} {100 * r['reduction_fp32']:+.0f}% (fp32) / {100 * r['reduction_bf16']:+.0f}% "
                               f"(bf16)" for pol, r in res.items())
                   + " relative to GPT-2 (positive = less memory); LayerNorm alone is "
                   f"{100 * res['recompute_S_D']['ln_share_of_gpt2']:.1f}% of GPT-2's saved activations. Depending on "
                   "the policy the reduction is inside, above or below 15-25%, so the analysis cannot decide it, "
                   "and peak memory also holds parameters and optimizer state, which the papers do not size.",
            budget="The analytic model costs nothing. Deciding needs the peak-memory measurement of the papers' own "
                   "Aether-GPT2 and GPT-2 training steps (their code, framework, checkpointing and BF16 setup), "
                   "which are not available; a measurement of another implementation would be a different claim."),
        notes="An empirical measurement of the papers' runs (framework, kernels, checkpointing unknown): "
              "not reproducible here. The analytic saved-for-backward model is a labelled substitute: "
              "depending on the storage policy Aether stores more (eager S, D and score tensors) or "
              "19-37% less, so it cannot decide the claim either way.")


@register("yat.cost.throughput",
          method="132/138 vs 001's 0.85-0.92x; times implied by 2.5B tokens at each throughput (rounding "
                 "intervals) vs the reported end-to-end times; a NumPy CPU benchmark as a substitute")
def check_throughput(ctx):
    lin, yat = 138e3, 132e3
    ratio = yat / lin
    r_lo, r_hi = (yat - 500) / (lin + 500), (yat + 500) / (lin - 500)
    rep = {"linear": 4 * 3600 + 50 * 60 + 10, "aether": 5 * 3600 + 2 * 60 + 31}
    tok_lo = 2.45e9                       # "2.5B" rounded to 0.1B
    tmin = {"linear": tok_lo / (lin + 500), "aether": tok_lo / (yat + 500)}
    src34 = '001 §3.4: 138k vs 132k tok/s; 4h50m10s vs 5h02m31s end-to-end; 2.5B tokens'
    parts = {
        "ratio_in_0.85_0.92": Evidence(
            verdict=V.holds(r_lo <= 0.92),
            reading=Reading("the Aether/linear throughput ratio lies in 0.85-0.92x", '001 App C.5: "Empirical '
                            'Throughput: 0.85-0.92x linear"; ' + src34),
            numbers={"ratio": ratio, "ratio_range_from_rounding": [r_lo, r_hi]},
            thresholds=[Threshold("ratio <= 0.92", 0.92, "paper", "001 App C.5 '0.85-0.92x'", r_lo, r_lo)],
            counterexample={"aether_tok_s": yat, "linear_tok_s": lin, "ratio": ratio},
            repro=Repro("a / l", {"a": yat, "l": lin}, expected=ratio),
            notes="The paper's own GPT-2 measurement (0.957, at least 0.953 under rounding) is outside its "
                  "stated range."),
        "times_vs_throughput": Evidence(
            verdict=V.holds(rep["linear"] >= tmin["linear"]),
            reading=Reading("the reported end-to-end times are those of 2.5B tokens at the reported throughputs",
                            src34),
            numbers={"reported_s": rep, "minimum_s_from_tokens_and_throughput": tmin},
            thresholds=[Threshold("reported linear time >= tokens/throughput (rounding-robust)", tmin["linear"],
                                  "precision", "printed digits: 2.5B as >= 2.45e9, 138k as <= 138.5k tok/s",
                                  rep["linear"], rep["linear"])],
            counterexample={"tokens_min": tok_lo, "linear_tok_s_max": lin + 500, "reported_linear_s": rep["linear"],
                            "minimum_linear_s": tmin["linear"]},
            repro=Repro("tokens / tps - reported", {"tokens": tok_lo, "tps": lin + 500, "reported": rep["linear"]},
                        expected=tmin["linear"] - rep["linear"]),
            notes="End-to-end time cannot be shorter than tokens / throughput."),
        "000_comparable_or_higher": Evidence(
            verdict=V.NOT_CHECKABLE, numbers={"ratio_001": ratio},
            tried=Tried(
                printed="000 Table 3 prints 'Throughput (tok/s) comparable comparable' and App C.21.7 'comparable or "
                        "slightly higher throughput than a linear baseline in our BF16 runs': no number. The only "
                        f"printed throughputs are 001's 138k vs 132k tok/s (ratio {ratio:.3f}, {r_lo:.3f}-{r_hi:.3f} "
                        "under rounding), of a different version's runs (Novograd, not 000's AdamW); they contradict "
                        "001's own '0.85-0.92x' (part ratio_in_0.85_0.92) but not 000's words, which name no run "
                        "of 001.",
                search="The vague words were tested against the one measured ratio under every reading: 'comparable' "
                       f"holds for {ratio:.3f} under any tolerance above {100 * (1 - r_lo):.1f}%, 'slightly higher' "
                       "fails for it (it is lower); but 000's claim is about 000's own BF16 runs, whose ratio is not "
                       "printed, so the 001 ratio cannot stand in for it.",
                budget="Nothing to run: 000's BF16 Aether-GPT2 and GPT-2 runs (their hardware and code) are not "
                       "available, and the words carry no threshold."),
            notes="000's 'comparable or slightly higher' (its own BF16 runs, no number) is vague and its runs "
                  "are not available; 001's 0.957 is 4.3% lower."),
    }
    rng = ctx.rng("bench")
    Bv, nv, dv = ctx.pick((128, 256, 256), (512, 512, 512))
    X, W = rng.standard_normal((Bv, dv)), rng.standard_normal((nv, dv)) / math.sqrt(dv)

    def best(f, k=3):
        ts = []
        for _ in range(k):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        return min(ts)
    sub = best(lambda: layer_forward(X, W, 1.0, backend="numpy")) / best(lambda: X @ W.T + 0.0)
    parts["replication"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        tried=Tried(
            printed="The printed throughputs were compared with each other and with the printed times in the other "
                    "parts: 138k/132k tok/s against 001 App C.5's 0.85-0.92x (outside it) and against 4h50m10s / "
                    "5h02m31s for 2.5B tokens (the reported times are shorter than tokens / throughput), both "
                    "REFUTED there; nothing else about the runs is printed.",
            search=f"A substitute forward benchmark (NumPy, CPU, B x n x d = {Bv} x {nv} x {dv}) gives Yat/linear "
                   f"time {sub:.2f}x; the ratio depends on the kernel, device, precision and shape (free choices of "
                   "an implementation), so it says nothing about the papers' TPU/GPU runs.",
            budget="Under a second at quick. Replication needs the papers' Aether-GPT2 and GPT-2 training on their "
                   "accelerators (BF16) with their code: not available here, whatever the budget."),
        numbers={"substitute_numpy_forward_time_ratio_yat_over_linear": sub,
                 "substitute_device": platform.processor() or platform.machine(),
                 "substitute_shape_B_n_d": [Bv, nv, dv]},
        notes="The papers' TPU/GPU runs cannot be repeated; the CPU NumPy timing is a labelled substitute.")
    return Evidence.of_parts(parts, numbers={"ratio_132_138": ratio, "reported_s": rep, "minimum_s": tmin})
