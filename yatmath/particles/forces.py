"""Interaction forces, potentials and energies of a particle system, without an N x N array.

For particles omega_1..omega_N in R^d and a pair interaction g (see :mod:`.interactions`):

    interaction_force(omega)_k     = (1/(N-1)) sum_{l != k} grad g(omega_k - omega_l)
    interaction_potential(omega)_k = (1/(N-1)) sum_{l != k} g(omega_k - omega_l)
    interaction_energy(omega)      = W_{N,s} = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l)
    random_batch_force(omega)_k    = (1/(|B|-1)) sum_{l in B(k), l != k} grad g(omega_k - omega_l)

(004 eq.2.2-2.3; algorithms.md §P1-P2).  The diagonal l = k is always excluded explicitly.

Backends
--------
``"numpy"``  reference: row chunks of at most ``chunk`` rows (default: about 4 M pair entries
             per chunk), float64.  Memory O(chunk * N * d).
``"numba"``  direct summation in parallel with the pair symmetry: each unordered pair is
             evaluated once and added to both particles (g is even), with one accumulator per
             work chunk so that threads never share memory; O(N) extra memory.  For N below
             ``SYMMETRIC_MIN_N`` a plain row-parallel sum is used.
``"cupy"``   a RawKernel (one thread per particle, shared-memory source tiles) for d <= 16, else
             the chunked reference on the device.
``"auto"``   cupy for CuPy input, else numba when installed, else numpy.

The random batch method (Jin, Li & Liu 2020) splits the particles into random batches of size
``batch_size`` (the last batch absorbs N mod batch_size) and lets particles interact only inside
their batch: an unbiased estimate of the force when every batch has size ``batch_size``, at cost
O(N * batch_size) per call.

Accuracy: every backend computes in float64 (float32 input is promoted and the result cast
back).  The pair terms are exact to a few ulps (see :mod:`.interactions`); the sums over l are
accumulated in different orders by different backends, so they agree to about
u * sum_l |grad g(omega_k - omega_l)| / (N-1) per component (u = 2^-53), which the tests check.
"""
from __future__ import annotations

import numpy as np

from .. import _backend as be
from .._validate import as_float_array, as_rng, check_choice, check_int
from .interactions import Interaction, as_interaction, force_factor, norm, pair_terms

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
    xp = be.array_module(omega)
    arr = as_float_array(omega, name, ndim=(1, 2), check_finite=check_finite, xp=xp)
    one_d = arr.ndim == 1
    X = arr[:, None] if one_d else arr
    N, d = X.shape
    if N < 2:
        raise ValueError(f"{name} must hold at least 2 particles (rows), got shape {tuple(arr.shape)}")
    if d == 0:
        raise ValueError(f"{name} must have at least one coordinate per particle, got shape "
                         f"{tuple(arr.shape)}")
    inter = as_interaction(kind, s, delta, d=d)
    return xp, arr.dtype, one_d, X, inter


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


def _host_scaled(X):
    """X on the host, float64; OverflowError naming omega when differences would overflow."""
    Xh = np.asarray(be.to_backend(X, "numpy"), dtype=np.float64)
    m = float(np.max(np.abs(Xh))) if Xh.size else 0.0
    if m > np.finfo(np.float64).max / 2:
        raise OverflowError(f"omega has entries up to {m:.3g}: differences of particles overflow "
                            "float64; rescale omega (and delta) first")
    return Xh


def _repair_force_rows(F, X, inter, coincident):
    """Honest values for the rows of F that came out non-finite: raise (coincident bare pair,
    default), or recompute those rows with :func:`.interactions.pair_terms` (log-domain pair
    terms, coincident pairs contributing 0)."""
    Fh = np.asarray(be.to_backend(F, "numpy"))
    bad = np.nonzero(~np.isfinite(Fh).all(axis=1))[0]
    if bad.size == 0:
        return F
    Xh = _host_scaled(X)
    if inter.singular and coincident == "raise":
        _refuse_coincident(Xh, inter, "force")
    Fh = Fh.copy()
    for k in bad:
        T = pair_terms(Xh[k] - Xh, inter)            # row k itself is the zero vector -> 0
        with np.errstate(invalid="ignore", over="ignore"):
            Fh[k] = T.sum(axis=0)
    if not np.isfinite(Fh[bad]).all(axis=1).all():
        k = int(bad[~np.isfinite(Fh[bad]).all(axis=1)][0])
        if np.isnan(Fh[k]).any():
            raise OverflowError(f"the force on particle {k} of omega is a sum of pair terms that "
                                "overflow float64 with opposite signs (particles closer than "
                                "~1e-150 on both sides); soften the kernel or rescale omega")
    return Fh if be.array_module(F) is np else be.to_backend(Fh, "cupy")


def _finish(F, dtype, one_d):
    F = F.astype(dtype, copy=False)
    return F[:, 0] if one_d else F


def _reference_force_sum(X, inter: Interaction, chunk=None, xp=np):
    """sum_{l != k} grad g(x_k - x_l) by row chunks (float64); works for NumPy and CuPy."""
    X = X.astype(xp.float64)
    N, d = X.shape
    if chunk is None:
        chunk = max(1, _PAIRS_PER_CHUNK // max(1, N * d))
    out = xp.empty((N, d), dtype=xp.float64)
    for i0 in range(0, N, chunk):
        i1 = min(i0 + chunk, N)
        diff = X[i0:i1, None, :] - X[None, :, :]
        r2 = xp.sum(diff * diff, axis=-1)
        if xp is np:
            c = force_factor(r2, inter)
        else:
            c = _xp_factor(r2, inter, xp)
        rows = xp.arange(i1 - i0)
        c[rows, rows + i0] = 0.0          # exclude l = k explicitly
        out[i0:i1] = -xp.einsum("ij,ijk->ik", c, diff)
    return out


def _xp_factor(r2, inter, xp):
    q = r2 + inter.soft2
    c = inter.a * q ** (-inter.p)
    if inter.kind == "hard":
        c = xp.where(r2 > inter.cut2, c, 0.0)
    return c


def _numba_args(inter: Interaction):
    return inter.family, inter.a, inter.p, inter.soft2, inter.cut2


def _numba_force_sum(X, inter: Interaction, symmetric="auto"):
    from . import _numba_kernels as nk

    N, d = X.shape
    XT = np.ascontiguousarray(X.T, dtype=np.float64)
    if symmetric == "auto":
        symmetric = N >= SYMMETRIC_MIN_N
    if symmetric:
        nch = max(1, min(SYMMETRIC_CHUNKS, _ACC_MAX // max(1, N * d)))
        acc = np.empty((nch, d, N))
        (nk.force_sym3 if d == 3 else nk.force_sym)(XT, *_numba_args(inter), acc)
        return acc.sum(axis=0).T.copy()
    out = np.empty((d, N))
    nk.force_rows(XT, 0, N, *_numba_args(inter), out)
    return out.T.copy()


def interaction_force(omega, kind="none", s=1.0, delta=0.0, *, backend="auto", chunk=None,
                      symmetric="auto", check_finite=True, coincident="raise"):
    """(1/(N-1)) sum_{l != k} grad g(omega_k - omega_l) for every particle k.

    Parameters
    ----------
    omega : array (N, d) or (N,) (then d = 1); NumPy or CuPy; N >= 2
    kind, s, delta : the interaction (see :func:`.interactions.make_interaction`), or pass an
        :class:`.Interaction` as ``kind``.  ``s="coulomb"`` means s = d - 2.
    backend : "auto" | "numpy" | "numba" | "cupy"
    chunk : rows per chunk of the NumPy reference (default: ~4 M pair entries per chunk)
    symmetric : "auto" | True | False -- Numba only: use the pair-symmetric kernel
    coincident : "raise" | "singular" -- two equal particles with a bare kernel: ValueError
        naming omega (default), or let the pair contribute 0 (see :mod:`.interactions`)
    Returns an array of the shape and dtype of ``omega``.  The force on particle k in the
    Langevin drift is ``-lambda *`` this (004 eq.A.7).  Rows whose fast evaluation under- or
    overflows are recomputed with log-domain pair terms: never NaN from finite input (an
    OverflowError naming omega where opposite infinite terms meet).
    """
    _check_coincident_option(coincident)
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    b = be.resolve(backend, X)
    if symmetric is not True and symmetric is not False:
        check_choice(symmetric, "symmetric", ("auto", True, False))
    if chunk is not None:
        chunk = check_int(chunk, "chunk", minimum=1)
    if b == "numpy":
        F = _reference_force_sum(np.asarray(X), inter, chunk)
    elif b == "numba":
        F = _numba_force_sum(np.asarray(X), inter, symmetric)
    else:
        cp = be.cupy_module()
        Xd = cp.asarray(X, dtype=cp.float64)
        if Xd.shape[1] <= 16:
            from . import _cupy_kernels as ck

            F = ck.force_sum(Xd, *_numba_args(inter))
        else:
            F = _reference_force_sum(Xd, inter, chunk, xp=cp)
        if xp is np:
            F = F.get()     # host input with backend="cupy": the result comes back to the host
    F = _repair_force_rows(F, X, inter, coincident)
    F = F / (N - 1)
    return _finish(F, dtype, one_d)


def _reference_potential_sum(X, inter: Interaction, chunk=None):
    X = np.asarray(X, dtype=np.float64)
    N, d = X.shape
    if chunk is None:
        chunk = max(1, _PAIRS_PER_CHUNK // max(1, N * d))
    out = np.empty(N)
    for i0 in range(0, N, chunk):
        i1 = min(i0 + chunk, N)
        diff = X[i0:i1, None, :] - X[None, :, :]
        G = inter.g(norm(diff))
        rows = np.arange(i1 - i0)
        G[rows, rows + i0] = 0.0
        out[i0:i1] = G.sum(axis=1)
    return out


def interaction_potential(omega, kind="none", s=1.0, delta=0.0, *, backend="auto",
                          check_finite=True, coincident="raise"):
    """(1/(N-1)) sum_{l != k} g(omega_k - omega_l) for every particle k; (N,) float64.

    This is the per-particle interaction term of the Alg 2 reweighting, reading (a).
    CuPy input is computed on the CPU and returned as a CuPy array (NumPy input stays NumPy).
    coincident : "raise" | "singular" -- two equal particles with a bare kernel whose g(0) is
    infinite (s >= 0): ValueError naming omega (default), or +inf (the true value).  Distances
    are computed without underflow (rows of the fast path that come out infinite are redone
    with ``np.hypot``), so a finite configuration gives a finite potential unless particles
    coincide.
    """
    _check_coincident_option(coincident)
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    b = be.resolve(backend, X)
    Xh = _host_scaled(X)
    if b == "numba":
        from . import _numba_kernels as nk

        out = np.empty(N)
        nk.potential_rows(np.ascontiguousarray(Xh.T), inter.s, inter.soft2, inter.cut2, out)
    else:
        out = _reference_potential_sum(Xh, inter)
    bad = ~np.isfinite(out)
    if bad.any():
        if inter.singular and coincident == "raise" and not np.isfinite(inter.g_at_zero()):
            _refuse_coincident(Xh, inter, "potential")
        for k in np.nonzero(bad)[0]:
            G = inter.g(norm(Xh[k] - Xh))
            G[k] = 0.0
            with np.errstate(invalid="ignore"):
                out[k] = G.sum()
    out = out / (N - 1)
    return be.to_backend(out, "cupy") if xp is not np else out


def interaction_energy(omega, kind="none", s=1.0, delta=0.0, *, backend="auto",
                       check_finite=True, coincident="raise") -> float:
    """W_{N,s}(Omega) = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l) (004 eq.2.3), a float.

    ``coincident`` as in :func:`interaction_potential` ("singular": +inf for coincident
    particles under a bare kernel with s >= 0)."""
    pot = interaction_potential(omega, kind, s, delta, backend=backend, check_finite=check_finite,
                                coincident=coincident)
    return 0.5 * float(pot.mean())


def random_batches(N: int, batch_size: int, rng):
    """A random permutation of range(N) (the batches are its consecutive slices of
    ``batch_size``, the last one absorbing N mod batch_size); ``rng`` follows the seed rule of
    :func:`yatmath._validate.as_rng`."""
    N = check_int(N, "N", minimum=2)
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    if batch_size > N:
        raise ValueError(f"batch_size must be an integer in [2, N={N}], got {batch_size!r}")
    return as_rng(rng).permutation(N)


def _reference_random_batch(X, perm, bsize, inter):
    """NumPy twin of ``_numba_kernels.random_batch``, operation for operation: r^2 summed over
    the coordinates in order, c from :func:`.interactions.force_factor` (the kernels' per-family
    expression), terms (c (x_k - x_l)) w with w = 1/(|B|-1), and each particle's terms added
    in batch order (``np.add.accumulate`` is sequential).  Hence equal bit for bit."""
    N, d = X.shape
    nb = N // bsize
    out = np.empty((N, d))
    full = (nb - 1) * bsize
    groups = [perm[:full].reshape(nb - 1, bsize), perm[full:][None, :]]
    for idx in groups:
        if idx.size == 0:
            continue
        Y = X[idx]                                    # (nb, p, d)
        diff = Y[:, :, None, :] - Y[:, None, :, :]
        r2 = np.zeros(diff.shape[:-1])
        for j in range(d):
            r2 = r2 + diff[..., j] * diff[..., j]
        c = force_factor(r2, inter)
        p = idx.shape[1]
        c[:, np.arange(p), np.arange(p)] = 0.0
        w = 1.0 / (p - 1)
        with np.errstate(invalid="ignore"):
            T = -((c[..., None] * diff) * w)
        out[idx] = np.add.accumulate(T, axis=2)[:, :, -1, :]
    return out


def random_batch_force(omega, kind="none", s=1.0, delta=0.0, *, batch_size=2, rng=None,
                       perm=None, backend="auto", check_finite=True, coincident="raise"):
    """Random-batch estimate of :func:`interaction_force` (O(N * batch_size) work).

    omega : (N, d) or (N,), with N >= batch_size >= 2 (N >= 2 * batch_size is not required).
    batch_size : int >= 2.  rng : the seed rule of :func:`yatmath._validate.as_rng` (None, an
    int seed >= 0, a SeedSequence or a Generator; draws the batches), or give ``perm`` (a
    permutation of range(N)) directly.  coincident : as in :func:`interaction_force`.
    Same permutation, same output bit for bit on the "numpy" and "numba" backends, for every
    batch size (the NumPy reference repeats the kernel's operations in the kernel's order;
    ``tests/test_particles_forces.py`` checks equality).  "cupy" runs the Numba kernel on the
    host and returns a CuPy array.
    """
    _check_coincident_option(coincident)
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N, d = X.shape
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    if batch_size > N:
        raise ValueError(f"batch_size must be an integer in [2, N={N}], got {batch_size!r}")
    if perm is None:
        perm = random_batches(N, batch_size, rng)
    else:
        perm = np.asarray(be.to_backend(perm, "numpy"))
        if perm.dtype.kind not in "iu" or perm.shape != (N,) \
                or not np.array_equal(np.sort(perm), np.arange(N)):
            raise ValueError(f"perm must be a permutation of range({N}) (integers), got "
                             f"{'shape ' + str(perm.shape) if perm.shape != (N,) else perm.dtype}")
    perm = perm.astype(np.int64)
    b = be.resolve(backend, X)
    Xh = np.ascontiguousarray(be.to_backend(X, "numpy"), dtype=np.float64)
    if b == "numpy":
        F = _reference_random_batch(Xh, perm, batch_size, inter)
    else:
        from . import _numba_kernels as nk

        F = np.empty((N, d))
        nk.random_batch(Xh, perm, batch_size, *_numba_args(inter), F)
    if not np.isfinite(F).all():
        F = _repair_random_batch(F, Xh, perm, batch_size, inter, coincident)
    if xp is not np:
        F = be.to_backend(F, "cupy")
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
