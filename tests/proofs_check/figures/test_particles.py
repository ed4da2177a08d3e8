"""Tests of the particle-dynamics figures (004): assertions on the plotted data, not on pixels.

Expected values come from outside the figure code: CDF integrals on fine grids, the Brownian-bridge
limit of the i.i.d. empirical W1 recomputed here, closed-form truncated Riesz energies, finite
sums for equispaced configurations, chi-square intervals from scipy, and physical identities
(the centre of mass of a quadratic confinement does not feel the pair forces).  Each data() runs
once per module (about 15 s in all on 2 cores); tolerances are stated where used.
"""
from __future__ import annotations

import importlib

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402
from scipy.integrate import quad  # noqa: E402

from proofs_check.figures import render as R  # noqa: E402
from proofs_check.figures.registry import load_all  # noqa: E402

FIGS = load_all()
NAMES = ("particles_vs_pde", "particles_w1_vs_n", "particles_w1_vs_eta", "particles_free_energy",
         "particles_fluctuations", "particles_riesz_s_vs_d")


# every test reads the module's datasets, all the particle figures' data: a minute on 2 cores
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def datasets():
    return {n: FIGS[n].data(seed=0) for n in NAMES}


def cdf_on(x_fine, edges, rho):
    """Piecewise-linear CDF of cell averages ``rho`` on ``edges``, evaluated at x_fine."""
    c = np.concatenate([[0.0], np.cumsum(rho * np.diff(edges))])
    return np.interp(x_fine, edges, c / c[-1])


def w1_fine(particles, edges, rho, n=200001):
    """int |F_N - F_rho| by the trapezoid rule on n points (error ~ (b-a)/n per jump)."""
    x = np.linspace(edges[0], edges[-1], n)
    FN = np.searchsorted(np.sort(particles), x, side="right") / len(particles)
    return float(np.trapezoid(np.abs(FN - cdf_on(x, edges, rho)), x))


def iid_prediction(edges, rho, N):
    """sqrt(2/(pi N)) int sqrt(F(1-F)) dx on a fine grid (Brownian-bridge limit of E W1)."""
    x = np.linspace(edges[0], edges[-1], 20001)
    F = cdf_on(x, edges, rho)
    return float(np.sqrt(2 / (np.pi * N)) * np.trapezoid(np.sqrt(F * (1 - F)), x))


# ------------------------------------------------------------------------------- all figures

def test_registered_with_params(datasets):
    for n in NAMES:
        f = FIGS[n]
        assert f.reproduced and f.data is not None and f.draw is not None
        assert f.paper.startswith("004"), n
        assert datasets[n]["params"]["seed"] == 0


@pytest.mark.parametrize("name", NAMES)
def test_every_figure_draws_its_data(name, datasets):
    d = datasets[name]
    fig = R.draw(name, d)
    axes = fig.get_axes()
    assert axes and fig.get_suptitle()
    ys = [np.asarray(ln.get_ydata(), float) for ax in axes for ln in ax.get_lines()]
    shown = lambda arr: any(y.shape == np.shape(arr) and np.allclose(y, arr) for y in ys)
    if name == "particles_vs_pde":
        assert all(shown(r) for r in d["rho"]) and shown(d["w1"])
    elif name == "particles_w1_vs_n":
        assert shown(d["interacting"]["w1"]) and shown(d["independent"]["w1"])
        assert shown(d["independent"]["iid"])
    elif name == "particles_w1_vs_eta":
        assert shown(d["w1"])
    elif name == "particles_free_energy":
        assert shown(d["F_pde"]) and shown(d["F_particles"])
    elif name == "particles_fluctuations":
        for k in ("w", "w^2"):
            assert shown(d["clt"][k]) and shown(d["iid"][k]) and shown(d["sim"][k]["n_var"])
    else:
        assert all(shown(v) for v in d["E"].values()) and all(shown(v) for v in d["W"].values())


# ------------------------------------------------------------------------ particles vs PDE

def test_vs_pde_mass_positivity_and_histograms(datasets):
    d = datasets["particles_vs_pde"]
    # explicit FV steps conserve h sum rho to a few ulps per step (~2400 steps): 1e-13
    assert np.max(np.abs(d["mass"] - 1.0)) <= 1e-13
    assert d["min_rho"].min() >= 0.0
    assert np.all(np.abs(d["particles"]) <= 1.0)                  # mirror reflection keeps [-1, 1]
    widths = np.diff(d["hist_edges"])
    np.testing.assert_allclose(d["hist"] @ widths, 1.0, rtol=1e-12)
    h = np.diff(d["edges"])
    np.testing.assert_allclose(d["rho"] @ h, 1.0, rtol=1e-13)


def test_vs_pde_particles_track_the_density(datasets):
    d = datasets["particles_vs_pde"]
    edges, N = d["edges"], d["params"]["N"]
    tracked = 0
    for k, (P, rho) in enumerate(zip(d["particles"], d["rho"])):
        # the plotted W1 agrees with an independent fine-grid integral (error ~ 2/2e5 per jump)
        assert d["w1"][k] == pytest.approx(w1_fine(P, edges, rho), abs=2e-4)
        # within twice the expected W1 of N iid samples (its relative sd is ~0.4 at N = 1000)
        assert d["w1"][k] <= 2.0 * iid_prediction(edges, rho, N)
        # the density moves a lot more than the particles miss it
        x = np.linspace(edges[0], edges[-1], 20001)
        moved = np.trapezoid(np.abs(cdf_on(x, edges, rho) - cdf_on(x, edges, d["rho"][0])), x)
        if moved > 0.1:
            assert d["w1"][k] < 0.1 * moved
            tracked += 1
    assert tracked >= 2


# ------------------------------------------------------------------------------ W1 rates

def test_w1_against_n_rate_and_iid_reference(datasets):
    d = datasets["particles_w1_vs_n"]
    N = d["N"]
    for key in ("interacting", "independent"):
        s = d[key]
        assert np.all(np.diff(s["w1"]) < 0), key                   # W1 decreases in N
        # the mean of 16 runs has ~10% relative error per point, so the slope over a factor 32 in
        # N has sd ~0.04: tolerance 0.1 around the expected -1/2
        assert s["fit"]["rate"] == pytest.approx(-0.5, abs=0.1), key
        slope = np.polyfit(np.log(N), np.log(s["w1"]), 1)[0]
        assert s["fit"]["rate"] == pytest.approx(slope, rel=1e-10)
    ind, inter = d["independent"], d["interacting"]
    # independent particles: the plotted line is the Brownian-bridge prediction recomputed here
    edges = d["edges"]
    pred = np.array([iid_prediction(edges, ind["rhoT"], n) for n in N])
    np.testing.assert_allclose(ind["iid"], pred, rtol=2e-3)
    # and the measured means follow it: geometric mean of the ratios within 15% (sd ~4%)
    assert np.exp(np.mean(np.log(ind["w1"] / pred))) == pytest.approx(1.0, abs=0.15)
    # repulsion makes the empirical law more regular than iid samples of its own rho_T
    pred_i = np.array([iid_prediction(edges, inter["rhoT"], n) for n in N])
    assert np.exp(np.mean(np.log(inter["w1"] / pred_i))) < 0.9


def test_w1_against_eta_rate(datasets):
    d = datasets["particles_w1_vs_eta"]
    assert np.all(np.diff(d["w1"]) < 0)                            # etas decrease, so does W1
    # Euler has weak order 1; the sampling floor (~0.002 against 0.005 at the smallest eta) and
    # the pooled-sample noise can move the slope by ~0.2: tolerance 0.3
    assert d["fit"]["rate"] == pytest.approx(1.0, abs=0.3)
    # the bias stays visible above the sampling floor, recomputed here (~0.002)
    floor = iid_prediction(d["edges"], d["rhoT"], d["params"]["pooled"])
    assert d["floor_theory"] == pytest.approx(floor, rel=2e-3)
    assert d["floor"] == pytest.approx(floor, rel=0.5)             # 4 draws, relative sd ~0.2
    assert d["w1"].min() > 1.3 * floor
    assert d["steps"].tolist() == [int(round(d["params"]["T"] / e)) for e in d["eta"]]


# --------------------------------------------------------------------------- free energy

def test_free_energy_decays_monotonically_to_gibbs(datasets):
    d = datasets["particles_free_energy"]
    F, Finf = d["F_pde"], d["F_inf"]
    # F_h is a sum of 200 O(1) terms: roundoff ~1e-15; the SG scheme dissipates exactly
    assert np.max(np.diff(F)) <= 1e-12
    assert np.max(np.abs(d["mass"] - 1.0)) <= 1e-13
    assert d["stationary_converged"] and d["stationary_residual"] <= 1e-12
    assert np.all(F >= Finf - 1e-12)                               # the Gibbs point is the minimum
    assert F[-1] - Finf < 0.02 * (F[0] - Finf)
    assert d["decay_rate"] < 0


def test_particle_free_energy_estimate_follows_the_pde(datasets):
    d = datasets["particles_free_energy"]
    p = d["params"]
    # errors: sd of the mean of V ~ 0.3/sqrt(1000) ~ 0.01, plug-in bias (bins-1)/(2 N beta) ~ 1e-3
    # and the O(eta) bias: tolerance 0.03
    np.testing.assert_allclose(d["F_particles"], d["F_pde_at_particles"], atol=0.03)
    drop_pde = d["F_pde"][0] - d["F_pde"][-1]
    assert d["F_particles"][0] - d["F_particles"][-1] > 0.8 * drop_pde
    np.testing.assert_allclose(d["t_particles"], p["eta"] * p["record_every"] * np.arange(len(d["t_particles"])),
                               atol=1e-12)


# --------------------------------------------------------------------------- fluctuations

def test_fluctuation_predictions_physics(datasets):
    d = datasets["particles_fluctuations"]
    p = d["params"]
    target = 1.0 / (p["beta"] * p["a"])
    # lambda = 0: the Gibbs density is a Gaussian of variance 1/(beta a) cut at 4 sd (grid O(h^2))
    assert d["iid"]["w"][0] == pytest.approx(target, rel=0.01)
    np.testing.assert_allclose(d["clt"]["w"][0], d["iid"]["w"][0], rtol=1e-12)
    # centre of mass sees only V: N Var<w> stays 1/(beta a) whatever lambda (boundary: < 10%)
    np.testing.assert_allclose(d["clt"]["w"], target, rtol=0.1)
    # independent particles with the spread-out rho_inf fluctuate more and more
    assert np.all(np.diff(d["iid"]["w"]) > 0) and np.all(np.diff(d["iid"]["w^2"]) > 0)
    assert np.all(d["clt"]["w^2"][1:] < d["iid"]["w^2"][1:])
    assert d["stationary_residual_max"] <= 1e-12


def test_fluctuation_simulations_match_and_repulsion_reduces(datasets):
    d = datasets["particles_fluctuations"]
    N = d["params"]["N"]
    for k in ("w", "w^2"):
        for j, lam in enumerate(d["lams"]):
            m = d["means"][k][j]
            R_ = m.size
            v = N * np.var(m, ddof=1)
            assert d["sim"][k]["n_var"][j] == pytest.approx(v, rel=1e-12)
            # 99% chi-square interval (6 comparisons), widened by 10% for the O(eta a) step bias
            lo = (R_ - 1) * v / stats.chi2.ppf(0.995, R_ - 1) / 1.1
            hi = (R_ - 1) * v / stats.chi2.ppf(0.005, R_ - 1) * 1.1
            pred = np.interp(lam, d["lam_grid"], d["clt"][k])
            assert lo <= pred <= hi, (k, lam, v, pred)
    # the largest repulsion: N Var<w> is well below the independent-particle value
    j = int(np.argmax(d["lams"]))
    m = d["means"]["w"][j]
    hi = (m.size - 1) * N * np.var(m, ddof=1) / stats.chi2.ppf(0.005, m.size - 1)
    assert hi < np.interp(d["lams"][j], d["lam_grid"], d["iid"]["w"])


# --------------------------------------------------------------------------- Riesz vs d

def hard_d1(s, delta):
    """(1/2) ∬ min(|x-y|^-s, delta^-s) on [0,1]^2 = int_0^1 (1 - r) g(r) dr in closed form."""
    core = delta ** -s * (delta - delta ** 2 / 2)
    if s == 1:
        return core + (-np.log(delta) - (1 - delta))
    if s == 2:     # int (1 - r) r^-2 = -1/r - ln r
        return core + (-1.0 - 0.0) - (-1 / delta - np.log(delta))
    F = lambda r: r ** (1 - s) / (1 - s) - r ** (2 - s) / (2 - s)
    return core + F(1.0) - F(delta)


def test_riesz_truncated_energies(datasets):
    d = datasets["particles_riesz_s_vs_d"]
    p, deltas = d["params"], d["deltas"]
    for s in p["s_d1"]:
        want = np.array([hard_d1(s, dl) for dl in deltas])
        np.testing.assert_allclose(d["E"][f"d=1 hard s={s:g}"], want, rtol=1e-8)
        assert np.all(d["E"][f"d=1 plummer s={s:g}"] <= d["E"][f"d=1 hard s={s:g}"] * (1 + 1e-9))
    # the unit-disk distance density is a probability density
    mod = importlib.import_module(FIGS["particles_riesz_s_vs_d"].module)
    assert quad(lambda r: float(mod.pair_density(2, r)), 0, 2, epsabs=1e-13)[0] == pytest.approx(1.0, abs=1e-10)
    for dim, ss in ((1, p["s_d1"]), (2, p["s_d2"])):
        for s in ss:
            for kind in ("hard", "plummer"):
                key = f"d={dim} {kind} s={s:g}"
                E = d["E"][key]
                if s > dim:      # E ~ delta^(d - s): slope within 0.02 over the smallest 5 deltas
                    assert d["slopes"][key] == pytest.approx(dim - s, abs=0.02), key
                elif s < dim:    # a finite limit
                    assert abs(d["slopes"][key]) < 0.02, key
                else:            # E = ln(1/delta) + O(1): unit growth per e-fold of 1/delta
                    g = np.diff(E[-5:]) / -np.diff(np.log(deltas[-5:]))
                    np.testing.assert_allclose(g, 1.0, atol=0.02)
    for key, lim in d["exact_d1_bare"].items():
        assert d["E"][f"d=1 hard {key}"][-1] == pytest.approx(lim, rel=0.01)


def test_riesz_discrete_energies(datasets):
    d = datasets["particles_riesz_s_vs_d"]
    Ns = d["Ns"].astype(int)
    for s in d["params"]["s_d1"]:
        # equispaced on [0,1]: W = (N-1)^s/(N(N-1)) sum_{m=1}^{N-1} (N - m) m^-s
        want = np.array([(n - 1) ** s / (n * (n - 1)) * np.sum((n - np.arange(1, n)) * np.arange(1, n) ** -s)
                         for n in Ns])
        np.testing.assert_allclose(d["W"][f"none s={s:g}"], want, rtol=1e-12)
        Wp = d["W"][f"plummer s={s:g}"]
        assert Wp[-1] / Wp[-2] < 1.01                                # softened: bounded in N
        if s > 1:
            assert d["slopes_N"][f"none s={s:g}"] == pytest.approx(s - 1, abs=0.05)
        if s < 1:
            gap = 1 / ((1 - s) * (2 - s)) - d["W"][f"none s={s:g}"]
            assert np.all(gap > 0) and np.all(np.diff(gap) < 0) and gap[-1] < 0.05
    # profiles: the hard core has zero force; Plummer's force is bounded by its analytic maximum
    pr, r = d["profiles"], d["profile_r"]
    s, dl = d["params"]["profile_s"], d["params"]["profile_delta"]
    assert np.all(pr["hard"]["force"][r < dl] == 0.0)
    rmax = dl / np.sqrt(s + 1)
    fmax = s * rmax * (rmax ** 2 + dl ** 2) ** (-s / 2 - 1)
    assert pr["plummer"]["force"].max() <= fmax * (1 + 1e-12)
    np.testing.assert_allclose(pr["none"]["g"], r ** -s, rtol=1e-14)
