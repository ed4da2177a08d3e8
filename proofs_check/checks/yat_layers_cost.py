"""Checks of claims.md A9 (squashers and layer design) and A10 (complexity and implementation).

Every verdict below is computed from measured numbers by a rule written next to it.  Budgets
come from ``ctx.pick(quick, full)``; all randomness from ``ctx.rng(tag)``.  Operation counts use
``yatmath.yat.opcount`` (algorithms.md Y11); layers, attention and squashers come from
``yatmath.yat``.  Helpers that evaluate a *printed* formula naively in a low-precision dtype (the
thing a stability claim is about) are local and named ``_printed_*``.
"""
from __future__ import annotations

import math
import platform
import time

import numpy as np
import sympy as sp
from scipy import optimize, special

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, register
from yatmath.yat import opcount, squash
from yatmath.yat.attention import attention, attention_backward
from yatmath.yat.layer import layer_backward, layer_forward, width_scale


# ----------------------------------------------------------------------------- helpers

def _bf16(a):
    """Round float values to bfloat16 (round to nearest even), returned as float32.

    bfloat16 is float32 with the low 16 mantissa bits dropped; NumPy has no bf16 dtype, so we
    emulate it bit-exactly on the float32 representation (overflow rounds to +-inf as in bf16).
    """
    a = np.asarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    out = u.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out)


_BF16_MAX = float(_bf16(np.float32(3.3895313892515355e38)))
_DTYPE_MAX = {"fp16": float(np.finfo(np.float16).max), "fp32": float(np.finfo(np.float32).max),
              "bf16": _BF16_MAX}


def _cast(a, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(a, np.float64).astype(dtype).astype(np.float64)


_ROUND = {"fp16": lambda a: _cast(a, np.float16), "fp32": lambda a: _cast(a, np.float32),
          "bf16": lambda a: _cast(_bf16(_cast(a, np.float32)), np.float64)}


def _printed_softermax(x, n, eps, fmt):
    """x_k^n / (eps + sum x_i^n) evaluated as printed, every op rounded to ``fmt``."""
    r = _ROUND[fmt]
    with np.errstate(all="ignore"):
        p = r(np.power(r(x), n))
        den = r(eps + r(np.sum(p)))
        return r(p / den)


def _printed_softmax(x, fmt, stable):
    r = _ROUND[fmt]
    x = r(x)
    with np.errstate(all="ignore"):
        e = r(np.exp(r(x - np.max(x)) if stable else x))
        return r(e / r(np.sum(e)))


def _fit_loglog(n, y, rng, n_boot=200):
    """Least-squares slope of log y vs log n, with a bootstrap 95% CI over the points."""
    ln, ly = np.log(n), np.log(y)
    b = float(np.polyfit(ln, ly, 1)[0])
    bs = []
    for _ in range(n_boot):
        i = rng.integers(0, len(n), len(n))
        if np.ptp(ln[i]) > 0:
            bs.append(np.polyfit(ln[i], ly[i], 1)[0])
    return b, (float(np.percentile(bs, 2.5)), float(np.percentile(bs, 97.5)))


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


# ----------------------------------------------------------------------------- A9 squashers

@register("yat.squash.softermax",
          method="sympy (softermax = softmax(n ln x) at eps=0, entropy derivative, sum deficit); "
                 "entropy vs n on random x; printed formula evaluated in fp16/bf16/fp32 for "
                 "overflow thresholds vs naive and max-shifted softmax")
def check_softermax(ctx):
    rng = ctx.rng("x")
    parts = {}
    # (a) n = 1 vs softmax (002 "Softmax") and vs the "original Softermax" (000/001)
    xs = rng.uniform(0, 5, (ctx.pick(200, 2000), 4))
    sm1 = squash.softermax(xs, 1.0)
    diff_softmax = float(np.max(np.abs(sm1 - special.softmax(xs, axis=1))))
    x_ce = [1.0, 3.0]
    parts["n1_is_softmax_002"] = Evidence(
        verdict=V.holds(diff_softmax <= 1e-12),
        numbers={"max_abs_diff_softermax1_vs_softmax": diff_softmax},
        counterexample={"x": x_ce, "softermax_1": squash.softermax(np.array(x_ce), 1.0).tolist(),
                        "softmax": special.softmax(x_ce).tolist()},
        repro="import numpy as np, yatmath.yat.squash as q, scipy.special as s; "
              "print(q.softermax(np.array([1.,3.]), 1.0), s.softmax([1.,3.]))")
    xk, n, e = sp.symbols("x_k n epsilon", positive=True)
    xsym = sp.symbols("x1:4", positive=True)
    smx = xsym[0] ** n / sum(xi ** n for xi in xsym)
    sfx = sp.exp(n * sp.log(xsym[0])) / sum(sp.exp(n * sp.log(xi)) for xi in xsym)
    ident = sp.simplify(sp.powsimp(smx - sfx, force=True)) == 0
    unpowered = sp.simplify(smx.subs(n, 1) - xsym[0] / sum(xsym)) == 0
    base2 = np.exp2(x_ce) / np.exp2(x_ce).sum()
    diff_base2 = float(np.max(np.abs(np.array(x_ce) / np.sum(x_ce) - base2)))
    parts["n1_is_original_softermax_000_001"] = Evidence(
        verdict=V.combine_readings([V.holds(unpowered), V.holds(diff_base2 <= 1e-12)]),
        numbers={"R1_unpowered_normalisation_identity": bool(unpowered),
                 "R2_stevens2021_base2_softmax_max_diff": diff_base2},
        notes="The papers cite no 'original Softermax'. R1: the unpowered x_k/(eps+sum x) "
              "(true by substitution); R2: Softermax of Stevens et al. 2021 (base-2 softmax), "
              "which differs (x=(1,3): (0.25,0.75) vs (0.2,0.8)).")
    # (b) n > 1 harder, n < 1 softer: H(softmax(n l)) is non-increasing in n
    l = sp.symbols("l1:4", real=True)
    Z = sum(sp.exp(n * li) for li in l)
    p = [sp.exp(n * li) / Z for li in l]
    H = -sum(pi * sp.log(pi) for pi in p)
    mean = sum(pi * li for pi, li in zip(p, l))
    var = sum(pi * (li - mean) ** 2 for pi, li in zip(p, l))
    pt = {l[0]: 0.3, l[1]: -1.2, l[2]: 2.0, n: 1.7}
    dH_num = float(sp.diff(H, n).subs(pt).evalf(30))
    dH_id = float((-n * var).subs(pt).evalf(30))
    ns = np.linspace(0.1, 8, 40)
    viol = 0
    worst = 0.0
    for x in rng.uniform(0.01, 5, (ctx.pick(200, 2000), 6)):
        for delta in (0.0, 0.1):
            P = np.array([squash.softermax(x, nn, delta) for nn in ns])
            P = P / P.sum(axis=1, keepdims=True)
            Hn = -np.sum(special.xlogy(P, P), axis=1)
            inc = float(np.max(np.diff(Hn)))
            worst = max(worst, inc)
            viol += int(inc > 1e-12)
    parts["sharpness_vs_n"] = Evidence(
        verdict=V.holds(viol == 0 and abs(dH_num - dH_id) <= 1e-12 * abs(dH_id)),
        numbers={"dH_dn_symbolic_at_point": dH_num, "minus_n_var_at_point": dH_id,
                 "entropy_increase_violations": viol, "max_entropy_increase": worst},
        notes="dH/dn = -n Var_p(ln x) <= 0 (sympy, checked at a point to 30 digits); entropy "
              "of the (renormalised) output non-increasing in n on random x, delta in {0, 0.1}.")
    # (c) stability for large inputs: overflow thresholds of the printed formulas
    thr, bad = {}, []
    for fmt, M in _DTYPE_MAX.items():
        for nn in (0.5, 1.0, 2.0, 4.0, 8.0):
            t_sx = M ** (1.0 / nn)        # x^n overflows beyond this
            t_sm = math.log(M)             # exp(x) overflows beyond this (naive softmax)
            thr[f"{fmt}_n{nn:g}"] = [t_sx, t_sm]
            if t_sx < t_sm:
                x_bad = [min(1.2 * t_sx, 0.9 * t_sm), 1.0]
                out_sx = _printed_softermax(np.array(x_bad), nn, 1e-6, fmt)
                out_sm = _printed_softmax(np.array(x_bad), fmt, stable=False)
                bad.append({"fmt": fmt, "n": nn, "x": x_bad, "softermax": out_sx.tolist(),
                            "naive_softmax": out_sm.tolist()})
    big = np.array([1e5, 2e5])
    sx_big = _printed_softermax(big, 2.0, 1e-6, "fp16")
    sm_stable = _printed_softmax(big, "fp16", stable=True)
    vs_naive = V.holds(not bad)
    vs_stable = V.holds(bool(np.all(np.isfinite(sx_big))))
    parts["stability_large_inputs"] = Evidence(
        verdict=V.combine_readings([vs_naive, vs_stable]),
        numbers={"overflow_threshold_softermax_vs_naive_softmax": thr,
                 "fp16_n2_x=[1e5,2e5]_softermax": sx_big.tolist(),
                 "fp16_max_shifted_softmax": sm_stable.tolist()},
        counterexample={"vs_naive_softmax": bad[:3],
                        "vs_max_shifted_softmax": {"fmt": "fp16", "n": 2, "x": big.tolist()}},
        repro="import numpy as np; x=np.float16([5.,1.]); print(x**8/(1e-6+np.sum(x**8)), "
              "np.exp(x)/np.exp(x).sum())",
        notes="R1 vs naive exp softmax: x^n overflows at max^(1/n), earlier than exp's ln(max) "
              "when n > ln(max)/ln(ln(max)) (fp16: n > 4.6). R2 vs the standard max-shifted "
              "softmax, which never overflows, while the printed softermax does. (The library's "
              "squash.softermax is evaluated in the log domain and does not overflow.)")
    # (d) the output is a distribution
    S_ = sp.symbols("S", positive=True)
    deficit_ok = sp.simplify(1 - S_ / (e + S_) - e / (e + S_)) == 0
    x0 = np.array([1e-3, 2e-3, 0.0])
    s0 = float(np.sum(squash.softermax(x0, 1.0, 1e-3)))
    parts["output_is_distribution"] = Evidence(
        verdict=V.holds(abs(s0 - 1.0) <= 1e-9),
        numbers={"sum_at_counterexample": s0, "deficit_identity_eps_over_eps_plus_S": bool(deficit_ok)},
        counterexample={"x": x0.tolist(), "n": 1.0, "eps": 1e-3, "sum": s0},
        repro="import numpy as np, yatmath.yat.squash as q; "
              "print(q.softermax(np.array([1e-3,2e-3,0.]), 1.0, 1e-3).sum())",
        notes="With eps > 0 (as printed) the outputs sum to S/(eps+S), S = sum x^n: the "
              "deficit eps/(eps+S) is ~1 for small scores (all-zero x gives all zeros).")
    return Evidence(
        verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
        numbers={k: p.verdict for k, p in parts.items()},
        parts=parts,
        counterexample={"x": x_ce, "softermax_1": parts["n1_is_softmax_002"].counterexample["softermax_1"],
                        "softmax": parts["n1_is_softmax_002"].counterexample["softmax"]},
        repro=parts["n1_is_softmax_002"].repro,
        notes="Sub-claims per entry; the identity softermax_n = softmax(n ln x) at eps = 0 holds "
              f"(sympy: {bool(ident)}).")


@register("yat.squash.soft_sigmoid_tanh",
          method="sympy identities, limits, derivatives (slope at 1, tails); numeric range and "
                 "monotonicity of yatmath.yat.squash on a log grid")
def check_soft_sigmoid_tanh(ctx):
    x, n = sp.symbols("x n", positive=True)
    sig = x ** n / (1 + x ** n)
    tau = (x ** n - 1) / (x ** n + 1)
    logistic = 1 / (1 + sp.exp(-n * sp.log(x)))
    parts = {}
    grid = np.logspace(-6, 6, ctx.pick(2001, 20001))
    grid = np.concatenate([[0.0], grid])
    nvals = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    sig_num = np.array([squash.soft_sigmoid(grid, nn) for nn in nvals])
    tau_num = np.array([squash.soft_tanh(grid, nn) for nn in nvals])
    id_logistic = sp.simplify(sp.powsimp(sp.expand(sig - logistic), force=True)) == 0 or \
        abs(float((sig - logistic).subs({x: 1.7, n: 2.3}))) < 1e-15
    lim_inf = sp.limit(sig.subs(n, 2), x, sp.oo)
    parts["sigma_range_[0,1)"] = Evidence(
        verdict=V.holds(id_logistic and sig_num.min() >= 0 and sig_num.max() <= 1
                        and float(sig_num[:, 0].max()) == 0.0 and lim_inf == 1),
        numbers={"min": float(sig_num.min()), "max": float(sig_num.max()),
                 "sigma_n(0)": float(sig_num[:, 0].max()), "limit_inf_n2": str(lim_inf),
                 "identity_logistic_n_lnx": bool(id_logistic)},
        notes="1 is the supremum, attained only in floating point (rounding) for huge x.")
    id_tau = sp.simplify(tau - (2 * sig - 1)) == 0
    parts["tau_identity_range"] = Evidence(
        verdict=V.holds(id_tau and tau_num.min() >= -1 and tau_num.max() <= 1
                        and float(np.max(np.abs(tau_num - (2 * sig_num - 1)))) < 1e-15),
        numbers={"identity_2sigma_minus_1": bool(id_tau), "min": float(tau_num.min()),
                 "max": float(tau_num.max())})
    tail = sp.limit((x ** 2 * (1 - sig)).subs(n, 2), x, sp.oo)
    tail_log = sp.limit(sp.exp(x) * (1 - 1 / (1 + sp.exp(-x))), x, sp.oo)
    parts["heavy_tail_000"] = Evidence(
        verdict=V.holds(tail == 1 and tail_log == 1),
        numbers={"lim x^n (1-sigma_n) (n=2)": str(tail), "lim e^x (1-logistic)": str(tail_log)},
        notes="1 - sigma_n ~ x^-n (polynomial) vs e^-x for the logistic.")
    slope_s = sp.simplify(sp.diff(sig, x).subs(x, 1))
    slope_t = sp.simplify(sp.diff(tau, x).subs(x, 1))
    parts["gain_n_000"] = Evidence(
        verdict=V.holds(sp.simplify(slope_s - n / 4) == 0 and sp.simplify(slope_t - n / 2) == 0),
        numbers={"sigma_slope_at_1": str(slope_s), "tau_slope_at_1": str(slope_t)})
    # monotonicity
    dsig = sp.simplify(sp.diff(sig, x))
    mono = bool(np.all(np.diff(sig_num, axis=1) >= 0))
    parts["monotone"] = Evidence(
        verdict=V.holds(mono and sp.simplify(dsig - n * x ** (n - 1) / (1 + x ** n) ** 2) == 0),
        numbers={"dsigma_dx": str(dsig), "numeric_nondecreasing": mono})
    # 001/002: "higher n makes sigma approach zero faster for large x" / "tau approach -1 ..."
    lims = {float(nn): str(sp.limit(sig.subs(n, nn), x, sp.oo)) for nn in (sp.Rational(1, 2), 1, 2, 4)}
    limt = {float(nn): str(sp.limit(tau.subs(n, nn), x, sp.oo)) for nn in (sp.Rational(1, 2), 1, 2, 4)}
    literal = V.holds(all(v == "0" for v in lims.values()) and all(v == "-1" for v in limt.values()))
    xl = grid[grid > 1.0]
    tails = 1 - sig_num[:, 1:][:, grid[1:] > 1.0]
    faster = bool(np.all(np.diff(tails, axis=0) <= 1e-300))
    xs = grid[(grid > 0) & (grid < 1.0)]
    near_m1 = 1 + tau_num[:, (grid > 0) & (grid < 1.0)]
    faster_t = bool(np.all(np.diff(near_m1, axis=0) <= 1e-300))
    charitable = V.holds(faster and faster_t)
    parts["approach_001_002"] = Evidence(
        verdict=V.combine_readings([literal, charitable]),
        numbers={"lim_sigma_x_to_inf": lims, "lim_tau_x_to_inf": limt,
                 "R2_1-sigma_decreasing_in_n_for_x>1": faster,
                 "R2_1+tau_decreasing_in_n_for_x<1": faster_t, "grid_points": int(xl.size + xs.size)},
        counterexample={"x": 10.0, "n": 2.0, "sigma": float(squash.soft_sigmoid(10.0, 2.0)),
                        "tau": float(squash.soft_tanh(10.0, 2.0))},
        repro="import yatmath.yat.squash as q; print(q.soft_sigmoid(10.0, 2.0), q.soft_tanh(10.0, 2.0))",
        notes="R1 literal: sigma_n -> 1 and tau_n -> +1 as x -> inf for every n, so neither "
              "approaches 0 / -1 for large x (REFUTED). R2: higher n makes 1 - sigma_n vanish "
              "faster for x > 1 and tau_n approach -1 faster for x < 1 (true).")
    lg = special.expit(grid)
    parts["logistic_on_nonneg"] = Evidence(
        verdict=V.holds(lg.min() == 0.5 and lg.max() <= 1.0),
        numbers={"min": float(lg.min()), "max": float(lg.max())})
    return Evidence(verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
                    numbers={k: p.verdict for k, p in parts.items()}, parts=parts,
                    counterexample=parts["approach_001_002"].counterexample,
                    repro=parts["approach_001_002"].repro)


# ----------------------------------------------------------------------------- A9 layer design

@register("yat.width_scaling",
          method="output RMS at init vs width n in 8..4096 with s=(n/ln(1+n))^alpha (alpha=1) "
                 "and without (alpha=0): vector form + 1/sqrt(n) linear readout, and the "
                 "printed sum form; log-log slopes with bootstrap CIs")
def check_width_scaling(ctx):
    rng = ctx.rng("init")
    d = 32
    ns = np.array([8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
    reps = ctx.pick(3, 20)
    B = ctx.pick(32, 128)
    out = {}
    slopes = {}
    for scale in (0.5, 1.0, 2.0):       # input norm = scale * sqrt(d)
        for form in ("readout", "sum"):
            for alpha in (1.0, 0.0):
                vals = []
                for nn in ns:
                    r = []
                    for _ in range(reps):
                        W = rng.standard_normal((nn, d)) / math.sqrt(d)
                        X = scale * rng.standard_normal((B, d))
                        H = layer_forward(X, W, 1.0, alpha=alpha, backend="numpy")
                        if form == "readout":
                            v = rng.standard_normal(nn) / math.sqrt(nn)
                            yv = H @ v
                        else:
                            yv = H.sum(axis=1)
                        r.append(float(np.sqrt(np.mean(yv ** 2))))
                    vals.append(np.mean(r))
                b, ci = _fit_loglog(ns.astype(float), np.array(vals), ctx.rng(f"boot{scale}{form}{alpha}"))
                slopes[(scale, form, alpha)] = (b, ci)
                out[f"x{scale}_{form}_{'with_s' if alpha else 'no_s'}"] = {"slope": b, "ci95": ci}
    # rule: s "controls" the width dependence iff it does not increase |slope|
    diffs = [abs(slopes[(sc, f, 1.0)][0]) - abs(slopes[(sc, f, 0.0)][0])
             for sc in (0.5, 1.0, 2.0) for f in ("readout", "sum")]
    s_slope = float(np.polyfit(np.log(ns), np.log([width_scale(int(k))[0] for k in ns]), 1)[0])
    worst = max(diffs)
    verdict = V.from_bound(min(diffs), 0.1)   # REFUTED when every config gets worse by > 0.1
    h8 = slopes[(1.0, "readout", 1.0)]
    return Evidence(
        verdict=verdict,
        numbers={"fits": out, "slope_of_s_itself": s_slope,
                 "min_increase_abs_slope": min(diffs), "max_increase_abs_slope": worst,
                 "eps": 1.0, "d": d, "reps": reps, "batch": B},
        counterexample=None if verdict != V.REFUTED else {
            "n": ns.tolist(), "readout_slope_with_s": h8[0],
            "readout_slope_without_s": slopes[(1.0, "readout", 0.0)][0],
            "s_values": [width_scale(int(k))[0] for k in (8, 4096)]},
        repro="import yatmath.yat.layer as L; print(L.width_scale(8)[0], L.width_scale(4096)[0])",
        notes="Reading: s 'controls the output magnitude as a function of width' = at init it does "
              "not make the width dependence of the output scale worse (rule: REFUTED when |slope| "
              "with s exceeds |slope| without s by > 0.1 in every configuration). s is a fixed gain "
              "growing like n^%.2f over 8..4096, so it adds that exponent to every output; without "
              "s the readout output is already width independent. alpha is learnable, so training "
              "may undo this (not tested: init only, as the entry asks)." % s_slope)


def _layernorm(X, eps_ln=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps_ln)


@register("yat.layernorm_interaction",
          method="||LN(x)||^2 = d v/(v+eps_LN) checked numerically over variances; spread of "
                 "||LN(x)|| and of the Yat denominator D before/after LN; scale invariance of "
                 "K(w, LN(c x))")
def check_layernorm(ctx):
    rng = ctx.rng("x")
    d, eps_ln, eps = 64, 1e-5, 1.0
    m = ctx.pick(400, 4000)
    scales = np.exp(rng.uniform(np.log(0.1), np.log(10), m))[:, None]
    X = scales * rng.standard_normal((m, d)) + rng.standard_normal((m, 1))
    LN = _layernorm(X, eps_ln)
    v = X.var(axis=1)
    norm2 = np.sum(LN ** 2, axis=1)
    ident_err = float(np.max(np.abs(norm2 - d * v / (v + eps_ln)) / d))
    dev = float(np.max(np.abs(norm2 / d - 1)))
    low_var = float(d * eps_ln / (eps_ln + eps_ln) / d)
    parts = {"norm_sq_is_d": Evidence(
        verdict=V.holds(ident_err < 1e-12 and dev < 1e-2),
        numbers={"identity_max_err_over_d": ident_err, "max_rel_dev_from_d": dev,
                 "norm2_over_d_at_var=eps_LN": low_var, "eps_LN": eps_ln,
                 "var_range": [float(v.min()), float(v.max())]},
        notes="Exact: ||LN(x)||^2 = d v/(v+eps_LN) (no affine). ~d unless v is within ~100x of "
              "eps_LN (at v = eps_LN it is d/2).")}
    rn = np.sqrt(norm2)
    parts["equidistant"] = Evidence(
        verdict=V.holds(float(rn.std() / rn.mean()) < 1e-3),
        numbers={"cv_norm_after_LN": float(rn.std() / rn.mean()),
                 "cv_norm_before_LN": float(np.linalg.norm(X, axis=1).std() / np.linalg.norm(X, axis=1).mean())})
    w = rng.standard_normal(d)
    D_before = np.sum((X - w) ** 2, axis=1) + eps
    D_after = np.sum((LN - w) ** 2, axis=1) + eps
    cv_b, cv_a = float(D_before.std() / D_before.mean()), float(D_after.std() / D_after.mean())
    x1 = X[:5]
    Ks = np.array([Y.product(w, _layernorm(c * x1, eps_ln), eps, backend="numpy")
                   for c in (0.1, 1.0, 10.0)])
    scale_change_after = float(np.max(np.abs(Ks - Ks[1]) / Ks[1]))
    Kb = np.array([Y.product(w, c * x1, eps, backend="numpy") for c in (0.1, 1.0, 10.0)])
    scale_change_before = float(np.max(np.abs(Kb - Kb[1]) / Kb[1]))
    radial = V.holds(scale_change_after < 1e-2 and scale_change_before > 0.1)
    total = V.holds(cv_a < 0.05 * cv_b)
    parts["proximity_collapse"] = Evidence(
        verdict=V.combine_readings([radial, total]),
        numbers={"cv_D_before": cv_b, "cv_D_after": cv_a,
                 "K_rel_change_under_x->cx_after_LN": scale_change_after,
                 "K_rel_change_under_x->cx_without_LN": scale_change_before},
        notes="R1 (radial/scale information lost: K(w, LN(cx)) independent of c): holds. "
              "R1 rule: relative change < 1e-2 for c in {0.1, 1, 10} (eps_LN makes it inexact at "
              "small scales). R2 (the proximity structure collapses: D nearly constant across inputs after LN; "
              "rule cv_after < 5% of cv_before): D still varies with the angle (D = ||w||^2 + "
              "||LN x||^2 - 2 w.LN(x) + eps).")
    parts["redundancy_and_training_collapse"] = Evidence(
        verdict=V.NOT_CHECKABLE,
        notes="'LN is redundant' and the Table 4 divergence need the Aether-GPT2 training runs "
              "(not available); no toy substitute was run in this check.")
    return Evidence(verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
                    numbers={k: p.verdict for k, p in parts.items()}, parts=parts)


def _fit_attention(X, target, kind, dh, eps, rng, restarts, maxiter):
    """Best MSE between a single-head attention map A(X W_Q, X W_K) and ``target``."""
    L, d = X.shape
    I = np.eye(L)

    def fg(theta):
        Wq, Wk = theta[:d * dh].reshape(d, dh), theta[d * dh:].reshape(d, dh)
        Q, K = X @ Wq, X @ Wk
        if kind == "yat":
            A, cache = attention(Q, K, I, eps, return_cache=True, backend="numpy")
            dA = 2 * (A - target) / A.size
            g = attention_backward(dA, cache)
            dQ, dK = g.Q, g.K
        else:
            Z = Q @ K.T / math.sqrt(dh)
            A = special.softmax(Z, axis=1)
            dA = 2 * (A - target) / A.size
            dZ = A * (dA - np.sum(dA * A, axis=1, keepdims=True)) / math.sqrt(dh)
            dQ, dK = dZ @ K, dZ.T @ Q
        f = float(np.mean((A - target) ** 2))
        return f, np.concatenate([(X.T @ dQ).ravel(), (X.T @ dK).ravel()])

    best = np.inf
    for _ in range(restarts):
        th0 = rng.standard_normal(2 * d * dh) * rng.choice([0.3, 1.0, 3.0])
        res = optimize.minimize(fg, th0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
        best = min(best, float(res.fun))
    return best


@register("yat.attention_expressivity",
          method="proxy: fit target attention maps (copy, local window, previous token, random "
                 "stochastic) with Yat vs scaled dot-product scores at equal parameters "
                 "(L-BFGS, analytic gradients, multi-start)")
def check_attention_expressivity(ctx):
    rng = ctx.rng("fit")
    L, d, dh, eps = 6, 6, 3, 0.1
    X = rng.standard_normal((L, d))
    targets = {"copy": np.eye(L),
               "window": np.array([[1.0 if abs(i - j) <= 1 else 0 for j in range(L)] for i in range(L)]),
               "previous": np.eye(L, k=-1) + np.diag([1.0] + [0] * (L - 1)),
               "random": rng.dirichlet(np.ones(L), L)}
    targets = {k: t / t.sum(axis=1, keepdims=True) for k, t in targets.items()}
    restarts, maxiter = ctx.pick(3, 20), ctx.pick(150, 1000)
    res, parts = {}, {}
    for name, T in targets.items():
        e_y = _fit_attention(X, T, "yat", dh, eps, ctx.rng(f"y{name}"), restarts, maxiter)
        e_d = _fit_attention(X, T, "dot", dh, eps, ctx.rng(f"d{name}"), restarts, maxiter)
        res[name] = {"yat_mse": e_y, "dot_mse": e_d}
        parts[name] = Evidence(verdict=V.holds(e_y <= e_d + 1e-4, otherwise=V.INCONCLUSIVE),
                               numbers=res[name],
                               notes="proxy only: Yat error within 1e-4 of dot-product error")
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"best_mse": res, "L": L, "d": d, "d_h": dh, "eps": eps, "restarts": restarts},
        parts=parts,
        notes="'Preserves the expressive power of multi-head attention' has no formal content in "
              "the papers (no class of maps, no norm): NOT_CHECKABLE beyond the proxy, whose "
              "per-target outcomes are in parts (substitute, does not decide the verdict).")


# ----------------------------------------------------------------------------- A10 costs

_CLAIM_FWD = {"Bnd": 2, "Bd": 1, "nd": 1, "Bn": 5, "B": 0, "n": 0}


def _count_verdict(counted: dict, claimed: dict) -> str:
    if counted == claimed:
        return V.CONFIRMED
    return V.CONFIRMED_LOOSE if counted["Bnd"] == claimed["Bnd"] else V.REFUTED


@register("yat.cost.forward",
          method="instrumented operation count (yatmath.yat.opcount, Y11 conventions) of the Y3 "
                 "expanded forward; exact polynomial coefficients in (B, n, d) vs 2Bnd+Bd+nd+5Bn")
def check_cost_forward(ctx):
    terms = list(_TERMS)
    coeff = {}
    for variant, kw in (("minimal", dict(fold_eps=True, clamp=False)),
                        ("reference_clamped", dict(fold_eps=False, clamp=True))):
        c, resid = _poly_coeffs(lambda B, n, d: _yat_counts(B, n, d, "forward", **kw), _SIZES,
                                [_TERMS[t] for t in terms])
        coeff[variant] = dict(zip(terms, c))
        coeff[variant + "_fit_residual"] = resid
    counted = coeff["minimal"]
    verdict = _count_verdict(counted, _CLAIM_FWD)
    B, n, d = 64, 768, 768
    tot = sum(counted[t] * _TERMS[t](B, n, d) for t in terms)
    cl = sum(_CLAIM_FWD[t] * _TERMS[t](B, n, d) for t in terms)
    return Evidence(
        verdict=verdict,
        numbers={"counted_minimal": counted, "counted_reference_clamped": coeff["reference_clamped"],
                 "claimed": _CLAIM_FWD, "ratio_counted_claimed_at_B64_n768_d768": tot / cl},
        counterexample=None if verdict == V.CONFIRMED else {
            "counted": counted, "claimed": _CLAIM_FWD},
        repro="import numpy as np, yatmath.yat.opcount as oc; "
              "print(oc.count_yat_layer(np.ones((3,7)), np.ones((5,7)), 1.0)[0].by_label('forward'))",
        notes="Theta(Bnd) and the leading 2Bnd hold exactly. Under the papers' own convention "
              "(multiply-add = 2 FLOPs) the norms cost 2Bd and 2nd, not Bd and nd; the "
              "elementwise part is 5Bn + B at best (eps folded into the row norms, one divide), "
              "7Bn for the clamped Y3 reference. 001 lists 6 ops per output and 'conservatively' "
              "uses 5, which is the minimum, not an upper bound.")


@register("yat.cost.backward_formulas",
          method="central finite differences (fp64) of the layer loss sum(G*Y) vs eqs 16-19 and "
                 "vs G_S^T X, G_S W under readings R1 (complete) / R2 (S-path only); "
                 "instrumented count of the complete backward (opcount)")
def check_cost_backward(ctx):
    rng = ctx.rng("data")
    eps, h = 0.7, 1e-6
    B, n, d = 5, 4, 6
    trials = ctx.pick(5, 50)
    e16, e18, eR1, eR2, efull = [], [], [], [], []
    ce = None
    for t in range(trials):
        X, W, G = rng.standard_normal((B, d)), rng.standard_normal((n, d)), rng.standard_normal((B, n))
        loss = lambda X_, W_: float(np.sum(G * Y.gram(X_, W_, eps, backend="numpy")))
        fdX = np.zeros_like(X)
        for idx in np.ndindex(*X.shape):
            Xp, Xm = X.copy(), X.copy()
            Xp[idx] += h
            Xm[idx] -= h
            fdX[idx] = (loss(Xp, W) - loss(Xm, W)) / (2 * h)
        fdW = np.zeros_like(W)
        for idx in np.ndindex(*W.shape):
            Wp, Wm = W.copy(), W.copy()
            Wp[idx] += h
            Wm[idx] -= h
            fdW[idx] = (loss(X, Wp) - loss(X, Wm)) / (2 * h)
        S = X @ W.T
        a, b = np.sum(X * X, 1)[:, None], np.sum(W * W, 1)[None, :]
        D = a + b - 2 * S + eps
        dYdS = 2 * S * (a + b + eps - S) / D ** 2          # eq 16 (total derivative in S)
        s0 = S[0, 0]
        Yfun = lambda s: s ** 2 / (a[0, 0] + b[0, 0] - 2 * s + eps)
        e16.append(abs((Yfun(s0 + h) - Yfun(s0 - h)) / (2 * h) - dYdS[0, 0]) / abs(dYdS[0, 0]))
        # eqs 18/19 per pair, summed with G
        gx = np.einsum("bn,bnd->bd", G, dYdS[:, :, None] * W[None] - 2 * (S ** 2 / D ** 2)[:, :, None] * X[:, None])
        gw = np.einsum("bn,bnd->nd", G, dYdS[:, :, None] * X[:, None] - 2 * (S ** 2 / D ** 2)[:, :, None] * W[None])
        e18.append(max(np.linalg.norm(gx - fdX) / np.linalg.norm(fdX), np.linalg.norm(gw - fdW) / np.linalg.norm(fdW)))
        GS = G * dYdS                                         # eq 20
        dW_p, dX_p = GS.T @ X, GS @ W                         # eqs 21, 22
        eR1.append(max(np.linalg.norm(dX_p - fdX) / np.linalg.norm(fdX), np.linalg.norm(dW_p - fdW) / np.linalg.norm(fdW)))
        _, cache = layer_forward(X, W, eps, alpha=0.0, return_cache=True, backend="numpy")
        full = layer_backward(G, cache)
        efull.append(max(np.linalg.norm(full.X - fdX) / np.linalg.norm(fdX), np.linalg.norm(full.W - fdW) / np.linalg.norm(fdW)))
        sp_x = full.X - 2 * np.sum(-G * S ** 2 / D ** 2, axis=1)[:, None] * X   # S-path part
        sp_w = full.W - 2 * np.sum(-G * S ** 2 / D ** 2, axis=0)[:, None] * W
        eR2.append(max(np.linalg.norm(dX_p - sp_x) / np.linalg.norm(sp_x), np.linalg.norm(dW_p - sp_w) / np.linalg.norm(sp_w)))
        if ce is None:
            ce = {"X": X.tolist(), "W": W.tolist(), "G": G.tolist(), "eps": eps,
                  "dX_printed": dX_p.tolist(), "dX_finite_difference": fdX.tolist()}
    tol = 1e-6   # FD step 1e-6 in fp64: truncation ~h^2, rounding ~1e-16/h ~ 1e-10 relative
    parts = {"eq16_dYdS": Evidence(verdict=V.holds(max(e16) < tol), numbers={"max_rel_err": max(e16)}),
             "eq18_19_pair_gradients": Evidence(verdict=V.holds(max(e18) < tol), numbers={"max_rel_err": max(e18)}),
             "library_full_backward_vs_fd": Evidence(verdict=V.holds(max(efull) < tol), numbers={"max_rel_err": max(efull)})}
    r1 = V.holds(max(eR1) < tol)
    r2 = V.holds(max(eR2) < 1e-10)
    parts["eqs20_22_R1_complete"] = Evidence(
        verdict=r1, numbers={"min_rel_err": min(eR1), "max_rel_err": max(eR1)},
        counterexample=ce if r1 == V.REFUTED else None,
        repro="dL/dX = (G*dY/dS) @ W misses 2*diag(sum_j G*(-S^2/D^2)) X; compare with "
              "yatmath.yat.layer.layer_backward")
    parts["eqs20_22_R2_S_path"] = Evidence(verdict=r2, numbers={"max_rel_err": max(eR2)})
    # counts of the complete backward
    terms = list(_TERMS)
    cb, resid = _poly_coeffs(lambda B_, n_, d_: _yat_counts(B_, n_, d_, "backward"), _SIZES,
                             [_TERMS[t] for t in terms])
    counted = dict(zip(terms, cb))
    claimed = {"Bnd": 4, "Bn": 6}
    cnt_v = V.CONFIRMED if (counted["Bnd"] == 4 and counted["Bn"] == 6) else (
        V.CONFIRMED_LOOSE if counted["Bnd"] == 4 else V.REFUTED)
    parts["count_complete_backward"] = Evidence(
        verdict=cnt_v, numbers={"counted": counted, "claimed_leading": claimed, "fit_residual": resid},
        notes="O(Bd+nd) terms are allowed by the claim; the Bn coefficient of a complete "
              "backward is larger than 6 because of the norm path (Q = -G S^2/D^2 and its sums).")
    verdict = V.combine_subclaims([parts["eq16_dYdS"].verdict, parts["eq18_19_pair_gradients"].verdict,
                                   V.combine_readings([r1, r2]), cnt_v])
    return Evidence(
        verdict=verdict,
        numbers={k: (p.numbers.get("max_rel_err") if "max_rel_err" in p.numbers else p.verdict)
                 for k, p in parts.items()} | {"backward_count": counted, "trials": trials},
        parts=parts,
        counterexample=parts["eqs20_22_R1_complete"].counterexample,
        repro=parts["eqs20_22_R1_complete"].repro,
        notes="Per-pair formulas (eqs 16, 18, 19) are right. The layer-level G_S^T X and G_S W "
              "(eqs 21-22) are only the S-path: as complete gradients (R1) they are wrong by O(1); "
              "as the S-path contribution (R2) they are exact.")


def _overhead_formula(B, n, d):
    return 1 + 1 / (2 * n) + 1 / (2 * B) + 2 / d


@register("yat.cost.overhead_ratio",
          method="printed formula at (B,n,d)=(16,64,64) and its sup over the region; ratio "
                 "rebuilt from Table 5's own terms (sympy expansion); instrumented counts of "
                 "Yat vs Linear(+bias,+ReLU), forward+backward")
def check_overhead(ctx):
    B, n, d = sp.symbols("B n d", positive=True)
    yat_tab = 2 * B * n * d + B * d + n * d + 5 * B * n + 4 * B * n * d + 6 * B * n + B * d + n * d
    lin_tab = 2 * B * n * d + B * n + 4 * B * n * d + 2 * B * n
    ratio_tab = yat_tab / lin_tab
    fwd_ratio = (2 * B * n * d + B * d + n * d + 5 * B * n) / (2 * B * n * d + B * n)
    printed = 1 + 1 / (2 * n) + 1 / (2 * B) + 2 / d
    # first-order (large B, n, d) expansions via t -> 0 with B=b/t, n=m/t, d=k/t
    t, b_, m_, k_ = sp.symbols("t b m k", positive=True)
    sub = {B: b_ / t, n: m_ / t, d: k_ / t}
    first = lambda e: sp.simplify(sp.series(e.subs(sub), t, 0, 2).removeO().subs(t, 1).subs(
        {b_: B, m_: n, k_: d}))
    tab_first, fwd_first = first(ratio_tab), first(fwd_ratio)
    printed_is_fwd = sp.simplify(fwd_first - printed) == 0
    printed_is_tab = sp.simplify(tab_first - printed) == 0
    corner = (16, 64, 64)
    f_corner = float(printed.subs({B: 16, n: 64, d: 64}))
    tab_corner = float(ratio_tab.subs({B: 16, n: 64, d: 64}))
    # the printed formula decreases in each variable, so the corner is the sup; verify on a grid
    grid = [(b, nn, dd) for b in (16, 32, 64, 256) for nn in (64, 128, 768) for dd in (64, 128, 768)]
    sup_grid = max(_overhead_formula(*g) for g in grid)
    rng = np.random.default_rng(0)

    def inst(Bv, nv, dv):
        X, W, G = rng.standard_normal((Bv, dv)), rng.standard_normal((nv, dv)), rng.standard_normal((Bv, nv))
        cy = opcount.count_yat_layer(X, W, 1.0, G)[0].total()
        cl = opcount.count_linear_layer(X, W, G, bias=True, relu=True)[0].total()
        return cy / cl
    inst_corner = inst(*corner)
    parts = {
        "printed_below_5pct": Evidence(verdict=V.from_bound(sup_grid - 1, 0.05),
                                       numbers={"formula_at_corner": f_corner, "sup_on_grid": sup_grid}),
        "table_terms_below_5pct": Evidence(verdict=V.from_bound(tab_corner - 1, 0.05),
                                           numbers={"ratio_from_table_at_corner": tab_corner}),
        "instrumented_below_5pct": Evidence(verdict=V.from_bound(inst_corner - 1, 0.05),
                                            numbers={"instrumented_at_corner": inst_corner}),
        "formula_matches_table": Evidence(
            verdict=V.holds(bool(printed_is_tab)),
            numbers={"first_order_table_ratio": str(tab_first),
                     "first_order_forward_only_ratio": str(fwd_first),
                     "printed_equals_forward_only": bool(printed_is_fwd)}),
    }
    verdict = V.combine_subclaims([p.verdict for p in parts.values()])
    return Evidence(
        verdict=verdict,
        numbers={"formula": f_corner, "table_terms": tab_corner, "instrumented": inst_corner,
                 "corner_B_n_d": corner, "printed_is_forward_only_ratio": bool(printed_is_fwd)},
        parts=parts,
        counterexample={"B": 16, "n": 64, "d": 64, "formula": f_corner, "instrumented": inst_corner},
        repro="print(1 + 1/(2*64) + 1/(2*16) + 2/64)",
        notes="At B=16, n=d=64 the printed overhead formula itself gives 7.0% > 5%. The printed "
              "formula is the forward-only ratio to first order; the ratio rebuilt from Table 5's "
              "forward+backward terms is 1 + 1/(3n) + 1/(3B) + 4/(3d) + ... (4.7% at the corner); "
              "instrumented complete counts vs Linear+bias+ReLU give the value shown.")


@register("yat.cost.per_neuron",
          method="Table 6 ratios at d in {64,768,3072}; per-neuron count with amortised norms "
                 "(opcount forward / (B n)); consistency with the Table 5 accounting")
def check_per_neuron(ctx):
    ds = (64, 768, 3072)
    rows = {"gelu": (lambda d: 2 * d + 15, 1.03), "naive": (lambda d: 5 * d + 1, 2.5),
            "optimized": (lambda d: 4 * d + 4, 2.0)}
    base = lambda d: 2 * d + 1
    ratios = {k: [f(d) / base(d) for d in ds] for k, (f, _) in rows.items()}
    relerr = {k: [abs(r / rows[k][1] - 1) for r in v] for k, v in ratios.items()}
    ok_all = all(e <= 0.05 for v in relerr.values() for e in v)
    ok_large = all(v[-1] <= 0.05 and v[-2] <= 0.05 for v in relerr.values())
    pa = V.CONFIRMED if ok_all else (V.CONFIRMED_LOOSE if ok_large else V.REFUTED)
    saves = [1 - (4 * d + 4) / (5 * d + 1) for d in ds]
    pb = V.holds(all(abs(s - 0.20) <= 0.015 for s in saves))
    # amortised per-neuron forward: counted forward / (B n), with ||W||^2 cached
    amort = []
    for d in ds:
        Bv = nv = 256 if d > 1000 else 128
        tot = _yat_counts(Bv, nv, d, "forward") - 2 * nv * d        # cached norms excluded
        amort.append(tot / (Bv * nv))
    amort_ratio = [a / base(d) for a, d in zip(amort, ds)]
    table5 = [(2 * d * 128 * 128 + 128 * d + 128 * d + 5 * 128 * 128) / (128 * 128) / base(d) for d in ds]
    r_table6 = V.holds(all(abs(r - 2.0) <= 0.1 for r in ratios["optimized"]))
    r_amort = V.holds(all(abs(r - 2.0) <= 0.1 for r in amort_ratio))
    pc = V.combine_readings([r_table6, r_amort])
    dec = all(np.diff(ratios["optimized"]) < 0) and all(np.diff(amort_ratio) < 0)
    pd = V.holds(dec)
    parts = {
        "table6_ratios": Evidence(verdict=pa, numbers={"ratios_at_d": ratios, "d": list(ds),
                                                       "rel_err_vs_printed": relerr}),
        "saves_20pct": Evidence(verdict=pb, numbers={"savings": saves}),
        "about_2x_linear_relu": Evidence(
            verdict=pc, numbers={"R1_table6_nonamortised": ratios["optimized"],
                                 "R2_amortised_counted": amort_ratio,
                                 "table5_forward_per_output_over_2d+1": table5},
            notes="R1: per neuron with ||x||^2 recomputed (Table 6): ~2x. R2: with the norm reuse "
                  "the text itself describes (Table 5 accounting), a Yat output costs ~2d + 5, "
                  "i.e. ~1x Linear+ReLU, so '2x' and 'identical Theta(Bnd)' use different "
                  "accountings."),
        "more_efficient_when_larger": Evidence(verdict=pd, numbers={"decreasing_in_d": dec}),
    }
    return Evidence(verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
                    numbers={"ratios": ratios, "savings": saves, "amortised_ratio": amort_ratio},
                    parts=parts,
                    notes="GELU's '1.03x' holds only near d ~ 230 (1.11x at d=64, 1.009x at 768).")


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


@register("yat.cost.memory",
          method="analytic saved-for-backward bytes per token per layer, GPT-2 block vs Aether "
                 "block (000 layout: d=768, L=1024, 12 heads, MLP 3072), three storage "
                 "policies, fp32 and bf16 (fp32 denominator when stored)")
def check_memory(ctx):
    d, L, h, mlp = 768, 1024, 12, 3072
    res, verds = {}, []
    for pol in ("eager_store_all", "recompute_S_D", "fused_attention"):
        g, a = _saved_elements(d, L, h, mlp, pol)
        eg, ea = sum(g.values()), sum(a.values())
        # bf16: 2 bytes, except LN stats (fp32) and a stored Yat denominator (fp32, 000 C.21.7(4))
        g16 = 2 * eg + 2 * 2 * 2
        d_fp32 = (h * L + mlp) if pol == "eager_store_all" else 0
        a16 = 2 * ea + 2 * d_fp32
        red32, red16 = 1 - ea / eg, 1 - a16 / g16
        ln_share = 2 * (d + 2) / eg
        res[pol] = {"gpt2_bytes_fp32": 4 * eg, "aether_bytes_fp32": 4 * ea,
                    "gpt2_bytes_bf16": g16, "aether_bytes_bf16": a16,
                    "reduction_fp32": red32, "reduction_bf16": red16, "ln_share_of_gpt2": ln_share}
        inside = all(0.15 <= r <= 0.25 for r in (red32, red16))
        verds.append(V.CONFIRMED if inside else (V.CONFIRMED_LOOSE if min(red32, red16) > 0 else V.REFUTED))
    parts = {p: Evidence(verdict=v, numbers=res[p]) for p, v in zip(res, verds)}
    return Evidence(
        verdict=V.combine_readings(verds),
        numbers={p: {"red_fp32": r["reduction_fp32"], "red_bf16": r["reduction_bf16"]} for p, r in res.items()},
        parts=parts,
        notes="Readings = storage policies (the papers state none). Rule per reading: CONFIRMED "
              "if the reduction lies in [15%, 25%] in fp32 and bf16, CONFIRMED_LOOSE if it is a "
              "reduction outside that range, REFUTED if Aether stores more. Storing the Yat S and "
              "D (and 3 L x L score tensors) increases memory; recomputing them gives ~19% "
              "(attention probabilities stored) or ~37% (fused attention). LayerNorm alone is "
              "only the ln_share of the GPT-2 budget.")


@register("yat.cost.throughput",
          method="132/138 vs 001's 0.85-0.92x; times implied by 2.5B tokens at each throughput "
                 "(interval arithmetic on the rounding) vs the reported end-to-end times; a "
                 "NumPy CPU benchmark as a substitute")
def check_throughput(ctx):
    lin, yat = 138e3, 132e3
    ratio = yat / lin
    rep = {"linear": 4 * 3600 + 50 * 60 + 10, "aether": 5 * 3600 + 2 * 60 + 31}
    tok = (2.45e9, 2.55e9)        # "2.5B" read as rounded to 0.1B
    implied = {"linear": (tok[0] / (lin + 500), tok[1] / (lin - 500)),
               "aether": (tok[0] / (yat + 500), tok[1] / (yat - 500))}
    implied_tput = {k: 2.5e9 / v for k, v in rep.items()}
    consistent = {k: rep[k] >= implied[k][0] for k in rep}
    in_range = 0.85 <= ratio + 0.005 and ratio - 0.005 <= 0.92
    parts = {
        "ratio_vs_001_range": Evidence(verdict=V.holds(in_range),
                                       numbers={"ratio": ratio, "claimed_range": [0.85, 0.92]}),
        "times_vs_throughput": Evidence(
            verdict=V.holds(all(consistent.values())),
            numbers={"reported_s": rep, "implied_min_s": {k: v[0] for k, v in implied.items()},
                     "throughput_implied_by_reported_time": implied_tput},
            notes="End-to-end time cannot be shorter than tokens / throughput."),
        "000_comparable_or_higher": Evidence(
            verdict=V.holds(ratio >= 0.95),
            numbers={"ratio": ratio},
            notes="000 says 'comparable or slightly higher'; 001 reports 4.3% lower (rule: "
                  "comparable = within 5%)."),
    }
    # substitute benchmark: NumPy forward on this CPU
    rng = ctx.rng("bench")
    Bv, nv, dv = ctx.pick((256, 512, 512), (1024, 1024, 1024))
    X, W = rng.standard_normal((Bv, dv)), rng.standard_normal((nv, dv)) / math.sqrt(dv)
    def best(f, k=3):
        ts = []
        for _ in range(k):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        return min(ts)
    t_lin = best(lambda: X @ W.T + 0.0)
    t_yat = best(lambda: layer_forward(X, W, 1.0, backend="numpy"))
    return Evidence(
        verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
        numbers={"ratio_132_138": ratio, "reported_s": rep,
                 "implied_min_s": {k: v[0] for k, v in implied.items()},
                 "substitute_numpy_forward_time_ratio_yat_over_linear": t_yat / t_lin,
                 "substitute_device": platform.processor() or platform.machine(),
                 "substitute_shape_B_n_d": [Bv, nv, dv]},
        parts=parts,
        counterexample={"tokens": 2.5e9, "linear_tok_per_s": lin, "reported_linear_s": rep["linear"],
                        "minimum_linear_s": implied["linear"][0]},
        repro="print(2.5e9/138e3, 4*3600+50*60+10)",
        notes="The CPU benchmark is a substitute (NumPy reference, not the papers' TPU code) and "
              "does not decide the verdict.")


def _fp32_expanded_vs_exact(d, delta, eps):
    """K from the expanded denominator in fp32 vs the fp64 direct form, w = ones(d),
    x = w + delta e_1 (both exactly representable in fp32 after rounding x)."""
    w = np.ones(d, np.float32)
    x = w.copy()
    x[0] += np.float32(delta)
    s32 = np.float32(x @ w)
    D32 = np.float32(np.float32(x @ x) + np.float32(w @ w) - np.float32(2) * s32 + np.float32(eps))
    K32 = float(s32) ** 2 / float(D32)
    Kt = float(Y.product(w.astype(np.float64), x.astype(np.float64), eps, backend="numpy"))
    return K32, Kt, (w, x)


@register("yat.numerics.stability",
          method="expanded denominator in bf16/fp16 (emulated rounding) with and without an fp32 "
                 "denominator vs the fp64 direct form as x -> w; gradient norms vs depth in "
                 "unnormalised NMN+Linear stacks at init")
def check_stability(ctx):
    rng = ctx.rng("pairs")
    d, eps = 768, 1e-3
    deltas = np.logspace(-4, 1, 11)
    w = _bf16(rng.standard_normal(d)).astype(np.float64)
    rows, parts = {}, {}
    worst_mixed = 0.0
    for fmt in ("bf16", "fp16"):
        r = _ROUND[fmt]
        err_low, err_mixed, neg = [], [], 0
        for delta in deltas:
            u = rng.standard_normal(d)
            x = r(w + delta * u / np.linalg.norm(u))            # representable inputs
            D_true = np.sum((x - w) ** 2) + eps
            K_true = np.dot(x, w) ** 2 / D_true
            # low precision everywhere (every op rounded; norms and dot accumulated in fp32)
            s = r(np.float32(np.dot(x.astype(np.float32), w.astype(np.float32))))
            a = r(np.float32(np.sum(x.astype(np.float32) ** 2)))
            b = r(np.float32(np.sum(w.astype(np.float32) ** 2)))
            D_low = r(r(r(a + b) - r(2 * s)) + eps)
            neg += int(D_low <= 0)
            K_low = r(r(s * s) / D_low) if D_low != 0 else np.inf
            err_low.append(float(abs(K_low - K_true) / K_true))
            # fp32 denominator (000 C.21.7(4)); inputs in fmt
            x32, w32 = x.astype(np.float32), w.astype(np.float32)
            s32 = np.float32(np.dot(x32, w32))
            D32 = np.float32(np.sum(x32 * x32) + np.sum(w32 * w32) - 2 * s32 + np.float32(eps))
            K32 = float(s32) ** 2 / float(D32)
            err_mixed.append(float(abs(K32 - K_true) / K_true))
        worst_mixed = max(worst_mixed, max(err_mixed))
        rows[fmt] = {"delta": deltas.tolist(), "rel_err_K_low_precision": err_low,
                     "rel_err_K_fp32_denominator": err_mixed, "nonpositive_D": neg}
    # deterministic sweep over eps: w = 1 (d ones), x = w + delta e_1, fp32 expanded denominator
    sweep, ce = {}, None
    for e_ in (1e-3, 1e-2, 1e-1, 1.0):
        errs = []
        for delta in deltas:
            K32, Kt, xw = _fp32_expanded_vs_exact(d, float(delta), e_)
            errs.append(abs(K32 - Kt) / Kt)
            if ce is None or errs[-1] > ce["rel_err"]:
                ce = {"d": d, "w": "ones(d)", "x": "w + delta*e_1", "delta": float(delta),
                      "eps": e_, "K_fp32_expanded": K32, "K_exact": Kt, "rel_err": errs[-1]}
        sweep[f"eps={e_:g}"] = float(max(errs))
    worst_all = max(worst_mixed, max(sweep.values()))
    parts["fp32_denominator_accurate"] = Evidence(
        verdict=V.holds(worst_all < 1e-2),
        numbers={"max_rel_err_random_pairs_eps1e-3": worst_mixed, "max_rel_err_by_eps": sweep,
                 "eps": eps, "d": d},
        counterexample=ce,
        repro=f"import numpy as np, yatmath.yat as Y; w=np.ones({d},np.float32); x=w.copy(); "
              f"x[0]+=np.float32({ce['delta']!r}); s=x@w; D=x@x+w@w-2*s+np.float32({ce['eps']!r}); "
              f"print(float(s)**2/float(D), Y.product(w.astype(float), x.astype(float), {ce['eps']!r}))",
        notes="With the paper's own recipe (fp32 denominator) the expanded form still cancels: "
              "relative error ~ u32 (||x||^2+||w||^2) / D, which is large when D ~ eps.")
    lowp = max(max(rows[f]["rel_err_K_low_precision"]) for f in rows)
    parts["pure_low_precision"] = Evidence(
        verdict=V.holds(lowp < 1e-1),
        numbers={"max_rel_err": lowp, "nonpositive_D": {f: rows[f]["nonpositive_D"] for f in rows}},
        notes="Expanded D computed entirely in bf16/fp16 (informational: the paper prescribes an "
              "fp32 denominator).")
    # gradient growth with depth (NMN d->d with s, then Linear d->d, no normalisation)
    grng = ctx.rng("depth")
    dd, depth, Bv = 32, ctx.pick(12, 24), 16
    growth = []
    for rep in range(ctx.pick(3, 10)):
        layers = [(grng.standard_normal((dd, dd)) / math.sqrt(dd),
                   grng.standard_normal((dd, dd)) / math.sqrt(dd)) for _ in range(depth)]
        h = grng.standard_normal((Bv, dd))
        caches, acts = [], [float(np.linalg.norm(h))]
        for W, Vm in layers:
            z, cache = layer_forward(h, W, 1.0, return_cache=True, backend="numpy")
            caches.append((cache, Vm))
            h = z @ Vm.T
            acts.append(float(np.linalg.norm(h)))
            if not np.isfinite(acts[-1]) or acts[-1] > 1e150:
                break
        g = np.ones_like(h) / h.size
        gnorms = [float(np.linalg.norm(g))]
        for cache, Vm in reversed(caches):
            g = layer_backward(g @ Vm, cache).X
            gnorms.append(float(np.linalg.norm(g)))
        growth.append({"activation_norms": acts, "grad_norms_from_top": gnorms})
    logr = [math.log10(max(gr["grad_norms_from_top"][-1], 1e-300) / gr["grad_norms_from_top"][0])
            for gr in growth]
    loga = [math.log10(max(gr["activation_norms"][-1], 1e-300) / gr["activation_norms"][0])
            for gr in growth]
    per_layer = float(np.median(logr)) / depth
    parts["gradients_vs_depth"] = Evidence(
        verdict=V.holds(max(abs(x) for x in logr) <= 2 and max(abs(x) for x in loga) <= 2),
        numbers={"depth": depth, "log10_grad_ratio_bottom_over_top": logr,
                 "log10_activation_ratio_top_over_bottom": loga,
                 "median_log10_grad_growth_per_layer": per_layer, "width": dd, "eps": 1.0},
        counterexample={"trajectory": growth[0]},
        notes="Rule: stable if the input-gradient and activation norms change by at most 100x "
              "across the stack at init (W, V ~ N(0, 1/d), s = n/ln(1+n), eps = 1).")
    verdict = V.combine_subclaims([parts["fp32_denominator_accurate"].verdict,
                                   parts["gradients_vs_depth"].verdict])
    return Evidence(
        verdict=verdict,
        numbers={"fp32_denominator_max_rel_err": worst_all,
                 "fp32_denominator_max_rel_err_by_eps": sweep, "pure_low_precision_max_rel_err": lowp,
                 "log10_grad_ratio": logr, "log10_act_ratio": loga, "error_vs_delta": rows},
        parts=parts,
        counterexample=parts["fp32_denominator_accurate"].counterexample,
        repro=parts["fp32_denominator_accurate"].repro,
        notes="The verdict combines the fp32-denominator accuracy and the depth behaviour; the "
              "pure bf16/fp16 numbers are informational.")
