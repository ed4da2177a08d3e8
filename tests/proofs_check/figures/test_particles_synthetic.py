"""Tests of the 004 synthetic-study figures (Figs. 1-3): assertions on the plotted data.

Independent references: the Bayes curve recomputed by SciPy quadrature at one sigma, the means
and t-intervals recomputed from the raw per-trial arrays with scipy.stats, one accuracy cell
recomputed by refitting the method, and the power-law curves re-evaluated from the fitted
(c, gamma) and from the printed Table 4 values.
"""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from scipy import integrate, special, stats  # noqa: E402

from proofs_check.figures.registry import load_all  # noqa: E402
from proofs_check.studies import synthetic as S  # noqa: E402

FIGS = load_all()
NAMES = ("particles_synthetic_fig1", "particles_synthetic_fig2", "particles_synthetic_fig3")


@pytest.fixture(scope="module")
def datasets():
    return {"particles_synthetic_fig1": FIGS["particles_synthetic_fig1"].data(seed=0, n_sigmas=3, n_trials=2, T_max=5),
            "particles_synthetic_fig2": FIGS["particles_synthetic_fig2"].data(seed=0, ns=(60, 120), T_max=3,
                                                                               N_w=500),
            "particles_synthetic_fig3": FIGS["particles_synthetic_fig3"].data(seed=0, lams=(0.0, 1.0), n_sigmas=2,
                                                                               n_trials=2, T_max=3)}


def test_registered():
    for n in NAMES:
        f = FIGS[n]
        assert f.reproduced and f.data is not None and f.draw is not None and f.paper.startswith("004")


@pytest.mark.parametrize("name", NAMES)
def test_draws_and_states_sizes(name, datasets):
    d = datasets[name]
    fig = Figure()
    FIGS[name].draw(d, fig)
    texts = " ".join(t.get_text() for t in fig.texts) + (fig._suptitle.get_text() if fig._suptitle else "")
    assert "T_max" in texts and "seed" in texts          # sizes stated on the figure
    assert "T_max" in d["params"]


def test_fig1_means_bands_and_bayes(datasets):
    d = datasets["particles_synthetic_fig1"]
    for m, raw in d["acc_raw"].items():
        assert np.allclose(d["acc"][m]["mean"], raw.mean(1))
        half = stats.t.ppf(0.975, raw.shape[1] - 1) * raw.std(1, ddof=1) / np.sqrt(raw.shape[1])
        assert np.allclose(d["acc"][m]["hi"] - d["acc"][m]["mean"], half)
        assert np.all((raw >= 0) & (raw <= 1))
    assert list(d["sigmas"]) == pytest.approx([1e-5, 1.0, 1e5])
    # Bayes accuracy at sigma = 1 by SciPy quadrature on the test points
    dz = S.make_design()
    l = dz.logit[dz.test]
    pi = np.array([integrate.quad(lambda z: special.expit(li + z) * stats.norm.pdf(z), -12, 12)[0] for li in l])
    assert d["bayes"][1] == pytest.approx(np.mean(np.maximum(pi, 1 - pi)), abs=1e-8)
    # one cell refitted: logistic at sigma index 0, trial 1
    y = S.draw_labels(dz.logit, d["sigmas"][0], 0, 1)
    fit = S.fit_logistic(dz.X[dz.train], y[dz.train], dz.X[dz.test])
    assert d["acc_raw"]["logistic"][0, 1] == pytest.approx(np.mean(fit.pred == y[dz.test]))


def test_fig2_fit_curves(datasets):
    d = datasets["particles_synthetic_fig2"]
    for m, f in d["fits"].items():
        assert np.allclose(d["fit_curves"][m], f["c"] * d["n_ext"] ** f["gamma"])
        assert np.all(d["times"][m] > 0)
    assert np.allclose(d["paper_curves"]["mkl"], 8.00e-5 * d["n_ext"] ** 1.961)


def test_fig3_curves(datasets):
    d = datasets["particles_synthetic_fig3"]
    assert set(d["curves"]) == {"Coulomb (s = p - 2 = 8)", "Riesz (s = 1)"}
    for kn, cur in d["curves"].items():
        assert set(cur) == {0.0, 1.0}
        for lam, v in cur.items():
            raw = d["acc_raw"][f"{kn}|{lam}"]
            assert np.allclose(v["mean"], raw.mean(1))
    assert np.allclose(d["rff"]["mean"], d["acc_raw"]["rff"].mean(1))
    assert np.all(np.diff(d["bayes"]) <= 0)
