"""Yat convolution (Y6): the Yat kernel between every image patch and every filter.

For an image I (C, H, W) (or a batch (N, C, H, W)) and filters F (O, C, kh, kw), with
cross-correlation (no flip) and the same stride, padding and dilation for every term:

    dot_o = sum_c correlate(I_c, F_{o,c})             # the ordinary convolution output
    pn    = sum_c correlate(I_c^2, ones(kh, kw))      # ||patch||^2
    Y_o   = dot_o^2 / D,   D = pn + ||F_o||^2 - 2 dot_o + eps

Y_o[p] equals ``yatmath.yat.product(F_o, patch_p, eps)`` with both flattened.  Zero padding
contributes zeros to dot and pn alike.  The efficient form is used: the (strided, dilated)
patches are a zero-copy ``sliding_window_view`` of the padded image, ``dot`` is one
``tensordot`` (a GEMM over C kh kw) and ``pn`` the windowed sum of the squared image.

The expanded D cancels when a patch is close to a filter; exactly as in ``kernel.gram``, every
position where pn + ||F||^2 - 2 dot < REPAIR_TAU (pn + ||F||^2) is recomputed from the direct
form sum (patch - F)^2 in float64, so D is never below eps and its relative error is
O(C kh kw u / REPAIR_TAU).  The result therefore obeys the error bound of ``kernel.product``
with d = C kh kw (including its cond term for patches nearly orthogonal to a filter), and
K is formed as dot * (dot / D) (``_reference._finish``), which never overflows where K is finite.

Backends: "numpy" runs this NumPy/BLAS code (it is one GEMM plus elementwise work) and
"cupy" the same code with CuPy (NumPy inputs are copied to the device and the result back);
"auto" is "cupy" for CuPy inputs and "numpy" otherwise.  There is no Numba kernel for the
convolution, so ``backend="numba"`` is refused rather than silently run as "numpy".
"""
from __future__ import annotations

from .. import _backend as be
from .._validate import (as_float_array, check_eps, check_int, check_memory,
                         common_dtype)
from .._registry import choose, register
from ._dispatch import NUMPY_CUPY_NOTE, array_xp
from ._reference import REPAIR_TAU, needs_repair
from ._reference import finish as _finish

__all__ = ["conv2d"]

_REPAIR_CHUNK_ELEMS = 1 << 22


def _pair(value, name, *, minimum):
    vals = value if isinstance(value, (tuple, list)) else (value, value)
    if len(vals) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
    return tuple(check_int(v, name, minimum=minimum) for v in vals)


def conv2d(image, filters, eps, stride=1, padding=0, dilation=1, *, backend="auto",
           check_finite=True):
    """Yat 2-D cross-correlation of ``image`` with ``filters`` (module docstring).

    Parameters
    ----------
    image : (C, H, W) or (N, C, H, W)
    filters : (O, C, kh, kw)
    eps : float > 0
    stride : int >= 1 or pair;  padding : int >= 0 or pair (zeros);  dilation : int >= 1 or pair

    backend : "auto" | "reference" (alias "numpy") | "cupy" (module docstring; "numba" has no
        kernel here and is refused).  NumPy or CuPy arrays (NumPy/CuPy array code).

    Returns (O, Ho, Wo) or (N, O, Ho, Wo), Ho = floor((H + 2 ph - dh (kh - 1) - 1) / sh) + 1,
    in the common dtype of image and filters, where the inputs live.
    """
    lib = array_xp(image, filters)[0]
    impl = choose("yat.conv2d", backend, lib)  # refuses "numba": there is no Numba kernel
    if be.wants_device_copy(backend, image, filters):
        image, filters = be.to_device(image, filters)
        return conv2d(image, filters, eps, stride, padding, dilation, backend=backend,
                      check_finite=check_finite).get()
    xp = be.array_module(image, filters)
    img = as_float_array(image, "image", ndim=(3, 4), check_finite=check_finite, xp=xp)
    F = as_float_array(filters, "filters", ndim=4, check_finite=check_finite, xp=xp)
    single = img.ndim == 3
    if single:
        img = img[None]
    if img.shape[1] != F.shape[1]:
        raise ValueError(f"image has {img.shape[1]} channels but filters expect {F.shape[1]} "
                         f"(image.shape={tuple(image.shape)}, filters.shape={tuple(F.shape)})")
    dtype = common_dtype(img, F)
    eps = check_eps(eps, dtype)
    sh, sw = _pair(stride, "stride", minimum=1)
    ph, pw = _pair(padding, "padding", minimum=0)
    dh, dw = _pair(dilation, "dilation", minimum=1)
    Nb, C, H, W = img.shape
    O, _, kh, kw = F.shape
    if kh < 1 or kw < 1:
        raise ValueError(f"filters must have a kernel of at least 1x1, got shape {tuple(F.shape)}")
    ekh, ekw = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if H + 2 * ph < ekh or W + 2 * pw < ekw:
        raise ValueError(f"filters: the dilated filter ({ekh}x{ekw}) is larger than the padded "
                         "image "
                         f"({H + 2 * ph}x{W + 2 * pw})")
    Ho, Wo = (H + 2 * ph - ekh) // sh + 1, (W + 2 * pw - ekw) // sw + 1
    # the GEMM's copy of the patches, dot and ~5 temporaries of its size, the padded image
    need = dtype.itemsize * (Nb * Ho * Wo * (C * kh * kw + 6 * O)
                             + 2 * Nb * C * (H + 2 * ph) * (W + 2 * pw))
    check_memory(need, f"conv2d of a ({Nb}, {C}, {H}, {W}) image batch with {O} filters",
                 alternative="smaller image batches", xp=xp)
    Y = impl.func(img, F, eps, dtype, (sh, sw), (ph, pw), (dh, dw), (ekh, ekw), xp)
    return Y[0] if single else Y


@register("yat.conv2d", "reference", libraries=("numpy", "cupy"), note=NUMPY_CUPY_NOTE
          + "; one GEMM (tensordot) over sliding_window_view patches + repair")
@register("yat.conv2d", "cupy", libraries=("cupy",), device="gpu",
          note="the reference's array code run by CuPy (cuBLAS tensordot + elementwise)")
def _conv2d_arrays(img, F, eps, dtype, stride, padding, dilation, ext, xp):
    """The Yat convolution of validated (N, C, H, W) ``img`` and (O, C, kh, kw) ``F``."""
    (sh, sw), (ph, pw), (dh, dw), (ekh, ekw) = stride, padding, dilation, ext
    C, kh, kw = F.shape[1:]
    # C order: the GEMM's summation order (hence its rounding) must not depend on the layout
    img = xp.ascontiguousarray(img.astype(dtype, copy=False))
    F = xp.ascontiguousarray(F.astype(dtype, copy=False))
    xpad = xp.pad(img, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    swv = xp.lib.stride_tricks.sliding_window_view
    # (N, C, Ho, Wo, kh, kw): strided rows/cols of windows, dilated taps inside each window
    win = swv(xpad, (ekh, ekw), axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    dot = xp.tensordot(win, F, axes=([1, 4, 5], [1, 2, 3]))            # (N, Ho, Wo, O)
    pn = xp.sum(swv(xpad * xpad, (ekh, ekw), axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw],
                axis=(1, 4, 5))                                          # (N, Ho, Wo)
    fn = xp.sum(F * F, axis=(1, 2, 3))                                   # (O,)
    nrm = pn[..., None] + fn
    t = nrm - 2.0 * dot
    flag = needs_repair(dot, nrm, REPAIR_TAU)
    D = xp.maximum(t + eps, eps)
    idx = xp.nonzero(flag)
    if idx[0].size:
        step = max(1, _REPAIR_CHUNK_ELEMS // max(1, C * kh * kw))
        for k0 in range(0, int(idx[0].size), step):
            n_, h_, w_, o_ = (a[k0:k0 + step] for a in idx)
            diff = win[n_, :, h_, w_].astype(xp.float64) - F[o_].astype(xp.float64)
            D[n_, h_, w_, o_] = (xp.sum(diff * diff, axis=(1, 2, 3)) + eps).astype(dtype)
    Y = _finish(dot, D, None, "inner").astype(dtype, copy=False)
    return xp.ascontiguousarray(xp.moveaxis(Y, 3, 1))                    # (N, O, Ho, Wo)
