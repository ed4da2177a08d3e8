"""Projected Langevin iteration of 004 Alg 1/2 (eq.4.3, B.11), stopping rules and Alg 2 reweighting.

The update, exactly as printed and synchronous (every particle uses Omega^m):

    omega_k^{m+1} = P_Omega( omega_k^m - eta N grad_{omega_k} H_N(Omega^m) + sqrt(2 eta / beta) xi_k^m )

with xi_k^m ~ N(0, I_d) i.i.d. (``noise_beta`` replaces beta in the noise only, e.g. beta_N for
B.11).  ``boundary="reflect"`` uses the mirror reflection instead of P_Omega.  With learned phases
(RFF), b_k takes the same step with its own noise and is wrapped to [0, 2 pi).  Optional clipping
of the drift N grad H_N (004 leaves the norm unspecified): per particle (default) or global.

Stopping rules (the first that fires is recorded): "t_max" (m = n_steps), "max_move"
(max_k ||omega_k^{m+1} - omega_k^m|| < tol_move), "distance" (D(mu^{m+1}, mu^m) < tol_dist with
D in {"sliced_w2" (64 directions), "mmd2", "energy"}).

Alg 2 reweighting as printed: w_k = exp(-beta H_k) / sum_j exp(-beta H_j) (computed with
logsumexp), H_k from :meth:`.ParticleEnergy.particle_energies` (reading "a" or "b"); then D
particles are drawn by multinomial or systematic resampling.

Randomness: one ``numpy.random.Generator`` (or int seed) drives the noise and the random
batches, in a fixed order per step (batches, then omega-noise, then phase-noise); same seed,
same output.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import logsumexp

from .._validate import as_float_array, check_choice
from . import diagnostics as dg
from .forces import _as_rng

DISTANCES = ("sliced_w2", "mmd2", "energy")


def _clip(D, clip, mode):
    if clip is None:
        return D
    if not clip > 0:
        raise ValueError(f"clip must be > 0 or None, got {clip!r}")
    if mode == "particle":
        nr = np.linalg.norm(D, axis=1, keepdims=True)
        return D * np.minimum(1.0, clip / np.maximum(nr, 1e-300))
    if mode == "global":
        nr = np.linalg.norm(D)
        return D * min(1.0, clip / max(nr, 1e-300))
    raise ValueError(f"clip_mode must be 'particle' or 'global', got {mode!r}")


def langevin_step(H, Omega, eta, beta, rng, *, b=None, domain=None, boundary="project",
                  noise_beta=None, clip=None, clip_mode="particle", method="direct",
                  batch_size=2):
    """One synchronous step; returns (Omega^{m+1}, b^{m+1} or None).  ``H`` is a
    :class:`.ParticleEnergy`; beta may be ``np.inf`` (no noise)."""
    r = _as_rng(rng)
    Om = as_float_array(Omega, "Omega", ndim=(1, 2)).astype(np.float64)
    flat = Om.ndim == 1
    Om2 = Om[:, None] if flat else Om
    if not eta > 0:
        raise ValueError(f"eta must be > 0, got {eta!r}")
    if not beta > 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    nb = beta if noise_beta is None else noise_beta
    if not nb > 0:
        raise ValueError(f"noise_beta must be > 0, got {noise_beta!r}")
    D, Db = H.drift(Om2, b, method=method, batch_size=batch_size, rng=r)
    D = _clip(D, clip, clip_mode)
    sd = np.sqrt(2.0 * eta / nb) if np.isfinite(nb) else 0.0
    new = Om2 - eta * D + sd * r.standard_normal(Om2.shape)
    if domain is not None:
        new = domain.apply(new, boundary)
    new_b = None
    if b is not None and Db is not None:
        new_b = np.mod(np.asarray(b, dtype=np.float64) - eta * Db
                       + sd * r.standard_normal(np.shape(b)), 2.0 * np.pi)
    elif b is not None:
        new_b = np.asarray(b, dtype=np.float64)
    return (new[:, 0] if flat else new), new_b


@dataclass
class LangevinResult:
    """Final particles, phases, number of steps, the rule that stopped the run, and the history
    (lists keyed by "step", "energy", "free_energy", "max_move", "distance")."""

    Omega: np.ndarray
    b: np.ndarray | None
    steps: int
    stop_reason: str
    history: dict = field(default_factory=dict)
    seed_info: dict = field(default_factory=dict)


def run_langevin(H, Omega0, *, eta, beta, n_steps, rng, b0=None, domain=None,
                 boundary="project", noise_beta=None, clip=None, clip_mode="particle",
                 method="direct", batch_size=2, tol_move=None, tol_dist=None,
                 distance="sliced_w2", record_every=1, track_energy=True, entropy_edges=None,
                 callback=None) -> LangevinResult:
    """Iterate :func:`langevin_step` until a stopping rule fires (see module docstring).

    track_energy : record H_N every ``record_every`` steps; with ``entropy_edges`` (histogram
    bin edges per dimension) also the free energy H_N + (1/beta) int rho ln rho of the
    histogram density (a plug-in estimate).  callback(m, Omega, b) is called after each step.
    """
    check_choice(distance, "distance", DISTANCES)
    check_choice(method, "method", ("direct", "random_batch"))
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
        raise ValueError(f"n_steps must be an integer >= 0, got {n_steps!r}")
    r = _as_rng(rng)
    seed_info = {"rng": repr(rng) if not isinstance(rng, np.random.Generator) else "Generator"}
    Om = np.array(Omega0, dtype=np.float64)
    b = None if b0 is None else np.array(b0, dtype=np.float64)
    hist = {"step": [], "energy": [], "free_energy": [], "max_move": [], "distance": []}

    def record(m, move, dist):
        hist["step"].append(m)
        hist["max_move"].append(move)
        hist["distance"].append(dist)
        if track_energy:
            e = H.energy(Om, b)
            hist["energy"].append(e)
            if entropy_edges is not None:
                hist["free_energy"].append(e + dg.histogram_entropy(Om, entropy_edges) / beta)

    record(0, np.nan, np.nan)
    reason, m = "t_max", 0
    for m in range(1, n_steps + 1):
        new, b = langevin_step(H, Om, eta, beta, r, b=b, domain=domain, boundary=boundary,
                               noise_beta=noise_beta, clip=clip, clip_mode=clip_mode,
                               method=method, batch_size=batch_size)
        diff = (new - Om).reshape(Om.shape[0], -1)
        move = float(np.max(np.linalg.norm(diff, axis=1)))
        dist = np.nan
        if tol_dist is not None:
            if distance == "sliced_w2":
                dist = dg.sliced_w2(new, Om, rng=m)
            elif distance == "mmd2":
                dist = dg.mmd2(new, Om)
            else:
                dist = dg.energy_distance(new, Om)
        Om = new
        if callback is not None:
            callback(m, Om, b)
        if m % record_every == 0:
            record(m, move, dist)
        if tol_move is not None and move < tol_move:
            reason = "max_move"
            break
        if tol_dist is not None and dist < tol_dist:
            reason = "distance"
            break
    if hist["step"][-1] != m:
        record(m, move if n_steps else np.nan, dist if n_steps else np.nan)
    return LangevinResult(Om, b, m, reason, hist, seed_info)


def reweight(H, Omega, beta, b=None, reading="a"):
    """Alg 2 weights w_k = softmax_k(-beta H_k) (logsumexp-stable); H_k per ``reading``."""
    if not beta > 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    h = H.particle_energies(Omega, b, reading)
    z = -beta * h
    return np.exp(z - logsumexp(z))


def resample(weights, D, rng, method="multinomial"):
    """Indices of D particles drawn from ``weights``: multinomial (i.i.d.) or systematic."""
    check_choice(method, "method", ("multinomial", "systematic"))
    w = as_float_array(weights, "weights", ndim=1).astype(np.float64)
    if np.any(w < 0) or not w.sum() > 0:
        raise ValueError("weights must be >= 0 with a positive sum")
    w = w / w.sum()
    r = _as_rng(rng)
    if isinstance(D, bool) or not isinstance(D, (int, np.integer)) or D < 1:
        raise ValueError(f"D must be a positive integer, got {D!r}")
    if method == "multinomial":
        return r.choice(w.shape[0], size=D, p=w)
    u = (r.random() + np.arange(D)) / D
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, u, side="right")
