"""Interaction forces, potentials and energies of a particle system, without an N x N array.

For particles omega_1..omega_N in R^d and a pair interaction g (see :mod:`.interactions`):

    interaction_force(omega)_k     = (1/(N-1)) sum_{l != k} grad g(omega_k - omega_l)
    interaction_potential(omega)_k = (1/(N-1)) sum_{l != k} g(omega_k - omega_l)
    interaction_energy(omega)      = W_{N,s} = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l)
    random_batch_force(omega)_k    = (1/(|B|-1)) sum_{l in B(k), l != k} grad g(omega_k - omega_l)

(004 eq.2.2-2.3; algorithms.md §P1-P2).  The diagonal l = k is always excluded explicitly.

Backends
--------
``"reference"`` (alias ``"numpy"``)  written once against the array API standard: row chunks
             of at most ``chunk`` rows (default: about 4 M pair entries per chunk), float64;
             runs on NumPy, CuPy, PyTorch, JAX, ``array_api_strict`` arrays and returns the
             caller's type on the caller's device.  Memory O(chunk * N * d).
``"numba"``  direct summation in parallel with the pair symmetry: each unordered pair is
             evaluated once and added to both particles (g is even), with one accumulator per
             work chunk so that threads never share memory; O(N) extra memory.  For N below
             ``SYMMETRIC_MIN_N`` a plain row-parallel sum is used.
``"cupy"``   numba-cuda kernels for d <= 16 (``_cuda_kernels``): the force and the potential one
             thread per particle with shared-memory source tiles, the random batch force one
             thread per particle over its batch; for d > 16 the chunked reference on the
             device.  Float32 particles stay float32 on this row: the force is computed in
             float32 where c needs no pow (see Accuracy), the random batch force in float64
             and rounded to float32 by the kernel; the potential is float64 for every input.
``"auto"``   cupy for CuPy input, numba for NumPy input when installed, else the reference
             (every choice goes through ``yatmath._registry.choose``; ``yatmath info
             --backends`` prints the rows).

Every ``"cupy"`` row also takes NumPy input when named explicitly (``host_input``: the
registry copies it to the device and the result back, NumPy in, NumPy out), so an explicit
``backend="cupy"`` (e.g. of a :class:`.hamiltonian.FieldHamiltonian`) computes every
interaction term on the GPU.

Each public function validates, chooses its row once and calls it once; the rows' ``finish``
step recomputes the rows that came out non-finite (log-domain pair terms, or a ValueError for
coincident particles under a bare kernel), on whatever library the row ran.

The random batch method (Jin, Li & Liu 2020) splits the particles into random batches of size
``batch_size`` (the last batch absorbs N mod batch_size) and lets particles interact only inside
their batch: an unbiased estimate of the force when every batch has size ``batch_size``, at cost
O(N * batch_size) per call.

Accuracy: every backend computes in float64 (float32 input is promoted and the result cast
back), except the "cupy" force row on float32 input below.  The pair terms are exact to a few
ulps (see :mod:`.interactions`); the sums over l are accumulated in different orders by
different backends, so they agree to about u * sum_l |grad g(omega_k - omega_l)| / (N-1) per
component (u = 2^-53), which the tests check.

The "cupy" force row on float32 input computes in float32 where the force factor needs no pow
(s in {1, 0, -1, 2}, every kind): float32 pair terms, Kahan-compensated float32 sums, the
pairs outside the float32 range in float64.  Each component is then within

    [(p (d + 3) + 7) + 2 N u32] u32 sum_{l != k} |c_kl (x_kj - x_lj)|  +  N 2^-150

of the exact sum (u32 = 2^-24, p = (s + 2)/2; ``_cuda_kernels`` module docstring: why, and the
hard-core pairs within (d + 3) u32 / 2 relative of delta that may fall on either side), before
the division by N - 1: one more float32 rounding, u32 of the force or 2^-150 absolute where it
is subnormal, done by the kernel before its store (an IEEE division, float32 subnormals kept;
CuPy's array code, compiled with -ftz=true, would flush them).  For other s (general pow) it
computes in float64 and rounds the quotients sum / (N - 1) once to float32.

Every force row returns the force itself, the sum divided by N - 1 inside the row (NumPy rows:
the float64 division the public function did before, the same bits), so that no array code of
the caller's library follows a GPU kernel; the random batch kernel weights its terms by
1/(|B| - 1) itself.
The reference in another array library (CuPy on the GPU, PyTorch, JAX) uses that library's
hypot/log/pow and its own reduction order: :func:`interaction_potential` states the bound on the
potential, :func:`random_batch_force` when the random batch force is the same bits.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._array import as_float64, caller, cupy_module, device_of, library_name, namespace, to_host
from .._registry import choose, register
from .._typing import Array, RNGLike
from .._validate import as_float_array, as_rng, check_choice, check_int
from ._arrays import host_op
from .interactions import (Interaction, as_interaction, force_factor, generic_norm, norm,
                           pair_terms)

#: what a bare (singular) kernel does with two coincident particles: "raise" (ValueError naming
#: omega, the default) or "singular" (g(0) = +inf in potentials, 0 for the pair's force).
COINCIDENT = ("raise", "singular")

#: Below this N the Numba path sums rows directly (the symmetric scheme's buffers do not pay).
SYMMETRIC_MIN_N = 256
#: Number of accumulation chunks of the symmetric kernel (fixed, so results are reproducible
#: bit for bit whatever the thread count); reduced when the buffers would exceed _ACC_MAX.
SYMMETRIC_CHUNKS = 8
_ACC_MAX = 1 << 25            # float64 entries in all symmetric accumulators together
_PAIRS_PER_CHUNK = 1 << 22    # reference: pair-component entries per row chunk


def _prepare(omega, kind, s, delta, check_finite, name="omega"):
    """Validated (xp, library, dtype, one_d, X (N, d), interaction) for ``omega`` of any array
    API library (it stays in its library and on its device)."""
    arr = as_float_array(omega, name, ndim=(1, 2), check_finite=check_finite)
    xp = namespace(arr)
    one_d = arr.ndim == 1
    if isinstance(arr, np.ndarray):
        # C order: the reference's matmul sums in an order that follows the layout, and the
        # result must not depend on it (a Fortran-order copy moved the last bits)
        arr = np.ascontiguousarray(arr)
    X = arr[:, None] if one_d else arr
    N, d = X.shape
    if N < 2:
        raise ValueError(f"{name} must hold at least 2 particles (rows), got shape "
                         f"{tuple(arr.shape)}")
    if d == 0:
        raise ValueError(f"{name} must have at least one coordinate per particle, got shape "
                         f"{tuple(arr.shape)}")
    inter = as_interaction(kind, s, delta, d=d)
    return xp, library_name(xp), arr.dtype, one_d, X, inter


def _check_coincident_option(coincident):
    return check_choice(coincident, "coincident", COINCIDENT)


def _coincident_pair(Xh):
    """Indices (k, l), k < l, of two equal rows of Xh, or None (O(N log N) by sorting)."""
    _, first, inv = np.unique(Xh, axis=0, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    dup = np.nonzero(first[inv] != np.arange(Xh.shape[0]))[0]
    if dup.size == 0:
        return None
    l = int(dup[0])
    return int(first[inv[l]]), l


def _refuse_coincident(Xh, inter, what):
    pair = _coincident_pair(Xh)
    if pair is not None:
        k, l = pair
        raise ValueError(
            f"omega has coincident particles {k} and {l} (equal rows), where the bare kernel "
            f"(kind='none', s={inter.s}) makes the {what} singular; soften it (kind='plummer' "
            "or 'hard', delta > 0), move the particles apart, or pass coincident='singular' "
            "to accept the singular value (see yatmath.particles.interactions)")


def _check_scale(X):
    """OverflowError naming omega when differences of particles would overflow float64."""
    xp = namespace(X)
    m = float(xp.max(xp.abs(X))) if math.prod(X.shape) else 0.0
    if m > np.finfo(np.float64).max / 2:
        raise OverflowError(f"omega has entries up to {m:.3g}: differences of particles overflow "
                            "float64; rescale omega (and delta) first")


def _host_scaled(X):
    """X on the host, float64; OverflowError naming omega when differences would overflow."""
    Xh = np.asarray(to_host(X), dtype=np.float64)
    _check_scale(Xh)
    return Xh


def _all_finite(A: Array) -> bool:
    xp = namespace(A)
    return bool(xp.all(xp.isfinite(A)))


def _back(Ah, like):
    """The NumPy array ``Ah`` in the library and on the device of ``like`` (NumPy: ``Ah``)."""
    return caller(like).asarray(Ah)


def _repair_force_rows(F, X, inter, chunk=None, symmetric="auto", coincident="raise"):
    """Honest values for the rows of F that came out non-finite: raise (coincident bare pair,
    default), or recompute those rows with :func:`.interactions.pair_terms` (log-domain pair
    terms, coincident pairs contributing 0).  The repair runs on the host in NumPy (rare rows;
    F keeps its library and device).  The ``finish`` step of every force row (its arguments are
    the row's): F is the row's force, sum / (N - 1), and so are the recomputed rows (divided in
    float64 on the host, then rounded to F's dtype by NumPy, which keeps float32 subnormals)."""
    if _all_finite(F):
        return F
    Fo = np.asarray(to_host(F))
    Fh = np.array(Fo, dtype=np.float64)
    bad = np.nonzero(~np.isfinite(Fh).all(axis=1))[0]
    Xh = _host_scaled(X)
    if inter.singular and coincident == "raise":
        _refuse_coincident(Xh, inter, "force")
    for k in bad:
        T = pair_terms(Xh[k] - Xh, inter)            # row k itself is the zero vector -> 0
        with np.errstate(invalid="ignore", over="ignore"):
            Fh[k] = T.sum(axis=0) / (Xh.shape[0] - 1)
    if not np.isfinite(Fh[bad]).all(axis=1).all():
        k = int(bad[~np.isfinite(Fh[bad]).all(axis=1)][0])
        if np.isnan(Fh[k]).any():
            raise OverflowError(f"the force on particle {k} of omega is a sum of pair terms that "
                                "overflow float64 with opposite signs (particles closer than "
                                "~1e-150 on both sides); soften the kernel or rescale omega")
    return _back(Fh.astype(Fo.dtype, copy=False), F)     # F's dtype, rounded on the host


def _finish(F, dtype, one_d):
    xp = namespace(F)
    F = xp.astype(F, dtype, copy=False)
    return F[:, 0] if one_d else F


def _float64(X):
    """X in float64 where its library has float64 (JAX without x64 keeps float32)."""
    try:
        return as_float64(X)
    except (TypeError, ValueError):
        return X


@register("particles.interaction_force", "reference",
          note="row chunks of ~4 M pair entries; float64 where the library has it",
          finish=(_repair_force_rows,))
def _reference_force(X: Array, inter: Interaction, chunk: int | None = None,
                     symmetric: bool | str = "auto", coincident: str = "raise") -> Array:
    """The force, :func:`_reference_force_sum` / (N - 1).  (``symmetric`` is the Numba row's
    option, ``coincident`` the finish step's.)"""
    return _reference_force_sum(X, inter, chunk) / (X.shape[0] - 1)


def _reference_force_sum(X: Array, inter: Interaction, chunk: int | None = None) -> Array:
    """sum_{l != k} grad g(x_k - x_l) by row chunks, generic over the array API (float64)."""
    xp = namespace(X)
    parts = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for diff, same in _row_chunks(_float64(X), chunk):
            c = force_factor(xp.sum(diff * diff, axis=-1), inter)
            c = xp.where(same, 0.0, c)                  # exclude l = k explicitly
            parts.append(-(c[:, None, :] @ diff)[:, 0, :])     # sum_l c_kl (x_k - x_l)
    return parts[0] if len(parts) == 1 else xp.concat(parts)


def _row_chunks(X, chunk=None):
    """The pair differences of ``X`` (N, d) by row chunks of ~``_PAIRS_PER_CHUNK`` entries (or
    ``chunk`` rows): yields diff (rows, N, d), diff[k, l] = x_k - x_l, and the (rows, N) mask of
    the pairs l = k, which the references exclude explicitly."""
    xp = namespace(X)
    N, d = X.shape
    if chunk is None:
        chunk = max(1, _PAIRS_PER_CHUNK // max(1, N * d))
    cols = xp.arange(N, device=_device(X))[None, :]
    for i0 in range(0, N, chunk):
        i1 = min(i0 + chunk, N)
        rows = xp.arange(i0, i1, device=_device(X))[:, None]
        yield X[i0:i1, None, :] - X[None, :, :], rows == cols


def _device(X):
    return device_of(X)


def _numba_args(inter: Interaction) -> tuple[int, float, float, float, float]:
    return inter.family, inter.a, inter.p, inter.soft2, inter.cut2


@register("particles.interaction_force", "numba", libraries=("numpy",), dtypes=("float64",),
          device="cpu", note="pair-symmetric parallel direct sum (row sum below N=256)",
          finish=(_repair_force_rows,))
def _numba_force(X: Array, inter: Interaction, chunk: int | None = None,
                 symmetric: bool | str = "auto", coincident: str = "raise") -> Array:
    """The force: the kernels' sum divided by N - 1 (float64, in place)."""
    from . import _numba_kernels as nk

    X = np.asarray(X)
    N, d = X.shape
    XT = np.ascontiguousarray(X.T, dtype=np.float64)
    if symmetric == "auto":
        symmetric = N >= SYMMETRIC_MIN_N
    if symmetric:
        nch = max(1, min(SYMMETRIC_CHUNKS, _ACC_MAX // max(1, N * d)))
        acc = np.empty((nch, d, N))
        (nk.force_sym3 if d == 3 else nk.force_sym)(XT, *_numba_args(inter), acc)
        F = acc.sum(axis=0).T.copy()
    else:
        out = np.empty((d, N))
        nk.force_rows(XT, 0, N, *_numba_args(inter), out)
        F = out.T.copy()
    F /= N - 1
    return F


_FORCE32_NOTE = ("float32 input: float32 pair terms and Kahan-compensated float32 sums where c "
                 "needs no pow (s = 1, 0, -1, 2; error <= ((p (d + 3) + 7) + 2 N u32) u32 "
                 "sum_l |c_kl (x_k - x_l)| per component), float64 arithmetic rounded once to "
                 "float32 for the other s")


def _on_device(X):
    """X on the device (copied there by the row's caller where it was a host array): float32
    stays float32 (the kernels read it as it is), any other dtype becomes float64."""
    xp = cupy_module()
    X = xp.asarray(X)
    return X if X.dtype == np.float32 else xp.asarray(X, dtype=np.float64)


def _in_dtype_of(F, X):
    """F (float64, the reference run on the device) in X's dtype: a float32 result rounded by
    a numba-cuda kernel (``yatmath._cuda_cast.cast``: float32 subnormals kept)."""
    from .._cuda_cast import cast

    return cast(F, X.dtype)


@register("particles.interaction_force", "cupy", libraries=("cupy",),
          dtypes=("float32", "float64"), device="gpu",
          note="numba-cuda kernel with shared-memory tiles for d <= 16, else the reference on "
          "the device; " + _FORCE32_NOTE + "; NumPy input is copied to the device and back",
          host_input=True, finish=(_repair_force_rows,))
def _cupy_force(X: Array, inter: Interaction, chunk: int | None = None,
                symmetric: bool | str = "auto", coincident: str = "raise") -> Array:
    """The force in X's dtype: the tiled kernel's sum divided by N - 1 by the kernel itself
    (float32 computation for float32 input where ``_cuda_kernels.float32_computation`` allows
    it), or for d > MAX_D the generic float64 reference on the device, its float64 quotient
    rounded to X's dtype by a numba-cuda kernel.  No float32 array code follows a kernel:
    CuPy's would flush a float32 subnormal force to 0."""
    from . import _cuda_kernels as ck

    Xd = _on_device(X)
    n1 = Xd.shape[0] - 1
    if Xd.shape[1] <= ck.MAX_D:
        return ck.force_sum(Xd, *_numba_args(inter), divisor=n1)
    return _in_dtype_of(_reference_force_sum(Xd, inter, chunk) / n1, Xd)


def interaction_force(omega: Array, kind: str | Interaction = "none", s: float | str = 1.0,
                      delta: float = 0.0, *, backend: str = "auto", chunk: int | None = None,
                      symmetric: bool | str = "auto", check_finite: bool = True,
                      coincident: str = "raise") -> Array:
    """(1/(N-1)) sum_{l != k} grad g(omega_k - omega_l) for every particle k.

    Parameters
    ----------
    omega : array (N, d) or (N,) (then d = 1), N >= 2, of any array API library (NumPy, CuPy,
        PyTorch, JAX, ...); the result is in the same library, on the same device
    kind, s, delta : the interaction (see :func:`.interactions.make_interaction`), or pass an
        :class:`.Interaction` as ``kind``.  ``s="coulomb"`` means s = d - 2.
    backend : "auto" | "reference" (alias "numpy") | "numba" | "cupy" -- see
        :func:`yatmath._registry.choose` ("numba" takes NumPy arrays, "cupy" NumPy or CuPy)
    chunk : rows per chunk of the reference (default: ~4 M pair entries per chunk)
    symmetric : "auto" | True | False -- Numba only: use the pair-symmetric kernel
    coincident : "raise" | "singular" -- two equal particles with a bare kernel: ValueError
        naming omega (default), or let the pair contribute 0 (see :mod:`.interactions`)
    Returns an array of the shape and dtype of ``omega``.  The force on particle k in the
    Langevin drift is ``-lambda *`` this (004 eq.A.7).  Rows whose fast evaluation under- or
    overflows are recomputed with log-domain pair terms: never NaN from finite input (an
    OverflowError naming omega where opposite infinite terms meet).  float32 omega on the
    "cupy" row is computed in float32 where its bound allows (module docstring, Accuracy).
    """
    _check_coincident_option(coincident)
    xp, lib, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    if symmetric is not True and symmetric is not False:
        check_choice(symmetric, "symmetric", ("auto", True, False))
    if chunk is not None:
        chunk = check_int(chunk, "chunk", minimum=1)
    impl = choose("particles.interaction_force", backend, lib, size=N * N)
    F = impl(X, inter, chunk, symmetric, coincident)      # the rows divide by N - 1 themselves
    return _finish(F, dtype, one_d)


def _repair_potential_rows(out, X, inter, chunk=None, coincident="raise"):
    """Honest values for the entries of a potential sum that came out non-finite: raise for
    coincident particles under a bare kernel whose g(0) is infinite (default), or recompute
    those entries on the host with hypot distances.  The ``finish`` step of every potential
    row (its arguments are the row's); ``out`` keeps its library and device."""
    if _all_finite(out):
        return out
    oh = np.array(to_host(out), dtype=np.float64)
    Xh = _host_scaled(X)
    bad = ~np.isfinite(oh)
    if inter.singular and coincident == "raise" and not np.isfinite(inter.g_at_zero()):
        _refuse_coincident(Xh, inter, "potential")
    for k in np.nonzero(bad)[0]:
        G = inter.g(norm(Xh[k] - Xh))
        G[k] = 0.0
        with np.errstate(invalid="ignore"):
            oh[k] = G.sum()
    return _back(oh, X)


@register("particles.interaction_potential", "reference",
          note="row chunks; distances by hypot (no under/overflow)",
          finish=(_repair_potential_rows,))
def _reference_potential_sum(X: Array, inter: Interaction, chunk: int | None = None,
                             coincident: str = "raise") -> Array:
    """sum_{l != k} g(x_k - x_l) by row chunks, generic over the array API (float64)
    (``coincident`` is the finish step's)."""
    xp = namespace(X)
    parts = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for diff, same in _row_chunks(_float64(X), chunk):
            G = xp.where(same, 0.0, inter.g(generic_norm(diff)))
            parts.append(xp.sum(G, axis=1))
    return parts[0] if len(parts) == 1 else xp.concat(parts)


_HOST_INPUT_NOTE = "NumPy input is copied to the device and back"


@register("particles.interaction_potential", "numba", libraries=("numpy",), dtypes=("float64",),
          device="cpu", note="row-parallel direct sum", finish=(_repair_potential_rows,))
def _numba_potential_sum(X: Array, inter: Interaction, chunk: int | None = None,
                         coincident: str = "raise") -> Array:
    from . import _numba_kernels as nk

    Xh = np.asarray(X, dtype=np.float64)
    out = np.empty(Xh.shape[0])
    nk.potential_rows(np.ascontiguousarray(Xh.T), inter.s, inter.soft2, inter.cut2, out)
    return out


@register("particles.interaction_potential", "cupy", libraries=("cupy",), dtypes=("float64",),
          device="gpu", note="numba-cuda kernel with shared-memory tiles for d <= 16, else the "
          "reference on the device; " + _HOST_INPUT_NOTE,
          host_input=True, finish=(_repair_potential_rows,))
def _cupy_potential_sum(X: Array, inter: Interaction, chunk: int | None = None,
                        coincident: str = "raise") -> Array:
    """The tiled kernel's sum_{l != k} g(x_k - x_l) (g from r^2 as on the Numba row), or the
    generic reference on the device for d > MAX_D."""
    from . import _cuda_kernels as ck

    Xd = _on_device(X)
    if Xd.shape[1] <= ck.MAX_D:
        return ck.potential_sum(Xd, inter.s, inter.soft2, inter.cut2)
    return _reference_potential_sum(Xd, inter, chunk)


def interaction_potential(omega: Array, kind: str | Interaction = "none", s: float | str = 1.0,
                          delta: float = 0.0, *, backend: str = "auto", check_finite: bool = True,
                          coincident: str = "raise") -> Array:
    """(1/(N-1)) sum_{l != k} g(omega_k - omega_l) for every particle k; (N,) float64 (the
    float dtype of ``omega`` for libraries other than NumPy).

    This is the per-particle interaction term of the Alg 2 reweighting, reading (a).
    omega of any array API library; the result is in its library, on its device.
    backend : "auto" | "reference" ("numpy") | "numba" (NumPy arrays only) | "cupy" (a tiled
    numba-cuda kernel for d <= 16, else the reference run by CuPy on the GPU; NumPy input is
    copied there and the result back).
    "auto" picks "cupy" for CuPy arrays, "numba" for NumPy arrays, else the reference.
    coincident : "raise" | "singular" -- two equal particles with a bare kernel whose g(0) is
    infinite (s >= 0): ValueError naming omega (default), or +inf (the true value).  Distances
    are computed without underflow (hypot), so a finite configuration gives a finite potential
    unless particles coincide.

    Accuracy.  Float64 everywhere.  The reference computes each pair term g_kl from d - 1
    hypots (the distance r), for Plummer one product and one sum (q = r^2 + delta^2), and one
    log or pow, and sums over l.  Run in another library -- CuPy on the GPU for d > 16,
    PyTorch, JAX -- the elementary functions are that library's
    (CUDA: hypot and pow within 2 ulps, log within 1) and the sum is reduced in its own order,
    so the last bits differ from the NumPy result's.  With every hypot, log and pow within
    L = 4 ulps on both sides, and +, * and / correctly rounded, the difference from the NumPy
    reference is at most (to first order in u = 2^-53)

        |P_k - P_k(NumPy)| <= [(2N + 16) S_k + (32 (d - 1) + 4) M_k] u / (N - 1),

    S_k = sum_{l != k} |g_kl| and M_k = sum_{l != k} m_kl.  The terms: two sums of N - 1 terms
    in any orders, 2 (N - 1) u S_k; the two divisions by N - 1, 2 u S_k; the two evaluations
    of the log or pow, 4 L u S_k; and the argument rho of the log or pow (rho = q for Plummer,
    else r), which carries a relative error of at most (4 L (d - 1) + 2) u on each side (the
    d - 1 hypots, the square and the sum), times the sensitivity m = |rho dg/drho|: |s| |g| for
    a power (|s| |g| / 2 for Plummer), 1 for the logarithm (1/2 for Plummer).  The NumPy
    reference is the oracle; ``tests/test_gpu_paths.py`` asserts this bound on CuPy.

    The "numba" row and the "cupy" kernel (d <= 16) compute q from r^2 = sum_j (x_kj - x_lj)^2
    instead (relative error (d + 1) u beyond the differences x_k - x_l, which every row rounds
    alike, so the argument term of the bound above covers them too) and take r^2 as it comes,
    without hypot: an r^2 that underflows to 0 makes the entry infinite, and the finish step
    recomputes it with hypot distances; pairs closer than ~1e-154 (r^2 subnormal) lose
    relative accuracy in g_kl.  The bound assumes every r^2 normal.
    """
    _check_coincident_option(coincident)
    xp, lib, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    impl = choose("particles.interaction_potential", backend, lib, size=N * N)
    _check_scale(X)
    return impl(X, inter, None, coincident) / (N - 1)


@register("particles.interaction_energy", "reference", note="the mean of the potential")
def _energy(pot):
    return 0.5 * float(namespace(pot).mean(pot))


def interaction_energy(omega: Array, kind: str | Interaction = "none", s: float | str = 1.0,
                       delta: float = 0.0, *, backend: str = "auto", check_finite: bool = True,
                       coincident: str = "raise") -> float:
    """W_{N,s}(Omega) = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l) (004 eq.2.3), a float.

    ``backend`` and ``coincident`` as in :func:`interaction_potential` ("singular": +inf for
    coincident particles under a bare kernel with s >= 0); omega of any array API library."""
    pot = interaction_potential(omega, kind, s, delta, backend=backend, check_finite=check_finite,
                                coincident=coincident)
    return choose("particles.interaction_energy", "reference", caller(pot).library)(pot)


@host_op("particles.random_batches", note="numpy.random.Generator permutation")
def random_batches(N: int, batch_size: int, rng: RNGLike) -> Array:
    """A random permutation of range(N) (the batches are its consecutive slices of
    ``batch_size``, the last one absorbing N mod batch_size); ``rng`` follows the seed rule of
    :func:`yatmath._validate.as_rng`."""
    N = check_int(N, "N", minimum=2)
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    if batch_size > N:
        raise ValueError(f"batch_size must be an integer in [2, N={N}], got {batch_size!r}")
    return as_rng(rng).permutation(N)


@dataclasses.dataclass(frozen=True)
class _Batches:
    """The random batches of one call: ``perm``, a host (NumPy int64) permutation of range(N),
    cut into consecutive slices of ``size`` (the last absorbing N mod size).  Host data held in
    an object, so that a device row's host-input copy leaves it on the host."""

    perm: np.ndarray
    size: int


def _repair_batch_rows(F, X, batches, inter, coincident="raise"):
    """The ``finish`` step of every random-batch row: rows that came out non-finite are
    recomputed on the host (:func:`_repair_random_batch`); F keeps its library and device."""
    if _all_finite(F):
        return F
    Fo = np.asarray(to_host(F))
    Fh = _repair_random_batch(np.asarray(Fo, dtype=np.float64), _host_scaled(X), batches.perm,
                              batches.size, inter, coincident)
    return _back(Fh.astype(Fo.dtype, copy=False), X)    # F's dtype, rounded on the host


@register("particles.random_batch_force", "reference",
          note="same operations in the same order as the Numba kernel: equal bit for bit on "
          "NumPy where c needs no pow, within 8 u of the terms' sum otherwise",
          finish=(_repair_batch_rows,))
def _reference_random_batch(X, batches, inter, coincident="raise"):
    """Generic twin of ``_numba_kernels.random_batch``, operation for operation: r^2 summed
    over the coordinates in order, c from :func:`.interactions.force_factor` (the kernels'
    per-family expression), terms (c (x_k - x_l)) w with w = 1/(|B|-1), and each particle's
    terms added in batch order, starting from the first.  Hence equal bit for bit to the
    kernel on NumPy float64 wherever both evaluate c with the same correctly rounded operations
    (``random_batch_force`` docstring: not pow on AVX-512 CPUs).  ``batches`` holds the NumPy
    int64 permutation; X any library (float64)."""
    perm, bsize = batches.perm, batches.size
    xp = namespace(X)
    X = _float64(X)
    N, d = X.shape
    dev = _device(X)
    nb = N // bsize
    full = (nb - 1) * bsize
    groups = [perm[:full].reshape(nb - 1, bsize), perm[full:][None, :]]
    parts = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for idx in groups:
            if idx.size == 0:
                continue
            B, p = idx.shape
            Y = xp.reshape(xp.take(X, xp.asarray(idx.reshape(-1), device=dev), axis=0),
                           (B, p, d))
            diff = Y[:, :, None, :] - Y[:, None, :, :]
            r2 = diff[..., 0] * diff[..., 0]
            for j in range(1, d):
                r2 = r2 + diff[..., j] * diff[..., j]
            c = force_factor(r2, inter)
            eye = xp.asarray(np.eye(p, dtype=bool), device=dev)
            c = xp.where(eye, 0.0, c)
            w = 1.0 / (p - 1)
            T = -((c[..., None] * diff) * w)
            acc = T[:, :, 0, :]
            for j in range(1, p):
                acc = acc + T[:, :, j, :]
            parts.append(xp.reshape(acc, (B * p, d)))
    out_perm = parts[0] if len(parts) == 1 else xp.concat(parts)   # rows in perm order
    inv = np.empty(N, dtype=np.int64)
    inv[perm] = np.arange(N)
    return xp.take(out_perm, xp.asarray(inv, device=dev), axis=0)


@register("particles.random_batch_force", "numba", libraries=("numpy",), dtypes=("float64",),
          device="cpu", note="parallel over batches; IEEE arithmetic (no fastmath)",
          finish=(_repair_batch_rows,))
def _numba_random_batch(X, batches, inter, coincident="raise"):
    from . import _numba_kernels as nk

    Xh = np.ascontiguousarray(X, dtype=np.float64)
    F = np.empty(Xh.shape)
    nk.random_batch(Xh, batches.perm, batches.size, *_numba_args(inter), F)
    return F


@register("particles.random_batch_force", "cupy", libraries=("cupy",),
          dtypes=("float32", "float64"), device="gpu",
          note="numba-cuda kernel, one thread per particle, for d <= 16 (else the reference on "
          "the device); the Numba kernel's bits where c needs no pow; float64 arithmetic for "
          "float32 input too, the result rounded once to float32; " + _HOST_INPUT_NOTE,
          host_input=True, finish=(_repair_batch_rows,))
def _cupy_random_batch(X, batches, inter, coincident="raise"):
    """The random-batch kernel (the Numba kernel's operations in its order) in X's dtype, or
    the generic float64 reference on the device for d > MAX_D rounded to X's dtype."""
    from . import _cuda_kernels as ck

    Xd = _on_device(X)
    if Xd.shape[1] <= ck.MAX_D:
        return ck.random_batch(Xd, batches.perm, batches.size, *_numba_args(inter))
    return _in_dtype_of(_reference_random_batch(Xd, batches, inter, coincident), Xd)


def random_batch_force(omega: Array, kind: str | Interaction = "none", s: float | str = 1.0,
                       delta: float = 0.0, *, batch_size: int = 2, rng: RNGLike = None,
                       perm: Array | None = None, backend: str = "auto",
                       check_finite: bool = True, coincident: str = "raise") -> Array:
    """Random-batch estimate of :func:`interaction_force` (O(N * batch_size) work).

    omega : (N, d) or (N,), with N >= batch_size >= 2 (N >= 2 * batch_size is not required),
    of any array API library (the result is in its library, on its device).
    batch_size : int >= 2.  rng : the seed rule of :func:`yatmath._validate.as_rng` (None, an
    int seed >= 0, a SeedSequence or a Generator; draws the batches), or give ``perm`` (a
    permutation of range(N)) directly.  coincident : as in :func:`interaction_force`.
    backend : "auto" | "reference" ("numpy") | "numba" (NumPy arrays) | "cupy" (a numba-cuda
    kernel for d <= 16, else the reference run by CuPy on the GPU; NumPy input is copied there
    and the result back); "auto" picks
    "cupy" for CuPy arrays, "numba" for NumPy arrays, else the reference (PyTorch, JAX, ...
    run it on their device).  Same permutation, same output on the reference and "numba" for
    NumPy float64, for every batch size (the reference repeats the kernel's operations in the
    kernel's order): bit for bit where c needs no pow, s in {-1, 0, 1, 2}, on every CPU (+, -,
    *, / and sqrt are correctly rounded); for other s each component within
    8 u sum_l |w c_kl (x_k - x_l)|, since NumPy chooses its pow kernel by CPU (a SIMD one on
    AVX-512 CPUs: 1 ulp from the C library's pow that Numba calls, measured on an AVX-512 EPYC)
    and agrees bit for bit only where it uses the C library's (``tests/particles/test_forces.py``
    checks both).
    On CuPy the result is also the Numba kernel's bits where c needs no pow, s in {-1, 0, 1, 2}
    (p = 1/2, 1, 3/2, 2): the device kernel (the reference for d > 16) then uses only +, -, *, /
    and sqrt, which CUDA rounds correctly in float64, with every product rounded on its own
    (no FMA), in the Numba kernel's order (``tests/test_gpu_paths.py`` checks equality).  Other
    s go through pow (CUDA: within 2 ulps), so there the last bits may differ from NumPy's.
    """
    _check_coincident_option(coincident)
    xp, lib, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N, d = X.shape
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    if batch_size > N:
        raise ValueError(f"batch_size must be an integer in [2, N={N}], got {batch_size!r}")
    if perm is None:
        perm = random_batches(N, batch_size, rng)
    else:
        perm = np.asarray(to_host(perm))
        if perm.dtype.kind not in "iu" or perm.shape != (N,) \
                or not np.array_equal(np.sort(perm), np.arange(N)):
            raise ValueError(f"perm must be a permutation of range({N}) (integers), got "
                             f"{'shape ' + str(perm.shape) if perm.shape != (N,) else perm.dtype}")
    perm = perm.astype(np.int64)
    impl = choose("particles.random_batch_force", backend, lib, size=N * batch_size)
    F = impl(X, _Batches(perm, batch_size), inter, coincident)
    return _finish(F, dtype, one_d)


def _repair_random_batch(F, Xh, perm, bsize, inter, coincident):
    """Rows of a random-batch force that came out non-finite: raise for a coincident pair in
    a batch (bare kernel, default) or recompute the row inside its batch with log-domain pair
    terms (see :func:`_repair_force_rows`)."""
    _host_scaled(Xh)
    N = Xh.shape[0]
    nb = N // bsize
    F = F.copy()
    for k in np.nonzero(~np.isfinite(F).all(axis=1))[0]:
        pos = int(np.nonzero(perm == k)[0][0])
        bidx = min(pos // bsize, nb - 1)
        members = perm[bidx * bsize: N if bidx == nb - 1 else (bidx + 1) * bsize]
        W = Xh[k] - Xh[members]
        same = np.all(W == 0, axis=1) & (members != k)
        if inter.singular and coincident == "raise" and same.any():
            l = int(members[same][0])
            raise ValueError(
                f"omega has coincident particles {min(k, l)} and {max(k, l)} (equal rows) in one "
                f"batch, where the bare kernel (kind='none', s={inter.s}) makes the force "
                "singular; soften it (kind='plummer' or 'hard'), or pass coincident='singular'")
        with np.errstate(invalid="ignore", over="ignore"):
            F[k] = pair_terms(W, inter).sum(axis=0) / (members.size - 1)
        if np.isnan(F[k]).any():
            raise OverflowError(f"the random-batch force on particle {k} of omega is a sum of "
                                "pair terms that overflow float64 with opposite signs; soften "
                                "the kernel or rescale omega")
    return F
