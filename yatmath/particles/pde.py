"""Finite volumes for the McKean-Vlasov PDE of 004 (eq.4.4-4.5) in 1-D and 2-D (algorithms.md §P4).

    d_t rho = div(rho grad U + beta^{-1} grad rho),  U = V + lambda g * rho,  no-flux boundary.

Grid: cells of side h on [a, b] (1-D) or [a, b]^2 (2-D), optionally masked to a disk; cell
averages rho_i; faces between two active cells carry a flux, all other faces carry none, so
the total mass h^d sum rho is conserved exactly by construction (each face flux is added to one
cell and subtracted from the other).

Potential: U_i = V(x_i) + lambda h^d sum_j G_ij rho_j with G_ij = g(x_i - x_j), evaluated as a
Toeplitz convolution by FFT.  Entries whose offset is within ``near`` cells are cell averages of
g over the relative offset of two uniform points (Gauss-Legendre per linear piece of the
triangular offset density; adaptive quadrature in 1-D, 32-point tensor Gauss-Legendre in 2-D,
about 1e-4 relative on the singular log cell) when ``cell_average`` is True, or "auto" and delta < h or the kernel
is singular.

Face fluxes (dU = U_right - U_left, h the spacing):
    upwind               F = v (rho_l if v > 0 else rho_r) - (rho_r - rho_l)/(beta h), v = -dU/h
    Scharfetter-Gummel   F = (1/(beta h)) [B(beta dU) rho_l - B(-beta dU) rho_r], B(z) = z/expm1(z)
SG vanishes exactly on the discrete Gibbs profile rho ∝ exp(-beta U).  beta = inf: pure upwind.

Time stepping: explicit (dt <= 0.5 min(beta h^2/(2 dim), h/max|v|)) or semi-implicit (U frozen,
(I + dt A) rho^{k+1} = rho^k with A the face-flux operator, an M-matrix: positivity kept).

Free energy: F_h = h^d sum V rho + (lambda/2) h^{2d} sum G rho rho + beta^{-1} h^d sum rho ln rho.

Stationary states: the damped fixed point rho <- (1-a) rho + a Gibbs(U[rho]) (a starts at 0.2
and halves whenever the residual grows), stopped when h^d sum |delta rho| < tol (default
1e-14, i.e. the spec's 1e-12 on the unweighted sum for h = 0.01).

Accuracy: the scheme is first order in h (upwind) / second order in h for smooth data (SG);
mass is conserved to roundoff (~1e-15 relative per step).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.signal import fftconvolve
from scipy.sparse.linalg import splu

from ._arrays import host_op
from .._validate import (as_float_array, check_choice, check_density, check_int, check_positive,
                         check_real)
from .interactions import interaction_argument

FLUXES = ("sg", "upwind")
SCHEMES = ("explicit", "semi_implicit")
#: default ceiling on the number of time steps of :meth:`McKeanVlasovFV.run`
MAX_STEPS = 10_000_000


class FVGrid:
    """A tensor grid of cells of side h, 1-D or 2-D, with an optional active mask (disk)."""

    @host_op("particles.FVGrid")
    def __init__(self, a, b, M, dim=1, mask=None):
        a = check_real(a, "a")
        b = check_real(b, "b")
        if not b > a:
            raise ValueError(f"b must be > a (need a < b for the grid [a, b]), got a={a!r}, b={b!r}")
        M = check_int(M, "M", minimum=2)
        dim = check_int(dim, "dim", minimum=1, maximum=2)
        if not np.isfinite((b - a) / M) or (b - a) / M == 0:
            raise ValueError(f"M={M} cells on [{a}, {b}] give a cell side that is not a positive "
                             "finite float64")
        self.a, self.b, self.M, self.dim = float(a), float(b), int(M), dim
        self.h = (self.b - self.a) / M
        self.edges = self.a + self.h * np.arange(M + 1)
        c = self.a + self.h * (np.arange(M) + 0.5)
        self.x = c
        self.shape = (M,) * dim
        if dim == 1:
            self.centres = c[:, None]
        else:
            XX, YY = np.meshgrid(c, c, indexing="ij")
            self.centres = np.stack([XX.ravel(), YY.ravel()], axis=1)
        n = M ** dim
        if mask is None:
            self.active = np.ones(n, bool)
        else:
            m = np.asarray(mask)
            if m.dtype != bool:
                raise TypeError(f"mask must be a boolean array, got dtype {m.dtype}")
            self.active = m.ravel()
        if self.active.shape != (n,) or not self.active.any():
            raise ValueError(f"mask must have {n} entries with at least one True, got shape "
                             f"{np.shape(mask)} with {int(np.sum(self.active))} True")
        self.cell_volume = self.h ** dim
        idx = np.arange(n).reshape(self.shape)
        L, R = [], []
        for ax in range(dim):
            sl_l = [slice(None)] * dim
            sl_r = [slice(None)] * dim
            sl_l[ax], sl_r[ax] = slice(0, M - 1), slice(1, M)
            L.append(idx[tuple(sl_l)].ravel())
            R.append(idx[tuple(sl_r)].ravel())
        L, R = np.concatenate(L), np.concatenate(R)
        keep = self.active[L] & self.active[R]          # zero flux to masked cells
        self.face_l, self.face_r = L[keep], R[keep]

    @classmethod
    def interval(cls, a, b, M):
        return cls(a, b, M, 1)

    @classmethod
    def square(cls, a, b, M):
        return cls(a, b, M, 2)

    @classmethod
    @host_op("particles.FVGrid.disk")
    def disk(cls, radius, M, center=(0.0, 0.0)):
        radius = check_positive(radius, "radius")
        center = as_float_array(center, "center", ndim=1)
        if center.shape != (2,):
            raise ValueError(f"center must have shape (2,), got {center.shape}")
        g = cls(center[0] - radius, center[0] + radius, M, 2)
        if center[1] != center[0]:
            raise ValueError("disk grids are centred on the diagonal: use center=(c, c)")
        r = np.linalg.norm(g.centres - np.asarray(center), axis=1)
        return cls(center[0] - radius, center[0] + radius, M, 2, mask=r <= radius)

    def _cells(self, rho, name="rho"):
        """``rho`` as a flat float64 array of one value per cell (shape (M,) or (M,)*dim)."""
        r = as_float_array(rho, name, ndim=(1, self.dim)).astype(np.float64)
        n = self.active.shape[0]
        if r.shape not in ((n,), self.shape):
            raise ValueError(f"{name} must hold one value per cell: shape ({n},) or "
                             f"{self.shape}, got {r.shape}")
        return r.reshape(-1)

    @host_op("particles.FVGrid.mass")
    def mass(self, rho):
        """h^d sum rho over the active cells."""
        r = self._cells(rho)
        return float(self.cell_volume * np.sum(r[self.active]))

    @host_op("particles.FVGrid.normalise")
    def normalise(self, rho, name="rho"):
        """rho / mass on the active cells (zero elsewhere); rho must be a density: >= 0 with
        positive mass on the active cells."""
        r = check_density(self._cells(rho, name), name)
        r = np.where(self.active, r, 0.0)
        m = self.cell_volume * np.sum(r)
        if not m > 0:
            raise ValueError(f"{name} must have positive mass on the active cells, got 0")
        if not np.isfinite(m):      # rescale before summing: the mass of huge values overflows
            r = r / np.max(r)
            m = self.cell_volume * np.sum(r)
        return r / m


def _cell_avg_1d(g_of_r, k, h):
    """Mean of g(|u|) for u = (k + s1 - s2) h, s1, s2 ~ U[0,1]: the triangular density on
    [(k-1) h, (k+1) h], integrated by adaptive quadrature (QUADPACK qags, which extrapolates
    the integrable log/power singularity at u = 0) on each linear piece, split at 0."""
    from scipy.integrate import quad

    tot = 0.0
    for lo, hi in (((k - 1) * h, k * h), (k * h, (k + 1) * h)):
        cuts = [lo, hi] if not (lo < 0 < hi) else [lo, 0.0, hi]
        for p, q in zip(cuts[:-1], cuts[1:]):
            f = lambda u: float(g_of_r(abs(u))) * (1.0 - abs(u / h - k)) / h
            tot += quad(f, p, q, epsabs=0.0, epsrel=1e-13, limit=200)[0]
    return tot


class McKeanVlasovFV:
    """Finite-volume solver (see the module docstring).

    V : callable (ncell, dim) -> (ncell,) evaluated at the cell centres (or an array)
    lam, interaction : lambda and (kind, s, delta) or an Interaction (None when lam = 0)
    beta : inverse temperature (np.inf: no diffusion); flux : "sg" | "upwind"
    """

    @host_op("particles.McKeanVlasovFV", note="scipy.integrate.quad cell averages")
    def __init__(self, grid: FVGrid, V, lam=0.0, interaction=None, beta=1.0, flux="sg",
                 cell_average="auto", near=2):
        if not isinstance(grid, FVGrid):
            raise TypeError(f"grid must be an FVGrid, got {type(grid).__name__}")
        check_choice(flux, "flux", FLUXES)
        lam = check_real(lam, "lam")
        beta = check_real(beta, "beta", gt=0.0, finite=False)
        if cell_average is not True and cell_average is not False:
            check_choice(cell_average, "cell_average", ("auto", True, False))
        near = check_int(near, "near", minimum=0, maximum=grid.M - 1)
        self.grid, self.lam, self.beta, self.flux = grid, lam, beta, flux
        Vv = V(grid.centres) if callable(V) else V
        self.V = as_float_array(Vv, "V", check_finite=False).astype(np.float64).reshape(-1)
        if self.V.shape != (grid.centres.shape[0],):
            raise ValueError(f"V must give one value per cell ({grid.centres.shape[0]}), got "
                             f"shape {np.shape(Vv)}")
        if not np.all(np.isfinite(self.V)):
            raise ValueError("V contains NaN or infinity at a cell centre; V must be finite")
        self.kernel = None
        if lam != 0.0:
            if interaction is None:
                raise ValueError("interaction is needed when lam != 0, e.g. "
                                 "interaction=('plummer', 1.0, 0.1)")
            it = interaction_argument(interaction, d=grid.dim)
            self.interaction = it
            self.kernel = self._kernel_table(it, cell_average, near)

    def _kernel_table(self, it, cell_average, near):
        g, h, M = self.grid, self.grid.h, self.grid.M
        singular = not np.isfinite(it.g(0.0))
        if cell_average == "auto":
            cell_average = singular or (it.kind != "none" and it.delta < h)
        off = np.arange(-(M - 1), M) * h
        if g.dim == 1:
            T = it.g(np.abs(off))
            if cell_average:
                for k in range(-near, near + 1):
                    T[k + M - 1] = _cell_avg_1d(it.g, k, h)
        else:
            OX, OY = np.meshgrid(off, off, indexing="ij")
            T = it.g(np.hypot(OX, OY))
            if cell_average:
                x, w = np.polynomial.legendre.leggauss(32)
                for kx in range(-near, near + 1):
                    for ky in range(-near, near + 1):
                        T[kx + M - 1, ky + M - 1] = self._cell_avg_2d(it, kx, ky, h, x, w)
        if not np.all(np.isfinite(T)):
            raise ValueError("the interaction table is not finite; use cell_average=True")
        return T

    @staticmethod
    def _cell_avg_2d(it, kx, ky, h, x, w):
        def pieces(k):
            out = []
            for lo, hi in (((k - 1) * h, k * h), (k * h, (k + 1) * h)):
                u = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
                out.append((u, 0.5 * (hi - lo) * w * (1.0 - np.abs(u / h - k)) / h))
            return out
        tot = 0.0
        for ux, wx in pieces(kx):
            for uy, wy in pieces(ky):
                UX, UY = np.meshgrid(ux, uy, indexing="ij")
                tot += np.sum(np.outer(wx, wy) * it.g(np.hypot(UX, UY)))
        return tot

    # ----- potential and energy -------------------------------------------------------------
    @host_op("particles.McKeanVlasovFV.convolve", note="scipy.signal.fftconvolve")
    def convolve(self, rho):
        """h^d sum_j G_ij rho_j for every cell i (zero without an interaction)."""
        g = self.grid
        rho = g._cells(rho)
        if self.kernel is None:
            return np.zeros_like(rho)
        r = np.where(g.active, rho, 0.0).reshape(g.shape)
        # 'valid' of r (M^d) with the offset table (2M-1)^d: out[i] = sum_j r_j T[i - j + M - 1]
        return g.cell_volume * fftconvolve(r, self.kernel, mode="valid").ravel()

    @host_op("particles.McKeanVlasovFV.potential", note="scipy.signal.fftconvolve")
    def potential(self, rho):
        """U = V + lam h^d sum_j G_ij rho_j at every cell."""
        rho = self.grid._cells(rho)
        U = self.V.copy()
        if self.kernel is not None:
            U += self.lam * self.convolve(rho)
        return U

    @host_op("particles.McKeanVlasovFV.free_energy")
    def free_energy(self, rho) -> float:
        """F_h = h^d sum V rho + (lambda/2) h^{2d} sum G rho rho + beta^{-1} h^d sum rho ln rho."""
        g = self.grid
        rho = check_density(g._cells(rho), "rho")
        rho = np.where(g.active, rho, 0.0)
        hv = g.cell_volume
        F = hv * np.sum(self.V[g.active] * rho[g.active])
        if self.kernel is not None:
            F += 0.5 * self.lam * hv * np.sum(rho * self.convolve(rho))
        if np.isfinite(self.beta):
            pos = rho > 0
            F += hv * np.sum(rho[pos] * np.log(rho[pos])) / self.beta
        return float(F)

    @host_op("particles.McKeanVlasovFV.gibbs")
    def gibbs(self, rho):
        """exp(-beta U[rho]) normalised to mass 1 on the active cells."""
        if not np.isfinite(self.beta):
            raise ValueError("beta is inf: the Gibbs density exp(-beta U) is a point mass, not "
                             "a cell density; use a finite beta")
        U = self.potential(rho)
        z = -self.beta * U
        z = np.where(self.grid.active, z - z[self.grid.active].max(), -np.inf)
        return self.grid.normalise(np.exp(z))

    @host_op("particles.McKeanVlasovFV.gibbs_residual")
    def gibbs_residual(self, rho) -> float:
        """||rho - Gibbs(U[rho])||_1 = h^d sum |.|."""
        rho = self.grid._cells(rho)
        return float(self.grid.cell_volume * np.sum(np.abs(rho - self.gibbs(rho))))

    # ----- fluxes -------------------------------------------------------------------------
    def _coefficients(self, U):
        """Face coefficients (alpha, gamma) with F = alpha rho_l - gamma rho_r, and max |v|."""
        g = self.grid
        h = g.h
        dU = U[g.face_r] - U[g.face_l]
        v = -dU / h
        if not np.isfinite(self.beta):
            return np.maximum(v, 0.0), np.maximum(-v, 0.0), np.max(np.abs(v), initial=0.0)
        D = 1.0 / (self.beta * h)
        if self.flux == "upwind":
            return np.maximum(v, 0.0) + D, np.maximum(-v, 0.0) + D, np.max(np.abs(v), initial=0.0)
        z = self.beta * dU
        with np.errstate(invalid="ignore", divide="ignore"):
            Bp = np.where(z == 0, 1.0, z / np.expm1(z))
            Bm = np.where(z == 0, 1.0, -z / np.expm1(-z))
        return D * Bp, D * Bm, np.max(np.abs(v), initial=0.0)

    @host_op("particles.McKeanVlasovFV.face_flux", note="bincount face structure")
    def face_flux(self, rho, U=None):
        """The flux through every active face (module docstring); U defaults to U[rho]."""
        rho = self.grid._cells(rho)
        U = self.potential(rho) if U is None else self.grid._cells(U, "U")
        al, ga, _ = self._coefficients(U)
        return al * rho[self.grid.face_l] - ga * rho[self.grid.face_r]

    @host_op("particles.McKeanVlasovFV.stable_dt")
    def stable_dt(self, rho):
        """0.5 min(beta h^2/(2 dim), h/max|v|) (beta h^2 term dropped for beta = inf)."""
        g = self.grid
        rho = g._cells(rho)
        _, _, vmax = self._coefficients(self.potential(rho))
        cands = []
        if np.isfinite(self.beta):
            cands.append(self.beta * g.h ** 2 / (2 * g.dim))
        if vmax > 0:
            cands.append(g.h / (g.dim * vmax))
        return 0.5 * min(cands) if cands else np.inf

    @host_op("particles.McKeanVlasovFV.step_explicit", note="np.bincount divergence")
    def step_explicit(self, rho, dt):
        """rho - (dt/h) div F: one forward-Euler step (stable for dt <= stable_dt(rho))."""
        dt = check_positive(dt, "dt")
        g = self.grid
        rho = g._cells(rho)
        F = self.face_flux(rho)
        n = rho.shape[0]
        div = np.bincount(g.face_l, F, n) - np.bincount(g.face_r, F, n)
        return rho - (dt / g.h) * div

    @host_op("particles.McKeanVlasovFV.operator", note="scipy.sparse matrix")
    def operator(self, rho):
        """The sparse matrix A with (A rho)_i = (1/h) sum of outgoing face fluxes (U frozen)."""
        g = self.grid
        rho = g._cells(rho)
        al, ga, _ = self._coefficients(self.potential(rho))
        L, R = g.face_l, g.face_r
        rows = np.concatenate([L, L, R, R])
        cols = np.concatenate([L, R, L, R])
        vals = np.concatenate([al, -ga, -al, ga]) / g.h
        n = rho.shape[0]
        return sp.csc_matrix((vals, (rows, cols)), shape=(n, n))

    @host_op("particles.McKeanVlasovFV.step_semi_implicit", note="scipy.sparse.linalg.splu")
    def step_semi_implicit(self, rho, dt):
        """(I + dt A[rho]) rho_new = rho: one semi-implicit step (U frozen at rho)."""
        dt = check_positive(dt, "dt")
        rho = self.grid._cells(rho)
        A = self.operator(rho)
        n = rho.shape[0]
        return splu(sp.identity(n, format="csc") + dt * A).solve(rho)

    @host_op("particles.McKeanVlasovFV.run")
    def run(self, rho0, t_final, *, dt=None, scheme="explicit", record_every=1,
            max_steps=MAX_STEPS):
        """Integrate from the density rho0 (>= 0, positive mass; normalised here) to time
        t_final >= 0; returns an :class:`FVResult` with a record every ``record_every`` steps.

        dt : a fixed step > 0 (the explicit scheme still takes min(dt, stable_dt)), or None for
        the stable step.  The run refuses up front when it would take more than ``max_steps``
        steps (t_final/dt, or t_final/stable_dt(rho0) when dt is None; the latter is checked
        again while running, as the stable step can shrink).
        """
        check_choice(scheme, "scheme", SCHEMES)
        t_final = check_real(t_final, "t_final", ge=0.0)
        if dt is not None:
            dt = check_positive(dt, "dt")
        record_every = check_int(record_every, "record_every", minimum=1)
        max_steps = check_int(max_steps, "max_steps", minimum=1)
        g = self.grid
        rho = g.normalise(rho0, "rho0")
        step0 = dt if dt is not None else self.stable_dt(rho)
        if dt is not None and scheme == "explicit":
            step0 = min(dt, self.stable_dt(rho))
        implied = t_final / step0 if step0 > 0 else np.inf
        if implied > max_steps:
            who = "dt" if dt is not None else "the stable step stable_dt(rho0)"
            raise ValueError(f"dt={step0:.3g} ({who}) implies about {implied:.3g} steps to reach "
                             f"t_final={t_final!r}, more than max_steps={max_steps}; use a "
                             "larger dt, the semi_implicit scheme, or raise max_steps")
        res = FVResult(times=[0.0], mass=[g.mass(rho)], min_rho=[float(rho[g.active].min())],
                       free_energy=[self.free_energy(rho)])
        t, k = 0.0, 0
        while t < t_final - 1e-15 * max(1.0, t_final):
            step = self.stable_dt(rho) if dt is None else dt
            if scheme == "explicit" and dt is None:
                step = min(step, self.stable_dt(rho))
            step = min(step, t_final - t)
            rho = (self.step_explicit(rho, step) if scheme == "explicit"
                   else self.step_semi_implicit(rho, step))
            t_new = t + step
            if not t_new > t or k >= max_steps:
                raise RuntimeError(f"run stopped at t={t!r} after {k} steps: the step "
                                   f"{step:.3g} no longer advances time or exceeds max_steps="
                                   f"{max_steps} (the stable step shrank); raise max_steps or "
                                   "use the semi_implicit scheme")
            t = t_new
            k += 1
            if k % record_every == 0:
                res.times.append(t)
                res.mass.append(g.mass(rho))
                res.min_rho.append(float(rho[g.active].min()))
                res.free_energy.append(self.free_energy(rho))
        res.rho = rho
        res.steps = k
        return res

    @host_op("particles.McKeanVlasovFV.stationary")
    def stationary(self, rho0, *, a0=0.2, tol=1e-14, max_iter=100000):
        """Damped Gibbs fixed point; returns (rho, info) with info = {"iterations", "a",
        "residual" (||rho - Gibbs(U[rho])||_1), "converged"}."""
        a0 = check_real(a0, "a0", gt=0.0, le=1.0)
        tol = check_positive(tol, "tol")
        max_iter = check_int(max_iter, "max_iter", minimum=1)
        g = self.grid
        rho = g.normalise(rho0, "rho0")
        a = a0
        prev = np.inf
        for it in range(1, max_iter + 1):
            G = self.gibbs(rho)
            res = g.cell_volume * np.sum(np.abs(G - rho))
            if res > prev:
                a *= 0.5
            prev = res
            new = (1.0 - a) * rho + a * G
            dl1 = g.cell_volume * np.sum(np.abs(new - rho))
            rho = new
            if dl1 < tol:
                break
        return rho, {"iterations": it, "a": a, "residual": self.gibbs_residual(rho),
                     "converged": bool(dl1 < tol)}


@dataclass
class FVResult:
    """Per-record logs of a run: times, mass h^d sum rho, min rho, free energy F_h; final rho."""

    times: list
    mass: list
    min_rho: list
    free_energy: list
    rho: np.ndarray | None = None
    steps: int = 0
    extra: dict = field(default_factory=dict)
