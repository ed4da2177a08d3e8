"""yatmath: a numerical theory and verification toolkit for the Yat kernel.

K(w, x) = (w . x)^2 / (||w - x||^2 + eps)

Subpackages
-----------
yat        the Yat kernel and its layers (pointwise, Gram, matvec, gradients, NMN layer,
           attention, convolution, squashers)

``info()`` says what is available (versions, whether Numba and CuPy are usable, threads, the
CUDA device): what ``yatmath info`` prints.

Every operation has a float64 NumPy reference (the oracle) and fast paths: Numba on the CPU and
CuPy on a CUDA GPU, selected with ``backend="auto"|"numpy"|"numba"|"cupy"``.
"""

# The environment is read, never written: importing yatmath (or any subpackage) leaves os.environ
# as it was.  Threads are controlled through the libraries' own APIs where the toolkit needs it
# (threadpoolctl around the GEMMs that run on Numba's threads; see the "Threads" comment in
# yatmath/yat/_numba_kernels.py); ``yatmath info`` reports the thread settings it reads.

from importlib import metadata as _metadata

try:  # one source of the version: the package metadata, set from pyproject.toml at install
    __version__ = _metadata.version("yatmath")
except _metadata.PackageNotFoundError:  # the source tree on sys.path without an install
    __version__ = "0+unknown"

from . import yat
from ._platform import info

__all__ = ["yat", "info", "__version__"]
