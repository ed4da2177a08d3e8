"""CUDA C source shared by every CuPy kernel of :mod:`yatmath.particles` (no CuPy import here,
so the source can be inspected and tested on machines without a GPU).

``CFAC_SRC`` is THE CUDA definition of the force factor c = a q^{-p} per exponent family
(q = r^2 + e2); the Python definition is ``interactions.force_factor`` and the Numba one
``_numba_kernels.cfac``.  Every kernel that needs c prepends this snippet and calls ``cfac``.
"""

CFAC_SRC = r"""
__device__ __forceinline__ double cfac(double q, int fam, double a, double p) {
    if (fam == 1) return a / (q * sqrt(q));
    if (fam == 2) return a / q;
    if (fam == 3) return a * rsqrt(q);
    if (fam == 4) return a / (q * q);
    return a * pow(q, -p);
}
"""
