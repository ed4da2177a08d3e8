"""Tests of proofs_check.studies.synthetic (004 App F.1; algorithms.md §P6-P8).

Expected values come from independent computations: the §P6 recipe re-typed here with numpy, SciPy
and mpmath quadrature for the Bayes posterior, sklearn.metrics for the §P8 metrics, an explicit
bin loop for the ECE, brute-force enumeration of confusion matrices, SLSQP for the Sinha-Duchi
problem, and exact fractions for the accuracy-denominator test.
"""
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import optimize, special, stats
from sklearn import metrics as skm
from sklearn.model_selection import train_test_split

from yatmath.particles import Hamiltonian
from proofs_check.studies import synthetic as S


# ------------------------------------------------------------------------------------ generator

def test_design_follows_the_recipe():
    d = S.make_design()
    rng = np.random.default_rng(42)
    X = rng.standard_normal((400, 10))
    w = rng.normal(0.0, 0.3, size=5)
    assert np.array_equal(d.X, X) and np.array_equal(d.w, w)
    tr, te = train_test_split(np.arange(400), test_size=0.3, random_state=0)
    assert np.array_equal(d.train, tr) and np.array_equal(d.test, te)
    assert (d.train.size, d.test.size) == (280, 120)
    i = 17
    x = X[i]
    l = 1.5 * np.sin(np.pi * x[0]) + 0.8 * x[1] ** 2 - x[2] * x[3] + 0.5 * np.sin(3 * x[4]) + x[5:] @ w
    assert d.logit[i] == pytest.approx(l, rel=1e-14)


def test_p5_has_no_extra_weights_and_labels_follow_recipe():
    d = S.make_design(n=50, p=5)
    assert d.w.size == 0
    y = S.draw_labels(d.logit, 2.0, 3, 1)
    r = np.random.default_rng([3, 1, 2026])
    xi = r.normal(0.0, 2.0, 50)
    assert np.array_equal(y, (r.random(50) < special.expit(d.logit + xi)).astype(int))


@pytest.mark.parametrize("bad", [dict(n=3), dict(p=4), dict(test_size=1.5)])
def test_design_validation(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        S.make_design(**bad)


def _quad_pi(l, s):
    """E_z[expit(l + s z)] by mpmath quadrature split at the logistic transition (reference)."""
    if s == 0:
        return float(special.expit(l))
    z0 = -l / s
    f = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi) / (1 + mpmath.exp(-(l + s * z)))
    pts = [z0 - 60 / s, z0 - 1 / s, z0, z0 + 1 / s, z0 + 60 / s, -12.0, -1.0, 0.0, 1.0, 12.0]
    pts = [-mpmath.inf] + sorted(set(float(t) for t in pts)) + [mpmath.inf]
    return float(mpmath.quad(f, pts))


@pytest.mark.parametrize("s", [0.0, 1e-3, 0.3, 1.0, 3.0, 10.0, 100.0, 1e3, 1e5])
def test_bayes_posterior_against_mpmath(s):
    # tolerance 1e-9 absolute: the Hermite rule (s <= 1) and the logistic-form trapezoid (s > 1)
    # are both spectrally accurate; see the docstring
    ls = np.array([-2.7, -0.4, 0.0, 0.9, 3.3])
    got = S.bayes_posterior(ls, s)
    ref = np.array([_quad_pi(l, s) for l in ls])
    assert np.max(np.abs(got - ref)) < 1e-9


def test_hermite_rule_is_inaccurate_at_sigma_10():
    # documents the deviation from §P6: K = 64 Hermite misses by ~1e-3 at sigma = 10
    err = abs(S.bayes_posterior(np.array([0.7]), 10.0, method="hermite")[0] - _quad_pi(0.7, 10.0))
    assert err > 1e-4


def test_probit_and_bayes_accuracy():
    d = S.make_design()
    lte = d.logit[d.test]
    for s in (0.5, 2.0, 20.0):
        # the probit approximation of the logistic-normal integral is good to ~1e-2
        assert np.max(np.abs(S.probit_posterior(lte, s) - S.bayes_posterior(lte, s))) < 0.02
    # sigma -> 0: Bayes accuracy = mean max(expit(l), 1 - expit(l))
    ref = np.mean(np.maximum(special.expit(lte), 1 - special.expit(lte)))
    assert S.bayes_accuracy(lte, 0.0) == pytest.approx(ref, abs=1e-14)
    assert S.bayes_accuracy(lte, 1e5) == pytest.approx(0.5, abs=1e-4)
    assert S.test_se(0.75, 120) == pytest.approx(np.sqrt(0.75 * 0.25 / 120))


# ------------------------------------------------------------------------------------ metrics

def _random_case(seed, n=200):
    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.4).astype(int)
    p = np.clip(0.6 * y + 0.5 * r.random(n) - 0.05, 0, 1)
    return y, p


@pytest.mark.parametrize("seed", range(4))
def test_metrics_match_sklearn(seed):
    y, p = _random_case(seed)
    yhat = (p >= 0.5).astype(int)
    m = S.classification_metrics(y, p)
    assert m["acc"] == pytest.approx(skm.accuracy_score(y, yhat), abs=1e-14)
    assert m["f1"] == pytest.approx(skm.f1_score(y, yhat, zero_division=0), abs=1e-14)
    for avg in ("micro", "macro", "weighted"):
        assert m[f"f1_{avg}"] == pytest.approx(skm.f1_score(y, yhat, average=avg, zero_division=0), abs=1e-14)
    assert m["mcc"] == pytest.approx(skm.matthews_corrcoef(y, yhat), abs=1e-12)
    assert m["balacc"] == pytest.approx(skm.balanced_accuracy_score(y, yhat), abs=1e-14)
    assert m["log_loss"] == pytest.approx(skm.log_loss(y, p), rel=1e-10)
    assert m["brier"] == pytest.approx(skm.brier_score_loss(y, p), abs=1e-14)
    assert m["brier_multiclass"] == pytest.approx(2 * m["brier"], abs=1e-14)
    assert m["roc_auc"] == pytest.approx(skm.roc_auc_score(y, p))


def _ece_loop(y, p, M, variant):
    conf = np.maximum(p, 1 - p) if variant == "top" else p
    hit = ((p >= 0.5).astype(int) == y) if variant == "top" else (y == 1)
    tot = 0.0
    for b in range(M):
        lo, hi = b / M, (b + 1) / M
        inb = (conf > lo) & (conf <= hi) if b > 0 else (conf >= lo) & (conf <= hi)
        if inb.any():
            tot += inb.sum() / y.size * abs(hit[inb].mean() - conf[inb].mean())
    return tot


@pytest.mark.parametrize("variant", ["top", "positive"])
@pytest.mark.parametrize("M", [10, 15])
def test_ece_against_loop_and_sqrt_brier_bound(variant, M):
    y, p = _random_case(7)
    p[:5] = [0.0, 1.0, 0.5, 1 / 15, 2 / 15]          # bin edges exercise (lo, hi] membership
    e = S.expected_calibration_error(y, p, M, variant)
    assert e == pytest.approx(_ece_loop(y, p, M, variant), abs=1e-14)
    assert e <= np.sqrt(S.brier_score(y, p)) + 1e-15          # the identity the C7 check uses
    c, a, cnt = S.reliability(y, p, M, variant)
    assert cnt.sum() == y.size


def test_metric_validation():
    with pytest.raises(ValueError, match="p must"):
        S.log_loss([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="convention"):
        S.brier_score([0, 1], [0.2, 0.5], "ternary")
    with pytest.raises(ValueError, match="n_bins"):
        S.expected_calibration_error([0, 1], [0.2, 0.5], 0)


# ------------------------------------------------------------------------------------ forensics

def test_accuracy_denominator_exact_fractions():
    # 0.8050 at n = 1821: the nearest k/n are 1465/1821 and 1466/1821, neither within 5e-5
    near = [Fraction(k, 1821) for k in (1465, 1466)]
    assert all(abs(f - Fraction(8050, 10000)) > Fraction(5, 100000) for f in near)
    assert not S.accuracy_denominator_ok(0.8050, 1821)
    assert abs(Fraction(702, 872) - Fraction(8050, 10000)) <= Fraction(5, 100000)
    assert S.accuracy_denominator_ok(0.8050, 872)


def test_enumeration_equals_brute_force():
    n = 40
    tp, fp, fn, tn = 14, 5, 6, 15
    m = {k: round(float(v), 4) for k, v in S.metrics_from_confusion(tp, fp, fn, tn).items()}
    e = S.enumerate_confusions(n, m["acc"], m["balacc"], m["f1_macro"], m["f1_weighted"], m["mcc"], max_keep=100)
    brute = []
    for P in range(1, n):
        for TP in range(P + 1):
            for TN in range(n - P + 1):
                c = (TP, n - P - TN, P - TP, TN)
                mm = S.metrics_from_confusion(*c)
                if all(abs(float(mm[k]) - m[k]) <= 5e-5 + 1e-12
                       for k in ("acc", "balacc", "f1_macro", "f1_weighted", "mcc")):
                    brute.append(list(c))
    assert e["complete"] and sorted(e["matches"]) == sorted(brute)
    assert [tp, fp, fn, tn] in e["matches"]


# ------------------------------------------------------------------------------------ Sinha-Duchi

@pytest.mark.parametrize("seed", range(3))
def test_project_simplex_kkt(seed):
    v = np.random.default_rng(seed).normal(size=25) * 3
    q = S.project_simplex(v)
    theta = optimize.brentq(lambda t: np.maximum(v - t, 0).sum() - 1, v.min() - 2, v.max())
    assert np.allclose(q, np.maximum(v - theta, 0), atol=1e-12) and abs(q.sum() - 1) < 1e-12


def test_sinha_duchi_weights_optimal_and_feasible():
    r = np.random.default_rng(3)
    v = r.random(30) ** 3 * 50
    rho = 0.3 * 30
    q, lam, info = S.sinha_duchi_weights(v, rho)
    u = np.full(30, 1 / 30)
    assert np.sum((q - u) ** 2) <= rho / 30 * (1 + 1e-9) and abs(q.sum() - 1) < 1e-12 and q.min() >= 0
    cons = [{"type": "eq", "fun": lambda x: x.sum() - 1},
            {"type": "ineq", "fun": lambda x: rho / 30 - np.sum((x - u) ** 2)}]
    best = optimize.minimize(lambda x: -v @ x, u, constraints=cons, bounds=[(0, 1)] * 30, method="SLSQP",
                             options={"ftol": 1e-14, "maxiter": 1000})
    assert v @ q >= -best.fun - 1e-6 * abs(best.fun)


def test_sinha_duchi_weights_large_multiplier_terminates():
    # scores this large need lam ~ 1e7, where lam's float64 ulp (~2e-9) exceeds the former absolute
    # width tol * lam_start = 1e-10: the old bisection never stopped.  The width is now relative.
    import signal

    r = np.random.default_rng(5)
    Nw = 2000
    v = r.standard_normal(Nw) * 1e6
    rho = 0.005 * Nw

    def _alarm(*_):
        raise TimeoutError("sinha_duchi_weights did not terminate")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        q, lam, info = S.sinha_duchi_weights(v, rho)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert lam > 4.5e5 and info["bisections"] <= 200
    u = np.full(Nw, 1 / Nw)
    assert np.sum((q - u) ** 2) <= rho / Nw and abs(q.sum() - 1) < 1e-12 and q.min() >= 0
    # lam is the smallest feasible multiplier to relative precision tol: lam (1 - 1e-9) is infeasible
    assert np.sum((S.project_simplex(u + v / (lam * (1 - 1e-9))) - u) ** 2) > rho / Nw


# ------------------------------------------------------------------------------------ baselines

def _easy(n=160, seed=0):
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X[:120], y[:120], X[120:], y[120:]


@pytest.mark.parametrize("name", ["logistic", "rbf_svm", "rff", "mkl", "sinha_duchi"])
def test_baselines_learn_a_linear_rule(name):
    Xtr, ytr, Xte, yte = _easy()
    kw = {"N_w": 500} if name == "sinha_duchi" else {}
    fit = S.METHODS[name](Xtr, ytr, Xte, 1, **kw)
    # a linearly separable 3-d rule: every method should exceed 80% on 40 test points
    assert np.mean(fit.pred == yte) > 0.8 and fit.seconds > 0
    assert np.array_equal(fit.pred, (fit.score > 0).astype(int))


def test_baseline_validation_and_single_class():
    Xtr, ytr, Xte, _ = _easy()
    with pytest.raises(ValueError, match="ytr"):
        S.fit_logistic(Xtr, ytr[:-1], Xte)
    with pytest.raises(ValueError, match="Xte"):
        S.fit_rbf_svm(Xtr, ytr, Xte[:, :2])
    with pytest.raises(ValueError, match="select"):
        S.fit_sinha_duchi(Xtr, ytr, Xte, 0, select="best")
    fit = S.fit_rff_svm(Xtr, np.ones(120, int), Xte, 0)
    assert np.all(fit.pred == 1)


def test_printed_rff_gradient_equals_hamiltonian():
    r = np.random.default_rng(5)
    X, y = r.standard_normal((40, 4)), np.sign(r.standard_normal(40))
    Om, b = r.standard_normal((12, 4)), r.uniform(0, 6, 12)
    H = Hamiltonian(X, y, feature="rff", learn_phase=True, lam=0.5, interaction=("none", 0.0, 0.0), backend="numpy")
    F = S._PrintedRFF(X, y, feature="rff", learn_phase=True, lam=0.5, interaction=("none", 0.0, 0.0), backend="numpy")
    (a, ab), (c, cb) = H.drift(Om, b), F.drift(Om, b)
    # float64; the two routes differ only by summation order
    assert np.allclose(a, c, rtol=1e-12, atol=1e-14) and np.allclose(ab, cb, rtol=1e-12, atol=1e-14)


def test_langevin_fit_deterministic_and_in_ball():
    d = S.make_design(n=120)
    y = S.draw_labels(d.logit, 0.1, 0, 0)
    args = (d.X[d.train], y[d.train], d.X[d.test], 4)
    f1 = S.fit_langevin(*args, N=40, D=20, T_max=5, backend="numpy")
    f2 = S.fit_langevin(*args, N=40, D=20, T_max=5, backend="numpy")
    assert np.array_equal(f1.pred, f2.pred) and f1.info["steps"] == 5
    assert f1.info["mean_norm"] <= 5.0 + 1e-12
    with pytest.raises(ValueError, match="D must"):
        S.fit_langevin(*args, N=10, D=20)


# ------------------------------------------------------------------------------------ drivers

def test_run_study_tiny():
    res = S.run_study(("logistic", "rff"), sigmas=[0.01, 100.0], n_trials=2)
    assert res.acc["rff"].shape == (2, 2)
    d = S.make_design()
    assert res.bayes[1] == pytest.approx(S.bayes_accuracy(d.logit[d.test], 100.0))
    # recompute one cell by hand
    y = S.draw_labels(d.logit, 0.01, 0, 1)
    fit = S.fit_logistic(d.X[d.train], y[d.train], d.X[d.test])
    assert res.acc["logistic"][0, 1] == pytest.approx(np.mean(fit.pred == y[d.test]))
    with pytest.raises(ValueError, match="unknown method"):
        S.run_study(("nope",), sigmas=[1.0], n_trials=1)


def test_power_law_fit_and_paired_difference():
    n = np.array([100, 200, 400, 800, 1600.0])
    f = S.fit_power_law(n, 2e-3 * n ** 1.5)
    assert f["gamma"] == pytest.approx(1.5, abs=1e-12) and f["c"] == pytest.approx(2e-3, rel=1e-10)
    assert f["sigma_log"] < 1e-12
    r = np.random.default_rng(0)
    a, b = r.normal(0.7, 0.05, 12), r.normal(0.68, 0.05, 12)
    pd = S.paired_difference(a, b)
    t = stats.ttest_rel(a, b).confidence_interval(0.95)
    assert pd["lo"] == pytest.approx(t.low, rel=1e-10) and pd["hi"] == pytest.approx(t.high, rel=1e-10)
