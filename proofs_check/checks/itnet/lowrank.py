"""Checks of claims.md B9 (003 §3.3, App H.12 Prop 12, App L Table 17): low-rank ITNet kernels."""
from __future__ import annotations

import math
import re

import numpy as np
import sympy as sp

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Bound, Evidence, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.support import itnet_io_model as iomodel
from proofs_check.repro import evaluate
from proofs_check.support.printed import words
from proofs_check.support.itnet_throughput import PASSAGE, exact_throughput_part
from yatmath.itnet.lowrank import als_fit, spectrum_report

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts

F64 = float(np.finfo(float).eps)


@register("itnet.lowrank.decoupling",
          method="sympy: Σ_j ω_j Φ_i^T Ψ_j u_j = Φ_i^T Z for symbolic factors; numeric global-Z vs dense; "
                 "exact MAC counts of Z and the queries")
def check_lowrank_decoupling(ctx):
    n, d, r = 2, 3, 2
    Phi = [sp.Matrix(r, d, lambda a, b, i=i: sp.Symbol(f"P{i}{a}{b}")) for i in range(n)]
    Psi = [sp.Matrix(r, d, lambda a, b, j=j: sp.Symbol(f"S{j}{a}{b}")) for j in range(n)]
    u = [sp.Matrix(d, 1, lambda a, b, j=j: sp.Symbol(f"u{j}{a}")) for j in range(n)]
    w = [sp.Symbol(f"w{j}") for j in range(n)]
    Z = sum((w[j] * Psi[j] * u[j] for j in range(n)), sp.zeros(r, 1))
    ok = all(sp.expand(sum((w[j] * Phi[i].T * Psi[j] * u[j] for j in range(n)), sp.zeros(d, 1)) - Phi[i].T * Z)
             == sp.zeros(d, 1) for i in range(n))
    rng = ctx.rng("lr")
    nn, dd, rr = 64, 8, 4
    phi, psi = I.init_factor_mlp(dd, 1, rr, rng=rng), I.init_factor_mlp(dd, 1, rr, rng=rng)
    op = I.LowRankOperator(phi, psi, np.eye(dd), rr, dd)
    X = rng.uniform(0, 1, (nn, 1))
    U = rng.normal(size=(nn, dd))
    meas = I.discrete_uniform(X)
    O_lr, O_dn = I.apply(op, U, meas, mode="lowrank"), I.apply(op, U, meas, mode="dense")
    err = float(np.abs(O_lr - O_dn).max() / np.abs(O_dn).max())
    exact = Evidence(V.holds(ok), {"sympy_identity": ok, "numeric_rel_error_n64": err},
                     scope=Scope("symbolic", "sympy identity with symbolic r x d factors, weights and signals "
                                 "(n = 2, r = 2, d = 3); the identity is associativity of finite sums",
                                 universal=True))
    cost = Evidence(V.holds(nn * rr * dd + nn * rr * dd == 2 * nn * rr * dd),
                    {"macs_Z": nn * rr * dd, "macs_per_query": rr * dd, "macs_dense_integral": nn * nn * (rr * dd * dd + dd * dd)},
                    scope=Scope("symbolic", "count: Z = Σ_j ω_j Ψ_j u_j costs n (r d + r) MACs, each query Φ_i^T Z "
                                "costs r d, total O(n r d) (factor-MLP evaluations excluded, as in 003 §3.3)",
                                universal=True))
    return of_parts({"exactness_Phi_T_Z": exact, "cost_O(nrd)": cost},
                             numbers={"rel_error": err, "per_head_rank_r24_H12": 24 // 12},
                             notes="r_h = r/H is a definition. Whether κ ≈ Φ^TΨ is accurate is the subject of "
                                   "itnet.lowrank.prop12 and itnet.lowrank.one_percent.")


def _ratio(s, r):
    s = np.sort(np.abs(s))[::-1]
    return float(np.sqrt((s[r:] ** 2).sum()) * math.sqrt(r) / s.sum())


def _step2(s, r):      # r sigma_{r+1} / ||K||_*  (claim: <= 1)
    s = np.sort(np.abs(s))[::-1]
    return float(r * s[r] / s.sum())


def _step3(s, r):      # ||K-K_r||_F / sqrt(max_{i>r} sigma_i sum_{i>r} sigma_i)  (claim: <= 1)
    s = np.sort(np.abs(s))[::-1]
    return float(np.sqrt((s[r:] ** 2).sum()) / math.sqrt(s[r] * s[r:].sum()))


def _batch(fun, S, r):
    """fun evaluated on each row of S (spectra, any order)."""
    S = -np.sort(-np.abs(S), axis=1)
    tail2, tail1, tot = (S[:, r:] ** 2).sum(1), S[:, r:].sum(1), S.sum(1)
    if fun is _ratio:
        return np.sqrt(tail2 * r) / tot
    if fun is _step2:
        return r * S[:, r] / tot
    return np.sqrt(tail2) / np.sqrt(S[:, r] * tail1)


def _search(fun, r, m, restarts, rng, iters=300, batch=32):
    """Adversarial search: per restart a random log-spectrum in [-12, 12]^m, then `iters` rounds of
    batched Gaussian perturbations (step halved on stagnation), keeping the best; returns the
    maximum and the (normalised) maximising spectrum."""
    best, arg = -np.inf, None
    for _ in range(restarts):
        t = rng.normal(0, 2, m)
        ft = float(_batch(fun, np.exp(t)[None], r)[0])
        step = 1.0
        for _ in range(iters):
            cand = np.clip(t + step * rng.normal(size=(batch, m)), -12, 12)
            fc = _batch(fun, np.exp(cand), r)
            k = int(np.argmax(fc))
            if fc[k] > ft:
                t, ft = cand[k], float(fc[k])
            else:
                step = max(step * 0.7, 1e-3)
        if ft > best:
            best, arg = ft, np.sort(np.exp(t))[::-1]
    return best, (arg / arg[0]).round(4).tolist()


@register("itnet.lowrank.prop12",
          method="adversarial multi-start batched hill-climbing over spectra (m = 24) of sqrt(r)||K-K_r||_F/||K||_* and of "
                 "the two proof inequalities; Gaussian, low-rank+noise and MLP-kernel matrices; the tail index")
def check_prop12(ctx):
    rng = ctx.rng("prop12")
    m, restarts = ctx.pick(24, 48), ctx.pick(20, 40)
    rs = ctx.pick((1, 2, 5, 10), (1, 2, 5, 10, 20))
    adv = {r: _search(_ratio, r, m, restarts, rng) for r in rs}
    emp = {}
    mats = {"gaussian": rng.normal(size=(128, 128)),
            "lowrank_noise": rng.normal(size=(128, 8)) @ rng.normal(size=(8, 128)) + 0.05 * rng.normal(size=(128, 128))}
    net = I.random_kernel_mlp(4, 1, width=16, L=3, rng=rng)
    X, U = rng.uniform(0, 1, (32, 1)), rng.normal(size=(32, 4))
    mats["mlp_kernel"] = I.lowrank.kernel_matrix(net.kernel(X, X, U, U))
    for k, A in mats.items():
        rep = spectrum_report(A)
        emp[k] = float((rep["err_fro"][:-1] / rep["prop12_bound"][:-1]).max())
    worst_r = max(adv, key=lambda r: adv[r][0])
    sup = max([v[0] for v in adv.values()] + list(emp.values()))
    tol = 1e3 * F64
    # the tight constant, proved: ratio^2 = r sum_{i>r} s_i^2 / (H + T)^2 <= r s_{r+1} T / (r s_{r+1} + T)^2
    # = ab/(a+b)^2 <= 1/4 with a = r s_{r+1}, b = T (head H >= r s_{r+1}); 1/4 - ab/(a+b)^2 = (a-b)^2/(4(a+b)^2)
    eq214_line = words("003", re.escape(r"\(214\)"))[0][1]      # the bound as printed (claims.md's Src says eq.211)
    a_, b_ = sp.symbols("a b", positive=True)
    amgm = sp.simplify(sp.Rational(1, 4) - a_ * b_ / (a_ + b_) ** 2 - (a_ - b_) ** 2 / (4 * (a_ + b_) ** 2)) == 0
    r_ = sp.symbols("r", positive=True, integer=True)
    flat = sp.simplify(sp.sqrt(r_) * sp.sqrt(r_ * 1) / (2 * r_))          # 2r equal values s = 1: sqrt(r) sqrt(r)/(2r)
    if not amgm:                                  # the proof's one algebraic step must verify, else the check is broken
        raise AssertionError("sympy did not verify 1/4 - ab/(a+b)^2 = (a-b)^2/(4(a+b)^2)")
    tight, claimed = float(flat), 1.0
    r_w = 3                                       # K = I_{2r}: 2r equal singular values attain the tight constant
    rep_w = spectrum_report(np.eye(2 * r_w))
    attained = float(rep_w["err_fro"][r_w - 1] / rep_w["prop12_bound"][r_w - 1])
    prop12_bound = Bound("sup over K and r of sqrt(r) ||K - K_r||_F / ||K||_*", claimed, max(tight, sup), "smaller",
                         tol, "proved (notes: 1/2 for every spectrum and r) and attained by 2r equal singular values "
                         f"(K = I_6 at r = 3 gives {attained:.12f}); the search over spectra (m = {m}, r in {rs}, "
                         f"{restarts} restarts) and three matrix families found at most {sup:.6f}")
    bound = Evidence(prop12_bound.verdict(),
                     {"claimed_constant": claimed, "tight_constant_proved": str(flat),
                      "ratio_claimed_over_tight": claimed / tight, "search_sup": sup,
                      "max_ratio_by_r": {str(r): adv[r][0] for r in rs}, "max_ratio_matrices": emp,
                      "maximising_spectrum": adv[worst_r][1], "maximising_r": worst_r, "restarts": restarts,
                      "sympy_(a-b)^2_identity": bool(amgm), "attained_by_K=I_6_at_r=3": attained},
                     repro=Repro("float((lambda rep: rep['err_fro'][r - 1] / rep['prop12_bound'][r - 1])("
                                 "yatmath.itnet.lowrank.spectrum_report(np.eye(2 * r))))", {"r": r_w},
                                 expected=attained, rtol=1e-12,
                                 tol_reason="float64 SVD of the identity (exact singular values 1)"),
                     thresholds=[Threshold("sup sqrt(r)||K-K_r||_F/||K||_* <= 1 (the printed constant; the tight one "
                                           "is 1/2)", claimed, "paper",
                                           f"003 Prop 12, eq. (214) (l.{eq214_line}): ||K - K^(r)||_F <= ||K||_*/sqrt(r)",
                                           tight, tight)],
                     bounds=[prop12_bound],
                     scope=Scope("proof", "written argument (notes), its one inequality checked in sympy: for every "
                                 "spectrum and every r the ratio is <= 1/2, and 2r equal singular values attain 1/2 "
                                 f"exactly; corroborated by the search over spectra of m = {m} values, r in {rs}, "
                                 f"{restarts} restarts x 300 rounds (maximiser reported)", universal=True),
                     notes="Proof (line by line). Let s_1 >= s_2 >= ... be the singular values, H = s_1 + ... + s_r, "
                           "T = sum_{i>r} s_i, so ||K||_* = H + T. (1) ||K - K_r||_F^2 = sum_{i>r} s_i^2 <= s_{r+1} T "
                           "(each tail term s_i <= s_{r+1}). (2) H >= r s_{r+1} (each head term s_i >= s_{r+1}). So "
                           "r ||K-K_r||_F^2 / ||K||_*^2 <= r s_{r+1} T / (r s_{r+1} + T)^2 = ab/(a+b)^2 with a = r "
                           "s_{r+1}, b = T. (3) ab/(a+b)^2 <= 1/4 since 1/4 - ab/(a+b)^2 = (a-b)^2/(4(a+b)^2) >= 0 "
                           "(sympy). Hence sqrt(r)||K-K_r||_F/||K||_* <= 1/2. Equality in (1), (2), (3) holds when "
                           "the r head and the r tail values are all equal and the rest 0: 2r equal singular values "
                           "give sqrt(r) sqrt(r)/(2r) = 1/2 exactly. The printed constant 1 holds but is twice the "
                           "tight one: CONFIRMED_LOOSE (claims.md rule 5).")
    ms = ctx.pick(12, 24)
    s2 = {r: _search(_step2, r, ms, restarts, rng)[0] for r in ctx.pick((1, 5), (1, 5, 10))}
    s3 = {r: _search(_step3, r, ms, restarts, rng)[0] for r in ctx.pick((1, 5), (1, 5, 10))}
    step_sigma = Evidence(V.from_bound(max(s2.values()), 1.0, rtol=tol),
                          {"max_r_sigma_r+1_over_nuclear": s2, "sup_for_each_r_r/(r+1)": {str(r): r / (r + 1) for r in s2}},
                          thresholds=[Threshold("sup r σ_{r+1}/||K||_* <= 1", 1.0, "paper", "003 after eq.216",
                                                max(s2.values()), max(s2.values()))],
                          scope=Scope("search", f"m = {ms}, r in {tuple(s2)}, {restarts} restarts", universal=True),
                          notes="For a fixed r the sup is r/(r+1) (r+1 equal values); over all r it is 1 (r -> oo), "
                                "so 1 is the best constant uniform in r, as the step uses it.")
    step_sqrt = Evidence(V.from_bound(max(s3.values()), 1.0, rtol=tol), {"max_ratio": s3},
                         thresholds=[Threshold("sup ||K-K_r||_F / sqrt(max σ_{i>r} Σ σ_{i>r}) <= 1", 1.0, "paper",
                                               "003 eq.216", max(s3.values()), max(s3.values()))],
                         scope=Scope("search", f"m = {ms}, r in {tuple(s2)}, {restarts} restarts", universal=True))
    A = rng.normal(size=(8, 8))                       # n = 4 blocks of d = 2: nd = 8, min(n, d) = 2
    sv = np.linalg.svd(A, compute_uv=False)
    true_tail = float((sv[2:] ** 2).sum())
    lit = Evidence(V.holds(abs(true_tail - 0.0) <= tol * true_tail),
                   {"true_tail_sq_r2": true_tail, "literal_sum_to_min_n_d": 0.0},
                   reading=Reading("||K-K_r||_F^2 = Σ_{i=r+1}^{min(n,d)} σ_i^2 (literal)",
                                   '003 App H.12 proof: "||K−K^(r)||_F^2 = Σ_{i=r+1}^{min(n,d)} σ_i^2"'),
                   counterexample={"A": A.tolist(), "n": 4, "d": 2, "r": 2, "true_tail_sq": true_tail},
                   repro=Repro("float(np.sum(np.linalg.svd(np.array(A), compute_uv=False)[2:] ** 2))",
                               {"A": A.tolist()}, expected=true_tail, rtol=1e-10,
                               tol_reason="float64 SVD of an 8x8 matrix (LAPACK order may differ)"),
                   scope=Scope("instance", "n = 4, d = 2, r = 2: the literal sum is empty"))
    dev = []
    for _ in range(20):                               # n in 2..6 blocks of d in 1..4, every r
        nb, db = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        B = rng.normal(size=(nb * db, nb * db)) * np.exp(rng.normal(0, 2, nb * db))
        Uu, ss, Vt = np.linalg.svd(B)
        for rk in range(1, nb * db):
            Br = (Uu[:, :rk] * ss[:rk]) @ Vt[:rk]
            dev.append(abs(np.linalg.norm(B - Br) ** 2 - (ss[rk:] ** 2).sum()) / (ss ** 2).sum())
    dmax = float(max(dev))
    idx = Evidence(V.holds(dmax <= 1e3 * F64), {"tail_index_read": "nd", "max_rel_deviation": dmax},
                   thresholds=[Threshold("| ||B-B_r||_F^2 - Σ_{i>r}^{nd} σ_i^2 | / ||B||_F^2", 1e3 * F64, "precision",
                                         "float64 SVD of matrices up to 24 x 24, 1e3 eps", dmax, dmax)],
                   reading=Reading("the Eckart-Young tail runs to nd (K is nd x nd)",
                                   '003 App H.12, the next two displays of the same proof: eq.215 '
                                   '"Σ_{i=r+1}^{nd} σ_i^2" and eq.216 "||K−K^(r)||_F = sqrt(Σ_{i=r+1}^{nd} σ_i^2)": '
                                   'the min(n,d) upper index is a typo the proof corrects'),
                   other_readings={"literal_min_n_d": lit},
                   scope=Scope("search", "20 random block matrices (n in 2..6, d in 1..4, scaled columns), "
                               "every r; the identity is the Eckart-Young-Mirsky theorem (ref [45] of 003)",
                               universal=True))
    tail = np.array([1.0, 0.0])
    return of_parts({"bound_eq214": bound, "step_tail_index": idx, "step_sigma_r+1": step_sigma,
                              "step_eq216_sqrt": step_sqrt},
                             repro=bound.repro,
                             numbers={"claimed_constant": claimed, "tight_constant": tight,
                                      "ratio_claimed_over_tight": claimed / tight,
                                      "max_ratio": sup, "maximising_spectrum": adv[worst_r][1],
                                      "eq215_lhs_rhs_for_tail_[1,0]": [float((tail ** 2).sum()),
                                                                        float(tail.sum() ** 2 / 2)]},
                             notes="eq.215 ('Σσ^2 <= (Σσ)^2/(nd-r)') is printed in the proof with the Cauchy-"
                                   "Schwarz inequality reversed (tail (1, 0): 1 > 1/2), but the proof does not use "
                                   "it ('A tighter bound uses ...' eq.216 does not depend on it) and the catalogue "
                                   "lists the other steps; recorded here, not a part. The bound is eq. (214) of the "
                                   "shipped text (the catalogue's Src cites it as eq.211). Tried (rule 5): an adversarial "
                                   "search over spectra and three matrix families, then a proof of the tight "
                                   "constant 1/2 (attained by 2r equal singular values): the printed bound holds "
                                   "with constant 1, twice the tight one.")


@register("itnet.lowrank.one_percent",
          method="relative error certifiable by Prop 12 at r = 32 (bound/||K||_F); truncated-SVD and ALS errors "
                 "at r = 32 on an ITNet kernel at the printed initialisation (d_h = 64), as substitutes")
def check_one_percent(ctx):
    rng = ctx.rng("1pct")
    n = ctx.pick(8, 16)
    op = I.init_itnet(64, 2, n_keys=n, width=128, L=64, rng=rng)
    X = rng.uniform(0, 1, (n, 2))
    U = rng.normal(size=(n, 64))
    K = op.kernel.kernel(X, X, U, U)
    rep = spectrum_report(K)
    r = 32
    cert = float(rep["prop12_bound"][r - 1] / rep["fro"])
    svd_rel = float(rep["rel_err_fro"][r - 1])
    _, _, hist = als_fit(K, r, iters=ctx.pick(2, 5), rng=rng)
    passage = ('003 §3.3: "Error satisfies ||κ_θ − Φ_θ^TΨ_θ||_F <= ||κ_θ||_*/sqrt(r); r=32 gives <1% relative error '
               'on ImageNet-1K"')
    acc17 = {r_: TABLE17[r_][0] for r_ in (24, 48, 96, 192, 384)}
    drop48 = TABLE17["exact"][0] - TABLE17[48][0]
    printed_cmp = ("003 prints r = 32 only here (§3.3) and in App L's prose list r in {16, 32, 64, 128} with 'r_h = "
                   "r/H, H = 12'; Table 17 (ITNet-B, H = 12) has r in {24, 48, 96, 192, 384} and no r = 32 row. "
                   "Compared: none of 16, 32, 64, 128 is a multiple of H = 12 (r_h = 32/12 is not an integer), so "
                   "App L's prose and Table 16 disagree about ITNet-B's ranks; §3.3 names no model, and r = 32 is "
                   "a valid ITNet-L setting (H = 16, r_h = 2). Table 17's ITNet-B accuracies " + ", ".join(f"r={k}: {v}" for k, v in
                   acc17.items()) + f" vs exact {TABLE17['exact'][0]} put r = 48 already {drop48:.1f} points "
                   f"({drop48 / TABLE17['exact'][0]:.2%}) below exact, so for ITNet-B the accuracy reading would "
                   "fail if the sentence were about ITNet-B; but §3.3 names no model, App L's prose itself lists "
                   "r = 32 with H = 12 (a list that contradicts Table 16's, see itnet.lowrank.table17), and r = 32 "
                   "is a valid ITNet-L setting (H = 16, r_h = 2) for which no rank sweep is printed; no printed "
                   "number states a kernel error")
    kern = Evidence(V.NOT_CHECKABLE, {"svd_rel_error_r32_init_kernel": svd_rel},
                    reading=Reading("the trained ImageNet-1K kernel's relative approximation error at r = 32 is < 1%",
                                    passage + " (the sentence follows the kernel error bound)"),
                    notes="needs the trained ITNet kernels on ImageNet-1K (not available)",
                    tried=Tried(
                        printed=printed_cmp,
                        search=f"the kernel is the free object: at the printed initialisation (d_h = 64, n = {n}) the "
                               f"r = 32 truncated-SVD relative error is {svd_rel:.3f} (the init kernel is ~(1/n) 1 1^T "
                               "x I_64, 64 equal singular values, far from rank 32), and an ITNet kernel can be of "
                               "any rank (I_d x identity-like kernels need r = nd), so the relative error at r = 32 "
                               "ranges over [0, 1) across admissible kernels: only the trained ImageNet kernels "
                               "decide, and Prop 12 certifies no less than 1/sqrt(32) = 17.7% for any kernel",
                        budget="the substitute SVD/ALS at init costs < 1 s; deciding needs ImageNet-1K training of an "
                               "ITNet (hundreds of GPU-days, data and kernels not available here)"))
    acc = Evidence(V.NOT_CHECKABLE, {"table17_top1": acc17, "exact_top1": TABLE17["exact"][0]},
                   reading=Reading("top-1 accuracy at r = 32 is within 1% of exact", passage),
                   notes="ImageNet-1K accuracy with r = 32 needs the trained model; Table 17 has no r = 32 row",
                   tried=Tried(
                       printed=printed_cmp,
                       search="r = 32 lies between Table 17's r = 24 (81.2) and r = 48 (82.7), both more than 1 "
                              "point (and 1% relative) below exact 83.9 for ITNet-B; but §3.3 names no model, and "
                              "r = 32 with an integer per-head rank is an ITNet-L setting (H = 16, r_h = 2) for which "
                              "the paper prints no rank sweep, so no printed row or monotone interpolation covers "
                              "the sentence",
                       budget="training ITNet-L (or any H | 32 model) at r = 32 on ImageNet-1K: not available here"))
    r1 = {"m": r + 1, "r": r}
    cert_min = float(evaluate(CERT_EXPR, r1))
    by_bound = Evidence(
        V.holds(cert_min < 0.01),
        {"certified_rel_error_min_over_K": cert_min, "certified_rel_error_init_kernel": cert,
         "lower_limit_1_over_sqrt32": 1 / math.sqrt(r)},
        reading=Reading("the bound of the same sentence, ||kappa||_*/sqrt(r), gives < 1% relative error at r = 32",
                        passage + " (the number read as what the bound gives)"),
        counterexample={"r": r, "K": "any kernel; the smallest certified value is at rank 1: K = diag(1, 0, ..., 0) "
                        f"of size {r + 1}", "certified_rel_error": cert_min,
                        "why": "||K||_* >= ||K||_F for every K, so ||K||_*/(sqrt(32) ||K||_F) >= 1/sqrt(32)"},
        repro=Repro(CERT_EXPR, r1, expected=cert_min, rtol=1e-12,
                    tol_reason="float64 SVD of a diagonal matrix (exact singular values 1 and 0)"),
        thresholds=[Threshold("Prop 12's certified relative error at r = 32 < 1%", 0.01, "paper",
                              '003 §3.3: "r=32 gives <1% relative error"', cert_min, cert_min)],
        notes="||K||_* >= ||K||_F, so the bound never certifies less than 1/sqrt(32) = 17.7% relative error at "
              "r = 32, for any kernel (the minimum, attained by rank-1 K)")
    return Evidence(verdict=kern.verdict, reading=kern.reading,
                    other_readings={"accuracy_reading": acc, "bound_reading": by_bound},
                    tried=kern.tried,
                    numbers={"prop12_certified_rel_error_r32": cert, "lower_limit_1_over_sqrt32": 1 / math.sqrt(32),
                             "svd_rel_error_r32_init": svd_rel, "als_rel_error_r32_init": float(hist[-1] / rep["fro"]),
                             "prose_r_App_L": [16, 32, 64, 128], "table17_r": [24, 48, 96, 192, 384]},
                    notes="Both measured readings need ImageNet-trained models (NOT_CHECKABLE under each). The "
                          "reading that the sentence's bound gives the 1% is refuted: Prop 12 can never certify 1% "
                          "at r = 32 (||K||_*/(sqrt(r)||K||_F) >= 1/sqrt(32) = 0.177). At the printed initialisation "
                          "the kernel ≈ (1/n) 1 1^T ⊗ I_64 has 64 equal singular values, so its r = 32 error is "
                          "large (init is not the trained model).")


# Prop 12's certified relative error ||K||_*/(sqrt(r) ||K||_F) for the rank-1 K = diag(1, 0, ..., 0) of size m
CERT_EXPR = ("float((lambda rep: rep['prop12_bound'][r - 1] / rep['fro'])(yatmath.itnet.lowrank.spectrum_report("
             "np.diag(np.eye(m)[0]))))")


TABLE17 = {"exact": (83.9, 1480, 1.00), 24: (81.2, 4200, 0.38), 48: (82.7, 3900, 0.45), 96: (83.4, 3400, 0.55),
           192: (83.7, 2800, 0.72), 384: (83.8, 2100, 0.89), "mc128": (83.7, 2240, 0.68)}   # 003 Table 17


@register("itnet.lowrank.table17",
          method="Table 17 values need ImageNet training and an H200 (NOT_CHECKABLE); printed-number consistency "
                 "(monotonicity, r = H r_h, FLOPs vs 1/throughput) recorded")
def check_table17(ctx):
    ranks = [24, 48, 96, 192, 384]
    acc = [TABLE17[r][0] for r in ranks]
    thr = [TABLE17[r][1] for r in ranks]
    fl = [TABLE17[r][2] for r in ranks]
    mono = bool(all(np.diff(acc) > 0) and all(np.diff(thr) < 0) and all(np.diff(fl) > 0))
    rh_ok = [r // 12 * 12 == r for r in ranks]
    inv_thr = {str(k): TABLE17["exact"][1] / TABLE17[k][1] for k in ranks + ["mc128"]}
    # printed-number comparisons (rule 5(a)): relative-FLOPs increments per unit rank, throughput vs FLOPs
    incr = {f"{a}->{b}": (TABLE17[b][2] - TABLE17[a][2]) / (b - a) for a, b in zip(ranks, ranks[1:])}
    incr_lo = {k: ((TABLE17[int(k.split('->')[1])][2] - TABLE17[int(k.split('->')[0])][2]) - 0.01)
               / (int(k.split('->')[1]) - int(k.split('->')[0])) for k in incr}
    incr_hi = {k: ((TABLE17[int(k.split('->')[1])][2] - TABLE17[int(k.split('->')[0])][2]) + 0.01)
               / (int(k.split('->')[1]) - int(k.split('->')[0])) for k in incr}
    speed_over_flops = {str(k): (TABLE17[k][1] / TABLE17["exact"][1]) * TABLE17[k][2] for k in ranks + ["mc128"]}
    dense_l = 10 * 197 * 768 ** 2                                  # W_theta, W^O, 4x FFN per layer (MACs)
    exact_lit = 12 * (dense_l + iomodel.forward_macs(197, 64, 128, 64, 12))
    exact_fac = 12 * (dense_l + iomodel.forward_macs(197, 64, 128, 64, 12, split=True, factorised=True))
    tflops = {"literal_per_pair_MLP": 2 * exact_lit * 1480 / 1e12, "split_and_factorised": 2 * exact_fac * 1480 / 1e12}
    lr = Evidence(V.NOT_CHECKABLE, {"top1": acc, "img_per_s": thr, "rel_flops": fl,
                                    "rel_flops_increment_per_unit_r": incr,
                                    "throughput_gain_times_rel_flops": speed_over_flops,
                                    "implied_forward_TFLOPS_exact_1480_img_s": tflops},
                  notes="top-1, throughput and FLOPs of ITNet-B on ImageNet-1K need the trained model and the "
                        "hardware; the cost model behind 'relative FLOPs' is not stated.",
                  tried=Tried(
                      printed="Table 17 compared row with row and with the rest of 003: top-1 rises and "
                              "throughput falls monotonically in r; r = 12 r_h for every row (App L); 'd^2 = 590k' = "
                              "768^2; MC's 0.68 relative FLOPs matches M/n = 128/197 = 0.65 plus overhead. The "
                              "relative-FLOPs increments per unit r are " + ", ".join(f"{k}: {v:.5f}" for k, v in
                              incr.items()) + " (falling ~3x from the first to the last interval even after +-0.005 "
                              f"rounding: [{incr_lo['24->48']:.5f}, {incr_hi['24->48']:.5f}] vs "
                              f"[{incr_lo['192->384']:.5f}, {incr_hi['192->384']:.5f}]), which no cost affine in r "
                              "gives; the factor networks' sizes are not printed (a width growing with r would "
                              "give it), so that is no contradiction. Throughput gain x relative FLOPs is "
                              + ", ".join(f"{k}: {v:.2f}" for k, v in speed_over_flops.items()) + ". The printed "
                              "contradictions (exact-mode throughput vs the 989 TFLOPS peak; App L's r list vs "
                              "Table 16's; 86M vs W2 + FFN) are the consistency parts beside this one, which "
                              "refute the claim; they cannot confirm or replace the measurements",
                      search="the free objects are the factor-network sizes of the LR rows (any width; the concave "
                             "relative-FLOPs curve needs one growing with r) and the trained weights; no choice of "
                             "them reproduces an ImageNet accuracy or an H200 throughput without running them",
                      budget="the arithmetic costs nothing; the accuracies and throughputs need ImageNet-1K training "
                             "of ITNet-B and an H200 with the paper's Triton kernels (not available), and no budget "
                             "here substitutes for them"))
    thr_part = exact_throughput_part(TABLE17)
    # App L prose vs Table 16 caption (the same ITNet-B rank sweep, H = 12)
    prose_r, table_r, H = [16, 32, 64, 128], ranks, 12
    rank_bind = {"prose_r": prose_r, "H": H}
    non_int = [r_ for r_ in prose_r if r_ % H]
    ranks_part = Evidence(
        V.holds(not non_int),
        {"prose_r": prose_r, "prose_r_h": [r_ / H for r_ in prose_r], "table16_r": table_r,
         "table16_r_h": [r_ // H for r_ in table_r], "prose_r_not_multiple_of_H": non_int},
        reading=Reading("App L's rank list and Table 16/17's rank list describe the same sweep with integer "
                        "per-head ranks r_h = r/H, H = 12",
                        '003 App L: "we set per-head rank r_h = r/H with H = 12 heads, total r in {16,32,64,128}"; '
                        'Table 16 caption: "We sweep per-head rank r_h in {2,4,8,16,32} corresponding to total rank '
                        'r = H r_h with H = 12 heads (r in {24,48,96,192,384})"'),
        scope=Scope("consistency", "the two printed rank lists against each other", universal=False),
        counterexample={"prose_r": prose_r, "H": H, "r_h": [r_ / H for r_ in prose_r],
                        "table16_r": table_r},
        repro=Repro("len([r for r in prose_r if r % H != 0])", rank_bind, expected=len(non_int), rtol=0,
                    tol_reason="integer arithmetic"),
        thresholds=[Threshold("number of App L ranks that are not multiples of H = 12", 0, "paper",
                              '003 App L / Table 16 caption: "r_h = r/H", "r = H r_h" (integer ranks)',
                              len(non_int), len(non_int))],
        notes=f"r/H = {', '.join(f'{r_ / H:.3g}' for r_ in prose_r)} for App L's r list: none is an integer "
              f"per-head rank, and the list differs from Table 16's {table_r} for the same sweep")
    # ITNet-B "86M" vs W2 (Table 11) + 4x FFN (eq.195)
    pb = {"L": 12, "H": 12, "dh": 64, "w_kappa": 128, "d": 768}
    par_expr = "L * (H * dh ** 2 * w_kappa + 2 * d * 4 * d)"
    w2_ffn = int(evaluate(par_expr, pb))
    params_part = Evidence(
        V.holds(w2_ffn <= 86e6),
        {"W2_params": 12 * 12 * 4096 * 128, "FFN_params": 12 * 2 * 768 * 3072, "W2_plus_FFN": w2_ffn,
         "printed_total": 86e6},
        reading=Reading("ITNet-B, the model of Table 17, has 86M parameters",
                        '003 §4: "ITNet-B: 86M; 12 layers, width 768, 12 heads"; App L: "ITNet-B (86M params, '
                        'd=768, H=12, d_h=64)"; Table 11: W2 "~75.5M across 12 layers"; eq.195: FFN W1 in '
                        'R^{4d x d} (expansion factor 4), W2 in R^{d x 4d}'),
        scope=Scope("consistency", "printed sizes; only W2 of the kernel MLPs and the FFN weights counted "
                    "(a lower bound)", universal=False),
        counterexample=dict(pb, W2_plus_FFN=w2_ffn, claimed=86e6),
        repro=Repro(par_expr, pb, expected=w2_ffn, rtol=0, tol_reason="integer arithmetic"),
        thresholds=[Threshold("ITNet-B parameters <= the printed 86M", 86e6, "paper", '003 §4: "ITNet-B: 86M"',
                              w2_ffn, w2_ffn)],
        notes=f"W2 alone 12 x 12 x 4096 x 128 = {12 * 12 * 4096 * 128:,} (Table 11's ~75.5M) plus the FFNs "
              f"12 x 2 x 768 x 3072 = {12 * 2 * 768 * 3072:,} give {w2_ffn:,} > 86M (the same count as "
              "itnet.config.param_counts)")
    # another reading, not the paper's: the check-invented rewrite (split first layer, contracted last layer)
    rewrite = Evidence(
        V.NOT_CHECKABLE, {"implied_TFLOPS_split_factorised": tflops["split_and_factorised"],
                          "implied_TFLOPS_literal_incl_dense": tflops["literal_per_pair_MLP"]},
        reading=Reading("the exact mode uses an algebraic rewrite of the kernel MLP (first layer split into "
                        "query and key halves, last layer contracted per key) that 003 never describes",
                        "none: 003 prints only the per-pair evaluation (" + PASSAGE + "); this reading is a "
                        "correction by the check, reported and never operative (claims.md rule 5)"),
        notes=f"under the rewrite 1480 img/s would need {tflops['split_and_factorised']:.0f} TFLOPS "
              f"({tflops['split_and_factorised'] / 989:.0%} of peak), consistent with the peak; the throughput "
              "itself needs the H200 and the trained model",
        tried=Tried(printed="the rewrite's implied rate is below the printed 989 peak; no printed number "
                            "describes the rewrite, so none can be compared with it",
                    search="implementation variants: literal per-pair MLP (operative, refuted), split, "
                           "split+factorised (this reading, the cheapest)",
                    budget="the arithmetic costs nothing; the throughput needs an H200 and the paper's kernels"))
    return of_parts({"replication": lr, "consistency_exact_throughput_vs_peak": thr_part,
                     "consistency_rank_lists": ranks_part, "consistency_param_count_86M": params_part},
                    reading=Reading("Table 17's numbers, for the exact-mode kernel as 003 prints it (pair-by-pair "
                                    "MLP evaluation)", PASSAGE),
                    other_readings={"rewritten_kernel_not_printed": rewrite},
                    numbers={"monotone_in_r": mono, "r_equals_12_r_h": rh_ok,
                             "exact_time_over_mode_time": inv_thr,
                             "mc_integral_fraction_128_over_197": 128 / 197,
                             "pair_macs_dh64": iomodel.pair_macs(64, 128, 64)},
                    notes="Judged as printed (claims.md rule 5): the paper fixes pair-by-pair kernel evaluation, "
                          "under which Table 17's exact-mode 1,480 img/s needs more than 8x the 989 TFLOPS peak "
                          "of Table 12 (every row is infeasible); App L's rank list contradicts Table 16's; and "
                          "'86M' is below W2 + FFN. The replication (accuracies, throughputs) stays "
                          "NOT_CHECKABLE; the consistency parts refute the claim (rule 2). The split/contracted "
                          "rewrite is reported as another reading, never operative.")
