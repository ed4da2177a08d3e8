"""Helpers shared by the yat bound / limit / gradient / Lipschitz checks.

Reference quantities come from ``yatmath.yat.product`` and ``yatmath.yat.grad`` (float64 NumPy
reference; the Y2 closed-form gradients) and from sympy.  Notation (claims.md):
K(w,x) = (w.x)^2/(||w-x||^2+eps), s = w.x, D = ||w-x||^2+eps, a = ||w||.
"""
from __future__ import annotations

import functools

import numpy as np
import sympy as sp
from scipy.optimize import minimize

import yatmath.yat as yat
from yatmath.yat.grad import grad as yat_grad

#: float64 evaluation of K and its gradient: a few ulp per operation over O(d) operations; a
#: claimed bound is compared with measured sups at this relative precision.
F64_RTOL = 1e-9

def K(w, x, eps):
    """K(w, x) from the float64 reference (broadcasting over leading axes)."""
    return np.asarray(yat.product(w, x, eps, backend="numpy"))


def grad_x(w, x, eps):
    """grad_x K(w, x) (Y2 closed form, ``yatmath.yat.grad``), leading axes broadcast."""
    return np.asarray(yat_grad(w, x, eps).x)


def grad_w(w, x, eps):
    """grad_w K(w, x) (Y2 closed form, ``yatmath.yat.grad``)."""
    return np.asarray(yat_grad(w, x, eps).w)


def sym_K(wv, xv, eps):
    return (wv.dot(xv)) ** 2 / ((wv - xv).dot(wv - xv) + eps)


@functools.lru_cache(maxsize=None)
def sym_vectors(d):
    w = sp.Matrix(sp.symbols(f"w1:{d + 1}", real=True))
    x = sp.Matrix(sp.symbols(f"x1:{d + 1}", real=True))
    eps = sp.symbols("epsilon", positive=True)
    return w, x, eps


@functools.lru_cache(maxsize=None)
def hessian_x_3d():
    """Exact Hessian of x -> K(w, x) in d = 3 (sympy, lambdified to numpy)."""
    w, x, eps = sym_vectors(3)
    H = sp.hessian(sym_K(w, x, eps), list(x))
    return sp.lambdify((*w, *x, eps), H, "numpy")


def _ray_starts(rng, w, k):
    """Starting points for maximising K(w, .): points on the ray through w and random points."""
    a = np.linalg.norm(w)
    d = len(w)
    ks = np.exp(rng.uniform(np.log(0.2), np.log(2000.0), k // 2))
    ray = ks[:, None] * w[None, :] + 0.05 * a * rng.normal(size=(k // 2, d))
    rand = a * rng.normal(size=(k - k // 2, d)) * np.exp(rng.uniform(-1, 3, (k - k // 2, 1)))
    return np.vstack([ray, rand])


def sup_K_over_x(w, eps, rng, starts):
    """Multi-start BFGS of K(w, x) over x in R^d, objective scaled by eps/||w||^4.

    Returns (sup found, maximiser, number of starts).  Gradient: ``yatmath.yat.grad``.
    """
    scale = eps / np.linalg.norm(w) ** 4
    fj = lambda x: (-float(K(w, x, eps)) * scale, -grad_x(w, x, eps) * scale)  # noqa: E731
    best, xbest = -np.inf, None
    X0 = _ray_starts(rng, w, starts)
    for x0 in X0:
        res = minimize(fj, x0, jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 300})
        v = float(K(w, res.x, eps))
        if v > best:
            best, xbest = v, res.x
    return best, xbest, len(X0)


def claimed_L(eps):
    return 2 / eps + 4 / eps ** 2


def polar_wx(z, d=2):
    """(r_w, r_x, beta) -> w = (r_w, 0, ...), x = r_x (cos beta, sin beta, 0, ...)."""
    z = np.atleast_2d(z)
    w = np.zeros((len(z), d))
    x = np.zeros((len(z), d))
    w[:, 0] = z[:, 0]
    x[:, 0] = z[:, 1] * np.cos(z[:, 2])
    x[:, 1] = z[:, 1] * np.sin(z[:, 2])
    return w, x


def batched_fd(fun, z, h):
    """f(z) and its central-difference gradient from one batched call of ``fun`` (rows)."""
    n = len(z)
    Z = np.vstack([z, z + h * np.eye(n), z - h * np.eye(n)])
    f = fun(Z)
    return f[0], (f[1:n + 1] - f[n + 1:]) / (2 * h)


def multistart_box(fun, starts, bounds, *, periodic=(), h=1e-7):
    """Maximise ``fun`` (batched over rows) over a box from every start; returns (value, z).

    Bounded coordinates are mapped z = lo + (hi - lo) sin^2(u) and ``periodic`` ones are left free,
    so an unconstrained BFGS runs on u (SciPy's L-BFGS-B costs ~2 ms per iteration here, BFGS
    ~0.1 ms); the gradient is a central difference of one batched call of ``fun``.
    """
    lo = np.array([b[0] for b in bounds], float)
    hi = np.array([b[1] for b in bounds], float)
    per = np.zeros(len(bounds), bool)
    per[list(periodic)] = True

    def to_z(U):
        U = np.atleast_2d(U)
        return np.where(per, U, lo + (hi - lo) * np.sin(U) ** 2)

    def to_u(z):
        frac = np.clip((z - lo) / (hi - lo), 0.0, 1.0)
        return np.where(per, z, np.arcsin(np.sqrt(frac)))

    g = lambda U: fun(to_z(U))  # noqa: E731

    def obj(u):
        f, gr = batched_fd(g, u, h)
        return -f, -gr

    best, zbest = -np.inf, None
    for z0 in starts:
        res = minimize(obj, to_u(np.asarray(z0, float)), jac=True, method="BFGS",
                       options={"maxiter": 300, "gtol": 1e-10})
        z = to_z(res.x)[0]
        v = float(fun(z[None, :])[0])
        if v > best:
            best, zbest = v, z
    return best, zbest


def screened_starts(fun, candidates, n):
    """The ``n`` best rows of ``candidates`` under ``fun`` (one batched evaluation)."""
    vals = fun(candidates)
    return candidates[np.argsort(-vals)[:n]]


def unit_ball_starts(rng, n, eps):
    """Starts (r_w, r_x, beta): half near x = w at offsets ~ sqrt(eps), half uniform."""
    k = n // 2
    near = np.column_stack([rng.uniform(0.8, 1.0, k), rng.uniform(0.8, 1.0, k),
                            rng.choice([-1, 1], k) * np.sqrt(eps) * np.exp(rng.uniform(-2, 1, k))])
    far = np.column_stack([rng.uniform(0, 1, n - k), rng.uniform(0, 1, n - k), rng.uniform(-np.pi, np.pi, n - k)])
    return np.vstack([near, far])


def sup_gradnorm_unit_ball(eps, rng, n_starts):
    """sup ||grad_x K(w,x)|| over ||w|| <= 1, ||x|| <= 1 (d = 2 by rotation invariance)."""
    L = claimed_L(eps)
    f = lambda Z: np.linalg.norm(grad_x(*polar_wx(Z), eps), axis=1) / L  # noqa: E731
    bounds = [(0.0, 1.0), (0.0, 1.0), (-np.pi, np.pi)]
    starts = np.vstack([screened_starts(f, unit_ball_starts(rng, 4000, eps), n_starts // 2),
                        unit_ball_starts(rng, n_starts - n_starts // 2, eps)])
    best, z = multistart_box(f, starts, bounds, periodic=(2,))
    best *= L
    # the scan along x = (1 - delta) w, ||w|| = 1
    delta = np.concatenate([[0.0], np.logspace(-8, 0, 2000)])
    gscan = np.linalg.norm(grad_x(np.array([1.0, 0.0]), (1 - delta)[:, None] * np.array([1.0, 0.0]), eps), axis=1)
    return best, z, float(gscan.max()), float(delta[int(np.argmax(gscan))])


def sup_hessnorm_unit_ball(eps, rng, n_starts):
    """sup of the spectral norm of the Hessian of x -> K(w,x) over both unit balls (d = 3)."""
    H = hessian_x_3d()

    def f(Z):
        w, x = polar_wx(Z, d=3)
        Hs = np.array(H(*w.T, *x.T, eps), dtype=float)  # (3, 3, n) or (3, 3)
        if Hs.ndim == 2:
            Hs = Hs[:, :, None]
        Hs = np.broadcast_to(Hs, (3, 3, len(Z))) if Hs.shape[-1] != len(Z) else Hs
        return np.abs(np.linalg.eigvalsh(np.moveaxis(Hs, -1, 0))).max(axis=1) * eps ** 2

    bounds = [(0.0, 1.0), (0.0, 1.0), (-np.pi, np.pi)]
    starts = np.vstack([screened_starts(f, unit_ball_starts(rng, 2000, eps), n_starts // 2),
                        unit_ball_starts(rng, n_starts - n_starts // 2, eps)])
    best, z = multistart_box(f, starts, bounds, periodic=(2,))
    return best / eps ** 2, z




# ---- gradients along rays (decay_input, outlier_weight_updates)

def sympy_ray_gradients():
    """Limits of k * grad_x K(w, k u) and grad_w K(w, k u), with u = e1 (rotation invariance)."""
    w1, w2 = sp.symbols("w1 w2", real=True)
    eps, k = sp.symbols("epsilon k", positive=True)
    w = sp.Matrix([w1, w2])
    xs = sp.Matrix(sp.symbols("x1 x2", real=True))
    Ks = sym_K(w, xs, eps)
    gx = sp.Matrix([sp.diff(Ks, v) for v in xs]).subs({xs[0]: k, xs[1]: 0})
    gw = sp.Matrix([sp.diff(Ks, v) for v in w]).subs({xs[0]: k, xs[1]: 0})
    lim_kgx = [sp.limit(k * g, k, sp.oo) for g in gx]
    lim_gx = [sp.limit(g, k, sp.oo) for g in gx]
    lim_gw = [sp.limit(g, k, sp.oo) for g in gw]
    return lim_gx, lim_kgx, lim_gw, (w1, w2)



# ---- printed gradient formulas and finite differences (formula_x, formula_w)

def printed_grad_x_form1(w, x, eps):
    """000 Thm 5 / App C.1: (2s/D)(w - s(x - w)/D)."""
    s = np.sum(w * x, -1)[..., None]
    D = np.sum((w - x) ** 2, -1)[..., None] + eps
    return (2 * s / D) * (w - s * (x - w) / D)


def printed_grad_x_form2(w, x, eps):
    """000 Prop 8 eq.8 / 001 eq.18: [2s(|w|^2+|x|^2+eps-s)/D^2] w - (2s^2/D^2) x."""
    s = np.sum(w * x, -1)[..., None]
    D = np.sum((w - x) ** 2, -1)[..., None] + eps
    n2 = np.sum(w * w, -1)[..., None] + np.sum(x * x, -1)[..., None]
    return 2 * s * (n2 + eps - s) / D ** 2 * w - 2 * s ** 2 / D ** 2 * x


def printed_grad_w_prop12(w, x, eps):
    """000 Prop 12 (App E.4) as printed: (2s/D)(x + s(w - x)/D)."""
    s = np.sum(w * x, -1)[..., None]
    D = np.sum((w - x) ** 2, -1)[..., None] + eps
    return (2 * s / D) * (x + s * (w - x) / D)


def printed_grad_w_eq9(w, x, eps, variant="printed"):
    """000 Prop 8 eq.9: [2s(|w|^2+|x|^2+eps-s)]/X - (2s^2/D^2) w.

    variant "printed": the denominator X read as the vector x (elementwise division);
    "D2_for_X": D^2 in place of X (a scalar first term, broadcast over the components);
    "D2_times_x": the typo-corrected [2s(...)/D^2] x (equal to 001 eq.19; not part of the verdict).
    """
    s = np.sum(w * x, -1)[..., None]
    D = np.sum((w - x) ** 2, -1)[..., None] + eps
    n2 = np.sum(w * w, -1)[..., None] + np.sum(x * x, -1)[..., None]
    top = 2 * s * (n2 + eps - s)
    if variant == "printed":
        first = top / x
    elif variant == "D2_for_X":
        first = top / D ** 2 * np.ones_like(x)
    elif variant == "D2_times_x":
        first = top / D ** 2 * x
    else:
        raise ValueError(f"variant must be 'printed', 'D2_for_X' or 'D2_times_x', got {variant!r}")
    return first - 2 * s ** 2 / D ** 2 * w


def printed_grad_w_eq19(w, x, eps):
    """001 eq.19: [2s(|w|^2+|x|^2+eps-s)/D^2] x - (2s^2/D^2) w."""
    return printed_grad_x_form2(x, w, eps)


def fd_grad(w, x, eps, wrt, h):
    """Central finite differences of ``yatmath.yat.product`` (error O(h^2 K''') + O(u K/h))."""
    d = w.shape[-1]
    g = np.zeros(np.broadcast_shapes(w.shape, x.shape))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        if wrt == "x":
            g[..., j] = (K(w, x + e, eps) - K(w, x - e, eps)) / (2 * h)
        else:
            g[..., j] = (K(w + e, x, eps) - K(w - e, x, eps)) / (2 * h)
    return g


def random_pairs(rng, m, d):
    w = rng.normal(size=(m, d)) * np.exp(rng.uniform(-1, 1, (m, 1)))
    x = rng.normal(size=(m, d)) * np.exp(rng.uniform(-1, 1, (m, 1)))
    close = rng.random(m) < 0.2
    x[close] = w[close] + 0.1 * rng.normal(size=(close.sum(), d))
    return w, x


FD_EPS = (0.1, 1.0, 10.0)


def fd_compare(formula, rng, m, dims, wrt):
    """Median/max relative error of ``formula`` against central differences over random pairs.

    ``m`` pairs per dimension, split evenly over eps in ``FD_EPS``; the error of pair i is
    ||g_formula - g_fd|| / (||g_fd|| + 1e-3 K) (the K term guards near-orthogonal pairs whose
    gradient is ~0).
    """
    out, worst = {}, None
    for d in dims:
        errs_d = []
        for eps in FD_EPS:
            w, x = random_pairs(rng, m // len(FD_EPS), d)
            with np.errstate(divide="ignore", invalid="ignore"):
                gf = formula(w, x, eps)
            gd = fd_grad(w, x, eps, wrt, 1e-5)
            scale = np.linalg.norm(gd, axis=1) + 1e-3 * np.abs(K(w, x, eps))
            err = np.linalg.norm(gf - gd, axis=1) / np.maximum(scale, 1e-300)
            err = np.where(np.isfinite(err), err, np.inf)
            errs_d.append(err)
            i = int(np.argmax(err))
            if worst is None or err[i] > worst["rel_err"]:
                worst = {"w": w[i].tolist(), "x": x[i].tolist(), "eps": eps, "rel_err": float(err[i]),
                         "formula": np.asarray(gf[i]).tolist(), "finite_difference": gd[i].tolist()}
        e = np.concatenate(errs_d)
        out[f"d={d}"] = {"median_rel_err": float(np.median(e)), "max_rel_err": float(e.max())}
    return out, worst


#: central differences with h = 1e-5 on inputs of norm ~0.4..3 and eps in [0.1, 10]: truncation
#: h^2 K'''/6 ~ 1e-10 relative, rounding u K / h ~ 1e-11 relative; a wrong formula errs by O(1).
FD_TOL = 1e-5


def sym_residual(expr_vec, d=3, wrt="x"):
    w, x, eps = sym_vectors(d)
    Ks = sym_K(w, x, eps)
    var = x if wrt == "x" else w
    true = sp.Matrix([sp.diff(Ks, v) for v in var])
    return [sp.simplify(sp.together(a - b)) for a, b in zip(expr_vec(w, x, eps), true)]


def sym_identity_test(expr_vec, wrt, rng, points=3):
    """Exact test of a printed gradient against diff(K) in d = 3.

    Evaluates the difference at ``points`` random rational points exactly (a nonzero rational
    function vanishes there with probability 0: Schwartz-Zippel); only if all vanish is the
    difference also simplified symbolically.  Returns (identically zero?, max |residual| seen).
    """
    w, x, eps = sym_vectors(3)
    Ks = sym_K(w, x, eps)
    var = x if wrt == "x" else w
    diff = [a - sp.diff(Ks, v) for a, v in zip(expr_vec(w, x, eps), var)]
    syms = list(w) + list(x) + [eps]
    worst = sp.Integer(0)
    for _ in range(points):
        vals = {sym: sp.Rational(int(rng.integers(-40, 41)), int(rng.integers(1, 13))) for sym in syms}
        vals[eps] = sp.Rational(int(rng.integers(1, 50)), int(rng.integers(1, 13)))
        for dd in diff:
            r = abs(dd.subs(vals))
            worst = max(worst, r)
    if worst != 0:
        return False, float(worst)
    return all(sp.simplify(sp.together(dd)) == 0 for dd in diff), 0.0


def sym_s_D(w, x, eps):
    s = w.dot(x)
    D = (w - x).dot(w - x) + eps
    n2 = w.dot(w) + x.dot(x)
    return s, D, n2



# ---- Lipschitz-constant verdicts (lipschitz_unit_ball, perturbation_robustness, lipschitz_global_001)

#: relative precision of an adversarial sup found by BFGS with central-difference gradients
#: (h = 1e-7, gtol 1e-10): the objective at the optimum is resolved to ~1e-6 relative.
SEARCH_RTOL = 1e-6


def lipschitz_verdict(max_ratio, *, proof_holds):
    """Verdict for a claimed Lipschitz constant L from ``max_ratio`` = (largest sup found) / L.

    REFUTED when the search exceeds L beyond the search precision; otherwise the bound holds
    (``proof_holds``: the paper's triangle-inequality argument re-derived) and is CONFIRMED when
    the sup reaches L within the precision, CONFIRMED_LOOSE when it stays below it.
    """
    from proofs_check import verdicts as V

    if max_ratio > 1 + SEARCH_RTOL:
        return V.REFUTED
    if not proof_holds:
        return V.INCONCLUSIVE
    return V.CONFIRMED if max_ratio >= 1 - SEARCH_RTOL else V.CONFIRMED_LOOSE
