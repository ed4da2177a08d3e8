"""The exact reference (mpmath at 50 digits) and the condition-aware error bound of the Yat kernel.

The "exact" value is K evaluated in mpmath from the floating-point inputs *as given* (so input
rounding is not counted), and an implementation working in a dtype with unit roundoff u meets
the bound stated in the module docstring of ``yatmath/yat/kernel.py``:

    |K_hat - K| <= 4 (d+4) u K (cond + 8) + ((d+4) u ||w|| ||x||)^2 / D,
    A = ||w|| ||x|| + |b|,  N = w.x + b (inner bias; b = 0 otherwise),  cond = A / |N|.

``K (cond + 8)`` is evaluated as ``|N| A / D + 8 K`` so that an exactly orthogonal pair (N = 0,
cond = inf) gives a finite bound.  Two terms are added to the docstring's bound:

* gradual underflow.  An operation whose result is subnormal commits an absolute error up to
  half the subnormal spacing eta (2^-1074 for float64, 2^-149 for float32).  At most d + 2 such
  errors enter N and D, and one enters each of N/D and N*(N/D), giving
  ``(d+4) eta (2|N| + K)/D + ((d+4) eta)^2 / D + eta (|N| + 1)``.
* outer bias (002 §3.4.1) returns K + b: one more rounding, so the bound becomes
  ``bound_K (1 + u) + u |K + b|``.

A scaled output s K (an NMN layer's width scale, 000 Y4) commits two more roundings (s itself
and the product): ``s bound (1 + u) + 2 u s |K|``.

The check is exact: [K - bound, K + bound] is rounded outwards to float64 in mpmath and the
float result must lie inside.  Where K + bound exceeds the dtype's largest finite number the
result may be +inf; where K - bound exceeds it the result must be +inf; otherwise it must be
finite.  Without an outer bias the result must also be >= 0.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import mpmath as mp
import numpy as np

from .generators import Block, blocks, dtype_name, numpy_dtype

DPS = 50
#: Unit roundoff and subnormal spacing of each dtype (round to nearest).
UNIT_ROUNDOFF = {"float64": 2.0 ** -53, "float32": 2.0 ** -24, "bfloat16": 2.0 ** -8}
SUBNORMAL = {"float64": 2.0 ** -1074, "float32": 2.0 ** -149, "bfloat16": 2.0 ** -133}
#: Smallest normal number of each dtype: relative errors are reported only at or above it.
TINY = {"float64": float(np.finfo(np.float64).tiny), "float32": float(np.finfo(np.float32).tiny),
        "bfloat16": float(np.finfo(np.float32).tiny)}
LARGEST = {"float64": float(np.finfo(np.float64).max), "float32": float(np.finfo(np.float32).max),
           "bfloat16": float.fromhex("0x1.fep127")}


def unit_roundoff(dtype: Any) -> float:
    """u: 2^-53 (float64), 2^-24 (float32), 2^-8 (bfloat16)."""
    return UNIT_ROUNDOFF[dtype_name(dtype)]


def kernel_bound(N: Any, A: Any, P: Any, K: Any, D: Any, d: int, u: float,
                 eta: float = 0.0) -> Any:
    """The error bound of K = N^2/D (module docstring), for mpmath numbers or NumPy arrays.

    N = w.x (+ b inner), A = ||w|| ||x|| + |b|, P = ||w|| ||x||, D = ||w - x||^2 + eps, d the
    feature dimension, u the unit roundoff and eta the subnormal spacing of the working dtype.
    """
    c = d + 4
    return (4 * c * u * (abs(N) * A / D + 8 * K) + (c * u * P) ** 2 / D
            + c * eta * (2 * abs(N) + K) / D + (c * eta) ** 2 / D + eta * (abs(N) + 1))


def _down(x: Any) -> float:
    """Largest float64 <= x (x an mpf)."""
    f = float(x)
    return float(np.nextafter(f, -np.inf)) if mp.mpf(f) > x else f


def _up(x: Any) -> float:
    """Smallest float64 >= x."""
    f = float(x)
    return float(np.nextafter(f, np.inf)) if mp.mpf(f) < x else f


class Exact:
    """K(Z_i, Z_j) in mpmath, its error bound and the accepted float interval [lo, hi].

    ``scale``: the exact value is ``scale * K`` (a layer's width scale), with the bound of the
    module docstring.  Attributes: ``K``, ``bound`` (lists of lists of mpf), ``lo``, ``hi``
    (float64 arrays), ``K_hi`` + ``K_lo`` (K as an unevaluated float64 sum, for errors of
    float64 results), ``bound64`` and ``cond`` (float64; cond = A/|N|, inf where N = 0).
    """

    def __init__(self, block: Block, dtype: Any = None, scale: float | None = None) -> None:
        Z = block.Z
        name = dtype_name(Z.dtype if dtype is None else dtype)
        m, d = Z.shape
        self.dtype = name
        u = mp.mpf(UNIT_ROUNDOFF[name])
        eta = mp.mpf(SUBNORMAL[name])
        big = LARGEST[name]
        self.K = [[None] * m for _ in range(m)]
        self.bound = [[None] * m for _ in range(m)]
        self.lo, self.hi = np.empty((m, m)), np.empty((m, m))
        self.K_hi, self.K_lo = np.empty((m, m)), np.empty((m, m))
        self.bound64, self.cond = np.empty((m, m)), np.empty((m, m))
        with mp.workdps(DPS):
            s_mp = None if scale is None else mp.mpf(scale)
            rows = [[mp.mpf(float(v)) for v in r] for r in Z]
            norms = [mp.sqrt(mp.fdot(r, r)) for r in rows]
            eps = mp.mpf(block.eps)
            S, Dm = {}, {}
            for i in range(m):
                for j in range(i, m):
                    S[i, j] = S[j, i] = mp.fdot(rows[i], rows[j])
                    Dm[i, j] = Dm[j, i] = mp.fsum((a - b) ** 2 for a, b in zip(rows[i], rows[j])) + eps
            inner = block.mode == "inner"
            for i in range(m):
                for j in range(m):
                    s, D = S[i, j], Dm[i, j]
                    b = mp.mpf(0) if block.bias is None else mp.mpf(float(block.bias[j]))
                    N = s + b if inner else s
                    P = norms[i] * norms[j]
                    A = P + (abs(b) if inner else 0)
                    K = N * N / D
                    bnd = kernel_bound(N, A, P, K, D, d, u, eta)
                    if block.mode == "outer":
                        bnd = bnd * (1 + u) + u * abs(K + b)
                        val = K + b
                    else:
                        val = K
                    if s_mp is not None:
                        bnd = s_mp * bnd * (1 + u) + 2 * u * s_mp * abs(val)
                        val = s_mp * val
                    lo = val - bnd if block.mode == "outer" else max(val - bnd, mp.mpf(0))
                    hi = val + bnd
                    self.K[i][j], self.bound[i][j] = val, bnd
                    lo_f, hi_f = _up(lo), _down(hi)
                    self.lo[i, j] = np.inf if lo_f > big else lo_f
                    self.hi[i, j] = np.inf if hi > big else hi_f
                    k_hi = float(val)
                    self.K_hi[i, j] = k_hi
                    self.K_lo[i, j] = float(val - k_hi) if np.isfinite(k_hi) else 0.0
                    self.bound64[i, j] = float(bnd)
                    self.cond[i, j] = float(A / abs(N)) if N != 0 else np.inf


@functools.lru_cache(maxsize=None)
def _exact_all(name: str, modes: tuple[str, ...], quick: bool,
               scale: float | None) -> tuple[Exact, ...]:
    out = []
    for blk in blocks(name, quick=quick):
        out.append(Exact(adapt_mode(blk, modes), name, scale))
    return tuple(out)


def adapt_mode(block: Block, modes: Sequence[str]) -> Block:
    """``block`` under the bias modes an implementation supports (a tuple of "inner"/"outer"):
    a block whose mode is unsupported uses the first supported mode, or none."""
    if block.mode is None or block.mode in modes:
        return block
    return block.with_mode(modes[0] if modes else None)


def exact(dtype: Any, *, modes: Sequence[str] = ("inner", "outer"), quick: bool = False,
          scale: float | None = None) -> list[Exact]:
    """Exact references of ``blocks(dtype, quick=quick)`` under ``modes`` (cached per call)."""
    return list(_exact_all(dtype_name(dtype), tuple(modes), bool(quick), scale))


__all__ = ["DPS", "Exact", "LARGEST", "SUBNORMAL", "UNIT_ROUNDOFF", "adapt_mode", "exact",
           "kernel_bound", "numpy_dtype", "TINY", "unit_roundoff"]
