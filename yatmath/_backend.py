"""Backend selection: which implementation runs, and where its result lives.

Backends
--------
``"numpy"``  the plain float64 NumPy reference (readable, the oracle)
``"numba"``  parallel, cached Numba kernels on the CPU
``"cupy"``   CuPy kernels on a CUDA GPU
``"auto"``   ``"cupy"`` when the inputs are CuPy arrays, else ``"numba"`` when Numba imports,
             else ``"numpy"``

The result of an operation lives where its inputs live: CuPy in, CuPy out.
"""
from __future__ import annotations

import functools
import importlib.util
import os
from typing import Any, Callable

import numpy as np

from ._threads import THREAD_VARIABLES, WAIT_VARIABLES
from ._typing import Array, Namespace

BACKENDS = ("auto", "numpy", "numba", "cupy")


@functools.lru_cache(maxsize=None)
def has_numba() -> bool:
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
    return cupy_module() is not None


def is_cupy_array(a: object) -> bool:
    return type(a).__module__.startswith("cupy")


def array_module(*arrays: Any) -> Namespace:
    """``cupy`` if any argument is a CuPy array, else ``numpy``."""
    for a in arrays:
        if a is not None and is_cupy_array(a):
            return cupy_module()
    return np


def namespace(*arrays: Any) -> Namespace:
    """The array API namespace of the array arguments (``array_api_compat.array_namespace``).

    ``None``, Python scalars, lists and tuples are ignored (they become NumPy arrays where they
    are converted); with no array argument the namespace is NumPy's.  Mixed libraries raise
    TypeError.
    """
    import array_api_compat

    arrs = [a for a in arrays if a is not None and not isinstance(a, (bool, int, float, complex,
                                                                       list, tuple))]
    if not arrs:
        return array_api_compat.array_namespace(np.empty(0))
    try:
        return array_api_compat.array_namespace(*arrs)
    except TypeError as exc:
        raise TypeError("the array arguments must come from one array library, got "
                        + ", ".join(sorted({type(a).__module__.split('.')[0] + '.' +
                                            type(a).__name__ for a in arrs}))
                        + f" ({exc})") from None


def library_name(xp: Any) -> str:
    """The array library of a namespace: ``numpy``, ``cupy``, ``torch``, ``jax``,
    ``array_api_strict`` or the namespace's top-level module name."""
    name = getattr(xp, "__name__", type(xp).__name__)
    if name.startswith("array_api_compat."):
        name = name.split(".", 1)[1]
    if name.startswith("jax"):
        return "jax"
    return name.split(".")[0]


def library(*arrays: Any) -> str:
    """The name of the array library of the arguments (``numpy`` for none)."""
    return library_name(namespace(*arrays))


def resolve(backend: str, *arrays: Any) -> str:
    """Turn ``backend`` into a concrete backend name for these inputs, or raise."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    on_gpu = any(a is not None and is_cupy_array(a) for a in arrays)
    if backend == "auto":
        if on_gpu:
            return "cupy"
        return "numba" if has_numba() else "numpy"
    if backend == "cupy":
        if not has_cupy():
            raise RuntimeError("backend='cupy' needs CuPy and a CUDA device; none was found")
        return "cupy"
    if on_gpu:
        raise ValueError(
            f"backend={backend!r} runs on the CPU but the inputs are CuPy arrays; "
            "use backend='cupy' or 'auto', or move the inputs with cupy.asnumpy"
        )
    if backend == "numba" and not has_numba():
        raise RuntimeError("backend='numba' needs Numba, which is not installed")
    return backend


def wants_device_copy(backend: str, *arrays: Any) -> bool:
    """True when ``backend="cupy"`` is asked for host (NumPy) inputs.

    The caller then copies the inputs to the device, runs there, and copies the result back, so
    the result still lives where the inputs live.  Raises if CuPy or a device is missing.
    """
    if backend != "cupy" or any(a is not None and is_cupy_array(a) for a in arrays):
        return False
    resolve("cupy")
    return True


def to_device(*arrays: Any) -> list[Any]:
    """CuPy copies of the array arguments (None and Python scalars pass through)."""
    cp = cupy_module()
    return [a if a is None or np.isscalar(a) else cp.asarray(a) for a in arrays]


def numba_threads() -> int | None:
    if not has_numba():
        return None
    import numba

    return numba.get_num_threads()


def thread_settings() -> dict[str, Any]:
    """The thread settings of this process, read and never written.

    ``env``: the thread-count and idle-wait environment variables (:data:`THREAD_VARIABLES` and
    :data:`WAIT_VARIABLES` of ``_threads``), None where unset -- the libraries read them when they load, so a
    value set after that has no effect; ``numba_threading_layer``: the layer Numba chose (None
    before its first parallel call) and ``numba_threading_layer_config`` the one asked for;
    ``pools``: per loaded BLAS/OpenMP library (threadpoolctl), its prefix, API, version and
    current thread count.
    """
    out: dict[str, Any] = {
        "env": {k: os.environ.get(k) for k in THREAD_VARIABLES + WAIT_VARIABLES},
        "numba_threading_layer": None, "numba_threading_layer_config": None, "pools": []}
    if has_numba():
        import numba

        out["numba_threading_layer_config"] = numba.config.THREADING_LAYER
        try:
            out["numba_threading_layer"] = numba.threading_layer()
        except ValueError:  # no parallel function has run yet
            pass
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return out
    out["pools"] = [{k: lib.get(k) for k in ("prefix", "user_api", "version", "num_threads")}
                    for lib in threadpool_info()]
    return out


def info() -> dict[str, Any]:
    """What is available: versions, backends, thread counts and settings, CUDA device.

    ``openblas_thread_timeout`` is the OPENBLAS_THREAD_TIMEOUT read from the environment (None:
    unset, OpenBLAS's default 2^28-cycle spin); ``threads`` is :func:`thread_settings`.
    """
    threads = thread_settings()
    out = {"numpy": np.__version__, "numba": None, "numba_threads": None, "cupy": None,
           "cuda_device": None,
           "openblas_thread_timeout": threads["env"]["OPENBLAS_THREAD_TIMEOUT"],
           "threads": threads}
    if has_numba():
        import numba

        out["numba"] = numba.__version__
        out["numba_threads"] = numba.get_num_threads()
    if importlib.util.find_spec("cupy") is not None:
        try:
            import cupy

            out["cupy"] = cupy.__version__
            cp = cupy_module()
            if cp is not None:
                dev = cp.cuda.Device()
                props = cp.cuda.runtime.getDeviceProperties(dev.id)
                name = props["name"]
                out["cuda_device"] = name.decode() if isinstance(name, bytes) else str(name)
        except Exception as exc:  # report, never crash `info`
            out["cupy"] = f"unusable: {exc}"
    return out


# --- the host boundary: NumPy/SciPy-only pieces called with arrays of any library ----------------
# One definition for every subpackage: arrays of another library go in as NumPy (to_host), the
# NumPy reference runs, and every NumPy array of the result comes back in the caller's library
# and on its device (to_caller).  NumPy callers take a fast path (a type check, no copy).

_PLAIN = (np.ndarray, np.generic, int, float, complex, bool, str, bytes, list, tuple, dict,
          type(None))


def is_foreign(v: object) -> bool:
    """True for an array of an array library other than NumPy (CuPy, PyTorch, JAX, ...)."""
    if isinstance(v, _PLAIN):
        return False
    import array_api_compat

    return array_api_compat.is_array_api_obj(v)


def fast_namespace(*arrays: Any) -> Namespace:
    """:func:`namespace` with a fast path for NumPy arrays (the array_api_compat NumPy namespace,
    imported once), so NumPy callers pay no per-call namespace detection."""
    if all(isinstance(a, np.ndarray) for a in arrays):
        import array_api_compat.numpy as xp_np

        return xp_np
    return namespace(*arrays)


def device_of(a: Array) -> Any:
    """The device of ``a`` (``array_api_compat.device``); ``"cpu"`` for NumPy arrays."""
    if isinstance(a, np.ndarray):
        return "cpu"
    import array_api_compat

    return array_api_compat.device(a)


def to_host(a: Any) -> Any:
    """The values of ``a`` as a NumPy array (NumPy arrays and non-arrays pass through; lists and
    tuples have their foreign arrays converted): CuPy by ``.get()``, PyTorch by
    ``.detach().cpu()``, others by DLPack (``numpy.from_dlpack``)."""
    if isinstance(a, (list, tuple)):
        return type(a)(to_host(v) for v in a) if any(is_foreign(v) for v in a) else a
    if not is_foreign(a):
        return a
    if is_cupy_array(a):
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
    xp = namespace(a)
    return xp.astype(a, xp.float64, copy=False)


def to_caller(result: Any, xp: Namespace, device: Any) -> Any:
    """``result`` with every NumPy array in it (also inside tuples, lists, dicts and
    dataclasses) converted to the namespace ``xp`` on ``device``; scalars stay scalars."""
    import dataclasses

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


def caller_of(values: Any) -> tuple[Namespace, Any] | None:
    """(namespace, device) of the first foreign array among ``values`` (searching lists and
    tuples), or ``None`` when there is none."""
    for v in values:
        if isinstance(v, (list, tuple)):
            found = caller_of(v)
            if found is not None:
                return found
        elif is_foreign(v):
            return namespace(v), device_of(v)
    return None


def at_host_boundary(func: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``func(*args, **kwargs)``; when an argument is an array of another library, its arrays go
    in as NumPy and the result comes back in that library, on that array's device."""
    where = caller_of(list(args) + list(kwargs.values()))
    if where is None:
        return func(*args, **kwargs)
    args = [to_host(a) for a in args]
    kwargs = {k: to_host(v) for k, v in kwargs.items()}
    return to_caller(func(*args, **kwargs), *where)
