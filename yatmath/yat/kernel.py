"""The Yat kernel K(w, x) = (w . x)^2 / (||w - x||^2 + eps): pointwise, Gram matrix, matvec.

Accuracy
--------
Let u be the unit roundoff of the working dtype (2^-53 for float64, 2^-24 for float32),
s = w . x, N = s + b (inner bias; N = s otherwise), D = ||w - x||^2 + eps and
cond = (||w|| ||x|| + |b|) / |N|, the condition number of N.  For inputs whose squared norms
are finite in the working dtype (float64: norms up to ~1e153; float32: up to ~1e18) every
backend returns K with

    |K_hat - K| <= 4 (d + 4) u K (cond + 8) + ((d + 4) u ||w|| ||x||)^2 / D

(the last term matters only when N is ~0, i.e. w nearly orthogonal to x).  D is never
negative or zero and no intermediate overflows where K is finite: K is evaluated as
N * (N / D), never N^2 / D.

Beyond that range (entries above 2^480, about 3e144, in float64) the float64 reference evaluates
K exactly rescaled by a power of two (``_reference`` module docstring), so finite inputs never give
NaN: the result is K, or inf where K exceeds the float64 range.

The Gram matrix uses the GEMM ("expanded") form  D = ||x||^2 + ||w||^2 - 2 s + eps, which
cancels catastrophically as x -> w.  Where the computed ||x||^2 + ||w||^2 - 2 s falls below
``tau * (||x||^2 + ||w||^2)`` (tau = 1/8) the pair is recomputed from the direct form
sum (w_i - x_i)^2, so the expanded form's extra error is at most 2 (d+2) u / tau relative to D,
and the bound above holds for it too.  The direct forms accumulate in float64 on every backend.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _array
from .._array import Caller, caller
from .._registry import choose, register
from .._threads import single_threaded_blas
from .._typing import Array, RNGLike
from .._validate import (as_float_array, as_rng, check_all_finite, check_bias, check_bool,
                         check_choice, check_eps, check_int, check_memory, check_positive,
                         check_same_last_dim)
from . import _reference as ref
from ._dtypes import astype as _astype
from ._dtypes import float_dtype, np_dtype, scalar_as_float64
from ._reference import REPAIR_TAU  # noqa: F401  (re-exported: the rule's one definition)

BIAS_MODES = ("inner", "outer")
#: Up to this feature dimension the direct form beats a GEMM (measured by benchmarks/bench_yat.py).
DIRECT_MAX_D = 16
_MODE = {None: 0, "inner": 1, "outer": 2}
_PRODUCT_NUMBA_MIN = 1 << 14


def _full_bias(b, n, bias_mode, dtype, xp):
    """(the (n,) contiguous bias array, the integer mode) the compiled kernels take
    (NumPy or CuPy ``xp``)."""
    mode = 0 if b is None else _MODE[bias_mode]
    full = xp.zeros(n, dtype=dtype) if b is None else xp.broadcast_to(b.astype(dtype), (n,))
    return xp.ascontiguousarray(full), mode


def check_pair(w: Array, x: Array, eps: float, bias: Array | None, bias_mode: str,
               check_finite: bool, where: Caller | None = None
               ) -> tuple[Any, Array, Array, Array | None, Any, float, tuple[int, ...]]:
    """Validate the arguments of a pointwise (broadcasting) Yat operation.

    Returns ``(xp, w, x, bias, dtype, eps, lead)``: the array module (``where.module``: NumPy,
    CuPy, or the array API namespace of another library; ``where`` defaults to
    ``caller(w, x, bias)``), the validated arrays (``bias`` None or an array broadcastable to
    ``lead``), their common dtype (a dtype of ``xp``), eps as a float, and the broadcast leading
    shape of w and x (the output shape).
    """
    where = caller(w, x, bias) if where is None else where
    xp = where.module
    w = as_float_array(w, "w", check_finite=check_finite, xp=xp)
    x = as_float_array(x, "x", check_finite=check_finite, xp=xp)
    if w.ndim == 0 or x.ndim == 0:
        raise ValueError("w and x must have a feature axis (at least 1-D), "
                         f"got shapes {tuple(w.shape)} and {tuple(x.shape)}")
    check_same_last_dim(w, x, "w", "x")
    dtype = float_dtype(xp, w, x)
    eps = check_eps(eps, np_dtype(xp, dtype))
    check_choice(bias_mode, "bias_mode", BIAS_MODES)
    try:
        lead = np.broadcast_shapes(tuple(w.shape[:-1]), tuple(x.shape[:-1]))
    except ValueError:
        raise ValueError(f"w and x leading shapes do not broadcast: {tuple(w.shape)} vs "
                         f"{tuple(x.shape)}") from None
    b = None
    if bias is not None:
        bias = scalar_as_float64(where, bias)
        b = as_float_array(bias, "bias", check_finite=check_finite, xp=xp)
        try:
            ok = np.broadcast_shapes(tuple(b.shape), lead) == lead
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"bias of shape {tuple(b.shape)} does not broadcast to the output "
                             f"shape {lead}")
    return xp, w, x, b, dtype, eps, lead


def product(w: Array, x: Array, eps: float, bias: Array | None = None, *,
            bias_mode: str = "inner", backend: str = "auto", check_finite: bool = True) -> Array:
    """K(w, x) pointwise, broadcasting over the leading axes (the last axis is the feature axis).

    Parameters
    ----------
    w, x : array_like, shapes (..., d) broadcastable against each other
    eps : float > 0
    bias : None, scalar or array broadcastable to the output shape
        ``bias_mode="inner"``: (w.x + b)^2 / D (000 Thm 4); ``"outer"``: K + b (002 §3.4.1).
    backend : "auto" | "reference" (alias "numpy") | "numba" | "cupy" (``yatmath._registry``)
    Returns an array of the broadcast leading shape, in the common dtype of w and x, in the
    library (NumPy, CuPy, PyTorch, JAX, ...) and on the device of the inputs.  Every backend
    computes in float64 (the direct form) and rounds to the result dtype.
    """
    where = caller(w, x, bias)
    xp, w, x, b, dtype, eps, lead = check_pair(w, x, eps, bias, bias_mode, check_finite, where)
    size = math.prod(lead) * w.shape[-1]
    impl = choose("yat.product", backend, where.library, size=size)
    # the broadcast (..., d) operands or their products, and the result
    check_memory(8 * math.prod(lead) * (2 * w.shape[-1] + 2),
                 f"the Yat product of w and x over the broadcast shape {lead} (d={w.shape[-1]})",
                 alternative="a loop over blocks of the leading axes", xp=xp)
    return impl(w, x, eps, b, bias_mode, lead, dtype)


@register("yat.product", "reference",
          note="float64 direct form (_reference.product), any array API library")
def _product_reference(w, x, eps, b, bias_mode, lead, dtype):
    xp = ref.namespace(w, x)
    out = ref.product(w, x, eps, b, bias_mode)
    return xp.astype(xp.broadcast_to(out, lead), dtype, copy=False)


@register("yat.product", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          note="the generic reference run by CuPy on the device (elementwise + reductions), "
               "its float32 inputs widened and its result rounded by numba-cuda kernels that "
               "keep subnormals")
def _product_cupy(w, x, eps, b, bias_mode, lead, dtype):
    from .._cuda_cast import cast

    # widened here, not by the reference's astype: CuPy's would flush float32 subnormals
    w, x = cast(w, np.float64), cast(x, np.float64)
    out = ref.product(w, x, eps, None if b is None else cast(b, np.float64), bias_mode)
    return cast(ref.namespace(w, x).broadcast_to(out, lead), dtype)


@register("yat.product", "numba", libraries=("numpy",), device="cpu",
          min_size=_PRODUCT_NUMBA_MIN,
          note="parallel direct form, float64 sums; the reference below min_size numbers")
def _product_numba(w, x, eps, b, bias_mode, lead, dtype):
    # Below ~1e4 numbers the parallel dispatch costs more than it saves (~200 us per call).
    d = w.shape[-1]
    if d == 0 or math.prod(lead) * d < _PRODUCT_NUMBA_MIN:
        return _product_reference(w, x, eps, b, bias_mode, lead, dtype)
    from . import _numba_kernels as nk

    W2 = np.ascontiguousarray(np.broadcast_to(w, lead + (d,)).reshape(-1, d))
    X2 = np.ascontiguousarray(np.broadcast_to(x, lead + (d,)).reshape(-1, d))
    bb = np.zeros(W2.shape[0]) if b is None else np.broadcast_to(
        b.astype(np.float64), lead).reshape(-1).copy()
    out = np.empty(W2.shape[0])
    nk.product_rows(W2, X2, eps, bb, _MODE[bias_mode] if b is not None else 0, out)
    if np.isnan(out).any():  # cheap (one pass over the output): squares beyond the range
        return _product_reference(w, x, eps, b, bias_mode, lead, dtype)
    return out.reshape(lead).astype(dtype, copy=False)


# --- gram: the rows take (X, W, eps, b, bias_mode, method, dtype, check_finite) with validated
# arrays of one dtype; W None means W = X (the result is then made exactly symmetric without a
# bias).  Each row checks finiteness itself (the Numba expanded form through its row norms).

def _check_pair_matrices(X, W, check_finite, xp, w_name="W"):
    X = as_float_array(X, "X", ndim=2, check_finite=check_finite, xp=xp)
    if W is None:
        return X, X, True
    W = as_float_array(W, w_name, ndim=2, check_finite=check_finite, xp=xp)
    check_same_last_dim(X, W, "X", w_name)
    return X, W, False


def _check_finite_pair(X, W, same, xp):
    check_all_finite(X, "X", xp)
    if not same:
        check_all_finite(W, "W", xp)


def gram(X: Array, W: Array | None = None, eps: float | None = None, bias: Array | None = None,
         *, bias_mode: str = "inner", method: str = "auto", backend: str = "auto",
         check_finite: bool = True) -> Array:
    """The Gram matrix G[i, j] = K(X[i], W[j]), shape (B, n); W=None means W = X.

    Parameters
    ----------
    X : (B, d) array;  W : (n, d) array or None
    eps : float > 0 (required)
    bias : None, scalar or (n,) array, one per column (unit) ``W[j]``; see ``bias_mode``.
    method : "auto" | "direct" | "expanded"
        "expanded": GEMM S = X W^T, then D from the norms, repaired where it cancels (module
        docstring); "direct": sum (x_i - w_i)^2 per pair; "auto": direct for d <= DIRECT_MAX_D.
        The reference backend always uses the direct form (``_reference.gram``).
    backend : "auto" | "reference" (alias "numpy") | "numba" | "cupy" (``yatmath._registry``)

    Empty X or W give an empty (B, n) result; d = 0 gives zeros (K(w, x) = 0/eps).
    With W=None and no bias the result is exactly symmetric.  The result is in the library
    (NumPy, CuPy, PyTorch, JAX, ...) and on the device of the inputs.
    """
    if eps is None:
        raise TypeError("gram() needs eps (a float > 0); the papers leave it free, so it has no default")
    where = caller(X, W, bias)
    xp = where.module
    X, W, same = _check_pair_matrices(X, W, False, xp)
    dtype = float_dtype(xp, X, W)
    eps = check_eps(eps, np_dtype(xp, dtype))
    check_choice(method, "method", ("auto", "direct", "expanded"))
    X, W = _astype(xp, X, dtype), _astype(xp, W, dtype)
    B, n, d = X.shape[0], W.shape[0], X.shape[1]
    check_choice(bias_mode, "bias_mode", BIAS_MODES)
    b = check_bias(scalar_as_float64(where, bias), n, xp=xp, check_finite=check_finite)
    impl = choose("yat.gram", backend, where.library, size=B * n)
    check_memory(B * n * np_dtype(xp, dtype).itemsize,
                 f"the dense ({B}, {n}) Gram matrix of X and W",
                 alternative="yatmath.yat.matvec (K @ v in tiles) or gram on row tiles of X",
                 xp=xp)
    return impl(X, None if same else W, eps, b, bias_mode, _gram_method(method, d), dtype,
                check_finite)


def _gram_method(method, d):
    """"direct" or "expanded" for the ``method`` argument of ``gram`` and feature dimension d."""
    if method == "auto":
        return "direct" if d <= DIRECT_MAX_D else "expanded"
    return method


def _by_reference(fn, xp, shape, dtype, *args):
    """``fn`` of the float64 reference on host copies of ``args`` (arrays or scalars), returned
    in ``xp`` with ``shape`` and ``dtype``: the path for inputs beyond the fast paths' range."""
    host = [_array.to_host(a) for a in args]
    out = np.broadcast_to(fn(*host), shape).astype(dtype)
    return xp.asarray(out)


def _gram_beyond_range(G, X, W, eps, b, bias_mode, method, dtype, check_finite):
    """Finish step of the compiled gram rows: entries that overflowed because the inputs are
    beyond the squared-norm range (``_reference.BIG``) come from the rescaled reference."""
    W = X if W is None else W
    if not (G.shape[0] and G.shape[1]) or ref.rescale_factor(X, W) is None:
        return G                        # O((B + n) d) beside the O(B n d) of the Gram
    xp = caller(G).module
    bad = ~xp.isfinite(G)
    if bool(bad.any()):
        G = xp.where(bad, _by_reference(ref.gram, xp, G.shape, dtype, X, W, eps, b, bias_mode),
                     G)
    return G


def _mirror_numba(G, X, W, eps, b, *rest):
    """Finish step: with W = X and no bias, G exactly symmetric (a GEMM may round S[i, j] and
    S[j, i] differently); the upper triangle is copied to the lower one."""
    if W is None and b is None and G.shape[0]:
        from . import _numba_kernels as nk

        nk.mirror_upper(G)
    return G


def _mirror_cupy(G, X, W, eps, b, *rest):
    """``_mirror_numba`` on the device."""
    if W is None and b is None and G.shape[0]:
        iu = caller(G).module.triu_indices(G.shape[0], 1)
        G[iu[1], iu[0]] = G[iu]
    return G


@register("yat.gram", "reference",
          note="float64 direct form (_reference.gram), any array API library")
def _gram_reference(X, W, eps, b, bias_mode, method, dtype, check_finite):
    same = W is None
    W = X if same else W
    if check_finite:
        _check_finite_pair(X, W, same, caller(X, W).module)
    if not (X.shape[0] and W.shape[0]):
        return caller(X, W).zeros((X.shape[0], W.shape[0]), dtype)
    xp = ref.namespace(X, W)
    return xp.astype(ref.gram(X, W, eps, b, bias_mode), dtype, copy=False)


@register("yat.gram", "numba", libraries=("numpy",), device="cpu",
          finish=(_gram_beyond_range, _mirror_numba),
          note="direct form (d <= DIRECT_MAX_D) or GEMM + expanded form with repair; "
               "direct sums in float64")
def _gram_numba(X, W, eps, b, bias_mode, method, dtype, check_finite):
    import numba

    from . import _numba_blas as blas
    from . import _numba_kernels as nk

    same = W is None
    W = X if same else W
    B, n, d = X.shape[0], W.shape[0], X.shape[1]
    # The expanded form checks finiteness through the row norms it needs anyway (a finite
    # norm means a finite row; only a non-finite norm, from NaN/inf or overflow, costs a scan).
    finite_by_norms = check_finite and method == "expanded"
    if check_finite and not finite_by_norms:
        _check_finite_pair(X, W, same, np)
    if B == 0 or n == 0:
        return np.zeros((B, n), dtype=dtype)
    bfull, mode = _full_bias(b, n, bias_mode, dtype, np)
    X, W = np.ascontiguousarray(X), np.ascontiguousarray(W)
    G = np.empty((B, n), dtype=dtype)
    if method == "direct":
        nk.gram_direct(X, np.ascontiguousarray(W.T), eps, bfull, mode, G)
        return G
    xn = np.einsum("ij,ij->i", X, X)
    wn = xn if same else np.einsum("ij,ij->i", W, W)
    if finite_by_norms and not (np.isfinite(xn).all() and np.isfinite(wn).all()):
        _check_finite_pair(X, W, same, np)
    # Every GEMM here runs on Numba's threads with BLAS limited to one thread per call
    # (_numba_blas): no OpenBLAS pool thread is woken to spin beside the pass, and the limits
    # the caller had are restored on the way out.
    threads = numba.get_num_threads()
    if B * n * dtype.itemsize >= nk.TILED_MIN_BYTES[dtype]:
        # Tiles: per thread, a single-threaded GEMM into a cache-resident scratch, then the
        # expanded-form pass from there, so the dots never go through main memory.
        with single_threaded_blas():
            nk.gram_tiles(blas.GEMM[dtype], X, W, xn, wn, dtype.type(eps), bfull, mode,
                          dtype.type(REPAIR_TAU), *nk.TILE, threads, G)
    else:
        # One GEMM in row blocks (one per thread), then one in-place pass over its (cache-sized)
        # result.  Dots that overflow the dtype (float32 rows of norm > ~1.8e19) are repaired by
        # the pass (direct float64 form).
        with blas.blas_limit_for(B, n, d):
            nk.gemm_rows(blas.GEMM[dtype], X, W, threads, G)
        nk.gram_from_dots(G, X, W, xn, wn, dtype.type(eps), bfull, mode,
                          dtype.type(REPAIR_TAU), threads)
    return G


@register("yat.gram", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          finish=(_gram_beyond_range, _mirror_cupy),
          note="one numba-cuda kernel: tiled GEMM with the expanded form, its repair, the "
               "bias and the store in registers (yat/_cuda_gram)")
def _gram_cupy(X, W, eps, b, bias_mode, method, dtype, check_finite):
    from . import _cuda_gram as cg

    same = W is None
    W = X if same else W
    xp = caller(X, W).module
    if check_finite:
        _check_finite_pair(X, W, same, xp)
    B, n = X.shape[0], W.shape[0]
    if B == 0 or n == 0:
        return xp.zeros((B, n), dtype=dtype)
    bfull, mode = _full_bias(b, n, bias_mode, dtype, xp)
    tau = REPAIR_TAU if method == "expanded" else np.inf
    X = xp.ascontiguousarray(X)
    return cg.gram(X, X if same else xp.ascontiguousarray(W), eps, bfull, mode, tau)


def matvec(X: Array, Y: Array, v: Array, eps: float | None = None, bias: Array | None = None, *,
           bias_mode: str = "inner", backend: str = "auto", tile: tuple[int, int] = (1024, 4096),
           check_finite: bool = True) -> Array:
    """K(X, Y) @ v without holding the (n, m) kernel matrix.

    Parameters
    ----------
    X : (n, d);  Y : (m, d);  v : (m,) or (m, k)
    bias : None, scalar or (m,) array (one per key Y[j])
    tile : (rows, cols) of the Gram tiles used by the GEMM paths; memory O((n + m) d + rows*cols).

    Sums are accumulated in float64 on every backend; the result has the common dtype of
    X, Y and v and the trailing shape of v.
    """
    if eps is None:
        raise TypeError("matvec() needs eps (a float > 0)")
    if Y is None:
        raise TypeError("Y must be an (m, d) array (the keys); got None")
    where = caller(X, Y, v, bias)
    xp = where.module
    X, Y, _ = _check_pair_matrices(X, Y, check_finite, xp, w_name="Y")
    v = as_float_array(v, "v", ndim=(1, 2), check_finite=check_finite, xp=xp)
    if v.shape[0] != Y.shape[0]:
        raise ValueError(f"v must have {Y.shape[0]} rows (one per row of Y), got shape "
                         f"{tuple(v.shape)}")
    if not isinstance(tile, (tuple, list)) or len(tile) != 2:
        raise TypeError(f"tile must be a pair of ints (rows, cols), got {tile!r}")
    rows, cols = (check_int(t, "tile", minimum=1) for t in tile)
    dtype = float_dtype(xp, X, Y, v)
    eps = check_eps(eps, np_dtype(xp, dtype))
    X, Y = _astype(xp, X, dtype), _astype(xp, Y, dtype)
    check_choice(bias_mode, "bias_mode", BIAS_MODES)
    b = check_bias(scalar_as_float64(where, bias), Y.shape[0], xp=xp, check_finite=check_finite)
    impl = choose("yat.matvec", backend, where.library, size=X.shape[0] * Y.shape[0])
    V = v[:, None] if v.ndim == 1 else v   # not reshape(m, -1): ambiguous when m == 0
    if X.shape[0] == 0 or Y.shape[0] == 0:
        return where.zeros((X.shape[0],) + tuple(v.shape[1:]), dtype)
    out = impl(X, Y, V, eps, b, bias_mode, rows, cols)
    out = xp.reshape(out, (X.shape[0],) + tuple(v.shape[1:]))
    return _astype(xp, out, dtype)


def _matvec_beyond_range(out, X, Y, V, eps, b, bias_mode, rows, cols):
    """Finish step of the compiled matvec rows: beyond the squared-norm range
    (``_reference.BIG``) a non-finite result is recomputed by the rescaled reference."""
    if ref.rescale_factor(X, Y) is None:
        return out
    xp = caller(out).module
    if bool(xp.isfinite(out).all()):
        return out
    host = [_array.to_host(a) for a in (X, Y, V, b)]
    return xp.asarray(ref.matvec(*host[:3], eps, host[3], bias_mode))


@register("yat.matvec", "reference",
          note="float64 direct form by row chunks of the Gram matrix, any array API library")
def _matvec_reference(X, Y, V, eps, b, bias_mode, rows, cols):
    return ref.matvec(X, Y, V, eps, b, bias_mode)


@register("yat.matvec", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          finish=(_matvec_beyond_range,),
          note="numba-cuda: one thread per row of X, tiles of Y, v and the bias in shared "
               "memory, direct float64 form and sums (d + k <= 95, k <= 16); else Gram tiles "
               "and GEMMs")
def _matvec_cupy(X, Y, V, eps, b, bias_mode, rows, cols):
    from . import _cuda_kernels as ck

    xp = caller(X, Y).module
    bfull, mode = _full_bias(b, Y.shape[0], bias_mode, X.dtype, xp)
    return ck.matvec(xp.ascontiguousarray(X), xp.ascontiguousarray(Y), V, eps, bfull, mode,
                     REPAIR_TAU, rows, cols)


@register("yat.matvec", "numba", libraries=("numpy",), device="cpu",
          finish=(_matvec_beyond_range,),
          note="direct form without the matrix (d <= DIRECT_MAX_D) or Gram tiles; float64 sums")
def _matvec_numba(X, Y, V, eps, b, bias_mode, rows, cols):
    from . import _numba_kernels as nk

    bfull, mode = _full_bias(b, Y.shape[0], bias_mode, X.dtype, np)
    if X.shape[1] <= DIRECT_MAX_D:
        out = np.empty((X.shape[0], V.shape[1]))
        nk.matvec_direct(np.ascontiguousarray(X), np.ascontiguousarray(Y.T),
                         np.ascontiguousarray(V, dtype=np.float64), eps,
                         bfull.astype(np.float64), mode, out)
        return out
    out = np.zeros((X.shape[0], V.shape[1]))
    V64 = V.astype(np.float64)
    tiles = choose("yat.gram", "numba", "numpy")   # the Gram row, its finish steps included
    # T @ V on one BLAS thread: a threaded call would leave OpenBLAS's pool spinning beside the
    # next tile's Numba pass (_numba_blas)
    with single_threaded_blas():
        for j0 in range(0, Y.shape[0], cols):
            bt = None if b is None else bfull[j0:j0 + cols]
            for i0 in range(0, X.shape[0], rows):
                T = tiles(X[i0:i0 + rows], Y[j0:j0 + cols], eps, bt, bias_mode, "expanded",
                          X.dtype, False)
                out[i0:i0 + rows] += T @ V64[j0:j0 + cols]
    return out


@register("yat.ntk_gram", "reference",
          note="Monte Carlo: weights drawn on the host by NumPy's Generator (the seed rule) and "
               "moved to X's device; product, grad and the sums generic (any array API library)")
def ntk_gram(X: Array, eps: float, *, sigma: float = 1.0, n_w: int = 100_000, seed: RNGLike = 0,
             terms: bool = False, chunk: int = 50_000) -> Array | tuple[Array, Array]:
    """Monte Carlo infinite-width NTK of f(x) = sum_i a_i K(w_i, x), w_i ~ N(0, sigma^2 I).

    Returns the (n, n) matrix T1 + T2 with T1 = E_w[K(w,x) K(w,x')] and
    T2 = E_w[grad_w K(w,x) . grad_w K(w,x')] (000 Prop 6), estimated with ``n_w`` weights drawn
    from ``as_rng(seed)`` (= ``np.random.default_rng(seed)`` for an int seed) in chunks of
    ``chunk`` rows (float64).  With ``terms=True`` returns ``(T1, T2)`` instead.
    Deterministic given (X, eps, sigma, n_w, seed, chunk).  X (n, d) finite; eps, sigma > 0;
    n_w, chunk >= 1 integers.

    X may be an array of any array API library: the weights are drawn on the host with NumPy's
    Generator and moved to X's device, so one seed gives the same weights everywhere; K, grad_w K
    (the generic references) and the sums T1 = Kw^T Kw, T2 = sum_{m,d} Gw Gw run in X's library
    and the result is float64 there.  Results agree across libraries to rounding.
    """
    from .grad import grad

    where = caller(X)
    xp = where.xp
    X = _astype(xp, as_float_array(X, "X", ndim=2, xp=xp), xp.float64)
    eps = check_eps(eps)
    sigma = check_positive(sigma, "sigma")
    n_w = check_int(n_w, "n_w", minimum=1)
    chunk = check_int(chunk, "chunk", minimum=1)
    terms = check_bool(terms, "terms")
    n, d = X.shape
    check_memory(8 * (2 * n * n + 4 * min(chunk, n_w) * n * max(d, 1)),
                 f"the ({n}, {n}) NTK matrices and chunks of {min(chunk, n_w)} weights",
                 alternative="a smaller chunk", xp=where.module)
    rng = as_rng(seed, "seed")
    device = where.device
    T1 = xp.zeros((n, n), dtype=xp.float64, device=device)
    T2 = xp.zeros((n, n), dtype=xp.float64, device=device)
    Xb = xp.expand_dims(X, axis=0)                                                   # (1, n, d)
    done = 0
    while done < n_w:
        b = min(int(chunk), int(n_w) - done)
        W = xp.asarray(sigma * rng.standard_normal((b, d)), device=device)        # host draws
        Wb = xp.expand_dims(W, axis=1)                                               # (b, 1, d)
        Kw = product(Wb, Xb, eps, backend="reference")                              # (b, n)
        Gw = grad(Wb, Xb, eps).w                                                     # (b, n, d)
        T1 = T1 + Kw.T @ Kw
        T2 = T2 + xp.tensordot(Gw, Gw, axes=([0, 2], [0, 2]))
        done += b
    T1 = T1 / n_w
    T2 = T2 / n_w
    return (T1, T2) if terms else T1 + T2
