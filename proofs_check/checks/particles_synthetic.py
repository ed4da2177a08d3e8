"""Checks of claims.md C6 (004 App F.1 synthetic study, Table 3, the scaling note after B.10).

Everything runs through ``yatmath.particles.synthetic`` (the §P6 generator, the §P7 baselines,
the §P8 metrics).  Budgets: level quick runs tiny studies (few sigmas, 2-3 trials, Langevin with
T_max of a few tens of steps) so every check takes a few seconds; level full runs the printed
sizes (11 sigmas, 10 trials, T_max = 2000; an hour or more on 2 cores).  Where the quick budget
departs from the printed protocol, a decisive comparison is downgraded to INCONCLUSIVE by the
rule ``_decide`` (the notes say which budget decides).

Deciding rule for "A beats B" claims (paired over the same labels, sigma x trial cells):
CONFIRMED when the 95% t-interval of mean(acc_A - acc_B) lies above 0, REFUTED when it lies
below 0 (or, for "beats by a few points", above 0 but with upper end < 0.02), INCONCLUSIVE
otherwise or when the protocol was reduced.
"""
from __future__ import annotations

import math
import re
import time

import numpy as np
from scipy import stats

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, register
from proofs_check.papers import paper_text
from yatmath.particles import synthetic as S

PRINTED_T = S.PAPER["T_max"]



def _decide(diff, *, reduced, min_gain=0.0):
    """Verdict for 'A beats B (by at least min_gain)' from a paired_difference dict."""
    if diff["lo"] > min_gain:
        v = V.CONFIRMED
    elif diff["hi"] < 0 or (min_gain > 0 and diff["hi"] < min_gain):
        v = V.REFUTED
    else:
        v = V.INCONCLUSIVE
    return V.INCONCLUSIVE if (reduced and v != V.INCONCLUSIVE) else v


def _pd(d):
    return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in d.items()}


# ============================================================================= generator

@register("particles.synthetic.generator",
          method="§P6 generator run twice (determinism), split sizes, class balance, realised label "
                 "frequency vs the Gauss-Hermite Bayes posterior (z-test), Bayes accuracy vs sigma, test SE")
def check_generator(ctx):
    d1, d2 = S.make_design(), S.make_design()
    same = bool(np.array_equal(d1.X, d2.X) and np.array_equal(d1.train, d2.train) and np.array_equal(d1.w, d2.w))
    sig = S.sigma_grid(11)
    n_tr = ctx.pick(20, 200)
    lte = d1.logit[d1.test]
    bayes = [S.bayes_accuracy(lte, s) for s in sig]
    probit = [S.bayes_accuracy(lte, s, "probit") for s in sig]
    rng = ctx.rng("fresh")
    Xf = rng.standard_normal((ctx.pick(4_000, 100_000), d1.X.shape[1]))
    lf = S.logit_function(Xf, d1.w)
    bayes_fresh = [S.bayes_accuracy(lf, s) for s in sig]
    # realised frequency of y = 1 against mean pi over (trial, points), per sigma: z-score
    zs, bal = [], []
    for si, s in enumerate(sig):
        ys = np.array([S.draw_labels(d1.logit, s, si, t) for t in range(n_tr)])
        pi = S.bayes_posterior(d1.logit, s)
        m, e = ys.mean(), pi.mean()
        se = math.sqrt(np.sum(pi * (1 - pi)) * n_tr) / ys.size
        zs.append((m - e) / se)
        bal.append(float(m))
    ok_split = (d1.train.size, d1.test.size) == (280, 120)
    mono = bool(np.all(np.diff(bayes) <= 1e-12))
    z_ok = max(abs(z) for z in zs) < stats.norm.ppf(1 - 0.005 / len(zs))      # Bonferroni 1%
    se120 = {f"{a:.2f}": float(S.test_se(a, 120)) for a in (0.5, 0.75, 0.8)}
    parts = {
        "deterministic": Evidence(V.holds(same), numbers={"identical_rebuild": same}),
        "split_280_120": Evidence(V.holds(ok_split), numbers={"n_train": int(d1.train.size), "n_test": int(d1.test.size)}),
        "labels_follow_bayes_posterior": Evidence(V.holds(z_ok), numbers={"max_abs_z": float(max(abs(z) for z in zs)),
                                                                         "trials_per_sigma": n_tr}),
        "bayes_decreasing_in_sigma": Evidence(V.holds(mono), numbers={"bayes_test": bayes}),
    }
    return Evidence(
        verdict=V.combine_subclaims(p.verdict for p in parts.values()),
        numbers={"sigmas": sig.tolist(), "bayes_test": [round(b, 5) for b in bayes],
                 "bayes_probit_test": [round(b, 5) for b in probit],
                 "bayes_fresh": [round(b, 5) for b in bayes_fresh], "fresh_points": int(Xf.shape[0]),
                 "class_balance_y1": [round(b, 4) for b in bal], "test_se_at_120": se120,
                 "w": d1.w.tolist(), "seed": 42, "job_seed": "default_rng([si, trial, 2026])"},
        parts=parts,
        repro="import yatmath.particles.synthetic as s; d = s.make_design(); "
              "print([s.bayes_accuracy(d.logit[d.test], x) for x in s.sigma_grid()])",
        notes="The protocol is implementable as printed. Bayes accuracy on the 120 test points is 0.800 "
              "for sigma <= 1e-2, 0.773 at 1, 0.568 at 10, 0.507 at 1e2 and within 7e-4 of 1/2 beyond: "
              "every method is at chance for sigma >= 1e2, where the per-trial SE at n_test = 120 is 0.046. "
              "Unspecified by 004 and recorded: the number of sigmas (11), the per-job seed rule. The "
              "Fig.1 caption's 'sigma^2' axis contradicts App F.1.1 (sigma is the standard deviation).")


# ============================================================================= fig1

FIG1_METHODS = ("logistic", "rbf_svm", "rbf_svm_g0.01", "rbf_svm_g100", "rff", "sinha_duchi",
                "langevin", "langevin_robust")


def fig1_study(ctx):
    sig = ctx.pick([1e-2, 1.0, 10.0], None)
    T = ctx.pick(15, PRINTED_T)
    opts = {"T_max": T, "N_w": ctx.pick(2000, 10_000)}
    methods = FIG1_METHODS + ctx.pick((), ("mkl", "langevin_small_step"))
    return S.run_study(methods, sigmas=sig, n_sigmas=11, n_trials=ctx.pick(2, 10), options=opts,
                       method_options={"langevin_small_step": {"base": "langevin", "eta": 0.3}})


@register("particles.synthetic.fig1",
          method="all §P7 methods over the sigma grid with paired differences (t CI, Wilcoxon) over "
                 "(sigma, trial) cells, Bayes accuracy overlaid; Langevin as printed (T_max 2000 at full)")
def check_fig1(ctx):
    res = fig1_study(ctx)
    reduced = res.params["options"]["T_max"] < PRINTED_T or res.params["n_trials"] < 10
    A = res.acc
    # restrict to sigmas where any method can beat chance (Bayes >= 0.55)
    inf = res.bayes >= 0.55
    pdiff = lambda a, b: S.paired_difference(A[a][inf], A[b][inf])
    others = [m for m in A if m != "rbf_svm"]
    d_rbf = {m: pdiff("rbf_svm", m) for m in others}
    v_rbf = [_decide(d, reduced=False) for d in d_rbf.values()]
    parts = {
        "rbf_tuned_best": Evidence(V.combine_subclaims(v_rbf), numbers={m: _pd(d) for m, d in d_rbf.items()}),
        "rbf_misspecified_underperform": Evidence(
            V.combine_subclaims([_decide(d_rbf["rbf_svm_g0.01"], reduced=False),
                                 _decide(d_rbf["rbf_svm_g100"], reduced=False)]),
            numbers={"vs_g0.01": _pd(d_rbf["rbf_svm_g0.01"]), "vs_g100": _pd(d_rbf["rbf_svm_g100"])}),
        "optimised_rf_beats_rff": Evidence(_decide(pdiff("sinha_duchi", "rff"), reduced=reduced),
                                           numbers=_pd(pdiff("sinha_duchi", "rff"))),
        "langevin_beats_importance_sampling": Evidence(_decide(pdiff("langevin", "sinha_duchi"), reduced=reduced),
                                                       numbers=_pd(pdiff("langevin", "sinha_duchi"))),
    }
    # one printed-parameter Langevin run: where do the particles end up?
    d = S.make_design()
    y = S.draw_labels(d.logit, 1.0, 5, 0)
    fit = S.fit_langevin(d.X[d.train], y[d.train], d.X[d.test], S.job_rng(5, 0, 7),
                         T_max=ctx.pick(15, PRINTED_T))
    mean_acc = {m: [round(float(x), 4) for x in v.mean(1)] for m, v in A.items()}
    mean_f1 = {m: [round(float(x), 4) for x in v.mean(1)] for m, v in res.f1.items()}
    ci = lambda arr: {m: [[round(float(a), 4), round(float(b), 4)] for a, b in zip(*S.summarize(v)[1:3])]
                      for m, v in arr.items()}
    return Evidence(
        verdict=V.combine_subclaims(p.verdict for p in parts.values()),
        numbers={"sigmas": res.sigmas.tolist(), "bayes": [round(b, 4) for b in res.bayes],
                 "mean_acc": mean_acc, "mean_f1": mean_f1, "acc_ci95": ci(A), "f1_ci95": ci(res.f1),
                 "n_trials": res.params["n_trials"],
                 "T_max": res.params["options"]["T_max"], "protocol_reduced": reduced,
                 "informative_sigmas": res.sigmas[inf].tolist(),
                 "printed_langevin_frac_on_sphere": fit.info["frac_on_sphere"],
                 "printed_langevin_mean_norm": fit.info["mean_norm"]},
        parts=parts,
        repro="import yatmath.particles.synthetic as s; r = s.run_study(s.METHODS, sigmas=[1.0], n_trials=2, "
              "options={'T_max': 15, 'N_w': 2000}); print({k: v.mean() for k, v in r.acc.items()})",
        notes="Paired comparisons use only sigmas with Bayes accuracy >= 0.55 (at larger sigma every "
              "method is at chance). With the printed eta = 30 and clip 1.0 every step moves a particle "
              "by up to 30 in a ball of radius 5: the particles sit on the sphere ||omega|| = 5 "
              "(frac_on_sphere). Quick level: 3 sigmas, 2 trials, T_max = 15, N_w = 2000, so the "
              "Langevin comparisons are INCONCLUSIVE by rule; level full (11 sigmas x 10 trials, "
              "T_max = 2000, plus MKL and a small-step eta = 0.3 variant) decides them.")


# ============================================================================= fig3 ablation

def ablation_study(ctx, lams=None, kernels=None, sigmas=None, n_trials=None, T=None):
    p = 10
    lams = lams or ctx.pick((0.0, 0.5, 1.5), (0.0, 0.2, 0.5, 0.8, 1.0, 1.5))
    kernels = kernels or ctx.pick({"coulomb": ("none", "coulomb", 0.0)},
                                  {"coulomb": ("none", "coulomb", 0.0), "riesz_s1": ("none", 1.0, 0.0),
                                   "riesz_s_p/2": ("none", p / 2, 0.0)})
    mo = {"rff": {}}
    for kn, it in kernels.items():
        for lam in lams:
            mo[f"{kn}_lam{lam}"] = {"base": "langevin", "lam": lam, "interaction": it}
    sig = sigmas or ctx.pick([1e-3, 1.0, 10.0], None)
    return S.run_study(tuple(mo), sigmas=sig, n_trials=n_trials or ctx.pick(2, 10),
                       options={"T_max": T or ctx.pick(10, PRINTED_T)}, method_options=mo), lams, kernels


@register("particles.synthetic.fig3_ablation",
          method="lambda x {Coulomb s=p-2, Riesz s in {1, p/2}} x sigma x trials; paired CIs against RFF and "
                 "lambda=0; Bayes ceiling on the achievable gain; paired power at n_test = 120")
def check_fig3(ctx):
    res, lams, kernels = ablation_study(ctx)
    reduced = res.params["options"]["T_max"] < PRINTED_T or res.params["n_trials"] < 10
    A, sig = res.acc, res.sigmas
    mid = (sig >= 1.0) & (sig <= 1e2)
    low = sig <= 1e-3
    high = sig >= 1e3
    pos = [l for l in lams if l > 0]
    se_mean = 2 * float(S.test_se(0.8, 120)) / math.sqrt(res.params["n_trials"])
    per_kernel, sds = {}, []
    for kn in kernels:
        key = lambda lam, kn=kn: f"{kn}_lam{lam}"
        best = max(pos, key=lambda l: A[key(l)][mid].mean()) if mid.any() else pos[0]
        pd = (lambda a, b: S.paired_difference(A[a][mid], A[b][mid])) if mid.any() else (lambda a, b: None)
        d_rff, d_l0 = pd(key(best), "rff"), pd(key(best), key(0.0))
        d_over = pd(key(best), key(max(lams))) if best != max(lams) else None
        spread_low = float(np.ptp([A[key(l)][low].mean() for l in lams])) if low.any() else float("nan")
        gap = lambda m: float(np.ptp([A[key(l)][m].mean() for l in lams] + [A["rff"][m].mean()]))
        if mid.any():
            dd = (A[key(best)][mid] - A["rff"][mid]).ravel()
            if dd.size > 1:
                sds.append(float(dd.std(ddof=1)))
        dec = lambda d: _decide(d, reduced=reduced) if d else V.INCONCLUSIVE
        kp = {
            "no_separation_small_sigma": Evidence(
                V.INCONCLUSIVE if reduced or not low.any() else V.holds(spread_low <= se_mean),
                numbers={"spread_of_means_sigma_le_1e-3": spread_low, "two_se_of_a_mean": se_mean}),
            "beats_rff_mid_sigma": Evidence(dec(d_rff), numbers={"best_lambda": best, **(_pd(d_rff) if d_rff else {})}),
            "beats_lambda0_mid_sigma": Evidence(dec(d_l0), numbers=_pd(d_l0) if d_l0 else {}),
            "best_lambda_in_0.5_1.0": Evidence(V.INCONCLUSIVE if reduced else V.holds(0.5 <= best <= 1.0),
                                               numbers={"best_lambda": best}),
            "largest_lambda_oversmooths": Evidence(dec(d_over), numbers=_pd(d_over) if d_over else {"best_is_largest": True}),
            "gaps_narrow_sigma_ge_1e3": Evidence(
                V.INCONCLUSIVE if reduced or not (high.any() and mid.any()) else V.holds(gap(high) < gap(mid)),
                numbers={"gap_mid": gap(mid) if mid.any() else float("nan"),
                         "gap_high": gap(high) if high.any() else float("nan")}),
        }
        per_kernel[kn] = Evidence(V.combine_subclaims(p.verdict for p in kp.values()), parts=kp,
                                  numbers={"best_lambda": best})
    sd = float(np.mean(sds)) if sds else float("nan")
    mdd10 = 2.8 * sd / math.sqrt(10) if np.isfinite(sd) else float("nan")
    # Bayes ceiling: at sigma the expected gain over a chance-level method is at most Bayes - 1/2
    d0 = S.make_design()
    ceil = {f"{s:g}": round(S.bayes_accuracy(d0.logit[d0.test], s) - 0.5, 4) for s in (1.0, 10.0, 100.0)}
    ceiling_ok = all(v >= 0.03 for v in ceil.values())
    r_some = Evidence(V.holds(any(v >= 0.03 for v in ceil.values())), numbers={"bayes_minus_half": ceil},
                      notes="reading: a few points somewhere in [1, 1e2] (possible at sigma = 1 and 10)")
    r_whole = Evidence(
                 V.holds(ceiling_ok), numbers={"bayes_minus_half": ceil},
                 counterexample=None if ceiling_ok else {"sigma": 100.0, "bayes_accuracy": ceil["100"] + 0.5,
                                                         "n_test": 120},
                 repro="import yatmath.particles.synthetic as s; d = s.make_design(); "
                       "print(s.bayes_accuracy(d.logit[d.test], 100.0))",
                 notes="reading: a few points (>= 0.03) across [1, 1e2]; at sigma = 1e2 the Bayes accuracy is "
                       "0.507, so no method can exceed a chance-level one by a few points in expectation")
    parts = {**per_kernel,
             "few_points_gain_possible_up_to_1e2": Evidence(
                 V.combine_readings([r_whole.verdict, r_some.verdict]),
                 counterexample=r_whole.counterexample, repro=r_whole.repro,
                 parts={"R_whole_range": r_whole, "R_somewhere_in_range": r_some})}
    means = {m: [round(float(x), 4) for x in v.mean(1)] for m, v in A.items()}
    return Evidence(
        verdict=V.combine_subclaims(p.verdict for p in parts.values()),
        numbers={"sigmas": sig.tolist(), "mean_acc": means, "bayes": [round(b, 4) for b in res.bayes],
                 "sd_acc": {m: [round(float(x), 4) for x in (v.std(1, ddof=1) if v.shape[1] > 1 else 0 * v[:, 0])]
                            for m, v in A.items()},
                 "lambdas": list(lams), "kernels": {k: list(v) for k, v in kernels.items()},
                 "paired_sd_diff": sd, "min_detectable_diff_10_trials": mdd10,
                 "n_trials": res.params["n_trials"], "T_max": res.params["options"]["T_max"],
                 "protocol_reduced": reduced},
        counterexample=r_whole.counterexample, repro=r_whole.repro, parts=parts,
        notes="Riesz s is not given in 004; full level runs s in {1, p/2} and Coulomb s = p - 2 = 8 (bare "
              "kernels, drift clipped to 1). Quick: Coulomb only, lambda in {0, 0.5, 1.5}, 3 sigmas, 2 "
              "trials, T_max = 10 (INCONCLUSIVE by rule for the comparisons). min_detectable_diff: "
              "2.8 x paired SD / sqrt(10) (80% power, 5% two-sided).")


# ============================================================================= runtime fits

TABLE4 = {"mkl": (1.961, 8.00e-5, 0.671), "rbf_svm": (1.477, 3.00e-6, 0.503),
          "sinha_duchi": (0.967, 3.55e-4, 0.085), "rff": (0.799, 9.50e-5, 0.319),
          "langevin": (0.730, 3.82e-1, 0.430), "logistic": (0.021, 1.16e-1, 0.290)}
CAPTION_ORDER = ("mkl", "rbf_svm", "sinha_duchi", "rff", "langevin", "logistic")
# asymptotic cost in n at fixed p, D, N, N_w, T (derived): exponent of n
ASYMPTOTIC = {"mkl": "n^2 m p (Grams) + SVC O(n^2)-O(n^3): >= 2", "rbf_svm": "libsvm O(n^2)-O(n^3): >= 2",
              "sinha_duchi": "n N_w p + N_w log N_w: 1", "rff": "n D p + liblinear ~ n D: 1",
              "langevin": "T (n N p + N^2 p) + n D p: 1", "logistic": "lbfgs iters x n p: ~1"}


@register("particles.synthetic.runtime_fits",
          method="Table 4 arithmetic (order vs exponents, implied times and crossovers at n in {280, 1e3, 1e4}), "
                 "derived asymptotic costs, re-measured timings with power-law fits and bootstrap CIs")
def check_runtime_fits(ctx):
    order = sorted(TABLE4, key=lambda m: -TABLE4[m][0])
    order_ok = tuple(order) == CAPTION_ORDER
    implied = {m: {str(n): float(c * n ** g) for n in (280, 1000, 10_000)} for m, (g, c, _) in TABLE4.items()}
    cross = {}
    ms = list(TABLE4)
    for i, a in enumerate(ms):
        for b in ms[i + 1:]:
            (ga, ca, _), (gb, cb, _) = TABLE4[a], TABLE4[b]
            if ga != gb:
                cross[f"{a}/{b}"] = float((cb / ca) ** (1.0 / (ga - gb)))
    ns = ctx.pick((100, 200, 400), (100, 200, 400, 800, 1600, 3200, 4800, 6400))
    T = ctx.pick(10, PRINTED_T)
    meas = S.runtime_scaling(("logistic", "rbf_svm", "rff", "sinha_duchi", "mkl", "langevin"), ns=ns,
                             n_trials=ctx.pick(1, 10), options={"T_max": T, "N_w": ctx.pick(2000, 10_000)})
    fits = {m: {k: (list(v) if isinstance(v, tuple) else v) for k, v in f.items()} for m, f in meas["fits"].items()}
    # per-step Langevin time -> implied full 2000-step time at n_train = 280
    t0 = time.perf_counter()
    d = S.make_design()
    y = S.draw_labels(d.logit, 1.0, 0, 0)
    S.fit_langevin(d.X[d.train], y[d.train], d.X[d.test], 1, T_max=T)
    per_step = (time.perf_counter() - t0) / max(T, 1)
    protocol_matches = False     # hardware, n-range and BLAS setup of 004 are unknown
    parts = {
        "caption_order_matches_exponents": Evidence(V.holds(order_ok), numbers={"order_by_gamma": order}),
        "timings": Evidence(V.INCONCLUSIVE if not protocol_matches else V.CONFIRMED,
                            numbers={"measured": fits, "paper": {m: list(v) for m, v in TABLE4.items()}},
                            notes="Hardware-dependent; 004 gives neither hardware nor the n grid (n_obs = 8)."),
    }
    return Evidence(
        verdict=V.combine_subclaims(p.verdict for p in parts.values()),
        numbers={"order_ok": order_ok, "implied_seconds": implied, "crossover_n": cross,
                 "asymptotic": ASYMPTOTIC, "measured_gamma": {m: round(f["gamma"], 3) for m, f in fits.items()},
                 "measured_gamma_ci": {m: f["gamma_ci"] for m, f in fits.items()}, "ns": list(ns),
                 "langevin_seconds_per_step_n280": per_step,
                 "langevin_implied_seconds_2000_steps": per_step * PRINTED_T,
                 "paper_langevin_seconds_n280": implied["langevin"]["280"]},
        parts=parts, repro="python -c \"print(0.382 * 280 ** 0.730, 8.00e-5 * 280 ** 1.961)\"",
        notes="Exponents below 1 for methods whose cost is linear in n (Langevin 0.73, logistic 0.02) "
              "mean fixed costs dominate the fitted range; the fits say nothing about asymptotics. "
              "Table 4 implies MKL overtakes Langevin at n ~ 975 and a 2000-step Langevin job takes "
              "~23 s at n = 280.")


# ============================================================================= feature budget

@register("particles.synthetic.feature_budget",
          method="search 004 for the 64-vs-256 experiment; synthetic substitute D in {64, 256} for Langevin "
                 "and RFF: acc ratio and chance-corrected ratio with bootstrap CIs")
def check_feature_budget(ctx):
    txt = paper_text("004")
    hits = [m.start() for m in re.finditer(r"64 features", txt)]
    tables_with_64 = len(re.findall(r"\|\s*64\s*\|", txt))
    evidence_exists = len(hits) > 1 or tables_with_64 > 0
    sig = [1.0]
    nt = ctx.pick(3, 10)
    T = ctx.pick(10, PRINTED_T)
    mo = {}
    for Dv in (64, 256):
        mo[f"langevin_D{Dv}"] = {"base": "langevin", "D": Dv}
        mo[f"rff_D{Dv}"] = {"base": "rff", "D": Dv}
    res = S.run_study(tuple(mo), sigmas=sig, n_trials=nt, options={"T_max": T}, method_options=mo)
    rng = ctx.rng("boot")
    out = {}
    for m in ("langevin", "rff"):
        a64, a256 = res.acc[f"{m}_D64"].ravel(), res.acc[f"{m}_D256"].ravel()
        ratio = a64.mean() / a256.mean()
        cc = (a64.mean() - 0.5) / (a256.mean() - 0.5) if a256.mean() != 0.5 else float("nan")
        bs = []
        for _ in range(500):
            i = rng.integers(0, nt, nt)
            den = a256[i].mean() - 0.5
            bs.append((a64[i].mean() - 0.5) / den if den != 0 else np.nan)
        out[m] = {"acc64": float(a64.mean()), "acc256": float(a256.mean()), "ratio": float(ratio),
                  "chance_corrected": float(cc),
                  "chance_corrected_ci": [float(np.nanpercentile(bs, 2.5)), float(np.nanpercentile(bs, 97.5))]}
    sub = Evidence(V.NOT_CHECKABLE, numbers={**out, "sigma": 1.0, "n_trials": nt, "T_max": T},
                   notes="Substitute on the synthetic task (labelled; does not decide the verdict).")
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"supporting_experiment_in_004": evidence_exists, "mentions_of_64_features": len(hits),
                 "substitute": out},
        parts={"synthetic_substitute": sub},
        notes="The statement is about attention heads (NLP, 64 vs 256 features per head); 004 reports no "
              "such experiment (the only mention is the sentence in §5; every NLP table uses 256 per head), "
              "and rerunning it needs the NLP data and GPU training. Substitute: synthetic D in {64, 256}.")


# ============================================================================= complexity (Table 3)

def langevin_flops(n, N, d, T=1):
    """Leading flop count of T iterations of Alg 1/2 with the RFF map: features and their
    gradient (~ 4 n N d: X Omega^T, the two back-products) and the pair sums (~ 3 N^2 d)."""
    return T * (4 * n * N * d + 3 * N * N * d)


def sinha_duchi_flops(n, N_w, d, n_bisect):
    """2 n N_w d (candidate features) + n_bisect N_w log2 N_w (sorting in the simplex projections)."""
    return 2 * n * N_w * d + n_bisect * N_w * math.log2(N_w)


@register("particles.complexity_table3",
          method="derived per-iteration and total flop counts of Alg 1/2 and of Sinha-Duchi against Table 3's "
                 "P(nD^2) and P(nD); measured step time vs n and N (fitted exponents)")
def check_complexity(ctx):
    d, n, N, D = 10, 280, 300, 200
    per_it = langevin_flops(n, N, d) / (n * D * D)
    # per-iteration reading: cost(n, D) / (n D^2) with N = D bounded over n, D >= 1 (<= 4d + 3d)
    grid = [(nn, DD) for nn in (10, 1e2, 1e3, 1e4, 1e5) for DD in (10, 1e2, 1e3, 1e4)]
    sup_it = max(langevin_flops(nn, DD, d) / (nn * DD * DD) for nn, DD in grid)
    inf_it = min(langevin_flops(nn, DD, d) / (nn * DD * DD) for nn, DD in grid)
    bounded = sup_it <= 7 * d            # 4 n N d + 3 N^2 d <= 7 d n D^2 for n, D >= 1 (N = D)
    loose = inf_it < sup_it / 10
    r_it = Evidence(V.CONFIRMED_LOOSE if (bounded and loose) else V.holds(bounded),
                    numbers={"derived": "O(n N d + N^2 d) per iteration (N = D: O(n D d + D^2 d))",
                             "ratio_to_nD2_sup": sup_it, "ratio_to_nD2_inf": inf_it,
                             "ratio_at_paper_sizes": per_it},
                    notes="O(nD^2) is a valid but loose per-iteration bound (ratio -> 0 as D grows).")
    ratios_T = {str(TT): langevin_flops(n, N, d, TT) / (n * D * D) for TT in (1, 100, 2000, 10_000)}
    r_tot = Evidence(V.holds(max(ratios_T.values()) / min(ratios_T.values()) < 10),
                     numbers={"derived": "O(T (n N d + N^2 d))", "ratio_to_nD2_by_T": ratios_T},
                     counterexample={"T": 10_000, "n": n, "N": N, "D": D, "d": d,
                                     "ratio": ratios_T["10000"]},
                     repro="proofs_check.checks.particles_synthetic.langevin_flops(280, 300, 10, 10000) / (280 * 200**2)",
                     notes="The total cost grows linearly with the number of iterations T, which Table 3 omits.")
    Nw = S.PAPER["N_w"]
    sd_kept = sinha_duchi_flops(n, Nw, d, 40) / (n * D)
    sd_cand = max(sinha_duchi_flops(nn, NW, d, 40) / (nn * NW) for nn in (100, 1e3, 1e5) for NW in (1e2, 1e4, 1e6))
    r_sd_c = Evidence(V.holds(sd_cand <= 4 * d), numbers={"ratio_to_n_Nw_sup": sd_cand},
                      notes="D read as the N_w candidates: O(n N_w d), i.e. P(nD) up to the factor d")
    r_sd_k = Evidence(V.holds(sd_kept <= 4 * d), numbers={"ratio_to_nD_at_paper_sizes": sd_kept, "N_w": Nw, "D": D},
                      counterexample={"n": n, "N_w": Nw, "D": D, "d": d, "ratio": sd_kept},
                      repro="proofs_check.checks.particles_synthetic.sinha_duchi_flops(280, 10000, 10, 40) / (280 * 200)",
                      notes="D read as the D = 200 kept features: the N_w = 1e4 candidates cost N_w d / D more")
    r_sd = Evidence(V.combine_readings([r_sd_c.verdict, r_sd_k.verdict]),
                    numbers={"derived": "O(n N_w d + n_bisect N_w log N_w)"},
                    parts={"R_D_candidates": r_sd_c, "R_D_kept": r_sd_k})
    # measured step time vs n and vs N
    reps = ctx.pick(5, 30)
    def step_time(nn, NN):
        X = np.random.default_rng(0).standard_normal((nn, d))
        yv = np.sign(np.random.default_rng(1).standard_normal(nn))
        yv[yv == 0] = 1
        H = S._PrintedRFF(X, yv, lam=0.5, interaction=("none", 0.0, 0.0), learn_phase=True, backend="numpy")
        Om = np.random.default_rng(2).standard_normal((NN, d))
        b = np.zeros(NN)
        H.drift(Om, b)
        t0 = time.perf_counter()
        for _ in range(reps):
            H.drift(Om, b)
        return (time.perf_counter() - t0) / reps
    with S.threadpool_limits(1):
        ns = ctx.pick((500, 1000, 2000, 4000), (500, 1000, 2000, 4000, 8000, 16000))
        tn = [step_time(nn, 100) for nn in ns]
        Ns = ctx.pick((100, 200, 400, 800), (100, 200, 400, 800, 1600, 3200))
        tN = [step_time(50, NN) for NN in Ns]
    fn = S.fit_power_law(ns, tn, rng=0)
    fN = S.fit_power_law(Ns, tN, rng=0)
    parts = {"R_per_iteration": r_it, "R_total": r_tot}
    return Evidence(
        verdict=V.combine_subclaims([V.combine_readings([r_it.verdict, r_tot.verdict]), r_sd.verdict]),
        numbers={"langevin_per_iteration": "O(n N d + N^2 d)", "langevin_total": "O(T (n N d + N^2 d))",
                 "memory": "O(n N) features + O(N d) particles (forces chunked)",
                 "sinha_duchi": "O(n N_w d + n_bisect N_w log N_w)",
                 "measured_exponent_n": fn["gamma"], "measured_exponent_n_ci": list(fn["gamma_ci"]),
                 "measured_exponent_N": fN["gamma"], "measured_exponent_N_ci": list(fN["gamma_ci"])},
        counterexample=r_tot.counterexample if r_tot.verdict == V.REFUTED else r_sd_k.counterexample,
        repro=r_tot.repro,
        parts={**parts, "sinha_duchi_P(nD)": r_sd},
        notes="Readings: per iteration (O(nD^2) is a loose bound) and total (the T factor is missing). "
              "Measured exponents are timing fits at small sizes (overheads pull them below the "
              "asymptotic 1 in n and 2 in N); they support, not decide.")


# ============================================================================= scaling note after B.10

def distance_exponents(d, Ns, reps, rng, s=1.0):
    """Fitted exponents of E||w_k - w_l||^s over all pairs and of the mean nearest-neighbour
    distance^s, N uniform points in [0,1]^d, against N (with bootstrap CIs)."""
    from scipy.spatial import cKDTree
    from scipy.spatial.distance import pdist

    pair, nn = [], []
    for N in Ns:
        pv, nv = [], []
        for _ in range(reps):
            P = rng.random((N, d))
            pv.append(np.mean(pdist(P) ** s))
            dist, _ = cKDTree(P).query(P, k=2)
            nv.append(np.mean(dist[:, 1] ** s))
        pair.append(np.mean(pv))
        nn.append(np.mean(nv))
    return S.fit_power_law(Ns, pair, rng=0), S.fit_power_law(Ns, nn, rng=0)


@register("particles.scaling_factor_and_repulsion",
          method="fitted exponents of pairwise and nearest-neighbour distances^s of N uniform points vs N "
                 "(d = 1, 2, 3); search of B.3/B.4 for the N^{s/d} factor; lambda ablation of the Langevin run "
                 "(min distance, KTA, accuracy, variance)")
def check_scaling(ctx):
    rng = ctx.rng("points")
    Ns = ctx.pick((50, 100, 200, 400), (50, 100, 200, 400, 800, 1600, 3200))
    reps = ctx.pick(5, 40)
    res = {}
    for d in (1, 2, 3):
        fp, fn = distance_exponents(d, Ns, reps, rng)
        res[d] = {"pair_gamma": fp["gamma"], "pair_ci": list(fp["gamma_ci"]), "nn_gamma": fn["gamma"],
                  "nn_ci": list(fn["gamma_ci"]), "claimed": -1.0 / d}
    v_pair = V.combine_subclaims([V.from_rate(r["pair_gamma"], r["pair_ci"], -1.0 / d, atol=0.05)
                                  for d, r in res.items()])
    v_nn = V.combine_subclaims([V.from_rate(r["nn_gamma"], r["nn_ci"], -1.0 / d, atol=0.05)
                                for d, r in res.items()])
    txt = paper_text("004")
    i3, i4 = txt.find(r"\text{B.3}"), txt.find(r"\text{B.4}")
    b34 = txt[max(i3 - 400, 0): i4 + 12] if (i3 >= 0 and i4 > i3) else ""
    factor_in_formula = bool(re.search(r"N\^\{?\\?frac\{s\}\{d\}|N\^\{s/d\}", b34))
    text_found = bool(b34)
    undefined = {sym: (len(re.findall(re.escape(sym), txt)) <= 1) for sym in (r"\mathcal{L}_N", "U_{N,s}")}
    r_pair = Evidence(v_pair, numbers={str(d): r for d, r in res.items()},
                      counterexample=None if v_pair != V.REFUTED else {"d": 1, "Ns": list(Ns),
                                                                        "pair_gamma": res[1]["pair_gamma"]},
                      repro="proofs_check.checks.particles_synthetic.distance_exponents(1, (50,100,200,400), 5, "
                            "numpy.random.default_rng(0))")
    r_nn = Evidence(v_nn, numbers={str(d): {k: r[k] for k in ("nn_gamma", "nn_ci", "claimed")} for d, r in res.items()})
    r_formula = Evidence(V.holds(factor_in_formula) if text_found else V.NOT_CHECKABLE, numbers={"factor_in_B3_B4": factor_in_formula,
                                                              "symbols_used_once_undefined": undefined},
                         counterexample=None if factor_in_formula else {"B3_B4_text": b34[-300:]},
                         repro="grep -n 'B.3\\|B.4' ../shared/seeds/004_*.txt")
    # lambda ablation: small-step Langevin on the synthetic task (sigma = 1)
    lams = ctx.pick((0.0, 0.5), (0.0, 0.2, 0.5, 1.0, 1.5))
    nt = ctx.pick(2, 10)
    T = ctx.pick(10, PRINTED_T)
    dsg = S.make_design()
    ab = {}
    for lam in lams:
        mind, accs, kta = [], [], []
        for t in range(nt):
            y = S.draw_labels(dsg.logit, 1.0, 5, t)
            fit = S.fit_langevin(dsg.X[dsg.train], y[dsg.train], dsg.X[dsg.test], S.job_rng(5, t, 11),
                                 lam=lam, T_max=T, N=ctx.pick(100, 300), D=ctx.pick(60, 200))
            accs.append(float(np.mean(fit.pred == y[dsg.test])))
            mind.append(fit.info["min_pair_distance"])
            kta.append(fit.info["frac_on_sphere"])
        ab[str(lam)] = {"acc_mean": float(np.mean(accs)), "acc_sd": float(np.std(accs, ddof=1)) if nt > 1 else 0.0,
                        "min_pair_distance": float(np.mean(mind)), "frac_on_sphere": float(np.mean(kta))}
    parts = {"R_pairwise": r_pair, "R_nearest_neighbour": r_nn, "factor_in_a_formula": r_formula}
    return Evidence(
        verdict=V.combine_subclaims([V.combine_readings([r_pair.verdict, r_nn.verdict]), r_formula.verdict]),
        numbers={"exponents": {str(d): {"pair": round(r["pair_gamma"], 3), "nn": round(r["nn_gamma"], 3),
                                        "claimed": round(-1 / d, 3)} for d, r in res.items()},
                 "factor_in_formula": factor_in_formula, "lambda_ablation": ab, "ablation_T_max": T,
                 "ablation_trials": nt},
        counterexample=r_formula.counterexample, repro=r_formula.repro, parts=parts,
        notes="The N^{-s/d} law holds for nearest-neighbour distances (exponent -s/d, s = 1 here) and fails "
              "for typical pairwise distances (exponent 0). B.3/B.4 carry no N^{s/d} factor and L_N, "
              "U_{N,s} are not defined elsewhere. The lambda ablation (stability/generalisation) is "
              "recorded, not decisive at quick level.")
