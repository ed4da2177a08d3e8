"""Large-deviation helpers for the particle Gibbs law of 004 (Thm 2 / Thm 6; algorithms.md §P5).

Gibbs and tilted laws
---------------------
For particles Omega_N = (omega_1..omega_N) in a convex domain Omega subset R^d,

    H_N(Omega_N) = (1/N) sum_k V(omega_k) + lam W(Omega_N)

with the pair energy either the N(N-1)-normalised W_{N,s} of 004 eq.2.3 (``diagonal="exclude"``)

    W_{N,s} = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l),

or the mean-field functional evaluated at mu_N (``diagonal="include"``, 004 A.39 / Lemma 7)

    W(mu_N) = (1/(2N^2)) sum_{k, l} g(omega_k - omega_l)   (the diagonal g(0) included).

:class:`PairGibbs` evaluates H_N and grad_{omega_k} H_N for a *batch* of configurations
W of shape (B, N, d) with (B, N, N, d) temporaries: it is meant for the small N (<= a few
hundred) of the large-deviation checks, not for production forces (use
:func:`.forces.interaction_force` for those).  The pair formula is the one of
:mod:`.interactions` (``Interaction.g_vec`` / ``Interaction.grad``), not a re-implementation.

:func:`tilted_langevin` samples the law proportional to exp(-Psi) with

    Psi(Omega_N) = beta_N H_N(Omega_N) - t sum_k f(omega_k)

by the overdamped Langevin iteration Omega <- B(Omega - h grad Psi + sqrt(2h) xi) with a small
step h and B the mirror reflection (default) or the Euclidean projection of the domain.  beta_N
and t may differ per batch member, so a whole grid of tilts runs as one batch.  The invariant
law of the scheme differs from exp(-Psi) by O(h) (Euler-Maruyama): the callers state h.

:func:`beta_n` maps the algorithm's beta to beta_N for each reading of particles.alg.invariant_law
(R1: beta_N = beta; R2: beta_N = beta N).

Thermodynamic integration
-------------------------
    Lambda_N(t) = (1/N) log E_{P_N}[exp(t sum_k f(omega_k))] = int_0^t E_{t'}[(1/N) sum_k f] dt'
    log Z(beta) = N log|Omega| - int_0^beta E_{beta'}[H_N] dbeta'      (Z w.r.t. Lebesgue)

(:func:`cumulative_integral` is the composite trapezoid or Simpson rule; the standard error of
independent per-node means propagates through the quadrature weights.)

Mean-field comparison
---------------------
With beta_N = beta0 N, F(mu) = beta0 E_s(mu) + Ent(mu | Lebesgue) and
E_s(mu) = int V dmu + (lam/2) iint g dmu dmu (004 eq.4.2), Gärtner-Ellis predicts

    Lambda(t) = lim_N Lambda_N(t) = -inf_mu [F(mu) - t <f, mu>] + inf_mu F(mu).

The minimiser solves mu_t ∝ exp(-beta0 (V + lam g * mu_t) + t f); :func:`mean_field_lambda`
finds it with the damped fixed point of :class:`.pde.McKeanVlasovFV` (potential V - t f / beta0)
and evaluates F on the grid, so Lambda(t) = -beta0 (F_h,t(mu_t) - F_h,0(mu_0)).  For a positive
definite interaction (e.g. Plummer s > 0) and lam >= 0, F is strictly convex and the fixed point
is the global minimiser; otherwise the caller must start from several densities.  Accuracy:
second order in the grid step (Scharfetter-Gummel fixed point), plus the fixed-point tolerance.

Sanov
-----
:func:`sanov_two_bin`: for N i.i.d. points with P(A) = p, P(fraction in A >= a) (exact, from
``scipy.stats.binom.logsf``) against exp(-N KL(Bern(a) || Bern(p))).  Bahadur-Rao: the ratio of
the two is Theta(N^{-1/2}), so -(1/N) log P - KL = O(log N / N).

Other pieces
------------
:func:`truncated_riesz_energy_uniform` is the truncated energy (1/2) iint g^eps(x - y) dx dy of
the uniform law on [0,1]^d (d = 1, 2) for g^eps = min(r^{-s}, eps^{-s}) (004 A.36), by adaptive
quadrature (relative accuracy ~1e-9).  :func:`simplex_ground_state` minimises the grid energy
p.v + (lam/2) p^T G p over the probability simplex (multi-start exponentiated gradient with a
Frank-Wolfe gap as stationarity certificate), giving e*_eps of 004 Lemma 10 on a grid.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from scipy import integrate, special, stats

from .._typing import Array, RNGLike
from ._arrays import host_op
from .._validate import (as_float_array, as_rng, check_callable, check_choice, check_int,
                         check_memory, check_positive, check_real)
from .domains import Domain
from .interactions import Interaction, as_interaction, interaction_argument, pair_terms

if TYPE_CHECKING:   # annotations only: pde is imported where it is used (mean_field_*)
    from .pde import FVGrid

READINGS = ("R1", "R2")


@host_op("particles.beta_n")
def beta_n(beta: float, N: int, reading: str = "R2") -> float:
    """beta_N of the Gibbs law sampled by the algorithm with inverse temperature ``beta``.

    R1: beta_N = beta;  R2: beta_N = beta N (the drift eta N grad H_N with noise sqrt(2 eta/beta)
    is the Euler scheme of dOmega = -N grad H_N dt + sqrt(2/beta) dB, invariant ∝ exp(-beta N H_N)).
    """
    check_choice(reading, "reading", READINGS)
    beta = check_positive(beta, "beta")
    N = check_int(N, "N", minimum=1)
    return float(beta) if reading == "R1" else float(beta) * int(N)


class PairGibbs:
    """H_N = (1/N) sum_k V(omega_k) + lam W for batches of configurations (see module docstring).

    V, grad_V : callables on arrays (..., d) returning (...) and (..., d); None means V = 0
    lam : interaction strength; interaction : (kind, s, delta) or an :class:`Interaction`
    domain : a :class:`.domains.Box` / ``Interval`` / ``Ball`` (its ``volume`` gives |Omega|)
    diagonal : "exclude" (W_{N,s}, 004 eq.2.3) or "include" (W(mu_N), 004 A.39)
    """

    @host_op("particles.PairGibbs")
    def __init__(self, V: Callable[[Array], Array] | None = None,
                 grad_V: Callable[[Array], Array] | None = None, lam: float = 0.0,
                 interaction: Interaction | tuple[Any, ...] | None = None,
                 domain: Domain | None = None, diagonal: str = "exclude") -> None:
        check_choice(diagonal, "diagonal", ("exclude", "include"))
        if (V is None) != (grad_V is None):
            raise ValueError("V and grad_V must be given together (or both None), got "
                             f"V={V!r}, grad_V={grad_V!r}")
        if V is not None:
            check_callable(V, "V")
            check_callable(grad_V, "grad_V")
        lam = check_real(lam, "lam")
        if not isinstance(domain, Domain):
            raise TypeError(f"domain must be a Box, Interval or Ball of yatmath.particles, got "
                            f"{domain!r}")
        self.V, self.grad_V, self.lam, self.domain = V, grad_V, lam, domain
        self.d = int(domain.d)
        self.diagonal = diagonal
        self.inter = None
        if lam != 0.0:
            if interaction is None:
                raise ValueError("interaction is needed when lam != 0, e.g. ('plummer', 1.0, 0.1)")
            self.inter = interaction_argument(interaction, d=self.d)
            if diagonal == "include" and not np.isfinite(self.inter.g_at_zero()):
                raise ValueError("diagonal='include' needs a finite g(0) (plummer or hard kernel)")

    def _batch(self, W, name="W"):
        W = as_float_array(W, name, ndim=(2, 3)).astype(np.float64)
        if W.ndim == 2 and self.d == 1:
            W = W[..., None]
        if W.ndim != 3 or W.shape[2] != self.d:
            raise ValueError(f"{name} must have shape (B, N, {self.d}), got {np.shape(W)}")
        if W.shape[1] < 2 or W.shape[0] < 1:
            raise ValueError(f"{name} must hold at least one configuration of at least 2 "
                             f"particles, got shape {W.shape}")
        if self.inter is not None:      # the pair arrays below are (B, N, N, d)
            B, N, d = W.shape
            check_memory(3 * B * N * N * d * 8, f"the (B, N, N, d) pair arrays of {name} "
                         f"(B={B}, N={N}, d={d})", alternative="yatmath.particles."
                         "interaction_force/interaction_energy per configuration")
        return W

    def _pair_norm(self, N):
        return 1.0 / (N * (N - 1)) if self.diagonal == "exclude" else 1.0 / N ** 2

    @host_op("particles.PairGibbs.energy")
    def energy(self, W: Array) -> Array:
        """H_N for each configuration: shape (B,)."""
        W = self._batch(W)
        B, N, _ = W.shape
        e = np.zeros(B) if self.V is None else np.mean(self.V(W), axis=1)
        if self.inter is not None:
            diff = W[:, :, None, :] - W[:, None, :, :]
            G = self.inter.g_vec(diff)
            idx = np.arange(N)
            G[:, idx, idx] = self.inter.g_at_zero() if self.diagonal == "include" else 0.0
            e = e + self.lam * 0.5 * self._pair_norm(N) * G.sum(axis=(1, 2))
        return e

    @host_op("particles.PairGibbs.grad")
    def grad(self, W: Array) -> Array:
        """grad_{omega_k} H_N for each configuration and particle: shape (B, N, d)."""
        W = self._batch(W)
        B, N, _ = W.shape
        out = (np.zeros_like(W) if self.V is None
               else np.asarray(self.grad_V(W)) / N)  # type: ignore[misc]
        if self.inter is not None:
            diff = W[:, :, None, :] - W[:, None, :, :]
            idx = np.arange(N)
            if self.inter.singular:
                same = np.all(diff == 0, axis=-1)
                same[:, idx, idx] = False
                if same.any():
                    b_, k, l = (int(v[0]) for v in np.nonzero(same))
                    raise ValueError(f"W has coincident particles {k} and {l} in configuration "
                                     f"{b_}, where the gradient of the bare kernel (kind='none', "
                                     f"s={self.inter.s}) is singular; use kind='plummer' or "
                                     "'hard' (delta > 0)")
            # sum_{l != k} grad g(omega_k - omega_l); the diagonal w = 0 gives 0 in pair_terms
            F = np.sum(pair_terms(diff, self.inter), axis=2)
            out = out + self.lam * 2.0 * 0.5 * self._pair_norm(N) * F
        return out


@dataclass
class TiltedResult:
    """Per-chain time averages after burn-in and the recorded traces (rows: records)."""

    # arrays of the caller's library (tilted_langevin returns them there)
    fbar_mean: Array               # (B,) time average of (1/N) sum_k f
    H_mean: Array                  # (B,) time average of H_N
    fbar_trace: Array              # (n_rec, B)
    H_trace: Array                 # (n_rec, B)
    W: Array                       # final configurations (B, N, d)
    params: dict[str, Any] = field(default_factory=dict)


@host_op("particles.tilted_langevin", note="numpy.random.Generator noise")
def tilted_langevin(system: PairGibbs, W0: Array, *, beta_N: float | Array, t: float | Array = 0.0,
                    f: Callable[[Any], Any] | None = None,
                    grad_f: Callable[[Any], Any] | None = None, step: float, n_steps: int,
                    burn: int, rng: RNGLike, boundary: str = "reflect",
                    record_every: int = 1) -> TiltedResult:
    """Sample ∝ exp(-beta_N H_N + t sum_k f(omega_k)) by reflected/projected Langevin (module doc).

    W0 : (B, N, d) starting configurations (inside the domain)
    beta_N, t : scalars or arrays of shape (B,)
    f, grad_f : callables on (..., d); f is recorded (fbar = (1/N) sum f) even when t = 0
    step : h > 0; n_steps : total iterations; burn : iterations discarded before averaging
    """
    if not isinstance(system, PairGibbs):
        raise TypeError(f"system must be a PairGibbs, got {type(system).__name__}")
    W = system._batch(W0, "W0").copy()
    B, N, d = W.shape
    bN = _per_chain(beta_N, "beta_N", B)
    tt = _per_chain(t, "t", B)
    if np.any(bN < 0):
        raise ValueError(f"beta_N must be >= 0, got a minimum of {float(bN.min())!r}")
    for name, fn in (("f", f), ("grad_f", grad_f)):
        if fn is not None:
            check_callable(fn, name)
    if np.any(tt != 0) and (f is None or grad_f is None):
        raise ValueError("f and grad_f are needed for a nonzero tilt t")
    step = check_positive(step, "step")
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    burn = check_int(burn, "burn", minimum=0)
    record_every = check_int(record_every, "record_every", minimum=1)
    if burn >= n_steps:
        raise ValueError(f"burn must be < n_steps, got burn={burn}, n_steps={n_steps}")
    check_choice(boundary, "boundary", ("reflect", "project"))
    r = as_rng(rng)
    sd = np.sqrt(2.0 * step)
    fb, Hs = [], []
    for m in range(1, n_steps + 1):
        G = bN[:, None, None] * system.grad(W)
        if grad_f is not None:
            G = G - tt[:, None, None] * np.asarray(grad_f(W)).reshape(W.shape)
        W = W - step * G + sd * r.standard_normal(W.shape)
        W = system.domain.apply(W.reshape(B * N, d), boundary).reshape(B, N, d)
        if m > burn and (m - burn) % record_every == 0:
            Hs.append(system.energy(W))
            fb.append(np.mean(f(W), axis=1) if f is not None else np.zeros(B))
    fb, Hs = np.array(fb), np.array(Hs)
    return TiltedResult(fb.mean(0), Hs.mean(0), fb, Hs, W,
                        {"step": step, "n_steps": n_steps, "burn": burn, "boundary": boundary,
                         "record_every": record_every})


def _per_chain(v, name, B):
    """A finite scalar or (B,) array as a (B,) float64 array."""
    a = as_float_array(v, name, ndim=(0, 1)).astype(np.float64)
    if a.ndim == 1 and a.shape[0] not in (1, B):
        raise ValueError(f"{name} must be a scalar or have one value per chain (B={B}), got "
                         f"shape {a.shape}")
    return np.broadcast_to(a, (B,)).copy()


def _curve_options(system, N, replicas):
    if not isinstance(system, PairGibbs):
        raise TypeError(f"system must be a PairGibbs, got {type(system).__name__}")
    N = check_int(N, "N", minimum=2)
    replicas = check_int(replicas, "replicas", minimum=2)
    return N, replicas


@host_op("particles.cumulative_integral")
def cumulative_integral(x: Array, y: Array, rule: str = "trapezoid") -> Array:
    """int_{x_0}^{x_j} y for every node j (x increasing, x_0 the lower limit); same shape as x."""
    check_choice(rule, "rule", ("trapezoid", "simpson"))
    x = as_float_array(x, "x", ndim=1).astype(np.float64)
    y = as_float_array(y, "y", ndim=1).astype(np.float64)
    if x.shape[0] < 2:
        raise ValueError(f"x must hold at least 2 nodes, got {x.shape[0]}")
    if y.shape != x.shape:
        raise ValueError(f"y must have the shape of x {x.shape}, got {y.shape}")
    if not np.all(np.diff(x) > 0):
        raise ValueError("x must be strictly increasing")
    if rule == "simpson" and x.shape[0] >= 3:
        return integrate.cumulative_simpson(y, x=x, initial=0.0)
    return integrate.cumulative_trapezoid(y, x=x, initial=0.0)


def _trapezoid_weights(x):
    """Matrix Wt with (Wt @ y)[j] = trapezoid integral from x_0 to x_j."""
    n = x.shape[0]
    Wt = np.zeros((n, n))
    for j in range(1, n):
        h = np.diff(x[: j + 1])
        Wt[j, :j] += 0.5 * h
        Wt[j, 1: j + 1] += 0.5 * h
    return Wt


def _uniform_start(domain, B, N, rng):
    return domain.sample_uniform(B * N, rng).reshape(B, N, domain.d)


@host_op("particles.lambda_n_curve")
def lambda_n_curve(system: PairGibbs, N: int, ts: Array, *, beta_N: float,
                   f: Callable[[Any], Any], grad_f: Callable[[Any], Any], replicas: int,
                   step: float, n_steps: int, burn: int, rng: RNGLike, boundary: str = "reflect",
                   record_every: int = 5) -> dict[str, Any]:
    """Lambda_N(t) at the nodes ``ts`` (ts[0] = 0) by thermodynamic integration (trapezoid).

    Runs ``replicas`` independent chains per node in one batch from uniform starts.  Returns a
    dict with ``ts``, ``lam_N`` (Lambda_N at each node), ``se`` (its standard error from the
    replica spread, independent across nodes), ``mean`` (E_t[(1/N) sum f]), ``mean_se`` and
    ``nvar0`` (N Var of (1/N) sum f under P_N at t = 0, pooled over replicas and records).
    """
    N, replicas = _curve_options(system, N, replicas)
    ts = as_float_array(ts, "ts", ndim=1).astype(np.float64)
    if ts.shape[0] < 2 or ts[0] != 0.0 or not np.all(np.diff(ts) > 0):
        raise ValueError(f"ts must be a 1-D increasing grid of >= 2 nodes with ts[0] = 0, got {ts}")
    check_callable(f, "f")
    check_callable(grad_f, "grad_f")
    r = as_rng(rng)
    T = ts.shape[0]
    W0 = _uniform_start(system.domain, T * replicas, N, r)
    tb = np.repeat(ts, replicas)
    res = tilted_langevin(system, W0, beta_N=beta_N, t=tb, f=f, grad_f=grad_f, step=step,
                          n_steps=n_steps, burn=burn, rng=r, boundary=boundary,
                          record_every=record_every)
    per = res.fbar_mean.reshape(T, replicas)
    mean = per.mean(1)
    mean_se = per.std(1, ddof=1) / np.sqrt(replicas)
    Wt = _trapezoid_weights(ts)
    lam_N = Wt @ mean
    se = np.sqrt((Wt ** 2) @ mean_se ** 2)
    tr0 = res.fbar_trace[:, :replicas]
    nvar0 = float(N * np.var(tr0))
    return {"ts": ts, "lam_N": lam_N, "se": se, "mean": mean, "mean_se": mean_se,
            "nvar0": nvar0, "replica_means": per}


@host_op("particles.log_partition")
def log_partition(system: PairGibbs, N: int, betas: Array, *, replicas: int, step: float,
                  n_steps: int, burn: int, rng: RNGLike, boundary: str = "reflect",
                  record_every: int = 5, reference: str = "lebesgue") -> dict[str, Any]:
    """log Z(beta) at the nodes ``betas`` (betas[0] = 0) by thermodynamic integration.

    reference="lebesgue": Z = int_{Omega^N} exp(-beta H_N) dOmega, log Z(0) = N log|Omega|;
    reference="probability": Z~ = E_{rho^N}[exp(-beta H_N)] with rho uniform, log Z~(0) = 0.
    Returns a dict with ``betas``, ``logZ``, ``se``, ``H_mean``, ``H_se``, ``H_var`` (the
    variance of H_N under P_beta, pooled over records and replicas).
    """
    check_choice(reference, "reference", ("lebesgue", "probability"))
    N, replicas = _curve_options(system, N, replicas)
    betas = as_float_array(betas, "betas", ndim=1).astype(np.float64)
    if betas.shape[0] < 2 or betas[0] != 0.0 or not np.all(np.diff(betas) > 0):
        raise ValueError(f"betas must be a 1-D increasing grid of >= 2 nodes with betas[0] = 0, "
                         f"got {betas}")
    r = as_rng(rng)
    T = betas.shape[0]
    W0 = _uniform_start(system.domain, T * replicas, N, r)
    res = tilted_langevin(system, W0, beta_N=np.repeat(betas, replicas), step=step,
                          n_steps=n_steps, burn=burn, rng=r, boundary=boundary,
                          record_every=record_every)
    per = res.H_mean.reshape(T, replicas)
    Hm = per.mean(1)
    Hse = per.std(1, ddof=1) / np.sqrt(replicas)
    Wt = _trapezoid_weights(betas)
    base = (N * np.log(system.domain.volume)  # type: ignore[attr-defined]
            if reference == "lebesgue" else 0.0)
    logZ = base - Wt @ Hm
    se = np.sqrt((Wt ** 2) @ Hse ** 2)
    Hvar = res.H_trace.reshape(res.H_trace.shape[0], T, replicas).transpose(1, 0, 2)
    return {"betas": betas, "logZ": logZ, "se": se, "H_mean": Hm, "H_se": Hse,
            "H_var": Hvar.reshape(T, -1).var(1)}


@host_op("particles.mean_field_tilted")
def mean_field_tilted(grid: FVGrid, V: Callable[[Any], Any] | Array, lam: float,
                      interaction: Interaction | tuple[Any, ...] | None, beta0: float,
                      f: Callable[[Any], Any] | Array, t: float, *, rho0: Array | None = None,
                      tol: float = 1e-13) -> tuple[Array, dict[str, Any]]:
    """The minimiser mu_t ∝ exp(-beta0 (V + lam g * mu_t) + t f) on an :class:`.pde.FVGrid`.

    V, f : callables on the cell centres (ncell, dim) or arrays of cell values.  Returns
    (rho, info) with info["F"] = inf [F - t <f, mu>] = beta0 * F_h (the tilted discrete free
    energy of :meth:`.pde.McKeanVlasovFV.free_energy`), info["f_mean"] = <f, mu_t> and the
    fixed-point residual.
    """
    from .pde import FVGrid, McKeanVlasovFV

    if not isinstance(grid, FVGrid):
        raise TypeError(f"grid must be an FVGrid, got {type(grid).__name__}")
    beta0 = check_positive(beta0, "beta0")
    t = check_real(t, "t")
    tol = check_positive(tol, "tol")
    n = grid.centres.shape[0]
    Vv = as_float_array(V(grid.centres) if callable(V) else V, "V").astype(np.float64).reshape(-1)
    fv = as_float_array(f(grid.centres) if callable(f) else f, "f").astype(np.float64).reshape(-1)
    for name, v in (("V", Vv), ("f", fv)):
        if v.shape != (n,):
            raise ValueError(f"{name} must give one value per cell ({n}), got {v.shape[0]}")
    solver = McKeanVlasovFV(grid, Vv - (t / beta0) * fv, lam=lam,
                            interaction=interaction if lam != 0 else None, beta=beta0)
    start = np.ones(Vv.shape[0]) if rho0 is None else rho0     # validated by stationary()
    rho, info = solver.stationary(start, tol=tol)
    info = dict(info)
    info["F"] = beta0 * solver.free_energy(rho)
    info["f_mean"] = float(grid.cell_volume * np.sum(fv * rho))
    return rho, info


@host_op("particles.mean_field_lambda")
def mean_field_lambda(grid: FVGrid, V: Callable[[Any], Any] | Array, lam: float,
                      interaction: Interaction | tuple[Any, ...] | None, beta0: float,
                      f: Callable[[Any], Any] | Array, ts: Array, *,
                      tol: float = 1e-13) -> dict[str, Any]:
    """Lambda(t) = -inf[F - t<f,mu>] + inf F at each t (module docstring), and <f, mu_t>.

    Returns a dict with ``ts``, ``Lambda``, ``f_mean`` (= Lambda'(t) by the envelope theorem),
    ``residual`` (max fixed-point residual) and ``Fmin`` (inf F, Lebesgue reference).
    """
    ts = as_float_array(ts, "ts", ndim=(0, 1)).astype(np.float64).reshape(-1)
    if ts.shape[0] == 0:
        raise ValueError("ts must hold at least one tilt, got an empty array")
    Fs, fm, resid = [], [], []
    _, info0 = mean_field_tilted(grid, V, lam, interaction, beta0, f, 0.0, tol=tol)
    for t in ts:
        _, info = mean_field_tilted(grid, V, lam, interaction, beta0, f, float(t), tol=tol)
        Fs.append(info["F"])
        fm.append(info["f_mean"])
        resid.append(info["residual"])
    return {"ts": ts, "Lambda": -(np.array(Fs) - info0["F"]), "f_mean": np.array(fm),
            "residual": float(max(resid + [info0["residual"]])), "Fmin": info0["F"]}


@host_op("particles.bernoulli_kl")
def bernoulli_kl(a: Array | float, p: Array | float) -> Array:
    """KL(Bern(a) || Bern(p)) = a log(a/p) + (1-a) log((1-a)/(1-p)) (scipy.special.rel_entr)."""
    a = as_float_array(a, "a").astype(np.float64)
    p = as_float_array(p, "p").astype(np.float64)
    if not np.all((a >= 0) & (a <= 1)):
        raise ValueError(f"a must be in [0, 1] (a probability), got {a}")
    if not np.all((p > 0) & (p < 1)):
        raise ValueError(f"p must be in (0, 1), got {p}")
    try:
        np.broadcast_shapes(a.shape, p.shape)
    except ValueError:
        raise ValueError(f"a and p must broadcast together, got shapes {a.shape} and "
                         f"{p.shape}") from None
    return special.rel_entr(a, p) + special.rel_entr(1.0 - a, 1.0 - p)


@host_op("particles.sanov_two_bin")
def sanov_two_bin(N: int, p: float, a: float) -> dict[str, Any]:
    """Exact log P(#{k : omega_k in A} >= a N) for Binomial(N, p) vs the Sanov rate N KL(a||p).

    Returns a dict with ``log_tail`` (binom.logsf), ``rate`` = -log_tail / N, ``kl`` and
    ``log_ratio`` = log_tail + N kl (Bahadur-Rao: -log(sqrt(2 pi N a(1-a)) (1 - p(1-a)/(a(1-p))))
    + o(1) when a N is an integer).  Needs p < a < 1.
    """
    N = np.asarray(N)
    if N.dtype.kind not in "iu" or N.size == 0 or np.any(N < 1):
        raise ValueError(f"N must hold integers >= 1 (an int or an integer array), got {N!r}")
    p = check_real(p, "p", gt=0.0, lt=1.0)
    a = check_real(a, "a", lt=1.0)
    if not a > p:
        raise ValueError(f"a must be > p (need 0 < p < a < 1), got p={p!r}, a={a!r}")
    k = np.ceil(a * N - 1e-12)
    log_tail = stats.binom.logsf(k - 1, N, p)
    kl = float(bernoulli_kl(a, p))
    return {"N": N, "log_tail": log_tail, "rate": -log_tail / N, "kl": kl,
            "log_ratio": log_tail + N * kl}


@host_op("particles.truncated_riesz_energy_uniform", note="scipy quadrature")
def truncated_riesz_energy_uniform(s: float, eps: float, d: int = 1) -> float:
    """(1/2) iint min(|x-y|^{-s}, eps^{-s}) dx dy for the uniform law on [0,1]^d, d in {1, 2}.

    s > 0, eps > 0.  Uses the density of z = x - y, A(z) = prod_i (1 - |z_i|)_+: in 1-D
    int_0^1 2(1-r) g(r) dr; in 2-D int_0^sqrt2 g(r) r a(r) dr with the angular integral
    a(r) = int_0^{2pi} A(r cos th, r sin th) dth (= 2 pi - 8 r + 2 r^2 for r <= 1).  Returns
    W^eps (the 1/2 included).
    """
    s = check_positive(s, "s")
    eps = check_positive(eps, "eps")
    d = check_int(d, "d", minimum=1, maximum=2)
    inter = as_interaction("hard", s, eps)          # g^eps of 004 A.36 (one definition)
    g = lambda r: float(inter.g(r))                  # noqa: E731
    opts = {"limit": 400, "epsabs": 0.0, "epsrel": 1e-10}
    if d == 1:
        brk = [eps] if eps < 1 else []
        tot = integrate.quad(lambda r: 2.0 * (1.0 - r) * g(r), 0.0, 1.0, points=brk or None,
                             **opts)[0]
        return 0.5 * tot

    def ang(r):
        if r <= 1.0:
            return 2 * np.pi - 8 * r + 2 * r * r
        th0 = np.arccos(1.0 / r)                    # A > 0 needs r cos, r sin < 1
        val = integrate.quad(lambda th: (1 - r * np.cos(th)) * (1 - r * np.sin(th)),
                             th0, np.pi / 2 - th0, epsabs=0.0, epsrel=1e-12)[0]
        return 4.0 * val

    pts = sorted({min(eps, 1.0), 1.0})
    tot = 0.0
    lo = 0.0
    for hi in pts + [np.sqrt(2.0)]:
        if hi > lo:
            tot += integrate.quad(lambda r: g(r) * r * ang(r), lo, hi, **opts)[0]
        lo = hi
    return 0.5 * tot


@host_op("particles.simplex_ground_state")
def simplex_ground_state(v: Array, G: Array, lam: float, *, restarts: int = 20, iters: int = 4000,
                         rng: RNGLike = 0,
                         lr: float | None = None) -> tuple[float, Array, dict[str, Any]]:
    """min_p p.v + (lam/2) p^T G p over the probability simplex (multi-start).

    Exponentiated-gradient (mirror) descent from ``restarts`` random Dirichlet starts plus the
    uniform start; returns (best value, best p, info) with info["fw_gap"] the Frank-Wolfe gap
    p.grad - min grad at the best point (0 at a stationary point) and the values of all starts.
    """
    v = as_float_array(v, "v", ndim=1).astype(np.float64)
    G = as_float_array(G, "G", ndim=2).astype(np.float64)
    M = v.shape[0]
    if M == 0:
        raise ValueError("v must hold at least one grid value, got length 0")
    if G.shape != (M, M):
        raise ValueError(f"G must have shape ({M}, {M}), got {G.shape}")
    lam = check_real(lam, "lam")
    restarts = check_int(restarts, "restarts", minimum=0)
    iters = check_int(iters, "iters", minimum=1)
    lr = None if lr is None else check_positive(lr, "lr")
    r = as_rng(rng)
    scale = np.max(np.abs(v)) + abs(lam) * np.max(np.abs(G)) + 1e-300
    eta = (1.0 / scale) if lr is None else lr
    P0 = np.concatenate([np.full((M, 1), 1.0 / M), r.dirichlet(np.ones(M), size=restarts).T],
                        axis=1)                          # (M, restarts + 1): all starts at once
    logP = np.log(np.maximum(P0, 1e-300))
    for _ in range(iters):
        Pm = np.exp(logP)
        logP = logP - eta * (v[:, None] + lam * (G @ Pm))
        logP -= special.logsumexp(logP, axis=0, keepdims=True)
    Pm = np.exp(logP)
    vals = Pm.T @ v + 0.5 * lam * np.einsum("ir,ir->r", Pm, G @ Pm)
    j = int(np.argmin(vals))
    best = (float(vals[j]), Pm[:, j])
    p = best[1]
    gr = v + lam * (G @ p)
    return best[0], p, {"fw_gap": float(p @ gr - gr.min()), "values": vals.tolist()}
