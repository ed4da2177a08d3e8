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

from dataclasses import dataclass

import numpy as np

from .._validate import as_float_array, check_choice

RULES = ("left", "midpoint", "trapezoid", "gauss")
DIAG_WEIGHTS = (1.0, 0.5, 0.0)


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

    def __post_init__(self):
        X = as_float_array(self.nodes, "nodes", ndim=(1, 2))
        if X.ndim == 1:
            X = X[:, None]
        w = as_float_array(self.weights, "weights", ndim=1)
        if w.shape[0] != X.shape[0]:
            raise ValueError(
                f"weights must have one entry per node: nodes has {X.shape[0]} rows, "
                f"weights has shape {tuple(w.shape)}"
            )
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

    def integrate(self, f_values) -> np.ndarray:
        """``sum_j omega_j f(y_j)`` for values given at the nodes (first axis = nodes)."""
        f = np.asarray(f_values)
        if f.shape[0] != self.n:
            raise ValueError(f"f_values must have {self.n} rows (one per node), got {f.shape}")
        return np.tensordot(self.weights, f, axes=(0, 0))


def _check_n(n, name="n", minimum=1):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {n!r}")
    if n < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {n}")
    return int(n)


def discrete_uniform(points) -> Measure:
    """``mu = (1/n) sum_j delta_{x_j}`` on the given points ((n,) or (n, s)); ``mu(Omega) = 1``."""
    X = as_float_array(points, "points", ndim=(1, 2))
    if X.shape[0] < 1:
        raise ValueError("points must contain at least one point")
    n = X.shape[0]
    return Measure(X, np.full(n, 1.0 / n), "uniform")


def interval_rule(rule: str, n: int, a: float = 0.0, b: float = 1.0, *,
                  normalised: bool = False) -> Measure:
    """Quadrature nodes and weights on ``[a, b]`` (1-D; nodes returned as (m, 1)).

    ``rule`` is one of ``"left"``, ``"midpoint"``, ``"trapezoid"`` (n + 1 nodes), ``"gauss"``.
    The weights integrate constants exactly: ``sum omega = b - a`` (``1`` when normalised).
    """
    check_choice(rule, "rule", RULES)
    n = _check_n(n)
    a = float(a)
    b = float(b)
    if not (np.isfinite(a) and np.isfinite(b)) or not b > a:
        raise ValueError(f"need finite a < b, got a={a!r}, b={b!r}")
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


def tensor_rule(*factors: Measure) -> Measure:
    """Tensor product of 1-D measures: an s-dimensional grid (C order, last axis fastest)."""
    if not factors:
        raise ValueError("tensor_rule needs at least one factor")
    for k, f in enumerate(factors):
        if not isinstance(f, Measure):
            raise TypeError(f"factor {k} must be a Measure, got {type(f).__name__}")
    if any(f.s != 1 for f in factors):
        raise ValueError("tensor_rule takes 1-D factors (each Measure with s = 1)")
    grids = np.meshgrid(*[f.nodes[:, 0] for f in factors], indexing="ij")
    X = np.stack([g.ravel() for g in grids], axis=1)
    W = factors[0].weights
    for f in factors[1:]:
        W = np.multiply.outer(W, f.weights)
    return Measure(X, np.ravel(W), "x".join(f.rule for f in factors))


def grid_rule(rule: str, shape, lo=0.0, hi=1.0, *, normalised: bool = False) -> Measure:
    """``rule`` on the box ``prod_k [lo_k, hi_k]`` with ``shape[k]`` intervals per axis."""
    shape = tuple(shape) if np.ndim(shape) else (shape,)
    s = len(shape)
    lo = np.broadcast_to(np.asarray(lo, float), (s,))
    hi = np.broadcast_to(np.asarray(hi, float), (s,))
    return tensor_rule(*[interval_rule(rule, shape[k], lo[k], hi[k], normalised=normalised)
                         for k in range(s)])


def causal_mask(n_q: int, n_k: int | None = None, diag_weight: float = 1.0, *, q0: int = 0,
                k0: int = 0) -> np.ndarray:
    """Mask ``m[p, q]`` for query ``i = q0 + p`` and key ``j = k0 + q`` on a shared node set:
    1 for ``j < i``, ``diag_weight`` for ``j == i``, 0 for ``j > i``."""
    dw = check_diag_weight(diag_weight)
    n_k = n_q if n_k is None else n_k
    i = q0 + np.arange(n_q)[:, None]
    j = k0 + np.arange(n_k)[None, :]
    return np.where(j < i, 1.0, np.where(j == i, dw, 0.0))


def check_diag_weight(diag_weight) -> float:
    try:
        dw = float(diag_weight)
    except (TypeError, ValueError):
        raise TypeError(f"diag_weight must be a number in {DIAG_WEIGHTS}, got {diag_weight!r}") from None
    if dw not in DIAG_WEIGHTS:
        raise ValueError(f"diag_weight must be one of {DIAG_WEIGHTS}, got {diag_weight!r}")
    return dw
