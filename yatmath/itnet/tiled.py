"""Tiled ITNet forward and backward (003 §3.1, Alg. 1-2; algorithms.md I3-I4).

The (nq, nk, d, d) kernel tensor is never formed.  Queries are cut into tiles of ``bq`` rows and
keys into tiles of ``bk`` rows (any sizes >= 1; the last tiles may be ragged); per tile pair only
the hidden activations ``h_ij`` (bq x bk x w) are computed.  By default the network's linear last
layer is applied *after* the sum over keys (the last-layer factorisation, exact)::

    sum_j c_ij K_ij u_j = sum_{b,k} W2r[:, b, k] T_i[b, k] + B2 ubar_i,
    T_i = sum_j c_ij u_j h_ij^T  (d x w),   ubar_i = sum_j c_ij u_j,

so a pair costs O(w (2L + 1 + 2d)) instead of O(w d^2) (``factorised=False`` keeps the naive
per-pair d x d kernel for comparison).

Backends: the registry rows of ``"itnet.apply.tiled"`` and ``"itnet.grad.tiled"`` (registered
here; :func:`~yatmath.itnet.apply`, :func:`tiled_forward`, :func:`tiled_integral` and
:func:`tiled_grad` choose among them): ``"numba"`` (parallel CPU kernels, one thread per query
tile; deterministic; NumPy arrays), ``"reference"`` (alias ``"numpy"``: the tile loop written once
against the array API standard, so it runs in the caller's library on its device -- NumPy,
PyTorch, JAX, ``array_api_strict``; its contractions are :func:`~yatmath.itnet._xp_ops.einsum`,
``numpy.einsum`` for NumPy) and ``"cupy"`` (forward only, on CuPy arrays: the numba-cuda kernel
of :mod:`~yatmath.itnet._cuda_tiled`, one thread per (query, hidden unit) with the keys streamed
through shared memory, the array API tile loop where the kernel does not apply; host inputs
named with ``backend="cupy"`` are copied to the device and the result copied back, the row's
``host_input``).

Backward ("recompute"): the forward tiles are visited again and ``h``, ``GELU'`` are recomputed
per tile, never stored.  The numba backend runs a query-outer pass (query-side terms, theta
gradients) and a key-outer pass (value and key-side terms); the array API reference does one pass,
accumulating query-side terms per query tile and key-side terms per key tile (no scatter into a
shared buffer: the blocks are concatenated at the end).

Accuracy: equal to :mod:`~yatmath.itnet.dense` up to summation order and the angle-difference
evaluation of gamma(x - y) (see :mod:`~yatmath.itnet.network`): ~1e-14 relative in float64 for
O(1) inputs (tested: <= 1e-12).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dataclasses import dataclass
from typing import Callable

from .._array import as_float64, astype, is_foreign, parameter
from .._registry import choose, register
from .._typing import Array, Namespace
from .._validate import check_int
from ._dispatch import GELU_NOTE
from ._xp_ops import caller, contiguous, einsum, xp_of
from .dense import pair_weights
from .measures import causal_mask
from .network import KernelMLP, _gelu, _gelu_prime, fourier_lift, pair_distance
from .operator import ITNetOperator, MultiHeadOperator

_GELU_KIND = {"exact": 0, "tanh": 1}


def check_tile(tile: int | tuple[int, int]) -> tuple[int, int]:
    """``tile`` = an int b (square b x b tiles) or a pair (bq, bk) of ints >= 1."""
    if isinstance(tile, (str, bytes)):
        raise TypeError(f"tile must be an int or a pair (bq, bk) of ints, got {tile!r}")
    try:
        bq, bk = (tile, tile) if np.ndim(tile) == 0 else tuple(tile)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"tile must be an int or a pair (bq, bk) of ints, got {tile!r}") from None
    return (check_int(bq, "tile" if np.ndim(tile) == 0 else "tile[0] (bq)", minimum=1),
            check_int(bk, "tile" if np.ndim(tile) == 0 else "tile[1] (bk)", minimum=1))


class _Prep:
    """Per-point split-W1 pieces of one kernel MLP (computed once, O(n w (2L + d))), in the
    library and on the device of the float64 inputs, cast to ``dtype`` (a dtype of that library)."""

    # the pieces __init__ sets (by name, from a dict): arrays of the inputs' library
    Aq: Array
    Ak: Array
    Sq: Array
    Cq: Array
    Sk: Array
    Ck: Array
    Wgs: Array
    Wgc: Array
    wr: Array
    Wh: Array
    Xq: Array
    Xk: Array
    Uq: Array
    Uk: Array
    W2r: Array
    B2: Array

    def __init__(self, net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array,
                 dtype: Any) -> None:
        xp = xp_of(Xq, Xk, Uq, Uk)
        self.xp, self.dtype = xp, dtype
        sw = net.split()
        L = net.L if "gd" in net.slices else 0
        Sq, Cq = net.trig(Xq)
        Sk, Ck = (Sq, Cq) if Xk is Xq else net.trig(Xk)    # queries = keys: computed once
        pieces = dict(Aq=net.query_part(Xq, Uq, sw), Ak=net.key_part(Xk, Uk, sw), Sq=Sq, Cq=Cq,
                      Sk=Sk, Ck=Ck, Wgs=sw.Wgd[:, :L], Wgc=sw.Wgd[:, L:], wr=sw.wr, Wh=sw.Wh,
                      Xq=Xq, Xk=Xk, Uq=Uq, Uk=Uk, W2r=net.W2.reshape(net.d, net.d, -1),
                      B2=net.b2.reshape(net.d, net.d))
        for k, v in pieces.items():
            setattr(self, k, self.cast(v, Uq))
        self.use_dist = "dist" in net.slices
        self.gelu_kind = _GELU_KIND[net.gelu]
        self.sw = sw
        self.net = net

    def cast(self, v, like=None):
        """``v`` (an array of this library, or a NumPy parameter) as ``dtype`` here (C order for
        NumPy, as the Numba kernels and the bit-for-bit NumPy results need)."""
        xp = self.xp
        if xp is np:
            return np.ascontiguousarray(v, dtype=self.dtype)
        if not is_foreign(v):                        # a NumPy parameter of the network
            return caller(self.Uq if like is None else like).asarray(v, self.dtype)
        return v if v.dtype == self.dtype else astype(v, self.dtype)

    def numba_args(self):
        return (self.Aq, self.Ak, self.Sq, self.Cq, self.Sk, self.Ck, self.Wgs, self.Wgc, self.wr,
                self.Wh, self.Xq, self.Xk, self.Uq, self.Uk)


def _xp_gelu(a, kind, xp, prime=False):
    """GELU (``prime``: GELU') in the namespace ``xp``: the one definition in
    :mod:`~yatmath.itnet.network` (erfc as :func:`~yatmath.itnet._xp_ops.erfc` gives it)."""
    name = "exact" if kind == 0 else "tanh"
    return _gelu_prime(a, name, xp) if prime else _gelu(a, name, xp)


def _xp_tile(P: _Prep, i0: int, i1: int, j0: int, j1: int, xp: Namespace) -> tuple[Any, ...]:
    """Pre-activations of one tile and the pair features: a (m, b, w), sd, cd, r, had."""
    Sq, Cq = P.Sq[i0:i1, None, :], P.Cq[i0:i1, None, :]
    Sk, Ck = P.Sk[None, j0:j1, :], P.Ck[None, j0:j1, :]
    sd = Sq * Ck - Cq * Sk
    cd = Cq * Ck + Sq * Sk
    nh = P.Wh.shape[1]
    had = P.Uq[i0:i1, None, :nh] * P.Uk[None, j0:j1, :nh]
    a = (P.Aq[i0:i1, None, :] + P.Ak[None, j0:j1, :] + xp.matmul(sd, P.Wgs.T)
         + xp.matmul(cd, P.Wgc.T) + xp.matmul(had, P.Wh.T))
    r = None
    if P.use_dist:
        diff = P.Xq[i0:i1, None, :] - P.Xk[None, j0:j1, :]
        r = pair_distance(diff, xp)
        a = a + r[..., None] * P.wr
    return a, sd, cd, r, had


def _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp):
    c = xp.broadcast_to(omega[None, j0:j1], (i1 - i0, j1 - j0))
    if causal:
        c = c * caller(omega).asarray(causal_mask(i1 - i0, j1 - j0, diag_weight, q0=i0, k0=j0),
                                      omega.dtype)
    return c


def _xp_integral(P: _Prep, omega: Array, bq: int, bk: int, causal: bool, diag_weight: float,
                 factorised: bool, xp: Namespace) -> Array:
    """The tiled integral in the namespace ``xp`` (standard operations; the reference and CuPy)."""
    nq, nk, d = P.Uq.shape[0], P.Uk.shape[0], P.Uk.shape[1]
    w = P.Aq.shape[1]
    dt = P.Aq.dtype
    new = caller(P.Aq).zeros
    rows = []
    for i0 in range(0, nq, bq):
        i1 = min(i0 + bq, nq)
        T = new((i1 - i0, d, w), dt)
        ubar = new((i1 - i0, d), dt)
        acc = new((i1 - i0, d), dt)
        for j0 in range(0, nk, bk):
            if causal and j0 > i1 - 1:
                break
            j1 = min(j0 + bk, nk)
            c = _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp)
            a = _xp_tile(P, i0, i1, j0, j1, xp)[0]
            H = _xp_gelu(a, P.gelu_kind, xp) * c[..., None]
            Ukt = P.Uk[j0:j1, :]
            if factorised:
                T = T + einsum("pqk,qb->pbk", H, Ukt, xp=xp)
                ubar = ubar + xp.matmul(c, Ukt)
            else:
                K = einsum("abk,pqk->pqab", P.W2r, H, xp=xp) + c[..., None, None] * P.B2
                acc = acc + einsum("pqab,qb->pa", K, Ukt, xp=xp)
        if factorised:
            acc = acc + einsum("abk,pbk->pa", P.W2r, T, xp=xp) + xp.matmul(ubar, P.B2.T)
        rows.append(acc)
    return xp.concat(rows, axis=0) if rows else new((0, d), dt)


def _cuda_integral(P: _Prep, omega: Array, bq: int, bk: int, causal: bool, diag_weight: float,
                   factorised: bool, xp: Namespace) -> Array:
    """The tiled integral by the numba-cuda kernel of :mod:`~yatmath.itnet._cuda_tiled` (device
    arrays; its own query blocks and key tiles: ``bq``, ``bk`` only change the summation order of
    the other rows); the array API tile loop on the device for ``factorised=False`` or a network
    beyond the kernel's limits (:func:`~yatmath.itnet._cuda_tiled.supported`)."""
    from . import _cuda_tiled as ct

    w, L, s, d = P.Aq.shape[1], P.Sq.shape[1], P.Xq.shape[1], P.Uq.shape[1]
    if not factorised or not ct.supported(w, L, s, d, P.dtype):
        return _xp_integral(P, omega, bq, bk, causal, diag_weight, factorised, xp)
    return ct.integral(P.Aq, P.Ak, P.Sq, P.Cq, P.Sk, P.Ck, P.Wgs, P.Wgc, P.wr, P.Wh, P.Xq, P.Xk,
                       P.Uq, P.Uk, omega, P.W2r, P.B2, causal, diag_weight, P.gelu_kind,
                       P.use_dist)


def _numba_integral(P: _Prep, omega: Array, bq: int, bk: int, causal: bool, diag_weight: float,
                    factorised: bool, xp: Namespace) -> Array:
    """The tiled integral by the parallel Numba kernel (NumPy arrays)."""
    from . import _numba_tiled as nb

    out = np.empty(P.Uq.shape, dtype=P.dtype)
    nb.tiled_forward(*P.numba_args(), omega, P.W2r, P.B2, bq, bk, causal, diag_weight,
                     P.gelu_kind, factorised, P.use_dist, out)
    return out


#: the tile loop of a row: ``(prep, omega, bq, bk, causal, diag_weight, factorised, xp) -> I``
IntegralKernel = Callable[[_Prep, Array, int, int, bool, float, bool, Namespace], Array]


def _integral(net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array, omega: Array,
              bq: int, bk: int, causal: bool, diag_weight: float, factorised: bool,
              kernel: IntegralKernel) -> Array:
    """``sum_j omega_j m_ij K_ij u_j`` for one kernel MLP by the tile loop ``kernel``, in the
    library of the inputs (float32 when ``Uq`` and ``Uk`` both are, else float64)."""
    xp = xp_of(Xq, Xk, Uq, Uk, omega)
    dtype = xp.float32 if Uq.dtype == xp.float32 and Uk.dtype == xp.float32 else xp.float64
    P = _Prep(net, *(contiguous(as_float64(a), xp)  # type: ignore[call-arg]
                     for a in (Xq, Xk, Uq, Uk)), dtype)
    return kernel(P, P.cast(omega), bq, bk, bool(causal), float(diag_weight), bool(factorised),
                  xp)


@dataclass(frozen=True)
class _OneKernel:
    """One kernel MLP with its mask, evaluated by the forward rows as an operator without a
    residual (:func:`tiled_integral`)."""

    kernel: KernelMLP
    causal: bool
    diag_weight: float


#: ``(xp, base, [(A_1, M_1), ...]) -> base + A_1 @ M_1 + ...`` (``base`` None: no base term),
#: the mixing of the integral and the input after the tile loop (:func:`_mix`, :func:`_mix_kept`)
Mix = Callable[[Namespace, "Array | None", list], Array]


def _mix(xp: Namespace, base: Array | None, products: list) -> Array:
    """``base + sum_k A_k @ M_k`` in the arrays' dtype and library, left to right."""
    out = base
    for A, M in products:
        t = xp.matmul(A, M)
        out = t if out is None else out + t
    return out


def _mix_kept(xp: Namespace, base: Array | None, products: list) -> Array:
    """:func:`_mix` on CuPy arrays: float32 operands widened, the sum computed in float64 and
    rounded once, each conversion by a kernel (``yatmath._cuda_cast``), since CuPy's float32
    array code flushes subnormals; float64 operands: :func:`_mix` itself."""
    from .._cuda_cast import cast

    dtype = products[0][0].dtype
    out = _mix(xp, None if base is None else cast(base, np.float64),
               [(cast(A, np.float64), cast(M, np.float64)) for A, M in products])
    return cast(out, dtype)


def _forward(op: ITNetOperator | MultiHeadOperator | _OneKernel, Xq: Array, Xk: Array,
             Uq: Array, Uk: Array, omega: Array, bq: int, bk: int, factorised: bool,
             kernel: IntegralKernel, mix: Mix = _mix) -> Array:
    """The operator output with the tiled integral (single or multi-head, plus residual; the
    integral alone for a :class:`_OneKernel`); ``mix`` adds the residual and mixes the heads."""
    xp = xp_of(Uq, Uk)
    args = (bq, bk, op.causal, op.diag_weight, factorised, kernel)
    if isinstance(op, _OneKernel):
        return _integral(op.kernel, Xq, Xk, Uq, Uk, omega, *args)
    if isinstance(op, ITNetOperator):
        I = _integral(op.kernel, Xq, Xk, Uq, Uk, omega, *args)
        return mix(xp, I, [(Uq, parameter(op, op.W.T, I, I.dtype))])
    I = xp.concat([_integral(net, Xq, Xk, Uq[:, op.head_slice(h)], Uk[:, op.head_slice(h)],
                             omega, *args) for h, net in enumerate(op.heads)], axis=1)
    return mix(xp, None, [(I, parameter(op, op.W_O.T, I, I.dtype)),
                          (Uq, parameter(op, op.W.T, I, I.dtype))])


def _forward_row(kernel: IntegralKernel, name: str, mix: Mix = _mix) -> Callable[..., Array]:
    def run(op, Xq, Xk, Uq, Uk, omega, *, tile, factorised, **_):
        with np.errstate(over="ignore", invalid="ignore"):
            return _forward(op, Xq, Xk, Uq, Uk, omega, *tile, factorised, kernel, mix)
    run.__name__ = run.__qualname__ = name
    return run


_TILED_NOTE = "query/key tiles, last-layer factorisation; "
register("itnet.apply.tiled", "reference",
         note=_TILED_NOTE + "the tile loop in standard array operations; float32 or float64; "
         + GELU_NOTE)(_forward_row(_xp_integral, "_apply_tiled_reference"))
register("itnet.apply.tiled", "numba", libraries=("numpy",), device="cpu",
         note=_TILED_NOTE + "parallel over query tiles; float32 or float64")(
    _forward_row(_numba_integral, "_apply_tiled_numba"))
register("itnet.apply.tiled", "cupy", libraries=("cupy",), device="gpu", host_input=True,
         note=_TILED_NOTE + "numba-cuda kernel (_cuda_tiled): one thread per (query, hidden "
         "unit), keys streamed through shared memory, float32 or float64; the reference's array "
         "API tile loop on CuPy arrays (erfc: cupyx.scipy.special) for factorised=False or "
         "beyond the kernel's limits (width <= 1024, 48 KiB of shared memory); the residual "
         "and head mixing in float64, rounded once by a kernel (float32 subnormals kept); "
         "NumPy inputs copied to the device and back")(
    _forward_row(_cuda_integral, "_apply_tiled_cupy", _mix_kept))


def tiled_integral(net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array, omega: Array, *,
                   tile: int | tuple[int, int] = (64, 64), causal: bool = False,
                   diag_weight: float = 1.0, factorised: bool = True,
                   backend: str = "auto") -> Array:
    """``sum_j omega_j m_ij K_ij u_j`` for one kernel MLP, tiled (no residual), in the library of
    the inputs (float32 when ``Uq`` and ``Uk`` both are, else float64); ``backend`` chooses the
    row of ``"itnet.apply.tiled"`` as :func:`~yatmath.itnet.apply` does."""
    tile = check_tile(tile)
    impl = choose("itnet.apply.tiled", backend, caller(Xq, Xk, Uq, Uk, omega).library)
    return impl(_OneKernel(net, bool(causal), float(diag_weight)), Xq, Xk, Uq, Uk, omega,
                tile=tile, factorised=factorised)


def tiled_forward(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
                  Uk: Array, omega: Array, *, tile: int | tuple[int, int] = (64, 64),
                  factorised: bool = True, backend: str = "auto") -> Array:
    """The operator output with the tiled integral (single or multi-head, plus residual);
    ``backend`` chooses the row of ``"itnet.apply.tiled"`` as :func:`~yatmath.itnet.apply`
    does (validated inputs: use :func:`~yatmath.itnet.apply` for checked ones)."""
    tile = check_tile(tile)
    impl = choose("itnet.apply.tiled", backend, caller(Xq, Xk, Uq, Uk, omega).library)
    return impl(op, Xq, Xk, Uq, Uk, omega, tile=tile, factorised=factorised)


# ---------------------------------------------------------------------------------------------
# backward
#: the recompute pass of a row: ``(prep, Uq, Uk, omega, V, B2g, bq, bk, causal, diag_weight,
#: xp) -> (T, ubar, Sq_sum, Sk_sum, dUq, dUk, dWgs, dWgc, dwr, dWh)``
BackwardKernel = Callable[..., tuple[Any, ...]]


def _head_grad_tiled(net: KernelMLP, Xq: Array, Xk: Array, Uq: Array, Uk: Array, omega: Array,
                     G: Array, bq: int, bk: int, causal: bool, diag_weight: float,
                     backward: BackwardKernel) -> tuple[dict[str, Array], Array, Array]:
    """(theta grads, dUq, dUk) of <G, tiled integral> for one head; float64, in the library of the
    inputs (the Numba ``backward``: NumPy only)."""
    xp = xp_of(Xq, Xk, Uq, Uk, omega, G)
    P = _Prep(net, Xq, Xk, Uq, Uk, xp.float64)
    d = net.d
    V = contiguous(einsum("ia,abk->ibk", G, P.W2r, xp=xp), xp)   # V_i = sum_a g_ia W2r[a]
    B2g = contiguous(xp.matmul(G, P.B2), xp)
    T, ubar, Sq_sum, Sk_sum, dUq, dUk, dWgs, dWgc, dwr, dWh = backward(
        P, Uq, Uk, omega, V, B2g, bq, bk, causal, diag_weight, xp)
    # per-point contractions (O(n w (2L + d)))
    sw = P.sw
    w = net.width
    dW2 = xp.reshape(einsum("ia,ibk->abk", G, T, xp=xp), (d * d, w))
    db2 = xp.reshape(xp.matmul(G.T, ubar), (-1,))
    B = parameter(net, net.B, Uq)

    def block(g):
        if g == "gx":
            return xp.matmul(Sq_sum.T, fourier_lift(Xq, B))
        if g == "gy":
            return xp.matmul(Sk_sum.T, fourier_lift(Xk, B))
        if g == "gd":
            return xp.concat([dWgs, dWgc], axis=1)
        if g == "dist":
            return dwr[:, None]
        if g == "ux":
            return xp.matmul(Sq_sum.T, Uq)
        if g == "uy":
            return xp.matmul(Sk_sum.T, Uk)
        return dWh                                            # "uxuy"

    dW1 = xp.concat([block(g) for g in net.slices], axis=1)   # the groups' column blocks, in order
    dUq = dUq + xp.matmul(Sq_sum, caller(Uq).asarray(sw.Wux))
    dUk = dUk + xp.matmul(Sk_sum, caller(Uq).asarray(sw.Wuy))
    return {"W1": dW1, "b1": xp.sum(Sq_sum, axis=0), "W2": dW2, "b2": db2}, dUq, dUk


def _numba_backward(P: _Prep, Uq: Array, Uk: Array, omega: Array, V: Array, B2g: Array,
                    bq: int, bk: int, causal: bool, diag_weight: float,
                    xp: Namespace) -> tuple[Any, ...]:
    """The recompute pass by the Numba kernels (NumPy arrays): a query-outer pass (query-side
    terms, theta gradients per query tile) and a key-outer pass (value and key-side terms)."""
    from . import _numba_tiled as nb

    nq, nk, d, w = Uq.shape[0], Uk.shape[0], P.net.d, P.net.width
    L, nh = P.Sq.shape[1], P.Wh.shape[1]
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
    return (T, ubar, Sq_sum, Sk_sum, dUq, dUk, dWgs_t.sum(0), dWgc_t.sum(0), dwr_t.sum(0),
            dWh_t.sum(0))


def _xp_backward(P: _Prep, Uq: Array, Uk: Array, omega: Array, V: Array, B2g: Array, bq: int,
                 bk: int, causal: bool, diag_weight: float, xp: Namespace) -> tuple[Any, ...]:
    """The recompute pass of the tiled backward in the namespace ``xp`` (standard operations).

    Query-side sums (T, ubar, Sq_sum, dUq) are accumulated per query tile and key-side sums
    (Sk_sum, dUk) per key tile, each over the other index in increasing tile order, then the tiles
    are concatenated; theta sums over all tile pairs."""
    nq, nk, d = Uq.shape[0], Uk.shape[0], Uk.shape[1]
    w, L, nh = P.Aq.shape[1], P.Sq.shape[1], P.Wh.shape[1]
    new = caller(Uq).zeros

    def zeros(*shape: int) -> Array:          # float64 on the device of the inputs
        return new(shape, xp.float64)

    starts = list(range(0, nk, bk))
    Sk_t = [zeros(min(j0 + bk, nk) - j0, w) for j0 in starts]
    dUk_t = [zeros(min(j0 + bk, nk) - j0, d) for j0 in starts]
    T_r, ubar_r, Sq_r, dUq_r = [], [], [], []
    dWgs, dWgc = zeros(w, L), zeros(w, L)
    dwr, dWh = zeros(w), zeros(w, nh)
    for i0 in range(0, nq, bq):
        i1 = min(i0 + bq, nq)
        Ti, ubi = zeros(i1 - i0, d, w), zeros(i1 - i0, d)
        Sqi, dUqi = zeros(i1 - i0, w), zeros(i1 - i0, d)
        for t, j0 in enumerate(starts):
            if causal and j0 > i1 - 1:
                break
            j1 = min(j0 + bk, nk)
            c = _tile_weights(omega, i0, i1, j0, j1, causal, diag_weight, xp)
            a, sd, cd, r, had = _xp_tile(P, i0, i1, j0, j1, xp)
            Hc = _xp_gelu(a, P.gelu_kind, xp) * c[..., None]
            Ukt, Uqt, Vt = Uk[j0:j1, :], Uq[i0:i1, :], V[i0:i1, ...]
            Ti = Ti + einsum("pqk,qb->pbk", Hc, Ukt, xp=xp)
            ubi = ubi + xp.matmul(c, Ukt)
            dl = (c[..., None] * einsum("pbk,qb->pqk", Vt, Ukt, xp=xp)
                  * _xp_gelu(a, P.gelu_kind, xp, True))
            Sqi = Sqi + xp.sum(dl, axis=1)
            Sk_t[t] = Sk_t[t] + xp.sum(dl, axis=0)
            dWgs = dWgs + einsum("pqk,pql->kl", dl, sd, xp=xp)
            dWgc = dWgc + einsum("pqk,pql->kl", dl, cd, xp=xp)
            if r is not None:
                dwr = dwr + einsum("pqk,pq->k", dl, r, xp=xp)
            if nh:
                dWh = dWh + einsum("pqk,pqb->kb", dl, had, xp=xp)
                e = xp.matmul(dl, P.Wh)
                dUqi = dUqi + einsum("pqb,qb->pb", e, Ukt, xp=xp)
                dUk_t[t] = dUk_t[t] + einsum("pqb,pb->qb", e, Uqt, xp=xp)
            dUk_t[t] = dUk_t[t] + (einsum("pbk,pqk->qb", Vt, Hc, xp=xp)
                                   + xp.matmul(c.T, B2g[i0:i1, :]))
        T_r.append(Ti)
        ubar_r.append(ubi)
        Sq_r.append(Sqi)
        dUq_r.append(dUqi)
    cat = lambda parts: xp.concat(parts, axis=0)   # noqa: E731
    return (cat(T_r), cat(ubar_r), cat(Sq_r), cat(Sk_t), cat(dUq_r), cat(dUk_t), dWgs, dWgc,
            dwr, dWh)


def _grad(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array, Uk: Array,
          omega: Array, G: Array, bq: int, bk: int, shared: bool, integral: IntegralKernel,
          backward: BackwardKernel) -> dict[str, Any]:
    """Tiled backward with recompute by the row's tile loops (``integral`` for the heads'
    outputs of a multi-head operator, ``backward`` for the recompute pass)."""
    xp = xp_of(Xq, Xk, Uq, Uk, omega, G)
    Xq, Xk, Uq, Uk, omega, G = (as_float64(a) for a in (Xq, Xk, Uq, Uk, omega, G))
    out = {"W": xp.matmul(G.T, Uq)}
    dUq = xp.matmul(G, parameter(op, op.W, G))
    dUk = xp.zeros_like(Uk)
    args = (bq, bk, op.causal, op.diag_weight, backward)
    if isinstance(op, ITNetOperator):
        p, q, k = _head_grad_tiled(op.kernel, Xq, Xk, Uq, Uk, omega, G, *args)
        out["heads"] = [p]
        dUq, dUk = dUq + q, dUk + k
    else:
        GI = xp.matmul(G, parameter(op, op.W_O, G))
        Is, heads, qs, ks = [], [], [], []
        for h, net in enumerate(op.heads):
            sl = op.head_slice(h)
            Is.append(_integral(net, Xq, Xk, Uq[:, sl], Uk[:, sl], omega, bq, bk, op.causal,
                                op.diag_weight, True, integral))
            p, q, k = _head_grad_tiled(net, Xq, Xk, Uq[:, sl], Uk[:, sl], omega, GI[:, sl], *args)
            heads.append(p)
            qs.append(q)
            ks.append(k)
        dUq = dUq + xp.concat(qs, axis=1)                  # the heads' column blocks
        dUk = dUk + xp.concat(ks, axis=1)
        out["heads"] = heads
        out["W_O"] = xp.matmul(G.T, xp.concat(Is, axis=1))
    if shared:
        out["U"] = dUq + dUk
    else:
        out["U"], out["Uq"] = dUk, dUq
    return out


def _grad_row(integral: IntegralKernel, backward: BackwardKernel,
              name: str) -> Callable[..., dict[str, Any]]:
    def run(op, Xq, Xk, Uq, Uk, omega, G, *, tile, shared=True, **_):
        with np.errstate(over="ignore", invalid="ignore"):
            return _grad(op, Xq, Xk, Uq, Uk, omega, G, *tile, shared, integral, backward)
    run.__name__ = run.__qualname__ = name
    return run


register("itnet.grad.tiled", "reference",
         note="recompute per tile, float64; the tile loop in standard array operations; "
         + GELU_NOTE)(_grad_row(_xp_integral, _xp_backward, "_grad_tiled_reference"))
register("itnet.grad.tiled", "numba", libraries=("numpy",), device="cpu",
         note="recompute per tile: a query-outer and a key-outer pass, float64")(
    _grad_row(_numba_integral, _numba_backward, "_grad_tiled_numba"))


def tiled_grad(op: ITNetOperator | MultiHeadOperator, Xq: Array, Xk: Array, Uq: Array,
               Uk: Array, omega: Array, G: Array, *, tile: int | tuple[int, int] = (64, 64),
               shared: bool = True, backend: str = "auto") -> dict[str, Any]:
    """Tiled backward with recompute; same output format as :func:`~yatmath.itnet.dense.dense_grad`.

    float64; ``backend`` chooses the row of ``"itnet.grad.tiled"``: "numba" (NumPy arrays, CPU)
    or "reference"/"numpy" (the array API reference: any library, on the inputs' device, CuPy
    included; the gradients come back in that library); "auto" is "numba" for NumPy arrays where
    Numba imports, else the reference (there is no "cupy" backward: refused by the registry).
    """
    tile = check_tile(tile)
    impl = choose("itnet.grad.tiled", backend, caller(Xq, Xk, Uq, Uk, omega, G).library)
    return impl(op, Xq, Xk, Uq, Uk, omega, G, tile=tile, shared=shared)


__all__ = ["tiled_integral", "tiled_forward", "tiled_grad", "check_tile", "pair_weights"]
