"""itnet.thm5_kernel_recovery (003 Thm 5 eq.12, Thm 6 App G)."""
from __future__ import annotations

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support.itnet_exact_references import exact_threshold

# the non-circulant part of the exact gradient (2/n)(K/n - T) Sigma, relative to the gradient
PERP = ("(lambda g: float(np.linalg.norm(g - (lambda c: c[(np.arange(len(g))[None, :] - np.arange(len(g))[:, None]) "
        "% len(g)])(np.array([np.mean(g[np.arange(len(g)), (np.arange(len(g)) + k) % len(g)]) for k in range(len(g))]))"
        ") / np.linalg.norm(g)))((2.0 / len(K)) * (np.array(K) / len(K) - np.array(T)) @ np.array(S))")


def _circ(c):
    n = c.size
    i, j = np.indices((n, n))
    return c[(j - i) % n]


def _proj(M):
    n = M.shape[0]
    return _circ(np.array([np.mean(np.diag(np.roll(M, -k, axis=1))) for k in range(n)]))


@register("itnet.thm5_kernel_recovery",
          method="exact population gradient of a linear kernel on Z_n with stationary (circulant-covariance) data "
                 "and a circulant target: its non-circulant part at a random K; invariance of the TI subspace")
def check_thm5(ctx):
    rng = ctx.rng("thm5")
    n = 8
    T = _circ(rng.normal(size=n) / n)
    spec = 0.5 + rng.uniform(0, 1, n)
    spec = (spec + spec[(-np.arange(n)) % n]) / 2
    S = _circ(np.real(np.fft.ifft(spec)))
    grad = lambda K: (2.0 / n) * ((K / n - T) @ S)          # noqa: E731
    K = rng.normal(size=(n, n))
    g = grad(K)
    ratio = float(np.linalg.norm(g - _proj(g)) / np.linalg.norm(g))
    Kti = _circ(rng.normal(size=n))
    gti = grad(Kti)
    r_ti = float(np.linalg.norm(gti - _proj(gti)) / np.linalg.norm(gti))
    bind = {"K": K.tolist(), "T": T.tolist(), "S": S.tolist()}
    inv = Evidence(V.holds(r_ti <= 1e-12), {"perp_ratio_at_TI_K": r_ti},
                   reading=Reading("the TI subspace is invariant under gradient flow",
                                   '003 App G: "if initialized in (or near) the TI subspace, it remains there"'),
                   thresholds=[exact_threshold("non-circulant part of the gradient at a circulant K", r_ti, tol=1e-12)],
                   scope=Scope("instance", "one circulant K, n = 8"))
    return Evidence(
        V.holds(ratio <= 1e-12), {"perp_grad_ratio_random_K": ratio, "n": n},
        reading=Reading("||dL/dkappa^perp|| = 0 at every iterate (for every kappa the flow visits)",
                        '003 Thm 5 eq.12 and Thm 6 eq.186: "||dL/dkappa_perp||_F = 0 at every iterate, so gradient '
                        'flow converges to a translation-invariant kernel"'),
        thresholds=[exact_threshold("||grad - circulant projection|| / ||grad|| at a random K", ratio, tol=1e-12)],
        counterexample={**bind, "ratio": ratio}, repro=Repro(PERP, bind, ratio, rtol=1e-9),
        other_readings={"R2_TI_invariant": inv},
        notes="stationary data (circulant covariance S) and a circulant target T are translation-invariant, yet "
              "the gradient at a non-circulant K has a non-circulant part: eq.12 fails off the TI subspace")
