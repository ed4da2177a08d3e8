"""CuPy GPU kernels for the Yat kernel.  Imported only when CuPy and a device are present.

The Gram matrix is one cuBLAS GEMM followed by one elementwise kernel that applies the same
expanded-form-with-repair rule as the Numba path (see ``_numba_kernels.gram_from_dots``).
"""
from __future__ import annotations

import cupy as cp

_TRANSFORM = cp.ElementwiseKernel(
    "T s, T xn, T wn, raw T X, raw T W, T eps, raw T b, int32 mode, T tau, int64 n, int64 d",
    "T y",
    r"""
    T nrm = xn + wn;
    T t = nrm - (s + s);
    double sv = (double)s, dv = (double)t + (double)eps;
    if (!(t >= tau * nrm) || isinf(t)) {  /* cancellation, NaN or overflow: recompute directly */
        long long r = i / n, c = i % n;
        double a = 0.0, q = 0.0;
        for (long long k = 0; k < d; ++k) {
            double xk = (double)X[r * d + k], wk = (double)W[c * d + k];
            a += xk * wk;
            double df = xk - wk;
            q += df * df;
        }
        sv = a;
        dv = q + (double)eps;
    }
    double bj = (mode != 0) ? (double)b[i % n] : 0.0;
    if (mode == 1) sv += bj;
    double out = sv * (sv / dv);
    if (mode == 2) out += bj;
    y = (T)out;
    """,
    "yat_gram_from_dots",
)


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
