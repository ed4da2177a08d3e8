"""Operation counting for the Yat layer and its linear baseline (algorithms.md Y11).

Conventions (001 App C.6.1, which the papers' own FLOP tables cite):

* a matrix product (m, k) @ (k, n) counts ``2 m n k`` (one multiply-add = 2 FLOPs);
* an elementwise unary or binary op counts the size of its result (a divide or reciprocal is 1);
* a reduction counts the size of its input (Y11: "reductions (size)");
* cached tensors (``||W||^2``) are counted once per update and reported under their own label.

``OpCounter`` wraps the few NumPy primitives the reference implementations use.  It really
computes the values (so a test can compare them with ``yatmath.yat.layer``), adds the FLOPs to
the current phase ("forward" / "backward") under a label, and records the bytes of every tensor
declared "saved for backward".

``count_yat_layer`` and ``count_linear_layer`` run the instrumented forward and full backward
(Y3; the linear layer with optional bias and ReLU) and return the counter.  The counts are exact
integers; they do not depend on the data, only on the shapes and the options.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterator
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

__all__ = ["OpCounter", "count_yat_layer", "count_linear_layer"]

PHASES = ("forward", "backward")


class OpCounter:
    """Counts FLOPs of NumPy primitives, per phase and per label, and saved-for-backward bytes.

    >>> c = OpCounter(); _ = c.matmul(np.ones((2, 3)), np.ones((3, 4)))
    >>> c.total("forward")
    48
    """

    def __init__(self) -> None:
        self.flops: dict[str, Counter[str]] = {p: Counter() for p in PHASES}
        self.saved: dict[str, int] = {}
        self._phase = "forward"

    @contextmanager
    def phase(self, name: str) -> Iterator[OpCounter]:
        """Count everything inside the block under phase ``name`` ("forward" / "backward")."""
        if name not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {name!r}")
        old, self._phase = self._phase, name
        try:
            yield self
        finally:
            self._phase = old

    def _add(self, label: str, n: int) -> None:
        self.flops[self._phase][label] += int(n)

    def matmul(self, A: npt.ArrayLike, B: npt.ArrayLike, label: str = "matmul") -> npt.NDArray[Any]:
        """A @ B for 2-D A (m, k) and B (k, n): counts 2 m n k."""
        A, B = np.asarray(A), np.asarray(B)
        if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
            raise ValueError(f"matmul needs (m, k) @ (k, n), got {A.shape} @ {B.shape}")
        self._add(label, 2 * A.shape[0] * B.shape[1] * A.shape[1])
        return A @ B

    def ew(self, func: Callable[..., Any], *args: Any, label: str = "elementwise") -> Any:
        """An elementwise op (``np.multiply``, ``np.add``, ...): counts the result's size."""
        out = func(*args)
        self._add(label, np.size(out))
        return out

    def reduce(self, func: Callable[..., Any], a: Any, axis: int | None = None,
               label: str = "reduction") -> Any:
        """A reduction (``np.sum``, ...) over ``axis``: counts the input's size."""
        a = np.asarray(a)
        self._add(label, a.size)
        return func(a, axis=axis)

    def save(self, name: str, arr: Any, itemsize: int | None = None) -> Any:
        """Declare ``arr`` saved for backward (bytes = size * itemsize, default its dtype's)."""
        arr = np.asarray(arr)
        self.saved[name] = int(arr.size * (arr.dtype.itemsize if itemsize is None else itemsize))
        return arr

    def total(self, phase: str | None = None, *, exclude: Container[str] = ()) -> int:
        """FLOPs of one phase (or both), leaving out the labels in ``exclude``."""
        phases = PHASES if phase is None else (phase,)
        return int(sum(v for p in phases for k, v in self.flops[p].items() if k not in exclude))

    def by_label(self, phase: str) -> dict[str, int]:
        return dict(self.flops[phase])

    def saved_bytes(self) -> int:
        return int(sum(self.saved.values()))


def count_yat_layer(X: npt.ArrayLike, W: npt.ArrayLike, eps: float, G: npt.ArrayLike | None = None,
                    *, fold_eps: bool = True, clamp: bool = False,
                    counter: OpCounter | None = None
                    ) -> tuple[OpCounter, npt.NDArray[np.float64],
                               npt.NDArray[np.float64] | None, npt.NDArray[np.float64] | None]:
    """Instrumented Yat layer Y = S^2 / D (expanded form, Y3) and its complete backward.

    Forward: S = X W^T (2Bnd), ||x_i||^2 (Bd mult + Bd reduction), ||w_j||^2 (label
    "cached_norm": 2nd, once per update), D = (||x||^2 [+ eps]) + ||w||^2 - 2S [+ eps],
    optional clamp max(D, eps), Y = S*S / D.  ``fold_eps`` adds eps to the B row norms instead of
    the B n entries (the cheapest order: 5Bn elementwise).
    Backward (complete, Y3 through r = S/D as in ``yatmath.yat.layer``): P = G 2r(1+r),
    Q = -G r^2, dX = P W + 2 diag(Q 1) X, dW = P^T X + 2 diag(Q^T 1) W.
    Returns (counter, Y, dX, dW); dX, dW are None when G is None.
    """
    c = OpCounter() if counter is None else counter
    X, W = np.asarray(X, float), np.asarray(W, float)
    mul, add, sub, div = np.multiply, np.add, np.subtract, np.divide
    with c.phase("forward"):
        S = c.matmul(X, W.T)
        a = c.reduce(np.sum, c.ew(mul, X, X, label="row_norm"), axis=1, label="row_norm")
        b = c.reduce(np.sum, c.ew(mul, W, W, label="cached_norm"), axis=1, label="cached_norm")
        if fold_eps:
            a = c.ew(add, a, eps, label="row_norm")
        D = c.ew(add, a[:, None], b[None, :])
        D = c.ew(sub, D, c.ew(mul, 2.0, S))
        if not fold_eps:
            D = c.ew(add, D, eps)
        if clamp:
            D = c.ew(np.maximum, D, eps)
        Y = c.ew(div, c.ew(mul, S, S), D)
        c.save("X", X)
        c.save("W", W)
        c.save("S", S)
        c.save("D", D)
    if G is None:
        return c, Y, None, None
    G = np.asarray(G, float)
    with c.phase("backward"):
        r = c.ew(div, S, D)
        P = c.ew(mul, G, c.ew(mul, c.ew(mul, 2.0, r), c.ew(add, 1.0, r)))
        Q = c.ew(np.negative, c.ew(mul, c.ew(mul, G, r), r))
        qx = c.reduce(np.sum, Q, axis=1)
        qw = c.reduce(np.sum, Q, axis=0)
        dX = c.ew(add, c.matmul(P, W), c.ew(mul, c.ew(mul, 2.0, qx)[:, None], X))
        dW = c.ew(add, c.matmul(P.T, X), c.ew(mul, c.ew(mul, 2.0, qw)[:, None], W))
    return c, Y, dX, dW


def count_linear_layer(X: npt.ArrayLike, W: npt.ArrayLike, G: npt.ArrayLike | None = None, *,
                       bias: bool = True, relu: bool = False, counter: OpCounter | None = None
                       ) -> tuple[OpCounter, npt.NDArray[np.float64],
                                  npt.NDArray[np.float64] | None,
                                  npt.NDArray[np.float64] | None]:
    """Instrumented linear layer Y = act(X W^T + b) and its backward (dX, dW, db).

    Forward: 2Bnd, + Bn for the bias, + Bn for ReLU.  Backward: the ReLU mask product (Bn),
    dX = G W (2Bnd), dW = G^T X (2Bnd), db = sum G (Bn).  Returns (counter, Y, dX, dW).
    """
    c = OpCounter() if counter is None else counter
    X, W = np.asarray(X, float), np.asarray(W, float)
    with c.phase("forward"):
        Z = c.matmul(X, W.T)
        if bias:
            Z = c.ew(np.add, Z, np.zeros(W.shape[0]))
        Y = c.ew(np.maximum, Z, 0.0) if relu else Z
        c.save("X", X)
        if relu:
            c.save("mask", Z > 0, itemsize=1)
    if G is None:
        return c, Y, None, None
    G = np.asarray(G, float)
    with c.phase("backward"):
        if relu:
            G = c.ew(np.multiply, G, (Z > 0))
        dX = c.matmul(G, W)
        dW = c.matmul(G.T, X)  # type: ignore[union-attr]  # G: an ndarray here
        if bias:
            c.reduce(np.sum, G, axis=0)
    return c, Y, dX, dW
