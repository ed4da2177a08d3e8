"""particles.kernel.feature_range (004 eq.2.1, B.1, Assumption A.4, A.50-A.53)."""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register

RFF_EXPR = "float(yatmath.particles.features(np.array(x), np.array(omega), np.array(b), kind='rff')[0, 0])"


@register("particles.kernel.feature_range", method="value of the sqrt2 cos map (Lemma 3) at x = omega = b = 0; "
          "ranges of every App D map on Gaussian inputs; sympy E_b[2 cos^2] = 1 (A.4 identity, RFF)")
def check_feature_range(ctx):
    x, om, b = [[0.0]], [[0.0]], [0.0]
    phi0 = float(P.features(np.array(x), np.array(om), np.array(b), kind="rff")[0, 0])
    rng = ctx.rng("data")
    X = rng.standard_normal((ctx.pick(200, 2000), 16))
    Om = rng.standard_normal((64, 16))
    bb = rng.uniform(0.0, 2.0 * np.pi, 64)
    ranges = {k: [float(F.min()), float(F.max())] for k in P.MAPS
              for F in [P.features(X, Om, bb, kind=k)]}
    outside = [k for k, (lo, hi) in ranges.items() if max(abs(lo), abs(hi)) > 1.0]
    range_part = Evidence(
        V.from_bound(phi0, 1.0, rtol=float(np.finfo(float).eps)),
        {"phi_rff_at_0": phi0, "range_per_map_gaussian_inputs": ranges, "maps_outside_[-1,1]": outside},
        reading=Reading("phi : X x Omega -> [-1, 1] for the feature maps the paper uses, in particular "
                        "Lemma 3's phi_{omega,b}(x) = sqrt2 cos(omega^T x + b)",
                        '004 eq.2.1 / App B.1: "Let phi : X × Omega -> [-1, 1] be a random feature map"; '
                        'Lemma 3: "Define phi_{omega,b}(x) = sqrt2 cos(omega^T x + b)".'),
        counterexample={"map": "sqrt2 cos (rff)", "x": x, "omega": om, "b": b, "phi": phi0},
        repro=Repro(RFF_EXPR, {"x": x, "omega": om, "b": b}, expected=phi0),
        thresholds=[Threshold("max |phi| <= 1", 1.0, "paper", '004 eq.2.1 "[-1, 1]"', phi0, phi0)],
        scope=Scope("instance", "one point suffices to refute; ranges of all maps recorded", universal=True),
        notes="sqrt2 cos reaches sqrt2; FAVOR is unbounded in x; softmaxfeat and renormalised maps "
              "exceed 1 on realistic inputs (recorded).")
    a, bs = sp.symbols("a b", real=True)
    ident = sp.simplify(sp.integrate(2 * sp.cos(a + bs) ** 2, (bs, 0, 2 * sp.pi)) / (2 * sp.pi) - 1)
    ident_part = Evidence(
        V.holds(ident == 0), {"E_b[2cos^2(a+b)] - 1": str(ident),
                              "sqrtK_favor_at_|x|=1,2,3": [float(np.exp(r * r / 2)) for r in (1, 2, 3)]},
        scope=Scope("symbolic", "sympy: ||Phi(x)||^2_{L2(mu0)} = E_{omega,b}[2 cos^2] = 1 = K(x,x) for "
                    "every x (RFF), so L_Phi = 1 there", universal=True),
        notes="For FAVOR sqrt K(x,x) = exp(||x||^2/2) is unbounded: A.4 then needs bounded inputs. "
              "A.53 uses |phi| <= L_phi, i.e. sup|phi| (sqrt2 for RFF), not sup sqrt K(x,x).")
    parts = {"range_[-1,1]": range_part, "identity_A4_rff": ident_part}
    return Evidence.of_parts(parts, repro=range_part.repro,
                             notes="eq.2.1's range [-1, 1] is contradicted by the paper's own sqrt2 cos map "
                                   "(the reproduction below evaluates it at x = omega = b = 0: sqrt2). Tried (rule "
                                   "5): the value of Lemma 3's map at one point, the ranges of every App D map on "
                                   "Gaussian inputs, the A.4 identity in sympy.")
