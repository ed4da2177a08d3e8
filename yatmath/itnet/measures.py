"""Measures and quadrature rules for the ITNet integral (003 Def. 1; algorithms.md I1).

The integral ``int kappa(x, y, u(x), u(y)) u(y) dmu(y)`` is always evaluated as a weighted sum
over key nodes ``y_j`` with weights ``omega_j``.  A :class:`Measure` is that pair ``(nodes,
weights)``.  Rules on an interval ``[a, b]`` with ``h = (b - a) / n``:

==============  =============================================  =====================================
rule            nodes                                          weights, error on smooth f
==============  =============================================  =====================================
``left``        ``a + j h``, ``j = 0..n-1``                    ``h``; O(h)
``midpoint``    ``a + (j + 1/2) h``                            ``h``; O(h^2)
``trapezoid``   ``a + j h``, ``j = 0..n`` (n + 1 nodes)        ``h``, ``h/2`` at both ends; O(h^2)
``gauss``       Gauss-Legendre ``leggauss(n)`` mapped to [a,b]  ``(b - a) v / 2``; O(rho^(-2n)) for
                                                               f analytic in a Bernstein ellipse rho
``uniform``     ``n`` given points                             ``1/n`` (the papers' discrete mu)
==============  =============================================  =====================================

``normalised=True`` divides the weights by ``b - a`` (so ``mu(Omega) = 1``).  ``s``-dimensional
grids are tensor products (:func:`tensor_rule`): nodes in C order (last axis fastest), weights the
products of the 1-D weights.

Causal kernels (``1_{y <= x}`` on a shared node set) use :func:`causal_mask`: the strictly lower
triangle is 1 and the diagonal is ``diag_weight`` (1: left-closed discrete recurrences, 0.5:
consistent with the trapezoid rule, 0: strictly causal).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._registry import register
from .._typing import Array
from .._validate import as_float_array, check_choice, check_int, check_memory, check_real
from .._array import parameter
from ._xp_ops import xp_of
_RULE_NOTE = ("quadrature data: NumPy float64 nodes and weights (inputs of any library are "
              "converted; Measure.integrate then runs in the caller's library)")

RULES = ("left", "midpoint", "trapezoid", "gauss")
DIAG_WEIGHTS = (1.0, 0.5, 0.0)


@register("itnet.Measure", "reference", libraries=("numpy",), note=_RULE_NOTE)
@dataclass(frozen=True)
class Measure:
    """A discrete measure ``mu = sum_j weights[j] delta_{nodes[j]}``.

    nodes   : (n, s) float64 array of key positions
    weights : (n,) float64 array, ``omega_j``
    rule    : the name of the rule that produced it (recorded, not used in arithmetic)
    """

    nodes: np.ndarray
    weights: np.ndarray
    rule: str = "custom"

    def __post_init__(self) -> None:
        X = as_float_array(self.nodes, "nodes", ndim=(1, 2))
        if X.ndim == 1:
            X = X[:, None]
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"nodes must hold at least one point with at least one coordinate "
                             f"(shape (n, s) with n, s >= 1), got shape {tuple(X.shape)}")
        w = as_float_array(self.weights, "weights", ndim=1)
        if w.shape[0] != X.shape[0]:
            raise ValueError(
                f"weights must have one entry per node: nodes has {X.shape[0]} rows, "
                f"weights has shape {tuple(w.shape)}"
            )
        if bool((w < 0).any()):
            raise ValueError(f"weights must be >= 0 (a measure), got a minimum of {float(w.min())!r}")
        if not isinstance(self.rule, str):
            raise TypeError(f"rule must be a string (the rule's name), got {self.rule!r}")
        object.__setattr__(self, "nodes", np.ascontiguousarray(X, dtype=np.float64))
        object.__setattr__(self, "weights", np.ascontiguousarray(w, dtype=np.float64))

    @property
    def n(self) -> int:
        return self.nodes.shape[0]

    @property
    def s(self) -> int:
        return self.nodes.shape[1]

    @property
    def total(self) -> float:
        """mu(Omega) = sum_j omega_j."""
        return float(self.weights.sum())

    def integrate(self, f_values: Array) -> Array:
        """``sum_j omega_j f(y_j)`` for values given at the nodes (first axis = nodes).

        Array API generic: ``f_values`` of any library; the float64 weights are moved to its
        device and the contraction (``tensordot``, float64 unless the library keeps float32) runs
        there.  Accuracy: a float64 dot product, O(n u) relative to sum |omega_j f_j|."""
        return _integrate(self, f_values)


@register("itnet.Measure.integrate", "reference",
          note="array API generic: tensordot in the caller's library and device")
def _integrate(measure: Measure, f_values: Array) -> Array:
    f = as_float_array(f_values, "f_values")
    if f.ndim == 0 or f.shape[0] != measure.n:
        raise ValueError(f"f_values must have {measure.n} rows (one per node), got shape "
                         f"{tuple(f.shape)}")
    xp = xp_of(f)
    if xp is np:
        f = np.ascontiguousarray(f)
    return xp.tensordot(parameter(measure, measure.weights, f), f, axes=([0], [0]))


@register("itnet.discrete_uniform", "reference", libraries=("numpy",), note=_RULE_NOTE)
def discrete_uniform(points: npt.ArrayLike) -> Measure:
    """``mu = (1/n) sum_j delta_{x_j}`` on the given points ((n,) or (n, s)); ``mu(Omega) = 1``."""
    X = as_float_array(points, "points", ndim=(1, 2))
    if X.shape[0] < 1 or (X.ndim == 2 and X.shape[1] < 1):
        raise ValueError(f"points must contain at least one point, got shape {tuple(X.shape)}")
    n = X.shape[0]
    return Measure(X, np.full(n, 1.0 / n), "uniform")


@register("itnet.interval_rule", "reference", libraries=("numpy",), note=_RULE_NOTE)
def interval_rule(rule: str, n: int, a: float = 0.0, b: float = 1.0, *,
                  normalised: bool = False) -> Measure:
    """Quadrature nodes and weights on ``[a, b]`` (1-D; nodes returned as (m, 1)).

    ``rule`` is one of ``"left"``, ``"midpoint"``, ``"trapezoid"`` (n + 1 nodes), ``"gauss"``.
    The weights integrate constants exactly: ``sum omega = b - a`` (``1`` when normalised).
    """
    check_choice(rule, "rule", RULES)
    n = check_int(n, "n", minimum=1)
    a = check_real(a, "a")
    b = check_real(b, "b")
    if not b > a:
        raise ValueError(f"b must be > a (the interval [a, b] needs a < b), got a={a!r}, b={b!r}")
    if not np.isfinite(b - a):
        raise OverflowError(f"b - a overflows float64 for a={a!r}, b={b!r}; use a shorter "
                            f"interval (the weights are (b - a) / n)")
    h = (b - a) / n
    if rule == "left":
        x = a + h * np.arange(n)
        w = np.full(n, h)
    elif rule == "midpoint":
        x = a + h * (np.arange(n) + 0.5)
        w = np.full(n, h)
    elif rule == "trapezoid":
        x = a + h * np.arange(n + 1)
        w = np.full(n + 1, h)
        w[0] = w[-1] = h / 2
    else:
        xi, v = np.polynomial.legendre.leggauss(n)
        x = 0.5 * (a + b) + 0.5 * (b - a) * xi
        w = 0.5 * (b - a) * v
    if normalised:
        w = w / (b - a)
    return Measure(x[:, None], w, rule + ("/normalised" if normalised else ""))


@register("itnet.tensor_rule", "reference", libraries=("numpy",), note=_RULE_NOTE)
def tensor_rule(*factors: Measure) -> Measure:
    """Tensor product of 1-D measures: an s-dimensional grid (C order, last axis fastest)."""
    if not factors:
        raise ValueError("factors: tensor_rule needs at least one Measure, got none")
    for k, f in enumerate(factors):
        if not isinstance(f, Measure):
            raise TypeError(f"factors[{k}] must be a Measure, got {type(f).__name__}")
    for k, f in enumerate(factors):
        if f.s != 1:
            raise ValueError(f"factors[{k}] must be a 1-D Measure (s = 1): tensor_rule takes 1-D "
                             f"factors, got s = {f.s}")
    size = float(np.prod([f.n for f in factors], dtype=float))
    check_memory(int(size) * (len(factors) + 1) * 8, f"tensor_rule of {len(factors)} factors "
                 f"({size:.3g} nodes)")
    grids = np.meshgrid(*[f.nodes[:, 0] for f in factors], indexing="ij")
    X = np.stack([g.ravel() for g in grids], axis=1)
    W = factors[0].weights
    for f in factors[1:]:
        W = np.multiply.outer(W, f.weights)
    return Measure(X, np.ravel(W), "x".join(f.rule for f in factors))


@register("itnet.grid_rule", "reference", libraries=("numpy",), note=_RULE_NOTE)
def grid_rule(rule: str, shape: Sequence[int], lo: float | Sequence[float] = 0.0,
              hi: float | Sequence[float] = 1.0, *, normalised: bool = False) -> Measure:
    """``rule`` on the box ``prod_k [lo_k, hi_k]`` with ``shape[k]`` intervals per axis.

    ``lo`` and ``hi`` are scalars or length-s sequences (``s = len(shape)``) with ``lo < hi``."""
    check_choice(rule, "rule", RULES)
    if np.ndim(shape) == 0:
        shape = (check_int(shape, "shape", minimum=1),)
    else:
        if np.ndim(shape) != 1 or len(shape) == 0:
            raise ValueError(f"shape must be an int or a non-empty 1-D sequence of ints, got {shape!r}")
        shape = tuple(check_int(v, f"shape[{k}]", minimum=1) for k, v in enumerate(shape))
    s = len(shape)
    bounds = []
    for name, v in (("lo", lo), ("hi", hi)):
        arr = as_float_array(v, name, ndim=(0, 1))
        if arr.ndim == 1 and arr.shape[0] != s:
            raise ValueError(f"{name} must be a scalar or have length {s} (one entry per axis of "
                             f"shape={shape}), got shape {tuple(arr.shape)}")
        bounds.append(np.broadcast_to(arr, (s,)))
    lo, hi = bounds
    if not bool((hi > lo).all()):
        k = int(np.argmin(hi > lo))
        raise ValueError(f"hi must be > lo on every axis, got lo[{k}]={lo[k]!r}, hi[{k}]={hi[k]!r}")
    check_memory(int(np.prod(shape, dtype=float) + s) * (s + 1) * 8, f"grid_rule with shape={shape}")
    return tensor_rule(*[interval_rule(rule, shape[k], lo[k], hi[k], normalised=normalised)
                         for k in range(s)])


@register("itnet.causal_mask", "reference", libraries=("numpy",),
          note="a NumPy float64 (n_q, n_k) mask from integers")
def causal_mask(n_q: int, n_k: int | None = None, diag_weight: float = 1.0, *, q0: int = 0,
                k0: int = 0) -> npt.NDArray[np.float64]:
    """Mask ``m[p, q]`` for query ``i = q0 + p`` and key ``j = k0 + q`` on a shared node set:
    1 for ``j < i``, ``diag_weight`` for ``j == i``, 0 for ``j > i``."""
    n_q = check_int(n_q, "n_q", minimum=1)
    n_k = n_q if n_k is None else check_int(n_k, "n_k", minimum=1)
    q0 = check_int(q0, "q0", minimum=0)
    k0 = check_int(k0, "k0", minimum=0)
    dw = check_diag_weight(diag_weight)
    check_memory(n_q * n_k * 8, f"causal_mask({n_q}, {n_k})")
    i = q0 + np.arange(n_q)[:, None]
    j = k0 + np.arange(n_k)[None, :]
    return np.where(j < i, 1.0, np.where(j == i, dw, 0.0))


def check_diag_weight(diag_weight: Any, name: str = "diag_weight") -> float:
    """``diag_weight`` as a float in :data:`DIAG_WEIGHTS` (1, 0.5 or 0), else an error naming it."""
    dw = check_real(diag_weight, name)
    if dw not in DIAG_WEIGHTS:
        raise ValueError(f"{name} must be one of {DIAG_WEIGHTS}, got {diag_weight!r}")
    return dw
