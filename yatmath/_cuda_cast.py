"""float32 <-> float64 on the GPU without CuPy's flush-to-zero.

CuPy compiles its own kernels with ``-ftz=true``: its ``astype`` reads a float32 subnormal as 0
when widening and writes 0 for a float32 subnormal result when rounding.  :func:`cast` converts
with a numba-cuda kernel compiled without flush-to-zero instead, so every "cupy" row that widens
its float32 input or rounds its float64 result keeps float32 subnormals as NumPy does: widening
is exact, rounding is IEEE round-to-nearest-even (the bits of NumPy's ``astype``).  Under
numba-cuda's simulator the same kernel runs on NumPy arrays (``yatmath/_cuda.py``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _cuda

_cu = _cuda.cuda()
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@_cu.jit
def _cast_each(src, dst):
    i = _cu.grid(1)
    if i < src.shape[0]:
        dst[i] = src[i]


def cast(a: Any, dtype: Any) -> Any:
    """``a`` in ``dtype`` (``a`` itself when it already is); between float32 and float64 by the
    kernel, other conversions by the array's own ``astype``.  A new contiguous array."""
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    if a.dtype not in _FLOATS or dtype not in _FLOATS:
        return a.astype(dtype)
    xp = _cuda.array_module(a)
    src = xp.ascontiguousarray(a).reshape(-1)
    out = xp.empty(src.shape, dtype=dtype)
    _cast_each[_cuda.blocks(src.shape[0]), _cuda.THREADS](src, out)
    return out.reshape(a.shape)
