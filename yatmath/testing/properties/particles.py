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
    free_energy(rho) -> float         the scheme's discrete free energy F_h
                                      (``McKeanVlasovFV.free_energy``), potential(rho) -> U
    project(W) -> W'                  a projection onto a convex domain (``Domain.project``)
    sample(N, seed) -> (N, d)         N i.i.d. points (``Domain.sample_uniform``)
    tail(N, p, a) -> {log_tail, kl}   the exact binomial tail and its Sanov rate
                                      (``ldp.sanov_two_bin``)

The interaction is described by a ``yatmath.particles.Interaction`` (or (kind, s, delta)): its
``grad`` and ``g`` are the one definition of the pair terms used for the tolerances.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._core import U64, central_difference, gamma, host64, prop, unit_roundoff, worst_outside

if TYPE_CHECKING:   # annotations only: the particle model is imported where it is used
    from ...particles.interactions import Interaction

__all__ = ["interaction_energy_error", "forces_sum_to_zero", "force_is_minus_energy_gradient",
           "langevin_step_stays_in_domain", "fv_positivity_dt", "fv_mass_conserved",
           "fv_nonnegative_under_cfl", "projection_error", "projection_nonexpansive",
           "fv_free_energy_error", "fv_free_energy_decreases", "empirical_measure_ldp",
           "sanov_tail_sandwich"]


def _interaction(interaction: Any, d: int) -> Interaction:
    from ...particles.interactions import Interaction, make_interaction

    if isinstance(interaction, Interaction):
        return interaction
    return make_interaction(*interaction, d=d)  # type: ignore[misc]


def _rows(omega: npt.ArrayLike) -> npt.NDArray[np.float64]:
    om = host64(omega)
    return om[:, None] if om.ndim == 1 else om


def _pair_grads(om: npt.NDArray[np.float64], inter: Interaction) -> npt.NDArray[np.float64]:
    """|grad g(omega_k - omega_l)| per component, (N, N, d), 0 on the diagonal."""
    N, d = om.shape
    W = om[:, None, :] - om[None, :, :]
    off = ~np.eye(N, dtype=bool)
    G = np.zeros((N, N, d))
    G[off] = np.abs(host64(inter.grad(W[off])))
    return G


def interaction_energy_error(omega: npt.ArrayLike, interaction: Any) -> float:
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
def forces_sum_to_zero(force: Callable[..., Any], omega: npt.ArrayLike, interaction: Any, *,
                       pair_weight: float | None = None) -> None:
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
def force_is_minus_energy_gradient(
        force: Callable[..., Any], energy: Callable[..., Any], omega: npt.ArrayLike,
        interaction: Any, *, energy_error: Callable[[npt.NDArray[np.float64]], float] | None = None,
        force_scale: float = 1.0, step: float = 2.0 ** -16) -> None:
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
def langevin_step_stays_in_domain(step: Callable[..., Any], omega: npt.ArrayLike,
                                  domain: Any) -> None:
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
def _dense(A: Any) -> npt.NDArray[np.float64]:
    return host64(A.toarray() if hasattr(A, "toarray") else A)


def fv_positivity_dt(A: Any) -> float:
    """1 / max_i A_ii: the largest dt for which I - dt A is entrywise non-negative (A's
    off-diagonal entries are <= 0: the fluxes' coefficients are >= 0), i.e. the forward-Euler
    step rho' = (I - dt A) rho keeps every rho >= 0 non-negative (the monotonicity CFL bound)."""
    diag = np.diag(_dense(A))
    top = float(diag.max()) if diag.size else 0.0
    return math.inf if top <= 0 else 1.0 / top


def _fv_parts(fv_step: Callable[..., Any], operator: Callable[..., Any], rho: npt.ArrayLike,
              dt: float
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
               npt.NDArray[np.float64]]:
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
def fv_mass_conserved(fv_step: Callable[..., Any], operator: Callable[..., Any], rho: npt.ArrayLike,
                      dt: float, *, cell_volume: float) -> None:
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
def fv_nonnegative_under_cfl(fv_step: Callable[..., Any], cfl: Callable[..., Any],
                             operator: Callable[..., Any], rho: npt.ArrayLike) -> None:
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



# ----------------------------------------------------------------------------------------------
def projection_error(domain: Any, W: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A bound (per row) on the distance between the computed and the exact Euclidean
    projection of the rows of W onto ``domain``: 0 for a box or an interval (clipping is exact);
    for a ball of radius R about c, gamma_{d+24} (||c|| + min(||w - c||, R)): w - c, its norm,
    R / r, the product and c + ... (d + 6 roundings per coordinate) and the ulp guard of
    Ball.project (scale stepped down by at most 16 ulps)."""
    from ...particles.domains import Ball, Box

    P = _rows(W)
    if isinstance(domain, Box):
        return np.zeros(P.shape[0])
    if isinstance(domain, Ball):
        c = np.asarray(domain.center, np.float64)
        r = np.sqrt(((P - c) ** 2).sum(1))
        cn = float(np.sqrt((c * c).sum()))
        return gamma(P.shape[1] + 24) * (cn + np.minimum(r, domain.radius))
    raise TypeError(f"no rounding bound for a {type(domain).__name__}: pass error= to "
                    "projection_nonexpansive")


@prop("particles.projection_nonexpansive", "particles",
      "004 eq. B.11 (the projected step ends with the Euclidean projection P_Omega onto the convex "
      "domain) and yatmath/particles/domains.py docstring ('Non-expansive: ||P(a) - P(b)|| <= "
      "||a - b||'; 'the identity inside the domain'): the projection onto a closed convex set is "
      "1-Lipschitz (Bauschke & Combettes, Prop. 4.16) and fixes the set",
      "||P(a) - P(b)|| <= ||a - b|| (1 + 2 gamma_{d+4}) + e(a) + e(b) (the two norms in float64, "
      "the differences rounded once per coordinate) and ||P(a) - a|| <= e(a) for a in Omega, "
      "e the projection's own rounding (projection_error: 0 for boxes, gamma_{d+24} (||c|| + "
      "min(r, R)) for balls)")
def projection_nonexpansive(project: Callable[..., Any], A: npt.ArrayLike, B: npt.ArrayLike,
                            domain: Any, *, error: Callable[..., Any] | None = None) -> None:
    """The projection of the rows of ``A`` and ``B`` (pairs compared row by row) is
    non-expansive and the identity on points of the domain.  ``error(domain, W)``: the rounding
    bound of the projection (default :func:`projection_error`)."""
    spec = projection_nonexpansive.spec
    err_fn = projection_error if error is None else error
    A64, B64 = _rows(A), _rows(B)
    PA, PB = _rows(project(A)), _rows(project(B))
    spec.check(PA.shape == A64.shape and PB.shape == B64.shape,
               f"project returned {PA.shape}, {PB.shape} for points {A64.shape}, {B64.shape}")
    d = A64.shape[1]
    eA, eB = np.asarray(err_fn(domain, A)), np.asarray(err_fn(domain, B))
    dist = np.sqrt(((A64 - B64) ** 2).sum(1))
    pdist = np.sqrt(((PA - PB) ** 2).sum(1))
    tol = 2 * gamma(d + 4) * dist + eA + eB
    excess = pdist - dist
    k = worst_outside(excess, tol)
    if k is not None:
        i = k[0]
        spec.fail(f"pair {i}: ||P(a) - P(b)|| = {float(pdist[i])!r} > ||a - b|| = "
                  f"{float(dist[i])!r} (ratio {pdist[i] / max(dist[i], 1e-300):.6g}); a = "
                  f"{A64[i].tolist()}, b = "
                  f"{B64[i].tolist()}, {type(domain).__name__}", tol[i])
    for W, PW, e in ((A64, PA, eA), (B64, PB, eB)):
        inside = np.asarray(host64(domain.contains(W)) > 0)
        moved = np.sqrt(((PW - W) ** 2).sum(1))
        bad = inside & ~(moved <= e)
        if bad.any():
            i = int(np.argmax(np.where(bad, moved - e, -np.inf)))
            spec.fail(f"the point {W[i].tolist()} of the domain is moved by {moved[i]:.3g} "
                      f"(to {PW[i].tolist()}); a projection fixes its set", e[i])


# ----------------------------------------------------------------------------------------------
def fv_free_energy_error(fv: Any) -> Callable[[npt.ArrayLike], float]:
    """For a ``yatmath.particles.McKeanVlasovFV`` ``fv``: a callable rho -> bound on the
    rounding error of ``fv.free_energy(rho)`` (F_h = h^d sum V rho + (lambda/2) h^d sum rho c
    + beta^-1 h^d sum rho ln rho, c = h^d G * rho by scipy.signal.fftconvolve):

        gamma_{n+8} h^d [sum |V| rho + (|lambda|/2) sum rho (C + e_c) + beta^-1 sum |rho ln rho|]
        + (|lambda|/2) h^d sum rho e_c,

    n the active cells, C = h^d |G| * rho and e_c = h^d 24 log2(L) u (||rho||_2 ||T||_1 +
    ||T||_2 ||rho||_1) the error of one FFT-convolution entry (Higham, Accuracy and Stability,
    Thm 24.2: a radix-2 FFT of length L is computed with ||error||_2 <= log2(L) eta ||y||_2,
    eta <= 7u; the forward transforms, the product and the inverse give 3 such terms, each
    <= eta log2 L (||rho||_2 ||T||_1 + ||T||_2 ||rho||_1) by Young's inequality), L the
    transform's total length (<= 2 (3M) per axis), T the interaction table."""
    from scipy.signal import fftconvolve

    g = fv.grid
    hv = g.cell_volume
    n = int(np.count_nonzero(g.active))
    V = np.asarray(fv.V, np.float64)
    lam = abs(float(fv.lam))
    beta = float(fv.beta)
    T = None if fv.kernel is None else np.abs(np.asarray(fv.kernel, np.float64))
    log2L = g.dim * (math.log2(3 * g.M) + 1)

    def err(rho: npt.ArrayLike) -> float:
        r = np.where(g.active, host64(rho).reshape(-1), 0.0)
        tot = float((np.abs(V) * r).sum())
        extra = 0.0
        if T is not None and lam:
            C = hv * fftconvolve(r.reshape(g.shape), T, mode="valid").ravel()
            ec = hv * 24 * log2L * U64 * (math.sqrt(float((r * r).sum())) * float(T.sum())
                                           + math.sqrt(float((T * T).sum())) * float(r.sum()))
            tot += 0.5 * lam * float((r * (np.abs(C) + ec)).sum())
            extra = 0.5 * lam * hv * ec * float(r.sum())
        if math.isfinite(beta):
            pos = r > 0
            tot += float(np.abs(r[pos] * np.log(r[pos])).sum()) / beta
        return gamma(n + 8) * hv * tot + extra
    return err


def _xlogx_variation(c: npt.ArrayLike, e: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """max |f(y) - f(c)| over y >= 0 with |y - c| <= e, f(x) = x ln x (f(0) = 0), c >= 0:
    e max|1 + ln x| at the ends of [c - e, c + e] when c - e > 0 (f' = 1 + ln x is monotone),
    else twice max_{[0, c + e]} |f| (= x |ln x| at x = c + e below 1/e, 1/e beyond it, or
    (c + e) ln(c + e) above 1)."""
    c = np.asarray(c, np.float64)
    e = np.asarray(e, np.float64)
    lo, hi = c - e, c + e
    with np.errstate(divide="ignore", invalid="ignore"):
        ends = e * np.maximum(np.abs(1 + np.log(np.where(lo > 0, lo, 1.0))),
                              np.abs(1 + np.log(np.where(hi > 0, hi, 1.0))))
        fhi = np.where(hi > 0, hi * np.abs(np.log(np.where(hi > 0, hi, 1.0))), 0.0)
    top = np.where(hi < math.exp(-1), fhi, np.maximum(math.exp(-1), fhi))
    return np.where(lo > 0, ends, 2 * top)


@prop("particles.fv_free_energy_decreases", "particles",
      "004 eq. 4.4-4.5 (the McKean-Vlasov PDE is the gradient flow of F(rho) = int V rho + "
      "(lambda/2) iint g rho rho + beta^-1 int rho ln rho, so dF/dt <= 0) and yatmath/particles/"
      "pde.py (the discrete F_h it logs per step; the explicit step 'stable for dt <= "
      "stable_dt'): one explicit FV step at a stable, positivity-preserving dt does not increase "
      "F_h",
      "F_h(rho') <= F_h(rho) + err(rho) + err(rho') + sum_i h^d (|U_i| e_i + beta^-1 "
      "var_i): err the free energy's evaluation bound (fv_free_energy_error for yatmath's "
      "solver), e_i = 8 u (rho_i + |rho'_i| + dt (|A| rho)_i) the step's rounding per cell (as "
      "particles.fv_nonnegative_under_cfl; rounding negatives within it are set to 0), its "
      "effect on F_h through dF/drho_i = h^d (U_i + beta^-1 (1 + ln rho_i)) with var_i the "
      "variation of x ln x over [rho'_i - e_i, rho'_i + e_i] (exact for the V and entropy "
      "parts; the interaction part's second-order term (lambda/2) h^2d e^T G e is O(u^2) "
      "relative and left out)")
def fv_free_energy_decreases(fv_step: Callable[..., Any], free_energy: Callable[..., Any],
                             cfl: Callable[..., Any], operator: Callable[..., Any],
                             potential: Callable[..., Any], rho: npt.ArrayLike, *, beta: float,
                             cell_volume: float, energy_error: Callable[..., Any]) -> None:
    """From a non-negative density, one explicit step of length dt = cfl(rho) does not increase
    the discrete free energy.  ``potential(rho)``: U = V + lambda g * rho per cell;
    ``energy_error(rho)``: a bound on the rounding of ``free_energy(rho)``."""
    spec = fv_free_energy_decreases.spec
    rho0 = host64(rho).reshape(-1)
    if np.any(rho0 < 0):
        raise ValueError("rho must be >= 0 (the property's hypothesis)")
    dt = float(cfl(rho0))
    rho0, new, A, flux = _fv_parts(fv_step, operator, rho0, dt)
    e = 8 * U64 * (rho0 + np.abs(new) + flux)
    if np.any(new < -e):
        k = int(np.argmin(new + e))
        raise ValueError(f"dt = cfl(rho) = {dt:.6g} makes rho'[{k}] = {new[k]!r} < 0: the free "
                         "energy needs a positivity-preserving step (see fv_positivity_dt)")
    newc = np.maximum(new, 0.0)
    F0, F1 = float(free_energy(rho0)), float(free_energy(newc))
    U = host64(potential(newc)).reshape(-1)
    ent = 0.0 if not math.isfinite(beta) else float(_xlogx_variation(newc, e).sum()) / beta
    step = cell_volume * (float((np.abs(U) * e).sum()) + ent)
    tol = float(energy_error(rho0)) + float(energy_error(newc)) + step
    spec.check(F1 - F0 <= tol, lambda: f"F_h {F0!r} -> {F1!r} (increase {F1 - F0:.6g}) after "
               f"dt = {dt:.6g} ({rho0.size} cells, beta = {beta})", tol)


# ----------------------------------------------------------------------------------------------
def _kl_bernoulli(a: float, p: float) -> float:
    from scipy.special import rel_entr

    return float(rel_entr(a, p) + rel_entr(1.0 - a, 1.0 - p))


@prop("particles.empirical_measure_ldp", "particles",
      "004 Thm 2 / Thm 6 at lambda = 0 (i.i.d. particles: Sanov's theorem, yatmath/particles/"
      "ldp.py 'Sanov'), with the finite-N constants of the method of types (Cover & Thomas, "
      "Example 11.1.3: C(N, k) >= e^{N H(k/N)} / (N + 1), so P(L_N(A) = k/N) >= "
      "e^{-N KL(k/N||p)} / (N + 1); Chernoff for the upper bound): for N i.i.d. points with "
      "mu(A) = p and a = k/N, exp(-N KL(a||p)) / (N + 1) <= P(L_N(A) >= a) <= "
      "exp(-N KL(a||p)) for a > p (and the mirror statement for P(L_N(A) <= a), a < p)",
      "the exceedance count C over R replicates, C ~ Binomial(R, P): C <= the upper "
      "alpha/(2m) quantile of Binomial(R, P_up) and C >= the lower alpha/(2m) quantile of "
      "Binomial(R, P_lo) for each of the m (N, k) pairs (the binomial is stochastically "
      "increasing in P): failure probability <= alpha exactly (Bonferroni), seeded")
def empirical_measure_ldp(sample: Callable[[int, int], Any], indicator: Callable[[Any], Any],
                          p: float, *, sizes: Sequence[int] = (4, 8, 16, 32),
                          replicates: int = 400, alpha: float = 1e-6,
                          kl: Callable[..., Any] | None = None, seed: int = 0) -> None:
    """The empirical measure L_N = (1/N) sum delta_{omega_k} of ``sample(N, rng)`` (N i.i.d.
    points of a law mu; ``rng`` an integer seed) concentrates at the LDP rate: the probability
    that L_N(A) deviates to a (``indicator(points)`` is the membership in A, mu(A) = ``p``)
    lies between the method-of-types bounds.  ``kl(a, p)``: the Bernoulli relative entropy (the
    rate; default: scipy.special.rel_entr), e.g. ``yatmath.particles.ldp.bernoulli_kl``."""
    from scipy.stats import binom

    spec = empirical_measure_ldp.spec
    p = float(p)
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    rate = _kl_bernoulli if kl is None else (lambda a, q: float(np.asarray(kl(a, q))))
    tests = []
    for N in sizes:
        N = int(N)
        fr = np.empty(replicates)
        for r in range(replicates):
            pts = sample(N, seed + 1_000_003 * N + r)
            hit = np.asarray(indicator(pts), bool).reshape(-1)
            spec.check(hit.size == N, f"sample({N}) gave {hit.size} points")
            fr[r] = hit.sum()
        for k in range(N + 1):
            a = k / N
            if a == p:
                continue
            upper = a > p
            C = int(np.sum(fr >= k) if upper else np.sum(fr <= k))
            I = rate(a, p)
            tests.append((N, k, a, upper, C, math.exp(-N * I), math.exp(-N * I) / (N + 1), I))
    m = 2 * len(tests)
    for N, k, a, upper, C, P_up, P_lo, I in tests:
        hi_q = int(binom.isf(alpha / m, replicates, min(P_up, 1.0)))
        lo_q = int(binom.ppf(alpha / m, replicates, P_lo))
        rel = ">=" if upper else "<="
        spec.check(C <= hi_q, f"N = {N}: L_N(A) {rel} {a:.4g} in {C} of {replicates} replicates "
                   f"(rate KL = {I:.4g}: P <= exp(-N KL) = {P_up:.4g}, expected count <= "
                   f"{replicates * P_up:.4g}; p = {p})", hi_q)
        spec.check(C >= lo_q, f"N = {N}: L_N(A) {rel} {a:.4g} in only {C} of {replicates} "
                   f"replicates (rate KL = {I:.4g}: P >= exp(-N KL)/(N+1) = {P_lo:.4g}; p = "
                   f"{p})", lo_q)


@prop("particles.sanov_tail_sandwich", "particles",
      "yatmath/particles/ldp.py sanov_two_bin docstring (exact log P(#{omega_k in A} >= a N) for "
      "Binomial(N, p) against the Sanov rate N KL(a||p)) with the finite-N bounds of the method "
      "of types: -N KL(k/N||p) - ln(N + 1) <= log P(X >= k) <= -N KL(a||p), k = ceil(a N), "
      "p < a < 1 (Cover & Thomas Example 11.1.3, the binary type class; Chernoff), and kl = "
      "KL(a||p)",
      "2^-40 (1 + |log_tail| + N (|a ln(a/p)| + |(1-a) ln((1-a)/(1-p))|)) on each side (the "
      "incomplete beta behind binom.logsf -- Boost's ibeta, peak errors of a few hundred ulps "
      "-- and a few ulps on each KL term times N); |kl - KL| <= 8 u (|a ln(a/p)| + |(1-a) "
      "ln((1-a)/(1-p))|) + u^2")
def sanov_tail_sandwich(tail: Callable[..., Any], N: int, p: float, a: float) -> None:
    """``tail(N, p, a)`` returns the exact log tail and the rate (a dict with ``log_tail`` and
    ``kl``, as ``sanov_two_bin``, or a pair): both within the method-of-types sandwich."""
    from scipy.special import xlogy

    spec = sanov_tail_sandwich.spec
    out = tail(N, p, a)
    lt, klv = (out["log_tail"], out["kl"]) if isinstance(out, dict) else out
    lt = float(np.asarray(lt).reshape(-1)[0])
    klv = float(np.asarray(klv).reshape(-1)[0])
    N, p, a = int(N), float(p), float(a)
    k = math.ceil(a * N - 1e-12)
    t1 = abs(float(xlogy(a, a / p)))
    t2 = abs(float(xlogy(1 - a, (1 - a) / (1 - p))))
    KL = _kl_bernoulli(a, p)
    tk = 8 * U64 * (t1 + t2) + U64 ** 2
    spec.check(abs(klv - KL) <= tk, f"kl = {klv!r}, KL(a||p) = {KL!r} (a = {a}, p = {p})", tk)
    tol = 2.0 ** -40 * (1 + abs(lt) + N * (t1 + t2))
    upper = -N * KL
    lower = -N * _kl_bernoulli(k / N, p) - math.log(N + 1)
    spec.check(lt <= upper + tol, f"log P(X >= {k}) = {lt!r} > -N KL(a||p) = {upper!r} (N = {N}, "
               f"p = {p}, a = {a}): faster than the rate allows", tol)
    spec.check(lt >= lower - tol, f"log P(X >= {k}) = {lt!r} < -N KL(k/N||p) - ln(N+1) = "
               f"{lower!r} (N = {N}, p = {p}, a = {a})", tol)
