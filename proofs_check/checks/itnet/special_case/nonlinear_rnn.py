"""itnet.special_case.nonlinear_rnn (003 App E.4 step 3, eqs 134-135)."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Repro, Scope, register
from proofs_check.support.itnet_exact_references import exact_threshold
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import recurrent as R

EXPR = ("float(np.abs(yatmath.itnet.apply_kernel_tensor(yatmath.itnet.special.recurrent.rnn_printed_kernel("
        "np.array(Wh), np.array(Wu), np.array(b), np.array(C), np.array(U)), np.array(U), np.ones(len(U))) - "
        "yatmath.itnet.special.recurrent.rnn_reference(np.array(Wh), np.array(Wu), np.array(b), np.array(C), "
        "np.array(U))[0]).max() / np.abs(yatmath.itnet.special.recurrent.rnn_reference(np.array(Wh), "
        "np.array(Wu), np.array(b), np.array(C), np.array(U))[0]).max())")


@register("itnet.special_case.nonlinear_rnn",
          method="printed kernel C prod diag(tanh') W_h W_u (bias 0) vs a tanh RNN at input scales 1e-3..1")
def check_nonlinear_rnn(ctx):
    rng = ctx.rng("rnn")
    n, N, d = ctx.pick(20, 60), 3, 2
    Wh = rng.normal(size=(N, N))
    Wh *= 0.8 / max(abs(np.linalg.eigvals(Wh)))
    Wu, b, C = rng.normal(size=(N, d)), np.zeros(N), rng.normal(size=(d, N))
    U0 = rng.normal(size=(n, d))
    scales = [1e-3, 1e-2, 1e-1, 1.0]
    errs = []
    for a in scales:
        U = a * U0
        y = R.rnn_reference(Wh, Wu, b, C, U)[0]
        errs.append(float(np.abs(apply_kernel_tensor(R.rnn_printed_kernel(Wh, Wu, b, C, U), U, np.ones(n)) - y).max()
                          / np.abs(y).max()))
    bind = {"Wh": Wh.tolist(), "Wu": Wu.tolist(), "b": b.tolist(), "C": C.tolist(), "U": U0.tolist()}
    return Evidence(
        V.holds(errs[-1] <= 1e-10), {"rel_err_vs_scale": errs, "scales": scales},
        thresholds=[exact_threshold("max rel error, printed kernel sum vs tanh RNN (scale 1)", errs[-1])],
        scope=Scope("instance", "one tanh RNN (N=3, d=2, bias 0, h0 = 0), four input scales"),
        counterexample={**bind, "rel_err": errs[-1]},
        repro=Repro(EXPR, bind, errs[-1], rtol=1e-9),
        notes="phi = tanh is element-wise, yet the printed kernel (a product of Jacobians, i.e. a linearisation) "
              "misses y by O(1) at unit input scale; the error falls with the input scale (reported).")
