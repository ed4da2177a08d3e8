"""Yat convolution (Y6) against an explicit per-patch loop calling yatmath.yat.product.

Tolerance: ``kernel``'s documented bound for one Yat product with d = C kh kw features,

    |K_hat - K| <= 4 (d + 4) u K (cond + 8) + ((d + 4) u ||w|| ||x||)^2 / D,

with cond = ||w|| ||x|| / |w . x|, applied entry by entry to the difference between conv2d and
the direct-form reference (which itself is within a small fraction of that bound).
"""
from __future__ import annotations

import numpy as np
import pytest

import yatmath._array as be
from yatmath.yat import conv2d, product

U64 = np.finfo(np.float64).eps / 2


def _explicit(img, F, eps, stride, padding, dilation):
    """Loop over output positions: pad, cut the dilated patch, call product per filter."""
    single = img.ndim == 3
    if single:
        img = img[None]
    (sh, sw), (ph, pw), (dh, dw) = (
        (v, v) if np.isscalar(v) else tuple(v) for v in (stride, padding, dilation))
    N, C, H, W = img.shape
    O, _, kh, kw = F.shape
    P = np.zeros((N, C, H + 2 * ph, W + 2 * pw))
    P[:, :, ph:ph + H, pw:pw + W] = img
    Ho = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    Y = np.empty((N, O, Ho, Wo))
    X = np.empty((N, Ho, Wo, C * kh * kw))
    for n in range(N):
        for i in range(Ho):
            for j in range(Wo):
                patch = P[n, :, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                          j * sw:j * sw + dw * (kw - 1) + 1:dw]
                X[n, i, j] = patch.ravel()
                for o in range(O):
                    Y[n, o, i, j] = product(F[o].ravel(), patch.ravel(), eps, backend="numpy")
    return (Y[0], X[0]) if single else (Y, X)


def _bound(F, X, eps, u):
    """Entrywise kernel error bound (module docstring) for all (patch, filter) pairs."""
    d = X.shape[-1]
    Wf = F.reshape(F.shape[0], -1)
    s = np.einsum("...k,ok->...o", X, Wf)
    nx = np.linalg.norm(X, axis=-1)[..., None]
    nw = np.linalg.norm(Wf, axis=-1)
    D = np.sum((X[..., None, :] - Wf) ** 2, axis=-1) + eps
    K = s * s / D
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(s != 0, nx * nw / np.abs(s), np.inf)
    b = 4 * (d + 4) * u * K * np.minimum(cond + 8, 1e300) + ((d + 4) * u * nx * nw) ** 2 / D
    return np.moveaxis(b, -1, -3)  # (..., Ho, Wo, O) -> (..., O, Ho, Wo)


CONFIGS = [
    dict(C=1, H=6, W=7, O=2, k=3, stride=1, padding=0, dilation=1, batch=None),
    dict(C=3, H=9, W=8, O=4, k=3, stride=2, padding=1, dilation=1, batch=2),
    dict(C=2, H=10, W=9, O=3, k=2, stride=(1, 2), padding=(2, 0), dilation=(2, 3), batch=3),
    dict(C=4, H=7, W=7, O=5, k=1, stride=3, padding=1, dilation=1, batch=None),
    dict(C=2, H=12, W=11, O=2, k=3, stride=2, padding=3, dilation=2, batch=1),
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_matches_explicit_patches(cfg):
    rng = np.random.default_rng(0)
    shape = (cfg["C"], cfg["H"], cfg["W"])
    if cfg["batch"] is not None:
        shape = (cfg["batch"],) + shape
    img = rng.normal(size=shape)
    F = rng.normal(size=(cfg["O"], cfg["C"], cfg["k"], cfg["k"]))
    eps = 0.3
    Y = conv2d(img, F, eps, cfg["stride"], cfg["padding"], cfg["dilation"])
    ref, X = _explicit(img, F, eps, cfg["stride"], cfg["padding"], cfg["dilation"])
    assert Y.shape == ref.shape
    # the reference product itself is within the bound too, hence the factor 2
    assert np.all(np.abs(Y - ref) <= 2 * _bound(F, X, eps, U64))


def test_patch_equal_to_filter_is_repaired():
    """Embed each filter in the image: at those positions the expanded D cancels to rounding
    noise (~u ||f||^2 >> eps = 1e-12) and must be recomputed; K = ||f||^4 / eps there."""
    rng = np.random.default_rng(1)
    F = rng.normal(size=(2, 3, 3, 3))
    img = rng.normal(size=(3, 10, 10))
    img[:, 1:4, 2:5] = F[0]
    img[:, 5:8, 6:9] = F[1]
    eps = 1e-12
    Y = conv2d(img, F, eps)
    ref, X = _explicit(img, F, eps, 1, 0, 1)
    assert np.all(np.abs(Y - ref) <= 2 * _bound(F, X, eps, U64))
    for o, (i, j) in enumerate([(1, 2), (5, 6)]):
        f2 = np.sum(F[o] ** 2)
        assert Y[o, i, j] == pytest.approx(f2 * f2 / eps, rel=64 * 27 * U64)
    assert np.all(Y >= 0)


def test_float32():
    """float32: same bound with u = 2^-24 (dots accumulate in float32 in the GEMM)."""
    rng = np.random.default_rng(2)
    img = rng.normal(size=(2, 3, 8, 8)).astype(np.float32)
    F = rng.normal(size=(3, 3, 3, 3)).astype(np.float32)
    Y = conv2d(img, F, 0.5, stride=2, padding=1)
    assert Y.dtype == np.float32
    ref, X = _explicit(img.astype(np.float64), F.astype(np.float64), 0.5, 2, 1, 1)
    assert np.all(np.abs(Y - ref) <= _bound(F.astype(np.float64), X, 0.5,
                                            np.finfo(np.float32).eps / 2))


def test_zero_padding_region_gives_zero():
    """A 1x1 filter on a padded border sees only zeros: dot = 0, so Y = 0 exactly."""
    F = np.ones((1, 2, 1, 1))
    Y = conv2d(np.ones((2, 3, 3)), F, 1.0, padding=1)
    assert Y.shape == (1, 5, 5)
    np.testing.assert_array_equal(Y[0, 0], 0.0)
    np.testing.assert_array_equal(Y[0, 1:4, 1:4], 4.0 / 1.0)  # (1+1)^2 / (0 + 1)


@pytest.mark.parametrize("kwargs,exc,word", [
    (dict(image=np.ones((2, 5, 5)), filters=np.ones((1, 3, 2, 2)), eps=1.0), ValueError, "channels"),
    (dict(image=np.ones((5, 5)), filters=np.ones((1, 1, 2, 2)), eps=1.0), ValueError, "image"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 2, 2)), eps=1.0), ValueError, "filters"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 1, 2, 2)), eps=0.0), ValueError, "eps"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 1, 2, 2)), eps=1.0, stride=0),
     ValueError, "stride"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 1, 2, 2)), eps=1.0, padding=-1),
     ValueError, "padding"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 1, 2, 2)), eps=1.0, dilation=1.5),
     TypeError, "dilation"),
    (dict(image=np.ones((1, 5, 5)), filters=np.ones((1, 1, 4, 4)), eps=1.0, dilation=2),
     ValueError, "larger"),
    (dict(image=np.full((1, 5, 5), np.inf), filters=np.ones((1, 1, 2, 2)), eps=1.0),
     ValueError, "image"),
])
def test_bad_input_names_the_argument(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        conv2d(**kwargs)


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
def test_cupy_conv_matches_numpy():
    import cupy as cp

    rng = np.random.default_rng(3)
    img, F = rng.normal(size=(2, 3, 12, 12)), rng.normal(size=(4, 3, 3, 3))
    img[0, :, 2:5, 3:6] = F[1]
    Y = conv2d(img, F, 1e-9, stride=2, padding=1, dilation=1)
    Yc = conv2d(cp.asarray(img), cp.asarray(F), 1e-9, stride=2, padding=1, dilation=1)
    assert isinstance(Yc, cp.ndarray)
    ref, X = _explicit(img, F, 1e-9, 2, 1, 1)
    assert np.all(np.abs(cp.asnumpy(Yc) - ref) <= 2 * _bound(F, X, 1e-9, U64))
    assert np.all(np.abs(Y - ref) <= 2 * _bound(F, X, 1e-9, U64))


def test_empty_batch_and_no_filters():
    assert conv2d(np.ones((0, 2, 5, 5)), np.ones((3, 2, 2, 2)), 1.0).shape == (0, 3, 4, 4)
    assert conv2d(np.ones((2, 5, 5)), np.ones((0, 2, 2, 2)), 1.0).shape == (0, 4, 4)


def _patch_message(shape, O, need, avail):
    """The reference's refusal, word for word (``_validate.check_memory``'s format)."""
    from yatmath._validate import _human_bytes

    return (f"conv2d of a {shape} image batch with {O} filters needs {_human_bytes(need)} but "
            f"only {_human_bytes(avail)} is available; smaller image batches computes the same "
            "without storing it")


def test_reference_refuses_the_patch_matrix_beyond_memory(monkeypatch):
    """The reference's patch-matrix path needs itemsize (N Ho Wo (C kh kw + 6 O) + 2 N C Hp Wp)
    bytes (its copy of the patches, dot and ~5 temporaries of its size, the padded image): with
    the available memory monkeypatched to exactly that it runs, one byte less and it is refused
    with a MemoryError naming the batch, the filters and both byte counts (a single image as a
    batch of one, needing half).  N = 2, C = 3,
    9 x 11, O = 5 filters 3 x 3, padding 1: Ho Wo = 99, Hp Wp = 143, so 8 x 13002 bytes in
    float64 and 4 x 13002 in float32."""
    import yatmath._validate as v

    rng = np.random.default_rng(3)
    img, F = rng.normal(size=(2, 3, 9, 11)), rng.normal(size=(5, 3, 3, 3))
    for dt in (np.float64, np.float32):
        need = np.dtype(dt).itemsize * (2 * 99 * (27 + 30) + 2 * 2 * 3 * 11 * 13)
        monkeypatch.setattr(v, "available_memory", lambda xp=np: need)
        assert conv2d(img.astype(dt), F.astype(dt), 0.5, padding=1,
                      backend="reference").shape == (2, 5, 9, 11)
        monkeypatch.setattr(v, "available_memory", lambda xp=np: need - 1)
        with pytest.raises(MemoryError) as err:
            conv2d(img.astype(dt), F.astype(dt), 0.5, padding=1)
        assert str(err.value) == _patch_message((2, 3, 9, 11), 5, need, need - 1)
        monkeypatch.setattr(v, "available_memory", lambda xp=np: need // 2 - 1)
        with pytest.raises(MemoryError, match=r"^conv2d of a \(1, 3, 9, 11\) image batch"):
            conv2d(img[0].astype(dt), F.astype(dt), 0.5, padding=1, backend="reference")
