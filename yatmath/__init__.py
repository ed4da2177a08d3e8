"""yatmath: a numerical theory and verification toolkit for the Yat kernel.

K(w, x) = (w . x)^2 / (||w - x||^2 + eps)

Subpackages
-----------
yat        the Yat kernel and its layers (pointwise, Gram, matvec, gradients, NMN layer,
           attention, convolution, squashers)

Every operation has a float64 NumPy reference (the oracle) and fast paths: Numba on the CPU and
CuPy on a CUDA GPU, selected with ``backend="auto"|"numpy"|"numba"|"cupy"``.
"""

# The environment is read, never written: importing yatmath (or any subpackage) leaves os.environ
# as it was.  Threads are controlled through the libraries' own APIs where the toolkit needs it
# (threadpoolctl around the GEMMs that run on Numba's threads; see the "Threads" comment in
# yatmath/yat/_numba_kernels.py); ``yatmath info`` reports the thread settings it reads.

__version__ = "0.1.0"

from . import yat

__all__ = ["yat", "__version__"]
