"""The GPU kernels of particle interactions, written with numba-cuda (``yatmath._cuda``).

On a CUDA device they run on CuPy arrays; under numba-cuda's simulator the same source runs on
NumPy arrays, which is how the test suite executes them on a CPU
(``tests/yat/test_cuda_kernels.py``, ``tests/particles/test_cuda_kernels.py``).  Every kernel
reads float32 or float64 positions as they are (float32 to float64 inside the kernel is exact
and keeps subnormals, which CuPy's ``astype``, compiled with ``-ftz=true``, would flush) and
writes its result by its own store.

``force_sum``: one thread per target particle; the source particles stream through shared memory
in tiles of one block's width (the classic all-pairs N-body scheme), the diagonal l = k is
skipped by index, pairs with r^2 <= cut2 contribute nothing (the hard core).  Each thread
divides its d sums by ``divisor`` (N - 1 for the force row) itself, before its single store
("The division" below).  Two variants:

* float64 computation (``_force_kernel``): every operation and sum float64 in registers; the
  force factor is ``_numba_kernels.cfac``, THE definition of c = a q^{-p} (q = r^2 + e2),
  compiled again as a device function.  Float64 input, and float32 input whose c needs a
  general pow (below); a float32 result is the float64 quotient rounded once by the store.
* float32 computation (``_force32_kernel``, float32 input where :func:`float32_computation`
  allows it): see "The float32 force kernel" below.

``potential_sum``: the same tiling for the pair potential, sum_{l != k} g(x_k - x_l), with g
from r^2 by ``_numba_kernels.pair_potential`` (the Numba row's definition, compiled again):
the diagonal skipped by index, the hard core by raising q to cut2, coincident bare particles
giving log(0) or 0^{-s/2} = +inf, which the row's ``finish`` step then refuses or keeps, as on
every other row.  float64 in registers for every input dtype (g is a log or a pow for every s,
and ``pair_potential`` is a float64 formula), the result float64; NVVM may contract r^2's sum of
squares into FMAs (as the Numba row's ``contract`` flag allows), so the sums agree with the
other rows to rounding.

``random_batch``: one thread per position of the permutation; the thread sums the force from
the other members of its batch (the last batch absorbing N mod bsize) in batch order, each
term (c (x_k - x_l)) w with w = 1/(|B| - 1): the operations of the Numba kernel
``_numba_kernels.random_batch`` in its order (its per-particle order is batch order too), with
the products rounded on their own (``_mul``: libdevice's ``dmul_rn``, which NVVM never fuses
into an FMA), so the result is the Numba kernel's bits wherever c needs no pow.  Batches are small
(the work is O(N * batch_size)), so the partners are read from global memory, no shared tiles.
float64 arithmetic for every input dtype (the work is small); float32 input gets the float64
result rounded once by the store.  The weight w = 1/(|B| - 1) is applied inside the kernel, so
no array code follows it that could flush a float32 subnormal result to zero.

The float32 force kernel
------------------------
Designed for float32 particles at float32 arithmetic throughput: the tile in shared memory, the
differences, r^2, q = r^2 + e2, c and the per-pair terms c (x_k - x_l) are float32 (NVVM may
fuse products into FMAs); c is ``cfac`` itself, compiled a second time with its scalar type
bound to float32 (``_cfac32``: the same source, each ``np.float64(...)`` of it read as
``np.float32(...)``: IEEE sqrt and division in float32, no pow).  Each target's d sums are
compensated (Kahan, float32): a float64 accumulator would cost a float32 -> float64 conversion
per term and component, which the device runs at a fraction of its float32 rate; Kahan costs
three float32 additions per term and component and keeps the summation error at 2 u, whatever
N.  Nothing of size N x N exists; per thread, registers for x_k, the d sums and their d
compensations.

Bound (u = u32 = 2^-24, per component j of target k, to first order in u):

    |F_kj - F_kj(exact)| <= [(p (d + 3) + 7) + 2 N u] u * sum_{l != k} |c_kl (x_kj - x_lj)|
                            + N eta / 2,

eta = 2^-149 the float32 subnormal spacing, p the exponent of c = a q^{-p} (3/2, 1, 1/2 or 2).
Why: each difference is rounded once (u); r^2 = sum_j (x_kj - x_lj)^2 is a dot product of d
terms of rounded differences, relative error (d + 2) u; e2 rounded to float32 (u) and the sum
q = r^2 + e2 of two positive terms, (d + 3) u; c = a q^{-p} (a = |s| in {1, 2}, exact) inherits
p (d + 3) u from q and adds at most 3 roundings (sqrt, product, division); the term c (x_kj - x_lj)
one more difference and one product: (p (d + 3) + 5) u per term.  Kahan summation of the N - 1
terms adds (2 u + 2 N u^2) times the sum of their magnitudes (Higham, Accuracy and Stability,
eq. 4.8), independent of the order and of N to first order.  A term below 2^-126 in magnitude
is subnormal: absolute error at most eta / 2 each (the N eta / 2).  The guard keeps every other
quantity normal: the float32 formula is used only for Q_LO <= q <= Q_HI (2^-62, 2^62), where
q^2, q^{3/2}, q, q^{1/2} and c are normal float32 numbers and every term is below 2^94.  Pairs
outside it -- near-coincident pairs of a bare kernel (r below ~2e-19, q subnormal or 0), pairs
farther apart than ~2e9, hard-core pairs closer than 2^-31 -- are computed in float64 by the
float64 definitions (``_sq_dist``, ``cfac``) from the float32 coordinates (exact conversion) and
rounded once to a float32 term (relative u, or eta / 2 absolute, within the bound), so the
bound holds for every finite input.  A coincident bare pair gives c = inf and the term
inf * 0 = NaN, which the row's finish step refuses or repairs, as for float64; a float64 term
beyond the float32 range is inf, a row the finish step recomputes on the host.  The hard core:
the float32 test r^2 > fl32(delta^2) decides pairs at distance delta (1 +- (d + 3) u / 2) either
way (at u64 the float64 rows have the same band); such a pair's whole term is outside the bound.

The division
------------
The force row wants F_k = S_k / (N - 1), S_k the kernel's sum.  The kernel divides before its
store -- ``acc / div`` in float64 (``_force_kernel``; a float32 output then rounds the
quotient once, as NumPy's ``(S / (N - 1)).astype(float32)`` does), ``-acc / div32`` in float32
(``_force32_kernel``, div32 = fl32(N - 1), exact for N <= 2^24 + 1) -- an IEEE division, not
a product with a reciprocal, so the stored value is the correctly rounded quotient of the sum,
the value NumPy's ``S / (N - 1)`` gives for the same S.  Done in array code after the kernel
it would be a CuPy elementwise kernel, compiled with ``-ftz=true``: a float32 quotient below
2^-126 (a force of particles far apart, e.g. 2 r^-3 at r ~ 2^42 under s = 2, divided by N - 1)
would come back 0.  The numba-cuda kernels are compiled without fastmath, which keeps the
quotient subnormal.  The division costs one rounding: with the bound above, the float32 force
component F_kj = S_kj / (N - 1) is within

    (bound on S_kj) / (N - 1) + u |F_kj| + eta / 2

(u |F_kj| where the quotient is normal, eta / 2 absolute where it is subnormal); in float64 one
rounding u64 |F_kj| more.  No memory traffic is added: the quotient is what the single store
writes, instead of a second pass over the (N, d) result.

Which interactions compute in float32 (:func:`float32_computation`): the families whose c
needs no pow, p in {3/2, 1, 1/2, 2} (s = 1, 0, -1, 2: Riesz/Coulomb s = 1, the logarithm, s = -1,
s = 2), for every kind (bare, Plummer, hard core).  The other s (general pow) compute in float64
as before: in float32, p = (s + 2)/2 and a = |s| would be rounded, and q^{-p} with p off by
u p changes by a factor q^{u p}, a relative error u p |ln q| that grows without a bound of the
form k u over the float32 range (up to ~ 90 p u), besides powf's own error.
"""
from __future__ import annotations

import functools
import types as _pytypes

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
_f32 = types.float32
#: The largest dimension d the tiled kernel takes (its per-thread arrays are d long).
MAX_D = 16
#: The float32 force kernel's range for q = r^2 + e2 (module docstring): inside it q^2, q^{3/2},
#: q^{1/2} and c = a q^{-p} (a in {1, 2}, p <= 2) are normal float32 numbers; outside, the pair
#: is computed in float64.
Q_LO, Q_HI = 2.0 ** -62, 2.0 ** 62
#: The exponent families of c (``interactions._FAMILIES``) computed in float32 for float32 input.
FLOAT32_FAMILIES = (1, 2, 3, 4)


def float32_computation(fam):
    """Whether float32 input computes the force in float32 (``_force32_kernel``) for the
    exponent family ``fam``: the families without pow (module docstring); else float64."""
    return int(fam) in FLOAT32_FAMILIES


def _bind_float32(py_func):
    """``py_func`` with ``np`` bound to a namespace whose ``float64`` is ``np.float32``: the
    same source, each ``np.float64(x)`` of it read as a float32 rounding, so that with float32
    arguments every operation is float32 (one definition of the formula for both widths)."""
    ns = _pytypes.ModuleType("numpy_float32_scalars")
    ns.float64 = np.float32  # type: ignore[attr-defined]
    return _pytypes.FunctionType(py_func.__code__, {**py_func.__globals__, "np": ns},
                                 py_func.__name__ + "_float32", py_func.__defaults__,
                                 py_func.__closure__)


#: c = a q^{-p} in float32 (families 1-4: sqrt, product, division) from ``cfac``'s source
_cfac32 = _cuda.device_function(_bind_float32(_cfac_py))


def _stage_py(X, sh, jl, t, n, d):
    """Thread t's share of a source tile: row jl of X (when it exists) into shared row t."""
    if jl < n:
        for c in range(d):
            sh[t * d + c] = X[jl, c]


def _sq_dist_py(xi, sh, l, d):
    """|x_i - y_l|^2 for the target xi (registers) and shared row l, summed in the arrays'
    dtype (float64 arrays: float64; float32 arrays: float32) in coordinate order."""
    df = xi[0] - sh[l * d]
    r2 = df * df
    for c in range(1, d):
        df = xi[c] - sh[l * d + c]
        r2 += df * df
    return r2


def _kahan_add_py(s, comp, c, x):
    """s[c] += x with Kahan's compensation comp[c] (s[c] - comp[c] tracks the exact sum):
    y = x - comp, t = s + y, comp = (t - s) - y, s = t.  Compiled without fastmath, so NVVM
    keeps the order (no reassociation cancels the compensation)."""
    y = x - comp[c]
    t = s[c] + y
    comp[c] = (t - s[c]) - y
    s[c] = t


#: the tile staging and the squared distance, shared by the force and the potential kernels
_stage = _cuda.device_function(_stage_py)
_sq_dist = _cuda.device_function(_sq_dist_py)
_kahan_add = _cuda.device_function(_kahan_add_py)


@functools.lru_cache(maxsize=None)
def _force_kernel(d, threads):
    """The tiled force kernel for dimension d (a compile-time constant: the loops unroll)."""

    @_cu.jit
    def kern(X, fam, a, p, e2, cut2, div, out):
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
                out[i, c] = acc[c] / div        # float64 quotient; a float32 out rounds it once
    return kern


@functools.lru_cache(maxsize=None)
def _force32_kernel(d, threads):
    """The tiled float32-computation force kernel for dimension d (module docstring, "The
    float32 force kernel"): float32 tiles, pair terms and Kahan-compensated float32 sums; the
    pairs outside Q_LO <= q <= Q_HI in float64.  Writes -sum_l c_kl (x_k - x_l) / div32
    (float32, one IEEE division)."""

    @_cu.jit
    def kern(X, fam, a, p, e2, cut2, a32, p32, e2_32, cut2_32, qlo, qhi, div32, out):
        sh = _cu.shared.array(0, dtype=_f32)
        t = _cu.threadIdx.x
        i = _cu.blockIdx.x * threads + t
        n = X.shape[0]
        xi = _cu.local.array(d, dtype=_f32)
        xi64 = _cu.local.array(d, dtype=_f64)
        yl = _cu.local.array(d, dtype=_f64)
        acc = _cu.local.array(d, dtype=_f32)
        comp = _cu.local.array(d, dtype=_f32)
        for c in range(d):
            xi[c] = X[i, c] if i < n else np.float32(0.0)
            xi64[c] = xi[c]
            acc[c] = np.float32(0.0)
            comp[c] = np.float32(0.0)
        for j0 in range(0, n, threads):
            _stage(X, sh, j0 + t, t, n, d)
            _cu.syncthreads()
            if i < n:
                for l in range(min(threads, n - j0)):
                    if j0 + l != i:
                        r2 = _sq_dist(xi, sh, l, d)
                        q = r2 + e2_32
                        if q >= qlo and q <= qhi:
                            if r2 > cut2_32:
                                f = _cfac32(q, fam, a32, p32)
                                for c in range(d):
                                    _kahan_add(acc, comp, c, f * (xi[c] - sh[l * d + c]))
                        else:
                            # outside the float32 range: the pair in float64, one rounding
                            for c in range(d):
                                yl[c] = sh[l * d + c]
                            r2d = _sq_dist(xi64, yl, 0, d)
                            if r2d > cut2:
                                fd = _cfac(r2d + e2, fam, a, p)
                                for c in range(d):
                                    _kahan_add(acc, comp, c,
                                               np.float32(fd * (xi64[c] - yl[c])))
            _cu.syncthreads()
        if i < n:
            for c in range(d):
                out[i, c] = -acc[c] / div32     # IEEE float32 division, subnormals kept
    return kern


def _positions(X, what):
    """(xp, X contiguous as float32 (float32 input) or float64, N, d) for a kernel that takes
    d <= MAX_D; the kernels read either dtype as it is."""
    N, d = X.shape
    if d > MAX_D:
        raise ValueError(f"the {what} kernel takes d <= {MAX_D}, got d = {d}")
    xp = _cuda.array_module(X)
    dt = np.float32 if X.dtype == np.float32 else np.float64
    return xp, xp.ascontiguousarray(X, dtype=dt), N, d


def force_sum(X, fam, a, p, e2, cut2, threads=None, divisor=1):
    """(1/divisor) sum_{l != k} grad g(x_k - x_l) for X (N, d), d <= MAX_D, float32 or float64:
    (N, d) in X's dtype and array library.  float32 input computes in float32 where
    ``float32_computation(fam)`` (the bound in the module docstring), else in float64 with the
    quotients rounded once to float32 by the store.  ``threads`` per block (default
    ``_cuda.THREADS``) is also the tile width.

    ``divisor`` (default 1: the plain sum; the force row passes N - 1) divides each sum inside
    the kernel, before its single store: an IEEE division (not a product with a reciprocal) in
    the kernel's arithmetic -- float64, or float32 by fl32(divisor) in the float32 kernel
    (exact for divisor <= 2^24) -- so each component is the correctly rounded quotient of the
    kernel's sum, the value NumPy's ``S / divisor`` gives for the same sum S, float32
    subnormals included (array code after the kernel would be CuPy's, compiled with
    ``-ftz=true``: a float32 force below 2^-126 would come back 0)."""
    xp, X, N, d = _positions(X, "tiled force")
    out = xp.empty((N, d), dtype=X.dtype)
    threads = int(threads or _cuda.THREADS)
    grid = _cuda.blocks(N, threads)
    args = (np.int64(fam), np.float64(a), np.float64(p), np.float64(e2), np.float64(cut2))
    if X.dtype == np.float32 and float32_computation(fam):
        _force32_kernel(d, threads)[grid, threads, 0, threads * d * 4](
            X, *args, np.float32(a), np.float32(p), np.float32(e2), np.float32(cut2),
            np.float32(Q_LO), np.float32(Q_HI), np.float32(divisor), out)
    else:
        _force_kernel(d, threads)[grid, threads, 0, threads * d * 8](
            X, *args, np.float64(divisor), out)
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
    """sum_{l != k} g(x_k - x_l) for X (N, d), d <= MAX_D, float32 or float64 (computed in
    float64 either way): (N,) float64 in X's array library.
    ``s``, ``e2``, ``cut2`` as for ``_numba_kernels.potential_rows``; ``threads`` per block
    (default ``_cuda.THREADS``) is also the tile width."""
    xp, X, N, d = _positions(X, "tiled potential")
    out = xp.empty(N, dtype=np.float64)  # float64 for either input dtype
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
    absorbing N mod bsize.  (N, d) in X's dtype (float32 or float64; float64 arithmetic either
    way, float32 rounded once by the store) and array library (``perm`` any integer array,
    copied there as int64)."""
    xp, X, N, d = _positions(X, "random-batch")
    perm = xp.ascontiguousarray(xp.asarray(perm), dtype=np.int64)
    out = xp.empty((N, d), dtype=X.dtype)
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


@_cu.jit
def _cfac32_each(q, fam, a, p, out):
    i = _cu.grid(1)
    if i < q.shape[0]:
        out[i] = _cfac32(q[i], fam, a, p)


def cfac_values(q, fam, a, p):
    """c(q) elementwise by the device function (tests compare it with the reference): float64
    q by ``cfac``, float32 q by its float32 binding ``_cfac32`` (the float32 kernel's)."""
    xp = _cuda.array_module(q)
    if q.dtype == np.float32:
        out = xp.empty(q.shape, dtype=np.float32)
        _cfac32_each[_cuda.blocks(q.shape[0]), _cuda.THREADS](q, np.int64(fam), np.float32(a),
                                                               np.float32(p), out)
        return out
    out = xp.empty(q.shape, dtype=np.float64)
    _cfac_each[_cuda.blocks(q.shape[0]), _cuda.THREADS](q, np.int64(fam), np.float64(a),
                                                         np.float64(p), out)
    return out
