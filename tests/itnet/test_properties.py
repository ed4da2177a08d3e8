"""ITNet against yatmath.testing.properties on every backend that runs here (mode "tiled":
reference and numba; the dense, low-rank and Monte Carlo modes have the reference only), and one
deliberately broken implementation per property."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yatmath import itnet as it
from yatmath.itnet import mc as itmc
from yatmath.testing import properties as P
from yatmath.testing import strategies as S

from tests.property_support import backends, examples, raises_property, search_counterexample


def dense(op, U, mu, **kw):
    return it.apply(op, U, mu, mode="dense", **kw)


def test_backends_of_the_modes():
    assert "reference" in backends("itnet.apply.tiled")
    for mode in ("dense", "mc", "lowrank"):
        assert backends(f"itnet.apply.{mode}") == ["reference"]


# ---------------------------------------------------------------- tiled = dense
@pytest.mark.parametrize("backend", backends("itnet.apply.tiled"))
@pytest.mark.parametrize("factorised", [True, False])
@examples(3)
@given(case=S.itnet_problems(), single=st.booleans())
def test_tiled_equals_dense(backend, factorised, case, single):
    op, U, mu, tile, Xq, Uq = case
    if single and backend != "reference":
        U = U.astype(np.float32)           # float32 arithmetic: judged at u = 2^-24

    def tiled(op, U, mu, tile, **kw):
        return it.apply(op, U, mu, mode="tiled", tile=tile, factorised=factorised,
                        backend=backend, **kw)

    P.itnet_tiled_matches_dense(tiled, dense, op, U, mu, tile, Xq=Xq, Uq=Uq)


def _tiled_off_by_one(op, U, mu, tile, Xq=None, Uq=None):
    """Sums each key tile over range(j0, j1 - 1): the last key of every tile is dropped."""
    Xk = mu.nodes
    Xq, Uq = (Xk, U) if Xq is None else (Xq, Uq)
    K = it.kernel_tensor(op, Xq, Xk, Uq, U)
    out = Uq @ op.W.T
    mask = it.causal_mask(Xq.shape[0], Xk.shape[0], op.diag_weight) if op.causal else None
    for j0 in range(0, Xk.shape[0], tile[1]):
        j1 = min(j0 + tile[1], Xk.shape[0]) - 1
        if j1 <= j0:
            continue
        sl = slice(j0, j1)
        part = it.apply_kernel_tensor(K[:, sl], U[sl], mu.weights[sl], Uq=Uq,
                                      mask=None if mask is None else mask[:, sl])
        out = out + part
    return out


def test_broken_tiled_is_caught():
    case = search_counterexample(S.itnet_problems(), lambda c: raises_property(
        "itnet.tiled_matches_dense", P.itnet_tiled_matches_dense, _tiled_off_by_one, dense,
        c[0], c[1], c[2], c[3], Xq=c[4], Uq=c[5]))
    assert case is not None


# ---------------------------------------------------------------- low rank
@st.composite
def kernel_tensors(draw):
    op, U, mu, _, _, _ = draw(S.itnet_problems(max_n=12, separate_queries=False))
    K = it.kernel_tensor(op, mu.nodes, mu.nodes, U, U)
    r = draw(st.integers(1, min(K.shape[0] * K.shape[2], K.shape[1] * K.shape[3])))
    return K, r


@examples(3)
@given(case=kernel_tensors())
def test_svd_factors_are_eckart_young_optimal(case):
    K, r = case
    P.itnet_lowrank_optimal(it.svd_factors, K, r)


def _factors_with_wrong_block_layout(K, r):
    """The SVD of K.reshape(nq a, nk b) -- the (i, j, a, b) axes not brought to (i a, j b)."""
    nq, nk, a, b = K.shape
    U, s, Vt = np.linalg.svd(K.reshape(nq * a, nk * b), full_matrices=False)
    Phi = (U[:, :r] * s[:r]).reshape(nq, a, r).transpose(0, 2, 1)
    Psi = Vt[:r].reshape(r, nk, b).transpose(1, 0, 2)
    return Phi, Psi


def test_broken_lowrank_is_caught():
    case = search_counterexample(kernel_tensors(), lambda c: raises_property(
        "itnet.lowrank_optimal", P.itnet_lowrank_optimal, _factors_with_wrong_block_layout, *c))
    assert case is not None


# ---------------------------------------------------------------- Monte Carlo
@pytest.mark.parametrize("proposal,replace", [("uniform", True), ("measure", True),
                                              ("gaussian", True), ("uniform", False)])
@examples(0.3)
@given(case=S.itnet_problems(max_n=12, separate_queries=False), M=st.integers(1, 6))
def test_monte_carlo_is_unbiased(proposal, replace, case, M):
    """R = 300 replicates; a non-uniform proposal is mixed with the uniform pmf so that every key
    has q_j >= 20 / (R M): each key is drawn ~20 times or more over the run, the condition under
    which the t-test's level holds (a key of probability q with R M q ~ 1 is missed by a fixed
    fraction of runs, and the sample variance cannot see what was never drawn)."""
    op, U, mu, _, _, _ = case
    R = 300
    M = min(M, mu.n) if not replace else M
    mix = 0.0 if proposal == "uniform" else min(1.0, 20 * mu.n / (R * M))
    P.itnet_mc_unbiased(
        lambda seed: it.apply(op, U, mu, mode="mc", M=M, proposal=proposal, replace=replace,
                              eps_mix=mix, rng=seed),
        op, U, mu, replicates=R)


def _mc_forgetting_the_measure(op, U, mu, M, seed):
    """The 'pmf reading': importance weights 1/(M q) without omega_j."""
    Xk = mu.nodes
    I, _, _ = itmc.mc_integral(op, Xk, Xk, U, U, np.ones(mu.n), M=M, rng=seed)
    return I + U @ op.W.T


def test_broken_monte_carlo_is_caught():
    case = search_counterexample(S.itnet_problems(max_n=12, separate_queries=False),
                                 lambda c: raises_property(
                                     "itnet.mc_unbiased", P.itnet_mc_unbiased,
                                     lambda seed: _mc_forgetting_the_measure(c[0], c[1], c[2], 2,
                                                                             seed),
                                     c[0], c[1], c[2], replicates=100), max_examples=30)
    assert case is not None


# ---------------------------------------------------------------- linearity in u
LINEAR_PATHS = [("dense", "reference")] + [("tiled", b) for b in backends("itnet.apply.tiled")]


@pytest.mark.parametrize("mode,backend", LINEAR_PATHS)
@examples(1)
@given(case=S.itnet_linear_cases(), tile=st.tuples(st.integers(1, 7), st.integers(1, 7)))
def test_operator_is_linear_in_u_when_the_kernel_ignores_u(mode, backend, case, tile):
    op, U, V, a, b, mu = case

    def apply(op, W, mu):
        return it.apply(op, W, mu, mode=mode, backend=backend, tile=tile)

    P.itnet_linear_in_u(apply, op, U, V, a, b, mu)


def test_linearity_needs_a_kernel_that_ignores_u():
    rng = np.random.default_rng(0)
    op = it.ITNetOperator(it.random_kernel_mlp(2, 1, width=4, L=2, groups=("gx", "ux"), rng=rng),
                          np.eye(2))
    mu = it.discrete_uniform(np.linspace(0, 1, 5))
    with pytest.raises(ValueError, match="not linear"):
        P.itnet_linear_in_u(dense, op, np.ones((5, 2)), np.ones((5, 2)), 1.0, 1.0, mu)


def _apply_with_squashed_residual(op, U, mu):
    """W tanh(u) for the residual W u: a nonlinearity outside the kernel."""
    return it.apply(op, U, mu) + (np.tanh(U) - U) @ op.W.T


def test_broken_operator_is_caught_by_linearity():
    case = search_counterexample(S.itnet_linear_cases(), lambda c: raises_property(
        "itnet.linear_in_u", P.itnet_linear_in_u, _apply_with_squashed_residual, c[0], c[1],
        c[2], c[3], c[4], c[5]))
    assert case is not None


# ---------------------------------------------------------------- special cases vs direct
from yatmath.itnet.dense import apply_kernel_tensor  # noqa: E402
from yatmath.itnet.special import attention as sp_att  # noqa: E402
from yatmath.itnet.special import conv as sp_conv  # noqa: E402
from yatmath.itnet.special import recurrent as sp_rec  # noqa: E402


def conv_via_itnet(f, x, **options):
    return sp_conv.conv_kernel(f, x.shape[1:], **options).apply(x)


@examples(2)
@given(case=S.conv_problems(), weight=st.sampled_from([None, 1.0, 0.3]))
def test_conv_kernel_matches_direct_convolution(case, weight):
    f, x, opts = case
    P.itnet_conv_matches_direct(conv_via_itnet, f, x, weight=weight, **opts)


def _conv_never_flipped(f, x, convention="corr", **options):
    """The 'conv' convention evaluated as a cross-correlation (the filter flip forgotten)."""
    return sp_conv.conv_kernel(f, x.shape[1:], convention="corr", **options).apply(x)


def test_broken_convolution_is_caught():
    case = search_counterexample(S.conv_problems(), lambda c: raises_property(
        "itnet.conv_matches_direct", P.itnet_conv_matches_direct, _conv_never_flipped, c[0], c[1],
        **c[2]))
    assert case is not None


def ssm_via_itnet(A, B, C, U, convention, D):
    n = U.shape[0]
    return apply_kernel_tensor(sp_rec.linear_kernel(A, B, C, n, convention=convention), U,
                               np.ones(n), W=D)


@examples(2)
@given(case=S.ssm_problems())
def test_linear_rnn_kernel_matches_the_recurrence(case):
    A, B, C, U, D, convention = case
    P.itnet_ssm_matches_recurrence(ssm_via_itnet, A, B, C, U, convention=convention, D=D)


def _ssm_printed_kernel(A, B, C, U, convention, D):
    """003 eq. 163 as printed, C A^(t-s) B for s < t, whatever the convention asked for."""
    n = U.shape[0]
    return apply_kernel_tensor(sp_rec.linear_kernel(A, B, C, n, convention="printed"), U,
                               np.ones(n), W=D)


def test_printed_ssm_kernel_is_caught():
    """The library keeps the printed kernel for comparison (recurrent.py); it matches neither
    convention's recurrence, and the property says so."""
    case = search_counterexample(S.ssm_problems(), lambda c: raises_property(
        "itnet.ssm_matches_recurrence", P.itnet_ssm_matches_recurrence, _ssm_printed_kernel,
        c[0], c[1], c[2], c[3], convention=c[5], D=c[4]))
    assert case is not None


def attention_via_itnet(kind):
    make = sp_att.attention_kernel if kind == "softmax" else sp_att.linear_attention_kernel

    def evaluate(U, Wq, Wk, Wv, omega, causal, dw):
        n = U.shape[0]
        K = make(U, Wq, Wk, Wv, omega, causal=causal, diag_weight=dw)
        return apply_kernel_tensor(K, U, omega, mask=it.causal_mask(n, n, dw) if causal else None)
    return evaluate


@pytest.mark.parametrize("kind", ["softmax", "linear"])
@examples(2)
@given(case=S.attention_problems())
def test_attention_kernel_matches_direct_attention(kind, case):
    U, Wq, Wk, Wv, omega, causal, dw = case
    P.itnet_attention_matches_direct(attention_via_itnet(kind), U, Wq, Wk, Wv, omega,
                                     causal=causal, diag_weight=dw, kind=kind)


@examples(1)
@given(case=S.attention_problems())
def test_attention_kernel_is_standard_attention_under_uniform_weights(case):
    """omega = 1/n: the docstring's 'exactly softmax(Q K^T / sqrt d_k) V' (the direct reference
    with log(1/n) added to every score is scipy's softmax of the scores themselves)."""
    U, Wq, Wk, Wv, _, causal, _ = case
    n = U.shape[0]
    P.itnet_attention_matches_direct(attention_via_itnet("softmax"), U, Wq, Wk, Wv,
                                     np.full(n, 1.0 / n), causal=causal)


def _attention_normalised_uniformly(U, Wq, Wk, Wv, omega, causal, dw):
    """Z_i computed with the uniform weights 1/n whatever the measure: rows no longer sum to 1
    under omega."""
    n = U.shape[0]
    K = sp_att.attention_kernel(U, Wq, Wk, Wv, np.full(n, 1.0 / n), causal=causal, diag_weight=dw)
    return apply_kernel_tensor(K, U, omega, mask=it.causal_mask(n, n, dw) if causal else None)


def test_broken_attention_kernel_is_caught():
    case = search_counterexample(S.attention_problems(), lambda c: raises_property(
        "itnet.attention_matches_direct", P.itnet_attention_matches_direct,
        _attention_normalised_uniformly, *c[:5], causal=c[5], diag_weight=c[6]))
    assert case is not None
