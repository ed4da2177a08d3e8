"""Random-feature maps: unbiasedness, 1/F variance, error against F, documented identities.

Unbiasedness tests average S independent draws (seeds 0..S-1, so they are deterministic) and
require |mean - exact| <= 4.5 standard errors: a correct estimator fails this with probability
< 1e-5 per check, a biased one fails once its bias exceeds 4.5 se.
"""
from __future__ import annotations

import numpy as np
import pytest

from yatmath.features import (POSITIVE_KINDS, favor_plus, gaussian_kernel, laplace_nodes,
                              maclaurin_coefficients, orthogonal_gaussian, positive_features, rff,
                              yat_features)
from yatmath.yat import gram

Z = 4.5


def _draws(make, x, y, seeds):
    return np.array([(lambda p: float(p(x) @ p(y)))(make(s)) for s in seeds])


def _assert_unbiased(vals, exact):
    se = vals.std(ddof=1) / np.sqrt(len(vals))
    assert abs(vals.mean() - exact) <= Z * se, (vals.mean(), exact, se)


def _unit(g, n, d):
    X = g.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# ---------------------------------------------------------------- R1 / R2 -----------------------
@pytest.mark.parametrize("form", ["phase", "sincos"])
@pytest.mark.parametrize("orthogonal", [False, True])
def test_rff_unbiased(rng, form, orthogonal):
    x, y = rng.standard_normal(6), rng.standard_normal(6)
    gamma = 0.3
    vals = _draws(lambda s: rff(6, 16, gamma=gamma, form=form, orthogonal=orthogonal, rng=s),
                  x, y, range(400))
    _assert_unbiased(vals, np.exp(-gamma * np.sum((x - y) ** 2)))


def test_rff_variance_formula_and_1_over_F(rng):
    # R1: Var[2 cos(w.x+b) cos(w.y+b)] = 1 + k(2 delta)/2 - k(delta)^2, so F * Var = that.
    x = rng.standard_normal(4)
    y = x + 0.4 * rng.standard_normal(4)
    gamma = 1.0
    k1 = np.exp(-gamma * np.sum((x - y) ** 2))
    k2 = np.exp(-gamma * np.sum((2 * (x - y)) ** 2))
    single = 1 + k2 / 2 - k1 ** 2
    for F in (8, 64):
        vals = _draws(lambda s: rff(4, F, gamma=gamma, rng=s), x, y, range(1500))
        # sample variance of 1500 draws: relative sd ~ sqrt(2/1500) ~ 4%; allow 15%
        assert vals.var(ddof=1) * F == pytest.approx(single, rel=0.15)
    # sin/cos form: (1 + k(2 delta) - 2 k^2) / F, never larger than the phase form
    vals = _draws(lambda s: rff(4, 64, gamma=gamma, form="sincos", rng=s), x, y, range(1500))
    assert vals.var(ddof=1) * 64 == pytest.approx(1 + k2 - 2 * k1 ** 2, rel=0.15)
    assert 1 + k2 - 2 * k1 ** 2 <= single


def test_orthogonal_blocks(rng):
    W = orthogonal_gaussian(8, 20, rng=rng)
    assert W.shape == (20, 8)
    for blk in (W[:8], W[8:16]):
        G = blk @ blk.T
        off = G - np.diag(np.diag(G))
        assert np.abs(off).max() <= 1e-12 * np.abs(G).max()     # orthogonal rows (rounding)
    # rows are marginally N(0, I): squared norms ~ chi^2(d), mean d (check over many rows)
    big = orthogonal_gaussian(8, 8 * 500, rng=rng)
    sq = (big ** 2).sum(1)
    assert abs(sq.mean() - 8) <= Z * np.sqrt(2 * 8 / len(sq))


def test_orthogonal_features_lower_variance():
    # Yu et al. 2016: ORF has lower variance than i.i.d. RFF (measured at d = F = 16).
    g = np.random.default_rng(5)
    x = g.standard_normal(16) * 0.2
    y = x + 0.15 * g.standard_normal(16)
    v_iid = _draws(lambda s: rff(16, 16, form="sincos", rng=s), x, y, range(800)).var()
    v_orf = _draws(lambda s: rff(16, 16, form="sincos", orthogonal=True, rng=s), x, y,
                   range(800)).var()
    assert v_orf < 0.8 * v_iid


def test_gaussian_kernel_matches_rff_limit(rng):
    X, Y = rng.standard_normal((5, 3)), rng.standard_normal((4, 3))
    phi = rff(3, 40000, gamma=0.5, form="sincos", rng=1)
    err = np.abs(phi(X) @ phi(Y).T - gaussian_kernel(X, Y, 0.5)).max()
    assert err < 5 * np.sqrt(1.0 / 20000)          # ~ 5 sd of a 20000-frequency average


# ---------------------------------------------------------------- R3 / R4 -----------------------
def test_favor_unbiased(rng):
    q, k = 0.4 * rng.standard_normal(5), 0.4 * rng.standard_normal(5)
    vals = _draws(lambda s: favor_plus(5, 8, orthogonal=False, rng=s), q, k, range(600))
    _assert_unbiased(vals, np.exp(q @ k))
    # R3 relative sd: sqrt((exp(||q+k||^2) - 1) / M) per M features
    rel_sd = vals.std(ddof=1) / np.exp(q @ k)
    assert rel_sd == pytest.approx(np.sqrt((np.exp(np.sum((q + k) ** 2)) - 1) / 8), rel=0.2)


@pytest.mark.parametrize("kind", POSITIVE_KINDS)
def test_positive_maps_positive_and_renormalised(rng, kind):
    X = 3 * rng.standard_normal((20, 6))
    phi = positive_features(6, 32, kind, tau=1.5, rng=rng)
    P = phi(X)
    assert P.shape == (20, 32) and np.all(P > 0 if kind != "cos2" else P >= 0)
    if phi.renorm or kind == "softmaxfeat":
        np.testing.assert_allclose(P.sum(1), np.sqrt(32), rtol=1e-12)
    assert phi.params["tau"] == 1.5 and "floor" in phi.params


def test_cos2_phase_average():
    # R4: E_b[cos^2(u+b) cos^2(v+b)] = 1/4 + cos(2(u-v))/8; a trig polynomial of degree 4 in b,
    # so the uniform 9-point rule is exact.
    b = 2 * np.pi * np.arange(9) / 9
    for u, v in [(0.3, -1.2), (2.0, 2.0), (5.0, 0.1)]:
        lhs = np.mean(np.cos(u + b) ** 2 * np.cos(v + b) ** 2)
        assert lhs == pytest.approx(0.25 + np.cos(2 * (u - v)) / 8, abs=1e-14)


@pytest.mark.parametrize("kind", ["elu+1", "softplus", "sigmoid2", "softmaxfeat", "cos2",
                                  "favor"])
def test_positive_maps_converge_to_limit_kernel(rng, kind):
    # small inputs keep FAVOR's relative sd sqrt((e^{|q+k|^2} - 1)/M) moderate
    X, Y = 0.3 * rng.standard_normal((4, 3)), 0.3 * rng.standard_normal((3, 3))
    errs = []
    for M in (64, 4096):
        trials = [positive_features(3, M, kind, rng=s) for s in range(8)]
        lim = trials[0].limit_kernel(X, Y)
        errs.append(np.mean([np.abs(p(X) @ p(Y).T - lim).max() / np.abs(lim).max()
                             for p in trials]))
    # O(M^{-1/2}) convergence: 64x more features should cut the error by ~8; ask for 3
    assert errs[1] < errs[0] / 3 and errs[1] < 0.05


def test_positive_bad_inputs():
    with pytest.raises(ValueError, match="kind"):
        positive_features(3, 4, "relu")
    with pytest.raises(ValueError, match="tau"):
        positive_features(3, 4, "softplus", tau=0.0)
    with pytest.raises(ValueError, match="renorm"):
        positive_features(3, 4, "favor", renorm=True)
    with pytest.raises(ValueError, match="omega"):
        positive_features(3, 4, "softplus", omega=np.ones((4, 3)))


# ---------------------------------------------------------------- R5 / Y8 -----------------------
def test_laplace_nodes_accuracy():
    # Y8(b): h = 0.5 gives max relative error 4.7e-8 over a in [1e-3, 1e3]
    t, W = laplace_nodes(1e-3, 1e3 - 1e-3, h=0.5)
    a = np.logspace(-3, 3, 400)
    approx = (W[None, :] * np.exp(-t[None, :] * (a[:, None] - 1e-3))).sum(1)
    assert np.max(np.abs(approx * a - 1)) < 1e-7


def test_maclaurin_coefficients_sum_to_kernel():
    eps, b = 0.7, 0.5
    a = maclaurin_coefficients(200, eps, b)
    assert np.all(a >= 0)
    for c in (-0.9, -0.2, 0.0, 0.4, 0.95):
        exact = (c + b) ** 2 / (2 + eps - 2 * c)
        assert np.polynomial.polynomial.polyval(c, a) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("method,bias", [("laplace_mc", 0.0), ("laplace_mc", 1.5),
                                         ("laplace_quadrature", 0.0),
                                         ("laplace_quadrature", 1.5)])
def test_yat_features_unbiased_general(rng, method, bias):
    q = rng.standard_normal(4)
    k = q + 0.6 * rng.standard_normal(4)
    eps = 0.8
    exact = gram(q[None], k[None], eps=eps, bias=bias or None)[0, 0]
    opts = {"r2_max": 30.0} if method == "laplace_quadrature" else {}
    vals = _draws(lambda s: yat_features(4, 256, eps=eps, bias=bias, method=method, rng=s,
                                         **opts), q, k, range(300))
    _assert_unbiased(vals, exact)


@pytest.mark.parametrize("method", ["maclaurin", "series"])
@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_yat_features_unbiased_spherical(rng, method, bias):
    Xs = _unit(rng, 2, 8)
    q, k = Xs[0], 0.6 * Xs[0] + 0.8 * Xs[1]
    k /= np.linalg.norm(k)
    eps = 1.0
    exact = gram(q[None], k[None], eps=eps, bias=bias or None)[0, 0]
    vals = _draws(lambda s: yat_features(8, 64, eps=eps, bias=bias, spherical=True,
                                         method=method, rng=s), q, k, range(500))
    _assert_unbiased(vals, exact)


def test_yat_exact_polynomial_reproduces_y8a_check():
    # Y8(a) measured check: d=3, eps=0.8, 20 x 1e5 features gives 0.4125 +- 0.0028 vs exact
    # 0.4121.  We take 20 draws of 1000 frequencies x (d+1)^2 exact polynomial features.
    g = np.random.default_rng(3)
    q, k = g.standard_normal(3) * 0.7, g.standard_normal(3) * 0.7
    exact = gram(q[None], k[None], eps=0.8)[0, 0]
    vals = _draws(lambda s: yat_features(3, 16 * 1000, eps=0.8, method="laplace_mc",
                                         poly="exact", rng=s), q, k, range(20))
    _assert_unbiased(vals, exact)


def test_yat_variance_decays_as_one_over_F(rng):
    q = rng.standard_normal(4)
    k = q + 0.5 * rng.standard_normal(4)
    v = {F: _draws(lambda s: yat_features(4, F, eps=1.0, bias=0.5, method="laplace_mc", rng=s),
                   q, k, range(600)).var(ddof=1) for F in (32, 512)}
    # 16x the features: variance ratio 16, sample-variance noise (heavy-ish tails) -> [8, 32]
    assert 8 < v[32] / v[512] < 32


def test_yat_kernel_error_decreases_with_F(rng):
    X = _unit(rng, 40, 16)
    eps = 1.5
    Kx = gram(X, X, eps=eps, bias=0.5)
    err = {}
    for F in (64, 1024):
        err[F] = np.mean([np.linalg.norm((lambda P: P @ P.T)(yat_features(
            16, F, eps=eps, bias=0.5, spherical=True, method="series", rng=s)(X)) - Kx)
            for s in range(5)]) / np.linalg.norm(Kx)
    assert err[1024] < err[64] / 2.5          # expected ratio 4 (error ~ F^{-1/2})


def test_series_beats_maclaurin_per_entry_variance(rng):
    # at a fixed budget the allocated expansion has lower kernel error than Kar-Karnick
    X = _unit(rng, 60, 32)
    Y = _unit(rng, 60, 32)
    for b in (0.0, 1.0):
        Kxy = gram(X, Y, eps=2.0, bias=b or None)

        def mse(method):
            return np.mean([np.mean((yat_features(32, 128, eps=2.0, bias=b, spherical=True,
                                                  method=method, rng=s)(X) @ yat_features(
                32, 128, eps=2.0, bias=b, spherical=True, method=method, rng=s)(Y).T - Kxy) ** 2)
                for s in range(6)])
        assert mse("series") < 0.5 * mse("maclaurin")


def test_series_allocation_recorded():
    phi = yat_features(64, 256, eps=2.0, bias=1.0, spherical=True, method="series", rng=0)
    p = phi.params
    assert p["exact_linear"] and sum(p["allocation"].values()) == 256 - 1 - 64
    assert phi(np.eye(64)[:3]).shape == (3, 256)


def test_yat_float32_and_vector_input(rng):
    phi = yat_features(5, 32, eps=1.0, rng=0)
    x = rng.standard_normal(5)
    assert phi(x).shape == (32,)
    assert phi(x.astype(np.float32)).dtype == np.float32


def test_yat_bad_inputs(rng):
    with pytest.raises(ValueError, match="eps"):
        yat_features(3, 8, eps=0.0)
    with pytest.raises(ValueError, match="bias"):
        yat_features(3, 8, eps=1.0, bias=-1.0)
    with pytest.raises(ValueError, match="method"):
        yat_features(3, 8, eps=1.0, method="nope")
    with pytest.raises(ValueError, match="spherical"):
        yat_features(3, 8, eps=1.0, method="maclaurin")
    with pytest.raises(ValueError, match="r2_max"):
        yat_features(3, 8, eps=1.0, method="laplace_quadrature")
    with pytest.raises(ValueError, match="t_rate"):
        yat_features(3, 8, eps=1.0, method="laplace_mc", t_rate=2.5)
    with pytest.raises(ValueError, match="num_features"):
        yat_features(3, 0, eps=1.0)
    with pytest.raises(ValueError, match="num_features"):
        yat_features(3, 17, eps=1.0, method="laplace_mc", poly="exact")
    with pytest.raises(TypeError, match="rng"):
        yat_features(3, 8, eps=1.0, rng="seed")
    phi = yat_features(3, 8, eps=1.0, spherical=True, method="series", rng=0)
    with pytest.raises(ValueError, match="unit-norm"):
        phi(np.ones((2, 3)))
    with pytest.raises(ValueError, match="X must have 3 columns"):
        phi(np.ones((2, 4)))
    with pytest.raises(ValueError, match="X contains NaN"):
        yat_features(3, 8, eps=1.0, rng=0)(np.array([[np.nan, 0, 0]]))


def test_same_seed_same_features(rng):
    X = rng.standard_normal((3, 4))
    a = yat_features(4, 16, eps=1.0, rng=7)(X)
    b = yat_features(4, 16, eps=1.0, rng=np.random.default_rng(7))(X)
    np.testing.assert_array_equal(a, b)


def test_series_variance_matches_its_allocation_model():
    # The "series" allocation minimises the modelled per-entry variance sum_s w_s^2 v_s / m_s
    # with v_s = 1 (v = (2/d)^2 for the centred diagonal): the second moment of a Rademacher
    # product / Hutchinson feature for unit near-orthogonal q, k.  Measured on random unit pairs
    # (near-orthogonal at d = 32: |q.k| ~ 0.18) the MSE must agree with the model; it sits a
    # little below, because the off-diagonal Hutchinson feature's second moment is
    # 1 - sum_i x_i^4 ~ 1 - 3/d < 1.  100 draws: the mean MSE has relative sd ~2-3%.
    g = np.random.default_rng(11)
    d, F, eps, b = 32, 128, 2.0, 1.0
    X, Y = _unit(g, 30, d), _unit(g, 30, d)
    Kxy = gram(X, Y, eps=eps, bias=b)
    mse = []
    for s in range(100):
        phi = yat_features(d, F, eps=eps, bias=b, spherical=True, method="series", rng=s)
        mse.append(np.mean((phi(X) @ phi(Y).T - Kxy) ** 2))
    ratio = np.mean(mse) / phi.params["model_variance"]
    assert 0.8 <= ratio <= 1.05, ratio


# ------------------------------------------------------- numerics at extreme scales (issue 13)

def test_maclaurin_coefficients_in_logs_match_mpmath():
    import mpmath

    from yatmath.features import maclaurin_coefficients

    # b = 1e200, eps = 1e300: a_0 = b^2 / (2 + eps) = 1e100 (before: b*b overflowed to inf)
    for n_max, eps, b in ((6, 1e300, 1e200), (6, 1.0, 0.5), (40, 1e-3, -2.0), (3, 2.0, 0.0)):
        got = maclaurin_coefficients(n_max, eps, b)
        with mpmath.workdps(50):
            A, bb = 2 + mpmath.mpf(eps), mpmath.mpf(b)
            g = [mpmath.mpf(2) ** n / A ** (n + 1) for n in range(n_max + 1)]
            ref = [bb * bb * g[n] + (2 * bb * g[n - 1] if n >= 1 else 0)
                   + (g[n - 2] if n >= 2 else 0) for n in range(n_max + 1)]
            scale = [abs(bb * bb * g[n]) + (abs(2 * bb * g[n - 1]) if n >= 1 else 0)
                     + (g[n - 2] if n >= 2 else 0) for n in range(n_max + 1)]
        # each term exp(log) carries ~ (|ln term| + 2) u relative error (<= ~1e-13 here), taken
        # relative to the sum of |terms| (a negative b makes the terms cancel)
        for k in range(n_max + 1):
            assert abs(got[k] - float(ref[k])) <= 1e-13 * float(scale[k]), (n_max, eps, b, k)
        assert np.all(np.isfinite(got))


def test_gaussian_kernel_extremes_are_exact_not_nan():
    from yatmath.features import gaussian_kernel

    X = np.array([[1e200, 0.0], [-1e200, 1e200], [0.0, 0.0]])
    K = gaussian_kernel(X, X, 0.5)
    # squared distances ~1e400 overflow: exp(-inf) = 0 is the true value to float64 precision;
    # identical points give exactly 1
    np.testing.assert_array_equal(K, np.eye(3))
    # tiny differences: the direct form keeps them (no ||x||^2 + ||y||^2 - 2 x.y cancellation)
    Y = np.array([[1.0, 2.0]])
    Z = np.array([[1.0 + 2.0 ** -30, 2.0]])
    assert gaussian_kernel(Y, Z, 1.0)[0, 0] == np.exp(-(2.0 ** -60))
