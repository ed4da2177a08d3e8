"""Checks of yat.topology.* (000 Thm 14 and Remarks 3-4, App C.14; 002 §2.2; 001 App B.2-B.3)."""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import optimize

import yatmath.yat as Y
from proofs_check import verdicts as V
from proofs_check.registry import Bound, Evidence, Reading, Repro, Scope, Threshold, register
from proofs_check.repro import evaluate


def _K(w, x, eps):
    return Y.product(w, x, eps, backend="numpy")


@register("yat.topology.thm14",
          method="sympy: ReLU(v) = 0 for v <= 0; sigma' <= e^-z and tanh' <= e^-z for z >= ln 4 (so the "
                 "printed inequality holds for large z), sigma', tanh' -> 0 (no lower Lipschitz bound); "
                 "grid of the printed inequality; injective-W tanh round trip")
def check_topology_thm14(ctx):
    z = sp.symbols("z", real=True)
    # (1) ReLU collision
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b = np.array([-1.0, -1.0, -1.0])
    x1, x2 = np.array([0.0, 0.0]), np.array([-1.0, -2.0])
    T = lambda x: np.maximum(W @ x + b, 0.0)
    p1 = Evidence(
        verdict=V.holds(np.array_equal(T(x1), T(x2)) and not np.array_equal(x1, x2)),
        numbers={"W": W.tolist(), "b": b.tolist(), "x1": x1.tolist(), "x2": x2.tolist(), "T_x1": T(x1).tolist()},
        scope=Scope("symbolic", "ReLU(v) = 0 for every v <= 0 coordinatewise, so T(x1) = T(x2) = 0 for every "
                    "(W, b, x1 != x2) of the hypothesis; one instance evaluated", universal=True))
    # (2) sigmoid / tanh: derivative bounds
    sig_d = sp.exp(-z) / (1 + sp.exp(-z)) ** 2
    tanh_d = 4 * sp.exp(-2 * z) / (1 + sp.exp(-2 * z)) ** 2
    sig_ok = sp.simplify(sp.exp(-z) - sig_d - sp.exp(-z) * (1 - 1 / (1 + sp.exp(-z)) ** 2)) == 0
    tanh_ok = bool(sp.simplify(4 * sp.exp(-2 * z).subs(z, sp.log(4)) - sp.exp(-z).subs(z, sp.log(4))) == 0)
    lim0 = [sp.limit(sig_d, z, sp.oo), sp.limit(tanh_d, z, sp.oo)]
    u = sp.symbols("u", positive=True)
    tanh_root = float(sp.log(sp.nsolve(u ** 3 - 3 * u ** 2 - u - 1, u, 3.4)))
    g = np.linspace(-6, 12, ctx.pick(721, 2401))
    Z1, Z2 = np.meshgrid(g, g, indexing="ij")
    mask = Z2 > Z1
    last_fail = {}
    for name, f in (("sigmoid", lambda t: 0.5 * (1 + np.tanh(t / 2))), ("tanh", np.tanh)):
        with np.errstate(over="ignore"):
            bad = mask & (np.abs(f(Z2) - f(Z1)) > np.exp(-np.minimum(Z1, Z2)) * np.abs(Z2 - Z1) * (1 + 1e-12))
        w_ = np.where(bad, np.minimum(Z1, Z2), -np.inf).max()
        last_fail[name] = None if not np.isfinite(w_) else float(w_)
    grid_ok = all(v is None or v <= tanh_root + 1e-9 for v in last_fail.values())
    # the decay rate a in |phi(z1)-phi(z2)| <= C e^{-a min z}|z1 - z2|: the printed a = 1 against the tight
    # rate lim -ln phi'(z)/z (sympy), per function; a larger rate is the stronger statement
    rate = {"sigmoid": sp.limit(-sp.log(sig_d) / z, z, sp.oo), "tanh": sp.limit(-sp.log(tanh_d) / z, z, sp.oo)}
    bounds2 = [Bound(f"decay rate a in |{nm}(z1) - {nm}(z2)| <= C e^(-a min(z1,z2)) |z1 - z2| for large z", 1.0,
                     float(rt), "larger", 0.0,
                     f"sympy: {nm}'(z) = " + ("e^-z/(1+e^-z)^2" if nm == "sigmoid" else "4e^-2z/(1+e^-2z)^2")
                     + f", lim -ln {nm}'(z)/z = {rt}; by the mean value theorem the difference quotient over "
                       "[z1, z2] is at most the derivative at min(z1, z2) (decreasing on [0, inf)) and tends to it, "
                       "so no larger rate holds")
               for nm, rt in rate.items()]
    ok2 = sig_ok and tanh_ok and all(l == 0 for l in lim0) and grid_ok
    p2 = Evidence(
        verdict=V.combine_parts(b.verdict() for b in bounds2) if ok2 else V.REFUTED,
        bounds=bounds2,
        reading=Reading("not bi-Lipschitz (the difference quotient -> 0), and there is z0 with "
                        "|phi(z1)-phi(z2)| <= e^{-min z}|z1-z2| whenever min(z1,z2) >= z0",
                        '000 Thm 14(2): "... for large z" (an existence statement about a threshold)'),
        numbers={"sigmoid_last_failing_min_z_on_grid": last_fail["sigmoid"],
                 "tanh_last_failing_min_z_on_grid": last_fail["tanh"], "tanh_exact_threshold": tanh_root,
                 "tight_decay_rate": {k: str(v) for k, v in rate.items()},
                 "limits_of_derivatives": [str(l) for l in lim0]},
        scope=Scope("symbolic", "sigma'(z) = e^-z/(1+e^-z)^2 <= e^-z for all z; tanh'(z) = 4e^-2z/(1+e^-2z)^2 <= "
                    "4e^-2z <= e^-z for z >= ln 4, and both are decreasing on [0, inf), so the mean value "
                    "theorem gives the inequality for min z >= ln 4; sigma', tanh' -> 0 so no lower Lipschitz "
                    "constant exists; grid [-6,12]^2 agrees (tanh fails only for min z < 1.218)", universal=True))
    # (3) homeomorphism: ReLU no (from (1)); tanh with injective W yes (explicit continuous inverse)
    rng = ctx.rng("homeo")
    Wi = rng.standard_normal((4, 2))
    bi = rng.standard_normal(4)
    X = rng.uniform(-2, 2, (200, 2))
    Xr = np.linalg.lstsq(Wi, (np.arctanh(np.tanh(X @ Wi.T + bi)) - bi).T, rcond=None)[0].T
    rt = float(np.abs(Xr - X).max())
    p3 = Evidence(
        verdict=V.holds(p1.verdict == V.CONFIRMED and rt < 1e-8),
        numbers={"tanh_roundtrip_max_err": rt},
        thresholds=[Threshold("round-trip error", 1e-8, "precision",
                              "float64 arctanh of tanh values in (-1,1) at |z| <= ~6: error <= ~1e-10", rt, rt)],
        scope=Scope("symbolic", "ReLU: not injective by (1), so not a homeomorphism; tanh with injective W: "
                    "x = W^+ (arctanh(T(x)) - b) is a continuous inverse on the image ('may be one' is "
                    "existential); round trip checked numerically", universal=False))
    return Evidence.of_parts(
        {"(1)_relu_not_injective": p1, "(2)_sigmoid_tanh": p2, "(3)_homeomorphism": p3},
        numbers={"tanh_threshold": tanh_root},
        notes="(2) holds with the printed rate e^-min z, which is tight for sigmoid (sigma'(z) e^z -> 1) but not for "
              "tanh, whose difference quotient decays like 4 e^-2z: the printed bound holds with a strictly better "
              "rate, so (2) and the claim are CONFIRMED_LOOSE (claims.md rule 5). "
              "Remark 3 (information loss, data processing) is informal by the paper's own words (000 App "
              "C.14: 'Making this statement fully rigorous requires specifying a probabilistic model'): "
              "NOT_CHECKABLE, recorded here and not a part of Thm 14.")


_COLL_EXPR = ("float(np.max(np.abs(yatmath.yat.product(np.array(W), np.array(x1), eps, backend='numpy') "
              "- yatmath.yat.product(np.array(W), np.array(x2), eps, backend='numpy'))))")


@register("yat.topology.no_collapse",
          method="operative reading (000 Remark 4, 002 §2.2): no region (open set) mapped to one point; "
                 "proof by real-analyticity; Jacobian ranks at random points vs ReLU; other readings "
                 "injectivity (exact collision on a line, n = d) and no rank drop (x = 0)")
def check_no_collapse(ctx):
    rng = ctx.rng("maps")
    eps, d = 1.0, 3
    Ws = rng.standard_normal((d, d))
    v = np.linalg.svd(Ws[:-1])[2][-1]
    g = lambda t: float(_K(Ws[-1], t * v, eps))
    target = 0.5 * min(g(50.0), g(-50.0))
    tp = optimize.brentq(lambda t: g(t) - target, 1e-9, 50.0)
    tm = optimize.brentq(lambda t: g(t) - target, -50.0, -1e-9)
    xa, xb = tp * v, tm * v
    Wl = rng.standard_normal((2, d))
    Wb = rng.standard_normal((2 * d, d))
    P = rng.standard_normal((ctx.pick(500, 3000), d))
    ranks, relu = {}, {}
    for name, W in (("n<d", Wl), ("n=d", Ws), ("n>d", Wb)):
        full = min(W.shape)
        ry = [np.linalg.matrix_rank(Y.grad(W, p, eps).x, tol=1e-10) for p in P]
        ranks[name] = {"frac_full_rank": float(np.mean(np.array(ry) == full)),
                       "rank_at_origin": int(np.linalg.matrix_rank(Y.grad(W, np.zeros(d), eps).x))}
        relu[name] = {"frac_in_collapsed_cone": float(np.mean([(W @ p <= 0).any() for p in P]))}
    r1 = Evidence(
        verdict=V.holds(all(q["frac_full_rank"] == 1.0 for q in ranks.values())),
        reading=Reading("no set with non-empty interior is mapped to a single value (per neuron and jointly), "
                        "unlike ReLU which maps the half-space {w_i.x + b_i <= 0} to 0",
                        '000 Remark 4: "achieves non-linearity ... without collapsing regions. For eps > 0, the '
                        'mapping is: Real-analytic (Lemma 1) ..."; 002 §2.2 defines the collapse it contrasts: '
                        '"the entire half-space ... is mapped to h_i = 0"'),
        numbers={"jacobian_ranks_yat": ranks, "relu": relu},
        scope=Scope("symbolic", "x -> K(w,x) is real-analytic on R^d (denominator >= eps > 0) and non-constant "
                    "for w != 0 (K(w,0) = 0 < K(w,w)); a non-constant analytic function is constant on no "
                    "open set, so no region collapses; Jacobian full rank at every sampled point",
                    universal=True),
        notes="w_i = 0 gives K = 0 identically (a zero neuron is constant under every activation); it is "
              "outside the contrast the papers draw and not counted.")
    bnd = {"W": Ws.tolist(), "x1": xa.tolist(), "x2": xb.tolist(), "eps": eps}
    gap = float(evaluate(_COLL_EXPR, bnd))
    r2 = Evidence(
        verdict=V.holds(gap > 1e-12 * max(target, 1e-300)),
        reading=Reading("the map x -> (K(w_i,x))_i is injective (preserves input topology)",
                        '002 §1: "NMNs are designed to preserve input topology"'),
        numbers={"n=d_collision_gap": gap, "image_value": target},
        counterexample={"W": Ws.tolist(), "eps": eps, "x1": xa.tolist(), "x2": xb.tolist(),
                        "K_W_x1": _K(Ws, xa, eps).tolist(), "K_W_x2": _K(Ws, xb, eps).tolist()},
        repro=Repro(_COLL_EXPR, bnd, expected=gap, rtol=0, atol=1e-12,
                    tol_reason="both images agree to float64 rounding (brentq to 1e-12)"),
        thresholds=[Threshold("max|phi(x1)-phi(x2)|", 1e-12, "precision",
                              "float64 rounding of K ~ 1 and brentq's xtol", gap, gap)],
        notes="On the line through 0 orthogonal to w_1..w_{d-1} the map is (0,..,0,g(t)) with g(0) = 0 and "
              "g(+-inf) > 0: every value between is taken on both sides.")
    r3 = Evidence(
        verdict=V.holds(all(q["rank_at_origin"] == min(W.shape) for q, W in zip(ranks.values(), (Wl, Ws, Wb)))),
        reading=Reading("no dimension collapse: the Jacobian has full rank everywhere",
                        '002 §1: "avoiding aggressive, dimension-collapsing non-linearities"'),
        numbers={"rank_at_origin": {k: q["rank_at_origin"] for k, q in ranks.items()}},
        counterexample={"W": Ws.tolist(), "eps": eps, "x": [0.0] * d, "jacobian": Y.grad(Ws, np.zeros(d), eps).x.tolist()},
        repro=Repro("float(np.max(np.abs(yatmath.yat.grad(np.array(W), np.array(x), eps).x)))",
                    {"W": Ws.tolist(), "x": [0.0] * d, "eps": eps}, expected=0.0, atol=0.0,
                    tol_reason="exactly zero: grad_x K = 2 s w / D - ..., with s = w.0 = 0"))
    return Evidence(verdict=r1.verdict, reading=r1.reading, numbers=r1.numbers, scope=r1.scope, notes=r1.notes,
                    other_readings={"R2_injective": r2, "R3_no_rank_drop": r3})
