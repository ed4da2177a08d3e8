"""Numba CPU kernels of the Yat kernel's pairwise operations: the pointwise product, the Gram
matrix (direct form, or GEMM dots + the expanded form with repair) and the matvec (compiled on
first use, cached on disk).  The formulas' one Numba definition is here: ``_finish`` (K from N and
D), ``_direct_pair`` (the float64 direct form) and ``_needs_repair`` (the repair rule), which the
layer backward (``_numba_layer``) and the CUDA kernels (``_cuda_kernels``) use too.  The BLAS
binding is ``_numba_blas``.

Bias is passed as a length-n array ``b`` with an integer ``mode``: 0 none, 1 inner, 2 outer.
``fastmath`` allows reassociation and FMA contraction only (so reductions vectorise); it never
assumes finite values, so inf/NaN propagate as in IEEE arithmetic.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._numba_blas import _gemm_nt

FM = {"reassoc", "contract"}  # error_model="numpy": IEEE division (inf/NaN), which lets loops vectorise
_BLOCK = 256  # keys per inner block of the direct kernels: a few KiB, stays in L1


# No "reassoc" here: with it LLVM rewrites s * (s / D) as (s * s) / D, which underflows to 0 or
# overflows to inf wherever s^2 leaves the float range although K does not (s ~ 1e-160 with
# D = 1e-300; s ~ 1e160 with D = 1e300).  Not inlined at the Numba level, so the callers' flags
# do not reach its instructions (LLVM may still inline it; flags stay per instruction).
@njit(cache=True, fastmath={"contract"}, error_model="numpy")
def _finish(s, D, bj, mode):
    if mode == 1:
        s = s + bj
    y = s * (s / D)
    if mode == 2:
        y = y + bj
    return y


@njit(cache=True, fastmath=FM, error_model="numpy")
def _direct_pair(x, w):
    """(x . w, ||x - w||^2) accumulated in float64."""
    s = 0.0
    d2 = 0.0
    for k in range(x.shape[0]):
        xk = np.float64(x[k])
        wk = np.float64(w[k])
        s += xk * wk
        diff = xk - wk
        d2 += diff * diff
    return s, d2


@njit(cache=True, error_model="numpy")
def _needs_repair(s, nrm, tau):
    """The repair rule (``_reference.needs_repair``) for one dot s = x . w, nrm = ||x||^2 +
    ||w||^2: t = nrm - 2 s is not at least tau nrm, or is NaN, or inf.  No fastmath flags (no
    FMA contraction), so a vectorised pass and its repair loop decide every pair identically.
    The one Numba definition of the rule: the Gram pass, the layer backward and (compiled again
    as a device function) the CUDA kernels call it."""
    t = nrm - (s + s)
    return not (tau * nrm <= t < np.inf)


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def product_rows(W, X, eps, b, mode, out):
    """out[p] = K(W[p], X[p]) for rows p of two (P, d) arrays (direct form)."""
    for p in prange(W.shape[0]):
        s, d2 = _direct_pair(X[p], W[p])
        out[p] = _finish(s, d2 + eps, b[p], mode)


_CHUNK = 512  # columns per repair check; 64 measured 1.7x (f64) to 3x (f32) slower (per-call cost)


@njit(cache=True, fastmath=FM, error_model="numpy")
def _transform_chunk(src, dst, xi, wn, eps, b, mode, tau):
    """Branch-free (vectorisable) expanded-form pass from dots ``src`` into ``dst`` (may be the
    same array); marks pairs needing repair with NaN and returns their count."""
    nan = dst.dtype.type(np.nan)
    zero = dst.dtype.type(0)
    one = dst.dtype.type(1)
    flagged = zero  # counts at most _CHUNK marks: exact in float32
    for j in range(src.shape[0]):
        s = src[j]
        nrm = xi + wn[j]
        t = nrm - (s + s)
        # also true when t is NaN, or inf because ||x||^2 + ||w||^2 overflowed the dtype (float32
        # norms > ~1.8e19): the float64 direct form then still gives the finite K.
        bad = _needs_repair(s, nrm, tau)  # the rule's one Numba definition (above)
        flagged += one if bad else zero  # in the row's dtype: an int64 counter halves float32 lanes
        y = _finish(s, t + eps, b[j], mode)
        dst[j] = nan if bad else y
    return flagged


@njit(cache=True, fastmath=FM, error_model="numpy")
def _expanded_row(src, X, W, i, j0, xi, wn, eps, b, mode, tau, out):
    """out[i, j0 + j] = K(X[i], W[j0 + j]) from the dots src[j] = X[i] . W[j0 + j].

    t = ||x||^2 + ||w||^2 - 2 s carries an absolute error ~ d u (||x||^2 + ||w||^2); where
    t < tau (||x||^2 + ||w||^2) that error is no longer small relative to t, so the pair is
    recomputed from the direct form.  Chunks of columns go through a branch-free pass that
    marks such pairs with NaN; only chunks with marks are scanned again and repaired.
    """
    row = out[i]
    m = src.shape[0]
    for c0 in range(0, m, _CHUNK):
        j1 = j0 + min(c0 + _CHUNK, m)
        if _transform_chunk(src[c0:c0 + _CHUNK], row[j0 + c0:j1], xi, wn[j0 + c0:j1], eps,
                            b[j0 + c0:j1], mode, tau):
            for j in range(j0 + c0, j1):
                if row[j] != row[j]:
                    s64, t64 = _direct_pair(X[i], W[j])
                    row[j] = _finish(s64, t64 + np.float64(eps), np.float64(b[j]), mode)


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def gram_from_dots(S, X, W, xn, wn, eps, b, mode, tau, threads):
    """Turn S = X @ W.T into the Yat Gram matrix in place (expanded form with repair).

    The two-pass form (a full GEMM, then this pass over its result); see TILED_MIN_BYTES.
    ``threads`` = numba.get_num_threads() from the caller; each thread takes a contiguous range
    of rows and copies each row into its own scratch first: with source and destination the same
    array, LLVM's run-time overlap check sends the pass to its scalar loop (1.6x slower).
    """
    B, n = S.shape
    parts = max(1, min(threads, B))
    for p in prange(parts):
        src = np.empty(n, S.dtype)
        for i in range(p * B // parts, (p + 1) * B // parts):
            src[:] = S[i]
            _expanded_row(src, X, W, i, 0, xn[i], wn, eps, b, mode, tau, S)


# gram() uses gram_tiles from this size of result on (per dtype).  On 2 cores (2 MiB L2 each) tiles
# measured 1.1-1.5x faster than gram_from_dots after a full GEMM for 64-128 MiB results
# (B = n = 4096); at B = n = 2048 they were faster for float32 (16 MiB: gram/GEMM 1.15-1.29
# against 1.43-1.47, d = 64) and slower for float64 (32 MiB: 1.47-1.59 against 1.41-1.43), with
# no OpenBLAS thread spinning beside the pass in either (then by OPENBLAS_THREAD_TIMEOUT=4, now
# by gemm_rows, inside single_threaded_blas: _numba_blas).
TILED_MIN_BYTES = {np.dtype(np.float32): 16 << 20, np.dtype(np.float64): 64 << 20}
# (rows, cols) of a gram_tiles tile: 4 MiB of float64 dots per thread; 128..512 x 1024..2048
# measured within ~5% of each other on 2 cores (2 MiB L2 each).
TILE = (256, 2048)

@njit(parallel=True, cache=True)
def gemm_rows(gemm, X, W, threads, out):
    """out = X @ W.T (C-contiguous X (B, d), W (n, d), out (B, n)) on Numba's threads.

    Thread p of ``parts = min(threads, B)`` computes the contiguous rows
    [p B / parts, (p + 1) B / parts) by one BLAS call (_gemm_nt); call inside
    single_threaded_blas(), so that each call runs on the calling thread.  Each entry is the
    BLAS dot product of its row pair in the dtype, |error| <= gamma_d sum_k |x_k w_k| with
    gamma_d = d u / (1 - d u), as for any GEMM; its last bits may depend on the row split, as a
    threaded BLAS's depend on its thread count (BLAS edge kernels sum in another order).
    Deterministic for a given ``threads`` (= numba.get_num_threads() from the caller).
    """
    B = X.shape[0]
    parts = max(1, min(threads, B))
    for p in prange(parts):
        i0 = p * B // parts
        i1 = (p + 1) * B // parts
        iargs = np.empty(8, np.int32)
        fargs = np.empty(2, out.dtype)
        _gemm_nt(gemm, X[i0:i1], W, out[i0:i1], iargs, fargs)


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def gram_tiles(gemm, X, W, xn, wn, eps, b, mode, tau, rows, cols, threads, out):
    """out = the Yat Gram matrix K(X[i], W[j]) by the expanded form with repair, in tiles.

    Each thread takes a contiguous range of (rows x cols) tiles; per tile, one single-threaded
    BLAS GEMM (the caller limits BLAS to one thread) writes the dots into a per-thread scratch
    that stays in cache (L2/L3), and the expanded-form pass (_expanded_row) reads them from there.
    Compared with a full GEMM followed by a pass over its result, the dots never travel
    through main memory: only the finished K is written (2 of 4 streams of an (B, n) array).
    """
    B, n = out.shape
    nr = (B + rows - 1) // rows
    nc = (n + cols - 1) // cols
    ntiles = nr * nc
    # threads = numba.get_num_threads(), from the caller: called in here it stops the disk cache
    parts = max(1, min(threads, ntiles))
    for p in prange(parts):
        S = np.empty(min(rows, B) * min(cols, n), out.dtype)
        iargs = np.empty(8, np.int32)
        fargs = np.empty(2, out.dtype)
        for t in range(p * ntiles // parts, (p + 1) * ntiles // parts):
            i0 = (t // nc) * rows
            j0 = (t % nc) * cols
            i1 = min(i0 + rows, B)
            j1 = min(j0 + cols, n)
            St = S[:(i1 - i0) * (j1 - j0)].reshape((i1 - i0, j1 - j0))
            _gemm_nt(gemm, X[i0:i1], W[j0:j1], St, iargs, fargs)
            for r in range(i1 - i0):
                _expanded_row(St[r], X, W, i0 + r, j0, xn[i0 + r], wn, eps, b, mode, tau, out)


@njit(cache=True, fastmath=FM, error_model="numpy")
def _block_dots(x, Yt, j0, j1, s, d2):
    """s[:m] = x . Y[j], d2[:m] = ||x - Y[j]||^2 for keys j0..j1 (Yt is Y transposed, (d, n))."""
    m = j1 - j0
    for j in range(m):
        s[j] = 0.0
        d2[j] = 0.0
    for k in range(Yt.shape[0]):
        xk = np.float64(x[k])
        yk = Yt[k]
        for j in range(m):
            yj = np.float64(yk[j0 + j])
            s[j] += xk * yj
            diff = xk - yj
            d2[j] += diff * diff


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def gram_direct(X, Yt, eps, b, mode, out):
    """out[i, j] = K(X[i], Y[j]) by the direct form; for small d, where a GEMM buys nothing."""
    n = Yt.shape[1]
    for i in prange(X.shape[0]):
        s = np.empty(_BLOCK)
        d2 = np.empty(_BLOCK)
        for j0 in range(0, n, _BLOCK):
            j1 = min(j0 + _BLOCK, n)
            _block_dots(X[i], Yt, j0, j1, s, d2)
            for j in range(j1 - j0):
                out[i, j0 + j] = _finish(s[j], d2[j] + eps, b[j0 + j], mode)


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def matvec_direct(X, Yt, V, eps, b, mode, out):
    """out[i, :] = sum_j K(X[i], Y[j]) V[j, :] without forming K (direct form, float64 sums).

    Memory: O(block) per thread beyond the inputs and the output.
    """
    n = Yt.shape[1]
    k = V.shape[1]
    for i in prange(X.shape[0]):
        s = np.empty(_BLOCK)
        d2 = np.empty(_BLOCK)
        acc = np.zeros(k)
        for j0 in range(0, n, _BLOCK):
            j1 = min(j0 + _BLOCK, n)
            _block_dots(X[i], Yt, j0, j1, s, d2)
            for j in range(j1 - j0):
                s[j] = _finish(s[j], d2[j] + eps, b[j0 + j], mode)
            for c in range(k):
                a = 0.0
                for j in range(j1 - j0):
                    a += s[j] * V[j0 + j, c]
                acc[c] += a
        for c in range(k):
            out[i, c] = acc[c]


@njit(parallel=True, cache=True)
def mirror_upper(G):
    """G[j, i] = G[i, j] for i < j, in 64 x 64 blocks (cache-friendly transpose copy)."""
    n = G.shape[0]
    nb = (n + 63) // 64
    for bi in prange(nb):
        i0 = bi * 64
        i1 = min(i0 + 64, n)
        for j0 in range(i0, n, 64):
            j1 = min(j0 + 64, n)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    G[j, i] = G[i, j]

