"""The drivers of the 004 App F.1 synthetic study: :func:`run_study` (accuracy/F1 against sigma,
with sizes as arguments so tests run tiny versions), :func:`summarize`,
:func:`paired_difference`, :func:`runtime_scaling`, :func:`fit_power_law`.
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy import stats

from yatmath.arguments import as_float_array, as_rng
from yatmath.stats import loglog_fit, t_halfwidth

from ._args import posint as _posint
from .classifiers import _SIZE_KEYS, METHODS, fit_rff_svm, sinha_duchi_variants
from .data import bayes_accuracy, draw_labels, job_rng, make_design, sigma_grid
from .metrics import confusion_counts, metrics_from_confusion

# =============================================================================== study drivers

@dataclass
class StudyResult:
    """acc/f1/seconds[method] (n_sigmas, n_trials); bayes (n_sigmas,); params."""

    sigmas: np.ndarray
    acc: dict
    f1: dict
    seconds: dict
    bayes: np.ndarray
    bayes_probit: np.ndarray
    params: dict


def _call(name, fn, Xtr, ytr, Xte, rng, options):
    keys = _SIZE_KEYS.get(name, ())
    kw = {k: v for k, v in options.items() if k in keys}
    return fn(Xtr, ytr, Xte, rng, **kw)


def run_study(methods: Sequence[str] = ("logistic", "rbf_svm", "rff", "sinha_duchi", "langevin",
                                        "langevin_robust"), *, n_sigmas: int = 11,
              sigmas: npt.ArrayLike | None = None, n_trials: int = 10, n: int = 400, p: int = 10,
              options: dict[str, Any] | None = None,
              method_options: dict[str, dict[str, Any]] | None = None,
              progress: Callable[..., Any] | None = None) -> StudyResult:
    """Accuracy and binary F1 on the test split for every (method, sigma, trial) (§P6-P8).

    ``options`` (sizes shared by all methods that take them: D, N, T_max, N_w, gamma, ...) and
    ``method_options[name]`` (per method) are passed through; every value is recorded."""
    options = dict(options or {})
    method_options = dict(method_options or {})
    funcs = {}
    for m in methods:
        if m not in METHODS and m not in method_options:
            raise ValueError(f"unknown method {m!r}; choose from {sorted(METHODS)}")
        funcs[m] = METHODS[method_options.get(m, {}).get("base", m)]
    data = make_design(n=n, p=p)
    sig = sigma_grid(n_sigmas) if sigmas is None else np.asarray(sigmas, dtype=np.float64)
    n_trials = _posint(n_trials, "n_trials")
    shape = (sig.size, n_trials)
    acc = {m: np.zeros(shape) for m in methods}
    f1 = {m: np.zeros(shape) for m in methods}
    secs = {m: np.zeros(shape) for m in methods}
    Xtr, Xte = data.X[data.train], data.X[data.test]
    for si, s in enumerate(sig):
        for t in range(n_trials):
            y = draw_labels(data.logit, s, si, t)
            ytr, yte = y[data.train], y[data.test]
            for m in methods:
                mo = {k: v for k, v in method_options.get(m, {}).items() if k != "base"}
                base = method_options.get(m, {}).get("base", m)
                code = zlib.crc32(m.encode())
                fit = _call(base, funcs[m], Xtr, ytr, Xte, job_rng(si, t, code), {**options, **mo})
                mt = metrics_from_confusion(*confusion_counts(yte, fit.pred))
                acc[m][si, t], f1[m][si, t], secs[m][si, t] = mt["acc"], mt["f1"], fit.seconds
            if progress is not None:
                progress(si, t)
    lte = data.logit[data.test]
    bayes = np.array([bayes_accuracy(lte, s) for s in sig])
    probit = np.array([bayes_accuracy(lte, s, "probit") for s in sig])
    params = {**data.params, "sigmas": sig.tolist(), "n_trials": n_trials,
              "methods": list(methods), "options": {k: (list(v) if isinstance(v, tuple) else v)
                                                    for k, v in options.items()},
              "method_options": method_options, "job_seed": "default_rng([si, trial, 2026])",
              "method_seed": "default_rng([si, trial, 2026, crc32(name)])",
              "n_train": int(data.train.size), "n_test": int(data.test.size)}
    return StudyResult(sig, acc, f1, secs, bayes, probit, params)


def run_sinha_duchi_variants(variants: Sequence[tuple[str, str]], *, n_sigmas: int = 11,
                             sigmas: npt.ArrayLike | None = None, n_trials: int = 10, n: int = 400, p: int = 10,
                             rff_losses: Sequence[str] = ("hinge",), N_w: int = 10_000, rho_frac: float = 0.005,
                             D: int = 200, gamma: float = 0.5) -> StudyResult:
    """RFF and several Sinha-Duchi implementations (``classifiers.sinha_duchi_variants``) on the cells of
    :func:`run_study`: per (sigma, trial) the same labels and method seeds as ``run_study(("rff",
    "sinha_duchi"))``, so the RFF column "rff" (hinge loss) and the first variant equal that run's "rff" and
    "sinha_duchi" when the first variant is ("stratified", "hinge") and NumPy's global RNG starts in the same
    state (each of those two fits draws one liblinear seed from it, in that order).  Further RFF losses
    (``rff_losses`` beyond "hinge", column ``"rff_" + loss``) reuse the RFF features with ``random_state=0``.
    Sinha-Duchi columns are named ``"sinha_duchi[select,loss]"``."""
    variants = [tuple(v) for v in variants]
    data = make_design(n=n, p=p)
    sig = sigma_grid(n_sigmas) if sigmas is None else np.asarray(sigmas, dtype=np.float64)
    n_trials = _posint(n_trials, "n_trials")
    extra = [lo for lo in rff_losses if lo != "hinge"]
    names = (["rff"] + [f"rff_{lo}" for lo in extra] + [f"sinha_duchi[{a},{b}]" for a, b in variants])
    shape = (sig.size, n_trials)
    acc = {m: np.zeros(shape) for m in names}
    f1 = {m: np.zeros(shape) for m in names}
    secs = {m: np.zeros(shape) for m in names}
    info = {m: [] for m in names if m.startswith("sinha")}
    Xtr, Xte = data.X[data.train], data.X[data.test]
    c_rff, c_sd = zlib.crc32(b"rff"), zlib.crc32(b"sinha_duchi")
    kw = {"N_w": N_w, "rho_frac": rho_frac, "D": D, "gamma": gamma}
    for si, s in enumerate(sig):
        for t in range(n_trials):
            y = draw_labels(data.logit, s, si, t)
            ytr, yte = y[data.train], y[data.test]
            fits = {"rff": fit_rff_svm(Xtr, ytr, Xte, job_rng(si, t, c_rff), D=D, gamma=gamma)}
            for (a, b), fit in sinha_duchi_variants(Xtr, ytr, Xte, job_rng(si, t, c_sd), variants, **kw).items():
                fits[f"sinha_duchi[{a},{b}]"] = fit
            for lo in extra:
                fits[f"rff_{lo}"] = fit_rff_svm(Xtr, ytr, Xte, job_rng(si, t, c_rff), D=D, gamma=gamma, loss=lo,
                                                random_state=0)
            for m, fit in fits.items():
                mt = metrics_from_confusion(*confusion_counts(yte, fit.pred))
                acc[m][si, t], f1[m][si, t], secs[m][si, t] = mt["acc"], mt["f1"], fit.seconds
                if m in info:
                    info[m].append((fit.info.get("support"), fit.info.get("unique_selected")))
    lte = data.logit[data.test]
    bayes = np.array([bayes_accuracy(lte, s) for s in sig])
    probit = np.array([bayes_accuracy(lte, s, "probit") for s in sig])
    params = {**data.params, "sigmas": sig.tolist(), "n_trials": n_trials, "methods": names,
              "variants": [list(v) for v in variants], "rff_losses": list(rff_losses), "options": kw,
              "job_seed": "default_rng([si, trial, 2026])",
              "method_seed": "default_rng([si, trial, 2026, crc32(name)]) for name in ('rff', 'sinha_duchi')",
              "support_unique_selected": {m: {"support_min": int(min(v[0] for v in info[m])),
                                              "support_median": float(np.median([v[0] for v in info[m]])),
                                              "unique_selected_median": float(np.median([v[1] for v in info[m]]))}
                                          for m in info},
              "n_train": int(data.train.size), "n_test": int(data.test.size)}
    return StudyResult(sig, acc, f1, secs, bayes, probit, params)


def summarize(values: npt.ArrayLike, level: float = 0.95) -> tuple[Any, Any, Any, Any]:
    """Mean over the last axis with a t confidence interval: (mean, lo, hi, sd)."""
    v = np.asarray(values, dtype=np.float64)
    k = v.shape[-1]
    mean = v.mean(-1)
    sd = v.std(-1, ddof=1) if k > 1 else np.zeros_like(mean)
    half = t_halfwidth(sd, k, level)
    return mean, mean - half, mean + half, sd


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, level: float = 0.95) -> dict[str, Any]:
    """Paired differences a - b over all (sigma, trial) cells given: mean, t CI, Wilcoxon p
    (two-sided; 1.0 when all differences vanish), count."""
    d = (np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).ravel()
    k = d.size
    mean = float(d.mean())
    if k > 1 and np.std(d) > 0:
        half = float(t_halfwidth(d.std(ddof=1), k, level))
        pw = float(stats.wilcoxon(d).pvalue) if np.count_nonzero(d) > 0 else 1.0
    else:
        half, pw = (0.0 if k > 1 else np.inf), 1.0
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "wilcoxon_p": pw, "count": k}


def fit_power_law(n: npt.ArrayLike, t: npt.ArrayLike, *, n_boot: int = 1000,
                  rng: int | np.random.Generator = 0) -> dict[str, Any]:
    """Least squares of log t = log c + gamma log n: gamma, c, sigma_log (residual sd, ddof=2
    when >= 3 points), and a percentile-bootstrap 95% CI of gamma over resampled (n, t) points
    (``yatmath.stats.loglog_fit``: resamples with a single distinct n are drawn again)."""
    n = as_float_array(n, "n", ndim=1)
    t = as_float_array(t, "t", ndim=1)
    if n.shape != t.shape or n.size < 2:
        raise ValueError("n and t must be 1-D of equal length >= 2")
    if np.any(n <= 0) or np.any(t <= 0):
        raise ValueError("n and t must be > 0")
    if np.ptp(n) == 0:
        raise ValueError("n must hold at least two distinct values (a slope needs them)")
    n_boot = _posint(n_boot, "n_boot")
    fit = loglog_fit(n, t, as_rng(rng), n_boot=n_boot, level=0.95)
    res = np.log(t) - (fit.intercept + fit.slope * np.log(n))
    sig = float(np.sqrt(np.sum(res ** 2) / max(n.size - 2, 1)))
    return {"gamma": fit.slope, "c": float(np.exp(fit.intercept)), "sigma_log": sig,
            "gamma_ci": fit.ci, "n_obs": int(n.size)}


def runtime_scaling(methods: Sequence[str] = ("logistic", "rbf_svm", "rff", "sinha_duchi", "mkl",
                                              "langevin"), *,
                    ns: Sequence[int] = (100, 200, 400, 800), n_trials: int = 2,
                    sigma: float = 1.0, p: int = 10,
                    options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wall seconds (fit + predict, as ``Fit.seconds``) per method, n and trial at noise sigma
    (004 Fig.2: sigma^2 = 1, p = 10, D = 200), plus a power-law fit per method.  The design of
    size n uses the same seed-42 generator; the split is 70/30."""
    options = dict(options or {})
    times = {m: np.zeros((len(ns), n_trials)) for m in methods}
    for i, n in enumerate(ns):
        data = make_design(n=int(n), p=p)
        Xtr, Xte = data.X[data.train], data.X[data.test]
        for t in range(n_trials):
            y = draw_labels(data.logit, sigma, 0, t)
            for m in methods:
                fit = _call(m, METHODS[m], Xtr, y[data.train], Xte,
                            job_rng(0, t, zlib.crc32(m.encode())), options)
                times[m][i, t] = fit.seconds
    n_train = np.array([int(round(0.7 * n)) for n in ns], dtype=float)
    fits = {m: fit_power_law(np.repeat(np.asarray(ns, float), n_trials), times[m].ravel())
            for m in methods}
    return {"ns": list(ns), "n_train": n_train.tolist(), "times": times, "fits": fits,
            "params": {"sigma": sigma, "p": p, "n_trials": n_trials, "options": options}}
