"""One entry point for every evaluation mode of an ITNet operator.

``apply(op, U, measure, mode=...)`` evaluates ``O_i = sum_j omega_j m_ij K_ij u_j + W u_i`` with

==========  ================================================================  =====================
mode        method                                                            accuracy
==========  ================================================================  =====================
"dense"     (n, n, d, d) kernel tensor, float64 NumPy (the reference, I3)     O(n u) relative
"tiled"     tiles of keys/queries, last-layer factorisation; Numba/NumPy/CuPy  <= 1e-12 rel. vs dense
"mc"        importance-weighted Monte Carlo, M keys per query (I7)           unbiased, sd ~ M^-1/2
"lowrank"   global-Z evaluation of a :class:`LowRankOperator` (I8)           exact for its kernel
==========  ================================================================  =====================

Keys are the measure's nodes with weights ``omega``; queries default to the keys (pass ``Xq`` and
``Uq`` for a different query set, e.g. strided outputs; causal operators need a shared set).
"""
from __future__ import annotations

import numpy as np

from .._backend import BACKENDS, array_module
from .._validate import as_float_array, as_rng, check_choice, check_int, check_memory, check_real
from .dense import check_dense_memory, dense_forward, dense_grad
from .lowrank import LowRankOperator, lowrank_forward
from .mc import PROPOSALS, mc_forward, mix, proposal_pmf
from .measures import Measure
from .operator import ITNetOperator, MultiHeadOperator, check_flag
from .tiled import check_tile, tiled_forward, tiled_grad

MODES = ("dense", "tiled", "mc", "lowrank")
#: backends that run each mode (the tiled kernels are the only ones with a choice)
MODE_BACKENDS = {"dense": ("auto", "numpy"), "tiled": BACKENDS, "mc": ("auto", "numpy"),
                 "lowrank": ("auto", "numpy")}


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
                         f"measure), got {U.shape}")
    s = _op_s(op)
    if s is not None and measure.s != s:
        raise ValueError(f"measure must have nodes in R^{s} (the operator's positions have s = {s}), "
                         f"got nodes of shape {measure.nodes.shape}")
    xp = array_module(U)
    U = xp.ascontiguousarray(U)    # one memory layout: layout variants give the same bits
    Xk = xp.asarray(measure.nodes)
    omega = xp.asarray(measure.weights)
    if (Xq is None) != (Uq is None):
        raise ValueError(f"Xq and Uq go together (a separate query set) or neither: got "
                         f"Xq={'None' if Xq is None else 'an array'} and "
                         f"Uq={'None' if Uq is None else 'an array'}")
    shared = Xq is None
    if shared:
        Xq, Uq = Xk, U
    else:
        Xq = as_float_array(Xq, "Xq", ndim=(1, 2), check_finite=check_finite)
        Xq = Xq[:, None] if Xq.ndim == 1 else Xq
        Uq = as_float_array(Uq, "Uq", ndim=2, check_finite=check_finite)
        Xq, Uq = xp.ascontiguousarray(Xq), xp.ascontiguousarray(Uq)
        if Xq.shape[0] < 1:
            raise ValueError(f"Xq must have at least one row (query point), got shape {Xq.shape}")
        if Xq.shape[1] != Xk.shape[1]:
            raise ValueError(f"Xq must have {Xk.shape[1]} columns like the measure's nodes, got {Xq.shape}")
        if Uq.shape != (Xq.shape[0], op.d):
            raise ValueError(f"Uq must have shape ({Xq.shape[0]}, {op.d}), got {Uq.shape}")
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


def _check_backend(backend, mode):
    check_choice(backend, "backend", BACKENDS)
    if backend not in MODE_BACKENDS[mode]:
        raise ValueError(f"backend={backend!r} applies to mode='tiled' only; mode={mode!r} runs in "
                         f"float64 NumPy: pass backend='auto' or 'numpy', or use mode='tiled'")


def _finite_or_overflow(out, what, arrays: dict, op):
    """``out`` when finite; else OverflowError naming the inputs and their magnitudes.

    Only raised when every input is finite (with ``check_finite=False`` a NaN in, NaN out)."""
    host = out.get() if hasattr(out, "get") else np.asarray(out)
    if not host.size or np.isfinite(host).all():
        return out
    mags = {k: float(np.abs(np.asarray(v.get() if hasattr(v, "get") else v)).max())
            for k, v in arrays.items() if v is not None and np.size(v)}
    if not all(np.isfinite(v) for v in mags.values()):
        return out
    params = _param_magnitude(op)
    shown = ", ".join(f"max|{k}| = {v:.3g}" for k, v in mags.items())
    raise OverflowError(
        f"{what} overflows float64 although its inputs are finite ({shown}, largest operator "
        f"parameter {params:.3g}): the kernel grows with U (like |U|^2 through the u(x) * u(y) "
        f"input group) and the output like |K| |U|; scale U (or the nodes) down")


def _param_magnitude(op) -> float:
    arrays = [getattr(op, "W", None), getattr(op, "W_O", None)]
    for net in getattr(op, "heads", None) or []:
        if hasattr(net, "params"):
            arrays.extend(net.params().values())
    return max((float(np.abs(np.asarray(a)).max()) for a in arrays
                if a is not None and np.size(a)), default=0.0)


def _check_proposal_array(proposal, nq, nk):
    """(nq, nk) per-query pmfs: entries >= 0, each row summing to 1 within 8 nk u."""
    q = as_float_array(proposal, "proposal", ndim=2)
    if q.shape != (nq, nk):
        raise ValueError(f"proposal must be a name in {PROPOSALS[:-1]} or an array of shape "
                         f"(nq, nk) = ({nq}, {nk}) (one pmf over the keys per query), got "
                         f"{tuple(q.shape)}")
    if bool((q < 0).any()):
        raise ValueError(f"proposal must have entries >= 0 (pmfs), got a minimum of {float(q.min())!r}")
    sums = q.sum(axis=1)
    bad = np.abs(sums - 1.0) > 8 * nk * np.finfo(np.float64).eps
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"proposal rows must sum to 1 (a pmf over the keys per query), got row "
                         f"{i} summing to {float(sums[i])!r}")
    return np.asarray(q, dtype=np.float64)


def apply(op, U, measure: Measure, *, mode: str = "dense", Xq=None, Uq=None, tile=(64, 64),
          factorised: bool = True, M: int | None = None, proposal="uniform", proposal_scale=0.1,
          eps_mix: float = 0.0, replace: bool = True, rng=None, backend: str = "auto",
          check_finite: bool = True):
    """Evaluate the operator ``op`` on features ``U`` (n, d) at the nodes of ``measure``.

    mode="tiled": ``tile`` = (bq, bk) or an int; ``factorised`` selects the last-layer factorisation;
    ``backend`` one of "auto", "numba", "numpy", "cupy" (the other modes run in float64 NumPy and
    accept only "auto"/"numpy").
    mode="mc": ``M`` samples per query from ``proposal`` (a name of :data:`~yatmath.itnet.mc.PROPOSALS`
    other than "optimal", or an (nq, nk) array of pmfs), mixed with uniform by ``eps_mix``;
    ``rng`` the seed (:func:`yatmath._validate.as_rng`).  ``M`` is refused in the other modes.
    mode="lowrank": ``op`` must be a :class:`LowRankOperator`.

    Overflow: never NaN from finite input.  In mode="dense" a contraction whose partial products
    overflow is redone rescaled (the finite value is returned when there is one); an output that
    still is not finite raises OverflowError naming the inputs' magnitudes.
    """
    check_choice(mode, "mode", MODES)
    _check_backend(backend, mode)
    tile = check_tile(tile)
    factorised = check_flag(factorised, "factorised")
    if M is not None and mode != "mc":
        raise ValueError(f"M (samples per query) applies to mode='mc' only, got M={M!r} with "
                         f"mode={mode!r}")
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    inputs = {"U": Uk, "nodes": Xk, "weights": omega, **({} if shared else {"Xq": Xq, "Uq": Uq})}
    if isinstance(op, LowRankOperator):
        if mode == "lowrank":
            with np.errstate(over="ignore", invalid="ignore"):
                out = lowrank_forward(op, Xq, Xk, Uq, Uk, omega)
        elif mode == "dense":
            from .dense import apply_kernel_tensor
            from .measures import causal_mask
            check_memory(8 * Xq.shape[0] * Xk.shape[0] * (2 * op.d * op.d + 2),
                         f"mode='dense' on {Xq.shape[0]} queries x {Xk.shape[0]} keys (the measure's "
                         f"nodes; the "
                         f"(nq, nk, d, d) kernel tensor)", alternative="mode='lowrank' (global Z)")
            mask = causal_mask(Xq.shape[0], Xk.shape[0], op.diag_weight) if op.causal else None
            out = apply_kernel_tensor(op.kernel_tensor(Xq, Xk, Uq, Uk), Uk, omega, Uq=Uq, W=op.W,
                                      mask=mask)
        else:
            raise ValueError(f"mode={mode!r} is not available for a LowRankOperator (use 'lowrank' "
                             f"or 'dense')")
        return _finite_or_overflow(out, "apply(mode=" + repr(mode) + ")", inputs, op)
    if mode == "lowrank":
        raise ValueError("mode='lowrank' needs a LowRankOperator; fit one with svd_factors or FactorMLP")
    if mode == "dense":
        check_dense_memory(op, Xq.shape[0], Xk.shape[0])
        out = dense_forward(op, *(np.asarray(a) for a in (Xq, Xk, Uq, Uk, omega)))
    elif mode == "tiled":
        with np.errstate(over="ignore", invalid="ignore"):
            out = tiled_forward(op, Xq, Xk, Uq, Uk, omega, tile=tile, factorised=factorised,
                                backend=backend)
    else:
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
        with np.errstate(over="ignore", invalid="ignore"):   # checked below: OverflowError
            out = mc_forward(op, Xq, Xk, Uq, Uk, omega, M=M, q=q, rng=rng, replace=replace)
    return _finite_or_overflow(out, f"apply(mode={mode!r})", inputs, op)


def grad(op, U, measure: Measure, G, *, mode: str = "dense", Xq=None, Uq=None, tile=(64, 64),
         backend: str = "auto", check_finite: bool = True) -> dict:
    """Gradients of a loss L through the operator, given ``G = dL/dO`` (nq, d).

    Returns ``{"U": dL/dU, "W": dL/dW, "heads": [{"W1", "b1", "W2", "b2"}, ...]}`` (+ ``"W_O"`` for
    multi-head; + ``"Uq"`` when a separate query set is passed, then ``"U"`` is the key part).
    mode="dense" is the reference of 003 App I (eqs 223-239); mode="tiled" recomputes the kernel
    tiles (never stores them), on the CPU (``backend`` "auto", "numba" or "numpy").  A gradient
    that overflows float64 for finite inputs raises OverflowError (never NaN).
    """
    check_choice(mode, "mode", ("dense", "tiled"))
    _check_backend(backend, mode)
    tile = check_tile(tile)
    if not isinstance(op, (ITNetOperator, MultiHeadOperator)):
        raise TypeError(f"op must be an ITNetOperator or MultiHeadOperator, got {type(op).__name__}")
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    G = np.ascontiguousarray(as_float_array(G, "G", ndim=2,
                                            check_finite=check_flag(check_finite, "check_finite")))
    if G.shape != (Xq.shape[0], op.d):
        raise ValueError(f"G must have shape ({Xq.shape[0]}, {op.d}) like the output, got {G.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        if mode == "dense":
            check_dense_memory(op, Xq.shape[0], Xk.shape[0], backward=True)
            out = dense_grad(op, Xq, Xk, Uq, Uk, omega, G, shared=shared)
        else:
            out = tiled_grad(op, Xq, Xk, Uq, Uk, omega, G, tile=tile, shared=shared, backend=backend)
    inputs = {"U": Uk, "nodes": Xk, "weights": omega, "G": G,
              **({} if shared else {"Xq": Xq, "Uq": Uq})}
    for key, val in out.items():
        for k, v in enumerate(val if isinstance(val, list) else [val]):
            for part in (v.values() if isinstance(v, dict) else [v]):
                _finite_or_overflow(part, f"grad(mode={mode!r})[{key!r}]", inputs, op)
    return out
