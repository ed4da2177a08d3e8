"""Exact power-of-two scaling, shared by the Monte Carlo and low-rank estimators: quantities are
computed from a / c (c a power of two near max |a|) and scaled back by c, so they are finite
wherever the true values are."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._array import caller, namespace, to_host
from .._typing import Array


def pow2_scale(a: Array, axis: int | None = None) -> Any:
    """A power of two c >= max|a| / 2 (along ``axis``; 1 where a is all zero), in a's library.

    Dividing by a power of two is exact (short of underflow), so a quantity computed from a / c
    and multiplied back by c equals the unscaled computation bit for bit wherever the latter
    neither overflows nor underflows, and stays finite wherever the true value is finite.
    The exponent is taken on the host (``numpy.frexp``; the array API has no frexp) from the
    few maxima, which are then moved back to a's library and device.
    """
    xp = namespace(a)
    m = xp.max(xp.abs(a), axis=axis) if math.prod(a.shape) else np.float64(0.0)
    mh = to_host(m)
    e = np.frexp(mh)[1]
    c = np.where(mh > 0, np.ldexp(1.0, e), 1.0)
    return caller(a).asarray(c)
