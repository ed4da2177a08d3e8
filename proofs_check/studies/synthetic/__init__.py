"""The synthetic classification study of 004 App F.1 (algorithms.md §P6-P8), for the ledger
(``proofs_check/checks/particles/synthetic.py``) and the figures (``fig_particles_synthetic_*``).

Modules, by content:

``data``         the fixed design, the logit, per-job labels and seeds, Bayes posterior/accuracy
                 (§P6, 004 App F.1.1/F.1.5)
``classifiers``  the baselines and the particle method, each returning a :class:`Fit` (§P7)
``metrics``      confusion-matrix metrics, calibration, and the table forensics (§P8)
``study``        the drivers: :func:`run_study`, :func:`runtime_scaling`, :func:`summarize`,
                 :func:`paired_difference`, :func:`fit_power_law`

Data: with one generator ``rng = default_rng(42)`` drawn in the order X, then w::

    X ~ N(0, 1)^{n x p}  (n = 400, p >= 5, default 10),   w ~ N(0, 0.3^2 I_{p-5})  (p > 5)
    l(x) = 1.5 sin(pi x1) + 0.8 x2^2 - x3 x4 + 0.5 sin(3 x5) + x_{6:p} . w
    train/test = train_test_split(arange(n), test_size=0.3, random_state=0)      (280 / 120)

and, per job (sigma index si, trial t), ``r = default_rng([si, t, 2026])`` (toolkit convention;
004 only says "derived deterministically"): xi = r.normal(0, sigma, n), then
y = 1{r.random(n) < expit(l + xi)}.  Method randomness uses ``default_rng([si, t, 2026, code])``
with a fixed per-method ``code`` (:data:`METHOD_CODES`).

Bayes accuracy: the label law given x is P(y=1|x) = pi(x) = E_z[expit(l(x) + sigma z)],
z ~ N(0,1), evaluated by Gauss-Hermite (probabilists', K = 64) for sigma <= 1 and through the
identity E_L[Phi((l + L)/sigma)] (L logistic, trapezoidal rule) beyond -- a deviation from §P6,
whose K = 64 Hermite rule is off by ~3e-3 at sigma = 10 and whose K = 400 rule overflows in
numpy; absolute error < 1e-9 for all sigma (see the tests) -- with the probit approximation
expit(l / sqrt(1 + pi sigma^2/8)) beside it; pi > 1/2 iff l > 0, so acc_Bayes = mean max(pi, 1-pi).

``python -m proofs_check.studies.synthetic --full`` runs the paper's sizes (needs scikit-learn,
like the whole study).
"""
from .classifiers import _PrintedRFF  # noqa: F401  (the tests compare its field gradient)
from .classifiers import (METHOD_CODES, METHODS, Fit, centred_alignment,
                          fit_langevin, fit_logistic, fit_mkl_svm, fit_rbf_svm, fit_rff_svm,
                          fit_sinha_duchi, project_simplex, rff_map, sinha_duchi_variants,
                          sinha_duchi_weights, SD_SELECTIONS, SVC_LOSSES)
from .data import (PAPER, SyntheticData, bayes_accuracy, bayes_posterior, draw_labels, job_rng,
                   logit_function, make_design, probit_posterior, sigma_grid, test_se)
from .metrics import (accuracy_denominator_ok, brier_score, classification_metrics,
                      confusion_counts, enumerate_confusions, expected_calibration_error,
                      log_loss, metrics_from_confusion, reliability)
from .study import (StudyResult, fit_power_law, paired_difference, run_sinha_duchi_variants, run_study,
                    runtime_scaling, summarize)

__all__ = [
    "SyntheticData", "make_design", "logit_function", "draw_labels", "sigma_grid", "job_rng",
    "bayes_posterior", "probit_posterior", "bayes_accuracy", "test_se",
    "Fit", "fit_logistic", "fit_rbf_svm", "fit_rff_svm", "rff_map", "fit_mkl_svm",
    "centred_alignment", "project_simplex", "sinha_duchi_weights", "fit_sinha_duchi",
    "sinha_duchi_variants", "SD_SELECTIONS", "SVC_LOSSES", "run_sinha_duchi_variants",
    "fit_langevin", "METHODS", "METHOD_CODES", "metrics_from_confusion", "confusion_counts",
    "classification_metrics", "expected_calibration_error", "reliability", "brier_score",
    "log_loss", "accuracy_denominator_ok", "enumerate_confusions", "StudyResult", "run_study",
    "summarize", "paired_difference", "runtime_scaling", "fit_power_law", "PAPER",
]
