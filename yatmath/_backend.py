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

import numpy as np

BACKENDS = ("auto", "numpy", "numba", "cupy")


@functools.lru_cache(maxsize=None)
def has_numba() -> bool:
    return importlib.util.find_spec("numba") is not None


@functools.lru_cache(maxsize=None)
def cupy_module():
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


def is_cupy_array(a) -> bool:
    return type(a).__module__.startswith("cupy")


def array_module(*arrays):
    """``cupy`` if any argument is a CuPy array, else ``numpy``."""
    for a in arrays:
        if a is not None and is_cupy_array(a):
            return cupy_module()
    return np


def namespace(*arrays):
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


def library(*arrays) -> str:
    """The name of the array library of the arguments (``numpy`` for none)."""
    from ._registry import library_name

    return library_name(namespace(*arrays))


def resolve(backend: str, *arrays) -> str:
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


def wants_device_copy(backend: str, *arrays) -> bool:
    """True when ``backend="cupy"`` is asked for host (NumPy) inputs.

    The caller then copies the inputs to the device, runs there, and copies the result back, so
    the result still lives where the inputs live.  Raises if CuPy or a device is missing.
    """
    if backend != "cupy" or any(a is not None and is_cupy_array(a) for a in arrays):
        return False
    resolve("cupy")
    return True


def to_device(*arrays):
    """CuPy copies of the array arguments (None and Python scalars pass through)."""
    cp = cupy_module()
    return [a if a is None or np.isscalar(a) else cp.asarray(a) for a in arrays]


def to_backend(a, backend: str):
    """Move/convert ``a`` to the array library of ``backend`` (no copy if already there)."""
    if backend == "cupy":
        return cupy_module().asarray(a)
    if is_cupy_array(a):
        return a.get()
    return np.asarray(a)


def numba_threads() -> int | None:
    if not has_numba():
        return None
    import numba

    return numba.get_num_threads()


def info() -> dict:
    """What is available: versions, backends, thread counts, CUDA device."""
    import yatmath

    out = {"numpy": np.__version__, "numba": None, "numba_threads": None, "cupy": None,
           "cuda_device": None,
           # None: OpenBLAS read its spin time before yatmath could set it (numpy came first)
           "openblas_thread_timeout": (os.environ.get("OPENBLAS_THREAD_TIMEOUT")
                                       if yatmath.OPENBLAS_SHORT_SPIN else None)}
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
