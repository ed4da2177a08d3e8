"""gram(method="expanded", backend="numba") computed in tiles (_numba_kernels.gram_tiles).

The mpmath suite (test_yat_accuracy.py) uses 12 x 12 Gram matrices: one tile.  Here small tiles
are forced so that tile edges, partial tiles and repaired (near-coincident) pairs on both sides
of an edge are exercised, and the BLAS thread limit that the tiles need is checked to be undone.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from yatmath.yat import _numba_kernels as nk
from yatmath.yat import gram


def _reference_and_bound(X, W, eps, dtype):
    """K in float64 (direct form) and the kernel.py docstring bound (no bias) for dtype."""
    X64, W64 = X.astype(np.float64), W.astype(np.float64)
    s = X64 @ W64.T
    D = ((X64[:, None, :] - W64[None, :, :]) ** 2).sum(-1) + eps
    K = s * (s / D)
    nn = np.linalg.norm(X64, axis=1)[:, None] * np.linalg.norm(W64, axis=1)[None, :]
    d = X.shape[1]
    u = np.finfo(dtype).eps / 2
    bound = 4 * (d + 4) * u * (np.abs(s) * nn / D + 8 * K) + ((d + 4) * u * nn) ** 2 / D
    # In float64 the reference itself meets the same bound (test_yat_accuracy), so the
    # distance between the two is at most twice it; for float32 its error is ~1e-9 of it.
    return K, (2.0 if dtype is np.float64 else 1.0) * bound


def _inputs(dtype, B=23, n=31, d=40):
    rng = np.random.default_rng(11)
    X = rng.standard_normal((B, d))
    W = rng.standard_normal((n, d))
    # near-coincident pairs (the expanded form cancels; they must be repaired) on a diagonal
    # that crosses every tile edge for the tile shapes below
    # (relative distances 1e-7..1e-4 in float64, 1e-4..1e-2 in float32: far above the dtype's
    # rounding, far below the cancellation the expanded form tolerates)
    k = min(B, n)
    lo, hi = (-7, -4) if dtype is np.float64 else (-4, -2)
    W[:k] = X[:k] * (1 + 10.0 ** rng.uniform(lo, hi, k))[:, None]
    return X.astype(dtype), W.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("tile", [(5, 7), (1, 1), (64, 3), (23, 31)])
def test_tiles_meet_the_error_bound(dtype, tile, monkeypatch):
    monkeypatch.setattr(nk, "TILED_MIN_BYTES", dict.fromkeys(nk.TILED_MIN_BYTES, 0))     # tiles at every size
    monkeypatch.setattr(nk, "TILE", tile)
    calls = []
    monkeypatch.setattr(nk, "gram_tiles", _spy(nk.gram_tiles, calls))
    X, W = _inputs(dtype)
    eps = 1e-12     # below every squared distance here: D is the cancelling term
    G = gram(X, W, eps, method="expanded", backend="numba")
    K, bound = _reference_and_bound(X, W, eps, dtype)
    assert calls and G.shape == K.shape and G.dtype == dtype
    err = np.abs(G.astype(np.float64) - K)
    assert np.all(err <= bound), np.max(err / bound)
    # the near-coincident pairs really needed the repair: the unrepaired form misses the bound
    k = min(X.shape[0], W.shape[0])
    S = (X @ W.T).astype(np.float64)
    t = (np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", W, W)[None, :]
         - 2 * (X @ W.T)).astype(np.float64) + eps
    naive = S * (S / t)
    idx = np.arange(k)
    assert np.mean(np.abs(naive[idx, idx] - K[idx, idx]) > bound[idx, idx]) > 0.8


def _spy(fn, calls):
    def wrapped(*args):
        calls.append(args[9:11])
        return fn(*args)
    return wrapped


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_blas_thread_limits_restored_after_serial_and_concurrent_calls(monkeypatch):
    monkeypatch.setattr(nk, "TILED_MIN_BYTES", dict.fromkeys(nk.TILED_MIN_BYTES, 0))
    monkeypatch.setattr(nk, "TILE", (5, 7))
    X, W = _inputs(np.float64)
    before = _blas_threads()
    G0 = gram(X, W, 1e-3, method="expanded", backend="numba")
    assert _blas_threads() == before
    results = [None] * 6

    def work(k):
        for _ in range(5):
            results[k] = gram(X, W, 1e-3, method="expanded", backend="numba")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _blas_threads() == before
    # single-threaded BLAS calls on the same tiles are deterministic: identical results
    for G in results:
        np.testing.assert_array_equal(G, G0)
