"""Helpers shared by the ITNet operator / convolution / attention checks (003 §2.1, App C, App D).

* :func:`rel`            normwise relative error (``stats.rel_err``)
* :func:`attn_setup`     random (U, W_Q, W_K, W_V) for one attention head
* :func:`r2_reading`     the strict-Def.-1 reading (R2) of an attention special case: the mixed
                         difference D of the attention map over two key slots (multistart search,
                         ``yatmath.itnet.diagnostic.max_mixed_difference``); |D|/4 lower-bounds the
                         sup error of every Def.-1 layer (a kernel of (x, y, u(x), u(y)) only) on the
                         four inputs found.  Returns an Evidence with its repro.
* :func:`identity_search` the max relative error of an exact identity over >= 20 random draws, with
                         the maximiser (a randomised check of a polynomial identity: a nonzero
                         polynomial vanishes on random points with probability 0)
"""
from __future__ import annotations

import numpy as np

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold
from yatmath.itnet import diagnostic as dg

#: float64 sums of O(1) terms over at most a few hundred keys: relative rounding error well below this
EXACT_TOL = 1e-12
EXACT_SOURCE = ("float64, sums of <= 10^3 O(1) products: relative rounding error <= n u ~ 1e-13 "
                "(u = 1.1e-16); a real discrepancy is O(1)")


def rel(a, b) -> float:
    return stats.rel_err(a, b)


def attn_setup(rng, n, d=3, dk=2):
    return rng.normal(size=(n, d)), rng.normal(size=(dk, d)), rng.normal(size=(dk, d)), rng.normal(size=(d, d))


def exact_threshold(name: str, measured: float) -> Threshold:
    return Threshold(name, EXACT_TOL, "precision", EXACT_SOURCE, measured, measured)


def identity_search(ctx, tag: str, draw, restarts: int | None = None):
    """max over ``restarts`` (>= 20) draws of ``draw(rng) -> (rel_err, case)``; (worst, case, n)."""
    n = restarts or ctx.pick(20, 60)
    worst, case = -1.0, None
    for k in range(n):
        e, c = draw(ctx.rng(f"{tag}{k}"))
        if e > worst:
            worst, case = float(e), c
    return worst, case, n


def exact_identity_evidence(ctx, tag, draw, *, what: str, reading: Reading | None = None,
                            restarts: int | None = None, numbers=None, notes: str = "") -> Evidence:
    """CONFIRMED when an exact identity holds to rounding on every one of >= 20 random draws."""
    worst, case, n = identity_search(ctx, tag, draw, restarts)
    return Evidence(
        verdict=V.holds(worst <= EXACT_TOL),
        numbers={"max_rel_err": worst, "draws": n, **(numbers or {})},
        counterexample=None if worst <= EXACT_TOL else case,
        thresholds=[exact_threshold(f"{what}: max rel err <= tol", worst)],
        scope=Scope("search", f"{what}; {n} random draws (Gaussian inputs and weights), maximiser "
                              f"{'recorded' if case is not None else 'n/a'}", universal=True),
        reading=reading,
        notes=notes or "randomised check of a polynomial identity in the inputs and weights (a nonzero "
                       "polynomial vanishes at random Gaussian points with probability 0)",
    )


def r2_reading(ctx, F_expr: str, weights: dict, F, *, text: str, passage: str, n=4, d=3) -> Evidence:
    """The strict Def.-1 reading of an attention map ``F`` (U -> outputs).

    ``F_expr``: a public-API expression of the map in the name ``V_`` with the weight names of
    ``weights`` (lists), e.g. ``"yatmath.itnet.special.attention.softmax_attention(V_, np.array(Wq), ...)"``.
    """
    U = ctx.rng("D_base").normal(size=(n, d))
    starts = ctx.pick(6, 20)      # a reported reading: a found |D| > 0 refutes it, no restart count needed
    md = dg.max_mixed_difference(F, U, 3, 0, 1, starts=starts, box=1.0, maxiter=ctx.pick(300, 1000),
                                 rng=ctx.rng("D"))
    vals = [np.asarray(v).tolist() for v in md["values"]]
    Dn = float(np.linalg.norm(dg.mixed_difference(F, U, 3, 0, 1, *[np.asarray(v) for v in vals])))
    lb = Dn / 4
    verdict = V.holds(lb <= EXACT_TOL)
    bindings = {**weights, "U": U.tolist(), "a": vals[0], "a2": vals[1], "b": vals[2], "b2": vals[3]}
    expr = ("float(np.linalg.norm(yatmath.itnet.diagnostic.mixed_difference(lambda V_: " + F_expr +
            ", np.array(U), 3, 0, 1, np.array(a), np.array(a2), np.array(b), np.array(b2))))")
    return Evidence(
        verdict=verdict,
        numbers={"|D|": Dn, "sup_error_lower_bound": lb, "starts": starts, "box": 1.0},
        counterexample=None if verdict == V.CONFIRMED else {**bindings, "|D|": Dn, "row_i": 3,
                                                            "slots_j_k": [0, 1]},
        repro=None if verdict == V.CONFIRMED else Repro(
            expr, bindings, Dn, rtol=1e-9,
            tol_reason="float64 re-evaluation of the same four attention outputs"),
        thresholds=[exact_threshold("|D|/4 (lower bound of the sup error of any Def.-1 layer) <= tol", lb)],
        scope=Scope("search", f"multistart maximisation of |D| over slot values in [-1,1]^{d}, {starts} starts",
                    universal=False),
        reading=Reading(text, passage),
        notes="D = F(..a..b..) - F(..a'..b..) - F(..a..b'..) + F(..a'..b'..) read at row i = 3 with key slots "
              "0, 1: zero for every Def.-1 layer (its output at x_i is a sum of one term per key), so a "
              "Def.-1 layer errs by >= |D|/4 on one of the four inputs",
    )
