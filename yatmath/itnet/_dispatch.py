"""Registry plumbing for :mod:`yatmath.itnet`: which array library the caller uses, the standard
operations the generic references share (:func:`einsum`, :func:`asarray_like`, :func:`erfc`,
:func:`times_pow2`), and the NumPy boundary for the few operations that stay NumPy-only.

Every public ITNet operation is a row of :mod:`yatmath._registry` (op ``"itnet.<name>"``; the
evaluation modes ``"itnet.apply.<mode>"`` and ``"itnet.grad.<mode>"``).  Two kinds of reference:

* **generic** (written once against the array API standard; ``xp`` is NumPy itself for NumPy
  arrays, else the ``array_api_compat`` namespace of the inputs): GELU, the Fourier lift,
  ``Measure.integrate``, the kernel network (:class:`~yatmath.itnet.network.KernelMLP`'s methods),
  ``kernel_tensor``, ``apply_kernel_tensor``, the low-rank factors and operator, and every
  evaluation mode of ``apply`` (dense, tiled reference, Monte Carlo, low rank) and ``grad`` (dense,
  tiled reference).  The arithmetic runs in the caller's library and on its device (NumPy, CuPy,
  PyTorch, JAX, ``array_api_strict``); the NumPy float64 parameters of the operators are moved
  there at evaluation (:func:`asarray_like`, per call: no cache, so a parameter changed in place is
  never stale).  Two pieces stay on the host by design: the Monte Carlo index draw (NumPy's
  Generator, so one seed gives the same keys on every library; the (nq, nk) pmf table is copied to
  the host for it) and ``erfc`` on libraries that have none (``array_api_strict``: SciPy at the
  boundary).  CuPy's ``erfc`` is ``cupyx.scipy.special``.  Contractions are :func:`einsum`:
  ``numpy.einsum`` itself for NumPy (the results are bit for bit those of the NumPy code before
  the rewrite), pairwise ``matmul`` of permuted, reshaped operands for every other library.
* **NumPy at the boundary** (LAPACK and fit-time tools: ``svd_factors``; the constructors, which
  build NumPy float64 parameters): arrays of another library are copied to NumPy, the NumPy
  reference runs, and the results are copied back into the caller's library on the caller's
  device (:func:`call_at_boundary`).  The registry row's note says so.
"""
from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Container, Iterable, Set as AbstractSet
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from .. import _backend as be
from .._registry import choose, register
from .._typing import Array, FuncT, Namespace

#: the note of every row whose reference is NumPy inside
BOUNDARY_NOTE = ("NumPy reference: arrays of other libraries are converted to NumPy at the "
                 "boundary and the result returned in the caller's library and device")
#: the note of every row written against the array API standard
GENERIC_NOTE = "array API generic: runs in the caller's library and on its device"
#: ... for the rows that evaluate GELU (erfc: see itnet.gelu; SciPy at the boundary only for a
#: library without erfc, e.g. array_api_strict)
GELU_NOTE = GENERIC_NOTE + " (erfc as for itnet.gelu)"


def _is_array(a: object) -> bool:
    if a is None or isinstance(a, (numbers.Number, str, bytes, list, tuple, dict, np.generic)):
        return False
    if isinstance(a, np.ndarray):
        return True
    import array_api_compat

    return array_api_compat.is_array_api_obj(a)


def library_of(*arrays: Any) -> str:
    """The array library of the array arguments (``"numpy"`` for none); NumPy arrays take a fast
    path (no namespace lookup), so the dispatch adds well under a microsecond for NumPy callers."""
    arrs = [a for a in arrays if type(a) is not np.ndarray and a is not None and _is_array(a)]
    if not arrs:
        return "numpy"
    return be.library(*arrs, *(a for a in arrays if type(a) is np.ndarray))


def to_numpy(a: Any) -> npt.NDArray[Any]:
    """A NumPy copy of an array of any library (``yatmath._backend.to_host``, then a copy, so
    the NumPy code may write into it without touching the caller's buffer)."""
    return np.array(be.to_host(a), copy=True)


def back_to(result: Any, like: Array) -> Any:
    """``result`` (NumPy arrays, possibly inside tuples, lists and dicts) in the library of
    ``like`` on its device; non-array values pass through."""
    return be.to_caller(result, be.namespace(like), be.device_of(like))


def call_at_boundary(func: Callable[..., Any], args: Any, kwargs: dict[str, Any],
                     library: str) -> Any:
    """``func(*args, **kwargs)`` for NumPy arrays; for any other library (CuPy included: the
    NumPy reference cannot read device memory, and ``numpy.asarray`` of a CuPy array raises) its
    arrays are copied to the host explicitly and the result comes back in that library, on that
    array's device (``yatmath._backend.at_host_boundary``)."""
    if library == "numpy":
        return func(*args, **kwargs)
    return be.at_host_boundary(func, args, kwargs)


def operation(op: str, *, note: str = BOUNDARY_NOTE, libraries: tuple[str, ...] = ("*",),
              boundary: bool = True) -> Callable[[FuncT], FuncT]:
    """Register ``func`` as the ``reference`` of ``op`` and return the dispatched entry point.

    The entry point reads the array library of its array arguments, asks
    :func:`yatmath._registry.choose` for the implementation (``auto``: the reference is the only
    row of these operations) and runs it -- at the NumPy boundary when ``boundary``.
    """
    def deco(func: FuncT) -> FuncT:
        register(op, "reference", libraries=libraries, note=note)(func)

        @functools.wraps(func)
        def entry(*args: Any, **kwargs: Any) -> Any:
            lib = library_of(*args, *kwargs.values())
            impl = choose(op, "auto", lib)
            if boundary:
                return call_at_boundary(impl.func, args, kwargs, lib)
            return impl.func(*args, **kwargs)
        return entry  # type: ignore[return-value]  # func's signature, dispatched
    return deco


def erfc(a: Array, xp: Namespace = np) -> Array:
    """erfc elementwise in the library of ``a``: SciPy for NumPy, ``cupyx.scipy.special`` for CuPy,
    the namespace's own ``special.erfc`` where it has one (PyTorch), ``jax.scipy.special`` for JAX;
    any other library (e.g. ``array_api_strict``, which has no erfc: the standard lacks it) goes
    through SciPy at the boundary.  Accuracy: that of the library's erfc (SciPy/Cephes: a few ulps
    relative, including the tail erfc(x) ~ e^{-x^2} / (x sqrt pi))."""
    if xp is np:
        from scipy.special import erfc as f

        return f(a)
    name = be.library(a)
    if name == "cupy":
        from cupyx.scipy.special import erfc as f   # pragma: no cover - GPU only

        return f(a)
    special = getattr(xp, "special", None)
    if special is not None and hasattr(special, "erfc"):
        return special.erfc(a)
    if name == "jax":
        from jax.scipy.special import erfc as f

        return f(a)
    from scipy.special import erfc as f

    return back_to(f(to_numpy(a)), a)


def namespace(*arrays: Any) -> Namespace:
    """NumPy itself for NumPy arrays (bit-identical to the code before the array API rewrite, no
    lookup cost), else the array API namespace of the arguments."""
    for a in arrays:                       # fast path: only NumPy arrays (and None)
        if a is not None and type(a) is not np.ndarray:
            break
    else:
        return np
    arrs = [a for a in arrays if _is_array(a)]
    if all(type(a) is np.ndarray for a in arrs):
        return np
    return be.namespace(*arrs)


def asarray_like(a: Any, xp: Namespace, like: Array, dtype: Any = None) -> Array:
    """``a`` (a NumPy parameter or mask) in namespace ``xp`` on the device of ``like``, with
    ``dtype`` (a dtype of ``xp``) when given.  NumPy: ``a`` itself (or ``a`` cast to ``dtype``)."""
    if xp is np:
        return a if dtype is None else np.asarray(a, dtype=dtype)
    return xp.asarray(a, dtype=dtype, device=be.device_of(like))


def zeros(shape: tuple[int, ...], xp: Namespace, like: Array, dtype: Any = None) -> Array:
    """Zeros of ``shape`` in namespace ``xp`` on the device of ``like`` (float64 by default)."""
    if xp is np:
        return np.zeros(shape, dtype=np.float64 if dtype is None else dtype)
    return xp.zeros(shape, dtype=xp.float64 if dtype is None else dtype,
                    device=be.device_of(like))


def contiguous(a: Array, xp: Namespace) -> Array:
    """``a`` in C order for NumPy and CuPy (one memory layout: layout variants of an input give the
    same bits through BLAS and einsum); other libraries' arrays pass through."""
    if xp is np:
        return np.ascontiguousarray(a)
    if be.is_cupy_array(a):
        return be.cupy_module().ascontiguousarray(a)     # pragma: no cover - GPU only
    return a


def size(a: Array) -> int:
    """The number of elements of ``a`` (the standard's ``size`` may be None for lazy arrays)."""
    return math.prod(a.shape)


def all_finite(a: Array, xp: Namespace) -> bool:
    """True when every entry of ``a`` is finite (True for an empty array)."""
    return bool(xp.all(xp.isfinite(a)))


def times_pow2(a: Array, e: int) -> Array:
    """``a * 2**e`` for an integer ``e``, as ``numpy.ldexp(a, e)`` gives it, with standard
    arithmetic only: the power of two is formed from Python floats (exact) and applied in factors
    of at most ``2**1000``, each product exact (a power-of-two scaling) until the result overflows
    to +-inf, exactly where ``ldexp`` does.  ``e < 0`` is one multiplication by ``2.0**e``
    (``e >= -1074``: a subnormal factor is still exact), i.e. one correctly rounded product like
    ``ldexp``; below ``-1074`` the factor is 0."""
    e = int(e)
    if e < 0:
        return a * (2.0 ** e if e >= -1074 else 0.0)
    while e > 1000:
        a = a * 2.0 ** 1000
        e -= 1000
    return a * 2.0 ** e if e else a


def pow2_exponent(m: float) -> int:
    """``e`` with ``m / 2**e`` in [0.5, 1) (0 for ``m = 0``; ``math.frexp``, exact): dividing by
    ``2**e`` brings a largest magnitude ``m`` to at most 1 without rounding."""
    return math.frexp(m)[1] if m > 0 else 0


def einsum(spec: str, *operands: Array, xp: Namespace = np) -> Array:
    """``numpy.einsum(spec, *operands)`` in the library of the operands.

    NumPy: ``numpy.einsum`` itself (bit for bit the NumPy code).  Any other array API library: the
    same contraction from standard operations only (the standard has no einsum): operands are
    contracted left to right, each pair by one batched ``matmul`` of permuted and reshaped copies
    (indices in both and needed later are the batch, indices in both and not needed later are
    summed by the matmul, an index in one operand only and not needed later is summed first).
    ``spec`` must be explicit (``"ij,jk->ik"``), without ellipses or an index repeated within one
    operand.  Accuracy: a sum of products in a different order than ``numpy.einsum``: errors of
    order (number of terms) u times the sum of the terms' magnitudes, as any float sum.
    """
    if xp is np:
        return np.einsum(spec, *operands)
    if "->" not in spec or "." in spec:
        raise ValueError(f"spec must be an explicit einsum subscript 'ab,bc->ac' without "
                         f"ellipses, got {spec!r}")
    lhs, out = spec.replace(" ", "").split("->")
    subs = lhs.split(",")
    if len(subs) != len(operands):
        raise ValueError(f"spec {spec!r} names {len(subs)} operands, got {len(operands)}")
    for k, (s, o) in enumerate(zip(subs, operands)):
        if len(set(s)) != len(s) or len(s) != o.ndim:
            raise ValueError(f"operand {k} of {spec!r} has shape {tuple(o.shape)}: its subscript "
                             f"{s!r} must name each of its {o.ndim} axes once")
    cur, cs = operands[0], subs[0]
    for k in range(1, len(operands)):
        later = set(out).union(*subs[k + 1:])
        cur, cs = _contract_pair(cur, cs, operands[k], subs[k], later, xp)
    cur, cs = _sum_out(cur, cs, set(out), xp)
    order = tuple(cs.index(c) for c in out)
    return cur if order == tuple(range(len(order))) else xp.permute_dims(cur, order)


def _sum_out(a: Array, s: str, keep: Container[str], xp: Namespace) -> tuple[Array, str]:
    axes = tuple(i for i, c in enumerate(s) if c not in keep)
    if not axes:
        return a, s
    return xp.sum(a, axis=axes), "".join(c for c in s if c in keep)


def _arrange(a: Array, s: str, order: Iterable[str], xp: Namespace) -> Array:
    perm = tuple(s.index(c) for c in order)
    return a if perm == tuple(range(len(perm))) else xp.permute_dims(a, perm)


def _contract_pair(a: Array, sa: str, b: Array, sb: str, later: AbstractSet[str],
                   xp: Namespace) -> tuple[Array, str]:
    """The einsum of two operands keeping the indices in ``later``: (result, its subscript)."""
    a, sa = _sum_out(a, sa, set(sb) | later, xp)
    b, sb = _sum_out(b, sb, set(sa) | later, xp)
    dims = dict(zip(sa, a.shape))
    for c, n in zip(sb, b.shape):
        if dims.setdefault(c, n) != n:
            raise ValueError(f"index {c!r} has size {dims[c]} in one operand and {n} in another")
    batch = [c for c in sa if c in sb and c in later]
    summed = [c for c in sa if c in sb and c not in later]
    a_only = [c for c in sa if c not in sb]
    b_only = [c for c in sb if c not in sa]
    nb, nc = math.prod(dims[c] for c in batch), math.prod(dims[c] for c in summed)
    na, nbo = math.prod(dims[c] for c in a_only), math.prod(dims[c] for c in b_only)
    A = xp.reshape(_arrange(a, sa, batch + a_only + summed, xp), (nb, na, nc))
    B = xp.reshape(_arrange(b, sb, batch + summed + b_only, xp), (nb, nc, nbo))
    res = batch + a_only + b_only
    return xp.reshape(xp.matmul(A, B), tuple(dims[c] for c in res)), "".join(res)
