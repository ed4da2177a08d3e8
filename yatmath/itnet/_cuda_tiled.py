"""The tiled ITNet integral on the GPU, in numba-cuda (``yatmath._cuda``).

Computes, for one kernel MLP and without the (nq, nk, d, d) kernel tensor or any (nq, nk, w)
block of hidden activations,

    I_i = sum_j c_ij K_ij u_j = sum_{b,k} W2r[:, b, k] T_i[b, k] + B2 ubar_i,
    T_i[b, k] = sum_j c_ij GELU(a_ij[k]) u_j[b],    ubar_i = sum_j c_ij u_j,

(the last-layer factorisation of :mod:`~yatmath.itnet.tiled`, c_ij = omega_j m_ij) from the
per-point split-W1 pieces of ``tiled._Prep`` (Aq, Ak, the sines and cosines of 2 pi B x, ...).

Layout.  One thread per (query i, hidden unit k): a block holds G queries x w units (G w <= 128
threads; G = 128 // w).  Thread (i, k) accumulates T_i[:, k] (d values) and ubar_i (d values) in
registers (so in NVVM's PTX for the benchmark's w = 16, d = 8, L = 3); its own rows of Wgs, Wgc,
wr, Wh are copied once (NVVM keeps all but a 64-byte local frame in registers at that size:
the shared leaf functions loop to runtime bounds, so some arrays stay addressable).  The G
query rows (sin, cos, position, features) are staged in shared memory once; the keys are streamed through
shared memory in tiles of TK rows (their Ak, sin, cos, position and feature rows, loaded by the
whole block).  Per pair the thread evaluates the pair features (3L + nh + 3s operations, the same
for the w threads of a query: the price of one definition), its one pre-activation a_ij[k]
(2L + nh + 2), GELU, and adds c_ij GELU(a_ij[k]) u_j to T_i[:, k] (2d).  Global memory sees only
the per-point pieces, each key row read once per query block, and the (nq, d) output: no
(nq, nk, ...) array exists.  At the end the block gathers T_i (d x w) and ubar_i in shared
memory and thread k writes the components a = k, k + w, ... of I_i.  When the query blocks
alone would leave the GPU idle (small nq: fewer than ``MIN_BLOCKS`` blocks), the keys are split
into ``nsplit`` contiguous ranges of whole tiles, one per grid row; each writes a partial I_i
(the finish is linear) into an (nsplit, nq, d) float64 buffer, summed in split order by a second
kernel.  The result is deterministic (a fixed summation order per thread, no atomics).

One definition of each formula: the pair features (``_numba_tiled._pair_terms``: sin/cos of the
angle difference, the Hadamard term, the overflow-safe distance), the pre-activation
(``_preact``, given its thread's one row of the weights as one-row views), the weight c_ij with
the causal mask (``_weight``), GELU exact or tanh (``_gelu``) and the finish (``finish_one``) are
the Numba CPU row's leaf functions compiled again as device functions.

Precision: every array and accumulator is in the working dtype of the row (float32 when Uq and
Uk both are, else float64), as on the Numba CPU row; the partial sums of a key split are kept in
float64 and rounded once.  Kernels are compiled without fastmath: IEEE division and square root,
float32 subnormals kept (the output store is numba's, not CuPy's); GELU's tanh is libdevice's
``__nv_tanh`` (whose PTX forms its power-of-two scale 2^k, k an integer, by
``ex2.approx.ftz.f32``: an internal step of the float64 tanh, not a float32 result).
Summation over the keys is sequential per thread, so I_i differs from the Numba and NumPy rows
by rounding only: about (nk + w d) u sum_j |c_ij| |W2| |GELU(a_ij)| |u_j| plus GELU's
sensitivity to the pre-activation's rounding (u the unit roundoff of the working dtype; the
bound the tests check is stated in ``tests/itnet/test_cuda_tiled.py``).

Limits (``supported``): w <= 1024 (threads per block), and the shared tile of at least one key
plus the query rows and the finish buffer within 48 KiB: G (d (w + 1) + 2L + s + d)
+ TK (w + 2L + s + d) elements.  Outside them,
and for ``factorised=False`` (the naive per-pair d x d form, kept on the CPU rows for comparison),
the registry row runs the array API tile loop on the device instead.

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays:
``tests/itnet/test_cuda_tiled.py`` executes the tiling, the key splits and the causal bounds on
the CPU.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import from_dtype

from .. import _cuda
from . import _numba_tiled as nb

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_pair_terms = _cuda.device_function(nb._pair_terms.py_func)
_preact = _cuda.device_function(nb._preact.py_func)
_weight = _cuda.device_function(nb._weight.py_func)
_gelu = _cuda.device_function(nb._gelu.py_func)
_finish_one = _cuda.device_function(nb.finish_one.py_func)

#: Shared memory a block may use without opting in.
SHARED_BYTES = 48 * 1024
#: Most keys per shared tile.
MAX_TILE = 64
#: Most threads per block (a CUDA limit).
MAX_THREADS = 1024
#: Key splits are added until the grid has about this many blocks (or one tile per split).
MIN_BLOCKS = 256


def layout(w: int, L: int, s: int, d: int, itemsize: int, *, groups: int | None = None,
           tile: int | None = None) -> tuple[int, int]:
    """(G, TK): queries per block and keys per shared tile for width w, L frequencies, position
    dimension s and feature dimension d, or (0, 0) outside the kernel's limits; ``groups`` and
    ``tile`` override the defaults (tests: several tiles at simulator sizes)."""
    if not 1 <= w <= MAX_THREADS or d < 1 or s < 1 or L < 0:
        return 0, 0
    G = max(1, _cuda.THREADS // w) if groups is None else int(groups)
    if G < 1 or G * w > MAX_THREADS:
        return 0, 0
    per_query = d * (w + 1) + 2 * max(L, 1) + s + d   # the finish buffer and the query rows
    finish = G * per_query * itemsize
    per_key = (w + 2 * max(L, 1) + s + d) * itemsize
    room = (SHARED_BYTES - finish) // per_key
    TK = min(MAX_TILE, room) if tile is None else int(tile)
    if TK < 1 or TK > room:
        return 0, 0
    return G, TK


def supported(w: int, L: int, s: int, d: int, dtype: Any) -> bool:
    """Whether the kernel takes a kernel MLP of width w, L frequencies, positions in R^s and
    features in R^d in ``dtype`` (float32 or float64)."""
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        return False
    return layout(w, L, s, d, np.dtype(dtype).itemsize)[0] > 0


@functools.lru_cache(maxsize=None)
def _kernel(w: int, L: int, s: int, d: int, nh: int, G: int, TK: int, dtype: str,
            causal: bool, use_dist: bool, gelu_kind: int) -> Any:
    """The integral kernel for the compile-time sizes, dtype and options (the loops over L, d
    and nh get constant trip counts; the causal, distance and GELU branches are pruned)."""
    dt = from_dtype(np.dtype(dtype))
    LA, NHA = max(L, 1), max(nh, 1)     # allocation sizes (a zero-length array is not declared)
    NT = G * w

    @_cu.jit
    def kern(Aq, Ak, Sq, Cq, Sk, Ck, Wgs, Wgc, wr, Wh, Xq, Xk, Uq, Uk, omega, W2r, B2,
             diag_weight, tiles_per_split, part):
        sAk = _cu.shared.array((TK, w), dtype=dt)
        sSk = _cu.shared.array((TK, LA), dtype=dt)
        sCk = _cu.shared.array((TK, LA), dtype=dt)
        sXk = _cu.shared.array((TK, s), dtype=dt)
        sUk = _cu.shared.array((TK, d), dtype=dt)
        sT = _cu.shared.array((G, d, w), dtype=dt)
        sub = _cu.shared.array((G, d), dtype=dt)
        sSq = _cu.shared.array((G, LA), dtype=dt)
        sCq = _cu.shared.array((G, LA), dtype=dt)
        sXq = _cu.shared.array((G, s), dtype=dt)
        sUq = _cu.shared.array((G, d), dtype=dt)
        t = _cu.threadIdx.x
        k = t % w
        g = t // w
        q0 = _cu.blockIdx.x * G
        i = q0 + g
        split = _cu.blockIdx.y
        nq = Uq.shape[0]
        nk = Uk.shape[0]
        active = i < nq
        iq = min(i, nq - 1)
        # this thread's rows of the pair weights (one-row views for _preact)
        wgs = _cu.local.array((1, LA), dtype=dt)
        wgc = _cu.local.array((1, LA), dtype=dt)
        whk = _cu.local.array((1, NHA), dtype=dt)
        wrk = _cu.local.array(1, dtype=dt)
        for l in range(L):
            wgs[0, l] = Wgs[k, l]
            wgc[0, l] = Wgc[k, l]
        for b in range(nh):
            whk[0, b] = Wh[k, b]
        wrk[0] = wr[k]
        aqk = _cu.local.array((1, 1), dtype=dt)         # Aq[i, k], as a 1 x 1 view for _preact
        aqk[0, 0] = Aq[iq, k]
        if active and k == 0:                           # the query rows, read once per block
            for c in range(L):
                sSq[g, c] = Sq[i, c]
                sCq[g, c] = Cq[i, c]
            for c in range(s):
                sXq[g, c] = Xq[i, c]
            for c in range(d):
                sUq[g, c] = Uq[i, c]
        wgs_k, wgc_k, wh_k = wgs[:, :L], wgc[:, :L], whk[:, :nh]
        ak_k = sAk[:, k:k + 1]
        Sq_, Cq_, Sk_, Ck_ = sSq[:, :L], sCq[:, :L], sSk[:, :L], sCk[:, :L]
        sd_ = _cu.local.array(LA, dtype=dt)
        cd_ = _cu.local.array(LA, dtype=dt)
        had_ = _cu.local.array(NHA, dtype=dt)
        sd, cd, had = sd_[:L], cd_[:L], had_[:nh]
        a1 = _cu.local.array(1, dtype=dt)
        T = _cu.local.array(d, dtype=dt)
        ub = _cu.local.array(d, dtype=dt)
        for b in range(d):
            T[b] = 0.0
            ub[b] = 0.0
        j_begin = split * tiles_per_split * TK
        j_end = min(nk, j_begin + tiles_per_split * TK)
        if causal:      # no key after the block's last query: j <= i
            j_end = min(j_end, min(q0 + G, nq))
        for j0 in range(j_begin, j_end, TK):
            for q in range(t, TK, NT):          # the block loads the tile's key rows
                j = j0 + q
                if j < j_end:
                    for c in range(w):
                        sAk[q, c] = Ak[j, c]
                    for c in range(L):
                        sSk[q, c] = Sk[j, c]
                        sCk[q, c] = Ck[j, c]
                    for c in range(s):
                        sXk[q, c] = Xk[j, c]
                    for c in range(d):
                        sUk[q, c] = Uk[j, c]
            _cu.syncthreads()
            if active:
                for q in range(min(TK, j_end - j0)):
                    cw = _weight(omega, iq, j0 + q, causal, diag_weight)
                    if cw == 0.0:
                        continue
                    r = _pair_terms(g, q, Sq_, Cq_, Sk_, Ck_, sXq, sXk, sUq, sUk, nh, use_dist,
                                    sd, cd, had)
                    _preact(0, q, aqk, ak_k, wgs_k, wgc_k, wrk, wh_k, sd, cd, had, r, a1)
                    hk = cw * _gelu(a1[0], gelu_kind)
                    for b in range(d):
                        ujb = sUk[q, b]
                        ub[b] += cw * ujb
                        T[b] += hk * ujb
            _cu.syncthreads()
        if active:
            for b in range(d):
                sT[g, b, k] = T[b]
            if k == 0:
                for b in range(d):
                    sub[g, b] = ub[b]
        _cu.syncthreads()
        if active:
            for a in range(k, d, w):
                part[split, i, a] = _finish_one(sT, sub, W2r, B2, g, a)

    return kern


@functools.lru_cache(maxsize=None)
def _sum_kernel() -> Any:
    """out[i, a] = sum_s part[s, i, a], the key splits added in order (one thread per entry)."""
    @_cu.jit
    def kern(part, out):
        e = _cu.grid(1)
        nq, d = out.shape
        if e < nq * d:
            i = e // d
            a = e - i * d
            acc = 0.0
            for sp in range(part.shape[0]):
                acc += part[sp, i, a]
            out[i, a] = acc
    return kern


def integral(Aq: Any, Ak: Any, Sq: Any, Cq: Any, Sk: Any, Ck: Any, Wgs: Any, Wgc: Any, wr: Any,
             Wh: Any, Xq: Any, Xk: Any, Uq: Any, Uk: Any, omega: Any, W2r: Any, B2: Any,
             causal: bool, diag_weight: float, gelu_kind: int, use_dist: bool, *,
             groups: int | None = None, tile: int | None = None,
             splits: int | None = None) -> Any:
    """I (nq, d) in the dtype of the pieces: ``sum_j c_ij K_ij u_j`` for one kernel MLP from the
    split-W1 pieces of ``tiled._Prep`` (the arguments of ``_numba_tiled.tiled_forward``, on the
    device, one float dtype, C order), the causal mask (queries = keys) with ``diag_weight``,
    GELU ``gelu_kind`` (0 exact, 1 tanh) and the distance group when ``use_dist``.

    ``groups`` (queries per block), ``tile`` (keys per shared tile) and ``splits`` (key splits)
    override the defaults (tests: several blocks, tiles and splits at simulator sizes)."""
    xp = _cuda.array_module(Uq)
    dtype = np.dtype(Uq.dtype)
    nq, nk, d = Uq.shape[0], Uk.shape[0], Uq.shape[1]
    w, L, s, nh = Aq.shape[1], Sq.shape[1], Xq.shape[1], Wh.shape[1]
    G, TK = layout(w, L, s, d, dtype.itemsize, groups=groups, tile=tile)
    if not G:
        raise ValueError(f"the tiled ITNet kernel takes 1 <= w <= {MAX_THREADS} and a shared "
                         f"tile within {SHARED_BYTES} bytes, got w={w}, L={L}, s={s}, d={d}")
    if nq == 0 or nk == 0:
        return xp.zeros((nq, d), dtype=dtype)

    def wide(a: Any, n: int) -> Any:
        """A zero-width piece as one column of zeros (the kernel slices it back to width 0)."""
        return a if a.shape[1] else xp.zeros((n, 1), dtype=dtype)

    Sq, Cq, Sk, Ck = wide(Sq, nq), wide(Cq, nq), wide(Sk, nk), wide(Ck, nk)
    Wgs, Wgc, Wh = wide(Wgs, w), wide(Wgc, w), wide(Wh, w)
    nblocks = _cuda.blocks(nq, G)
    ntiles = -(-nk // TK)
    if splits is None:
        splits = min(ntiles, max(1, -(-MIN_BLOCKS // nblocks)))
    per = -(-ntiles // max(1, min(int(splits), ntiles)))
    nsplit = -(-ntiles // per)
    out = xp.empty((nq, d), dtype=dtype)
    part = out.reshape((1, nq, d)) if nsplit == 1 else xp.empty((nsplit, nq, d), np.float64)
    kern = _kernel(w, L, s, d, nh, G, TK, dtype.name, bool(causal), bool(use_dist),
                   int(gelu_kind))
    kern[(nblocks, nsplit), G * w](Aq, Ak, Sq, Cq, Sk, Ck, Wgs, Wgc, wr, Wh, Xq, Xk, Uq, Uk,
                                    omega, W2r, B2, np.float64(diag_weight), per, part)
    if nsplit > 1:
        _sum_kernel()[_cuda.blocks(nq * d), _cuda.THREADS](part, out)
    return out
