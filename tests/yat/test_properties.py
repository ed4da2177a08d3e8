"""The Yat properties of yatmath.testing.properties on every backend that runs here, and one
deliberately broken implementation per property that the properties must catch.

Backends come from the registry (``property_support.backends``: reference, numba; cupy where a
device is present).  Tolerances are the properties' own (their docstrings and messages state and
justify them); nothing here loosens them.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import yatmath.yat as yat
from yatmath import _registry
from yatmath.testing import properties as P
from yatmath.testing import strategies as S

from tests.property_support import backends, examples, raises_property, search_counterexample


def product_on(backend):
    return lambda w, x, eps: yat.product(w, x, eps, backend=backend)


def gram_on(backend, method="auto"):
    return lambda X, eps: yat.gram(X, None, eps, method=method, backend=backend)


GRAM_PATHS = [(b, m) for b in backends("yat.gram")
              for m in (("auto", "direct", "expanded") if b != "reference" else ("auto",))]


def test_single_row_operations_have_no_other_backend():
    """grad and the squashers are tested through their public functions, which take no
    backend: that covers every backend only while the reference is their one row."""
    for op in ("yat.grad", "yat.softermax", "yat.soft_sigmoid", "yat.soft_tanh"):
        assert [i.backend for i in _registry.implementations(op)] == ["reference"], op


# ---------------------------------------------------------------- self-regulation
@pytest.mark.parametrize("backend", backends("yat.product"))
@examples(3)
@given(case=S.yat_rays())
def test_self_regulation_limit(backend, case):
    w, u, eps, dt = case
    P.yat_self_regulation(product_on(backend), w, u, eps, dtype=dt)


def _product_missing_square(w, x, eps):
    w, x = np.asarray(w, np.float64), np.asarray(x, np.float64)
    return (w * x).sum(-1) ** 2 / (np.sqrt(((w - x) ** 2).sum(-1)) + eps)


def test_broken_product_is_caught_by_self_regulation():
    """||w - x|| instead of ||w - x||^2 in the denominator: K grows like r along rays."""
    case = search_counterexample(S.yat_rays(np.float64), lambda c: raises_property(
        "yat.self_regulation", P.yat_self_regulation, _product_missing_square, c[0], c[1],
        c[2], dtype=c[3]))
    assert case is not None


# ---------------------------------------------------------------- symmetry and PSD
@pytest.mark.parametrize("backend,method", GRAM_PATHS)
@examples(3)
@given(case=S.yat_point_sets())
def test_gram_symmetric_exactly(backend, method, case):
    X, eps = case
    P.yat_symmetric(gram_on(backend, method), X, eps, exact=True)


@pytest.mark.parametrize("backend", backends("yat.product"))
@examples(2)
@given(case=S.yat_point_sets())
def test_product_symmetric(backend, case):
    X, eps = case
    prod = product_on(backend)
    P.yat_symmetric(lambda Z, e: prod(Z[:, None, :], Z[None, :, :], e), X, eps)


@pytest.mark.parametrize("backend,method", GRAM_PATHS)
@examples(3)
@given(case=S.yat_point_sets())
def test_gram_psd(backend, method, case):
    X, eps = case
    P.yat_gram_psd(gram_on(backend, method), X, eps)


def _gram_sign_error(X, eps):
    X = np.asarray(X, np.float64)
    s = X @ X.T
    n2 = (X * X).sum(1)
    return s * s / (n2[:, None] + n2[None, :] + 2 * s + eps)      # ||x + y||^2: a sign error


def _gram_asymmetric(X, eps):
    X = np.asarray(X, np.float64)
    s = X @ X.T
    n2 = (X * X).sum(1)
    return s * s / (np.abs(2 * n2[:, None] - 2 * s) + eps)     # ||x_i||^2 used for ||x_j||^2


def test_broken_gram_is_caught_by_psd():
    case = search_counterexample(S.yat_point_sets(np.float64, min_n=3), lambda c: raises_property(
        "yat.gram_psd", P.yat_gram_psd, _gram_sign_error, c[0], c[1]))
    assert case is not None


def test_broken_gram_is_caught_by_symmetry():
    case = search_counterexample(S.yat_point_sets(np.float64, min_n=2), lambda c: raises_property(
        "yat.symmetric", P.yat_symmetric, _gram_asymmetric, c[0], c[1]))
    assert case is not None


# ---------------------------------------------------------------- gradients
@pytest.mark.parametrize("backend", backends("yat.product"))
@examples(2)
@given(case=S.yat_gradient_cases())
def test_gradient_matches_finite_differences(backend, case):
    w, x, eps = case
    P.yat_gradient_fd(yat.grad, product_on(backend), w, x, eps)


def _grad_sign_error(w, x, eps):
    g = yat.grad(w, x, eps)
    w, x = np.asarray(w, np.float64), np.asarray(x, np.float64)
    r = (w @ x) / (((w - x) ** 2).sum() + eps)
    return g.w, 2 * r * (w + r * (x - w))             # grad_x with the second term's sign flipped


def test_broken_gradient_is_caught():
    case = search_counterexample(S.yat_gradient_cases(), lambda c: raises_property(
        "yat.gradient_fd", P.yat_gradient_fd, _grad_sign_error, yat.product, *c))
    assert case is not None


# ---------------------------------------------------------------- attention
@pytest.mark.parametrize("backend", backends("yat.gram"))
@examples(3)
@given(case=S.attention_cases())
def test_attention_rows_sum_to_one(backend, case):
    Q, K, eps, causal, mask = case

    def att(Q, K, V, eps, **kw):
        return yat.attention(Q, K, V, eps, backend=backend, **kw)

    P.yat_attention_rows_sum_to_one(att, Q, K, eps, causal=causal, mask=mask)


@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
@examples(1)
@given(case=S.attention_cases(np.float64))
def test_attention_rows_sum_to_one_softermax_and_width_scale(normalize, case):
    Q, K, eps, causal, mask = case
    P.yat_attention_rows_sum_to_one(yat.attention, Q, K, eps, causal=causal, mask=mask,
                                    normalize=normalize, power=2.0, scale="d")


def _attention_ignoring_mask(Q, K, V, eps, causal=False, mask=None):
    return yat.attention(Q, K, V, eps)                 # forgets causal and mask


def test_broken_attention_is_caught():
    case = search_counterexample(S.attention_cases(np.float64), lambda c: raises_property(
        "yat.attention_rows_sum_to_one", P.yat_attention_rows_sum_to_one,
        _attention_ignoring_mask, c[0], c[1], c[2], causal=c[3], mask=c[4]))
    assert case is not None


# ---------------------------------------------------------------- squashers
@examples(3)
@given(x=S.nonnegative_arrays(), n=S.squash_powers(), delta=st.sampled_from([0.0, 1e-300, 0.5, 1e3]))
def test_softermax_is_a_subprobability(x, n, delta):
    P.softermax_simplex(yat.softermax, x, n, delta)


@examples(2)
@given(x=S.nonnegative_arrays(np.float64))
def test_softermax_hard_limit(x):
    row = x[0]
    if not row.max() > 0:
        row = np.append(row, 1.0)
    P.softermax_hard_limit(yat.softermax, row)


@examples(3)
@given(x=S.nonnegative_arrays(), n=S.squash_powers())
def test_soft_sigmoid_and_soft_tanh(x, n):
    P.soft_sigmoid_range_and_limits(yat.soft_sigmoid, x, n)
    P.soft_tanh_range_and_limits(yat.soft_tanh, yat.soft_sigmoid, x, n)


def _soft_sigmoid_wrong(x, n=1.0):
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.nan_to_num(x ** n / (1 + x) ** n, nan=1.0)   # (x/(1+x))^n, not x^n/(1+x^n)


def _softermax_wrong(x, n=1.0, delta=0.0, axis=-1):
    x = np.asarray(x, np.float64)
    e = np.exp(n * np.log(np.maximum(x, 1e-300)))
    return e / (delta + e.sum(axis, keepdims=True) + 1e-12)      # a stray 1e-12 "stabiliser"


def test_broken_squashers_are_caught():
    case = search_counterexample(st.tuples(S.nonnegative_arrays(np.float64), S.squash_powers()),
                                 lambda c: raises_property(
                                     "yat.soft_sigmoid_range_and_limits",
                                     P.soft_sigmoid_range_and_limits, _soft_sigmoid_wrong, *c))
    assert case is not None
    case = search_counterexample(S.nonnegative_arrays(np.float64), lambda x: raises_property(
        "yat.softermax_simplex", P.softermax_simplex, _softermax_wrong, x, 1.0, 0.0))
    assert case is not None


# ---------------------------------------------------------------- Lipschitz on the unit ball
@pytest.mark.parametrize("backend", backends("yat.product"))
@examples(3)
@given(case=S.unit_ball_cases())
def test_lipschitz_on_the_unit_ball(backend, case):
    w, X, Y, eps = case
    P.yat_lipschitz_unit_ball(product_on(backend), w, X, Y, eps)


def _product_eps_squared(w, x, eps):
    return yat.product(w, x, eps * eps)                # eps^2 where eps belongs


def test_broken_product_is_caught_by_lipschitz():
    case = search_counterexample(S.unit_ball_cases(), lambda c: c[3] < 1 and raises_property(
        "yat.lipschitz_unit_ball", P.yat_lipschitz_unit_ball, _product_eps_squared, *c))
    assert case is not None


# ---------------------------------------------------------------- E[K] = O(1) in d
@pytest.mark.parametrize("backend", backends("yat.product"))
@examples(0.1)
@given(case=S.yat_init_cases())
def test_expected_kernel_is_order_one_across_dimensions(backend, case):
    """d = 4..1024, 2000 pairs per d, seed from the example: failure probability <= 1e-6 per
    call for a correct product (yat.dim_scaling's level; derandomized under the ci profile)."""
    sigma, eps, seed = case
    P.yat_dim_scaling(product_on(backend), sigma, eps, seed=seed)


@examples(0.05)
@given(case=S.yat_init_cases())
def test_expected_kernel_is_order_one_in_float32(case):
    sigma, eps, seed = case
    P.yat_dim_scaling(yat.product, sigma, eps, seed=seed, dtype=np.float32,
                      dims=(4, 64, 1024), samples=1000)


def test_gaussian_init_bounds_are_d_independent_and_tight():
    """The bounds themselves: L_d <= U_d, both within [sigma^2/4, sigma^2] for d >= 4 and
    eps <= 2 sigma^2 d, and both -> sigma^2 / 2 (the O(1) limit) at rate O(1/d)."""
    d = np.array([4, 16, 256, 4096, 2 ** 20])
    for sigma in (0.5, 1.0, 2.0):
        for eps in (1e-3, 1.0, 10.0):
            lo, hi = P.gaussian_init_bounds(d, sigma, eps)
            assert np.all(lo <= hi) and np.all(hi <= sigma ** 2)
            assert abs(hi[-1] / (sigma ** 2 / 2) - 1) < 4 / d[-1]
            assert abs(lo[-1] / (sigma ** 2 / 2) - 1) < (2 + eps / (2 * sigma ** 2)) / d[-1]


def _product_cosine_squared(w, x, eps):
    w, x = np.asarray(w, np.float64), np.asarray(x, np.float64)
    return (w * x).sum(-1) ** 2 / ((w * w).sum(-1) * (x * x).sum(-1) + eps)   # ~1/d: vanishes


def test_broken_products_are_caught_by_dimension_scaling():
    """||w - x|| for ||w - x||^2 grows like sqrt(d); a squared-cosine normalisation vanishes
    like 1/d: neither is O(1), so the upper and the lower bound each catch one."""
    for broken, side in ((_product_missing_square, "above U_d"),
                         (_product_cosine_squared, "below L_d")):
        case = search_counterexample(S.yat_init_cases(), lambda c: raises_property(
            "yat.dim_scaling", P.yat_dim_scaling, broken, c[0], c[1], seed=c[2],
            dims=(4, 64, 1024), samples=500), max_examples=5)
        with pytest.raises(AssertionError, match=side):
            P.yat_dim_scaling(broken, case[0], case[1], seed=case[2], dims=(4, 64, 1024),
                              samples=500)


# ---------------------------------------------------------------- gradients against autodiff
AUTODIFF = P.autodiff_libraries()
needs_autodiff = pytest.mark.skipif(not AUTODIFF, reason="neither JAX nor PyTorch is installed "
                                    "(the finite-difference check above still runs)")


@needs_autodiff
@examples(1)
@given(case=S.yat_gradient_cases())
def test_gradient_matches_autodiff(case):
    """On every autodiff library installed here (JAX, PyTorch)."""
    w, x, eps = case
    for lib in AUTODIFF:
        P.yat_gradient_autodiff(yat.grad, w, x, eps, library=lib)


@needs_autodiff
def test_broken_gradient_is_caught_by_autodiff():
    for lib in AUTODIFF:
        case = search_counterexample(S.yat_gradient_cases(), lambda c: raises_property(
            "yat.gradient_autodiff", P.yat_gradient_autodiff, _grad_sign_error, *c,
            library=lib))
        assert case is not None
