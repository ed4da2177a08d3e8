"""particles.synthetic.* (004 App F.1, Figs 1-3, Table 4, §5) through yatmath.particles.synthetic.

Fig. 1's RBF and random-feature comparisons are re-run at the printed sizes (p = 5, the smallest p of App F.1.1, 11 sigmas; p = 10 beside) at
quick; the printed Langevin horizon (T_max = 2000, about 28 s per fit) and the printed ablation take
about an hour on two cores, beyond the ledger's budget: those runs are reduced substitutes whose
comparisons are recorded with paired 95% intervals and never decide a replication verdict.
"""
from __future__ import annotations

import contextlib
import math
import re

import numpy as np
from scipy import stats

from proofs_check import verdicts as V
from proofs_check.papers import paper_text
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate
from proofs_check.support.printed import printed_one
from proofs_check.support.records import decisive_repro
from yatmath.particles import synthetic as S

PRINTED_T = S.PAPER["T_max"]


def _pd(d):
    return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in d.items()}


@register("particles.synthetic.generator", method="§P6 generator run twice (determinism), split sizes, "
          "realised label frequency vs the Gauss-Hermite Bayes posterior (z-test, Bonferroni 1%), "
          "Bayes accuracy vs sigma, test SE")
def check_generator(ctx):
    d1, d2 = S.make_design(), S.make_design()
    same = bool(np.array_equal(d1.X, d2.X) and np.array_equal(d1.train, d2.train) and np.array_equal(d1.w, d2.w))
    sig = S.sigma_grid(11)
    n_tr = ctx.pick(20, 200)
    bayes = [S.bayes_accuracy(d1.logit[d1.test], s) for s in sig]
    zs = []
    for si, s in enumerate(sig):
        ys = np.array([S.draw_labels(d1.logit, s, si, t) for t in range(n_tr)])
        pi = S.bayes_posterior(d1.logit, s)
        zs.append(float((ys.mean() - pi.mean()) / (math.sqrt(np.sum(pi * (1 - pi)) * n_tr) / ys.size)))
    zcrit = float(stats.norm.ppf(1 - 0.005 / len(zs)))
    zmax = max(abs(z) for z in zs)
    inst = "the printed protocol (n = 400, p = 10, seed 42, random_state 0): one fixed instance"
    parts = {
        "deterministic": Evidence(V.holds(same), {"identical_rebuild": same},
                                  scope=Scope("exhaustive", inst)),
        "split_280_120": Evidence(V.holds((d1.train.size, d1.test.size) == (280, 120)),
                                  {"n_train": int(d1.train.size), "n_test": int(d1.test.size)},
                                  scope=Scope("exhaustive", inst)),
        "labels_follow_bayes_posterior": Evidence(
            V.holds(zmax < zcrit, otherwise=V.INCONCLUSIVE),
            {"z": zs, "trials_per_sigma": n_tr},
            thresholds=[Threshold("max |z| < Bonferroni critical value", zcrit, "statistical",
                                  "two-sided z-test, family level 1% over 11 sigmas", zmax, zmax)],
            scope=Scope("instance", f"{n_tr} label draws per sigma, 11 sigmas"),
            notes="A failed test would be INCONCLUSIVE here, not a refutation of the protocol."),
    }
    return Evidence.of_parts(
        parts, numbers={"sigmas": sig.tolist(), "bayes_test": bayes,
                        "test_se_at_120": {f"{a:.2f}": float(S.test_se(a, 120)) for a in (0.5, 0.75, 0.8)}},
        notes="The protocol is implementable as printed. Bayes accuracy on the 120 test points is 0.80 "
              "for sigma <= 1e-2 and within 1e-2 of 1/2 for sigma >= 1e2. Unspecified by 004 and recorded: "
              "the number of sigmas (11) and the per-job seed rule. Fig.1's 'sigma^2' axis contradicts "
              "App F.1.1 (sigma is the standard deviation).")


FIG1_RBF = ("logistic", "rbf_svm", "rbf_svm_g0.01", "rbf_svm_g100")
# the decisive number, re-run from scratch through the public API (the SVC fits are deterministic)
FIG1_RBF_EXPR = ("(lambda r: [yatmath.particles.synthetic.paired_difference(r.acc['rbf_svm'], r.acc[other])[k] "
                 "for k in ('mean', 'lo', 'hi')])(yatmath.particles.synthetic.run_study(('rbf_svm', other), "
                 "n_sigmas=n_sigmas, n_trials=n_trials, p=p))")
# the paired interval from the recorded per-(sigma, trial) F1 values
FIG1_PAIRED_EXPR = ("[yatmath.particles.synthetic.paired_difference(np.array(a), np.array(b))[k] "
                    "for k in ('mean', 'lo', 'hi')]")
P_PRINTED = ('004 App F.1.1: "a configurable feature dimension p >= 5" (the protocol of Fig. 1 prints no other p); '
             'App F.1.2 (3): "with optimized gamma = 0.5"; App F.1.6: "when its bandwidth gamma is properly tuned"; '
             'the only p = 10 of 004 is the runtime plot\'s: Fig. 2 caption "In this plot, dimension p = 10"')
# the premise "gamma = 0.5 is the tuned bandwidth": the low-noise cells (sigma <= 1e-2, Bayes accuracy 0.80)
PREMISE_GAMMAS = (0.1, 0.5)
PREMISE_SIGMAS = 4


def _premise(p, n_trials, n):
    """Mean test accuracy of SVC(rbf, gamma, C = 1) over the low-noise cells (the first PREMISE_SIGMAS of
    the 11 sigmas, the same per-job labels as run_study) for gamma in PREMISE_GAMMAS."""
    from sklearn.svm import SVC
    data = S.make_design(n=n, p=p)
    tr, te = data.train, data.test
    sig = S.sigma_grid(11)[:PREMISE_SIGMAS]
    acc = {g: np.zeros((sig.size, n_trials)) for g in PREMISE_GAMMAS}
    for si, sg in enumerate(sig):
        for t in range(n_trials):
            y = S.draw_labels(data.logit, sg, si, t)
            for g in PREMISE_GAMMAS:
                pred = SVC(kernel="rbf", gamma=g, C=1.0).fit(data.X[tr], y[tr]).predict(data.X[te])
                acc[g][si, t] = np.mean(pred == y[te])
    d = S.paired_difference(acc[0.5], acc[0.1])
    return {"sigmas": sig.tolist(), "trials": n_trials,
            "mean_acc": {f"gamma={g:g}": round(float(v.mean()), 4) for g, v in acc.items()},
            "gamma_0.5_minus_gamma_0.1_points": _pts(d), "gamma_0.5_tuned_vs_0.1": bool(d["lo"] > 0),
            "gamma_0.1_beats_0.5": bool(d["hi"] < 0)}


@contextlib.contextmanager
def _global_numpy_seed(seed):
    """sklearn's LinearSVC (random_state unset in yatmath.particles.synthetic) shuffles its dual coordinate
    descent with NumPy's global RNG: seed it here, and restore the caller's state, so that the record does
    not depend on what ran before in the process."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _pts(d):
    return {k: (round(100 * v, 3) if k in ("mean", "lo", "hi") else v) for k, v in d.items()}


def _rbf_part(pp, n_tr, n, one_point, n_test_printed, printed_nums, premise, cites, operative):
    """Part 1 at dimension pp: gamma = 0.5 vs gamma = 0.01, 100 and logistic regression, paired 95%
    t-intervals of accuracy over the (sigma, trial) cells against one test point."""
    res = S.run_study(FIG1_RBF, n_sigmas=11, n_trials=n_tr, n=n, p=pp)
    A = res.acc
    n_test = res.params["n_test"]
    raw = {m: S.paired_difference(A["rbf_svm"], A[m]) for m in FIG1_RBF if m != "rbf_svm"}
    f1d = {m: S.paired_difference(res.f1["rbf_svm"], res.f1[m]) for m in FIG1_RBF if m != "rbf_svm"}
    mis = min(("rbf_svm_g0.01", "rbf_svm_g100"), key=lambda m: raw[m]["hi"])
    hi_mis = raw[mis]["hi"]
    lo_mis = min(raw[m]["lo"] for m in ("rbf_svm_g0.01", "rbf_svm_g100"))
    if hi_mis < one_point:
        v1 = V.REFUTED
    elif lo_mis >= one_point and raw["logistic"]["lo"] > 0:
        v1 = V.NOT_CHECKABLE         # both gaps exceed one test point: how much is 'substantially' is vague
    else:
        v1 = V.INCONCLUSIVE
    per_sigma = {f"{s:g}": _pts(S.paired_difference(A["rbf_svm"][i], A[mis][i])) for i, s in enumerate(res.sigmas)}
    bind1 = {"other": mis, "n_sigmas": 11, "n_trials": n_tr, "p": pp}
    rep1 = [float(v) for v in evaluate(FIG1_RBF_EXPR, bind1)] if v1 == V.REFUTED else None
    p_n_cite, p_te_cite = cites
    gap = (f"the tuned gamma = 0.5 beats gamma = 0.01 by {100 * raw['rbf_svm_g0.01']['mean']:+.2f} accuracy points "
           f"(95% [{100 * raw['rbf_svm_g0.01']['lo']:+.2f}, {100 * raw['rbf_svm_g0.01']['hi']:+.2f}]), gamma = "
           f"100 by {100 * raw['rbf_svm_g100']['mean']:+.2f} ([{100 * raw['rbf_svm_g100']['lo']:+.2f}, "
           f"{100 * raw['rbf_svm_g100']['hi']:+.2f}]) and logistic regression by "
           f"{100 * raw['logistic']['mean']:+.2f} ([{100 * raw['logistic']['lo']:+.2f}, "
           f"{100 * raw['logistic']['hi']:+.2f}])")
    pr = premise["gamma_0.5_minus_gamma_0.1_points"]
    prem = (f"premise check (sigma <= 1e-2, {premise['trials']} trials): gamma = 0.5 minus gamma = 0.1 "
            f"{pr['mean']:+.2f} accuracy points ([{pr['lo']:+.2f}, {pr['hi']:+.2f}]; mean accuracy "
            f"{premise['mean_acc']})")
    if v1 == V.REFUTED:
        verdict_note = (f"the closer mis-specified SVM ({mis}) falls short by less than one test point "
                        f"({100 * one_point:.2f} points) at 95%")
    elif v1 == V.NOT_CHECKABLE:
        verdict_note = ("the tuned RBF is the best of the four (every interval above 0) and both mis-specified "
                        f"gaps exceed one test point ({100 * one_point:.2f} points) at 95%; whether a gap of "
                        "this size is 'substantial' is a vague word the papers give no number for (rule 3), so "
                        "the part is NOT_CHECKABLE with the ranking confirmed")
    else:
        verdict_note = ("an interval straddles one test point (or logistic regression ties the tuned RBF): "
                        "undecided at this budget")
    if operative:
        reading = Reading(f"at App F.1.1's p = {pp} (the smallest p allowed, where the printed gamma = 0.5 is "
                          "the tuned bandwidth, as 004 calls it), averaged across the noise levels, the SVM with "
                          "gamma = 0.5 has the best test accuracy and the mis-specified gamma = 0.01 and gamma = "
                          "100 underperform it substantially",
                          '004 App F.1.6: "Across noise levels, the SVM with a Gaussian (RBF) kernel - when its '
                          'bandwidth gamma is properly tuned - achieves the best performance ... the RBF SVM can '
                          'underperform substantially when the bandwidth gamma is mis-specified, e.g., gamma = '
                          '0.01 and gamma = 100" (performance: accuracy, the first metric of App F.1.4 and Fig. '
                          '1\'s left panel); ' + P_PRINTED)
    else:
        reading = Reading(f"at p = {pp} (Fig. 2's runtime caption), gamma = 0.5 taken as the tuned bandwidth: "
                          "it has the best accuracy and gamma = 0.01, 100 underperform it substantially",
                          '004 Fig. 2 caption: "In this plot, dimension p = 10" (the runtime plot, not Fig. 1)')
    ev = Evidence(
        v1,
        {"printed": printed_nums, "p": pp, "trials": n_tr, "sigmas": res.sigmas.tolist(), "n_test": n_test,
         "premise_gamma_0.5_tuned": premise,
         "mean_acc": {m: v.mean(1).round(4).tolist() for m, v in A.items()},
         "rbf_minus_other_acc_points": {m: _pts(v) for m, v in raw.items()},
         "rbf_minus_other_f1_points": {m: _pts(v) for m, v in f1d.items()},
         "mean_f1": {m: v.mean(1).round(4).tolist() for m, v in res.f1.items()},
         f"per_sigma_rbf_minus_{mis}_points": per_sigma},
        reading=reading,
        thresholds=[Threshold(f"95% paired t-interval of acc(gamma = 0.5) - acc(gamma = 0.01 / 100) over the "
                              "(sigma, trial) cells vs one test point (REFUTED if an upper end is below it; "
                              "both lower ends above it leave only the vague 'substantially')", one_point, "paper",
                              f"004 App F.1.1: n = {n} with a 70%/30% split gives n_test = {n_test_printed}; one "
                              f"test point (1/{n_test_printed} = {100 * one_point:.2f} accuracy points) is the "
                              "smallest gap a single trial can show, so no reading of 'substantially' is smaller; "
                              f"paired Student-t 95% interval over {res.sigmas.size} x {n_tr} cells; printed: "
                              f"{p_n_cite}; {p_te_cite}", hi_mis if v1 == V.REFUTED else lo_mis,
                              hi_mis if v1 == V.REFUTED else lo_mis)],
        scope=Scope("replication", f"the printed protocol (n = {n}, p = {pp}, seed 42, split state 0, 11 sigmas "
                    f"log-spaced in [1e-5, 1e5], sklearn SVC(C = 1)), {n_tr} trials per sigma (the caption prints "
                    "10, App F.1.4 three: more trials only narrow the interval)"),
        counterexample=None if v1 != V.REFUTED else {
            "p": pp, "n": n, "n_test": n_test, "sigmas": "logspace(-5, 5, 11)", "trials": n_tr,
            "labels": "yatmath.particles.synthetic.draw_labels (per-job seed [sigma index, trial, 2026])",
            "tuned": "SVC(rbf, gamma = 0.5, C = 1)", "mis_specified": mis,
            "acc_gap_points": round(100 * raw[mis]["mean"], 3),
            "ci95_points": [round(100 * raw[mis]["lo"], 3), round(100 * raw[mis]["hi"], 3)],
            "one_test_point_points": round(100 * one_point, 3)},
        repro=None if rep1 is None else Repro(FIG1_RBF_EXPR, bind1, expected=rep1, rtol=1e-9, atol=1e-12,
                                              tol_reason="deterministic SVC fits on the same seeded labels; "
                                                         "only float64 summation order may differ"),
        notes=f"At p = {pp} {gap}: {verdict_note}.  F1: gamma = 0.5 minus gamma = 0.01 "
              f"{100 * f1d['rbf_svm_g0.01']['mean']:+.2f} F1 points, minus gamma = 100 "
              f"{100 * f1d['rbf_svm_g100']['mean']:+.2f}, minus logistic {100 * f1d['logistic']['mean']:+.2f}.  "
              f"Per-sigma gaps recorded (the reading is the average across noise levels).  {prem}."
              + ("" if operative else "  This reading's premise fails: at p = 10 gamma = 0.5 is not the tuned "
                 "bandwidth (gamma = 0.1 beats it at low noise, interval above), so its result is no "
                 "counterexample to a claim made 'when gamma is properly tuned'; reported beside, never deciding."))
    return ev, raw, res.bayes


@register("particles.synthetic.fig1", method="operative protocol p = 5 (App F.1.1's smallest p; there the printed "
          "gamma = 0.5, 'optimized'/'properly tuned', beats gamma = 0.1 at low noise, while at Fig. 2's p = 10 it "
          "does not), n = 400, 70/30 split, 11 sigmas in [1e-5, 1e5]: RBF gamma = 0.5 vs gamma = 0.01, 100 and "
          "logistic regression, paired 95% t-intervals of accuracy over the (sigma, trial) cells against one test "
          "point; p = 10 recorded beside as a reading whose premise fails; Sinha-Duchi vs RFF at p = 5 (10 "
          "trials at quick, accuracy and F1); Langevin vs importance sampling on a reduced substitute (the "
          "printed T_max = 2000 is beyond budget)")
def check_fig1(ctx):
    # ---- the printed sizes: p (App F.1.1's lower end; Fig. 2's runtime p beside), n, split, gamma ----
    (p_min,) = printed_one("004", r"configurable feature dimension \$p \\geq (\d+)\$")
    (p_fig2,) = printed_one("004", r"dimension \$p = (\d+)\$")
    (p_gam,) = printed_one("004", r"with optimized \$\\gamma = ([\d.]+)\$")
    (p_n,) = printed_one("004", r"we use \$n = (\d+)\$")
    p_tr, p_te = printed_one("004", r"A single (\d+)%/(\d+)% train/test split")
    n_test_printed = round(p_n.value * p_te.value / 100)
    n = int(p_n.value)
    pp, p10 = int(p_min.value), int(p_fig2.value)
    one_point = 1.0 / n_test_printed
    printed_nums = {"p_min_fig1_protocol": p_min.value, "p_fig2_runtime": p_fig2.value, "gamma": p_gam.value,
                    "n": p_n.value, "split": [p_tr.value, p_te.value], "n_test": n_test_printed,
                    "cited": [p_min.cite(), p_fig2.cite(), p_gam.cite(), p_n.cite(), p_te.cite()]}
    n_tr = ctx.pick(20, 40)
    prem = {p: _premise(p, n_tr, n) for p in (pp, p10)}
    # ---- part 1: the RBF comparison at the operative p = 5; p = 10 beside ----
    part1, raw, bayes = _rbf_part(pp, n_tr, n, one_point, n_test_printed, printed_nums, prem[pp],
                           (p_n.cite(), p_te.cite()), True)
    beside, raw10, _ = _rbf_part(p10, n_tr, n, one_point, n_test_printed, printed_nums, prem[p10],
                              (p_n.cite(), p_te.cite()), False)
    part1.other_readings = {f"p_{p10}_fig2_caption_premise_fails": beside}
    sweep = {}
    for p in ctx.pick((), (7,)):
        rp = S.run_study(FIG1_RBF, n_sigmas=11, n_trials=20, p=p)
        sweep[f"p={p}"] = {"trials": rp.params["n_trials"],
                           **{f"rbf_minus_{m}": _pts(S.paired_difference(rp.acc["rbf_svm"], rp.acc[m]))
                              for m in FIG1_RBF if m != "rbf_svm"}}
    if sweep:
        part1.numbers["p_sweep_acc_points"] = sweep
    # ---- part 2: optimised random features (Sinha-Duchi importance sampling) vs RFF, operative p ----
    n2 = ctx.pick(10, 30)
    with _global_numpy_seed(0):
        r2 = S.run_study(("rff", "sinha_duchi"), n_sigmas=11, n_trials=n2, p=pp)
    d2 = {"acc": S.paired_difference(r2.acc["sinha_duchi"], r2.acc["rff"]),
          "f1": S.paired_difference(r2.f1["sinha_duchi"], r2.f1["rff"])}
    worse = min(d2, key=lambda k: d2[k]["hi"])
    if d2[worse]["hi"] < 0:
        v2 = V.REFUTED
    else:
        v2 = V.holds(all(d2[k]["lo"] > 0 for k in d2), otherwise=V.INCONCLUSIVE)
    bind2 = {"a": r2.f1["sinha_duchi"].ravel().tolist() if worse == "f1" else r2.acc["sinha_duchi"].ravel().tolist(),
             "b": r2.f1["rff"].ravel().tolist() if worse == "f1" else r2.acc["rff"].ravel().tolist()}
    rep2 = [float(v) for v in evaluate(FIG1_PAIRED_EXPR, bind2)]
    part2 = Evidence(
        v2,
        {"p": pp, "trials": n2, "sinha_duchi_minus_rff_points": {k: _pts(v) for k, v in d2.items()},
         "mean_acc": {m: v.mean(1).round(4).tolist() for m, v in r2.acc.items()},
         "mean_f1": {m: v.mean(1).round(4).tolist() for m, v in r2.f1.items()}},
        reading=Reading("importance-sampled optimised random features (Sinha-Duchi, N_w = 1e4, rho = 0.005 N_w, "
                        "D = 200) beat plain RFF (gamma = 0.5, D = 200) in both accuracy and F1",
                        '004 App F.1.6: "relative to a linear SVM trained on fixed random Fourier features (RFF), '
                        'jointly optimizing the random features yields clear gains in both accuracy and F1 (purple '
                        'dashed vs. grey solid curves)"; App F.1.2 (5) and (3) for the sizes; ' + P_PRINTED),
        thresholds=[Threshold(f"upper end of the 95% paired t-interval of {worse}(Sinha-Duchi) - {worse}(RFF) vs 0 "
                              "(a gain needs a positive difference)", 0.0, "statistical",
                              f"paired Student-t 95% interval over 11 sigmas x {n2} trials", d2[worse]["hi"],
                              d2[worse]["hi"])],
        scope=Scope("replication", f"the printed sizes (App F.1.2), p = {pp}, 11 sigmas, {n2} trials (the "
                    "caption's 10); yatmath's reimplementation of the Sinha-Duchi pipeline (004 reimplemented it "
                    "too and releases no code)"),
        counterexample=None if v2 != V.REFUTED else {
            "p": pp, "trials": n2, "sigmas": "logspace(-5, 5, 11)", "metric": worse,
            "gap_points": round(100 * d2[worse]["mean"], 3),
            "ci95_points": [round(100 * d2[worse]["lo"], 3), round(100 * d2[worse]["hi"], 3)],
            "rerun": f"np.random.seed(0); yatmath.particles.synthetic.run_study(('rff', 'sinha_duchi'), "
                     f"n_sigmas=11, n_trials={n2}, p={pp})"},
        repro=Repro(FIG1_PAIRED_EXPR, bind2, expected=rep2, rtol=1e-12, atol=1e-15,
                    tol_reason="the recorded per-(sigma, trial) values; float64 mean and t-interval"),
        notes=f"Sinha-Duchi minus RFF: accuracy {100 * d2['acc']['mean']:+.2f} points (95% "
              f"[{100 * d2['acc']['lo']:+.2f}, {100 * d2['acc']['hi']:+.2f}]), F1 {100 * d2['f1']['mean']:+.2f} "
              f"([{100 * d2['f1']['lo']:+.2f}, {100 * d2['f1']['hi']:+.2f}]).  A difference whose interval lies "
              "below 0 refutes 'gains' under any reading of 'clear'; both intervals above 0 confirm a gain."
              + ("" if v2 != V.INCONCLUSIVE else
                 f"  Undecided at {n2} trials per sigma (the caption's 10): an interval straddles 0.  The interval "
                 "half-widths shrink as 1/sqrt(trials); at >= 30 trials per sigma (330 cells, `full`; about 25 s "
                 "here) the F1 interval would be about 0.58 times as wide, enough to exclude 0 if the mean gain "
                 "stays near its measured value.")
              + "  The reproduction recomputes the interval from the recorded per-cell values (p = "
              f"{pp}, the operative protocol of part 1); LinearSVC draws its coordinate order from NumPy's global "
              "RNG, hence the seed.")
    # ---- part 3: Langevin vs importance sampling (printed T_max = 2000 beyond budget) ----
    with _global_numpy_seed(0):
        sub = S.run_study(("sinha_duchi", "langevin"), sigmas=ctx.pick([1.0, 10.0], [1e-2, 1e-1, 1.0, 10.0]),
                          n_sigmas=11, n_trials=2, options={"T_max": ctx.pick(10, 40), "N_w": 2000})
    part3 = Evidence(
        V.INCONCLUSIVE,
        {"substitute_langevin_minus_sinha_duchi": _pd(S.paired_difference(sub.acc["langevin"],
                                                                          sub.acc["sinha_duchi"])),
         "substitute": {"sigmas": sub.sigmas.tolist(), "trials": 2, "T_max": sub.params["options"]["T_max"],
                        "N_w": 2000}},
        notes="Decided only by the printed Langevin run (eta = 30, beta = 100, N = 300, T_max = 2000): about 1.4 s "
              "per 100 steps here, so about 28 s per fit and about 50 min for 11 sigmas x 10 trials on 2 cores, "
              "beyond the ledger's budget.  The reduced substitute (recorded) never decides it.")
    parts = {"rbf_tuned_best_and_misspecified_underperform": part1, "optimised_rf_beats_rff": part2,
             "langevin_beats_importance_sampling": part3}
    return Evidence.of_parts(
        parts, repro=decisive_repro(parts),
        numbers={"p": pp, "bayes_accuracy": [round(b, 4) for b in bayes],
                 "rbf_gap_to_gamma_0.01_points": _pts(raw["rbf_svm_g0.01"]),
                 "p_10_beside_rbf_gap_to_gamma_0.01_points": _pts(raw10["rbf_svm_g0.01"])},
        notes=f"Operative protocol p = {pp}: App F.1.1 prints only 'p >= {pp}' for Fig. 1, and the claim's premise "
              "(gamma = 0.5 'optimized', 'properly tuned') holds there (gamma = 0.5 beats gamma = 0.1 at low noise) "
              f"but fails at Fig. 2's p = {p10} (gamma = 0.1 beats it), where the RBF comparison is recorded beside "
              "as a reading whose premise fails.  Part 1: the ranking holds at p = 5 and both mis-specified gaps exceed "
              "one test point, but 'substantially' has no printed number (NOT_CHECKABLE); part 2 is undecided at "
              "the caption's 10 trials (>= 30 trials per sigma is the budget that would decide it); part 3 needs the printed Langevin horizon "
              "(about 50 min).")


@register("particles.synthetic.fig3_ablation", method="Bayes ceiling of the achievable gain per sigma; "
          "reduced lambda ablation (Coulomb s = p - 2) as a labelled substitute")
def check_fig3(ctx):
    d0 = S.make_design()
    ceil = {f"{s:g}": round(S.bayes_accuracy(d0.logit[d0.test], s) - 0.5, 4) for s in (1.0, 10.0, 100.0)}
    mo = {"rff": {}}
    for lam in (0.0, 0.5, 1.5):
        mo[f"coulomb_lam{lam}"] = {"base": "langevin", "lam": lam, "interaction": ("none", "coulomb", 0.0)}
    res = S.run_study(tuple(mo), sigmas=[1e-3, 1.0, 10.0], n_trials=2, options={"T_max": 10},
                      method_options=mo)
    means = {m: v.mean(1).round(4).tolist() for m, v in res.acc.items()}
    parts = {
        "few_points_gain": Evidence(
            V.NOT_CHECKABLE, {"bayes_minus_half": ceil},
            notes="'typically a few points' is vague: the Bayes ceiling allows gains of tens of points at "
                  "sigma = 1 and 10 but under one point at sigma = 1e2, so whether 'typically a few "
                  "points' across [1, 1e2] is possible depends on the number chosen for 'a few' and "
                  "'typically'."),
        "comparisons_and_best_lambda": Evidence(
            V.INCONCLUSIVE, {"substitute_mean_acc": means, "sigmas": [1e-3, 1.0, 10.0], "trials": 2,
                             "T_max": 10},
            notes="Decided only by the printed ablation (6 lambdas x kernels x 11 sigmas x >= 10 trials, "
                  "T_max = 2000): hours on 2 cores. The Riesz s is not given in 004."),
    }
    return Evidence.of_parts(parts, notes="NOT_CHECKABLE (vague magnitude); comparisons beyond budget.")


TABLE4 = {"mkl": (1.961, 8.00e-5, 0.671), "rbf_svm": (1.477, 3.00e-6, 0.503),
          "sinha_duchi": (0.967, 3.55e-4, 0.085), "rff": (0.799, 9.50e-5, 0.319),
          "langevin": (0.730, 3.82e-1, 0.430), "logistic": (0.021, 1.16e-1, 0.290)}
CAPTION_ORDER = ("mkl", "rbf_svm", "sinha_duchi", "rff", "langevin", "logistic")


@register("particles.synthetic.runtime_fits", method="Table 4 arithmetic (caption order vs exponents, "
          "implied times, crossovers); re-measured timings with power-law fits (hardware-dependent)")
def check_runtime_fits(ctx):
    order = tuple(sorted(TABLE4, key=lambda m: -TABLE4[m][0]))
    implied = {m: {str(n): float(c * n ** g) for n in (280, 1000, 10_000)} for m, (g, c, _) in TABLE4.items()}
    cross = {}
    ms = list(TABLE4)
    for i, a in enumerate(ms):
        for b in ms[i + 1:]:
            (ga, ca, _), (gb, cb, _) = TABLE4[a], TABLE4[b]
            cross[f"{a}/{b}"] = float((cb / ca) ** (1.0 / (ga - gb)))
    meas = S.runtime_scaling(("logistic", "rff"), ns=ctx.pick((100, 200, 400), (100, 200, 400, 800, 1600)),
                             n_trials=1, options={"T_max": 10, "N_w": 2000})
    fits = {m: {k: (list(v) if isinstance(v, tuple) else v) for k, v in f.items()} for m, f in meas["fits"].items()}
    parts = {"replication_timings": Evidence(
        V.NOT_CHECKABLE, {"measured_fits_here": fits},
        notes="Timings depend on hardware, BLAS and the n grid, none of which 004 gives: the experiment "
              "cannot be re-run as printed.")}
    if order != CAPTION_ORDER:
        parts["caption_order"] = Evidence(
            V.REFUTED, {"order_by_gamma": list(order)}, counterexample={"table4": TABLE4},
            repro=Repro("sorted(t, key=lambda m: -t[m])", {"t": {m: v[0] for m, v in TABLE4.items()}},
                        expected=list(order)), scope=Scope("consistency", "printed numbers"))
    return Evidence.of_parts(
        parts, numbers={"caption_order_matches_exponents": order == CAPTION_ORDER, "implied_seconds": implied,
                        "crossover_n": cross},
        notes="The caption's order agrees with the printed exponents (consistency, recorded; it cannot "
              "confirm the timings). Exponents below 1 for linear-cost methods mean fixed costs dominate "
              "the fitted range. Table 4 implies MKL overtakes Langevin near n ~ 975.")


@register("particles.synthetic.feature_budget", method="search 004 for the 64-vs-256 experiment; "
          "synthetic substitute D in {64, 256} for Langevin and RFF (labelled)")
def check_feature_budget(ctx):
    txt = paper_text("004")
    hits = len(re.findall(r"64 features", txt))
    mo = {f"{m}_D{D}": {"base": m, "D": D} for m in ("langevin", "rff") for D in (64, 256)}
    res = S.run_study(tuple(mo), sigmas=[1.0], n_trials=ctx.pick(3, 6), options={"T_max": 10},
                      method_options=mo)
    out = {m: {"acc64": float(res.acc[f"{m}_D64"].mean()), "acc256": float(res.acc[f"{m}_D256"].mean())}
           for m in ("langevin", "rff")}
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"mentions_of_64_features": hits, "synthetic_substitute": out},
        notes="The statement concerns attention heads (NLP, 64 vs 256 features per head); 004 reports no "
              "such experiment (one mention, §5; every NLP table uses 256 per head) and re-running it needs "
              "the NLP data and GPU training. The synthetic substitute is recorded, not decisive.")
