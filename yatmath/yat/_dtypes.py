"""The working dtype of :mod:`yatmath.yat`'s operations: which float dtype a result has, that dtype
as a NumPy dtype, casting to it without a copy, and Python scalars kept in float64.

Which library and device the arguments come from is :func:`yatmath._array.caller`; the functions
here take its ``module`` (NumPy, CuPy, or another library's array API namespace) as ``xp``.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import _array
from .._typing import Array, Namespace


def np_dtype(xp: Namespace, dtype: Any) -> np.dtype[Any]:
    """The NumPy dtype of the float dtype ``dtype`` of namespace ``xp`` (float32 or float64)."""
    if isinstance(dtype, np.dtype):
        return dtype
    return np.dtype(np.float32) if dtype == xp.float32 else np.dtype(np.float64)


def float_dtype(xp: Namespace, *arrays: Array | None) -> Any:
    """float32 when every non-None array is float32, else float64, as a dtype of ``xp`` (a NumPy
    dtype for NumPy and CuPy arrays)."""
    dts = [a.dtype for a in arrays if a is not None]
    dt = xp.float32 if dts and all(d == xp.float32 for d in dts) else xp.float64
    return np.dtype(dt) if isinstance(dts[0] if dts else None, np.dtype) or xp is np else dt


def astype(xp: Namespace, a: Array, dtype: Any) -> Array:
    """``a`` in ``dtype`` (no copy when it already is): the array's own ``astype`` for NumPy
    arrays and for ``xp`` the CuPy module, else the array API ``astype`` of ``xp``."""
    if isinstance(a, np.ndarray) or xp is _array.cupy_module():
        return a.astype(dtype, copy=False)
    return xp.astype(a, dtype, copy=False)


def scalar_as_float64(caller: _array.Caller, value: Any) -> Any:
    """A Python real ``value`` as a float64 0-d array in the library and on the device of
    ``caller`` (so a library whose default float is float32, e.g. PyTorch, does not round it);
    anything else, and every value for NumPy and CuPy callers, unchanged."""
    if (caller.on_host or caller.module is _array.cupy_module() or isinstance(value, bool)
            or not isinstance(value, numbers.Real)):
        return value
    return caller.xp.asarray(float(value), dtype=caller.xp.float64, device=caller.device)


def scalar_in(xp: Namespace, value: float, dtype: Any) -> Any:
    """The Python float ``value`` as a multiplier of arrays of ``dtype``: rounded to ``dtype``
    for ``xp`` NumPy or CuPy (a NumPy scalar of that dtype), else ``value`` itself (the other
    libraries' Python scalars take the array's dtype)."""
    if xp is np or xp is _array.cupy_module():
        return dtype.type(value)
    return value
