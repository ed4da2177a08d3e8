"""The metrics of the 004 App F.1 synthetic study (algorithms.md §P8) and the table forensics.

:func:`metrics_from_confusion` (Acc, F1 binary/micro/macro/weighted, MCC, BalAcc, vectorised
over arrays of counts: the one definition, used by the forensics too),
:func:`classification_metrics`, :func:`expected_calibration_error`, :func:`reliability`,
:func:`brier_score`, :func:`log_loss`.  Table forensics: :func:`accuracy_denominator_ok`,
:func:`enumerate_confusions`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from yatmath.arguments import as_float_array, check_choice

from ._args import posint as _posint

# =============================================================================== metrics (§P8)

def confusion_counts(y: npt.ArrayLike, yhat: npt.ArrayLike) -> tuple[int, int, int, int]:
    """(TP, FP, FN, TN) for 0/1 labels and predictions (positive class 1)."""
    y, yhat = np.asarray(y).astype(int), np.asarray(yhat).astype(int)
    if y.shape != yhat.shape or y.ndim != 1:
        raise ValueError(f"y and yhat must be 1-D of equal length, got {y.shape} and {yhat.shape}")
    tp = int(np.sum((y == 1) & (yhat == 1)))
    fp = int(np.sum((y == 0) & (yhat == 1)))
    fn = int(np.sum((y == 1) & (yhat == 0)))
    return tp, fp, fn, int(y.size - tp - fp - fn)


def _div(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), 0.0)


def metrics_from_confusion(TP: npt.ArrayLike, FP: npt.ArrayLike, FN: npt.ArrayLike,
                           TN: npt.ArrayLike) -> dict[str, Any]:
    """Acc, F1 (binary, micro, macro, weighted), MCC, BalAcc, TPR, TNR from the counts
    (broadcast over arrays).  Zero-division conventions: F1 and rates 0 (sklearn
    ``zero_division=0``), MCC 0 if its denominator is 0; BalAcc averages the rates of the
    classes present (sklearn)."""
    TP, FP, FN, TN = (np.asarray(v, dtype=np.float64) for v in (TP, FP, FN, TN))
    n = TP + FP + FN + TN
    P, Nn = TP + FN, TN + FP
    acc = _div(TP + TN, n)
    f1p = _div(2 * TP, 2 * TP + FP + FN)
    f1n = _div(2 * TN, 2 * TN + FN + FP)
    tpr, tnr = _div(TP, P), _div(TN, Nn)
    present = (P > 0).astype(float) + (Nn > 0).astype(float)
    den = np.sqrt(np.maximum((TP + FP) * P * Nn * (TN + FN), 0.0))
    return {"acc": acc, "f1": f1p, "f1_micro": acc, "f1_macro": 0.5 * (f1p + f1n),
            "f1_weighted": _div(P * f1p + Nn * f1n, n),
            "mcc": _div(TP * TN - FP * FN, den),
            "balacc": _div(tpr * (P > 0) + tnr * (Nn > 0), present), "tpr": tpr, "tnr": tnr}


def _check_prob(y, p):
    y = np.asarray(y)
    p = as_float_array(p, "p", ndim=1).astype(np.float64)
    if y.shape != p.shape:
        raise ValueError(f"y and p must have the same shape, got {y.shape} and {p.shape}")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("y must hold 0/1 labels")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must lie in [0, 1]")
    return y.astype(int), p


def log_loss(y: npt.ArrayLike, p: npt.ArrayLike, clip: float = 1e-15) -> float:
    """-mean[y ln p + (1-y) ln(1-p)], p clipped to [clip, 1 - clip]."""
    y, p = _check_prob(y, p)
    p = np.clip(p, clip, 1.0 - clip)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)))


def brier_score(y: npt.ArrayLike, p: npt.ArrayLike, convention: str = "binary") -> float:
    """"binary": mean (p - y)^2; "multiclass": mean sum_c (p_c - 1{y=c})^2 (= 2x binary)."""
    check_choice(convention, "convention", ("binary", "multiclass"))
    y, p = _check_prob(y, p)
    b = float(np.mean((p - y) ** 2))
    return b if convention == "binary" else 2.0 * b


def _bins(conf, n_bins):
    n_bins = _posint(n_bins, "n_bins")
    # (lo, hi] membership with the first bin closed: bin index ceil(c M) - 1, clipped at 0
    return np.clip(np.ceil(conf * n_bins).astype(int) - 1, 0, n_bins - 1), n_bins


def reliability(y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 15, variant: str = "top"
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                           npt.NDArray[np.int_]]:
    """Per-bin (conf, acc, count) over M equal-width bins on [0, 1] ((lo, hi], first closed).
    variant "top": conf = max(p, 1-p), acc = 1{yhat = y}; "positive": conf = p, acc = 1{y = 1}."""
    check_choice(variant, "variant", ("top", "positive"))
    y, p = _check_prob(y, p)
    if variant == "top":
        conf, hit = np.maximum(p, 1.0 - p), ((p >= 0.5).astype(int) == y).astype(float)
    else:
        conf, hit = p, y.astype(float)
    b, M = _bins(conf, n_bins)
    cnt = np.bincount(b, minlength=M).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.bincount(b, conf, M) / cnt
        a = np.bincount(b, hit, M) / cnt
    return c, a, cnt


def expected_calibration_error(y: npt.ArrayLike, p: npt.ArrayLike, n_bins: int = 15,
                               variant: str = "top") -> float:
    """ECE = sum_b (|B_b|/n) |acc(B_b) - conf(B_b)| (see :func:`reliability`)."""
    c, a, cnt = reliability(y, p, n_bins, variant)
    m = cnt > 0
    return float(np.sum(cnt[m] / cnt.sum() * np.abs(a[m] - c[m])))


def classification_metrics(y: npt.ArrayLike, p: npt.ArrayLike | None = None, *,
                           yhat: npt.ArrayLike | None = None, score: npt.ArrayLike | None = None,
                           n_bins: int = 15) -> dict[str, Any]:
    """All §P8 metrics of one prediction.  ``p`` = P(y=1) (probabilistic metrics too), else
    ``yhat`` (and optionally ``score`` for ROC/PR-AUC)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.asarray(y).astype(int)
    if p is not None:
        y, p = _check_prob(y, p)
        yhat = (p >= 0.5).astype(int)
        score = p
    elif yhat is None:
        raise ValueError("give p (probabilities) or yhat (predictions)")
    out = {k: float(v) for k, v in metrics_from_confusion(*confusion_counts(y, yhat)).items()}
    if score is not None and np.unique(y).size == 2:
        out["roc_auc"] = float(roc_auc_score(y, score))
        out["pr_auc"] = float(average_precision_score(y, score))
    if p is not None:
        out.update(log_loss=log_loss(y, p), brier=brier_score(y, p),
                   brier_multiclass=brier_score(y, p, "multiclass"),
                   ece=expected_calibration_error(y, p, n_bins),
                   ece_10=expected_calibration_error(y, p, 10),
                   ece_positive=expected_calibration_error(y, p, n_bins, "positive"))
    return out


# =============================================================================== forensics (§P8)

def accuracy_denominator_ok(a: float, n: int, decimals: int = 4) -> bool:
    """|a - round(a n)/n| <= half a unit of the last printed digit (5e-5 at 4 d.p.)."""
    n = _posint(n, "n")
    return bool(abs(a - round(a * n) / n) <= 0.5 * 10.0 ** (-decimals) + 1e-12)


def enumerate_confusions(n: int, acc: float, balacc: float, f1_macro: float | None = None,
                         f1_weighted: float | None = None, mcc: float | None = None, *,
                         decimals: int = 4, max_keep: int = 20,
                         max_candidates: int = 200_000_000,
                         stop_after: int | None = None) -> dict[str, Any]:
    """Integer confusion matrices (TP, FP, FN, TN) with TP+FP+FN+TN = n whose metrics round to
    the printed ones (|m - printed| <= 5e-5 + 1e-12 at 4 d.p.).

    For each number of positives P, Acc fixes TP + TN = k (k over the integers with
    |k/n - acc| <= 5e-5) and BalAcc bounds TP to an interval (linear in TP for fixed P, k); the
    integers in it are checked against the other given metrics.  Exhaustive: the count of
    candidates examined is returned; ``max_candidates`` stops (``complete=False``) before an
    infeasible budget.  Returns {"matches": [...], "n_matches", "candidates", "complete"}.
    """
    n = _posint(n, "n")
    h = 0.5 * 10.0 ** (-decimals) + 1e-12
    ks = np.arange(int(np.ceil((acc - h) * n)), int(np.floor((acc + h) * n)) + 1)
    ks = ks[(ks >= 0) & (ks <= n)]
    targets = {"f1_macro": f1_macro, "f1_weighted": f1_weighted, "mcc": mcc}
    matches: list[Any]
    matches, total, nm, complete = [], 0, 0, True
    Ps = np.arange(1, n)
    for k in ks:
        Nn = n - Ps
        # BalAcc = (TP/P + (k - TP)/Nn)/2 in [b-h, b+h]
        #   <=>  TP (1/P - 1/Nn) in [2(b-h) - k/Nn, 2(b+h) - k/Nn]
        a = 1.0 / Ps - 1.0 / Nn
        lo_r, hi_r = 2 * (balacc - h) - k / Nn, 2 * (balacc + h) - k / Nn
        with np.errstate(divide="ignore", invalid="ignore"):
            t1, t2 = lo_r / a, hi_r / a
        tlo = np.where(a > 0, t1, np.where(a < 0, t2, -np.inf))
        thi = np.where(a > 0, t2, np.where(a < 0, t1, np.inf))
        zero_ok = (a == 0) & (lo_r <= 0) & (hi_r >= 0)
        tlo = np.where((a == 0) & ~zero_ok, np.inf, tlo)
        with np.errstate(invalid="ignore"):
            lo = np.maximum(np.ceil(tlo - 1e-9), np.maximum(0, k - Nn))
            hi = np.minimum(np.floor(thi + 1e-9), np.minimum(Ps, k))
        lo = np.clip(np.nan_to_num(lo, nan=n + 1.0), -1, n + 1).astype(np.int64)
        hi = np.clip(np.nan_to_num(hi, nan=-1.0), -1, n + 1).astype(np.int64)
        cnt = np.maximum(hi - lo + 1, 0)
        if total + cnt.sum() > max_candidates or (stop_after is not None and nm >= stop_after):
            complete = False
            break
        total += int(cnt.sum())
        sel_all = np.nonzero(cnt)[0]
        csum = np.cumsum(cnt[sel_all])
        start_i = 0
        while start_i < sel_all.size:          # chunks of <= ~4M candidates
            stop_i = int(np.searchsorted(csum, (csum[start_i] - cnt[sel_all[start_i]]) + 4_000_000,
                                         side="right"))
            stop_i = max(stop_i, start_i + 1)
            sel = sel_all[start_i:stop_i]
            start_i = stop_i
            rep = cnt[sel]
            P_c = np.repeat(Ps[sel], rep)
            start = np.repeat(lo[sel], rep)
            offs = np.arange(rep.sum()) - np.repeat(np.cumsum(rep) - rep, rep)
            TP = start + offs
            TN = k - TP
            FN, FP = P_c - TP, (n - P_c) - TN
            m = metrics_from_confusion(TP, FP, FN, TN)
            ok = np.abs(m["acc"] - acc) <= h
            ok &= np.abs(m["balacc"] - balacc) <= h
            for key, v in targets.items():
                if v is not None:
                    ok &= np.abs(m[key] - v) <= h
            idx = np.nonzero(ok)[0]
            nm += idx.size
            for i in idx[:max(0, max_keep - len(matches))]:
                matches.append([int(TP[i]), int(FP[i]), int(FN[i]), int(TN[i])])
    return {"matches": matches, "n_matches": int(nm), "candidates": int(total),
            "complete": complete, "accuracy_numerators": ks.tolist()}
