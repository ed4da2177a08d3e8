"""yatmath: a numerical theory and verification toolkit for the Yat kernel.

K(w, x) = (w . x)^2 / (||w - x||^2 + eps)

Subpackages
-----------
yat        the Yat kernel and its layers (pointwise, Gram, matvec, gradients, NMN layer,
           attention, convolution, squashers)

Every operation has a float64 NumPy reference (the oracle) and fast paths: Numba on the CPU and
CuPy on a CUDA GPU, selected with ``backend="auto"|"numpy"|"numba"|"cupy"``.
"""

__version__ = "0.1.0"

from . import yat  # noqa: E402,F401

__all__ = ["yat", "__version__"]
