"""Properties of the Yat kernel K(w, x) = (w.x)^2 / (||w - x||^2 + eps) and what is built on it.

Implementations are plain callables with the signatures of yatmath's public functions:

    product(w, x, eps) -> K           broadcasting over leading axes (``yatmath.yat.product``)
    gram(X, eps) -> G                 (n, n), G_ij = K(X_i, X_j)  (``yatmath.yat.gram(X, None, eps)``)
    grad(w, x, eps) -> (g_w, g_x, ...)  gradients of K (``yatmath.yat.grad``: YatGrad(w, x, ...))
    attention(Q, K, V, eps, causal=..., mask=...) -> O  (``yatmath.yat.attention``)
    softermax(x, n, delta), soft_sigmoid(x, n), soft_tanh(x, n)  (``yatmath.yat.squash``)

Tolerances come from the accuracy bound stated in ``yatmath/yat/kernel.py`` (one definition:
``yatmath.testing.oracle.kernel_bound``), written B_u(w, x) below:

    |K_hat - K| <= B_u = 4 (d+4) u (|N| A / D + 8 K) + ((d+4) u ||w|| ||x||)^2 / D
                     (+ the oracle's gradual-underflow terms)

with u the unit roundoff of the result's dtype.  B_u is evaluated from float64 quantities
inflated by their own rounding, so it is an upper bound of the docstring's value.
"""
from __future__ import annotations

import contextlib
import importlib.util
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..generators import dtype_name
from ..oracle import SUBNORMAL, kernel_bound
from ._core import (U64, central_difference, host64, mean_test, prop, unit_roundoff, where_worst,
                    worst_outside)

__all__ = ["kernel_error_bound", "yat_self_regulation", "yat_symmetric", "yat_gram_psd",
           "yat_gradient_fd", "yat_attention_rows_sum_to_one", "softermax_simplex",
           "softermax_hard_limit", "soft_sigmoid_range_and_limits", "soft_tanh_range_and_limits",
           "yat_lipschitz_unit_ball", "yat_dim_scaling", "gaussian_init_bounds",
           "yat_gradient_autodiff", "autodiff_libraries", "AUTODIFF_LIBRARIES", "jax_float64"]

def kernel_error_bound(w: npt.ArrayLike, x: npt.ArrayLike, eps: float,
                       dtype: npt.DTypeLike = np.float64
    ) -> tuple[npt.NDArray[np.float64],
               tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
                     npt.NDArray[np.float64]]]:
    """An upper bound of B_u(w, x) (the kernel docstring's bound, plus the oracle's gradual
    underflow terms) for the dtype ``dtype``, broadcasting over leading axes; also returns the
    float64 values (N, P, D, K) it was computed from.

    N = w.x, P = ||w|| ||x|| and D = ||w - x||^2 + eps are computed in float64 with relative
    errors below g = (d + 2) u64, so |N| <= |N_hat| + g P, D >= D_hat (1 - g), P <= P_hat (1 + g)
    are used in place of the exact values.
    """
    w = np.asarray(w, np.float64)
    x = np.asarray(x, np.float64)
    d = max(w.shape[-1], 1)
    g = (d + 2) * U64
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        P = np.linalg.norm(w, axis=-1) * np.linalg.norm(x, axis=-1) * (1 + g)
        diff = w - x
        D = (np.sum(diff * diff, axis=-1) + eps) * (1 - g)
        N = np.abs(np.sum(w * x, axis=-1)) + g * P
        K = N * (N / D)
        u = unit_roundoff(dtype)
        eta = SUBNORMAL[dtype_name(np.dtype(dtype))] if np.dtype(dtype).name in (
            "float64", "float32") else 0.0
        B = kernel_bound(N, P, P, K, D, d, u, eta)
    return B * (1 + 2.0 ** -40), (N, P, D, K)


def _call(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    with np.errstate(all="ignore"):
        return fn(*args, **kw)


# ----------------------------------------------------------------------------------------------
@prop("yat.self_regulation", "yat",
      "000 Prop 1 (App C.7); 001 Prop C.6; 002 Thm A3 (A33): lim_{r->inf} K(w, r u) = (w.u)^2 "
      "(||u|| = 1), with the remainder K - a^2 = a^2 (2 t a - B) / (t^2 - 2 t a + B) "
      "(t = ||x||, a = w.x/t, B = ||w||^2 + eps), so |K - a^2| <= C / t for t >= t0 >= 4|a|",
      "|K_hat(w, t u) - a^2| <= C/t + B_u(w, t u) + 2 (d+2) u64 a^2, C = 2 a^2 (2|a| + B/t0): "
      "the O(1/r) rate with its constant, the implementation's own bound B_u (kernel.py "
      "docstring) and the float64 rounding of the limit a^2")
def yat_self_regulation(product: Callable[..., Any], w: npt.ArrayLike, u: npt.ArrayLike, eps: float,
                        *, dtype: npt.DTypeLike = np.float64,
                        radii: npt.ArrayLike | None = None) -> None:
    """K(w, r u) -> (w.u)^2 / ||u||^2 as r -> inf at rate O(1/r) (the self-regulation limit).

    ``u`` is a direction (any nonzero vector, normalised implicitly); ``radii`` the scale
    factors r (default: powers of two from r0, where r0 ||u|| >= 4 (|a| + ||w|| + sqrt(eps) + 1),
    up to where ||r u||^2 stays finite in ``dtype``).  Powers of two keep r u exact.
    """
    spec = yat_self_regulation.spec
    w = np.asarray(w, dtype)
    u = np.asarray(u, dtype)
    w64, u64 = w.astype(np.float64), u.astype(np.float64)
    nu = float(np.linalg.norm(u64))
    if not nu > 0:
        raise ValueError("u must be a nonzero direction")
    a = float(w64 @ u64) / nu                    # w . (u/||u||)
    Bw = float(w64 @ w64) + eps
    if radii is None:
        r0 = 2.0 ** math.ceil(math.log2(4 * (abs(a) + math.sqrt(Bw) + 1) / nu))
        top = math.floor(math.log2(math.sqrt(float(np.finfo(dtype).max)) / (8 * nu * r0)))
        if top < 2:
            raise ValueError("no ray r u with ||r u|| >> ||w|| + sqrt(eps) keeps ||r u||^2 finite "
                             f"in {np.dtype(dtype).name} (||w|| and eps too large)")
        radii = r0 * 2.0 ** np.arange(0, min(top, 60) + 1)
    radii = np.asarray(radii, np.float64)
    X = (radii[:, None] * u64[None, :]).astype(dtype)
    t = np.linalg.norm(X.astype(np.float64), axis=1)
    t0 = float(t.min())
    if t0 < 4 * abs(a):
        raise ValueError(f"the radii must give ||x|| >= 4 |w.u| = {4 * abs(a):.3g}; got {t0:.3g}")
    K = host64(_call(product, w, X, eps)).reshape(-1)
    limit = a * a
    C = 2 * limit * (2 * abs(a) + Bw / t0)
    B, _ = kernel_error_bound(w64, X.astype(np.float64), eps, dtype)
    tol = C / t + B + 2 * (w.size + 2) * U64 * limit
    err = np.abs(K - limit)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"at r = {radii[k]:.6g} (||x|| = {t[k]:.6g}): K = {K[k]!r}, limit (w.u)^2 = "
                  f"{limit!r}, |K - limit| = {err[k]:.3g} (r |K - limit| = {t[k] * err[k]:.3g}, "
                  f"C = {C:.3g}); w = {w.tolist()}, u = {u.tolist()}, eps = {eps!r}", tol[k])


# ----------------------------------------------------------------------------------------------
@prop("yat.symmetric", "yat",
      "K(w, x) = K(x, w): 000 Def. 3 / Thm 1 and 001 Thm 2.1 (a Mercer kernel is symmetric); "
      "yatmath.yat.gram docstring: 'exactly symmetric'",
      "exact=True: G == G^T bit for bit (the gram docstring's promise); otherwise "
      "|G_ij - G_ji| <= 2 B_u(X_i, X_j) (both entries within B_u of the same exact value)")
def yat_symmetric(gram: Callable[..., Any], X: npt.ArrayLike, eps: float, *,
                  exact: bool = False) -> None:
    """The Gram matrix of a point set is symmetric (``exact``: bit for bit)."""
    spec = yat_symmetric.spec
    X = np.asarray(X)
    Gr = _call(gram, X, eps)
    G = host64(Gr)
    n = X.shape[0]
    spec.check(G.shape == (n, n), f"gram returned shape {G.shape} for {n} points")
    if exact:
        diff = G != G.T
        diff &= ~(np.isnan(G) & np.isnan(G.T))
        if diff.any():
            i, j = np.argwhere(diff)[0]
            spec.fail(f"G[{i},{j}] = {G[i, j]!r} != G[{j},{i}] = {G[j, i]!r}", 0.0)
        return
    B, _ = kernel_error_bound(X[:, None, :], X[None, :, :], eps, getattr(Gr, "dtype", X.dtype))
    err = np.abs(G - G.T)
    bad = ~(err <= 2 * B)
    if bad.any():
        i, j = where_worst(np.where(bad, err / np.maximum(2 * B, 1e-300), -1))
        spec.fail(f"|G[{i},{j}] - G[{j},{i}]| = {err[i, j]:.3g}", 2 * B[i, j])


# ----------------------------------------------------------------------------------------------
@prop("yat.gram_psd", "yat",
      "000 Thm 1 (App C.15); 001 Thm 2.1 (App C.9); 002 Thm A2 (claim yat.mercer_psd): for "
      "eps > 0 every Gram matrix of K is positive semidefinite (Schur product of the "
      "polynomial kernel (w.x)^2 and the inverse multiquadric 1/(||w-x||^2 + eps))",
      "lambda_min(G_hat) >= -(37 (d+4) n u lambda_max + 8 n (d+4) eta): |E_ij| <= B_u <= "
      "(36 (d+4) u + ((d+4) u)^2) lambda_max since |N| P / D and K are <= P^2/eps <= "
      "max(G_ii, G_jj) <= lambda_max; ||E||_2 <= n max|E_ij|; the eigensolver's float64 backward "
      "error (~n u64 lambda_max) and the underflow terms (eta: the dtype's subnormal spacing) are "
      "inside the rest; u of G's dtype")
def yat_gram_psd(gram: Callable[..., Any], X: npt.ArrayLike, eps: float) -> None:
    """The Gram matrix G_ij = K(X_i, X_j) is positive semidefinite up to rounding."""
    spec = yat_gram_psd.spec
    X = np.asarray(X)
    Gr = _call(gram, X, eps)
    G = host64(Gr)
    n, d = X.shape
    spec.check(G.shape == (n, n), f"gram returned shape {G.shape} for {n} points")
    spec.check(bool(np.isfinite(G).all()), lambda: f"G has non-finite entries "
               f"{G[~np.isfinite(G)][:4].tolist()} (X magnitudes up to {np.abs(X).max():.3g}, "
               f"eps = {eps!r})")
    if n == 0:
        return
    dt = getattr(Gr, "dtype", X.dtype)
    c = max(abs(float(G.max())), abs(float(G.min())), 1e-300)
    e = math.frexp(c)[1]
    lam = np.linalg.eigvalsh(np.ldexp((G + G.T) / 2, -e))            # exact power-of-two scaling
    lam = np.ldexp(lam, e)
    u = unit_roundoff(dt)
    eta = SUBNORMAL.get(np.dtype(dt).name, 0.0)
    tol = 37 * (d + 4) * n * u * max(float(lam[-1]), 0.0) + 8 * n * (d + 4) * eta
    spec.check(lam[0] >= -tol, lambda: f"lambda_min(G) = {lam[0]:.6g} with lambda_max = "
               f"{lam[-1]:.6g} (n = {n}, d = {d}, eps = {eps!r}, dtype = {np.dtype(dt).name})", tol)


# ----------------------------------------------------------------------------------------------
def _grad_tolerance(w: npt.NDArray[np.float64], x: npt.NDArray[np.float64], eps: float,
                    dtype: npt.DTypeLike
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """grad.py docstring: each component has error O((d+4) u (cond+8)) relative to the larger
    of its two terms 2|N|/D |w_i| and 2 N^2/D^2 |x_i - w_i| (grad_x; w <-> x for grad_w); the
    constant taken is the kernel bound's 4.  Written as 4 (d+4) u (A + 8|N|) max(2|w_i|/D,
    2|N| |x_i - w_i| / D^2), finite where N = 0 (cond = A/|N|)."""
    _, (N, P, D, _) = kernel_error_bound(w, x, eps)
    d = w.shape[-1]
    u = unit_roundoff(dtype)
    c = 4 * (d + 4) * u * (P + 8 * N)
    tx = c * np.maximum(2 * np.abs(w) / D, 2 * N * np.abs(x - w) / D ** 2)
    tw = c * np.maximum(2 * np.abs(x) / D, 2 * N * np.abs(w - x) / D ** 2)
    return tw, tx


@prop("yat.gradient_fd", "yat",
      "000 Prop 8 and 001 eqs 16-19 (claims yat.grad.*): grad_x K = 2r (w - r (x - w)), "
      "grad_w K = 2r (x - r (w - x)), r = w.x / D; yatmath/yat/grad.py docstring",
      "|g_hat - FD| <= the central difference's own bound (2 |D(2h) - D(h)| for truncation, "
      "2 x 2 B_u / (2h) for the rounding of K, yatmath.testing.properties._core."
      "central_difference) + the gradient's docstring bound 4 (d+4) u (cond + 8) x its larger "
      "term; steps h = 2^-16 sqrt(D), D = ||w - x||^2 + eps (K is analytic within sqrt(D) of x)")
def yat_gradient_fd(grad: Callable[..., Any], product: Callable[..., Any], w: npt.ArrayLike,
                    x: npt.ArrayLike, eps: float, *, step: float = 2.0 ** -16) -> None:
    """The gradients of K with respect to w and x agree with central finite differences of
    ``product`` (everything in float64)."""
    spec = yat_gradient_fd.spec
    w = np.asarray(w, np.float64)
    x = np.asarray(x, np.float64)
    D = float(np.sum((w - x) ** 2) + eps)
    rho = math.sqrt(D)
    out = _call(grad, w, x, eps)
    gw, gx = host64(out[0]).reshape(w.shape), host64(out[1]).reshape(x.shape)
    tw, tx = _grad_tolerance(w, x, eps, np.float64)
    for name, a, g, tg, f in (
            ("x", x, gx, tx, lambda z: host64(_call(product, w, z, eps))),
            ("w", w, gw, tw, lambda z: host64(_call(product, z, x, eps)))):
        h = np.maximum(step * rho, 64 * np.spacing(np.abs(a)))
        if np.any(h > 0.01 * rho):
            raise ValueError(f"the finite-difference check of grad_{name} needs sqrt(D) = "
                             f"{rho:.3g} well above the spacing of {name} (|{name}| up to "
                             f"{np.abs(a).max():.3g}): K varies on a scale float64 cannot step")
        ferr = (lambda z, name=name: float(kernel_error_bound(
            z if name == "w" else w, z if name == "x" else x, eps)[0]))
        fd = central_difference(f, a, h, ferr)
        tol = fd.bound + tg
        err = np.abs(g - fd.value)
        k = worst_outside(err, tol)
        if k is not None:
            spec.fail(f"d K/d {name}[{k[0]}] = {g[k]!r}, central difference {fd.value[k]!r} "
                      f"(|diff| = {err[k]:.3g}, h = {fd.steps[k]:.3g}); w = {w.tolist()}, "
                      f"x = {x.tolist()}, eps = {eps!r}", tol[k])


# ----------------------------------------------------------------------------------------------
@prop("yat.attention_rows_sum_to_one", "yat",
      "000 §2.2 (Y5, yatmath/yat/attention.py docstring): A = softmax (or softermax with "
      "delta = 0) over the allowed keys of s K(q_i, k_j); a row without an allowed key is 0",
      "A_ij >= 0; A_ij = 0 exactly where key j is not allowed; |sum_j A_ij - 1| <= (3 Lk + 8) u "
      "(normalisation: a sum of Lk terms and one division per entry, then the row sum of the "
      "result: 3 Lk + 8 roundings), u of the output dtype")
def yat_attention_rows_sum_to_one(attention: Callable[..., Any], Q: npt.ArrayLike, K: npt.ArrayLike,
                                  eps: float, *, causal: bool = False,
                                  mask: npt.ArrayLike | None = None, **options: Any) -> None:
    """With V = I (Lk x Lk) the output O = A V is the attention matrix itself: its rows are
    probability vectors over the allowed keys (fully masked rows are 0)."""
    spec = yat_attention_rows_sum_to_one.spec
    Q = np.asarray(Q)
    K = np.asarray(K)
    Lq, Lk = Q.shape[-2], K.shape[-2]
    V = np.eye(Lk, dtype=np.result_type(Q.dtype, K.dtype))
    kw = dict(options)
    if mask is not None:
        kw["mask"] = mask
    Or = _call(attention, Q, K, V, eps, causal=causal, **kw)
    A = host64(Or)
    spec.check(A.shape[-2:] == (Lq, Lk), f"attention with V = I returned shape {A.shape}, "
               f"expected (..., {Lq}, {Lk})")
    allowed = np.ones(A.shape, bool)
    if causal:
        allowed &= np.tril(np.ones((Lq, Lk), bool))
    if mask is not None:
        allowed &= np.broadcast_to(np.asarray(mask, bool), A.shape)
    spec.check(bool(np.isfinite(A).all()), "the attention matrix has non-finite entries")
    spec.check(bool((A >= 0).all()), lambda: f"negative weight {A.min()!r}")
    spec.check(not bool(np.any(A[~allowed] != 0)), lambda: "a key that is not allowed (mask / "
               f"causal) has weight {A[~allowed][A[~allowed] != 0][0]!r}", 0.0)
    u = unit_roundoff(getattr(Or, "dtype", A.dtype))
    tol = (3 * Lk + 8) * u
    rows = A.sum(-1)
    want = allowed.any(-1).astype(np.float64)
    err = np.abs(rows - want)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"row {k} sums to {rows[k]!r} (expected {want[k]:g}; Lk = {Lk}, causal = "  # type: ignore[index]
                  f"{causal}, eps = {eps!r})", tol)


# ----------------------------------------------------------------------------------------------
_SQUASH_DOC = ("yatmath/yat/squash.py docstring (Y9; 000 App B, 001 App C, 002 §3.6): "
               "softermax_n(x)_k = x_k^n / (delta + sum_i x_i^n), soft_sigmoid_n(x) = "
               "x^n / (1 + x^n), soft_tanh_n(x) = (x^n - 1)/(x^n + 1)")


def _squash_u(out: Any, x: npt.ArrayLike) -> float:
    return unit_roundoff(getattr(out, "dtype", np.asarray(x).dtype))


def _subnormal(out: Any, x: npt.ArrayLike) -> float:
    """The subnormal spacing of the result's dtype: a result below the smallest normal number
    is exact only to that absolute spacing, whatever its relative accuracy above it."""
    return SUBNORMAL.get(np.dtype(getattr(out, "dtype", np.asarray(x).dtype)).name, 0.0)


@prop("yat.softermax_simplex", "yat", _SQUASH_DOC + "; outputs >= 0 and sum to "
      "S / (delta + S) <= 1 (exactly 1 for delta = 0 unless the slice is all zero: then 0)",
      "per entry relative error 4 (n + 2) u64 (docstring: O((n+2) u)) plus one rounding to the "
      "output dtype, so |sum - expected| <= L (4 (n + 2) u64 + u) + L u (the check's own sum)")
def softermax_simplex(softermax: Callable[..., Any], x: npt.ArrayLike, n: float = 1.0,
                      delta: float = 0.0, axis: int = -1) -> None:
    """softermax's outputs along ``axis`` form a (sub-)probability vector."""
    spec = softermax_simplex.spec
    x = np.asarray(x)
    out = _call(softermax, x, n, delta, axis)
    S = host64(out)
    spec.check(S.shape == x.shape, f"softermax returned shape {S.shape} for x of shape {x.shape}")
    spec.check(bool((S >= 0).all() and (S <= 1).all()),
               lambda: f"an entry outside [0, 1]: {S[(S < 0) | (S > 1)][:3].tolist()}")
    L = x.shape[axis]
    u = _squash_u(out, x)
    tol = L * (4 * (n + 2) * U64 + 2 * u)
    tot = S.sum(axis)
    nonzero = (np.asarray(x, np.float64) > 0).any(axis)
    if delta == 0:
        err = np.abs(tot - nonzero.astype(np.float64))
    else:
        err = np.maximum(tot - 1.0, 0.0)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"slice {k} sums to {tot[k]!r} (n = {n}, delta = {delta}, L = {L})", tol)


@prop("yat.softermax_hard_limit", "yat", _SQUASH_DOC + "; as n -> inf (delta = 0) "
      "softermax_n(x) -> the uniform distribution on argmax x, at rate L rho^n with rho the "
      "largest ratio x_k / max(x) below 1",
      "|softermax_n(x)_k - 1[k in argmax]/m| <= L rho^n + L (4 (n + 2) u64 + 2 u) "
      "(the docstring's relative accuracy on every entry)")
def softermax_hard_limit(softermax: Callable[..., Any], x: npt.ArrayLike,
                         ns: Sequence[float] = (8.0, 64.0, 512.0)) -> None:
    """For a 1-D x >= 0 with a positive maximum, softermax_n(x) approaches the indicator of the
    argmax (normalised) as n grows, at the rate L rho^n."""
    spec = softermax_hard_limit.spec
    x = np.asarray(x)
    x64 = x.astype(np.float64)
    xmax = float(x64.max())
    if not xmax > 0:
        raise ValueError("x needs a positive maximum")
    top = x64 == xmax
    m = int(top.sum())
    rest = x64[~top]
    rho = float((rest / xmax).max()) if rest.size else 0.0
    L = x.size
    target = top / m
    for n in ns:
        out = _call(softermax, x, n, 0.0, -1)
        S = host64(out)
        tol = L * rho ** n + L * (4 * (n + 2) * U64 + 2 * _squash_u(out, x))
        err = np.abs(S - target)
        if not (err <= tol).all():
            k = int(np.argmax(err))
            spec.fail(f"n = {n}: entry {k} = {S[k]!r}, limit {target[k]:g} (rho = {rho:.6g}, "
                      f"m = {m} maxima)", tol)


@prop("yat.soft_sigmoid_range_and_limits", "yat", _SQUASH_DOC + "; sigma_n maps [0, inf) into "
      "[0, 1], sigma_n(0) = 0, sigma_n(1) = 1/2, sigma_n(x) <= x^n (-> 0 as x -> 0), "
      "1 - sigma_n(x) <= x^-n (-> 1 as x -> inf), sigma_n(1/x) = 1 - sigma_n(x), nondecreasing",
      "8 u relative on each value (docstring: 'a few ulps relative everywhere') plus the subnormal "
      "spacing of the dtype (absolute, for results below the normal range); the reflection "
      "adds n u / 4 from rounding 1/x (|d sigma / d ln x| = n sigma (1 - sigma) <= n/4)")
def soft_sigmoid_range_and_limits(soft_sigmoid: Callable[..., Any], x: npt.ArrayLike,
                                  n: float = 1.0) -> None:
    """Range, special points, limits with their rates, reflection and monotonicity."""
    spec = soft_sigmoid_range_and_limits.spec
    x = np.asarray(x)
    out = _call(soft_sigmoid, x, n)
    s = host64(out)
    u = _squash_u(out, x)
    x64 = x.astype(np.float64)
    spec.check(bool(((s >= 0) & (s <= 1)).all()), lambda: f"a value outside [0, 1]: "
               f"{s[(s < 0) | (s > 1)][:3].tolist()}")
    spec.check(bool(np.all(s[x64 == 0] == 0)), "sigma_n(0) != 0", 0.0)
    one = x64 == 1
    spec.check(bool(np.all(np.abs(s[one] - 0.5) <= 8 * u * 0.5)),
               lambda: f"sigma_n(1) = {s[one][0]!r} != 1/2", 8 * u * 0.5)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        upper = x64 ** n                       # x^n by pow (within an ulp; inf / 0 where it
        lower_gap = x64 ** -n                  # leaves float64), and x^-n
    eta = _subnormal(out, x)
    bad = ~(s <= upper * (1 + 8 * u + 2 * U64) + eta)
    if bad.any():
        k = where_worst(np.where(bad, s, -1))
        spec.fail(f"sigma_n({x64[k]!r}) = {s[k]!r} > x^n = {upper[k]!r} (n = {n})", 8 * u)
    gap = 1.0 - s
    bad = ~(gap <= lower_gap * (1 + 2 * U64) + 8 * u)
    if bad.any():
        k = where_worst(np.where(bad, gap, -1))
        spec.fail(f"1 - sigma_n({x64[k]!r}) = {gap[k]!r} > x^-n = {lower_gap[k]!r} (n = {n})",
                  8 * u)
    pos = (x64 > 0) & np.isfinite(1.0 / np.where(x64 > 0, x64, 1.0))
    if pos.any():
        xi = (1.0 / x64[pos]).astype(x.dtype)
        xi_ok = np.isfinite(xi.astype(np.float64)) & (xi.astype(np.float64) > 0)
        r = host64(_call(soft_sigmoid, xi, n))
        err = np.abs(s[pos] + r - 1.0)
        tol = 16 * u + n * u / 4
        bad = xi_ok & ~(err <= tol)
        if bad.any():
            k = int(np.argmax(np.where(bad, err, -1)))
            spec.fail(f"sigma_n(x) + sigma_n(1/x) = {s[pos][k] + r[k]!r} at x = "
                      f"{x64[pos][k]!r} (n = {n})", tol)
    flat_x, flat_s = x64.ravel(), s.ravel()
    order = np.argsort(flat_x, kind="stable")
    drop = flat_s[order][:-1] - flat_s[order][1:]
    tolm = 8 * u * np.maximum(flat_s[order][:-1], flat_s[order][1:])
    if (drop > tolm).any():
        k = int(np.argmax(drop - tolm))
        spec.fail(f"not nondecreasing: sigma_n({flat_x[order][k]!r}) = {flat_s[order][k]!r} > "
                  f"sigma_n({flat_x[order][k + 1]!r}) = {flat_s[order][k + 1]!r}", tolm[k])


@prop("yat.soft_tanh_range_and_limits", "yat", _SQUASH_DOC + "; tau_n = 2 sigma_n - 1 maps "
      "[0, inf) into [-1, 1], tau_n(0) = -1, tau_n(1) = 0, tau_n(1/x) = -tau_n(x), "
      "1 - tau_n(x) <= 2 x^-n and 1 + tau_n(x) <= 2 x^n",
      "8 u relative on tau_n and on sigma_n (docstring: 'a few ulps'): |tau - (2 sigma - 1)| <= "
      "24 u; the reflection adds n u / 2 from rounding 1/x")
def soft_tanh_range_and_limits(soft_tanh: Callable[..., Any], soft_sigmoid: Callable[..., Any],
                               x: npt.ArrayLike, n: float = 1.0) -> None:
    """soft_tanh against its own range, special points, limits and its identity with
    soft_sigmoid."""
    spec = soft_tanh_range_and_limits.spec
    x = np.asarray(x)
    out = _call(soft_tanh, x, n)
    t = host64(out)
    u = _squash_u(out, x)
    x64 = x.astype(np.float64)
    spec.check(bool(((t >= -1) & (t <= 1)).all()), lambda: f"a value outside [-1, 1]: "
               f"{t[(t < -1) | (t > 1)][:3].tolist()}")
    spec.check(bool(np.all(t[x64 == 0] == -1)), "tau_n(0) != -1", 0.0)
    spec.check(bool(np.all(np.abs(t[x64 == 1]) <= 8 * u)), "tau_n(1) != 0", 8 * u)
    s = host64(_call(soft_sigmoid, x, n))
    err = np.abs(t - (2 * s - 1))
    bad = ~(err <= 24 * u)
    if bad.any():
        k = where_worst(np.where(bad, err, -1))
        spec.fail(f"tau_n({x64[k]!r}) = {t[k]!r} but 2 sigma_n - 1 = {2 * s[k] - 1!r} "
                  f"(n = {n})", 24 * u)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        xn, xmn = x64 ** n, x64 ** -n          # pow: within an ulp
    for gap, lim, what in ((1 - t, 2 * xmn, "1 - tau_n(x) <= 2 x^-n"),
                           (1 + t, 2 * xn, "1 + tau_n(x) <= 2 x^n")):
        bad = ~(gap <= lim * (1 + 2 * U64) + 16 * u)
        if bad.any():
            k = where_worst(np.where(bad, gap, -1))
            spec.fail(f"{what} fails at x = {x64[k]!r}: {gap[k]!r} > {lim[k]!r}", 16 * u)
    pos = x64 > 0
    if pos.any():
        xi = (1.0 / x64[pos]).astype(x.dtype)
        ok = np.isfinite(xi.astype(np.float64)) & (xi.astype(np.float64) > 0)
        r = host64(_call(soft_tanh, xi, n))
        err = np.abs(t[pos] + r)
        tol = 16 * u + n * u / 2
        bad = ok & ~(err <= tol)
        if bad.any():
            k = int(np.argmax(np.where(bad, err, -1)))
            spec.fail(f"tau_n(x) + tau_n(1/x) = {t[pos][k] + r[k]!r} at x = {x64[pos][k]!r}", tol)


# ----------------------------------------------------------------------------------------------
@prop("yat.lipschitz_unit_ball", "yat",
      "000 Prop 3 (App C.2) and Prop 4 (claims yat.lipschitz_unit_ball and "
      "yat.perturbation_robustness, both CONFIRMED_LOOSE in the ledger: the triangle-inequality "
      "proof ||grad_x K|| <= 2|s| ||w|| / D + 2 s^2 ||x - w|| / D^2 <= 2/eps + 4/eps^2 re-derived "
      "in proofs_check/checks/yat/lipschitz_unit_ball.py): for ||w|| <= 1 and x, y in the unit "
      "ball, |K(w, x) - K(w, y)| <= (2/eps + 4/eps^2) ||x - y||",
      "(2/eps + 4/eps^2) ||x - y|| (1 + 4 u64) + B_u(w, x) + B_u(w, y) (the two evaluations' own "
      "bounds, kernel.py docstring)")
def yat_lipschitz_unit_ball(product: Callable[..., Any], w: npt.ArrayLike, x: npt.ArrayLike,
                            y: npt.ArrayLike, eps: float, *,
                            dtype: npt.DTypeLike = np.float64) -> None:
    """K(w, .) is (2/eps + 4/eps^2)-Lipschitz on the unit ball when ||w|| <= 1.  ``x`` and ``y``
    may be stacks (m, d) of points compared pairwise."""
    spec = yat_lipschitz_unit_ball.spec
    w = np.asarray(w, dtype)
    x = np.atleast_2d(np.asarray(x, dtype))
    y = np.atleast_2d(np.asarray(y, dtype))
    for nm, a in (("w", w[None]), ("x", x), ("y", y)):
        if np.any(np.linalg.norm(a.astype(np.float64), axis=-1) > 1.0):
            raise ValueError(f"{nm} must lie in the closed unit ball (the property's hypothesis)")
    Kx = host64(_call(product, w, x, eps)).reshape(-1)
    Ky = host64(_call(product, w, y, eps)).reshape(-1)
    L = 2.0 / eps + 4.0 / eps ** 2
    dist = np.linalg.norm(x.astype(np.float64) - y.astype(np.float64), axis=-1)
    Bx, _ = kernel_error_bound(w.astype(np.float64), x.astype(np.float64), eps, dtype)
    By, _ = kernel_error_bound(w.astype(np.float64), y.astype(np.float64), eps, dtype)
    tol = L * dist * (1 + 4 * U64) + Bx + By
    diff = np.abs(Kx - Ky)
    bad = ~(diff <= tol)
    if bad.any():
        k = int(np.argmax(np.where(bad, diff - tol, -np.inf)))
        spec.fail(f"|K(w,x) - K(w,y)| = {diff[k]:.6g} with ||x - y|| = {dist[k]:.3g}, L = "
                  f"{L:.6g} (ratio {diff[k] / max(dist[k], 1e-300):.6g}); w = {w.tolist()}, "
                  f"x = {x[k].tolist()}, y = {y[k].tolist()}, eps = {eps!r}", tol[k])


# ----------------------------------------------------------------------------------------------
def gaussian_init_bounds(d: npt.ArrayLike, sigma: float,
                         eps: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(L_d, U_d): E[K(w, x)] for w, x independent with i.i.d. N(0, sigma^2) coordinates lies in
    [L_d, U_d] (d >= 3), with

        L_d = (sigma^2 / 2) d / (d + 2 + eps / (2 sigma^2)),   U_d = (sigma^2 / 2) d / (d - 2),

    both -> sigma^2 / 2 as d -> inf.  Derivation: a = (w + x)/sqrt2 and b = (w - x)/sqrt2 are
    independent N(0, sigma^2 I), w.x = (|a|^2 - |b|^2)/2 and ||w - x||^2 = 2 |b|^2, so
    K = sigma^4 (A - B)^2 / (4 (2 sigma^2 B + eps)) with A, B i.i.d. chi2_d, and
    E[K | B] = sigma^4 q(B) / (4 (2 sigma^2 B + eps)), q(B) = 2d + (d - B)^2 (Var A = 2d).
    Upper: drop eps; E[1/B] = 1/(d-2) and E[(d - B)^2 / B] = d^2/(d-2) - d give
    E[q(B)/B] = 4d/(d-2).  Lower: Cauchy-Schwarz, E[q/Y] >= (E q)^2 / E[q Y] with Y = 2 sigma^2 B
    + eps, E q = 4d and E[q Y] = 8 sigma^2 d (d+2) + 4 d eps (chi2 moments E B^2 = d(d+2),
    E B^3 = d(d+2)(d+4)).
    """
    d = np.asarray(d, np.float64)
    if np.any(d < 3):
        raise ValueError("the bounds need d >= 3 (E[1/B] is infinite for chi2_d, d <= 2)")
    s2 = float(sigma) ** 2
    return 0.5 * s2 * d / (d + 2 + eps / (2 * s2)), 0.5 * s2 * d / (d - 2)


@prop("yat.dim_scaling", "yat",
      "000 Cor 2 (App C.9, 'e.g. Gaussian initialization', variance constant in d) and 001 Cor "
      "C.7 (claim yat.dim_scaling): for w, x independent with i.i.d. zero-mean coordinates of "
      "variance sigma^2 and a fixed eps, E[K(w, x)] = O(1) as d -> inf.  Gaussian reading, with "
      "the two-sided bounds L_d <= E[K] <= U_d of gaussian_init_bounds (derived there: both "
      "-> sigma^2/2, so E[K] neither grows nor vanishes with d)",
      "for every d: mean_R(K) + h_d >= L_d and mean_R(K) - h_d <= U_d, h_d the half-width of "
      "the t-test of estimator.unbiased at level alpha over the m dims (Chebyshev's sqrt(m/alpha) "
      "where Cochran's rule R >= 25 g1^2 fails) plus the rounding mean_R B_u(w, x) + gamma_R "
      "mean|K|: failure probability <= alpha under the property (asymptotically in R), seeded "
      "(deterministic for a fixed seed)")
def yat_dim_scaling(product: Callable[..., Any], sigma: float = 1.0, eps: float = 1.0, *,
                    dims: Sequence[int] = (4, 16, 64, 256, 1024), samples: int = 2000,
                    seed: int = 0, alpha: float = 1e-6, dtype: npt.DTypeLike = np.float64) -> None:
    """Monte Carlo of E[K(w, x)] under the papers' initialisation (i.i.d. N(0, sigma^2)
    coordinates for both w and x, variance fixed in d) across the dimensions ``dims``: the mean
    stays within the d-independent bounds of :func:`gaussian_init_bounds`.  ``samples`` pairs
    per dimension, drawn from ``numpy.random.default_rng(seed)``."""
    spec = yat_dim_scaling.spec
    dims = [int(d) for d in dims]
    lo, hi = gaussian_init_bounds(dims, sigma, eps)
    rng = np.random.default_rng(seed)
    cols, rnd = [], []
    for d in dims:
        w = (rng.standard_normal((samples, d)) * sigma).astype(dtype)
        x = (rng.standard_normal((samples, d)) * sigma).astype(dtype)
        Kr = _call(product, w, x, eps)
        K = host64(Kr).reshape(-1)
        spec.check(K.shape == (samples,), f"product returned {K.shape} values for {samples} "
                   f"pairs in d = {d}")
        B, _ = kernel_error_bound(w.astype(np.float64), x.astype(np.float64), eps,
                                  getattr(Kr, "dtype", dtype))
        cols.append(K)
        rnd.append(float(B.mean()) + (samples + 2) * U64 * float(np.abs(K).mean()))
    S = np.stack(cols, axis=1)
    _, half, mean, sd, quant = mean_test(S, np.zeros(len(dims)), alpha, rounding=np.array(rnd))
    for k, d in enumerate(dims):
        if not (mean[k] + half[k] >= lo[k] and mean[k] - half[k] <= hi[k]):
            side = "below L_d" if mean[k] + half[k] < lo[k] else "above U_d"
            spec.fail(f"d = {d}: mean of {samples} K values = {mean[k]:.6g} is {side}: bounds "
                      f"[{lo[k]:.6g}, {hi[k]:.6g}] (sigma = {sigma}, eps = {eps}, sd = "
                      f"{sd[k]:.3g}, quantile {quant[k]:.2f}, alpha = {alpha:g} over {len(dims)} "
                      f"dims, seed = {seed})", half[k])


# ----------------------------------------------------------------------------------------------
#: the automatic-differentiation libraries yat_gradient_autodiff can use, in order of preference
AUTODIFF_LIBRARIES = ("jax", "torch")


def autodiff_libraries() -> list[str]:
    """The libraries of :data:`AUTODIFF_LIBRARIES` installed here."""
    return [lib for lib in AUTODIFF_LIBRARIES if importlib.util.find_spec(lib) is not None]


@contextlib.contextmanager
def jax_float64() -> Iterator[Any]:
    """JAX with float64 switched on (``jax_enable_x64``; JAX computes in float32 otherwise)
    inside the block and restored after; yields the ``jax`` module, or None (and does nothing)
    where JAX is not installed."""
    if importlib.util.find_spec("jax") is None:
        yield None
        return
    import jax

    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield jax
    finally:
        jax.config.update("jax_enable_x64", old)


def _autodiff_grad(library: str, w: npt.NDArray[np.float64], x: npt.NDArray[np.float64], eps: float
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(dK/dw, dK/dx) of the direct formula K = N * N / D (N = w.x, D = sum (w - x)^2 + eps) by
    reverse-mode automatic differentiation in float64 (JAX with x64 switched on for the call,
    or PyTorch)."""
    if library == "jax":
        with jax_float64() as jax:
            import jax.numpy as jnp

            def kern(a: Any, b: Any) -> Any:
                N = jnp.sum(a * b)
                diff = a - b
                return N * N / (jnp.sum(diff * diff) + eps)

            gw, gx = jax.grad(kern, argnums=(0, 1))(jnp.asarray(w, jnp.float64),
                                                     jnp.asarray(x, jnp.float64))
            return np.asarray(gw, np.float64), np.asarray(gx, np.float64)
    if library == "torch":
        import torch

        a = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        b = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        N = torch.sum(a * b)
        diff = a - b
        (N * N / (torch.sum(diff * diff) + eps)).backward()
        return a.grad.numpy().astype(np.float64), b.grad.numpy().astype(np.float64)
    raise ValueError(f"library must be one of {AUTODIFF_LIBRARIES}, got {library!r}")


@prop("yat.gradient_autodiff", "yat",
      "000 Prop 8 and 001 eqs 16-19 (claims yat.grad.*): grad_x K = 2r (w - r (x - w)), "
      "grad_w K = 2r (x - r (w - x)), r = w.x / D; yatmath/yat/grad.py docstring -- against "
      "reverse-mode automatic differentiation (JAX or PyTorch, float64) of K = N^2 / D",
      "|g_hat - g_autodiff| <= 2 x 4 (d+4) u64 (cond + 8) x the larger of the component's two "
      "terms 2|N| |w_i| / D and 2 N^2 |x_i - w_i| / D^2 (grad.py docstring's bound, met by both "
      "evaluations: autodiff forms the same two terms from float64 N and D with at most "
      "2 cond gamma_d + 2 gamma_{d+2} + 6u relative error)")
def yat_gradient_autodiff(grad: Callable[..., Any], w: npt.ArrayLike, x: npt.ArrayLike,
                          eps: float, *, library: str | None = None) -> None:
    """The closed-form gradients agree with automatic differentiation of the kernel.  ``library``
    ("jax" or "torch"; default the first of :func:`autodiff_libraries`); ImportError where none
    is installed."""
    spec = yat_gradient_autodiff.spec
    if library is None:
        libs = autodiff_libraries()
        if not libs:
            raise ImportError("yat.gradient_autodiff needs JAX or PyTorch (neither is installed)")
        library = libs[0]
    w = np.asarray(w, np.float64)
    x = np.asarray(x, np.float64)
    if w.ndim != 1 or w.shape != x.shape:
        raise ValueError(f"w and x must be 1-D of one length, got {w.shape} and {x.shape}")
    N = float(w @ x)
    if not math.isfinite(N * N):
        raise ValueError("(w.x)^2 overflows float64: automatic differentiation of N^2/D cannot "
                         "serve as the reference there")
    out = _call(grad, w, x, eps)
    gw, gx = host64(out[0]).reshape(w.shape), host64(out[1]).reshape(x.shape)
    aw, ax = _autodiff_grad(library, w, x, eps)
    tw, tx = _grad_tolerance(w, x, eps, np.float64)
    for name, g, a, t in (("w", gw, aw, 2 * tw), ("x", gx, ax, 2 * tx)):
        err = np.abs(g - a)
        k = worst_outside(err, t)
        if k is not None:
            spec.fail(f"d K/d {name}[{k[0]}] = {g[k]!r}, {library} autodiff {a[k]!r} (|diff| = "
                      f"{err[k]:.3g}); w = {w.tolist()}, x = {x.tolist()}, eps = {eps!r}", t[k])
