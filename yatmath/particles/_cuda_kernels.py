"""The GPU kernels of particle interactions, written with numba-cuda (``yatmath._cuda``).

On a CUDA device they run on CuPy arrays; under numba-cuda's simulator the same source runs on
NumPy arrays, which is how the test suite executes them on a CPU (``tests/yat/test_cuda_kernels.py``,
``tests/particles/test_cuda_kernels.py``).

``force_sum``: one thread per target particle; the source particles stream through shared memory
in tiles of one block's width (the classic all-pairs N-body scheme), the diagonal l = k is
skipped by index, pairs with r^2 <= cut2 contribute nothing (the hard core), and every operation
and sum is float64 in registers.  The force factor is ``_numba_kernels.cfac``, THE definition of
c = a q^{-p} (q = r^2 + e2), compiled again as a device function.

``potential_sum``: the same tiling for the pair potential, sum_{l != k} g(x_k - x_l), with g
from r^2 by ``_numba_kernels.pair_potential`` (the Numba row's definition, compiled again):
the diagonal skipped by index, the hard core by raising q to cut2, coincident bare particles
giving log(0) or 0^{-s/2} = +inf, which the row's ``finish`` step then refuses or keeps, as on
every other row.  float64 in registers; NVVM may contract r^2's sum of squares into FMAs (as
the Numba row's ``contract`` flag allows), so the sums agree with the other rows to rounding.

``random_batch``: one thread per position of the permutation; the thread sums the force from
the other members of its batch (the last batch absorbing N mod bsize) in batch order, each
term (c (x_k - x_l)) w with w = 1/(|B| - 1): the operations of the Numba kernel
``_numba_kernels.random_batch`` in its order (its per-particle order is batch order too), with
the products rounded on their own (``_mul``: libdevice's ``dmul_rn``, which NVVM never fuses
into an FMA), so the result is the Numba kernel's bits wherever c needs no pow.  Batches are small
(the work is O(N * batch_size)), so the partners are read from global memory, no shared tiles.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import types

from .. import _cuda
from ._numba_kernels import cfac as _cfac_py
from ._numba_kernels import pair_potential as _g_py

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_cfac = _cuda.device_function(_cfac_py)
_g = _cuda.device_function(_g_py)
_f64 = types.float64
#: The largest dimension d the tiled kernel takes (its per-thread arrays are d long).
MAX_D = 16


def _stage_py(X, sh, jl, t, n, d):
    """Thread t's share of a source tile: row jl of X (when it exists) into shared row t."""
    if jl < n:
        for c in range(d):
            sh[t * d + c] = X[jl, c]


def _sq_dist_py(xi, sh, l, d):
    """|x_i - y_l|^2 for the target xi (registers) and shared row l, summed in float64."""
    r2 = 0.0
    for c in range(d):
        df = xi[c] - sh[l * d + c]
        r2 += df * df
    return r2


#: the tile staging and the squared distance, shared by the force and the potential kernels
_stage = _cuda.device_function(_stage_py)
_sq_dist = _cuda.device_function(_sq_dist_py)


@functools.lru_cache(maxsize=None)
def _force_kernel(d, threads):
    """The tiled force kernel for dimension d (a compile-time constant: the loops unroll)."""

    @_cu.jit
    def kern(X, fam, a, p, e2, cut2, out):
        sh = _cu.shared.array(0, dtype=_f64)
        t = _cu.threadIdx.x
        i = _cu.blockIdx.x * threads + t
        n = X.shape[0]
        xi = _cu.local.array(d, dtype=_f64)
        acc = _cu.local.array(d, dtype=_f64)
        for c in range(d):
            xi[c] = X[i, c] if i < n else 0.0
            acc[c] = 0.0
        for j0 in range(0, n, threads):
            _stage(X, sh, j0 + t, t, n, d)
            _cu.syncthreads()
            if i < n:
                for l in range(min(threads, n - j0)):
                    if j0 + l != i:
                        r2 = _sq_dist(xi, sh, l, d)
                        if r2 > cut2:
                            f = _cfac(r2 + e2, fam, a, p)
                            for c in range(d):
                                acc[c] -= f * (xi[c] - sh[l * d + c])
            _cu.syncthreads()
        if i < n:
            for c in range(d):
                out[i, c] = acc[c]
    return kern


def _positions(X, what):
    """(xp, X as contiguous float64, N, d) for a kernel that takes d <= MAX_D."""
    N, d = X.shape
    if d > MAX_D:
        raise ValueError(f"the {what} kernel takes d <= {MAX_D}, got d = {d}")
    xp = _cuda.array_module(X)
    return xp, xp.ascontiguousarray(X, dtype=np.float64), N, d


def force_sum(X, fam, a, p, e2, cut2):
    """sum_{l != k} grad g(x_k - x_l) for X (N, d), d <= MAX_D, float64; (N, d) float64 in
    X's array library."""
    xp, X, N, d = _positions(X, "tiled force")
    out = xp.empty((N, d), dtype=np.float64)
    threads = _cuda.THREADS
    _force_kernel(d, threads)[_cuda.blocks(N, threads), threads, 0, threads * d * 8](
        X, np.int64(fam), np.float64(a), np.float64(p), np.float64(e2), np.float64(cut2), out)
    return out


@functools.lru_cache(maxsize=None)
def _potential_kernel(d, threads):
    """The tiled potential kernel for dimension d: ``_force_kernel``'s tiles, one sum."""

    @_cu.jit
    def kern(X, s, e2, cut2, out):
        sh = _cu.shared.array(0, dtype=_f64)
        t = _cu.threadIdx.x
        i = _cu.blockIdx.x * threads + t
        n = X.shape[0]
        xi = _cu.local.array(d, dtype=_f64)
        for c in range(d):
            xi[c] = X[i, c] if i < n else 0.0
        acc = 0.0
        for j0 in range(0, n, threads):
            _stage(X, sh, j0 + t, t, n, d)
            _cu.syncthreads()
            if i < n:
                for l in range(min(threads, n - j0)):
                    if j0 + l != i:
                        acc += _g(_sq_dist(xi, sh, l, d), s, e2, cut2)
            _cu.syncthreads()
        if i < n:
            out[i] = acc
    return kern


def potential_sum(X, s, e2, cut2, threads=None):
    """sum_{l != k} g(x_k - x_l) for X (N, d), d <= MAX_D: (N,) float64 in X's array library.
    ``s``, ``e2``, ``cut2`` as for ``_numba_kernels.potential_rows``; ``threads`` per block
    (default ``_cuda.THREADS``) is also the tile width."""
    xp, X, N, d = _positions(X, "tiled potential")
    out = xp.empty(N, dtype=np.float64)
    threads = int(threads or _cuda.THREADS)
    _potential_kernel(d, threads)[_cuda.blocks(N, threads), threads, 0, threads * d * 8](
        X, np.float64(s), np.float64(e2), np.float64(cut2), out)
    return out


def _mul_py(x, y):
    """x * y, rounded on its own (the simulator runs Python, which never fuses)."""
    return x * y


def _rounded_product():
    """A device function for x * y that NVVM never contracts into an FMA with a neighbouring
    sum: libdevice's ``dmul_rn`` on a device, the plain product in the simulator."""
    if _cuda.simulated(_cu):
        return _cuda.device_function(_mul_py)
    from numba.cuda import libdevice

    return libdevice.dmul_rn


_mul = _rounded_product()


@functools.lru_cache(maxsize=None)
def _batch_kernel(d):
    """The random-batch kernel for dimension d: thread ii owns perm[ii]."""

    @_cu.jit
    def kern(X, perm, bsize, fam, a, p, e2, cut2, out):
        ii = _cu.grid(1)
        n = X.shape[0]
        if ii < n:
            nb = n // bsize
            b = min(ii // bsize, nb - 1)
            start = b * bsize
            stop = n if b == nb - 1 else start + bsize
            w = 1.0 / (stop - start - 1)
            k = perm[ii]
            xk = _cu.local.array(d, dtype=_f64)
            acc = _cu.local.array(d, dtype=_f64)
            for c in range(d):
                xk[c] = X[k, c]
                acc[c] = 0.0
            for jj in range(start, stop):
                if jj != ii:
                    l = perm[jj]
                    r2 = 0.0
                    for c in range(d):
                        df = xk[c] - X[l, c]
                        r2 += _mul(df, df)
                    f = _cfac(r2 + e2, fam, a, p)
                    if not r2 > cut2:
                        f = 0.0
                    for c in range(d):
                        acc[c] -= _mul(f * (xk[c] - X[l, c]), w)
            for c in range(d):
                out[k, c] = acc[c]
    return kern


def random_batch(X, perm, bsize, fam, a, p, e2, cut2, threads=None):
    """Random-batch force sums for X (N, d), d <= MAX_D: out[k] = (1/(|B|-1)) sum over the
    others l of k's batch of grad g(x_k - x_l); batches are perm[b*bsize:(b+1)*bsize], the last
    absorbing N mod bsize.  (N, d) float64 in X's array library (``perm`` any integer array,
    copied there as int64)."""
    xp, X, N, d = _positions(X, "random-batch")
    perm = xp.ascontiguousarray(xp.asarray(perm), dtype=np.int64)
    out = xp.empty((N, d), dtype=np.float64)
    threads = int(threads or _cuda.THREADS)
    _batch_kernel(d)[_cuda.blocks(N, threads), threads](
        X, perm, np.int64(bsize), np.int64(fam), np.float64(a), np.float64(p), np.float64(e2),
        np.float64(cut2), out)
    return out


@_cu.jit
def _cfac_each(q, fam, a, p, out):
    i = _cu.grid(1)
    if i < q.shape[0]:
        out[i] = _cfac(q[i], fam, a, p)


def cfac_values(q, fam, a, p):
    """c(q) elementwise by the device function (tests compare it with the reference)."""
    out = _cuda.array_module(q).empty(q.shape, dtype=np.float64)
    _cfac_each[_cuda.blocks(q.shape[0]), _cuda.THREADS](q, np.int64(fam), np.float64(a),
                                                         np.float64(p), out)
    return out
