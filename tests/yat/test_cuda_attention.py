"""The fused Yat attention kernel (``yatmath/yat/_cuda_attention.py``) against the reference.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source on NumPy arrays thread by thread (shared memory and ``syncthreads`` included): these tests
then execute its tiling, its online softmax/softermax rescaling and its causal bounds on the CPU.
With a device the same tests launch the compiled kernel on CuPy arrays.

Sizes are small (the simulator runs each GPU thread as a Python thread): T = 16 threads per
block, 37 queries (three blocks, the last partial) and 33 keys (three tiles, the last partial).

Tolerance.  The kernel evaluates every score in the direct float64 form and sums
O_i = sum_j p_ij v_j in float64 in its own order (tile by tile, with rescalings), the reference
(float64) forms the whole score matrix and multiplies A V.  Each differs from the exact value by
at most ~ Lk u_64 sum_j p_ij |v_j| from the summations and the rescale factors, plus the
scores' own errors (a few ulps each, times |z_ij| through exp); we allow
64 Lk u_64 (1 + max |z|) sum_j p_ij |v_j|, and for float32 output one rounding u_32 |O_i| more.
A wrong rescale (acc or l not multiplied by exp(m_old - m_new)) is off by O(1).
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from tests.particles.test_array_api import _FakeDevice
from yatmath import _array, _cuda, _registry
from yatmath.yat import _cuda_attention as ca
from yatmath.yat import attention, multihead_attention
from yatmath.yat.squash import _delta_root

attention_module = importlib.import_module("yatmath.yat.attention")
SIMULATED = _cuda.simulated()
T = 16          # threads per block in the driver tests: several tiles at simulator sizes
U64, U32 = 2.0 ** -53, 2.0 ** -24


def dev(a):
    """``a`` where the kernel runs: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _fused(Q, K, V, eps, scale, normalize, causal, power=1.0, delta=0.0, threads=T):
    """The kernel driver on (B, L, .) arrays, result on the host."""
    root = None if normalize == "softmax" else _delta_root(delta, power)
    return host(ca.attention(dev(Q), dev(K), dev(V), eps, scale, normalize, causal, power,
                             delta, root, threads=threads))


def _check(got, Q, K, V, eps, scale, normalize, causal, power=1.0, delta=0.0):
    """got within the module docstring's bound of the float64 reference on the same values."""
    q64, k64, v64 = (np.asarray(a, np.float64) for a in (Q, K, V))
    want, cache = attention(q64, k64, v64, eps, causal, normalize, scale, power=power,
                            delta=delta, backend="reference", return_cache=True)
    assert got.dtype == np.asarray(Q).dtype
    zmax = float(np.max(cache.S, initial=0.0)) * cache.s_att
    bound = 64 * K.shape[-2] * U64 * (1 + zmax) * (np.abs(cache.A) @ np.abs(v64))
    if got.dtype == np.float32:
        bound = bound + U32 * np.abs(want)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), (float(np.max(err - bound)), float(np.max(err)))
    return want


def test_mode_matches_the_device():
    assert SIMULATED == (not _array.has_cupy())


def test_threads_and_limits():
    assert ca.threads_for(5, 3) == 128
    assert ca.threads_for(64, 64) == 32             # 32 x 128 float64 = 32 KiB of shared memory
    assert ca.threads_for(64, 65) == 0 and ca.threads_for(0, 3) == 0
    assert ca.threads_for(3, 0) == 0
    with pytest.raises(ValueError, match="d \\+ dv <= 128"):
        ca.attention(np.zeros((1, 2, 100)), np.zeros((1, 2, 100)), np.zeros((1, 2, 40)), 0.1,
                     1.0, "softmax", False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
def test_kernel_matches_the_reference(normalize, causal, dtype):
    """Two batch entries, 37 queries (blocks of 16: the last partial) against 33 keys (tiles of
    16: the last partial); Lq > Lk, so under causal the last rows see every key.  Row 3 is a
    zero query (all scores 0: softmax averages its keys, softermax with delta = 0 gives 0) and a
    key equals a query (D = eps exactly)."""
    rng = np.random.default_rng(5)
    Q = rng.normal(size=(2, 37, 5)).astype(dtype)
    K = rng.normal(size=(2, 33, 5)).astype(dtype)
    V = rng.normal(size=(2, 33, 3)).astype(dtype)
    Q[:, 3] = 0
    K[1, 20] = Q[1, 30]
    got = _fused(Q, K, V, 0.1, 1.5, normalize, causal)
    _check(got, Q, K, V, 0.1, 1.5, normalize, causal)
    if normalize == "softermax":
        assert np.all(got[:, 3] == 0)


def test_causal_first_row_is_its_value():
    """Row 0 under causal attends to key 0 alone (the rest of its first tile is masked, and the
    key loop of its block stops after one tile): its output is v_0 exactly, whatever its score.
    (With j <= i key 0 is allowed in every row, so no causal row has a wholly masked first tile;
    the empty state m = -inf, l = 0 is the softermax zero row above and the rows without keys
    below.)"""
    rng = np.random.default_rng(8)
    Q, K = rng.normal(size=(1, 20, 4)), rng.normal(size=(1, 20, 4))
    V = rng.normal(size=(1, 20, 2))
    for normalize in ("softmax", "softermax"):
        got = _fused(Q, K, V, 0.5, 3.0, normalize, True)
        np.testing.assert_array_equal(got[0, 0], V[0, 0])
        _check(got, Q, K, V, 0.5, 3.0, normalize, True)


def test_no_keys_and_no_queries():
    Q, K, V = np.ones((2, 5, 3)), np.ones((2, 0, 3)), np.ones((2, 0, 4))
    got = _fused(Q, K, V, 0.1, 1.0, "softmax", False)
    assert got.shape == (2, 5, 4) and np.all(got == 0)
    got = _fused(np.ones((2, 0, 3)), np.ones((2, 4, 3)), np.ones((2, 4, 4)), 0.1, 1.0,
                 "softmax", True)
    assert got.shape == (2, 0, 4)


def _spread(rng, L, d):
    """Keys k_j = t_j q (t_j rising to 1 along j) with noise: for every query near q the scores
    rise from tile to tile, so the running maximum changes in every tile."""
    q = rng.normal(size=d)
    t = np.linspace(0.05, 1.0, L)
    K = t[:, None] * q[None, :] + 1e-2 * rng.normal(size=(L, d))
    Q = q[None, :] + 1e-2 * rng.normal(size=(L, d))
    return Q[None], K[None]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scale", [3e-2, 1.0, 30.0])
def test_softmax_online_rescaling(scale, causal):
    """Scores rising across tiles, spreading over ~0.1 to ~1e4 with scale = 30 (exp of the raw
    scores overflows: only the subtracted running maximum keeps it finite) and over a few units
    with scale = 0.03 (every key matters, so a missing or wrong rescale of l or acc is off by
    O(1), well outside the bound)."""
    rng = np.random.default_rng(11)
    Q, K = _spread(rng, 40, 4)
    V = rng.normal(size=(1, 40, 3))
    got = _fused(Q, K, V, 1e-3, scale, "softmax", causal)
    want = _check(got, Q, K, V, 1e-3, scale, "softmax", causal)
    assert np.all(np.isfinite(want))


@pytest.mark.parametrize("power,delta", [(1.0, 0.0), (2.5, 0.3), (0.5, 0.0), (1.0, 1e-320),
                                         (0.5, 1e200), (3.0, 50.0)])
def test_softermax_online_rescaling(power, delta):
    """Softermax (z/m)^p with the running maximum m rising across tiles, for several powers; delta
    as its root's term (m starts at delta^(1/p), normal) or, where that root is not a normal
    float64 (1e-320 with p = 1, 1e200 with p = 1/2), added at the end as exp(ln delta - p ln c)."""
    rng = np.random.default_rng(12)
    Q, K = _spread(rng, 40, 4)
    V = rng.normal(size=(1, 40, 3))
    for causal in (False, True):
        got = _fused(Q, K, V, 1e-3, 2.0, "softermax", causal, power, delta)
        _check(got, Q, K, V, 1e-3, 2.0, "softermax", causal, power, delta)


# ------------------------------------------------------------------ the registered 'cupy' row


@pytest.fixture
def fake_device(monkeypatch):
    """NumPy standing in for CuPy (``tests/particles/test_array_api.py``): the row's host_input
    copies count, and the kernel runs in the simulator on the copies.  Calls of the kernel
    driver are recorded."""
    if not SIMULATED:
        pytest.skip("the fake device stands in for CuPy only where the simulator runs")
    fake = _FakeDevice()
    monkeypatch.setattr(_array, "cupy_module", lambda: fake)
    monkeypatch.setattr(_registry, "libraries_available",
                        lambda: {"numba": _array.has_numba(), "cupy": True})
    calls = []
    driver = ca.attention

    def spy(*args, **kwargs):
        calls.append(args[0].shape)
        return driver(*args, **kwargs)
    monkeypatch.setattr(ca, "attention", spy)
    fake.calls = calls
    return fake


@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
def test_cupy_row_with_host_input_runs_the_fused_kernel(fake_device, normalize):
    """backend="cupy" on NumPy input: the registry's 'cupy' row copies Q, K, V to the device once
    each, runs the fused kernel (leading axes broadcast and flattened into the batch) and returns
    NumPy; a width scale with its exponent and softermax's power and delta are plain floats to the
    kernel."""
    assert _registry.choose("yat.attention", "cupy", "numpy").backend == "cupy"
    rng = np.random.default_rng(4)
    Q, K = rng.normal(size=(2, 1, 12, 3)), rng.normal(size=(3, 10, 3))
    V = rng.normal(size=(10, 2)).astype(np.float32)
    kw = dict(causal=True, normalize=normalize, scale="d", scale_alpha=0.7, power=1.5,
              delta=0.2)
    got = attention(Q, K, V, 0.3, backend="cupy", **kw)
    assert type(got) is np.ndarray and got.shape == (2, 3, 12, 2) and got.dtype == np.float64
    assert fake_device.calls == [(6, 12, 3)] and fake_device.copies == 3
    want = attention(Q, K, V, 0.3, backend="reference", **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("option", ["mask", "return_cache", "wide"])
def test_cupy_row_falls_back_to_the_reference_on_the_device(fake_device, option):
    """Options the kernel does not take (a mask, a cache for the backward, d + dv beyond its
    limit) run the reference inside the 'cupy' row (its scores from gram's 'cupy' row), never
    the kernel: the same values to rounding, NumPy out."""
    rng = np.random.default_rng(6)
    d = 100 if option == "wide" else 3
    Q, K, V = rng.normal(size=(9, d)), rng.normal(size=(8, d)), rng.normal(size=(8, 40))
    kw = {"mask": rng.random((9, 8)) > 0.3} if option == "mask" else {}
    if option == "return_cache":
        kw["return_cache"] = True
    got = attention(Q, K, V, 0.5, True, **kw, backend="cupy")
    want = attention(Q, K, V, 0.5, True, **kw, backend="reference")
    if option == "return_cache":
        assert type(got[1].A) is np.ndarray
        np.testing.assert_allclose(got[1].A, want[1].A, rtol=1e-12, atol=1e-15)
        got, want = got[0], want[0]
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert fake_device.calls == []


def test_multihead_without_a_cache_uses_the_fused_row(fake_device):
    """multihead_attention asks its attention call for a cache only when it returns one, so the
    forward alone reaches the fused kernel (all heads in one launch)."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(2, 7, 6))
    Wq, Wk, Wv = (rng.normal(size=(6, 4)) for _ in range(3))
    kw = dict(num_heads=2, eps=0.4, causal=True)
    Y = multihead_attention(X, Wq, Wk, Wv, backend="cupy", **kw)
    assert fake_device.calls == [(4, 7, 2)]
    np.testing.assert_allclose(Y, multihead_attention(X, Wq, Wk, Wv, backend="reference", **kw),
                               rtol=1e-12, atol=1e-15)
    multihead_attention(X, Wq, Wk, Wv, backend="cupy", return_cache=True, **kw)
    assert fake_device.calls == [(4, 7, 2)]


def test_the_public_function_is_not_the_row():
    """attention validates, chooses and calls a row; the rows are private functions."""
    rows = {i.backend: i.func for i in _registry.implementations("yat.attention")}
    assert set(rows) == {"reference", "numba", "cupy"}
    assert attention not in rows.values()
    assert rows["cupy"] is attention_module._attention_cupy
