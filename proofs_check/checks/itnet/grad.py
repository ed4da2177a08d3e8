"""itnet.grad.* (003 App H.10, App I: gradients of the ITNet operator)."""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.repro import evaluate
from proofs_check.support.records import decisive_repro
from proofs_check.support.itnet_exact_references import of_parts, dir_fd, fd_threshold, FD_RTOL
from proofs_check.support import itnet_io_model as iomodel
from proofs_check.support.itnet_paper003_formulas import alg2_du_rel_error, eq204_rel_error, eq253_rel_error, seeded_setup

NON_NORMAL_A = [[-1.0, 3.0, 0.0], [0.0, -1.5, 4.0], [0.0, 0.0, -0.7]]


@register("itnet.grad.kernel_outputs", method="sympy: dL/dK_ij of L = sum_i g_i . sum_j omega_j K_ij u_j")
def check_grad_kernel_outputs(ctx):
    n, d = 3, 2
    K = [[sp.Matrix(d, d, lambda a, b, i=i, j=j: sp.Symbol(f"K{i}{j}_{a}{b}")) for j in range(n)] for i in range(n)]
    u = [sp.Matrix(d, 1, lambda a, b, j=j: sp.Symbol(f"u{j}_{a}")) for j in range(n)]
    g = [sp.Matrix(d, 1, lambda a, b, i=i: sp.Symbol(f"g{i}_{a}")) for i in range(n)]
    w = sp.symbols(f"w0:{n}")
    L = sum((g[i].T * sum((w[j] * K[i][j] * u[j] for j in range(n)), sp.zeros(d, 1)))[0] for i in range(n))
    bad = 0
    for i in range(n):
        for j in range(n):
            printed = w[j] * g[i] * u[j].T                  # eq.203
            for a in range(d):
                for b in range(d):
                    bad += sp.simplify(sp.diff(L, K[i][j][a, b]) - printed[a, b]) != 0
    return Evidence(V.holds(bad == 0), {"nonzero_residuals": int(bad), "n": n, "d": d},
                    scope=Scope("symbolic", "sympy, n = 3, d = 2 with symbolic entries; L is linear in each K_ij, "
                                            "so the identity holds entrywise for every n, d", universal=True))


@register("itnet.grad.inputs",
          method="eq.204 (query Jacobian + value + W^T g) vs the dense autodiff dL/dU, content-dependent and "
                 "content-independent MLP kernels")
def check_grad_inputs(ctx):
    seed = int(ctx.rng("inputs").integers(2 ** 31))
    e_cd = eq204_rel_error(seed, 5, 3, True)
    e_ci = eq204_rel_error(seed, 5, 3, False)
    S = seeded_setup(seed, 5, 3)
    op, meas = I.ITNetOperator(S["net"], S["W"]), I.Measure(S["X"], S["omega"])
    v = ctx.rng("dir").normal(size=S["U"].shape)
    fdv = dir_fd(lambda V_: float(np.sum(S["G"] * I.apply(op, V_, meas))), S["U"], v)
    ref_err = abs(float(np.sum(I.grad(op, S["U"], meas, S["G"])["U"] * v)) - fdv) / abs(fdv)
    return Evidence(
        V.holds(e_cd <= FD_RTOL), {"eq204_rel_error_content_dependent": e_cd,
                                   "eq204_rel_error_content_independent": e_ci,
                                   "reference_vs_directional_fd": ref_err},
        thresholds=[fd_threshold("||eq.204 - dL/dU|| / ||dL/dU|| (content-dependent)", e_cd)],
        counterexample={"seed": seed, "n": 5, "d": 3, "rel_error": e_cd},
        repro=Repro("proofs_check.support.itnet_paper003_formulas.eq204_rel_error(seed, n, d, True)", {"seed": seed, "n": 5, "d": 3},
                    e_cd, rtol=1e-9),
        notes="eq.204 lacks the kernel's dependence on u as a key (eq.224 term (b)); exact only for a "
              "content-independent kernel. The dense reference agrees with a directional central difference.")


@register("itnet.grad.alg2_tiled_backward",
          method="literal Alg 2 (proofs_check.support.itnet_alg_literal.alg2_literal) dL/dU vs the dense gradient, content-independent "
                 "kernel, n = 8, tiles 4x4")
def check_alg2(ctx):
    seed = int(ctx.rng("alg2").integers(2 ** 31))
    e = {w: alg2_du_rel_error(seed, 8, 4, 4, content_dependent=False, write=w) for w in ("overwrite", "add")}
    return Evidence(
        V.holds(e["overwrite"] <= FD_RTOL), {"dU_rel_error_overwrite": e["overwrite"], "dU_rel_error_add": e["add"]},
        thresholds=[Threshold("||dU_alg2 - dL/dU|| / ||dL/dU||", 1e-10, "precision",
                              "fp64 sums; a correct algorithm agrees to ~1e-15", e["overwrite"], e["overwrite"])],
        counterexample={"seed": seed, "n": 8, "bq": 4, "bk": 4, "rel_error": e["overwrite"]},
        repro=Repro("proofs_check.support.itnet_paper003_formulas.alg2_du_rel_error(seed, n, bq, bk, content_dependent=False)",
                    {"seed": seed, "n": 8, "bq": 4, "bk": 4}, e["overwrite"], rtol=1e-9),
        notes="no line adds W^T g; l.18 overwrites key-side contributions of earlier tiles; reading l.18 as an "
              "accumulation still leaves the error reported")


@register("itnet.grad.params",
          method="eq.234 by sympy; eqs 230-239 (dense reference of App I) vs directional central differences over "
                 ">= 20 random nets, exact and tanh GELU")
def check_grad_params(ctx):
    x = sp.symbols("x", real=True)
    Phi = (1 + sp.erf(x / sp.sqrt(2))) / 2
    r234 = sp.simplify(sp.diff(x * Phi, x) - (Phi + x * sp.exp(-x ** 2 / 2) / sp.sqrt(2 * sp.pi)))
    restarts = ctx.pick(20, 40)
    worst, arg = 0.0, None
    for k in range(restarts):
        kind = ("exact", "tanh")[k % 2]
        S = seeded_setup(int(ctx.rng(f"p{k}").integers(2 ** 31)), 4, 2, gelu=kind)
        meas = I.Measure(S["X"], S["omega"])
        gr = I.grad(I.ITNetOperator(S["net"], S["W"]), S["U"], meas, S["G"])
        P = S["net"].params()
        dirs = {key: ctx.rng(f"v{k}{key}").normal(size=np.shape(val)) for key, val in P.items()}
        vW = ctx.rng(f"vW{k}").normal(size=S["W"].shape)

        def L(t):
            net = S["net"].with_params(**{key: P[key] + t * dirs[key] for key in P})
            return float(np.sum(S["G"] * I.apply(I.ITNetOperator(net, S["W"] + t * vW), S["U"], meas)))

        pred = sum(float(np.sum(gr["heads"][0][key] * dirs[key])) for key in P) + float(np.sum(gr["W"] * vW))
        num = dir_fd(L, 0.0, 1.0)
        e = abs(pred - num) / abs(num)
        if e >= worst:
            worst, arg = e, {"restart": k, "gelu": kind}
    return Evidence(
        V.holds(r234 == 0 and worst <= FD_RTOL), {"eq234_residual": str(r234), "max_rel_error": worst,
                                                  "restarts": restarts, "maximiser": arg},
        thresholds=[fd_threshold("max |<grad, v> - directional FD| / |FD|", worst)],
        scope=Scope("search", f"eq.234 symbolic; {restarts} random nets (n=4, d=2, exact/tanh GELU alternating) "
                              "with random directions in all parameters", universal=True))


@register("itnet.grad.special_cases",
          method="eq.253 (S4 dL/dA = sum omega_j tau e^{A^T tau} C^T g u^T B^T) vs the exact Frechet adjoint, "
                 "diagonal and non-normal A")
def check_grad_special(ctx):
    seed = int(ctx.rng("s4").integers(2 ** 31))
    e_nn = eq253_rel_error(NON_NORMAL_A, seed)
    e_diag = eq253_rel_error(np.diag([-1.0, -2.0, -0.5]), seed)
    return Evidence(
        V.holds(e_nn <= FD_RTOL), {"rel_error_non_normal_A": e_nn, "rel_error_diagonal_A_full_matrix": e_diag},
        reading=Reading("eq.253 is the gradient with respect to a general matrix A",
                        "003 App I.10 eq.253 'dL/dA' for the S4 kernel C e^{A(t-s)} B of eq.106 (A in R^{n x n})"),
        thresholds=[Threshold("||eq.253 - exact|| / ||exact||", 1e-10, "precision",
                              "scipy expm / expm_frechet in fp64, ~1e-14", e_nn, e_nn)],
        counterexample={"A": NON_NORMAL_A, "seed": seed, "rel_error": e_nn},
        repro=Repro("proofs_check.support.itnet_paper003_formulas.eq253_rel_error(A, seed)", {"A": NON_NORMAL_A, "seed": seed}, e_nn,
                    rtol=1e-9),
        notes="d/dA e^{A tau} is not tau e^{A tau} unless A commutes with the perturbation; the other I.8-I.12 "
              "formulas were not re-run in this migration")


@register("itnet.grad.cost",
          method="sympy count of the recompute backward as App H.10 describes it (recompute + MLP backward + "
                 "accumulations) against the forward, for symbolic (d_h, w, L); the leaner count (layer-1 input "
                 "gradient for the u groups only) at the paper's configurations; printed ratios compared")
def check_grad_cost(ctx):
    dh, w, Lf = sp.symbols("d_h w L", positive=True)
    l1, l2, mv = w * (6 * Lf + 1 + 3 * dh), w * dh ** 2, dh ** 2
    fwd = l1 + l2 + mv
    bwd = fwd + 2 * (l1 + l2) + 2 * mv          # recompute; input- and weight-gradient of both layers; dK, K^T g
    sym_ratio = sp.simplify(bwd / fwd)
    lean = fwd + l1 + w * 3 * dh + 2 * l2 + 2 * mv   # layer-1 input gradient only for u(x), u(y), u(x)*u(y)
    configs = {"S/B/L (d_h = 64)": (64, 128, 64), "PC (d_h = 32)": (32, 128, 64)}
    lean_r = {k: float((lean / fwd).subs({dh: a, w: b, Lf: c})) for k, (a, b, c) in configs.items()}
    cnt = iomodel.backward_macs_recompute(512, 64, 128, 64, 12)
    lean_lim = sp.limit((lean / fwd).subs({w: 128, Lf: 64}), dh, 0)
    paper_tol = abs(2.8 - 3.0)                  # the paper calls the measured 2.8x 'close to the theoretical 3x'
    stated = lean_r["S/B/L (d_h = 64)"]
    ok = sym_ratio == 3 and abs(cnt["ratio"] - 3) <= 1e-12 and abs(stated - 3) <= paper_tol
    counted = Evidence(
        V.holds(bool(ok)),
        {"backward_over_forward_symbolic": str(sym_ratio), "toolkit_count_ratio_n512_dh64": cnt["ratio"],
         "lean_count_ratio": lean_r, "lean_ratio_limit_d_h_to_0": str(lean_lim),
         "per_pair_forward_macs_dh64": int(fwd.subs({dh: 64, w: 128, Lf: 64}))},
        reading=Reading("the recompute backward of App H.10 costs ~3x the forward FLOPs",
                        '003 App H.10: "(a) one forward MLP pass per pair to recompute K_pq ..., (b) one backward MLP '
                        'pass per pair (~2x the forward cost), and (c) matrix-vector products for the gradient '
                        'accumulations (O(d^2) per pair). The total backward FLOP count is therefore ~3x the forward '
                        'pass"'),
        thresholds=[Threshold("|lean counted ratio - 3| at the stated configuration (n = 512, d = 768, d_h = 64, "
                              "w = 128, l = 2) <= the paper's own tolerance for '~3x'", paper_tol, "paper",
                              '003 App I.13: "the measured backward-to-forward time ratio is 2.8x, close to the '
                              'theoretical 3x" (so the paper\'s "~" admits at least 0.2)', abs(stated - 3),
                              abs(stated - 3))],
        scope=Scope("symbolic", "sympy: (fwd + 2 (layer1 + layer2) + 2 d_h^2) / fwd = 3 for every (d_h, w, L), "
                    "fwd = w(6L+1+3d_h) + w d_h^2 + d_h^2 per pair and head; the toolkit's count "
                    "(proofs_check.support.itnet_io_model.backward_macs_recompute) agrees; the lean count evaluated at the paper's "
                    "configurations", universal=True),
        notes="Counting exactly what App H.10 lists (one recompute, a full MLP backward of two products per layer, "
              "the two d_h^2 accumulations) gives 3x the forward for every size. An implementation that skips the "
              "layer-1 input gradient of the frozen positional inputs (only the 3 d_h u-columns of W1 need it) "
              f"costs {stated:.3f}x at d_h = 64 and {lean_r['PC (d_h = 32)']:.3f}x at d_h = 32 (it tends to "
              f"{lean_lim} only as d_h -> 0): within the paper's own 'close to 3x' at the stated configuration.")
    h200 = Evidence(
        V.NOT_CHECKABLE, {"printed": {"backward_over_forward_time": 2.8, "iteration_over_forward": 3.8,
                                     "FA2_iteration_over_forward": 3.0, "theoretical": 3.0}},
        notes="2.8x, 3.8x and FlashAttention-2's 3.0x were measured on an H200 with the paper's Triton kernels, "
              "which are not available",
        tried=Tried(
            printed="003 App I.13 prints, at n = 512, d = 768, w = 128, l = 2 on an H200: backward/forward time "
                    "2.8x ('close to the theoretical 3x'), a full iteration (forward + backward + optimizer) ~3.8x "
                    "the forward, and ~3.0x for a FlashAttention-2 Transformer layer; App H.10 prints ~3x in FLOPs. "
                    "Compared: 1 + 2.8 = 3.8, so the iteration figure leaves ~0 for the optimizer step (consistent: "
                    "the optimizer is O(parameters), not O(n^2)); 2.8 is below the counted FLOP ratio (3.0, lean "
                    f"{stated:.2f}), consistent with a backward running at a somewhat higher FLOP rate; no pair of "
                    "printed numbers contradicts another",
            search="nothing free: these are measurements at one stated configuration on one device; the FLOP side "
                   "(the counted_3x part) was evaluated over all (d_h, w, L)",
            budget="no budget here decides: it needs an H200 and the paper's Triton kernels (not released); timing "
                   "the toolkit's numpy/numba kernels on another device would be a substitute, not the claim"))
    pair = fwd.subs({dh: 64, w: 128, Lf: 64})
    special = Evidence(
        V.NOT_CHECKABLE, {"general_backward_per_pair_head_dh64": int(3 * pair),
                          "caption_mlp_term_w^2_l": 128 ** 2 * 2,
                          "mlp_param_gradient_per_pair_dh64": int((l1 + l2).subs({dh: 64, w: 128, Lf: 64}))},
        notes="Table 13 (general vs special cases) is absent from the text; only its caption is printed",
        tried=Tried(
            printed="only Table 13's caption survives: 'strictly more expensive than any special case', with "
                    "'(i) d^2 versus 1 for the kernel gradient' and '(ii) n^2 w_kappa^2 l_kappa for the kernel MLP "
                    "parameter gradient'. Compared with the printed architecture (W1 128 x 577, W2 4096 x 128): the "
                    "MLP parameter gradient costs w(6L+1+3d_h) + w d_h^2 = "
                    f"{int((l1 + l2).subs({dh: 64, w: 128, Lf: 64})):,} MACs per pair and head, not w^2 l = 32,768 "
                    "(the caption omits the d_h^2-wide output layer); this undercounts the general case and so "
                    "does not bear on 'strictly more'. The special cases' costs (the table body) are not printed",
            search="counted per pair at equal d_h: the general backward costs 3 x "
                   f"{int(pair):,} MACs (App H.10's accounting), the scalar-kernel special cases (conv eq. I.8 "
                   "dL/dw_ij = omega_j <g_i, u_j>, attention eqs. 245-248, S4 eq. 252) O(d) or O(d^2) per pair, "
                   "so the general one is larger there; but the content-dependent special cases differ by how they "
                   "are evaluated: Mamba's ITNet-form gradient (eqs. 258-260, a chain rule through prod_tau "
                   "exp(Delta(u_tau) A)) costs about (t - s) N d per pair, above the general ~1.8e6 per pair once t - s "
                   "exceeds ~150 at N = 16, d = 768 (pairs far apart, n of a few hundred), while Mamba's own scan "
                   "backward is O(n N d) in total. Which evaluation "
                   "Table 13 compares is in the missing table body, so the comparison has no fixed statement",
            budget="no budget decides: the statement's objects (Table 13's rows) are not in the text"))
    accounting = _stored_vs_recompute(dh, w, Lf, l1, l2, mv, fwd, bwd, paper_tol)
    parts = {"counted_3x": counted, "H200_measurements": h200, "general_vs_special": special,
             "stored_vs_recompute_accounting": accounting}
    return of_parts(parts, repro=decisive_repro(parts),
                    numbers={"counted_ratio": cnt["ratio"], "lean_counted_ratio": lean_r,
                             "recompute_over_stored_backward": accounting.numbers["recompute_over_stored_symbolic"]},
                    notes="The recompute backward counts 3x the forward as H.10 itemises it (counted_3x); but by the "
                          "same itemisation the backward with the kernel matrix stored still needs H.10's item (b), "
                          "the MLP backward for dkappa/dtheta of every pair (eq. 205), so it is 2x the forward, not "
                          "the printed 1x, and recomputation raises the backward FLOPs by 1.5x, not ~3x "
                          "(stored_vs_recompute_accounting, REFUTED).")


# per pair and head, from H.10's itemisation: [recompute backward, stored backward, recompute / stored]
ACCOUNT_EXPR = ("(lambda l1, l2, mv: [(l1 + l2 + mv) + 2 * (l1 + l2) + 2 * mv, 2 * (l1 + l2) + 2 * mv, "
                "((l1 + l2 + mv) + 2 * (l1 + l2) + 2 * mv) / (2 * (l1 + l2) + 2 * mv)])"
                "(w * (6 * L + 1 + 3 * d_h), w * d_h ** 2, d_h ** 2)")


def _stored_vs_recompute(dh, w, Lf, l1, l2, mv, fwd, bwd, paper_tol):
    """§3.1 / H.10: recomputation 'increases FLOPs by ~3x' (~3x the forward 'compared to 1x if the kernel matrix were
    stored'), against H.10's own items (a) recompute, (b) MLP backward (~2x forward), (c) accumulations."""
    stored = bwd - fwd                            # drop item (a) only: (b) and (c) are needed with K stored too
    stored_over_fwd = sp.simplify(stored / fwd)
    rec_over_stored = sp.simplify(bwd / stored)
    alt = sp.simplify((bwd - mv) / stored)        # item (a) counted as the MLP forward alone (no mat-vec)
    cfg = {"d_h": 64, "w": 128, "L": 64}
    sub = {dh: cfg["d_h"], w: cfg["w"], Lf: cfg["L"]}
    f_n, st_n, rc_n = int(fwd.subs(sub)), int(stored.subs(sub)), int(bwd.subs(sub))
    rep = [float(v) for v in evaluate(ACCOUNT_EXPR, cfg)]
    ratio = rep[2]
    miss = abs(ratio - 3.0)
    v = V.holds(miss <= paper_tol and stored_over_fwd == 1)
    return Evidence(
        v,
        {"stored_backward_over_forward_symbolic": str(stored_over_fwd),
         "recompute_over_stored_symbolic": str(rec_over_stored),
         "recompute_over_stored_if_(a)_is_the_MLP_forward_only": str(alt),
         "recompute_over_stored_at_dh64": float(alt.subs(sub)),
         "printed_stored_backward_over_forward": 1.0, "printed_increase": 3.0,
         "per_pair_and_head_dh64": {"forward": f_n, "stored_backward": st_n, "recompute_backward": rc_n},
         "forward_plus_backward_recompute_over_stored": float((1 + 3) / (1 + stored_over_fwd))},
        reading=Reading("the paper's own accounting: with the kernel matrix stored the backward would cost ~1x the "
                        "forward, so recomputation raises the backward FLOPs ~3-fold (from ~1x to ~3x the forward)",
                        '003 §3.1: "During backpropagation, we recompute kappa_theta tile-by-tile rather than storing '
                        'the kernel matrix; this increases FLOPs by ~3x"; App H.10: "(a) one forward MLP pass per pair '
                        'to recompute K_pq ..., (b) one backward MLP pass per pair to compute dkappa_theta/dtheta (~2x '
                        'the forward cost), and (c) matrix-vector products for the gradient accumulations (O(d^2) per '
                        'pair). The total backward FLOP count is therefore ~3x the forward pass ..., compared to 1x if '
                        'the kernel matrix were stored"; eq. 205: dL/dtheta = sum_i sum_j tr((dL/dK_ij)^T '
                        'dkappa_theta(x_i, y_j, u_i, u_j)/dtheta), "where dkappa_theta/dtheta is computed by standard '
                        'backpropagation through the kernel MLP" (for every pair, whether K is stored or not)'),
        counterexample={**cfg, "l_kappa": 2, "config": "ITNet-S/B/L per head (d_h = 64, w_kappa = 128, L = 64; "
                        "App H.2, W1 in R^{128 x 577})", "forward_per_pair": f_n,
                        "stored_backward_per_pair_(b)+(c)": st_n, "recompute_backward_per_pair_(a)+(b)+(c)": rc_n,
                        "stored_over_forward": st_n / f_n, "printed_stored_over_forward": 1.0,
                        "recompute_over_stored": ratio, "printed_increase": 3.0},
        repro=Repro(ACCOUNT_EXPR, cfg, expected=rep, rtol=0, atol=0,
                    tol_reason="integer multiply-add counts (exact in float64 below 2^53) and one exact division"),
        thresholds=[Threshold("|recompute backward / stored backward - 3| <= the paper's own tolerance for '~3x'",
                              paper_tol, "paper", '003 App I.13: "the measured backward-to-forward time ratio is 2.8x, '
                              'close to the theoretical 3x" (the paper\'s "~3x" admits 0.2); the verdict flips only at '
                              'a tolerance of 1.5 (half of 3), which no reading of "~3x" admits', miss, miss)],
        scope=Scope("symbolic", "sympy for symbolic (d_h, w, L): H.10's items per pair and head, forward = w(6L+1+3d_h) "
                    "+ w d_h^2 + d_h^2, (b) = 2 (w(6L+1+3d_h) + w d_h^2), (c) = 2 d_h^2; stored = (b) + (c) = 2 x "
                    "forward, recompute = (a) + (b) + (c) = 3 x forward, ratio 3/2 for every size", universal=True),
        notes=f"Consistency of the paper's own cost accounting. Eq. 205 needs dkappa_theta/dtheta at every pair, "
              "obtained by backpropagation through the kernel MLP (H.10 item (b), ~2x the forward), and the "
              "accumulations (c) (dL/dK_ij = omega_j g_i u_j^T, K^T g) need K: storing K removes only item (a), the "
              f"recompute. By H.10's itemisation at d_h = 64, w = 128, L = 64 the stored backward costs {st_n:,} "
              f"multiply-adds per pair and head = {stored_over_fwd} x the forward ({f_n:,}), not 1x; the recompute "
              f"backward {rc_n:,} = 3x. So recomputation raises the backward FLOPs by {ratio:g}x (and forward + "
              "backward by 4/3), not ~3x; counting item (a) as the MLP forward alone (no mat-vec) gives "
              f"{float(alt.subs(sub)):.4f}x. The other wording of §3.1, 'the backward with recompute costs ~3x the "
              "forward', holds (part counted_3x).")

