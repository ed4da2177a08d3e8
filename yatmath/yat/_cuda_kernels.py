"""The GPU kernels of the Yat kernel, written with numba-cuda (``yatmath._cuda``).

On a CUDA device they run on CuPy arrays; under numba-cuda's simulator the same source runs on
NumPy arrays, which is how the test suite executes them on a CPU (``tests/yat/test_cuda_kernels.py``).

The formulas are the Numba CPU definitions compiled again as device functions: the finishing
step ``_numba_kernels._finish`` (K = N (N / D), the bias), the repair rule
``_numba_kernels._needs_repair`` and the direct float64 pair ``_numba_kernels._direct_pair``.

Kernels
-------
``gram``           one GEMM S = X W^T (cuBLAS through the array library), then one pass per entry:
                   D from the expanded form, recomputed from the direct float64 form where the
                   repair rule says so, and K written in the dtype of X (float32 subnormals kept).
``backward_pass``  the layer backward's pass (``layer.py`` module docstring) from the same dots.
``matvec``         sum_j K(X_i, Y_j) V_j without any (n, m) array: one thread per row X_i, the rows
                   of Y, V and the bias staged through shared memory in tiles of ``THREADS`` rows,
                   every pair in the direct float64 form (no cancellation, so no repair), the sums
                   in float64 registers.  Shapes with d + k + 1 > ``_MATVEC_MAX_COLS`` or
                   k > ``_MATVEC_MAX_K`` (V of shape (m, k)) use Gram tiles and a GEMM instead.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import types

from .. import _cuda
from .._cuda_cast import cast
from . import _numba_kernels as nk

_finish = _cuda.device_function(nk._finish.py_func)
_needs_repair = _cuda.device_function(nk._needs_repair.py_func)
_direct_pair = _cuda.device_function(nk._direct_pair.py_func)
#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()

#: Columns of shared memory per staged row of the tiled matvec (d of Y, k of V, 1 bias), float64:
#: THREADS * 96 * 8 = 96 KiB would exceed the 48 KiB a block gets without opting in, so the
#: tile is halved above 48 columns (``_matvec_threads``).
_MATVEC_MAX_COLS = 96
#: Right-hand sides the tiled matvec keeps in registers per thread.
_MATVEC_MAX_K = 16
_SHARED_BYTES = 48 * 1024
_f64 = types.float64


@_cu.jit(device=True)
def _pair_sd(s, xn, wn, X, W, i, j, eps, tau):
    """(N, D) of entry (i, j) from its dot s and squared norms xn, wn: the expanded form
    D = xn + wn - 2 s + eps, or the direct float64 form of rows X[i], W[j] where the repair rule
    says the expanded one cancels (or is not finite)."""
    if _needs_repair(s, xn + wn, tau):
        sv, q = _direct_pair(X[i], W[j])
        return sv, q + np.float64(eps)
    return np.float64(s), np.float64((xn + wn) - (s + s)) + np.float64(eps)


@_cu.jit
def _gram_pass(S, xn, wn, X, W, eps, b, mode, tau, out):
    j, i = _cu.grid(2)
    if i < S.shape[0] and j < S.shape[1]:
        sv, dv = _pair_sd(S[i, j], xn[i], wn[j], X, W, i, j, eps, tau)
        bj = np.float64(b[j]) if mode != 0 else 0.0
        out[i, j] = _finish(sv, dv, bj, mode)


@_cu.jit
def _backward_pass(S, G, gone, xn, wn, X, W, eps, b, mode, tau, sc, p, q, dc, gh):
    j, i = _cu.grid(2)
    if i < S.shape[0] and j < S.shape[1]:
        sv, dv = _pair_sd(S[i, j], xn[i], wn[j], X, W, i, j, eps, tau)
        bj = np.float64(b[j]) if mode != 0 else 0.0
        if mode == 1:
            sv += bj
        r = sv / dv
        g = G[i, 0] if gone else G[i, j]
        gk = np.float64(sc) * np.float64(g)
        gr = gk * r
        qq = gr * r
        p[i, j] = 2.0 * (gr + qq)
        q[i, j] = qq
        dc[i, j] = gr if mode == 1 else gk
        gh[i, j] = gr * sv + (gk * bj if mode == 2 else 0.0)


@_cu.jit
def _finish_each(s, D, b, mode, out):
    i = _cu.grid(1)
    if i < s.shape[0]:
        out[i] = _finish(s[i], D[i], b[i], mode)


@_cu.jit
def _needs_repair_each(s, nrm, tau, out):
    i = _cu.grid(1)
    if i < s.shape[0]:
        out[i] = _needs_repair(s[i], nrm[i], tau)


_BLOCK2 = (32, 8)


def _grid2(rows, cols):
    return (_cuda.blocks(cols, _BLOCK2[0]), _cuda.blocks(rows, _BLOCK2[1]))


def _dots(X, W):
    """S = X W^T and the squared row norms, in the dtype of X (cuBLAS on a device)."""
    xp = _cuda.array_module(X)
    return X @ W.T, xp.sum(X * X, axis=1), xp.sum(W * W, axis=1)


def gram(X, W, eps, b, mode, tau):
    """K(X[i], W[j]) for X (B, d), W (n, d) contiguous of one float dtype, b (n,) (mode 0 none,
    1 inner, 2 outer); tau = REPAIR_TAU (expanded form with repair) or inf (direct form for every
    pair).  The result has the dtype of X."""
    S, xn, wn = _dots(X, W)
    dt = X.dtype.type
    _gram_pass[_grid2(*S.shape), _BLOCK2](S, xn, wn, X, W, dt(eps), b, np.int32(mode), dt(tau), S)
    return S


def backward_pass(X, W, G, eps, b, mode, tau, scale):
    """(P, q, dc, gh), each (B, n) in the dtype of X, for dL/dH = scale * G (G (B, n) or (B, 1)):
    P = 2 gk r (1 + r), q = gk r^2, dc = gk r (inner bias) or gk, gh = gk H, gk = scale G.
    The caller forms dX = P W - 2 diag(q 1) X and dW = P^T X - 2 diag(q^T 1) W."""
    xp = _cuda.array_module(X)
    S, xn, wn = _dots(X, W)
    dt = X.dtype.type
    q, dc, gh = xp.empty_like(S), xp.empty_like(S), xp.empty_like(S)
    _backward_pass[_grid2(*S.shape), _BLOCK2](
        S, G, np.bool_(G.shape[1] == 1 and S.shape[1] != 1), xn, wn, X, W, dt(eps), b,
        np.int32(mode), dt(tau), dt(scale), S, q, dc, gh)
    return S, q, dc, gh


def finish(s, D, b, mode):
    """``_finish`` elementwise on 1-D float64 arrays (tests compare it with the reference)."""
    out = _cuda.array_module(s).empty(s.shape, dtype=np.float64)
    _finish_each[_cuda.blocks(s.shape[0]), _cuda.THREADS](s, D, b, np.int32(mode), out)
    return out


def needs_repair(s, nrm, tau):
    """``_needs_repair`` elementwise on 1-D arrays (tests compare it with the reference)."""
    out = _cuda.array_module(s).empty(s.shape, dtype=np.bool_)
    _needs_repair_each[_cuda.blocks(s.shape[0]), _cuda.THREADS](s, nrm, s.dtype.type(tau), out)
    return out


def _matvec_threads(d, k):
    """Rows per tile (= threads per block) of the tiled matvec for (d, k), or 0 when its shared
    memory would not fit."""
    cols = d + k + 1
    if cols > _MATVEC_MAX_COLS or k > _MATVEC_MAX_K:
        return 0
    threads = _cuda.THREADS
    while threads * cols * 8 > _SHARED_BYTES:
        threads //= 2
    return threads


@functools.lru_cache(maxsize=None)
def _matvec_kernel(d, k, threads):
    """The tiled direct-form matvec for feature dimension d and k right-hand sides (both
    compile-time constants, so the inner loops unroll)."""
    @_cu.jit
    def kern(X, Y, V, eps, b, mode, out):
        # one dynamic shared array: rows of Y at [0, T d), of V at [T d, T (d + k)), the bias at
        # [T (d + k), T (d + k + 1)) for T = threads (offsets, not slices of it)
        sh = _cu.shared.array(0, dtype=_f64)
        vo = threads * d
        bo = threads * (d + k)
        t = _cu.threadIdx.x
        i = _cu.blockIdx.x * threads + t
        n = X.shape[0]
        m = Y.shape[0]
        xi = _cu.local.array(d, dtype=_f64)
        acc = _cu.local.array(k, dtype=_f64)
        for c in range(d):
            xi[c] = np.float64(X[i, c]) if i < n else 0.0
        for c in range(k):
            acc[c] = 0.0
        e = np.float64(eps)
        for j0 in range(0, m, threads):
            jl = j0 + t
            if jl < m:
                for c in range(d):
                    sh[t * d + c] = Y[jl, c]
                for c in range(k):
                    sh[vo + t * k + c] = V[jl, c]
                sh[bo + t] = b[jl]
            _cu.syncthreads()
            if i < n:
                for l in range(min(threads, m - j0)):
                    s = 0.0
                    q = 0.0
                    for c in range(d):
                        yc = sh[l * d + c]
                        s += xi[c] * yc
                        df = xi[c] - yc
                        q += df * df
                    kv = _finish(s, q + e, sh[bo + l], mode)
                    for c in range(k):
                        acc[c] += kv * sh[vo + l * k + c]
            _cu.syncthreads()
        if i < n:
            for c in range(k):
                out[i, c] = acc[c]
    return kern


def matvec(X, Y, V, eps, b, mode, tau, rows, cols):
    """sum_j K(X_i, Y_j) V_j, (n, k) in the dtype of X, for X (n, d), Y (m, d) of one dtype,
    V (m, k), b (m,); float64 sums.  The tiled direct-form kernel where its shared memory fits
    (module docstring), else (rows x cols) Gram tiles of ``gram`` and a GEMM per tile."""
    xp = _cuda.array_module(X)
    n, d = X.shape
    k = V.shape[1]
    threads = _matvec_threads(d, k)
    if threads:
        out = xp.empty((n, k), dtype=X.dtype)
        kern = _matvec_kernel(d, k, threads)
        # the bias in its own dtype: the kernel widens it (a CuPy conversion would flush a
        # float32 subnormal bias to 0: the first H100 run's float32 matvec failure)
        kern[_cuda.blocks(n, threads), threads, 0, threads * (d + k + 1) * 8](
            X, Y, V, np.float64(eps), xp.ascontiguousarray(b), np.int32(mode), out)
        return out
    out = xp.zeros((n, k), dtype=np.float64)
    V64 = cast(xp.ascontiguousarray(V), np.float64)
    for j0 in range(0, Y.shape[0], cols):
        Yt, Vt, bt = Y[j0:j0 + cols], V64[j0:j0 + cols], b[j0:j0 + cols]
        for i0 in range(0, n, rows):
            T = gram(X[i0:i0 + rows], Yt, eps, bt, mode, tau)
            out[i0:i0 + rows] += cast(T, np.float64) @ Vt
    return cast(out, X.dtype)
