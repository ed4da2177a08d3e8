"""Registry plumbing for :mod:`yatmath.itnet`: which array library the caller uses, the NumPy
boundary for the operations whose reference is NumPy-only, and ``erfc`` on any array library.

Every public ITNet operation is a row of :mod:`yatmath._registry` (op ``"itnet.<name>"``; the
evaluation modes ``"itnet.apply.<mode>"`` and ``"itnet.grad.<mode>"``).  Two kinds of reference:

* **generic** (written against the array API standard: :func:`~yatmath.itnet.network.gelu`,
  :func:`~yatmath.itnet.network.gelu_prime`, :func:`~yatmath.itnet.network.fourier_lift`,
  :meth:`~yatmath.itnet.measures.Measure.integrate`): the arithmetic runs in the caller's library
  and on its device;
* **NumPy at the boundary** (the kernel network, the operators and every evaluation mode: they use
  ``np.einsum``, SciPy's ``erfc`` and the power-of-two rescaling ``frexp``/``ldexp`` of the
  overflow repair, none of which the standard has): arrays of another library (PyTorch, JAX,
  ``array_api_strict``) are copied to NumPy, the float64/float32 NumPy reference runs, and the
  results are copied back into the caller's library on the caller's device
  (:func:`call_at_boundary`).  The registry row's note says so.  NumPy and CuPy arrays are never
  converted (CuPy runs where the code has a CuPy path, e.g. ``mode="tiled"``).
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import _backend as be
from .._registry import choose, register

#: the note of every row whose reference is NumPy inside
BOUNDARY_NOTE = ("NumPy reference: arrays of other libraries are converted to NumPy at the "
                 "boundary and the result returned in the caller's library and device")
_NATIVE = ("numpy", "cupy")


def _is_array(a) -> bool:
    if a is None or isinstance(a, (numbers.Number, str, bytes, list, tuple, dict, np.generic)):
        return False
    if isinstance(a, np.ndarray):
        return True
    import array_api_compat

    return array_api_compat.is_array_api_obj(a)


def library_of(*arrays) -> str:
    """The array library of the array arguments (``"numpy"`` for none); NumPy arrays take a fast
    path (no namespace lookup), so the dispatch adds well under a microsecond for NumPy callers."""
    arrs = [a for a in arrays if type(a) is not np.ndarray and a is not None and _is_array(a)]
    if not arrs:
        return "numpy"
    return be.library(*arrs, *(a for a in arrays if type(a) is np.ndarray))


def to_numpy(a):
    """A NumPy copy of an array of any library (``yatmath._backend.to_host``, then a copy, so
    the NumPy code may write into it without touching the caller's buffer)."""
    return np.array(be.to_host(a), copy=True)


def back_to(result, like):
    """``result`` (NumPy arrays, possibly inside tuples, lists and dicts) in the library of
    ``like`` on its device; non-array values pass through."""
    return be.to_caller(result, be.namespace(like), be.device_of(like))


def call_at_boundary(func, args, kwargs, library: str):
    """``func(*args, **kwargs)``; for a library other than NumPy/CuPy, its arrays go in as NumPy
    and the result comes back in that library (``yatmath._backend.at_host_boundary``)."""
    if library in _NATIVE:
        return func(*args, **kwargs)
    return be.at_host_boundary(func, args, kwargs)


def operation(op: str, *, note: str = BOUNDARY_NOTE, libraries=("*",), boundary: bool = True):
    """Register ``func`` as the ``reference`` of ``op`` and return the dispatched entry point.

    The entry point reads the array library of its array arguments, asks
    :func:`yatmath._registry.choose` for the implementation (``auto``: the reference is the only
    row of these operations) and runs it -- at the NumPy boundary when ``boundary``.
    """
    def deco(func):
        register(op, "reference", libraries=libraries, note=note)(func)

        @functools.wraps(func)
        def entry(*args, **kwargs):
            lib = library_of(*args, *kwargs.values())
            impl = choose(op, "auto", lib)
            if boundary:
                return call_at_boundary(impl.func, args, kwargs, lib)
            return impl.func(*args, **kwargs)
        return entry
    return deco


def erfc(a, xp=np):
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


def namespace(*arrays):
    """NumPy itself for NumPy arrays (bit-identical to the code before the array API rewrite, no
    lookup cost), else the array API namespace of the arguments."""
    arrs = [a for a in arrays if _is_array(a)]
    if all(type(a) is np.ndarray for a in arrs):
        return np
    return be.namespace(*arrs)


def asarray_like(a, xp, like):
    """``a`` (a NumPy parameter) in namespace ``xp`` on the device of ``like``."""
    if xp is np:
        return a
    import array_api_compat

    return xp.asarray(a, device=array_api_compat.device(like))
