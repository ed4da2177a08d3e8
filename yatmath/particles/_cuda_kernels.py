"""The GPU kernels of particle interactions, written with numba-cuda (``yatmath._cuda``).

On a CUDA device they run on CuPy arrays; under numba-cuda's simulator the same source runs on
NumPy arrays, which is how the test suite executes them on a CPU (``tests/test_cuda_kernels.py``).

``force_sum``: one thread per target particle; the source particles stream through shared memory
in tiles of one block's width (the classic all-pairs N-body scheme), the diagonal l = k is
skipped by index, pairs with r^2 <= cut2 contribute nothing (the hard core), and every operation
and sum is float64 in registers.  The force factor is ``_numba_kernels.cfac``, THE definition of
c = a q^{-p} (q = r^2 + e2), compiled again as a device function.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import types

from .. import _cuda
from ._numba_kernels import cfac as _cfac_py

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_cfac = _cuda.device_function(_cfac_py)
_f64 = types.float64
#: The largest dimension d the tiled kernel takes (its per-thread arrays are d long).
MAX_D = 16


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
            jl = j0 + t
            if jl < n:
                for c in range(d):
                    sh[t * d + c] = X[jl, c]
            _cu.syncthreads()
            if i < n:
                for l in range(min(threads, n - j0)):
                    if j0 + l != i:
                        r2 = 0.0
                        for c in range(d):
                            df = xi[c] - sh[l * d + c]
                            r2 += df * df
                        if r2 > cut2:
                            f = _cfac(r2 + e2, fam, a, p)
                            for c in range(d):
                                acc[c] -= f * (xi[c] - sh[l * d + c])
            _cu.syncthreads()
        if i < n:
            for c in range(d):
                out[i, c] = acc[c]
    return kern


def force_sum(X, fam, a, p, e2, cut2):
    """sum_{l != k} grad g(x_k - x_l) for X (N, d), d <= MAX_D, float64; (N, d) float64 in
    X's array library."""
    N, d = X.shape
    if d > MAX_D:
        raise ValueError(f"the tiled force kernel takes d <= {MAX_D}, got d = {d}")
    xp = _cuda.array_module(X)
    X = xp.ascontiguousarray(X, dtype=np.float64)
    out = xp.empty((N, d), dtype=np.float64)
    threads = _cuda.THREADS
    _force_kernel(d, threads)[_cuda.blocks(N, threads), threads, 0, threads * d * 8](
        X, np.int64(fam), np.float64(a), np.float64(p), np.float64(e2), np.float64(cut2), out)
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
