"""Numba CPU kernels of the Yat layer's backward: one fused pass per cache-sized tile between a
GEMM of dots and two GEMMs of the gradient (``layer_backward_tiles``), with the Gram pass's
repair rule and direct form (``_numba_kernels``) and the BLAS binding of ``_numba_blas``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._numba_blas import _gemm
from ._numba_kernels import FM, _direct_pair, _needs_repair

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


# The chunk functions below take whole rows and an index range, not slices (a slice costs an
# atomic reference-count update on its parent, shared by the threads), and index with uint64 (a
# signed index costs a negative-index check that stops the vectoriser).


@njit(cache=True, fastmath=FM, error_model="numpy")
def _count_repairs(srow, c0, c1, j0, xi, wn, tau):
    """How many of the dots srow[c], c0 <= c < c1 (columns j0 + c) need repair (loads only):
    the rule ``_needs_repair``, as ``_grad_span_repair`` decides it.  Besides deciding, it brings
    the row into the core's cache for the pass that follows."""
    T = srow.dtype.type
    zero = T(0)
    one = T(1)
    flagged = zero  # at most _SPAN: exact in float32
    for k in range(c1 - c0):
        s = srow[np.uint64(c0 + k)]
        nrm = xi + wn[np.uint64(j0 + c0 + k)]
        flagged += one if _needs_repair(s, nrm, tau) else zero
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
        bad = _needs_repair(s, nrm, tau)
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
    D) in float64 (without s: ``_grad_span``).  Spans with no pair to repair take
    ``_grad_span``, the others ``_grad_span_repair``."""
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
