"""Finite-volume McKean-Vlasov solver: the spec's sanity run (algorithms.md §P4) and invariants.

Sanity run: [-1,1], 200 cells, V = -cos(3w)/2 + 0.3w, g = -ln(r^2 + 0.01)/2 (Plummer log,
delta = 0.1), lambda = 0.5, beta = 20, SG flux.  Tolerances: mass error per explicit step is
a few ulps of h sum rho (~2e-16 each), so 1e-14 over 1000 steps; the Gibbs residual and the
fixed-point agreement use the spec's 1e-13 (with 5x margin for the residual of the
semi-implicit run, whose LU solves add ~1e-16 per step).
"""
import numpy as np
import pytest

from yatmath.particles import FVGrid, McKeanVlasovFV, w1_density

V1 = lambda w: -np.cos(3 * w[:, 0]) / 2 + 0.3 * w[:, 0]


def _sanity(flux="sg"):
    g = FVGrid.interval(-1, 1, 200)
    return g, McKeanVlasovFV(g, V1, lam=0.5, interaction=("plummer", 0.0, 0.1), beta=20.0, flux=flux)


def test_sanity_explicit_mass_and_free_energy():
    g, pde = _sanity()
    res = pde.run(np.ones(200), 0.5, scheme="explicit")
    assert res.steps >= 500
    assert np.max(np.abs(np.array(res.mass) - 1.0)) <= 1e-14
    assert np.max(np.diff(res.free_energy)) <= 1e-14          # monotone (up to roundoff)
    assert res.free_energy[-1] < res.free_energy[0] - 0.1
    assert min(res.min_rho) > 0


def test_sanity_semi_implicit_gibbs_and_fixed_point():
    g, pde = _sanity()
    res = pde.run(np.ones(200), 60.0, dt=0.05, scheme="semi_implicit")
    assert pde.gibbs_residual(res.rho) <= 5e-13
    assert np.max(np.diff(res.free_energy)) <= 1e-14
    for rho0 in (np.ones(200), np.exp(-50 * (g.x - 0.5) ** 2),
                 np.random.default_rng(0).random(200) + 0.1):
        rho, info = pde.stationary(rho0)
        assert info["converged"] and info["residual"] <= 1e-13
        assert g.h * np.sum(np.abs(rho - res.rho)) <= 5e-13


def test_sg_flux_vanishes_on_gibbs_profile():
    g, pde = _sanity()
    rho, _ = pde.stationary(np.ones(200))
    F = pde.face_flux(rho)
    assert np.max(np.abs(F)) <= 1e-10 * np.max(rho) / (20 * g.h)


def test_convolution_matches_dense_and_cell_average():
    g = FVGrid.interval(-1, 1, 60)
    pde = McKeanVlasovFV(g, V1, lam=1.0, interaction=("none", 0.0, 0.0), beta=5.0)   # singular log
    rho = g.normalise(1 + g.x ** 2)
    T = pde.kernel
    G = np.array([[T[i - j + 59] for j in range(60)] for i in range(60)])
    np.testing.assert_allclose(pde.convolve(rho), g.h * G @ rho, rtol=1e-12, atol=1e-14)
    # cell average of -ln|u| over the triangle on [-h, h]: exact value 3/2 - ln h
    assert T[59] == pytest.approx(1.5 - np.log(g.h), rel=1e-6)


@pytest.mark.parametrize("scheme,flux", [("explicit", "upwind"), ("semi_implicit", "upwind"),
                                         ("semi_implicit", "sg")])
def test_disk_2d_conserves_mass_positivity_and_decreases_F(scheme, flux):
    g = FVGrid.disk(1.0, 24)
    V = lambda w: 2.0 * (w[:, 0] - 0.3) ** 2 + w[:, 1] ** 2
    pde = McKeanVlasovFV(g, V, lam=0.3, interaction=("plummer", 0.0, 0.2), beta=4.0, flux=flux)
    rho0 = np.where(g.active, np.exp(-10 * np.sum((g.centres + 0.4) ** 2, axis=1)), 0.0)
    dt = None if scheme == "explicit" else 0.2        # big semi-implicit step: M-matrix
    res = pde.run(rho0, 1.0, dt=dt, scheme=scheme)
    assert np.max(np.abs(np.array(res.mass) - 1.0)) <= 1e-13
    assert min(res.min_rho) >= 0
    assert np.all(res.rho[~g.active] == 0)
    assert np.max(np.diff(res.free_energy)) <= 1e-12


def test_pure_transport_beta_infinite_moves_mass_downhill():
    g = FVGrid.interval(-1, 1, 100)
    pde = McKeanVlasovFV(g, lambda w: w[:, 0], beta=np.inf)        # drift to the left
    res = pde.run(np.ones(100), 0.5)
    mean = g.h * np.sum(g.x * res.rho)
    assert mean < -0.2 and abs(res.mass[-1] - 1) <= 1e-14


def test_w1_density_against_quadrature(rng):
    edges = np.linspace(-1, 1, 41)
    rho = np.exp(-3 * (0.5 * (edges[1:] + edges[:-1])) ** 2)
    p = rng.uniform(-1.2, 1.1, 57)
    x = np.linspace(-1.5, 1.5, 600001)
    cdf_e = np.concatenate([[0], np.cumsum(rho * np.diff(edges))])
    Fr = np.interp(x, edges, cdf_e / cdf_e[-1], left=0, right=1)
    FN = np.searchsorted(np.sort(p), x, side="right") / p.size
    brute = np.trapezoid(np.abs(FN - Fr), x)
    assert w1_density(p, edges, rho) == pytest.approx(brute, rel=1e-4)   # grid step 5e-6


def test_bad_arguments():
    g = FVGrid.interval(0, 1, 10)
    with pytest.raises(ValueError, match="flux"):
        McKeanVlasovFV(g, V1, flux="central")
    with pytest.raises(ValueError, match="interaction"):
        McKeanVlasovFV(g, V1, lam=1.0)
    with pytest.raises(ValueError, match="M must"):
        FVGrid.interval(0, 1, 1)
    with pytest.raises(ValueError, match="a < b"):
        FVGrid.interval(1, 0, 10)


def test_run_refuses_instead_of_hanging_and_keeps_t_final_zero():
    """dt = 0 or < 0 used to loop forever; a negative t_final returned rho0 as if it were the
    answer; a negative rho0 was normalised by its negative mass (sign flip).  Now each is an
    error naming the argument, an absurd step count is refused up front, and t_final = 0 is
    the one case that returns the (normalised) initial density."""
    import time

    g = FVGrid.interval(-1, 1, 50)
    pde = McKeanVlasovFV(g, lambda w: w[:, 0] ** 2)
    t0 = time.perf_counter()
    for dt in (0.0, -0.1):
        with pytest.raises(ValueError, match="dt must be > 0"):
            pde.run(np.ones(50), 1.0, dt=dt)
    with pytest.raises(ValueError, match=r"implies about 1e\+12 steps"):
        pde.run(np.ones(50), 1.0, dt=1e-12, scheme="semi_implicit")
    with pytest.raises(ValueError, match="t_final must be >= 0"):
        pde.run(np.ones(50), -1.0)
    with pytest.raises(ValueError, match="rho0 must be >= 0"):
        pde.run(-np.ones(50), 0.1)
    assert time.perf_counter() - t0 < 5.0
    res = pde.run(np.full(50, 3.0), 0.0)
    assert res.steps == 0 and res.times == [0.0]
    np.testing.assert_allclose(res.rho, np.full(50, 0.5), rtol=1e-15)      # mass 1 on [-1, 1]


def test_fixed_explicit_dt_is_used_as_given_and_warns_above_the_stable_step():
    g, pde = _sanity()
    sdt = pde.stable_dt(g.normalise(np.ones(200)))
    # below the stable step: no warning, exactly ceil(t/dt) steps of the requested size
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pde.run(np.ones(200), 10 * (sdt / 2), dt=sdt / 2)
    assert res.steps == 10
    # above it: the step asked for is taken (5 steps, not t/stable_dt of them) and a warning says
    # forward Euler may lose positivity
    with pytest.warns(RuntimeWarning, match="exceeds the explicit scheme's stable step"):
        res = pde.run(np.ones(200), 5 * (3 * sdt), dt=3 * sdt)
    assert res.steps == 5
