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

Array libraries: the step, the run, the reweighting and the resampling are written once against
the array API standard.  Particles of NumPy, CuPy, PyTorch, JAX or ``array_api_strict`` stay in
their library and on their device: drift (:meth:`.ParticleEnergy.drift`: features, their VJP,
the generic interaction forces, direct or random batch), clipping, the Euler-Maruyama update,
projection/reflection (:mod:`.domains`) and the phase wrap run there.  The randomness does
not: xi (and the batch permutation, the resampling uniforms) are drawn on the host by NumPy's
Generator and copied to the particles' device, so **the same seed gives the same trajectory
on every library** -- bit for bit on NumPy (this rewrite keeps the NumPy arithmetic), and to
rounding elsewhere (another libm and summation order: a few ulps per step, amplified by the
Lipschitz constant of the drift over the run; ``tests/particles/test_langevin_libraries.py``
states the bound it checks).  What stays on the host: the Generator draws, the stopping-rule
distances (:mod:`.diagnostics`, NumPy/SciPy) and the free energy's histogram entropy.  One
scalar per step (the largest move) is read back for the history.  ``resample`` draws its
uniforms on the host and inverts the CDF on the weights' device.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy.special import logsumexp

from .._array import device_of, namespace
from .._typing import Array, RNGLike
from ._arrays import generic_op
from .._validate import (as_float_array, as_rng, check_callable, check_choice, check_int,
                         check_positive, check_real)
from . import diagnostics as dg
from .domains import BOUNDARIES, Domain, row_norms
from .hamiltonian import ParticleEnergy

DISTANCES = ("sliced_w2", "mmd2", "energy")


def _clip(D, clip, mode):
    """D scaled so that each row (``"particle"``) or the whole array (``"global"``) has norm
    at most ``clip``: D min(1, clip / max(||D||, 1e-300)); any array API library."""
    if clip is None:
        return D
    xp = namespace(D)
    if mode == "particle":
        nr = row_norms(D, keepdims=True)
        return D * xp.minimum(1.0, clip / xp.maximum(nr, 1e-300))
    if mode == "global":
        if isinstance(D, np.ndarray):
            nr = np.linalg.norm(D)
            return D * min(1.0, clip / max(nr, 1e-300))
        nr = xp.linalg.vector_norm(D)                 # 0-d, stays on the device
        return D * xp.minimum(1.0, clip / xp.maximum(nr, 1e-300))
    raise AssertionError(mode)


def _host_draw(values, like):
    """The NumPy array ``values`` (a Generator draw) in the library and on the device of the
    array ``like`` (NumPy: ``values`` itself)."""
    if isinstance(like, np.ndarray):
        return values
    return namespace(like).asarray(values, device=device_of(like))


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


def _state(A, name, ndim):
    """A validated as float64 in its own library and on its device."""
    A = as_float_array(A, name, ndim=ndim)
    xp = namespace(A)
    return xp.astype(A, xp.float64, copy=False)


_STEP_NOTE = ("generic: drift, clipping, Euler-Maruyama update, projection/reflection and "
              "phase wrap run in the particles' library on their device; the noise (and the "
              "random batches) are numpy.random.Generator draws on the host copied to the "
              "device, so the same seed gives the same trajectory on every library")


@generic_op("particles.langevin_step", dtypes=("float64",), note=_STEP_NOTE)
def langevin_step(H: ParticleEnergy, Omega: Array, eta: float, beta: float, rng: RNGLike, *,
                  b: Array | None = None, domain: Domain | None = None,
                  boundary: str = "project", noise_beta: float | None = None,
                  clip: float | None = None, clip_mode: str = "particle",
                  method: str = "direct", batch_size: int = 2) -> tuple[Array, Array | None]:
    """One synchronous step; returns (Omega^{m+1}, b^{m+1} or None).  ``H`` is a
    :class:`.ParticleEnergy`; beta may be ``np.inf`` (no noise; xi is still drawn, so the
    stream does not depend on beta); eta > 0; rng per :func:`yatmath._validate.as_rng`.

    Omega (N, d) or (N,) and b (N,) of one array API library; the result is float64 in that
    library, on its device.  xi ~ N(0, I) is drawn on the host and copied there (see the
    module docstring: same seed, same step on every library)."""
    eta, beta, noise_beta, clip, batch_size = _step_options(
        H, eta, beta, noise_beta, domain, boundary, clip, clip_mode, method, batch_size)
    r = as_rng(rng)
    Om = _state(Omega, "Omega", (1, 2))
    flat = Om.ndim == 1
    Om2 = Om[:, None] if flat else Om
    xp = namespace(Om2)
    if b is not None:
        b = _state(b, "b", 1)
        namespace(Om2, b)          # one library (TypeError naming them otherwise)
        if tuple(b.shape) != (Om2.shape[0],):
            raise ValueError(f"b must have length N={Om2.shape[0]} (one phase per particle), got "
                             f"{tuple(b.shape)}")
    nb = beta if noise_beta is None else noise_beta
    D, Db = H.drift(Om2, b, method=method, batch_size=batch_size, rng=r)
    D = _clip(D, clip, clip_mode)
    sd = math.sqrt(2.0 * eta / nb) if math.isfinite(nb) else 0.0
    new = Om2 - eta * D + sd * _host_draw(r.standard_normal(tuple(Om2.shape)), Om2)
    if domain is not None:
        new = domain.apply(new, boundary)
    new_b = None
    if b is not None and Db is not None:
        new_b = xp.remainder(b - eta * Db + sd * _host_draw(r.standard_normal(tuple(b.shape)), b),
                             2.0 * math.pi)
    elif b is not None:
        new_b = xp.asarray(b, copy=True)
    return (new[:, 0] if flat else new), new_b


@dataclass
class LangevinResult:
    """Final particles, phases, number of steps, the rule that stopped the run, and the history
    (lists of floats keyed by "step", "energy", "free_energy", "max_move", "distance").
    Omega and b are arrays of the caller's library, on its device."""

    Omega: Array
    b: Array | None
    steps: int
    stop_reason: str
    history: dict[str, list[Any]] = field(default_factory=dict)
    seed_info: dict[str, Any] = field(default_factory=dict)


@generic_op("particles.run_langevin", dtypes=("float64",),
            note=_STEP_NOTE + "; the stopping-rule distances "
            "(diagnostics) and the histogram entropy run on the host; history holds floats")
def run_langevin(H: ParticleEnergy, Omega0: Array, *, eta: float, beta: float, n_steps: int,
                 rng: RNGLike, b0: Array | None = None, domain: Domain | None = None,
                 boundary: str = "project", noise_beta: float | None = None,
                 clip: float | None = None, clip_mode: str = "particle", method: str = "direct",
                 batch_size: int = 2, tol_move: float | None = None,
                 tol_dist: float | None = None, distance: str = "sliced_w2",
                 record_every: int = 1, track_energy: bool = True,
                 entropy_edges: Sequence[Any] | None = None,
                 callback: Callable[[int, Array, Array | None], Any] | None = None
                 ) -> LangevinResult:
    """Iterate :func:`langevin_step` until a stopping rule fires (see module docstring).

    track_energy : record H_N every ``record_every`` steps; with ``entropy_edges`` (histogram
    bin edges per dimension) also the free energy H_N + (1/beta) int rho ln rho of the
    histogram density (a plug-in estimate).  callback(m, Omega, b) is called after each step.

    Omega0 (and b0) of any array API library: the run stays in it, on its device (one scalar
    per step, max_k ||omega_k^{m+1} - omega_k^m||, is read back for the history and the
    max_move rule; energies and distances when recorded).  The same seed gives the same
    trajectory on every library (module docstring).
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
    Om = as_float_array(Omega0, "Omega0", ndim=(1, 2))
    xp = namespace(Om)
    Om = xp.asarray(Om, dtype=xp.float64, copy=True)
    b = None
    if b0 is not None:
        b = as_float_array(b0, "b0", ndim=1)
        namespace(Om, b)          # one library (TypeError naming them otherwise)
        b = xp.asarray(b, dtype=xp.float64, copy=True)
        if b.shape[0] != Om.shape[0]:
            raise ValueError(f"b0 must have length N={Om.shape[0]} (one phase per particle), "
                             f"got {tuple(b.shape)}")
    hist: dict[str, list[Any]] = {"step": [], "energy": [], "free_energy": [], "max_move": [],
                                  "distance": []}

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
        diff = xp.reshape(new - Om, (Om.shape[0], -1))
        move = float(xp.max(row_norms(diff)))
        dist = np.nan
        if tol_dist is not None:
            if distance == "sliced_w2":
                dist = dg.sliced_w2(new, Om, rng=m)
            elif distance == "mmd2":
                dist = dg.mmd2(new, Om)
            else:
                dist = dg.energy_distance(new, Om)
            dist = float(dist)
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


def _logsumexp(z):
    """log sum_k exp(z_k): ``scipy.special.logsumexp`` for NumPy; for the other libraries
    the max-shifted form m + log sum exp(z - m) (m = max z; exact shift, so no overflow, and
    within a few ulps of SciPy's for finite z), a 0-d array on z's device."""
    if isinstance(z, np.ndarray):
        return logsumexp(z)
    xp = namespace(z)
    m = xp.max(z)
    return m + xp.log(xp.sum(xp.exp(z - m)))


@generic_op("particles.reweight", dtypes=("float64",),
            note="generic; scipy.special.logsumexp for NumPy, the "
            "max-shifted log-sum-exp elsewhere")
def reweight(H: ParticleEnergy, Omega: Array, beta: float, b: Array | None = None,
             reading: str = "a") -> Array:
    """Alg 2 weights w_k = softmax_k(-beta H_k) (logsumexp-stable); H_k per ``reading``.

    beta > 0 finite (beta = inf is the argmin, not a softmax).  Omega of any array API
    library; the weights are float64 in it, on its device."""
    if not isinstance(H, ParticleEnergy):
        raise TypeError(f"H must be a ParticleEnergy, got {type(H).__name__}")
    beta = check_positive(beta, "beta")
    check_choice(reading, "reading", ("a", "b"))
    h = H.particle_energies(Omega, b, reading)
    xp = namespace(h)
    z = -beta * h
    if not bool(xp.all(xp.isfinite(z))):
        raise OverflowError("beta * H_k is not finite for some particle (beta times the "
                            "energies overflows, or an energy is infinite); lower beta")
    return xp.exp(z - _logsumexp(z))


def _inverse_cdf(cdf, u):
    """Indices k with cdf[k-1] <= u < cdf[k] (``searchsorted(cdf, u, side="right")``), u a
    NumPy draw copied to cdf's device; int64 in cdf's library."""
    xp = namespace(cdf)
    return xp.searchsorted(cdf, _host_draw(u, cdf), side="right")


@generic_op("particles.resample", dtypes=("float64",),
            note="generic inverse CDF (cumulative_sum, searchsorted) "
            "with uniforms drawn on the host by numpy.random.Generator (NumPy weights: "
            "Generator.choice itself for multinomial), so equal indices on every library")
def resample(weights: Array, D: int, rng: RNGLike, method: str = "multinomial") -> Array:
    """Indices of D particles drawn from ``weights``: multinomial (i.i.d.) or systematic.

    weights (N,) >= 0 with a positive sum, of any array API library: the indices are int64
    in it, on its device.  Multinomial for NumPy weights is ``Generator.choice(N, D, p=w)``;
    for other libraries it is the same inverse-CDF draw (cdf = cumsum(w) / its last entry,
    u = Generator.random(D), searchsorted right) on the device, so the same seed gives the
    same indices (up to a u within rounding of a cdf entry).  Systematic: u_j = (U + j) / D
    with one U ~ U[0, 1) from the Generator, cdf with its last entry set to 1."""
    check_choice(method, "method", ("multinomial", "systematic"))
    w = as_float_array(weights, "weights", ndim=1)
    xp = namespace(w)
    w = xp.astype(w, xp.float64, copy=True)
    if bool(xp.any(w < 0)):
        raise ValueError(f"weights must be >= 0, got a minimum of {float(xp.min(w))!r}")
    if w.shape[0] and bool(xp.max(w) > 0):
        w = w / xp.max(w)                     # rescale before summing: no overflow
    if not bool(xp.sum(w) > 0):
        raise ValueError("weights must have a positive sum, got all zeros (or no weights)")
    w = w / xp.sum(w)
    D = check_int(D, "D", minimum=1)
    r = as_rng(rng)
    if method == "multinomial":
        if isinstance(w, np.ndarray):
            return r.choice(w.shape[0], size=D, p=w)
        cdf = xp.cumulative_sum(w)
        return _inverse_cdf(cdf / cdf[-1], r.random(D))
    u = (r.random() + np.arange(D)) / D
    cdf = xp.cumulative_sum(w)
    cdf = xp.concat([cdf[:-1], xp.ones(1, dtype=xp.float64, device=device_of(w))])
    return _inverse_cdf(cdf, u)
