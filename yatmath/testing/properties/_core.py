"""Shared machinery of the property checks: the catalogue, the failure message, the statistical
test of unbiasedness and the self-checking central difference.

Every property is a plain function ``prop(impl, inputs..., **options)`` that returns ``None`` when
the property holds and raises :class:`AssertionError` otherwise.  The message always starts with
``[name]`` and names the property's source (paper / section or the docstring that states it) and
the tolerance it was judged at, with the numbers that failed, e.g.::

    [yat.gram_psd] lambda_min(G) = -3.1e-02 is below -c n u lambda_max = -2.4e-12
      source: 000 Thm 1 (App C.15); 001 Thm 2.1; 002 Thm A2 -- every Gram matrix is PSD
      tolerance: lambda_min >= -37 (d+4) n u lambda_max (|E_ij| <= 36 (d+4) u lambda_max, ...)

Nothing here re-derives a yatmath formula: the exact quantities come from yatmath's own
functions (the float64 reference is the oracle), the properties compare an implementation with
them or with a mathematical fact.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import numpy.typing as npt

from ..._typing import Array
from ...stats import t_upper

if TYPE_CHECKING:
    from typing import ParamSpec, Protocol, TypeVar

    _P = ParamSpec("_P")
    _R = TypeVar("_R")
    _R_co = TypeVar("_R_co", covariant=True)

    class PropertyFunction(Protocol[_P, _R_co]):
        """What :func:`prop` returns: the decorated function, with ``spec`` attached."""

        spec: Property

        def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...


#: unit roundoff of each working dtype (round to nearest: half the machine epsilon)
U64 = 2.0 ** -53


def unit_roundoff(dtype: npt.DTypeLike) -> float:
    """u of a NumPy float dtype (float64: 2^-53, float32: 2^-24, float16: 2^-11)."""
    return float(np.finfo(np.dtype(dtype)).eps) / 2


def gamma(k: float, u: float = U64) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error bound of k roundings."""
    k = max(float(k), 1.0)
    if k * u >= 0.5:
        return 1.0
    return k * u / (1.0 - k * u)


@dataclass(frozen=True)
class Property:
    """One property: its name, the source that states it and how its tolerance is set."""

    name: str
    family: str
    source: str
    tolerance: str
    func: Callable[..., Any] | None = None

    def fail(self, detail: str, tol: object = None) -> NoReturn:
        """Raise the AssertionError of this property (``detail``: what was measured)."""
        tol_txt = self.tolerance if tol is None else f"{self.tolerance} = {_fmt(tol)}"
        raise AssertionError(f"[{self.name}] {detail}\n  source: {self.source}\n"
                             f"  tolerance: {tol_txt}")

    def check(self, ok: bool, detail: str | Callable[[], str], tol: object = None) -> None:
        """``fail(detail())`` unless ``ok`` (``detail`` may be a string or a callable)."""
        if not ok:
            self.fail(detail() if callable(detail) else detail, tol)


#: every property, by name (filled by :func:`prop`)
PROPERTIES: dict[str, Property] = {}


def prop(name: str, family: str, source: str, tolerance: str
         ) -> Callable[[Callable[_P, _R]], PropertyFunction[_P, _R]]:
    """Decorator: register ``func`` as the property ``name`` and attach ``func.spec``."""

    def deco(func: Callable[_P, _R]) -> PropertyFunction[_P, _R]:
        spec = Property(name, family, source, tolerance, func)
        PROPERTIES[name] = spec
        func.spec = spec  # type: ignore[attr-defined]
        func.__doc__ = (func.__doc__ or "") + (
            f"\n\n    Property ``{name}``.  Source: {source}.\n    Tolerance: {tolerance}.\n")
        return func  # type: ignore[return-value]   # the same function, with ``spec``
    return deco


def _fmt(x: object) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.3g}"
    if isinstance(x, np.ndarray) and x.size == 1:
        return f"{float(x.ravel()[0]):.3g}"
    if isinstance(x, np.ndarray):
        return f"max {float(np.max(x)):.3g}"
    return str(x)


def host64(a: Array) -> npt.NDArray[np.float64]:
    """Any array (NumPy, CuPy, torch, JAX, a list) as a float64 NumPy array."""
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        a = a.get()
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.asarray(a, dtype=np.float64)


def where_worst(excess: npt.NDArray[Any]) -> tuple[Any, ...]:
    """Index of the largest entry of ``excess`` (a flat index for 0-d)."""
    excess = np.where(np.isnan(excess), np.inf, excess)
    return np.unravel_index(int(np.argmax(excess)), excess.shape) if excess.ndim else ()


def worst_outside(err: npt.ArrayLike, tol: npt.ArrayLike) -> tuple[Any, ...] | None:
    """The index of the entry of ``err`` furthest outside its tolerance ``tol`` (an array of the
    same shape or a scalar; NaN counts as outside), in units of its tolerance; None when every
    entry is within."""
    err = np.asarray(err)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), err.shape)
    bad = ~(err <= tol)
    if not bad.any():
        return None
    return where_worst(np.where(bad, err / np.maximum(tol, 1e-300), -1))


# --------------------------------------------------------------------------------------------
# the statistical test of unbiasedness

def mean_test(samples: npt.NDArray[Any], exact: npt.ArrayLike, alpha: float,
              rounding: npt.ArrayLike = 0.0
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64],
               npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Two-sided t-tests of E[samples[:, i]] = exact[i] for every i, Bonferroni over i.

    Returns (ok (bool array), half-width (array), mean, sd, t quantile).  Under the null the
    probability that any entry fails is <= alpha: exactly for Gaussian samples, asymptotically
    (central limit theorem in the number of replicates R) for any estimator with a finite
    variance.  The asymptotics are guarded: an entry whose sample skewness g1 breaks Cochran's
    rule R >= 25 g1^2 (for the normal approximation of a mean) is judged by Chebyshev's
    inequality instead, k = sqrt(m / alpha) standard errors, a level alpha for any distribution
    (given its variance).  Returns the quantile used per entry.  What no sample can reveal stays
    the caller's part: an outcome of
    probability p that carries the mean must be drawn many times (R p >> 1; for a discrete
    proposal q with M draws per replicate, R M min q >= 20 is used in yatmath's tests).
    ``rounding`` is added to the half-width: the floating-point error of the mean (an estimator
    with zero variance is judged at that tolerance alone).
    """
    X = samples.reshape(samples.shape[0], -1)
    ex = np.asarray(exact, np.float64).reshape(-1)
    R = X.shape[0]
    if R < 2:
        raise ValueError(f"replicates must be >= 2 for a t-test, got {R}")
    m = ex.size
    tq = t_upper(alpha / (2 * m), R - 1)
    mean, sd = X.mean(0), X.std(0, ddof=1)
    c = X - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = np.where(sd > 0, (c ** 3).mean(0) / np.maximum(sd, 1e-300) ** 3, 0.0)
    # Cochran's rule for the normal approximation of a mean: R >= 25 g1^2.  Entries that miss it
    # are judged by Chebyshev's inequality instead (no normality: P(|mean - mu| >= k sd/sqrt(R))
    # <= 1/k^2, k = sqrt(m/alpha) for the Bonferroni share alpha/m)
    normal = R >= 25 * g1 ** 2
    quant = np.where(normal, tq, math.sqrt(m / alpha))
    half = quant * sd / math.sqrt(R) + rounding
    ok = np.abs(mean - ex) <= half
    return ok, half, mean, sd, quant


def log_variance_se(X: np.ndarray) -> np.ndarray:
    """Standard error of ln s^2 (s^2 the sample variance of each column of X), by the delta
    method with the sample kurtosis: Var(s^2) ~ (mu4 - sigma^4 (R-3)/(R-1)) / R."""
    R = X.shape[0]
    c = X - X.mean(0)
    s2 = (c ** 2).sum(0) / (R - 1)
    m4 = (c ** 4).mean(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (m4 / s2 ** 2 - (R - 3) / (R - 1)) / R
    return np.sqrt(np.maximum(rel, 2.0 / R))


# --------------------------------------------------------------------------------------------
# central differences that bound their own error

@dataclass
class FDResult:
    """Central differences of f at a, with the error bound each entry is judged at."""

    value: np.ndarray
    bound: np.ndarray
    steps: np.ndarray


def central_difference(f: Callable[[npt.NDArray[np.float64]], Any], a: npt.ArrayLike,
                       steps: npt.ArrayLike,
                       f_err: Callable[[npt.NDArray[np.float64]], float] | float) -> FDResult:
    """d f / d a_k by central differences, with a bound on their error, for each entry of ``a``.

    ``steps``: the step h_k per entry (array of a's shape).  The step actually taken is
    (a + h) - (a - h) computed exactly (Sterbenz), so the rounding of a +- h does not enter.
    Error of D(h) = (f(a+h) - f(a-h)) / 2h: truncation h^2 f'''/6 + ..., estimated by Richardson
    from D(2h): D(2h) - D(h) = 3 h^2 f'''/6 + O(h^4), so |trunc(h)| <~ |D(2h) - D(h)| / 3; the
    bound uses 2 |D(2h) - D(h)| (a factor 6 of safety over the estimate, valid while the step
    is small against the distance to the nearest singularity: the caller's choice of h);
    rounding: the two values of f carry errors <= f_err each (the implementation's own
    accuracy bound), so 2 f_err / (2h) (and 2 f_err / (4h) in D(2h)), doubled for safety.
    ``f_err``: a number or a callable of the evaluation point.
    """
    a = np.array(a, dtype=np.float64)
    steps = np.broadcast_to(np.asarray(steps, np.float64), a.shape)
    val = np.empty_like(a)
    bnd = np.empty_like(a)
    used = np.empty_like(a)
    fe = f_err if callable(f_err) else (lambda _p: float(f_err))
    for k in np.ndindex(*a.shape):
        ds, errs = [], 0.0
        for mult in (1.0, 2.0):
            ap, am = a.copy(), a.copy()
            ap[k] = a[k] + mult * steps[k]
            am[k] = a[k] - mult * steps[k]
            h2 = ap[k] - am[k]                       # exact: the step really taken (x 2)
            fp, fm = float(f(ap)), float(f(am))
            ds.append((fp - fm) / h2)
            errs = max(errs, (fe(ap) + fe(am)) / h2)
        val[k] = ds[0]
        used[k] = steps[k]
        bnd[k] = 2.0 * abs(ds[1] - ds[0]) + 2.0 * errs + 4 * U64 * abs(ds[0])
    return FDResult(val, bnd, used)
