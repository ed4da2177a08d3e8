"""The BLAS binding of the compiled Yat kernels: SciPy's (or NumPy's own) ?gemm called from
Numba by address, and a GEMM split over Numba's threads.

``_gemm`` calls the Fortran-ABI ?gemm at an integer address (every argument by pointer,
column-major); ``GEMM`` holds SciPy's addresses, ``layer_gemm`` NumPy's own OpenBLAS where its wheel
has one.  The kernels run one single-threaded BLAS call per Numba thread, inside
``yatmath._threads.single_threaded_blas`` (``blas_limit_for``), so that no OpenBLAS pool thread
spins beside the Numba pass that follows.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import get_cython_function_address, intrinsic

from .._threads import single_threaded_blas

# The BLAS GEMM that Numba's own np.dot calls: SciPy's Fortran-ABI ?gemm, every argument by
# pointer, column-major.  Its address is passed to the kernels as an integer (a ctypes function
# object inside a parallel loop becomes a constant address, which disables the on-disk cache).
GEMM = {np.dtype(t): ctypes.cast(get_cython_function_address("scipy.linalg.cython_blas", name),
                                 ctypes.c_void_p).value
        for t, name in ((np.float64, "dgemm"), (np.float32, "sgemm"))}


@intrinsic
def _call_fortran13(typingctx, fn, args):
    """Call the void function at address ``fn`` with the 13 pointers (integers) in ``args``."""
    if not (isinstance(fn, types.Integer) and isinstance(args, types.BaseTuple) and len(args) == 13
            and all(isinstance(a, types.Integer) for a in args)):
        return None

    def codegen(context, builder, sig, llargs):
        ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ptr] * 13)
        callee = builder.inttoptr(llargs[0], fnty.as_pointer())
        ptrs = [builder.inttoptr(builder.extract_value(llargs[1], k), ptr) for k in range(13)]
        builder.call(callee, ptrs)
        return context.get_dummy_value()

    return types.void(fn, args), codegen



@njit(cache=True)
def _gemm(gemm, ta, tb, m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc, iargs, fargs):
    """C = alpha op(A) op(Bm) + beta C by one BLAS ?gemm call (Fortran conventions:
    column-major, ta/tb the characters' codes, 78 "N" or 84 "T").  iargs (8 integers of the
    BLAS's width: int32, or int64 for an ILP64 BLAS), fargs (C's dtype, 2): scratch for the
    by-pointer scalar arguments."""
    iargs[0] = ta
    iargs[1] = tb
    iargs[2] = m
    iargs[3] = n
    iargs[4] = k
    iargs[5] = lda
    iargs[6] = ldb
    iargs[7] = ldc
    fargs[0] = alpha
    fargs[1] = beta
    p = iargs.ctypes.data
    s = iargs.itemsize
    q = fargs.ctypes.data
    f = fargs.itemsize
    _call_fortran13(gemm, (p, p + s, p + 2 * s, p + 3 * s, p + 4 * s, q, A.ctypes.data,
                           p + 5 * s, Bm.ctypes.data, p + 6 * s, q + f, C.ctypes.data,
                           p + 7 * s))


@njit(cache=True)
def _gemm_nt(gemm, A, Bm, C, iargs, fargs):
    """C = A @ Bm.T for C-contiguous A (m, k), Bm (n, k), C (m, n), by one BLAS call.

    Row-major C is column-major C^T = Bm A^T: ?gemm("T", "N", n, m, k, 1, Bm, k, A, k, 0, C, n)
    (``_gemm``; iargs: 8 int32, fargs: C's dtype, 2).
    """
    m, k = A.shape
    n = Bm.shape[0]
    ld = max(k, 1)   # lda, ldb >= 1 even for k = 0
    _gemm(gemm, 84, 78, n, m, k, 1.0, Bm, ld, A, ld, 0.0, C, n, iargs, fargs)




# OpenBLAS runs a GEMM with m n k <= 65536 * GEMM_MULTITHREAD_THRESHOLD (4 unless built otherwise)
# = 2^18 on the calling thread whatever its thread setting (interface/gemm.c), so below that the
# threadpoolctl limit (~12 us for its set and restore, 10% of a 64 x 64 gram) is skipped.
SERIAL_GEMM_MAX = 1 << 18


def blas_limit_for(m, n, k):
    """single_threaded_blas() for a GEMM of m n k multiply-adds above SERIAL_GEMM_MAX, else a
    context that does nothing (BLAS stays on the calling thread by itself)."""
    return single_threaded_blas() if m * n * k > SERIAL_GEMM_MAX else contextlib.nullcontext()


_LAYER_GEMM: dict[object, tuple[int, np.ndarray]] = {}
_LAYER_GEMM_LOCK = threading.Lock()


def layer_gemm(dtype):
    """(address, integer prototype) of the ?gemm of ``layer_backward_tiles`` for ``dtype``.

    NumPy's own OpenBLAS where its wheel carries one (scipy-openblas64: ``scipy_?gemm_64_``,
    64-bit integers; found among the loaded libraries by threadpoolctl, inside NumPy's
    directory), so that the backward's three GEMMs run the kernels of the ``X @ W.T`` they are
    compared with; else SciPy's (``GEMM``, 32-bit integers).  The two give bit-identical
    products here, but SciPy's bundled OpenBLAS 0.3.30 measured 6-7% slower than NumPy's 0.3.31
    for float32 at d = 64 on 2 cores (benchmarks/bench_layer.py).  The prototype is a length-1
    int32 or int64 array: the kernel's scalar scratch takes its dtype.  Found once per process.
    """
    dtype = np.dtype(dtype)
    with _LAYER_GEMM_LOCK:
        if not _LAYER_GEMM:
            _LAYER_GEMM.update(_find_numpy_gemm() or {})
            for t, addr in GEMM.items():
                _LAYER_GEMM.setdefault(t, (addr, np.zeros(1, np.int32)))
    return _LAYER_GEMM[dtype]


def _find_numpy_gemm():
    """{dtype: (address, int64 prototype)} of NumPy's scipy-openblas64 ?gemm, or None."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    home = os.path.dirname(os.path.realpath(np.__file__))
    for info in threadpool_info():
        path = os.path.realpath(info.get("filepath") or "")
        if info.get("internal_api") != "openblas" or not path.startswith(home):
            continue
        try:
            lib = ctypes.CDLL(path)
            found = {np.dtype(t): ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                     for t, name in ((np.float32, "scipy_sgemm_64_"),
                                     (np.float64, "scipy_dgemm_64_"))}
        except (OSError, AttributeError):
            continue
        return {t: (addr, np.zeros(1, np.int64)) for t, addr in found.items()}
    return None
