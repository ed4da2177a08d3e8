"""Fused epilogues of the random feature maps on the GPU, in numba-cuda (``yatmath._cuda``).

Every map evaluated here is "a projection, then an elementwise or row-wise epilogue": the
projection P = X W is ONE matrix product through the array library (cuBLAS for CuPy arrays,
issued by the map's 'cupy' registry row), and everything after it is ONE kernel launch of this
module that reads each entry of P once per pass (passes re-read a row that is still in cache)
and writes each output entry once, in the dtype the map's contract gives (the input's: float64,
or float32 rounded once from the float64 value by the kernel's own store -- the kernels are
compiled without fastmath, so float32 subnormals are kept, which CuPy's ``astype`` would flush).
What the array-API reference evaluates in 3-6 passes over (n, F) arrays (add the phases, cos,
scale; or subtract, exp, divide; or activate, sum, divide) and in as many temporaries is here
one pass (elementwise maps) or one row per block with its row quantities (||x||^2, the softmax
maximum and sum, the l1 sum of the renormalisation) reduced once in shared memory.  Where the
output is float64 and as wide as P it is written over P (no second (n, F) array).

Kernels, and the reference each one is the second-language definition of
-------------------------------------------------------------------------
``phase``     RFF, form "phase" (``fourier._rff_apply``): out = s cos(P + beta), s = sqrt(2/F).
``sincos``    RFF, form "sincos": out = [cos P, sin P] / sqrt(m) (P (n, m), out (n, 2m)).
``positive``  ``positive._positive_apply``, all kinds: one block per row (grid-stride over rows).
              favor: exp(P - ||x||^2 / 2) / sqrt(M), ||x||^2 summed once per row from X;
              softmaxfeat: sqrt(M) e / sum(e), e = exp(P/tau - max(P/tau)) (max and sum per row);
              the activations a(u) of ``positive._act`` (elu+1, softplus, sigmoid2; cos2 as
              cos(P + b)^2) with the n_scale_order scalings and the l1 renormalisation
              sqrt(M) a / sum(a) (sum per row, max(sum, floor) for cos2), in the reference's order.
              softplus is NumPy's ``logaddexp(0, u)`` (npymath's ``npy_logaddexp``) term by term.
``sketch``    Yat laplace_mc / laplace_quadrature, poly "sketch" (``yat._yat_apply``):
              P = X [Omega^T | R_x^T | S_x^T] (n, 3M) from one product, R_x, S_x the first d
              columns of the Rademacher R, S; out = (s cos(P_w + beta)) (P_r + sqrt(b) r_d)
              (P_s + sqrt(b) s_d): r~ . x~ = r_x . x + sqrt(b) r_d, the bias column added after the
              product (the reference has it inside the product; equal up to rounding, and
              identical for b = 0).
``exact``     the same with poly "exact": out[i, (a (d+1) + c) M + f] = (x~_a x~_c) z_f,
              z = s cos(P + beta), x~ = [x; sqrt(b)] (the reference's outer product, in its
              order).

Accuracy: each output is an elementary function (cos, sin, exp, expm1, tanh, log1p: <= 2 ulps
in CUDA's libdevice; the simulator uses Python's libm, <= 1 ulp, NumPy's SIMD loops differ from
libm by <= 1 ulp) of float64 projections; the projections are the array library's product
(reduction order of cuBLAS, not the CPU BLAS).  Row sums are tree reductions in float64
(error <= log2(T) u sum |a| plus the per-thread sequential sums, against NumPy's pairwise
sums), so the renormalised maps agree with the reference to ~(F + 10) u relative per entry.
float32 output: one more rounding, <= u_32 relative (subnormals included, at their absolute
spacing).  Inputs: the maps hand a float64 X (the caller's float32 X cast by the array library:
on a CUDA device a float32 subnormal input may be flushed to 0 by that cast: a change of
< 2^-126 in x, far below the float32 rounding of the outputs at ordinary tau and scales).

Not materialised: no (n, F) temporaries besides P (and the output, where it is float32 or wider
than P).  Not avoided: the product P itself goes through global memory once -- the kernels here
do not replace cuBLAS.  For the Yat sketch map P is (n, 3M): three projections of the size of
one map's output, so its cost has a floor of three products of the baseline's shape.

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays:
``tests/features/test_cuda_features.py`` executes the grid-stride loops, the partial blocks and
the shared-memory reductions on the CPU.  (There Python's ``math`` raises OverflowError where
the device returns inf, e.g. for a FAVOR+ exponent above ~709: the simulator is for testing.)
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
from numba import types

from .. import _cuda

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_f64 = types.float64

# positive-map kinds (compile-time constants of the row kernel)
FAVOR, SOFTMAX, COS2, ELU, SOFTPLUS, SIGMOID2 = range(6)
KIND_CODES = {"favor": FAVOR, "softmaxfeat": SOFTMAX, "cos2": COS2, "elu+1": ELU,
              "softplus": SOFTPLUS, "porf-softplus": SOFTPLUS, "sigmoid2": SIGMOID2}
# n_scale_order
NONE, BEFORE, AFTER = range(3)
ORDER_CODES = {"none": NONE, "before_renorm": BEFORE, "after_renorm": AFTER}
#: Largest number of blocks of one launch (the loops are grid-stride: any n is covered).
MAX_BLOCKS = 1 << 20
#: NumPy's NPY_LOGE2 (logaddexp(x, x) = x + ln 2)
_LOGE2 = math.log(2.0)


# ---------------------------------------------------------------------------- device functions

def _logaddexp0_py(u):
    """``np.logaddexp(0.0, u)``: npymath's ``npy_logaddexp(x, y)`` with x = 0, y = u, step by
    step (x == y: x + ln 2; tmp = x - y > 0: x + log1p(exp(-tmp)); tmp <= 0: y + log1p(exp(tmp));
    NaN: tmp)."""
    if u == 0.0:
        return 0.0 + _LOGE2
    tmp = 0.0 - u
    if tmp > 0.0:
        return 0.0 + math.log1p(math.exp(-tmp))
    if tmp <= 0.0:
        return u + math.log1p(math.exp(tmp))
    return tmp


_logaddexp0 = _cuda.device_function(_logaddexp0_py)


def _activation_py(kind, p, b, tau, floor, floor_sigmoid):
    """a of ``positive._positive_apply`` for one projection p = omega . x, before any scaling:
    cos2: cos(p + b)^2; else u = p / tau and ``positive._act``: elu+1 max(1 + ELU(u + b), floor)
    (NaN kept, as np.maximum does), softplus logaddexp(0, u) + floor, sigmoid2
    (1/2 (1 + tanh(u/2)))^2 (+ floor with floor_sigmoid)."""
    if kind == COS2:
        c = math.cos(p + b)
        return c * c
    u = p / tau
    if kind == ELU:
        z = u + b
        # where(z > 0, z, expm1(min(z, 0))): for z <= 0 min(z, 0) is z; NaN goes to expm1
        e = z if z > 0.0 else math.expm1(z)
        a = 1.0 + e
        return floor if a < floor else a
    if kind == SOFTPLUS:
        return _logaddexp0(u) + floor
    s = 0.5 * (1.0 + math.tanh(0.5 * u))
    return s * s + (floor if floor_sigmoid else 0.0)


_activation = _cuda.device_function(_activation_py)


def _block_sum_py(buf, v, t, T):
    """The sum over the block's T threads (T a power of 2) of their values v, returned to every
    thread: a tree in the shared buffer ``buf`` (T float64).  Called by all threads of the block;
    the first barrier keeps a fast thread from overwriting ``buf`` while others still read the
    previous result."""
    _cu.syncthreads()
    buf[t] = v
    step = T // 2
    while step > 0:
        _cu.syncthreads()
        if t < step:
            buf[t] = buf[t] + buf[t + step]
        step //= 2
    _cu.syncthreads()
    return buf[0]


def _block_max_py(buf, v, t, T):
    """The maximum of the block's values v (as ``_block_sum_py``; NaN values are not propagated
    here, the softmax sum that follows propagates them)."""
    _cu.syncthreads()
    buf[t] = v
    step = T // 2
    while step > 0:
        _cu.syncthreads()
        if t < step and buf[t + step] > buf[t]:
            buf[t] = buf[t + step]
        step //= 2
    _cu.syncthreads()
    return buf[0]


_block_sum = _cuda.device_function(_block_sum_py)
_block_max = _cuda.device_function(_block_max_py)


# ------------------------------------------------------------------------- elementwise kernels

def _phase_py(P, phase, scale, out):
    """out[i, f] = scale cos(P[i, f] + phase[f]) (grid-stride over the n F entries)."""
    F = out.shape[1]
    for k in range(_cu.grid(1), out.shape[0] * F, _cu.gridsize(1)):
        i = k // F
        f = k - i * F
        out[i, f] = scale * math.cos(P[i, f] + phase[f])


def _sincos_py(P, root_m, out):
    """out[i, f] = cos(P[i, f]) / root_m, out[i, m + f] = sin(P[i, f]) / root_m."""
    m = P.shape[1]
    for k in range(_cu.grid(1), P.shape[0] * m, _cu.gridsize(1)):
        i = k // m
        f = k - i * m
        p = P[i, f]
        out[i, f] = math.cos(p) / root_m
        out[i, m + f] = math.sin(p) / root_m


def _sketch_py(P, beta, scale, rb, sb, out):
    """out[i, f] = (scale_f cos(P[i, f] + beta_f)) (P[i, M + f] + rb_f) (P[i, 2M + f] + sb_f)."""
    M = out.shape[1]
    for k in range(_cu.grid(1), out.shape[0] * M, _cu.gridsize(1)):
        i = k // M
        f = k - i * M
        z = scale[f] * math.cos(P[i, f] + beta[f])
        out[i, f] = z * (P[i, M + f] + rb[f]) * (P[i, 2 * M + f] + sb[f])


def _exact_py(P, X, beta, scale, sqrt_b, d1, out):
    """out[i, (a d1 + c) M + f] = (x~_a x~_c) (scale_f cos(P[i, f] + beta_f)), x~ = [x; sqrt_b]."""
    M = P.shape[1]
    F = out.shape[1]
    d = X.shape[1]
    for k in range(_cu.grid(1), out.shape[0] * F, _cu.gridsize(1)):
        i = k // F
        r = k - i * F
        p = r // M
        f = r - p * M
        a = p // d1
        c = p - a * d1
        xa = X[i, a] if a < d else sqrt_b
        xc = X[i, c] if c < d else sqrt_b
        z = scale[f] * math.cos(P[i, f] + beta[f])
        out[i, r] = (xa * xc) * z


_phase = _cuda.kernel(_phase_py)
_sincos = _cuda.kernel(_sincos_py)
_sketch = _cuda.kernel(_sketch_py)
_exact = _cuda.kernel(_exact_py)


# ------------------------------------------------------------------------------ the row kernel

@functools.lru_cache(maxsize=None)
def _positive_kernel(kind: int, renorm: bool, order: int, floor_sigmoid: bool,
                     threads: int) -> Any:
    """The row kernel of ``positive_map`` for one kind, renorm flag, n_scale_order and thread
    count T (compile-time constants: the other kinds' branches are pruned)."""
    @_cu.jit
    def kern(P, X, bias, tau, floor, root_m, out):
        buf = _cu.shared.array(threads, dtype=_f64)
        t = _cu.threadIdx.x
        n = P.shape[0]
        M = P.shape[1]
        d = X.shape[1]
        for i in range(_cu.blockIdx.x, n, _cu.gridDim.x):
            if kind == FAVOR:
                acc = 0.0
                for c in range(t, d, threads):
                    acc += X[i, c] * X[i, c]
                half = 0.5 * _block_sum(buf, acc, t, threads)
                for f in range(t, M, threads):
                    out[i, f] = math.exp(P[i, f] - half) / root_m
            elif kind == SOFTMAX:
                mx = -math.inf
                for f in range(t, M, threads):
                    u = P[i, f] / tau
                    if u > mx:
                        mx = u
                mx = _block_max(buf, mx, t, threads)
                acc = 0.0
                for f in range(t, M, threads):
                    acc += math.exp(P[i, f] / tau - mx)
                s = _block_sum(buf, acc, t, threads)
                for f in range(t, M, threads):
                    out[i, f] = root_m * math.exp(P[i, f] / tau - mx) / s
            else:
                s = 1.0
                if renorm:
                    acc = 0.0
                    for f in range(t, M, threads):
                        a = _activation(kind, P[i, f], bias[f], tau, floor, floor_sigmoid)
                        if order == BEFORE:
                            a = a / root_m
                        acc += a
                    s = _block_sum(buf, acc, t, threads)
                    if kind == COS2 and s < floor:      # max(s, floor), NaN kept
                        s = floor
                for f in range(t, M, threads):
                    a = _activation(kind, P[i, f], bias[f], tau, floor, floor_sigmoid)
                    if order == BEFORE:
                        a = a / root_m
                    if renorm:
                        a = root_m * a / s
                    elif order == NONE:
                        a = a / root_m
                    if order == AFTER:
                        a = a / root_m
                    out[i, f] = a
    return kern


# ------------------------------------------------------------------------------------ drivers

def _out(P: Any, shape: tuple[int, int], dtype: Any) -> Any:
    """The output: P itself where it is float64 of the same shape (written in place, each entry
    read before it is written by the same thread), else a new array beside P."""
    if np.dtype(dtype) == np.float64 and tuple(P.shape) == shape and P.dtype == np.float64:
        return P
    return _cuda.array_module(P).empty(shape, dtype=dtype)


def _args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The launch's arguments, a read-only NumPy array (a frozen map parameter, in the simulator
    only: on a device the rows pass device arrays) replaced by a writable copy -- the simulator
    copies every NumPy argument back after the launch."""
    return tuple(np.array(a) if isinstance(a, np.ndarray) and not a.flags.writeable else a
                 for a in args)


def _launch_flat(kern: Any, total: int, args: tuple[Any, ...], threads: int | None,
                 grid: int | None) -> None:
    T = _cuda.THREADS if threads is None else int(threads)
    if total:
        G = min(_cuda.blocks(total, T), MAX_BLOCKS) if grid is None else int(grid)
        kern[G, T](*_args(args))


def phase_map(P: Any, phase: Any, scale: float, dtype: Any, *, threads: int | None = None,
              grid: int | None = None) -> Any:
    """RFF "phase": scale cos(P + phase) for P (n, F) float64 and phase (F,), in ``dtype``
    (over P when float64).  ``threads``/``grid`` override the launch (tests: few threads)."""
    out = _out(P, tuple(P.shape), dtype)
    _launch_flat(_phase, P.shape[0] * P.shape[1], (P, phase, np.float64(scale), out), threads,
                 grid)
    return out


def sincos_map(P: Any, root_m: float, dtype: Any, *, threads: int | None = None,
               grid: int | None = None) -> Any:
    """RFF "sincos": [cos P, sin P] / root_m, (n, 2m) in ``dtype``, for P (n, m) float64."""
    n, m = P.shape
    out = _cuda.array_module(P).empty((n, 2 * m), dtype=dtype)
    _launch_flat(_sincos, n * m, (P, np.float64(root_m), out), threads, grid)
    return out


def row_threads(F: int) -> int:
    """Threads per block of the row kernel: the power of 2 from 32 to ``THREADS`` nearest above
    F (a warp at least; one or more passes of the block over a row's F entries)."""
    T = 32
    while T < min(F, _cuda.THREADS):
        T *= 2
    return T


def positive_map(P: Any, X: Any, bias: Any, kind: str, tau: float, floor: float, renorm: bool,
                 floor_sigmoid: bool, n_scale_order: str, dtype: Any, *,
                 threads: int | None = None, grid: int | None = None) -> Any:
    """``positive._positive_apply`` after its product P = X Omega (n, M) float64: X (n, d) is
    read only for FAVOR+'s ||x||^2, bias (M,) by elu+1 and cos2; the result (n, M) in ``dtype``
    (over P when float64).  One block of ``threads`` (a power of 2) per row, ``grid`` blocks."""
    n, M = P.shape
    out = _out(P, (n, M), dtype)
    if n == 0 or M == 0:
        return out
    T = row_threads(M) if threads is None else int(threads)
    if T < 1 or T & (T - 1):
        raise ValueError(f"threads must be a power of 2, got {T}")
    kern = _positive_kernel(KIND_CODES[kind], bool(renorm), ORDER_CODES[n_scale_order],
                            bool(floor_sigmoid), T)
    G = min(n, MAX_BLOCKS) if grid is None else int(grid)
    f = np.float64
    kern[G, T](*_args((P, X, bias, f(tau), f(floor), f(math.sqrt(M)), out)))
    return out


def sketch_map(P: Any, beta: Any, scale: Any, rb: Any, sb: Any, dtype: Any, *,
               threads: int | None = None, grid: int | None = None) -> Any:
    """Yat "sketch": P (n, 3M) = X [Omega^T | R_x^T | S_x^T] (float64), beta, scale, rb, sb (M,)
    with rb = sqrt(b) R[:, d], sb = sqrt(b) S[:, d]; the result (n, M) in ``dtype``."""
    n, M = P.shape[0], P.shape[1] // 3
    out = _cuda.array_module(P).empty((n, M), dtype=dtype)
    _launch_flat(_sketch, n * M, (P, beta, scale, rb, sb, out), threads, grid)
    return out


def exact_map(P: Any, X: Any, beta: Any, scale: Any, sqrt_b: float, dtype: Any, *,
              threads: int | None = None, grid: int | None = None) -> Any:
    """Yat "exact": P (n, M) = X Omega^T (float64), X (n, d) float64; the result
    (n, (d+1)^2 M) in ``dtype``."""
    n, M = P.shape
    d1 = X.shape[1] + 1
    out = _cuda.array_module(P).empty((n, d1 * d1 * M), dtype=dtype)
    _launch_flat(_exact, n * d1 * d1 * M, (P, X, beta, scale, np.float64(sqrt_b), np.int64(d1),
                                           out), threads, grid)
    return out


def derived(owner: object, key: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """A read-only host array computed once from the frozen parameters of ``owner`` (a stacked
    projection matrix, a bias column) and kept on it, so that ``_array.parameter`` caches its
    device copy like the map's own parameters."""
    cache = owner.__dict__.setdefault("_derived", {})
    a = cache.get(key)
    if a is None:
        a = cache[key] = np.ascontiguousarray(build(), dtype=np.float64)
        a.flags.writeable = False
    return a
