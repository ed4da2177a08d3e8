"""Hamiltonian, feature maps and alignment objectives: analytic gradients vs central differences.

FD tolerance: central differences with step h = 1e-6 have truncation error ~h^2 |f'''| and
roundoff ~u |f| / h ~ 1e-10 |f|; we require 1e-6 relative to the gradient's max entry.
"""
import numpy as np
import pytest

from yatmath.particles import (MAPS, Hamiltonian, alignment, features, features_vjp,
                               interaction_energy, orthogonal_init)


def _data(rng, n=30, d=3):
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _fd(f, A, h=1e-6):
    G = np.zeros_like(A)
    for idx in np.ndindex(A.shape):
        Ap, Am = A.copy(), A.copy()
        Ap[idx] += h
        Am[idx] -= h
        G[idx] = (f(Ap) - f(Am)) / (2 * h)
    return G


@pytest.mark.parametrize("kind", MAPS)
def test_feature_vjp_matches_fd(kind, rng):
    X = rng.standard_normal((7, 3)) * 0.8
    Om = rng.standard_normal((5, 3))
    b = rng.uniform(0, 2 * np.pi, 5)
    G = rng.standard_normal((7, 5))
    f = lambda O: np.sum(G * features(X, O, b, kind=kind, tau=1.3))
    dO, db = features_vjp(X, Om, b, G, kind=kind, tau=1.3)
    fd = _fd(f, Om)
    assert np.max(np.abs(dO - fd)) <= 1e-6 * max(1.0, np.abs(fd).max())
    fb = _fd(lambda bb: np.sum(G * features(X, Om, bb, kind=kind, tau=1.3)), b)
    if kind in ("rff", "elu1"):
        assert np.max(np.abs(db - fb)) <= 1e-6 * max(1.0, np.abs(fb).max())
    else:
        assert np.all(db == 0)


def test_feature_ranges_and_renormalisation(rng):
    X = rng.standard_normal((50, 4))
    Om = rng.standard_normal((16, 4))
    b = rng.uniform(0, 2 * np.pi, 16)
    assert np.abs(features(X, Om, b, kind="rff")).max() <= np.sqrt(2) + 1e-15
    for kind in ("elu1", "softplus", "sigmoid2", "softmaxfeat", "cos2"):
        P = features(X, Om, b, kind=kind)
        assert np.all(P >= 0)
        np.testing.assert_allclose(P.sum(axis=1), np.sqrt(16), rtol=1e-13)


@pytest.mark.parametrize("objective", ["printed", "kta", "centred_kta", "within_class"])
@pytest.mark.parametrize("label_kernel", ["signed", "classes"])
def test_alignment_gradient_and_definition(objective, label_kernel, rng):
    Phi = rng.standard_normal((9, 4))
    y = rng.choice([-1.0, 1.0], 9) if label_kernel == "signed" else rng.integers(0, 3, 9)
    A, dA = alignment(Phi, y, objective=objective, label_kernel=label_kernel)
    fd = _fd(lambda P: alignment(P, y, objective=objective, label_kernel=label_kernel)[0], Phi)
    assert np.max(np.abs(dA - fd)) <= 1e-6 * np.abs(fd).max()
    # the definitions written with the n x n matrices
    n, M = Phi.shape
    K = Phi @ Phi.T / M
    Y = np.outer(y, y) if label_kernel == "signed" else (y[:, None] == y[None, :]).astype(float)
    off = ~np.eye(n, dtype=bool)
    if objective == "printed":
        want = np.sum((Y * K)[off]) / (n * (n - 1))
    elif objective == "within_class":
        want = np.sum(np.triu(Y * (Phi @ Phi.T), 1)) / (n * (n - 1))
    else:
        if objective == "centred_kta":
            H = np.eye(n) - 1.0 / n
            K, Y = H @ K @ H, H @ Y @ H
        want = np.sum(K * Y) / (np.linalg.norm(K) * np.linalg.norm(Y))
    assert A == pytest.approx(want, rel=1e-12)


def test_kta_invariant_to_feature_scale(rng):
    Phi = rng.standard_normal((12, 5))
    y = rng.choice([-1.0, 1.0], 12)
    for obj in ("kta", "centred_kta"):
        assert alignment(3.7 * Phi, y, objective=obj)[0] == pytest.approx(alignment(Phi, y, objective=obj)[0], rel=1e-13)


@pytest.mark.parametrize("feature", ["rff", "favor"])
def test_potential_form_matches_definition_and_gradient(feature, rng):
    """P1: (1/N) sum_k V_D(omega_k) = -A_printed; the vectorised P1 gradient = chain rule = FD."""
    X, y = _data(rng)
    X = X * 0.5
    Om = rng.standard_normal((6, 3))
    b = rng.uniform(0, 2 * np.pi, 6)
    H = Hamiltonian(X, y, feature=feature, learn_phase=True)
    A, _ = alignment(H.features(Om, b), y)
    assert np.mean(H.potential(Om, b)) == pytest.approx(-A, rel=1e-12)
    gO, gb = H.potential_grad(Om, b)
    gO2, gb2 = H.field_grad(Om, b)
    np.testing.assert_allclose(gO / 6, gO2, rtol=1e-10, atol=1e-14)
    k = 2
    def Vk(w):
        O = Om.copy(); O[k] = w
        return H.potential(O, b)[k]
    fd = _fd(Vk, Om[k])
    assert np.max(np.abs(gO[k] - fd)) <= 1e-6 * max(1e-3, np.abs(fd).max())
    if feature == "rff":
        np.testing.assert_allclose(gb / 6, gb2, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("feature", ["rff", "softplus", "softmaxfeat"])
def test_hamiltonian_gradient_with_repulsion(feature, rng):
    X, y = _data(rng, n=20, d=2)
    Om = rng.standard_normal((8, 2))
    b = rng.uniform(0, 2 * np.pi, 8)
    H = Hamiltonian(X, y, feature=feature, lam=0.3, interaction=("plummer", 1.0, 0.2),
                    learn_phase=True)
    gO, gb = H.grad(Om, b)
    fd = _fd(lambda O: H.energy(O, b), Om)
    assert np.max(np.abs(gO - fd)) <= 1e-6 * np.abs(fd).max()
    # H_N splits as alignment + lam W
    assert H.energy(Om, b) == pytest.approx(
        H.field_energy(Om, b) + 0.3 * interaction_energy(Om, "plummer", 1.0, 0.2), rel=1e-13)
    D, _ = H.drift(Om, b)
    np.testing.assert_allclose(D, 8 * gO, rtol=1e-13)


def test_potential_needs_separable_printed(rng):
    X, y = _data(rng)
    H = Hamiltonian(X, y, feature="softplus")
    with pytest.raises(ValueError, match="separable"):
        H.potential(rng.standard_normal((3, 3)))


def test_bad_arguments(rng):
    X, y = _data(rng)
    with pytest.raises(ValueError, match="objective"):
        Hamiltonian(X, y, objective="nope")
    with pytest.raises(ValueError, match="y must have length"):
        Hamiltonian(X, y[:-1])
    with pytest.raises(ValueError, match="kind"):
        features(X, rng.standard_normal((3, 3)), kind="relu")
    with pytest.raises(ValueError, match="same number of columns"):
        features(X, rng.standard_normal((3, 2)))
    with pytest.raises(ValueError, match="interaction"):
        Hamiltonian(X, y, lam=1.0)


def test_orthogonal_init_blocks(rng):
    W = orthogonal_init(7, 3, rng)
    assert W.shape == (7, 3)
    B = W[:3] / np.linalg.norm(W[:3], axis=1, keepdims=True)
    np.testing.assert_allclose(B @ B.T, np.eye(3), atol=1e-12)
