"""Numerics of yatmath.itnet at the edges of float64: never NaN from finite input.

Each test names the true value (an mpmath evaluation, an exact limit, or a rescaled computation
that cannot overflow) and checks that the function returns it within a stated tolerance, or that
the true value overflows and the function raises OverflowError naming the argument.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import yatmath.itnet as it
from yatmath.itnet import _numba_tiled as nb
from yatmath.itnet import lowrank, mc, network
from yatmath.itnet.dense import scaled_einsum

U64 = 2.0 ** -53


# ---- GELU: the left tail, huge and infinite arguments -------------------------------------------
@pytest.mark.parametrize("a", [-1.0, -5.0, -10.0, -20.0, -37.0])
def test_exact_gelu_keeps_relative_accuracy_in_the_left_tail(a):
    """a Phi(a) = a/2 erfc(-a/sqrt 2) (mpmath, 30 digits); the old 1 + erf form gave 0 (100%
    relative error) below a = -8.  Tolerance (2 a^2 + 16) u relative: the condition number of
    Phi at a is |a phi(a) / Phi(a)| ~ a^2, and the argument -a/sqrt 2 is rounded once."""
    with mpmath.workdps(30):
        ref = float(mpmath.mpf(a) * mpmath.ncdf(a))
    tol = (2 * a * a + 16) * U64 * abs(ref)
    assert abs(float(it.gelu(np.array(a))) - ref) <= tol
    assert abs(float(nb._gelu(a, 0)) - ref) <= tol


@pytest.mark.parametrize("kind", ["exact", "tanh"])
def test_gelu_and_derivative_limits_at_huge_and_infinite_arguments(kind):
    """Limits: GELU(a) = a for a -> inf, 0 for a -> -inf; GELU'(a) -> 1 and 0.  Exact at these
    arguments (the tail terms underflow to 0).  Before: GELU'(1e200, tanh) = NaN (0 * inf) and
    GELU(-inf) = NaN."""
    a = np.array([1e200, -1e200, np.inf, -np.inf, 1e-300, -40.0])
    g, gp = it.gelu(a, kind), it.gelu_prime(a, kind)
    assert not np.isnan(g).any() and not np.isnan(gp).any()
    np.testing.assert_array_equal(g[:4], [1e200, 0.0, np.inf, 0.0])
    np.testing.assert_array_equal(gp[:4], [1.0, 0.0, 1.0, 0.0])
    k = 0 if kind == "exact" else 1
    for x, want in ((1e200, 1.0), (-1e200, 0.0), (np.inf, 1.0), (-np.inf, 0.0)):
        assert nb._gelu_prime(x, k) == want
    assert nb._gelu(-np.inf, k) == 0.0


# ---- distances and the Fourier lift -----------------------------------------------------------
def test_pair_distance_rescales_instead_of_overflowing():
    """||(3e200, 4e200)|| = 5e200 exactly representable up to rounding (2 ulp); the plain
    sqrt(sum squares) gave inf.  Ordinary inputs keep the plain formula bit for bit."""
    d = network.pair_distance(np.array([[3e200, 4e200], [3.0, 4.0], [0.0, 0.0]]))
    assert abs(d[0] - 5e200) <= 2 * U64 * 5e200
    assert d[1] == 5.0 and d[2] == 0.0


def test_fourier_lift_reduces_an_overflowing_argument():
    """t = x b = 1e308 is an integer in float64, so sin(2 pi t) = 0 and cos(2 pi t) = 1 exactly;
    2 pi t overflows (before: NaN).  A product x b that overflows itself raises OverflowError."""
    np.testing.assert_array_equal(it.fourier_lift(np.array([[1e307]]), np.array([[10.0]])), [[0.0, 1.0]])
    with pytest.raises(OverflowError, match="X"):
        it.fourier_lift(np.array([[1e307]]), np.array([[1e3]]))


@pytest.mark.parametrize("backend", ["dense", "numba", "numpy"])
def test_distance_input_group_at_nodes_of_1e160(backend):
    """Kernel on the distance only (b1 = b2 = 0, W = 0): for |w_r r| > 40, GELU(w_r r) equals
    max(w_r r, 0) exactly in float64, so at nodes scaled by 1e10 and by 1e160 the kernel is
    positively homogeneous: O(1e160 X) = 1e150 O(1e10 X) up to rounding (the reference has no
    overflow: distances ~1e10).  Before: the squared distances ~1e320 overflowed and
    inf - inf gave NaN.  Tolerance 1e-12 relative: O(n w) roundings per term (n = 9, w = 6)."""
    rng = np.random.default_rng(3)
    n, d = 9, 2
    net = it.random_kernel_mlp(d, 1, width=6, L=2, groups=("dist",), rng=rng)
    net = net.with_params(b1=np.zeros(6), b2=np.zeros(d * d))
    op = it.ITNetOperator(net, np.zeros((d, d)))
    X = np.sort(rng.uniform(size=(n, 1)), axis=0)
    X[1:] += 1e-3 * np.arange(1, n)[:, None]          # distinct nodes: |w_r r| >> 40 off the diagonal
    U = rng.normal(size=(n, d))
    w = np.full(n, 1.0 / n)
    kw = {} if backend == "dense" else dict(mode="tiled", tile=4, backend=backend)
    big = it.apply(op, U, it.Measure(X * 1e160, w), **kw)
    ref = it.apply(op, U, it.Measure(X * 1e10, w), **kw) * 1e150
    assert np.isfinite(big).all()
    assert np.abs(big - ref).max() <= 1e-12 * np.abs(ref).max()


# ---- contractions, overflowing outputs --------------------------------------------------------
def test_scaled_einsum_returns_the_finite_sum_of_overflowing_products():
    """K u omega = 1e300 * 1e10 * 1e-20 = 1e290 per term (two terms: 2e290): the plain einsum
    formed K u = inf first (before: inf).  Rescaled by powers of two: exact up to 3 roundings."""
    K = np.full((1, 2, 1, 1), 1e300)
    u = np.full((2, 1), 1e10)
    om = np.full(2, 1e-20)
    got = it.apply_kernel_tensor(K, u, om)
    assert got.shape == (1, 1) and abs(got[0, 0] - 2e290) <= 4 * U64 * 2e290
    # a sum that does overflow: +inf with its sign, not NaN
    out = scaled_einsum("i,i->", np.array([1e300, 1e300]), np.array([-1e300, -1e10]))
    assert out == -np.inf


@pytest.mark.parametrize("mode", ["dense", "tiled", "mc"])
def test_output_that_overflows_raises_naming_U(mode):
    """U = 1e150 u: the kernel (u(x) * u(y) group) is ~1e300 and K u ~ 1e450 > 1.8e308: the true
    output overflows.  The rescaled product |sum_j c K_ij u_j| / 1e150 (all factors finite) shows
    it; the function raises OverflowError naming U (before: NaN)."""
    rng = np.random.default_rng(11)
    n, d = 6, 2
    op = it.ITNetOperator(it.random_kernel_mlp(d, 1, width=6, L=2, rng=rng), np.eye(d))
    X, U = rng.uniform(size=(n, 1)), rng.normal(size=(n, d)) * 1e150
    mu = it.discrete_uniform(X)
    K = op.kernel.kernel(X, X, U, U)
    assert np.isfinite(K).all()
    scaled = np.abs(np.einsum("ijab,jb->ia", K / n, U / 1e150)).max()
    assert np.log10(scaled) + 150 > np.log10(np.finfo(np.float64).max)
    with pytest.raises(OverflowError, match=r"max\|U\|"):
        it.apply(op, U, mu, mode=mode, **({"M": 3, "rng": 0} if mode == "mc" else {}))


# ---- low rank ----------------------------------------------------------------------------------
def test_spectrum_report_at_1e300_and_svd_overflow():
    """||K||_F of K * 1e300 = 1e300 ||K||_F (exact scaling up to rounding, 4 u); before: inf, since
    the squares of the singular values were taken unscaled.  A sigma_1 above the float64 maximum
    raises OverflowError naming K instead of returning inf/NaN factors."""
    K = np.random.default_rng(5).normal(size=(4, 5, 2, 2))
    ref = lowrank.spectrum_report(K)
    big = lowrank.spectrum_report(K * 1e300)
    assert abs(big["fro"] - 1e300 * ref["fro"]) <= 4 * U64 * 1e300 * ref["fro"]
    np.testing.assert_allclose(big["err_fro"], 1e300 * ref["err_fro"], rtol=64 * U64)
    P, Q = it.svd_factors(K * 1e300, 8)
    np.testing.assert_allclose(np.einsum("ira,jrb->ijab", P / 1e300, Q), K, rtol=0,
                               atol=1e-13 * np.abs(K).max())
    with pytest.raises(OverflowError, match="K"):
        it.svd_factors(K * 4e307, 3)


# ---- Monte Carlo proposal ------------------------------------------------------------------------
def test_gaussian_proposal_with_a_tiny_scale_is_the_nearest_key():
    """scale = 1e-200: every weight exp(-r^2 / 2 s^2) with r > 0 underflows, so the correctly
    rounded pmf is the point mass on the nearest key (before: 0/0 = NaN for every entry)."""
    X = np.array([[0.0], [0.3], [1.0]])
    q = mc.proposal_pmf("gaussian", X, X, np.ones(3), scale=1e-200)
    np.testing.assert_array_equal(q, np.eye(3))
    Xq = np.array([[0.1]])
    np.testing.assert_array_equal(mc.proposal_pmf("gaussian", Xq, X, np.ones(3), scale=1e-200),
                                  [[1.0, 0.0, 0.0]])
