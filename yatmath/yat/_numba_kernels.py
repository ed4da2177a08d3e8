"""Numba CPU kernels for the Yat kernel (compiled on first use, cached on disk).

Bias is passed as a length-n array ``b`` with an integer ``mode``: 0 none, 1 inner, 2 outer.
``fastmath`` allows reassociation and FMA contraction only (so reductions vectorise); it never
assumes finite values, so inf/NaN propagate as in IEEE arithmetic.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

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


_CHUNK = 64  # columns per repair check in gram_from_dots


@njit(cache=True, fastmath=FM, error_model="numpy")
def _transform_chunk(row, xi, wn, eps, b, mode, tau):
    """Branch-free (vectorisable) expanded-form pass; marks pairs needing repair with NaN."""
    nan = row.dtype.type(np.nan)
    zero = row.dtype.type(0)
    one = row.dtype.type(1)
    flagged = zero  # counts at most _CHUNK marks: exact in float32
    for j in range(row.shape[0]):
        s = row[j]
        nrm = xi + wn[j]
        t = nrm - (s + s)
        # also true when t is NaN, or inf because ||x||^2 + ||w||^2 overflowed the dtype (float32
        # norms > ~1.8e19): the float64 direct form then still gives the finite K.
        bad = not (tau * nrm <= t < np.inf)
        flagged += one if bad else zero  # in the row's dtype: an int64 counter halves float32 lanes
        y = _finish(s, t + eps, b[j], mode)
        row[j] = nan if bad else y
    return flagged


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def gram_from_dots(S, X, W, xn, wn, eps, b, mode, tau):
    """Turn S = X @ W.T into the Yat Gram matrix in place (expanded form with repair).

    t = ||x||^2 + ||w||^2 - 2 s carries an absolute error ~ d u (||x||^2 + ||w||^2); where
    t < tau (||x||^2 + ||w||^2) that error is no longer small relative to t, so the pair is
    recomputed from the direct form.  Chunks of columns go through a branch-free pass that
    marks such pairs with NaN; only chunks with marks are scanned again and repaired.
    """
    B, n = S.shape
    for i in prange(B):
        row = S[i]
        for j0 in range(0, n, _CHUNK):
            j1 = min(j0 + _CHUNK, n)
            if _transform_chunk(row[j0:j1], xn[i], wn[j0:j1], eps, b[j0:j1], mode, tau):
                for j in range(j0, j1):
                    if row[j] != row[j]:
                        s64, t64 = _direct_pair(X[i], W[j])
                        row[j] = _finish(s64, t64 + np.float64(eps), np.float64(b[j]), mode)


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
