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

from .._backend import array_module
from .._validate import as_float_array, check_choice
from .dense import dense_forward, dense_grad
from .lowrank import LowRankOperator, lowrank_forward
from .mc import mc_forward, proposal_pmf
from .measures import Measure
from .operator import ITNetOperator, MultiHeadOperator
from .tiled import tiled_forward, tiled_grad

MODES = ("dense", "tiled", "mc", "lowrank")


def _prepare(op, U, measure, Xq, Uq, check_finite):
    if not isinstance(op, (ITNetOperator, MultiHeadOperator, LowRankOperator)):
        raise TypeError("op must be an ITNetOperator, MultiHeadOperator or LowRankOperator, "
                        f"got {type(op).__name__}")
    if not isinstance(measure, Measure):
        raise TypeError(f"measure must be a yatmath.itnet.Measure, got {type(measure).__name__}")
    U = as_float_array(U, "U", ndim=2, check_finite=check_finite)
    if U.shape != (measure.n, op.d):
        raise ValueError(f"U must have shape (n, d) = ({measure.n}, {op.d}) (one row per node of "
                         f"measure), got {U.shape}")
    xp = array_module(U)
    Xk = xp.asarray(measure.nodes)
    omega = xp.asarray(measure.weights)
    if (Xq is None) != (Uq is None):
        raise ValueError("pass both Xq and Uq (a separate query set) or neither")
    shared = Xq is None
    if shared:
        Xq, Uq = Xk, U
    else:
        Xq = as_float_array(Xq, "Xq", ndim=(1, 2), check_finite=check_finite)
        Xq = Xq[:, None] if Xq.ndim == 1 else Xq
        Uq = as_float_array(Uq, "Uq", ndim=2, check_finite=check_finite)
        if Xq.shape[1] != Xk.shape[1]:
            raise ValueError(f"Xq must have {Xk.shape[1]} columns like the measure's nodes, got {Xq.shape}")
        if Uq.shape != (Xq.shape[0], op.d):
            raise ValueError(f"Uq must have shape ({Xq.shape[0]}, {op.d}), got {Uq.shape}")
        if op.causal:
            raise ValueError("a causal operator needs queries = keys (do not pass Xq, Uq)")
    return Xq, Xk, Uq, U, omega, shared


def apply(op, U, measure: Measure, *, mode: str = "dense", Xq=None, Uq=None, tile=(64, 64),
          factorised: bool = True, M: int | None = None, proposal="uniform", proposal_scale=0.1,
          eps_mix: float = 0.0, replace: bool = True, rng=None, backend: str = "auto",
          check_finite: bool = True):
    """Evaluate the operator ``op`` on features ``U`` (n, d) at the nodes of ``measure``.

    mode="tiled": ``tile`` = (bq, bk) or an int; ``factorised`` selects the last-layer factorisation.
    mode="mc": ``M`` samples per query from ``proposal`` (a name of :data:`~yatmath.itnet.mc.PROPOSALS`
    other than "optimal", or an (nq, nk) pmf array), mixed with uniform by ``eps_mix``.
    mode="lowrank": ``op`` must be a :class:`LowRankOperator`.
    """
    check_choice(mode, "mode", MODES)
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    if isinstance(op, LowRankOperator):
        if mode == "lowrank":
            return lowrank_forward(op, Xq, Xk, Uq, Uk, omega)
        if mode == "dense":
            from .dense import apply_kernel_tensor
            from .measures import causal_mask
            mask = causal_mask(Xq.shape[0], Xk.shape[0], op.diag_weight) if op.causal else None
            return apply_kernel_tensor(op.kernel_tensor(Xq, Xk, Uq, Uk), Uk, omega, Uq=Uq, W=op.W,
                                       mask=mask)
        raise ValueError(f"mode={mode!r} is not available for a LowRankOperator (use 'lowrank' or 'dense')")
    if mode == "lowrank":
        raise ValueError("mode='lowrank' needs a LowRankOperator; fit one with svd_factors or FactorMLP")
    if mode == "dense":
        return dense_forward(op, *(np.asarray(a) for a in (Xq, Xk, Uq, Uk, omega)))
    if mode == "tiled":
        return tiled_forward(op, Xq, Xk, Uq, Uk, omega, tile=tile, factorised=factorised, backend=backend)
    if M is None:
        raise ValueError("mode='mc' needs M (samples per query)")
    if isinstance(proposal, str):
        if proposal == "optimal":
            raise ValueError("proposal='optimal' needs the dense integrands: use yatmath.itnet.mc directly")
        q = proposal_pmf(proposal, Xq, Xk, omega, scale=proposal_scale, eps_mix=eps_mix)
    else:
        q = np.asarray(proposal, float)
        if eps_mix:
            from .mc import mix
            q = mix(q, eps_mix)
    return mc_forward(op, Xq, Xk, Uq, Uk, omega, M=M, q=q, rng=rng, replace=replace)


def grad(op, U, measure: Measure, G, *, mode: str = "dense", Xq=None, Uq=None, tile=(64, 64),
         backend: str = "auto", check_finite: bool = True) -> dict:
    """Gradients of a loss L through the operator, given ``G = dL/dO`` (nq, d).

    Returns ``{"U": dL/dU, "W": dL/dW, "heads": [{"W1", "b1", "W2", "b2"}, ...]}`` (+ ``"W_O"`` for
    multi-head; + ``"Uq"`` when a separate query set is passed, then ``"U"`` is the key part).
    mode="dense" is the reference of 003 App I (eqs 223-239); mode="tiled" recomputes the kernel
    tiles (never stores them).
    """
    check_choice(mode, "mode", ("dense", "tiled"))
    if not isinstance(op, (ITNetOperator, MultiHeadOperator)):
        raise TypeError(f"op must be an ITNetOperator or MultiHeadOperator, got {type(op).__name__}")
    Xq, Xk, Uq, Uk, omega, shared = _prepare(op, U, measure, Xq, Uq, check_finite)
    G = as_float_array(G, "G", ndim=2, check_finite=check_finite)
    if G.shape != (Xq.shape[0], op.d):
        raise ValueError(f"G must have shape ({Xq.shape[0]}, {op.d}) like the output, got {G.shape}")
    if mode == "dense":
        return dense_grad(op, Xq, Xk, Uq, Uk, omega, G, shared=shared)
    return tiled_grad(op, Xq, Xk, Uq, Uk, omega, G, tile=tile, shared=shared, backend=backend)
