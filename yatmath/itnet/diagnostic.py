"""Def.-1 representability diagnostic: the mixed difference on two key slots (algorithms.md I6).

Hold the query value u_i and all other keys fixed; let key slot j take values a or a' and slot k
values b or b'.  For ``F`` the output at query i::

    D = F(a, b) - F(a', b) - F(a, b') + F(a', b')

A Def.-1 layer's output at fixed u_i is a sum of per-key terms, so D = 0 up to rounding.  For a
target operator T, every Def.-1 approximation has sup error >= |D_T| / 4 on these four inputs
(triangle inequality on the four evaluations).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

from .._registry import register
from .._typing import RNGLike
from .._validate import as_float_array, as_rng, check_callable, check_int, check_real


def _check_slots(F, U, i, j, k):
    check_callable(F, "F")
    U = as_float_array(U, "U", ndim=2)
    n = U.shape[0]
    if n < 3:
        raise ValueError(f"U must have at least 3 rows (a query and two key slots), got shape {U.shape}")
    i, j, k = (check_int(v, name, minimum=0, maximum=n - 1) for name, v in (("i", i), ("j", j), ("k", k)))
    if len({i, j, k}) != 3:
        raise ValueError(f"i, j, k must be distinct, got {(i, j, k)}")
    return U, i, j, k


def _slot_value(v, d, name):
    v = as_float_array(v, name, ndim=(0, 1))
    if v.ndim == 1 and v.shape[0] != d:
        raise ValueError(f"{name} must be a scalar or have length d = {d} (a row of U), got shape {v.shape}")
    return v


@register("itnet.mixed_difference", "reference", libraries=("numpy",), note="F is called on NumPy copies of U (SciPy Nelder-Mead drives the search for the maximum)")
def mixed_difference(F: Callable[[npt.NDArray[np.float64]], npt.ArrayLike], U: npt.ArrayLike,
                     i: int, j: int, k: int, a: npt.ArrayLike, a2: npt.ArrayLike,
                     b: npt.ArrayLike, b2: npt.ArrayLike) -> npt.NDArray[Any]:
    """D for ``F(U) -> outputs (n, p)``, read at row i; slots j, k (distinct from i and each other).

    ``a, a2`` are the two values of slot j and ``b, b2`` those of slot k (rows of length d)."""
    U, i, j, k = _check_slots(F, U, i, j, k)
    d = U.shape[1]
    a, a2, b, b2 = (_slot_value(v, d, nm) for v, nm in ((a, "a"), (a2, "a2"), (b, "b"), (b2, "b2")))

    def ev(va, vb):
        V = np.array(U, dtype=float, copy=True)
        V[j], V[k] = va, vb
        out = np.asarray(F(V))
        if out.ndim < 1 or out.shape[0] != U.shape[0]:
            raise ValueError(f"F must return one output row per row of U ({U.shape[0]}), got an "
                             f"array of shape {out.shape}")
        return out[i]

    return ev(a, b) - ev(a2, b) - ev(a, b2) + ev(a2, b2)


@register("itnet.max_mixed_difference", "reference", libraries=("numpy",), note="F is called on NumPy copies of U (SciPy Nelder-Mead drives the search for the maximum)")
def max_mixed_difference(F: Callable[[npt.NDArray[np.float64]], npt.ArrayLike],
                         U: npt.ArrayLike, i: int, j: int, k: int, *, starts: int = 10,
                         scale: float = 1.0, box: float | None = None, maxiter: int | None = None,
                         rng: RNGLike = None) -> dict[str, Any]:
    """Maximise ||D|| over (a, a', b, b') by multi-start Nelder-Mead.

    ``box=None`` searches all of R^d (starts ~ N(0, scale^2)); for operators that grow with their
    input (Mamba, LSTM, ...) that search diverges, so ``box=c`` restricts the slot values to
    [-c, c]^d, parametrised as c * tanh(z).  Returns the best D, its norm, the lower bound
    ||D||/4 on the sup error of any Def.-1 layer on those inputs, and the maximiser.
    """
    U, i, j, k = _check_slots(F, U, i, j, k)
    starts = check_int(starts, "starts", minimum=1)
    scale = check_real(scale, "scale", gt=0.0)
    if box is not None:
        box = check_real(box, "box", gt=0.0)
    if maxiter is not None:
        maxiter = check_int(maxiter, "maxiter", minimum=1)
    rng = as_rng(rng)
    d = U.shape[1]

    def vals(z):
        v = z.reshape(4, d)
        return v if box is None else box * np.tanh(v)

    def neg(z):
        return -np.linalg.norm(mixed_difference(F, U, i, j, k, *vals(z)))

    best = None
    for _ in range(starts):
        res = minimize(neg, rng.normal(0, scale, 4 * d), method="Nelder-Mead",
                       options={"maxiter": maxiter or 400 * d, "xatol": 1e-8, "fatol": 1e-12})
        if best is None or res.fun < best.fun:
            best = res
    a, a2, b, b2 = vals(best.x)  # type: ignore[union-attr]  # starts >= 1
    D = mixed_difference(F, U, i, j, k, a, a2, b, b2)
    return {"D": D, "norm": float(np.linalg.norm(D)), "sup_error_lower_bound": float(np.linalg.norm(D)) / 4,
            "values": (a, a2, b, b2), "box": box, "starts": starts}
