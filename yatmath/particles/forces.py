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
from .._validate import as_float_array
from .interactions import Interaction, as_interaction, force_factor

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
    inter = as_interaction(kind, s, delta, d=d)
    return xp, arr.dtype, one_d, X, inter


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
                      symmetric="auto", check_finite=True):
    """(1/(N-1)) sum_{l != k} grad g(omega_k - omega_l) for every particle k.

    Parameters
    ----------
    omega : array (N, d) or (N,) (then d = 1); NumPy or CuPy; N >= 2
    kind, s, delta : the interaction (see :func:`.interactions.make_interaction`), or pass an
        :class:`.Interaction` as ``kind``.  ``s="coulomb"`` means s = d - 2.
    backend : "auto" | "numpy" | "numba" | "cupy"
    chunk : rows per chunk of the NumPy reference (default: ~4 M pair entries per chunk)
    symmetric : "auto" | True | False -- Numba only: use the pair-symmetric kernel
    Returns an array of the shape and dtype of ``omega``.  The force on particle k in the
    Langevin drift is ``-lambda *`` this (004 eq.A.7).
    """
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    b = be.resolve(backend, X)
    if symmetric not in ("auto", True, False):
        raise ValueError(f"symmetric must be 'auto', True or False, got {symmetric!r}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer))
                              or chunk < 1):
        raise ValueError(f"chunk must be a positive integer or None, got {chunk!r}")
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
        G = inter.g(np.sqrt(np.sum(diff * diff, axis=-1)))
        rows = np.arange(i1 - i0)
        G[rows, rows + i0] = 0.0
        out[i0:i1] = G.sum(axis=1)
    return out


def interaction_potential(omega, kind="none", s=1.0, delta=0.0, *, backend="auto",
                          check_finite=True):
    """(1/(N-1)) sum_{l != k} g(omega_k - omega_l) for every particle k; (N,) float64.

    This is the per-particle interaction term of the Alg 2 reweighting, reading (a).
    CuPy input is computed on the CPU and returned as a CuPy array (NumPy input stays NumPy).
    """
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N = X.shape[0]
    b = be.resolve(backend, X)
    Xh = be.to_backend(X, "numpy").astype(np.float64)
    if b == "numba":
        from . import _numba_kernels as nk

        out = np.empty(N)
        nk.potential_rows(np.ascontiguousarray(Xh.T), inter.s, inter.soft2, inter.cut2, out)
    else:
        out = _reference_potential_sum(Xh, inter)
    out = out / (N - 1)
    return be.to_backend(out, "cupy") if xp is not np else out


def interaction_energy(omega, kind="none", s=1.0, delta=0.0, *, backend="auto",
                       check_finite=True) -> float:
    """W_{N,s}(Omega) = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l) (004 eq.2.3), a float."""
    pot = interaction_potential(omega, kind, s, delta, backend=backend, check_finite=check_finite)
    return 0.5 * float(pot.mean())


def _as_rng(rng):
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be a numpy.random.Generator or an int seed, got {rng!r}")
    return np.random.default_rng(int(rng))


def random_batches(N: int, batch_size: int, rng):
    """A random permutation of range(N) (the batches are its consecutive slices)."""
    return _as_rng(rng).permutation(N)


def _reference_random_batch(X, perm, bsize, inter):
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
        c = force_factor(np.sum(diff * diff, axis=-1), inter)
        p = idx.shape[1]
        c[:, np.arange(p), np.arange(p)] = 0.0
        out[idx] = -np.einsum("bij,bijk->bik", c, diff) / (p - 1)
    return out


def random_batch_force(omega, kind="none", s=1.0, delta=0.0, *, batch_size=2, rng=None,
                       perm=None, backend="auto", check_finite=True):
    """Random-batch estimate of :func:`interaction_force` (O(N * batch_size) work).

    omega : (N, d) or (N,), N >= 2 * batch_size is not required but N >= batch_size >= 2 is.
    batch_size : int >= 2.  rng : Generator or int seed (draws the batches), or give ``perm``
    (a permutation of range(N)) directly.  Same rng, same output on every CPU backend up to the
    order of a batch's sum (bit for bit for batch_size = 2).
    """
    xp, dtype, one_d, X, inter = _prepare(omega, kind, s, delta, check_finite)
    N, d = X.shape
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or not 2 <= batch_size <= N:
        raise ValueError(f"batch_size must be an integer in [2, N={N}], got {batch_size!r}")
    if perm is None:
        perm = random_batches(N, batch_size, rng)
    else:
        perm = np.asarray(be.to_backend(perm, "numpy"))
        if perm.shape != (N,) or not np.array_equal(np.sort(perm), np.arange(N)):
            raise ValueError(f"perm must be a permutation of range({N})")
    perm = perm.astype(np.int64)
    b = be.resolve(backend, X)
    Xh = np.ascontiguousarray(be.to_backend(X, "numpy"), dtype=np.float64)
    if b == "numpy":
        F = _reference_random_batch(Xh, perm, int(batch_size), inter)
    else:
        from . import _numba_kernels as nk

        F = np.empty((N, d))
        nk.random_batch(Xh, perm, int(batch_size), *_numba_args(inter), F)
    if xp is not np:
        F = be.to_backend(F, "cupy")
    return _finish(F, dtype, one_d)
