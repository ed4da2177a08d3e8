"""Domains, the projected Langevin iteration, stopping rules and the Alg 2 reweighting."""
import numpy as np
import pytest
from scipy.special import softmax

from yatmath.particles import (Ball, Box, FieldHamiltonian, Interval, langevin_step, resample,
                               reweight, run_langevin)


def _quad(a):
    return FieldHamiltonian(lambda W: 0.5 * a * np.sum(W * W, axis=1), lambda W: a * W)


@pytest.mark.parametrize("dom", [Box([-1, 0], [1, 2]), Ball(1.5, 3), Interval(-1, 1)])
def test_projection_nonexpansive_and_idempotent(dom, rng):
    A = 3 * rng.standard_normal((500, dom.d))
    B = 3 * rng.standard_normal((500, dom.d))
    PA, PB = dom.project(A), dom.project(B)
    assert np.all(np.linalg.norm(PA - PB, axis=1) <= np.linalg.norm(A - B, axis=1) * (1 + 1e-15))
    assert np.all(dom.contains(PA))
    np.testing.assert_array_equal(dom.project(PA), PA)
    R = dom.reflect(A)
    assert np.all(dom.contains(R))
    inside = dom.contains(A)
    np.testing.assert_allclose(R[inside], A[inside], rtol=1e-15)


def test_mirror_reflection_values():
    I = Interval(-1, 1)
    np.testing.assert_allclose(I.reflect(np.array([1.3, -3.5, 0.2, 5.0])), [0.7, 0.5, 0.2, 1.0], atol=1e-15)  # 5 -> -3 -> 1
    B = Ball(1.0, 2)
    out = B.reflect(np.array([[1.5, 0.0], [0.0, 2.5]]))
    np.testing.assert_allclose(out, [[0.5, 0.0], [0.0, -0.5]], atol=1e-15)  # r' = |2R - r|


def test_step_is_the_printed_update(rng):
    """omega - eta N grad_k H_N + sqrt(2 eta/beta) xi, then P_Omega; same generator draws xi."""
    H = _quad(2.0)
    W = rng.standard_normal((50, 2))
    eta, beta = 0.01, 3.0
    new, _ = langevin_step(H, W, eta, beta, np.random.default_rng(5), domain=Ball(1.0, 2))
    xi = np.random.default_rng(5).standard_normal(W.shape)
    want = Ball(1.0, 2).project(W - eta * 50 * (2.0 * W / 50) + np.sqrt(2 * eta / beta) * xi)
    np.testing.assert_allclose(new, want, rtol=1e-15, atol=1e-15)
    # noise_beta replaces beta in the noise only
    new2, _ = langevin_step(H, W, eta, beta, np.random.default_rng(5), noise_beta=30.0)
    np.testing.assert_allclose(new2, W - eta * 2 * W + np.sqrt(2 * eta / 30.0) * xi, rtol=1e-14)


def test_quadratic_stationary_variance(rng):
    """lambda = 0, V = a w^2/2: the iteration is AR(1), w <- (1 - eta a) w + sqrt(2 eta/beta) xi,
    with stationary variance 2/(beta a (2 - eta a)); after 400 steps the bias is (1-eta a)^800
    ~ 1e-35.  Tolerance: 5 standard errors of a sample variance (sqrt(2/n) relative)."""
    a, eta, beta, n = 2.0, 0.05, 4.0, 40000
    res = run_langevin(_quad(a), np.zeros(n), eta=eta, beta=beta, n_steps=400, rng=rng,
                       track_energy=False)
    want = 2.0 / (beta * a * (2 - eta * a))
    assert abs(res.Omega.var() - want) <= 5 * np.sqrt(2.0 / n) * want
    assert res.stop_reason == "t_max" and res.steps == 400


def test_max_move_stopping_rule_fires_when_predicted():
    """beta = inf: w_m = (1-eta a)^m w0, move_m = eta a (1-eta a)^{m-1} max|w0|."""
    a, eta, tol = 1.0, 0.1, 1e-3
    w0 = np.array([1.0, -2.0, 0.5])
    res = run_langevin(_quad(a), w0, eta=eta, beta=np.inf, n_steps=1000, rng=0, tol_move=tol)
    m = np.arange(1, 1000)
    first = m[eta * a * (1 - eta * a) ** (m - 1) * 2.0 < tol][0]
    assert res.stop_reason == "max_move" and res.steps == first
    assert np.all(np.diff(res.history["energy"]) < 0)      # deterministic descent


def test_distance_stopping_rules_and_t_max():
    for dist in ("sliced_w2", "mmd2", "energy"):
        res = run_langevin(_quad(1.0), np.linspace(-1, 1, 40), eta=0.2, beta=np.inf, n_steps=300,
                           rng=0, tol_dist=1e-8, distance=dist)
        assert res.stop_reason == "distance" and res.steps < 300
    res = run_langevin(_quad(1.0), np.linspace(-1, 1, 40), eta=0.2, beta=1.0, n_steps=5, rng=0,
                       tol_move=1e-12)
    assert res.stop_reason == "t_max" and res.steps == 5


def test_seeded_runs_reproducible_and_random_batch():
    H = FieldHamiltonian(lambda W: 0.5 * np.sum(W * W, axis=1), lambda W: W, lam=0.5,
                         interaction=("plummer", 0.0, 0.2))
    W0 = np.random.default_rng(1).standard_normal((64, 2))
    kw = dict(eta=0.01, beta=10.0, n_steps=20, domain=Box(-2, 2, d=2))
    a = run_langevin(H, W0, rng=3, **kw)
    b = run_langevin(H, W0, rng=3, **kw)
    np.testing.assert_array_equal(a.Omega, b.Omega)
    c = run_langevin(H, W0, rng=3, method="random_batch", batch_size=4, **kw)
    assert c.Omega.shape == W0.shape and np.all(np.abs(c.Omega) <= 2)
    assert not np.array_equal(c.Omega, a.Omega)


def test_phases_wrapped_and_learned(rng):
    from yatmath.particles import Hamiltonian

    X = rng.standard_normal((30, 2))
    y = np.sign(X[:, 0])
    H = Hamiltonian(X, y, learn_phase=True)
    W = rng.standard_normal((10, 2))
    b = rng.uniform(0, 2 * np.pi, 10)
    _, b1 = langevin_step(H, W, 0.5, 100.0, 0, b=b)
    assert np.all((b1 >= 0) & (b1 < 2 * np.pi)) and not np.allclose(b1, b)


def test_reweighting_as_printed(rng):
    H = FieldHamiltonian(lambda W: W[:, 0] ** 2, lambda W: 2 * W, lam=1.0,
                         interaction=("plummer", 0.0, 0.3))
    W = rng.standard_normal((25, 1))
    from yatmath.particles import interaction_potential

    ha = W[:, 0] ** 2 + interaction_potential(W, "plummer", 0.0, 0.3)
    np.testing.assert_allclose(reweight(H, W, 3.0, reading="a"), softmax(-3.0 * ha), rtol=1e-12)
    np.testing.assert_allclose(reweight(H, W, 3.0, reading="b"), softmax(-3.0 * W[:, 0] ** 2), rtol=1e-12)
    # huge beta: logsumexp keeps it finite
    w = reweight(H, W, 1e6, reading="b")
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0)


def test_resampling(rng):
    w = rng.random(7)
    w /= w.sum()
    idx = resample(w, 1000, rng, method="systematic")
    counts = np.bincount(idx, minlength=7)
    assert np.all(np.abs(counts - 1000 * w) <= 1)          # systematic: within one of D w_k
    idx = resample(w, 200000, rng)
    assert np.allclose(np.bincount(idx, minlength=7) / 200000, w, atol=5 * np.sqrt(0.25 / 200000))


def test_bad_arguments():
    with pytest.raises(ValueError, match="boundary"):
        Interval().apply(np.zeros(3), "wrap")
    with pytest.raises(ValueError, match="eta"):
        langevin_step(_quad(1.0), np.zeros(3), -1.0, 1.0, 0)
    with pytest.raises(ValueError, match="distance"):
        run_langevin(_quad(1.0), np.zeros(3), eta=0.1, beta=1.0, n_steps=1, rng=0, distance="kl")
    with pytest.raises(ValueError, match="radius"):
        Ball(-1.0, 2)
    with pytest.raises(ValueError, match="clip"):
        langevin_step(_quad(1.0), np.zeros(3), 0.1, 1.0, 0, clip=-1.0)
