"""CuPy GPU kernels for the Yat kernel.  Imported only when CuPy and a device are present.

The Gram matrix is one cuBLAS GEMM followed by one elementwise kernel that applies the same
expanded-form-with-repair rule as the Numba path (see ``_numba_kernels.gram_from_dots``).
"""
from __future__ import annotations

import cupy as cp

#: The CUDA definitions of the shared formulas, the one source every CuPy kernel of yatmath.yat
#: includes (``preamble=``): the finishing step (``_reference.finish``), the repair rule of the
#: expanded form (``_reference.needs_repair``), the direct float64 form of one pair and the
#: repaired (s, D) of a Gram entry from its dot.
CUDA_PREAMBLE = r"""
/* K from N = s (+ b, inner) and D: N * (N / D), never N^2 / D; outer bias: + b after. */
__device__ double yat_finish(double s, double D, double b, int mode) {
    if (mode == 1) s += b;
    double y = s * (s / D);
    if (mode == 2) y += b;
    return y;
}
/* Repair where t = nrm - 2 s is not at least tau * nrm, or is NaN or inf (nrm = |x|^2 + |w|^2). */
template <typename T>
__device__ bool yat_needs_repair(T s, T nrm, T tau) {
    T t = nrm - (s + s);
    return !(tau * nrm <= t) || isinf(t);
}
/* (x . w, |x - w|^2) of two rows of length d, accumulated in double. */
template <typename T>
__device__ void yat_direct_pair(const T* x, const T* w, long long d, double& s, double& q) {
    double a = 0.0, b = 0.0;
    for (long long k = 0; k < d; ++k) {
        double xk = (double)x[k], wk = (double)w[k];
        a += xk * wk;
        double df = xk - wk;
        b += df * df;
    }
    s = a;
    q = b;
}
/* (s, D) of pair i of a (B, n) Gram matrix from its dot s and the squared row norms xn, wn: the
   expanded form D = xn + wn - 2 s + eps, recomputed from rows X[i / n], W[i % n] (length d) in the
   direct double form where yat_needs_repair says so. */
template <typename T>
__device__ void yat_pair_sd(T s, T xn, T wn, const T* X, const T* W, T eps, T tau, long long i,
                            long long n, long long d, double& sv, double& dv) {
    T nrm = xn + wn;
    T t = nrm - (s + s);
    sv = (double)s;
    dv = (double)t + (double)eps;
    if (yat_needs_repair(s, nrm, tau)) {  /* cancellation, NaN or overflow: recompute directly */
        long long r = i / n, c = i % n;
        double q;
        yat_direct_pair(&X[r * d], &W[c * d], d, sv, q);
        dv = q + (double)eps;
    }
}
"""

_TRANSFORM = cp.ElementwiseKernel(
    "T s, T xn, T wn, raw T X, raw T W, T eps, raw T b, int32 mode, T tau, int64 n, int64 d",
    "T y",
    r"""
    double sv, dv;
    yat_pair_sd(s, xn, wn, &X[0], &W[0], eps, tau, i, n, d, sv, dv);
    double bj = (mode != 0) ? (double)b[i % n] : 0.0;
    y = (T)yat_finish(sv, dv, bj, mode);
    """,
    "yat_gram_from_dots",
    preamble=CUDA_PREAMBLE,
)

_FINISH = cp.ElementwiseKernel("float64 s, float64 D, float64 b, int32 mode", "float64 y",
                               "y = yat_finish(s, D, b, mode);", "yat_finish_kernel",
                               preamble=CUDA_PREAMBLE)
_NEEDS_REPAIR = cp.ElementwiseKernel("T s, T nrm, T tau", "bool y",
                                     "y = yat_needs_repair(s, nrm, tau);",
                                     "yat_needs_repair_kernel", preamble=CUDA_PREAMBLE)


def finish(s, D, b, mode):
    """``yat_finish`` elementwise (for the tests against ``_reference.finish``)."""
    return _FINISH(s, D, b, cp.int32(mode))


def needs_repair(s, nrm, tau):
    """``yat_needs_repair`` elementwise (for the tests against ``_reference.needs_repair``)."""
    return _NEEDS_REPAIR(s, nrm, s.dtype.type(tau))


def gram(X, W, eps, b, mode, tau):
    dt = X.dtype.type
    S = X @ W.T
    xn = cp.sum(X * X, axis=1)[:, None]
    wn = cp.sum(W * W, axis=1)[None, :]
    return _TRANSFORM(S, xn, wn, X, W, dt(eps), b, cp.int32(mode), dt(tau),
                      cp.int64(W.shape[0]), cp.int64(X.shape[1]), S)


def matvec(X, Y, V, eps, b, mode, tau, rows, cols):
    """sum_j K(X_i, Y_j) V_j by (rows x cols) Gram tiles; memory O(rows * cols)."""
    out = cp.zeros((X.shape[0], V.shape[1]), dtype=cp.float64)
    for j0 in range(0, Y.shape[0], cols):
        Yt, Vt, bt = Y[j0:j0 + cols], V[j0:j0 + cols].astype(cp.float64), b[j0:j0 + cols]
        for i0 in range(0, X.shape[0], rows):
            T = gram(X[i0:i0 + rows], Yt, eps, bt, mode, tau)
            out[i0:i0 + rows] += T.astype(cp.float64) @ Vt
    return out


# Layer backward (layer.py module docstring): from the dots s = X W^T, the same expanded form
# with repair as _TRANSFORM gives N, D and r = N / D (in double); then, with gk = sc * g,
#   p = 2 gk r (1 + r),  q = gk r^2,  dc = gk r (inner bias) or gk (outer),  gh = gk H.
_BACKWARD = cp.ElementwiseKernel(
    "T s, T g, T xn, T wn, raw T X, raw T W, T eps, raw T b, int32 mode, T tau, T sc, int64 n, "
    "int64 d",
    "T p, T q, T dc, T gh",
    r"""
    double sv, dv;
    yat_pair_sd(s, xn, wn, &X[0], &W[0], eps, tau, i, n, d, sv, dv);
    double bj = (mode != 0) ? (double)b[i % n] : 0.0;
    if (mode == 1) sv += bj;
    double r = sv / dv;
    double gk = (double)sc * (double)g;
    double gr = gk * r, qq = gr * r;
    p = (T)(2.0 * (gr + qq));
    q = (T)qq;
    dc = (T)(mode == 1 ? gr : gk);
    gh = (T)(gr * sv + (mode == 2 ? gk * bj : 0.0));
    """,
    "yat_layer_backward_pass",
    preamble=CUDA_PREAMBLE,
)


def backward_pass(X, W, G, eps, b, mode, tau, scale):
    """(P, q, dc, gh), each (B, n), for dL/dH = scale * G (G (B, n) or (B, 1)); P overwrites
    the GEMM's dots.  The caller forms dX = P W - 2 diag(q 1) X, dW = P^T X - 2 diag(q^T 1) W."""
    dt = X.dtype.type
    S = X @ W.T
    xn = cp.sum(X * X, axis=1)[:, None]
    wn = cp.sum(W * W, axis=1)[None, :]
    q, dc, gh = cp.empty_like(S), cp.empty_like(S), cp.empty_like(S)
    _BACKWARD(S, G, xn, wn, X, W, dt(eps), b, cp.int32(mode), dt(tau), dt(scale),
              cp.int64(W.shape[0]), cp.int64(X.shape[1]), S, q, dc, gh)
    return S, q, dc, gh
