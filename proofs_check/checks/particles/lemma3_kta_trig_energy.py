"""particles.lemma3_kta_trig_energy.b7 / .b8_b9 (004 Lemma 3, eqs B.7-B.9; App A.2)."""
from __future__ import annotations

import numpy as np
import sympy as sp

import yatmath.particles as P
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, register

X3, Y3 = [[0.0], [1.0], [2.0]], [1.0, -1.0, 1.0]
PREC = 1e-12

B7_EXPR = ("(lambda r: r(w1) - r(w2))(lambda w: yatmath.particles.Hamiltonian(np.array(X), np.array(y), "
           "backend='numpy').energy(np.array([[w]]), np.zeros(1)) + 2.0 / len(y) ** 2 * "
           "float(np.sum((np.array(y) @ np.cos(np.array(X) * w)) ** 2)))")
A2_EXPR = ("(lambda r: r(w1) - r(w2))(lambda w: np.mean([yatmath.particles.Hamiltonian(np.array(X), "
           "np.array(y), backend='numpy').energy(np.array([[w]]), np.array([c])) for c in "
           "(0.0, 2 * math.pi / 3, 4 * math.pi / 3)]) + (float(np.sum(np.array(y) @ np.cos(np.array(X) * w)) ** 2) "
           "+ float(np.sum(np.array(y) @ np.sin(np.array(X) * w)) ** 2)) / len(y) ** 2)")


def _eval(expr, b):
    from proofs_check.repro import evaluate
    return float(evaluate(expr, b))


@register("particles.lemma3_kta_trig_energy.b7", method="E_N + (2/n^2)||y^T C||^2 at two configurations "
          "(n = 3, N = 1) through the yatmath Hamiltonian; sd ratio over random (Omega, b)")
def check_b7(ctx):
    bind = {"X": X3, "y": Y3, "w1": 0.0, "w2": 1.0}
    diff = _eval(B7_EXPR, bind)
    rng = ctx.rng("data")
    X = rng.standard_normal((40, 3))
    y = rng.permutation(np.where(np.arange(40) % 2 == 0, 1.0, -1.0))
    H = P.Hamiltonian(X, y, backend="numpy")
    E, Q = [], []
    for _ in range(ctx.pick(200, 2000)):
        Om, b = rng.standard_normal((8, 3)), rng.uniform(0, 2 * np.pi, 8)
        E.append(H.energy(Om, b))
        Q.append(float(np.sum((y @ np.cos(X @ Om.T + b)) ** 2)))
    E, Q = np.array(E), np.array(Q)
    sd_ratio = float(np.std(E + 2 / 40 ** 2 * Q) / np.std(E))
    sd_ratio_fixed = float(np.std(E + 2 / (8 * 40 * 39) * Q) / np.std(E))
    return Evidence(
        verdict=V.REFUTED if abs(diff) > PREC else V.CONFIRMED,
        numbers={"difference_between_configs": diff, "sd_ratio_B7": sd_ratio,
                 "sd_ratio_with_prefactor_2/(N n(n-1))": sd_ratio_fixed},
        counterexample={**bind, "N": 1, "b": 0.0,
                        "E_N_plus_B7_term_difference": diff},
        repro=Repro(B7_EXPR, bind, expected=diff),
        thresholds=[Threshold("|difference| > float64 rounding (B.7 says it is 0)", PREC, "precision",
                              "float64, sums of 3 terms", abs(diff), abs(diff))],
        scope=Scope("instance", "a counterexample; random (Omega, b) sd ratios recorded", universal=True),
        notes="E_N = -(2/(N n(n-1))) [||y^T C||^2 - sum_ik cos^2(alpha_ik)]: besides the prefactor "
              "(1/N, n(n-1)), the diagonal term depends on (Omega, b), so no prefactor makes B.7 an "
              "identity up to a constant (sd ratio with the corrected prefactor recorded).")


@register("particles.lemma3_kta_trig_energy.b8_b9", method="sympy: b-average of cos(a+b)cos(c+b) and "
          "|sum y e^{ia}|^2 expansion; the A.2 final display (-1/n^2) at two configurations")
def check_b8_b9(ctx):
    a, c, b = sp.symbols("a c b", real=True)
    avg = sp.simplify(sp.integrate(sp.cos(a + b) * sp.cos(c + b), (b, 0, 2 * sp.pi)) / (2 * sp.pi)
                      - sp.cos(a - c) / 2)
    al = sp.symbols("a1:4", real=True)
    ys = sp.symbols("y1:4", real=True)
    z2 = sp.expand((sum(ys[i] * sp.cos(al[i]) for i in range(3))) ** 2
                   + (sum(ys[i] * sp.sin(al[i]) for i in range(3))) ** 2)
    pairs = sum(ys[i] * ys[j] * sp.cos(al[i] - al[j]) for i in range(3) for j in range(3) if i != j) \
        + sum(ys[i] ** 2 for i in range(3))
    expn = sp.simplify(sp.expand_trig(z2 - pairs))
    ok = avg == 0 and expn == 0
    bind = {"X": X3, "y": Y3, "w1": 0.0, "w2": 1.0}
    d_a2 = _eval(A2_EXPR, bind)
    lit = Evidence(
        V.REFUTED if abs(d_a2) > PREC else V.CONFIRMED,
        {"difference_between_configs": d_a2, "prefactor_ratio_(1/n^2)/(1/(N n(n-1)))": "N(n-1)/n"},
        reading=Reading("E_b[E_N] ≡ -(1/n^2)(||y^T cos||^2 + ||y^T sin||^2) up to a constant",
                        '004 A.2, last display: "This yield the stated result E_b[E_N] ≡ -1/n^2 (...)".'),
        counterexample={**bind, "N": 1, "difference": d_a2},
        repro=Repro(A2_EXPR, bind, expected=d_a2),
        thresholds=[Threshold("|difference| > float64 rounding", PREC, "precision", "float64", abs(d_a2),
                              abs(d_a2))],
        scope=Scope("instance", "counterexample, n = 3, N = 1", universal=True))
    return Evidence(
        verdict=V.holds(ok),
        reading=Reading("B.8-B.9 with the prefactor -1/(N n(n-1)); the -1/n^2 of A.2's last display is a "
                        "typo corrected by the same proof",
                        '004 Lemma 3 (B.8): "-1/(N n(n-1))"; A.2, the display before the last: "E_b[E_N] = '
                        '-1/(n(n-1)N) sum_k ((y^T u_k)^2 + (y^T v_k)^2), where the equality is up to an '
                        'additive constant".'),
        numbers={"b_average_identity": str(avg), "expansion_identity_n3": str(expn),
                 "constant": "-(1/(n(n-1))) * (-(1/2) sum y_i^2) * 2 / N * N = 1/(n-1) for y in {+-1}"},
        scope=Scope("symbolic", "sympy: (1/2pi) int cos(a+b)cos(c+b) db = cos(a-c)/2 for all a, c; "
                    "|sum y e^{ia}|^2 = sum_{i!=j} y_i y_j cos(a_i - a_j) + sum y_i^2 (n = 3 generic; the "
                    "same expansion for every n); summing over k gives B.8 = B.9 up to the constant",
                    universal=True),
        other_readings={"final_display_-1/n^2": lit},
        notes="B.8/B.9 hold up to the additive constant 1/(n-1); the literal -1/n^2 is a rescaling by "
              "N(n-1)/n, not a constant shift.")
