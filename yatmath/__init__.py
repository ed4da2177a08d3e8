"""yatmath: a numerical theory and verification toolkit for the Yat kernel.

K(w, x) = (w . x)^2 / (||w - x||^2 + eps)

Subpackages
-----------
yat        the Yat kernel and its layers (pointwise, Gram, matvec, gradients, NMN layer,
           attention, convolution, squashers)

Every operation has a float64 NumPy reference (the oracle) and fast paths: Numba on the CPU and
CuPy on a CUDA GPU, selected with ``backend="auto"|"numpy"|"numba"|"cupy"``.
"""

import os as _os

# Numba's OpenMP workers and OpenBLAS's threads take turns (GEMM, then a Numba pass over its
# result).  With OpenMP's default active waiting, workers that finished a parallel region keep
# spinning and starve the next GEMM on small machines (measured 2-15x slowdowns on 2 cores), so
# unless the user chose otherwise, OpenMP threads sleep when idle.  This only takes effect if no
# OpenMP runtime was loaded before yatmath.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# The converse: OpenBLAS's idle pool threads busy-wait (no yield on x86-64) for 2^28 TSC cycles,
# ~0.1 s, after every threaded BLAS call; a Numba parallel loop started within that window shares
# the cores with them (measured up to 2.5-4x slower on 2 cores right after a 2048 x 2048 GEMM;
# gram/GEMM at B = n = 2048 went from 1.37-1.74 to 1.36-1.53 over three alternating runs each).
# 4 is OpenBLAS's minimum (2^4 cycles: sleep at once); a threaded call then pays a wake-up of
# the pool (microseconds).  Takes effect only if OpenBLAS (numpy) is loaded after this line.
import sys as _sys  # noqa: E402

#: whether OpenBLAS will see OPENBLAS_THREAD_TIMEOUT=4: set by the user, or numpy not yet loaded
OPENBLAS_SHORT_SPIN = "OPENBLAS_THREAD_TIMEOUT" in _os.environ or "numpy" not in _sys.modules
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

__version__ = "0.1.0"

from . import yat  # noqa: E402,F401

__all__ = ["yat", "__version__"]
