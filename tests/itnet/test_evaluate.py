"""Evaluation modes of yatmath.itnet: tiled == dense, Monte Carlo, low rank, initialisation."""
import numpy as np
import pytest

from yatmath import itnet as it
from yatmath.itnet import mc


def _setup(rng, n=29, d=3, s=2, heads=1, causal=False, dw=1.0, gelu="exact", groups=it.GROUPS):
    X = rng.uniform(size=(n, s))
    mu = it.Measure(X, rng.uniform(0.5, 1.5, n) / n)          # non-uniform omega
    if heads == 1:
        net = it.random_kernel_mlp(d, s, width=8, L=3, gelu=gelu, groups=groups, rng=rng)
        op = it.ITNetOperator(net, rng.normal(size=(d, d)), causal, dw)
    else:
        nets = [it.random_kernel_mlp(d // heads, s, width=6, L=2, rng=rng) for _ in range(heads)]
        op = it.MultiHeadOperator(nets, rng.normal(size=(d, d)), rng.normal(size=(d, d)), causal, dw)
    return op, mu, rng.normal(size=(n, d))


# float64: the tiled sum differs from the dense einsum only in summation order and in the
# angle-difference evaluation of gamma(x - y): a few ulps per term, ~1e-15 relative here.
TILES = [(1, 1), (1, 29), (29, 1), (4, 4), (5, 7), (7, 5), (13, 16), (28, 3), (29, 29), (64, 64)]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("causal,dw", [(False, 1.0), (True, 1.0), (True, 0.5), (True, 0.0)])
def test_tiled_equals_dense_all_tile_shapes(rng, backend, causal, dw):
    op, mu, U = _setup(rng, causal=causal, dw=dw)
    O = it.apply(op, U, mu)
    for tile in TILES:
        for fac in (True, False):
            Ot = it.apply(op, U, mu, mode="tiled", tile=tile, factorised=fac, backend=backend)
            assert np.abs(Ot - O).max() <= 1e-12 * np.abs(O).max(), (tile, fac)


@pytest.mark.parametrize("groups", [("ux", "uy"), ("gd", "dist"), ("gx", "uxuy"), it.GROUPS])
def test_tiled_input_group_subsets_and_tanh_gelu(rng, groups):
    op, mu, U = _setup(rng, gelu="tanh", groups=groups)
    O = it.apply(op, U, mu)
    Ot = it.apply(op, U, mu, mode="tiled", tile=(6, 5), backend="numba")
    assert np.abs(Ot - O).max() <= 1e-12 * np.abs(O).max()


def test_tiled_multihead_separate_queries_and_float32(rng):
    op, mu, U = _setup(rng, d=4, heads=2)
    Xq, Uq = rng.uniform(size=(11, 2)), rng.normal(size=(11, 4))
    O = it.apply(op, U, mu, Xq=Xq, Uq=Uq)
    Ot = it.apply(op, U, mu, Xq=Xq, Uq=Uq, mode="tiled", tile=(3, 8))
    assert np.abs(Ot - O).max() <= 1e-12 * np.abs(O).max()
    # float32 inputs: float32 arithmetic, error ~ (#terms) * 2^-24 relative; 1e-4 is ~10x margin
    op1, mu1, U1 = _setup(rng)
    O64 = it.apply(op1, U1, mu1)
    O32 = it.apply(op1, U1.astype(np.float32), mu1, mode="tiled", tile=(8, 8), backend="numba")
    assert O32.dtype == np.float32
    assert np.abs(O32 - O64).max() <= 1e-4 * np.abs(O64).max()


def test_printed_initialisation(rng):
    n, d = 50, 4
    op = it.init_itnet(d, 1, n_keys=n, width=32, L=8, rng=rng)
    net = op.kernel
    assert np.array_equal(op.W, np.eye(d)) and np.all(net.b1 == 0)
    assert net.b2.reshape(d, d) == pytest.approx(np.eye(d) / n)
    assert net.W1.std() == pytest.approx(0.02, rel=0.05)
    assert net.W2.std() == pytest.approx(1e-3 / np.sqrt(32), rel=0.1)
    # at init the output is ~ ubar + u_i (the W2 h term is ~1e-3 smaller): H.3.1
    mu = it.discrete_uniform(np.linspace(0, 1, n))
    U = rng.normal(size=(n, d))
    O = it.apply(op, U, mu)
    assert np.abs(O - (U.mean(0) / n + U)).max() < 1e-3 * np.abs(U).max()


def test_mc_unbiased_with_discrete_measure_factor(rng):
    """Mean of R independent estimates within 4 standard errors of the exact integral, with the
    standard error from the exact variance formula; the pmf reading without omega is biased."""
    op, mu, U = _setup(rng, n=20, d=2)
    Xk, om = mu.nodes, mu.weights
    I = it.apply(op, U, mu) - U @ op.W.T
    K = it.kernel_tensor(op, Xk, Xk, U, U)
    g = np.einsum("ijab,jb->ija", K, U)
    q = mc.proposal_pmf("gaussian", Xk, Xk, om, scale=0.3, eps_mix=0.01)
    M, R = 4, 3000
    est = np.array([mc.mc_integral(op, Xk, Xk, U, U, om, M=M, q=q, rng=r)[0] for r in range(R)])
    i = 3
    V = mc.trace_variance(g[i], om, q[i], M)
    se = np.sqrt(V / R)
    assert np.linalg.norm(est[:, i].mean(0) - I[i]) < 4 * se * np.sqrt(2)   # d = 2 components
    # empirical trace variance matches the formula within 5 of its own standard errors (the
    # squared errors are heavy-tailed under a peaked proposal, so their sd is estimated, not assumed)
    sq = ((est[:, i] - I[i]) ** 2).sum(1)
    assert abs(sq.mean() - V) < 5 * sq.std() / np.sqrt(R)
    # the "pmf reading" (no omega) estimates sum_j g_j, not sum_j omega_j g_j: off by ~n
    pmf_read = (est[:, i].mean(0)) / om.mean()
    assert np.linalg.norm(pmf_read - I[i]) > 5 * np.linalg.norm(I[i])


def test_mc_optimal_pmf_minimises_variance(rng):
    g, c = rng.normal(size=(30, 3)), rng.uniform(0.1, 1, 30) / 30
    qs = mc.optimal_pmf(g, c)
    Vs = mc.trace_variance(g, c, qs)
    assert Vs == pytest.approx(mc.optimal_variance(g, c), rel=1e-12)
    for _ in range(20):
        q = mc.softmax(rng.normal(size=30))
        assert mc.trace_variance(g, c, q) >= Vs
    # one-signed scalar integrand: zero variance at q*
    g1 = np.abs(rng.normal(size=(30, 1)))
    assert abs(mc.trace_variance(g1, c, mc.optimal_pmf(g1, c))) < 1e-15


def test_mc_without_replacement_and_anchors(rng):
    op, mu, U = _setup(rng, n=16, d=2)
    I = it.apply(op, U, mu) - U @ op.W.T
    # M = n without replacement visits every key once: exact
    O = it.apply(op, U, mu, mode="mc", M=16, replace=False, rng=0)
    assert np.abs(O - U @ op.W.T - I).max() < 1e-12 * np.abs(I).max()
    reps, W = mc.kmeans_anchors(mu.nodes, mu.weights, 16, rng=0)
    assert W.sum() == pytest.approx(mu.total) and len(set(reps)) == len(reps)


def test_lowrank_global_z_exact_and_causal(rng):
    n, d, r = 25, 3, 4
    mu = it.Measure(rng.uniform(size=(n, 1)), rng.uniform(size=n) / n)
    U = rng.normal(size=(n, d))
    for causal, dw in ((False, 1.0), (True, 0.5)):
        lr = it.LowRankOperator(it.init_factor_mlp(d, 1, r, width=8, L=3, rng=rng),
                                it.init_factor_mlp(d, 1, r, width=8, L=3, rng=rng),
                                rng.normal(size=(d, d)), r, d, causal=causal, diag_weight=dw)
        Od = it.apply(lr, U, mu, mode="dense")
        assert np.abs(it.apply(lr, U, mu, mode="lowrank") - Od).max() <= 1e-13 * np.abs(Od).max()


def test_lowrank_svd_full_rank_exact_and_eckart_young(rng):
    op, mu, U = _setup(rng, n=12, d=2)
    K = it.kernel_tensor(op, mu.nodes, mu.nodes, U, U)
    O = it.apply(op, U, mu)
    lr = it.LowRankOperator(*it.svd_factors(K, 24), op.W, 24, 2)
    assert np.abs(it.apply(lr, U, mu, mode="lowrank") - O).max() <= 1e-12 * np.abs(O).max()
    rep = it.lowrank.spectrum_report(K)
    for r in (1, 5, 10):
        Phi, Psi = it.svd_factors(K, r)
        Kr = np.einsum("ira,jrb->ijab", Phi, Psi)
        err = np.linalg.norm(it.lowrank.kernel_matrix(K - Kr))
        assert err == pytest.approx(rep["err_fro"][r - 1], rel=1e-10)
        assert err <= rep["prop12_bound"][r - 1]
        # ALS reaches the optimum (up to its convergence)
        assert it.lowrank.als_fit(K, r, iters=200, rng=0)[2][-1] <= err * (1 + 1e-3)


def test_modes_reject_bad_input(rng):
    op, mu, U = _setup(rng)
    with pytest.raises(ValueError, match="mode"):
        it.apply(op, U, mu, mode="fast")
    with pytest.raises(ValueError, match="U must have shape"):
        it.apply(op, U[:, :2], mu)
    with pytest.raises(ValueError, match="tile"):
        it.apply(op, U, mu, mode="tiled", tile=(0, 4))
    with pytest.raises(ValueError, match="needs M"):
        it.apply(op, U, mu, mode="mc")
    with pytest.raises(ValueError, match="M"):
        it.apply(op, U, mu, mode="mc", M=0)
    with pytest.raises(ValueError, match="U contains NaN"):
        it.apply(op, np.full_like(U, np.nan), mu)
    with pytest.raises(TypeError, match="measure"):
        it.apply(op, U, mu.nodes)
    with pytest.raises(ValueError, match="LowRankOperator"):
        it.apply(op, U, mu, mode="lowrank")
    with pytest.raises(ValueError, match="W1 must have shape"):
        op.kernel.with_params(W1=np.zeros((3, 3)))


@pytest.mark.gpu
def test_tiled_cupy_equals_dense(rng):  # pragma: no cover - needs a CUDA device
    import cupy as cp
    op, mu, U = _setup(rng)
    O = it.apply(op, U, mu)
    Og = it.apply(op, cp.asarray(U), mu, mode="tiled", tile=(5, 7))
    assert np.abs(cp.asnumpy(Og) - O).max() <= 1e-12 * np.abs(O).max()
