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


# --------------------------------------------------------------------------------------------
# A7  yat.decision.localized_regions
# --------------------------------------------------------------------------------------------
def _train_prototypes(rng, C, d, eps, steps, lr=0.05):
    """Softmax cross-entropy on logits K(w_c, x), Gaussian blobs; plain gradient descent."""
    mu = rng.standard_normal((C, d)) * 1.5
    lab = rng.integers(0, C, 300)
    X = mu[lab] + 0.4 * rng.standard_normal((300, d))
    W = mu + 0.3 * rng.standard_normal((C, d))
    for _ in range(steps):
        Kx = _K(W[None, :, :], X[:, None, :], eps)            # (n, C)
        Z = Kx - Kx.max(1, keepdims=True)
        P = np.exp(Z) / np.exp(Z).sum(1, keepdims=True)
        G = P.copy()
        G[np.arange(len(lab)), lab] -= 1.0                   # dL/dlogit
        gw = Y.grad(W[None, :, :], X[:, None, :], eps).w       # (n, C, d)
        W -= lr * np.einsum("nc,ncd->cd", G, gw) / len(lab)
    acc = float(np.mean(np.argmax(_K(W[None], X[:, None], eps), 1) == lab))
    return W, acc


def _far_field(W, eps, dirs, radii):
    """argmax_i K(w_i, r u) for each direction u and radius r: (len(radii), len(dirs))."""
    return np.stack([np.argmax(_K(W[None, :, :], (r * dirs)[:, None, :], eps), axis=1) for r in radii])


@register("yat.decision.localized_regions",
          method="argmax regions of random and trained prototypes (2-D, 3-D) at radii 1e-4..1e4: "
                 "which regions reach infinity (far-field partition by argmax (w_i.u)^2), the "
                 "far-field response K(w, r u), and the sup of the max softmax probability vs a "
                 "linear baseline")
def check_localized_regions(ctx):
    rng = ctx.rng("protos")
    eps = 1.0
    C = 4
    radii = np.logspace(-4, 4, 17)
    sets = []
    for d in (2, 3):
        for _ in range(ctx.pick(3, 10)):
            sets.append(("random", d, rng.standard_normal((C, d))))
        Wt, acc = _train_prototypes(rng, C, d, eps, ctx.pick(150, 600))
        sets.append((f"trained(acc={acc:.2f})", d, Wt))
    drng = ctx.rng("dirs")
    bounded_frac, unb_example, conf = [], None, []
    for kind, d, W in sets:
        if d == 2:
            a = np.linspace(0, 2 * np.pi, 720, endpoint=False)
            dirs = np.column_stack([np.cos(a), np.sin(a)])
        else:
            dirs = drng.standard_normal((2000, 3))
            dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        ff = _far_field(W, eps, dirs, radii)
        lim = np.argmax((dirs @ W.T) ** 2, axis=1)
        winners_far = set(ff[-1].tolist())
        bounded_frac.append(1 - len(winners_far) / C)
        if unb_example is None:
            j = int(np.argmax((ff[-3:] == ff[-1]).all(0)))
            unb_example = {"kind": kind, "W": W.tolist(), "eps": eps, "u": dirs[j].tolist(),
                           "argmax_at_r_1e2_1e3_1e4": ff[-5::2, j].tolist(),
                           "limit_argmax_(w.u)^2": int(lim[j])}
        # softmax confidence over all radii/directions, and the linear baseline
        Kall = _K(W[None, None], (radii[:, None, None] * dirs[None])[..., None, :], eps)
        Z = Kall - Kall.max(-1, keepdims=True)
        Pm = (np.exp(Z) / np.exp(Z).sum(-1, keepdims=True)).max(-1)
        L = np.einsum("rkd,cd->rkc", radii[:, None, None] * dirs[None], W)
        Lz = L - L.max(-1, keepdims=True)
        Pl = (np.exp(Lz) / np.exp(Lz).sum(-1, keepdims=True)).max(-1)
        # sup_x K(w,x) = ||w||^2 (||w||^2 + eps)/eps (attained at x = (1 + eps/||w||^2) w), so the
        # logits are bounded and p_max <= e^M / (e^M + C - 1) with M = max_i sup K(w_i, .)
        a2 = (W ** 2).sum(1)
        M = float((a2 * (a2 + eps) / eps).max())
        bound = 1.0 / (1.0 + (C - 1) * math.exp(-M))
        Lim = (dirs @ W.T) ** 2
        Lz2 = Lim - Lim.max(1, keepdims=True)
        p_lim = float((np.exp(Lz2) / np.exp(Lz2).sum(1, keepdims=True)).max())
        conf.append({"kind": kind, "d": d, "sup_conf_yat": float(Pm.max()),
                     "conf_yat_r1e4_max": float(Pm[-1].max()), "limit_conf_r_inf": p_lim,
                     "conf_linear_r1e4_max": float(Pl[-1].max()), "bound": bound,
                     "far_field_consistent_with_limit": float(np.mean(ff[-1] == lim))})
    r1 = V.holds(min(bounded_frac) == 1.0)
    # R2: far-field response along w tends to ||w||^2, not 0
    w = np.array([1.0, 0.5])
    far = [float(_K(w, r * w / np.linalg.norm(w), eps)) for r in (1e2, 1e3, 1e4)]
    peak = float(_K(w, w, eps))
    r2 = V.holds(far[-1] < 1e-3 * peak)
    # R3: confidence bounded away from 1 (the Yat logits are bounded by max ||w||^4/eps)
    r3 = V.holds(all(c["sup_conf_yat"] <= c["bound"] + 1e-12
                     and c["conf_yat_r1e4_max"] <= c["limit_conf_r_inf"] + 1e-3
                     and c["limit_conf_r_inf"] < 1 - 1e-9 for c in conf))
    parts = {
        "R1_bounded_regions": Evidence(verdict=r1, numbers={"fraction_bounded_per_set": bounded_frac},
                                       counterexample=None if r1 != V.REFUTED else unb_example,
                                       notes="As r -> inf, K(w_i, r u) -> (w_i.u)^2, so every prototype "
                                             "maximising (w_i.u)^2 for some u owns an unbounded cone."),
        "R2_localized_response": Evidence(verdict=r2, numbers={"K_at_r_1e2_1e3_1e4": far, "peak": peak,
                                                               "limit_norm_w_sq": float(w @ w)},
                                          counterexample=None if r2 != V.REFUTED else
                                          {"w": w.tolist(), "eps": eps, "x": (1e4 * w / np.linalg.norm(w)).tolist(),
                                           "K": far[-1]}),
        "R3_bounded_confidence": Evidence(verdict=r3, numbers={"per_set": conf}),
        "softmax_delta_in_training": Evidence(
            verdict=V.NOT_CHECKABLE,
            notes="'the softmax approaches a delta distribution during training' refers to the "
                  "papers' trained models (not available); with logits bounded by ||w||^4/eps a delta "
                  "needs ||w|| -> inf or eps -> 0."),
    }
    return Evidence(
        verdict=V.combine_readings([r1, r2, r3]),
        numbers={"R1": r1, "R2": r2, "R3": r3, "min_fraction_bounded": min(bounded_frac),
                 "far_field_K": far, "sup_conf_yat": max(c["sup_conf_yat"] for c in conf),
                 "conf_r1e4_yat_max": max(c["conf_yat_r1e4_max"] for c in conf),
                 "conf_r1e4_linear_max": max(c["conf_linear_r1e4_max"] for c in conf)},
        counterexample=parts["R1_bounded_regions"].counterexample,
        repro="import numpy as np, yatmath.yat as y; w=np.array([1.,.5]); "
              "print([float(y.product(w, r*w/np.linalg.norm(w), 1.0)) for r in (1e2,1e4)], w@w)",
        parts=parts)


# --------------------------------------------------------------------------------------------
# A8  XOR
# --------------------------------------------------------------------------------------------
@register("yat.xor.not_linearly_separable",
          method="LP feasibility of y_i (w.x_i + b) >= 1 (scipy linprog, HiGHS) plus the Farkas "
                 "certificate (sum of the four constraints gives 0 >= 4)")
def check_xor_not_linearly_separable(ctx):
    ys = 2.0 * XOR_Y - 1
    A = -ys[:, None] * np.column_stack([XOR_X, np.ones(4)])
    res = optimize.linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(4), bounds=[(None, None)] * 3,
                           method="highs")
    lam = np.ones(4)
    cert = (lam @ A).tolist()            # = 0 vector, while lam @ (-1) = -4 < 0: infeasible
    farkas = np.allclose(lam @ A, 0) and lam @ -np.ones(4) < 0
    return Evidence(verdict=V.holds(res.status == 2 and farkas),
                    numbers={"lp_status": int(res.status), "lp_message": res.message,
                             "farkas_lambda": lam.tolist(), "lambda_A": cert},
                    repro="from scipy.optimize import linprog; import numpy as np; "
                          "A=-np.array([-1,1,1,-1.])[:,None]*np.array([[0,0,1],[0,1,1],[1,0,1],[1,1,1.]]); "
                          "print(linprog(np.zeros(3),A_ub=A,b_ub=-np.ones(4),bounds=[(None,None)]*3).status)")


def _xor_K(w, eps):
    return _K(np.asarray(w, float)[..., None, :], XOR_X, eps)


@register("yat.xor.single_unit",
          method="exact sympy values of K((1,-1), x) on the XOR points for symbolic eps; map of "
                 "the separating w on a grid of [-3,3]^2 by the zero/positive rule and by the best "
                 "threshold; the 002 readings (all w1 w2 < 0 vs w = (a,-a))")
def check_xor_single_unit(ctx):
    e = sp.symbols("eps", positive=True)
    w = (1, -1)
    vals = [sp.simplify(_sym_K(w, x, e)) for x in [(0, 0), (0, 1), (1, 0), (1, 1)]]
    printed = [sp.Integer(0), 1 / (5 + e), 1 / (1 + e), sp.Integer(0)]
    vals_ok = all(sp.simplify(a - b) == 0 for a, b in zip(vals, printed))
    num_ok = np.allclose(_xor_K(w, 0.7), [0, 1 / 5.7, 1 / 1.7, 0], rtol=1e-14, atol=0)
    tau0 = all(sp.ask(sp.Q.positive(v), sp.Q.positive(e)) for v in vals[1:3]) and vals[0] == 0 == vals[3]
    eps = 1.0
    g = np.linspace(-3, 3, ctx.pick(121, 601))
    W1, W2 = np.meshgrid(g, g, indexing="ij")
    Wg = np.stack([W1, W2], -1)
    Kg = _xor_K(Wg, eps)                                   # (..., 4)
    zero_rule = (Kg[..., 0] == 0) & (Kg[..., 3] == 0) & (Kg[..., 1] > 0) & (Kg[..., 2] > 0)
    margin = np.minimum(Kg[..., 1], Kg[..., 2]) - np.maximum(Kg[..., 0], Kg[..., 3])
    best_thr = margin > 0
    q = (W1 * W2) < 0
    frac_q_best = float(best_thr[q].mean())
    zr_pts = Wg[zero_rule]
    zr_is_antidiag = bool(np.all(zr_pts[:, 0] == -zr_pts[:, 1]))
    aa = g[g != 0]
    Ka = _xor_K(np.stack([aa, -aa], -1), eps)
    r2_ok = bool(np.all((Ka[:, 0] == 0) & (Ka[:, 3] == 0) & (Ka[:, 1] > 0) & (Ka[:, 2] > 0)))
    # R1 counterexample: the w in the quadrant with the most negative margin
    qi = np.argwhere(q & ~best_thr)
    ce = None
    if len(qi):
        i, j = min(qi.tolist(), key=lambda ij: margin[ij[0], ij[1]])
        wc = Wg[i, j]
        ce = {"w": wc.tolist(), "eps": eps, "K_xor": _xor_K(wc, eps).tolist(),
              "margin": float(margin[i, j])}
    r1 = V.holds(frac_q_best == 1.0)
    r2 = V.holds(r2_ok)
    parts = {
        "values": Evidence(verdict=V.holds(vals_ok and num_ok),
                           numbers={"sympy": [str(v) for v in vals], "printed": [str(v) for v in printed]}),
        "tau_0_separates": Evidence(verdict=V.holds(bool(tau0))),
        "002.R1_all_w1w2<0": Evidence(verdict=r1, numbers={"fraction_of_quadrant_separating": frac_q_best},
                                      counterexample=ce),
        "002.R2_w=(a,-a)": Evidence(verdict=r2, numbers={"zero_rule_set_is_antidiagonal": zr_is_antidiag,
                                                         "n_zero_rule_grid_points": int(zero_rule.sum())}),
    }
    v002 = V.combine_readings([r1, r2])
    return Evidence(
        verdict=V.combine_subclaims([parts["values"].verdict, parts["tau_0_separates"].verdict, v002]),
        numbers={"values": [str(v) for v in vals], "frac_best_threshold_separating_in_w1w2<0": frac_q_best,
                 "frac_best_threshold_separating_all": float(best_thr.mean()),
                 "zero_rule_set": "w1 = -w2 != 0" if zr_is_antidiag else "other", "eps_grid": eps},
        counterexample=ce,
        repro="import numpy as np, yatmath.yat as y; X=np.array([[0,0],[0,1],[1,0],[1,1.]]); "
              "print(y.product(np.array(CE['w']), X, 1.0))",
        parts=parts,
        notes="Zero/positive rule: K(w,(1,1)) = 0 forces w1 = -w2, so only the antidiagonal "
              "separates with tau = 0.  With the best threshold a larger set separates, but not the "
              "whole quadrant w1 w2 < 0.")


@register("yat.xor.orthogonality_mechanism",
          method="exact integer dot products of w=(1,-1) with the XOR points; sympy solve of K = 0")
def check_xor_orthogonality(ctx):
    w = np.array([1, -1])
    dots = (XOR_X.astype(int) @ w).tolist()
    orth = [i for i, s_ in enumerate(dots) if s_ == 0]
    neg = [i for i, y_ in enumerate(XOR_Y) if y_ == 0]
    a1, a2, x1, x2 = sp.symbols("a1 a2 x1 x2", real=True)
    e = sp.symbols("eps", positive=True)
    Ks = _sym_K((a1, a2), (x1, x2), e)
    num, den = sp.fraction(sp.together(Ks))
    iff = sp.factor(num) == (a1 * x1 + a2 * x2) ** 2 and sp.ask(sp.Q.positive(den),
                                                                 sp.Q.positive(e))
    # D > 0 needs eps > 0: the denominator is (a1-x1)^2 + (a2-x2)^2 + eps
    den_pos = sp.simplify(den - ((a1 - x1) ** 2 + (a2 - x2) ** 2 + e)) == 0
    ok = orth == neg and den_pos and sp.factor(num) == (a1 * x1 + a2 * x2) ** 2
    return Evidence(verdict=V.holds(ok),
                    numbers={"dots": dots, "orthogonal_points": orth, "negative_points": neg,
                             "numerator": str(sp.factor(num)), "sympy_den_positive": bool(iff) or den_pos},
                    repro="import numpy as np; print(np.array([[0,0],[0,1],[1,0],[1,1]]) @ np.array([1,-1]))",
                    notes="K = (w.x)^2/(||w-x||^2 + eps) with a denominator >= eps > 0, so K = 0 iff "
                          "w.x = 0; x = 0 counts as orthogonal to every w.")


@register("yat.superposition",
          method="sympy differences K(w,-x)-K(w,x) and K(-w,x)-K(w,x); random pairs; XOR points; "
                 "R3 mean |K(-w,x)-K(w,x)|/K(w,x) on non-negative and on sign-symmetric data")
def check_superposition(ctx):
    d = 3
    w = sp.symbols("w0:3", real=True)
    x = sp.symbols("x0:3", real=True)
    e = sp.symbols("eps", positive=True)
    K = _sym_K(w, x, e)
    r1_expr = sp.factor(sp.together(_sym_K(w, [-a for a in x], e) - K))
    r2_expr = sp.factor(sp.together(_sym_K([-a for a in w], x, e) - K))
    rng = ctx.rng("pairs")
    Wr, Xr = rng.standard_normal((10000, d)), rng.standard_normal((10000, d))
    base = _K(Wr, Xr, 1.0)
    rel1 = np.abs(_K(Wr, -Xr, 1.0) - base) / base
    rel2 = np.abs(_K(-Wr, Xr, 1.0) - base) / base
    wx, xx = np.array([1.0, -1.0]), np.array([1.0, 0.0])
    ex = {"w": wx.tolist(), "x": xx.tolist(), "eps": 1.0, "K(w,x)": float(_K(wx, xx, 1.0)),
          "K(w,-x)": float(_K(wx, -xx, 1.0)), "K(-w,x)": float(_K(-wx, xx, 1.0))}
    r1 = V.holds(r1_expr == 0 and rel1.max() < 1e-12)
    r2 = V.holds(r2_expr == 0 and rel2.max() < 1e-12)
    # R3: approximate invariance over data (tolerance 10%)
    tol = 0.1
    n, dd = ctx.pick(5000, 50000), 64
    stats_ = {}
    for name, X, Wp in (
        ("nonnegative_images_proto=mean", rng.uniform(0, 1, (n, dd)), None),
        ("sign_symmetric_gaussian_proto=random", rng.standard_normal((n, dd)) / math.sqrt(dd), None),
    ):
        Wp = X[: n // 2].mean(0) if name.startswith("nonneg") else rng.standard_normal(dd) / math.sqrt(dd)
        k, kn = _K(Wp, X, 1.0), _K(-Wp, X, 1.0)
        stats_[name] = {"mean_rel_diff": float(np.mean(np.abs(kn - k) / k)),
                        "rel_diff_of_means": float(abs(kn.mean() - k.mean()) / k.mean())}
    r3 = V.holds(all(s_["mean_rel_diff"] <= tol for s_ in stats_.values()))
    parts = {
        "R1_K(w,-x)=K(w,x)": Evidence(verdict=r1, numbers={"residual": str(r1_expr),
                                                           "max_rel_diff_random": float(rel1.max())},
                                      counterexample=None if r1 != V.REFUTED else ex),
        "R2_K(-w,x)=K(w,x)": Evidence(verdict=r2, numbers={"residual": str(r2_expr),
                                                           "max_rel_diff_random": float(rel2.max())},
                                      counterexample=None if r2 != V.REFUTED else ex),
        "R3_approximate_over_data": Evidence(verdict=r3, numbers={"tol": tol, **stats_}),
    }
    return Evidence(
        verdict=V.combine_readings([r1, r2, r3]),
        numbers={"residual_R1": str(r1_expr), "residual_R2": str(r2_expr), "example": ex,
                 "R3": stats_, "xor_K(w,x)_vs_K(w,-x)": [ex["K(w,x)"], ex["K(w,-x)"]]},
        counterexample=ex if V.REFUTED in (r1, r2) else None,
        repro="import numpy as np, yatmath.yat as y; w=np.array([1.,-1]); x=np.array([1.,0]); "
              "print(y.product(w,x,1.0), y.product(w,-x,1.0), y.product(-w,x,1.0))",
        parts=parts,
        notes="Only the numerator is sign-invariant; ||w+x||^2 != ||w-x||^2 unless w.x = 0, so "
              "K(w,-x) = K(-w,x) = (w.x)^2/(||w+x||^2+eps).  Over sign-symmetric data the two have the "
              "same distribution (rel. difference of means ~ 0) but not pointwise.")


# --------------------------------------------------------------------------------------------
# A8  yat.grad.no_dead_zone
# --------------------------------------------------------------------------------------------
@register("yat.grad.no_dead_zone",
          method="grad_x K and grad_w K at x = 0, at w = 0 and on {w.x = 0} (sympy and "
                 "yatmath.yat.grad); loss gradient and Hessian at w = 0; multi-start sup of "
                 "||grad_x K|| over balls of radius R (growth exponent); zero-gradient set measure vs ReLU")
def check_no_dead_zone(ctx):
    d = 3
    w = sp.symbols("w0:3", real=True)
    x = sp.symbols("x0:3", real=True)
    e = sp.symbols("eps", positive=True)
    K = _sym_K(w, x, e)
    gx = [sp.diff(K, v) for v in x]
    gw = [sp.diff(K, v) for v in w]
    at_x0 = [sp.simplify(g.subs({v: 0 for v in x})) for g in gx + gw]
    at_w0 = [sp.simplify(g.subs({v: 0 for v in w})) for g in gx + gw]
    # on {w.x = 0}: substitute x0 = -(w1 x1 + w2 x2)/w0
    sub = {x[0]: -(w[1] * x[1] + w[2] * x[2]) / w[0]}
    on_perp = [sp.simplify(g.subs(sub)) for g in gx + gw]
    sym_zero = all(v == 0 for v in at_x0 + at_w0 + on_perp)
    rng = ctx.rng("num")
    W, X = rng.standard_normal((200, d)), rng.standard_normal((200, d))
    Xp = X - ((X * W).sum(1) / (W * W).sum(1))[:, None] * W
    num = {}
    for name, (ww, xx) in {"x=0": (W, np.zeros_like(X)), "w=0": (np.zeros_like(W), X),
                           "w.x=0": (W, Xp), "random": (W, X)}.items():
        g = Y.grad(ww, xx, 1.0)
        num[name] = {"max_grad_x": float(np.abs(g.x).max()), "max_grad_w": float(np.abs(g.w).max())}
    # loss L(w) = mean (K(w, x_i) - y_i)^2 on positive targets: gradient and Hessian at w = 0
    Xd = rng.standard_normal((8, d))
    yd = np.ones(8)
    L = lambda ww: float(np.mean((_K(ww, Xd, 1.0) - yd) ** 2))
    h = 1e-4
    I = np.eye(d)
    gL = np.array([(L(h * I[i]) - L(-h * I[i])) / (2 * h) for i in range(d)])
    H = np.array([[(L(h * (I[i] + I[j])) - L(h * (I[i] - I[j])) - L(h * (I[j] - I[i])) + L(-h * (I[i] + I[j])))
                   / (4 * h * h) for j in range(d)] for i in range(d)])
    Hev = np.linalg.eigvalsh((H + H.T) / 2).tolist()
    p1 = V.holds(not (sym_zero and num["x=0"]["max_grad_x"] == 0 and num["x=0"]["max_grad_w"] == 0))
    # (2) sup ||grad_x K|| over ||w||, ||x|| <= R for growing R (multi-start)
    srng = ctx.rng("sup")
    sups = []
    Rs = (1.0, 10.0, 100.0)
    for R in Rs:
        def neg(z, R=R):
            ww = R * z[:d] / max(1.0, np.linalg.norm(z[:d]))
            xx = R * z[d:] / max(1.0, np.linalg.norm(z[d:]))
            return -float(np.linalg.norm(Y.grad(ww, xx, 1.0).x))
        best = (0.0, None)
        for _ in range(ctx.pick(20, 100)):
            z0 = srng.standard_normal(2 * d)
            r_ = optimize.minimize(neg, z0, method="Nelder-Mead", options={"maxiter": 1500})
            if -r_.fun > best[0]:
                best = (-r_.fun, r_.x)
        # the closed-form candidate x = w, ||w|| = R gives ||grad_x K|| = 2 R^3 / eps
        sups.append(max(best[0], 2 * R ** 3))
    expo = float(np.polyfit(np.log(Rs), np.log(sups), 1)[0])
    p2_bounded = V.holds(all(np.isfinite(sups)))
    p2_global = V.holds(expo < 0.5)
    p2 = V.combine_readings([p2_bounded, p2_global])
    # (3) dead zones as sets of positive measure with zero gradient: Yat {w.x=0} is null; ReLU {w.x<0}
    frac_relu_dead = float(np.mean((W * X).sum(1) < 0))
    frac_yat_dead = float(np.mean(np.linalg.norm(Y.grad(W, X, 1.0).w, axis=1) < 1e-12))
    p3 = V.holds(frac_yat_dead == 0.0 and frac_relu_dead > 0.0)
    parts = {
        "(1)_no_vanishing_gradient_at_x=0": Evidence(
            verdict=p1, numbers={"sympy_grads_at_x=0": [str(v) for v in at_x0],
                                 "sympy_grads_at_w=0": [str(v) for v in at_w0],
                                 "sympy_grads_on_w.x=0": [str(v) for v in on_perp], "numeric": num,
                                 "loss_grad_at_w=0": gL.tolist(), "loss_hessian_eigs_at_w=0": Hev},
            counterexample=None if p1 != V.REFUTED else
            {"w": [1.0, -1.0, 0.5], "x": [0.0, 0.0, 0.0], "eps": 1.0, "grad_x": [0.0, 0.0, 0.0],
             "grad_w": [0.0, 0.0, 0.0]},
            notes="K = (w.x)^2/D vanishes to second order on {w.x = 0}: every point of that set "
                  "(x = 0 and w = 0 included) is a stationary point of K and of any loss of K.  "
                  "At w = 0 with positive targets the loss Hessian is negative semidefinite (a "
                  "saddle/maximum), so w = 0 is an unstable stationary point."),
        "(2)_no_exploding_gradients": Evidence(
            verdict=p2, numbers={"R": list(Rs), "sup_grad_x": sups, "growth_exponent": expo},
            notes="reading bounded: finite on each ball (Lipschitz on bounded sets); reading global: "
                  "the sup grows like R^3/eps (x = w gives 2||w||^3/eps)."),
        "(3)_no_dead_zones_vs_relu": Evidence(verdict=p3, numbers={"frac_zero_grad_yat": frac_yat_dead,
                                                                   "frac_zero_grad_relu": frac_relu_dead}),
    }
    return Evidence(
        verdict=V.combine_subclaims([p.verdict for p in parts.values()]),
        numbers={"grad_at_x=0_max": num["x=0"], "grad_at_w=0_max": num["w=0"],
                 "grad_on_w.x=0_max": num["w.x=0"], "loss_hessian_eigs_at_w=0": Hev,
                 "sup_grad_x_vs_R": sups, "growth_exponent": expo},
        counterexample=parts["(1)_no_vanishing_gradient_at_x=0"].counterexample,
        repro="import numpy as np, yatmath.yat as y; g=y.grad(np.array([1.,-1,.5]), np.zeros(3), 1.0); "
              "print(g.x, g.w)",
        parts=parts)


# --------------------------------------------------------------------------------------------
# A8  yat.xor.loss_landscape
# --------------------------------------------------------------------------------------------
def _neuron(kind, w, X, eps):
    """Output and d output / d w of the dot (w.x) or Yat (K(w,x)) neuron; w (B, 2), X (4, 2)."""
    if kind == "dot":
        return w @ X.T, np.broadcast_to(X[None], (w.shape[0],) + X.shape)
    return _K(w[:, None, :], X[None], eps), Y.grad(w[:, None, :], X[None], eps).w


def _loss_grad(reading, kind, th, eps):
    """Loss over the 4 XOR points and its gradient in theta = (w1, w2[, a, b]), batched (B, p)."""
    w = th[:, :2]
    f, df = _neuron(kind, w, XOR_X, eps)
    y = XOR_Y[None].astype(float)
    if reading == "R1":                      # MSE on the raw output
        r = f - y
        return (r ** 2).mean(1), np.einsum("bn,bnd->bd", 2 * r / 4, df)
    a, b = th[:, 2:3], th[:, 3:4]
    z = a * f + b
    if reading == "R2":                      # BCE with logistic link
        p = 0.5 * (1 + np.tanh(z / 2))
        L = (np.logaddexp(0, z) - y * z).mean(1)
        gz = (p - y) / 4
    else:                                    # R3 hinge with labels +-1
        ys = 2 * y - 1
        L = np.maximum(0, 1 - ys * z).mean(1)
        gz = np.where(1 - ys * z > 0, -ys, 0.0) / 4
    gw = np.einsum("bn,bnd->bd", gz * a, df)
    return L, np.column_stack([gw, (gz * f).sum(1), gz.sum(1)])


def _predict(reading, kind, th, eps):
    f, _ = _neuron(kind, th[:, :2], XOR_X, eps)
    if reading == "R1":   # raw output: separated by the best threshold (positives above it)
        tau = 0.5 * (np.minimum(f[:, 1], f[:, 2]) + np.maximum(f[:, 0], f[:, 3]))
        return f > tau[:, None]
    return th[:, 2:3] * f + th[:, 3:4] > 0


@register("yat.xor.loss_landscape",
          method="per reading (R1 MSE raw output, R2 BCE with logistic link + scale + bias, R3 "
                 "hinge): landscape of the 2-D neuron on [-3,3]^2 with stationary points and Hessian "
                 "eigenvalues (R1), and batched gradient descent from random inits: XOR success "
                 "rate of dot vs Yat neurons, and where the dot neuron ends")
def check_loss_landscape(ctx):
    eps = 1.0
    n_init = ctx.pick(300, 1000)
    steps = ctx.pick(1000, 5000)
    lr = {"R1": 0.5, "R2": 0.5, "R3": 0.1}
    rng = ctx.rng("inits")
    parts = {}
    summary = {}
    for reading in ("R1", "R2", "R3"):
        p = 2 if reading == "R1" else 4
        th0 = rng.uniform(-3, 3, (n_init, p))
        if p == 4:
            th0[:, 2] = rng.uniform(0.5, 3.0, n_init)
            th0[:, 3] = rng.uniform(-1, 1, n_init)
        res = {}
        for kind in ("dot", "yat"):
            th = th0.copy()
            for _ in range(steps):
                _, g = _loss_grad(reading, kind, th, eps)
                th -= lr[reading] * g
            L, g = _loss_grad(reading, kind, th, eps)
            ok = (_predict(reading, kind, th, eps) == XOR_Y[None].astype(bool)).all(1)
            fdot = np.abs(th[:, :2]).max(1)
            res[kind] = {"success_rate": float(ok.mean()), "median_final_loss": float(np.median(L)),
                         "frac_w_to_0": float(np.mean(fdot < 1e-2)),
                         "median_grad_norm": float(np.median(np.linalg.norm(g, axis=1)))}
        # dot neuron: the minimiser of the (convex) loss and whether its weight part is 0
        if reading == "R1":
            wdot = np.linalg.lstsq(XOR_X, XOR_Y.astype(float), rcond=None)[0]
            dot_zero = bool(np.allclose(wdot, 0, atol=1e-9))
            dot_min = {"w": wdot.tolist(), "outputs": (XOR_X @ wdot).tolist()}
        else:
            ths = th0[:1].copy()
            for _ in range(20000):
                _, g = _loss_grad(reading, "dot", ths, eps)
                ths -= 0.2 * g
            dot_zero = bool(np.abs(ths[0, 0] * ths[0, 2]) < 1e-2 and np.abs(ths[0, 1] * ths[0, 2]) < 1e-2)
            dot_min = {"theta": ths[0].tolist()}
        # Yat: w = 0 is a stationary point (grad_w K(0, x) = 0 for every x)
        th_zero = np.zeros((1, p))
        if p == 4:
            th_zero[0, 2] = 1.0
        g0 = _loss_grad(reading, "yat", th_zero, eps)[1][0, :2]
        yat_ok = res["yat"]["success_rate"] >= 0.5 and res["yat"]["success_rate"] > res["dot"]["success_rate"]
        v = V.combine_subclaims([V.holds(dot_zero), V.holds(yat_ok)])
        num = {"dot_neuron": res["dot"], "yat_neuron": res["yat"], "dot_minimiser": dot_min,
               "dot_min_has_zero_weights": dot_zero, "yat_grad_w_at_w=0": g0.tolist()}
        if reading == "R1":
            ng = ctx.pick(61, 121)
            g = np.linspace(-3, 3, ng)
            G1, G2 = np.meshgrid(g, g, indexing="ij")
            Wg = np.column_stack([G1.ravel(), G2.ravel()])
            Lg = _loss_grad("R1", "yat", Wg, eps)[0].reshape(G1.shape)
            mins = []
            for i in range(1, ng - 1):
                for j in range(1, ng - 1):
                    if Lg[i, j] <= Lg[i - 1:i + 2, j - 1:j + 2].min():
                        r_ = optimize.minimize(lambda z: float(_loss_grad("R1", "yat", z[None], eps)[0][0]),
                                               [g[i], g[j]], jac=lambda z: _loss_grad("R1", "yat", z[None], eps)[1][0],
                                               method="BFGS")
                        h = 1e-5
                        H = np.array([[(_loss_grad("R1", "yat", (r_.x + h * np.eye(2)[k])[None], eps)[1][0, l]
                                        - _loss_grad("R1", "yat", (r_.x - h * np.eye(2)[k])[None], eps)[1][0, l])
                                       / (2 * h) for l in range(2)] for k in range(2)])
                        mins.append({"w": [round(float(t), 6) for t in r_.x], "loss": float(r_.fun),
                                     "hess_eigs": np.linalg.eigvalsh((H + H.T) / 2).tolist(),
                                     "separates": bool((_predict("R1", "yat", r_.x[None], eps)
                                                        == XOR_Y.astype(bool)).all())})
            uniq = {tuple(np.round(m_["w"], 3)): m_ for m_ in mins}
            num["yat_local_minima"] = list(uniq.values())
        parts[reading] = Evidence(verdict=v, numbers=num)
        summary[reading] = {"yat_success": res["yat"]["success_rate"], "dot_success": res["dot"]["success_rate"],
                            "dot_min_zero_weights": dot_zero}
    return Evidence(
        verdict=V.combine_readings([parts[r].verdict for r in ("R1", "R2", "R3")]),
        numbers={"summary": summary, "n_init": n_init, "steps": steps, "lr": lr, "eps": eps},
        repro="import numpy as np; X=np.array([[0,0],[0,1],[1,0],[1,1.]]); "
              "print(np.linalg.lstsq(X, np.array([0,1,1,0.]), rcond=None)[0])",
        parts=parts,
        notes="Per reading the claim holds iff (i) the dot neuron's loss minimiser has zero weight "
              "part ('stable minimum at zero output') and (ii) gradient descent on the Yat neuron "
              "reaches a separator from >= 50% of random inits (and more often than the dot neuron).  "
              "In every reading w = 0 is a stationary point of the Yat neuron (zero gradient).")
