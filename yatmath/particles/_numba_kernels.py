"""Numba CPU kernels for particle interactions (compiled on first use, cached on disk).

Positions come in structure-of-arrays layout ``X`` of shape (d, N), float64, so that the inner
loops run over contiguous particles and vectorise.  The force factor is c = a q^{-p} with
q = r^2 + e2 (e2 = delta^2 for Plummer, else 0) and c = 0 where r^2 <= cut2 (hard truncation;
cut2 = -1 disables it); ``fam`` picks a specialised evaluation of q^{-p} (see
``interactions._FAMILIES``), 0 is the general ``pow``.

``fastmath`` allows reassociation and FMA contraction only, and ``error_model="numpy"`` gives
IEEE division (inf/NaN instead of a Python exception), which is what lets the divisions vectorise.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

FM = {"reassoc", "contract"}
_TR = 32    # rows per tile of the symmetric kernel
_BC = 512   # columns per block: q, f and a block of X stay in L1


def cfac(q, fam, a, p):
    """THE Numba definition of the force factor c = a q^{-p} per exponent family (the same
    expression as ``interactions.force_factor``, the Python definition).  Compiled twice below:
    with the kernels' fastmath flags (``_c``) and with plain IEEE operations (``_c_ieee``, the
    random batch's bit-for-bit twin of the Python reference); ``_cuda_kernels`` compiles it a
    third time as a CUDA device function.  ``math.sqrt``, not ``np.sqrt``: the same IEEE
    square root on the CPU, and one numba-cuda lowers (its ufunc table had no np.sqrt on
    NumPy 2.5: KeyError on an H100, 2026-11-27); wrapped in ``np.float64`` so that Python calls
    keep NumPy's division (inf, not ZeroDivisionError, at q = 0)."""
    if fam == 1:
        return a / (q * np.float64(math.sqrt(q)))
    elif fam == 2:
        return a / q
    elif fam == 3:
        return a / np.float64(math.sqrt(q))
    elif fam == 4:
        return a / (q * q)
    return a * q ** (-p)


_c = njit(inline="always", fastmath=FM, error_model="numpy")(cfac)
_c_ieee = njit(inline="always", error_model="numpy")(cfac)


@njit(cache=True, fastmath=FM, error_model="numpy")
def _block_factors(X, i, lo, m, fam, a, p, e2, cut2, q, f):
    """f[l] = c(||X[:, i] - X[:, lo + l]||^2) for l < m (with the hard-core cut)."""
    d = X.shape[0]
    for l in range(m):
        q[l] = 0.0
    for k in range(d):
        xik = X[k, i]
        for l in range(m):
            df = xik - X[k, lo + l]
            q[l] += df * df
    for l in range(m):
        r2 = q[l]
        c = _c(r2 + e2, fam, a, p)
        f[l] = c if r2 > cut2 else 0.0


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def force_sym(X, fam, a, p, e2, cut2, acc):
    """Pair-symmetric direct summation: acc[c] (d, N) holds chunk c's share of
    sum_{l != k} grad g(x_k - x_l); the caller sums acc over its first axis.

    Each unordered pair {k, l} is evaluated once and added to both rows (Newton's third law,
    g even).  Row tiles are dealt cyclically to ``acc.shape[0]`` chunks; each chunk owns its
    accumulator, so no two threads write the same memory and the result does not depend on the
    thread count (only on the number of chunks).
    """
    d, N = X.shape
    nch = acc.shape[0]
    ntile = (N + _TR - 1) // _TR
    for ch in prange(nch):
        A = acc[ch]
        for k in range(d):
            for l in range(N):
                A[k, l] = 0.0
        q = np.empty(_BC)
        f = np.empty(_BC)
        for t in range(ch, ntile, nch):
            i0 = t * _TR
            i1 = min(i0 + _TR, N)
            for j0 in range(i0, N, _BC):
                j1 = min(j0 + _BC, N)
                for i in range(i0, i1):
                    lo = max(j0, i + 1)
                    if lo >= j1:
                        continue
                    m = j1 - lo
                    _block_factors(X, i, lo, m, fam, a, p, e2, cut2, q, f)
                    for k in range(d):
                        xik = X[k, i]
                        s = 0.0
                        for l in range(m):
                            tt = f[l] * (xik - X[k, lo + l])
                            s += tt
                            A[k, lo + l] += tt
                        A[k, i] -= s


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def force_rows(X, r0, r1, fam, a, p, e2, cut2, out):
    """out[k, i - r0] = sum_{l != i} grad g(x_i - x_l) for rows r0 <= i < r1 (no symmetry)."""
    d, N = X.shape
    for i in prange(r0, r1):
        q = np.empty(_BC)
        f = np.empty(_BC)
        acc = np.zeros(d)
        for j0 in range(0, N, _BC):
            j1 = min(j0 + _BC, N)
            m = j1 - j0
            _block_factors(X, i, j0, m, fam, a, p, e2, cut2, q, f)
            if j0 <= i < j1:
                f[i - j0] = 0.0          # the diagonal l = k is excluded explicitly
            for k in range(d):
                xik = X[k, i]
                s = 0.0
                for l in range(m):
                    s += f[l] * (xik - X[k, j0 + l])
                acc[k] -= s
        for k in range(d):
            out[k, i - r0] = acc[k]


def pair_potential(r2, s, e2, cut2):
    """THE compiled definition of the pair potential g from r^2: q = r^2 + e2 (e2 = delta^2 for
    Plummer, else 0), raised to cut2 inside the hard core (cut2 > 0: g(max(r, delta))), then
    -log(q)/2 for s = 0, else +-q^{-s/2} (the sign of s).  Compiled for ``potential_rows``
    (``_g``) and, by ``_cuda_kernels``, as a CUDA device function.  ``math.log`` (Numba lowers
    np.log of a float to the same code); q = 0 (coincident bare particles) gives log(0) = -inf
    written out, because the simulator calls this as Python, where math.log(0) raises."""
    q = r2 + e2
    if cut2 > 0.0 and q < cut2:
        q = cut2
    if s == 0.0:
        return -0.5 * (-np.inf if q == 0.0 else math.log(q))
    v = q ** (-0.5 * s)
    return v if s > 0.0 else -v


_g = njit(cache=True, fastmath={"contract"}, error_model="numpy")(pair_potential)


@njit(parallel=True, cache=True, fastmath={"contract"}, error_model="numpy")
def potential_rows(X, s, e2, cut2, out):
    """out[i] = sum_{l != i} g(x_i - x_l) (float64, pairwise in a fixed order)."""
    d, N = X.shape
    for i in prange(N):
        acc = 0.0
        for l in range(N):
            if l == i:
                continue
            r2 = 0.0
            for k in range(d):
                df = X[k, i] - X[k, l]
                r2 += df * df
            acc += _g(r2, s, e2, cut2)
        out[i] = acc


@njit(parallel=True, cache=True, error_model="numpy")
def random_batch(Xr, perm, bsize, fam, a, p, e2, cut2, out):
    """Random batch forces: out[k] = (1/(|B|-1)) sum_{l in B(k), l != k} grad g(x_k - x_l).

    Xr is (N, d) row-major; batches are perm[b*bsize:(b+1)*bsize], the last one absorbing the
    remainder N mod bsize.  Batches are disjoint, so the parallel writes never collide.
    No fastmath (no FMA contraction, no reassociation): ``forces._reference_random_batch``
    repeats these operations in this order and agrees bit for bit, except in the last bits of a
    general power where NumPy picks a SIMD pow (``forces.random_batch_force`` docstring).
    """
    N, d = Xr.shape
    nb = N // bsize
    for b in prange(nb):
        start = b * bsize
        stop = N if b == nb - 1 else start + bsize
        w = 1.0 / (stop - start - 1)
        for ii in range(start, stop):
            k = perm[ii]
            for j in range(d):
                out[k, j] = 0.0
        for ii in range(start, stop):
            k = perm[ii]
            for jj in range(ii + 1, stop):
                l = perm[jj]
                r2 = 0.0
                for j in range(d):
                    df = Xr[k, j] - Xr[l, j]
                    r2 += df * df
                c = _c_ieee(r2 + e2, fam, a, p)
                if not r2 > cut2:
                    c = 0.0
                for j in range(d):
                    tt = (c * (Xr[k, j] - Xr[l, j])) * w
                    out[k, j] -= tt
                    out[l, j] += tt


@njit(parallel=True, cache=True, fastmath=FM, error_model="numpy")
def force_sym3(X, fam, a, p, e2, cut2, acc):
    """``force_sym`` specialised to d = 3: the vectorised factor pass of ``_block_factors``
    followed by one fused pass over the three components (fewer sweeps over the block)."""
    N = X.shape[1]
    nch = acc.shape[0]
    ntile = (N + _TR - 1) // _TR
    x0, x1, x2 = X[0], X[1], X[2]
    for ch in prange(nch):
        A0, A1, A2 = acc[ch, 0], acc[ch, 1], acc[ch, 2]
        for l in range(N):
            A0[l] = 0.0
            A1[l] = 0.0
            A2[l] = 0.0
        q = np.empty(_BC)
        f = np.empty(_BC)
        for t in range(ch, ntile, nch):
            i0 = t * _TR
            i1 = min(i0 + _TR, N)
            for j0 in range(i0, N, _BC):
                j1 = min(j0 + _BC, N)
                for i in range(i0, i1):
                    lo = max(j0, i + 1)
                    if lo >= j1:
                        continue
                    m = j1 - lo
                    _block_factors(X, i, lo, m, fam, a, p, e2, cut2, q, f)
                    xi0, xi1, xi2 = x0[i], x1[i], x2[i]
                    s0 = 0.0
                    s1 = 0.0
                    s2 = 0.0
                    for l in range(m):
                        c = f[l]
                        t0 = c * (xi0 - x0[lo + l])
                        t1 = c * (xi1 - x1[lo + l])
                        t2 = c * (xi2 - x2[lo + l])
                        s0 += t0
                        s1 += t1
                        s2 += t2
                        A0[lo + l] += t0
                        A1[lo + l] += t1
                        A2[lo + l] += t2
                    A0[i] -= s0
                    A1[i] -= s1
                    A2[i] -= s2
