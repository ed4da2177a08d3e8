"""CuPy GPU kernels for particle interactions.  Imported only when CuPy and a device are present.

One thread per target particle; sources stream through shared memory in tiles of ``_TILE``
particles (the classic all-pairs N-body scheme).  Arithmetic and accumulation are float64;
inputs of other dtypes are converted by the caller.  The force factor is the shared snippet
``_cuda_snippets.CFAC_SRC`` (c = a q^{-p}, q = r^2 + e2; the kernel zeroes it where r^2 <= cut2).
"""
from __future__ import annotations

import cupy as cp

from ._cuda_snippets import CFAC_SRC

_TILE = 128
_MAXD = 16

_SRC = CFAC_SRC + r"""
#define MAXD 16
#define TILE 128
extern "C" __global__ void particle_force(const double* __restrict__ X, const int N, const int d,
        const int fam, const double a, const double p, const double e2, const double cut2,
        double* __restrict__ out) {
    extern __shared__ double sh[];                 /* TILE * d doubles */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double xi[MAXD], acc[MAXD];
    for (int k = 0; k < d; ++k) { xi[k] = (i < N) ? X[(long long)i * d + k] : 0.0; acc[k] = 0.0; }
    for (int j0 = 0; j0 < N; j0 += TILE) {
        for (int t = threadIdx.x; t < TILE * d; t += blockDim.x) {
            long long g = (long long)j0 * d + t;
            sh[t] = (g < (long long)N * d) ? X[g] : 0.0;
        }
        __syncthreads();
        const int m = min(TILE, N - j0);
        if (i < N) {
            for (int l = 0; l < m; ++l) {
                if (j0 + l == i) continue;         /* the diagonal l = k is excluded */
                double r2 = 0.0;
                for (int k = 0; k < d; ++k) { double df = xi[k] - sh[l * d + k]; r2 += df * df; }
                double c = (r2 > cut2) ? cfac(r2 + e2, fam, a, p) : 0.0;
                for (int k = 0; k < d; ++k) acc[k] -= c * (xi[k] - sh[l * d + k]);
            }
        }
        __syncthreads();
    }
    if (i < N) for (int k = 0; k < d; ++k) out[(long long)i * d + k] = acc[k];
}
"""

_MOD = cp.RawModule(code=_SRC, options=("-std=c++11",))
_FORCE = _MOD.get_function("particle_force")


def force_sum(X, fam, a, p, e2, cut2):
    """sum_{l != k} grad g(x_k - x_l) for X (N, d) float64 on the device; (N, d) float64."""
    N, d = X.shape
    if d > _MAXD:
        raise ValueError(f"the CuPy kernel supports d <= {_MAXD}")
    X = cp.ascontiguousarray(X, dtype=cp.float64)
    out = cp.empty((N, d), dtype=cp.float64)
    blocks = (N + _TILE - 1) // _TILE
    _FORCE((blocks,), (_TILE,), (X, cp.int32(N), cp.int32(d), cp.int32(fam), cp.float64(a),
                                  cp.float64(p), cp.float64(e2), cp.float64(cut2), out),
           shared_mem=_TILE * d * 8)
    return out


def cfac_values(q, fam, a, p):
    """c(q) of ``CFAC_SRC`` elementwise on the device (for the tests against the reference)."""
    kern = cp.ElementwiseKernel("float64 q, int32 fam, float64 a, float64 p", "float64 c",
                                "c = cfac(q, fam, a, p)", "yat_particles_cfac",
                                preamble=CFAC_SRC)
    return kern(cp.asarray(q, dtype=cp.float64), cp.int32(fam), cp.float64(a), cp.float64(p))
