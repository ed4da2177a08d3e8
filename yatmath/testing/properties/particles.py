"""Properties of the particle model (004; ``yatmath.particles``).

Implementations:

    force(omega) -> F (N, d)          a force field on the particles
    energy(omega) -> float            its energy
    step(omega) -> omega'             one (projected) Langevin step
    fv_step(rho, dt) -> rho'          one explicit finite-volume step of the McKean-Vlasov PDE
    operator(rho) -> A                the FV scheme's flux matrix with U frozen at rho:
                                      (A rho)_i = (1/h) sum of the outgoing face fluxes of cell i
                                      (``McKeanVlasovFV.operator``), so the explicit step is
                                      rho' = (I - dt A) rho

The interaction is described by a ``yatmath.particles.Interaction`` (or (kind, s, delta)): its
``grad`` and ``g`` are the one definition of the pair terms used for the tolerances.
"""
from __future__ import annotations

import math

import numpy as np

from ._core import U64, central_difference, host64, prop, unit_roundoff, worst_outside

__all__ = ["interaction_energy_error", "forces_sum_to_zero", "force_is_minus_energy_gradient",
           "langevin_step_stays_in_domain", "fv_positivity_dt", "fv_mass_conserved",
           "fv_nonnegative_under_cfl"]


def _interaction(interaction, d):
    from ...particles.interactions import Interaction, make_interaction

    if isinstance(interaction, Interaction):
        return interaction
    return make_interaction(*interaction, d=d)


def _rows(omega):
    om = host64(omega)
    return om[:, None] if om.ndim == 1 else om


def _pair_grads(om, inter):
    """|grad g(omega_k - omega_l)| per component, (N, N, d), 0 on the diagonal."""
    N, d = om.shape
    W = om[:, None, :] - om[None, :, :]
    off = ~np.eye(N, dtype=bool)
    G = np.zeros((N, N, d))
    G[off] = np.abs(host64(inter.grad(W[off])))
    return G


def interaction_energy_error(omega, interaction):
    """A bound on the floating-point error of N W_{N,s}(omega) (the energy whose gradient is
    ``interaction_force``), from the per-particle bound of the ``interaction_potential``
    docstring (yatmath/particles/forces.py):

        |P_k_hat - P_k| <= [(2N + 16) S_k + (32 (d - 1) + 4) M_k] u / (N - 1),
        S_k = sum_l |g_kl|,  M_k = sum_l m_kl,  m = |rho dg/drho| = c r^2 (rho = r) or c q / 2
        (Plummer, rho = q = r^2 + delta^2), c = ``Interaction.factor``,

    and N W = (1/2) sum_k P_k: half the sum of those plus (N + 4) u (1/2) sum_k |P_k| for the
    mean."""
    om = _rows(omega)
    N, d = om.shape
    inter = _interaction(interaction, d)
    W = om[:, None, :] - om[None, :, :]
    off = ~np.eye(N, dtype=bool)
    r2 = np.sum(W[off] ** 2, axis=-1)
    g = np.abs(host64(inter.g(np.sqrt(r2))))
    c = np.abs(host64(inter.factor(r2)))
    m = c * (r2 + inter.delta ** 2) / 2 if inter.kind == "plummer" else c * r2
    Sk = np.zeros((N, N))
    Mk = np.zeros((N, N))
    Sk[off], Mk[off] = g, m
    S, M = Sk.sum(1), Mk.sum(1)
    eps_k = ((2 * N + 16) * S + (32 * (d - 1) + 4) * M) * U64 / (N - 1)
    return 0.5 * float(eps_k.sum()) + (N + 4) * U64 * 0.5 * float(S.sum()) / (N - 1)


# ----------------------------------------------------------------------------------------------
@prop("particles.forces_sum_to_zero", "particles",
      "004 eq. 2.2-2.3 (g even, so grad g is odd: grad g(w_k - w_l) = -grad g(w_l - w_k), "
      "Newton's third law) and yatmath/particles/forces.py docstring: sum_k F_k = 0 (total "
      "momentum is conserved by the interaction)",
      "|sum_k F_k,c| <= (2N + 4d + 16) u T_c, T_c = (1/(N-1)) sum_k sum_{l != k} |grad g_kl,c| "
      "(each F_k within (N + 4d + 16) u of its terms' absolute sum -- the forces docstring's "
      "order-of-summation bound plus the pair terms' few ulps -- and N more roundings to add "
      "the F_k); u of the force's dtype")
def forces_sum_to_zero(force, omega, interaction, *, pair_weight=None):
    """The interaction forces on all particles sum to zero.  ``pair_weight``: the weight of a
    pair term in a force (1/(N-1), the default; 1/(|B|-1) for the random batch force, whose
    tolerance then sums over all pairs: an upper bound of the batches' sums)."""
    spec = forces_sum_to_zero.spec
    raw = force(omega)
    F = _rows(raw)
    om = _rows(omega)
    N, d = om.shape
    spec.check(F.shape == om.shape, f"force returned shape {F.shape} for {N} particles in R^{d}")
    inter = _interaction(interaction, d)
    wgt = 1.0 / (N - 1) if pair_weight is None else float(pair_weight)
    T = _pair_grads(om, inter).sum((0, 1)) * wgt
    u = unit_roundoff(getattr(raw, "dtype", np.float64))
    tol = (2 * N + 4 * d + 16) * u * T
    tot = F.sum(0)
    bad = ~(np.abs(tot) <= tol)
    if bad.any():
        c = int(np.argmax(np.where(bad, np.abs(tot) / np.maximum(tol, 1e-300), -1)))
        spec.fail(f"component {c}: sum_k F_k = {tot[c]!r} (the pair terms' weighted absolute sum "
                  f"is {T[c]:.3g}; N = {N}, d = {d}, {inter})", tol[c])


@prop("particles.force_is_minus_energy_gradient", "particles",
      "004 eq. A.7 / Alg. 1 (yatmath/particles/hamiltonian.py ParticleEnergy.drift = N grad H_N; "
      "forces.py: interaction_force = N grad W_{N,s}): the force is minus the gradient of the "
      "energy",
      "|F_kc + dE/d omega_kc| <= the central difference's own bound (Richardson truncation "
      "estimate and 2 x energy_error / (2h)) + (N + 4d + 16) u T_kc (the force's rounding, "
      "T_kc = (1/(N-1)) sum_l |grad g_kl,c|) scaled by force_scale; steps h = 2^-16 x the "
      "distance from omega_k to the nearest particle (the pair terms are analytic within it)")
def force_is_minus_energy_gradient(force, energy, omega, interaction, *, energy_error=None,
                                   force_scale=1.0, step=2.0 ** -16):
    """F = -grad E by central finite differences of ``energy``.  ``energy_error``: an absolute
    bound on the error of one energy evaluation (default :func:`interaction_energy_error` times
    ``force_scale``: right for E = force_scale N W_{N,s}); ``force_scale``: the factor between
    the interaction force and F (lambda for a Hamiltonian lambda W)."""
    spec = force_is_minus_energy_gradient.spec
    om = _rows(omega)
    N, d = om.shape
    one_d = np.asarray(omega).ndim == 1
    inter = _interaction(interaction, d)
    raw = force(om[:, 0] if one_d else om)
    F = _rows(raw)
    spec.check(F.shape == om.shape, f"force returned shape {F.shape} for {N} particles in R^{d}")
    dist = np.sqrt(((om[:, None, :] - om[None, :, :]) ** 2).sum(-1))
    dist[np.eye(N, dtype=bool)] = np.inf
    scale = np.maximum(dist.min(1), getattr(inter, "delta", 0.0) or 0.0)
    h = np.maximum(step * scale[:, None] * np.ones((1, d)), 64 * np.spacing(np.abs(om)))
    if np.any(h > 0.01 * scale[:, None]):
        raise ValueError("particles closer than ~1e4 ulps of their coordinates: the energy "
                         "varies on a scale float64 cannot step")
    if energy_error is None:
        energy_error = lambda p: abs(force_scale) * interaction_energy_error(p, inter)  # noqa: E731
    f = (lambda p: float(energy(p[:, 0]))) if one_d else (lambda p: float(energy(p)))
    fd = central_difference(f, om, h, energy_error)
    u = unit_roundoff(getattr(raw, "dtype", np.float64))
    T = _pair_grads(om, inter).sum(1) / (N - 1)
    tol = fd.bound + abs(force_scale) * (N + 4 * d + 16) * u * T
    err = np.abs(F + fd.value)
    k = worst_outside(err, tol)
    if k is not None:
        spec.fail(f"particle {k[0]}, component {k[1]}: F = {F[k]!r}, -dE/domega = "
                  f"{-fd.value[k]!r} (|diff| = {err[k]:.3g}; N = {N}, {inter})", tol[k])


@prop("particles.langevin_step_stays_in_domain", "particles",
      "004 eq. 4.3 / B.11 and Alg. 1 (the step ends with the projection P_Omega, or the mirror "
      "reflection); yatmath/particles/domains.py docstring: both map points into the domain, "
      "with a one-ulp guard",
      "exact: domain.contains(step(omega)) for every particle (the domains guard rounding, so no "
      "tolerance)")
def langevin_step_stays_in_domain(step, omega, domain):
    """Every particle after a projected (or reflected) Langevin step lies in the domain."""
    spec = langevin_step_stays_in_domain.spec
    new = step(omega)
    inside = np.asarray(host64(domain.contains(new)) > 0)
    arr = _rows(new)
    spec.check(arr.shape[0] == _rows(omega).shape[0],
               f"the step returned {arr.shape[0]} particles for {_rows(omega).shape[0]}")
    spec.check(bool(np.isfinite(arr).all()), "the step returned non-finite particles")
    if not inside.all():
        k = int(np.argmin(inside))
        spec.fail(f"particle {k} = {arr[k].tolist()} is outside {type(domain).__name__} "
                  f"({getattr(domain, 'lo', getattr(domain, 'radius', ''))!r})", 0.0)


# ----------------------------------------------------------------------------------------------
def _dense(A):
    return host64(A.toarray() if hasattr(A, "toarray") else A)


def fv_positivity_dt(A) -> float:
    """1 / max_i A_ii: the largest dt for which I - dt A is entrywise non-negative (A's
    off-diagonal entries are <= 0: the fluxes' coefficients are >= 0), i.e. the forward-Euler
    step rho' = (I - dt A) rho keeps every rho >= 0 non-negative (the monotonicity CFL bound)."""
    diag = np.diag(_dense(A))
    top = float(diag.max()) if diag.size else 0.0
    return math.inf if top <= 0 else 1.0 / top


def _fv_parts(fv_step, operator, rho, dt):
    rho = host64(rho).reshape(-1)
    new = host64(fv_step(rho, dt)).reshape(-1)
    A = _dense(operator(rho))
    flux = dt * (np.abs(A) @ np.abs(rho))     # >= dt (1/h) sum_{faces of i} |F_f|
    return rho, new, A, flux


@prop("particles.fv_mass_conserved", "particles",
      "yatmath/particles/pde.py docstring (004 eq. 4.4-4.5, no-flux boundary): each face flux is "
      "added to one cell and subtracted from the other, so h^d sum rho is conserved exactly by "
      "construction, for any dt",
      "|mass' - mass| <= h^d [8 u sum_i dt (|A| rho)_i + (n + 4) u (sum |rho| + sum |rho'|)]: "
      "each cell's divergence (at most 4 faces) and update carry <= 8 roundings of "
      "dt (1/h) sum_f |F_f| <= dt (|A| rho)_i, and the two mass sums n + 4 each")
def fv_mass_conserved(fv_step, operator, rho, dt, *, cell_volume):
    """One explicit FV step conserves the total mass h^d sum rho."""
    spec = fv_mass_conserved.spec
    rho, new, A, flux = _fv_parts(fv_step, operator, rho, dt)
    spec.check(new.shape == rho.shape, f"the step returned {new.shape} cells for {rho.shape}")
    n = rho.size
    tol = cell_volume * (8 * U64 * flux.sum() + (n + 4) * U64 * (np.abs(rho).sum()
                                                                  + np.abs(new).sum()))
    m0, m1 = cell_volume * rho.sum(), cell_volume * new.sum()
    spec.check(abs(m1 - m0) <= tol, f"mass {m0!r} -> {m1!r} (change {m1 - m0:.3g}; dt = {dt:.3g}, "
               f"{n} cells)", tol)


@prop("particles.fv_nonnegative_under_cfl", "particles",
      "yatmath/particles/pde.py docstring and McKeanVlasovFV.run ('forward Euler may lose "
      "positivity' only above the stable step): the explicit step rho' = (I - dt A[rho]) rho is a "
      "non-negative combination when dt <= 1 / max_i A_ii (fv_positivity_dt), so rho >= 0 "
      "stays >= 0 under the CFL bound",
      "rho'_i >= -8 u (rho_i + |rho'_i| + dt (|A| rho)_i) (at most 8 roundings in the update of a "
      "cell with 4 faces)")
def fv_nonnegative_under_cfl(fv_step, cfl, operator, rho):
    """From a non-negative density, one explicit step of length dt = cfl(rho) gives a
    non-negative density."""
    spec = fv_nonnegative_under_cfl.spec
    rho0 = host64(rho).reshape(-1)
    if np.any(rho0 < 0):
        raise ValueError("rho must be >= 0 (the property's hypothesis)")
    dt = float(cfl(rho0))
    rho0, new, A, flux = _fv_parts(fv_step, operator, rho0, dt)
    tol = 8 * U64 * (rho0 + np.abs(new) + flux)
    bad = ~(new >= -tol)
    if bad.any():
        k = int(np.argmax(np.where(bad, -new / np.maximum(tol, 1e-300), -1)))
        spec.fail(f"cell {k}: rho' = {new[k]!r} < 0 after dt = cfl(rho) = {dt:.6g} (rho_k = "
                  f"{rho0[k]!r}; the positivity bound 1/max A_ii = {fv_positivity_dt(A):.6g})",
                  tol[k])
