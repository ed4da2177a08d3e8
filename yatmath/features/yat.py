r"""Random features for the Yat kernel (R5 / Y8):  K(q, k) = (q.k + b)^2 / (||q - k||^2 + eps).

``yat_features(d, F, eps=..., bias=b)`` returns a frozen map phi: R^d -> R^F with
E[phi(q) . phi(k)] = K(q, k) (inner bias b >= 0; the one exception, method "harmonic" at
budgets F <= 1 + d + N_2, is a deliberately biased, minimum-mean-square truncation: see below).
The unbiased methods start from the Laplace representation

    1 / (r^2 + eps) = int_0^inf exp(-t (r^2 + eps)) dt,   so
    K(q, k) = int_0^inf e^{-t eps} (q~ . k~)^2 e^{-t ||q - k||^2} dt,     x~ = [x; sqrt(b)].

Default (``method="auto"``, chosen by measurement)
--------------------------------------------------
``method="auto"`` builds ``DEFAULT_METHOD[spherical]``: "harmonic" for spherical=True (BIASED,
below), "laplace_mc" (unbiased) for general inputs.  ``params["method"]`` is the method built,
``params["method_requested"]`` the one asked for ("auto"); both appear in the repr.  The rule:
the method with the smallest relative error ||O_lin - O||_F / ||O||_F of linear attention
against exact Yat attention (geometric mean over seeds: the errors of the unbiased maps are
heavy-tailed, their normalisers come near 0) at d = 64, L = 512, F = 256, eps = the median
||q - k||^2, b = 0 and 1.  ``benchmarks/bench_features.py`` runs that measurement and prints
every map's error with its 95% interval, the winner beside ``DEFAULT_METHOD``, the ratios to
"maclaurin" over a range of b (also with a near key for every query, where the truncation is
weakest) and the uniform-attention reference; ``tests/features/test_defaults.py`` asserts that
the default's error is no larger than any other map's upper 95% bound.
Bias of the spherical default: for F <= 1 + d + (d+2)(d-1)/2 (2144 at d = 64) "harmonic" is the
rank-F Mercer truncation, so E[phi(q).phi(k)] != K(q, k): ``params["mean_square_bias"]`` is its
mean square over uniform pairs and ``params["mean_diagonal_bias"]`` = K(x, x) - E[phi(x).phi(x)],
by which a key equal or close to its query is underweighted.  Above that budget the bias shrinks
as F grows (the Wiener weight alpha -> 1).  Pass ``method="series"`` when an unbiased estimate
is needed.  At d = 1 (no degree-2 harmonics) "auto" with spherical=True raises; pass "series".

Methods
-------
``"laplace_mc"`` (Y8(a), general inputs).  Per feature f: t_f ~ Exp(rate lam) (default lam = eps,
the spec; any 0 < lam < 2 eps keeps the variance finite), importance weight
w_f = e^{(lam - eps) t_f} / lam; omega_f ~ N(0, 2 t_f I), beta_f ~ U[0, 2 pi] (Gaussian RFF, R1,
for e^{-t ||q-k||^2}); and for (q~.k~)^2 either the unbiased sketch (r_f . x~)(s_f . x~) with
independent Rademacher r_f, s_f (``poly="sketch"``) or the exact vec(x~ x~^T) (``poly="exact"``,
F must then be a multiple of (d+1)^2):
    phi_f(x) = sqrt(2 w_f / F) cos(omega_f . x + beta_f) (r_f . x~)(s_f . x~).
Unbiased; the variance grows as eps decreases (t spreads to large values) and as |x~|^4.

``"laplace_quadrature"`` (Y8(b), general inputs).  The integral in tau = ln t is replaced by the
trapezoid rule 1/a ~= sum_q W_q e^{-t_q (a - eps)}, W_q = h t_q e^{-t_q eps} on
tau in [-ln(a_max) - 25, -ln(a_min) + 4], a in [eps, eps + r2_max] (relative error ~5e-8 for
h = 0.5, 1e-11 for h = 0.25, Y8(b); outside a <= eps + r2_max the rule is not guaranteed).
Feature allocation across the nodes: each feature sits at one node, chosen by *systematic
sampling* from p_q = W_q / sum W (Neyman allocation: a node's per-feature second moment is the
same for all nodes, ~ (1 + e^{-4 t r^2}/2) |q~|^4 |k~|^4, so the variance-optimal share of the
budget is proportional to W_q).  Each feature's node is marginally p, so the estimate is
unbiased for the quadrature sum; the stratification removes the variance of the t-draw.

``"maclaurin"`` (spherical only, the baseline; Kar & Karnick 2012).  For unit q, k,
||q - k||^2 = 2 - 2c with c = q.k, so K = f(c) = (c + b)^2 / (A - 2c), A = 2 + eps, with the
power series f(c) = sum_n a_n c^n, all a_n >= 0 (Laplace: 1/(A - 2c) = int e^{-tA} e^{2tc} dt):
    g_n = 2^n / A^{n+1},   a_n = b^2 g_n + 2 b g_{n-1} + g_{n-2}   (g_{-1} = g_{-2} = 0).
Per feature: degree N ~ P(N = n) = (1 - 1/p) p^{-n} (p = 2), phi_f = sqrt(a_N / (P(N) F))
prod_{i<=N} (r_i . x), Rademacher r_i.

``"series"`` (spherical only; the variance-allocated version of the same expansion).  The
budget is split into strata whose estimates are independent and unbiased:
  * exact: one constant feature sqrt(a_0 + a_2/d) (the a_2 c^2 term's spherical mean a_2/d,
    since c^2 = 1/d + <qq^T - I/d, kk^T - I/d>), and, when it lowers the modelled variance, the
    d exact linear features sqrt(a_1) x;
  * degree 2, off-diagonal part sum_{i != j} q_i q_j k_i k_j: Hutchinson features
    ((r . x)^2 - ||x||^2) / sqrt 2 (Rademacher r; zero mean over r, so their sums over keys
    cancel in the attention normaliser); degree 2, centred diagonal
    sum_i (q_i^2 - 1/d)(k_i^2 - 1/d): Rademacher projections of x o x - ||x||^2/d;
  * degrees 3..n_cut: products of n independent Rademacher projections;
  * the tail n > n_cut: one stratum, degree drawn with P(n) = a_n / T (T = tail mass, closed
    form), feature sqrt(T / m) prod (r_i . x).
Allocation (how the budget is chosen): minimise the modelled variance sum_s w_s^2 v_s / m_s
subject to sum_s m_s = budget, where w_s is the stratum's coefficient and v_s the per-feature
second moment for unit near-orthogonal q, k (v = 1 for Rademacher products and the Hutchinson
features, (2/d)^2 for the centred diagonal): the Lagrange solution is m_s proportional to
w_s sqrt(v_s) (Neyman), rounded by largest remainders with at least one feature per stratum;
n_cut is the last degree whose share is >= 1 feature.  The exact linear block (d features) is
taken iff the modelled variance with it is smaller than with degree 1 as a sketched stratum.
(A partial orthogonal linear block of m1 < d rows, variance a_1^2 (1/m1 - 1/d), loses to the
exact block whenever its Neyman share a_1 (F - 1) / (a_1 + W) exceeds d, as at d = 64, F = 256.)

``"harmonic"`` (spherical only; minimum mean-square error, *biased*).  The Mercer expansion of
f on the sphere (``features.spherical``): K = sum_n mu_n sum_i Y_{n,i}(q) Y_{n,i}(k), with
N_0 = 1, N_1 = d, N_2 = (d+2)(d-1)/2 harmonics of degree 0, 1, 2 and mu_n = lambda_n / N_n
(Gegenbauer coefficients, computed to ~1 ulp).  Let S = E[f^2] - sum_{n<=2} lambda_n^2 / N_n, the
mean square over uniform pairs of the degree >= 3 part.
  * F <= 1 + d + N_2: the features are sqrt(mu_n) Y_{n,i} for the F largest mu_n (Eckart-Young:
    the best rank-F approximation of the kernel in L2 of the uniform measure on pairs); a degree
    that only partly fits gets a random subset of its orthonormal basis, taken on R x with R a
    Haar-random rotation, so no axis is preferred.  Degrees >= 3 are dropped.
  * F > 1 + d + N_2: degrees 0-2 exactly, and the remaining budget as the random strata of
    "series" for the degrees >= 3, weighted by alpha = S / (S + V) (V their modelled variance):
    the map estimates trunc + alpha (K - trunc), with mean-square error (1-alpha)^2 S + alpha^2 V,
    the minimum over alpha (a Wiener weight; alpha -> 1 as F grows, so the bias vanishes).
params: "mean_square_bias" = E over uniform unit q, k of (E[phi(q).phi(k)] - K)^2 (for the
truncation exactly E[f^2] - sum over the kept functions of mu_n^2, by orthonormality, for every
rotation and subset), "model_variance", and "mean_diagonal_bias" = f(1) - E_x[phi(x).phi(x)]:
the optimality is for spread-out pairs, and a key equal to its query is underestimated by this
much.
Why the truncation wins at small budgets: for near-orthogonal unit pairs, an unbiased m-column
estimate of the degree-2 part has variance ~ lambda_2^2 / m, while the whole degree-2 part has
mean square lambda_2^2 / N_2 — at d = 64, F = 256 (m < 256 < N_2 = 2079) the random estimate is
noisier than the signal it estimates, and dropping (most of) it is the smaller error.  Use it
when the mean-square error is what matters (attention outputs); use "series" when an unbiased
estimate is required.

How close "series" is to the best unbiased map.  Any unbiased map whose random columns are
independent has, for near-orthogonal unit q, k, per-column second moment
E[phi_f(q)^2 phi_f(k)^2] ~ E[phi_f(q)^2] E[phi_f(k)^2], while
sum_f E[phi_f(x)^2] = K(x, x) - (exact part) = f(1) - lambda_0 - lambda_1 =: W_G, with lambda_n
the Gegenbauer (spherical-harmonic) coefficients of f; by Cauchy-Schwarz the per-entry variance
is then >= W_G^2 / m (m random columns).  The series allocation comes within a few percent of
this floor, and its per-entry MSE on random unit pairs agrees with its modelled variance
(``tests/features/test_maps.py::test_series_variance_matches_its_allocation_model``).
Coupled (orthogonal) columns gain at most the fraction m/D of the coupled subspace
(D = d(d+1)/2 - 1 for degree 2), so they are not used.  Rademacher products, Gaussian and
complex Rademacher sketches all have second moment ~1 for near-orthogonal unit pairs (the latter
two gain only in the c-dependent terms).

Inputs: float64 or float32 arrays (n, d); the map stores float64 parameters.  For spherical
methods ``phi(X)`` raises if a row's norm differs from 1 by more than ``sphere_tol``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import ortho_group

from .._array import caller, parameter
from .._registry import register
from .._typing import Array, RNGLike
from .._validate import (as_rng, check_bool, check_choice, check_eps, check_int,
                         check_positive, check_real)
from ._common import FeatureMap, frozen, rademacher
from .fourier import HOST_DRAW
from .spherical import degree2_basis, degree2_harmonics, gegenbauer_coefficients, harmonic_dims
from .yat_coefficients import (_N_HI, _neyman_plan, _tail_mass, laplace_nodes,
                               maclaurin_coefficients)

__all__ = ["yat_features", "YatFeatures", "maclaurin_coefficients", "laplace_nodes", "METHODS",
           "DEFAULT_METHOD"]

METHODS = ("laplace_mc", "laplace_quadrature", "maclaurin", "series", "harmonic")

# What method="auto" (the default) builds, by ``spherical``: the method with the smallest
# linear-attention output error in ``benchmarks/bench_features.py`` (module docstring, "Default").
DEFAULT_METHOD = {True: "harmonic", False: "laplace_mc"}


def _check_sphere(self, X, xp):
    """For a spherical map, ValueError unless every row of X has |norm - 1| <= sphere_tol."""
    if self.spherical:
        nrm = xp.sqrt(xp.sum(X * X, axis=1))
        if X.shape[0] and float(xp.max(xp.abs(nrm - 1.0))) > self.sphere_tol:
            raise ValueError(f"X must have unit-norm rows for spherical=True (|norm - 1| <= "
                             f"sphere_tol={self.sphere_tol}), got max |norm - 1| = "
                             f"{float(xp.max(xp.abs(nrm - 1.0))):.3g}")


@register("features.YatFeatures.__call__", "reference",
          note="generic; float64 evaluation, result in the input's dtype")
def _yat_apply(self, X, c):
    """phi(X) (module docstring) on a validated (n, d) float64 array of the caller ``c``,
    written against the array API standard."""
    n, xp, dev = X.shape[0], c.xp, c.device
    _check_sphere(self, X, xp)

    def P(a):
        return parameter(self, a, c)

    def full(shape, value):
        return xp.full(shape, value, dtype=X.dtype, device=dev)

    sq = xp.sum(X * X, axis=1, keepdims=True)
    cols = []
    for grp in self._groups:
        kind = grp[0]
        if kind in ("laplace_sketch", "laplace_exact"):
            omega, beta, scale = (P(a) for a in grp[2:5])
            z = scale * xp.cos(X @ omega.T + beta)
            Xt = xp.concat([X, full((n, 1), math.sqrt(self.bias))], axis=1)
            if kind == "laplace_sketch":
                cols.append(z * (Xt @ P(grp[5]).T) * (Xt @ P(grp[6]).T))
            else:
                outer = xp.reshape(Xt[:, :, None] * Xt[:, None, :], (n, -1))
                cols.append(xp.reshape(outer[:, :, None] * z[:, None, :], (n, -1)))
        elif kind == "const":
            cols.append(full((n, 1), float(grp[2])))
        elif kind == "linear":
            cols.append(float(grp[2]) * X)
        elif kind == "harm1":
            cols.append(float(grp[2]) * (X @ P(grp[3]).T))
        elif kind == "harm2":
            I, J, U, R = grp[3:7]
            Z = X if R is None else X @ P(R).T
            cols.append(float(grp[2]) * degree2_harmonics(Z, P(I), P(J), P(U), xp))
        elif kind == "offdiag":
            cols.append(float(grp[2]) * ((X @ P(grp[3]).T) ** 2 - sq) / math.sqrt(2.0))
        elif kind == "cdiag":
            cols.append(float(grp[2]) * ((X * X - sq / self.d) @ P(grp[3]).T))
        else:   # prod
            scale, R = P(grp[2]), P(grp[3])
            z = full((n, grp[1]), 1.0) * scale
            for k in range(R.shape[0]):
                z = z * (X @ R[k, ...].T)
            cols.append(z)
    return xp.concat(cols, axis=1)


@register("features.YatFeatures.__call__", "cupy", libraries=("cupy",), device="gpu",
          host_input=True,
          note="laplace_mc / laplace_quadrature: one matmul X @ [Omega | R | S]^T (or X @ "
               "Omega^T for poly='exact'), then one fused numba-cuda epilogue (_cuda_features), "
               "written once in the input's dtype; the spherical methods: the reference on the "
               "device")
def _yat_cupy(self, X, c):
    """phi(X) on the device.  The Laplace maps (one group, "laplace_sketch" or "laplace_exact"):
    ONE product -- for the sketch X [Omega^T | R_x^T | S_x^T], the three projections of the
    reference in one (d, 3M) matrix, R_x, S_x the first d columns of R, S, whose last column
    (the sqrt(b) coordinate of x~) the kernel adds as sqrt(b) r_d -- then one kernel of
    ``_cuda_features`` (result in ``c.dtype``, the input's dtype, stored by the kernel).  The
    spherical methods (several groups of small products): the reference on the device."""
    here = caller(X)            # the device copy's caller (host_input moves NumPy input there)
    grp = self._groups[0]
    if len(self._groups) != 1 or grp[0] not in ("laplace_sketch", "laplace_exact"):
        return _yat_apply(self, X, here)
    from . import _cuda_features as cf

    _check_sphere(self, X, here.xp)
    omega, beta, scale = grp[2:5]
    sqrt_b = math.sqrt(self.bias)
    P = parameter(self, beta, here), parameter(self, scale, here)
    if grp[0] == "laplace_exact":
        proj = X @ parameter(self, omega, here).T
        return cf.exact_map(proj, X, *P, sqrt_b, c.dtype)
    R, S = grp[5], grp[6]
    W = cf.derived(self, "sketch_W", lambda: np.concatenate(
        [omega.T, R[:, :self.d].T, S[:, :self.d].T], axis=1))
    rb = cf.derived(self, "sketch_rb", lambda: sqrt_b * R[:, self.d])
    sb = cf.derived(self, "sketch_sb", lambda: sqrt_b * S[:, self.d])
    proj = X @ parameter(self, W, here)
    return cf.sketch_map(proj, *P, parameter(self, rb, here), parameter(self, sb, here), c.dtype)


class YatFeatures(FeatureMap):
    """The Yat feature map; see the module docstring for the methods and their variance.

    All randomness is drawn at construction with NumPy's Generator (``as_rng``), so the same
    seed gives the same map on every array library; ``phi(X)`` returns X's library on X's
    device.
    """

    _op = "features.YatFeatures.__call__"

    def __init__(self, d: int, num_features: int, *, eps: float, bias: float = 0.0,
                 spherical: bool = False, rng: RNGLike = None, method: str = "auto",
                 poly: str = "sketch", t_rate: float | None = None, r2_max: float | None = None,
                 h: float = 0.5, maclaurin_p: float = 2.0, sphere_tol: float = 1e-5) -> None:
        self.d = check_int(d, "d", minimum=1)
        self.num_features = F = check_int(num_features, "num_features", minimum=1)
        self.eps = check_eps(eps)
        bias = check_real(bias, "bias")
        if bias < 0:
            raise ValueError(f"bias must be finite and >= 0 (a symmetric real feature map needs "
                             f"sqrt(bias)), got {bias!r}")
        self.bias = float(bias)
        check_choice(method, "method", ("auto",) + METHODS)
        self.spherical = check_bool(spherical, "spherical")
        self.sphere_tol = check_positive(sphere_tol, "sphere_tol")
        requested = method
        if method == "auto":                # the measured default (module docstring, "Default")
            method = DEFAULT_METHOD[self.spherical]
            if method == "harmonic" and self.d < 2:
                raise ValueError(f"method='auto' builds 'harmonic' for spherical=True, which needs "
                                 f"d >= 2, got d={self.d}; pass method='series' (unbiased)")
        self.method = method
        if method in ("maclaurin", "series", "harmonic") and not self.spherical:
            raise ValueError(f"method={method!r} needs spherical=True (unit-norm inputs); use "
                             "'laplace_mc' or 'laplace_quadrature' for general inputs")
        g = as_rng(rng)
        self.params = {"method": method, "method_requested": requested, "eps": self.eps,
                       "bias": self.bias, "spherical": self.spherical}
        # (kind, scale, arrays...) evaluated in order by _apply
        self._groups: list[tuple[Any, ...]] = []
        if method == "laplace_mc":
            self._build_laplace(g, poly, t_rate, None, h)
        elif method == "laplace_quadrature":
            if r2_max is None:
                if not self.spherical:
                    raise ValueError("r2_max (the largest ||q - k||^2 the quadrature must cover) "
                                     "is required for method='laplace_quadrature' with general "
                                     "inputs")
                r2_max = 4.0
            self._build_laplace(g, poly, None, check_positive(r2_max, "r2_max"),
                                check_positive(h, "h"))
        elif method == "maclaurin":
            self._build_maclaurin(g, check_positive(maclaurin_p, "maclaurin_p"))
        elif method == "series":
            self._build_series(g)
        else:
            self._build_harmonic(g)
        assert sum(self._widths) == F, (self._widths, F)
        for grp in self._groups:    # the map is frozen: its device copies may be cached
            frozen(grp)

    # -- construction ------------------------------------------------------------------------
    @property
    def _widths(self):
        return [grp[1] for grp in self._groups]

    def _build_laplace(self, g, poly, t_rate, r2_max, h):
        check_choice(poly, "poly", ("sketch", "exact"))
        F, d1 = self.num_features, self.d + 1
        if poly == "exact":
            if F % (d1 * d1):
                raise ValueError(f"num_features must be a multiple of (d+1)^2 = {d1 * d1} for "
                                 f"poly='exact', got {F}")
            M = F // (d1 * d1)
        else:
            M = F
        if r2_max is None:          # Monte Carlo in t
            lam = self.eps if t_rate is None else check_positive(t_rate, "t_rate")
            if lam >= 2 * self.eps:
                raise ValueError(f"t_rate must be < 2*eps = {2 * self.eps!r} (finite variance), "
                                 f"got {t_rate!r}")
            t = g.exponential(1.0 / lam, size=M)
            w = np.exp((lam - self.eps) * t) / lam
            self.params.update(poly=poly, t_rate=lam)
        else:                       # quadrature nodes, systematic sampling p ~ W
            nodes, W = laplace_nodes(self.eps, r2_max, h)
            cdf = np.cumsum(W) / W.sum()
            u = (np.arange(M) + g.uniform()) / M
            idx = np.minimum(np.searchsorted(cdf, u, side="right"), len(W) - 1)
            t = nodes[idx]
            w = np.full(M, W.sum())
            self.params.update(poly=poly, r2_max=r2_max, h=h, nodes=len(nodes))
        omega = g.standard_normal((M, self.d)) * np.sqrt(2.0 * t)[:, None]
        beta = g.uniform(0.0, 2 * np.pi, size=M)
        scale = np.sqrt(2.0 * w / M)
        if poly == "sketch":
            R, S = rademacher(g, (M, d1)), rademacher(g, (M, d1))
            self._groups.append(("laplace_sketch", F, omega, beta, scale, R, S))
        else:
            self._groups.append(("laplace_exact", F, omega, beta, scale))

    def _build_maclaurin(self, g, p):
        if p <= 1:
            raise ValueError(f"maclaurin_p must be > 1, got {p!r}")
        F = self.num_features
        N = g.geometric(1.0 - 1.0 / p, size=F) - 1          # P(N = n) = (1 - 1/p) p^{-n}
        a = maclaurin_coefficients(int(N.max()), self.eps, self.bias)
        for n in np.unique(N):
            m = int((N == n).sum())
            prob = (1.0 - 1.0 / p) * p ** (-float(n))
            scale = np.sqrt(a[n] / (prob * F))
            self._groups.append(("prod", m, np.full(m, scale), rademacher(g, (int(n), m, self.d))))
        self.params.update(maclaurin_p=p)

    def _build_series(self, g):
        F, d, eps, b = self.num_features, self.d, self.eps, self.bias
        a = maclaurin_coefficients(_N_HI, eps, b)

        def plan(exact_linear):
            base = [] if exact_linear or a[1] == 0 else [("deg", a[1], 1)]
            base += [("offdiag", a[2], 2), ("cdiag", a[2] * 2.0 / d, 2)]
            return _neyman_plan(a, base, F - 1 - (d if exact_linear else 0), eps, b)

        use_lin = a[1] > 0 and F - 1 - d >= 4
        if use_lin:
            plan_lin, plan_sk = plan(True), plan(False)
            use_lin = plan_lin[2] < plan_sk[2]
        strata, m, var = plan(use_lin)
        self._groups.append(("const", 1, np.sqrt(a[0] + a[2] / d)))
        if use_lin:
            self._groups.append(("linear", d, np.sqrt(a[1])))
        self._append_strata(g, a, strata, m)
        self.params.update(exact_linear=bool(use_lin), n_cut=int(strata[-1][2]),
                           allocation={f"{s[0]}{s[2]}": int(k) for s, k in zip(strata, m)},
                           model_variance=var)

    def _append_strata(self, g, a, strata, m, weight=1.0):
        """Random features for the strata of a ``_neyman_plan``, m[s] features each; their
        kernel estimate is multiplied by ``weight``."""
        d, A = self.d, 2.0 + self.eps
        for (label, w, n), mk in zip(strata, m):
            if label in ("offdiag", "cdiag"):
                self._groups.append((label, mk, np.sqrt(weight * a[2] / mk),
                                     rademacher(g, (mk, d))))
            elif label == "deg":
                self._groups.append(("prod", mk, np.full(mk, np.sqrt(weight * a[n] / mk)),
                                     rademacher(g, (n, mk, d))))
            else:   # tail: for n >= 2, a_n = C (2/A)^n, so P(n) = a_n / T is n_cut + Geom(1 - 2/A)
                degs = n + g.geometric(1.0 - 2.0 / A, size=mk)
                for deg in np.unique(degs):
                    k = int((degs == deg).sum())
                    self._groups.append(("prod", k, np.full(k, np.sqrt(weight * w / mk)),
                                         rademacher(g, (int(deg), k, d))))

    def _build_harmonic(self, g):
        F, d, eps, b = self.num_features, self.d, self.eps, self.bias
        if d < 2:
            raise ValueError(f"method='harmonic' needs d >= 2, got d={d}")
        dims = harmonic_dims(d)
        lam_f = gegenbauer_coefficients(d, eps, b)
        ef2 = lam_f[3]
        # mean square over uniform pairs of the degree >= 3 part of f
        high = max(ef2 - sum(lam_f[n] ** 2 / dims[n] for n in range(3)), 0.0)
        if F > sum(dims):
            # degrees 0-2 exact; the degree >= 3 remainder R = sum_{n>=3} a_n c^n - (its degree
            # 0-2 part) from the random strata of "series", weighted by alpha = S / (S + V):
            # E = trunc + alpha (f - trunc), mean-square error (1-alpha)^2 S + alpha^2 V, minimal.
            a = maclaurin_coefficients(_N_HI, eps, b)
            head = (a[0] + a[2] / d, a[1], a[2] * (d - 1) / d)
            strata, m, var = _neyman_plan(a, [], F - sum(dims), eps, b)
            alpha = high / (high + var) if high + var > 0 else 1.0
            lam = tuple((1 - alpha) * lam_f[n] + alpha * head[n] for n in range(3))
            keep = dims
            msb = (1 - alpha) ** 2 * high
        else:                 # Mercer truncation: the F largest mu_n = lambda_n / N_n
            lam = lam_f[:3]
            mu = [lam[n] / dims[n] for n in range(3)]
            keep, left = [0, 0, 0], F
            for n in sorted(range(3), key=lambda n: -mu[n]):
                keep[n] = min(dims[n], left)
                left -= keep[n]
            strata, alpha, var = [], 0.0, 0.0
            msb = max(ef2 - sum(k * (lam[n] / dims[n]) ** 2 for n, k in enumerate(keep)), 0.0)
        partial = any(0 < k < N for k, N in zip(keep, dims))
        R = ortho_group.rvs(d, random_state=g) if partial else None
        if keep[0]:
            self._groups.append(("const", 1, np.sqrt(lam[0])))
        if keep[1] == d:
            self._groups.append(("linear", d, np.sqrt(lam[1])))
        elif keep[1]:
            self._groups.append(("harm1", keep[1], np.sqrt(lam[1]), R[: keep[1]]))
        if keep[2]:
            I, J, U = degree2_basis(d)
            h = np.sort(g.choice(dims[2], size=keep[2], replace=False)) if keep[2] < dims[2] \
                else np.arange(dims[2])
            pairs, diag = h[h < len(I)], h[h >= len(I)] - len(I)
            self._groups.append(("harm2", keep[2], np.sqrt(lam[2] / dims[2]), I[pairs], J[pairs],
                                 U[diag], R))
        if strata:
            self._append_strata(g, a, strata, m, weight=alpha)
        self.params.update(
            kept={"degree0": keep[0], "degree1": keep[1], "degree2": keep[2]},
            gegenbauer=lam_f[:3], high_degree_weight=float(alpha),
            # E over uniform unit q, k of (E_phi[phi(q).phi(k)] - K(q, k))^2
            mean_square_bias=float(msb), mean_square_kernel=ef2,
            # modelled variance of the weighted random part (near-orthogonal unit pairs)
            model_variance=float(alpha ** 2 * var),
            # f(1) - E_x[phi(x).phi(x)]: what the map misses on the diagonal q = k (each
            # harmonic has E_x[Y(x)^2] = 1; the random part is unbiased for alpha sum_{n>=3} a_n)
            mean_diagonal_bias=float((1 + b) ** 2 / eps - alpha * _tail_mass(2, 2.0 + eps, eps, b)
                                     - sum(k * lam[n] / dims[n] for n, k in enumerate(keep))))

    def kernel(self, X: Array, Y: Array) -> Array:
        """The exact Yat kernel (q.k + b)^2 / (||q - k||^2 + eps), from ``yatmath.yat.gram``
        (any array library that ``gram`` accepts; result in the inputs' library)."""
        return self._kernel_call("features.YatFeatures.kernel", X, Y)


@register("features.YatFeatures.kernel", "reference", note="= yat.gram (its dispatch)")
def _yat_kernel(self, X, Y):
    from ..yat.kernel import gram

    return gram(X, Y, eps=self.eps, bias=self.bias if self.bias else None)


@register("features.yat_features", "reference", libraries=("numpy",), dtypes=("float64",),
          note=HOST_DRAW)
def yat_features(d: int, num_features: int, *, eps: float, bias: float = 0.0,
                 spherical: bool = False, rng: RNGLike = None, method: str = "auto",
                 **options: Any) -> YatFeatures:
    """Random features phi with E[phi(q).phi(k)] = (q.k + b)^2 / (||q - k||^2 + eps) (all methods
    but "harmonic", the spherical default, whose bias is documented in the module docstring).

    ``method``: "auto" (default) | "laplace_mc" | "laplace_quadrature" | "maclaurin" | "series" |
    "harmonic" (module docstring).  "auto" is the measured winner ``DEFAULT_METHOD[spherical]``:
    "harmonic" on the sphere, which is BIASED for num_features <= 1 + d + (d+2)(d-1)/2 (the
    minimum-mean-square truncation; pass "series" for an unbiased map), "laplace_mc" (unbiased)
    for general inputs; ``phi.params["method"]`` records the method built;
    ``options``: poly, t_rate (laplace_mc), r2_max, h (laplace_quadrature), maclaurin_p,
    sphere_tol.  Returns a ``YatFeatures``; ``phi(X)`` has shape (n, num_features).
    """
    return YatFeatures(d, num_features, eps=eps, bias=bias, spherical=spherical, rng=rng,
                       method=method, **options)
