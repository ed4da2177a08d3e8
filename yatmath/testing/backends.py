"""yatmath's own implementations of the Yat kernel as accuracy harnesses (one per backend/path).

Every path that computes K is listed once here: ``product``, ``gram`` (direct and expanded, with
and without W) and ``matvec`` (read back as K @ I, whose every output is one product K_ij * 1
plus exact zeros) on NumPy and Numba, and on CuPy where a device is present.  The accuracy test
and ``yatmath validate`` both iterate over ``cpu_harnesses()`` / ``gpu_harnesses()``, so a new
backend added here is tested against the oracle with no new test code.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from .. import _array
from ..yat import gram, kernel, matvec, product
from .harness import KernelAccuracy


@contextlib.contextmanager
def gemm_tiles_everywhere() -> Iterator[None]:
    """Force matvec's GEMM-tile path at every d (kernel.DIRECT_MAX_D = -1) inside the block."""
    old = kernel.DIRECT_MAX_D
    kernel.DIRECT_MAX_D = -1
    try:
        yield
    finally:
        kernel.DIRECT_MAX_D = old


def _product(backend):
    return lambda Z, e, b, m: product(Z[:, None, :], Z[None, :, :], e,
                                      None if b is None else b[None, :], bias_mode=m or "inner",
                                      backend=backend)


def _gram(backend, same=False, **kw):
    return lambda Z, e, b, m: gram(Z, None if same else Z, e, b, bias_mode=m or "inner",
                                   backend=backend, **kw)


def _eye_matvec(backend, force_tiles=False, **kw):
    def run(Z, eps, bias, mode):
        ctx = gemm_tiles_everywhere() if force_tiles else contextlib.nullcontext()
        with ctx:
            return matvec(Z, Z, np.eye(Z.shape[0], dtype=Z.dtype), eps, bias,
                          bias_mode=mode or "inner", backend=backend, **kw)
    return run


def _on_gpu(fn):
    def run(Z, eps, bias, mode):
        cp = _array.cupy_module()
        return fn(cp.asarray(Z), eps, None if bias is None else cp.asarray(bias), mode)
    return run


def cpu_harnesses() -> dict[str, KernelAccuracy]:
    """{name: KernelAccuracy} for every CPU path (numba ones only where Numba imports)."""
    specs = {
        "product/numpy": _product("numpy"),
        "gram/numpy": _gram("numpy"),
        "gram/numpy/W=None": _gram("numpy", same=True),
        "matvec/numpy": _eye_matvec("numpy"),
    }
    if _array.has_numba():
        specs.update({
            "product/numba": _product("numba"),
            "gram/numba/direct": _gram("numba", method="direct"),
            "gram/numba/direct/W=None": _gram("numba", same=True, method="direct"),
            "gram/numba/expanded": _gram("numba", method="expanded"),
            "gram/numba/expanded/W=None": _gram("numba", same=True, method="expanded"),
            "matvec/numba": _eye_matvec("numba"),     # direct kernel for d <= 16, GEMM tiles above
            "matvec/numba/tiles": _eye_matvec("numba", force_tiles=True, tile=(5, 7)),
        })
    return {k: KernelAccuracy(k, fn, nan_beside_overflow=k.startswith("matvec"))
            for k, fn in specs.items()}


def gpu_harnesses() -> dict[str, KernelAccuracy]:
    """{name: KernelAccuracy} for the CuPy paths (the functions need a CUDA device to run)."""
    specs = {
        "product/cupy": _on_gpu(_product("cupy")),
        "gram/cupy/direct": _on_gpu(_gram("cupy", same=True, method="direct")),
        "gram/cupy/expanded": _on_gpu(_gram("cupy", method="expanded")),
        "matvec/cupy": _on_gpu(_eye_matvec("cupy", tile=(5, 7))),
    }
    return {k: KernelAccuracy(k, fn, nan_beside_overflow=k.startswith("matvec"))
            for k, fn in specs.items()}
