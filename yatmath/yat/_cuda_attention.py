"""Fused (flash-style) Yat attention forward on the GPU, in numba-cuda (``yatmath._cuda``).

Every query row i keeps, in float64,

    m    the running maximum of its scores z_ij = s_att K(q_i, k_j) over the keys seen so far
    l    the running normaliser, in units of m:  sum_j w_ij
    acc  the running output sum_j w_ij v_j  (dv values)

with w_ij = exp(z_ij - m) (normalize="softmax") or (z_ij / m)^p (normalize="softermax", m then
also at least delta^(1/p), as in ``squash._softermax_parts``).  When a score exceeds m, l and acc
are rescaled by exp(m_old - m_new) (softmax) or (m_old / m_new)^p (softermax) before it is
added, so no term ever exceeds 1 and nothing of size Lq x Lk is stored: the output is acc / l
(0 for a row with no allowed key or, softermax with delta = 0, with all scores 0).  Causal
attention (j <= i) stops each block's key loop after its last row's diagonal.  The weight and
the rescale factor (the weight of m_old under m_new) are one device function per normalisation
(``_softmax_weight``, ``_softermax_weight``), shared by the two kernels.

Two kernels distribute this work; ``plan`` chooses by the widths:

* ``rows`` (d + dv <= ``ROWS_MAX_COLS``): one thread per query row, blocks of T threads; q_i and
  acc in registers (d + dv float64), the key and value rows streamed through shared memory in
  tiles of T rows (float64), one online update per key.  Few columns: few registers, and a key
  row read from shared memory is one broadcast to the whole warp.
* ``tiles`` (wider): a block of T = Bq G threads (Bq = 16 query rows, G = 16 threads per row:
  256) owns a tile of Bq query rows.  Q's tile stays in shared memory; per key tile the K and V
  tiles (Bk rows) are staged there, all in float64 (each entry converted once, not once per
  pair), the rows of Q and K padded to d + 1 entries so that the threads of a warp, reading
  different rows, read different banks.  Thread (r, g) scores the keys g, g + G, ... of the
  tile against row r (Bk / G scores, written to a shared Bq x Bk tile); the row's new maximum is
  the largest of its G partial maxima (shared memory, the same values read in the same order by
  the G threads, so they agree bit for bit); each thread rescales its part of l and its output
  columns, turns its scores into weights in place and adds them to its part of l, and after a
  barrier accumulates its ceil(dv / G) output columns g, g + G, ... from the whole weight row
  and the V tile.  A thread so holds ceil(dv / G) float64 of acc instead of d + dv of q_i and
  acc (4 instead of 128 at d = dv = 64), the scores never leave shared memory, and every K or V
  entry read from global memory serves Bq query rows.  At the end l is the sum of the G parts
  (in a fixed order).  Bk is 32 where the shared memory (``tile_shared``) fits 48 KiB, else 16.
  The copies of the tiles are coalesced (a warp reads 32 consecutive entries of a row) and
  unrolled with compile-time offsets: the arrays are passed flat, their row widths are
  compile-time constants, and the thread and block indices are masked to their ranges so that
  the compiler knows them non-negative (no negative-index wraparound code).

The pair formula is the one Numba definition: the direct float64 form ``_numba_kernels
._direct_pair`` and the finishing step ``_numba_kernels._finish``, compiled as device functions
in ``_cuda_kernels`` (no cancellation, so no repair).  Sums in float64; the output is written in
the input dtype (float64 to float32 by the store: the kernels are compiled without fastmath, so
float32 subnormals are kept).

Limits: 1 <= d, 1 <= dv and d + dv <= ``MAX_COLS`` = 128; both kernels stay within the 48 KiB of
static shared memory a block gets without opting in (none opts in).  Outside the limits
``supported`` is False and the registry row (``attention._attention_cupy``) runs the reference
on the device.  Accuracy: each score within a few ulps (direct form); each output a float64 sum
of Lk terms (``tiles``: l as G partial sums), each rescaled at most once per key (``rows``) or
per key tile (``tiles``), so within ~ Lk u_64 of sum_j p_ij |v_j| plus one rounding to the
output dtype.

Designed resources (``python -m yatmath.bench.kernels``: ptxas for sm_90, no device needed):
``tiles`` at d = dv = 64 compiles without spills to 63-64 registers per thread with 46.5 KiB of
shared memory per 256-thread block, so 4 blocks (half an H100 SM's threads) can be resident
(the former one-thread-per-row kernel there: 255 registers, spills, 32 threads, 11%).

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays:
``tests/yat/test_cuda_attention.py`` executes both kernels' tiling, the online rescaling and the
causal bounds on the CPU.
"""
from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

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
#: Most columns (d + dv) the ``rows`` kernel takes (q_i and acc in registers); wider: ``tiles``.
ROWS_MAX_COLS = 16
_SHARED_BYTES = 48 * 1024
#: ``tiles``: query rows per block, threads per query row, key rows per tile (the first that fits)
_BQ, _G, _BKS = 16, 16, (32, 16)
#: Most batch entries per launch (the grid's y dimension).
_MAX_GRID_Y = 65535


class Plan(NamedTuple):
    """How ``attention`` launches: ``kernel`` "rows" (T = ``threads`` rows per block and per key
    tile; bq = bk = T, g = 1) or "tiles" (``bq`` query rows per block, ``bk`` key rows per tile,
    ``g`` threads per query row: T = bq g), with its ``shared`` memory per block in bytes."""

    kernel: str
    threads: int
    bq: int
    bk: int
    g: int
    shared: int


def tile_shared(d: int, dv: int, bq: int, bk: int, g: int) -> int:
    """Shared bytes per block of the ``tiles`` kernel, all float64: Q (bq, d + 1), K (bk, d + 1),
    V (bk, dv), the scores/weights (bq, bk + 1), the partial maxima / sums (bq, g)."""
    return 8 * (bq * (d + 1) + bk * (d + 1) + bk * dv + bq * (bk + 1) + bq * g)


def threads_for(d: int, dv: int) -> int:
    """Threads per block (= key rows per tile) of the ``rows`` kernel for feature width d and
    value width dv (T (d + dv) float64 of shared memory within 48 KiB), or 0 when the shapes are
    outside the kernels' limits (module docstring)."""
    cols = d + dv
    if d < 1 or dv < 1 or cols > MAX_COLS:
        return 0
    threads = _cuda.THREADS
    while threads * cols * 8 > _SHARED_BYTES:
        threads //= 2
    return threads


def plan(d: int, dv: int) -> Plan | None:
    """The kernel and its tile sizes for widths d, dv (module docstring), or None outside the
    limits."""
    T = threads_for(d, dv)
    if not T:
        return None
    if d + dv <= ROWS_MAX_COLS:
        return Plan("rows", T, T, T, 1, T * (d + dv) * 8)
    # Bk = 16 always fits: 8 (32 (d + 1) + 16 dv + 528) bytes <= 36.3 KiB for d + dv <= 128
    bk = next(bk for bk in _BKS if tile_shared(d, dv, _BQ, bk, _G) <= _SHARED_BYTES)
    return Plan("tiles", _BQ * _G, _BQ, bk, _G, tile_shared(d, dv, _BQ, bk, _G))


def supported(d: int, dv: int) -> bool:
    """Whether the fused kernels take queries/keys of width d and values of width dv."""
    return plan(d, dv) is not None


def softermax_start(power: float, delta: float, root: float | None) -> tuple[float, float, float]:
    """(m0, l0, log_delta) starting a softermax row: m = delta^(1/p) with l = 1 (its term) when
    that root is a normal float64 number; else m = 0, l = 0 and the term delta / c^p is added at
    the end as exp(ln delta - p ln c) (``squash._softermax_parts``); log_delta is -inf when
    nothing is to be added."""
    if root is not None:
        return root, 1.0, -math.inf
    return 0.0, 0.0, (math.log(delta) if delta > 0 else -math.inf)


@_cu.jit(device=True)
def _softmax_weight(z, mx, p):
    """exp(z - mx): the weight of score z under the running maximum mx, and (z = m_old,
    mx = m_new) the rescale factor; 0 when z = -inf (the empty start).  p is unused."""
    return math.exp(z - mx)


@_cu.jit(device=True)
def _softermax_weight(z, mx, p):
    """(z / mx)^p (0 while mx = 0: no positive score yet): the weight of z under the running
    maximum mx, and (z = m_old, mx = m_new > 0) the rescale factor."""
    return (z / mx) ** p if mx > 0.0 else 0.0


@functools.lru_cache(maxsize=None)
def _kernel(d: int, dv: int, threads: int, softmax: bool, causal: bool) -> Any:
    """The ``rows`` kernel for widths d, dv, T = ``threads``, the normalisation and the causal
    flag (compile-time constants: the loops over d and dv unroll, the branches are pruned)."""
    weight = _softmax_weight if softmax else _softermax_weight

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
                    if z > mx:
                        r = weight(mx, z, p)
                        lsum *= r
                        for c in range(dv):
                            acc[c] *= r
                        mx = z
                    w = weight(z, mx, p)
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


@functools.lru_cache(maxsize=None)
def _tile_kernel(d: int, dv: int, bq: int, bk: int, g: int, softmax: bool, causal: bool) -> Any:
    """The ``tiles`` kernel for widths d, dv, tile sizes bq, bk, g (g divides bk), the
    normalisation and the causal flag (compile-time constants: the loops over a tile's columns
    unroll, the branches are pruned)."""
    if bk % g:
        raise ValueError(f"g={g} threads per row must divide bk={bk} keys per tile")
    weight = _softmax_weight if softmax else _softermax_weight
    T = bq * g
    nk = bk // g              # scores per thread and key tile
    nc = -(-dv // g)          # output columns per thread
    full = dv % g == 0        # every thread's columns exist
    pad = d + 1               # row stride of the Q and K tiles: rows in different banks
    wpad = bk + 1             # row stride of the weight tile
    lw = 32 if T % 32 == 0 else T   # tile copies: rows of lw threads, rpass rows at a time
    rpass = T // lw
    qpass, kpass = -(-bq // rpass), -(-bk // rpass)
    dseg, vseg = -(-d // lw), -(-dv // lw)

    @_cu.jit
    def kern(Q, K, V, n, m, eps, scale, power, m0, l0, log_delta, out):
        shq = _cu.shared.array((bq, pad), dtype=_f64)
        shk = _cu.shared.array((bk, pad), dtype=_f64)
        shv = _cu.shared.array((bk, dv), dtype=_f64)
        shw = _cu.shared.array((bq, wpad), dtype=_f64)  # the tile's scores, then its weights
        shr = _cu.shared.array((bq, g), dtype=_f64)     # partial maxima, then partial sums
        acc = _cu.local.array(nc, dtype=_f64)
        # masked to their ranges (< 1024, <= 65535, < 2^31): known non-negative, so indexing
        # them needs no negative-index wraparound (registers and instructions)
        t = _cu.threadIdx.x & 1023
        r = t // g                # the thread's query row in the tile, and its place in the row
        gi = t - r * g
        b = _cu.blockIdx.y & 65535
        i0 = (_cu.blockIdx.x & 0x7FFFFFFF) * bq
        i = i0 + r
        qrow = (b * n + i0) * d   # flat offsets of the block's first row and of row i
        orow = (b * n + i) * dv
        live = i < n
        # the Q tile, coalesced (consecutive threads, consecutive entries); rows past n unread
        tr = t // lw              # the thread's row and column in the tile copies
        tl = t - tr * lw
        for k1 in range(qpass):
            rr = tr + rpass * k1
            if (bq % rpass == 0 or rr < bq) and i0 + rr < n:
                for k2 in range(dseg):
                    c = tl + lw * k2
                    if d % lw == 0 or c < d:
                        shq[rr, c] = Q[qrow + rr * d + c]
        for k in range(nc):
            acc[k] = 0.0
        e = np.float64(eps)
        s_att = np.float64(scale)
        p = np.float64(power)
        if softmax:
            mx = -np.inf
            lpart = 0.0
        else:
            mx = np.float64(m0)
            lpart = np.float64(l0) if gi == 0 else 0.0   # the root's term, once per row
        # causal: the block's last row attends to keys j <= i0 + bq - 1, none after
        jend = min(m, i0 + bq) if causal else m
        for j0 in range(0, jend, bk):
            krow = (b * m + j0) * d
            vrow = (b * m + j0) * dv
            for k1 in range(kpass):
                jj = tr + rpass * k1
                if (bk % rpass == 0 or jj < bk) and j0 + jj < jend:
                    for k2 in range(dseg):
                        c = tl + lw * k2
                        if d % lw == 0 or c < d:
                            shk[jj, c] = K[krow + jj * d + c]
                    for k2 in range(vseg):
                        c = tl + lw * k2
                        if dv % lw == 0 or c < dv:
                            shv[jj, c] = V[vrow + jj * dv + c]
            _cu.syncthreads()
            top = min(bk, jend - j0)  # keys jj < top of the tile are row i's (causal: j <= i)
            if causal:
                top = min(top, i - j0 + 1)
            pm = -np.inf
            for k in range(nk):
                jj = gi + k * g
                z = -np.inf
                if live and jj < top:
                    s, q = _direct_pair(shq[r, :d], shk[jj, :d])
                    z = s_att * _finish(s, q + e, 0.0, 0)
                    if z > pm:
                        pm = z
                shw[r, jj] = z
            shr[r, gi] = pm
            _cu.syncthreads()
            mnew = mx
            for u in range(g):
                if shr[r, u] > mnew:
                    mnew = shr[r, u]
            if mnew > mx:
                f = weight(mx, mnew, p)
                lpart *= f
                for k in range(nc):
                    acc[k] *= f
                mx = mnew
            for k in range(nk):
                jj = gi + k * g
                w = weight(shw[r, jj], mx, p) if live and jj < top else 0.0
                lpart += w
                shw[r, jj] = w
            _cu.syncthreads()
            if live:
                for jj in range(top):
                    w = shw[r, jj]
                    for k in range(nc):
                        c = gi + k * g
                        if full or c < dv:
                            acc[k] += w * shv[jj, c]
            _cu.syncthreads()
        shr[r, gi] = lpart        # shr's maxima were last read before the barrier above
        _cu.syncthreads()
        if live:
            lsum = 0.0
            for u in range(g):
                lsum += shr[r, u]
            if not softmax:
                if log_delta > -np.inf:
                    cm = mx if mx > 0.0 else 1.0
                    lsum += math.exp(log_delta - p * math.log(cm))
            for k in range(nc):
                c = gi + k * g
                if full or c < dv:
                    out[orow + c] = acc[k] / lsum if lsum > 0.0 else 0.0
    return kern


def attention(Q, K, V, eps, scale, normalize, causal, power=1.0, delta=0.0, root=None,
              threads=None, tile=None):
    """Fused Yat attention O (B, Lq, dv) in the dtype of Q for Q (B, Lq, d), K (B, Lk, d),
    V (B, Lk, dv), contiguous, of one float dtype, with ``supported(d, dv)``.

    scale = s_att (a float); normalize "softmax" or "softermax" (power p, delta and
    root = ``squash._delta_root(delta, p)``).  Tests override ``plan``'s choice, for several
    tiles at small sizes: ``threads`` runs the ``rows`` kernel with T = threads (T (d + dv)
    float64 must fit the shared memory), ``tile = (bq, bk, g)`` the ``tiles`` kernel with those
    sizes (g dividing bk; ``tile_shared`` within 48 KiB)."""
    xp = _cuda.array_module(Q)
    B, n, d = Q.shape
    m, dv = K.shape[1], V.shape[2]
    how = plan(d, dv)
    if how is None:
        raise ValueError(f"the fused attention kernel takes 1 <= d, 1 <= dv, d + dv <= {MAX_COLS}"
                         f", got d={d}, dv={dv}")
    if tile is not None:
        bq, bk, g = (int(x) for x in tile)
        how = Plan("tiles", bq * g, bq, bk, g, tile_shared(d, dv, bq, bk, g))
    elif threads is not None:
        T = int(threads)
        how = Plan("rows", T, T, T, 1, T * (d + dv) * 8)
    if B == 0 or n == 0 or m == 0:
        return xp.zeros((B, n, dv), dtype=Q.dtype)
    out = xp.empty((B, n, dv), dtype=Q.dtype)
    softmax = normalize == "softmax"
    m0, l0, log_delta = (0.0, 0.0, -math.inf) if softmax else softermax_start(power, delta, root)
    f = np.float64
    args = (f(eps), f(scale), f(power), f(m0), f(l0), f(log_delta))
    if how.kernel == "rows":
        kern = _kernel(d, dv, how.threads, softmax, bool(causal))
    else:
        kern = _tile_kernel(d, dv, how.bq, how.bk, how.g, softmax, bool(causal))
    for b0 in range(0, B, _MAX_GRID_Y):
        b1 = min(B, b0 + _MAX_GRID_Y)
        grid = ((_cuda.blocks(n, how.bq), b1 - b0), how.threads)
        if how.kernel == "rows":
            kern[grid](Q[b0:b1], K[b0:b1], V[b0:b1], *args, out[b0:b1])
        else:  # flat (views): offsets from the compile-time widths
            Qf, Kf, Vf, Of = (xp.reshape(a[b0:b1], (-1,)) for a in (Q, K, V, out))
            kern[grid](Qf, Kf, Vf, n, m, *args, Of)
    return out
