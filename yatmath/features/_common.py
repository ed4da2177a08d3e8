"""Shared pieces of the random-feature maps: generators, integer checks, the FeatureMap base.

A feature map draws all its randomness once, at construction, and is then a deterministic
function: ``phi(Q)`` and ``phi(K)`` use the same frequencies, so ``phi(Q) @ phi(K).T`` is one
draw of the kernel estimator.  Parameters live as float64 NumPy arrays; a CuPy input is
evaluated with CuPy copies of them and the result stays on the GPU.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _backend as be
from .._validate import as_float_array


def as_generator(rng, name: str = "rng") -> np.random.Generator:
    """``rng`` as a ``numpy.random.Generator``: a Generator is used as is, an int (or None) seeds one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            raise ValueError(f"{name} must be a non-negative int seed, got {rng!r}")
        return np.random.default_rng(rng)
    raise TypeError(f"{name} must be a numpy.random.Generator, an int seed or None, got "
                    f"{type(rng).__name__}")


def check_pos_int(value, name: str, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def check_pos_float(value, name: str, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be finite and {'>=' if allow_zero else '>'} 0, got {value!r}")
    return v


def rademacher(rng: np.random.Generator, shape) -> np.ndarray:
    """Independent +-1 entries (float64)."""
    return rng.integers(0, 2, size=shape).astype(np.float64) * 2.0 - 1.0


class FeatureMap:
    """A frozen random feature map x -> phi(x) in R^F.

    Subclasses set ``d`` (input dimension), ``num_features`` (F), ``params`` (every option used,
    for the ledger) and implement ``_apply(X, xp)`` on a validated (n, d) float array, returning
    (n, F).  ``kernel(X, Y)``, where defined, is the exact kernel the map estimates:
    E[phi(x) . phi(y)] = kernel(x, y) (up to the stated quadrature error for deterministic parts).
    """

    d: int
    num_features: int
    params: dict

    def __call__(self, X, *, check_finite: bool = True):
        xp = be.array_module(X)
        X = as_float_array(X, "X", ndim=(1, 2), check_finite=check_finite, xp=xp)
        one = X.ndim == 1
        X2 = X[None, :] if one else X
        if X2.shape[1] != self.d:
            raise ValueError(f"X must have {self.d} columns (the map's input dimension d), got "
                             f"shape {tuple(X.shape)}")
        out = self._apply(X2.astype(np.float64, copy=False), xp)
        out = out.astype(X.dtype, copy=False)
        return out[0] if one else out

    def _param(self, a, xp):
        return a if xp is np else xp.asarray(a)

    def _apply(self, X, xp):  # pragma: no cover - abstract
        raise NotImplementedError

    def kernel(self, X, Y):  # pragma: no cover - overridden where defined
        raise NotImplementedError(f"{type(self).__name__} estimates no closed-form kernel")

    def __repr__(self):
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}(d={self.d}, num_features={self.num_features}, {opts})"
