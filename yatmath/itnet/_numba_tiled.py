"""Numba CPU kernels of the tiled ITNet forward and backward (one kernel MLP, no residual).

Per pair only the split-W1 pair terms are evaluated (algorithms.md I2)::

    a_ij = Aq_i + Ak_j + Wgs (S_i C_j - C_i S_j) + Wgc (C_i C_j + S_i S_j) + wr ||x_i - y_j|| + Wh (u_i * u_j)

(S, C: per-point sin/cos of 2 pi B x).  Queries are split into tiles of ``bq`` (one thread per
tile, keys visited in order, so the result does not depend on the thread count), keys into tiles
of ``bk``; the last tiles may be ragged.  Only a (bq, bk, w) tile of hidden activations exists at
a time; the (n, n, d, d) kernel tensor is never formed.

``factorised=True`` (the linear-last-layer factorisation, I3): accumulate ``T_i = sum_j c_ij h_ij u_j^T``
(w x d) and ``ubar_i = sum_j c_ij u_j``, then contract once per query with W2 and b2.
``factorised=False``: form ``K_ij = W2 h_ij + b2`` (d^2 outputs) per pair and multiply by u_j.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

FM = {"reassoc", "contract", "arcp"}
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)
_C_TANH = math.sqrt(2.0 / math.pi)


@njit(cache=True, fastmath=FM)
def _gelu(a, kind):
    # the formulas of yatmath.itnet.network._gelu (erfc form; the limit 0 at a = -inf)
    if a == -math.inf:
        return 0.0
    if kind == 0:
        return 0.5 * a * math.erfc(-a * _INV_SQRT2)
    t = math.tanh(_C_TANH * (a + 0.044715 * a * a * a))
    return 0.5 * a * (1.0 + t)


@njit(cache=True, fastmath=FM)
def _gelu_prime(a, kind):
    # the formulas of yatmath.itnet.network._gelu_prime: the tail term is 0 where it underflows
    if kind == 0:
        if math.isinf(a):
            return 1.0 if a > 0 else 0.0
        return 0.5 * math.erfc(-a * _INV_SQRT2) + a * math.exp(-0.5 * a * a) * _INV_SQRT2PI
    t = math.tanh(_C_TANH * (a + 0.044715 * a * a * a))
    sech2 = 1.0 - t * t
    if sech2 <= 0.0:
        return 0.5 * (1.0 + t)
    return 0.5 * (1.0 + t) + 0.5 * a * sech2 * _C_TANH * (1.0 + 3.0 * 0.044715 * a * a)


@njit(cache=True, fastmath=FM)
def _pair_terms(i, j, Sq, Cq, Sk, Ck, Xq, Xk, Uq, Uk, nh, use_dist, sd, cd, had):
    """Fill the per-pair features sd, cd (L), had (nh); return the distance."""
    for l in range(Sq.shape[1]):
        sd[l] = Sq[i, l] * Ck[j, l] - Cq[i, l] * Sk[j, l]
        cd[l] = Cq[i, l] * Ck[j, l] + Sq[i, l] * Sk[j, l]
    for b in range(nh):
        had[b] = Uq[i, b] * Uk[j, b]
    r = 0.0
    if use_dist:
        for t in range(Xq.shape[1]):
            df = Xq[i, t] - Xk[j, t]
            r += df * df
        r = math.sqrt(r)
        if math.isinf(r):   # the squares overflowed: rescale (network.pair_distance)
            m = 0.0
            for t in range(Xq.shape[1]):
                m = max(m, abs(Xq[i, t] - Xk[j, t]))
            acc = 0.0
            for t in range(Xq.shape[1]):
                v = (Xq[i, t] - Xk[j, t]) / m
                acc += v * v
            r = m * math.sqrt(acc)
    return r


@njit(cache=True, fastmath=FM)
def _preact(i, j, Aq, Ak, Wgs, Wgc, wr, Wh, sd, cd, had, r, out):
    L = sd.shape[0]
    nh = had.shape[0]
    for k in range(Aq.shape[1]):
        acc = Aq[i, k] + Ak[j, k] + wr[k] * r
        for l in range(L):
            acc += Wgs[k, l] * sd[l] + Wgc[k, l] * cd[l]
        for b in range(nh):
            acc += Wh[k, b] * had[b]
        out[k] = acc


@njit(cache=True)
def _weight(omega, i, j, causal, diag_weight):
    c = omega[j]
    if causal:
        if j > i:
            return 0.0 * c
        if j == i:
            return c * diag_weight
    return c


@njit(parallel=True, cache=True, fastmath=FM)
def tiled_forward(Aq, Ak, Sq, Cq, Sk, Ck, Wgs, Wgc, wr, Wh, Xq, Xk, Uq, Uk, omega, W2r, B2,
                  bq, bk, causal, diag_weight, gelu_kind, factorised, use_dist, out):
    """out[i] = sum_j c_ij K_ij u_j (the integral term only)."""
    nq = Uq.shape[0]
    nk = Uk.shape[0]
    w = Aq.shape[1]
    d = Uk.shape[1]
    nh = Wh.shape[1]
    L = Sq.shape[1]
    ntiles = (nq + bq - 1) // bq
    for t in prange(ntiles):
        i0 = t * bq
        i1 = min(i0 + bq, nq)
        m = i1 - i0
        H = np.empty((m, bk, w), dtype=Aq.dtype)
        Ct = np.empty((m, bk), dtype=Aq.dtype)
        T = np.zeros((m, d, w), dtype=Aq.dtype)
        ubar = np.zeros((m, d), dtype=Aq.dtype)
        acc = np.zeros((m, d), dtype=Aq.dtype)
        a = np.empty(w, dtype=Aq.dtype)
        sd = np.empty(L, dtype=Aq.dtype)
        cd = np.empty(L, dtype=Aq.dtype)
        had = np.empty(nh, dtype=Aq.dtype)
        Kv = np.empty(d * d, dtype=Aq.dtype)
        for j0 in range(0, nk, bk):
            if causal and j0 > i1 - 1:
                break
            j1 = min(j0 + bk, nk)
            for p in range(m):
                i = i0 + p
                for q in range(j1 - j0):
                    j = j0 + q
                    c = _weight(omega, i, j, causal, diag_weight)
                    Ct[p, q] = c
                    if c == 0.0:
                        continue
                    r = _pair_terms(i, j, Sq, Cq, Sk, Ck, Xq, Xk, Uq, Uk, nh, use_dist, sd, cd, had)
                    _preact(i, j, Aq, Ak, Wgs, Wgc, wr, Wh, sd, cd, had, r, a)
                    for k in range(w):
                        H[p, q, k] = c * _gelu(a[k], gelu_kind)
            if factorised:
                accumulate_factorised(H, Ct, Uk, j0, j1 - j0, T, ubar)
            else:
                accumulate_full(H, Ct, Uk, j0, j1 - j0, W2r, B2, Kv, acc)
        if factorised:
            finish_factorised(T, ubar, W2r, B2, acc)
        for p in range(m):
            for a_ in range(d):
                out[i0 + p, a_] = acc[p, a_]


# The two ways of applying the linear last layer to one (query tile x key tile) block of hidden
# activations H[p, q, :] (already multiplied by the quadrature weight c_pq).  They are separate
# functions so that benchmarks/bench_itnet.py can time the last layer alone.

@njit(cache=True, fastmath=FM)
def accumulate_full(H, Ct, Uk, j0, nqk, W2r, B2, Kv, acc):
    """acc[p] += sum_q (W2 h_pq + c_pq b2) u_{j0+q}: the d x d kernel formed per pair (d^2 w MACs)."""
    d = Uk.shape[1]
    w = H.shape[2]
    for p in range(H.shape[0]):
        for q in range(nqk):
            c = Ct[p, q]
            if c == 0.0:
                continue
            j = j0 + q
            for v in range(d * d):
                s = c * B2[v // d, v % d]
                for k in range(w):
                    s += W2r[v // d, v % d, k] * H[p, q, k]
                Kv[v] = s
            for a_ in range(d):
                s = 0.0
                for b in range(d):
                    s += Kv[a_ * d + b] * Uk[j, b]
                acc[p, a_] += s


@njit(cache=True, fastmath=FM)
def accumulate_factorised(H, Ct, Uk, j0, nqk, T, ubar):
    """T[p] += sum_q h_pq u_{j0+q}^T and ubar[p] += sum_q c_pq u_{j0+q} (w d MACs per pair)."""
    d = Uk.shape[1]
    w = H.shape[2]
    for p in range(H.shape[0]):
        for q in range(nqk):
            c = Ct[p, q]
            if c == 0.0:
                continue
            j = j0 + q
            for b in range(d):
                ub = Uk[j, b]
                ubar[p, b] += c * ub
                for k in range(w):
                    T[p, b, k] += H[p, q, k] * ub


@njit(cache=True, fastmath=FM)
def finish_one(T, ubar, W2r, B2, p, a_):
    """sum_b (B2[a, b] ubar[p, b] + sum_k W2[a, b, k] T[p, b, k]) for one query p and one output
    component a (the leaf of :func:`finish_factorised`, also compiled by ``_cuda_tiled``)."""
    d = T.shape[1]
    w = T.shape[2]
    s = 0.0
    for b in range(d):
        s += B2[a_, b] * ubar[p, b]
        for k in range(w):
            s += W2r[a_, b, k] * T[p, b, k]
    return s


@njit(cache=True, fastmath=FM)
def finish_factorised(T, ubar, W2r, B2, acc):
    """acc[p, a] += sum_b (B2[a, b] ubar[p, b] + sum_k W2[a, b, k] T[p, b, k]): once per query."""
    d = T.shape[1]
    for p in range(T.shape[0]):
        for a_ in range(d):
            acc[p, a_] += finish_one(T, ubar, W2r, B2, p, a_)


@njit(parallel=True, cache=True, fastmath=FM)
def tiled_backward_queries(Aq, Ak, Sq, Cq, Sk, Ck, Wgs, Wgc, wr, Wh, Xq, Xk, Uq, Uk, omega, V,
                           bq, bk, causal, diag_weight, gelu_kind, use_dist,
                           T, ubar, Sq_sum, dUq, dWgs_t, dWgc_t, dwr_t, dWh_t):
    """Query-outer pass: per query i, T_i, ubar_i, sum_j delta1_ij, the query-side Hadamard
    Jacobian term, and per-query-tile partial sums of the pair-level W1 gradients."""
    nq = Uq.shape[0]
    nk = Uk.shape[0]
    w = Aq.shape[1]
    d = Uk.shape[1]
    nh = Wh.shape[1]
    L = Sq.shape[1]
    ntiles = (nq + bq - 1) // bq
    for t in prange(ntiles):
        i0 = t * bq
        i1 = min(i0 + bq, nq)
        a = np.empty(w, dtype=Aq.dtype)
        dl = np.empty(w, dtype=Aq.dtype)
        sd = np.empty(L, dtype=Aq.dtype)
        cd = np.empty(L, dtype=Aq.dtype)
        had = np.empty(nh, dtype=Aq.dtype)
        for j0 in range(0, nk, bk):
            if causal and j0 > i1 - 1:
                break
            j1 = min(j0 + bk, nk)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    c = _weight(omega, i, j, causal, diag_weight)
                    if c == 0.0:
                        continue
                    r = _pair_terms(i, j, Sq, Cq, Sk, Ck, Xq, Xk, Uq, Uk, nh, use_dist, sd, cd, had)
                    _preact(i, j, Aq, Ak, Wgs, Wgc, wr, Wh, sd, cd, had, r, a)
                    for b in range(d):
                        ubar[i, b] += c * Uk[j, b]
                    for k in range(w):
                        hk = c * _gelu(a[k], gelu_kind)
                        dh = 0.0
                        for b in range(d):
                            T[i, b, k] += hk * Uk[j, b]
                            dh += V[i, b, k] * Uk[j, b]
                        dl[k] = c * dh * _gelu_prime(a[k], gelu_kind)
                        Sq_sum[i, k] += dl[k]
                        dwr_t[t, k] += dl[k] * r
                        for l in range(L):
                            dWgs_t[t, k, l] += dl[k] * sd[l]
                            dWgc_t[t, k, l] += dl[k] * cd[l]
                        for b in range(nh):
                            dWh_t[t, k, b] += dl[k] * had[b]
                    for b in range(nh):
                        e = 0.0
                        for k in range(w):
                            e += Wh[k, b] * dl[k]
                        dUq[i, b] += e * Uk[j, b]


@njit(parallel=True, cache=True, fastmath=FM)
def tiled_backward_keys(Aq, Ak, Sq, Cq, Sk, Ck, Wgs, Wgc, wr, Wh, Xq, Xk, Uq, Uk, omega, V, B2g,
                        bq, bk, causal, diag_weight, gelu_kind, use_dist, Sk_sum, dUk):
    """Key-outer pass (recomputes the tiles again): per key j, the value term
    sum_i c_ij K_ij^T g_i, sum_i delta1_ij and the key-side Hadamard Jacobian term."""
    nq = Uq.shape[0]
    nk = Uk.shape[0]
    w = Aq.shape[1]
    d = Uk.shape[1]
    nh = Wh.shape[1]
    L = Sq.shape[1]
    ntiles = (nk + bk - 1) // bk
    for t in prange(ntiles):
        j0 = t * bk
        j1 = min(j0 + bk, nk)
        a = np.empty(w, dtype=Aq.dtype)
        dl = np.empty(w, dtype=Aq.dtype)
        sd = np.empty(L, dtype=Aq.dtype)
        cd = np.empty(L, dtype=Aq.dtype)
        had = np.empty(nh, dtype=Aq.dtype)
        for i0 in range(0, nq, bq):
            i1 = min(i0 + bq, nq)
            if causal and i1 - 1 < j0:
                continue
            for j in range(j0, j1):
                for i in range(i0, i1):
                    c = _weight(omega, i, j, causal, diag_weight)
                    if c == 0.0:
                        continue
                    r = _pair_terms(i, j, Sq, Cq, Sk, Ck, Xq, Xk, Uq, Uk, nh, use_dist, sd, cd, had)
                    _preact(i, j, Aq, Ak, Wgs, Wgc, wr, Wh, sd, cd, had, r, a)
                    for b in range(d):
                        dUk[j, b] += c * B2g[i, b]
                    for k in range(w):
                        hk = c * _gelu(a[k], gelu_kind)
                        dh = 0.0
                        for b in range(d):
                            dUk[j, b] += V[i, b, k] * hk
                            dh += V[i, b, k] * Uk[j, b]
                        dl[k] = c * dh * _gelu_prime(a[k], gelu_kind)
                        Sk_sum[j, k] += dl[k]
                    for b in range(nh):
                        e = 0.0
                        for k in range(w):
                            e += Wh[k, b] * dl[k]
                        dUk[j, b] += e * Uq[i, b]
