"""Fused (flash-style) Yat attention forward on the GPU, in numba-cuda (``yatmath._cuda``).

One thread per query row i, blocks of T threads; the key and value rows are streamed through
shared memory in tiles of T rows, and every row keeps, in float64 registers,

    m    the running maximum of its scores z_ij = s_att K(q_i, k_j) over the keys seen so far
    l    the running normaliser, in units of m:  sum_j w_ij
    acc  the running output sum_j w_ij v_j  (dv values)

with w_ij = exp(z_ij - m) (normalize="softmax") or (z_ij / m)^p (normalize="softermax", m then
also at least delta^(1/p), as in ``squash._softermax_parts``).  When a score exceeds m, l and acc
are rescaled by exp(m_old - m_new) (softmax) or (m_old / m_new)^p (softermax) before it is
added, so no term ever exceeds 1 and nothing of size Lq x Lk is stored: the output is acc / l
(0 for a row with no allowed key or, softermax with delta = 0, with all scores 0).  Causal
attention (j <= i) stops each block's key loop after its last row's diagonal.

The pair formula is the one Numba definition: the direct float64 form ``_numba_kernels
._direct_pair`` and the finishing step ``_numba_kernels._finish``, compiled as device functions
in ``_cuda_kernels`` (no cancellation, so no repair).  Sums in float64; the output is written in
the input dtype (float64 to float32 by the store: the kernels are compiled without fastmath, so
float32 subnormals are kept).

Limits: 1 <= d, 1 <= dv and d + dv <= ``MAX_COLS`` (T (d + dv) float64 of shared memory within
the 48 KiB a block gets without opting in: T = 128 threads up to 48 columns, halved above).
q_i and acc live in registers (d + dv float64 per thread: near the limit, 128 columns, part of
them may spill to local memory).  Outside the limits ``supported`` is False and the registry row
(``attention._attention_cupy``) runs the reference on the device.  Accuracy: each score within a
few ulps (direct form); each output a float64 sum of Lk terms, so within ~ Lk u_64 of
sum_j p_ij |v_j| plus one rounding to the output dtype.

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays:
``tests/yat/test_cuda_attention.py`` executes the tiling, the online rescaling and the causal
bounds on the CPU.
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numba import types

from .. import _cuda
from . import _cuda_kernels as ck

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_finish = ck._finish
_direct_pair = ck._direct_pair
_f64 = types.float64

#: Most columns (d + dv) of a staged key/value row.
MAX_COLS = 128
_SHARED_BYTES = 48 * 1024
#: Most batch entries per launch (the grid's y dimension).
_MAX_GRID_Y = 65535


def threads_for(d: int, dv: int) -> int:
    """Threads per block (= key rows per tile) for feature width d and value width dv, or 0 when
    the shapes are outside the kernel's limits (module docstring)."""
    cols = d + dv
    if d < 1 or dv < 1 or cols > MAX_COLS:
        return 0
    threads = _cuda.THREADS
    while threads * cols * 8 > _SHARED_BYTES:
        threads //= 2
    return threads


def supported(d: int, dv: int) -> bool:
    """Whether the fused kernel takes queries/keys of width d and values of width dv."""
    return threads_for(d, dv) > 0


def softermax_start(power: float, delta: float, root: float | None) -> tuple[float, float, float]:
    """(m0, l0, log_delta) starting a softermax row: m = delta^(1/p) with l = 1 (its term) when
    that root is a normal float64 number; else m = 0, l = 0 and the term delta / c^p is added at
    the end as exp(ln delta - p ln c) (``squash._softermax_parts``); log_delta is -inf when
    nothing is to be added."""
    if root is not None:
        return root, 1.0, -math.inf
    return 0.0, 0.0, (math.log(delta) if delta > 0 else -math.inf)


@functools.lru_cache(maxsize=None)
def _kernel(d: int, dv: int, threads: int, softmax: bool, causal: bool) -> Any:
    """The fused kernel for widths d, dv, T = ``threads``, the normalisation and the causal flag
    (compile-time constants: the loops over d and dv unroll, the branches are pruned)."""
    @_cu.jit
    def kern(Q, K, V, eps, scale, power, m0, l0, log_delta, out):
        shk = _cu.shared.array((threads, d), dtype=_f64)
        shv = _cu.shared.array((threads, dv), dtype=_f64)
        t = _cu.threadIdx.x
        b = _cu.blockIdx.y
        i0 = _cu.blockIdx.x * threads
        i = i0 + t
        n = Q.shape[1]
        m = K.shape[1]
        qi = _cu.local.array(d, dtype=_f64)
        acc = _cu.local.array(dv, dtype=_f64)
        for c in range(d):
            qi[c] = np.float64(Q[b, i, c]) if i < n else 0.0
        for c in range(dv):
            acc[c] = 0.0
        e = np.float64(eps)
        s_att = np.float64(scale)
        p = np.float64(power)
        if softmax:
            mx = -np.inf
            lsum = 0.0
        else:
            mx = np.float64(m0)
            lsum = np.float64(l0)
        # causal: the block's last row attends to keys j <= i0 + T - 1, none after
        jend = min(m, i0 + threads) if causal else m
        for j0 in range(0, jend, threads):
            jl = j0 + t
            if jl < jend:
                for c in range(d):
                    shk[t, c] = K[b, jl, c]
                for c in range(dv):
                    shv[t, c] = V[b, jl, c]
            _cu.syncthreads()
            if i < n:
                top = min(threads, jend - j0)
                if causal:
                    top = min(top, i - j0 + 1)
                for jj in range(top):
                    s, q = _direct_pair(qi, shk[jj])
                    z = s_att * _finish(s, q + e, 0.0, 0)
                    if softmax:
                        if z > mx:
                            r = math.exp(mx - z)
                            lsum *= r
                            for c in range(dv):
                                acc[c] *= r
                            mx = z
                        w = math.exp(z - mx)
                    else:
                        if z > mx:
                            r = (mx / z) ** p
                            lsum *= r
                            for c in range(dv):
                                acc[c] *= r
                            mx = z
                        w = (z / mx) ** p if mx > 0.0 else 0.0
                    lsum += w
                    for c in range(dv):
                        acc[c] += w * shv[jj, c]
            _cu.syncthreads()
        if i < n:
            if not softmax:
                if log_delta > -np.inf:
                    cm = mx if mx > 0.0 else 1.0
                    lsum += math.exp(log_delta - p * math.log(cm))
            for c in range(dv):
                out[b, i, c] = acc[c] / lsum if lsum > 0.0 else 0.0
    return kern


def attention(Q, K, V, eps, scale, normalize, causal, power=1.0, delta=0.0, root=None,
              threads=None):
    """Fused Yat attention O (B, Lq, dv) in the dtype of Q for Q (B, Lq, d), K (B, Lk, d),
    V (B, Lk, dv), contiguous, of one float dtype, with ``supported(d, dv)``.

    scale = s_att (a float); normalize "softmax" or "softermax" (power p, delta and
    root = ``squash._delta_root(delta, p)``); ``threads`` overrides T (tests: several tiles at
    small sizes; T (d + dv) float64 must fit the shared memory)."""
    xp = _cuda.array_module(Q)
    B, n, d = Q.shape
    m, dv = K.shape[1], V.shape[2]
    T = threads_for(d, dv) if threads is None else int(threads)
    if not T:
        raise ValueError(f"the fused attention kernel takes 1 <= d, 1 <= dv, d + dv <= {MAX_COLS}"
                         f", got d={d}, dv={dv}")
    if B == 0 or n == 0 or m == 0:
        return xp.zeros((B, n, dv), dtype=Q.dtype)
    out = xp.empty((B, n, dv), dtype=Q.dtype)
    softmax = normalize == "softmax"
    m0, l0, log_delta = (0.0, 0.0, -math.inf) if softmax else softermax_start(power, delta, root)
    kern = _kernel(d, dv, T, softmax, bool(causal))
    f = np.float64
    for b0 in range(0, B, _MAX_GRID_Y):
        b1 = min(B, b0 + _MAX_GRID_Y)
        kern[(_cuda.blocks(n, T), b1 - b0), T](
            Q[b0:b1], K[b0:b1], V[b0:b1], f(eps), f(scale), f(power), f(m0), f(l0),
            f(log_delta), out[b0:b1])
    return out
