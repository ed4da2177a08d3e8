"""yatmath.yat.kernel.ntk_gram: the Monte Carlo NTK of 000 Prop 6 against a plain re-derivation."""
import numpy as np
import pytest

import yatmath.yat as Y


def _plain(W, X, eps):
    s = X @ W.T                                          # (n, m)
    D = ((X[:, None, :] - W[None]) ** 2).sum(-1) + eps   # (n, m)
    K = s ** 2 / D
    # grad_w K = 2 s x / D - 2 s^2 (w - x) / D^2
    G = 2 * (s / D)[..., None] * X[:, None, :] - 2 * (s ** 2 / D ** 2)[..., None] * (W[None] - X[:, None, :])
    T1 = K @ K.T / W.shape[0]
    T2 = np.einsum("imd,jmd->ij", G, G) / W.shape[0]
    return T1, T2


def test_ntk_gram_matches_plain_formula():
    X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.2], [0.3, 0.3, 0.3]])
    T1, T2 = Y.kernel.ntk_gram(X, 0.7, sigma=1.3, n_w=5000, seed=4, terms=True, chunk=1234)
    W = 1.3 * np.random.default_rng(4).standard_normal((5000, 3))
    # chunking draws rows in order from one generator: the same W as one draw
    P1, P2 = _plain(W, X, 0.7)
    np.testing.assert_allclose(T1, P1, rtol=1e-10)
    np.testing.assert_allclose(T2, P2, rtol=1e-10, atol=1e-14)
    G = Y.kernel.ntk_gram(X, 0.7, sigma=1.3, n_w=5000, seed=4, chunk=1234)
    np.testing.assert_allclose(G, P1 + P2, rtol=1e-10, atol=1e-14)
    assert np.linalg.eigvalsh(G)[0] >= -1e-12 * np.linalg.eigvalsh(G)[-1]


def test_ntk_gram_origin_row_is_zero_and_rejects_bad_input():
    G = Y.kernel.ntk_gram(np.array([[0.0, 0.0], [1.0, 2.0]]), 1.0, n_w=100)
    assert np.all(G[0] == 0)
    with pytest.raises(ValueError):
        Y.kernel.ntk_gram(np.ones(3), 1.0)
    with pytest.raises(ValueError):
        Y.kernel.ntk_gram(np.ones((2, 2)), 0.0)
