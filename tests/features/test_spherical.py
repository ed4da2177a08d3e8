"""The spherical (Mercer) expansion of the Yat kernel and the "harmonic" feature map.

References are independent of the implementation: Gegenbauer coefficients from scipy quadrature
against the density of c = q.k on S^{d-1}, and the kernel itself from ``yatmath.yat.gram``.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special

from yatmath.features import yat_features
from yatmath.features.spherical import (degree2_basis, degree2_harmonics, gegenbauer_coefficients,
                                        harmonic_dims)
from yatmath.yat import gram, linear_attention


def _unit(g, n, d):
    X = g.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _quad_coefficients(d, eps, b):
    """lambda_0..2 and E[f^2] by adaptive quadrature over c with density (1-c^2)^((d-3)/2) / B."""
    Z = special.beta(0.5, (d - 1) / 2)

    def E(h):
        return integrate.quad(lambda c: h(c) * (1 - c * c) ** ((d - 3) / 2) / Z, -1, 1,
                              limit=400, epsabs=0, epsrel=1e-12, points=[0.0])[0]

    f = lambda c: (c + b) ** 2 / (2 + eps - 2 * c)       # noqa: E731
    N2 = harmonic_dims(d)[2]
    return (E(f), d * E(lambda c: c * f(c)),
            N2 * E(lambda c: (d * c * c - 1) / (d - 1) * f(c)), E(lambda c: f(c) ** 2))


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")   # the reference's
@pytest.mark.parametrize("d,eps,b", [(3, 0.5, 1.0), (8, 1.0, 0.5), (64, 2.0, 0.0),
                                     (64, 1e-4, 1.0), (64, 1e6, 2.0), (200, 0.3, 4.0)])
def test_gegenbauer_coefficients_match_quadrature(d, eps, b):
    got = gegenbauer_coefficients(d, eps, b)
    ref = _quad_coefficients(d, eps, b)
    # quad's own relative accuracy is ~1e-12 here; lambda_2 is a difference (loses log10 d)
    np.testing.assert_allclose(got, ref, rtol=1e-9)
    assert min(got) >= 0


def test_mean_square_is_the_pair_average_of_K_squared(rng):
    # E[f^2] against a plain Monte Carlo mean over uniform pairs (4.5 standard errors)
    d, eps, b = 16, 0.8, 0.5
    Q, K = _unit(rng, 40000, d), _unit(rng, 40000, d)
    c = (Q * K).sum(1)
    vals = ((c + b) ** 2 / (2 + eps - 2 * c)) ** 2
    ef2 = gegenbauer_coefficients(d, eps, b)[3]
    assert abs(vals.mean() - ef2) <= 4.5 * vals.std() / np.sqrt(len(vals))


@pytest.mark.parametrize("d", [2, 3, 7])
def test_degree2_addition_theorem(rng, d):
    # sum over the N_2 orthonormal harmonics of Y(q) Y(k) = N_2 P_2(q.k), P_2 = (d c^2 - 1)/(d-1)
    I, J, U = degree2_basis(d)
    N2 = harmonic_dims(d)[2]
    assert len(I) + len(U) == N2
    Q, K = _unit(rng, 5, d), _unit(rng, 6, d)
    lhs = degree2_harmonics(Q, I, J, U) @ degree2_harmonics(K, I, J, U).T
    c = Q @ K.T
    np.testing.assert_allclose(lhs, N2 * (d * c * c - 1) / (d - 1), rtol=1e-12, atol=1e-12)


def test_full_truncation_is_the_degree_0_to_2_expansion(rng):
    d, eps, b = 6, 0.7, 0.5
    F = sum(harmonic_dims(d))
    l0, l1, l2, _ = gegenbauer_coefficients(d, eps, b)
    X = _unit(rng, 7, d)
    c = X @ X.T
    phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method="harmonic", rng=3)
    np.testing.assert_allclose(phi(X) @ phi(X).T, l0 + l1 * c + l2 * (d * c * c - 1) / (d - 1),
                               rtol=1e-13, atol=1e-14)


def test_kept_degrees_follow_the_eigenvalue_order():
    for d, F, eps, b in [(64, 256, 2.0, 0.0), (64, 256, 2.0, 1.0), (16, 40, 0.1, 0.0),
                         (16, 10, 5.0, 3.0)]:
        phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method="harmonic", rng=0)
        dims = harmonic_dims(d)
        lam = gegenbauer_coefficients(d, eps, b)[:3]
        mu = [lam[n] / dims[n] for n in range(3)]
        keep = [phi.params["kept"][f"degree{n}"] for n in range(3)]
        assert sum(keep) == F
        for n in range(3):       # a degree with a larger mu is never cut while a smaller one is kept
            for k in range(3):
                if mu[n] > mu[k] and keep[k] > 0:
                    assert keep[n] == dims[n], (d, F, mu, keep)
    # at b = 0 the kernel is mostly c^2: degree 2 outranks degree 1 at d = 64
    phi = yat_features(64, 256, eps=2.0, bias=0.0, spherical=True, method="harmonic", rng=0)
    assert phi.params["kept"] == {"degree0": 1, "degree1": 0, "degree2": 255}


@pytest.mark.parametrize("F, partial", [(8, "degree1"), (50, "degree2")])
def test_truncation_mean_square_bias_matches_pairs(rng, F, partial):
    # for a fixed map, the mean over uniform pairs of (phi(q).phi(k) - K)^2 is exactly
    # mean_square_bias (orthonormality); Monte Carlo over 30000 pairs, 4.5 standard errors
    d, eps, b = 12, 1.0, 0.5
    phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method="harmonic", rng=5)
    assert 0 < phi.params["kept"][partial] < harmonic_dims(d)[int(partial[-1])]
    Q, K = _unit(rng, 30000, d), _unit(rng, 30000, d)
    c = (Q * K).sum(1)
    err2 = ((phi(Q) * phi(K)).sum(1) - (c + b) ** 2 / (2 + eps - 2 * c)) ** 2
    msb = phi.params["mean_square_bias"]
    assert abs(err2.mean() - msb) <= 4.5 * err2.std() / np.sqrt(len(err2)), (err2.mean(), msb)
    # and the diagonal: E_x[phi(x).phi(x)] = f(1) - mean_diagonal_bias
    diag = (phi(Q) ** 2).sum(1)
    expect = (1 + b) ** 2 / eps - phi.params["mean_diagonal_bias"]
    assert abs(diag.mean() - expect) <= 4.5 * diag.std() / np.sqrt(len(diag)) + 1e-12


@pytest.mark.slow
def test_above_the_head_the_map_estimates_the_wiener_blend(rng):
    # F > 1 + d + N_2: E[phi(q).phi(k)] = trunc + alpha (K - trunc), alpha = high_degree_weight
    d, eps, b = 4, 0.6, 0.5
    F = sum(harmonic_dims(d)) + 30
    X = _unit(rng, 4, d)
    c = X @ X.T
    l0, l1, l2, _ = gegenbauer_coefficients(d, eps, b)
    trunc = l0 + l1 * c + l2 * (d * c * c - 1) / (d - 1)
    K = gram(X, X, eps=eps, bias=b)
    draws, alphas = [], set()
    for s in range(1500):
        phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method="harmonic", rng=s)
        alphas.add(phi.params["high_degree_weight"])
        draws.append(phi(X) @ phi(X).T)
    draws = np.array(draws)
    (alpha,) = alphas           # the weight is a property of (d, F, eps, b), not of the draw
    assert 0 < alpha < 1
    target = trunc + alpha * (K - trunc)
    se = draws.std(0, ddof=1) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(0) - target) <= 4.5 * se + 1e-12)
    # and the blend really differs from both ends on the diagonal (q = k)
    assert np.all(np.abs(np.diag(target - K)) > 10 * np.diag(se))


def test_harmonic_weight_tends_to_one_and_bias_to_zero():
    w = [yat_features(8, F, eps=1.0, bias=0.5, spherical=True, method="harmonic",
                      rng=0).params for F in (45, 200, 2000, 20000)]
    alpha = [p["high_degree_weight"] for p in w]
    msb = [p["mean_square_bias"] for p in w]
    assert np.all(np.diff(alpha) > 0) and alpha[-1] > 0.9
    assert np.all(np.diff(msb) < 0)


def test_harmonic_lower_pair_error_than_unbiased_maps(rng):
    # the point of the map: smaller mean-square kernel error on spread-out (uniform) pairs
    d, F, eps, b = 32, 128, 2.0, 1.0
    Q, K = _unit(rng, 300, d), _unit(rng, 300, d)
    Kx = gram(Q, K, eps=eps, bias=b)

    def mse(method, s):
        phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method=method, rng=s)
        return np.mean((phi(Q) @ phi(K).T - Kx) ** 2)

    h = np.mean([mse("harmonic", s) for s in range(4)])
    for other in ("series", "maclaurin"):
        assert h < 0.5 * np.mean([mse(other, s) for s in range(4)]), other


def test_harmonic_linear_attention_beats_series(rng):
    d, L, F, b = 32, 128, 128, 1.0
    Q, K, V = _unit(rng, L, d), _unit(rng, L, d), rng.standard_normal((L, d))
    eps = float(np.median(2 - 2 * Q @ K.T))
    S = gram(Q, K, eps=eps, bias=b)
    O = S @ V / S.sum(1, keepdims=True)

    def err(method, s):
        phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method=method, rng=s)
        return np.linalg.norm(linear_attention(Q, K, V, phi) - O) / np.linalg.norm(O)

    assert np.mean([err("harmonic", s) for s in range(3)]) < \
        0.5 * np.mean([err("series", s) for s in range(3)])


def test_harmonic_bad_input(rng):
    with pytest.raises(ValueError, match="spherical=True"):
        yat_features(4, 8, eps=1.0, method="harmonic")
    with pytest.raises(ValueError, match="d >= 2"):
        yat_features(1, 2, eps=1.0, spherical=True, method="harmonic")
    with pytest.raises(ValueError, match="d must be >= 2"):
        gegenbauer_coefficients(1, 1.0)
    phi = yat_features(4, 8, eps=1.0, spherical=True, method="harmonic", rng=0)
    with pytest.raises(ValueError, match="unit-norm"):
        phi(2 * _unit(rng, 3, 4))
