"""The statistics the checks use.

The general ones are the library's (:mod:`yatmath.stats`, one definition for the library, the
ledger, the figures and the benchmarks), re-exported here:

* :func:`loglog_fit`   fitted exponent of y ~ C x^p with a bootstrap confidence interval
* :func:`mean_ci`      mean and Student-t confidence interval of replicates
* :func:`binom_ci`     Clopper-Pearson interval of a proportion
* :func:`rel_err`      relative error with the norm named (``norm="max"``, the default, or ``"fro"``)

and one of the ledger's own:

* :func:`psd_report`   lambda_min / lambda_max and numerical rank of a symmetric matrix, with the
                       PSD rule of claims.md ("lambda_min >= -1e-12 lambda_max", relative)

Every interval is returned with its level, so the check records it as the ``Threshold`` of
kind "statistical" that decides a verdict.
"""
from __future__ import annotations

import numpy as np

from yatmath.stats import LEVEL, Fit, binom_ci, loglog_fit, loglog_slope, mean_ci, rel_err

__all__ = ["LEVEL", "PSD_RTOL", "Fit", "binom_ci", "loglog_fit", "loglog_slope", "mean_ci",
           "psd_report", "rel_err"]

PSD_RTOL = 1e-12             # claims.md General rules: lambda_min >= -1e-12 lambda_max


def psd_report(G) -> dict:
    """Spectrum summary of the symmetric part of ``G``.

    Returns ``{"lambda_min", "lambda_max", "ratio", "rank", "psd"}``: ``ratio`` =
    lambda_min / max|lambda| (1.0 for the zero matrix), ``rank`` the number of eigenvalues above
    ``PSD_RTOL`` max|lambda|, ``psd`` whether ratio >= -PSD_RTOL (claims.md's rule).
    """
    G = np.asarray(G, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square matrix, got shape {G.shape}")
    lam = np.linalg.eigvalsh(0.5 * (G + G.T))
    lmax = float(np.max(np.abs(lam))) if lam.size else 0.0
    ratio = 1.0 if lmax == 0.0 else float(lam[0] / lmax)
    return {"lambda_min": float(lam[0]) if lam.size else 0.0, "lambda_max": float(lam[-1]) if lam.size else 0.0,
            "ratio": ratio, "rank": int(np.sum(lam > PSD_RTOL * lmax)), "psd": ratio >= -PSD_RTOL}
