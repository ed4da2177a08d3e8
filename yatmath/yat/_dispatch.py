"""Registry plumbing for :mod:`yatmath.yat`: the array library of the arguments and its module.

Every public operation of ``yatmath.yat`` is a row of :mod:`yatmath._registry` (op
``"yat.<name>"``).  The public function validates its arguments once with the module
:func:`array_xp` returns, then runs ``choose(op, backend, library, size=...).func``.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import _backend as be
from .._typing import Array, Namespace


def array_xp(*arrays: Any) -> tuple[str, Namespace]:
    """(library, xp) for the array arguments: ``("numpy", numpy)`` for NumPy arrays, lists,
    scalars and None (a fast path: no namespace lookup), ``("cupy", cupy)`` for CuPy arrays, else
    the library's name and its array API namespace (``array_api_compat``)."""
    if all(a is None or isinstance(a, (np.ndarray, np.generic, numbers.Number, list, tuple))
           for a in arrays):
        return "numpy", np
    xp = be.array_module(*arrays)
    if xp is not np:
        return "cupy", xp
    xp = be.namespace(*arrays)
    lib = be.library(*arrays)
    if lib == "numpy":
        return "numpy", np
    return lib, xp


def np_dtype(xp: Namespace, dtype: Any) -> np.dtype[Any]:
    """The NumPy dtype of the float dtype ``dtype`` of namespace ``xp`` (float32 or float64)."""
    if isinstance(dtype, np.dtype):
        return dtype
    return np.dtype(np.float32) if dtype == xp.float32 else np.dtype(np.float64)


def float_dtype(xp: Namespace, *arrays: Array | None) -> Any:
    """float32 when every non-None array is float32, else float64, as a dtype of ``xp``."""
    dts = [a.dtype for a in arrays if a is not None]
    dt = xp.float32 if dts and all(d == xp.float32 for d in dts) else xp.float64
    return np.dtype(dt) if isinstance(dts[0] if dts else None, np.dtype) or xp is np else dt


def astype(xp: Namespace, a: Array, dtype: Any) -> Array:
    """``a`` in ``dtype`` (no copy when it already is), for NumPy, CuPy or any array API ``xp``."""
    if xp is np or getattr(xp, "__name__", "") == "cupy":
        return a.astype(dtype, copy=False)
    return xp.astype(a, dtype, copy=False)


def scalar_as_float64(xp: Namespace, value: Any, like: Array) -> Any:
    """A Python real ``value`` as a float64 0-d array of ``xp`` on the device of ``like`` (so a
    library whose default float is float32, e.g. PyTorch, does not round it); anything else, and
    every value for NumPy and CuPy, unchanged."""
    if (xp is np or getattr(xp, "__name__", "") == "cupy" or isinstance(value, bool)
            or not isinstance(value, numbers.Real)):
        return value
    import array_api_compat

    return xp.asarray(float(value), dtype=xp.float64, device=array_api_compat.device(like))
