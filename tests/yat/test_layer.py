"""The NMN layer: forward against per-pair products, backward against finite differences (Y3, Y4).

Finite-difference tolerance: central differences, h = 1e-6, float64, O(1) data: truncation
~h^2 |f'''| ~ 1e-12, rounding ~u |L| / h ~ 1e-9 for |L| ~ 10, so 1e-7 normwise relative
agreement has margin, while a missing norm term (the 2 diag(.) X part) changes dX by O(1).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from tests.fdcheck import FD_RTOL, U64, H, assert_fd_close  # noqa: F401
from tests.fdcheck import fd as _fd

import yatmath._array as be
from yatmath.yat import grad, layer_backward, layer_forward, product, width_scale


def test_width_scale_check_value():
    s, log_base = width_scale(10, 1.0)
    assert abs(s - 4.1703) < 5e-5  # algorithms.md Y4 check value (4 decimals)
    s2, _ = width_scale(10, 1.0, scale_num="sqrt_n")
    assert s2 == pytest.approx(math.sqrt(10) / math.log(11), rel=4 * U64)
    s3, _ = width_scale(10, 2.5)
    assert s3 == pytest.approx((10 / math.log(11)) ** 2.5, rel=16 * U64)
    assert log_base == pytest.approx(math.log(10 / math.log(11)), rel=4 * U64)


@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
@pytest.mark.parametrize("reduce", [None, "sum"])
def test_forward_equals_scaled_pairwise_products(bias_mode, reduce):
    rng = np.random.default_rng(0)
    X, W = rng.normal(size=(7, 5)), rng.normal(size=(4, 5))
    c = None if bias_mode is None else rng.normal(size=4)
    mode = bias_mode or "inner"
    Y = layer_forward(X, W, 0.3, c, alpha=0.7, bias_mode=mode, reduce=reduce, backend="numpy")
    s = (4 / math.log(5)) ** 0.7
    ref = s * product(W[None, :, :], X[:, None, :], 0.3, c, bias_mode=mode, backend="numpy")
    if reduce == "sum":
        ref = ref.sum(axis=1)
    # the numpy backend uses the same direct float64 form as product: only s's rounding differs
    np.testing.assert_allclose(Y, ref, rtol=8 * U64, atol=0)


@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
@pytest.mark.parametrize("reduce,scale_num,scalar_bias", [(None, "n", False), ("sum", "sqrt_n", False),
                                                          (None, "sqrt_n", True)])
def test_backward_matches_finite_differences(bias_mode, reduce, scale_num, scalar_bias):
    """B=5, n=4, d=6, eps=0.7 as in algorithms.md Y3, all bias modes; alpha != 1."""
    rng = np.random.default_rng(1)
    X, W = rng.normal(size=(5, 6)), rng.normal(size=(4, 6))
    X[2] = W[1] * (1 + 1e-9)  # a near-coincident pair: exercises the repaired D
    if bias_mode is None:
        c = None
    else:
        c = np.array(0.4) if scalar_bias else rng.normal(size=4)
    mode = bias_mode or "inner"
    eps, alpha = 0.7, 1.3
    kw = dict(bias_mode=mode, scale_num=scale_num, reduce=reduce, backend="numpy")
    Y, cache = layer_forward(X, W, eps, c, alpha, return_cache=True, **kw)
    G = rng.normal(size=Y.shape)
    g = layer_backward(G, cache)

    def loss(X_=X, W_=W, e_=eps, c_=c, a_=alpha):
        return float(np.sum(G * layer_forward(X_, W_, e_, c_, a_, **kw)))

    assert_fd_close(_fd(lambda a: loss(X_=a), X), g.X)
    assert_fd_close(_fd(lambda a: loss(W_=a), W), g.W)
    assert_fd_close(_fd(lambda a: loss(e_=float(a)), np.array(eps)), g.eps)
    assert_fd_close(_fd(lambda a: loss(a_=float(a)), np.array(alpha)), g.alpha)
    if c is None:
        assert g.bias is None
    else:
        assert np.shape(g.bias) == np.shape(c)
        assert_fd_close(_fd(lambda a: loss(c_=a), c), g.bias)


@pytest.mark.parametrize("bias_mode", [None, "inner"])
def test_backward_agrees_with_pairwise_closed_form(bias_mode):
    """dX_i = s sum_j G_ij grad_x g(x_i; w_j): the GEMM backward against grad() summed by hand.

    Both are float64 with O(d u) relative error per term; 1e-12 normwise is ~5000 u."""
    rng = np.random.default_rng(2)
    X, W = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))
    c = None if bias_mode is None else rng.normal(size=5)
    Y, cache = layer_forward(X, W, 0.2, c, 1.0, return_cache=True, backend="numpy")
    G = rng.normal(size=Y.shape)
    g = layer_backward(G, cache)
    s = cache.s
    pg = grad(W[None, :, :], X[:, None, :], 0.2, c)
    assert_fd_close(s * np.einsum("ij,ijk->ik", G, pg.x), g.X, rtol=1e-12)
    assert_fd_close(s * np.einsum("ij,ijk->jk", G, pg.w), g.W, rtol=1e-12)
    assert_fd_close(s * np.sum(G * pg.eps), g.eps, rtol=1e-12)
    if c is not None:
        assert_fd_close(s * np.sum(G * pg.bias, axis=0), g.bias, rtol=1e-12)


def test_one_dimensional_input():
    rng = np.random.default_rng(3)
    x, W = rng.normal(size=4), rng.normal(size=(3, 4))
    y, cache = layer_forward(x, W, 0.5, return_cache=True)
    Y2 = layer_forward(x[None], W, 0.5)
    assert y.shape == (3,)
    np.testing.assert_array_equal(y, Y2[0])
    G = rng.normal(size=3)
    g = layer_backward(G, cache)
    assert g.X.shape == (4,)
    assert_fd_close(_fd(lambda a: float(G @ layer_forward(a, W, 0.5)), x), g.X)


@pytest.mark.slow
@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
def test_numba_backend_equals_numpy_backend(bias_mode):
    """The numba path runs gram's GEMM/expanded form with repair; the numpy path the direct form.

    d = 40 > DIRECT_MAX_D so the GEMM path is taken.  gram's bound gives each entry
    4(d+4)u(cond+8) K plus an absolute term; normwise over the matrix that is <= ~1e-12 for
    Gaussian data (cond is large only where K is tiny).  The gradients add, for the coincident
    pair (r = ||w||^2 / eps ~ 4e4), the GEMM form's rounding of P w against 2 q x: u r relative
    to that pair's contribution (layer module docstring), which dominates its row; the two paths
    round P differently, so we allow 1e-12 + 16 u r_max."""
    rng = np.random.default_rng(4)
    X, W = rng.normal(size=(30, 40)), rng.normal(size=(20, 40))
    X[3] = W[5]  # exact coincidence: the expanded form cancels completely and must be repaired
    c = None if bias_mode is None else rng.normal(size=20)
    mode = bias_mode or "inner"
    out = {}
    for backend in ("numpy", "numba"):
        Y, cache = layer_forward(X, W, 1e-3, c, bias_mode=mode, backend=backend, return_cache=True)
        out[backend] = (Y, layer_backward(np.ones_like(Y), cache))
    (Y0, g0), (Y1, g1) = out["numpy"], out["numba"]
    assert_fd_close(Y1, Y0, rtol=1e-12)
    tol = 1e-12 + 16 * U64 * float(W[5] @ W[5]) / 1e-3
    assert_fd_close(g1.X, g0.X, rtol=tol)
    assert_fd_close(g1.W, g0.W, rtol=tol)
    assert g1.alpha == pytest.approx(g0.alpha, rel=1e-12)


@pytest.mark.slow
def test_float32_layer():
    """float32 throughout: forward and gradients within a normwise 50 (d+4) u32 of float64
    (u32 = 6e-8; the bound 4(d+4) u (cond+8) is normwise dominated by well-conditioned pairs)."""
    rng = np.random.default_rng(5)
    X, W, c = rng.normal(size=(9, 6)), rng.normal(size=(7, 6)), rng.normal(size=7)
    tol = 50 * 10 * np.finfo(np.float32).eps / 2
    Y64, c64 = layer_forward(X, W, 0.5, c, return_cache=True)
    Y32, c32 = layer_forward(X.astype(np.float32), W.astype(np.float32), 0.5,
                             c.astype(np.float32), return_cache=True)
    assert Y32.dtype == np.float32
    assert_fd_close(Y32, Y64, rtol=tol)
    G = rng.normal(size=Y64.shape)
    g64, g32 = layer_backward(G, c64), layer_backward(G.astype(np.float32), c32)
    assert g32.X.dtype == np.float32 and g32.W.dtype == np.float32
    assert_fd_close(g32.X, g64.X, rtol=tol)
    assert_fd_close(g32.W, g64.W, rtol=tol)
    assert_fd_close(g32.bias, g64.bias, rtol=tol)


def test_homogeneity_at_large_norms():
    """With X, W scaled by c and eps by c^2 the layer output scales by c^2 and dX by c.

    c = 1e100: N^2 ~ 1e400 would overflow, the r = N/D form does not.  O(1) conditioning
    (well-separated Gaussian data), so 1e-12 relative."""
    rng = np.random.default_rng(6)
    X, W = rng.normal(size=(4, 5)), rng.normal(size=(3, 5))
    c = 1e100
    Y, k = layer_forward(X, W, 0.5, return_cache=True, backend="numpy")
    Yc, kc = layer_forward(c * X, c * W, 0.5 * c * c, return_cache=True, backend="numpy")
    np.testing.assert_allclose(Yc / c**2, Y, rtol=1e-12)
    G = rng.normal(size=Y.shape)
    g, gc = layer_backward(G, k), layer_backward(G, kc)
    assert np.all(np.isfinite(gc.X))
    assert_fd_close(gc.X / c, g.X, rtol=1e-12)
    assert_fd_close(gc.W / c, g.W, rtol=1e-12)


@pytest.mark.parametrize("call,exc,word", [
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 5)), 1.0), ValueError, "X"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 3)), -1.0), ValueError, "eps"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 3)), 1.0, alpha=np.inf), ValueError, "alpha"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 3)), 1.0, reduce="mean"), ValueError, "reduce"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 3)), 1.0, scale_num="log"), ValueError,
     "scale_num"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((4, 3)), 1.0, bias=np.ones(3)), ValueError, "bias"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones((0, 3)), 1.0), ValueError, "W"),
    (lambda: layer_forward(np.ones((2, 3)), np.ones(3), 1.0), ValueError, "W"),
    (lambda: layer_forward(np.full((2, 3), np.nan), np.ones((4, 3)), 1.0), ValueError, "X"),
    (lambda: layer_backward(np.ones((2, 4)), object()), TypeError, "cache"),
    (lambda: layer_backward(np.ones((4, 2)),
                            layer_forward(np.ones((2, 3)), np.ones((4, 3)), 1.0,
                                          return_cache=True)[1]), ValueError, "G"),
])
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
def test_cupy_layer_matches_numpy():
    import cupy as cp

    rng = np.random.default_rng(7)
    X, W, c = rng.normal(size=(50, 32)), rng.normal(size=(20, 32)), rng.normal(size=20)
    Y, k = layer_forward(X, W, 0.1, c, return_cache=True, backend="numpy")
    Yc, kc = layer_forward(cp.asarray(X), cp.asarray(W), 0.1, cp.asarray(c), return_cache=True)
    assert isinstance(Yc, cp.ndarray)
    G = rng.normal(size=Y.shape)
    g, gc = layer_backward(G, k), layer_backward(cp.asarray(G), kc)
    assert isinstance(gc.X, cp.ndarray)
    assert_fd_close(cp.asnumpy(Yc), Y, rtol=1e-12)
    assert_fd_close(cp.asnumpy(gc.X), g.X, rtol=1e-12)
    assert_fd_close(cp.asnumpy(gc.W), g.W, rtol=1e-12)
    assert_fd_close(cp.asnumpy(gc.bias), g.bias, rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_backward_repairs_cancellation_near_coincident_pairs(backend):
    """x_2 = w_1 (1 + delta) with eps tiny: the expanded D = ||x||^2 + ||w||^2 - 2 s + eps
    (true value ~1e-13 * ||w||^2 + eps) has absolute error ~4 u ||w||^2 ~ 1e-15 ||w||^2, i.e.
    ~1% relative, unless it is recomputed from the direct form.  After the repair, the only
    loss is the GEMM form's own cancellation P w - 2 r^2 x = O(r^2 ||w||) against a result of
    size O(r^2 delta ||w||): relative error ~ d u / delta, so we allow 64 d u / delta against the
    pairwise closed form (which is accurate to O(d u)).
    """
    if backend == "numba" and not be.has_numba():
        pytest.skip("Numba not installed")
    rng = np.random.default_rng(8)
    d, delta, eps = 6, 3e-7, 1e-12
    X, W = rng.normal(size=(4, d)), rng.normal(size=(3, d))
    X[2] = W[1] * (1 + delta)
    Y, cache = layer_forward(X, W, eps, return_cache=True, backend=backend)
    G = rng.normal(size=Y.shape)
    g = layer_backward(G, cache)
    pg = grad(W[None, :, :], X[:, None, :], eps)
    tol = 64 * d * U64 / delta
    assert_fd_close(cache.s * np.einsum("ij,ijk->ik", G, pg.x), g.X, rtol=tol)
    assert_fd_close(cache.s * np.einsum("ij,ijk->jk", G, pg.w), g.W, rtol=tol)
    assert_fd_close(cache.s * np.sum(G * pg.eps), g.eps, rtol=tol)


def test_empty_batch():
    """B = 0: an empty (0, n) output and zero parameter gradients (a sum over no samples)."""
    Y, cache = layer_forward(np.ones((0, 3)), np.ones((2, 3)), 1.0, np.ones(2), return_cache=True)
    assert Y.shape == (0, 2)
    g = layer_backward(np.ones((0, 2)), cache)
    assert g.X.shape == (0, 3)
    np.testing.assert_array_equal(g.W, 0.0)
    np.testing.assert_array_equal(g.bias, 0.0)
    assert g.alpha == 0.0 and g.eps == 0.0


def _pairwise_grads(X, W, eps, c, bias_mode, G, s):
    """dX, dW, deps, dbias (per unit) of sum(G * s * H) from the pairwise closed form of grad()
    (float64, direct form: O(d u) per term), summed by hand."""
    b = None if c is None else np.broadcast_to(np.asarray(c, np.float64), (W.shape[0],))
    pg = grad(W[None, :, :].astype(np.float64), X[:, None, :].astype(np.float64), eps,
              None if b is None else np.broadcast_to(b, G.shape), bias_mode=bias_mode)
    Gs = s * G.astype(np.float64)
    db = None if b is None else np.sum(Gs * pg.bias, axis=0)
    return (np.einsum("ij,ijk->ik", Gs, pg.x), np.einsum("ij,ijk->jk", Gs, pg.w),
            np.sum(Gs * pg.eps), db)


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
@pytest.mark.parametrize("tile", [None, (4, 7), (5, 2)])
@pytest.mark.parametrize("wide", [True, False])
@pytest.mark.parametrize("bias_mode,reduce,scalar_bias", [
    (None, None, False), ("inner", None, False), ("outer", None, False),
    ("inner", "sum", True), ("outer", "sum", False), (None, "sum", False)])
def test_fused_numba_backward_against_pairwise_closed_form(bias_mode, reduce, scalar_bias, wide,
                                                           tile, monkeypatch):
    """The fused tiled pass (numba path) against grad() summed pair by pair, float64.

    1100 units (wide) or inputs cross the default 1024-column tile and span; tiles (4, 7) and
    (5, 2) make ragged tiles everywhere; wide and tall shapes split the work over the
    threads along the units and along the inputs respectively.  Two near-coincident pairs, x = w (1 + delta), delta = 1e-5 and
    3e-6, eps = 1e-9: the expanded D = ||x||^2 + ||w||^2 - 2 s + eps has absolute error
    ~ d u ||w||^2 ~ 1e-13, i.e. 1e-5 .. 1e-4 relative to D ~ delta^2 ||w||^2 + eps, so without
    the repair their rows are off by that much.  With it, those rows carry the GEMM form's
    cancellation, u / delta relative (layer module docstring): 64 d u / delta_min ~ 5e-8.  All
    other rows (O(1), well-separated data) must agree to 1e-12 (~5000 u): any wrong term, lost
    tile or chunk is off by O(1).
    """
    from yatmath.yat import _numba_layer as nl

    if tile is not None:
        monkeypatch.setattr(nl, "BACKWARD_TILE", tile)
    rng = np.random.default_rng(11)
    small, large = 13, 1100 if tile is None else 23
    B, n = (small, large) if wide else (large, small)
    d, eps = 20, 1e-9
    X, W = rng.normal(size=(B, d)), rng.normal(size=(n, d))
    near_x, near_w, deltas = [3, 7], [5, n - 2], [1e-5, 3e-6]
    for i, j, dl in zip(near_x, near_w, deltas):
        X[i] = W[j] * (1 + dl)
    c = None if bias_mode is None else (np.array(0.4) if scalar_bias else rng.normal(size=n))
    mode = bias_mode or "inner"
    Y, cache = layer_forward(X, W, eps, c, 1.3, bias_mode=mode, reduce=reduce, backend="numba",
                             return_cache=True)
    G = rng.normal(size=Y.shape)
    g = layer_backward(G, cache)
    Gfull = np.broadcast_to(G[:, None], (B, n)) if reduce == "sum" else G
    dX, dW, deps, db = _pairwise_grads(X, W, eps, c, mode, Gfull, cache.s)
    tol = 64 * d * U64 / min(deltas)
    far_x = np.setdiff1d(np.arange(B), near_x)
    far_w = np.setdiff1d(np.arange(n), near_w)
    assert_fd_close(dX, g.X, rtol=tol)
    assert_fd_close(dW, g.W, rtol=tol)
    assert_fd_close(dX[far_x], g.X[far_x], rtol=1e-12)   # rows / units with no near pair
    assert_fd_close(dW[far_w], g.W[far_w], rtol=1e-12)
    assert_fd_close(deps, g.eps, rtol=1e-12)   # sums of r^2: no cancellation
    Yref = layer_forward(X, W, eps, c, 1.3, bias_mode=mode, reduce=reduce, backend="numpy")
    assert g.alpha == pytest.approx(cache.log_base * float(np.sum(G * Yref)), rel=1e-12)
    if c is None:
        assert g.bias is None
    else:
        assert np.shape(g.bias) == np.shape(c)
        assert_fd_close(np.sum(db) if scalar_bias else db, g.bias, rtol=1e-12)


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
def test_fused_numba_backward_float32_near_coincident(bias_mode):
    """float32 fused pass against the float64 closed form on the same (float32) inputs.

    x_2 = w_1 (1 + delta), delta = 1e-3, eps = 1e-6: the expanded D in float32 has absolute error
    ~ d u32 (||x||^2 + ||w||^2) ~ 1e-5, more than D ~ delta^2 ||w||^2 + eps itself, so without the
    float64 repair that pair (which dominates its row: r ~ 1e6) would be off by O(1).  With it the
    error is the GEMM form's cancellation, ~ u32 / delta relative (module docstring) plus the
    usual O((n + d) u32) of the GEMMs: we allow 64 d u32 / delta (~0.05), against O(1) without
    the repair.  X[4] = W[2] exactly (float32) takes the t = 0 branch of the rule.
    """
    rng = np.random.default_rng(12)
    d, delta, eps = 6, 1e-3, 1e-6
    X, W = rng.normal(size=(9, d)), rng.normal(size=(700, d))
    X[2] = W[1] * (1 + delta)
    X[4] = W[2]
    X, W = X.astype(np.float32), W.astype(np.float32)
    c = None if bias_mode is None else rng.normal(size=700).astype(np.float32)
    mode = bias_mode or "inner"
    Y, cache = layer_forward(X, W, eps, c, bias_mode=mode, backend="numba", return_cache=True)
    G = rng.normal(size=Y.shape).astype(np.float32)
    g = layer_backward(G, cache)
    assert g.X.dtype == np.float32 and g.W.dtype == np.float32
    dX, dW, deps, db = _pairwise_grads(X, W, eps, c, mode, G, cache.s)
    tol = 64 * d * (np.finfo(np.float32).eps / 2) / delta
    assert_fd_close(dX, g.X, rtol=tol)
    assert_fd_close(dW, g.W, rtol=tol)
    # deps and dbias are sums of r^2 and r terms (no cancellation): 50 (d + 4) u32
    tol_sum = 50 * (d + 4) * np.finfo(np.float32).eps / 2
    assert_fd_close(deps, g.eps, rtol=tol_sum)
    if c is not None:
        assert_fd_close(db, g.bias, rtol=tol_sum)


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
@pytest.mark.parametrize("B,n", [(300, 1300), (1300, 300)])
def test_fused_numba_backward_float32_separated_data(B, n):
    """float32, O(1) well-separated data, bias per unit: every output within 50 (d + 4) u32
    (normwise) of the float64 closed form, the bound of the float32 layer test above; B, n
    beyond one tile so several threads' parts and column tiles are summed, split along the
    units (B < n) or the inputs."""
    rng = np.random.default_rng(13)
    d = 24
    X = rng.normal(size=(B, d)).astype(np.float32)
    W = rng.normal(size=(n, d)).astype(np.float32)
    c = rng.normal(size=n).astype(np.float32)
    Y, cache = layer_forward(X, W, 0.5, c, backend="numba", return_cache=True)
    G = rng.normal(size=Y.shape).astype(np.float32)
    g = layer_backward(G, cache)
    dX, dW, deps, db = _pairwise_grads(X, W, 0.5, c, "inner", G, cache.s)
    tol = 50 * (d + 4) * np.finfo(np.float32).eps / 2
    for ref, got in ((dX, g.X), (dW, g.W), (deps, g.eps), (db, g.bias)):
        assert_fd_close(ref, got, rtol=tol)


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
@pytest.mark.parametrize("bias_mode,reduce", [(None, None), ("inner", "sum"), ("outer", None)])
def test_cupy_fused_backward_matches_numpy(bias_mode, reduce):
    """The CuPy pass (same repair rule, in double) against the NumPy path, with a coincident
    pair (x = w: repaired); float64 on both.  The coincident pair adds the GEMM form's rounding
    of P w against 2 q x, u r relative to its contribution (r = ||w||^2 / eps ~ 3e4; layer module
    docstring; test_numba_backend_equals_numpy_backend): 1e-12 + 16 u r normwise.  The old
    CuPy kernel missed this by 1.2e-5 on an H100 (2026-11-27); the numba-cuda pass that replaced
    it is tested on the CPU by tests/yat/test_cuda_kernels.py at this tolerance."""
    import cupy as cp

    rng = np.random.default_rng(14)
    X, W = rng.normal(size=(40, 32)), rng.normal(size=(30, 32))
    X[5] = W[7]
    c = None if bias_mode is None else rng.normal(size=30)
    kw = {"bias_mode": bias_mode or "inner", "reduce": reduce, "return_cache": True}
    Y, k = layer_forward(X, W, 1e-3, c, backend="numpy", **kw)
    _, kc = layer_forward(cp.asarray(X), cp.asarray(W), 1e-3, None if c is None else cp.asarray(c),
                           **kw)
    G = rng.normal(size=Y.shape)
    g, gc = layer_backward(G, k), layer_backward(cp.asarray(G), kc)
    tol = 1e-12 + 16 * U64 * float(W[7] @ W[7]) / 1e-3
    assert_fd_close(cp.asnumpy(gc.X), g.X, rtol=tol)
    assert_fd_close(cp.asnumpy(gc.W), g.W, rtol=tol)
    assert gc.eps == pytest.approx(g.eps, rel=1e-12)
    assert gc.alpha == pytest.approx(g.alpha, rel=1e-12)
    if c is not None:
        assert_fd_close(cp.asnumpy(gc.bias), g.bias, rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_G_is_refused_even_where_r_is_zero(backend, bad):
    """check_finite on G works through the result (layer_backward docstring): the bad entry sits
    on a pair with N = x . w = 0 exactly (r = 0), where only inf * 0 = NaN makes it visible."""
    if backend == "numba" and not be.has_numba():
        pytest.skip("Numba not installed")
    X = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    W = np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    Y, cache = layer_forward(X, W, 0.5, backend=backend, return_cache=True)
    G = np.ones_like(Y)
    G[0, 0] = bad                      # x_0 . w_0 = 0
    with pytest.raises(ValueError, match="G contains NaN or infinity"):
        layer_backward(G, cache)
    g = layer_backward(G, cache, check_finite=False)   # asked not to check: NaN flows through
    assert not np.isfinite(g.eps)


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_backward_with_a_repair_in_every_row(dtype):
    """X holds exact copies of units (as self-attention's Q = K): every row has a pair with
    t = ||x||^2 + ||w||^2 - 2 s = 0 that the fused pass must leave out of its vectorised span
    and take from the direct float64 form, plus one row with two such pairs in one span.
    Against the array API reference (same repair, array expressions), normwise: each path has
    the GEMM form's cancellation at the coincident pairs, u r relative to their (dominant)
    contributions (layer module docstring; r_max = max ||w||^2 / eps = ~5e3 here), rounded
    differently by the two, plus the usual 50 (d + 4) u: tol = 16 u r_max + 50 (d + 4) u
    (float64 ~1e-11, float32 ~5e-3; measured 1.6e-12 and 4e-4)."""
    rng = np.random.default_rng(21)
    d, n = 24, 1500                      # two spans of the fused pass per row
    W = rng.normal(size=(n, d))
    X = W[[3, 1030, 700, 1499, 10]].copy()
    X[4] = W[10]                         # row 4 coincides with unit 10 ...
    W[1200] = W[10]                      # ... and with unit 1200 (second span)
    X, W = X.astype(dtype), W.astype(dtype)
    eps = 1e-2
    G = rng.normal(size=(5, n)).astype(dtype)
    out = {}
    for backend in ("numpy", "numba"):
        _, cache = layer_forward(X, W, eps, backend=backend, return_cache=True)
        out[backend] = layer_backward(G, cache)
    g0, g1 = out["numpy"], out["numba"]
    r_max = float(np.max(np.sum(W.astype(np.float64) ** 2, axis=1))) / eps
    u = np.finfo(dtype).eps / 2
    tol = float(16 * u * r_max + 50 * (d + 4) * u)
    for a, b in ((g1.X, g0.X), (g1.W, g0.W)):
        assert np.all(np.isfinite(a))
        assert_fd_close(a, b, rtol=tol)
    assert g1.eps == pytest.approx(g0.eps, rel=tol)
    assert g1.alpha == pytest.approx(g0.alpha, rel=tol)


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
def test_non_finite_G_in_a_span_with_repairs_is_refused():
    """The fused pass marks the pairs it repairs with NaN; a NaN or inf that G puts into P in
    the same span must still reach the result (and so the finiteness check), not be mistaken
    for a mark and replaced by a finite value."""
    rng = np.random.default_rng(22)
    W = rng.normal(size=(40, 8))
    X = W[:3].copy()                     # pairs (i, i) are repaired
    Y, cache = layer_forward(X, W, 0.1, backend="numba", return_cache=True)
    for bad in (np.nan, np.inf):
        G = np.ones_like(Y)
        G[1, 17] = bad                   # a pair that is not repaired, in row 1's span
        with pytest.raises(ValueError, match="G contains NaN or infinity"):
            layer_backward(G, cache)
        g = layer_backward(G, cache, check_finite=False)
        assert not np.isfinite(g.eps) and not np.all(np.isfinite(g.X))


def test_put_pairs_without_scatter_equals_numpy_assignment():
    """layer._put_pairs' searchsorted select (libraries whose standard API has no scatter)
    places every value exactly where NumPy's D[ii, jj] = v does: first and last entries,
    neighbours, a whole row."""
    xs = pytest.importorskip("array_api_strict")
    from yatmath.yat.layer import _put_pairs

    rng = np.random.default_rng(23)
    D = rng.normal(size=(5, 7))
    flag = np.zeros((5, 7), bool)
    flag[0, 0] = flag[4, 6] = flag[2, 3] = flag[2, 4] = True
    flag[3] = True
    ii, jj = np.nonzero(flag)
    vals = rng.normal(size=ii.size)
    want = _put_pairs(D.copy(), ii, jj, vals, np)
    expect = D.copy()
    expect[flag] = vals                  # row-major order, as np.nonzero
    np.testing.assert_array_equal(want, expect)
    got = _put_pairs(xs.asarray(D), *xs.nonzero(xs.asarray(flag)), xs.asarray(vals), xs)
    np.testing.assert_array_equal(np.asarray(got), expect)


def test_layer_registry_rows_and_other_libraries():
    """yat.layer_backward: the array API reference for any library, the fused passes for NumPy
    (Numba) and CuPy; a PyTorch forward with backend="auto" runs the reference and its
    gradients are PyTorch tensors equal to NumPy's reference path to rounding (float64,
    O(d u) per dot on well-separated data: 1e-12 normwise)."""
    torch = pytest.importorskip("torch")
    from yatmath._registry import ANY, implementations

    rows = {i.backend: i for i in implementations("yat.layer_backward")}
    assert ANY in rows["reference"].libraries and "array API" in rows["reference"].note
    assert rows["numba"].libraries == ("numpy",) and rows["cupy"].libraries == ("cupy",)
    fwd = implementations("yat.layer_forward")[0]
    assert ANY in fwd.libraries and "yat.gram" in fwd.note
    rng = np.random.default_rng(24)
    X, W, c = rng.normal(size=(6, 4)), rng.normal(size=(5, 4)), rng.normal(size=5)
    G = rng.normal(size=(6, 5))
    Y, k = layer_forward(X, W, 0.4, c, return_cache=True, backend="numpy")
    g = layer_backward(G, k)
    Yt, kt = layer_forward(torch.asarray(X), torch.asarray(W), 0.4, torch.asarray(c),
                           return_cache=True)
    gt = layer_backward(torch.asarray(G), kt)
    assert kt.backend == "auto" and isinstance(Yt, torch.Tensor)
    for a, b in ((Yt, Y), (gt.X, g.X), (gt.W, g.W), (gt.bias, g.bias)):
        assert isinstance(a, torch.Tensor)
        assert_fd_close(a.numpy(), b, rtol=1e-12)
    assert gt.alpha == pytest.approx(g.alpha, rel=1e-12)
    assert gt.eps == pytest.approx(g.eps, rel=1e-12)
