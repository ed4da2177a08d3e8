"""yat.universal_kernel_proof_002 (claims.md A2; 002 App G.6): (a) (<w,x>+c)^p is universal for
every p >= 1, c > 0, and <w,x>^2 is 'an instance'; (b) a product of two universal kernels is
universal; (c) K2 = (||w-x||^2+eps)^-1 is universal because its FT is strictly positive."""
from __future__ import annotations

import math

import numpy as np
import scipy.optimize as opt

from yatmath.features import fourier as FF
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support import yat_kernel_theory as C


def _minimax_quadratic_form(X, f):
    """min_A max_i |f(x_i) - x_i^T A x_i| over symmetric A: a linear program (HiGHS)."""
    d = X.shape[1]
    iu = np.triu_indices(d)
    feats = np.stack([X[:, i] * X[:, j] * (1 if i == j else 2) for i, j in zip(*iu)], 1)
    m = feats.shape[1]
    c = np.zeros(m + 1)
    c[-1] = 1.0
    A_ub = np.vstack([np.hstack([-feats, -np.ones((len(X), 1))]),
                      np.hstack([feats, -np.ones((len(X), 1))])])
    res = opt.linprog(c, A_ub=A_ub, b_ub=np.concatenate([-f, f]),
                      bounds=[(None, None)] * m + [(0, None)], method="highs")
    return float(res.x[-1])


@register("yat.universal_kernel_proof_002",
          method="(a) exact-integer Gram ranks of <w,x>^2 and (<w,x>+c)^p vs d(d+1)/2 and "
                 "binom(d+p,p), LP minimax distance of sin(3 x1) to the quadratic forms; (b) "
                 "proof via a nowhere-vanishing member; (c) positivity of the IMQ transform")
def check_universal_kernel_proof_002(ctx):
    rng = ctx.rng("ranks")
    n = ctx.pick(120, 1000)
    ranks = {}
    for d in (2, 3, 4, 5):
        X = rng.integers(-3, 4, (n, d)).astype(float)
        ranks[f"d{d}"] = {"rank_<w,x>^2": int(np.linalg.matrix_rank((X @ X.T) ** 2)),
                          "d(d+1)/2": d * (d + 1) // 2, "n": n}
        for p in (1, 2, 3):
            ranks[f"d{d}"][f"rank_(<w,x>+1)^{p}"] = int(np.linalg.matrix_rank((X @ X.T + 1) ** p))
            ranks[f"d{d}"][f"binom(d+{p},{p})"] = math.comb(d + p, p)
    Xg = C.grid(0.5, 1.5, 2, ctx.pick(31, 81))
    lp = _minimax_quadratic_form(Xg, np.sin(3 * Xg[:, 0]))
    P = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]]
    Pa = np.array(P)
    r4 = int(np.linalg.matrix_rank((Pa @ Pa.T) ** 2))
    finite_rank = all(v["rank_<w,x>^2"] <= v["d(d+1)/2"] < n for v in ranks.values())
    pa = Evidence(
        verdict=V.holds(r4 == len(P) and not finite_rank),
        reading=Reading("K1 = <w,x>^2 (and (<w,x>+c)^p) is universal on every compact K: its "
                        "RKHS is dense in C(K)",
                        "002 App G.6 part 1: 'Our kernel K_1 is a specific instance of the "
                        "polynomial kernel family and is also universal on any compact subset'"),
        numbers={"ranks": ranks, "four_point_gram_rank": r4,
                 "lp_best_sup_error_sin3x1_by_quadratic_forms_on_[0.5,1.5]^2": lp},
        scope=Scope("exhaustive", "exact integer arithmetic (entries <= 3^4 d^2, exact in "
                    "float64): the Gram rank of 4 distinct points; ranks on random integer "
                    "sets", universal=True),
        counterexample={"points": P, "kernel": "<w,x>^2", "gram_rank": r4, "n": 4,
                        "why": ("a universal kernel has a strictly PD Gram matrix on distinct "
                                "points; the RKHS of <w,x>^2 is the d(d+1)/2-dim space of "
                                "quadratic forms (closed, not dense); the LP gives "
                                f"sup-distance >= {lp:.3g} from sin(3 x1) on [0.5,1.5]^2")},
        repro=Repro("int(np.linalg.matrix_rank((np.array(P) @ np.array(P).T) ** 2))", {"P": P},
                    expected=r4, rtol=0.0, atol=0.0,
                    tol_reason="integer Gram entries, exact in float64"),
        notes=("(<w,x>+c)^p has RKHS = polynomials of degree <= p (dimension binom(d+p,p)); "
               "for no fixed p is it universal. 002 cites [35] for the opposite."))
    pb = Evidence(
        verdict=V.CONFIRMED,
        reading=Reading("if k1, k2 are universal on compact K then k1 k2 is universal",
                        "002 App G.6: 'the product of two universal kernels is also universal'"),
        numbers={},
        scope=Scope("proof", "proof: H(k1 k2) contains f1 f2 for f_i in H(k_i); a universal "
                    "H(k2) contains g with |g - 1| < 1/2 (nowhere 0), and {f1 g} is dense "
                    "because f -> f/g is an isometry-up-to-constants of C(K)", universal=True),
        notes=("True as a statement, but in 002 it is applied with K1 = <w,x>^2, which is not "
               "universal (part a), so the conclusion does not follow (see yat.uat_unbiased)."))
    pos = C.sympy_imq_ft_integrand_positive()
    grid = np.logspace(-4, 1.5, 100)
    min_ft = min(float(np.min(FF.imq_fourier_bessel(grid, d, 0.5))) for d in (1, 2, 3, 4, 5))
    pc = Evidence(
        verdict=V.holds(pos),
        numbers={"sympy_integrand_positive": pos, "min_ft_on_grid_d1..5": min_ft},
        scope=Scope("symbolic", "FT(K2) = pi^{d/2} int t^{-d/2} e^{-eps t - rho^2/4t} dt, "
                    "integrand > 0 (sympy), so FT > 0 off 0 and locally integrable "
                    "(yat.imq_fourier), the universality criterion 002 cites [65]",
                    universal=True),
        notes=("The conclusion holds. 002's reason ('the integrand e^{-eps t} e^{-t|z|^2} is "
               "positive') is about the kernel, not its transform; the transform of each "
               "Gaussian is positive, which is what makes it work. At xi = 0 the transform is "
               "+inf for d >= 2 (yat.imq_fourier)."))
    parts = {"a_polynomial_universal": pa, "b_product_of_universal": pb, "c_imq_universal": pc}
    return Evidence.of_parts(
        parts, numbers={"part_verdicts": {k: p.verdict for k, p in parts.items()},
                        "four_point_gram_rank": r4, "lp_best_sup_error": lp},
        notes=("Step (a) of 002 App G.6 is false: <w,x>^2 and every fixed-degree polynomial "
               "kernel have finite-rank RKHS; the product argument then fails, and the theorem "
               "itself fails on domains containing 0 (yat.uat_unbiased)."))
