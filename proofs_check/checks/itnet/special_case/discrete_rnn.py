"""itnet.special_case.discrete_rnn (003 Thm 3(b), Thm E.1(b), App E.4)."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support.itnet_exact_references import EXACT_TOL, exact_threshold
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import recurrent as R

EXPR = ("float(np.abs(yatmath.itnet.apply_kernel_tensor(yatmath.itnet.special.recurrent.linear_kernel("
        "np.array(Wh), np.array(Wu), np.array(C), len(U)), np.array(U), np.full(len(U), dt), W=np.array(D)) - "
        "yatmath.itnet.special.recurrent.linear_scan(np.array(Wh), np.array(Wu), np.array(C), np.array(U), "
        "D=np.array(D))).max() / np.abs(yatmath.itnet.special.recurrent.linear_scan(np.array(Wh), np.array(Wu), "
        "np.array(C), np.array(U), D=np.array(D))).max())")


def _system(rng, n, N=3, d=2):
    Wh = rng.normal(size=(N, N))
    Wh *= 0.9 / max(abs(np.linalg.eigvals(Wh)))
    return Wh, rng.normal(size=(N, d)), rng.normal(size=(d, N)), rng.normal(size=(d, d)), rng.normal(size=(n, d))


def _err(Wh, Wu, C, D, U, dt):
    y = R.linear_scan(Wh, Wu, C, U, D=D)
    K = R.linear_kernel(Wh, Wu, C, len(U))
    return float(np.abs(apply_kernel_tensor(K, U, np.full(len(U), dt), W=D) - y).max() / np.abs(y).max())


@register("itnet.special_case.discrete_rnn",
          method="kernel 1_{s<=t} C W_h^{t-s} W_u + D u_t vs a loop over >= 20 random linear RNNs, under "
                 "mu({t_k}) = 1 (Thm 3(b)); the Thm E.1(b) weight mu({t_k}) = dt reported")
def check_discrete_rnn(ctx):
    n, dt = ctx.pick(40, 200), 0.1
    restarts = ctx.pick(20, 40)
    worst, arg = 0.0, None
    for k in range(restarts):
        e = _err(*_system(ctx.rng(f"r{k}"), n), 1.0)
        if e >= worst:
            worst, arg = e, k
    Wh, Wu, C, D, U = _system(ctx.rng("r0"), 12)
    e_dt = _err(Wh, Wu, C, D, U, dt)
    b = {"Wh": Wh.tolist(), "Wu": Wu.tolist(), "C": C.tolist(), "D": D.tolist(), "U": U.tolist(), "dt": dt}
    other = Evidence(V.holds(e_dt <= EXACT_TOL), {"rel_err": e_dt, "dt": dt},
                     reading=Reading("mu({t_k}) = dt with the same kernel (no 1/dt rescaling)",
                                     "003 Thm E.1(b) (mu({t_k}) = Delta t)"),
                     thresholds=[exact_threshold("max rel error kernel sum vs loop", e_dt)],
                     counterexample=b, repro=Repro(EXPR, b, e_dt, rtol=1e-9, atol=1e-12))
    return Evidence(
        V.holds(worst <= EXACT_TOL), {"max_rel_err_mu_1": worst, "restarts": restarts, "maximiser_restart": arg,
                                      "n": n},
        reading=Reading("counting measure mu({t_k}) = 1: (K[u])(t) = sum_{s<=t} C W_h^{t-s} W_u u_s + D u_t",
                        '003 Thm 3(b): "Discretising to T time steps with mu({t_k}) = 1, the causal kernel ... '
                        'yields (K[u])(t) = sum_{s=1}^t C W_h^{t-s} W_u u_s + D u_t = C h_t + D u_t" (the sum '
                        'it derives has unit weights)'),
        thresholds=[exact_threshold("max rel error kernel sum vs loop (mu = 1)", worst)],
        scope=Scope("search", f"{restarts} random linear RNNs (N=3, d=2, spectral radius 0.9), n = {n}",
                    universal=True),
        other_readings={"mu_dt_thm_E1b": other},
        notes="with mu({t_k}) = dt the recurrent part is scaled by dt unless the kernel is divided by dt")
