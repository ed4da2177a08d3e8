"""Shared input checks: shapes, dtypes, finiteness, eps.

Every public function validates through these helpers so that a bad argument always produces the
same kind of message: the argument's name, what it was, and what was expected.

Dtype rule: float32 and float64 are kept; integers and booleans become float64; the common dtype
of several arrays is float32 only when all of them are float32. Anything else (complex, object,
strings, float16) is a ``TypeError``.
"""
from __future__ import annotations

import math
import numbers
import operator
import os
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

from ._array import caller, namespace
from ._typing import Array, Namespace, RNGLike

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _kind_ok(dtype: np.dtype) -> bool:
    return dtype in _FLOATS or dtype.kind in "biu"


def namespace_of(a: Any) -> Namespace:
    """The module that converts ``a``: NumPy for NumPy arrays, lists and scalars, CuPy for CuPy
    arrays, else the array API namespace of ``a`` (PyTorch, JAX, ``array_api_strict``, ...);
    ``_array.Caller.module``."""
    if isinstance(a, (np.ndarray, np.generic, list, tuple, numbers.Number)):
        return np
    import array_api_compat

    if not array_api_compat.is_array_api_obj(a):
        return np
    return caller(a).module


def _dtype_class(xp: Namespace, dtype: Any) -> str | None:
    """"float" for float32/float64, "int" for integer or bool dtypes, None otherwise."""
    if isinstance(dtype, np.dtype):
        return "float" if dtype in _FLOATS else ("int" if dtype.kind in "biu" else None)
    if dtype in (xp.float32, xp.float64):
        return "float"
    if xp.isdtype(dtype, ("integral", "bool")):
        return "int"
    return None


def as_float_array(a: Any, name: str, *, ndim: int | tuple[int, ...] | None = None,
                   check_finite: bool = True, xp: Namespace | None = None) -> Array:
    """Return ``a`` as a float32/float64 array of the right dimensionality, or raise.

    ``ndim`` is an int or a tuple of allowed ints.  Arrays of any array API library stay in
    their library and on their device (``xp`` defaults to :func:`namespace_of`); integer and
    bool arrays become float64.
    """
    if a is None:
        raise TypeError(f"{name} must be an array, got None")
    xp = xp or namespace_of(a)
    arr = xp.asarray(a)
    kind = _dtype_class(xp, arr.dtype)
    if kind is None:
        raise TypeError(
            f"{name} must be a real float32/float64 (or integer) array, got dtype {arr.dtype}"
        )
    if kind == "int":
        arr = arr.astype(np.float64) if isinstance(arr.dtype, np.dtype) else xp.astype(
            arr, xp.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(f"{k}-D" for k in allowed)
            raise ValueError(f"{name} must be {want}, got an array of shape {tuple(arr.shape)}")
    if check_finite:
        check_all_finite(arr, name, xp)
    return arr


def check_all_finite(arr: Array, name: str, xp: Namespace = np) -> None:
    """Raise ValueError naming ``name`` if the array holds a NaN or an infinity."""
    if math.prod(arr.shape) and not bool(xp.all(xp.isfinite(arr))):
        raise ValueError(f"{name} contains NaN or infinity; a finite array was expected "
                         "(where the function has a check_finite option, check_finite=False "
                         "skips this check)")


def float_dtype(xp: Namespace, *arrays: Array | None) -> Any:
    """``xp.float32`` when every non-None array is float32, else ``xp.float64`` (the dtype rule
    of the module docstring, for any array API namespace)."""
    dts = [a.dtype for a in arrays if a is not None]
    return xp.float32 if dts and all(d == xp.float32 for d in dts) else xp.float64


def check_eps(eps: Any, dtype: npt.DTypeLike = np.float64, name: str = "eps") -> float:
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


def check_same_last_dim(a: Array, b: Array, name_a: str, name_b: str) -> None:
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same last dimension (the feature dimension d), "
            f"got {name_a}.shape={tuple(a.shape)} and {name_b}.shape={tuple(b.shape)}"
        )


def check_bias(bias: Any, n: int, name: str = "bias", *, xp: Namespace = np,
               check_finite: bool = True) -> Array | None:
    """``None``, a scalar, or a 1-D array of length ``n``; returned as an array or ``None``."""
    if bias is None:
        return None
    b = as_float_array(bias, name, ndim=(0, 1), check_finite=check_finite, xp=xp)
    if b.ndim == 1 and b.shape[0] != n:
        raise ValueError(f"{name} must be a scalar or have length {n}, got shape {tuple(b.shape)}")
    return b


def check_choice(value: Any, name: str, choices: Any) -> Any:
    """``value`` if it is one of ``choices`` (compared with ==), else ValueError listing them."""
    try:
        ok = value in choices
    except TypeError:  # unhashable value against a set
        ok = False
    if not ok or isinstance(value, (bool, np.bool_)) and not any(c is value for c in choices):
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


# --- scalars, options, sizes ---------------------------------------------------------------------

def check_int(value: Any, name: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """``value`` as a Python int, or raise.

    Integral types only (``int``, NumPy integers, anything with ``__index__``): a float such as
    ``3.0`` or ``2.5`` is refused rather than rounded, and so is a bool.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
            out = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {out!r}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}, got {out!r}")
    return int(out)


def check_real(value: Any, name: str, *, gt: float | None = None, ge: float | None = None,
               lt: float | None = None, le: float | None = None,
               finite: bool = True) -> float:
    """``value`` as a Python float within the stated bounds, or raise.

    ``gt``/``ge``/``lt``/``le`` are the strict and non-strict bounds; ``finite=False`` lets
    ``inf`` through (NaN is always refused).
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not isinstance(value, numbers.Real):
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a real number, got {value!r}")
        value = arr.item()
    v = float(value)
    if np.isnan(v) or (finite and not np.isfinite(v)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    for bound, ok, word in ((gt, lambda b: v > b, ">"), (ge, lambda b: v >= b, ">="),
                            (lt, lambda b: v < b, "<"), (le, lambda b: v <= b, "<=")):
        if bound is not None and not ok(bound):
            raise ValueError(f"{name} must be {word} {bound}, got {value!r}")
    return v


def check_positive(value: Any, name: str, *, finite: bool = True) -> float:
    """A real number > 0 (a step, a bandwidth, a temperature)."""
    return check_real(value, name, gt=0.0, finite=finite)


def check_callable(value: Any, name: str) -> Any:
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {type(value).__name__} {value!r}")
    return value


def check_nonempty(arr: Array, name: str, *, axis: int = 0, what: str = "rows") -> None:
    """Raise ValueError naming ``name`` when ``arr`` has no entries along ``axis``."""
    if arr.ndim == 0 or arr.shape[axis] == 0:
        raise ValueError(f"{name} must have at least one {what[:-1] if what.endswith('s') else what}"
                         f", got an array of shape {tuple(arr.shape)}")


def check_shape(arr: Array, name: str, shape: tuple[int | None, ...]) -> None:
    """``shape`` is a tuple of ints and ``None`` (any length on that axis)."""
    ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
    if not ok:
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {want}, got {tuple(arr.shape)}")


# --- distributions and matrices with a documented structure --------------------------------------

def check_pmf(p: Any, name: str, *, n: int | None = None, xp: Namespace | None = None) -> Array:
    """A probability vector: 1-D, entries >= 0, summing to 1 within rounding.

    The sum (taken in float64) is accepted when ``|sum - 1| <= 8 n u`` with ``u`` the unit
    roundoff of the vector's own dtype: normalising a vector of length n in that dtype leaves a
    sum error of about n u.
    """
    q = as_float_array(p, name, ndim=1, xp=xp)
    xp = namespace(q)       # the array API namespace of q's library (any library)
    if q.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty probability vector, got length 0")
    if n is not None and q.shape[0] != n:
        raise ValueError(f"{name} must have length {n}, got length {q.shape[0]}")
    if bool(xp.any(q < 0)):
        raise ValueError(f"{name} must have entries >= 0, got a minimum of {float(xp.min(q))!r}")
    total = float(xp.sum(xp.astype(q, xp.float64)))
    if abs(total - 1.0) > 8 * q.shape[0] * xp.finfo(q.dtype).eps:
        raise ValueError(f"{name} must sum to 1 (a probability vector), got sum {total!r}")
    return q


def check_density(rho: Any, name: str, *, xp: Namespace | None = None) -> Array:
    """A density on a grid: finite, entries >= 0, positive total mass."""
    r = as_float_array(rho, name, xp=xp)
    xp = namespace(r)       # the array API namespace of r's library (any library)
    if math.prod(r.shape) == 0:
        raise ValueError(f"{name} must be a non-empty density, got shape {tuple(r.shape)}")
    if bool(xp.any(r < 0)):
        raise ValueError(f"{name} must be >= 0 everywhere (a density), got a minimum of "
                         f"{float(xp.min(r))!r}")
    if not float(xp.sum(r)) > 0:
        raise ValueError(f"{name} must have positive total mass, got all zeros")
    return r


def check_psd(A: Any, name: str, *, rtol: float | None = None) -> Array:
    """A symmetric positive semidefinite matrix, up to rounding; returned as a float array.

    Accepted when ``||A - A^T||_max <= rtol ||A||_max`` and ``lambda_min >= -rtol n ||A||_2``
    with ``rtol = 64 u`` (``u`` the unit roundoff of A's dtype) unless given: the eigenvalues of a
    PSD matrix computed in floating point are off by about ``n u ||A||_2``.
    """
    M = as_float_array(A, name, ndim=2)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {tuple(M.shape)}")
    rtol = 64 * np.finfo(M.dtype).eps if rtol is None else rtol
    Mh = np.asarray(M.get() if hasattr(M, "get") else M, dtype=np.float64)
    scale = float(np.abs(Mh).max()) if Mh.size else 0.0
    if scale and float(np.abs(Mh - Mh.T).max()) > rtol * scale:
        raise ValueError(f"{name} must be symmetric (documented as PSD), got "
                         f"max |A - A^T| = {float(np.abs(Mh - Mh.T).max()):.3g}")
    if Mh.size:
        lam = np.linalg.eigvalsh(0.5 * (Mh + Mh.T))
        if lam[0] < -rtol * Mh.shape[0] * max(abs(lam[-1]), abs(lam[0])):
            raise ValueError(f"{name} must be positive semidefinite, got an eigenvalue "
                             f"{lam[0]:.3g} (largest {lam[-1]:.3g})")
    return M


@overload
def check_bool(value: Any, name: str, *, allow_none: Literal[False] = False) -> bool: ...


@overload
def check_bool(value: Any, name: str, *, allow_none: bool) -> bool | None: ...


def check_bool(value: Any, name: str, *, allow_none: bool = False) -> bool | None:
    """``value`` as a Python bool (a flag such as ``causal``), or raise TypeError.

    Only ``True``/``False`` (and NumPy bools) are flags: a string such as ``"nope"`` or ``"no"``,
    an int or an array is refused rather than read by its truthiness.  ``allow_none`` lets
    ``None`` through (for "choose the default" flags) and returns it unchanged.
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        want = "True, False or None" if allow_none else "True or False"
        raise TypeError(f"{name} must be {want}, got {value!r}")
    return bool(value)


# --- randomness ----------------------------------------------------------------------------------

def as_rng(rng: RNGLike, name: str = "rng") -> np.random.Generator:
    """The one seed rule of yatmath.

    ``rng`` may be ``None`` (fresh entropy), a non-negative integer seed, a
    ``numpy.random.SeedSequence`` or a ``numpy.random.Generator`` (used as is, so a caller's
    stream continues).  Anything else, a bool or a negative seed included, is refused.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be None, a non-negative integer seed, a "
                        f"numpy.random.SeedSequence or a numpy.random.Generator, got {rng!r}")
    if rng < 0:
        raise ValueError(f"{name} must be a non-negative integer seed, got {rng!r}")
    return np.random.default_rng(int(rng))


# --- size before memory ----------------------------------------------------------------------------

def available_memory(xp: Namespace = np) -> int | None:
    """Bytes the process may still allocate: free device memory for CuPy, else the host's
    ``MemAvailable`` (``None`` where the platform does not say; other libraries' devices are
    not queried, so they get the host's figure)."""
    if getattr(xp, "__name__", "").split(".")[0] == "cupy":
        free, _total = xp.cuda.Device().mem_info
        return int(free)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(nbytes: int, what: str, *, alternative: str | None = None,
                 xp: Namespace = np) -> None:
    """Refuse up front (``MemoryError``) when ``what`` needs more than the memory available.

    ``alternative`` names the memory-free route (e.g. ``"yat.matvec"``) for the message.
    """
    avail = available_memory(xp)
    if avail is not None and nbytes > avail:
        hint = f"; {alternative} computes the same without storing it" if alternative else ""
        raise MemoryError(f"{what} needs {_human_bytes(nbytes)} but only "
                          f"{_human_bytes(avail)} is available{hint}")


def _human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"
