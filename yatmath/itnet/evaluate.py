"""One entry point for every evaluation mode of an ITNet operator.

``apply(op, U, measure, mode=...)`` evaluates ``O_i = sum_j omega_j m_ij K_ij u_j + W u_i`` with

==========  ================================================================  =====================
mode        method                                                            accuracy
==========  ================================================================  =====================
"dense"     (n, n, d, d) kernel tensor, float64 (the reference, I3)           O(n u) relative
"tiled"     tiles of keys/queries, last-layer factorisation; Numba/NumPy/CuPy  <= 1e-12 rel. vs dense
"mc"        importance-weighted Monte Carlo, M keys per query (I7)           unbiased, sd ~ M^-1/2
"lowrank"   global-Z evaluation of a :class:`LowRankOperator` (I8)           exact for its kernel
==========  ================================================================  =====================

Keys are the measure's nodes with weights ``omega``; queries default to the keys (pass ``Xq`` and
``Uq`` for a different query set, e.g. strided outputs; causal operators need a shared set).

Every mode's reference (and ``grad`` in modes dense and tiled) is written once against the array
API standard: ``U`` of NumPy, CuPy, PyTorch, JAX or ``array_api_strict`` is evaluated in its own
library on its device (the measure's nodes and weights and the operator's parameters are moved
there), and the output comes back in that library.  What stays on the host is named in each
registry row's note (the Monte Carlo index draw; ``erfc`` for a library without one).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._registry import canonical, choose, implementations, register
from .._typing import Array, RNGLike
from .._validate import as_float_array, as_rng, check_choice, check_int, check_memory, check_real
from .dense import check_dense_memory, dense_forward, dense_grad
from .lowrank import LowRankOperator, lowrank_forward
from .mc import PROPOSALS, mc_forward, mix, proposal_pmf
from .measures import Measure
from .operator import ITNetOperator, MultiHeadOperator, check_flag
from .tiled import check_tile  # and the rows of itnet.apply.tiled / itnet.grad.tiled
from .._array import as_float64, parameter, to_host
from ._dispatch import GELU_NOTE
from ._xp_ops import all_finite, caller, contiguous, size, xp_of

MODES = ("dense", "tiled", "mc", "lowrank")
GRAD_MODES = ("dense", "tiled")


def _prepare(op, U, measure, Xq, Uq, check_finite):
    if not isinstance(op, (ITNetOperator, MultiHeadOperator, LowRankOperator)):
        raise TypeError("op must be an ITNetOperator, MultiHeadOperator or LowRankOperator, "
                        f"got {type(op).__name__}")
    if not isinstance(measure, Measure):
        raise TypeError(f"measure must be a yatmath.itnet.Measure, got {type(measure).__name__}")
    check_finite = check_flag(check_finite, "check_finite")
    U = as_float_array(U, "U", ndim=2, check_finite=check_finite)
    if U.shape != (measure.n, op.d):
        raise ValueError(f"U must have shape (n, d) = ({measure.n}, {op.d}) (one row per node of "
                         f"measure), got {tuple(U.shape)}")
    s = _op_s(op)
    if s is not None and measure.s != s:
        raise ValueError(f"measure must have nodes in R^{s} (the operator's positions have s = {s}), "
                         f"got nodes of shape {measure.nodes.shape}")
    xp = xp_of(U)
    U = contiguous(U, xp)          # one memory layout: layout variants give the same bits
    Xk = parameter(measure, measure.nodes, U)       # the measure's float64 nodes and weights, moved
    omega = parameter(measure, measure.weights, U)  # to the caller's library and device
    if (Xq is None) != (Uq is None):
        raise ValueError(f"Xq and Uq go together (a separate query set) or neither: got "
                         f"Xq={'None' if Xq is None else 'an array'} and "
                         f"Uq={'None' if Uq is None else 'an array'}")
    shared = Xq is None
    if shared:
        Xq, Uq = Xk, U
    else:
        Xq = as_float_array(Xq, "Xq", ndim=(1, 2), check_finite=check_finite)
        Xq = xp.expand_dims(Xq, axis=1) if Xq.ndim == 1 else Xq
        Uq = as_float_array(Uq, "Uq", ndim=2, check_finite=check_finite)
        Xq, Uq = contiguous(Xq, xp), contiguous(Uq, xp)
        if Xq.shape[0] < 1:
            raise ValueError(f"Xq must have at least one row (query point), got shape "
                             f"{tuple(Xq.shape)}")
        if Xq.shape[1] != Xk.shape[1]:
            raise ValueError(f"Xq must have {Xk.shape[1]} columns like the measure's nodes, got "
                             f"{tuple(Xq.shape)}")
        if tuple(Uq.shape) != (Xq.shape[0], op.d):
            raise ValueError(f"Uq must have shape ({Xq.shape[0]}, {op.d}), got {tuple(Uq.shape)}")
        if op.causal:
            raise ValueError("Xq: a causal operator needs queries = keys (do not pass Xq, Uq)")
    return Xq, Xk, Uq, U, omega, shared


def _op_s(op):
    """The position dimension s an operator's kernel MLPs expect (None when it does not say)."""
    if isinstance(op, ITNetOperator):
        return op.kernel.s
    if isinstance(op, MultiHeadOperator):
        return op.heads[0].s
    return None


def _choose(kind, mode, backend, library, size=0):
    """The registry row ``itnet.<kind>.<mode>`` for ``backend`` on ``library`` arrays; a refusal
    names the mode and the modes that do have the backend."""
    canonical(backend)
    try:
        return choose(f"itnet.{kind}.{mode}", backend, library, size=size)
    except ValueError as exc:
        modes = GRAD_MODES if kind == "grad" else MODES
        have = [m for m in modes if any(i.backend == canonical(backend)
                                        for i in implementations(f"itnet.{kind}.{m}"))]
        where = (f"mode={'/'.join(repr(m) for m in have)} has it" if have
                 else "no mode has it")
        raise ValueError(f"backend={backend!r} is not available with mode={mode!r}: {exc}; "
                         f"{where} (mode='tiled' is the one with compiled backends)") from None


def _finite_or_overflow(out: Array, what: str, arrays: dict[str, Any],
                        op: ITNetOperator | MultiHeadOperator | LowRankOperator) -> Array:
    """``out`` when finite; else OverflowError naming the inputs and their magnitudes.

    Only raised when every input is finite (with ``check_finite=False`` a NaN in, NaN out)."""
    xp = xp_of(out)
    if not size(out) or all_finite(out, xp):
        return out
    mags = {k: float(xp.max(xp.abs(v))) for k, v in arrays.items() if v is not None and size(v)}
    if not all(np.isfinite(v) for v in mags.values()):
        return out
    params = _param_magnitude(op)
    shown = ", ".join(f"max|{k}| = {v:.3g}" for k, v in mags.items())
    raise OverflowError(
        f"{what} overflows float64 although its inputs are finite ({shown}, largest operator "
        f"parameter {params:.3g}): the kernel grows with U (like |U|^2 through the u(x) * u(y) "
        f"input group) and the output like |K| |U|; scale U (or the nodes) down")


def _param_magnitude(op: ITNetOperator | MultiHeadOperator | LowRankOperator) -> float:
    arrays = [getattr(op, "W", None), getattr(op, "W_O", None)]
    for net in getattr(op, "heads", None) or []:
        if hasattr(net, "params"):
            arrays.extend(net.params().values())
    return max((float(np.abs(np.asarray(a)).max()) for a in arrays
                if a is not None and np.size(a)), default=0.0)


def _check_proposal_array(proposal, nq, nk):
    """(nq, nk) per-query pmfs: entries >= 0, each row summing to 1 within 8 nk u."""
    q = as_float_array(proposal, "proposal", ndim=2)
    xp = xp_of(q)
    if tuple(q.shape) != (nq, nk):
        raise ValueError(f"proposal must be a name in {PROPOSALS[:-1]} or an array of shape "
                         f"(nq, nk) = ({nq}, {nk}) (one pmf over the keys per query), got "
                         f"{tuple(q.shape)}")
    if bool(xp.any(q < 0)):
        raise ValueError(f"proposal must have entries >= 0 (pmfs), got a minimum of "
                         f"{float(xp.min(q))!r}")
    sums = xp.sum(q, axis=1)
    bad = xp.abs(sums - 1.0) > 8 * nk * float(np.finfo(np.float64).eps)
    if bool(xp.any(bad)):
        i = int(np.argmax(to_host(bad)))
        raise ValueError(f"proposal rows must sum to 1 (a pmf over the keys per query), got row "
                         f"{i} summing to {float(sums[i])!r}")
    return as_float64(q)


# ---- the registered implementations of each mode (validated arguments in; the tiled rows live
# ---- in .tiled) ---------------------------------------------------------------------------------


@register("itnet.apply.dense", "reference",
          note="(nq, nk, d, d) kernel tensor contracted in float64; " + GELU_NOTE)
def _apply_dense(op, Xq, Xk, Uq, Uk, omega, **_):
    """(nq, nk, d, d) kernel tensor contracted in float64 (LowRankOperator: Phi^T Psi), in the
    library of the inputs."""
    if isinstance(op, LowRankOperator):
        from .dense import apply_kernel_tensor
        from .measures import causal_mask
        check_memory(8 * Xq.shape[0] * Xk.shape[0] * (2 * op.d * op.d + 2),
                     f"mode='dense' on {Xq.shape[0]} queries x {Xk.shape[0]} keys (the measure's "
                     f"nodes; the "
                     f"(nq, nk, d, d) kernel tensor)", alternative="mode='lowrank' (global Z)")
        mask = (caller(Uk).asarray(causal_mask(Xq.shape[0], Xk.shape[0], op.diag_weight))
                if op.causal else None)
        return apply_kernel_tensor(op.kernel_tensor(Xq, Xk, Uq, Uk), Uk, omega, Uq=Uq,
                                   W=parameter(op, op.W, Uk), mask=mask)
    check_dense_memory(op, Xq.shape[0], Xk.shape[0])
    return dense_forward(op, Xq, Xk, Uq, Uk, omega)


@register("itnet.apply.mc", "reference",
          note="importance-weighted Monte Carlo; " + GELU_NOTE + ", except the index draw: on the "
          "host with NumPy's Generator (the pmf table copied there, the indices copied back), so a "
          "seed gives the same keys on every library")
def _apply_mc(op, Xq, Xk, Uq, Uk, omega, *, M, q, rng, replace, **_):
    with np.errstate(over="ignore", invalid="ignore"):   # checked by the caller: OverflowError
        return mc_forward(op, Xq, Xk, Uq, Uk, omega, M=M, q=q, rng=rng, replace=replace)


@register("itnet.apply.lowrank", "reference",
          note="global Z, O(n r d); " + GELU_NOTE + "; callable factors get the caller's arrays")
def _apply_lowrank(op, Xq, Xk, Uq, Uk, omega, **_):
    with np.errstate(over="ignore", invalid="ignore"):
        return lowrank_forward(op, Xq, Xk, Uq, Uk, omega)


@register("itnet.grad.dense", "reference", note="003 App I, eqs 223-239; float64; " + GELU_NOTE)
def _grad_dense(op, Xq, Xk, Uq, Uk, omega, G, *, shared, **_):
    check_dense_memory(op, Xq.shape[0], Xk.shape[0], backward=True)
    return dense_grad(op, Xq, Xk, Uq, Uk, omega, G, shared=shared)


def apply(op: ITNetOperator | MultiHeadOperator | LowRankOperator, U: Array, measure: Measure, *,
          mode: str = "dense", Xq: Array | None = None, Uq: Array | None = None,
          tile: int | tuple[int, int] = (64, 64), factorised: bool = True, M: int | None = None,
          proposal: str | Array = "uniform", proposal_scale: float = 0.1, eps_mix: float = 0.0,
          replace: bool = True, rng: RNGLike = None, backend: str = "auto",
          check_finite: bool = True) -> Array:
    """Evaluate the operator ``op`` on features ``U`` (n, d) at the nodes of ``measure``.

    Each mode is a row of the backend registry (op ``"itnet.apply.<mode>"``): ``backend`` ("auto",
    "reference" or its alias "numpy", "numba", "cupy") runs the mode's implementation of that name
    or is refused naming the mode (only mode="tiled" has "numba" and "cupy" rows).
    mode="tiled": ``tile`` = (bq, bk) or an int; ``factorised`` selects the last-layer factorisation.
    mode="mc": ``M`` samples per query from ``proposal`` (a name of :data:`~yatmath.itnet.mc.PROPOSALS`
    other than "optimal", or an (nq, nk) array of pmfs), mixed with uniform by ``eps_mix``;
    ``rng`` the seed (:func:`yatmath._validate.as_rng`).  ``M`` is refused in the other modes.
    mode="lowrank": ``op`` must be a :class:`LowRankOperator`.

    Array libraries: ``U`` (and ``Xq``, ``Uq``, an array ``proposal``) of one array API library
    (NumPy, CuPy, PyTorch, JAX, ``array_api_strict``): every mode's reference runs in that library
    on that device and the output is returned there (mode="mc" draws its indices on the host,
    see :mod:`.mc`).  NumPy results are bit for bit those of the NumPy-only code.

    Overflow: never NaN from finite input.  In mode="dense" a contraction whose partial products
    overflow is redone rescaled (the finite value is returned when there is one); an output that
    still is not finite raises OverflowError naming the inputs' magnitudes.
    """
    check_choice(mode, "mode", MODES)
    prop_arr = None if isinstance(proposal, str) else proposal
    lib = caller(U, Xq, Uq, prop_arr).library
    impl = _choose("apply", mode, backend, lib)
    tile = check_tile(tile)
    factorised = check_flag(factorised, "factorised")
    if M is not None and mode != "mc":
        raise ValueError(f"M (samples per query) applies to mode='mc' only, got M={M!r} with "
                         f"mode={mode!r}")
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    inputs = {"U": Uk, "nodes": Xk, "weights": omega, **({} if shared else {"Xq": Xq, "Uq": Uq})}
    if isinstance(op, LowRankOperator):
        if mode not in ("lowrank", "dense"):
            raise ValueError(f"mode={mode!r} is not available for a LowRankOperator (use 'lowrank' "
                             f"or 'dense')")
    elif mode == "lowrank":
        raise ValueError("mode='lowrank' needs a LowRankOperator; fit one with svd_factors or FactorMLP")
    kw = dict(tile=tile, factorised=factorised)
    if mode == "mc":
        if M is None:
            raise ValueError("M: mode='mc' needs M (samples per query, an integer >= 1), got None")
        M = check_int(M, "M", minimum=1)
        replace = check_flag(replace, "replace")
        eps_mix = check_real(eps_mix, "eps_mix", ge=0.0, le=1.0)
        rng = as_rng(rng)
        if isinstance(proposal, str):
            if proposal == "optimal":
                raise ValueError("proposal='optimal' needs the dense integrands: use "
                                 "yatmath.itnet.mc directly (proposal_pmf with g)")
            check_choice(proposal, "proposal", PROPOSALS[:-1])
            q = proposal_pmf(proposal, Xq, Xk, omega, scale=check_real(
                proposal_scale, "proposal_scale", gt=0.0), eps_mix=eps_mix)
        else:
            q = _check_proposal_array(proposal, Xq.shape[0], Xk.shape[0])
            if eps_mix:
                q = mix(q, eps_mix)
        kw.update(M=M, q=q, rng=rng, replace=replace)
    out = impl(op, Xq, Xk, Uq, Uk, omega, **kw)
    return _finite_or_overflow(out, f"apply(mode={mode!r})", inputs, op)


def grad(op: ITNetOperator | MultiHeadOperator, U: Array, measure: Measure, G: Array, *,
         mode: str = "dense", Xq: Array | None = None, Uq: Array | None = None,
         tile: int | tuple[int, int] = (64, 64), backend: str = "auto",
         check_finite: bool = True) -> dict[str, Any]:
    """Gradients of a loss L through the operator, given ``G = dL/dO`` (nq, d).

    Returns ``{"U": dL/dU, "W": dL/dW, "heads": [{"W1", "b1", "W2", "b2"}, ...]}`` (+ ``"W_O"`` for
    multi-head; + ``"Uq"`` when a separate query set is passed, then ``"U"`` is the key part).
    mode="dense" is the reference of 003 App I (eqs 223-239); mode="tiled" recomputes the kernel
    tiles (never stores them).  Each mode is a registry row (op ``"itnet.grad.<mode>"``):
    ``backend`` "auto", "reference"/"numpy" or (mode="tiled", NumPy arrays) "numba"; anything else
    is refused naming the mode.  Both references are array API generic: arrays of any one library
    are evaluated in it, on their device, and the gradients returned there.  A gradient that
    overflows float64 for finite inputs raises OverflowError (never NaN).
    """
    check_choice(mode, "mode", GRAD_MODES)
    lib = caller(U, G, Xq, Uq).library
    impl = _choose("grad", mode, backend, lib)
    tile = check_tile(tile)
    if not isinstance(op, (ITNetOperator, MultiHeadOperator)):
        raise TypeError(f"op must be an ITNetOperator or MultiHeadOperator, got {type(op).__name__}")
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    G = as_float_array(G, "G", ndim=2, check_finite=check_flag(check_finite, "check_finite"))
    G = contiguous(G, xp_of(G))
    if tuple(G.shape) != (Xq.shape[0], op.d):
        raise ValueError(f"G must have shape ({Xq.shape[0]}, {op.d}) like the output, got "
                         f"{tuple(G.shape)}")
    with np.errstate(over="ignore", invalid="ignore"):
        out = impl(op, Xq, Xk, Uq, Uk, omega, G, tile=tile, shared=shared)
    inputs = {"U": Uk, "nodes": Xk, "weights": omega, "G": G,
              **({} if shared else {"Xq": Xq, "Uq": Uq})}
    for key, val in out.items():
        for k, v in enumerate(val if isinstance(val, list) else [val]):
            for part in (v.values() if isinstance(v, dict) else [v]):
                _finite_or_overflow(part, f"grad(mode={mode!r})[{key!r}]", inputs, op)
    return out
