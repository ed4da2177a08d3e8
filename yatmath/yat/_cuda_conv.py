"""Fused Yat convolution (``yat.conv2d``) on the GPU, in numba-cuda (``yatmath._cuda``).

For an image batch I (N, C, H, W) and filters F (O, C, kh, kw) (cross-correlation, stride
(sh, sw), zero padding (ph, pw), dilation (dh, dw); ``yat/conv.py``), each output is

    Y[n, o, y, x] = dot^2 / D,   dot = F_o . patch,   D = ||patch||^2 + ||F_o||^2 - 2 dot + eps

with patch = the (C, kh, kw) window of the zero-padded image at (y sh, x sw).  One kernel
computes Y without the (N Ho Wo, C kh kw) patch matrix or any (.., O) intermediate in global
memory: the only global array written is Y.

Layout.  A block of ``bw x bh`` threads owns an output tile of ``bw`` columns by ``bh py`` rows
(thread (tx, ty) the pixels (y0 + ty + p bh, x0 + tx), p < py) for one image n and a block of
``ob`` filters.  The channels are walked in chunks of ``cb``: per chunk the block stages, in
float64 shared memory, the input tile with its halo (zeros outside the image: the padding) and
the chunk of its ``ob`` filters, then every thread accumulates, in float64 registers, for each
of its py pixels the ``ob`` dots and the patch's squared norm (ob + py shared loads per
ob py + py multiply-adds: the filter values are the same address for the whole block, a
broadcast).  ||F_o||^2 is accumulated beside it by the first ``ob`` threads from the staged
filters.  So the image is read from global memory once per filter block (from L2 after the
first), the filters once per block, and nothing else.

Formula.  The expanded D with the repair rule, as ``gram``'s kernel (``_cuda_kernels._pair_sd``)
and the reference: where ``_numba_kernels._needs_repair`` says the expanded form cancels
(t = ||patch||^2 + ||F_o||^2 - 2 dot < tau (...), NaN or inf) the thread recomputes that pair in
the direct float64 form, tap by tap, with ``_numba_kernels._direct_pair`` on the channel vectors
of the image and of the filter in global memory; K = ``_numba_kernels._finish`` (dot (dot / D)).
All three are the Numba CPU definitions compiled as device functions (``_cuda_kernels``).  The
expanded form costs one multiply-add per term and filter (the direct form three), which is why
it is used with the rare repair rather than the direct form throughout.

Accuracy.  The sums are float64 whatever the input dtype, so the dots and norms carry at most
~ d u_64 (||patch|| ||F_o||, resp. the norms^2) with d = C kh kw; an unrepaired D is then within
~ 2 d u_64 / tau of D relative (tau = ``REPAIR_TAU`` = 1/8) and a repaired one within
(d + 2) u_64.  K is within ~ 4 d u_64 K (cond + 8) of the exact value (cond = ||patch|| ||F_o||
/ |dot|), plus one rounding to the output dtype (float32: u_32 K; written by the kernel's store,
so float32 subnormals are kept: the kernel is compiled without fastmath).  This is inside the
reference's contract (``kernel.product``'s bound with d = C kh kw and the dtype's u) and for
float32 inputs much tighter than it (the reference's GEMM sums in float32).  Beyond range:
float64 entries whose squares overflow give D = inf in both forms, as in the reference.

Limits.  Shared memory: ``cb`` (TH TW + ob kh kw) + ob float64 with TH = (bh py - 1) sh +
(kh - 1) dh + 1, TW = (bw - 1) sw + (kw - 1) dw + 1; ``cb`` is the most channels within
``_SHARED_TARGET`` (24 KiB, so several blocks share an SM), at least one.  Where even one
channel exceeds the 48 KiB a block gets without opting in (very large strided or dilated
filters), ``supported`` is False and the "cupy" row runs the reference's array code instead.
Batches beyond the grid's z limit are launched in chunks.

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same source runs on NumPy arrays:
``tests/yat/test_cuda_conv.py`` executes the staging, the halo, the chunking over channels and
filters, the partial tiles and the repair on the CPU.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import types

from .. import _cuda
from . import _cuda_kernels as ck

#: numba.cuda, bound to a module-level name: the simulator swaps in its fake module by name
_cu = _cuda.cuda()
_finish = ck._finish
_direct_pair = ck._direct_pair
_needs_repair = ck._needs_repair
_f64 = types.float64

#: Threads per block (columns, rows), output rows per thread, filters per thread.
BLOCK = (16, 8)
ROWS_PER_THREAD = 2
FILTERS_PER_THREAD = 8
#: Shared memory a block aims at (several resident blocks per SM); a block may use up to
#: ``_SHARED_MAX`` (one channel per chunk) before the shape is refused.
_SHARED_TARGET = 24 * 1024
_SHARED_MAX = 48 * 1024
#: Most blocks in the grid's z (images x filter blocks) and y (row tiles) dimensions.
_MAX_GRID_Z = 65535
_MAX_GRID_Y = 65535


class Plan:
    """Launch geometry of one convolution: threads (bw, bh), py rows and ob filters per thread,
    cb channels per chunk, the staged tile TH x TW and the shared bytes of a block."""

    def __init__(self, C: int, O: int, kernel: tuple[int, int], stride: tuple[int, int],
                 dilation: tuple[int, int], block: tuple[int, int] = BLOCK,
                 rows: int = ROWS_PER_THREAD, filters: int = FILTERS_PER_THREAD,
                 channels: int | None = None) -> None:
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        self.bw, self.bh = int(block[0]), int(block[1])
        self.py = int(rows)
        self.ob = max(1, min(int(filters), int(O)))
        self.th = (self.bh * self.py - 1) * sh + (kh - 1) * dh + 1
        self.tw = (self.bw - 1) * sw + (kw - 1) * dw + 1
        per = 8 * (self.th * self.tw + self.ob * kh * kw)      # bytes per staged channel
        fixed = 8 * self.ob                                     # the filter norms
        if channels is None:
            cb = max(1, min(int(C), (_SHARED_TARGET - fixed) // per))
        else:
            cb = max(1, min(int(C), int(channels)))
        self.cb = cb
        self.shared = cb * per + fixed
        self.ok = self.shared <= _SHARED_MAX


def supported(C: int, O: int, kernel: tuple[int, int], stride: tuple[int, int],
              dilation: tuple[int, int]) -> bool:
    """Whether the fused kernel takes this shape with the default geometry (module docstring:
    one channel's tile and filter slice must fit 48 KiB of shared memory)."""
    return Plan(C, O, kernel, stride, dilation).ok


@_cu.jit(device=True)
def _direct_patch(img, F, n, o, oy, ox, sh, sw, ph, pw, dh, dw):
    """(dot, ||patch - F_o||^2) of output (n, o, oy, ox) in the direct float64 form: the sum
    over the taps (i, j) of ``_direct_pair`` of the image's and the filter's channel vectors.  A
    tap in the padding is a zero vector x: x . w = 0, and ||0 - w||^2 is what ``_direct_pair(w,
    w)`` returns as its dot (the products (-w_c)^2 = w_c w_c, summed in the same order)."""
    s = 0.0
    q = 0.0
    H = img.shape[2]
    W = img.shape[3]
    for i in range(F.shape[2]):
        gy = oy * sh - ph + i * dh
        for j in range(F.shape[3]):
            gx = ox * sw - pw + j * dw
            w = F[o, :, i, j]
            if 0 <= gy < H and 0 <= gx < W:
                a, b = _direct_pair(img[n, :, gy, gx], w)
                s += a
                q += b
            else:
                a, b = _direct_pair(w, w)
                q += a
    return s, q


@functools.lru_cache(maxsize=None)
def _kernel(kh: int, kw: int, sh: int, sw: int, dh: int, dw: int, bw: int, bh: int, py: int,
            ob: int, th: int, tw: int) -> Any:
    """The fused kernel for one filter size, stride, dilation and geometry (compile-time
    constants: the tap loops and the register blocks unroll)."""
    kk = kh * kw
    nthreads = bw * bh
    tile = th * tw
    nacc = py * ob      # a local array's size must be a constant name, not an expression

    @_cu.jit
    def kern(img, F, eps, tau, cbm, ph, pw, n0, out):
        # one dynamic shared array: the input tiles of cbm channels at [0, cbm TH TW), the
        # filters (ob, cbm, kh, kw) after them, then the ob filter norms (offsets, not slices)
        shm = _cu.shared.array(0, dtype=_f64)
        fo = cbm * tile
        no = fo + ob * cbm * kk
        tx = _cu.threadIdx.x
        ty = _cu.threadIdx.y
        t = ty * bw + tx
        C = img.shape[1]
        H = img.shape[2]
        W = img.shape[3]
        O = out.shape[1]
        Ho = out.shape[2]
        Wo = out.shape[3]
        nob = (O + ob - 1) // ob
        z = _cu.blockIdx.z
        n = n0 + z // nob
        o0 = (z - (z // nob) * nob) * ob
        x0 = _cu.blockIdx.x * bw
        y0 = _cu.blockIdx.y * (bh * py)
        iy0 = y0 * sh - ph
        ix0 = x0 * sw - pw
        acc = _cu.local.array(nacc, dtype=_f64)
        pn = _cu.local.array(py, dtype=_f64)
        wv = _cu.local.array(ob, dtype=_f64)
        for k in range(py * ob):
            acc[k] = 0.0
        for p in range(py):
            pn[p] = 0.0
        if t < ob:
            shm[no + t] = 0.0
        for c0 in range(0, C, cbm):
            cb = min(cbm, C - c0)
            for e in range(t, cb * tile, nthreads):       # the tile, zeros outside the image
                c = e // tile
                r = e - c * tile
                yy = r // tw
                gy = iy0 + yy
                gx = ix0 + r - yy * tw
                v = 0.0
                if 0 <= gy < H and 0 <= gx < W:
                    v = np.float64(img[n, c0 + c, gy, gx])
                shm[e] = v
            for e in range(t, ob * cb * kk, nthreads):    # the filters, zeros beyond O
                o = e // (cb * kk)
                r = e - o * (cb * kk)
                c = r // kk
                k = r - c * kk
                v = 0.0
                if o0 + o < O:
                    v = np.float64(F[o0 + o, c0 + c, k // kw, k - (k // kw) * kw])
                shm[fo + o * cbm * kk + r] = v
            _cu.syncthreads()
            if t < ob:                                    # ||F_o||^2, this chunk's part
                fsum = shm[no + t]
                for r in range(cb * kk):
                    wf = shm[fo + t * cbm * kk + r]
                    fsum += wf * wf
                shm[no + t] = fsum
            for c in range(cb):
                for i in range(kh):
                    for j in range(kw):
                        wb = fo + c * kk + i * kw + j
                        for o in range(ob):
                            wv[o] = shm[wb + o * cbm * kk]
                        xb = c * tile + i * dh * tw + tx * sw + j * dw
                        for p in range(py):
                            xv = shm[xb + (ty + p * bh) * sh * tw]
                            pn[p] += xv * xv
                            for o in range(ob):
                                acc[p * ob + o] += xv * wv[o]
            _cu.syncthreads()
        ox = x0 + tx
        e64 = np.float64(eps)
        for p in range(py):
            oy = y0 + ty + p * bh
            if oy < Ho and ox < Wo:
                for o in range(ob):
                    og = o0 + o
                    if og < O:
                        s = acc[p * ob + o]
                        nrm = pn[p] + shm[no + o]
                        if _needs_repair(s, nrm, tau):
                            s, q = _direct_patch(img, F, n, og, oy, ox, sh, sw, ph, pw, dh, dw)
                            D = q + e64
                        else:
                            D = (nrm - (s + s)) + e64
                        out[n, og, oy, ox] = _finish(s, D, 0.0, 0)
    return kern


def conv2d(img: Any, F: Any, eps: float, tau: float, stride: tuple[int, ...],
           padding: tuple[int, ...], dilation: tuple[int, ...], *,
           block: tuple[int, int] = BLOCK, rows: int = ROWS_PER_THREAD,
           filters: int = FILTERS_PER_THREAD, channels: int | None = None) -> Any:
    """Y (N, O, Ho, Wo) in the dtype of ``img`` for contiguous ``img`` (N, C, H, W) and ``F``
    (O, C, kh, kw) of one float dtype (module docstring); tau = ``REPAIR_TAU``.  ``block``,
    ``rows``, ``filters`` and ``channels`` override the geometry (tests: several tiles, filter
    blocks and channel chunks at small sizes)."""
    xp = _cuda.array_module(img)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    N, C, H, W = img.shape
    O, _, kh, kw = F.shape
    Ho = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = xp.empty((N, O, Ho, Wo), dtype=img.dtype)
    if out.size == 0:
        return out
    plan = Plan(C, O, (kh, kw), (sh, sw), (dh, dw), block, rows, filters, channels)
    if not plan.ok:
        raise ValueError(f"conv2d: one channel of the staged tile needs {plan.shared} bytes of "
                         f"shared memory, more than {_SHARED_MAX}")
    gy = _cuda.blocks(Ho, plan.bh * plan.py)
    if gy > _MAX_GRID_Y:
        raise ValueError(f"conv2d: {Ho} output rows need {gy} row tiles, more than {_MAX_GRID_Y}")
    kern = _kernel(kh, kw, sh, sw, dh, dw, plan.bw, plan.bh, plan.py, plan.ob, plan.th, plan.tw)
    nob = -(-O // plan.ob)
    per = max(1, _MAX_GRID_Z // nob)                    # images per launch
    dt = np.float64
    for n0 in range(0, N, per):
        nb = min(per, N - n0)
        kern[(_cuda.blocks(Wo, plan.bw), gy, nb * nob), (plan.bw, plan.bh), 0, plan.shared](
            img, F, dt(eps), dt(tau), np.int64(plan.cb), np.int64(ph), np.int64(pw),
            np.int64(n0), out)
    return out
