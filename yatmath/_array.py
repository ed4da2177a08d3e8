"""Array plumbing: which array library the caller uses, where its arrays live, and the one policy
for moving arrays between the host and a device.

In the manner of SciPy's ``scipy/_lib/_array_api.py`` and POT's ``ot.backend.get_backend``: a
public function calls :func:`caller` once on its array arguments and gets a :class:`Caller`
(library name, namespaces, device).  Everything else here is the host boundary that every
subpackage shares:

* :func:`to_host` / :func:`to_caller` / :func:`at_host_boundary`: a NumPy-only piece run on arrays
  of any library (arrays in as NumPy, every NumPy array of the result back in the caller's library
  on its device).  NumPy input takes a fast path: one type check per argument, no copy.
* :func:`to_device` / :func:`device_round_trip`: an explicit ``backend="cupy"`` on host (NumPy)
  input copies the inputs to the device, runs there and copies the result back -- a property of
  the registry row (``Implementation.host_input``), applied by :mod:`yatmath._registry`, never by a
  public function.
* :func:`parameter`: a host (NumPy float64) parameter of an object -- a feature map's frequencies,
  a domain's bounds, an operator's weights -- in the caller's library and on its device.  A
  read-only parameter (frozen at construction) is copied once per (library, device) and cached on
  its owner; a writeable one is copied at every call, so a parameter changed in place is never
  stale.  NumPy callers get the parameter itself.

Foundation module: imports only ``_typing``.
"""
from __future__ import annotations

import dataclasses
import functools
import importlib.util
import numbers
from typing import Any, Callable

import numpy as np

from ._typing import Array, Namespace

# --- the compiled backends' libraries -------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def has_numba() -> bool:
    """Whether Numba is installed (the ``"numba"`` rows can run)."""
    return importlib.util.find_spec("numba") is not None


@functools.lru_cache(maxsize=None)
def cupy_module() -> Any:
    """The ``cupy`` module when it imports and sees a CUDA device, else ``None``."""
    if importlib.util.find_spec("cupy") is None:
        return None
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # CuPy installed without a driver or device
        return None


def has_cupy() -> bool:
    """Whether CuPy imports and sees a CUDA device (the ``"cupy"`` rows can run)."""
    return cupy_module() is not None


# --- what an argument is ---------------------------------------------------------------------------

_PLAIN = (np.ndarray, np.generic, int, float, complex, bool, str, bytes, list, tuple, dict,
          type(None))


def is_cupy(a: object) -> bool:
    """True for a CuPy array."""
    return type(a).__module__.startswith("cupy")


def is_foreign(v: object) -> bool:
    """True for an array of an array library other than NumPy (CuPy, PyTorch, JAX, ...)."""
    if isinstance(v, _PLAIN):
        return False
    import array_api_compat

    return array_api_compat.is_array_api_obj(v)


def library_name(xp: Any) -> str:
    """The array library of a namespace: ``numpy``, ``cupy``, ``torch``, ``jax``,
    ``array_api_strict`` or the namespace's top-level module name."""
    name = getattr(xp, "__name__", type(xp).__name__)
    if name.startswith("array_api_compat."):
        name = name.split(".", 1)[1]
    if name.startswith("jax"):
        return "jax"
    return name.split(".")[0]


def namespace(*arrays: Any) -> Namespace:
    """The array API namespace of the array arguments (``array_api_compat.array_namespace``; the
    compat NumPy namespace for NumPy arrays).

    ``None``, Python scalars, lists and tuples are ignored (they become NumPy arrays where they
    are converted); with no array argument the namespace is NumPy's.  Mixed libraries raise
    TypeError naming them.
    """
    import array_api_compat

    arrs = [a for a in arrays if a is not None and not isinstance(a, (bool, int, float, complex,
                                                                       list, tuple))]
    if all(isinstance(a, np.ndarray) for a in arrs):
        import array_api_compat.numpy as xp_np

        return xp_np
    try:
        return array_api_compat.array_namespace(*arrs)
    except TypeError as exc:
        raise TypeError("the array arguments must come from one array library, got "
                        + ", ".join(sorted({type(a).__module__.split('.')[0] + '.' +
                                            type(a).__name__ for a in arrs}))
                        + f" ({exc})") from None


def device_of(a: Array) -> Any:
    """The device of ``a`` (``array_api_compat.device``); ``"cpu"`` for NumPy arrays."""
    if isinstance(a, (np.ndarray, np.generic)):
        return "cpu"
    import array_api_compat

    return array_api_compat.device(a)


# --- the caller: one inspection of the arguments ---------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Caller:
    """Where a call's arrays come from.

    library  ``"numpy"``, ``"cupy"``, ``"torch"``, ``"jax"``, ``"array_api_strict"``, ...
    xp       the array API namespace (``array_api_compat.numpy`` for NumPy): what generic
             references are written against
    module   the library's own module where yatmath uses it directly (``numpy``, ``cupy``),
             else ``xp``: what NumPy/CuPy-specific code (compiled kernels, BLAS) calls
    device   the arrays' device (``"cpu"`` for NumPy)
    dtype    the float dtype of the result as a NumPy dtype: float32 when every array argument
             with a dtype is float32, else float64 (integers and lists become float64)
    """

    library: str
    xp: Namespace
    module: Namespace
    device: Any
    dtype: np.dtype[Any]

    @property
    def on_host(self) -> bool:
        """True for NumPy arrays (and for calls with no array argument)."""
        return self.library == "numpy"

    def dtype_of(self) -> Any:
        """``dtype`` as a dtype of ``module`` (a NumPy dtype for NumPy and CuPy)."""
        if self.library in ("numpy", "cupy"):
            return self.dtype
        return self.module.float32 if self.dtype == np.float32 else self.module.float64

    def asarray(self, host: Any, dtype: Any = None, *, copy: bool | None = None) -> Array:
        """A host (NumPy) array in this library and on this device (NumPy: ``host`` itself, or
        cast to ``dtype``).  ``copy=True`` never shares the host buffer (a CPU library such as
        PyTorch would otherwise wrap it, and warn when it is read-only)."""
        if self.on_host:
            return host if dtype is None else np.asarray(host, dtype=dtype)
        return self.xp.asarray(host, dtype=dtype, device=self.device, copy=copy)

    def zeros(self, shape: tuple[int, ...], dtype: Any = None) -> Array:
        """Zeros of ``shape`` in this library on this device (``dtype`` default: ``self.dtype``)."""
        dtype = self.dtype_of() if dtype is None else dtype
        if self.library in ("numpy", "cupy"):
            return self.module.zeros(shape, dtype=dtype)
        return self.xp.zeros(shape, dtype=dtype, device=self.device)


_F32 = np.dtype(np.float32)
_NUMPY_CALLERS: dict[bool, Caller] = {}


def _numpy_caller(f32: bool) -> Caller:
    """The NumPy :class:`Caller` (float32 or float64), built once."""
    c = _NUMPY_CALLERS.get(f32)
    if c is None:
        import array_api_compat.numpy as xp_np

        c = _NUMPY_CALLERS[f32] = Caller("numpy", xp_np, np, "cpu",
                                         np.dtype(np.float32 if f32 else np.float64))
    return c


def caller(*args: Any) -> Caller:
    """The :class:`Caller` of the array arguments ``args`` (``None``, scalars, lists and tuples are
    ignored: they become NumPy arrays where they are converted).

    NumPy arrays take a fast path (a type check and a dtype comparison per argument, no namespace
    lookup: well under a microsecond for a few arguments).  Arrays of two libraries raise
    TypeError naming them.
    """
    f32, seen = True, False
    for a in args:                                   # fast path: NumPy arrays and plain values
        if type(a) is np.ndarray:
            seen = True
            if a.dtype != _F32:
                f32 = False
        elif not (a is None or isinstance(a, (numbers.Number, list, tuple, str, bytes))):
            break
    else:
        return _numpy_caller(seen and f32)
    arrs = [a for a in args if a is not None and not isinstance(a, (numbers.Number, list, tuple,
                                                                     str, bytes))]
    f32 = all(str(getattr(a, "dtype", "")).rsplit(".", 1)[-1] == "float32" for a in arrs)
    if all(isinstance(a, (np.ndarray, np.generic)) for a in arrs):
        return _numpy_caller(f32)
    xp = namespace(*arrs)
    lib = library_name(xp)
    if lib == "numpy":        # NumPy arrays mixed with NumPy scalars
        return _numpy_caller(f32)
    module = cupy_module() if lib == "cupy" else xp
    return Caller(lib, xp, module, device_of(arrs[0]), np.dtype(np.float32 if f32 else np.float64))


# --- the host boundary -----------------------------------------------------------------------------

def to_host(a: Any) -> Any:
    """The values of ``a`` as a NumPy array (NumPy arrays and non-arrays pass through; lists and
    tuples have their foreign arrays converted): CuPy by ``.get()``, PyTorch by
    ``.detach().cpu()``, others by DLPack (``numpy.from_dlpack``)."""
    if isinstance(a, (list, tuple)):
        return type(a)(to_host(v) for v in a) if any(is_foreign(v) for v in a) else a
    if not is_foreign(a):
        return a
    if is_cupy(a):
        return a.get()
    if type(a).__module__.startswith("torch"):
        return a.detach().cpu().numpy()
    try:
        return np.from_dlpack(a)
    except (TypeError, RuntimeError, BufferError, AttributeError):
        return np.asarray(a)


def as_float64(a: Any) -> Array:
    """``a`` as float64 in its own array library and on its device, without a copy when it
    already is float64 (NumPy arrays, scalars and lists become NumPy arrays).  A library without
    float64 (JAX with x64 off) raises its own TypeError/ValueError."""
    if not is_foreign(a):
        return np.asarray(a, dtype=np.float64)
    return astype(a, namespace(a).float64)


def astype(a: Array, dtype: Any) -> Array:
    """``a`` (an array of any library) as ``dtype`` in its library, without a copy when it
    already is.  CuPy arrays between float32 and float64 are converted by a numba-cuda kernel
    (``yatmath._cuda_cast``): CuPy's own ``astype`` flushes float32 subnormals to 0, as operands
    and as results."""
    if is_cupy(a):
        from ._cuda_cast import cast

        return cast(a, dtype)
    xp = namespace(a)
    return xp.astype(a, dtype, copy=False)


def to_caller(result: Any, xp: Namespace, device: Any) -> Any:
    """``result`` with every NumPy array in it (also inside tuples, lists, dicts and
    dataclasses) converted to the namespace ``xp`` on ``device``; scalars stay scalars."""
    if isinstance(result, np.ndarray):
        return xp.asarray(result, device=device)
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*(to_caller(r, xp, device) for r in result))
    if isinstance(result, tuple):
        return tuple(to_caller(r, xp, device) for r in result)
    if isinstance(result, list):
        return [to_caller(r, xp, device) for r in result]
    if isinstance(result, dict):
        return {k: to_caller(v, xp, device) for k, v in result.items()}
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.replace(result, **{
            f.name: to_caller(getattr(result, f.name), xp, device)
            for f in dataclasses.fields(result) if f.init})
    return result


def _caller_of(values: Any) -> tuple[Namespace, Any] | None:
    """(namespace, device) of the first foreign array among ``values`` (searching lists and
    tuples), or ``None`` when there is none."""
    for v in values:
        if isinstance(v, (list, tuple)):
            found = _caller_of(v)
            if found is not None:
                return found
        elif is_foreign(v):
            return namespace(v), device_of(v)
    return None


def at_host_boundary(func: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``func(*args, **kwargs)``; when an argument is an array of another library, its arrays go
    in as NumPy and the result comes back in that library, on that array's device."""
    where = _caller_of(list(args) + list(kwargs.values()))
    if where is None:
        return func(*args, **kwargs)
    args = [to_host(a) for a in args]
    kwargs = {k: to_host(v) for k, v in kwargs.items()}
    return to_caller(func(*args, **kwargs), *where)


def to_device(a: Any) -> Any:
    """A CuPy copy of a NumPy array (``None``, scalars and other values pass through; lists and
    tuples have their NumPy arrays copied)."""
    if isinstance(a, (list, tuple)):
        return type(a)(to_device(v) for v in a)
    if isinstance(a, np.ndarray):
        return cupy_module().asarray(a)
    return a


def from_device(result: Any) -> Any:
    """``result`` with every CuPy array in it (also inside tuples, lists, dicts and dataclasses)
    copied to the host as NumPy arrays."""
    if is_cupy(result):
        return result.get()
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*(from_device(r) for r in result))
    if isinstance(result, (tuple, list)):
        return type(result)(from_device(r) for r in result)
    if isinstance(result, dict):
        return {k: from_device(v) for k, v in result.items()}
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.replace(result, **{f.name: from_device(getattr(result, f.name))
                                              for f in dataclasses.fields(result) if f.init})
    return result


def device_round_trip(func: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``func`` run on the device for host arguments: NumPy arrays among ``args``/``kwargs`` are
    copied to the device, ``func`` runs there, and every device array of the result comes back to
    the host (NumPy in, NumPy out).  Arguments already on the device pass straight through."""
    if not any(isinstance(a, np.ndarray) or (isinstance(a, (list, tuple)) and any(
            isinstance(v, np.ndarray) for v in a)) for a in list(args) + list(kwargs.values())):
        return func(*args, **kwargs)
    args = [to_device(a) for a in args]
    kwargs = {k: to_device(v) for k, v in kwargs.items()}
    return from_device(func(*args, **kwargs))


# --- host parameters on the caller's device --------------------------------------------------------

def parameter(owner: object, a: Any, like: Caller | Array, dtype: Any = None) -> Any:
    """The host parameter ``a`` of ``owner`` (a NumPy array or a Python scalar) in the library and
    on the device of ``like`` (a :class:`Caller` or an array), cast to ``dtype`` when given.

    NumPy callers get ``a`` itself (or ``a`` cast).  For another library a read-only ``a`` is
    copied once per (library, device, dtype) and cached on ``owner`` (keyed by the identity of
    ``a``, so reassigning the attribute makes a fresh copy); a writeable ``a`` is copied at every
    call, so changing it in place is never missed.  Python scalars pass through.
    """
    where = like if isinstance(like, Caller) else caller(like)
    if isinstance(a, numbers.Number) or where.on_host:
        return a if dtype is None or isinstance(a, numbers.Number) else np.asarray(a, dtype=dtype)
    if not isinstance(a, np.ndarray) or a.flags.writeable:
        return where.asarray(a, dtype)
    cache = owner.__dict__.setdefault("_device_copies", {})
    key = (id(a), where.library, str(where.device), str(dtype))
    hit = cache.get(key)
    if hit is None or hit[0] is not a:
        hit = cache[key] = (a, where.asarray(a, dtype, copy=True))
    return hit[1]
