"""The fused Yat convolution kernel (``yatmath/yat/_cuda_conv.py``) against the reference.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source on NumPy arrays thread by thread (shared memory and ``syncthreads`` included): these
tests then execute its staging, halo, channel chunks, filter blocks, partial tiles and repair on
the CPU.  With a device the same tests launch the compiled kernel on CuPy arrays.

Sizes are small (the simulator runs each GPU thread as a Python thread): N = 2 images of C = 3
channels, 9 x 11, O = 5 filters, with a test geometry of 4 x 2 threads, 2 rows per thread,
2 filters per thread and 2 channels per chunk: the 9 x 11 output is 3 x 3 tiles of 4 x 4 (the
last row and column of tiles partial), the filters 3 blocks (the last holding one) and the
channels 2 chunks (the last holding one).

Tolerance.  The reference (float64) obeys ``kernel.product``'s bound B(u) with d = C kh kw
(``tests/yat/test_conv.py``: ``_bound``) against the exact values; the kernel sums in float64
whatever the input dtype, so it obeys B(u_64) as well (module docstring of ``_cuda_conv``),
plus one rounding u_32 |K| for float32 output.  We therefore allow
|got - ref| <= 2 B(u_64) (+ u_32 |ref| for float32), compared with the float64 reference on the
same (float32-representable) values.  This is far tighter than the reference's float32 contract
B(u_32): a kernel summing in float32 would fail it, and so does a missed repair (the expanded D
at a patch equal to a filter is ~ d u_64 ||f||^2 ~ 1e-14 of noise against eps = 1e-12).
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from tests.yat.test_conv import _bound, _explicit
from yatmath import _array, _cuda, _registry
from yatmath.yat import _cuda_conv as cc
from yatmath.yat import conv2d
from yatmath.yat._reference import REPAIR_TAU

conv_module = importlib.import_module("yatmath.yat.conv")
SIMULATED = _cuda.simulated()
U64, U32 = 2.0 ** -53, 2.0 ** -24
#: the test geometry (module docstring)
GEOM = dict(block=(4, 2), rows=2, filters=2, channels=2)


def dev(a):
    """``a`` where the kernel runs: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _fused(img, F, eps, stride, padding, dilation, **geom):
    pair = [(v, v) if np.isscalar(v) else tuple(v) for v in (stride, padding, dilation)]
    return host(cc.conv2d(dev(img), dev(F), eps, REPAIR_TAU, *pair, **geom))


def _check(got, img, F, eps, stride, padding, dilation):
    """got within the module docstring's tolerance of the float64 reference."""
    i64, f64 = np.asarray(img, np.float64), np.asarray(F, np.float64)
    want = conv2d(i64, f64, eps, stride, padding, dilation, backend="reference")
    _, X = _explicit(i64, f64, eps, stride, padding, dilation)
    bound = 2 * _bound(f64, X, eps, U64)
    assert got.dtype == np.asarray(img).dtype and got.shape == want.shape
    if got.dtype == np.float32:
        bound = bound + U32 * np.abs(want)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), (float(np.max(err - bound)), float(np.max(err)))
    return want


def test_mode_matches_the_device():
    assert SIMULATED == (not _array.has_cupy())


def test_plan_and_limits():
    """The default geometry for the benchmark's shape (C = 32, 3x3, stride 1) stages 7 channels
    in 24 KiB or less; a tile of one channel beyond 48 KiB is refused."""
    p = cc.Plan(32, 64, (3, 3), (1, 1), (1, 1))
    assert (p.bw, p.bh, p.py, p.ob, p.th, p.tw) == (16, 8, 2, 8, 18, 18)
    assert p.cb == 7 and p.shared <= 24 * 1024 and p.ok
    assert cc.Plan(3, 2, (3, 3), (1, 1), (1, 1)).ob == 2        # fewer filters than a block
    assert cc.supported(512, 512, (7, 7), (2, 2), (1, 1))
    assert not cc.supported(1, 1, (2, 2), (1, 1), (100, 100))   # 116 x 116 float64 > 48 KiB
    with pytest.raises(ValueError, match="shared memory"):
        cc.conv2d(np.ones((1, 1, 102, 102)), np.ones((1, 1, 2, 2)), 1.0, REPAIR_TAU, (1, 1),
                  (0, 0), (100, 100))


def _data(dtype, kh, kw, seed=5):
    """Two 3-channel 9 x 11 images, 5 filters.  Image 0 holds at rows 2.., columns 3.. a patch
    within ~1e-7 of filter 1, and image 1 at its top left corner one within ~1e-7 of filter 2
    whose first row and column are ~1e-7 (with padding 1 that patch's first row and column are
    padding taps, whose ||0 - w||^2 ~ 1e-13 matters): the expanded D cancels there
    (||patch - f||^2 + eps ~ 1e-12 against a rounding noise ~ 1e-14), so these pairs need the
    repair.  (A patch exactly equal to a filter would not: the kernel
    sums ||patch||^2, ||f||^2 and the dot in the same order, so t = 0 exactly.)"""
    rng = np.random.default_rng(seed)
    img = rng.normal(size=(2, 3, 9, 11)).astype(dtype)
    F = rng.normal(size=(5, 3, kh, kw))
    F[2, :, 0, :] = 1e-7 * rng.normal(size=(3, kw))
    F[2, :, :, 0] = 1e-7 * rng.normal(size=(3, kh))
    F = F.astype(dtype)
    near = F.astype(np.float64) + 1e-7 * rng.normal(size=F.shape)
    img[0, :, 2:2 + kh, 3:3 + kw] = near[1]
    img[1, :, 0:kh - 1, 0:kw - 1] = near[2, :, 1:, 1:]
    return img, F


CONFIGS = [((3, 3), 1, 1, 1), ((2, 3), 2, 0, 1), ((3, 3), (2, 1), (0, 1), (2, 3)),
           ((2, 3), 1, (1, 0), 1)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("cfg", CONFIGS)
def test_kernel_matches_the_reference(cfg, dtype):
    """3x3 and 2x3 filters, strides 1 and 2, padding 0 and 1, a dilation, both dtypes, with the
    test geometry (partial tiles, filter blocks and channel chunks: module docstring)."""
    (kh, kw), stride, padding, dilation = cfg
    img, F = _data(dtype, kh, kw)
    got = _fused(img, F, 1e-12, stride, padding, dilation, **GEOM)
    _check(got, img, F, 1e-12, stride, padding, dilation)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_patch_near_a_filter_is_repaired(dtype):
    """Stride 1, padding 1: output (0, 1, 3, 4) is the patch near filter 1, output (1, 2, 0, 0)
    the padded corner patch near filter 2 (``_data``).  The expanded form flags both, and there
    K is the direct float64 form's dot^2 / (||patch - f||^2 + eps) to (d + 2) u_64 (d = 27) plus
    the output rounding, where the unrepaired expanded D would be off by several percent."""
    img, F = _data(dtype, 3, 3)
    eps = 1e-12
    got = _fused(img, F, eps, 1, 1, 1, **GEOM)
    _check(got, img, F, eps, 1, 1, 1)
    i64, f64 = img.astype(np.float64), F.astype(np.float64)
    _, X = _explicit(i64, f64, eps, 1, 1, 1)
    for n, o, y, x in [(0, 1, 3, 4), (1, 2, 0, 0)]:
        p, f = X[n, y, x], f64[o].ravel()
        s, q = float(p @ f), float(np.sum((p - f) ** 2))
        assert q < 1e-11 < 1e-2 * s       # deep in the cancellation: the rule flags it
        rel = 64 * 27 * U64 + (U32 if dtype == np.float32 else 0.0)
        assert got[n, o, y, x] == pytest.approx(s * s / (q + eps), rel=rel)


@pytest.mark.slow
def test_default_geometry():
    """The default geometry (16 x 8 threads, 2 rows and 8 filters per thread): one tile per
    image, most of its threads beyond the 9 x 11 output, all 5 filters in one block."""
    img, F = _data(np.float32, 3, 3)
    got = _fused(img, F, 1e-12, 1, 1, 1)
    _check(got, img, F, 1e-12, 1, 1, 1)


def test_float32_subnormal_results_are_kept():
    """K below 2^-126 in float32 is written as the subnormal nearest the float64 value (the
    kernel's store; CuPy's astype would flush it to 0)."""
    img = np.full((1, 1, 3, 4), 1e-20, dtype=np.float32)
    F = np.ones((2, 1, 2, 2), dtype=np.float32)
    got = _fused(img, F, 1.0, 1, 0, 1, **GEOM)
    want = conv2d(img.astype(np.float64), F.astype(np.float64), 1.0, backend="reference")
    assert got.dtype == np.float32
    assert np.all(got > 0) and np.all(got < np.finfo(np.float32).tiny)
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_batches_beyond_the_grid_are_launched_in_chunks(monkeypatch):
    """With the grid's z limit at 4 blocks and 3 filter blocks per image, each launch takes one
    image (an offset n0 into the batch)."""
    monkeypatch.setattr(cc, "_MAX_GRID_Z", 4)
    img, F = _data(np.float64, 2, 3)
    got = _fused(img, F, 1e-12, 1, 0, 1, **GEOM)
    _check(got, img, F, 1e-12, 1, 0, 1)


# ------------------------------------------------------------------ the registered 'cupy' row


@pytest.fixture
def fake_device(monkeypatch, fake_cupy):
    """NumPy standing in for CuPy (``tests/particles/test_array_api.py``): the row's host_input
    copies count, and the kernel runs in the simulator on the copies.  Calls of the kernel
    driver are recorded (with the default geometry replaced by the test one)."""
    fake = fake_cupy
    calls = []
    driver = cc.conv2d

    def spy(img, F, *args, **kwargs):
        calls.append((img.shape, F.shape, img.dtype))
        return driver(img, F, *args, **GEOM)
    monkeypatch.setattr(cc, "conv2d", spy)
    fake.calls = calls
    return fake


def test_cupy_row_with_host_input_runs_the_fused_kernel(fake_device):
    """backend="cupy" on NumPy input: the 'cupy' row copies image and filters once each, casts
    them to the common dtype, runs the fused kernel and returns NumPy; a single image
    (C, H, W) comes back as (O, Ho, Wo)."""
    assert _registry.choose("yat.conv2d", "cupy", "numpy").backend == "cupy"
    img, F = _data(np.float64, 3, 3)
    Ff = F.astype(np.float32)
    got = conv2d(img, Ff, 1e-12, stride=2, padding=1, backend="cupy")
    assert type(got) is np.ndarray and got.dtype == np.float64 and got.shape == (2, 5, 5, 6)
    assert fake_device.calls == [((2, 3, 9, 11), (5, 3, 3, 3), np.float64)]
    assert fake_device.copies == 2
    _check(got, img, Ff, 1e-12, 2, 1, 1)
    one = conv2d(img[1], Ff, 1e-12, stride=2, padding=1, backend="cupy")
    np.testing.assert_array_equal(one, got[1])


def test_cupy_row_falls_back_to_the_array_code(fake_device):
    """A staged tile beyond the kernel's shared memory (2x2 filters dilated by 100) runs the
    reference's array code inside the 'cupy' row, never the kernel: the same bits, NumPy out."""
    rng = np.random.default_rng(7)
    img, F = rng.normal(size=(1, 2, 103, 102)), rng.normal(size=(3, 2, 2, 2))
    got = conv2d(img, F, 0.5, dilation=100, backend="cupy")
    want = conv2d(img, F, 0.5, dilation=100, backend="reference")
    assert type(got) is np.ndarray and got.shape == (1, 3, 3, 2)
    np.testing.assert_array_equal(got, want)
    assert fake_device.calls == []


def test_cupy_row_empty_shapes(fake_device):
    assert conv2d(np.ones((0, 2, 5, 5)), np.ones((3, 2, 2, 2)), 1.0,
                  backend="cupy").shape == (0, 3, 4, 4)
    assert conv2d(np.ones((2, 5, 5)), np.ones((0, 2, 2, 2)), 1.0,
                  backend="cupy").shape == (0, 4, 4)


def test_the_public_function_is_not_the_row():
    rows = {i.backend: i.func for i in _registry.implementations("yat.conv2d")}
    assert set(rows) == {"reference", "cupy"}
    assert conv2d not in rows.values()
    assert rows["cupy"] is conv_module._conv2d_cupy
    assert rows["reference"] is conv_module._conv2d_arrays


def test_cupy_row_checks_the_memory_of_the_kernel_not_of_the_patch_matrix(fake_device,
                                                                        monkeypatch):
    """The fused kernel allocates only Y (N, O, Ho, Wo) (and a cast copy of an input not already
    C-ordered in the common dtype), so the 'cupy' row checks that, not the reference's patch
    matrix: with N = 2, C = 3, 9 x 11, O = 5 filters 3 x 3, padding 1 (Ho Wo = 99), float64,
    the patch path needs 8 x 13002 = 104016 bytes and Y 8 x 990 = 7920.  With 20000 bytes
    available the row runs the kernel (to the tolerance of ``_check``) where the reference is
    refused with its own message; with 7919 bytes the row is refused naming Y and its bytes;
    with float32 filters the cast copy of the filters (4 x 135 -> 8 x 135 bytes) counts too."""
    import yatmath._validate as v
    from tests.yat.test_conv import _patch_message
    from yatmath._validate import _human_bytes

    img, F = _data(np.float64, 3, 3)
    avail = [20000]
    monkeypatch.setattr(v, "available_memory", lambda xp=np: avail[0])
    got = conv2d(img, F, 1e-12, padding=1, backend="cupy")
    assert fake_device.calls == [((2, 3, 9, 11), (5, 3, 3, 3), np.float64)]
    with pytest.raises(MemoryError) as err:
        conv2d(img, F, 1e-12, padding=1, backend="reference")
    assert str(err.value) == _patch_message((2, 3, 9, 11), 5, 104016, 20000)
    avail[0] = None                  # no limit: the reference of _check runs
    _check(got, img, F, 1e-12, 1, 1, 1)

    avail[0] = 7920
    conv2d(img, F, 1e-12, padding=1, backend="cupy")
    avail[0] = 7919
    with pytest.raises(MemoryError) as err:
        conv2d(img, F, 1e-12, padding=1, backend="cupy")
    assert str(err.value) == (
        "conv2d of a (2, 3, 9, 11) image batch with 5 filters by the fused kernel (its "
        f"(2, 5, 9, 11) output) needs {_human_bytes(7920)} but only {_human_bytes(7919)} "
        "is available")
    avail[0] = 7920 + 8 * 135 - 1
    with pytest.raises(MemoryError, match=r"needs 8\.79 KiB"):
        conv2d(img, F.astype(np.float32), 1e-12, padding=1, backend="cupy")
    assert len(fake_device.calls) == 2


def test_cupy_row_array_fallback_checks_the_patch_matrix(fake_device, monkeypatch):
    """Where the kernel's shared memory does not fit (2x2 filters dilated by 100) the row runs
    the reference's array code, and so checks the reference's need with its message: 1 image,
    2 channels, 103 x 102, 3 filters, Ho Wo = 6, d = 8, so 8 (6 (8 + 18) + 2 x 2 x 10506)
    bytes; one byte less is refused, never reaching the kernel."""
    import yatmath._validate as v
    from tests.yat.test_conv import _patch_message

    rng = np.random.default_rng(7)
    img, F = rng.normal(size=(1, 2, 103, 102)), rng.normal(size=(3, 2, 2, 2))
    need = 8 * (6 * (8 + 18) + 2 * 2 * 103 * 102)
    monkeypatch.setattr(v, "available_memory", lambda xp=np: need)
    assert conv2d(img, F, 0.5, dilation=100, backend="cupy").shape == (1, 3, 3, 2)
    monkeypatch.setattr(v, "available_memory", lambda xp=np: need - 1)
    with pytest.raises(MemoryError) as err:
        conv2d(img, F, 0.5, dilation=100, backend="cupy")
    assert str(err.value) == _patch_message((1, 2, 103, 102), 3, need, need - 1)
    assert fake_device.calls == []
