"""Shared input checks: shapes, dtypes, finiteness, eps.

Every public function validates through these helpers so that a bad argument always produces the
same kind of message: the argument's name, what it was, and what was expected.

Dtype rule: float32 and float64 are kept; integers and booleans become float64; the common dtype
of several arrays is float32 only when all of them are float32. Anything else (complex, object,
strings, float16) is a ``TypeError``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._backend import array_module

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _kind_ok(dtype: np.dtype) -> bool:
    return dtype in _FLOATS or dtype.kind in "biu"


def as_float_array(a, name: str, *, ndim=None, check_finite: bool = True, xp=None):
    """Return ``a`` as a float32/float64 array of the right dimensionality, or raise.

    ``ndim`` is an int or a tuple of allowed ints.
    """
    if a is None:
        raise TypeError(f"{name} must be an array, got None")
    xp = xp or array_module(a)
    arr = xp.asarray(a)
    if not _kind_ok(arr.dtype):
        raise TypeError(
            f"{name} must be a real float32/float64 (or integer) array, got dtype {arr.dtype}"
        )
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(f"{k}-D" for k in allowed)
            raise ValueError(f"{name} must be {want}, got an array of shape {tuple(arr.shape)}")
    if check_finite:
        check_all_finite(arr, name, xp)
    return arr


def check_all_finite(arr, name: str, xp=np) -> None:
    """Raise ValueError naming ``name`` if the array holds a NaN or an infinity."""
    if arr.size and not bool(xp.isfinite(arr).all()):
        raise ValueError(
            f"{name} contains NaN or infinity; pass check_finite=False to skip this check"
        )


def common_dtype(*arrays) -> np.dtype:
    """float32 when every non-None array is float32, else float64."""
    dts = [a.dtype for a in arrays if a is not None]
    return np.dtype(np.float32) if dts and all(d == np.float32 for d in dts) else np.dtype(np.float64)


def check_eps(eps, dtype=np.float64, name: str = "eps") -> float:
    """eps must be a finite real > 0 that stays > 0 and finite in ``dtype``."""
    if isinstance(eps, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name} must be a real number, got {eps!r}")
    if not isinstance(eps, numbers.Real):
        try:
            eps = float(np.asarray(eps).item())
        except Exception:
            raise TypeError(f"{name} must be a real number, got {eps!r}") from None
    eps = float(eps)
    if not np.isfinite(eps) or eps <= 0.0:
        raise ValueError(f"{name} must be finite and > 0, got {eps!r}")
    info = np.finfo(dtype)
    with np.errstate(over="ignore", under="ignore"):
        cast = np.asarray(eps, dtype=dtype)
    if cast == 0 or not np.isfinite(cast):
        raise ValueError(
            f"{name}={eps!r} is not representable in {np.dtype(dtype).name} "
            f"(range [{info.smallest_subnormal:.3g}, {info.max:.3g}]); use float64 inputs"
        )
    return eps


def check_same_last_dim(a, b, name_a: str, name_b: str) -> None:
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same last dimension (the feature dimension d), "
            f"got {name_a}.shape={tuple(a.shape)} and {name_b}.shape={tuple(b.shape)}"
        )


def check_bias(bias, n: int, name: str = "bias", *, xp=np, check_finite: bool = True):
    """``None``, a scalar, or a 1-D array of length ``n``; returned as an array or ``None``."""
    if bias is None:
        return None
    b = as_float_array(bias, name, ndim=(0, 1), check_finite=check_finite, xp=xp)
    if b.ndim == 1 and b.shape[0] != n:
        raise ValueError(f"{name} must be a scalar or have length {n}, got shape {tuple(b.shape)}")
    return b


def check_choice(value, name: str, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
