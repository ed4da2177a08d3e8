"""Numba CPU kernels for the Yat kernel (compiled on first use, cached on disk).

Bias is passed as a length-n array ``b`` with an integer ``mode``: 0 none, 1 inner, 2 outer.
``fastmath`` allows reassociation and FMA contraction only (so reductions vectorise); it never
assumes finite values, so inf/NaN propagate as in IEEE arithmetic.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import get_cython_function_address, intrinsic

from .._threads import single_threaded_blas

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
        bad = _needs_repair(s, nrm, tau)  # the rule's one Numba definition (below)
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


# The BLAS GEMM that Numba's own np.dot calls: SciPy's Fortran-ABI ?gemm, every argument by
# pointer, column-major.  Its address is passed to the kernels as an integer (a ctypes function
# object inside a parallel loop becomes a constant address, which disables the on-disk cache).
GEMM = {np.dtype(t): ctypes.cast(get_cython_function_address("scipy.linalg.cython_blas", name),
                                 ctypes.c_void_p).value
        for t, name in ((np.float64, "dgemm"), (np.float32, "sgemm"))}
# gram() uses gram_tiles from this size of result on (per dtype).  On 2 cores (2 MiB L2 each) tiles
# measured 1.1-1.5x faster than gram_from_dots after a full GEMM for 64-128 MiB results
# (B = n = 4096); at B = n = 2048 they were faster for float32 (16 MiB: gram/GEMM 1.15-1.29
# against 1.43-1.47, d = 64) and slower for float64 (32 MiB: 1.47-1.59 against 1.41-1.43), with
# no OpenBLAS thread spinning beside the pass in either (then by OPENBLAS_THREAD_TIMEOUT=4, now
# by gemm_rows: see "Threads" below).
TILED_MIN_BYTES = {np.dtype(np.float32): 16 << 20, np.dtype(np.float64): 64 << 20}
# (rows, cols) of a gram_tiles tile: 4 MiB of float64 dots per thread; 128..512 x 1024..2048
# measured within ~5% of each other on 2 cores (2 MiB L2 each).
TILE = (256, 2048)


@intrinsic
def _call_fortran13(typingctx, fn, args):
    """Call the void function at address ``fn`` with the 13 pointers (integers) in ``args``."""
    if not (isinstance(fn, types.Integer) and isinstance(args, types.BaseTuple) and len(args) == 13
            and all(isinstance(a, types.Integer) for a in args)):
        return None

    def codegen(context, builder, sig, llargs):
        ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ptr] * 13)
        callee = builder.inttoptr(llargs[0], fnty.as_pointer())
        ptrs = [builder.inttoptr(builder.extract_value(llargs[1], k), ptr) for k in range(13)]
        builder.call(callee, ptrs)
        return context.get_dummy_value()

    return types.void(fn, args), codegen


@njit(cache=True)
def _gemm_nt(gemm, A, Bm, C, iargs, fargs):
    """C = A @ Bm.T for C-contiguous A (m, k), Bm (n, k), C (m, n), by one BLAS call.

    Row-major C is column-major C^T = Bm A^T: ?gemm("T", "N", n, m, k, 1, Bm, k, A, k, 0, C, n).
    iargs (int32, 6) and fargs (C's dtype, 2): scratch for the by-pointer scalar arguments.
    """
    m, k = A.shape
    iargs[0] = 84        # "T"
    iargs[1] = 78        # "N"
    iargs[2] = Bm.shape[0]
    iargs[3] = m
    iargs[4] = k
    iargs[5] = max(k, 1)   # lda, ldb >= 1 even for k = 0
    fargs[0] = 1
    fargs[1] = 0
    p = iargs.ctypes.data
    q = fargs.ctypes.data
    f = fargs.itemsize
    _call_fortran13(gemm, (p, p + 4, p + 8, p + 12, p + 16, q, Bm.ctypes.data, p + 20,
                           A.ctypes.data, p + 20, q + f, C.ctypes.data, p + 8))




# OpenBLAS runs a GEMM with m n k <= 65536 * GEMM_MULTITHREAD_THRESHOLD (4 unless built otherwise)
# = 2^18 on the calling thread whatever its thread setting (interface/gemm.c), so below that the
# threadpoolctl limit (~12 us for its set and restore, 10% of a 64 x 64 gram) is skipped.
SERIAL_GEMM_MAX = 1 << 18


def blas_limit_for(m, n, k):
    """single_threaded_blas() for a GEMM of m n k multiply-adds above SERIAL_GEMM_MAX, else a
    context that does nothing (BLAS stays on the calling thread by itself)."""
    return single_threaded_blas() if m * n * k > SERIAL_GEMM_MAX else contextlib.nullcontext()


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
        iargs = np.empty(6, np.int32)
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
        iargs = np.empty(6, np.int32)
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


# ----------------------------------------------------------------------------- layer backward
#
# Backward of H_ij = N_ij^2 / D_ij (N = s + b for the inner bias, s otherwise; the outer bias
# adds b_j to H) with upstream gradient G (dL/dY = G, Y = sc H): with gk = sc G_ij, r = N / D,
#     P_ij = 2 gk r (1 + r),   q_ij = gk r^2  (= -dL/d||x_i||^2 = -dL/d||w_j||^2 = -dL/deps),
#     dX = P W - 2 diag(q 1) X,   dW = P^T X - 2 diag(q^T 1) W      (layer.py module docstring).
# layer_backward_tiles computes s by a GEMM, P by one fused pass (the expanded form of D with
# gram's repair rule) and P W, P^T X by two more GEMMs, tile by tile, so P never leaves the cache.
# The pass leaves out the factor 2 sc of P (the two GEMMs take it as their alpha, the float64
# sums get it from the caller): one multiply less per pair.  Measured on this 2-core VM at
# (B, d, n) = (256, 64, 4096) float32, one thread, each part timed alone in the tile loop, in
# units of one GEMM X @ W.T of the whole shape: the three GEMMs cost 1.00 + 0.96 + 1.07 with
# NumPy's OpenBLAS (1.07 + 1.03 + 1.13 with SciPy's: ``layer_gemm``), the pass 0.32 (the repair
# check 0.08 of it, which also brings the row into cache; the column sums 0.09; the multiply by
# sc, now gone, was 0.05).
# Zeroing the pairs to repair with selects instead of the check (0.5 -> 0.53 ns per pair), two
# rows per loop (no gain), running the pass on 64- or 128-row slices of the tile right after
# their GEMM (slower: more GEMM calls) and a max-based check (not vectorised) were slower.


@njit(cache=True, error_model="numpy")
def _needs_repair(s, nrm, tau):
    """The repair rule (``_reference.needs_repair``) for one dot s = x . w, nrm = ||x||^2 +
    ||w||^2: t = nrm - 2 s is not at least tau nrm, or is NaN, or inf.  No fastmath flags (no
    FMA contraction), so a vectorised pass and its repair loop decide every pair identically."""
    t = nrm - (s + s)
    return not (tau * nrm <= t < np.inf)


# The chunk functions below take whole rows and an index range, not slices (a slice costs an
# atomic reference-count update on its parent, shared by the threads), and index with uint64 (a
# signed index costs a negative-index check that stops the vectoriser).


@njit(cache=True, fastmath=FM, error_model="numpy")
def _count_repairs(srow, c0, c1, j0, xi, wn, tau):
    """How many of the dots srow[c], c0 <= c < c1 (columns j0 + c) need repair (loads only).

    layer_backward_tiles has checked that the squared norms are finite, so s and t are too and
    the rule is t < tau nrm alone (measured 1-2% of the backward faster than ``_needs_repair``);
    with FMA contraction it may decide otherwise than ``_grad_span_repair`` only for t within
    rounding of tau nrm, where the expanded form is accurate either way.  Besides deciding, it
    brings the row into the core's cache for the pass that follows."""
    T = srow.dtype.type
    zero = T(0)
    one = T(1)
    flagged = zero  # at most _SPAN: exact in float32
    for k in range(c1 - c0):
        s = srow[np.uint64(c0 + k)]
        nrm = xi + wn[np.uint64(j0 + c0 + k)]
        flagged += one if nrm - (s + s) < tau * nrm else zero
    return flagged


@njit(cache=True, fastmath=FM, error_model="numpy")
def _grad_span(prow, c0, c1, j0, grow, gone, xi, wn, eps, bin_, mode, qacc, gacc):
    """The fused pass over the dots prow[c], c0 <= c < c1 (columns j = j0 + c), none of which
    needs repair, in the row's dtype: with N = s + bin_[j] (bin_ is the inner bias, else zeros),
    r = N / (||x||^2 + ||w_j||^2 - 2 s + eps) and g = grow[c] (grow[0] when ``gone``), all
    without the width scale s (applied once by the caller: the GEMMs' alpha 2 s, and the float64
    sums): prow[c] = P / (2 s) = g r (1 + r), qacc[c] += q = g r^2 and, for a bias,
    gacc[c] += g r (inner, mode 1) or g (outer, mode 2).  Returns the sums of q and of
    g N^2 / D = g r N over the span."""
    T = prow.dtype.type
    qs = T(0)
    hs = T(0)
    if mode == 0:   # no bias: no column sum of the bias gradient (one load and store less)
        for k in range(c1 - c0):
            c = np.uint64(c0 + k)
            j = np.uint64(j0 + c0 + k)
            gk = grow[0] if gone else grow[c]
            s = prow[c]
            r = s / (((xi + wn[j]) - (s + s)) + eps)
            gr = gk * r
            q = gr * r
            prow[c] = gr + q
            qs += q
            hs += gr * s
            qacc[c] += q
        return qs, hs
    for k in range(c1 - c0):
        c = np.uint64(c0 + k)
        j = np.uint64(j0 + c0 + k)
        gk = grow[0] if gone else grow[c]
        s = prow[c]
        N = s + bin_[j]
        r = N / (((xi + wn[j]) - (s + s)) + eps)
        gr = gk * r
        q = gr * r
        prow[c] = gr + q
        qs += q
        hs += gr * N
        qacc[c] += q
        gacc[c] += gr if mode == 1 else gk
    return qs, hs


@njit(cache=True, fastmath=FM, error_model="numpy")
def _grad_span_repair(prow, c0, c1, j0, grow, gone, X, W, i, xi, wn, eps, bin_, mode, tau, qacc,
                      gacc):
    """``_grad_span`` for a span where some pairs need repair: a vectorised pass that leaves the
    pairs to repair out of every sum and marks their P with NaN, then a scalar loop over the
    marks that takes N and D from the direct float64 form (as ``_expanded_row`` gives them to
    the forward) and adds those pairs.  The marks decide which pairs are repaired, so the two
    loops never disagree.  A NaN that a non-finite G left in P is recomputed too: still NaN, and
    the result was not finite anyway.  Returns the sums in float64."""
    T = prow.dtype.type
    zero = T(0)
    nan = T(np.nan)
    qs = T(0)
    hs = T(0)
    for k in range(c1 - c0):
        c = np.uint64(c0 + k)
        j = np.uint64(j0 + c0 + k)
        gk = grow[0] if gone else grow[c]
        s = prow[c]
        N = s + bin_[j]
        nrm = xi + wn[j]
        t = nrm - (s + s)
        bad = not tau * nrm <= t
        r = zero if bad else N / (t + eps)
        gr = gk * r
        q = gr * r
        prow[c] = nan if bad else gr + q
        qs += q
        hs += gr * N
        qacc[c] += q
        gacc[c] += gr if mode == 1 else gk   # (mode 0: gacc is not read)
    qsum = np.float64(qs)
    hsum = np.float64(hs)
    for c in range(c0, c1):
        if prow[c] != prow[c]:
            j = j0 + c
            gk = np.float64(grow[0] if gone else grow[c])
            s64, t64 = _direct_pair(X[i], W[j])
            N = s64 + np.float64(bin_[j])
            r = N / (t64 + np.float64(eps))
            gr = gk * r
            q = gr * r
            prow[c] = gr + q
            qsum += q
            hsum += gr * N
            qacc[c] += q
            if mode == 1:
                gacc[c] += gr
    return qsum, hsum


#: Columns per repair check and vectorised span of the backward pass: 1024 measured ~7% of the
#: pass faster than 512 (fewer per-span costs); a span with pairs to repair stays vectorised.
_SPAN = 1024


@njit(cache=True, fastmath=FM, error_model="numpy")
def _backward_row(prow, grow, gone, X, W, i, j0, xi, wn, eps, bin_, mode, tau, qacc, gacc):
    """prow, the dots of row i of X with W[j0 + c], becomes that row of P / (2 s), in place,
    adding the column terms into qacc, gacc (the row's dtype).  Returns (sum_c q, sum_c g N^2 /
    D) in float64 (without s: ``_grad_span``).  Spans with no pair to repair take ``_grad_span``, the others
    ``_grad_span_repair``."""
    m = prow.shape[0]
    qsum = 0.0
    hsum = 0.0
    for c0 in range(0, m, _SPAN):
        c1 = min(c0 + _SPAN, m)
        if _count_repairs(prow, c0, c1, j0, xi, wn, tau):
            qs, hs = _grad_span_repair(prow, c0, c1, j0, grow, gone, X, W, i, xi, wn, eps,
                                       bin_, mode, tau, qacc, gacc)
        else:
            qs, hs = _grad_span(prow, c0, c1, j0, grow, gone, xi, wn, eps, bin_, mode, qacc,
                                gacc)
        qsum += np.float64(qs)
        hsum += np.float64(hs)
    return qsum, hsum


@njit(cache=True)
def _gemm(gemm, ta, tb, m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc, iargs, fargs):
    """C = alpha op(A) op(Bm) + beta C by one BLAS ?gemm call (Fortran conventions:
    column-major, ta/tb the characters' codes, 78 "N" or 84 "T").  iargs (8 integers of the
    BLAS's width: int32, or int64 for an ILP64 BLAS), fargs (C's dtype, 2): scratch for the
    by-pointer scalar arguments."""
    iargs[0] = ta
    iargs[1] = tb
    iargs[2] = m
    iargs[3] = n
    iargs[4] = k
    iargs[5] = lda
    iargs[6] = ldb
    iargs[7] = ldc
    fargs[0] = alpha
    fargs[1] = beta
    p = iargs.ctypes.data
    s = iargs.itemsize
    q = fargs.ctypes.data
    f = fargs.itemsize
    _call_fortran13(gemm, (p, p + s, p + 2 * s, p + 3 * s, p + 4 * s, q, A.ctypes.data,
                           p + 5 * s, Bm.ctypes.data, p + 6 * s, q + f, C.ctypes.data,
                           p + 7 * s))


_LAYER_GEMM: dict[object, tuple[int, np.ndarray]] = {}
_LAYER_GEMM_LOCK = threading.Lock()


def layer_gemm(dtype):
    """(address, integer prototype) of the ?gemm of ``layer_backward_tiles`` for ``dtype``.

    NumPy's own OpenBLAS where its wheel carries one (scipy-openblas64: ``scipy_?gemm_64_``,
    64-bit integers; found among the loaded libraries by threadpoolctl, inside NumPy's
    directory), so that the backward's three GEMMs run the kernels of the ``X @ W.T`` they are
    compared with; else SciPy's (``GEMM``, 32-bit integers).  The two give bit-identical
    products here, but SciPy's bundled OpenBLAS 0.3.30 measured 6-7% slower than NumPy's 0.3.31
    for float32 at d = 64 on 2 cores (benchmarks/bench_layer.py).  The prototype is a length-1
    int32 or int64 array: the kernel's scalar scratch takes its dtype.  Found once per process.
    """
    dtype = np.dtype(dtype)
    with _LAYER_GEMM_LOCK:
        if not _LAYER_GEMM:
            _LAYER_GEMM.update(_find_numpy_gemm() or {})
            for t, addr in GEMM.items():
                _LAYER_GEMM.setdefault(t, (addr, np.zeros(1, np.int32)))
    return _LAYER_GEMM[dtype]


def _find_numpy_gemm():
    """{dtype: (address, int64 prototype)} of NumPy's scipy-openblas64 ?gemm, or None."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    home = os.path.dirname(os.path.realpath(np.__file__))
    for info in threadpool_info():
        path = os.path.realpath(info.get("filepath") or "")
        if info.get("internal_api") != "openblas" or not path.startswith(home):
            continue
        try:
            lib = ctypes.CDLL(path)
            found = {np.dtype(t): ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                     for t, name in ((np.float32, "scipy_sgemm_64_"),
                                     (np.float64, "scipy_dgemm_64_"))}
        except (OSError, AttributeError):
            continue
        return {t: (addr, np.zeros(1, np.int64)) for t, addr in found.items()}
    return None


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def layer_backward_tiles(gemm, iproto, X, W, G, eps, bin_, mode, tau, sc, big2, rows, cols, parts,
                         by_cols, dX, dW, scratch, qxt, hxt, qwt, dct):
    """The fused layer backward (block comment above), in (rows x cols) tiles; returns False
    (and computes nothing else) when a squared row norm of X or W exceeds big2 or is not finite.

    ``gemm``, ``iproto``: the ?gemm address and a 1-element array of its integer type
    (``layer_gemm``).  The work is split into ``parts`` (one per thread) along one side: the
    rows of X (by_cols False: part p owns rows p B / parts .. (p + 1) B / parts, all units) or
    the units (by_cols True).  Per tile: one single-threaded GEMM (the caller limits BLAS to one
    thread) puts the dots X_I W_J^T into a per-thread scratch, ``_backward_row`` turns them into
    P / (2 sc) in place, and two more GEMMs with alpha = 2 sc add P W_J into dX[I] and P^T X_I
    into dW[J].  The owned side's rows are final in the part (then less 2 diag(q) times X or W);
    the shared side's sums go to dX or dW for p = 0 and to scratch[p - 1] otherwise, and a
    second parallel loop adds them up and subtracts its diagonal term.  G is (B, n), or (B, 1)
    for one value per row; bin_ the inner bias (zeros otherwise); sc the width scale (float64).

    Outputs: dX (B, d), dW (n, d) (overwritten); per part, float64, zeroed by the caller, all
    WITHOUT the factor sc (the caller multiplies): qxt, hxt (parts, B) the row sums of
    q = g r^2 and of g N^2 / D; qwt, dct (parts, n) the column sums of q and of the bias
    gradient part (g r inner, g outer).  Row sums go through the dtype over one span
    (``_SPAN`` columns), column sums over one tile's rows, then float64.  Scratch:
    (parts - 1, B or n, d).
    """
    B, d = X.shape
    n = W.shape[0]
    T = X.dtype.type
    xn = np.empty(B, X.dtype)
    wn = np.empty(n, X.dtype)
    for ii in prange(B + n):
        i = np.int64(ii)   # (a prange index may be unsigned)
        A = X if i < B else W
        r = i if i < B else i - B
        acc = T(0)
        for t in range(d):
            acc += A[r, t] * A[r, t]
        if i < B:
            xn[r] = acc
        else:
            wn[r] = acc
    for i in range(B):
        if not xn[i] <= big2:
            return False
    for j in range(n):
        if not wn[j] <= big2:
            return False
    gone = G.shape[1] == 1 and n > 1
    alpha = 2.0 * sc   # P = 2 s P' (P' from _backward_row)
    for p in prange(parts):
        if by_cols:
            ia, ib, ja, jb = 0, B, p * n // parts, (p + 1) * n // parts
        else:
            ia, ib, ja, jb = p * B // parts, (p + 1) * B // parts, 0, n
        S = np.empty(max(1, min(rows, ib - ia)) * max(1, min(cols, jb - ja)), X.dtype)
        qacc = np.zeros(max(1, min(cols, jb - ja)), X.dtype)
        gacc = np.zeros(max(1, min(cols, jb - ja)), X.dtype)
        iargs = np.empty(8, iproto.dtype)
        fargs = np.empty(2, X.dtype)
        dXp = dX if (not by_cols or p == 0) else scratch[p - 1]
        dWp = dW if (by_cols or p == 0) else scratch[p - 1]
        for i0 in range(ia, ib, rows):
            i1 = min(i0 + rows, ib)
            mi = i1 - i0
            for j0 in range(ja, jb, cols):
                j1 = min(j0 + cols, jb)
                k = j1 - j0
                St = S[:mi * k].reshape((mi, k))
                # St = X_I W_J^T: column-major (k x mi) = W_J (k x d) . X_I^T (d x mi)
                _gemm(gemm, 84, 78, k, mi, d, 1.0, W[j0:j1], d, X[i0:i1], d, 0.0, St, k,
                      iargs, fargs)
                for rr in range(mi):
                    i = i0 + rr
                    grow = G[i, 0:1] if gone else G[i, j0:j1]
                    qs, hs = _backward_row(St[rr], grow, gone, X, W, i, j0, xn[i], wn, eps,
                                           bin_, mode, tau, qacc, gacc)
                    qxt[p, i] += qs
                    hxt[p, i] += hs
                for c in range(k):
                    qwt[p, j0 + c] += qacc[c]
                    dct[p, j0 + c] += gacc[c]
                    qacc[c] = 0
                    gacc[c] = 0
                # dX[I] (+)= P W_J: column-major (d x mi) = W_J^T (d x k) . P^T (k x mi)
                _gemm(gemm, 78, 78, d, mi, k, alpha, W[j0:j1], d, St, k, 0.0 if j0 == ja else 1.0,
                      dXp[i0:i1], d, iargs, fargs)
                # dW[J] (+)= P^T X_I: column-major (d x k) = X_I^T (d x mi) . P (mi x k)
                _gemm(gemm, 78, 84, d, k, mi, alpha, X[i0:i1], d, St, k, 0.0 if i0 == ia else 1.0,
                      dWp[j0:j1], d, iargs, fargs)
            if not by_cols:  # these rows of dX are complete
                for i in range(i0, i1):
                    f = T(alpha * qxt[p, i])
                    for t in range(d):
                        dX[i, t] -= f * X[i, t]
        if by_cols:  # these units' dW are complete
            for j in range(ja, jb):
                f = T(alpha * qwt[p, j])
                for t in range(d):
                    dW[j, t] -= f * W[j, t]
    if by_cols:
        _fold_parts(dX, X, qxt, scratch, alpha)
    else:
        _fold_parts(dW, W, qwt, scratch, alpha)
    return True


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def _fold_parts(out, Y, qt, scratch, alpha):
    """The rows that the ``parts`` threads of ``layer_backward_tiles`` each computed in part:
    out[r] += sum_{p < parts-1} scratch[p, r] (part 0 wrote into ``out`` itself), then
    out[r] -= alpha (sum_p qt[p, r]) Y[r], the norm term of the gradient."""
    T = out.dtype.type
    parts, d = qt.shape[0], Y.shape[1]
    for r in prange(out.shape[0]):
        q = 0.0
        for p in range(parts):
            q += qt[p, r]
        for p in range(parts - 1):
            for t in range(d):
                out[r, t] += scratch[p, r, t]
        f = T(alpha * q)
        for t in range(d):
            out[r, t] -= f * Y[r, t]


#: (rows, cols) of a layer_backward_tiles tile (per thread: one tile of dots, turned into P).
BACKWARD_TILE = (256, 1024)
