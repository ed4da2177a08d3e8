"""Yat convolution (Y6): the Yat kernel between every image patch and every filter.

For an image I (C, H, W) (or a batch (N, C, H, W)) and filters F (O, C, kh, kw), with
cross-correlation (no flip) and the same stride, padding and dilation for every term:

    dot_o = sum_c correlate(I_c, F_{o,c})             # the ordinary convolution output
    pn    = sum_c correlate(I_c^2, ones(kh, kw))      # ||patch||^2
    Y_o   = dot_o^2 / D,   D = pn + ||F_o||^2 - 2 dot_o + eps

Y_o[p] equals ``yatmath.yat.product(F_o, patch_p, eps)`` with both flattened.  Zero padding
contributes zeros to dot and pn alike.  The efficient form is used: tap (i, j) of every
(strided, dilated) window is one strided slice of the padded image, the kh kw slices are stacked
into the (N Ho Wo, C kh kw) patch matrix P, ``dot`` is one matmul (a GEMM over C kh kw) with the
flattened filters and ``pn`` the row norms of P (``vecdot``).

The expanded D cancels when a patch is close to a filter; exactly as in ``kernel.gram``, every
position where pn + ||F||^2 - 2 dot < REPAIR_TAU (pn + ||F||^2) is recomputed from the direct
form sum (patch - F)^2 in float64, so D is never below eps and its relative error is
O(C kh kw u / REPAIR_TAU).  The result therefore obeys the error bound of ``kernel.product``
with d = C kh kw (including its cond term for patches nearly orthogonal to a filter), and
K is formed as dot * (dot / D) (``_reference._finish``), which never overflows where K is finite.

Array libraries.  The reference is one code for every array API library (NumPy and CuPy
through their array_api_compat namespaces, PyTorch, JAX, ``array_api_strict``) and returns the
result in the caller's library, on its device.  The standard has neither ``sliding_window_view``
nor fancy in-place assignment, so the patches are stacked slices (no ``pad``: zeros are
concatenated) and the repaired D goes back to its positions with ``where`` (each flagged entry's
rank among the flagged ones by ``cumulative_sum``).  On NumPy this form is 0.3-1.0x the time of
the former ``sliding_window_view`` + ``tensordot`` code (``benchmarks/bench_yat_xp.py``: the
windowed sum of squares over a strided 6-D view was that code's slow part); ||patch||^2 is
rounded in another order, so NumPy results moved in the last bits (within the bound above).

Backends: "reference" (alias "numpy") runs this array code; "cupy" the fused numba-cuda kernel
of ``_cuda_conv`` (one pass: patches staged in shared memory, dots and norms summed in float64
registers, the repair rule per pair, K written once; no patch matrix), or, for a shape whose
staged tile does not fit the kernel's shared memory, this array code run by CuPy (NumPy inputs
are copied to the device and the result back); "auto" is "cupy" for CuPy inputs and the
reference otherwise.  There is no Numba kernel for the convolution, so ``backend="numba"`` is
refused rather than silently run as the reference.

Memory.  Each path checks its own need up front (MemoryError naming the batch and the bytes)
against the memory of the arrays' library (the device's free memory for CuPy): the array code
its patch matrix and temporaries, itemsize (N Ho Wo (C kh kw + 6 O) + 2 N C Hp Wp) bytes; the
fused kernel only its output (N, O, Ho, Wo) and any cast copy of an input, so it runs shapes
whose patch matrix would not fit.
"""
from __future__ import annotations

from typing import Any

from .. import _array
from .._array import caller
from .._registry import choose, register
from .._typing import Array, Namespace
from .._validate import as_float_array, check_eps, check_int, check_memory
from ._dtypes import astype as _astype
from ._dtypes import float_dtype, np_dtype
from ._reference import REPAIR_TAU, needs_repair
from ._reference import finish as _finish

__all__ = ["conv2d"]

_REPAIR_CHUNK_ELEMS = 1 << 22


def _pair(value: int | tuple[int, int], name: str, *, minimum: int) -> tuple[int, ...]:
    vals = value if isinstance(value, (tuple, list)) else (value, value)
    if len(vals) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
    return tuple(check_int(v, name, minimum=minimum) for v in vals)


def conv2d(image: Array, filters: Array, eps: float, stride: int | tuple[int, int] = 1,
           padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1, *,
           backend: str = "auto", check_finite: bool = True) -> Array:
    """Yat 2-D cross-correlation of ``image`` with ``filters`` (module docstring).

    Parameters
    ----------
    image : (C, H, W) or (N, C, H, W)
    filters : (O, C, kh, kw)
    eps : float > 0
    stride : int >= 1 or pair;  padding : int >= 0 or pair (zeros);  dilation : int >= 1 or pair

    backend : "auto" | "reference" (alias "numpy") | "cupy" (module docstring; "numba" has no
        kernel here and is refused).  Arrays of any array API library.

    Returns (O, Ho, Wo) or (N, O, Ho, Wo), Ho = floor((H + 2 ph - dh (kh - 1) - 1) / sh) + 1,
    in the common dtype of image and filters, in their array library and on their device.
    """
    where = caller(image, filters)
    xp = where.module   # NumPy / CuPy modules, else the array API namespace
    impl = choose("yat.conv2d", backend, where.library)  # refuses "numba": there is no kernel
    img = as_float_array(image, "image", ndim=(3, 4), check_finite=check_finite, xp=xp)
    F = as_float_array(filters, "filters", ndim=4, check_finite=check_finite, xp=xp)
    single = img.ndim == 3
    if single:
        img = xp.expand_dims(img, axis=0)
    if img.shape[1] != F.shape[1]:
        raise ValueError(f"image has {img.shape[1]} channels but filters expect {F.shape[1]} "
                         f"(image.shape={tuple(image.shape)}, filters.shape={tuple(F.shape)})")
    dtype = float_dtype(xp, img, F)
    eps = check_eps(eps, np_dtype(xp, dtype))
    sh, sw = _pair(stride, "stride", minimum=1)
    ph, pw = _pair(padding, "padding", minimum=0)
    dh, dw = _pair(dilation, "dilation", minimum=1)
    H, W = img.shape[2:]
    kh, kw = F.shape[2:]
    if kh < 1 or kw < 1:
        raise ValueError(f"filters must have a kernel of at least 1x1, got shape {tuple(F.shape)}")
    ekh, ekw = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if H + 2 * ph < ekh or W + 2 * pw < ekw:
        raise ValueError(f"filters: the dilated filter ({ekh}x{ekw}) is larger than the padded "
                         "image "
                         f"({H + 2 * ph}x{W + 2 * pw})")
    # the memory each path needs is checked by its row (``_check_patch_memory``, ``_conv2d_cupy``)
    Y = impl(img, F, eps, dtype, (sh, sw), (ph, pw), (dh, dw), (ekh, ekw))
    return Y[0, ...] if single else Y


def _what(img: Array, F: Array) -> str:
    N, C, H, W = img.shape
    return f"conv2d of a ({N}, {C}, {H}, {W}) image batch with {F.shape[0]} filters"


def _out_shape(img: Array, F: Array, stride: tuple[int, ...], padding: tuple[int, ...],
               ext: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(N, O, Ho, Wo) of the result (``conv2d``'s docstring)."""
    N, _, H, W = img.shape
    return (N, F.shape[0], (H + 2 * padding[0] - ext[0]) // stride[0] + 1,
            (W + 2 * padding[1] - ext[1]) // stride[1] + 1)


def _check_patch_memory(img: Array, F: Array, dtype: Any, stride: tuple[int, ...],
                        padding: tuple[int, ...], ext: tuple[int, ...]) -> None:
    """MemoryError unless the array code's need fits in the memory of the arrays' library (the
    device's free memory for CuPy, else the host's): in the common dtype, the GEMM's copy of the
    (N Ho Wo, C kh kw) patch matrix, dot and ~5 temporaries of its size (N Ho Wo O each) and
    two copies of the padded image, itemsize (N Ho Wo (C kh kw + 6 O) + 2 N C Hp Wp) bytes."""
    xp = caller(img, F).module
    N, C, H, W = img.shape
    _, O, Ho, Wo = _out_shape(img, F, stride, padding, ext)
    kh, kw = F.shape[2:]
    need = np_dtype(xp, dtype).itemsize * (N * Ho * Wo * (C * kh * kw + 6 * O)
                                           + 2 * N * C * (H + 2 * padding[0])
                                           * (W + 2 * padding[1]))
    check_memory(need, _what(img, F), alternative="smaller image batches", xp=xp)


def _pad2(img: Array, ph: int, pw: int, xp: Namespace) -> Array:
    """``img`` (N, C, H, W) with ph zero rows and pw zero columns on each side (concatenated)."""
    N, C, H, W = img.shape
    dev = _array.device_of(img)
    if ph:
        z = xp.zeros((N, C, ph, W), dtype=img.dtype, device=dev)
        img = xp.concat([z, img, z], axis=2)
    if pw:
        z = xp.zeros((N, C, H + 2 * ph, pw), dtype=img.dtype, device=dev)
        img = xp.concat([z, img, z], axis=3)
    return img


def _dots(img: Array, F: Array, eps: float, dtype: Any, stride: tuple[int, ...],
          padding: tuple[int, ...], dilation: tuple[int, ...], ext: tuple[int, ...],
          xp: Namespace) -> tuple[Any, ...]:
    """Any array API library: (dot, pn, ||F_o||^2, repair) from the (N Ho Wo, C kh kw) patch
    matrix P.

    Row (n, ho, wo) of P, column (c, i, j) is xpad[n, c, i dh + ho sh, j dw + wo sw]: tap (i, j)
    of every window is one strided slice of the padded image, and the kh kw slices are stacked.
    """
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    N = img.shape[0]
    O, C, kh, kw = F.shape
    xpad = xp.permute_dims(_pad2(img, ph, pw, xp), (0, 2, 3, 1))      # (N, Hp, Wp, C)
    Ho = (xpad.shape[1] - ext[0]) // sh + 1
    Wo = (xpad.shape[2] - ext[1]) // sw + 1
    taps = [xpad[:, i * dh:i * dh + (Ho - 1) * sh + 1:sh, j * dw:j * dw + (Wo - 1) * sw + 1:sw, :]
            for i in range(kh) for j in range(kw)]                       # kh kw x (N, Ho, Wo, C)
    P = xp.reshape(xp.stack(taps, axis=-1), (N * Ho * Wo, C * kh * kw))  # columns (c, i, j)
    Ff = xp.reshape(F, (O, C * kh * kw))
    dot = xp.reshape(P @ Ff.T, (N, Ho, Wo, O))
    pn = xp.reshape(xp.vecdot(P, P), (N, Ho, Wo))
    fn = xp.vecdot(Ff, Ff)                                               # ||F_o||^2, (O,)

    def repair(D: Array, flag: Array) -> Array:
        """D with the flagged entries replaced by the direct form: the flagged entries are
        gathered (``take``), evaluated, and put back with ``where`` (flat index -> rank)."""
        flat = xp.reshape(flag, (-1,))
        k = xp.nonzero(flat)[0]
        m = int(k.shape[0])
        if not m:
            return D
        step = max(1, _REPAIR_CHUNK_ELEMS // max(1, C * kh * kw))
        vals = []
        for k0 in range(0, m, step):
            kk = k[k0:min(k0 + step, m)]
            diff = (xp.astype(xp.take(P, kk // O, axis=0), xp.float64)
                    - xp.astype(xp.take(Ff, kk % O, axis=0), xp.float64))
            vals.append(_astype(xp, xp.sum(diff * diff, axis=1) + eps, dtype))
        rank = xp.cumulative_sum(xp.astype(flat, xp.int64)) - 1          # rank among flagged
        rank = xp.where(flat, rank, 0)
        fixed = xp.take(xp.concat(vals), rank, axis=0)
        return xp.where(flag, xp.reshape(fixed, tuple(D.shape)), D)
    return dot, pn, fn, repair


@register("yat.conv2d", "reference",
          note="any array API library: the patch matrix stacked from kh*kw strided slices of "
               "the padded image, one matmul with the flattened filters, ||patch||^2 by vecdot, "
               "the repaired entries put back by take/where")
def _conv2d_arrays(img: Array, F: Array, eps: float, dtype: Any, stride: tuple[int, ...],
                   padding: tuple[int, ...], dilation: tuple[int, ...],
                   ext: tuple[int, ...]) -> Array:
    """The Yat convolution of validated (N, C, H, W) ``img`` and (O, C, kh, kw) ``F``, for
    arrays of any library.  One code for every library: NumPy and CuPy (whose own module is not
    their array API namespace) run it through their array_api_compat namespaces.  Refuses
    (MemoryError) a problem whose patch matrix and temporaries do not fit
    (``_check_patch_memory``)."""
    _check_patch_memory(img, F, dtype, stride, padding, ext)
    where = caller(img, F)
    xp = where.xp
    if where.module is not xp:   # NumPy, CuPy
        # C order: the GEMM's and the norms' summation order (hence their rounding) must not
        # depend on the caller's layout (a strided view would reach matmul as a strided view)
        img = where.module.ascontiguousarray(img.astype(dtype, copy=False))
        F = where.module.ascontiguousarray(F.astype(dtype, copy=False))
    img, F = _astype(xp, img, dtype), _astype(xp, F, dtype)
    dot, pn, fn, repair = _dots(img, F, eps, dtype, stride, padding, dilation, ext, xp)
    nrm = xp.expand_dims(pn, axis=-1) + fn
    t = nrm - 2.0 * dot
    flag = needs_repair(dot, nrm, REPAIR_TAU)
    D = repair(xp.maximum(t + eps, eps), flag)
    return xp.moveaxis(_astype(xp, _finish(dot, D, None, "inner"), dtype), 3, 1)  # (N, O, Ho, Wo)


@register("yat.conv2d", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          note="numba-cuda fused kernel (_cuda_conv): 2 output pixels x 8 filters per "
               "thread, image tile + halo and filters staged in shared memory by channel "
               "chunks, dots and norms in float64 registers, repair rule per pair (direct "
               "float64 form), K written once, no patch matrix; a staged tile beyond 48 KiB of "
               "shared memory (very large strided/dilated filters) runs the reference's array "
               "code with CuPy instead")
def _conv2d_cupy(img: Array, F: Array, eps: float, dtype: Any, stride: tuple[int, ...],
                 padding: tuple[int, ...], dilation: tuple[int, ...],
                 ext: tuple[int, ...]) -> Array:
    """The fused kernel of ``_cuda_conv`` on device arrays (C order, the common dtype), or the
    reference's array code on the device where the kernel's shared memory would not fit.

    Memory: the kernel allocates only Y (N, O, Ho, Wo) in the common dtype, beside a cast copy
    of each input that is not already C-ordered in that dtype; that need is checked against the
    device's free memory (MemoryError naming the batch, Y and the bytes), not the patch matrix
    of the array code, which the fallback checks itself.  Host inputs are already on the device
    here (``host_input``), and the host copy of Y made on return is not counted."""
    from . import _cuda_conv as cc

    O, C, kh, kw = F.shape
    if not cc.supported(C, O, (kh, kw), (stride[0], stride[1]), (dilation[0], dilation[1])):
        return _conv2d_arrays(img, F, eps, dtype, stride, padding, dilation, ext)
    xm = caller(img, F).module
    shape = _out_shape(img, F, stride, padding, ext)
    copies = sum(a.size for a in (img, F) if a.dtype != dtype or not a.flags.c_contiguous)
    need = np_dtype(xm, dtype).itemsize * (shape[0] * shape[1] * shape[2] * shape[3] + copies)
    check_memory(need, f"{_what(img, F)} by the fused kernel (its {shape} output)", xp=xm)
    img = xm.ascontiguousarray(img.astype(dtype, copy=False))
    F = xm.ascontiguousarray(F.astype(dtype, copy=False))
    return cc.conv2d(img, F, eps, REPAIR_TAU, stride, padding, dilation)
