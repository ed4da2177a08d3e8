"""The array operations the generic ITNet references share, in the caller's array library.

:func:`xp_of` is the namespace the references are written against: NumPy itself for NumPy arrays
(the NumPy results are bit for bit those of the NumPy code before the array API rewrite), else the
array API namespace of :func:`yatmath._array.caller`.  :func:`einsum` is ``numpy.einsum`` for NumPy
and pairwise ``matmul`` elsewhere (the standard has no einsum); :func:`erfc` takes each library's
own erfc from one table (SciPy for NumPy, ``cupyx.scipy.special`` for CuPy, ``jax.scipy.special``
for JAX, the namespace's ``special.erfc`` where it has one, e.g. PyTorch; SciPy at the host
boundary for a library without one, e.g. ``array_api_strict``); :func:`times_pow2` and
:func:`pow2_exponent` are exact power-of-two scalings.  Moving the host parameters of the operators
to the caller's device is :func:`yatmath._array.parameter` / :meth:`yatmath._array.Caller.asarray`.
"""
from __future__ import annotations

import math
from collections.abc import Container, Iterable, Set as AbstractSet
from typing import Any, Callable

import numpy as np

from .. import _array
from .._typing import Array, Namespace


def _arrays(values: Any) -> list[Any]:
    """The array arguments among ``values`` (NumPy arrays and arrays of other libraries)."""
    return [v for v in values if isinstance(v, np.ndarray) or _array.is_foreign(v)]


def caller(*values: Any) -> _array.Caller:
    """:func:`yatmath._array.caller` of the array arguments among ``values`` (other values, e.g.
    the operator of a method call, are skipped)."""
    return _array.caller(*_arrays(values))


def xp_of(*arrays: Any) -> Namespace:
    """NumPy itself for NumPy arrays (bit-identical to the code before the array API rewrite, no
    lookup cost), else the array API namespace of the arguments (``None`` and non-arrays are
    skipped; arrays of two libraries raise TypeError)."""
    for a in arrays:                       # fast path: only NumPy arrays (and None)
        if a is not None and type(a) is not np.ndarray:
            break
    else:
        return np
    c = caller(*arrays)
    return c.module if c.on_host else c.xp


def contiguous(a: Array, xp: Namespace) -> Array:
    """``a`` in C order for NumPy and CuPy (one memory layout: layout variants of an input give the
    same bits through BLAS and einsum); other libraries' arrays pass through."""
    if xp is np:
        return np.ascontiguousarray(a)
    make = getattr(_array.caller(a).module, "ascontiguousarray", None)   # CuPy's own module
    return a if make is None else make(a)


def size(a: Array) -> int:
    """The number of elements of ``a`` (the standard's ``size`` may be None for lazy arrays)."""
    return math.prod(a.shape)


def all_finite(a: Array, xp: Namespace) -> bool:
    """True when every entry of ``a`` is finite (True for an empty array)."""
    return bool(xp.all(xp.isfinite(a)))


# --- erfc: each library's own, from one table -------------------------------------------------

def _scipy_erfc() -> Callable[[Array], Array]:
    from scipy.special import erfc as f

    return f   # type: ignore[no-any-return]


def _cupy_erfc() -> Callable[[Array], Array]:   # pragma: no cover - GPU only
    from cupyx.scipy.special import erfc as f

    return f   # type: ignore[no-any-return]


def _jax_erfc() -> Callable[[Array], Array]:
    from jax.scipy.special import erfc as f

    return f   # type: ignore[no-any-return]


#: the erfc of each array library that has one outside its array API namespace
_ERFC: dict[str, Callable[[], Callable[[Array], Array]]] = {
    "numpy": _scipy_erfc, "cupy": _cupy_erfc, "jax": _jax_erfc}


def _erfc_elsewhere(a: Array, xp: Namespace) -> Array:
    """The namespace's own ``special.erfc`` (PyTorch), else SciPy at the host boundary (e.g.
    ``array_api_strict``, which has no erfc: the standard lacks it)."""
    special = getattr(xp, "special", None)
    if special is not None and hasattr(special, "erfc"):
        return special.erfc(a)
    return _array.at_host_boundary(_scipy_erfc(), (a,), {})


def erfc(a: Array, xp: Namespace = np) -> Array:
    """erfc elementwise in the library of ``a`` (the table :data:`_ERFC`, else the namespace's
    ``special.erfc``, else SciPy at the host boundary).  Accuracy: that of the library's erfc
    (SciPy/Cephes: a few ulps relative, including the tail erfc(x) ~ e^{-x^2} / (x sqrt pi))."""
    if xp is np:
        return _scipy_erfc()(a)
    load = _ERFC.get(_array.caller(a).library)
    return _erfc_elsewhere(a, xp) if load is None else load()(a)


# --- exact power-of-two scaling and the contractions ------------------------------------------

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
