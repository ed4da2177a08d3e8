"""Shared pieces of the random-feature maps: Rademacher draws and the FeatureMap base.

A feature map draws all its randomness once, at construction, and is then a deterministic
function: ``phi(Q)`` and ``phi(K)`` use the same frequencies, so ``phi(Q) @ phi(K).T`` is one
draw of the kernel estimator.  Parameters live as float64 NumPy arrays; a CuPy input is
evaluated with CuPy copies of them and the result stays on the GPU.
"""
from __future__ import annotations

import numpy as np

from .. import _backend as be
from .._validate import as_float_array, check_memory


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
        # the (n, F) float64 result and about two temporaries of its size
        check_memory(3 * 8 * X2.shape[0] * self.num_features,
                     f"phi(X) for {X2.shape[0]} rows and {self.num_features} features",
                     alternative="calling the map on row blocks of X", xp=xp)
        out = self._apply(X2.astype(np.float64, copy=False), xp)
        out = out.astype(X.dtype, copy=False)
        return out[0] if one else out

    def _kernel_args(self, X, Y):
        """X (n, d) and Y (m, d) validated as the arguments of ``kernel``, d the map's d."""
        out = []
        for a, nm in ((X, "X"), (Y, "Y")):
            a = as_float_array(a, nm, ndim=2)
            if a.shape[1] != self.d:
                raise ValueError(f"{nm} must have {self.d} columns (the map's input dimension "
                                 f"d), got shape {tuple(a.shape)}")
            out.append(a)
        return out

    def _param(self, a, xp):
        return a if xp is np else xp.asarray(a)

    def _apply(self, X, xp):  # pragma: no cover - abstract
        raise NotImplementedError

    def kernel(self, X, Y):  # pragma: no cover - overridden where defined
        raise NotImplementedError(f"{type(self).__name__} estimates no closed-form kernel")

    def __repr__(self):
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}(d={self.d}, num_features={self.num_features}, {opts})"
