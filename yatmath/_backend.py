"""Transitional: the names of ``_array`` (array plumbing), ``_threads`` and ``_platform`` under
their old module.  Removed once every importer has moved."""
from ._array import *  # noqa: F401,F403
from ._array import (as_float64, at_host_boundary, caller_of, cupy_module, device_of,  # noqa: F401
                     has_cupy, has_numba, is_cupy, is_foreign, library_name, namespace, to_caller,
                     to_host)
from ._array import to_device as _to_device_one
from ._platform import info, numba_threads  # noqa: F401
from ._threads import THREAD_VARIABLES, WAIT_VARIABLES, thread_settings  # noqa: F401

is_cupy_array = is_cupy
fast_namespace = namespace


def array_module(*arrays):
    for a in arrays:
        if a is not None and is_cupy(a):
            return cupy_module()
    import numpy as np
    return np


def library(*arrays):
    return library_name(namespace(*arrays))


BACKENDS = ("auto", "numpy", "numba", "cupy")


def resolve(backend, *arrays):  # old itnet/tiled path; removed with it
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    on_gpu = any(a is not None and is_cupy(a) for a in arrays)
    if backend == "auto":
        return "cupy" if on_gpu else ("numba" if has_numba() else "numpy")
    if backend == "cupy":
        if not has_cupy():
            raise RuntimeError("backend='cupy' needs CuPy and a CUDA device; none was found")
        return "cupy"
    if on_gpu:
        raise ValueError(f"backend={backend!r} runs on the CPU but the inputs are CuPy arrays; "
                         "use backend='cupy' or 'auto', or move the inputs with cupy.asnumpy")
    if backend == "numba" and not has_numba():
        raise RuntimeError("backend='numba' needs Numba, which is not installed")
    return backend


def wants_device_copy(backend, *arrays):
    if backend != "cupy" or any(a is not None and is_cupy(a) for a in arrays):
        return False
    resolve("cupy")
    return True


def to_device(*arrays):
    return [_to_device_one(a) for a in arrays]
