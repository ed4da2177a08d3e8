"""What this process runs on: library versions, compiled backends, threads, the CUDA device.

Read by ``yatmath info`` and recorded with benchmark and ledger runs; it never changes a setting.
"""
from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from ._array import cupy_module, has_numba
from ._threads import thread_settings


def numba_threads() -> int | None:
    if not has_numba():
        return None
    import numba

    return numba.get_num_threads()


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
