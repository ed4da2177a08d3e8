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

Array libraries: written once against the array API standard (``xp``: the array_api_compat
namespace of the inputs, ``yatmath._array.namespace``), so NumPy, CuPy, PyTorch, JAX and
``array_api_strict`` arrays run the same code and the results come back in the caller's library on
its device.  The scores come from ``yat.gram`` (its own dispatch: Numba for NumPy under "auto",
the generic float64 reference elsewhere), the normalisation from ``squash`` and the Y3 backward
from ``layer.pair_backward`` (its "auto" dispatch: the fused Numba pass for NumPy, the array API
reference of ``yat.layer_backward`` for other libraries).  NumPy results are bit-identical to
the NumPy-only code this replaced (the same operations in the same order); other libraries agree
to rounding.

On CuPy arrays (or ``backend="cupy"``, NumPy copied to the device and back) the forward without a
cache is the fused kernel of ``_cuda_attention``: one pass over the keys per query row (one thread
per row for narrow rows, a block of threads per tile of rows otherwise) with an online
softmax/softermax in float64, no (Lq, Lk) array; a mask, ``return_cache=True`` or widths
beyond its limits run the reference above on the device instead (the ``"cupy"`` row decides).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _array
from .._array import caller
from .._registry import choose, register
from .._typing import Array
from .._validate import (as_float_array, check_bool, check_choice, check_eps, check_int,
                         check_memory, float_dtype)
from ._dtypes import astype as _astype
from ._dtypes import np_dtype
from .kernel import gram
from .layer import pair_backward, width_scale
from .squash import _delta_root, _real, _softermax_parts

__all__ = ["attention", "attention_backward", "multihead_attention",
           "multihead_attention_backward", "AttentionCache", "AttentionGrads",
           "MultiheadCache", "MultiheadGrads"]

NORMALIZERS = ("softmax", "softermax")
#: the registry note of the four attention operations
_NOTE = ("array API generic (any library, on its device); scores from yat.gram (its backend=: "
         "Numba for NumPy under 'auto', the generic reference elsewhere)")
_NOTE_NUMBA = ("NumPy: the reference with the scores from yat.gram's rows (its backend=: Numba "
               "under 'auto' from gram's min_size)")
_NOTE_CUPY = ("numba-cuda fused forward (_cuda_attention): one thread per query row for "
              "d + dv <= 16, else blocks of 16 query rows with 16 threads each; float64 Q/K/V "
              "and score tiles in shared memory, online softmax/softermax in float64, no (L, L) "
              "array (d + dv <= 128); a mask, return_cache or other widths: the reference on "
              "the device")
_NOTE_BACKWARD = ("array API generic (any library, on its device); the Y3 part from "
                  "layer.pair_backward (yat.layer_backward's rows: Numba for NumPy under 'auto', "
                  "the generic reference elsewhere)")


@dataclass
class AttentionCache:
    Q: Array
    K: Array
    V: Array
    # the original shapes of Q, K, V (for un-broadcasting the gradients)
    shapes: tuple[tuple[int, ...], ...]
    eps: float
    S: Array
    A: Array
    allowed: Array
    s_att: float
    scale_log_base: float | None  # ln(base) when ``scale`` was "d" or "L", else None
    normalize: str
    power: float
    delta: float
    backend: str


class AttentionGrads(NamedTuple):
    """dL/dQ, dL/dK, dL/dV, dL/ds_att, dL/dscale_alpha (None for a numeric scale), dL/deps."""

    Q: Array
    K: Array
    V: Array
    scale: float
    scale_alpha: float | None
    eps: float


def _scale_value(scale, scale_alpha, d, Lk):
    # scale_alpha is the learnable exponent alpha of 002's s = (n / log(1 + n))^alpha: any finite
    # real; checked whatever ``scale`` is, so a NaN is refused even where it is not used
    scale_alpha = _real(scale_alpha, "scale_alpha")
    if isinstance(scale, str):
        check_choice(scale, "scale", ("d", "L"))
        return width_scale(d if scale == "d" else Lk, scale_alpha)
    return _real(scale, "scale", positive=True), None


def _check_mask(mask, lead, Lq, Lk, xp, device):
    """The mask as a boolean array of the caller's library on its device (None stays None), or
    TypeError/ValueError when it is not boolean or does not broadcast to the score shape."""
    if mask is None:
        return None
    m = xp.asarray(mask, device=device)
    if m.dtype != xp.bool:
        raise TypeError("mask must be a boolean array (True = may attend), got dtype "
                        f"{m.dtype}")
    try:
        ok = np.broadcast_shapes(tuple(m.shape), lead + (Lq, Lk)) == lead + (Lq, Lk)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"mask of shape {tuple(m.shape)} does not broadcast to the score "
                         f"shape {lead + (Lq, Lk)}")
    return m


def _allowed(m, causal, lead, Lq, Lk, xp, device):
    allowed = xp.ones((Lq, Lk), dtype=xp.bool, device=device)
    if causal:
        allowed = xp.tril(allowed)
    if m is not None:
        allowed = allowed & m
    return xp.broadcast_to(allowed, lead + (Lq, Lk))


def _softmax_rows(Z, allowed, xp):
    if Z.shape[-1] == 0:  # no keys: every row is fully masked
        return xp.zeros_like(Z)
    with np.errstate(invalid="ignore"):
        Zm = xp.where(allowed, Z, -math.inf)
        m = xp.max(Zm, axis=-1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0.0)
    E = xp.exp(Zm - m)
    den = xp.sum(E, axis=-1, keepdims=True)
    return _astype(xp, xp.where(den > 0, E / xp.where(den > 0, den, 1.0), 0.0), Z.dtype)


def _unbroadcast(g, shape, xp):
    """Sum g over the axes that broadcasting added to an array of ``shape``."""
    extra = g.ndim - len(shape)
    if extra:
        g = xp.sum(g, axis=tuple(range(extra)))
    axes = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a == 1 and b != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return g


def attention(Q: Array, K: Array, V: Array, eps: float, causal: bool = False,
              normalize: str = "softmax", scale: float | str = 1.0, *, mask: Array | None = None,
              power: float = 1.0, delta: float = 0.0, scale_alpha: float = 1.0,
              backend: str = "auto", check_finite: bool = True,
              return_cache: bool = False) -> Array | tuple[Array, AttentionCache]:
    """Yat attention O = normalize(scale * K(Q, K)) V (module docstring).

    Parameters
    ----------
    Q : (..., Lq, d);  K : (..., Lk, d);  V : (..., Lk, dv); leading axes broadcast
    eps : float > 0 (required: no paper states it)
    causal : mask j > i;  mask : optional bool array broadcastable to (..., Lq, Lk), True = attend
    normalize : "softmax" or "softermax" (then ``power`` p > 0 and ``delta`` >= 0 of Y9)
    scale : float > 0 (s_att; 1 in 000 §2.2), or "d" / "L" for the Y4 width scale
        (n / ln(1 + n))^scale_alpha with n = d or Lk
    scale_alpha : the exponent alpha of that scale (learnable in 002 §3.4): any finite real,
        checked even when ``scale`` is a number (it is then unused)
    backend : "auto" | "reference" (alias "numpy") | "numba" | "cupy": the ``yat.attention``
        registry row, which passes it on to ``gram`` for the scores ("numba": NumPy with the
        scores from gram's Numba row; "cupy": the fused kernel of ``_cuda_attention`` where it
        applies, else the reference on the device)
    return_cache : also return an ``AttentionCache``

    Returns O (..., Lq, dv) in the common dtype, in the inputs' array library and on their
    device (or (O, cache)).
    """
    where = caller(Q, K, V)
    xp = where.xp
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
    dtype = float_dtype(xp, Q, K, V)
    eps = check_eps(eps, np_dtype(xp, dtype))
    check_choice(normalize, "normalize", NORMALIZERS)
    causal = check_bool(causal, "causal")
    return_cache = check_bool(return_cache, "return_cache")
    power = _real(power, "power", positive=True)
    delta = _real(delta, "delta", nonneg=True)
    Lq, d, Lk = Q.shape[-2], Q.shape[-1], K.shape[-2]
    s_att, log_base = _scale_value(scale, scale_alpha, d, Lk)
    mask = _check_mask(mask, lead, Lq, Lk, xp, where.device)
    impl = choose("yat.attention", backend, where.library, size=math.prod(lead) * Lq * Lk)
    return impl(Q, K, V, eps, causal, normalize, s_att, log_base, mask, power, delta, lead,
                dtype, backend, return_cache)


@register("yat.attention", "reference", note=_NOTE)
@register("yat.attention", "numba", libraries=("numpy",), device="cpu", note=_NOTE_NUMBA)
def _attention_reference(Q, K, V, eps, causal, normalize, s_att, log_base, mask, power, delta,
                         lead, dtype, backend, return_cache):
    """The array API reference: the (..., Lq, Lk) scores from ``gram`` (its ``backend``), the
    normalisation and A V in the caller's library (module docstring)."""
    where = caller(Q, K, V)
    xp = where.xp
    Lq, Lk = Q.shape[-2], K.shape[-2]
    # scores S, Z, A and the mask: four (..., Lq, Lk) arrays
    check_memory(4 * np_dtype(xp, dtype).itemsize * math.prod(lead) * Lq * Lk,
                 f"the ({Lq}, {Lk}) attention matrices of Q and K over the leading shape {lead}",
                 alternative="yatmath.yat.linear_attention with yat_features (memory linear in "
                             "the length)", xp=where.module)
    shapes = (tuple(Q.shape), tuple(K.shape), tuple(V.shape))
    Qb, Kb, Vb = (xp.broadcast_to(_astype(xp, T, dtype), lead + tuple(T.shape[-2:]))
                  for T in (Q, K, V))
    device = where.device
    allowed = _allowed(mask, causal, lead, Lq, Lk, xp, device)
    S = _scores(Qb, Kb, eps, backend, lead, dtype, xp, device)
    Z = S * s_att   # a Python float: in S's dtype (NumPy's NEP 50, the standard's scalar rule)
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



@register("yat.attention", "cupy", libraries=("cupy",), device="gpu", host_input=True,
          note=_NOTE_CUPY)
def _attention_cupy(Q, K, V, eps, causal, normalize, s_att, log_base, mask, power, delta, lead,
                    dtype, backend, return_cache):
    """The fused numba-cuda kernel (``_cuda_attention``) where it applies; the reference on the
    device for a mask, a cache, widths outside the kernel's limits or float64 entries beyond the
    direct form's range (``_reference.rescale_factor``)."""
    from . import _cuda_attention as ca
    from ._reference import rescale_factor

    d, dv = Q.shape[-1], V.shape[-1]
    if (mask is not None or return_cache or not ca.supported(d, dv)
            or (np.dtype(dtype) == np.float64 and rescale_factor(Q, K) is not None)):
        return _attention_reference(Q, K, V, eps, causal, normalize, s_att, log_base, mask,
                                    power, delta, lead, dtype, backend, return_cache)
    xp = caller(Q, K, V).module
    B = math.prod(lead)
    Qc, Kc, Vc = (xp.reshape(xp.ascontiguousarray(xp.broadcast_to(
        T.astype(dtype, copy=False), lead + tuple(T.shape[-2:]))), (B,) + tuple(T.shape[-2:]))
        for T in (Q, K, V))
    root = None if normalize == "softmax" else _delta_root(delta, power)
    O = ca.attention(Qc, Kc, Vc, eps, s_att, normalize, causal, power, delta, root)
    return xp.reshape(O, lead + (Q.shape[-2], dv))

def _scores(Qb, Kb, eps, backend, lead, dtype, xp, device):
    """S[idx] = gram(Q[idx], K[idx], eps) over the leading index ``idx`` (one Gram matrix per
    index, stacked: no in-place assignment, which the standard does not have for every
    library)."""
    if not lead:
        return gram(Qb, Kb, eps, backend=backend, check_finite=False)
    shape = lead + (Qb.shape[-2], Kb.shape[-2])
    if not math.prod(lead):
        return xp.zeros(shape, dtype=dtype, device=device)
    blocks = [gram(Qb[idx + (...,)], Kb[idx + (...,)], eps, backend=backend, check_finite=False)
              for idx in np.ndindex(*lead)]
    return xp.reshape(xp.stack(blocks), shape)


def _softermax_dz(Z, A, dA, allowed, power, delta, xp):
    """dZ for A = softermax_p(Z) over allowed entries (module docstring)."""
    Zs = xp.where(allowed, Z, 0.0)
    _, den, c = _softermax_parts(Zs, power, delta, -1, xp)
    # Z^(p-1) / (delta + sum Z^p) = (Z/c)^(p-1) / (c den); at Z = 0 this is 0 (p > 1),
    # 1/(c den) (p = 1) or inf (p < 1, a genuinely infinite derivative)
    with np.errstate(divide="ignore"):
        R = _astype(xp, (_astype(xp, Zs, xp.float64) / c) ** (power - 1.0) / (c * den),
                    Z.dtype)
    inner = dA - xp.sum(dA * A, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        dZ = xp.where(allowed, power * R * inner, 0.0)
    if delta == 0:
        dead = xp.all(Zs == 0, axis=-1, keepdims=True)
        dZ = xp.where(dead, 0.0, dZ)
    return _astype(xp, dZ, Z.dtype)


@register("yat.attention_backward", "reference", note=_NOTE_BACKWARD)
def attention_backward(dO: Array, cache: AttentionCache, *,
                       check_finite: bool = True) -> AttentionGrads:
    """dL/dQ, dL/dK, dL/dV, dL/dscale (and dL/dscale_alpha, dL/deps) given dO = dL/dO (Y5).

    Gradients have the shapes of the forward inputs (broadcast axes are summed).
    """
    if not isinstance(cache, AttentionCache):
        raise TypeError("cache must be the AttentionCache returned by attention(..., "
                        f"return_cache=True), got {type(cache).__name__}")
    Q, K, V, A, S = cache.Q, cache.K, cache.V, cache.A, cache.S
    xp = _array.namespace(Q, K, V)
    dO = as_float_array(dO, "dO", check_finite=check_finite, xp=xp)
    want = tuple(A.shape[:-1]) + (V.shape[-1],)
    if tuple(dO.shape) != want:
        raise ValueError(f"dO must have the shape of the attention output {want}, got "
                         f"{tuple(dO.shape)}")
    dO = _astype(xp, dO, A.dtype)
    dV = xp.matrix_transpose(A) @ dO
    dA = dO @ xp.matrix_transpose(V)
    if cache.normalize == "softmax":
        dZ = A * (dA - xp.sum(dA * A, axis=-1, keepdims=True))
    else:
        dZ = _softermax_dz(S * cache.s_att, A, dA, cache.allowed, cache.power, cache.delta, xp)
    dscale = float(xp.sum(dZ * S))
    dS = dZ * cache.s_att
    lead = tuple(A.shape[:-2])
    if not lead:
        dQ, dK, _, de = pair_backward(Q, K, cache.eps, dS)
        deps = float(de)
    else:
        dQs, dKs, deps = [], [], 0.0
        for idx in np.ndindex(*lead):
            idx = idx + (...,)
            dq, dk, _, de = pair_backward(Q[idx], K[idx], cache.eps, dS[idx])
            dQs.append(dq)
            dKs.append(dk)
            deps += float(de)
        dQ, dK = (xp.reshape(xp.stack(g), lead + tuple(T.shape[-2:])) if g else
                  xp.zeros(T.shape, dtype=A.dtype, device=_array.device_of(T))
                  for g, T in ((dQs, Q), (dKs, K)))
    dalpha = None
    if cache.scale_log_base is not None:
        dalpha = dscale * cache.s_att * cache.scale_log_base
    sq, sk, sv = cache.shapes
    return AttentionGrads(Q=_unbroadcast(dQ, sq, xp), K=_unbroadcast(dK, sk, xp),
                          V=_unbroadcast(dV, sv, xp), scale=dscale, scale_alpha=dalpha, eps=deps)


# ----------------------------------------------------------------------------- multi-head


@dataclass
class MultiheadCache:
    X: Array
    Wq: Array
    Wk: Array
    Wv: Array
    Wo: Array | None
    Ocat: Array
    attn: AttentionCache
    num_heads: int


class MultiheadGrads(NamedTuple):
    """dL/dX, dL/dWq, dL/dWk, dL/dWv, dL/dWo (None without Wo), dL/ds_att, dL/dscale_alpha,
    dL/deps."""

    X: Array
    Wq: Array
    Wk: Array
    Wv: Array
    Wo: Array | None
    scale: float
    scale_alpha: float | None
    eps: float


def _split_heads(T, H, xp):
    """(..., L, H*k) -> (..., H, L, k)."""
    return xp.moveaxis(xp.reshape(T, tuple(T.shape[:-1]) + (H, T.shape[-1] // H)), -2, -3)


def _merge_heads(T, xp):
    """(..., H, L, k) -> (..., L, H*k)."""
    T = xp.moveaxis(T, -3, -2)
    return xp.reshape(T, tuple(T.shape[:-2]) + (T.shape[-2] * T.shape[-1],))


@register("yat.multihead_attention", "reference", note=_NOTE)
def multihead_attention(X: Array, Wq: Array, Wk: Array, Wv: Array, Wo: Array | None = None, *,
                        num_heads: int, eps: float, causal: bool = False,
                        normalize: str = "softmax", scale: float | str = 1.0,
                        mask: Array | None = None, power: float = 1.0, delta: float = 0.0,
                        scale_alpha: float = 1.0, backend: str = "auto",
                        check_finite: bool = True,
                        return_cache: bool = False) -> Array | tuple[Array, MultiheadCache]:
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
    xp = _array.namespace(X, Wq, Wk, Wv, Wo)
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
    dtype = float_dtype(xp, X, *mats.values(), *(() if Wo is None else (Wo,)))
    X = _astype(xp, X, dtype)
    Wq, Wk, Wv = (_astype(xp, mats[k], dtype) for k in ("Wq", "Wk", "Wv"))
    Wo = None if Wo is None else _astype(xp, Wo, dtype)
    Qh, Kh, Vh = (_split_heads(X @ M, H, xp) for M in (Wq, Wk, Wv))
    if mask is not None:
        mask = xp.asarray(mask, device=_array.device_of(X))
        if mask.ndim >= 2:
            mask = xp.expand_dims(mask, axis=-3)   # one mask for every head
    # without a cache the attention row need not keep its (L, L) matrices (the fused 'cupy' row)
    res = attention(Qh, Kh, Vh, eps, causal, normalize, scale, mask=mask, power=power,
                    delta=delta, scale_alpha=scale_alpha, backend=backend, check_finite=False,
                    return_cache=return_cache)
    O, acache = res if return_cache else (res, None)
    Ocat = _merge_heads(O, xp)
    Y = Ocat if Wo is None else Ocat @ Wo
    if acache is None:
        return Y
    return Y, MultiheadCache(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Wo=Wo, Ocat=Ocat, attn=acache,
                             num_heads=H)


def _weight_grad(Xin, G, xp):
    """sum over leading axes of Xin^T G for Xin (..., L, a), G (..., L, b) -> (a, b)."""
    a, b = Xin.shape[-1], G.shape[-1]
    return xp.reshape(Xin, (-1, a)).T @ xp.reshape(G, (-1, b))


@register("yat.multihead_attention_backward", "reference", note=_NOTE_BACKWARD)
def multihead_attention_backward(dY: Array, cache: MultiheadCache, *,
                                 check_finite: bool = True) -> MultiheadGrads:
    """Gradients of ``multihead_attention`` given dY = dL/dY: a ``MultiheadGrads``."""
    if not isinstance(cache, MultiheadCache):
        raise TypeError("cache must be the MultiheadCache returned by multihead_attention(..., "
                        f"return_cache=True), got {type(cache).__name__}")
    X, H = cache.X, cache.num_heads
    xp = _array.namespace(X)
    dY = as_float_array(dY, "dY", check_finite=check_finite, xp=xp)
    want = tuple(cache.Ocat.shape[:-1]) + ((cache.Wo.shape[1],) if cache.Wo is not None
                                           else tuple(cache.Ocat.shape[-1:]))
    if tuple(dY.shape) != want:
        raise ValueError(f"dY must have the shape of the output {want}, got "
                         f"{tuple(dY.shape)}")
    dY = _astype(xp, dY, X.dtype)
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
