"""Linear attention equals the quadratic kernel-smoothing reference for the same feature map."""
from __future__ import annotations

import numpy as np
import pytest

from yatmath.features import positive_features, rff, yat_features
from yatmath.yat import gram, linear_attention


def _reference(Pq, Pk, V, causal):
    Kqk = Pq @ Pk.T
    if causal:
        Kqk = np.tril(Kqk)
    return (Kqk @ V) / Kqk.sum(1, keepdims=True)


def _unit(g, n, d):
    X = g.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


MAPS = {
    "softplus": lambda d: positive_features(d, 48, "softplus", rng=1),
    "favor": lambda d: positive_features(d, 48, "favor", rng=2),
    "yat_series": lambda d: yat_features(d, 48, eps=1.0, bias=2.0, spherical=True,
                                         method="series", rng=3),
    "yat_laplace": lambda d: yat_features(d, 48, eps=1.0, bias=2.0, method="laplace_mc", rng=4),
}


@pytest.mark.parametrize("name", list(MAPS))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("chunk", [1, 7, 128])
def test_matches_quadratic_reference(rng, name, causal, chunk):
    L, d = 50, 8
    Q, K, V = _unit(rng, L, d), _unit(rng, L, d), rng.standard_normal((L, 5))
    phi = MAPS[name](d)
    out = linear_attention(Q, K, V, phi, causal=causal, chunk=chunk)
    ref = _reference(phi(Q), phi(K), V, causal)
    # the sums are re-associated; positive maps are well conditioned (1e-12), the signed Yat
    # maps have normalisers ~ sum|K| / 10 here, so allow 1e-9 relative to the output scale
    tol = 1e-12 if name in ("softplus", "favor") else 1e-9
    np.testing.assert_allclose(out, ref, rtol=0, atol=tol * np.abs(ref).max())


def test_causal_row_i_ignores_later_keys(rng):
    L, d = 20, 4
    Q, K, V = rng.standard_normal((L, d)), rng.standard_normal((L, d)), rng.standard_normal((L, 3))
    phi = positive_features(d, 16, "elu+1", rng=0)
    out = linear_attention(Q, K, V, phi, causal=True, chunk=6)
    V2 = V.copy()
    V2[10:] += 100.0
    out2 = linear_attention(Q, K, V2, phi, causal=True, chunk=6)
    np.testing.assert_array_equal(out[:10], out2[:10])
    assert np.all(np.abs(out[10:] - out2[10:]) > 1.0)


def test_vector_values_and_feature_pair(rng):
    Q, K, v = rng.standard_normal((6, 3)), rng.standard_normal((9, 3)), rng.standard_normal(9)
    phi = positive_features(3, 10, "softplus", rng=0)
    out = linear_attention(Q, K, v, (phi, phi))
    assert out.shape == (6,)
    np.testing.assert_allclose(out, _reference(phi(Q), phi(K), v[:, None], False)[:, 0],
                               rtol=1e-13)


def test_zero_normaliser_gives_zero():
    Q = np.array([[1.0, 0.0]])
    K = np.array([[0.0, 1.0], [0.0, -1.0]])
    lin = lambda X: X  # noqa: E731  K(q, k) = q.k = 0 for both keys
    assert np.all(linear_attention(Q, K, np.ones((2, 2)), lin) == 0)


def test_output_error_decreases_with_F(rng):
    # attention-output error against exact Yat attention falls ~F^{-1/2}
    L, d, b = 128, 16, 1.0
    Q, K, V = _unit(rng, L, d), _unit(rng, L, d), rng.standard_normal((L, 4))
    eps = 2.0
    S = gram(Q, K, eps=eps, bias=b)
    exact = S @ V / S.sum(1, keepdims=True)
    err = {F: np.mean([np.linalg.norm(linear_attention(Q, K, V, yat_features(
        d, F, eps=eps, bias=b, spherical=True, method="series", rng=s)) - exact)
        for s in range(4)]) / np.linalg.norm(exact) for F in (64, 1024)}
    assert err[1024] < err[64] / 2.5


def test_rff_attention_float32(rng):
    Q, K, V = (rng.standard_normal((10, 3)).astype(np.float32) for _ in range(3))
    out = linear_attention(Q, K, V, rff(3, 20, rng=0))
    assert out.dtype == np.float32


def test_bad_inputs(rng):
    Q, K, V = rng.standard_normal((5, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    phi = positive_features(3, 4, "softplus", rng=0)
    with pytest.raises(ValueError, match="causal"):
        linear_attention(Q, K, V, phi, causal=True)
    with pytest.raises(ValueError, match="V must have one row per key"):
        linear_attention(Q, K, V[:5], phi)
    with pytest.raises(ValueError, match="Q and K"):
        linear_attention(Q[:, :2], K, V, phi)
    with pytest.raises(TypeError, match="feature_map"):
        linear_attention(Q, K, V, "softplus")
    with pytest.raises(ValueError, match="chunk"):
        linear_attention(Q, K, V, phi, chunk=0)
    with pytest.raises(ValueError, match="feature_map must return"):
        linear_attention(Q, K, V, lambda X: X.sum(1))
