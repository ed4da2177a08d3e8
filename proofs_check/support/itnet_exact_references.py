"""Exact references shared by the itnet recurrence / approximation / tiling / gradient checks.

Used by several modules of ``proofs_check/checks/itnet/`` (which never import each other).
Exact references: linear ODE/SSM driven by an oscillator input via the augmented ``expm``;
nonlinear ODEs by ``solve_ivp`` (DOP853, rtol = atol = 1e-12); discrete recurrences by loops.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import expm
from scipy.optimize import linprog

from yatmath.stats import rel_err

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Repro, Scope, Threshold
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.diagnostic import max_mixed_difference, mixed_difference
from yatmath.itnet.measures import interval_rule
from yatmath.itnet.special import recurrent as R

RTOL_IVP = 1e-12
EXACT_TOL = 1e-10        # float64 sums of O(1) terms over <= a few hundred steps
FD_H = 1e-6              # central-difference step (fp64: error ~ h^2 |f^(3)| + u |f| / h ~ 1e-10)
FD_RTOL = 1e-6           # FD agreement: far above the ~1e-10 FD error, far below any missing term


def fd_threshold(name, measured, *, tol=FD_RTOL):
    """The precision threshold of a central-difference comparison (flips at the measured value)."""
    return Threshold(name, tol, "precision",
                     f"central differences in float64, h = {FD_H}: truncation ~h^2|f^(3)| plus rounding "
                     f"~u|f|/h gives ~1e-10 relative; a wrong formula term is O(1) relative; tolerance {tol}",
                     measured, measured)


def exact_threshold(name, measured, *, tol=EXACT_TOL, what="float64 sums of O(1) terms (n <= a few hundred)"):
    """A precision threshold for an identity evaluated in float64 (flips at the measured value)."""
    return Threshold(name, tol, "precision", f"{what}: rounding ~ n u ~ 1e-13 relative; tolerance {tol}",
                     measured, measured)


def fd(f, x, h=FD_H):
    """Central-difference gradient of the scalar f at x (all entries)."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        g[idx] = (f(xp) - f(xm)) / (2 * h)
    return g


def dir_fd(f, x, v, h=FD_H):
    """Central difference of f along direction v: (f(x + h v) - f(x - h v)) / 2h."""
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


def rel(a, b):
    """Relative Frobenius error ||a - b||_F / ||b||_F (``yatmath.stats.rel_err``)."""
    return rel_err(a, b, norm="fro")


def max_D(F, U, i, j, k, rng, draws):
    """max ||D|| over random (a, a', b, b') ~ N(0, 1)^d, with the maximiser."""
    d = U.shape[1]
    best, arg = 0.0, None
    for _ in range(draws):
        a, a2, b, b2 = rng.normal(size=(4, d))
        v = float(np.linalg.norm(mixed_difference(F, U, i, j, k, a, a2, b, b2)))
        if v > best:
            best, arg = v, [a.tolist(), a2.tolist(), b.tolist(), b2.tolist()]
    return {"norm": best, "sup_error_lower_bound": best / 4, "maximiser": arg}


def best_additive_error(grid):
    """min_t max |a b - phi(a) - psi(b) - c| over a, b in grid with phi(0) = psi(0) = 0 (an LP):
    the best sup error of a single Def.-1 layer for the target u(x2) u(x3) at x1 (fixed u(x1))."""
    m = grid.size
    nv = 2 * m + 2
    A, b = [], []
    for ia, a in enumerate(grid):
        for ib, bb in enumerate(grid):
            row = np.zeros(nv)
            row[ia] = 1
            row[m + ib] = 1
            row[2 * m] = 1
            r1 = row.copy()
            r1[-1] = -1
            A.append(r1)
            b.append(a * bb)
            r2 = -row
            r2[-1] = -1
            A.append(r2)
            b.append(-a * bb)
    z = int(np.argmin(np.abs(grid)))
    Aeq = np.zeros((2, nv))
    Aeq[0, z] = 1
    Aeq[1, m + z] = 1
    cost = np.zeros(nv)
    cost[-1] = 1
    res = linprog(cost, A_ub=np.array(A), b_ub=np.array(b), A_eq=Aeq, b_eq=np.zeros(2),
                  bounds=[(None, None)] * (nv - 1) + [(0, None)], method="highs")
    return float(res.fun)


def stable_matrix(rng, N, decay=0.5):
    """A random real N x N matrix with spectrum in Re < -decay/2 (symmetric negative part + skew)."""
    M = rng.normal(size=(N, N)) / np.sqrt(N)
    return -(M @ M.T) / 2 - decay * np.eye(N) + (M - M.T) / 2


def oscillator_input(freqs=(2.0, 3.0), offset=0.5):
    """u(t) = P v(t), v' = S v: u_0 = sin(f0 t), u_1 = cos(f1 t) + offset (S block diagonal)."""
    f0, f1 = freqs
    S = np.zeros((5, 5))
    S[0, 1], S[1, 0] = f0, -f0           # v0 = sin f0 t, v1 = cos f0 t
    S[2, 3], S[3, 2] = f1, -f1           # v2 = sin f1 t, v3 = cos f1 t
    v0 = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    P = np.zeros((2, 5))
    P[0, 0] = 1.0
    P[1, 3], P[1, 4] = 1.0, offset

    def u(t):
        t = np.asarray(t, float)
        return np.stack([np.sin(f0 * t), np.cos(f1 * t) + offset], axis=-1)

    return S, P, v0, u


def exact_linear_state(A, B, S, P, v0, h0, t):
    """h(t) of h' = A h + B P v, v' = S v, via the augmented exponential (complex A allowed)."""
    N, k = A.shape[0], S.shape[0]
    M = np.zeros((N + k, N + k), dtype=np.result_type(A, B, complex if np.iscomplexobj(A) else float))
    M[:N, :N], M[:N, N:], M[N:, N:] = A, B @ P, S
    z0 = np.concatenate([h0, v0]).astype(M.dtype)
    return np.array([(expm(M * ti) @ z0)[:N] for ti in np.atleast_1d(t)])


def ssm_row(A, B, C, s, T):
    """K(T, s_j) = C e^{A (T - s_j)} B for all s_j <= T: (n, p, m) (one expm per node; the same
    formula as ``recurrent.ssm_kernel``, whose last row it equals; checked in the s4 check)."""
    return np.array([C @ expm(A * (T - sj)) @ B for sj in np.asarray(s, float)])


def ssm_output_at_T(A, B, C, u, T, measure):
    """sum_j omega_j C e^{A (T - s_j)} B u(s_j): the ITNet integral at query t = T (all s_j <= T)."""
    s = measure.nodes[:, 0]
    return np.einsum("jab,jb,j->a", ssm_row(A, B, C, s, T), u(s), measure.weights)


def causal_ssm_kernel_uniform(A, B, C, t):
    """K[i, j] = 1_{j<=i} C e^{A (t_i - t_j)} B on a uniform grid (powers of e^{A h}); equals
    ``recurrent.ssm_kernel`` there (checked in check_linear_ode)."""
    n, h = t.size, t[1] - t[0]
    E = expm(A * h)
    P = [np.eye(A.shape[0], dtype=E.dtype)]
    for _ in range(n - 1):
        P.append(E @ P[-1])
    lag = np.array([C @ Pk @ B for Pk in P])
    i, j = np.tril_indices(n)
    K = np.zeros((n, n) + lag.shape[1:], dtype=lag.dtype)
    K[i, j] = lag[i - j]
    return K


def ssm_rule_error(A, B, C, D, T, rule, n):
    """Relative error at t = T of the ITNet integral of 1_{s<=t} C e^{A(t-s)} B (+ D u(T)) by the
    quadrature ``rule`` with n nodes, against the exact augmented-expm output (h0 = 0)."""
    S, P, v0, u = oscillator_input()
    hT = exact_linear_state(A, B, S, P, v0, np.zeros(A.shape[0]), T)[0]
    yT = np.real(C @ hT) + D @ u(T)
    mu = interval_rule(rule, n, 0.0, T)
    y = np.real(ssm_output_at_T(A, B, C, u, T, mu)) + D @ u(T)
    return float(np.linalg.norm(y - yT) / np.linalg.norm(yT))


def bounded_max_mixed_difference(F, U, i, j, k, *, box=1.0, starts=4, rng=None, maxiter=300):
    """max ||D|| over slot values in [-box, box]^d (``diagnostic.max_mixed_difference``)."""
    md = max_mixed_difference(F, U, i, j, k, starts=starts, box=box, maxiter=maxiter, rng=rng)
    return {"norm": md["norm"], "sup_error_lower_bound": md["sup_error_lower_bound"],
            "values": np.array(md["values"]).tolist(), "box": box, "starts": starts}


from proofs_check.support.itnet_paper003_formulas import alekseev_formulas as alekseev_variants  # noqa: E402


def lstm_params(rng, N=3, d=2):
    p = {}
    for g in ("f", "i", "o", "c"):
        p["W" + g] = rng.normal(size=(N, N + d)) / np.sqrt(N + d) * 1.5
        p["b" + g] = rng.normal(size=N) * 0.3
    p["Wy"] = rng.normal(size=(d, N))
    return p


def gru_params(rng, N=3, d=2):
    p = {}
    for g in ("z", "r", "h"):
        p["W" + g] = rng.normal(size=(N, N + d)) / np.sqrt(N + d) * 1.5
        p["b" + g] = rng.normal(size=N) * 0.3
    p["Wy"] = rng.normal(size=(d, N))
    return p




def of_parts(parts, **kw):
    """``Evidence.of_parts`` (each refuted part carries its own counterexample and reproduction)."""
    from proofs_check.registry import Evidence
    return Evidence.of_parts(parts, **kw)


def printed_kernel_expr(cell: str) -> str:
    """The reproduction: relative error of the printed ``cell`` kernel's output against the reference."""
    ref = (f"yatmath.itnet.special.recurrent.{cell}_reference({{k: np.array(v) for k, v in p.items()}}, "
           "np.array(U))['Y']")
    return (f"float(np.abs(yatmath.itnet.apply_kernel_tensor(yatmath.itnet.special.recurrent.{cell}_printed_kernel("
            "{k: np.array(v) for k, v in p.items()}, np.array(U)), np.array(U), np.ones(len(U))) - "
            f"{ref}).max() / np.abs({ref}).max())")


def gated_rnn_evidence(ctx, cell: str, params, split):
    """Evidence for a gated recurrence (003 Props 7-8): the unrolling identity over random cells, and
    the printed kernel's output against the reference cell at input scales 1e-3..1.

    ``cell`` is "lstm" or "gru"; ``params(rng)`` draws its parameters; ``split(outputs)`` gives the
    (gate, increment, state) whose unrolled sum must equal the state."""
    reference = getattr(R, f"{cell}_reference")
    printed = getattr(R, f"{cell}_printed_kernel")
    restarts = ctx.pick(20, 40)
    worst_unroll = 0.0
    for k in range(restarts):
        r = ctx.rng(f"u{k}")
        p = params(r)
        U = r.normal(size=(12, 2))
        o = reference(p, U)
        gate, inc, target = split(o)
        unroll = np.zeros_like(target)
        for t in range(len(U)):
            for s in range(t + 1):
                unroll[t] += np.prod(gate[s + 1:t + 1], axis=0) * inc[s]
        worst_unroll = max(worst_unroll, float(np.abs(unroll - target).max()))
    rng = ctx.rng("kernel")
    n = ctx.pick(15, 50)
    p = params(rng)
    U0 = rng.normal(size=(n, 2))
    scales = [1e-3, 1e-2, 1e-1, 1.0]
    errs = []
    for a in scales:
        U = a * U0
        y = reference(p, U)["Y"]
        errs.append(float(np.abs(apply_kernel_tensor(printed(p, U), U, np.ones(n)) - y).max()
                          / np.abs(y).max()))
    bind = {"p": {k: v.tolist() for k, v in p.items()}, "U": U0.tolist()}
    parts = {
        "unrolling_identity": Evidence(
            V.holds(worst_unroll <= 1e-12), {"max_residual": worst_unroll, "restarts": restarts},
            thresholds=[exact_threshold("max |unrolled sum - state|", worst_unroll, tol=1e-12,
                                        what="float64 products and sums of 12 gate values in (0, 1)")],
            scope=Scope("search", f"{restarts} random {cell} parameter sets, 12 steps", universal=True)),
        "printed_kernel_recovers_output": Evidence(
            V.holds(errs[-1] <= 1e-10), {"rel_err_vs_scale": errs, "scales": scales},
            thresholds=[exact_threshold("max rel error of the printed kernel's output (scale 1)", errs[-1])],
            counterexample={**bind, "rel_err": errs[-1]}, repro=Repro(printed_kernel_expr(cell), bind, errs[-1], rtol=1e-9),
            notes="the printed kernel drops the recurrent (h_{t-1}) paths of the gates and candidate; its output "
                  "misses y_t by O(1)"),
    }
    return of_parts(parts, numbers={"rel_err_vs_scale": errs, "unroll_residual": worst_unroll})
