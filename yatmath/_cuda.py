"""numba-cuda: how yatmath compiles its own GPU kernels, and how CI executes them without a GPU.

Every custom GPU kernel of yatmath (``yat/_cuda_kernels.py``, ``particles/_cuda_kernels.py``)
is a ``numba.cuda`` kernel.  On a machine with a CUDA device it is compiled by NVVM and launched
on CuPy arrays (they export ``__cuda_array_interface__``).  With ``NUMBA_ENABLE_CUDASIM=1`` set
before ``numba.cuda`` is first imported, the same kernel source runs in numba-cuda's simulator on
NumPy arrays: every thread of every block, shared memory and ``syncthreads`` included, so the
indexing, the tiling, the boundary handling and the repair branch are executed by the test suite
on any CPU (``tests/yat/test_cuda_kernels.py``; ``tests/conftest.py`` turns the simulator on where
no device is visible).

The kernels' formulas are the Numba CPU definitions themselves: a leaf function such as
``yat._numba_kernels._finish`` or ``particles._numba_kernels.cfac`` is compiled a second time as a
CUDA device function from its Python source (:func:`device_function`), so each formula is
written once for both processors.

Floating point: kernels are compiled without ``fastmath``, so NVVM keeps IEEE division and square
root and does **not** flush float32 subnormals to zero (CuPy's own kernels are compiled with
``-ftz=true``: a float32 result below 2^-126 from CuPy's elementwise code is 0).  NVVM may
contract a * b + c into a fused multiply-add, as the CPU kernels' ``contract`` flag allows.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Any, Callable

import numpy as np

#: Threads per block of the one-dimensional kernels.
THREADS = 128


@functools.lru_cache(maxsize=None)
def cuda() -> Any:
    """The ``numba.cuda`` module (simulated or real), or ImportError saying what is missing.

    numba-cuda up to 0.30 registers an overload of ``np.row_stack`` when its array lowering is
    first imported; NumPy 2.5 removed that name.  While importing that module the name is
    provided as ``np.vstack`` (what it always was) and removed again afterwards, so NumPy is
    left as it was found.
    """
    if importlib.util.find_spec("numba") is None:
        raise ImportError("yatmath's GPU kernels need numba-cuda (pip install numba-cuda)")
    added = not hasattr(np, "row_stack")
    if added:
        np.row_stack = np.vstack
    try:
        try:
            from numba import cuda as nc
        except ImportError as exc:
            raise ImportError("yatmath's GPU kernels need numba-cuda "
                              f"(pip install numba-cuda): {exc}") from exc
        if not simulated(nc):
            try:  # registers its overloads now, while np.row_stack exists
                importlib.import_module("numba.cuda.np.arrayobj")
            except ImportError:  # a layout without that module: nothing to register early
                pass
    finally:
        if added:
            del np.row_stack
    return nc


def simulated(nc: Any = None) -> bool:
    """Whether ``numba.cuda`` is numba-cuda's CPU simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    nc = cuda() if nc is None else nc
    return "simulator" in getattr(nc.jit, "__module__", "")


def device_function(py_func: Callable[..., Any]) -> Any:
    """``py_func`` compiled as a CUDA device function (the simulator calls it as Python)."""
    return cuda().jit(device=True)(py_func)


def array_module(like: Any) -> Any:
    """The module that allocates arrays beside ``like``: CuPy for device arrays, NumPy for the
    simulator's host arrays."""
    if type(like).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def blocks(n: int, threads: int = THREADS) -> int:
    """Blocks of ``threads`` covering ``n`` items (at least one: a launch of zero blocks fails)."""
    return max(1, -(-int(n) // threads))


def kernel(py_func: Callable[..., Any]) -> Any:
    """``py_func`` as a ``numba.cuda`` kernel, compiled on first launch."""
    return cuda().jit(py_func)
