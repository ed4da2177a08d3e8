"""The fused Gram kernel (``yatmath/yat/_cuda_gram.py``) against the float64 reference.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source on NumPy arrays thread by thread (shared memory and ``syncthreads`` included): these tests
then execute its tiling (block tiles, K tiles, the partial ones staged as zeros), its register
micro-tiles, its epilogue (the repair branch, the bias modes) and its float32 store on the CPU.
With a device the same tests launch the compiled kernel on CuPy arrays.

Sizes are small (the simulator runs each GPU thread as a Python thread): B = 70 rows against
n = 90 columns with block tiles of 32 x 32 (3 x 3 block tiles, the last row and column partial)
or 16 x 32 with 2 x 4 micro-tiles (TM != TN: a swapped row/column index shows), K tiles of 8 or
4 columns and d = 5, 37, 70 (one partial K tile, five with the last partial, nine with the last
partial) or 13 (four tiles of 4, the last of one column).

Tolerance: the bound of ``yatmath/yat/kernel.py``'s module docstring, the contract of every
backend: with u the unit roundoff of the dtype, N = s (+ b, inner bias), D = ||x - w||^2 + eps,

    |K_hat - K| <= 4 (d + 4) u (|N| (||x|| ||w|| + |b|) / D + 8 K) + ((d + 4) u ||x|| ||w||)^2 / D

(K cond written as |N| (||x|| ||w|| + |b|) / D, finite where N = 0), plus 2 u (|K| + |b|) for
the outer bias's addition and, for float32, 2^-150 (half the spacing of the subnormals: the
store's rounding of a subnormal K).  The kernel's dots are float32 for float32 input
(d u ||x|| ||w|| each) and the repair rule bounds the expanded form's error by 2 (d + 2) u / tau
relative to D, inside it.  A missing or extra K column, a swapped index, a dropped repair or a
flushed subnormal is far outside it.
"""
from __future__ import annotations

import numpy as np
import pytest

from yatmath import _array, _cuda
from yatmath.testing.generators import blocks
from yatmath.testing.harness import KernelAccuracy
from yatmath.yat import _cuda_gram as cg
from yatmath.yat import _cuda_kernels as ck
from yatmath.yat import _reference as ref
from yatmath.yat import gram

SIMULATED = _cuda.simulated()
MODE = {None: 0, "inner": 1, "outer": 2}
U = {np.dtype(np.float32): 2.0 ** -24, np.dtype(np.float64): 2.0 ** -53}
TILE = (32, 32, 8, 4, 4)        # 64 threads: 3 x 3 block tiles of the 70 x 90 result
TILE_RECT = (16, 32, 4, 2, 4)   # 64 threads, TM != TN: 5 x 3 block tiles, K tiles of 4
TAU = ref.REPAIR_TAU


def dev(a):
    """``a`` where the kernel runs: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _full_bias(b, n, dtype):
    return np.zeros(n, dtype) if b is None else np.ascontiguousarray(
        np.broadcast_to(np.asarray(b, dtype), (n,)))


def _fused(X, W, eps, bias=None, mode=None, tau=TAU, tile=TILE):
    b = _full_bias(bias, W.shape[0], X.dtype)
    return host(cg.gram(dev(X), dev(W), eps, dev(b), MODE[mode], tau, tile=tile))


def _check(got, X, W, eps, bias=None, mode=None):
    """got (in the dtype of X) within the module docstring's bound of the float64 reference on
    the same (rounded) inputs; returns the reference."""
    assert got.dtype == X.dtype and got.shape == (X.shape[0], W.shape[0])
    x64, w64 = X.astype(np.float64), W.astype(np.float64)
    b64 = None if bias is None else np.asarray(bias, X.dtype).astype(np.float64)
    want = ref.gram(x64, w64, eps, b64, mode or "inner")
    u, d = U[X.dtype], X.shape[1]
    nx = np.sqrt((x64 * x64).sum(1))[:, None]
    nw = np.sqrt((w64 * w64).sum(1))[None, :]
    bb = np.zeros(W.shape[0]) if b64 is None else np.broadcast_to(b64, (W.shape[0],))
    D = ((x64[:, None, :] - w64[None, :, :]) ** 2).sum(-1) + eps
    S = x64 @ w64.T
    N = S + bb if mode == "inner" else S
    binner = np.abs(bb) if mode == "inner" else 0.0
    core = N * (N / D)
    bound = (4 * (d + 4) * u * (np.abs(N) * (nx * nw + binner) / D + 8 * core)
             + ((d + 4) * u * nx * nw) ** 2 / D)
    if mode == "outer":
        bound = bound + 2 * u * (core + np.abs(bb))
    if X.dtype == np.float32:
        bound = bound + 2.0 ** -150
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), (float(np.max(err - bound)), np.argwhere(err > bound)[:5])
    return want


def test_mode_matches_the_device():
    assert SIMULATED == (not _array.has_cupy())


def test_tile_checks():
    assert cg.check_tile((128, 64, 8, 8, 4)) == (128, 64, 8, 8, 4)
    for tile in [(32, 32, 8, 3, 4), (32, 30, 8, 4, 4), (0, 32, 8, 4, 4), (256, 256, 8, 4, 4)]:
        with pytest.raises(ValueError):
            cg.check_tile(tile)
    for bm, bn, bk, tm, tn in cg.TILE.values():        # 256 threads, whole micro-tiles
        assert (bm // tm) * (bn // tn) == 256 and bm % tm == 0 and bn % tn == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [5, 37, pytest.param(70, marks=pytest.mark.slow)])
def test_tiles_and_partial_tiles(d, dtype):
    """70 x 90 with 3 x 3 block tiles (partial last row and column tiles), d = 5 (one partial K
    tile), 37 (five, the last partial), 70 (nine, the last partial); rows of several scales
    (1e-2 .. 1e2) so the dots vary over orders of magnitude."""
    rng = np.random.default_rng(d)
    scale = 10.0 ** rng.integers(-2, 3, size=(1, 1))
    X = (rng.normal(size=(70, d)) * 10.0 ** rng.uniform(-2, 2, size=(70, 1))).astype(dtype)
    W = (rng.normal(size=(90, d)) * scale).astype(dtype)
    _check(_fused(X, W, 0.3), X, W, 0.3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", [None, "inner", "outer"])
def test_bias_modes_and_rectangular_micro_tiles(mode, dtype):
    """Each bias mode with 16 x 32 block tiles of 2 x 4 micro-tiles and K tiles of 4 (d = 13:
    four K tiles, the last of one column): a bias read at the wrong column, or a row/column
    index swapped in the micro-tile, is off by O(1)."""
    rng = np.random.default_rng(21)
    X = rng.normal(size=(70, 13)).astype(dtype)
    W = rng.normal(size=(90, 13)).astype(dtype)
    bias = None if mode is None else rng.normal(size=90) * 3
    got = _fused(X, W, 0.5, bias, mode, tile=TILE_RECT)
    _check(got, X, W, 0.5, bias, mode)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_coincident_and_near_rows_are_repaired(dtype):
    """Rows of W equal to rows of X (D = eps exactly) and rows within 1e-4 (float64: 1e-7) of
    them, with a small eps: the expanded form ||x||^2 + ||w||^2 - 2 s cancels to noise of
    ~ d u ||x||^2, far larger than the true ||x - w||^2 + eps, so only the repair (the direct
    float64 form from global memory) meets the bound.  The pairs sit in different block tiles
    and micro-tile slots."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(70, 37)).astype(dtype)
    W = rng.normal(size=(90, 37)).astype(dtype)
    near = 1e-4 if dtype == np.float32 else 1e-7
    eps = 1e-6 if dtype == np.float32 else 1e-12
    for i, j in [(0, 0), (5, 33), (69, 89), (40, 64), (33, 1)]:
        W[j] = X[i]
    for i, j in [(12, 45), (68, 2), (31, 70)]:
        W[j] = X[i] + (near * rng.normal(size=37)).astype(dtype)
    got = _fused(X, W, eps)
    want = _check(got, X, W, eps)
    assert want[0, 0] > 1e5 and want[12, 45] > 1e5


def test_float32_subnormal_results_are_kept():
    """Rows of size ~3e-11: the dots (~1e-21) and norms are normal float32 numbers, K = s^2/D
    (eps = 1) is a float32 subnormal (~1e-42).  The kernel's float64 K is rounded to float32 by
    its own store, which keeps subnormals (a flush to zero would give 0)."""
    rng = np.random.default_rng(9)
    X = (3e-11 * rng.normal(size=(70, 6))).astype(np.float32)
    W = (3e-11 * rng.normal(size=(90, 6))).astype(np.float32)
    got = _fused(X, W, 1.0)
    want = _check(got, X, W, 1.0)
    sub = (want > 2.0 ** -147) & (want < 2.0 ** -126)
    assert sub.sum() > 1000
    assert np.all(got[sub] > 0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_direct_method_is_the_two_pass_kernel_bit_for_bit(dtype):
    """tau = inf (method="direct"): the K loop is compiled out and every entry is the direct
    float64 form, from the same device functions (``_direct_pair``, ``_finish``) as the
    two-pass path's pass with every pair repaired, so the bits agree."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(70, 5)).astype(dtype)
    W = rng.normal(size=(90, 5)).astype(dtype)
    b = rng.normal(size=90).astype(dtype)
    got = _fused(X, W, 0.2, b, "inner", tau=np.inf)
    two = host(ck.gram(dev(X), dev(W), 0.2, dev(b), 1, np.inf))
    np.testing.assert_array_equal(got.view(np.uint8), two.view(np.uint8))
    _check(got, X, W, 0.2, b, "inner")


def test_empty_and_same_input():
    """No rows or columns: an empty result, no launch.  W the same array as X: one norm pass
    (the values of X X^T's kernel, within the bound)."""
    assert cg.gram(np.zeros((0, 3)), np.ones((4, 3)), 1.0, np.zeros(4), 0, TAU).shape == (0, 4)
    assert cg.gram(np.ones((4, 3)), np.ones((0, 3)), 1.0, np.zeros(0), 0, TAU).shape == (4, 0)
    rng = np.random.default_rng(2)
    X = dev(rng.normal(size=(20, 9)))
    got = host(cg.gram(X, X, 0.1, dev(np.zeros(20)), 0, TAU, tile=(16, 16, 4, 4, 4)))
    _check(got, host(X), host(X), 0.1)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_default_tile(dtype):
    """The tile of a device launch (``TILE``: 128-row block tiles, 256 threads) at 150 x 140,
    d = 20: two partial block tiles each way, three K tiles, the last partial."""
    rng = np.random.default_rng(17)
    X = rng.normal(size=(150, 20)).astype(dtype)
    W = rng.normal(size=(140, 20)).astype(dtype)
    W[139] = X[149]
    b = rng.normal(size=140)
    got = _fused(X, W, 0.1, b, "outer", tile=None)
    _check(got, X, W, 0.1, b, "outer")


# ------------------------------------------------------------------ the accuracy harness

def _harness_run(tau):
    def run(Z, eps, bias, mode):
        b = _full_bias(bias, Z.shape[0], Z.dtype)
        return host(cg.gram(dev(Z), dev(Z), eps, dev(b), MODE[mode], tau, tile=(8, 8, 4, 2, 2)))
    return run


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,tau", [("gram-fused/expanded", TAU),
                                      ("gram-fused/direct", np.inf)])
def test_kernel_within_the_error_bound(name, tau, dtype):
    """Every entry of every accuracy block (as ``tests/yat/test_cuda_kernels.py``: float32 all of
    them, the 1e-15 rows whose K is a float32 subnormal among them; float64 every third) inside
    the docstring's bound around the mpmath value, in the input dtype; 12-row blocks in 8 x 8
    block tiles of 2 x 2 micro-tiles with K tiles of 4 (partial tiles everywhere)."""
    from yatmath.testing.oracle import exact

    quick = dtype == np.float64
    cases = [(b, e) for b, e in zip(blocks(dtype, quick=quick),
                                     exact(np.dtype(dtype).name, modes=("inner", "outer"),
                                           quick=quick))
             if ref.rescale_factor(b.Z, b.Z) is None]
    res = KernelAccuracy(name, _harness_run(tau)).run(dtype, cases=cases)
    assert not res.wrong_dtype, res.wrong_dtype[:4]
    assert res.passed, res.message()


# ------------------------------------------------------------------ the registered 'cupy' row

@pytest.fixture
def fake_device(monkeypatch, fake_cupy):
    """NumPy standing in for CuPy (``tests/particles/test_array_api.py``): the row's host_input
    copies count, and the kernel runs in the simulator on the copies; the driver's calls are
    recorded."""
    fake = fake_cupy
    calls = []
    driver = cg.gram

    def spy(X, W, *args, **kwargs):
        calls.append((X.shape, W.shape, W is X, args[-1]))
        return driver(X, W, *args, tile=TILE, **kwargs)
    monkeypatch.setattr(cg, "gram", spy)
    fake.calls = calls
    return fake


@pytest.mark.parametrize("method", ["expanded", "direct"])
def test_cupy_row_runs_the_fused_kernel(fake_device, method):
    """backend="cupy" on NumPy input: the 'cupy' row copies X, W and the bias to the device,
    runs the fused kernel (tau = REPAIR_TAU for "expanded", inf for "direct") and returns
    NumPy, within the bound of the reference; W=None without a bias passes X itself and the
    result is exactly symmetric (the row's mirror step)."""
    rng = np.random.default_rng(3)
    X, W, b = rng.normal(size=(40, 20)), rng.normal(size=(35, 20)), rng.normal(size=35)
    got = gram(X, W, 0.2, b, bias_mode="outer", method=method, backend="cupy")
    assert type(got) is np.ndarray
    _check(got, X, W, 0.2, b, "outer")
    tau = TAU if method == "expanded" else np.inf
    assert fake_device.calls == [((40, 20), (35, 20), False, tau)]
    G = gram(X, None, 0.2, method=method, backend="cupy")
    assert fake_device.calls[-1] == ((40, 20), (40, 20), True, tau)
    np.testing.assert_array_equal(G, G.T)
    _check(G, X, X, 0.2)
