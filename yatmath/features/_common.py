"""Shared pieces of the random-feature maps: Rademacher draws, the host boundary and the
FeatureMap base.

A feature map draws all its randomness once, at construction, with NumPy's Generator (the seed
rule, ``as_rng``), and is then a deterministic function: ``phi(Q)`` and ``phi(K)`` use the same
frequencies, so ``phi(Q) @ phi(K).T`` is one draw of the kernel estimator.  Parameters live as
float64 NumPy arrays; an input of another array API library (CuPy, PyTorch, JAX,
``array_api_strict``) is evaluated with copies of them in its namespace on its device (made once
per namespace and device, then cached), so the same seed gives the same numbers on every library
and the result is the caller's array type on the caller's device.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _backend as be
from .._backend import library_name
from .._registry import choose
from .._typing import Array, Namespace
from .._validate import as_float_array, check_memory


def rademacher(rng: np.random.Generator, shape: int | tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Independent +-1 entries (float64)."""
    return rng.integers(0, 2, size=shape).astype(np.float64) * 2.0 - 1.0


xp_of = be.fast_namespace


def _lib(*arrays: Any) -> str:
    """The library name of the arrays (``xp_of`` then ``library_name``)."""
    return library_name(xp_of(*arrays))


# --- the host boundary (SciPy-only pieces, Generator draws) ----------------------------------

device_of, to_host = be.device_of, be.to_host   # the shared host boundary


def from_host(a: Any, xp: Namespace, device: Any) -> Array:
    """The NumPy array ``a`` in namespace ``xp`` on ``device`` (NumPy: ``a`` itself)."""
    if library_name(xp) == "numpy":
        return a
    return xp.asarray(a, device=device)


class FeatureMap:
    """A frozen random feature map x -> phi(x) in R^F.

    Subclasses set ``d`` (input dimension), ``num_features`` (F), ``params`` (every option used,
    for the ledger), ``_op`` (the registry name of evaluating the map) and register
    ``_apply(self, X, xp)``: on a validated (n, d) float64 array of namespace ``xp`` it returns
    (n, F) in that namespace, written against the array API standard.  ``kernel(X, Y)``, where
    defined, is the exact kernel the map estimates: E[phi(x) . phi(y)] = kernel(x, y) (up to the
    stated quadrature error for deterministic parts).

    Dtypes: the map is evaluated in float64 and the result cast to the input's dtype (float32
    in, float32 out: relative error ~ u_32 on top of the float64 evaluation).
    """

    d: int
    num_features: int
    params: dict
    _op: str

    def __call__(self, X: Array, *, check_finite: bool = True, backend: str = "auto") -> Array:
        X = as_float_array(X, "X", ndim=(1, 2), check_finite=check_finite)
        xp = xp_of(X)
        one = X.ndim == 1
        X2 = X[None, :] if one else X
        if X2.shape[1] != self.d:
            raise ValueError(f"X must have {self.d} columns (the map's input dimension d), got "
                             f"shape {tuple(X.shape)}")
        impl = choose(self._op, backend, library_name(xp),
                      size=X2.shape[0] * self.num_features)
        # the (n, F) float64 result and about two temporaries of its size
        check_memory(3 * 8 * X2.shape[0] * self.num_features,
                     f"phi(X) for {X2.shape[0]} rows and {self.num_features} features",
                     alternative="calling the map on row blocks of X", xp=be.array_module(X))
        out = impl.func(self, xp.astype(X2, xp.float64, copy=False), xp)
        out = xp.astype(out, X.dtype, copy=False)
        return out[0, ...] if one else out

    def _kernel_args(self, X: Array, Y: Array) -> list[Array]:
        """X (n, d) and Y (m, d) validated as the arguments of ``kernel``, d the map's d."""
        out = []
        for a, nm in ((X, "X"), (Y, "Y")):
            a = as_float_array(a, nm, ndim=2)
            if a.shape[1] != self.d:
                raise ValueError(f"{nm} must have {self.d} columns (the map's input dimension "
                                 f"d), got shape {tuple(a.shape)}")
            out.append(a)
        xp_of(*out)          # one library for both (TypeError naming them otherwise)
        return out

    @staticmethod
    def _device(X: Array) -> Any:
        return device_of(X)

    def _kernel_call(self, op: str, X: Array, Y: Array, **kw: Any) -> Array:
        """Validate X, Y, then run the registered implementation of ``op`` on them."""
        X, Y = self._kernel_args(X, Y)
        return choose(op, "auto", _lib(X, Y)).func(self, X, Y, **kw)

    def _param(self, a: Any, xp: Namespace, device: Any = None) -> Any:
        """The stored NumPy parameter ``a`` in namespace ``xp`` (cached per library/device)."""
        if isinstance(a, (int, float)) or library_name(xp) == "numpy":
            return a
        cache = self.__dict__.setdefault("_param_cache", {})
        key = (id(a), library_name(xp), str(device))
        hit = cache.get(key)
        if hit is None or hit[0] is not a:
            hit = cache[key] = (a, xp.asarray(a, device=device))
        return hit[1]

    def kernel(self, X: Array, Y: Array) -> Array:  # pragma: no cover - overridden where defined
        raise NotImplementedError(f"{type(self).__name__} estimates no closed-form kernel")

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}(d={self.d}, num_features={self.num_features}, {opts})"

