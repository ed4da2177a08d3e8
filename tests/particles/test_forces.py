"""Pair interactions and forces (yatmath.particles.interactions / forces).

Tolerances: the pair terms are exact to a few ulps; backends sum over l in different orders,
so forces agree to ~ N u sum_l |term| / (N-1); we allow 1e-12 relative to the mean absolute
pair-term size (u = 1.1e-16, N <= 600, with margin), and 1e-6 relative for float32 outputs
(computed in float64, rounded once to float32: 6e-8 plus margin).
"""
import numpy as np
import pytest
import sympy as sp

from yatmath import _array
from yatmath.particles import (interaction_energy, interaction_force, interaction_potential,
                               make_interaction, random_batch_force)
from yatmath.particles.interactions import force_factor, gram, radial_fourier

CASES = [("none", 1.0, 0.0), ("none", 0.0, 0.0), ("none", -1.0, 0.0), ("none", 2.5, 0.0),
         ("plummer", 1.0, 0.3), ("plummer", 0.0, 0.2), ("plummer", -0.5, 0.1),
         ("hard", 1.0, 0.4), ("hard", 0.0, 0.4), ("hard", 3.0, 0.2)]


def _brute(X, inter):
    """Per-pair double loop: the definition, with the diagonal skipped."""
    N, d = X.shape
    F = np.zeros((N, d))
    P = np.zeros(N)
    for k in range(N):
        for l in range(N):
            if l != k:
                F[k] += inter.grad(X[k] - X[l])
                P[k] += inter.g_vec(X[k] - X[l])
    return F / (N - 1), P / (N - 1)


U64 = 2.0 ** -53


def potential_bound(X, inter, L=4):
    """The documented bound (``interaction_potential``'s docstring, "Accuracy") on |P_k - P'_k|
    for the reference potential computed by two array libraries (elementary functions hypot,
    log, pow within L ulps, their own summation orders): to first order in u,

        [(2N + 4L) S_k + 2 (4L (d - 1) + 2) M_k] u / (N - 1),

    S_k = sum_{l != k} |g_kl|, M_k = sum_{l != k} |rho dg/drho|_kl (rho = q = r^2 + delta^2 for
    Plummer, else r); the factor 1 + 1e-6 covers the second-order terms."""
    from yatmath.particles.interactions import norm

    X = np.asarray(X, np.float64).reshape(X.shape[0], -1)
    N, d = X.shape
    r = norm(X[:, None, :] - X[None, :, :])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = inter.g(r)
    half = 0.5 if inter.kind == "plummer" else 1.0      # g(q) = g(r^2 + delta^2): d/dlog q
    m = np.full_like(g, half) if inter.s == 0.0 else half * abs(inter.s) * np.abs(g)
    off = ~np.eye(N, dtype=bool)
    S = np.sum(np.abs(g), axis=1, where=off)
    M = np.sum(m, axis=1, where=off)
    return ((2 * N + 4 * L) * S + 2 * (4 * L * (d - 1) + 2) * M) * U64 / (N - 1) * (1 + 1e-6)


@pytest.mark.parametrize("kind,s,delta", CASES)
def test_potential_bound_covers_another_summation_order(kind, s, delta, rng):
    """The bound that the GPU tests assert on CuPy holds where only the summation order differs:
    the reference (NumPy's pairwise sum) against the per-pair loop (sequential, g_vec per
    pair); and it is not vacuous (well below the values themselves)."""
    X = rng.standard_normal((57, 3))
    inter = make_interaction(kind, s, delta)
    _, P0 = _brute(X, inter)
    P = interaction_potential(X, inter, backend="numpy")
    B = potential_bound(X, inter)
    assert np.all(np.abs(P - P0) <= B)
    assert np.all(B <= 1e-12 * (np.abs(P) + 1))


@pytest.mark.parametrize("kind,s,delta", CASES)
def test_gradient_is_derivative_of_g(kind, s, delta):
    """grad g against sympy's derivative of the printed formula, away from r = delta."""
    inter = make_interaction(kind, s, delta)
    w1, w2 = sp.symbols("w1 w2", real=True)
    r2 = w1 ** 2 + w2 ** 2
    S = sp.nsimplify(s)
    if kind == "plummer":
        q = r2 + sp.nsimplify(delta) ** 2
        g = -sp.log(q) / 2 if s == 0 else sp.sign(S) * q ** (-S / 2)
    else:
        g = -sp.log(r2) / 2 if s == 0 else sp.sign(S) * r2 ** (-S / 2)
    pts = np.array([[0.7, -0.3], [1.5, 2.0], [-0.9, 0.05]])
    for p in pts:
        want = [float(sp.diff(g, v).subs({w1: p[0], w2: p[1]})) for v in (w1, w2)]
        np.testing.assert_allclose(inter.grad(p), want, rtol=1e-13)
        np.testing.assert_allclose(inter.g_vec(p), float(g.subs({w1: p[0], w2: p[1]})), rtol=1e-13)


def test_hard_truncation_matches_a36():
    inter = make_interaction("hard", 2.0, 0.5)
    r = np.array([0.0, 0.1, 0.5, 0.8, 3.0])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(inter.g(r), np.minimum(r ** -2.0, 0.5 ** -2.0), rtol=1e-15)
    assert np.all(inter.grad(np.array([[0.3, 0.0], [0.0, 0.0]])) == 0.0)


def test_every_kernel_is_repulsive():
    """g decreases in r for every branch and softening (004: the signs make V_s repulsive)."""
    r = np.linspace(0.05, 5, 400)
    for kind, s, delta in CASES:
        gv = make_interaction(kind, s, delta).g(r)
        assert np.all(np.diff(gv) <= 0), (kind, s, delta)


def test_coulomb_means_d_minus_2():
    assert make_interaction("none", "coulomb", 0.0, d=3).s == 1.0
    assert make_interaction("plummer", "coulomb", 0.1, d=2).s == 0.0
    X = np.random.default_rng(0).standard_normal((50, 3))
    np.testing.assert_array_equal(interaction_force(X, "none", "coulomb", 0.0, backend="numpy"),
                                  interaction_force(X, "none", 1.0, 0.0, backend="numpy"))


@pytest.mark.parametrize("kind,s,delta", CASES)
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_force_and_potential_match_brute_force(kind, s, delta, backend, rng):
    X = rng.standard_normal((40, 3))
    inter = make_interaction(kind, s, delta)
    F0, P0 = _brute(X, inter)
    scale = np.mean(np.abs(F0)) + 1e-300
    F = interaction_force(X, kind, s, delta, backend=backend)
    assert np.max(np.abs(F - F0)) <= 1e-12 * scale
    P = interaction_potential(X, kind, s, delta, backend=backend)
    np.testing.assert_allclose(P, P0, rtol=1e-12, atol=1e-12 * np.mean(np.abs(P0)))


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("d", [1, 2, 3, 7])
def test_numba_symmetric_and_rows_match_reference(symmetric, d, rng):
    """Sizes that are not multiples of the tile/block sizes (32, 512)."""
    X = rng.standard_normal((613, d))
    ref = interaction_force(X, "plummer", 1.0, 0.05, backend="numpy", chunk=37)
    F = interaction_force(X, "plummer", 1.0, 0.05, backend="numba", symmetric=symmetric)
    assert np.max(np.abs(F - ref)) <= 1e-12 * np.mean(np.abs(ref))


def test_pair_symmetry_total_force_vanishes(rng):
    """g even => sum_k F_k = 0 (Newton's third law); roundoff-level for the symmetric kernel."""
    X = rng.standard_normal((700, 3))
    F = interaction_force(X, "none", 1.0, 0.0, backend="numba", symmetric=True)
    assert np.max(np.abs(F.sum(axis=0))) <= 1e-12 * np.abs(F).sum()


def test_force_is_gradient_of_energy(rng):
    """N grad_k W_{N,s} = (1/(N-1)) sum_l grad g = interaction_force_k (central differences)."""
    X = rng.standard_normal((12, 2))
    F = interaction_force(X, "plummer", 0.5, 0.3, backend="numpy")
    N, h = X.shape[0], 1e-6
    for k, j in [(0, 0), (5, 1), (11, 0)]:
        Xp, Xm = X.copy(), X.copy()
        Xp[k, j] += h
        Xm[k, j] -= h
        fd = (interaction_energy(Xp, "plummer", 0.5, 0.3) - interaction_energy(Xm, "plummer", 0.5, 0.3)) / (2 * h)
        assert abs(N * fd - F[k, j]) <= 1e-7 * np.abs(F).max()


def test_one_d_input_and_float32(rng):
    x = rng.standard_normal(300).astype(np.float32)
    F = interaction_force(x, "plummer", 0.0, 0.1, backend="numba")
    assert F.shape == (300,) and F.dtype == np.float32
    ref = interaction_force(x.astype(np.float64)[:, None], "plummer", 0.0, 0.1, backend="numpy")[:, 0]
    np.testing.assert_allclose(F, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


@pytest.mark.slow
def test_random_batch_is_unbiased(rng):
    """Mean over many batchings -> the direct force (batch size 2 and 5, N divisible)."""
    X = rng.standard_normal((20, 2))
    F = interaction_force(X, "plummer", 1.0, 0.5, backend="numpy")
    for p in (2, 5):
        R = 4000
        acc = np.zeros_like(F)
        sq = np.zeros_like(F)
        for t in range(R):
            Fb = random_batch_force(X, "plummer", 1.0, 0.5, batch_size=p, rng=t, backend="numba")
            acc += Fb
            sq += Fb ** 2
        mean = acc / R
        se = np.sqrt(np.maximum(sq / R - mean ** 2, 0) / R)
        # 5 standard errors per component (80 components): false alarm odds < 1e-4
        assert np.all(np.abs(mean - F) <= 5 * se + 1e-12)


def test_random_batch_backends_agree_and_remainder(rng):
    X = rng.standard_normal((103, 3))          # 103 = 51*2 + 1: last batch has 3 particles
    perm = rng.permutation(103)
    a = random_batch_force(X, "plummer", 1.0, 0.2, batch_size=2, perm=perm, backend="numpy")
    b = random_batch_force(X, "plummer", 1.0, 0.2, batch_size=2, perm=perm, backend="numba")
    np.testing.assert_array_equal(a, b)          # the documented promise: bit for bit
    # the last batch {p[-3], p[-2], p[-1]} is a 3-body direct force
    last = perm[-3:]
    np.testing.assert_allclose(a[last], interaction_force(X[last], "plummer", 1.0, 0.2, backend="numpy"),
                               rtol=1e-13)


def test_seeds_reproducible(rng):
    X = rng.standard_normal((64, 2))
    a = random_batch_force(X, "none", 1.0, 0.0, rng=7)
    b = random_batch_force(X, "none", 1.0, 0.0, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)


def test_symmetric_result_independent_of_threads(rng):
    import numba

    X = rng.standard_normal((500, 3))
    a = interaction_force(X, "none", 1.0, 0.0, backend="numba", symmetric=True)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = interaction_force(X, "none", 1.0, 0.0, backend="numba", symmetric=True)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(a, b)


def test_gram_and_fourier_diagnostics():
    """The diagnostics are finite, symmetric, carry g(0) on the diagonal, and the FFT of the
    Plummer profile matches its analytic peak value int g (trapezoid on the same grid)."""
    inter = make_interaction("plummer", 0.0, 0.2)
    f, spec = radial_fourier(inter, L=20.0, n=2048)
    assert np.all(np.isfinite(spec)) and spec.shape == f.shape
    x = (np.arange(2048) - 1024) * (40.0 / 2048)
    assert spec[np.argmin(np.abs(f))] == pytest.approx(np.sum(inter.g(np.abs(x))) * 40.0 / 2048, rel=1e-12)
    G = gram(np.linspace(-1, 1, 30), inter)
    assert np.allclose(G, G.T) and np.allclose(np.diag(G), inter.g(0.0))


@pytest.mark.parametrize("bad,match", [
    (dict(kind="soft"), "kind"), (dict(s=-2.0), "s must be > -2"), (dict(s="x"), "s must"),
    (dict(kind="plummer", delta=0.0), "delta"), (dict(kind="none", delta=0.1), "delta"),
    (dict(s="coulomb"), "dimension d")])
def test_bad_interaction_arguments(bad, match):
    kw = dict(kind="none", s=1.0, delta=0.0)
    kw.update(bad)
    with pytest.raises(ValueError, match=match):
        make_interaction(**kw)


def test_bad_force_arguments(rng):
    with pytest.raises(ValueError, match="omega"):
        interaction_force(np.zeros((1, 3)), "none", 1.0, 0.0)
    with pytest.raises(ValueError, match="omega"):
        interaction_force(np.zeros((2, 2, 2)), "none", 1.0, 0.0)
    with pytest.raises(ValueError, match="backend"):
        interaction_force(np.zeros((4, 2)), "none", 1.0, 0.0, backend="torch")
    with pytest.raises(ValueError, match="batch_size"):
        random_batch_force(np.zeros((4, 2)), "none", 1.0, 0.0, batch_size=1, rng=0)
    with pytest.raises(TypeError, match="rng"):
        random_batch_force(rng.standard_normal((4, 2)), "none", 1.0, 0.0, rng="seed")
    with pytest.raises(ValueError, match="NaN"):
        interaction_force(np.array([[0.0], [np.nan]]), "none", 1.0, 0.0)


@pytest.mark.gpu
def test_cupy_matches_numpy(rng):
    cp = _array.cupy_module()
    X = rng.standard_normal((1000, 3))
    for kind, s, delta in CASES:
        ref = interaction_force(X, kind, s, delta, backend="numpy")
        got = interaction_force(cp.asarray(X), kind, s, delta, backend="cupy")
        assert isinstance(got, cp.ndarray)
        assert np.max(np.abs(cp.asnumpy(got) - ref)) <= 1e-12 * np.mean(np.abs(ref))


@pytest.mark.parametrize("kind,s,delta", CASES + [("none", 2.0, 0.0), ("plummer", 0.7, 0.1)])
def test_random_batch_numpy_numba_bit_for_bit(kind, s, delta):
    """The docstring's promise for "numpy" against "numba", every batch size, d = 1, 2, 3, 9,
    N even and odd: bit for bit where c needs no pow (p = 3/2, 1, 1/2, 2: +, -, *, / and sqrt
    are correctly rounded on every CPU); for a general p, where NumPy's pow is chosen by CPU
    (AVX-512: a SIMD kernel) and Numba's is the C library's, each component within
    8 u sum_l |w c_kl (x_k - x_l)| (c within 5 ulps, one more rounding of each term).  An
    AVX-512 EPYC showed 1 ulp in c; without AVX-512 the two agree bit for bit."""
    inter = make_interaction(kind, s, delta)
    r = np.random.default_rng(5)
    for d in (1, 2, 3, 9):
        for N, bs in ((200, 2), (201, 2), (200, 3), (203, 5)):
            X = r.standard_normal((N, d))
            perm = r.permutation(N)
            a = random_batch_force(X, kind, s, delta, batch_size=bs, perm=perm, backend="numpy")
            b = random_batch_force(X, kind, s, delta, batch_size=bs, perm=perm, backend="numba")
            if inter.family != GENERAL_POWER:
                np.testing.assert_array_equal(a, b)
            else:
                bound = 8 * 2.0 ** -53 * _random_batch_term_sums(X, perm, bs, inter)
                assert np.all(np.abs(a - b) <= bound), np.max(np.abs(a - b) / bound)


#: The exponent family of c = a q^{-p} that goes through pow (``Interaction.family``).
GENERAL_POWER = 0


def _random_batch_term_sums(X, perm, bs, inter):
    """sum over particle k's batch of |w c_kl (x_k - x_l)| per component (w = 1/(|B| - 1))."""
    N = X.shape[0]
    nb = N // bs
    groups = [perm[b * bs:(b + 1) * bs] for b in range(nb - 1)] + [perm[(nb - 1) * bs:]]
    out = np.zeros_like(X)
    for g in groups:
        diff = X[g][:, None, :] - X[g][None, :, :]
        with np.errstate(divide="ignore"):
            c = force_factor((diff ** 2).sum(-1), inter)
        np.fill_diagonal(c, 0.0)
        out[g] = (np.abs(c)[:, :, None] * np.abs(diff)).sum(1) / (len(g) - 1)
    return out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_coincident_particles_bare_kernel(backend):
    """Two equal particles with a bare kernel: an error naming omega by default (the force is
    singular, and used to be NaN); coincident="singular" gives the force of the system with
    the coincident pair's term removed (its symmetric principal value 0) and the potential +inf."""
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, -1.0]])
    with pytest.raises(ValueError, match="omega has coincident particles 0 and 1"):
        interaction_force(X, backend=backend)
    with pytest.raises(ValueError, match="omega has coincident"):
        interaction_potential(X, "none", 0.0, backend=backend)
    F = interaction_force(X, backend=backend, coincident="singular")
    inter = make_interaction("none", 1.0, 0.0)
    want = np.zeros((4, 2))
    for k in range(4):
        for l in range(4):
            if l != k and not np.array_equal(X[k], X[l]):
                want[k] += inter.grad(X[k] - X[l])
    np.testing.assert_allclose(F, want / 3, rtol=1e-14)
    P = interaction_potential(X, backend=backend, coincident="singular")
    assert np.isposinf(P[:2]).all() and np.isfinite(P[2:]).all()
    assert interaction_energy(X, backend=backend, coincident="singular") == np.inf
    with pytest.raises(ValueError, match="omega has coincident"):
        random_batch_force(X, batch_size=4, rng=0, backend=backend)
    # softened kernels are finite at 0 and need no opt-in
    assert np.isfinite(interaction_force(X, "plummer", 1.0, 0.1, backend=backend)).all()


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_tiny_separations_give_the_true_force_not_nan(backend):
    """Particles 1e-170 apart: r^2 underflows to 0 in the fast path (inf * 0 = NaN before).
    Reference, exact in rescaled arithmetic: for g = r^{-s} the pair term is
    s r^{-s-2} w.  With s = -1.5 (c = 1.5 r^{-0.5}) the term is 1.5 r^{-0.5} w:
    w = (1e-170, 0) gives 1.5e-85 along x and exactly 0 along y."""
    X = np.array([[0.0, 0.0], [1e-170, 0.0]])
    F = interaction_force(X, "none", -1.5, 0.0, backend=backend)
    np.testing.assert_allclose(F[0], [1.5e-85, 0.0], rtol=1e-13)     # log-domain: ~u |log|
    np.testing.assert_allclose(F[1], [-1.5e-85, 0.0], rtol=1e-13)
    # s = 1: |term| = r^{-2} = 1e340 overflows float64: +-inf, and 0 (not NaN) along y
    F = interaction_force(X, "none", 1.0, 0.0, backend=backend)
    assert F[0, 0] == np.inf and F[1, 0] == -np.inf and np.all(F[:, 1] == 0.0)
    # the potential r^{-1} = 1e170 is finite (r^2 underflowed before: inf)
    P = interaction_potential(X, "none", 1.0, 0.0, backend=backend)
    np.testing.assert_allclose(P, [1e170, 1e170], rtol=1e-15)


def test_huge_coordinates_overflow_is_named():
    X = np.array([[1e308, 0.0], [-1e308, 0.0]])
    with pytest.raises(OverflowError, match="omega"):
        interaction_force(X, "none", -1.5, 0.0, backend="numpy")
