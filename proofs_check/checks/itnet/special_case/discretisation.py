"""itnet.special_case.discretisation (003 App E.11, eqs 158-163)."""
from __future__ import annotations

import numpy as np
from scipy.linalg import expm

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support.itnet_exact_references import of_parts, exact_threshold, stable_matrix
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import recurrent as R

EXPR = ("float(np.abs(yatmath.itnet.apply_kernel_tensor(yatmath.itnet.special.recurrent.linear_kernel("
        "np.array(Ad), np.array(Bd), np.array(C), len(U), convention='printed'), np.array(U), np.ones(len(U))) - "
        "yatmath.itnet.special.recurrent.linear_scan(np.array(Ad), np.array(Bd), np.array(C), np.array(U), "
        "convention='C1')).max() / np.abs(yatmath.itnet.special.recurrent.linear_scan(np.array(Ad), np.array(Bd), "
        "np.array(C), np.array(U), convention='C1')).max())")


@register("itnet.special_case.discretisation",
          method="printed kernels C A_E^{t-s} B_E and C Abar^{t-s} Bbar vs the printed recurrences eq.160 / eq.163 "
                 "(h_t = sum_{s<t} A^{t-1-s} B u_s); ZOH vs the continuous flow for piecewise-constant input")
def check_discretisation(ctx):
    rng = ctx.rng("disc")
    N, d, dt, n = 3, 2, 0.1, ctx.pick(30, 100)
    A = stable_matrix(rng, N)
    B, C = rng.normal(size=(N, d)), rng.normal(size=(d, N))
    U = rng.normal(size=(n, d))
    parts = {}
    for tag, eq in (("euler", "eq.160 h_{t+1} = A_E h_t + B_E u_t"), ("zoh", "eq.163 h_t = sum_{s=0}^{t-1} "
                                                                         "Abar^{t-1-s} Bbar u_s")):
        Ad, Bd = R.discretise(A, B, dt, tag)
        y = R.linear_scan(Ad, Bd, C, U, convention="C1")
        e = float(np.abs(apply_kernel_tensor(R.linear_kernel(Ad, Bd, C, n, convention="printed"), U, np.ones(n)) - y).max()
                  / np.abs(y).max())
        bind = {"Ad": Ad.tolist(), "Bd": Bd.tolist(), "C": C.tolist(), "U": U[:8].tolist()}
        e8 = float(np.abs(apply_kernel_tensor(R.linear_kernel(Ad, Bd, C, 8, convention="printed"), U[:8], np.ones(8))
                          - R.linear_scan(Ad, Bd, C, U[:8], convention="C1")).max()
                   / np.abs(R.linear_scan(Ad, Bd, C, U[:8], convention="C1")).max())
        parts[f"{tag}_kernel_vs_printed_recurrence"] = Evidence(
            V.holds(e <= 1e-10), {"rel_err": e, "rel_err_first_8": e8},
            reading=Reading(f"the kernel C Ad^(t-s) Bd reproduces the recurrence printed beside it ({eq})",
                            f"003 App E.11: {eq}, 'an ITNet with kernel C Ad^(t-s) Bd'"),
            thresholds=[exact_threshold("max rel error kernel sum vs printed recurrence", e)],
            counterexample={**bind, "rel_err": e8}, repro=Repro(EXPR, bind, e8, rtol=1e-9, atol=1e-12),
            notes="the printed kernel has one power of A too many for h_t = sum_{s<t} A^{t-1-s} B u_s")
    h = np.zeros(N)
    hz = np.zeros(N)
    AZ, BZ = R.discretise(A, B, dt, "zoh")
    zerr = 0.0
    for k in range(n):
        Mx = np.zeros((N + d, N + d))
        Mx[:N, :N], Mx[:N, N:] = A, B
        h = (expm(Mx * dt) @ np.concatenate([h, U[k]]))[:N]
        hz = AZ @ hz + BZ @ U[k]
        zerr = max(zerr, float(np.linalg.norm(h - hz) / max(1e-300, np.linalg.norm(h))))
    parts["zoh_pair_exact_piecewise_constant"] = Evidence(
        V.holds(zerr <= 1e-10), {"max_rel_err": zerr},
        thresholds=[exact_threshold("ZOH recurrence vs exact flow", zerr)],
        scope=Scope("instance", "one stable 3x3 system, n steps of dt = 0.1"))
    return of_parts(parts, notes="(Abar, Bbar) are exact for piecewise-constant input; the printed "
                                          "kernels disagree with the printed sums by one factor of A")
