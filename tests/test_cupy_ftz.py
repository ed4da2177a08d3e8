"""The CuPy flush-to-zero emulation of ``tests/cupy_ftz.py`` does what its docstring says CuPy
does (and no more): the GPU tests that run under it are only as good as this."""
from __future__ import annotations

import numpy as np
import pytest

from tests import cupy_ftz
from tests.cupy_ftz import MODULE as xp
from tests.cupy_ftz import FtzArray

SUB = np.array([2.0 ** -140, -3 * 2.0 ** -149, 1.5, 2.0 ** -126, 0.0], np.float32)
IS_SUB = np.array([True, True, False, False, False])


def a(v):
    return np.array(v).view(FtzArray)


def _bits(v):
    return np.asarray(v).view(np.ndarray).view(np.uint32)


@pytest.mark.parametrize("move", [
    lambda v: v.copy(), lambda v: v.reshape(5, 1)[:, 0], lambda v: v[::-1][::-1],
    lambda v: xp.ascontiguousarray(v), lambda v: xp.asarray(v), lambda v: v.astype(np.float32),
    lambda v: xp.concatenate([v, v])[:5], lambda v: xp.broadcast_to(v, (2, 5))[1],
    lambda v: xp.where(xp.zeros(5, bool), v[::-1], v)])
def test_moves_keep_the_bits(move):
    """Copies, views, same-dtype conversions and selections move float32 subnormals unchanged
    (a load and a store, no arithmetic)."""
    got = move(a(SUB))
    assert isinstance(got, FtzArray)
    np.testing.assert_array_equal(_bits(got), _bits(SUB))


@pytest.mark.parametrize("convert", [
    lambda v: v.astype(np.float64), lambda v: xp.asarray(v, dtype=np.float64),
    lambda v: xp.ascontiguousarray(v, dtype=np.float64), lambda v: xp.array(v, np.float64)])
def test_widening_float32_flushes_subnormal_operands(convert):
    got = convert(a(SUB))
    assert got.dtype == np.float64 and isinstance(got, FtzArray)
    np.testing.assert_array_equal(got, np.where(IS_SUB, 0.0, SUB.astype(np.float64)))
    assert np.signbit(got[1])                                    # signed zero


@pytest.mark.parametrize("convert", [
    lambda v: v.astype(np.float32), lambda v: xp.asarray(v, dtype=np.float32),
    lambda v: xp.ascontiguousarray(v[::-1], np.float32)[::-1]])
def test_rounding_to_float32_flushes_subnormal_results(convert):
    got = convert(a(SUB.astype(np.float64)))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.where(IS_SUB, np.float32(0), SUB))


def test_float32_arithmetic_flushes_operands_and_results_float64_does_not():
    v = a(SUB)
    np.testing.assert_array_equal(v * np.float32(1), np.where(IS_SUB, 0, SUB))
    assert not bool((v[:1] != 0)[0])                             # setp.ftz: compares as 0
    assert (a(np.float32([2.0 ** -120])) * np.float32(2.0 ** -10))[0] == 0.0     # result
    assert float(xp.sum(a(np.float32([2.0 ** -140] * 4)))) == 0.0               # reduction
    assert float(a(np.float32([2.0 ** -140] * 4)).sum()) == 0.0
    w = a(SUB.astype(np.float64))
    np.testing.assert_array_equal(w * 1.0, SUB.astype(np.float64))             # float64 kept
    out = xp.empty(5, np.float32)
    np.multiply(v.view(np.ndarray), np.float32(1), out=out)      # out= flushes too
    np.testing.assert_array_equal(out, np.where(IS_SUB, 0, SUB))


def test_cpu_numba_refuses_a_device_array():
    """As Numba refuses a CuPy array, so a CPU Numba function refuses an FtzArray."""
    import numba

    @numba.njit
    def total(v):
        return v.sum()

    with pytest.raises(TypeError, match="device array"):
        total(a(SUB))
    assert total(SUB) == SUB.sum()


def test_plain_numpy_is_untouched():
    """Host arrays (plain ndarrays) keep NumPy's arithmetic: only device copies flush."""
    np.testing.assert_array_equal(SUB * np.float32(1), SUB)
    assert SUB.astype(np.float64)[0] == 2.0 ** -140


def test_the_fixture_routes_rows_and_launchers(ftz_cupy):
    """Under ``ftz_cupy`` the fake device's copies are FtzArrays and yatmath's array code for
    them (``caller(...).module``, ``_cuda.array_module``) is the flushing module."""
    from yatmath import _cuda
    from yatmath.yat import kernel

    d = ftz_cupy.asarray(SUB)
    assert isinstance(d, FtzArray) and ftz_cupy.copies == 1
    np.testing.assert_array_equal(_bits(d), _bits(SUB))
    assert kernel.caller(d).module is cupy_ftz.MODULE
    assert _cuda.array_module(d) is cupy_ftz.MODULE
    assert kernel.caller(SUB).module is np


#: operations whose CuPy behaviour the emulation models exactly (module docstring)
EXACT = {
    "astype f32->f64": lambda m, v: v.astype(np.float64),
    "astype f64->f32": lambda m, v: (v.astype(np.float64) * 2.0 ** -20).astype(np.float32),
    "ascontiguousarray dtype": lambda m, v: m.ascontiguousarray(v, dtype=np.float64),
    "multiply": lambda m, v: v * np.float32(1),
    "add": lambda m, v: v + np.float32(0),
    "sum": lambda m, v: m.sum(m.broadcast_to(v, (4, 5)), axis=0),
    "copy": lambda m, v: v.copy(),
    "same-dtype astype": lambda m, v: v.astype(np.float32),
    "slice": lambda m, v: m.ascontiguousarray(v[::-1]),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(EXACT))
def test_the_emulation_is_what_cupy_does(name):
    """On a device: each operation on real CuPy arrays gives the bits the emulation gives (the
    model behind tests/test_gpu_ftz.py and the kernel tests' FtzArrays)."""
    from yatmath import _array

    cp = _array.cupy_module()
    dev = EXACT[name](cp, cp.asarray(SUB)).get()
    emu = EXACT[name](xp, a(SUB))
    np.testing.assert_array_equal(np.asarray(emu).view(np.ndarray).view(np.uint8),
                                  dev.view(np.uint8))


@pytest.mark.gpu
def test_the_emulated_float32_gemm_flushes_at_least_where_cublas_does():
    """cuBLAS's float32 GEMM: the emulation flushes its operands and results (the conservative
    model); the device's result, flushed the same way, must equal it, so the emulation never
    keeps a subnormal that a device would lose.  The report says whether cuBLAS itself kept
    them (its printed line)."""
    from yatmath import _array

    cp = _array.cupy_module()
    A = np.diag(SUB).astype(np.float32)
    dev = (cp.asarray(A) @ cp.asarray(np.eye(5, dtype=np.float32))).get()
    emu = np.asarray(a(A) @ a(np.eye(5, dtype=np.float32))).view(np.ndarray)
    np.testing.assert_array_equal(cupy_ftz.flush(dev), emu)
    print("cuBLAS float32 GEMM keeps subnormals:", bool(np.any(np.diag(dev)[IS_SUB] != 0)))
