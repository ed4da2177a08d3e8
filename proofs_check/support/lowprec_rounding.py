"""Low-precision rounding used by the checks of yat.squash.* and yat.numerics.* (A9/A10).

NumPy has no bfloat16 dtype: :func:`bf16` rounds float32 values to bfloat16 bit-exactly (round to
nearest even on the upper 16 bits; overflow rounds to +-inf as in bf16).  :data:`ROUND` maps a
format name to a function that rounds float64 values to that format and back.
"""
from __future__ import annotations

import numpy as np


def bf16(a):
    """Round float values to bfloat16 (round to nearest even), returned as float32."""
    a = np.asarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    out = u.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out)


def cast(a, dtype):
    """float64 -> dtype -> float64 (overflow gives inf, silently)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(a, np.float64).astype(dtype).astype(np.float64)


ROUND = {"fp16": lambda a: cast(a, np.float16), "fp32": lambda a: cast(a, np.float32),
         "bf16": lambda a: cast(bf16(cast(a, np.float32)), np.float64)}

BF16_MAX = float(bf16(np.float32(3.3895313892515355e38)))
DTYPE_MAX = {"fp16": float(np.finfo(np.float16).max), "fp32": float(np.finfo(np.float32).max),
             "bf16": BF16_MAX}
UNIT_ROUNDOFF = {"fp16": 2.0 ** -11, "bf16": 2.0 ** -8, "fp32": 2.0 ** -24, "fp64": 2.0 ** -53}
