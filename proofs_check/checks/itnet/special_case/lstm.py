"""itnet.special_case.lstm (003 Thm 3(c), Prop 7 (App E.7, eq.148))."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Repro, Scope, register
from proofs_check.support.itnet_b4b7_helpers import of_parts, exact_threshold, lstm_params
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import recurrent as R

EXPR = ("float(np.abs(yatmath.itnet.apply_kernel_tensor(yatmath.itnet.special.recurrent.lstm_printed_kernel("
        "{k: np.array(v) for k, v in p.items()}, np.array(U)), np.array(U), np.ones(len(U))) - "
        "yatmath.itnet.special.recurrent.lstm_reference({k: np.array(v) for k, v in p.items()}, np.array(U))['Y'])"
        ".max() / np.abs(yatmath.itnet.special.recurrent.lstm_reference({k: np.array(v) for k, v in p.items()}, "
        "np.array(U))['Y']).max())")


@register("itnet.special_case.lstm",
          method="unrolling identity over >= 20 random lstms; the printed kernel's output vs the reference lstm "
                 "at input scales 1e-3..1")
def check_lstm(ctx):
    restarts = ctx.pick(20, 40)
    worst_unroll = 0.0
    for k in range(restarts):
        r = ctx.rng(f"u{k}")
        p = lstm_params(r)
        U = r.normal(size=(12, 2))
        o = R.lstm_reference(p, U)
        gate, inc, target = o["f"], o["i"] * o["ct"], o["c"]
        unroll = np.zeros_like(target)
        for t in range(len(U)):
            for s in range(t + 1):
                unroll[t] += np.prod(gate[s + 1:t + 1], axis=0) * inc[s]
        worst_unroll = max(worst_unroll, float(np.abs(unroll - target).max()))
    rng = ctx.rng("kernel")
    n = ctx.pick(15, 50)
    p = lstm_params(rng)
    U0 = rng.normal(size=(n, 2))
    scales = [1e-3, 1e-2, 1e-1, 1.0]
    errs = []
    for a in scales:
        U = a * U0
        y = R.lstm_reference(p, U)["Y"]
        errs.append(float(np.abs(apply_kernel_tensor(R.lstm_printed_kernel(p, U), U, np.ones(n)) - y).max()
                          / np.abs(y).max()))
    bind = {"p": {k: v.tolist() for k, v in p.items()}, "U": U0.tolist()}
    parts = {
        "unrolling_identity": Evidence(
            V.holds(worst_unroll <= 1e-12), {"max_residual": worst_unroll, "restarts": restarts},
            thresholds=[exact_threshold("max |unrolled sum - state|", worst_unroll, tol=1e-12,
                                        what="float64 products and sums of 12 gate values in (0, 1)")],
            scope=Scope("search", f"{restarts} random lstm parameter sets, 12 steps", universal=True)),
        "printed_kernel_recovers_output": Evidence(
            V.holds(errs[-1] <= 1e-10), {"rel_err_vs_scale": errs, "scales": scales},
            thresholds=[exact_threshold("max rel error of the printed kernel's output (scale 1)", errs[-1])],
            counterexample={**bind, "rel_err": errs[-1]}, repro=Repro(EXPR, bind, errs[-1], rtol=1e-9),
            notes="the printed kernel drops the recurrent (h_{t-1}) paths of the gates and candidate; its output "
                  "misses y_t by O(1)"),
    }
    return of_parts(parts, numbers={"rel_err_vs_scale": errs, "unroll_residual": worst_unroll})
