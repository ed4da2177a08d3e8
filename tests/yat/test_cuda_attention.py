"""The fused Yat attention kernel (``yatmath/yat/_cuda_attention.py``) against the reference.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source on NumPy arrays thread by thread (shared memory and ``syncthreads`` included): these tests
then execute its tiling, its online softmax/softermax rescaling and its causal bounds on the CPU.
With a device the same tests launch the compiled kernel on CuPy arrays.

Both kernels run (``KERNELS``), on the same sizes: small (the simulator runs each GPU thread as a
Python thread), mostly 37 queries against 33 keys.  ``rows``: T = 16 threads per block, one per
query row (three blocks and three key tiles, the last ones partial).  ``tiles``: blocks of 32
query rows (two, the last partial), key tiles of 16 rows (three, the last with one key),
G = 2 threads per row (T = 64: the tile copies take two rows per pass, a thread scores 8 keys
per tile and owns output columns g and g + 2, the second only for g = 0 as dv = 3); further
tests run wider rows (two copy segments, the second partial, and 16 threads per row) and
``plan``'s own tiles at d = dv = 64.

Tolerance.  The kernel evaluates every score in the direct float64 form and sums
O_i = sum_j p_ij v_j in float64 in its own order (tile by tile, with rescalings), the reference
(float64) forms the whole score matrix and multiplies A V (``tiles`` sums l as G partial sums,
each rescaled once per key tile, and adds them at the end).  Each differs from the exact value by
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
TILE = (32, 16, 2)  # (bq, bk, g) of the tiles kernel in the driver tests: the same blocks, tiles
#: keyword overriding the driver's kernel choice, per kernel
KERNELS = {"rows": dict(threads=T), "tiles": dict(tile=TILE)}
U64, U32 = 2.0 ** -53, 2.0 ** -24


def dev(a):
    """``a`` where the kernel runs: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _fused(Q, K, V, eps, scale, normalize, causal, power=1.0, delta=0.0, kernel="rows",
           **override):
    """The kernel driver on (B, L, .) arrays with ``KERNELS[kernel]`` (or ``override``), result
    on the host."""
    root = None if normalize == "softmax" else _delta_root(delta, power)
    return host(ca.attention(dev(Q), dev(K), dev(V), eps, scale, normalize, causal, power,
                             delta, root, **(override or KERNELS[kernel])))


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
    assert ca.plan(64, 65) is None and ca.plan(0, 3) is None and not ca.supported(3, 0)
    with pytest.raises(ValueError, match="d \\+ dv <= 128"):
        ca.attention(np.zeros((1, 2, 100)), np.zeros((1, 2, 100)), np.zeros((1, 2, 40)), 0.1,
                     1.0, "softmax", False)


def test_plan():
    """Few columns: the rows kernel (q_i and acc in registers), as before; wider: the tiles
    kernel, 16 query rows x 16 threads per block, key tiles of 32 rows where the float64 tiles
    fit the 48 KiB of shared memory (at d = dv = 64: 46.5 KiB), else 16; every supported width
    fits."""
    assert ca.plan(3, 2) == ("rows", 128, 128, 128, 1, 5 * 1024)
    assert ca.plan(8, 8) == ("rows", 128, 128, 128, 1, 16 * 1024)
    assert ca.plan(16, 1).kernel == "tiles"
    assert ca.plan(64, 64) == ("tiles", 256, 16, 32, 16, 8 * (48 * 65 + 32 * 64 + 16 * 49))
    assert ca.plan(127, 1)[:5] == ("tiles", 256, 16, 16, 16)
    for d in range(1, ca.MAX_COLS):
        for dv in range(1, ca.MAX_COLS - d + 1):
            p = ca.plan(d, dv)
            assert p.shared <= 48 * 1024 and p.bk % p.g == 0 and p.threads == p.bq * p.g


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
def test_kernel_matches_the_reference(normalize, causal, dtype, kernel):
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
    got = _fused(Q, K, V, 0.1, 1.5, normalize, causal, kernel=kernel)
    _check(got, Q, K, V, 0.1, 1.5, normalize, causal)
    if normalize == "softermax":
        assert np.all(got[:, 3] == 0)


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_causal_first_row_is_its_value(kernel):
    """Row 0 under causal attends to key 0 alone (the rest of its first tile is masked, and the
    key loop of its block stops after one tile): its output is v_0 exactly, whatever its score.
    (With j <= i key 0 is allowed in every row, so no causal row has a wholly masked first tile;
    the empty state m = -inf, l = 0 is the softermax zero row above and the rows without keys
    below.)"""
    rng = np.random.default_rng(8)
    Q, K = rng.normal(size=(1, 20, 4)), rng.normal(size=(1, 20, 4))
    V = rng.normal(size=(1, 20, 2))
    for normalize in ("softmax", "softermax"):
        got = _fused(Q, K, V, 0.5, 3.0, normalize, True, kernel=kernel)
        np.testing.assert_array_equal(got[0, 0], V[0, 0])
        _check(got, Q, K, V, 0.5, 3.0, normalize, True)


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_no_keys_and_no_queries(kernel):
    Q, K, V = np.ones((2, 5, 3)), np.ones((2, 0, 3)), np.ones((2, 0, 4))
    got = _fused(Q, K, V, 0.1, 1.0, "softmax", False, kernel=kernel)
    assert got.shape == (2, 5, 4) and np.all(got == 0)
    got = _fused(np.ones((2, 0, 3)), np.ones((2, 4, 3)), np.ones((2, 4, 4)), 0.1, 1.0,
                 "softmax", True, kernel=kernel)
    assert got.shape == (2, 0, 4)


def _spread(rng, L, d):
    """Keys k_j = t_j q (t_j rising to 1 along j) with noise: for every query near q the scores
    rise from tile to tile, so the running maximum changes in every tile."""
    q = rng.normal(size=d)
    t = np.linspace(0.05, 1.0, L)
    K = t[:, None] * q[None, :] + 1e-2 * rng.normal(size=(L, d))
    Q = q[None, :] + 1e-2 * rng.normal(size=(L, d))
    return Q[None], K[None]


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scale", [3e-2, 1.0, 30.0])
def test_softmax_online_rescaling(scale, causal, kernel):
    """Scores rising across tiles, spreading over ~0.1 to ~1e4 with scale = 30 (exp of the raw
    scores overflows: only the subtracted running maximum keeps it finite) and over a few units
    with scale = 0.03 (every key matters, so a missing or wrong rescale of l or acc is off by
    O(1), well outside the bound)."""
    rng = np.random.default_rng(11)
    Q, K = _spread(rng, 40, 4)
    V = rng.normal(size=(1, 40, 3))
    got = _fused(Q, K, V, 1e-3, scale, "softmax", causal, kernel=kernel)
    want = _check(got, Q, K, V, 1e-3, scale, "softmax", causal)
    assert np.all(np.isfinite(want))


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("power,delta", [(1.0, 0.0), (2.5, 0.3), (0.5, 0.0), (1.0, 1e-320),
                                         (0.5, 1e200), (3.0, 50.0)])
def test_softermax_online_rescaling(power, delta, kernel):
    """Softermax (z/m)^p with the running maximum m rising across tiles, for several powers; delta
    as its root's term (m starts at delta^(1/p), normal) or, where that root is not a normal
    float64 (1e-320 with p = 1, 1e200 with p = 1/2), added at the end as exp(ln delta - p ln c).
    (``tiles``: causal only, to keep the simulator's time down; its non-causal softermax is the
    driver test above.)"""
    rng = np.random.default_rng(12)
    Q, K = _spread(rng, 40, 4)
    V = rng.normal(size=(1, 40, 3))
    for causal in ((False, True) if kernel == "rows" else (True,)):
        got = _fused(Q, K, V, 1e-3, 2.0, "softermax", causal, power, delta, kernel=kernel)
        _check(got, Q, K, V, 1e-3, 2.0, "softermax", causal, power, delta)


# ------------------------------------------------------------------ the tiles kernel's own cases


@pytest.mark.parametrize("normalize,dtype", [("softmax", np.float32),
                                             ("softermax", np.float64)])
def test_tiles_wide_rows(normalize, dtype):
    """d = 40, dv = 24 with 4 query rows x 16 threads per block (64) and key tiles of 16 rows:
    the copies take two rows per pass, 32 entries of a row at a time (a row of Q or K in two
    segments, the second with 8 entries; a row of V in one partial segment); a thread owns two
    output columns (the second only for g < 8).  21 queries (six blocks, the last with one row),
    40 keys (three tiles, the last with 8); under causal the diagonal cuts the key tiles of
    every block.  Same bound as above."""
    rng = np.random.default_rng(21)
    Q = rng.normal(size=(1, 21, 40)).astype(dtype)
    K = rng.normal(size=(1, 40, 40)).astype(dtype)
    V = rng.normal(size=(1, 40, 24)).astype(dtype)
    for causal in (False, True):
        got = _fused(Q, K, V, 0.2, 0.05, normalize, causal, 1.5, 0.1, tile=(4, 16, 16))
        _check(got, Q, K, V, 0.2, 0.05, normalize, causal, 1.5, 0.1)


@pytest.mark.parametrize("normalize,causal", [("softmax", False), ("softermax", True)])
def test_tiles_plan_at_d64(normalize, causal):
    """The launch ``plan`` makes at the benchmark's widths (d = dv = 64: 16 query rows x 16
    threads, key tiles of 32) on 20 queries (a full and a partial block) and 40 keys (a full and
    a partial tile), float32 in and out, two batch entries; the scores rise across the tiles
    (``_spread``), so the second tile rescales.  Same bound as above."""
    assert ca.plan(64, 64).kernel == "tiles"
    rng = np.random.default_rng(22)
    Q, K = _spread(rng, 40, 64)
    Q = np.concatenate([Q[:, :20], Q[:, 20:]]).astype(np.float32)
    K = np.concatenate([K, K[:, ::-1]]).astype(np.float32)
    V = rng.normal(size=(2, 40, 64)).astype(np.float32)
    got = host(ca.attention(dev(Q), dev(K), dev(V), 1e-3, 0.125, normalize, causal, 2.0, 0.0,
                            None if normalize == "softmax" else _delta_root(0.0, 2.0)))
    _check(got, Q, K, V, 1e-3, 0.125, normalize, causal, 2.0, 0.0)


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_causal_never_uses_a_later_key(kernel):
    """Causal with more keys than queries: keys j >= Lq are allowed to no row, so NaN there (in K
    and V) must not reach any output, although the last block's key loop stages some of them
    (its diagonal tile reaches j = i0 + bq - 1 > Lq - 1) and only the per-row bound j <= i
    excludes them; with the row bound off by one every row would take the key after its
    diagonal, and the last rows a NaN."""
    rng = np.random.default_rng(23)
    Q, K = rng.normal(size=(2, 37, 5)), rng.normal(size=(2, 45, 5))
    V = rng.normal(size=(2, 45, 3))
    K[:, 37:] = np.nan
    V[:, 37:] = np.nan
    for normalize in ("softmax", "softermax"):
        got = _fused(Q, K, V, 0.1, 1.5, normalize, True, kernel=kernel)
        assert np.all(np.isfinite(got))
        _check(got, Q, K[:, :37], V[:, :37], 0.1, 1.5, normalize, True)


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
