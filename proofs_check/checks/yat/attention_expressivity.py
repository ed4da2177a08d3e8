"""Check of claims.md A9 yat.attention_expressivity (000 §2.2; 001 eq.3; 002 eq.12).

The statement has no formal content (NOT_CHECKABLE); a proxy fit of target attention maps with Yat
vs scaled dot-product scores is recorded as a labelled substitute.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Tried, register
from yatmath.yat.attention import attention, attention_backward


def _fit_attention(X, target, kind, dh, eps, rng, restarts, maxiter):
    """Best MSE between a single-head attention map A(X W_Q, X W_K) and ``target``."""
    L, d = X.shape
    I = np.eye(L)

    def fg(theta):
        Wq, Wk = theta[:d * dh].reshape(d, dh), theta[d * dh:].reshape(d, dh)
        Q, K = X @ Wq, X @ Wk
        if kind == "yat":
            A, cache = attention(Q, K, I, eps, return_cache=True, backend="numpy")
            dA = 2 * (A - target) / A.size
            g = attention_backward(dA, cache)
            dQ, dK = g.Q, g.K
        else:
            Z = Q @ K.T / math.sqrt(dh)
            A = special.softmax(Z, axis=1)
            dA = 2 * (A - target) / A.size
            dZ = A * (dA - np.sum(dA * A, axis=1, keepdims=True)) / math.sqrt(dh)
            dQ, dK = dZ @ K, dZ.T @ Q
        f = float(np.mean((A - target) ** 2))
        return f, np.concatenate([(X.T @ dQ).ravel(), (X.T @ dK).ravel()])

    best = np.inf
    for _ in range(restarts):
        th0 = rng.standard_normal(2 * d * dh) * rng.choice([0.3, 1.0, 3.0])
        res = optimize.minimize(fg, th0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
        best = min(best, float(res.fun))
    return best


@register("yat.attention_expressivity",
          method="proxy: fit target attention maps (copy, local window, previous token, random "
                 "stochastic) with Yat vs scaled dot-product scores at equal parameters "
                 "(L-BFGS, analytic gradients, multi-start)")
def check_attention_expressivity(ctx):
    rng = ctx.rng("fit")
    L, d, dh, eps = 6, 6, 3, 0.1
    X = rng.standard_normal((L, d))
    targets = {"copy": np.eye(L),
               "window": np.array([[1.0 if abs(i - j) <= 1 else 0 for j in range(L)] for i in range(L)]),
               "previous": np.eye(L, k=-1) + np.diag([1.0] + [0] * (L - 1)),
               "random": rng.dirichlet(np.ones(L), L)}
    targets = {k: t / t.sum(axis=1, keepdims=True) for k, t in targets.items()}
    restarts, maxiter = ctx.pick(2, 5), ctx.pick(100, 300)
    res = {}
    for name, T in targets.items():
        e_y = _fit_attention(X, T, "yat", dh, eps, ctx.rng(f"y{name}"), restarts, maxiter)
        e_d = _fit_attention(X, T, "dot", dh, eps, ctx.rng(f"d{name}"), restarts, maxiter)
        res[name] = {"yat_mse": e_y, "dot_mse": e_d}
    return Evidence(
        verdict=V.NOT_CHECKABLE,
        numbers={"best_mse": res, "L": L, "d": d, "d_h": dh, "eps": eps, "restarts": restarts},
        tried=Tried(
            printed="000 §2.2 ('preserves the expressive power of multi-head attention'), 001 eq.3 and 002 eq.12 "
                    "define Yat attention and print no number about its expressivity: no fitted map, error, "
                    "benchmark or head count; the language-model losses of yat.exp.gpt2_* measure a whole model, "
                    "not this property. Nothing to compare.",
            search="A formal content was sought in the free choices (class of target maps, norm, head size) with "
                   f"a proxy: one head of each kind, equal parameters (L = {L}, d = {d}, d_h = {dh}, eps = {eps}), "
                   f"L-BFGS from {restarts} starts per target, best MSE (Yat, dot) = "
                   + ", ".join(f"{k} ({v['yat_mse']:.2g}, {v['dot_mse']:.2g})" for k, v in res.items())
                   + (". Which kind fits better changes with the target" if len({v["yat_mse"] < v["dot_mse"]
                                                                               for v in res.values()}) == 2
                      else ". One kind fits every target better here, by margins a multi-start optimiser does not "
                           "make final")
                   + ", so these fits make 'preserves' neither uniformly true nor false; the paper states no class "
                     "or norm that would.",
            budget="The proxy takes seconds to tens of seconds at quick; more restarts or larger L only refine "
                   "these errors. 'Expressive power' has no definition in the papers (no class of maps, norm or "
                   "size), and no budget supplies one."),
        reading=Reading("Yat attention can represent the attention maps dot-product attention can",
                        '000 §2.2: "preserves the expressive power of multi-head attention" (no class '
                        'of maps, norm or size is stated); 001 eq.3; 002 eq.12'),
        notes="'Preserves the expressive power' has no formal content in the papers (no class of maps, "
              "no norm, no size): NOT_CHECKABLE. The proxy (best MSE fitting four target maps with one "
              "head of each kind, equal parameters, L-BFGS multi-start) is a labelled substitute in "
              "numbers; it decides nothing.")
