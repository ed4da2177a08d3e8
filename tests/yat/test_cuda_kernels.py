"""Every custom GPU kernel of yatmath, executed against the float64 NumPy reference.

The kernels are numba-cuda kernels (``yatmath/_cuda.py``).  Without a CUDA device,
``conftest.py`` turns on numba-cuda's simulator, which runs the same kernel source on NumPy
arrays thread by thread (shared memory and ``syncthreads`` included): these tests then execute
the kernels' indexing, tiling, tile boundaries, repair branch and float32 rounding on the CPU, in
CI.  With a device (CuPy sees one) the same tests launch the compiled kernels on CuPy arrays.

Sizes are small (the simulator runs each GPU thread as a Python thread) but chosen so that every
kernel sees partial blocks and several source tiles.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests import cupy_ftz
from tests.particles.test_array_api import FAMILIES, HARD_R2
from tests.yat.test_array_api import HARD_REPAIR, HARD_SD
from yatmath import _array, _cuda
from yatmath._cuda_cast import cast
from yatmath import particles as P
from yatmath.particles import _cuda_kernels as pk
from yatmath.particles.forces import _numba_args, _reference_force_sum
from yatmath.particles.interactions import force_factor
from yatmath.testing.generators import blocks
from yatmath.testing.harness import KernelAccuracy
from yatmath.yat import _cuda_kernels as ck
from yatmath.yat import _reference as ref

SIMULATED = _cuda.simulated()
MODE = {None: 0, "inner": 1, "outer": 2}


def dev(a):
    """``a`` where the kernels run: CuPy on a device; in the simulator a writable NumPy copy
    (the simulator copies every argument back after a launch, as numba.cuda does for host
    arrays) whose array code flushes float32 subnormals as CuPy's does (``tests/cupy_ftz.py``),
    so array work a launcher does around its kernel is seen as a device would do it."""
    return np.array(a).view(cupy_ftz.FtzArray) if SIMULATED else _array.cupy_module().asarray(a)


@pytest.fixture(autouse=True)
def _flushing_array_code(monkeypatch):
    """The launchers' ``_cuda.array_module`` of an FtzArray is the flushing NumPy."""
    if SIMULATED:
        cupy_ftz.install(monkeypatch)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def test_mode_matches_the_device():
    """The simulator runs exactly where no device is visible, so on a GPU machine these tests
    exercise the compiled kernels, never the simulator."""
    assert SIMULATED == (not _array.has_cupy())


def _full_bias(b, n, mode, dtype):
    return np.zeros(n, dtype) if b is None else np.ascontiguousarray(
        np.broadcast_to(np.asarray(b, dtype), (n,)))


def _in_kernel_domain(blk):
    """Blocks whose entries stay below 2^480 (beyond it the public functions hand the pairs to
    the rescaled reference before any kernel: ``_reference`` module docstring)."""
    return ref.rescale_factor(blk.Z, blk.Z) is None


def _harness(name, run):
    return KernelAccuracy(name, run, nan_beside_overflow=name.startswith("matvec"))


def _gram_run(tau):
    def run(Z, eps, bias, mode):
        b = _full_bias(bias, Z.shape[0], mode, Z.dtype)
        return host(ck.gram(dev(Z), dev(Z), eps, dev(b), MODE[mode], tau))
    return run


def _matvec_run(Z, eps, bias, mode):
    b = _full_bias(bias, Z.shape[0], mode, Z.dtype)
    eye = np.eye(Z.shape[0], dtype=Z.dtype)
    return host(ck.matvec(dev(Z), dev(Z), dev(eye), eps, dev(b), MODE[mode], ref.REPAIR_TAU, 5, 7))


def _product_run(Z, eps, bias, mode):
    """The CuPy product row's float64 direct form, rounded by ``cast``."""
    b = None if bias is None else np.asarray(bias, np.float64)[None, :]
    with np.errstate(all="ignore"):
        K = ref.product(Z[:, None, :].astype(np.float64), Z[None, :, :].astype(np.float64), eps,
                        b, mode or "inner")
    return host(cast(dev(np.ascontiguousarray(K)), Z.dtype))


KERNELS = {
    "gram-pass/expanded": _gram_run(ref.REPAIR_TAU),
    "gram-pass/direct": _gram_run(np.inf),
    "matvec/tiled": _matvec_run,
    "product/cast": _product_run,
}


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_within_the_error_bound(name, dtype, monkeypatch):
    """Every entry of every accuracy block (float32: all of them, among them the 1e-15 rows whose
    K is a float32 subnormal, which CuPy's flush-to-zero turned into 0; float64: every third)
    inside the kernel docstring's bound around the mpmath value, in the input dtype."""
    cases = [(b, e) for b, e in zip(blocks(dtype, quick=dtype == np.float64),
                                     _exact(dtype)) if _in_kernel_domain(b)]
    res = _harness(name, KERNELS[name]).run(dtype, cases=cases)
    assert not res.wrong_dtype, res.wrong_dtype[:4]
    assert res.passed, res.message()


def _exact(dtype):
    from yatmath.testing.oracle import exact

    return exact(np.dtype(dtype).name, modes=("inner", "outer"), quick=dtype == np.float64)


def test_float32_subnormal_results_are_kept():
    """cast gives NumPy's rounding of float64 to float32 bit for bit, subnormals included, and
    widens float32 to float64 exactly (CuPy's astype flushes subnormals either way)."""
    x = np.array([2.0 ** -149, 3 * 2.0 ** -149, 8.065385479088940e-39, 2.0 ** -126 * (1 - 2 ** -20),
                  2.0 ** -126, 1.0 / 3.0, -2.0 ** -140, 0.0, 1e39, -np.inf])
    with np.errstate(over="ignore"):
        want = x.astype(np.float32)
    got = host(cast(dev(x), np.float32))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    back = host(cast(dev(want), np.float64))          # widening is exact, subnormals too
    assert back.dtype == np.float64
    np.testing.assert_array_equal(back, want.astype(np.float64))
    assert np.count_nonzero((back != 0) & (np.abs(back) < 2.0 ** -126)) == 5


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("mode", [None, "inner", "outer"])
def test_matvec_tiles_and_partial_blocks(mode, k):
    """n and m not multiples of the block (128 threads): two blocks of targets, three source
    tiles, the last partial; float64 direct form and sums, so within a few ulps of the reference
    (each output is a sum of m terms: rtol 64 m u relative to sum |K| |v|)."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(130, 3)), rng.normal(size=(261, 3))
    Y[7] = X[5]                                 # a coincident pair: D = eps exactly
    V, b = rng.normal(size=(261, k)), rng.normal(size=261)
    bias = None if mode is None else b
    got = host(ck.matvec(dev(X), dev(Y), dev(V), 1e-3, dev(_full_bias(bias, 261, mode, X.dtype)),
                         MODE[mode], ref.REPAIR_TAU, 64, 64))
    K = ref.gram(X, Y, 1e-3, bias, mode or "inner")
    scale = np.abs(K) @ np.abs(V)
    assert np.all(np.abs(got - K @ V) <= 64 * 261 * 2.0 ** -53 * scale)


def test_matvec_gram_tile_fallback(monkeypatch):
    """Shapes beyond the tiled kernel's shared memory take Gram tiles and a GEMM per tile."""
    monkeypatch.setattr(ck, "_MATVEC_MAX_K", 0)
    rng = np.random.default_rng(4)
    X, Y, V = rng.normal(size=(9, 4)), rng.normal(size=(11, 4)), rng.normal(size=(11, 2))
    got = host(ck.matvec(dev(X), dev(Y), dev(V), 0.5, dev(np.zeros(11)), 0, ref.REPAIR_TAU, 4, 5))
    want = ref.gram(X, Y, 0.5) @ V
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())


@pytest.mark.parametrize("mode", [None, "inner", "outer"])
@pytest.mark.parametrize("gone", [False, True])
def test_backward_pass_matches_the_formulas(mode, gone):
    """P, q, dc and gh of the layer backward's pass against the same formulas evaluated by NumPy
    from the reference N and D (direct float64 form), with a coincident pair (repaired)."""
    rng = np.random.default_rng(5)
    X, W = rng.normal(size=(13, 6)), rng.normal(size=(11, 6))
    X[4] = W[2]
    c = None if mode is None else rng.normal(size=11)
    G = rng.normal(size=(13, 1 if gone else 11))
    eps, scale = 1e-3, 1.7
    b = _full_bias(c, 11, mode, X.dtype)
    P_, q, dc, gh = (host(a) for a in ck.backward_pass(dev(X), dev(W), dev(G), eps, dev(b),
                                                         MODE[mode], ref.REPAIR_TAU, scale))
    S = X @ W.T
    D = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + eps
    N = S + b if mode == "inner" else S
    r = N / D
    gk = scale * np.broadcast_to(G, S.shape)
    want = dict(P=2 * gk * r * (1 + r), q=gk * r * r, dc=gk * r if mode == "inner" else gk,
                gh=gk * r * N + (gk * b if mode == "outer" else 0.0))
    # r carries the expanded form's error, bounded by 2 (d + 2) u / tau relative to D on the
    # pairs it keeps (kernel module docstring), at most 3 times in r^2 r
    tol = 3 * 2 * (6 + 2) * 2.0 ** -53 / ref.REPAIR_TAU + 64 * 2.0 ** -53
    for key, got in dict(P=P_, q=q, dc=dc, gh=gh).items():
        np.testing.assert_allclose(got, want[key], rtol=tol, atol=0, err_msg=key)


@pytest.mark.parametrize("bias_mode,reduce", [(None, None), ("inner", "sum"), ("outer", None)])
def test_fused_layer_backward_matches_the_reference(bias_mode, reduce):
    """The whole fused CuPy backward (GEMM, the pass, two GEMMs, the sums) against the array-API
    reference, on the data of the GPU test that failed on the H100 by 1.2e-5 (a coincident pair,
    eps = 1e-3).  float64 on both; as in test_yat_layer's Numba-against-NumPy test, the coincident
    pair (r = ||w||^2 / eps ~ 3e4) adds the GEMM form's rounding of P w against 2 q x, u r
    relative to that pair's contribution (layer module docstring): 1e-12 + 16 u r normwise."""
    from yatmath.yat.layer import _pair_backward_cupy, _pair_backward_reference

    rng = np.random.default_rng(14)
    X, W = rng.normal(size=(40, 32)), rng.normal(size=(30, 32))
    X[5] = W[7]
    c = None if bias_mode is None else rng.normal(size=30)
    G = rng.normal(size=(40, 1 if reduce == "sum" else 30))
    want = _pair_backward_reference(X, W, 1e-3, G, 1.3, c, bias_mode or "inner")
    got = _pair_backward_cupy(dev(X), dev(W), 1e-3, dev(G), 1.3, None if c is None else dev(c),
                              bias_mode or "inner")
    tol = 1e-12 + 16 * 2.0 ** -53 * float(W[7] @ W[7]) / 1e-3
    for name, g, w in zip(("dX", "dW", "dc", "deps", "gh"), got, want):
        if w is None:
            assert g is None, name
            continue
        g, w = np.asarray(host(g), float), np.asarray(w, float)
        assert np.linalg.norm(g - w) <= tol * np.linalg.norm(w), (name, np.linalg.norm(g - w))


@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
def test_fused_layer_backward_float32_epilogue(bias_mode):
    """float32: after the pass, the fused backward widens the pass outputs, X and W to float64
    (by kernel), forms dX = P W - 2 diag(q 1) X, dW, the bias and eps gradients in float64 and
    rounds each once to float32.  Checked against those formulas evaluated by NumPy from the
    pass's own float32 outputs: the only differences are the float64 GEMM's summation order on a
    device (n u64 sum |P||W| + 2 |q||X| per entry, with n the summed length) and the one
    rounding to float32 this may move by an ulp (spacing of the value).  In the simulator the
    two are NumPy's same operations; the arrays flush as CuPy's would (``dev``), so float32
    array code after the pass would show."""
    from yatmath.yat.layer import _pair_backward_cupy

    rng = np.random.default_rng(15)
    X, W = rng.normal(size=(17, 8)).astype(np.float32), rng.normal(size=(13, 8)).astype(np.float32)
    c = None if bias_mode is None else rng.normal(size=13).astype(np.float32)
    G = (1e-37 * rng.normal(size=(17, 13))).astype(np.float32)     # subnormal gradient parts
    b = _full_bias(c, 13, bias_mode, np.float32)
    P_, q, dc, gh = (host(a).astype(np.float64) for a in ck.backward_pass(
        dev(X), dev(W), dev(G), 1e-2, dev(b), MODE[bias_mode], ref.REPAIR_TAU, 1.3))
    X64, W64 = X.astype(np.float64), W.astype(np.float64)
    qx, qw = q.sum(axis=1), q.sum(axis=0)
    want = {"dX": P_ @ W64 - (2.0 * qx)[:, None] * X64, "dW": P_.T @ X64 - (2.0 * qw)[:, None] * W64}
    scale = {"dX": np.abs(P_) @ np.abs(W64) + 2 * np.abs(q).sum(axis=1)[:, None] * np.abs(X64),
             "dW": np.abs(P_).T @ np.abs(X64) + 2 * np.abs(q).sum(axis=0)[:, None] * np.abs(W64)}
    got = _pair_backward_cupy(dev(X), dev(W), 1e-2, dev(G), 1.3,
                              None if c is None else dev(c), bias_mode or "inner")
    for k, g in zip(("dX", "dW"), got[:2]):
        g = np.asarray(host(g)).view(np.ndarray)
        assert g.dtype == np.float32, k
        w32 = want[k].astype(np.float32)
        tol = np.spacing(np.abs(w32)) + 2 * 17 * 2.0 ** -53 * scale[k]
        assert np.all(np.abs(g.astype(np.float64) - w32) <= tol), k
        assert np.count_nonzero((g != 0) & (np.abs(g) < 2.0 ** -126)) > 0, k  # kept
    assert float(np.asarray(host(got[3]))) == pytest.approx(-qx.sum(), rel=2.0 ** -23)


def test_finish_and_repair_match_python():
    """The device functions compiled from ``_numba_kernels._finish``/``_needs_repair`` give the
    reference's bits on the hard (s, D) pairs (overflow of s^2, underflow, ties of the rule)."""
    s, D = (np.array([p[i] for p in HARD_SD]) for i in (0, 1))
    for code, mode in ((0, None), (1, "inner"), (2, "outer")):
        with np.errstate(over="ignore", invalid="ignore"):
            got = host(ck.finish(dev(s), dev(D), dev(np.full(s.shape, 0.25)), code))
            want = ref.finish(s, D, 0.25 if mode else None, mode or "inner")
        np.testing.assert_array_equal(got, want)
    rs, rn = (np.array([p[i] for p in HARD_REPAIR]) for i in (0, 1))
    with np.errstate(invalid="ignore", over="ignore"):
        want = ref.needs_repair(rs, rn)
        got = host(ck.needs_repair(dev(rs), dev(rn), ref.REPAIR_TAU))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind,s,delta", FAMILIES)
def test_force_factor_matches_reference_on_hard_inputs(kind, s, delta):
    """The device function compiled from ``_numba_kernels.cfac``: CUDA's sqrt and pow are within
    2 ulps (CUDA C programming guide, double precision), division IEEE: rtol 8 u on finite
    values (the simulator runs the Python function, whose pow may differ from NumPy's by an
    ulp); zeros and infinities exactly."""
    it = P.make_interaction(kind, s, delta)
    want = force_factor(HARD_R2, it)
    with np.errstate(all="ignore"):
        got = host(pk.cfac_values(dev(HARD_R2 + it.soft2), it.family, it.a, it.p))
    got = np.where(HARD_R2 > it.cut2, got, 0.0)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_allclose(got, want, rtol=8 * 2.0 ** -52, atol=0)


@pytest.mark.slow
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind,s,delta", [("none", 1.0, 0.0), ("plummer", -1.0, 0.5),
                                          ("hard", 1.0, 0.3)])
def test_force_sum_tiles(kind, s, delta, d):
    """The tiled force kernel against the chunked reference: N = 150 (two blocks of 128, the
    second partial), the diagonal skipped by index, the hard core cut; float64 throughout, so
    each component within 64 N u of sum_l |c_kl| |x_k - x_l|."""
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(150, d))
    it = P.make_interaction(kind, s, delta)
    got = host(pk.force_sum(dev(X), *_numba_args(it)))
    want = _reference_force_sum(X, it)
    diff = X[:, None, :] - X[None, :, :]
    r2 = (diff ** 2).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(r2 > it.cut2, force_factor(r2, it), 0.0)
    np.fill_diagonal(c, 0.0)
    scale = np.abs(c) @ np.ones(150)[:, None] * np.abs(X).max() * 2
    assert np.all(np.abs(got - want) <= 64 * 150 * 2.0 ** -53 * scale)


def test_force_sum_refuses_large_d():
    with pytest.raises(ValueError, match="d <= 16"):
        pk.force_sum(np.zeros((4, 17)), 2, 1.0, 1.0, 0.0, 0.0)
