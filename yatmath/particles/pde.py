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

Array libraries
---------------
The grid geometry (centres, mask, face lists) and the interaction table are built once on the
host in NumPy (the constructors are host operations; the table needs ``scipy.integrate``).  The
explicit scheme and everything it uses -- ``FVGrid.mass``/``normalise``, ``convolve``,
``potential``, ``face_flux``, ``stable_dt``, ``step_explicit``, ``free_energy``, ``gibbs``,
``gibbs_residual``, ``stationary`` and ``run(scheme="explicit")`` -- is written once against the
array API standard: given density arrays of NumPy, CuPy, PyTorch, JAX or ``array_api_strict``
it computes in that library and on that array's device and returns the caller's array type.
The fluxes are computed on the structured faces of each axis by slicing (no index scatter) and
the divergence is assembled with ``concat`` (for NumPy bit for bit what the face-list
``bincount`` gives).  The convolution is ``scipy.signal.fftconvolve`` for NumPy (the oracle),
the namespace's ``fft`` (``rfftn``/``irfftn`` on a 2M-1 periodic extension, which reproduces
the linear convolution exactly in exact arithmetic) for other libraries, and a dense Toeplitz
``matmul`` over cells for a namespace without ``fft``.  A callable ``V`` is evaluated with the
cell centres in the caller's library (once per library and device, cached); the NumPy values
are computed at construction.  Everything computes in float64 (float32 input is promoted; JAX
needs ``jax_enable_x64``).  ``operator`` (a ``scipy.sparse`` matrix by contract),
``step_semi_implicit`` and ``run(scheme="semi_implicit")`` need SciPy's sparse LU: they run on
the host for arrays of other libraries and return the caller's type.  Results of other
libraries agree with NumPy's to rounding (the FFTs differ in the last bits; see
``tests/particles/test_array_api_pde.py`` for the tolerances).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.fft import next_fast_len
from scipy.signal import fftconvolve
from scipy.sparse.linalg import splu

from .._array import (at_host_boundary, device_of, is_foreign, library_name, namespace,
                      parameter, to_host)
from .._typing import Array, Namespace
from .._validate import (as_float_array, check_choice, check_density, check_int, check_memory,
                         check_positive, check_real)
from ._arrays import generic_op, host_op
from .interactions import Interaction, interaction_argument

FLUXES = ("sg", "upwind")
SCHEMES = ("explicit", "semi_implicit")
#: default ceiling on the number of time steps of :meth:`McKeanVlasovFV.run`
MAX_STEPS = 10_000_000

_ANY = "generic over the array API (float64, in the caller's library and on its device)"
_GENERIC = _ANY + "; face fluxes on the structured faces by slicing, divergence by concat"
_CONV = ("convolution by scipy.signal.fftconvolve for NumPy, the namespace's fft (rfftn on a "
         "2M-1 periodic extension) for other libraries, dense Toeplitz matmul without fft")
_F64 = ("float64",)


class FVGrid:
    """A tensor grid of cells of side h, 1-D or 2-D, with an optional active mask (disk).

    The geometry lives on the host as NumPy arrays (``x``, ``edges``, ``centres``, ``active``,
    the face lists ``face_l``/``face_r``); the generic methods copy what they need to the
    library and device of their density argument once and cache it.
    """

    @host_op("particles.FVGrid", note="host geometry, copied once per array library/device")
    def __init__(self, a: float, b: float, M: int, dim: int = 1,
                 mask: npt.ArrayLike | None = None) -> None:
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
                             f"{np.shape(mask)} "  # type: ignore[arg-type]
                             f"with {int(np.sum(self.active))} True")
        self.cell_volume = self.h ** dim
        self.all_active = bool(self.active.all())
        # Faces of axis ax join the cells [sl_l] and [sl_r] of the grid-shaped arrays; the face
        # list is their concatenation over the axes (C order), restricted to active pairs.
        act = self.active.reshape(self.shape)
        idx = np.arange(n).reshape(self.shape)
        L, R, self._face_keep = [], [], []
        for ax in range(dim):
            sl_l, sl_r = self._face_slices(ax)
            L.append(idx[sl_l].ravel())
            R.append(idx[sl_r].ravel())
            keep = act[sl_l] & act[sl_r]                  # zero flux to masked cells
            self._face_keep.append(None if keep.all() else keep)
        L, R = np.concatenate(L), np.concatenate(R)
        keep = self.active[L] & self.active[R]
        self.face_l, self.face_r = L[keep], R[keep]
        # per axis: positions (in the raveled face array of that axis) of the active faces
        self._face_kept = [None if k is None else np.flatnonzero(k) for k in self._face_keep]
        # frozen after construction: copied once per device (yatmath._array.parameter)
        for a in (self.centres, self.active, *self._face_keep, *self._face_kept):
            if a is not None:
                a.flags.writeable = False

    def _face_slices(self, ax):
        """(left, right) index tuples selecting the two cells of every face of axis ``ax``."""
        sl_l = [slice(None)] * self.dim
        sl_r = [slice(None)] * self.dim
        sl_l[ax], sl_r[ax] = slice(0, self.M - 1), slice(1, self.M)
        return tuple(sl_l), tuple(sl_r)

    @classmethod
    def interval(cls, a: float, b: float, M: int) -> FVGrid:
        return cls(a, b, M, 1)

    @classmethod
    def square(cls, a: float, b: float, M: int) -> FVGrid:
        return cls(a, b, M, 2)

    @classmethod
    @host_op("particles.FVGrid.disk", note="host geometry")
    def disk(cls, radius: float, M: int, center: tuple[float, float] = (0.0, 0.0)) -> FVGrid:
        radius = check_positive(radius, "radius")
        center = as_float_array(center, "center", ndim=1)
        if center.shape != (2,):
            raise ValueError(f"center must have shape (2,), got {center.shape}")
        g = cls(center[0] - radius, center[0] + radius, M, 2)
        if center[1] != center[0]:
            raise ValueError("disk grids are centred on the diagonal: use center=(c, c)")
        r = np.linalg.norm(g.centres - np.asarray(center), axis=1)
        return cls(center[0] - radius, center[0] + radius, M, 2, mask=r <= radius)

    # ----- the grid in the caller's array library ---------------------------------------------
    def _cells(self, rho, name="rho"):
        """``rho`` as a flat float64 array of one value per cell (shape (M,) or (M,)*dim), in
        its own array library and on its device."""
        r = as_float_array(rho, name, ndim=(1, self.dim))
        if isinstance(r, np.ndarray):
            r = r.astype(np.float64)
        else:
            xp = namespace(r)
            with warnings.catch_warnings():   # JAX without x64 warns and gives float32: refused
                warnings.simplefilter("ignore", UserWarning)
                r = xp.astype(r, xp.float64)
            if r.dtype != xp.float64:
                raise TypeError(f"{name} must be computed in float64, but the "
                                f"{library_name(xp)} array became {r.dtype}; for JAX enable "
                                "float64 first: jax.config.update('jax_enable_x64', True)")
        n = self.active.shape[0]
        if tuple(r.shape) not in ((n,), self.shape):
            raise ValueError(f"{name} must hold one value per cell: shape ({n},) or "
                             f"{self.shape}, got {tuple(r.shape)}")
        return r.reshape(-1) if isinstance(r, np.ndarray) else namespace(r).reshape(r, (-1,))

    def _on(self, like):
        """:class:`_GridOn`: the grid's arrays in the library and on the device of ``like``."""
        return _cached_on(self, like, _GridOn)

    def _masked(self, G, r):
        """r with zeros on the inactive cells."""
        return r if self.all_active else G.xp.where(G.active, r, 0.0)

    def _active_values(self, G, r):
        """The entries of r on the active cells, in cell order."""
        return r if self.all_active else r[G.active]

    def _mass(self, G, r):
        return float(self.cell_volume * G.xp.sum(self._active_values(G, r)))

    def _normalised(self, G, r, name="rho"):
        xp = G.xp
        r = xp.where(G.active, r, 0.0)
        m = self.cell_volume * xp.sum(r)
        if not m > 0:
            raise ValueError(f"{name} must have positive mass on the active cells, got 0")
        if not bool(xp.isfinite(m)):  # rescale before summing: the mass of huge values overflows
            r = r / xp.max(r)
            m = self.cell_volume * xp.sum(r)
        return r / m

    @generic_op("particles.FVGrid.mass", note=_ANY, dtypes=_F64)
    def mass(self, rho: Array) -> float:
        """h^d sum rho over the active cells."""
        r = self._cells(rho)
        return self._mass(self._on(r), r)

    @generic_op("particles.FVGrid.normalise", note=_ANY, dtypes=_F64)
    def normalise(self, rho: Array, name: str = "rho") -> Array:
        """rho / mass on the active cells (zero elsewhere); rho must be a density: >= 0 with
        positive mass on the active cells."""
        r = check_density(self._cells(rho, name), name)
        return self._normalised(self._on(r), r, name)


def _cached_on(owner, like, make):
    """``make(owner, like)``, built once per (library, device) of ``like`` and cached on
    ``owner`` (its arrays copied to that device once)."""
    key = _library_key(like)
    cache = owner.__dict__.setdefault("_on_cache", {})
    got = cache.get(key)
    if got is None:
        got = cache[key] = make(owner, like)
    return got


def _library_key(like):
    """A hashable (library, device) key of the array ``like``."""
    if isinstance(like, np.ndarray):
        return ("numpy", "cpu")
    return (library_name(namespace(like)), str(device_of(like)))


class _GridOn:
    """An :class:`FVGrid`'s arrays in one array library and on one device.

    xp, device : the namespace and device; active : (n,) bool; centres : (n, dim) float64;
    keep[ax] : bool array of the faces of axis ax (None: all active); kept[ax] : int64 positions
    of the active faces in the raveled face array of axis ax (None: all); zero[ax] : a float64
    zero slab of one cell along ax (to pad the face arrays to the cell shape).
    """

    def __init__(self, g: FVGrid, like: Array) -> None:
        self.xp = xp = namespace(like)
        self.device = dev = device_of(like)
        self.is_numpy = isinstance(like, np.ndarray)
        put = (lambda a: a) if self.is_numpy else (lambda a: parameter(g, a, like))
        self.active = put(g.active)
        self.centres = put(g.centres)
        self.keep = [None if k is None else put(k) for k in g._face_keep]
        self.kept = [None if k is None else put(k) for k in g._face_kept]
        self.zero = []
        for ax in range(g.dim):
            shape = list(g.shape)
            shape[ax] = 1
            self.zero.append(xp.zeros(tuple(shape), dtype=xp.float64, device=dev))


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


def _has_fft(xp: Namespace) -> bool:
    """Whether the namespace has the array API fft extension (rfftn/irfftn)."""
    return hasattr(getattr(xp, "fft", None), "rfftn")


class _SolverOn:
    """A :class:`McKeanVlasovFV`'s arrays in one library and on one device: the grid's
    (:class:`_GridOn`), V at the cell centres, and the interaction table (its FFT, or the dense
    Toeplitz matrix, made on first use)."""

    def __init__(self, pde: "McKeanVlasovFV", like: Array) -> None:
        g = pde.grid
        self.grid = G = g._on(like)
        self.xp, self.device = G.xp, G.device
        self.V = pde.V if G.is_numpy else pde._V_values(G)
        self.T = None if pde.kernel is None or G.is_numpy else parameter(pde, pde.kernel, like)
        self.T_hat = None       # rfftn of T on the periodic extension, made on first use
        self.T_dense = None     # (n, n) G_ij = T[i - j + M - 1] (no h^d), made on first use


class McKeanVlasovFV:
    """Finite-volume solver (see the module docstring).

    Parameters
    ----------
    V : callable (ncell, dim) -> (ncell,) evaluated at the cell centres (or an array); with
        density arrays of another library it is called again with the centres in that library
    lam, interaction : lambda and (kind, s, delta) or an Interaction (None when lam = 0)
    beta : inverse temperature (np.inf: no diffusion); flux : "sg" | "upwind"

    The copies for other array libraries (V's values, the table and its FFT) are made on the
    first call with that library and kept: build a new solver to change V or the interaction.
    """

    @host_op("particles.McKeanVlasovFV", note="scipy.integrate.quad cell averages; a callable "
             "V is called again with the centres of each other library it meets")
    def __init__(self, grid: FVGrid, V: Callable[[Any], Any] | npt.ArrayLike, lam: float = 0.0,
                 interaction: Interaction | tuple[Any, ...] | None = None, beta: float = 1.0,
                 flux: str = "sg", cell_average: str | bool = "auto", near: int = 2) -> None:
        if not isinstance(grid, FVGrid):
            raise TypeError(f"grid must be an FVGrid, got {type(grid).__name__}")
        check_choice(flux, "flux", FLUXES)
        lam = check_real(lam, "lam")
        beta = check_real(beta, "beta", gt=0.0, finite=False)
        if cell_average is not True and cell_average is not False:
            check_choice(cell_average, "cell_average", ("auto", True, False))
        near = check_int(near, "near", minimum=0, maximum=grid.M - 1)
        self.grid, self.lam, self.beta, self.flux = grid, lam, beta, flux
        self._V_source = V
        self.V = self._check_V(V(grid.centres) if callable(V) else V, np)
        self.kernel = None
        if lam != 0.0:
            if interaction is None:
                raise ValueError("interaction is needed when lam != 0, e.g. "
                                 "interaction=('plummer', 1.0, 0.1)")
            it = interaction_argument(interaction, d=grid.dim)
            self.interaction = it
            self.kernel = self._kernel_table(it, cell_average, near)

    def _check_V(self, Vv, xp):
        """V's values as a flat finite float64 array of one value per cell, in ``xp``."""
        n = self.grid.centres.shape[0]
        if xp is np:
            V = as_float_array(Vv, "V", check_finite=False).astype(np.float64).reshape(-1)
        else:
            V = xp.reshape(xp.astype(as_float_array(Vv, "V", check_finite=False, xp=xp),
                                     xp.float64), (-1,))
        if tuple(V.shape) != (n,):
            raise ValueError(f"V must give one value per cell ({n}), got "
                             f"shape {tuple(np.shape(Vv)) if xp is np else tuple(Vv.shape)}")
        if not bool(xp.all(xp.isfinite(V))):
            raise ValueError("V contains NaN or infinity at a cell centre; V must be finite")
        return V

    def _V_values(self, G: _GridOn) -> Array:
        """V at the cell centres in the library/device of G: the callable called with G's
        centres (its result moved there if it came back in another library), or the values."""
        src = self._V_source
        if not callable(src):
            return G.xp.asarray(self.V, device=G.device)
        Vv = src(G.centres)
        if not (is_foreign(Vv) and _library_key(Vv) == _library_key(G.centres)):
            Vv = G.xp.asarray(np.asarray(to_host(Vv)), device=G.device)
        return self._check_V(Vv, G.xp)

    def _on(self, like: Array) -> _SolverOn:
        return _cached_on(self, like, _SolverOn)

    def _kernel_table(self, it: Interaction, cell_average: str | bool,
                      near: int) -> npt.NDArray[np.float64]:
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

    # ----- potential and energy (validated arrays in, one definition each) -------------------
    def _conv(self, S: _SolverOn, rho: Array) -> Array | None:
        """h^d sum_j G_ij rho_j (rho a flat float64 array of S's library), or None without an
        interaction: out[i] = sum_j r_j T[i - j + M - 1] over the active r_j."""
        if self.kernel is None:
            return None
        g, xp = self.grid, S.xp
        r = xp.reshape(g._masked(S.grid, rho), g.shape)
        if S.grid.is_numpy:
            # 'valid' of r (M^d) with the offset table (2M-1)^d
            return g.cell_volume * fftconvolve(r, self.kernel, mode="valid").ravel()
        M, axes = g.M, tuple(range(g.dim))
        if _has_fft(xp):
            # The linear convolution's entries M-1..2M-2 (the 'valid' ones) are unaffected by
            # wrap-around on a periodic extension of length L >= 2M-1 (the table's length).
            L = (next_fast_len(2 * M - 1, real=True),) * g.dim
            if S.T_hat is None:
                S.T_hat = xp.fft.rfftn(S.T, s=L, axes=axes)
            full = xp.fft.irfftn(xp.fft.rfftn(r, s=L, axes=axes) * S.T_hat, s=L, axes=axes)
            valid = full[(slice(M - 1, 2 * M - 1),) * g.dim]
            return g.cell_volume * xp.reshape(valid, (-1,))
        if S.T_dense is None:
            S.T_dense = self._toeplitz(S)
        return g.cell_volume * xp.matmul(S.T_dense, xp.reshape(r, (-1,)))

    def _toeplitz(self, S: _SolverOn) -> Array:
        """The dense (n, n) matrix G_ij = T[i - j + M - 1] (per axis) in S's library: the
        direct sum for a namespace without the fft extension (O(n^2) memory and work)."""
        g, M = self.grid, self.grid.M
        n = g.active.shape[0]
        check_memory(16 * n * n, f"the dense {n} x {n} interaction matrix (this array library "
                     "has no fft extension)", xp=np)
        i = np.arange(M)
        off = i[:, None] - i[None, :] + (M - 1)
        if g.dim == 2:
            off = (off[:, None, :, None] * (2 * M - 1) + off[None, :, None, :]).reshape(n, n)
        xp = S.xp
        idx = xp.asarray(off.reshape(-1), device=S.device)
        return xp.reshape(xp.take(xp.reshape(S.T, (-1,)), idx), (n, n))

    def _potential(self, S: _SolverOn, c: Array | None) -> Array:
        """U = V + lam * c with c = _conv(rho) (None: no interaction)."""
        return S.V if c is None else S.V + self.lam * c

    def _free_energy(self, S: _SolverOn, rho: Array, c: Array | None = None) -> float:
        """F_h (module docstring) of the validated rho; c = _conv(rho) when already known."""
        g, G, xp = self.grid, S.grid, S.xp
        rho = check_density(rho, "rho")
        rho = xp.where(G.active, rho, 0.0)
        hv = g.cell_volume
        F = hv * xp.sum(g._active_values(G, S.V) * g._active_values(G, rho))
        if self.kernel is not None:
            c = self._conv(S, rho) if c is None else c
            F += 0.5 * self.lam * hv * xp.sum(rho * c)
        if np.isfinite(self.beta):
            pos = rho > 0
            F += hv * xp.sum(rho[pos] * xp.log(rho[pos])) / self.beta
        return float(F)

    def _gibbs(self, S: _SolverOn, rho: Array) -> Array:
        if not np.isfinite(self.beta):
            raise ValueError("beta is inf: the Gibbs density exp(-beta U) is a point mass, not "
                             "a cell density; use a finite beta")
        g, G, xp = self.grid, S.grid, S.xp
        z = -self.beta * self._potential(S, self._conv(S, rho))
        z = xp.where(G.active, z - xp.max(g._active_values(G, z)), -np.inf)
        return g._normalised(G, xp.exp(z))

    def _gibbs_residual(self, S: _SolverOn, rho: Array) -> float:
        xp = S.xp
        return float(self.grid.cell_volume * xp.sum(xp.abs(rho - self._gibbs(S, rho))))

    @generic_op("particles.McKeanVlasovFV.convolve", note=_ANY + "; " + _CONV, dtypes=_F64)
    def convolve(self, rho: Array) -> Array:
        """h^d sum_j G_ij rho_j for every cell i (zero without an interaction)."""
        rho = self.grid._cells(rho)
        c = self._conv(self._on(rho), rho)
        return c if c is not None else namespace(rho).zeros_like(rho)

    @generic_op("particles.McKeanVlasovFV.potential", note=_ANY + "; " + _CONV, dtypes=_F64)
    def potential(self, rho: Array) -> Array:
        """U = V + lam h^d sum_j G_ij rho_j at every cell."""
        rho = self.grid._cells(rho)
        S = self._on(rho)
        U = self._potential(S, self._conv(S, rho))
        return S.xp.asarray(U, copy=True) if U is S.V else U

    @generic_op("particles.McKeanVlasovFV.free_energy", note=_ANY + "; " + _CONV,
                dtypes=_F64)
    def free_energy(self, rho: Array) -> float:
        """F_h = h^d sum V rho + (lambda/2) h^{2d} sum G rho rho + beta^{-1} h^d sum rho ln rho."""
        rho = self.grid._cells(rho)
        return self._free_energy(self._on(rho), rho)

    @generic_op("particles.McKeanVlasovFV.gibbs", note=_ANY + "; " + _CONV, dtypes=_F64)
    def gibbs(self, rho: Array) -> Array:
        """exp(-beta U[rho]) normalised to mass 1 on the active cells."""
        rho = self.grid._cells(rho)
        return self._gibbs(self._on(rho), rho)

    @generic_op("particles.McKeanVlasovFV.gibbs_residual", note=_ANY + "; " + _CONV,
                dtypes=_F64)
    def gibbs_residual(self, rho: Array) -> float:
        """||rho - Gibbs(U[rho])||_1 = h^d sum |.|."""
        rho = self.grid._cells(rho)
        return self._gibbs_residual(self._on(rho), rho)

    # ----- fluxes -------------------------------------------------------------------------
    def _coefficients(self, S: _SolverOn, U: Array) -> list[Any]:
        """Per axis, on the structured faces of that axis: (alpha, gamma, v) with
        F = alpha rho_l - gamma rho_r and v = -dU/h (the module docstring's fluxes)."""
        g, xp = self.grid, S.xp
        h = g.h
        U = xp.reshape(U, g.shape)
        out = []
        for ax in range(g.dim):
            sl_l, sl_r = g._face_slices(ax)
            dU = U[sl_r] - U[sl_l]
            v = -dU / h
            if not np.isfinite(self.beta):
                out.append((xp.maximum(v, 0.0), xp.maximum(-v, 0.0), v))
                continue
            D = 1.0 / (self.beta * h)
            if self.flux == "upwind":
                out.append((xp.maximum(v, 0.0) + D, xp.maximum(-v, 0.0) + D, v))
                continue
            z = self.beta * dU
            with np.errstate(invalid="ignore", divide="ignore"):
                Bp = xp.where(z == 0, 1.0, z / xp.expm1(z))
                Bm = xp.where(z == 0, 1.0, -z / xp.expm1(-z))
            out.append((D * Bp, D * Bm, v))
        return out

    def _vmax(self, S: _SolverOn, coef: list[Any]) -> float:
        """max |v| over the active faces (0 when there is none)."""
        xp, vmax = S.xp, 0.0
        for ax, (_, _, v) in enumerate(coef):        # M >= 2: every axis has faces
            a = xp.abs(v)
            keep = S.grid.keep[ax]
            vmax = max(vmax, float(xp.max(a if keep is None else xp.where(keep, a, 0.0))))
        return vmax

    def _stable(self, vmax: float) -> float:
        """0.5 min(beta h^2/(2 dim), h/(dim max|v|)) (terms dropped when infinite)."""
        g = self.grid
        cands = []
        if np.isfinite(self.beta):
            cands.append(self.beta * g.h ** 2 / (2 * g.dim))
        if vmax > 0:
            cands.append(g.h / (g.dim * vmax))
        return 0.5 * min(cands) if cands else np.inf

    def _fluxes(self, S: _SolverOn, rho: Array, coef: list[Any]) -> list[Any]:
        """Per axis, the flux through every structured face of that axis (0 on inactive ones)."""
        g, xp = self.grid, S.xp
        R = xp.reshape(rho, g.shape)
        out = []
        for ax, (al, ga, _) in enumerate(coef):
            sl_l, sl_r = g._face_slices(ax)
            F = al * R[sl_l] - ga * R[sl_r]
            keep = S.grid.keep[ax]
            out.append(F if keep is None else xp.where(keep, F, 0.0))
        return out

    def _face_list(self, S: _SolverOn, per_axis: list[Any]) -> Array:
        """Structured per-axis face values -> the active-face list (face_l/face_r order)."""
        xp, parts = S.xp, []
        for ax, a in enumerate(per_axis):
            a = xp.reshape(a, (-1,))
            kept = S.grid.kept[ax]
            parts.append(a if kept is None else xp.take(a, kept))
        return parts[0] if len(parts) == 1 else xp.concat(parts)

    def _divergence(self, S: _SolverOn, fluxes: list[Any]) -> Array:
        """(sum of outgoing - sum of incoming face fluxes) per cell: the face-list bincount
        bincount(face_l, F) - bincount(face_r, F), accumulated in the same order (axis 0's face
        first, from 0.0) so that NumPy results are the same bit for bit."""
        G, xp = S.grid, S.xp
        out = inn = 0.0
        for ax, F in enumerate(fluxes):
            out = out + xp.concat([F, G.zero[ax]], axis=ax)
            inn = inn + xp.concat([G.zero[ax], F], axis=ax)
        return xp.reshape(out - inn, (-1,))

    def _explicit(self, S: _SolverOn, rho: Array, dt: float, coef: list[Any]) -> Array:
        return rho - (dt / self.grid.h) * self._divergence(S, self._fluxes(S, rho, coef))

    def _sparse_operator(self, coef):
        """The scipy.sparse matrix A of the module docstring from NumPy face coefficients."""
        g = self.grid
        S = self._on(g.active)          # the NumPy arrays
        al = self._face_list(S, [c[0] for c in coef])
        ga = self._face_list(S, [c[1] for c in coef])
        L, R = g.face_l, g.face_r
        rows = np.concatenate([L, L, R, R])
        cols = np.concatenate([L, R, L, R])
        vals = np.concatenate([al, -ga, -al, ga]) / g.h
        n = g.active.shape[0]
        return sp.csc_matrix((vals, (rows, cols)), shape=(n, n))

    def _semi_implicit(self, rho, dt, coef):
        n = rho.shape[0]
        A = self._sparse_operator(coef)
        return splu(sp.identity(n, format="csc") + dt * A).solve(rho)

    @generic_op("particles.McKeanVlasovFV.face_flux", note=_GENERIC + "; " + _CONV, dtypes=_F64)
    def face_flux(self, rho: Array, U: Array | None = None) -> Array:
        """The flux through every active face (module docstring); U defaults to U[rho]."""
        rho = self.grid._cells(rho)
        S = self._on(rho)
        if U is None:
            U = self._potential(S, self._conv(S, rho))
        else:
            U = self.grid._cells(U, "U")
            if _library_key(U) != _library_key(rho):
                raise TypeError(f"U must be an array of the library and device of rho "
                                f"{_library_key(rho)}, got {_library_key(U)}")
        return self._face_list(S, self._fluxes(S, rho, self._coefficients(S, U)))

    @generic_op("particles.McKeanVlasovFV.stable_dt", note=_GENERIC + "; " + _CONV, dtypes=_F64)
    def stable_dt(self, rho: Array) -> float:
        """0.5 min(beta h^2/(2 dim), h/max|v|) (beta h^2 term dropped for beta = inf)."""
        rho = self.grid._cells(rho)
        S = self._on(rho)
        return self._stable(self._vmax(S, self._coefficients(
            S, self._potential(S, self._conv(S, rho)))))

    @generic_op("particles.McKeanVlasovFV.step_explicit", note=_GENERIC + "; " + _CONV,
                dtypes=_F64)
    def step_explicit(self, rho: Array, dt: float) -> Array:
        """rho - (dt/h) div F: one forward-Euler step (stable for dt <= stable_dt(rho))."""
        dt = check_positive(dt, "dt")
        rho = self.grid._cells(rho)
        S = self._on(rho)
        U = self._potential(S, self._conv(S, rho))
        return self._explicit(S, rho, dt, self._coefficients(S, U))

    @host_op("particles.McKeanVlasovFV.operator", note="scipy.sparse matrix")
    def operator(self, rho: Array) -> Any:
        """The sparse matrix A with (A rho)_i = (1/h) sum of outgoing face fluxes (U frozen)."""
        rho = self.grid._cells(rho)
        S = self._on(rho)
        return self._sparse_operator(self._coefficients(S, self._potential(S, self._conv(S, rho))))

    @host_op("particles.McKeanVlasovFV.step_semi_implicit", note="scipy.sparse.linalg.splu")
    def step_semi_implicit(self, rho: Array, dt: float) -> Array:
        """(I + dt A[rho]) rho_new = rho: one semi-implicit step (U frozen at rho)."""
        dt = check_positive(dt, "dt")
        rho = self.grid._cells(rho)
        S = self._on(rho)
        return self._semi_implicit(rho, dt, self._coefficients(
            S, self._potential(S, self._conv(S, rho))))

    @generic_op("particles.McKeanVlasovFV.run",
                note=_GENERIC + "; " + _CONV + "; scheme='semi_implicit' needs SciPy's sparse LU "
                "and runs on the host for non-NumPy arrays (result returned in the caller's "
                "library)", dtypes=_F64)
    def run(self, rho0: Array, t_final: float, *, dt: float | None = None, scheme: str = "explicit",
            record_every: int = 1, max_steps: int = MAX_STEPS) -> FVResult:
        """Integrate from the density rho0 (>= 0, positive mass; normalised here) to time
        t_final >= 0; returns an :class:`FVResult` with a record every ``record_every`` steps.

        dt : a fixed step > 0, used as given (a convergence study needs the step it asked for;
        the explicit scheme warns with a RuntimeWarning when dt exceeds stable_dt(rho0), where
        forward Euler may lose positivity), or None for the stable step, recomputed every step.
        The run refuses up front when it would take more than ``max_steps`` steps (t_final/dt,
        or t_final/stable_dt(rho0) when dt is None; the latter is checked again while running,
        as the stable step can shrink).

        The explicit scheme runs in the library and on the device of rho0 (one convolution per
        step); the semi-implicit one on the host (SciPy's sparse LU), its result returned in
        rho0's library.
        """
        check_choice(scheme, "scheme", SCHEMES)
        t_final = check_real(t_final, "t_final", ge=0.0)
        if dt is not None:
            dt = check_positive(dt, "dt")
        record_every = check_int(record_every, "record_every", minimum=1)
        max_steps = check_int(max_steps, "max_steps", minimum=1)
        args = (rho0, t_final, dt, scheme, record_every, max_steps)
        if scheme == "semi_implicit":
            return at_host_boundary(self._run, args, {})
        return self._run(*args)

    def _run(self, rho0, t_final, dt, scheme, record_every, max_steps):
        g = self.grid
        rho = g.normalise(rho0, "rho0")
        S = self._on(rho)
        xp = S.xp
        c = self._conv(S, rho)
        coef = self._coefficients(S, self._potential(S, c))
        sdt = self._stable(self._vmax(S, coef))
        step0 = dt if dt is not None else sdt
        if dt is not None and scheme == "explicit" and dt > sdt:
            warnings.warn(f"dt={dt!r} exceeds the explicit scheme's stable step "
                          f"stable_dt(rho0)={sdt:.3g}; forward Euler may lose positivity (use "
                          "dt=None for the stable step, or scheme='semi_implicit')",
                          RuntimeWarning, stacklevel=3)
        implied = t_final / step0 if step0 > 0 else np.inf
        if implied > max_steps:
            who = "dt" if dt is not None else "the stable step stable_dt(rho0)"
            raise ValueError(f"dt={step0:.3g} ({who}) implies about {implied:.3g} steps to reach "
                             f"t_final={t_final!r}, more than max_steps={max_steps}; use a "
                             "larger dt, the semi_implicit scheme, or raise max_steps")

        def record(res, rho, c):
            res.mass.append(g._mass(S.grid, rho))
            res.min_rho.append(float(xp.min(g._active_values(S.grid, rho))))
            res.free_energy.append(self._free_energy(S, rho, c))

        res = FVResult(times=[0.0], mass=[], min_rho=[], free_energy=[])
        record(res, rho, c)
        t, k = 0.0, 0
        while t < t_final - 1e-15 * max(1.0, t_final):
            step = sdt if dt is None else dt
            step = min(step, t_final - t)
            rho = (self._explicit(S, rho, step, coef) if scheme == "explicit"
                   else self._semi_implicit(rho, step, coef))
            t_new = t + step
            if not t_new > t or k >= max_steps:
                raise RuntimeError(f"run stopped at t={t!r} after {k} steps: the step "
                                   f"{step:.3g} no longer advances time or exceeds max_steps="
                                   f"{max_steps} (the stable step shrank); raise max_steps or "
                                   "use the semi_implicit scheme")
            t = t_new
            k += 1
            c = self._conv(S, rho)            # U[rho] for the next step and F_h of the record
            coef = self._coefficients(S, self._potential(S, c))
            if dt is None:
                sdt = self._stable(self._vmax(S, coef))
            if k % record_every == 0:
                res.times.append(t)
                record(res, rho, c)
        res.rho = rho
        res.steps = k
        return res

    @generic_op("particles.McKeanVlasovFV.stationary", note=_ANY + "; " + _CONV,
                dtypes=_F64)
    def stationary(self, rho0: Array, *, a0: float = 0.2, tol: float = 1e-14,
                   max_iter: int = 100000) -> tuple[Array, dict[str, Any]]:
        """Damped Gibbs fixed point; returns (rho, info) with info = {"iterations", "a",
        "residual" (||rho - Gibbs(U[rho])||_1), "converged"}."""
        a0 = check_real(a0, "a0", gt=0.0, le=1.0)
        tol = check_positive(tol, "tol")
        max_iter = check_int(max_iter, "max_iter", minimum=1)
        g = self.grid
        rho = g.normalise(rho0, "rho0")
        S = self._on(rho)
        xp = S.xp
        a = a0
        prev = np.inf
        for it in range(1, max_iter + 1):
            G = self._gibbs(S, rho)
            res = float(g.cell_volume * xp.sum(xp.abs(G - rho)))
            if res > prev:
                a *= 0.5
            prev = res
            new = (1.0 - a) * rho + a * G
            dl1 = float(g.cell_volume * xp.sum(xp.abs(new - rho)))
            rho = new
            if dl1 < tol:
                break
        return rho, {"iterations": it, "a": a, "residual": self._gibbs_residual(S, rho),
                     "converged": bool(dl1 < tol)}


@dataclass
class FVResult:
    """Per-record logs of a run: times, mass h^d sum rho, min rho, free energy F_h; final rho
    (an array of rho0's library)."""

    times: list[float]
    mass: list[float]
    min_rho: list[float]
    free_energy: list[float]
    rho: Array | None = None
    steps: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
