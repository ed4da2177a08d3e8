"""Tiled ITNet forward and backward (003 §3.1, Alg. 1-2; algorithms.md I3-I4).

The (nq, nk, d, d) kernel tensor is never formed.  Queries are cut into tiles of ``bq`` rows and
keys into tiles of ``bk`` rows (any sizes >= 1; the last tiles may be ragged); per tile pair only
the hidden activations ``h_ij`` (bq x bk x w) are computed.  By default the network's linear last
layer is applied *after* the sum over keys (the last-layer factorisation, exact)::

    sum_j c_ij K_ij u_j = sum_{b,k} W2r[:, b, k] T_i[b, k] + B2 ubar_i,
    T_i = sum_j c_ij u_j h_ij^T  (d x w),   ubar_i = sum_j c_ij u_j,

so a pair costs O(w (2L + 1 + 2d)) instead of O(w d^2) (``factorised=False`` keeps the naive
per-pair d x d kernel for comparison).

Backends: ``"numba"`` (parallel CPU kernels, one thread per query tile; deterministic), ``"numpy"``
and ``"cupy"`` (the same tile loop written with array operations on the array module ``xp``).

Backward ("recompute"): the forward tiles are visited again and ``h``, ``GELU'`` are recomputed
per tile, never stored.  The numba backend runs a query-outer pass (query-side terms, theta
gradients) and a key-outer pass (value and key-side terms); the xp backend does one pass and
scatters key-side terms into a full-size buffer.

Accuracy: equal to :mod:`~yatmath.itnet.dense` up to summation order and the angle-difference
evaluation of gamma(x - y) (see :mod:`~yatmath.itnet.network`): ~1e-14 relative in float64 for
O(1) inputs (tested: <= 1e-12).
"""
from __future__ import annotations

import numpy as np

from .._validate import check_int
from .._backend import array_module, cupy_module, is_cupy_array, resolve, to_backend
from .dense import pair_weights
from .measures import causal_mask
from .network import KernelMLP, _gelu, _gelu_prime, fourier_lift, pair_distance
from .operator import ITNetOperator

_GELU_KIND = {"exact": 0, "tanh": 1}


def check_tile(tile):
    """``tile`` = an int b (square b x b tiles) or a pair (bq, bk) of ints >= 1."""
    if isinstance(tile, (str, bytes)):
        raise TypeError(f"tile must be an int or a pair (bq, bk) of ints, got {tile!r}")
    try:
        bq, bk = (tile, tile) if np.ndim(tile) == 0 else tuple(tile)
    except (TypeError, ValueError):
        raise TypeError(f"tile must be an int or a pair (bq, bk) of ints, got {tile!r}") from None
    return (check_int(bq, "tile" if np.ndim(tile) == 0 else "tile[0] (bq)", minimum=1),
            check_int(bk, "tile" if np.ndim(tile) == 0 else "tile[1] (bk)", minimum=1))


class _Prep:
    """Per-point split-W1 pieces of one kernel MLP (computed once, O(n w (2L + d)))."""

    def __init__(self, net: KernelMLP, Xq, Xk, Uq, Uk, dtype, xp=np):
        sw = net.split()
        L = net.L if "gd" in net.slices else 0
        Sq, Cq = net.trig(Xq)
        Sk, Ck = net.trig(Xk)
        host = dict(Aq=net.query_part(Xq, Uq, sw), Ak=net.key_part(Xk, Uk, sw), Sq=Sq, Cq=Cq, Sk=Sk,
                    Ck=Ck, Wgs=sw.Wgd[:, :L], Wgc=sw.Wgd[:, L:], wr=sw.wr, Wh=sw.Wh, Xq=Xq, Xk=Xk,
                    Uq=Uq, Uk=Uk, W2r=net.W2.reshape(net.d, net.d, -1), B2=net.b2.reshape(net.d, net.d))
        for k, v in host.items():
            v = np.ascontiguousarray(v, dtype=dtype)
            setattr(self, k, to_backend(v, "cupy") if xp is not np else v)
        self.use_dist = "dist" in net.slices
        self.gelu_kind = _GELU_KIND[net.gelu]
        self.sw = sw
        self.net = net

    def numba_args(self):
        return (self.Aq, self.Ak, self.Sq, self.Cq, self.Sk, self.Ck, self.Wgs, self.Wgc, self.wr,
                self.Wh, self.Xq, self.Xk, self.Uq, self.Uk)


def _xp_gelu(a, kind, xp, prime=False):
    """GELU (``prime``: GELU') on the array module ``xp`` (NumPy or CuPy): the one definition in
    :mod:`~yatmath.itnet.network` (erfc from SciPy or cupyx)."""
    name = "exact" if kind == 0 else "tanh"
    return _gelu_prime(a, name, xp) if prime else _gelu(a, name, xp)


def _xp_tile(P: _Prep, i0, i1, j0, j1, xp):
    """Pre-activations of one tile and the pair features: a (m, b, w), sd, cd, r, had."""
    Sq, Cq, Sk, Ck = P.Sq[i0:i1, None, :], P.Cq[i0:i1, None, :], P.Sk[None, j0:j1, :], P.Ck[None, j0:j1, :]
    sd = Sq * Ck - Cq * Sk
    cd = Cq * Ck + Sq * Sk
    had = P.Uq[i0:i1, None, :P.Wh.shape[1]] * P.Uk[None, j0:j1, :P.Wh.shape[1]]
    a = P.Aq[i0:i1, None, :] + P.Ak[None, j0:j1, :] + sd @ P.Wgs.T + cd @ P.Wgc.T + had @ P.Wh.T
    r = None
    if P.use_dist:
        diff = P.Xq[i0:i1, None, :] - P.Xk[None, j0:j1, :]
        r = pair_distance(diff, xp)
        a = a + r[..., None] * P.wr
    return a, sd, cd, r, had


def _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp):
    c = xp.broadcast_to(omega[None, j0:j1], (i1 - i0, j1 - j0))
    if causal:
        c = c * xp.asarray(causal_mask(i1 - i0, j1 - j0, diag_weight, q0=i0, k0=j0), dtype=omega.dtype)
    return c


def _xp_integral(P: _Prep, omega, bq, bk, causal, diag_weight, factorised, xp):
    nq, nk, d = P.Uq.shape[0], P.Uk.shape[0], P.Uk.shape[1]
    w = P.Aq.shape[1]
    out = xp.zeros((nq, d), dtype=P.Aq.dtype)
    for i0 in range(0, nq, bq):
        i1 = min(i0 + bq, nq)
        T = xp.zeros((i1 - i0, d, w), dtype=out.dtype)
        ubar = xp.zeros((i1 - i0, d), dtype=out.dtype)
        acc = xp.zeros((i1 - i0, d), dtype=out.dtype)
        for j0 in range(0, nk, bk):
            if causal and j0 > i1 - 1:
                break
            j1 = min(j0 + bk, nk)
            c = _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp)
            a = _xp_tile(P, i0, i1, j0, j1, xp)[0]
            H = _xp_gelu(a, P.gelu_kind, xp) * c[..., None]
            Ukt = P.Uk[j0:j1]
            if factorised:
                T += xp.einsum("pqk,qb->pbk", H, Ukt)
                ubar += c @ Ukt
            else:
                K = (xp.einsum("abk,pqk->pqab", P.W2r, H) + c[..., None, None] * P.B2)
                acc += xp.einsum("pqab,qb->pa", K, Ukt)
        if factorised:
            acc = acc + xp.einsum("abk,pbk->pa", P.W2r, T) + ubar @ P.B2.T
        out[i0:i1] = acc
    return out


def tiled_integral(net: KernelMLP, Xq, Xk, Uq, Uk, omega, *, tile=(64, 64), causal=False,
                   diag_weight=1.0, factorised=True, backend="auto") -> np.ndarray:
    """``sum_j omega_j m_ij K_ij u_j`` for one kernel MLP, tiled (no residual)."""
    bq, bk = check_tile(tile)
    be = resolve(backend, Uq, Uk)
    xp = array_module(Uq, Uk) if be == "cupy" else np
    dtype = np.dtype(np.float32) if Uq.dtype == np.float32 and Uk.dtype == np.float32 else np.dtype(np.float64)
    host = [a.get() if hasattr(a, "get") else np.asarray(a) for a in (Xq, Xk, Uq, Uk, omega)]
    P = _Prep(net, *[np.asarray(a, np.float64) for a in host[:4]], dtype, xp=np if be != "cupy" else cupy_module())
    om = np.ascontiguousarray(host[4], dtype=dtype)
    if be == "numba":
        from . import _numba_tiled as nb

        out = np.empty(P.Uq.shape, dtype=dtype)
        nb.tiled_forward(*P.numba_args(), om, P.W2r, P.B2, bq, bk, bool(causal), float(diag_weight),
                         P.gelu_kind, bool(factorised), P.use_dist, out)
        return out
    xp = cupy_module() if be == "cupy" else np
    out = _xp_integral(P, to_backend(om, be) if be == "cupy" else om, bq, bk, bool(causal),
                       float(diag_weight), bool(factorised), xp)
    if be == "cupy" and not (is_cupy_array(Uq) or is_cupy_array(Uk)):
        out = out.get()       # host inputs with backend="cupy": the result comes back to the host
    return out


def tiled_forward(op, Xq, Xk, Uq, Uk, omega, *, tile=(64, 64), factorised=True, backend="auto"):
    """The operator output with the tiled integral (single or multi-head, plus residual)."""
    xp = array_module(Uq, Uk)
    kw = dict(tile=tile, causal=op.causal, diag_weight=op.diag_weight, factorised=factorised,
              backend=backend)
    if isinstance(op, ITNetOperator):
        I = tiled_integral(op.kernel, Xq, Xk, Uq, Uk, omega, **kw)
        return I + Uq @ xp.asarray(op.W.T, dtype=I.dtype)
    I = xp.concatenate([tiled_integral(net, Xq, Xk, Uq[:, op.head_slice(h)], Uk[:, op.head_slice(h)],
                                       omega, **kw) for h, net in enumerate(op.heads)], axis=1)
    return I @ xp.asarray(op.W_O.T, dtype=I.dtype) + Uq @ xp.asarray(op.W.T, dtype=I.dtype)


# ---------------------------------------------------------------------------------------------
# backward
def _head_grad_tiled(net: KernelMLP, Xq, Xk, Uq, Uk, omega, G, bq, bk, causal, diag_weight, backend):
    """(theta grads, dUq, dUk) of <G, tiled integral> for one head; float64 on the host."""
    P = _Prep(net, Xq, Xk, Uq, Uk, np.float64)
    nq, nk, d, w = Uq.shape[0], Uk.shape[0], net.d, net.width
    L, nh = P.Sq.shape[1], P.Wh.shape[1]
    V = np.ascontiguousarray(np.einsum("ia,abk->ibk", G, P.W2r))   # V_i = sum_a g_ia W2r[a]
    B2g = np.ascontiguousarray(G @ P.B2)
    if backend == "numba":
        from . import _numba_tiled as nb

        ntq = (nq + bq - 1) // bq
        T = np.zeros((nq, d, w))
        ubar = np.zeros((nq, d))
        Sq_sum = np.zeros((nq, w))
        Sk_sum = np.zeros((nk, w))
        dUq = np.zeros((nq, d))
        dUk = np.zeros((nk, d))
        dWgs_t = np.zeros((ntq, w, L))
        dWgc_t = np.zeros((ntq, w, L))
        dwr_t = np.zeros((ntq, w))
        dWh_t = np.zeros((ntq, w, nh))
        args = P.numba_args() + (np.ascontiguousarray(omega, np.float64), V)
        nb.tiled_backward_queries(*args, bq, bk, bool(causal), float(diag_weight), P.gelu_kind,
                                  P.use_dist, T, ubar, Sq_sum, dUq, dWgs_t, dWgc_t, dwr_t, dWh_t)
        nb.tiled_backward_keys(*args, B2g, bq, bk, bool(causal), float(diag_weight), P.gelu_kind,
                               P.use_dist, Sk_sum, dUk)
        dWgs, dWgc, dwr, dWh = dWgs_t.sum(0), dWgc_t.sum(0), dwr_t.sum(0), dWh_t.sum(0)
    else:
        xp = np
        T = np.zeros((nq, d, w))
        ubar = np.zeros((nq, d))
        Sq_sum = np.zeros((nq, w))
        Sk_sum = np.zeros((nk, w))
        dUq = np.zeros((nq, d))
        dUk = np.zeros((nk, d))
        dWgs, dWgc = np.zeros((w, L)), np.zeros((w, L))
        dwr, dWh = np.zeros(w), np.zeros((w, nh))
        for i0 in range(0, nq, bq):
            i1 = min(i0 + bq, nq)
            for j0 in range(0, nk, bk):
                if causal and j0 > i1 - 1:
                    break
                j1 = min(j0 + bk, nk)
                c = _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp)
                a, sd, cd, r, had = _xp_tile(P, i0, i1, j0, j1, xp)
                Hc = _xp_gelu(a, P.gelu_kind, xp) * c[..., None]
                Ukt, Uqt, Vt = Uk[j0:j1], Uq[i0:i1], V[i0:i1]
                T[i0:i1] += np.einsum("pqk,qb->pbk", Hc, Ukt)
                ubar[i0:i1] += c @ Ukt
                dl = c[..., None] * np.einsum("pbk,qb->pqk", Vt, Ukt) * _xp_gelu(a, P.gelu_kind, xp, True)
                Sq_sum[i0:i1] += dl.sum(1)
                Sk_sum[j0:j1] += dl.sum(0)
                dWgs += np.einsum("pqk,pql->kl", dl, sd)
                dWgc += np.einsum("pqk,pql->kl", dl, cd)
                if r is not None:
                    dwr += np.einsum("pqk,pq->k", dl, r)
                if nh:
                    dWh += np.einsum("pqk,pqb->kb", dl, had)
                    e = dl @ P.Wh
                    dUq[i0:i1] += np.einsum("pqb,qb->pb", e, Ukt)
                    dUk[j0:j1] += np.einsum("pqb,pb->qb", e, Uqt)
                dUk[j0:j1] += np.einsum("pbk,pqk->qb", Vt, Hc) + c.T @ B2g[i0:i1]
    # per-point contractions (O(n w (2L + d)))
    sw = P.sw
    dW2 = np.einsum("ia,ibk->abk", G, T).reshape(d * d, w)
    db2 = (G.T @ ubar).ravel()
    blocks = {"gx": Sq_sum.T @ fourier_lift(Xq, net.B), "gy": Sk_sum.T @ fourier_lift(Xk, net.B),
              "gd": np.concatenate([dWgs, dWgc], axis=1), "dist": dwr[:, None], "ux": Sq_sum.T @ Uq,
              "uy": Sk_sum.T @ Uk, "uxuy": dWh}
    dW1 = np.zeros_like(net.W1)
    for g, sl in net.slices.items():
        dW1[:, sl] = blocks[g]
    dUq = dUq + Sq_sum @ sw.Wux
    dUk = dUk + Sk_sum @ sw.Wuy
    return {"W1": dW1, "b1": Sq_sum.sum(0), "W2": dW2, "b2": db2}, dUq, dUk


def tiled_grad(op, Xq, Xk, Uq, Uk, omega, G, *, tile=(64, 64), shared=True, backend="auto") -> dict:
    """Tiled backward with recompute; same output format as :func:`~yatmath.itnet.dense.dense_grad`.

    Runs on the CPU in float64 (``backend`` "numba" or "numpy").
    """
    bq, bk = check_tile(tile)
    be = resolve(backend, Uq, Uk)
    if be == "cupy":
        raise ValueError("backend='cupy' is not available for the tiled backward; use 'numba' or 'numpy'")
    Xq, Xk, Uq, Uk, omega, G = (np.asarray(a, np.float64) for a in (Xq, Xk, Uq, Uk, omega, G))
    out = {"W": G.T @ Uq}
    dUq = G @ op.W
    dUk = np.zeros_like(Uk)
    args = (bq, bk, op.causal, op.diag_weight, be)
    if isinstance(op, ITNetOperator):
        p, q, k = _head_grad_tiled(op.kernel, Xq, Xk, Uq, Uk, omega, G, *args)
        out["heads"] = [p]
        dUq, dUk = dUq + q, dUk + k
    else:
        GI = G @ op.W_O
        Is, heads = [], []
        for h, net in enumerate(op.heads):
            sl = op.head_slice(h)
            Is.append(tiled_integral(net, Xq, Xk, Uq[:, sl], Uk[:, sl], omega, tile=(bq, bk),
                                     causal=op.causal, diag_weight=op.diag_weight, backend=be))
            p, q, k = _head_grad_tiled(net, Xq, Xk, Uq[:, sl], Uk[:, sl], omega, GI[:, sl], *args)
            heads.append(p)
            dUq[:, sl] += q
            dUk[:, sl] += k
        out["heads"] = heads
        out["W_O"] = G.T @ np.concatenate(Is, axis=1)
    if shared:
        out["U"] = dUq + dUk
    else:
        out["U"], out["Uq"] = dUk, dUq
    return out


__all__ = ["tiled_integral", "tiled_forward", "tiled_grad", "check_tile", "pair_weights"]
