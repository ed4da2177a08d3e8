"""itnet.rnn_strictness (003 Thm 3(e), App E.9, E.10)."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Repro, Scope, register
from proofs_check.support.itnet_exact_references import of_parts, exact_threshold
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.measures import interval_rule

RANK_EXPR = "int(np.linalg.matrix_rank(np.tril(np.exp(-(np.array(t)[:, None] - np.array(t)[None, :])))))"


@register("itnet.rnn_strictness",
          method="(a) impulse response of the bidirectional smoother before the impulse; (b) rank of the "
                 "discretised operator of a 1-state causal system vs the 'span of the n columns of C' argument")
def check_rnn_strictness(ctx):
    T, ell, n = 1.0, 0.3, ctx.pick(200, 1000)
    mu = interval_rule("midpoint", n, 0.0, T)
    t = mu.nodes[:, 0]
    js, iq = int(np.searchsorted(t, 0.7)), int(np.searchsorted(t, 0.5))
    u = np.zeros((n, 1))
    u[js, 0] = 1.0 / mu.weights[js]
    S = apply_kernel_tensor(np.exp(-np.abs(t[:, None] - t[None, :]) / ell)[:, :, None, None], u, mu.weights)[:, 0]
    resp, analytic = float(S[iq]), float(np.exp(-abs(t[iq] - t[js]) / ell))
    dev = abs(resp - analytic)
    a = Evidence(V.holds(resp > 0 and dev <= 1e-12), {"response_before_impulse": resp, "analytic": analytic},
                 thresholds=[exact_threshold("|S(impulse)(0.5) - e^{-0.2/0.3}|", dev, tol=1e-12)],
                 scope=Scope("instance", "the operator S of Thm 3(e) with l = 0.3: an impulse at 0.7 moves the output "
                                         "at 0.5, so S is not causal (an existence claim: one witness suffices)"))
    m = 64
    tg = np.linspace(0, 1, m)
    rank = int(np.linalg.matrix_rank(np.tril(np.exp(-(tg[:, None] - tg[None, :])))))
    b = Evidence(V.holds(rank <= 1), {"rank_of_1_state_operator": rank, "grid": m},
                 thresholds=[exact_threshold("numerical rank (SVD, default tolerance) minus the state dimension 1",
                                             float(rank - 1), tol=0.0, what="matrix_rank in float64")],
                 counterexample={"system": "h' = -h + u, y = h (1 state)", "t": tg.tolist(), "rank": rank},
                 repro=Repro(RANK_EXPR, {"t": tg.tolist()}, rank, rtol=0, atol=0),
                 notes="App E.10's argument ('outputs lie in the span of the n columns of C') bounds y(t) in R^p "
                       "pointwise, not the rank of the input-output operator: a 1-state causal system already has "
                       "full rank on a grid; K_n is nonetheless not an RNN because it is symmetric, hence non-causal")
    return of_parts({"a_noncausal_impulse": a, "b_rank_argument": b},
                             numbers={"impulse_response": resp, "rank_1_state": rank})
