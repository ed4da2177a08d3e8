"""The NMN (Yat) layer: forward and full backward (Y3, Y4).

Forward, for inputs X (B, d), units W (n, d), an optional bias c (scalar or (n,)) and eps:

    s   = (base)^alpha,  base = n / ln(1 + n)  (scale_num="n", as printed in 000/002)
                         base = sqrt(n) / ln(1 + n)  (scale_num="sqrt_n", as in public nmn code)
    H   = gram(X, W, eps, c, bias_mode)           # (S + c)^2 / D  or  S^2 / D + c
    Y   = s * H            (reduce=None)   or   s * H.sum(axis=1)   (reduce="sum", 000 printed form)

with S = X W^T and D = ||x_i||^2 + ||w_j||^2 - 2 S + eps.  The Gram matrix comes from
``yatmath.yat.gram``, so the layer inherits its Numba and CuPy paths and its repair of D where
the expanded form cancels (x_i close to w_j).

Backward, given G = dL/dY, with Gk = s G (broadcast over units when reduce="sum"),
N = S + c (inner bias) or S, and r = N / D:

    P  = Gk * 2 r (1 + r)                # d(N^2/D)/dS, N and D both depend on S
    Q  = -Gk * r^2                       # d(N^2/D)/d||x_i||^2 = d(N^2/D)/d||w_j||^2 = d/d eps
    dX = P W + 2 diag(Q 1) X             # the second term is the path through ||x_i||^2
    dW = P^T X + 2 diag(Q^T 1) W         # ... and through ||w_j||^2
    deps = sum(Q);  dc = sum_i Gk * 2r (inner)  or  sum_i Gk (outer)
    dalpha = ln(base) * sum(G * Y)       # ds/dalpha = s ln(base)

Everything is written through r = N/D (never N^2 or D^2), so nothing overflows where the
gradients are finite.  The backward recomputes S with one GEMM (the forward keeps only Y) and D
from the expanded form, recomputing N and D from the direct form in float64 wherever
t = ||x||^2 + ||w||^2 - 2 S is below ``REPAIR_TAU`` times ||x||^2 + ||w||^2 (the rule of
``kernel.gram``, so the backward sees the N and D the forward saw, up to the rounding of the
GEMM's dots).  Paths:

* Numba (the default for NumPy arrays on CPU): one fused pass per cache-sized tile
  (``_numba_layer.layer_backward_tiles``): a single-threaded GEMM per thread writes the tile's
  dots, the pass turns them into P / (2 s) in place while summing Q by rows and columns (in the
  dtype over 1024 columns or one tile's rows, then float64), the bias gradient and sum(Gk H)
  (for dalpha), and two more GEMMs with alpha = 2 s add P W and P^T X.  The threads split the
  larger of the batch and the units; the other side's partial sums are added at the end.  P
  never goes through main memory: three GEMMs, one read of G and O((B + n) d) besides.  The
  GEMMs are NumPy's own OpenBLAS where its wheel has one (``_numba_blas.layer_gemm``: the
  kernels of the X @ W.T it is measured against), else SciPy's.  benchmarks/bench_layer.py
  measures 3.0-3.35 times a GEMM X @ W.T of the same shape (2 cores, float32 and float64,
  medians of 3 runs; 3.0-3.56 before those two changes, the array-expression path 4.7-11).
* CuPy: one cuBLAS GEMM, one elementwise kernel (the same rule, in double), two cuBLAS GEMMs.
* Reference (``backend="numpy"``/``"reference"`` at the forward, array libraries other than
  NumPy and CuPy, inputs beyond 2^480, or empty shapes): the same formulas as array
  expressions, written once against the array API standard (``_pair_backward_reference``), in
  the working dtype, on the arrays' device; the pairs that cancel are taken from the float64
  direct form and placed by ``_put_pairs`` (in place for NumPy and CuPy, by a searchsorted
  select elsewhere).  NumPy runs it through array_api_compat's namespace: the same operations in
  the same order as the NumPy-only code it replaced, so bit-identical.  The fused paths are
  tested against it.

Accuracy: the forward has the error bound of ``kernel.gram``.  Each entry of dX, dW is a GEMM
of P against W or X plus a diagonal term, so its error is O((n + d) u) times
sum_j |P_ij| ||w_j|| + 2 |Q_i| ||x_i|| (u the unit roundoff of the working dtype) plus the
error of r, which is O((d + 4) u (cond + 8)) relative with cond as in ``kernel``.  Near a
coincident pair (x_i = w_j (1 + delta), r >> 1) the two terms P w - 2 q x = 2 Gk r w + 2 Gk r^2
(w - x) cancel to O(delta) of their size, so that pair's contribution has relative error
~ u / max(delta, 1/r): intrinsic to the GEMM form, on every path.  Tested: float64 against the
pairwise closed form of ``grad`` to 1e-12 normwise (separated data) and 64 d u / delta (near-
coincident), against finite differences to 1e-7; float32 within 50 (d + 4) u32 of float64.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _array
from .._array import caller
from .._registry import canonical, choose, register
from .._typing import Array, Namespace
from .._validate import (
    as_float_array,
    check_all_finite,
    check_bias,
    check_choice,
    check_eps,
    check_int,
    check_memory,
    check_real,
    check_same_last_dim,
)
from . import _reference as _ref
from ._dtypes import astype as _astype
from ._dtypes import float_dtype, np_dtype, scalar_as_float64, scalar_in
from ._reference import needs_repair
from .kernel import _MODE, BIAS_MODES, REPAIR_TAU, _gram_method

__all__ = ["layer_forward", "layer_backward", "width_scale", "LayerCache", "LayerGrads"]

SCALE_NUMS = ("n", "sqrt_n")
REDUCES = (None, "sum")
#: Pairs per chunk when D is recomputed from the direct form (bounds the (pairs, d) temporary).
_REPAIR_CHUNK_ELEMS = 1 << 22


def width_scale(n: int, alpha: float = 1.0, *, scale_num: str = "n") -> tuple[float, float]:
    """(s, ln(base)) with s = base^alpha, base = n/ln(1+n) ("n") or sqrt(n)/ln(1+n) ("sqrt_n").

    Check value (Y4): n = 10, alpha = 1 gives s = 10/ln 11 = 4.1703.  ds/dalpha = s ln(base).
    n >= 1 an integer (the number of units; 2.0 is refused, not rounded), alpha finite.  s is
    inf where base^alpha exceeds the float64 range (a true overflow).
    """
    n = check_int(n, "n", minimum=1)
    alpha = check_real(alpha, "alpha")
    check_choice(scale_num, "scale_num", SCALE_NUMS)
    num = float(n) if scale_num == "n" else math.sqrt(n)
    log_base = math.log(num) - math.log(math.log1p(n))
    e = alpha * log_base
    return (math.exp(e) if e < 709.78 else math.inf), log_base


def squared_distance(X: Array, W: Array, S: Array, eps: float, xp: Namespace) -> Array:
    """D = ||x_i||^2 + ||w_j||^2 - 2 S_ij + eps for S = X W^T, repaired where it cancels.

    Where ||x||^2 + ||w||^2 - 2 s < REPAIR_TAU (||x||^2 + ||w||^2) (or is NaN) the pair is
    recomputed from the direct form sum (x - w)^2 in float64, as ``kernel.gram`` does; the result
    is therefore >= eps everywhere and has relative error O(d u / REPAIR_TAU).  ``xp``: the
    array API namespace of X, W, S (in-place operators only on the arrays made here).
    """
    xn = xp.sum(X * X, axis=1)
    wn = xp.sum(W * W, axis=1)
    D = xp.expand_dims(xn, axis=1) + xp.expand_dims(wn, axis=0)
    flag = needs_repair(S, D, REPAIR_TAU)   # the rule of kernel.gram; then in-place passes only
    D -= 2.0 * S
    D += eps
    ii, jj = xp.nonzero(flag)
    m = int(ii.shape[0])
    if m:
        step = max(1, _REPAIR_CHUNK_ELEMS // max(1, X.shape[1]))
        vals = []
        for k0 in range(0, m, step):
            i, j = ii[k0:min(k0 + step, m)], jj[k0:min(k0 + step, m)]
            diff = (xp.astype(xp.take(X, i, axis=0), xp.float64)
                    - xp.astype(xp.take(W, j, axis=0), xp.float64))
            vals.append(xp.astype(xp.sum(diff * diff, axis=1) + eps, D.dtype))
        D = _put_pairs(D, ii, jj, vals[0] if len(vals) == 1 else xp.concat(vals), xp)
    return D


def _put_pairs(D, ii, jj, vals, xp):
    """D with D[ii[k], jj[k]] = vals[k] for distinct (ii, jj) in row-major order (as
    ``xp.nonzero`` returns them).  NumPy and CuPy assign in place (D is the caller's own
    temporary); other libraries, which the standard gives no scatter, select each entry's value
    through the sorted linear indices ii n + jj (``xp.searchsorted``), O(B n log m)."""
    if isinstance(D, np.ndarray) or _array.is_cupy(D):
        D[ii, jj] = vals
        return D
    B, n = D.shape
    lin = ii * n + jj
    pos = xp.arange(B * n, dtype=lin.dtype, device=_array.device_of(D))
    k = xp.clip(xp.searchsorted(lin, pos), max=int(lin.shape[0]) - 1)
    flat = xp.where(xp.take(lin, k) == pos, xp.take(vals, k), xp.reshape(D, (B * n,)))
    return xp.reshape(flat, (B, n))


def pair_backward(X: Array, W: Array, eps: float, Gk: Array, c: Array | None = None,
                  bias_mode: str = "inner", *,
                  backend: str = "auto") -> tuple[Array, Array, Array | None, Array]:
    """Y3 backward of H = gram(X, W, eps, c) for dL/dH = Gk: (dX, dW, dc, deps).

    Validated arrays of one dtype and library only (the public entry point is
    ``layer_backward``); also used by ``attention_backward`` with X -> Q, W -> K and no bias.
    Gk may be (B, n) or (B, 1) (one value per row).  ``backend``: "numpy" / "reference" take the
    array API reference, "auto" the fused Numba or CuPy pass where the inputs' library has one
    (the rows of ``yat.layer_backward`` in ``yatmath._registry``).
    """
    return _pair_backward(X, W, eps, Gk, 1.0, c, bias_mode, backend)[:4]


def _pair_backward(X, W, eps, G, scale, c, bias_mode, backend):
    """(dX, dW, dc, deps, gh) for dL/dH = scale * G, with gh = sum(scale * G * H) (for
    dL/dalpha); G (B, n) or (B, 1): the registry row of ``yat.layer_backward`` for ``backend``
    and the arrays' library."""
    impl = choose("yat.layer_backward", backend, caller(X, W, G).library,
                  size=X.shape[0] * W.shape[0])
    return impl(X, W, eps, G, scale, c, bias_mode)


def _bias_grad(dcol, c, xp):
    """The bias gradient from its per-unit sums: (n,), or summed for a scalar bias."""
    return xp.sum(dcol) if c.ndim == 0 else dcol


@register("yat.layer_backward", "reference",
          note="array expressions written once against the array API (any library, on its "
               "device), in the working dtype: GEMM dots, expanded D with the pairs that cancel "
               "taken from the float64 direct form; the oracle of the fused passes")
def _pair_backward_reference(X, W, eps, G, scale, c, bias_mode):
    """The backward as array expressions (module docstring), for arrays of any array API
    library: the readable reference the fused Numba and CuPy passes are tested against.  NumPy
    and CuPy run it through array_api_compat's namespace (the same operations as plain NumPy,
    in place where the arrays are its own temporaries)."""
    xp = _array.namespace(X, W, G)
    if isinstance(X, np.ndarray):  # a non-finite G (checked by the caller through the result)
        with np.errstate(invalid="ignore"):  # warns nothing
            return _pair_backward_arrays(X, W, eps, G, scale, c, bias_mode, xp)
    return _pair_backward_arrays(X, W, eps, G, scale, c, bias_mode, xp)


def _pair_backward_arrays(X, W, eps, G, scale, c, bias_mode, xp):
    B, n = X.shape[0], W.shape[0]
    Gk = G * scale            # a Python float: the product is in G's dtype (s rounded to it)
    if tuple(Gk.shape) != (B, n):
        Gk = xp.broadcast_to(Gk, (B, n))
    S = X @ W.T
    D = squared_distance(X, W, S, eps, xp)
    if c is not None and bias_mode == "inner":
        S += c                # N = S + c
    r = S / D
    gh = xp.sum(Gk * r * S)   # sum Gk N^2 / D
    if c is not None and bias_mode == "outer":
        gh = gh + xp.sum(xp.sum(Gk, axis=0) * c)
    del D, S
    dc = None
    if c is not None:
        dc = _bias_grad(2.0 * xp.sum(Gk * r, axis=0) if bias_mode == "inner"
                        else xp.sum(Gk, axis=0), c, xp)
    Q = r * r
    P = r
    P += Q
    P *= Gk
    P *= 2.0                  # P = 2 Gk r (1 + r)
    Q *= Gk
    Q *= -1.0                 # Q = -Gk r^2
    qx, qw = xp.sum(Q, axis=1), xp.sum(Q, axis=0)
    dX = P @ W + 2.0 * xp.expand_dims(qx, axis=1) * X
    dW = P.T @ X + 2.0 * xp.expand_dims(qw, axis=1) * W
    deps = xp.sum(qx)
    return dX, dW, dc, deps, gh


@register("yat.layer_backward", "numba", libraries=("numpy",), device="cpu",
          note="per cache-sized tile one GEMM, one fused pass (P, its row and column sums, the "
               "repair of the reference), two GEMMs; sums over tiles in float64")
def _pair_backward_fused_numba(X, W, eps, G, scale, c, bias_mode):
    """The fused tiled Numba backward; the reference for empty shapes and for entries beyond
    the reference's range (``_reference.BIG``)."""
    if X.shape[0] and W.shape[0] and X.shape[1]:
        out = _pair_backward_numba(X, W, eps, G, scale, c, bias_mode)
        if out is not None:
            return out
    return _pair_backward_reference(X, W, eps, G, scale, c, bias_mode)


def _pair_backward_numba(X, W, eps, G, scale, c, bias_mode):
    """The fused tiled Numba backward (``_numba_layer.layer_backward_tiles``); None when the
    inputs have entries beyond the reference's range (``_reference.BIG``; seen in the norms)."""
    import numba

    from . import _numba_blas as blas
    from . import _numba_layer as nl

    dt = X.dtype
    X, W, G = np.ascontiguousarray(X), np.ascontiguousarray(W), np.ascontiguousarray(G)
    B, d = X.shape
    n = W.shape[0]
    mode = 0 if c is None else _MODE[bias_mode]
    bfull = np.zeros(n, dt) if c is None else np.ascontiguousarray(np.broadcast_to(c, (n,)), dt)
    bin_ = bfull if mode == 1 else np.zeros(n, dt)   # N = S + bin_
    rows, cols = nl.BACKWARD_TILE
    by_cols = n > B   # split the larger side over the threads; the other is summed after
    parts = max(1, min(numba.get_num_threads(), n if by_cols else B))
    shared = (B if by_cols else n) * d
    scratch_bytes = dt.itemsize * ((parts - 1) * shared + parts * rows * min(cols, n))
    if scratch_bytes > 64 << 20:
        check_memory(scratch_bytes, f"the per-thread tiles and partial sums ({parts} threads) of "
                     "the layer backward", alternative="fewer Numba threads (numba.set_num_threads)")
    dX, dW = np.empty((B, d), dt), np.empty((n, d), dt)
    qxt, hxt = np.zeros((parts, B)), np.zeros((parts, B))
    qwt, dct = np.zeros((parts, n)), np.zeros((parts, n))
    gemm, iproto = blas.layer_gemm(dt)
    with blas.blas_limit_for(min(rows, B), min(cols, n), d):  # the largest GEMM of a tile
        ok = nl.layer_backward_tiles(gemm, iproto, X, W, G, dt.type(eps), bin_, mode,
                                     dt.type(REPAIR_TAU), float(scale), _ref.BIG ** 2, rows,
                                     cols, parts, by_cols, dX, dW,
                                     np.empty((parts - 1, B if by_cols else n, d), dt),
                                     qxt, hxt, qwt, dct)
    if not ok:  # entries beyond the reference's range (_reference.BIG): not for this path
        return None
    # the pass sums without the width scale s (the GEMMs take it in their alpha): apply it here
    qx, dcol = scale * qxt.sum(axis=0), scale * dct.sum(axis=0)
    dc = None
    gh = scale * float(hxt.sum())
    if c is not None:
        if mode == 2:  # sum Gk H = sum Gk N^2 / D + sum_j c_j sum_i Gk_ij
            gh += float(dcol @ bfull.astype(np.float64))
        dc = _bias_grad(2.0 * dcol if mode == 1 else dcol, c, np).astype(dt)
    return dX, dW, dc, dt.type(-qx.sum()), gh


@register("yat.layer_backward", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          note="cuBLAS GEMM, one numba-cuda pass (the reference's repair, in double), two "
               "cuBLAS GEMMs in float64 (float32: widened and rounded once by kernels, "
               "subnormals kept)")
def _pair_backward_fused_cupy(X, W, eps, G, scale, c, bias_mode):
    """The fused CuPy backward; the reference for empty shapes and entries beyond 2^480."""
    if X.shape[0] and W.shape[0] and X.shape[1] and _ref.rescale_factor(X, W) is None:
        return _pair_backward_cupy(X, W, eps, G, scale, c, bias_mode)
    return _pair_backward_reference(X, W, eps, G, scale, c, bias_mode)


def _pair_backward_cupy(X, W, eps, G, scale, c, bias_mode):
    """The CuPy backward: one cuBLAS GEMM, the fused numba-cuda pass, two cuBLAS GEMMs.  Written
    against the module of X (``_cuda.array_module``), so under numba-cuda's simulator the same
    code runs on NumPy arrays (``tests/yat/test_cuda_kernels.py``).

    After the pass everything is float64: float32 pass outputs and inputs are widened by the
    cast kernel (``yatmath._cuda_cast``) and the gradients rounded to float32 once by it, since
    CuPy's own float32 array code (its ``astype``, products and sums) flushes subnormals.  For
    float64 the casts are the arrays themselves.  The cost in float32: float64 GEMMs and a
    float64 copy of the (B, n) pass outputs."""
    from .. import _cuda
    from .._cuda_cast import cast
    from . import _cuda_kernels as ck

    cp = _cuda.array_module(X)
    dt = X.dtype
    X, W = cp.ascontiguousarray(X), cp.ascontiguousarray(W)
    n = W.shape[0]
    mode = 0 if c is None else _MODE[bias_mode]
    # a fresh (n,) copy: the kernel takes a writable contiguous array (the simulator writes its
    # arguments back, so a read-only broadcast view would not do there)
    bfull = cp.zeros(n, dt) if c is None else cast(cp.ascontiguousarray(
        cp.broadcast_to(c, (n,))), dt).copy()
    P, q, dcp, gh = (cast(a, np.float64) for a in ck.backward_pass(X, W, G, eps, bfull, mode,
                                                                   REPAIR_TAU, scale))
    X64, W64 = cast(X, np.float64), cast(W, np.float64)
    qx, qw = q.sum(axis=1), q.sum(axis=0)
    dX = cast(P @ W64 - (2.0 * qx)[:, None] * X64, dt)
    dW = cast(P.T @ X64 - (2.0 * qw)[:, None] * W64, dt)
    dc = None
    if c is not None:
        dcol = dcp.sum(axis=0)
        dc = cast(cp.asarray(_bias_grad(2.0 * dcol if mode == 1 else dcol, c, cp)), dt)
    return dX, dW, dc, cast(cp.asarray(-qx.sum()), dt), float(gh.sum())


@dataclass
class LayerCache:
    """What ``layer_backward`` needs: the validated inputs, the options, s and the output."""

    X: Array
    W: Array
    eps: float
    bias: Array | None
    alpha: float
    s: float
    log_base: float
    bias_mode: str
    reduce: str | None
    Y: Array
    single: bool  # X was 1-D
    backend: str = "auto"  # the forward's backend (registry name): the backward runs its row


class LayerGrads(NamedTuple):
    """dL/dX, dL/dW, dL/dbias (None without a bias), dL/dalpha, dL/deps."""

    X: Array
    W: Array
    bias: Array | None
    alpha: float
    eps: float


@register("yat.layer_forward", "reference",
          note="any array API library, on its device: H from yat.gram (its backend=: Numba or "
               "CuPy for NumPy or CuPy arrays, else the float64 direct-form reference) times s")
def layer_forward(X: Array, W: Array, eps: float, bias: Array | None = None, alpha: float = 1.0,
                  *, bias_mode: str = "inner", scale_num: str = "n", reduce: str | None = None,
                  backend: str = "auto", check_finite: bool = True,
                  return_cache: bool = False) -> Array | tuple[Array, LayerCache]:
    """The NMN layer h_j(x) = s g(x; w_j, c_j), s = (n / ln(1+n))^alpha (module docstring).

    Parameters
    ----------
    X : (B, d) or (d,);  W : (n, d), the n units
    eps : float > 0;  bias : None, scalar or (n,), one per unit
    alpha : float, the width-scale exponent (learnable; init 1)
    bias_mode : "inner" (bias inside the square, 000 Thm 4) or "outer" (K + b, 002 §3.4.1)
    scale_num : "n" (printed) or "sqrt_n";  reduce : None ((B, n) output) or "sum" ((B,) output)
    backend : passed to ``gram``;  return_cache : also return a ``LayerCache`` for the backward

    Returns Y, or (Y, cache) with ``return_cache=True``.  Y has shape (B, n) / (B,), or (n,) /
    () when X is 1-D, in the common dtype of X and W, in their array library (NumPy, CuPy,
    PyTorch, JAX, any array API library) and on their device.
    """
    where = caller(X, W, bias)
    xp = where.module
    X = as_float_array(X, "X", ndim=(1, 2), check_finite=check_finite, xp=xp)
    W = as_float_array(W, "W", ndim=2, check_finite=check_finite, xp=xp)
    single = X.ndim == 1
    X2 = xp.expand_dims(X, axis=0) if single else X
    check_same_last_dim(X2, W, "X", "W")
    dtype = float_dtype(xp, X2, W)
    eps = check_eps(eps, np_dtype(xp, dtype))
    check_choice(bias_mode, "bias_mode", BIAS_MODES)
    check_choice(reduce, "reduce", REDUCES)
    n = W.shape[0]
    if n == 0:
        raise ValueError("W must have at least one unit (row), got shape (0, d)")
    s, log_base = width_scale(n, alpha, scale_num=scale_num)
    c = check_bias(scalar_as_float64(where, bias), n, xp=xp, check_finite=check_finite)
    c = None if c is None else _astype(xp, c, dtype)
    X2, W = _astype(xp, X2, dtype), _astype(xp, W, dtype)
    B, d = X2.shape
    # H = gram(X2, W, eps, c): its row, called with the arguments validated here
    impl = choose("yat.gram", backend, where.library, size=B * n)
    check_memory(B * n * np_dtype(xp, dtype).itemsize,
                 f"the dense ({B}, {n}) Gram matrix of X and W",
                 alternative="yatmath.yat.matvec (K @ v in tiles) or gram on row tiles of X",
                 xp=xp)
    H = impl(X2, W, eps, c, bias_mode, _gram_method("auto", d), dtype, False)
    # s rounded to the dtype, then one product per entry
    Yfull = H * scalar_in(xp, s, dtype)
    Y = xp.sum(Yfull, axis=1) if reduce == "sum" else Yfull
    out = _first(Y) if single else Y
    if not return_cache:
        return out
    cache = LayerCache(X=X2, W=W, eps=eps, bias=c, alpha=float(alpha), s=s, log_base=log_base,
                       bias_mode=bias_mode, reduce=reduce, Y=Yfull, single=single,
                       backend=canonical(backend))
    return out, cache


def _first(Y):
    """Y[0] (the one row of a 1-D input): a NumPy scalar for a 1-D NumPy Y, as NumPy indexes;
    ``Y[0, ...]`` for the other libraries (some index strictly)."""
    return Y[0] if isinstance(Y, np.ndarray) else Y[0, ...]


def layer_backward(G: Array, cache: LayerCache, *, check_finite: bool = True) -> LayerGrads:
    """dL/dX, dL/dW, dL/dbias, dL/dalpha, dL/deps of the NMN layer, given G = dL/dY (Y3, Y4).

    ``G`` has the shape of the forward output.  Includes every term through the norms (the
    2 diag(.) X and 2 diag(.) W terms) and through alpha (dY/dalpha = ln(base) Y).  dX has the
    shape of the forward X (1-D stays 1-D); dbias has the shape of the bias (scalar or (n,)).
    The arrays are in the forward's array library and on its device (G is converted to it);
    the implementation is the ``yat.layer_backward`` registry row for the forward's backend
    (``LayerCache.backend``: "reference" the array API reference, "numba" / "cupy" the fused
    pass, "auto" the fused Numba or CuPy pass for NumPy or CuPy arrays and the reference for
    other libraries).  ``check_finite``: a G holding
    NaN or inf raises ValueError.  It is checked through the result, at no cost for a finite G:
    a non-finite G_ij makes dL/deps = -s sum G r^2 non-finite (inf * 0 is NaN), and only then
    is G scanned.
    """
    if not isinstance(cache, LayerCache):
        raise TypeError(f"cache must be the LayerCache returned by layer_forward(..., "
                        f"return_cache=True), got {type(cache).__name__}")
    X, W, Yfull = cache.X, cache.W, cache.Y
    xp = caller(X, W).module
    G = as_float_array(G, "G", check_finite=False, xp=xp)
    B, n = Yfull.shape
    want: tuple[int, ...] = (B,) if cache.reduce == "sum" else (B, n)
    if cache.single:
        want = want[1:]
    if tuple(G.shape) != want:
        raise ValueError(f"G must have the shape of the layer output {want}, got {tuple(G.shape)}")
    G = _astype(xp, G, Yfull.dtype)
    if cache.single:
        G = xp.expand_dims(G, axis=0)
    if cache.reduce == "sum":
        G = xp.reshape(G, (B, 1))
    dX, dW, dc, deps, gh = _pair_backward(X, W, cache.eps, G, cache.s, cache.bias,
                                          cache.bias_mode, cache.backend)
    deps, gh = float(deps), float(gh)
    if check_finite and not (math.isfinite(deps) and math.isfinite(gh)):
        check_all_finite(G, "G", xp)
    if cache.single:
        dX = _first(dX)
    return LayerGrads(X=dX, W=dW, bias=dc, alpha=cache.log_base * gh, eps=deps)
