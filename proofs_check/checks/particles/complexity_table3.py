"""particles.complexity_table3 (004 App B, Table 3)."""
from __future__ import annotations

import sympy as sp

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Scope, register


@register("particles.complexity_table3", method="sympy: derived per-iteration flop count of Alg 1/2 "
          "(4 n N d + 3 N^2 d, N = D particles) over n D^2; total with T = T_max; memory n D + D d")
def check_complexity(ctx):
    n, D, d, T = sp.symbols("n D d T", positive=True)
    per_it = 4 * n * D * d + 3 * D ** 2 * d
    ratio = sp.simplify(per_it / (n * D ** 2))                # = 4 d / D + 3 d / n
    bound_ok = sp.simplify(ratio - (4 * d / D + 3 * d / n)) == 0
    # for d <= D and d <= n the ratio is <= 7 d/D ... <= 7: bounded by a constant
    u, v = sp.symbols("u v", positive=True)                   # u = d/D <= 1, v = d/n <= 1
    r_uv = sp.simplify(ratio.subs({d: u * D}).subs({n: u * D / v}))
    sup_ratio = sp.Max(*(r_uv.subs({u: a, v: b}) for a in (0, 1) for b in (0, 1)))
    mem = sp.simplify((n * D + D * d) / (n * D))
    per = Evidence(
        V.holds(bound_ok and sup_ratio == 7),
        {"per_iteration": str(per_it), "ratio_to_nD2": str(ratio), "sup_ratio_for_d<=min(n,D)": str(sup_ratio),
         "memory_ratio_to_nD": str(mem)},
        reading=Reading("per iteration of Alg 1/2: cost O(n D^2), memory O(n D), with d <= min(n, D) as in "
                        "every experiment (d = 10, D = 200; d_k = 64, D = 256)",
                        '004 Table 3: "Mean-field kernel approach ... P(nD^2) ... O(nD)"; Notes: "n: number '
                        'of training samples ... D: number of random features; d: dimensionality" (no T '
                        'appears in any row, and the paper fixes T_max = 2000, App F.1.2).'),
        scope=Scope("symbolic", "sympy ratio (4 n D d + 3 D^2 d)/(n D^2) = 4 d/D + 3 d/n <= 7 for "
                    "d <= min(n, D); memory (n D + D d)/(n D) <= 2", universal=True),
        notes="O(n D^2) is a valid, loose per-iteration bound (the derived cost is O(n D d + D^2 d)).")
    total = Evidence(
        V.holds(True), {"total": "T (4 n D d + 3 D^2 d) with T = T_max = 2000 a constant"},
        reading=Reading("total cost with the printed T_max = 2000 steps", "004 App F.1.2: T_max = 2000."),
        scope=Scope("symbolic", "a constant factor T_max", universal=True),
        notes="If T grew with n or D the total would exceed O(n D^2); no passage lets it grow.")
    return Evidence(verdict=per.verdict, reading=per.reading, numbers=per.numbers, scope=per.scope,
                    other_readings={"total_with_T_max": total},
                    notes=per.notes + " Sinha-Duchi 'P(nD)': the N_w = 1e4 candidate features cost "
                          "O(n N_w d), i.e. P(nD) only with D read as N_w (recorded, Table 3's other rows "
                          "are literature summaries).")
