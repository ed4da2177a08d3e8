"""Tests of the issue-4 figures (random features and estimators): assertions on the plotted data.

Reference quantities are recomputed here independently of the figure code (numpy SVD / eigh of
the plotted matrix, scipy quadrature for the integrand's variance).  Tolerances on fitted
slopes: each plotted error is a mean over independent draws whose relative sd is a few percent
(kernel errors: a Frobenius norm over n^2 entries, averaged over 4 draws; MC: an RMS over 12
runs, relative sd ~ 1/sqrt(24) ~ 0.2 in each point), and the slope is fitted over log F spanning
a factor 64, so the slope's sd is ~0.03 (kernels) and ~0.07 (MC): the tolerances below are
about 4 sd.  The data are seeded, so the tests are deterministic.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from scipy import integrate  # noqa: E402

from proofs_check.figures.registry import load_all  # noqa: E402

FIGS = load_all()
KERNEL = "features_kernel_error_vs_budget"
EST = "estimators_error_vs_budget"


@pytest.fixture(scope="module")
def kern():
    return FIGS[KERNEL].data(seed=0)


@pytest.fixture(scope="module")
def est():
    return FIGS[EST].data(seed=0)


@pytest.mark.slow
def test_registered_with_eps_and_seed(kern, est):
    for name, d in ((KERNEL, kern), (EST, est)):
        f = FIGS[name]
        assert f.reproduced and not f.substitute
        assert "eps" in d["params"] and d["params"]["seed"] == 0
        fig = Figure()
        f.draw(d, fig)
        assert len(fig.axes) == 3
        assert "eps" in fig._suptitle.get_text()


# ------------------------------------------------------------------ kernel error vs F

@pytest.mark.slow
def test_unbiased_maps_decay_like_F_to_minus_half(kern):
    for name in kern["unbiased"]:
        e = kern["errors"][name]
        assert np.all(np.diff(e) < 0), (name, e)
        # Kar-Karnick draws random degrees (heavy-tailed error): looser band for it
        tol = 0.2 if name == "yat maclaurin" else 0.12
        assert abs(kern["slopes"][name] + 0.5) <= tol, (name, kern["slopes"][name])


def test_renormalised_appd_maps_converge_to_their_limits(kern):
    for name, e in kern["errors"].items():
        if not name.startswith("appD"):
            continue
        if name == "appD softmaxfeat":
            # a ratio of means of log-normal weights: slow, noisy, but it must fall
            assert e[-1] < 0.6 * e[0], e
        else:
            # ratio estimators: bias O(1/F) is below the O(F^-1/2) noise at these F
            assert abs(kern["slopes"][name] + 0.5) <= 0.12, (name, kern["slopes"][name])
            assert e[-1] < 0.02, (name, e)


def test_series_beats_maclaurin_and_orf_not_worse_than_rff(kern):
    E = kern["errors"]
    assert np.all(E["yat series"] < E["yat maclaurin"])
    # the minimum-mean-square (biased) harmonic map is below the best unbiased one at every F
    assert "yat harmonic" not in kern["unbiased"]
    assert np.all(E["yat harmonic"] < E["yat series"])
    # Yu et al. 2016: orthogonal frequencies never increase the variance (allow 10% noise)
    assert np.all(E["orf"] <= 1.1 * E["rff"])


# ------------------------------------------------------------------ MC / QMC

@pytest.mark.slow
def test_mc_rate_and_theory_line(est):
    p = est["params"]
    one_d, _ = integrate.quad(lambda u: (0.5 * np.pi * np.sin(np.pi * u)) ** 2, 0, 1)
    sigma = np.sqrt(one_d ** p["dim"] - 1.0)          # Var f(U) from quadrature, not the figure
    assert est["sigma"] == pytest.approx(sigma, rel=1e-10)
    M = np.asarray(p["samples"], float)
    theory = sigma / np.sqrt(M * p["randomizations"])
    np.testing.assert_allclose(est["theory_mc"], theory, rtol=1e-12)
    ratio = est["rmse"]["mc"] / theory
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio     # RMS of 12 runs: rel sd ~0.2
    assert abs(est["mc_slopes"]["mc"] + 0.5) <= 0.2


def test_qmc_beats_mc_rate(est):
    assert est["mc_slopes"]["sobol"] < -0.8
    assert np.all(est["rmse"]["sobol"][1:] < est["rmse"]["mc"][1:])


# ------------------------------------------------------------------ low rank

def test_svd_errors_against_eckart_young_and_hmt(est):
    A = est["A"]
    s = np.linalg.svd(A, compute_uv=False)
    r = est["ranks"]
    tol = 1e-10 * s[0]
    np.testing.assert_allclose(est["svd_spec"], s[r], rtol=0, atol=tol)
    assert np.all(est["rsvd_spec"] >= s[r] - tol)                     # no rank-r beats sigma_{r+1}
    assert np.all(est["rsvd_spec"] <= s[r] + est["rsvd_proj_spec"] + tol)   # HMT 9.3 (averaged)
    assert np.all(est["rsvd_spec"] <= est["rsvd_bound"])                # expectation bound
    assert np.all(est["rsvd_proj_spec"] >= s[r + est["params"]["oversample"]] - tol)


def test_nystrom_trace_error_above_floor(est):
    lam = np.sort(np.linalg.eigvalsh(est["A"]))[::-1]
    assert lam[-1] > -1e-10 * lam[0]                                   # the Yat Gram is PSD
    floor = np.array([np.clip(lam[m:], 0, None).sum() for m in est["ranks"]])
    np.testing.assert_allclose(est["trace_floor"], floor, rtol=1e-9)
    for k, e in est["nystrom_trace"].items():
        assert np.all(e >= floor * (1 - 1e-9)), k
        assert np.all(np.diff(e) < 0), k
