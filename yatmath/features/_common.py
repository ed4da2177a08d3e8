"""Shared pieces of the random-feature maps: Rademacher draws and the FeatureMap base.

A feature map draws all its randomness once, at construction, with NumPy's Generator (the seed
rule, ``as_rng``), and is then a deterministic function: ``phi(Q)`` and ``phi(K)`` use the same
frequencies, so ``phi(Q) @ phi(K).T`` is one draw of the kernel estimator.  Parameters live as
read-only float64 NumPy arrays (:func:`frozen`); an input of another array API library (CuPy,
PyTorch, JAX, ``array_api_strict``) is evaluated with copies of them in its namespace on its
device (``yatmath._array.parameter``: made once per library and device, then cached on the map),
so the same seed gives the same numbers on every library and the result is the caller's array
type on the caller's device.
"""
from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .._array import caller
from .._registry import choose
from .._typing import Array
from .._validate import as_float_array, check_memory

_T = TypeVar("_T")


def rademacher(rng: np.random.Generator, shape: int | tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Independent +-1 entries (float64)."""
    return rng.integers(0, 2, size=shape).astype(np.float64) * 2.0 - 1.0


def frozen(a: _T) -> _T:
    """``a`` with every NumPy array in it (also inside tuples) made read-only, in place: a frozen
    map's parameters, whose device copies ``yatmath._array.parameter`` may then cache."""
    if isinstance(a, np.ndarray):
        a.flags.writeable = False
    elif isinstance(a, tuple):
        for v in a:
            frozen(v)
    return a


class FeatureMap:
    """A frozen random feature map x -> phi(x) in R^F.

    Subclasses set ``d`` (input dimension), ``num_features`` (F), ``params`` (every option used,
    for the ledger), ``_op`` (the registry name of evaluating the map) and register
    ``_apply(self, X, c)``: on a validated (n, d) float64 array of the caller ``c``
    (``yatmath._array.Caller``) it returns (n, F) in ``c.xp``, written against the array API
    standard (float64, or already ``c.dtype``: the 'cupy' rows' kernels store the input's dtype
    themselves, ``features._cuda_features``).  ``kernel(X, Y)``, where defined, is the exact
    kernel the map estimates: E[phi(x) . phi(y)] = kernel(x, y) (up to the stated quadrature
    error for deterministic parts).

    Dtypes: the map is evaluated in float64 and the result cast to the input's dtype (float32
    in, float32 out: relative error ~ u_32 on top of the float64 evaluation).  The GPU rows
    round to float32 in their own kernel's store (float32 subnormals kept, which CuPy's
    ``astype`` would flush to zero); the cast below is then a no-op.
    """

    d: int
    num_features: int
    params: dict
    _op: str

    def __call__(self, X: Array, *, check_finite: bool = True, backend: str = "auto") -> Array:
        X = as_float_array(X, "X", ndim=(1, 2), check_finite=check_finite)
        c = caller(X)
        one = X.ndim == 1
        X2 = X[None, :] if one else X
        if X2.shape[1] != self.d:
            raise ValueError(f"X must have {self.d} columns (the map's input dimension d), got "
                             f"shape {tuple(X.shape)}")
        impl = choose(self._op, backend, c.library, size=X2.shape[0] * self.num_features)
        # the (n, F) float64 result and about two temporaries of its size
        check_memory(3 * 8 * X2.shape[0] * self.num_features,
                     f"phi(X) for {X2.shape[0]} rows and {self.num_features} features",
                     alternative="calling the map on row blocks of X", xp=c.module)
        out = impl(self, c.xp.astype(X2, c.xp.float64, copy=False), c)
        out = c.xp.astype(out, X.dtype, copy=False)
        return out[0, ...] if one else out

    def _kernel_call(self, op: str, X: Array, Y: Array, **kw: Any) -> Array:
        """Validate X (n, d) and Y (m, d), d the map's d, then run the registered implementation
        of ``op`` on them."""
        args = []
        for a, nm in ((X, "X"), (Y, "Y")):
            a = as_float_array(a, nm, ndim=2)
            if a.shape[1] != self.d:
                raise ValueError(f"{nm} must have {self.d} columns (the map's input dimension "
                                 f"d), got shape {tuple(a.shape)}")
            args.append(a)
        # one library for both (TypeError naming them otherwise)
        return choose(op, "auto", caller(*args).library)(self, *args, **kw)

    def kernel(self, X: Array, Y: Array) -> Array:  # pragma: no cover - overridden where defined
        raise NotImplementedError(f"{type(self).__name__} estimates no closed-form kernel")

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}(d={self.d}, num_features={self.num_features}, {opts})"

