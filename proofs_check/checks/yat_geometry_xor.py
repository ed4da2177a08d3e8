"""Checks for claims.md A7 (topology, decision geometry) and A8 (XOR, superposition, landscape).

The Yat kernel and its gradients are always evaluated with ``yatmath.yat.product`` /
``yatmath.yat.grad`` (float64 NumPy reference); sympy is used for exact values, degrees and
symbolic differences.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import optimize

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, register

_BK = "numpy"
XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR_Y = np.array([0, 1, 1, 0])


def _K(w, x, eps):
    return Y.product(w, x, eps, backend=_BK)


def _sym_K(w, x, eps):
    """The Yat kernel as a sympy expression (for exact values / symbolic identities)."""
    s = sum(a * b for a, b in zip(w, x))
    D = sum((a - b) ** 2 for a, b in zip(w, x)) + eps
    return s ** 2 / D


# --------------------------------------------------------------------------------------------
# A7  yat.topology.thm14
# --------------------------------------------------------------------------------------------
@register("yat.topology.thm14",
          method="constructive examples (ReLU collision, sigmoid/tanh saturation ratios, "
                 "injective-W round trip) and a grid search for the smallest z from which "
                 "|phi(z1)-phi(z2)| <= exp(-min z)|z1-z2| holds, for sigmoid and tanh")
def check_topology_thm14(ctx):
    sig = lambda z: 0.5 * (1 + np.tanh(z / 2))
    # (1) ReLU: W x + b <= 0 at two distinct points -> same image 0
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b = np.array([-1.0, -1.0, -1.0])
    x1, x2 = np.array([0.0, 0.0]), np.array([-1.0, -2.0])
    T = lambda x: np.maximum(W @ x + b, 0.0)
    p1 = V.holds(np.array_equal(T(x1), T(x2)) and not np.array_equal(x1, x2))
    # (2) saturation: the difference quotient -> 0 (no lower Lipschitz bound)
    zs = np.array([5.0, 10.0, 20.0, 30.0])
    q_sig = [float((sig(z + 1) - sig(z))) for z in zs]
    q_tanh = [float(np.tanh(z + 1) - np.tanh(z)) for z in zs]
    bilip_fails = q_sig[-1] < 1e-10 and q_tanh[-1] < 1e-20
    # the printed inequality on a grid: for each z0 check all pairs with min(z1,z2) >= z0
    g = np.linspace(-6, 12, ctx.pick(721, 3601))
    z1, z2 = np.meshgrid(g, g, indexing="ij")
    mask = z2 > z1
    thr = {}
    margins = {}
    for name, f in (("sigmoid", sig), ("tanh", np.tanh)):
        with np.errstate(over="ignore"):
            lhs = np.abs(f(z2) - f(z1))
            rhs = np.exp(-np.minimum(z1, z2)) * np.abs(z2 - z1)
        bad = mask & (lhs > rhs * (1 + 1e-12))
        worst_min = np.where(bad, np.minimum(z1, z2), -np.inf).max()
        thr[name] = None if not np.isfinite(worst_min) else float(worst_min)
        with np.errstate(divide="ignore", invalid="ignore"):
            margins[name] = float(np.nanmax(np.where(mask, lhs / rhs, np.nan)))
    # (2) "for large z" holds iff a finite threshold exists on the grid (tanh: root of
    # u^3 - 3u^2 - u - 1 = 0 with u = e^z, z ~ 1.218; sigmoid: everywhere since sigma' <= e^-z)
    u = sp.symbols("u", positive=True)
    tanh_root = float(sp.log(sp.nsolve(u ** 3 - 3 * u ** 2 - u - 1, u, 3.4)))
    p2 = V.holds(bilip_fails and all(t is None or t < g[-1] - 1 for t in thr.values()))
    # (3) sigmoid/tanh with injective W is a homeomorphism onto its image: continuous inverse
    rng = ctx.rng("homeo")
    Wi = rng.standard_normal((4, 2))
    bi = rng.standard_normal(4)
    X = rng.uniform(-2, 2, (200, 2))
    Z = np.tanh(X @ Wi.T + bi)
    Xr = np.linalg.lstsq(Wi, (np.arctanh(Z) - bi).T, rcond=None)[0].T
    rt_err = float(np.abs(Xr - X).max())
    p3 = V.holds(p1 == V.CONFIRMED and rt_err < 1e-8)
    parts = {
        "(1)_relu_not_injective": Evidence(verdict=p1, numbers={"W": W.tolist(), "b": b.tolist(),
                                                                "x1": x1.tolist(), "x2": x2.tolist(),
                                                                "T_x1": T(x1).tolist()}),
        "(2)_sigmoid_tanh_not_bilipschitz": Evidence(
            verdict=p2, numbers={"z": zs.tolist(), "sigmoid_dq": q_sig, "tanh_dq": q_tanh,
                                 "last_failing_min_z_sigmoid": thr["sigmoid"],
                                 "last_failing_min_z_tanh": thr["tanh"],
                                 "tanh_threshold_exact": tanh_root,
                                 "max_ratio_lhs_over_rhs": margins},
            notes="sigmoid: sigma'(z) = e^-z/(1+e^-z)^2 <= e^-z, so the printed inequality holds for "
                  "every z (no failing grid point).  tanh ('similarly'): it fails for "
                  "0 < min z < ln u* = 1.218 and holds beyond."),
        "(3)_homeomorphism": Evidence(verdict=p3, numbers={"tanh_roundtrip_max_err": rt_err}),
        "remark3": Evidence(verdict=V.NOT_CHECKABLE,
                            notes="Remark 3 is informal (no probabilistic model is specified)."),
    }
    return Evidence(
        verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
        numbers={"tanh_threshold": tanh_root, "sigmoid_threshold": thr["sigmoid"],
                 "tanh_last_failing_grid_z": thr["tanh"], "relu_collision": T(x1).tolist(),
                 "tanh_roundtrip_err": rt_err},
        repro="import numpy as np; z=0.5; print(1/np.cosh(z)**2, np.exp(-z))",
        parts=parts)


# --------------------------------------------------------------------------------------------
# A7  yat.topology.no_collapse
# --------------------------------------------------------------------------------------------
def _phi(W, x, eps):
    return _K(W, x, eps)


def _jac_x(W, x, eps):
    return Y.grad(W, x, eps).x


@register("yat.topology.no_collapse",
          method="x -> (K(w_i,x))_i for n<d, n=d, n>d: exact collisions (zero subspace; the line "
                 "{w_1.x=...=w_{d-1}.x=0}), multi-start search for collisions, Jacobian ranks at "
                 "random points and on zero sets, vs ReLU(Wx)")
def check_no_collapse(ctx):
    rng = ctx.rng("maps")
    eps = 1.0
    d = 3
    out = {}
    # n < d: the null space of W is mapped to 0 (dimension d - n)
    Wl = rng.standard_normal((2, d))
    ns = np.linalg.svd(Wl)[2][-1]
    coll_small = [float(np.abs(_phi(Wl, t * ns, eps)).max()) for t in (0.0, 1.0, 5.0)]
    out["n<d_zero_set_dim"] = d - np.linalg.matrix_rank(Wl)
    # n = d: on the line v ⊥ w_1..w_{d-1}, phi = (0,..,0, g(t)); g(0)=0, g(+-inf) = (w_d.v)^2 and
    # g is continuous, so every value between 0 and min(g(t>0 max), g(t<0 max)) is taken twice
    Ws = rng.standard_normal((d, d))
    v = np.linalg.svd(Ws[:-1])[2][-1]
    g = lambda t: float(_phi(Ws[-1], t * v, eps))
    target = 0.5 * min(g(50.0), g(-50.0))
    tp = optimize.brentq(lambda t: g(t) - target, 1e-9, 50.0)
    tm = optimize.brentq(lambda t: g(t) - target, -50.0, -1e-9)
    xa, xb = tp * v, tm * v
    coll_gap = float(np.abs(_phi(Ws, xa, eps) - _phi(Ws, xb, eps)).max())
    # n > d: multi-start search for near-collisions min ||phi(x)-phi(x')|| with ||x - x'|| = 1
    Wb = rng.standard_normal((2 * d, d))
    srng = ctx.rng("search")
    best = (np.inf, None)

    def obj(z):
        # x confined to the ball of radius 3 (far away, x and x+u trivially map close together);
        # the gap is measured relative to the size of the images
        x = 3 * z[:d] / (1 + np.linalg.norm(z[:d]))
        u = z[d:] / max(np.linalg.norm(z[d:]), 1e-12)
        a, b = _phi(Wb, x, eps), _phi(Wb, x + u, eps)
        return float(np.sum((a - b) ** 2) / (np.sum(a * a) + np.sum(b * b) + 1e-300))
    for _ in range(ctx.pick(20, 100)):
        z0 = srng.standard_normal(2 * d) * srng.choice([0.3, 1.0, 3.0])
        r_ = optimize.minimize(obj, z0, method="Nelder-Mead",
                               options={"maxiter": ctx.pick(600, 3000), "xatol": 1e-10, "fatol": 1e-16})
        if r_.fun < best[0]:
            best = (float(r_.fun), r_.x)
    # Jacobian ranks: random points vs the origin and zero sets; ReLU comparison
    P = rng.standard_normal((ctx.pick(500, 5000), d))
    ranks_yat = {}
    ranks_relu = {}
    for name, W in (("n<d", Wl), ("n=d", Ws), ("n>d", Wb)):
        full = min(W.shape)
        ry = [np.linalg.matrix_rank(_jac_x(W, p, eps), tol=1e-10) for p in P]
        rr = [np.linalg.matrix_rank((W @ p > 0)[:, None] * W) for p in P]
        ranks_yat[name] = {"frac_full": float(np.mean(np.array(ry) == full)),
                           "rank_at_origin": int(np.linalg.matrix_rank(_jac_x(W, np.zeros(d), eps)))}
        ranks_relu[name] = {"frac_full": float(np.mean(np.array(rr) == full)),
                            "frac_zero_output": float(np.mean([(W @ p <= 0).all() for p in P]))}
    # Readings.  R1: no open set is mapped to one point (Yat is analytic and non-constant, so its
    # level sets are null; measured: the Jacobian is full rank at random points with probability 1).
    r1 = V.holds(all(ranks_yat[k]["frac_full"] == 1.0 for k in ranks_yat))
    # R2: the map is injective ("preserves input topology"): exact collisions refute it.
    r2 = V.holds(not (max(coll_small) < 1e-12 or coll_gap < 1e-9))
    # R3: no dimension collapse (Jacobian rank never drops): the origin has rank 0.
    r3 = V.holds(all(ranks_yat[k]["rank_at_origin"] == min(W.shape)
                     for k, W in (("n<d", Wl), ("n=d", Ws), ("n>d", Wb))))
    parts = {
        "R1_no_region_collapsed": Evidence(verdict=r1, numbers={"ranks_yat": ranks_yat,
                                                                "ranks_relu": ranks_relu}),
        "R2_injective": Evidence(verdict=r2, numbers={"n<d_max_phi_on_null_line": coll_small,
                                                      "n=d_collision_gap": coll_gap},
                                 counterexample=None if r2 != V.REFUTED else
                                 {"W": Ws.tolist(), "eps": eps, "x1": xa.tolist(), "x2": xb.tolist(),
                                  "phi_x1": _phi(Ws, xa, eps).tolist(),
                                  "phi_x2": _phi(Ws, xb, eps).tolist()}),
        "R3_no_rank_drop": Evidence(verdict=r3, numbers={"rank_at_origin": {k: v["rank_at_origin"]
                                                                            for k, v in ranks_yat.items()}},
                                    notes="grad_x K(w, 0) = 0 for every w: the Jacobian vanishes at "
                                          "x = 0 and loses a row on each hyperplane w_i.x = 0."),
    }
    return Evidence(
        verdict=V.combine_readings([r1, r2, r3]),
        numbers={"zero_set_dim_n<d": int(out["n<d_zero_set_dim"]), "n=d_collision_gap": coll_gap,
                 "n>d_best_rel_gap_sq_in_ball3": best[0], "ranks_yat": ranks_yat,
                 "ranks_relu": ranks_relu},
        counterexample=parts["R2_injective"].counterexample,
        repro="import numpy as np, yatmath.yat as y; W=np.array(CE['W']); "
              "print(y.product(W,np.array(CE['x1']),1.0), y.product(W,np.array(CE['x2']),1.0))",
        parts=parts,
        notes="Readings: R1 no set with interior maps to a point (true: analytic non-constant map; "
              "ReLU collapses the cone {Wx<=0}); R2 injective / topology preserving (false: n<d "
              "collapses the null space of W, n=d has exact collisions on a line through 0); R3 no "
              "dimension collapse (false at x=0, where the Jacobian is 0).  n>d: the multi-start "
              "search value is recorded (small = near-collision).")


# --------------------------------------------------------------------------------------------
# A7  yat.decision.quartic_boundary
# --------------------------------------------------------------------------------------------
@register("yat.decision.quartic_boundary",
          method="sympy total degree of P = <wi,x>^2 D_j - <wj,x>^2 D_i; sign(P) vs sign(K_i-K_j) "
                 "at random points; singular points (P = grad P = 0: origin always; multi-start "
                 "search elsewhere); Hessian of P at 0; implicit-function sensitivity of boundary "
                 "points to w")
def check_quartic_boundary(ctx):
    x1, x2, e = sp.symbols("x1 x2 eps", positive=True)
    a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2", real=True)
    X = (x1, x2)
    wi, wj = (a1, a2), (b1, b2)
    P = lambda wi, wj: (sum(p * q for p, q in zip(wi, X)) ** 2 * (sum((p - q) ** 2 for p, q in zip(wj, X)) + e)
                        - sum(p * q for p, q in zip(wj, X)) ** 2 * (sum((p - q) ** 2 for p, q in zip(wi, X)) + e))
    deg_generic = sp.Poly(sp.expand(P(wi, wj)), x1, x2).total_degree()
    deg_antipodal = sp.Poly(sp.expand(P(wi, (-a1, -a2))), x1, x2).total_degree()
    # concrete pair
    Wi, Wj, eps = (1, 0), (0, 1), sp.Integer(1)
    Pc = sp.expand(P(Wi, Wj).subs(e, eps))
    grad0 = [sp.diff(Pc, v).subs({x1: 0, x2: 0}) for v in X]
    H0 = sp.hessian(Pc, X).subs({x1: 0, x2: 0})
    H0_eigs = [float(v) for v in H0.eigenvals()]
    node = min(H0_eigs) < 0 < max(H0_eigs)
    P0 = Pc.subs({x1: 0, x2: 0})
    # sign agreement with K_i - K_j at random points (float): P = D_i D_j (K_i - K_j)
    rng = ctx.rng("pts")
    wi_n, wj_n = rng.standard_normal(2), rng.standard_normal(2)
    pts = rng.standard_normal((2000, 2)) * 2
    ki, kj = _K(wi_n, pts, 1.0), _K(wj_n, pts, 1.0)
    s_ = (pts @ wi_n) ** 2 * (((wj_n - pts) ** 2).sum(1) + 1) - (pts @ wj_n) ** 2 * (((wi_n - pts) ** 2).sum(1) + 1)
    agree = float(np.mean(np.sign(s_) == np.sign(ki - kj)))
    # singular points away from the origin: multi-start minimisation of P^2 + |grad P|^2
    Pf = sp.lambdify([x1, x2, a1, a2, b1, b2, e], [P(wi, wj), *[sp.diff(P(wi, wj), v) for v in X]])
    srng = ctx.rng("sing")
    sing = []
    for _ in range(ctx.pick(20, 100)):
        wa, wb = srng.standard_normal(2), srng.standard_normal(2)
        f = lambda z: sum(float(v) ** 2 for v in Pf(z[0], z[1], *wa, *wb, 1.0))
        z0 = srng.standard_normal(2) * 2
        r_ = optimize.minimize(f, z0, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-24,
                                                                      "maxiter": 2000})
        sing.append({"x": r_.x.tolist(), "res": float(r_.fun), "norm_x": float(np.linalg.norm(r_.x))})
    off_origin = [q for q in sing if q["res"] < 1e-16 and q["norm_x"] > 1e-4]
    # sensitivity of regular boundary points to w (implicit function theorem): |dF/dw| / |grad_x F|
    F = lambda x, a, b: float(_K(a, x, 1.0) - _K(b, x, 1.0))
    sens = []
    rgrid = np.linspace(0.05, 5.0, 100)
    for ang in np.linspace(0.0, 2 * np.pi, ctx.pick(48, 240), endpoint=False):
        u = np.array([math.cos(ang), math.sin(ang)])
        vals = _K(wi_n, rgrid[:, None] * u, 1.0) - _K(wj_n, rgrid[:, None] * u, 1.0)
        for k in np.nonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) < 0)[0]:
            r0 = optimize.brentq(lambda r: F(r * u, wi_n, wj_n), rgrid[k], rgrid[k + 1])
            xb = r0 * u
            gx = Y.grad(wi_n, xb, 1.0).x - Y.grad(wj_n, xb, 1.0).x
            gw = np.concatenate([Y.grad(wi_n, xb, 1.0).w, -Y.grad(wj_n, xb, 1.0).w])
            sens.append(float(np.linalg.norm(gw) / np.linalg.norm(gx)))
    parts = {
        "equation": Evidence(verdict=V.holds(agree == 1.0), numbers={"sign_agreement": agree}),
        "quartic": Evidence(verdict=V.holds(deg_generic == 4),
                            numbers={"degree_generic": deg_generic, "degree_w_j=-w_i": deg_antipodal}),
        "smooth": Evidence(verdict=V.holds(not (P0 == 0 and all(g_ == 0 for g_ in grad0))),
                           numbers={"P(0)": str(P0), "gradP(0)": [str(g_) for g_ in grad0],
                                    "hessP(0)_eigs": H0_eigs, "node_at_origin": bool(node),
                                    "off_origin_singular_found": len(off_origin)},
                           counterexample={"w_i": [1, 0], "w_j": [0, 1], "eps": 1, "x": [0, 0],
                                           "P": 0, "grad_P": [0, 0], "hess_eigs": H0_eigs},
                           notes="P has no constant or linear term, so x = 0 is on the boundary and "
                                 "singular for every (w_i, w_j, eps); with an indefinite Hessian the "
                                 "boundary crosses itself there (a node): not a smooth surface."),
        "lipschitz_in_parameters": Evidence(
            verdict=V.holds(len(sens) > 0 and np.isfinite(max(sens))),
            numbers={"n_boundary_points": len(sens), "max_sensitivity": max(sens) if sens else None,
                     "median_sensitivity": float(np.median(sens)) if sens else None},
            notes="At regular boundary points the displacement per unit change of w is "
                  "|d_w F|/|grad_x F| (finite); Prop 3 bounds K in x, not the boundary location."),
        "linear_boundary": Evidence(verdict=V.holds(sp.expand((a1 * x1 + a2 * x2) - (b1 * x1 + b2 * x2)
                                                              - ((a1 - b1) * x1 + (a2 - b2) * x2)) == 0)),
    }
    return Evidence(
        verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
        numbers={"degree": deg_generic, "degree_antipodal_pair": deg_antipodal, "P(0)": str(P0),
                 "hessP(0)_eigs": H0_eigs, "sign_agreement": agree,
                 "max_boundary_sensitivity": max(sens) if sens else None},
        counterexample=parts["smooth"].counterexample,
        repro="import sympy as s; x,y=s.symbols('x y'); P=x**2*(x**2+(y-1)**2+1)-y**2*((x-1)**2+y**2+1); "
              "print([s.diff(P,v).subs({x:0,y:0}) for v in (x,y)], s.hessian(P,(x,y)).subs({x:0,y:0}))",
        parts=parts)
