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

from ._arrays import host_op
from .._validate import (as_float_array, as_rng, check_callable, check_choice, check_int,
                         check_positive, check_real)
from . import diagnostics as dg
from .domains import BOUNDARIES, Domain
from .hamiltonian import ParticleEnergy

DISTANCES = ("sliced_w2", "mmd2", "energy")


def _clip(D, clip, mode):
    if clip is None:
        return D
    if mode == "particle":
        nr = np.linalg.norm(D, axis=1, keepdims=True)
        return D * np.minimum(1.0, clip / np.maximum(nr, 1e-300))
    if mode == "global":
        nr = np.linalg.norm(D)
        return D * min(1.0, clip / max(nr, 1e-300))
    raise AssertionError(mode)


def _step_options(H, eta, beta, noise_beta, domain, boundary, clip, clip_mode, method, batch_size):
    """Validated (eta, beta, noise_beta, clip, batch_size) shared by langevin_step/run_langevin."""
    if not isinstance(H, ParticleEnergy):
        raise TypeError(f"H must be a ParticleEnergy (Hamiltonian, FieldHamiltonian), got "
                        f"{type(H).__name__}")
    eta = check_positive(eta, "eta")
    beta = check_real(beta, "beta", gt=0.0, finite=False)
    noise_beta = None if noise_beta is None else check_real(noise_beta, "noise_beta", gt=0.0,
                                                            finite=False)
    if domain is not None and not isinstance(domain, Domain):
        raise TypeError(f"domain must be None or a Box, Interval or Ball, got {domain!r}")
    check_choice(boundary, "boundary", BOUNDARIES)
    clip = None if clip is None else check_positive(clip, "clip")
    check_choice(clip_mode, "clip_mode", ("particle", "global"))
    check_choice(method, "method", ("direct", "random_batch"))
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    return eta, beta, noise_beta, clip, batch_size


@host_op("particles.langevin_step", note="numpy.random.Generator noise")
def langevin_step(H, Omega, eta, beta, rng, *, b=None, domain=None, boundary="project",
                  noise_beta=None, clip=None, clip_mode="particle", method="direct",
                  batch_size=2):
    """One synchronous step; returns (Omega^{m+1}, b^{m+1} or None).  ``H`` is a
    :class:`.ParticleEnergy`; beta may be ``np.inf`` (no noise); eta > 0; rng per
    :func:`yatmath._validate.as_rng`."""
    eta, beta, noise_beta, clip, batch_size = _step_options(
        H, eta, beta, noise_beta, domain, boundary, clip, clip_mode, method, batch_size)
    r = as_rng(rng)
    Om = as_float_array(Omega, "Omega", ndim=(1, 2)).astype(np.float64)
    flat = Om.ndim == 1
    Om2 = Om[:, None] if flat else Om
    if b is not None:
        b = as_float_array(b, "b", ndim=1).astype(np.float64)
        if b.shape != (Om2.shape[0],):
            raise ValueError(f"b must have length N={Om2.shape[0]} (one phase per particle), got "
                             f"{b.shape}")
    nb = beta if noise_beta is None else noise_beta
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


@host_op("particles.run_langevin", note="numpy.random.Generator noise")
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
    eta, beta, noise_beta, clip, batch_size = _step_options(
        H, eta, beta, noise_beta, domain, boundary, clip, clip_mode, method, batch_size)
    n_steps = check_int(n_steps, "n_steps", minimum=0)
    record_every = check_int(record_every, "record_every", minimum=1)
    tol_move = None if tol_move is None else check_real(tol_move, "tol_move", ge=0.0)
    tol_dist = None if tol_dist is None else check_real(tol_dist, "tol_dist", ge=0.0)
    if callback is not None:
        check_callable(callback, "callback")
    if entropy_edges is not None and not np.isfinite(beta):
        raise ValueError("entropy_edges needs a finite beta (the free energy has a 1/beta "
                         "entropy term)")
    r = as_rng(rng)
    seed_info = {"rng": repr(rng) if not isinstance(rng, np.random.Generator) else "Generator"}
    Om = as_float_array(Omega0, "Omega0", ndim=(1, 2)).astype(np.float64, copy=True)
    b = None if b0 is None else as_float_array(b0, "b0", ndim=1).astype(np.float64, copy=True)
    if b is not None and b.shape[0] != Om.shape[0]:
        raise ValueError(f"b0 must have length N={Om.shape[0]} (one phase per particle), got "
                         f"{b.shape}")
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


@host_op("particles.reweight", note="scipy.special.logsumexp")
def reweight(H, Omega, beta, b=None, reading="a"):
    """Alg 2 weights w_k = softmax_k(-beta H_k) (logsumexp-stable); H_k per ``reading``.

    beta > 0 finite (beta = inf is the argmin, not a softmax)."""
    if not isinstance(H, ParticleEnergy):
        raise TypeError(f"H must be a ParticleEnergy, got {type(H).__name__}")
    beta = check_positive(beta, "beta")
    check_choice(reading, "reading", ("a", "b"))
    h = H.particle_energies(Omega, b, reading)
    z = -beta * h
    if not np.all(np.isfinite(z)):
        raise OverflowError("beta * H_k is not finite for some particle (beta times the "
                            "energies overflows, or an energy is infinite); lower beta")
    return np.exp(z - logsumexp(z))


@host_op("particles.resample", note="searchsorted, Generator.choice")
def resample(weights, D, rng, method="multinomial"):
    """Indices of D particles drawn from ``weights``: multinomial (i.i.d.) or systematic."""
    check_choice(method, "method", ("multinomial", "systematic"))
    w = as_float_array(weights, "weights", ndim=1).astype(np.float64)
    if np.any(w < 0):
        raise ValueError(f"weights must be >= 0, got a minimum of {float(w.min())!r}")
    if w.size and w.max() > 0:
        w = w / w.max()                       # rescale before summing: no overflow
    if not w.sum() > 0:
        raise ValueError("weights must have a positive sum, got all zeros (or no weights)")
    w = w / w.sum()
    D = check_int(D, "D", minimum=1)
    r = as_rng(rng)
    if method == "multinomial":
        return r.choice(w.shape[0], size=D, p=w)
    u = (r.random() + np.arange(D)) / D
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, u, side="right")
