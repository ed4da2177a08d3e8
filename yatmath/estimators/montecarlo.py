"""Importance-weighted Monte Carlo (I7) with variance estimates and confidence intervals.

Continuous measure mu: with y_m ~ p d mu (p a density *with respect to mu*),
    I = int g d mu,   I_hat = (1/M) sum_m g(y_m) / p(y_m),   E I_hat = I.
Discrete measure mu = sum_j omega_j delta_j: with keys j_m ~ q (a probability mass function,
sum q = 1),
    I_hat = (1/M) sum_m omega_{j_m} g(j_m) / q_{j_m}.
The density of q with respect to mu is p_j = q_j / omega_j; dividing by q without omega (the
"pmf reading") is the classic factor trap: for the empirical measure omega_j = 1/n it is n times
too large.  ``integrate_discrete`` takes exactly one of ``pmf=`` or ``density=``.

Exact variance of the discrete estimator (trace over the components of g):
    V(q) = (1/M) (sum_j omega_j^2 ||g_j||^2 / q_j - ||I||^2),
minimised by q*_j = omega_j ||g_j|| / sum_k omega_k ||g_k||,
V* = (1/M)((sum omega ||g||)^2 - ||I||^2)
(zero for a one-signed scalar g).  ``MCEstimate`` carries the sample-variance estimate of
Var(I_hat), its standard error and a 95% Student-t interval (``yatmath.stats.t_quantile``, every M).

Randomised quasi-Monte Carlo (``integrate_qmc``): R independent scramblings of a Sobol or
Halton point set on [0,1]^d; the R replicate means are i.i.d. and unbiased, so their mean and
t-interval are exact in the same sense; the error typically decays like M^{-1} (log M)^d
instead of M^{-1/2} for smooth integrands (measured in the tests).

Array libraries: every function takes arrays (and callables returning arrays) of any array API
library -- NumPy, CuPy, PyTorch, JAX, ``array_api_strict`` -- and returns that library's arrays
on the caller's device, computed in float64 against the array API standard.  Random draws (the
keys of ``integrate_discrete``, the QMC points) come from NumPy's Generator on the host (the
seed rule, ``as_rng``) and are moved to the caller's library, so the same seed gives the same
numbers on every library; the Student-t quantile is a SciPy scalar.  The NumPy float64
result is the oracle.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from scipy import stats

from .._array import caller, namespace, to_host
from .._registry import choose, register
from .._typing import Array, RNGLike
from .._validate import (as_float_array, as_rng, check_callable, check_choice, check_int,
                         check_memory, check_nonempty, check_pmf, check_real)
from ..stats import t_quantile
from ._scale import pow2_scale

__all__ = ["MCEstimate", "mean_estimate", "integrate_continuous", "integrate_discrete",
           "discrete_variance", "optimal_pmf", "density_from_pmf", "integrate_qmc"]


@dataclass
class MCEstimate:
    estimate: Array | float
    variance: Array | float           # estimated Var(estimate)
    stderr: Array | float
    ci: tuple[Array, Array]           # (low, high) at ``confidence``
    n: int
    confidence: float = 0.95


def _f64(a, name, ndim):
    """``a`` validated (``as_float_array``) and in float64, in its own library."""
    a = as_float_array(a, name, ndim=ndim)
    xp = namespace(a)
    return xp.astype(a, xp.float64, copy=False)


def _samples_f64(x):
    """The validated samples in float64, in their own library; NumPy's are made C-contiguous
    (its pairwise summation order, hence the rounding, depends on the layout)."""
    if isinstance(x, np.ndarray):
        return np.ascontiguousarray(x, dtype=np.float64)
    xp = namespace(x)
    return xp.astype(x, xp.float64, copy=False)


def mean_estimate(samples: Array, confidence: float = 0.95) -> MCEstimate:
    """Mean of i.i.d. samples (axis 0) with its estimated variance and a confidence interval.

    ``samples``: (M,) or (M, k) finite reals, M >= 2; ``confidence`` in (0, 1).  The mean, the
    sample variance / M and the standard error are computed from samples / c (c a power of two
    near the column's largest |x|) and scaled back, so they are finite wherever the true values
    are (samples near 1e200 give a standard error ~1e199, not inf); the variance itself is inf
    only where it exceeds the float64 range (a true overflow).  Accuracy: the usual two-pass
    mean and variance, relative error ~ M u.  The interval is Student-t for every M
    (``yatmath.stats.t_quantile``).
    """
    x = _samples_f64(as_float_array(samples, "samples", ndim=(1, 2)))
    M = x.shape[0]
    if M < 2:
        raise ValueError(f"samples needs at least 2 rows for a variance, got {M}")
    confidence = check_real(confidence, "confidence", gt=0.0, lt=1.0)
    return choose("estimators.mean_estimate", "auto", caller(x).library)(x, confidence)


@register("estimators.mean_estimate", "reference", dtypes=("float64",),
          note="generic; the scale exponent (frexp) and the t quantile on the host")
def _mean_estimate(x, confidence):
    xp = namespace(x)
    M = x.shape[0]
    c = pow2_scale(x, axis=0)
    y = x / c
    with np.errstate(over="ignore"):
        m = c * xp.mean(y, axis=0)
        se = c * xp.sqrt(xp.var(y, axis=0, correction=1) / M)
        var = se * se
        h = t_quantile(M, confidence) * se
        ci = (m - h, m + h)
    return MCEstimate(m, var, se, ci, M, confidence)


def _weights_finite(w, names):
    xp = namespace(w)
    if not bool(xp.all(xp.isfinite(w))):
        raise OverflowError(f"the importance weights {names} overflow float64 at some sampled "
                            "point; rescale the integrand (the estimate would be inf)")


def _column(v, like):
    """v (n,) as a column (n, 1) when ``like`` is 2-D, else v."""
    return v if like.ndim == 1 else v[:, None]


def integrate_continuous(g: Callable[[Any], Array],
                         sample: Callable[[int, np.random.Generator], Any],
                         density: Callable[[Any], Array], num_samples: int, *,
                         rng: RNGLike = None, confidence: float = 0.95) -> MCEstimate:
    """I = int g d mu from y ~ p d mu: ``sample(M, rng)`` draws y, ``density(y)`` is p w.r.t. mu.

    ``g(y)`` returns (M,) or (M, k) finite values and ``density(y)`` (M,) values > 0, arrays of
    one array library (the result's); num_samples >= 2 (an integer); ``rng`` follows the seed
    rule of ``yatmath._validate.as_rng`` and is the NumPy Generator passed to ``sample``.
    Returns ``mean_estimate`` of g(y) / p(y).
    """
    check_callable(g, "g")
    check_callable(sample, "sample")
    check_callable(density, "density")
    M = check_int(num_samples, "num_samples", minimum=2)
    confidence = check_real(confidence, "confidence", gt=0.0, lt=1.0)
    gen = as_rng(rng)
    y = sample(M, gen)
    if tuple(getattr(y, "shape", np.shape(y)))[:1] != (M,):
        raise ValueError(f"sample(M, rng) must return M={M} points along its first axis, got "
                         f"shape {tuple(getattr(y, 'shape', np.shape(y)))}")
    p = _f64(density(y), "density(y)", 1)
    if p.shape != (M,):
        raise ValueError(f"density(y) must return one value per point, shape ({M},), got "
                         f"{tuple(p.shape)}")
    xp = namespace(p)
    if bool(xp.any(p <= 0)):
        raise ValueError("density must be > 0 at every sampled point, got a minimum of "
                         f"{float(xp.min(p))!r}")
    vals = _f64(g(y), "g(y)", (1, 2))
    if vals.shape[0] != M:
        raise ValueError(f"g(y) must return M={M} rows, got shape {tuple(vals.shape)}")
    impl = choose("estimators.integrate_continuous", "auto", caller(vals, p).library)
    return impl(vals, p, confidence)


@register("estimators.integrate_continuous", "reference", dtypes=("float64",),
          note="generic (the callables' arrays); sample() gets NumPy's Generator")
def _integrate_continuous(vals, p, confidence):
    with np.errstate(over="ignore"):
        w = vals / _column(p, vals)
    _weights_finite(w, "g(y) / density(y)")
    return _mean_estimate(w, confidence)


def _check_weights(omega, n, name="omega", *, nonneg=True):
    omega = _f64(omega, name, 1)
    if omega.shape[0] != n:
        raise ValueError(f"{name} must have length {n} (one weight per key), got {omega.shape[0]}")
    xp = namespace(omega)
    if nonneg and bool(xp.any(omega < 0)):
        raise ValueError(f"{name} must be >= 0 (measure weights), got a minimum of "
                         f"{float(xp.min(omega))!r}")
    return omega


def _check_values(g, name="g"):
    G = _f64(g, name, (1, 2))
    check_nonempty(G, name, what="keys")
    return G


def _as_f64(q):
    xp = namespace(q)
    return xp.astype(q, xp.float64, copy=False)


def density_from_pmf(pmf: Array, omega: Array) -> Array:
    """p_j = q_j / omega_j: the density w.r.t. mu = sum omega_j delta_j of the pmf q.

    ``pmf`` a probability vector (``check_pmf``), ``omega`` (n,) weights >= 0, of one array
    library (the result's).  A key with omega_j = 0 gets p_j = 0 when q_j = 0; q_j > 0 there
    has no density (q is not absolutely continuous w.r.t. mu) and is refused.  Exact up to one
    rounding per entry.
    """
    q = _as_f64(check_pmf(pmf, "pmf"))
    omega = _check_weights(omega, q.shape[0])
    xp = namespace(q, omega)
    bad = (omega == 0) & (q > 0)
    if bool(xp.any(bad)):
        raise ValueError(f"omega is 0 at key {int(np.argmax(to_host(bad)))} where pmf is > 0: "
                         "the pmf has no density with respect to the measure there")
    return choose("estimators.density_from_pmf", "auto", caller(q, omega).library)(q, omega)


@register("estimators.density_from_pmf", "reference", dtypes=("float64",), note="generic")
def _density_from_pmf(q, omega):
    xp = namespace(q, omega)
    with np.errstate(over="ignore"):
        return xp.where(omega > 0, q / xp.where(omega > 0, omega, 1.0), 0.0)


def integrate_discrete(g: Array, omega: Array, num_samples: int, *, pmf: Array | None = None,
                       density: Array | None = None, rng: RNGLike = None,
                       confidence: float = 0.95) -> MCEstimate:
    """I = sum_j omega_j g_j from M keys drawn with replacement.

    g : (n,) or (n, k) values; omega : (n,) measure weights (>= 0);
    pmf : q_j (sum 1), or density : p_j = q_j / omega_j w.r.t. mu (exactly one of the two);
    arrays of one array library (the result's).  Keys with g != 0 and omega > 0 must have
    q > 0 (else the estimate would be biased).  The keys are drawn on the host by NumPy's
    Generator (``rng``, the seed rule) from q, so a seed gives the same keys on every library.
    """
    G = _check_values(g)
    n = G.shape[0]
    omega = _check_weights(omega, n)
    if (pmf is None) == (density is None):
        raise ValueError("pass exactly one of pmf= (a probability mass function) or density= "
                         "(the density q_j / omega_j with respect to the measure)")
    if pmf is None:
        p = _f64(density, "density", 1)
        if p.shape[0] != n:
            raise ValueError(f"density must have length {n} (one per key), got {p.shape[0]}")
        q = check_pmf(p * omega, "density * omega", n=n)
    else:
        q = _as_f64(check_pmf(pmf, "pmf", n=n))
    xp = namespace(G, omega, q)
    need = (omega > 0) & (xp.sum(xp.abs(xp.reshape(G, (n, -1))), axis=1) > 0)
    if bool(xp.any(need & (q == 0))):
        raise ValueError("pmf must be > 0 wherever omega * g != 0")
    M = check_int(num_samples, "num_samples", minimum=2)
    confidence = check_real(confidence, "confidence", gt=0.0, lt=1.0)
    impl = choose("estimators.integrate_discrete", "auto", caller(G, omega, q).library)
    return impl(G, omega, q, M, as_rng(rng), confidence)


@register("estimators.integrate_discrete", "reference", dtypes=("float64",),
          note="generic; the keys are drawn on the host (NumPy Generator.choice)")
def _integrate_discrete(G, omega, q, M, gen, confidence):
    xp = namespace(G, omega, q)
    idx = gen.choice(G.shape[0], size=M, p=to_host(q))
    idx = caller(G).asarray(idx)
    with np.errstate(over="ignore"):
        wts = xp.take(omega, idx) / xp.take(q, idx)
        vals = xp.take(G, idx, axis=0) * _column(wts, G)
    _weights_finite(vals, "omega * g / pmf")
    return _mean_estimate(vals, confidence)


def discrete_variance(g: Array, omega: Array, pmf: Array, num_samples: int) -> float:
    """Exact trace variance V(q) = (1/M)(sum omega^2 ||g||^2 / q - ||I||^2), I = sum omega_j g_j.

    g : (n,) or (n, k); omega : (n,) real weights (signed weights are allowed: the estimator
    and the formula need only a_j = omega_j g_j); pmf : a probability vector of length n, > 0
    wherever a_j != 0 (elsewhere the estimator is biased and has no such variance);
    num_samples : M >= 1.  Arrays of one array library; the result is a Python float.

    Evaluated as (1/M) sum_j q_j ||a_j / q_j - I||^2 (equal to the formula above since
    sum_j a_j = I and sum_j q_j = 1; with the float sum S = 1 + delta it is the variance of the
    estimator that draws keys with probability q_j / S, up to delta V): a sum of non-negative
    terms, so V >= 0 always, with relative error about 4 u max_j ||a_j / q_j|| / sqrt(M V) (the
    difference form has 4 u sum_j ||a_j||^2 / (q_j M V), which near the optimal pmf loses most
    digits: measured relative errors 1e-3 to 3e-2, against 1e-10, for V ~ 1e-14 ||I||^2).
    a and I are computed from omega / c_w and g / c_g (c powers of two) and
    V is scaled back as (c_w c_g)^2 S / M, so it is finite wherever the true value is.
    """
    G = _check_values(g)
    n = G.shape[0]
    omega = _check_weights(omega, n, nonneg=False)
    q = _as_f64(check_pmf(pmf, "pmf", n=n))
    M = check_int(num_samples, "num_samples", minimum=1)
    impl = choose("estimators.discrete_variance", "auto", caller(G, omega, q).library)
    return impl(G, omega, q, M)


@register("estimators.discrete_variance", "reference", dtypes=("float64",),
          note="generic (boolean-mask indexing); returns a Python float")
def _discrete_variance(G, omega, q, M):
    xp = namespace(G, omega, q)
    n = G.shape[0]
    cw, cg = pow2_scale(omega), pow2_scale(G)
    a = (omega / cw)[:, None] * xp.reshape(G / cg, (n, -1))
    need = xp.any(a != 0, axis=1)
    if bool(xp.any(need & (q == 0))):
        raise ValueError(f"pmf must be > 0 wherever omega * g != 0 (key "
                         f"{int(np.argmax(to_host(need & (q == 0))))}); the estimator is biased "
                         "there")
    I = xp.sum(a, axis=0)
    nz = q > 0
    with np.errstate(over="ignore"):
        qn = q[nz]
        r = a[nz] / qn[:, None] - I
        S = float(xp.sum(qn * xp.sum(r * r, axis=1)))
        return float((float(cw) * float(cg) * math.sqrt(S / M)) ** 2)


def optimal_pmf(g: Array, omega: Array) -> Array:
    """The variance-optimal pmf q*_j proportional to |omega_j| ||g_j||.

    g : (n,) or (n, k); omega : (n,) real weights (|omega_j| enters, so signed weights give a
    valid pmf); arrays of one library (the result's).  Computed from g and omega divided by
    powers of two, so it never overflows; relative error ~ (k + n) u per entry.  An all-zero
    integrand has no optimal pmf (ValueError).
    """
    G = _check_values(g)
    n = G.shape[0]
    omega = _check_weights(omega, n, nonneg=False)
    return choose("estimators.optimal_pmf", "auto", caller(G, omega).library)(G, omega)


@register("estimators.optimal_pmf", "reference", dtypes=("float64",), note="generic")
def _optimal_pmf(G, omega):
    xp = namespace(G, omega)
    n = G.shape[0]
    Gs = xp.reshape(G / pow2_scale(G), (n, -1))
    # ||g_j|| as sqrt(sum of squares) per row (numpy.linalg.norm(axis=1) evaluates the same)
    s = xp.abs(omega / pow2_scale(omega)) * xp.sqrt(xp.sum(Gs * Gs, axis=1))
    if not float(xp.sum(s)) > 0:
        raise ValueError("g and omega give a zero integrand (every omega_j g_j = 0): no optimal "
                         "pmf")
    s = s / xp.max(s)
    return s / xp.sum(s)


def integrate_qmc(f: Callable[[npt.NDArray[np.float64]], Array], d: int, num_samples: int, *,
                  rng: RNGLike = None, method: str = "sobol", randomizations: int = 8,
                  confidence: float = 0.95) -> MCEstimate:
    """Randomised QMC for int_{[0,1]^d} f(u) du (f maps (M, d) points to (M,) finite values).

    d >= 1, num_samples M >= 1 and randomizations R >= 2 are integers; ``method`` is "sobol",
    "halton" or "mc" (plain Monte Carlo, for comparison).  The points are generated on the host
    (``scipy.stats.qmc`` scrambled with NumPy's Generator ``rng``, the seed rule) and passed to
    f as NumPy arrays; f may return values of any array library, which is the result's.
    Returns ``mean_estimate`` of the R replicate means (each computed from f / c, c a power of
    two, so it does not overflow).
    """
    check_callable(f, "f")
    check_choice(method, "method", ("sobol", "halton", "mc"))
    d = check_int(d, "d", minimum=1)
    M = check_int(num_samples, "num_samples", minimum=1)
    R = check_int(randomizations, "randomizations", minimum=2)
    confidence = check_real(confidence, "confidence", gt=0.0, lt=1.0)
    check_memory(8 * M * d, f"num_samples={M} points in dimension d={d}")
    gen = as_rng(rng)
    values = []
    for _ in range(R):
        if method == "mc":
            u = gen.random((M, d))
        else:
            eng = (stats.qmc.Sobol if method == "sobol" else stats.qmc.Halton)(
                d, scramble=True, seed=gen)
            u = eng.random(M)
        vals = _f64(f(u), "f(u)", 1)
        if vals.shape != (M,):
            raise ValueError(f"f must map (M, d) points to (M,) values, got shape "
                             f"{tuple(vals.shape)} for M={M}")
        values.append(vals)
    impl = choose("estimators.integrate_qmc", "auto", caller(*values).library)
    return impl(values, confidence)


@register("estimators.integrate_qmc", "reference", dtypes=("float64",),
          note="generic in f's values; the points are generated on the host (scipy.stats.qmc)")
def _integrate_qmc(values, confidence):
    """``mean_estimate`` of the replicate means of ``values`` (R arrays of f's values)."""
    xp = namespace(*values)
    return _mean_estimate(xp.stack([_qmc_replicate(vals) for vals in values]), confidence)


def _qmc_replicate(vals):
    """One replicate mean c * mean(vals / c) (c a power of two: no overflow)."""
    xp = namespace(vals)
    c = pow2_scale(vals)
    with np.errstate(over="ignore"):
        return c * xp.mean(vals / c)
