"""The particle pair-sum GPU kernels of ``yatmath/particles/_cuda_kernels.py`` against the float64
NumPy reference: the tiled potential (``potential_sum``), the random-batch force
(``random_batch``), the float32-computation force kernel (``force_sum`` on float32 input: its
bound in the kernel module's docstring), and the "cupy" rows of ``forces`` that run them (with
their finish steps).  (The float64 force kernel: ``tests/yat/test_cuda_kernels.py``.)

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source thread by thread on NumPy arrays (shared memory and ``syncthreads`` included); with a
device (CuPy sees one) the same tests launch the compiled kernels on CuPy arrays.  Sizes are
small (the simulator runs each GPU thread as a Python thread): N = 70 with 16 threads per block
gives five blocks of targets and five source tiles, the last of each partial (70 = 4 * 16 + 6).
"""
from __future__ import annotations

import numpy as np
import pytest

from tests import cupy_ftz
from yatmath import _array, _cuda, _registry
from yatmath import particles as P
from yatmath.particles import _cuda_kernels as pk
from yatmath.particles import forces
from yatmath.particles.forces import (_Batches, _numba_args, _reference_potential_sum,
                                      _reference_random_batch)
from yatmath.particles.interactions import force_factor, norm

SIMULATED = _cuda.simulated()
U = 2.0 ** -53
N, THREADS = 70, 16          # five tiles of 16 sources, the last holding 6
L = 4                         # ulps of a log or pow on either side (CUDA: pow 2, log 1)

#: (kind, s, delta): every kind; s = 0 is the logarithm; 0.7 and 2.5 need the general pow
INTERACTIONS = [("none", 1.0, 0.0), ("none", 0.0, 0.0), ("none", -1.0, 0.0), ("none", 0.7, 0.0),
                ("plummer", 1.0, 0.3), ("plummer", 0.0, 0.3), ("plummer", -0.5, 0.2),
                ("hard", 1.0, 0.3), ("hard", 0.0, 0.3), ("hard", 2.5, 0.2)]


def dev(a):
    """``a`` where the kernels run: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _points(d, seed, softened):
    """N points in [-1, 1]^d; for a softened kernel two of them coincide, in different tiles
    (rows 5 and 40), which the bare kernels get in their own test."""
    X = np.random.default_rng(seed).uniform(-1, 1, size=(N, d))
    if softened:
        X[40] = X[5]
    return X


def _cupy_row(op, monkeypatch):
    """The registered "cupy" row of ``op``; in the simulator NumPy stands in for CuPy (the
    row's ``cupy_module().asarray`` and the registry's host-input copy), so the row code and
    its finish steps run here too."""
    if SIMULATED:
        monkeypatch.setattr(forces, "cupy_module", lambda: np)
        monkeypatch.setattr(_array, "cupy_module", lambda: np)      # the host-input copy
    return next(i for i in _registry.implementations(op) if i.backend == "cupy")


# --- the tiled potential ------------------------------------------------------------------------

def _potential_tolerance(X, inter):
    """Per row k, the bound on |kernel - reference| for sum_{l != k} g_kl, to first order in u:

        (2N + 2L) S_k u + ((4L (d - 1) + 2) + (d + 3)) M_k u,

    S_k = sum_{l != k} |g_kl| and M_k = sum_{l != k} m_kl, m = |rho dg/drho| (rho = q for
    Plummer, else r: |s| |g| / 2 resp. |s| |g|, 1/2 resp. 1 for the log).  Two sums of N - 1
    terms in different orders: 2 (N - 1) u S_k; a log or pow within L ulps on each side:
    2 L u S_k; the reference's argument r from d - 1 hypots (and q = r^2 + delta^2) within
    (4L (d - 1) + 2) u, the kernel's q = sum_j (x_kj - x_lj)^2 (+ delta^2) within (d + 3) u,
    each times the sensitivity (the kernel's, d/dlog q, is at most m).  A factor 1 + 1e-6
    covers the second-order terms."""
    N, d = X.shape
    r = norm(X[:, None, :] - X[None, :, :])
    with np.errstate(divide="ignore"):
        g = inter.g(r)
    half = 0.5 if inter.kind == "plummer" else 1.0
    m = np.full_like(g, half) if inter.s == 0.0 else half * abs(inter.s) * np.abs(g)
    off = ~np.eye(N, dtype=bool)
    S = np.sum(np.abs(g), axis=1, where=off)
    M = np.sum(m, axis=1, where=off)
    tol = ((2 * N + 2 * L) * S + (4 * L * (d - 1) + 2 + d + 3) * M) * U * (1 + 1e-6)
    return tol, np.where(off, np.abs(g), np.nan)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind,s,delta", INTERACTIONS)
def test_potential_tiles(kind, s, delta, d):
    """The tiled potential against the chunked reference on every row: several target blocks
    and source tiles, the last of each partial, the diagonal skipped by index, the hard core
    (many pairs closer than delta in [-1, 1]^d) and, for softened kernels, a coincident pair
    across tiles.  The tolerance is far below every row's typical pair term |g_kl| and below
    g(0) where that is finite, so a pair lost or counted twice at a tile boundary, or the
    diagonal term counted, fails it."""
    inter = P.make_interaction(kind, s, delta)
    X = _points(d, 10 + d, softened=kind != "none")
    got = host(pk.potential_sum(dev(X), inter.s, inter.soft2, inter.cut2, threads=THREADS))
    want = _reference_potential_sum(X, inter)
    tol, G = _potential_tolerance(X, inter)
    assert got.shape == (N,) and got.dtype == np.float64
    assert np.all(np.isfinite(got)) and np.all(np.isfinite(want))
    err = np.abs(got - want)
    assert np.all(err <= tol), (np.max(err / tol), kind, s, d)
    assert np.all(tol < 1e-9 * np.nanmedian(G, axis=1))
    if kind != "none":
        assert np.all(tol < 1e-9 * abs(inter.g_at_zero()))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("s", [1.0, 0.0, -1.0])
def test_potential_coincident_bare(s):
    """Two coincident particles, in different tiles, under a bare kernel: g(0) is +inf for
    s >= 0 (log(0) and 0^{-s/2}), so exactly those two sums are +inf, as the reference's; for
    s < 0, g(0) = -0 and every sum is finite.  Every finite row within the tolerance."""
    inter = P.make_interaction("none", s, 0.0)
    X = _points(2, 7, softened=False)
    X[40] = X[5]
    got = host(pk.potential_sum(dev(X), inter.s, inter.soft2, inter.cut2, threads=THREADS))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = _reference_potential_sum(X, inter)
    pair = np.isin(np.arange(N), (5, 40))
    fin = ~pair if s >= 0 else np.ones(N, bool)
    assert np.all(got[~fin] == np.inf) and np.all(want[~fin] == np.inf)
    assert np.all(np.isfinite(got[fin])) and np.all(np.isfinite(want[fin]))
    tol, _ = _potential_tolerance(X, inter)
    assert np.all(np.abs(got - want)[fin] <= tol[fin])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_potential_row_finish_refuses_or_keeps_coincident(monkeypatch):
    """The "cupy" row (the kernel, then the finish step shared with every potential row): a
    coincident bare pair raises ValueError naming omega, or with coincident="singular" gives
    the reference row's values (+inf for the pair, the rest within the tolerance)."""
    row = _cupy_row("particles.interaction_potential", monkeypatch)
    inter = P.make_interaction("none", 1.0, 0.0)
    X = _points(3, 8, softened=False)
    X[40] = X[5]
    with pytest.raises(ValueError, match="coincident particles 5 and 40"):
        row(dev(X), inter, None, "raise")
    got = host(row(dev(X), inter, None, "singular"))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = _reference_potential_sum(X, inter)
    assert np.array_equal(np.isinf(got), np.isinf(want)) and np.sum(np.isinf(got)) == 2
    fin = np.isfinite(want)
    tol, _ = _potential_tolerance(X, inter)
    assert np.all(np.abs(got - want)[fin] <= tol[fin])


def test_potential_row_above_max_d_runs_the_reference(monkeypatch):
    """d > MAX_D: the "cupy" row runs the generic reference on the device (here: NumPy, so
    the reference's own bits)."""
    row = _cupy_row("particles.interaction_potential", monkeypatch)
    inter = P.make_interaction("plummer", 1.0, 0.3)
    X = np.random.default_rng(9).normal(size=(9, pk.MAX_D + 1))
    got = host(row(dev(X), inter, None, "raise"))
    np.testing.assert_array_equal(got, _reference_potential_sum(X, inter))


def test_potential_public_function_on_the_device_row(monkeypatch):
    """interaction_potential(backend="cupy") through the registry (host input copied to the
    device and back where there is one; in the simulator NumPy plays CuPy) divides the kernel's
    sums by N - 1: within the tolerance / (N - 1) of the reference backend, NumPy out."""
    _cupy_row("particles.interaction_potential", monkeypatch)
    if SIMULATED:
        monkeypatch.setattr(_registry, "libraries_available",
                            lambda: {"numba": _array.has_numba(), "cupy": True})
    inter = P.make_interaction("hard", 0.0, 0.3)
    X = _points(2, 11, softened=True)
    got = P.interaction_potential(X, inter, backend="cupy")
    want = P.interaction_potential(X, inter, backend="reference")
    assert type(got) is np.ndarray and got.dtype == np.float64
    tol, _ = _potential_tolerance(X, inter)
    assert np.all(np.abs(got - want) <= tol / (N - 1) + 2 * U * np.abs(want))


def test_potential_refuses_large_d():
    with pytest.raises(ValueError, match="d <= 16"):
        pk.potential_sum(np.zeros((4, 17)), 1.0, 0.0, -1.0)


# --- the random-batch force ---------------------------------------------------------------------

def _batch_terms_scale(X, perm, bsize, inter):
    """Per particle and component, sum over its batch partners l of |w c_kl (x_k - x_l)|."""
    n = X.shape[0]
    nb = n // bsize
    out = np.zeros_like(X)
    for b in range(nb):
        members = perm[b * bsize: n if b == nb - 1 else (b + 1) * bsize]
        w = 1.0 / (members.size - 1)
        for k in members:
            W = X[k] - X[members[members != k]]
            with np.errstate(divide="ignore"):
                c = force_factor(np.sum(W * W, axis=1), inter)
            out[k] = np.sum(np.abs(w * c[:, None] * W), axis=0)
    return out


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("bsize", [3, 8])
@pytest.mark.parametrize("kind,s,delta", INTERACTIONS)
def test_random_batch_kernel(kind, s, delta, bsize, d):
    """The random-batch kernel against the reference row (which repeats the Numba kernel's
    operations in its order): N = 70 in batches of 3 (the last of 4) or 8 (the last of 14),
    threads of several blocks, the last partial.  Where c needs no pow (s in {-1, 0, 1, 2})
    the same bits -- the kernel sums each particle's terms in batch order with every product
    rounded on its own; with a pow (s = 0.7, 2.5, -0.5) each component within
    8 u sum_l |w c_kl (x_k - x_l)| (two pows, each within 2 ulps of the exact value)."""
    inter = P.make_interaction(kind, s, delta)
    X = _points(d, 20 + d, softened=kind != "none")
    perm = np.random.default_rng(30 + bsize).permutation(N)
    got = host(pk.random_batch(dev(X), perm, bsize, *_numba_args(inter), threads=THREADS))
    want = _reference_random_batch(X, _Batches(perm, bsize), inter)
    assert got.shape == (N, d) and got.dtype == np.float64 and np.all(np.isfinite(got))
    if inter.family != 0:
        np.testing.assert_array_equal(got, want)
    else:
        scale = _batch_terms_scale(X, perm, bsize, inter)
        assert np.all(np.abs(got - want) <= 8 * U * scale)


@pytest.mark.parametrize("kind,s,delta", [("plummer", 1.0, 0.3), ("hard", 2.0, 0.4),
                                          ("none", 0.0, 0.0)])
def test_random_batch_kernel_matches_numba(kind, s, delta):
    """No pow: the Numba CPU kernel's bits as well (the claim random_batch_force makes for
    the "cupy" row)."""
    pytest.importorskip("numba")
    inter = P.make_interaction(kind, s, delta)
    X = _points(3, 40, softened=kind != "none")
    perm = np.random.default_rng(41).permutation(N)
    got = host(pk.random_batch(dev(X), perm, 6, *_numba_args(inter), threads=THREADS))
    np.testing.assert_array_equal(got, forces._numba_random_batch(X, _Batches(perm, 6), inter))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_random_batch_row_coincident_in_a_batch(monkeypatch):
    """Two coincident particles in one batch under a bare kernel: the kernel's pair term is
    inf * 0 = NaN, and the "cupy" row's finish step (every random-batch row's) raises naming
    omega, or with coincident="singular" gives the reference row's repaired values; the other
    batches are untouched."""
    row = _cupy_row("particles.random_batch_force", monkeypatch)
    inter = P.make_interaction("none", 1.0, 0.0)
    X = _points(2, 50, softened=False)
    perm = np.random.default_rng(51).permutation(N)
    X[perm[10]] = X[perm[13]]                  # positions 10 and 13: the batch 10..14
    b = _Batches(perm, 5)
    with pytest.raises(ValueError, match="coincident particles"):
        row(dev(X), b, inter, "raise")
    got = host(row(dev(X), b, inter, "singular"))
    ref_row = next(i for i in _registry.implementations("particles.random_batch_force")
                   if i.backend == "reference")
    np.testing.assert_array_equal(got, ref_row(X, b, inter, "singular"))


def test_random_batch_row_above_max_d_runs_the_reference(monkeypatch):
    row = _cupy_row("particles.random_batch_force", monkeypatch)
    inter = P.make_interaction("plummer", 1.0, 0.3)
    X = np.random.default_rng(12).normal(size=(11, pk.MAX_D + 1))
    b = _Batches(np.random.default_rng(13).permutation(11), 4)
    np.testing.assert_array_equal(host(row(dev(X), b, inter, "raise")),
                                  _reference_random_batch(X, b, inter))


# --- the float32 force kernel -------------------------------------------------------------------

U32 = 2.0 ** -24
ETA32 = 2.0 ** -149
#: every exponent family computed in float32 (s = 1, 0, -1, 2) under every kind
FORCE32 = [("none", 1.0, 0.0), ("none", 0.0, 0.0), ("none", -1.0, 0.0), ("none", 2.0, 0.0),
           ("plummer", 1.0, 0.3), ("plummer", 0.0, 0.3), ("plummer", -1.0, 0.2),
           ("plummer", 2.0, 0.3), ("hard", 1.0, 0.3), ("hard", 0.0, 0.3), ("hard", 2.0, 0.2)]
#: float64 roundings of c = a q^{-p} in float32, per family (sqrt, product, division)
C32_ROUNDINGS = {1: 3, 2: 1, 3: 2, 4: 2}


@pytest.mark.parametrize("kind,s,delta", [("none", 1.0, 0.0), ("none", 0.0, 0.0),
                                          ("plummer", -1.0, 0.2), ("hard", 2.0, 0.4)])
def test_force_factor_float32_binding(kind, s, delta):
    """``_cfac32`` (``cfac``'s source bound to float32) on float32 q over the kernel's range
    [Q_LO, Q_HI]: within the roundings of its family (3 for a/(q sqrt q), 1 for a/q, 2 for
    a/sqrt q and a/(q q)) times u32 of c(q) in float64, q being exact in both; a formula that
    rounded anything more (or computed p wrong) fails."""
    it = P.make_interaction(kind, s, delta)
    assert pk.float32_computation(it.family)
    q = np.exp(np.random.default_rng(3).uniform(np.log(pk.Q_LO), np.log(pk.Q_HI), 300))
    q = q.astype(np.float32)
    got = host(pk.cfac_values(dev(q), it.family, it.a, it.p))
    want = it.a * q.astype(np.float64) ** -it.p
    assert got.dtype == np.float32 and np.all(np.isfinite(got))
    k = C32_ROUNDINGS[it.family]
    assert np.all(np.abs(got - want) <= k * U32 * np.abs(want) * (1 + 1e-6))


def _force32_points(d, seed, inter):
    """N float32 points in [-1, 1]^d with (a) a near pair, rows 6 and 41, at distance ~5e-14
    (bare s = 2: ~1e-11, its terms 2/r^3 stay in float32's range): q below Q_LO, so the pair
    goes through the float64 branch; (b) a far particle, row 60, at 1e13: q above Q_HI (its
    terms ~ r^{-2}, r^{-3} come out of float64 into float32, subnormal for s = 2); (c) for a
    softened kernel two coincident particles in different tiles (rows 5 and 40)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(N, d))
    X[6] = 0.0
    X[41] = rng.uniform(0.5, 1.0, d) * (1e-11 if inter.s == 2.0 and inter.kind == "none"
                                        else 5e-14)
    X[60] = 0.0
    X[60, 0] = 1e13
    if inter.kind != "none":
        X[40] = X[5]
    return X.astype(np.float32)


def _force32_tolerance(X, inter):
    """Per row and component, the float32 kernel's bound against the float64 sum over the
    same (float32) points (``_cuda_kernels`` module docstring):

        [(p (d + 3) + 7) + 2 N u32] u32 S_kj + N eta / 2 + (2 N + p (d + 1) + 16) u64 S_kj
        + the terms of the pairs within (d + 3) u32 relative of the hard core's r^2 = delta^2,

    S_kj = sum_l |c_kl (x_kj - x_lj)|; the u64 part is the float64 reference's own error (its
    own order of the sum and its c), the factor 1 + 1e-3 the second-order terms."""
    X = X.astype(np.float64)
    n, d = X.shape
    diff = X[:, None, :] - X[None, :, :]
    r2 = np.sum(diff * diff, axis=-1)
    with np.errstate(divide="ignore", over="ignore"):
        c = force_factor(r2, inter)
    np.fill_diagonal(c, 0.0)
    T = np.abs(c[:, :, None] * diff)
    S = T.sum(axis=1)
    p = inter.p
    tol = (((p * (d + 3) + 7) + 2 * n * U32) * U32 * S + n * ETA32 / 2
           + (2 * n + p * (d + 1) + 16) * U * S) * (1 + 1e-3)
    if inter.kind == "hard":
        with np.errstate(divide="ignore", over="ignore"):
            c_core = inter.a * r2 ** -inter.p            # the term had the pair been outside
        band = np.abs(r2 / inter.cut2 - 1) <= (d + 3) * U32 * 1.01
        np.fill_diagonal(band, False)
        with np.errstate(invalid="ignore"):
            Tb = np.where(band[:, :, None], np.abs(c_core[:, :, None] * diff), 0.0)
        tol = tol + np.sum(Tb, axis=1)
    return tol, S


@pytest.mark.slow
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind,s,delta", FORCE32)
def test_force32_tiles(kind, s, delta, d):
    """The float32-computation force kernel against the float64 reference on the same float32
    points, every component within the bound of ``_force32_tolerance``: five target blocks and
    five source tiles of 16 (the last of each partial), the diagonal skipped by index, the hard
    core (many pairs closer than delta), the near pair and the far particle through the float64
    branch, a coincident pair of a softened kernel (its term 0).  Result float32."""
    inter = P.make_interaction(kind, s, delta)
    X = _force32_points(d, 60 + d, inter)
    got = host(pk.force_sum(dev(X), *_numba_args(inter), threads=THREADS))
    want = forces._reference_force_sum(X.astype(np.float64), inter)
    assert got.shape == (N, d) and got.dtype == np.float32 and np.all(np.isfinite(got))
    tol, S = _force32_tolerance(X, inter)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= tol), (np.max(err / tol), np.unravel_index(np.argmax(err / tol),
                                                                       err.shape))
    # where the sum is a normal float32 number, the tolerance is far below its terms: a pair
    # lost or counted twice fails it (sums below ~1e-38, the far particle's under s = 2, carry
    # the absolute N eta / 2 of subnormal terms)
    big = S > 1e-30
    assert np.all(tol[big] < 1e-4 * S[big])


def test_force32_compensated_sum():
    """The Kahan sums: target 0 at the origin (d = 1, s = 0, so c (x_k - x_l) = -1/x_l) sees
    +2^10 (source 1 at -2^-10), 67 terms near 2^-15 (sources near -2^15, each below half an
    ulp of the partial sum 2^10, so an uncompensated float32 sum drops them all) and -2^10 (the
    last source at +2^-10).  The two large terms are exact (powers of two), so row 0 is within
    the summation bound (2 + 2 N u32) u32 S_0 plus (p (d + 3) + 5) u32 times the small terms:
    an uncompensated sum is off by about 67 2^-15 = 8 times that bound."""
    inter = P.make_interaction("none", 0.0, 0.0)
    x = np.empty(N)
    x[0], x[1], x[-1] = 0.0, -2.0 ** -10, 2.0 ** -10
    x[2:-1] = -(2.0 ** 15 + 32.0 * np.arange(N - 3))
    X = x[:, None].astype(np.float32)
    assert np.array_equal(X[:, 0].astype(np.float64), x)
    got = host(pk.force_sum(dev(X), *_numba_args(inter), threads=THREADS))
    want = forces._reference_force_sum(x[:, None], inter)
    small = np.sum(np.abs(1.0 / x[2:-1]))
    S0 = 2 * 2.0 ** 10 + small
    tol = (2 + 2 * N * U32) * U32 * S0 + 9 * U32 * small + 4 * N * U * S0
    assert abs(float(got[0, 0]) - want[0, 0]) <= tol
    assert small > 8 * tol                # the dropped terms would fail it


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_force32_row_coincident_bare(monkeypatch):
    """Float32 through the "cupy" force row (kernel, then the finish step every force row
    shares): two coincident particles (rows 5 and 40) under a bare kernel give c = inf through
    the float64 branch and NaN rows, which the finish step refuses (ValueError naming them) or,
    with coincident="singular", recomputes on the host; the result stays float32, within the
    float32 bound of the reference row's values (the rows return the force, the sum / (N - 1):
    the sum's bound / (N - 1) and the division's and the reference's float32 roundings)."""
    row = _cupy_row("particles.interaction_force", monkeypatch)
    inter = P.make_interaction("none", 1.0, 0.0)
    X = np.random.default_rng(70).uniform(-1, 1, size=(N, 3))
    X[40] = X[5]
    X = X.astype(np.float32)
    with pytest.raises(ValueError, match="coincident particles 5 and 40"):
        row(dev(X), inter, None, "auto", "raise")
    got = host(row(dev(X), inter, None, "auto", "singular"))
    ref_row = next(i for i in _registry.implementations("particles.interaction_force")
                   if i.backend == "reference")
    want = ref_row(X.astype(np.float64), inter, None, "auto", "singular")
    assert got.dtype == np.float32 and np.all(np.isfinite(got))
    tol, _ = _force32_tolerance(np.delete(X, 40, axis=0), inter)
    tol = np.insert(tol, 40, tol[5], axis=0) / (N - 1) + 2 * U32 * np.abs(want)
    assert np.all(np.abs(got - want) <= tol)


@pytest.mark.parametrize("kind,s,delta", [("none", 0.7, 0.0), ("hard", 2.5, 0.2)])
def test_force_float32_general_pow_computes_in_float64(kind, s, delta):
    """s outside {1, 0, -1, 2} (a pow): float32 input is computed by the float64 kernel and the
    sums rounded once to float32 by its store: the float64 kernel's result rounded."""
    inter = P.make_interaction(kind, s, delta)
    assert not pk.float32_computation(inter.family)
    X = np.random.default_rng(71).uniform(-1, 1, size=(N, 2)).astype(np.float32)
    got = host(pk.force_sum(dev(X), *_numba_args(inter), threads=THREADS))
    want = host(pk.force_sum(dev(X.astype(np.float64)), *_numba_args(inter), threads=THREADS))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_force_row_float32_public_function(monkeypatch):
    """interaction_force(float32, backend="cupy") through the registry: float32 out, within the
    float32 bound / (N - 1) of the float64 reference plus the division's and the reference's
    float32 roundings; 1-D input comes back 1-D."""
    _cupy_row("particles.interaction_force", monkeypatch)
    if SIMULATED:
        monkeypatch.setattr(_registry, "libraries_available",
                            lambda: {"numba": _array.has_numba(), "cupy": True})
    inter = P.make_interaction("plummer", 1.0, 0.3)
    x = np.random.default_rng(72).uniform(-1, 1, size=N).astype(np.float32)
    got = P.interaction_force(x, inter, backend="cupy")
    want = P.interaction_force(x.astype(np.float64), inter, backend="reference")
    assert type(got) is np.ndarray and got.dtype == np.float32 and got.shape == (N,)
    tol, _ = _force32_tolerance(x[:, None], inter)
    assert np.all(np.abs(got - want) <= tol[:, 0] / (N - 1) + 2 * U32 * np.abs(want))


def test_random_batch_float32_rounds_the_float64_kernel():
    """The random-batch kernel on float32 input: float64 arithmetic, the result rounded once
    to float32 by its store (the float64 kernel's values on the same points, rounded)."""
    inter = P.make_interaction("plummer", 1.0, 0.3)
    X = np.random.default_rng(73).uniform(-1, 1, size=(N, 3)).astype(np.float32)
    perm = np.random.default_rng(74).permutation(N)
    got = host(pk.random_batch(dev(X), perm, 5, *_numba_args(inter), threads=THREADS))
    want = host(pk.random_batch(dev(X.astype(np.float64)), perm, 5, *_numba_args(inter),
                                threads=THREADS))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want.astype(np.float32))


# --- the division by N - 1 inside the force kernel ----------------------------------------------

#: (s, spacing): particles on a line, x_l = l * spacing along the first axis, so far apart that
#: the force (1/(N - 1)) sum_l c_kl (x_l - x_k) ~ (N - 1)^-1 2^-125 is a float32 subnormal on
#: the end particles while their sums are normal: s = 2 (c = 2 q^-2, terms 2^-125 / j^3, the
#: float32 kernel through its float64 branch: q = 2^84 j^2 > Q_HI) and s = 2.5 (c = 2.5
#: q^-2.25, terms 2.5 * 2^-126 / j^3.5, a pow: the float64 kernel, a float32 store)
SUBNORMAL = [(2.0, 2.0 ** 42), (2.5, 2.0 ** 36)]
TINY32 = 2.0 ** -126


def _subnormal_line(d, s, spacing, seed=90):
    """N float32 particles at l * spacing (l = 0..N-1, exact) on the first axis, rows shuffled
    so that the two end particles (the largest forces) sit in different tiles."""
    X = np.zeros((N, d))
    X[:, 0] = np.random.default_rng(seed).permutation(N) * spacing
    return X.astype(np.float32)


def _quotient_tolerance(X, inter):
    """The bound on the float32 force F = S / (N - 1) (``_cuda_kernels`` module docstring, "The
    division"): the sum's bound (``_force32_tolerance``) divided by N - 1, plus the division's
    own rounding, u32 |F| (normal) or eta / 2 (subnormal)."""
    want = forces._reference_force_sum(X.astype(np.float64), inter) / (N - 1)
    tol, _ = _force32_tolerance(X, inter)
    return want, tol / (N - 1) + U32 * np.abs(want) + ETA32 / 2


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("s,spacing", SUBNORMAL)
def test_force_kernel_divides_before_its_store(s, spacing, d):
    """force_sum(divisor=N - 1): each component is the correctly rounded quotient of the
    kernel's own sum, bit for bit NumPy's S / (N - 1) of it (float32 computation: float32
    division of the float32 sum; float64 computation: the float64 quotient rounded once), and
    float32 subnormals survive: the end particles' forces, ~2^-126 / 70, are nonzero subnormals
    within the bound of ``_quotient_tolerance`` (about eta = 2^-149 here, ~300 times below
    them), which a flushed 0 or a missing division fails.  On a device the compiled kernels run
    (no fastmath: no flush)."""
    inter = P.make_interaction("none", s, 0.0)
    X = _subnormal_line(d, s, spacing)
    args = _numba_args(inter)
    got = host(pk.force_sum(dev(X), *args, threads=THREADS, divisor=N - 1))
    assert got.dtype == np.float32 and got.shape == (N, d)
    if pk.float32_computation(inter.family):
        S = host(pk.force_sum(dev(X), *args, threads=THREADS))
        assert S.dtype == np.float32
        np.testing.assert_array_equal(got, S / np.float32(N - 1))
    else:
        S = host(pk.force_sum(dev(X.astype(np.float64)), *args, threads=THREADS))
        np.testing.assert_array_equal(got, (S / (N - 1)).astype(np.float32))
    want, tol = _quotient_tolerance(X, inter)
    assert np.all(np.abs(got.astype(np.float64) - want) <= tol)
    ends = [int(np.argmin(X[:, 0])), int(np.argmax(X[:, 0]))]
    F = got[ends, 0]
    assert np.all((F != 0) & (np.abs(F) < TINY32)), F           # subnormal, kept
    assert np.all(np.abs(S[ends, 0]) >= TINY32)                 # from normal sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind,s,delta", [("plummer", 1.0, 0.3), ("hard", 2.5, 0.2)])
def test_force_kernel_quotient_is_numpys(kind, s, delta, dtype):
    """On points in [-1, 1]^2 (normal forces, 140 quotients of distinct sums): force_sum with
    divisor=N - 1 is bit for bit NumPy's S / (N - 1) of the kernel's sum S (divisor 1), in the
    kernel's arithmetic (float32 computation for float32 input where c needs no pow, s = 1;
    else float64, a float32 output rounding the float64 quotient once): a division, not a
    product with the rounded reciprocal 1/69, which differs in the last bit on some of them."""
    inter = P.make_interaction(kind, s, delta)
    X = np.random.default_rng(92).uniform(-1, 1, size=(N, 2)).astype(dtype)
    args = _numba_args(inter)
    got = host(pk.force_sum(dev(X), *args, threads=THREADS, divisor=N - 1))
    assert got.dtype == dtype
    if dtype == np.float32 and pk.float32_computation(inter.family):
        S = host(pk.force_sum(dev(X), *args, threads=THREADS))
        np.testing.assert_array_equal(got, S / np.float32(N - 1))
    else:
        S = host(pk.force_sum(dev(X.astype(np.float64)), *args, threads=THREADS))
        np.testing.assert_array_equal(got, (S / (N - 1)).astype(dtype))


def _flushing_spy(monkeypatch, module, name, seen):
    """``module.name`` returning its result as a CuPy-like flushing array
    (``tests/cupy_ftz.FtzArray``); the results (plain copies) are appended to ``seen``."""
    real = getattr(module, name)

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.append(np.array(out))
        return out.view(cupy_ftz.FtzArray)

    monkeypatch.setattr(module, name, spy)


@pytest.mark.parametrize("d", [1, pk.MAX_D + 1])
@pytest.mark.parametrize("s,spacing", SUBNORMAL)
def test_force_row_does_no_array_arithmetic_after_the_kernel(fake_cupy, monkeypatch, s,
                                                             spacing, d):
    """interaction_force(float32, backend="cupy") through the registry's "cupy" row (NumPy
    standing in for CuPy, the kernels in the simulator): the kernel's output -- the tiled
    kernel for d <= MAX_D, the subnormal-keeping rounding ``cast`` of the device reference
    for d > MAX_D -- wrapped as a CuPy-like flushing array, is returned as it is, bit for bit:
    neither the row nor the public function divides by N - 1 in array code (which on CuPy
    flushes the end particles' subnormal forces to 0).  Those forces are nonzero subnormals
    within ``_quotient_tolerance`` of the reference."""
    monkeypatch.setattr(forces, "cupy_module", lambda: np)
    seen: list = []
    _flushing_spy(monkeypatch, pk, "force_sum", seen)
    _flushing_spy(monkeypatch, forces, "_in_dtype_of", seen)
    inter = P.make_interaction("none", s, 0.0)
    X = _subnormal_line(d, s, spacing)
    got = np.asarray(P.interaction_force(X, inter, backend="cupy")).view(np.ndarray)
    assert len(seen) == 1 and got.dtype == np.float32 and got.shape == (N, d)
    np.testing.assert_array_equal(got, seen[0])
    want, tol = _quotient_tolerance(X, inter)
    assert np.all(np.abs(got.astype(np.float64) - want) <= tol)
    F = got[[int(np.argmin(X[:, 0])), int(np.argmax(X[:, 0]))], 0]
    assert np.all((F != 0) & (np.abs(F) < TINY32)), F


def test_random_batch_row_does_no_array_arithmetic_after_the_kernel(fake_cupy, monkeypatch):
    """random_batch_force(float32, backend="cupy") with one batch of all N particles (the full
    force): the kernel weights each term by 1/(N - 1) itself, and its output, wrapped as a
    flushing array, comes back as it is: the float64 reference's values rounded to float32
    (the same bits where c needs no pow, s = 2), the end particles' subnormals kept."""
    monkeypatch.setattr(forces, "cupy_module", lambda: np)
    seen: list = []
    _flushing_spy(monkeypatch, pk, "random_batch", seen)
    inter = P.make_interaction("none", 2.0, 0.0)
    X = _subnormal_line(1, 2.0, 2.0 ** 42)
    perm = np.random.default_rng(91).permutation(N)
    got = np.asarray(P.random_batch_force(X, inter, batch_size=N, perm=perm,
                                          backend="cupy")).view(np.ndarray)
    assert len(seen) == 1 and got.dtype == np.float32
    np.testing.assert_array_equal(got, seen[0])
    want = _reference_random_batch(X.astype(np.float64), _Batches(perm, N), inter)
    np.testing.assert_array_equal(got, want.astype(np.float32))
    F = got[[int(np.argmin(X[:, 0])), int(np.argmax(X[:, 0]))], 0]
    assert np.all((F != 0) & (np.abs(F) < TINY32)), F
