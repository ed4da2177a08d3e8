"""The Yat Gram matrix on the GPU in one kernel: a tiled GEMM with the Yat epilogue in registers.

G[i, j] = K(X[i], W[j]) for X (B, d), W (n, d), written once.  The GEMM-then-pass path
(``_cuda_kernels.gram``: cuBLAS writes S = X W^T, a second kernel reads S and writes K over it)
moves the (B, n) result through memory three times; this kernel moves it once, so for the small
d of a Yat layer (d = 64 .. 256, where a GEMM of that shape is dominated by its store) it is
designed to cost about one GEMM.

Design (numba-cuda, ``yatmath._cuda``; compile-time tile constants, so the loops over the
micro-tile and the staged words unroll and the accumulators live in registers):

* block tile BM x BN of G, T = (BM / TM) (BN / TN) threads; thread (ty, tx) owns the TM x TN
  entries i = i0 + ty + r BM / TM, j = j0 + tx + c BN / TN (strided: the shared-memory reads of a
  warp are broadcasts or consecutive words, and the final stores of a warp are consecutive
  columns, so they coalesce);
* the K dimension in tiles of BK columns: the BM x BK slice of X and the BN x BK slice of W are
  read from global memory row by row (consecutive threads, consecutive columns) into registers
  and stored transposed in shared memory, padded by 4 words per row so those stores hit
  distinct banks; the loads of the next K tile are issued before the dots of the current one,
  so their latency overlaps arithmetic (one shared buffer, two ``syncthreads`` per K tile);
  out-of-range rows and columns (partial tiles of B, n and d) are staged as 0, which adds
  nothing to a dot;
* each thread keeps TM + TN staged values and TM TN dots in registers, and per column k of the
  tile does TM TN multiply-adds from TM + TN shared-memory reads;
* epilogue, per entry, in registers: ``_cuda_kernels._pair_sd`` (the expanded form
  D = ||x||^2 + ||w||^2 - 2 s + eps from the dot s and the squared row norms, or, where the
  repair rule ``_numba_kernels._needs_repair`` flags the pair, the direct float64 form
  ``_numba_kernels._direct_pair`` of rows X[i] and W[j] read from global memory), the bias
  (modes 0 none, 1 inner, 2 outer) and ``_numba_kernels._finish``, then a single store of K in
  the dtype of X.  Nothing of size B x n other than G is allocated, read or written.

Accuracy: exactly the GEMM-then-pass path's contract.  The dots are accumulated in the dtype of
X, one accumulator per entry in column order (float32 dots for float32 input, as cuBLAS SGEMM),
so |s_hat - s| <= d u ||x|| ||w||; the squared row norms come from the array library in the
same dtype (as ``_cuda_kernels._dots``).  The repair rule then decides from s and
||x||^2 + ||w||^2 exactly as in the two-pass path, so the expanded form's extra error is at most
2 (d + 2) u / tau relative to D and the bound of ``yat.kernel``'s module docstring holds
(``tests/yat/test_cuda_gram.py`` runs the accuracy harness on it).  Dots that overflow the
dtype (float32 rows of norm above ~1.8e19) give t = nrm - 2 s = -inf or NaN, so the rule
repairs them.  tau = inf (``method="direct"``) repairs every pair, so the K loop is compiled
out and every entry is the direct float64 form.  The kernel is compiled without fastmath: the
float32 store of a float64 K keeps subnormals (CuPy's own kernels would flush them to 0).

Limits: contiguous X, W of one float dtype; B is launched in chunks of at most 65535 row tiles
(the grid's y dimension).  Shared memory: BK (BM + BN + 8) words of the dtype (8.3 KiB for the
float32 default, 12.5 KiB for the float64 one).  Registers: the TM TN dots, TM + TN operands and
the prefetched words (BM + BN) BK / T per thread; compiled for sm_90 the dots and the prefetch
stay in registers through the K loop (the PTX has no local-memory access there), the epilogue
reads the dots back from local memory once.  ``ptxas -v`` (sm_90, defaults): 150 registers
(float32) and 160 (float64), no spills, so one block of 256 threads per SM; a launch bound of
two blocks per SM would cap them at 128 with ~40 bytes spilled (not measured on a device).

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays,
thread by thread: ``tests/yat/test_cuda_gram.py`` runs it there with small tiles, so several
block tiles and K tiles, partial ones among them, are exercised on any CPU.
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numba import types

from .. import _cuda
from . import _cuda_kernels as ck

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_finish = ck._finish
_pair_sd = ck._pair_sd

#: (BM, BN, BK, TM, TN) per dtype: block tile BM x BN of G, K tile BK, micro-tile TM x TN per
#: thread, 256 threads.  float32: 8 x 8 dots per thread (64 registers), 16 multiply-adds per
#: shared-memory word read.  float64: 8 x 4 dots (64 registers for 32 doubles), 10.7 per word.
TILE: dict[str, tuple[int, int, int, int, int]] = {
    "float32": (128, 128, 8, 8, 8),
    "float64": (128, 64, 8, 8, 4),
}
#: Words of padding per shared-memory row (the transposed stores of a warp hit distinct banks).
_PAD = 4
#: Most row tiles per launch (the grid's y dimension).
_MAX_GRID_Y = 65535
_TYPES = {"float32": types.float32, "float64": types.float64}


def check_tile(tile: tuple[int, int, int, int, int]) -> tuple[int, int, int, int, int]:
    """``tile`` as five ints (BM, BN, BK, TM, TN), or ValueError: all >= 1, TM divides BM, TN
    divides BN, at most 1024 threads per block."""
    bm, bn, bk, tm, tn = (int(v) for v in tile)
    if min(bm, bn, bk, tm, tn) < 1 or bm % tm or bn % tn:
        raise ValueError(f"tile (BM, BN, BK, TM, TN) needs positive ints with TM | BM and "
                         f"TN | BN, got {tile}")
    if (bm // tm) * (bn // tn) > 1024:
        raise ValueError(f"tile {tile} needs {(bm // tm) * (bn // tn)} threads per block "
                         "(at most 1024)")
    return bm, bn, bk, tm, tn


@functools.lru_cache(maxsize=None)
def _stage(rows: int, bk: int, nt: int) -> tuple[Any, Any]:
    """(fetch, store): device functions (inlined) moving the rows x bk slice of a matrix A at
    (r0, k0) through the registers p of thread t of nt into a shared tile s, transposed.
    ``fetch(A, r0, k0, t, p)`` reads from global memory (word e = t + q nt of the slice, row
    e // bk, column e % bk: consecutive threads read consecutive columns), 0 outside A;
    ``store(s, t, p)`` writes p to s[column, row]."""
    count = -(-rows * bk // nt)
    size = rows * bk

    @_cu.jit(device=True, inline="always")
    def fetch(A, r0, k0, t, p):
        for q in range(count):
            e = t + q * nt
            if e < size:
                r = r0 + e // bk
                k = k0 + e % bk
                if r < A.shape[0] and k < A.shape[1]:
                    p[q] = A[r, k]
                else:
                    p[q] = 0

    @_cu.jit(device=True, inline="always")
    def store(s, t, p):
        for q in range(count):
            e = t + q * nt
            if e < size:
                s[e % bk, e // bk] = p[q]
    return fetch, store


@functools.lru_cache(maxsize=None)
def _kernel(dtype: str, bm: int, bn: int, bk: int, tm: int, tn: int, dots: bool) -> Any:
    """The fused Gram kernel for one dtype name and tile (module docstring); ``dots`` False
    (tau = inf: every pair direct) compiles the K loop out."""
    nb = _TYPES[dtype]
    ty_n = bm // tm               # threads along the rows of the block tile
    tx_n = bn // tn               # threads along its columns
    nt = ty_n * tx_n
    la = -(-bm * bk // nt)        # staged words of X per thread and K tile
    lb = -(-bn * bk // nt)
    fetch_a, store_a = _stage(bm, bk, nt)
    fetch_b, store_b = _stage(bn, bk, nt)
    sha = (bk, bm + _PAD)         # shapes as constants of the closure (NVVM needs literals)
    shb = (bk, bn + _PAD)
    acs = (tm, tn)

    @_cu.jit
    def kern(X, W, xn, wn, eps, b, mode, tau, row0, out):
        sa = _cu.shared.array(sha, dtype=nb)
        sb = _cu.shared.array(shb, dtype=nb)
        acc = _cu.local.array(acs, dtype=nb)
        fa = _cu.local.array(tm, dtype=nb)
        fb = _cu.local.array(tn, dtype=nb)
        pa = _cu.local.array(la, dtype=nb)
        pb = _cu.local.array(lb, dtype=nb)
        t = _cu.threadIdx.x
        tx = t % tx_n
        ty = t // tx_n
        i0 = row0 + _cu.blockIdx.y * bm
        j0 = _cu.blockIdx.x * bn
        n = X.shape[0]
        m = W.shape[0]
        d = X.shape[1]
        for r in range(tm):
            for c in range(tn):
                acc[r, c] = 0
        if dots:
            fetch_a(X, i0, 0, t, pa)
            fetch_b(W, j0, 0, t, pb)
            for k0 in range(0, d, bk):
                store_a(sa, t, pa)
                store_b(sb, t, pb)
                _cu.syncthreads()
                if k0 + bk < d:          # the next K tile's loads overlap this one's dots
                    fetch_a(X, i0, k0 + bk, t, pa)
                    fetch_b(W, j0, k0 + bk, t, pb)
                for kk in range(bk):
                    for r in range(tm):
                        fa[r] = sa[kk, ty + r * ty_n]
                    for c in range(tn):
                        fb[c] = sb[kk, tx + c * tx_n]
                    for r in range(tm):
                        for c in range(tn):
                            acc[r, c] += fa[r] * fb[c]
                _cu.syncthreads()
        for c in range(tn):
            j = j0 + tx + c * tx_n
            if j < m:
                fb[c] = wn[j]
        for r in range(tm):
            i = i0 + ty + r * ty_n
            if i < n:
                xi = xn[i]
                for c in range(tn):
                    j = j0 + tx + c * tx_n
                    if j < m:
                        sv, dv = _pair_sd(acc[r, c], xi, fb[c], X, W, i, j, eps, tau)
                        bj = np.float64(b[j]) if mode != 0 else 0.0
                        out[i, j] = _finish(sv, dv, bj, mode)
    return kern


def _norms(A: Any) -> Any:
    """Squared row norms in the dtype of A (the array library's sum, as ``_cuda_kernels._dots``)."""
    return _cuda.array_module(A).sum(A * A, axis=1)


def _writable(a: Any) -> Any:
    """``a``, or a copy where it is a read-only NumPy array (a broadcast bias): numba-cuda's
    simulator writes every argument back after a launch."""
    flags = getattr(a, "flags", None)
    return a if flags is None or flags.writeable else np.array(a)


def gram(X: Any, W: Any, eps: float, b: Any, mode: int, tau: float,
         tile: tuple[int, int, int, int, int] | None = None) -> Any:
    """K(X[i], W[j]), (B, n) in the dtype of X, for X (B, d), W (n, d) contiguous of one float
    dtype, b (n,) in that dtype (mode 0 none, 1 inner, 2 outer); tau = REPAIR_TAU (expanded form
    with repair) or inf (direct form for every pair).  ``tile`` (BM, BN, BK, TM, TN) overrides
    ``TILE[dtype]`` (tests: several tiles at simulator sizes)."""
    xp = _cuda.array_module(X)
    name = np.dtype(X.dtype).name
    bm, bn, bk, tm, tn = check_tile(TILE[name] if tile is None else tile)
    B, n = X.shape[0], W.shape[0]
    out = xp.empty((B, n), dtype=X.dtype)
    if B == 0 or n == 0:
        return out
    same = W is X
    if _cuda.simulated():   # it copies every argument back after a launch: none read-only
        X, W, b = (_writable(a) for a in (X, W, b))
    xn = _norms(X)
    wn = xn if same else _norms(W)
    dt = X.dtype.type
    kern = _kernel(name, bm, bn, bk, tm, tn, math.isfinite(tau))
    threads = (bm // tm) * (bn // tn)
    cols = _cuda.blocks(n, bn)
    for r0 in range(0, B, _MAX_GRID_Y * bm):
        rows = _cuda.blocks(min(B - r0, _MAX_GRID_Y * bm), bm)
        kern[(cols, rows), threads](X, W, xn, wn, dt(eps), b, np.int32(mode), dt(tau),
                                    np.int64(r0), out)
    return out
