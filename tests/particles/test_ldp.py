"""yatmath.particles.ldp: tilted sampling, thermodynamic integration, mean-field Lambda, Sanov.

Every expected value is computed independently of the implementation: closed forms for
non-interacting systems (where the Gibbs law factorises), scipy.quad / mpmath sums, central
finite differences, and a closed-form simplex projection.
"""
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate

import yatmath.particles as P
from yatmath.particles import ldp

DOM = P.Interval(-1.0, 1.0)


def _V(W):
    return (-np.cos(3 * W) / 2 + 0.3 * W)[..., 0]


def _gV(W):
    return 1.5 * np.sin(3 * W) + 0.3


@pytest.mark.parametrize("diagonal", ["exclude", "include"])
@pytest.mark.parametrize("d", [1, 2])
def test_pair_gibbs_gradient_matches_finite_differences(diagonal, d):
    dom = P.Interval(-1, 1) if d == 1 else P.Box(-1, 1, d=d)
    V = lambda W: np.sum(np.cos(2 * W), axis=-1)          # noqa: E731
    gV = lambda W: -2 * np.sin(2 * W)                      # noqa: E731
    S = ldp.PairGibbs(V, gV, 0.7, ("plummer", 1.5, 0.3), dom, diagonal=diagonal)
    W = np.random.default_rng(0).uniform(-1, 1, (3, 6, d))
    G = S.grad(W)
    h = 1e-5
    num = np.zeros_like(W)
    for k in range(6):
        for j in range(d):
            E = np.zeros_like(W)
            E[:, k, j] = h
            num[:, k, j] = (S.energy(W + E) - S.energy(W - E)) / (2 * h)
    # central differences: truncation O(h^2 |H'''|) ~ 1e-10, rounding ~ 1e-16/h ~ 1e-11
    np.testing.assert_allclose(G, num, rtol=1e-6, atol=1e-8)


def test_pair_gibbs_exclude_matches_field_hamiltonian():
    """diagonal='exclude' is H_N of 004 eq.2.2-2.3 as built by FieldHamiltonian."""
    S = ldp.PairGibbs(_V, _gV, 0.5, ("plummer", 2.0, 0.2), DOM)
    H = P.FieldHamiltonian(lambda W: _V(W[None])[0], lambda W: _gV(W), lam=0.5,
                           interaction=("plummer", 2.0, 0.2), backend="numpy")
    W = np.random.default_rng(1).uniform(-1, 1, (2, 7, 1))
    for b in range(2):
        assert S.energy(W)[b] == pytest.approx(H.energy(W[b]), rel=1e-13)
        np.testing.assert_allclose(S.grad(W)[b] * 7, H.drift(W[b])[0], rtol=1e-12, atol=1e-14)


def test_tilted_mean_and_lambda_free_particles():
    """lam = 0, V = 0 on [-1, 1], f(w) = w: each particle has density ∝ e^{t w}, so
    E_t[f] = coth t - 1/t and Lambda_N(t) = log(sinh t / t) for every N."""
    S = ldp.PairGibbs(None, None, 0.0, None, DOM)
    ts = np.linspace(0, 2, 9)
    out = ldp.lambda_n_curve(S, 4, ts, beta_N=1.0, f=lambda W: W[..., 0],
                             grad_f=lambda W: np.ones_like(W), replicas=8, step=2e-3,
                             n_steps=3000, burn=500, rng=3)
    t = ts[1:]
    exact_mean = 1 / np.tanh(t) - 1 / t
    # 5 SE (Monte Carlo, replica spread) + 0.01 (O(h) Euler/reflection bias at h = 2e-3)
    assert np.all(np.abs(out["mean"][1:] - exact_mean) <= 5 * out["mean_se"][1:] + 0.01)
    exact_lam = np.log(np.sinh(t) / t)
    # + trapezoid error (b-a) h^2 max|Lambda'''| / 12 <= 2 * 0.0625 * 0.2 / 12 = 2e-3
    assert np.all(np.abs(out["lam_N"][1:] - exact_lam) <= 5 * out["se"][1:] + 0.012)
    # N Var of the mean of N iid uniforms on [-1, 1]: 1/3
    assert out["nvar0"] == pytest.approx(1 / 3, rel=0.25)


def test_log_partition_free_particles():
    """H_N = (1/N) sum w on [-1, 1]: Z(beta) = (2 sinh(beta/N) / (beta/N))^N."""
    S = ldp.PairGibbs(lambda W: W[..., 0], lambda W: np.ones_like(W), 0.0, None, DOM)
    N = 3
    betas = np.linspace(0, 6, 7)
    out = ldp.log_partition(S, N, betas, replicas=8, step=2e-3, n_steps=3000, burn=500, rng=4)
    u = betas[1:] / N
    exact = N * np.log(2 * np.sinh(u) / u)
    assert out["logZ"][0] == pytest.approx(N * math.log(2.0))
    assert np.all(np.abs(out["logZ"][1:] - exact) <= 5 * out["se"][1:] + 0.05)
    outp = ldp.log_partition(S, N, betas[:2], replicas=2, step=2e-3, n_steps=10, burn=5, rng=4,
                             reference="probability")
    assert outp["logZ"][0] == 0.0


def test_mean_field_lambda_without_interaction_is_log_mgf():
    """lam = 0: Lambda(t) = log int e^{-beta0 V + t f} - log int e^{-beta0 V} (scipy.quad)."""
    beta0 = 2.0
    grid = P.FVGrid(-1, 1, 400)
    Vc = lambda c: -np.cos(3 * c[:, 0]) / 2 + 0.3 * c[:, 0]   # noqa: E731
    ts = np.array([-1.0, 0.5, 2.0])
    out = ldp.mean_field_lambda(grid, Vc, 0.0, None, beta0, lambda c: c[:, 0], ts)
    v = lambda w: -np.cos(3 * w) / 2 + 0.3 * w                 # noqa: E731
    z0 = integrate.quad(lambda w: np.exp(-beta0 * v(w)), -1, 1)[0]
    for t, L, m in zip(ts, out["Lambda"], out["f_mean"]):
        zt = integrate.quad(lambda w: np.exp(-beta0 * v(w) + t * w), -1, 1)[0]
        mt = integrate.quad(lambda w: w * np.exp(-beta0 * v(w) + t * w), -1, 1)[0] / zt
        # midpoint rule on 400 cells: error O(h^2) = O(2.5e-5) times derivatives ~ 10
        assert L == pytest.approx(math.log(zt / z0), abs=5e-4)
        assert m == pytest.approx(mt, abs=5e-4)


def test_mean_field_lambda_interacting_is_convex_and_starts_at_zero():
    grid = P.FVGrid(-1, 1, 200)
    ts = np.linspace(-1, 1, 9)
    out = ldp.mean_field_lambda(grid, lambda c: np.zeros(len(c)), 0.5, ("plummer", 2.0, 0.2),
                                2.0, lambda c: c[:, 0], ts)
    assert out["residual"] < 1e-10
    assert abs(out["Lambda"][4]) < 1e-12          # t = 0
    assert np.all(np.diff(out["Lambda"], 2) > 0)  # Lambda is convex (a log-Laplace limit)
    # envelope theorem: Lambda' = <f, mu_t>; check by central differences of Lambda
    dL = (out["Lambda"][2:] - out["Lambda"][:-2]) / (ts[2] - ts[0])
    np.testing.assert_allclose(dL, out["f_mean"][1:-1], atol=5e-3)


def test_sanov_two_bin_against_mpmath_and_bahadur_rao():
    mp.mp.dps = 40
    p, a = 0.3, 0.4
    out = ldp.sanov_two_bin(np.array([10, 100, 1000]), p, a)
    for N, lt in zip([10, 100, 1000], out["log_tail"]):
        k0 = math.ceil(a * N - 1e-12)
        tail = mp.fsum(mp.binomial(N, k) * mp.mpf(p) ** k * mp.mpf(1 - p) ** (N - k)
                       for k in range(k0, N + 1))
        assert lt == pytest.approx(float(mp.log(tail)), rel=1e-10)
    kl = a * math.log(a / p) + (1 - a) * math.log((1 - a) / (1 - p))
    assert out["kl"] == pytest.approx(kl, rel=1e-14)
    big = ldp.sanov_two_bin(np.array([10000]), p, a)
    br = -math.log(math.sqrt(2 * math.pi * 10000 * a * (1 - a)) * (1 - p * (1 - a) / (a * (1 - p))))
    assert big["log_ratio"][0] == pytest.approx(br, abs=0.02)   # o(1) term ~ 1/(N a) ~ 3e-4
    with pytest.raises(ValueError, match="p < a"):
        ldp.sanov_two_bin(10, 0.5, 0.4)


@pytest.mark.parametrize("s,eps", [(0.5, 0.1), (2.0, 0.05), (1.0, 1e-3)])
def test_truncated_riesz_energy_uniform_1d_closed_form(s, eps):
    # (1/2)[eps^{-s}(2 eps - eps^2) + int_eps^1 2(1 - r) r^{-s} dr], integral done by mpmath
    mp.mp.dps = 30
    tail = mp.quad(lambda r: 2 * (1 - r) * r ** (-s), [eps, 1])
    exact = 0.5 * (eps ** (-s) * (2 * eps - eps ** 2) + float(tail))
    assert ldp.truncated_riesz_energy_uniform(s, eps, 1) == pytest.approx(exact, rel=1e-8)


def test_truncated_riesz_energy_uniform_2d_monte_carlo():
    r = np.random.default_rng(5)
    n = 400000
    z = r.random((n, 2)) - r.random((n, 2))
    dist = np.linalg.norm(z, axis=1)
    vals = 0.5 * np.minimum(dist, 1e300) ** -1.5
    vals = np.where(dist <= 0.2, 0.5 * 0.2 ** -1.5, vals)
    est, se = vals.mean(), vals.std() / math.sqrt(n)
    assert ldp.truncated_riesz_energy_uniform(1.5, 0.2, 2) == pytest.approx(est, abs=5 * se)


def test_simplex_ground_state_matches_projection_for_identity_gram():
    """G = I, lam > 0: the minimiser is the Euclidean projection of -v/lam onto the simplex."""
    v = np.array([0.3, -0.2, 0.1, 0.5, -0.25])
    lam = 0.4
    y = -v / lam
    u = np.sort(y)[::-1]
    css = np.cumsum(u)
    k = np.max(np.nonzero(u - (css - 1) / np.arange(1, 6) > 0)[0]) + 1
    theta = (css[k - 1] - 1) / k
    p_star = np.maximum(y - theta, 0)
    val_star = p_star @ v + 0.5 * lam * p_star @ p_star
    val, p, info = ldp.simplex_ground_state(v, np.eye(5), lam, restarts=3, iters=20000, rng=0)
    assert val == pytest.approx(val_star, abs=1e-6)
    assert info["fw_gap"] < 1e-4
    val0, p0, _ = ldp.simplex_ground_state(v, np.eye(5), 0.0, restarts=2, iters=5000)
    assert val0 == pytest.approx(v.min(), abs=1e-6)


def test_beta_n_readings_and_validation():
    assert ldp.beta_n(2.0, 10, "R1") == 2.0
    assert ldp.beta_n(2.0, 10, "R2") == 20.0
    with pytest.raises(ValueError, match="reading"):
        ldp.beta_n(2.0, 10, "R3")
    with pytest.raises(ValueError, match="N"):
        ldp.beta_n(2.0, 0)
    with pytest.raises(ValueError, match="diagonal"):
        ldp.PairGibbs(None, None, 0.0, None, DOM, diagonal="both")
    with pytest.raises(ValueError, match="interaction"):
        ldp.PairGibbs(None, None, 1.0, None, DOM)
    with pytest.raises(ValueError, match="finite g"):
        ldp.PairGibbs(None, None, 1.0, ("none", 1.0, 0.0), DOM, diagonal="include")
    S = ldp.PairGibbs(None, None, 0.0, None, DOM)
    with pytest.raises(ValueError, match="burn"):
        ldp.tilted_langevin(S, np.zeros((1, 2, 1)), beta_N=1.0, step=1e-3, n_steps=5, burn=5, rng=0)
    with pytest.raises(ValueError, match="tilt"):
        ldp.tilted_langevin(S, np.zeros((1, 2, 1)), beta_N=1.0, t=1.0, step=1e-3, n_steps=5,
                            burn=1, rng=0)
    with pytest.raises(ValueError, match="W must have shape"):
        S.energy(np.zeros((2, 3, 2)))
    with pytest.raises(ValueError, match="eps"):
        ldp.truncated_riesz_energy_uniform(1.0, 0.0)


def test_tilted_langevin_deterministic_given_seed():
    S = ldp.PairGibbs(_V, _gV, 0.5, ("plummer", 2.0, 0.2), DOM)
    W0 = np.random.default_rng(0).uniform(-1, 1, (2, 5, 1))
    a = ldp.tilted_langevin(S, W0, beta_N=10.0, t=0.5, f=lambda W: W[..., 0],
                            grad_f=lambda W: np.ones_like(W), step=1e-3, n_steps=50, burn=10, rng=7)
    b = ldp.tilted_langevin(S, W0, beta_N=10.0, t=0.5, f=lambda W: W[..., 0],
                            grad_f=lambda W: np.ones_like(W), step=1e-3, n_steps=50, burn=10, rng=7)
    np.testing.assert_array_equal(a.W, b.W)
    assert np.all(np.abs(a.W) <= 1.0)
