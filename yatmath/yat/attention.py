"""Yat attention (Y5): scores from the Yat kernel instead of dot products.

For queries Q (Lq, d), keys K (Lk, d) and values V (Lk, dv) (any common leading axes):

    S = gram(Q, K, eps)                  # S_ij = K(q_i, k_j) >= 0, from ``yatmath.yat.gram``
    Z = s_att S                          # s_att = ``scale`` (a float, or the Y4 width scale)
    allowed_ij = mask_ij and (j <= i if causal)
    A = softmax over allowed j of Z_ij  (normalize="softmax"; the row max is subtracted)
      or Z_ij^p / (delta + sum_{allowed j'} Z_ij'^p)  (normalize="softermax", Y9, p = ``power``)
    O = A V

A row with no allowed key (padding, or no keys at all: Lk = 0) gives A = 0 and O = 0, as does
a softermax row whose allowed scores are all 0 with delta = 0 (0/0 defined as 0); their
gradients are 0.

Backward (Y5), given dO:

    dV = A^T dO ;  dA = dO V^T
    softmax:    dZ = A * (dA - rowsum(dA * A))
    softermax:  dZ_ik = p Z_ik^(p-1) / (delta + sum_j Z_ij^p) * (dA_ik - rowsum(dA * A)_i)
    dscale = sum(dZ * S) ;  dS = s_att dZ
    then the Y3 backward with X -> Q, W -> K, G -> dS and no bias (``layer.pair_backward``).

For softermax with p < 1 the derivative at a zero score is infinite (Z^(p-1)); it is returned as
such.  Accuracy: the forward inherits ``gram``'s bound for S; the normalisation is evaluated with
the row maximum subtracted (softmax) or in the log domain (softermax), so it never overflows;
gradients are checked against central finite differences in float64 to ~1e-8 relative.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _backend as be
from .._validate import (as_float_array, check_bool, check_choice, check_eps, check_int,
                         check_memory, common_dtype)
from .kernel import gram
from .layer import pair_backward, width_scale
from .squash import _real, _softermax_parts

__all__ = ["attention", "attention_backward", "multihead_attention",
           "multihead_attention_backward", "AttentionCache", "AttentionGrads",
           "MultiheadCache", "MultiheadGrads"]

NORMALIZERS = ("softmax", "softermax")


@dataclass
class AttentionCache:
    Q: object
    K: object
    V: object
    shapes: tuple  # the original shapes of Q, K, V (for un-broadcasting the gradients)
    eps: float
    S: object
    A: object
    allowed: object
    s_att: float
    scale_log_base: object  # ln(base) when ``scale`` was "d" or "L", else None
    normalize: str
    power: float
    delta: float
    backend: str


class AttentionGrads(NamedTuple):
    """dL/dQ, dL/dK, dL/dV, dL/ds_att, dL/dscale_alpha (None for a numeric scale), dL/deps."""

    Q: object
    K: object
    V: object
    scale: float
    scale_alpha: object
    eps: float


def _scale_value(scale, scale_alpha, d, Lk):
    if isinstance(scale, str):
        check_choice(scale, "scale", ("d", "L"))
        return width_scale(d if scale == "d" else Lk, scale_alpha)
    return _real(scale, "scale", positive=True), None


def _allowed(mask, causal, lead, Lq, Lk, xp):
    allowed = xp.ones((Lq, Lk), dtype=bool)
    if causal:
        allowed = xp.tril(allowed)
    if mask is not None:
        m = xp.asarray(mask)
        if m.dtype != bool:
            raise TypeError(f"mask must be a boolean array (True = may attend), got dtype {m.dtype}")
        try:
            np.broadcast_shapes(tuple(m.shape), lead + (Lq, Lk))
            ok = np.broadcast_shapes(tuple(m.shape), lead + (Lq, Lk)) == lead + (Lq, Lk)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"mask of shape {tuple(m.shape)} does not broadcast to the score "
                             f"shape {lead + (Lq, Lk)}")
        allowed = allowed & m
    return xp.broadcast_to(allowed, lead + (Lq, Lk))


def _softmax_rows(Z, allowed, xp):
    if Z.shape[-1] == 0:  # no keys: every row is fully masked
        return xp.zeros_like(Z)
    with np.errstate(invalid="ignore"):
        Zm = xp.where(allowed, Z, -np.inf)
        m = xp.max(Zm, axis=-1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0.0)
    E = xp.exp(Zm - m)
    den = xp.sum(E, axis=-1, keepdims=True)
    return xp.where(den > 0, E / xp.where(den > 0, den, 1.0), 0.0).astype(Z.dtype)


def _unbroadcast(g, shape, xp):
    """Sum g over the axes that broadcasting added to an array of ``shape``."""
    extra = g.ndim - len(shape)
    if extra:
        g = xp.sum(g, axis=tuple(range(extra)))
    axes = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a == 1 and b != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return g


def attention(Q, K, V, eps, causal=False, normalize="softmax", scale=1.0, *, mask=None,
              power=1.0, delta=0.0, scale_alpha=1.0, backend="auto", check_finite=True,
              return_cache=False):
    """Yat attention O = normalize(scale * K(Q, K)) V (module docstring).

    Parameters
    ----------
    Q : (..., Lq, d);  K : (..., Lk, d);  V : (..., Lk, dv); leading axes broadcast
    eps : float > 0 (required: no paper states it)
    causal : mask j > i;  mask : optional bool array broadcastable to (..., Lq, Lk), True = attend
    normalize : "softmax" or "softermax" (then ``power`` p > 0 and ``delta`` >= 0 of Y9)
    scale : float > 0 (s_att; 1 in 000 §2.2), or "d" / "L" for the Y4 width scale
        (n / ln(1 + n))^scale_alpha with n = d or Lk
    backend : passed to ``gram``;  return_cache : also return an ``AttentionCache``

    Returns O (..., Lq, dv) in the common dtype, where the inputs live (or (O, cache)).
    """
    xp = be.array_module(Q, K, V)
    arrs = [as_float_array(a, nm, check_finite=check_finite, xp=xp)
            for a, nm in ((Q, "Q"), (K, "K"), (V, "V"))]
    for a, nm in zip(arrs, "QKV"):
        if a.ndim < 2:
            raise ValueError(f"{nm} must be at least 2-D (..., L, features), got shape "
                             f"{tuple(a.shape)}")
    Q, K, V = arrs
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must have the same last dimension, got Q.shape="
                         f"{tuple(Q.shape)} and K.shape={tuple(K.shape)}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have the same number of rows (keys), got K.shape="
                         f"{tuple(K.shape)} and V.shape={tuple(V.shape)}")
    try:
        lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(f"Q, K and V leading shapes do not broadcast: {tuple(Q.shape)}, "
                         f"{tuple(K.shape)}, {tuple(V.shape)}") from None
    dtype = common_dtype(Q, K, V)
    eps = check_eps(eps, dtype)
    check_choice(normalize, "normalize", NORMALIZERS)
    causal = check_bool(causal, "causal")
    return_cache = check_bool(return_cache, "return_cache")
    power = _real(power, "power", positive=True)
    delta = _real(delta, "delta", nonneg=True)
    Lq, d, Lk = Q.shape[-2], Q.shape[-1], K.shape[-2]
    s_att, log_base = _scale_value(scale, scale_alpha, d, Lk)
    # scores S, Z, A and the mask: four (..., Lq, Lk) arrays
    check_memory(4 * dtype.itemsize * int(np.prod(lead)) * Lq * Lk,
                 f"the ({Lq}, {Lk}) attention matrices of Q and K over the leading shape {lead}",
                 alternative="yatmath.yat.linear_attention with yat_features (memory linear in "
                             "the length)", xp=xp)
    shapes = (tuple(Q.shape), tuple(K.shape), tuple(V.shape))
    Qb = xp.broadcast_to(Q.astype(dtype, copy=False), lead + Q.shape[-2:])
    Kb = xp.broadcast_to(K.astype(dtype, copy=False), lead + K.shape[-2:])
    Vb = xp.broadcast_to(V.astype(dtype, copy=False), lead + V.shape[-2:])
    allowed = _allowed(mask, causal, lead, Lq, Lk, xp)
    S = xp.empty(lead + (Lq, Lk), dtype=dtype)
    for idx in np.ndindex(*lead):
        S[idx] = gram(Qb[idx], Kb[idx], eps, backend=backend, check_finite=False)
    Z = S * dtype.type(s_att)
    if normalize == "softmax":
        A = _softmax_rows(Z, allowed, xp)
    else:
        A = _softermax_parts(xp.where(allowed, Z, 0.0), power, delta, -1, xp)[0]
    O = A @ Vb
    if not return_cache:
        return O
    cache = AttentionCache(Q=Qb, K=Kb, V=Vb, shapes=shapes, eps=eps, S=S, A=A, allowed=allowed,
                           s_att=s_att, scale_log_base=log_base, normalize=normalize,
                           power=power, delta=delta, backend=backend)
    return O, cache


def _softermax_dz(Z, A, dA, allowed, power, delta, xp):
    """dZ for A = softermax_p(Z) over allowed entries (module docstring)."""
    Zs = xp.where(allowed, Z, 0.0)
    _, den, c = _softermax_parts(Zs, power, delta, -1, xp)
    # Z^(p-1) / (delta + sum Z^p) = (Z/c)^(p-1) / (c den); at Z = 0 this is 0 (p > 1),
    # 1/(c den) (p = 1) or inf (p < 1, a genuinely infinite derivative)
    with np.errstate(divide="ignore"):
        R = ((Zs.astype(xp.float64) / c) ** (power - 1.0) / (c * den)).astype(Z.dtype)
    inner = dA - xp.sum(dA * A, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        dZ = xp.where(allowed, power * R * inner, 0.0)
    if delta == 0:
        dead = xp.all(Zs == 0, axis=-1, keepdims=True)
        dZ = xp.where(dead, 0.0, dZ)
    return dZ.astype(Z.dtype)


def attention_backward(dO, cache: AttentionCache, *, check_finite=True) -> AttentionGrads:
    """dL/dQ, dL/dK, dL/dV, dL/dscale (and dL/dscale_alpha, dL/deps) given dO = dL/dO (Y5).

    Gradients have the shapes of the forward inputs (broadcast axes are summed).
    """
    if not isinstance(cache, AttentionCache):
        raise TypeError("cache must be the AttentionCache returned by attention(..., "
                        f"return_cache=True), got {type(cache).__name__}")
    Q, K, V, A, S = cache.Q, cache.K, cache.V, cache.A, cache.S
    xp = be.array_module(Q, K, V)
    dO = as_float_array(dO, "dO", check_finite=check_finite, xp=xp)
    want = A.shape[:-1] + (V.shape[-1],)
    if tuple(dO.shape) != tuple(want):
        raise ValueError(f"dO must have the shape of the attention output {tuple(want)}, got "
                         f"{tuple(dO.shape)}")
    dO = dO.astype(A.dtype, copy=False)
    dV = xp.swapaxes(A, -1, -2) @ dO
    dA = dO @ xp.swapaxes(V, -1, -2)
    if cache.normalize == "softmax":
        dZ = A * (dA - xp.sum(dA * A, axis=-1, keepdims=True))
    else:
        dZ = _softermax_dz(S * A.dtype.type(cache.s_att), A, dA, cache.allowed, cache.power,
                           cache.delta, xp)
    dscale = float(xp.sum(dZ * S))
    dS = dZ * A.dtype.type(cache.s_att)
    dQ = xp.empty(Q.shape, dtype=A.dtype)
    dK = xp.empty(K.shape, dtype=A.dtype)
    deps = 0.0
    for idx in np.ndindex(*A.shape[:-2]):
        dq, dk, _, de = pair_backward(Q[idx], K[idx], cache.eps, dS[idx])
        dQ[idx], dK[idx] = dq, dk
        deps += float(de)
    dalpha = None
    if cache.scale_log_base is not None:
        dalpha = dscale * cache.s_att * cache.scale_log_base
    sq, sk, sv = cache.shapes
    return AttentionGrads(Q=_unbroadcast(dQ, sq, xp), K=_unbroadcast(dK, sk, xp),
                          V=_unbroadcast(dV, sv, xp), scale=dscale, scale_alpha=dalpha, eps=deps)


# ----------------------------------------------------------------------------- multi-head


@dataclass
class MultiheadCache:
    X: object
    Wq: object
    Wk: object
    Wv: object
    Wo: object
    Ocat: object
    attn: AttentionCache
    num_heads: int


class MultiheadGrads(NamedTuple):
    """dL/dX, dL/dWq, dL/dWk, dL/dWv, dL/dWo (None without Wo), dL/ds_att, dL/dscale_alpha,
    dL/deps."""

    X: object
    Wq: object
    Wk: object
    Wv: object
    Wo: object
    scale: float
    scale_alpha: object
    eps: float


def _split_heads(T, H, xp):
    """(..., L, H*k) -> (..., H, L, k)."""
    return xp.moveaxis(T.reshape(T.shape[:-1] + (H, T.shape[-1] // H)), -2, -3)


def _merge_heads(T, xp):
    """(..., H, L, k) -> (..., L, H*k)."""
    T = xp.moveaxis(T, -3, -2)
    return T.reshape(T.shape[:-2] + (T.shape[-2] * T.shape[-1],))


def multihead_attention(X, Wq, Wk, Wv, Wo=None, *, num_heads, eps, causal=False,
                        normalize="softmax", scale=1.0, mask=None, power=1.0, delta=0.0,
                        scale_alpha=1.0, backend="auto", check_finite=True, return_cache=False):
    """Multi-head Yat attention with projections (Y5).

    Q = X Wq, K = X Wk, V = X Wv are split into ``num_heads`` heads of width d_h = Wq.shape[1] / H
    (values: Wv.shape[1] / H); each head runs ``attention``; heads are concatenated and
    multiplied by Wo when given (000) or returned as they are (002 YatFormer: no W^O).

    Parameters
    ----------
    X : (..., L, d_model);  Wq, Wk : (d_model, H d_h);  Wv : (d_model, H d_v)
    Wo : None or (H d_v, d_out);  mask : bool, broadcastable to (..., L, L), shared by all heads
    The other options are those of ``attention`` (``scale="d"`` uses n = d_h).

    Returns Y (..., L, d_out or H d_v), or (Y, cache) with ``return_cache=True``.
    """
    xp = be.array_module(X, Wq, Wk, Wv, Wo)
    X = as_float_array(X, "X", check_finite=check_finite, xp=xp)
    if X.ndim < 2:
        raise ValueError(f"X must be at least 2-D (..., L, d_model), got shape {tuple(X.shape)}")
    H = check_int(num_heads, "num_heads", minimum=1)
    mats = {}
    for nm, M in (("Wq", Wq), ("Wk", Wk), ("Wv", Wv)):
        M = as_float_array(M, nm, ndim=2, check_finite=check_finite, xp=xp)
        if M.shape[0] != X.shape[-1]:
            raise ValueError(f"{nm} must have {X.shape[-1]} rows (d_model), got shape "
                             f"{tuple(M.shape)}")
        if M.shape[1] % H:
            raise ValueError(f"{nm}.shape[1]={M.shape[1]} must be divisible by num_heads={H}")
        mats[nm] = M
    if mats["Wq"].shape[1] != mats["Wk"].shape[1]:
        raise ValueError(f"Wq and Wk must have the same number of columns, got "
                         f"{mats['Wq'].shape} and {mats['Wk'].shape}")
    if Wo is not None:
        Wo = as_float_array(Wo, "Wo", ndim=2, check_finite=check_finite, xp=xp)
        if Wo.shape[0] != mats["Wv"].shape[1]:
            raise ValueError(f"Wo must have {mats['Wv'].shape[1]} rows (H d_v), got shape "
                             f"{tuple(Wo.shape)}")
    dtype = common_dtype(X, *mats.values(), Wo)
    X = X.astype(dtype, copy=False)
    Wq, Wk, Wv = (mats[k].astype(dtype, copy=False) for k in ("Wq", "Wk", "Wv"))
    Wo = None if Wo is None else Wo.astype(dtype, copy=False)
    Qh, Kh, Vh = (_split_heads(X @ M, H, xp) for M in (Wq, Wk, Wv))
    if mask is not None:
        mask = xp.asarray(mask)
        if mask.ndim >= 2:
            mask = mask[..., None, :, :]
    O, acache = attention(Qh, Kh, Vh, eps, causal, normalize, scale, mask=mask, power=power,
                          delta=delta, scale_alpha=scale_alpha, backend=backend,
                          check_finite=False, return_cache=True)
    Ocat = _merge_heads(O, xp)
    Y = Ocat if Wo is None else Ocat @ Wo
    if not return_cache:
        return Y
    return Y, MultiheadCache(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Wo=Wo, Ocat=Ocat, attn=acache,
                             num_heads=H)


def _weight_grad(Xin, G, xp):
    """sum over leading axes of Xin^T G for Xin (..., L, a), G (..., L, b) -> (a, b)."""
    a, b = Xin.shape[-1], G.shape[-1]
    return Xin.reshape(-1, a).T @ G.reshape(-1, b)


def multihead_attention_backward(dY, cache: MultiheadCache, *, check_finite=True):
    """Gradients of ``multihead_attention`` given dY = dL/dY: a ``MultiheadGrads``."""
    if not isinstance(cache, MultiheadCache):
        raise TypeError("cache must be the MultiheadCache returned by multihead_attention(..., "
                        f"return_cache=True), got {type(cache).__name__}")
    X, H = cache.X, cache.num_heads
    xp = be.array_module(X)
    dY = as_float_array(dY, "dY", check_finite=check_finite, xp=xp)
    want = cache.Ocat.shape[:-1] + ((cache.Wo.shape[1],) if cache.Wo is not None
                                    else cache.Ocat.shape[-1:])
    if tuple(dY.shape) != tuple(want):
        raise ValueError(f"dY must have the shape of the output {tuple(want)}, got "
                         f"{tuple(dY.shape)}")
    dY = dY.astype(X.dtype, copy=False)
    dWo = None
    if cache.Wo is not None:
        dWo = _weight_grad(cache.Ocat, dY, xp)
        dOcat = dY @ cache.Wo.T
    else:
        dOcat = dY
    g = attention_backward(_split_heads(dOcat, H, xp), cache.attn, check_finite=False)
    dQ, dK, dV = (_merge_heads(t, xp) for t in (g.Q, g.K, g.V))
    dX = dQ @ cache.Wq.T + dK @ cache.Wk.T + dV @ cache.Wv.T
    return MultiheadGrads(X=dX, Wq=_weight_grad(X, dQ, xp), Wk=_weight_grad(X, dK, xp),
                          Wv=_weight_grad(X, dV, xp), Wo=dWo, scale=g.scale,
                          scale_alpha=g.scale_alpha, eps=g.eps)
