"""Valid but unusual inputs to the main entry points of yatmath.yat / features / estimators.

Each array argument is passed in another valid form (``tests/unusual.py``: Fortran order, a
strided view, read-only, a nested list, a view into a larger buffer); the result must equal the
plain C-contiguous float64 call bit for bit, since no arithmetic changes.  Integer and boolean
arrays must give exactly the float64 call on the same values (they are promoted to float64 before
any arithmetic), and 0-d arrays are accepted wherever a scalar is.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import yatmath.estimators as E
import yatmath.features as F
import yatmath.yat as Y
from tests.unusual import assert_layout_variants_match, integral, variant_kinds

_R = np.random.default_rng(20240613)
X = _R.standard_normal((7, 3))
W = _R.standard_normal((5, 3))
V5 = _R.standard_normal((5, 2))
IMG = _R.standard_normal((2, 6, 6))
FIL = _R.standard_normal((3, 2, 3, 3))
SAMPLES = _R.standard_normal((40, 2))
G = _R.uniform(0.5, 2.0, size=(6, 2))
OM = _R.uniform(0.1, 1.0, size=6)
PMF = np.full(6, 1.0 / 6)
A = _R.standard_normal((6, 4))
K = Y.gram(X, None, 1.0, bias=1.0)        # PSD (inner-biased Yat kernel, exactly symmetric)
PHI = F.rff(3, 16, rng=1)

#: (name, function of the array arguments, the plain arguments)
ENTRY_POINTS = [
    ("product", lambda w, x: Y.product(w, x, 0.5), (W[0], X)),
    ("gram", lambda x, w: Y.gram(x, w, 0.5), (X, W)),
    ("gram_expanded", lambda x, w: Y.gram(x, w, 0.5, method="expanded"), (X, W)),
    ("matvec", lambda x, y, v: Y.matvec(x, y, v, 0.5), (X, W, V5)),
    ("grad", lambda w, x: Y.grad(w, x, 0.5).w, (W[0], X)),
    ("layer_forward", lambda x, w: Y.layer_forward(x, w, 0.5), (X, W)),
    ("attention", lambda q, k, v: Y.attention(q, k, v, 0.5), (X, W, V5)),
    ("linear_attention", lambda q, k, v: Y.linear_attention(q, k, v, PHI), (X, W, V5)),
    ("conv2d", lambda i, f: Y.conv2d(i, f, 0.5, padding=1), (IMG, FIL)),
    ("softermax", lambda x: Y.softermax(x, 2.0), (np.abs(X),)),
    ("gaussian_kernel", lambda x, y: F.gaussian_kernel(x, y, 0.7), (X, W)),
    ("rff_map", lambda x: PHI(x), (X,)),
    ("yat_features_map", lambda x: F.yat_features(3, 16, eps=1.0, rng=2)(x), (X,)),
    ("mean_estimate", lambda s: E.mean_estimate(s).stderr, (SAMPLES,)),
    ("discrete_variance", lambda g, o, p: E.discrete_variance(g, o, p, 7), (G, OM, PMF)),
    ("optimal_pmf", lambda g, o: E.optimal_pmf(g, o), (G, OM)),
    ("truncated_svd", lambda a: E.truncated_svd(a, 2).s, (A,)),
    ("nystrom", lambda k: E.nystrom(k, 3, rng=0).s, (K,)),
]
IDS = [e[0] for e in ENTRY_POINTS]


@pytest.mark.slow
@pytest.mark.parametrize("name, fn, args", ENTRY_POINTS, ids=IDS)
@settings(max_examples=8, deadline=None)
@given(kind=variant_kinds)
def test_layout_variants_give_the_plain_result_bit_for_bit(name, fn, args, kind):
    assert_layout_variants_match(name, fn, args, kind)


INTEGRAL_POINTS = [e for e in ENTRY_POINTS if e[0] not in ("nystrom", "discrete_variance")]


@pytest.mark.parametrize("name, fn, args", INTEGRAL_POINTS, ids=[e[0] for e in INTEGRAL_POINTS])
@pytest.mark.parametrize("ikind", ["int", "bool"])
def test_integer_and_bool_arrays_equal_the_float64_call(name, fn, args, ikind):
    conv = [integral(3 * a, kind=ikind) for a in args]
    ints, floats = [c[0] for c in conv], [c[1] for c in conv]
    try:
        want = np.asarray(fn(*floats))
    except ValueError as exc:        # e.g. an all-zero bool integrand: the same error for ints
        with pytest.raises(ValueError, match=str(exc)[:20]):
            fn(*ints)
        return
    got = np.asarray(fn(*ints))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("scalar", [0.5, np.float64(0.5), np.array(0.5), np.float32(0.5), 1])
def test_zero_d_and_numpy_scalars_for_eps(scalar):
    want = Y.gram(X, W, 0.5 if scalar != 1 else 1.0)
    np.testing.assert_array_equal(Y.gram(X, W, scalar), want)
    np.testing.assert_array_equal(Y.product(W[0], X, scalar),
                                  Y.product(W[0], X, float(scalar)))


@pytest.mark.parametrize("conv", [np.float64, np.array, np.int64, int])
def test_zero_d_scalars_for_real_options(conv):
    np.testing.assert_array_equal(Y.softermax(np.abs(X), n=conv(2)), Y.softermax(np.abs(X), n=2.0))
    assert Y.width_scale(4, alpha=conv(2)) == Y.width_scale(4, alpha=2.0)
    np.testing.assert_array_equal(F.gaussian_kernel(X, W, conv(2)), F.gaussian_kernel(X, W, 2.0))


@pytest.mark.parametrize("conv", [np.int64, np.int32, np.array, int])
def test_numpy_and_zero_d_integers_for_integer_options(conv):
    """Sizes accept any integer type (NumPy integers, 0-d integer arrays); floats are refused
    (tests/badinput_yat.py), never rounded."""
    assert Y.width_scale(conv(4)) == Y.width_scale(4)
    np.testing.assert_array_equal(E.truncated_svd(A, conv(2)).s, E.truncated_svd(A, 2).s)
    np.testing.assert_array_equal(F.maclaurin_coefficients(conv(5), 1.0),
                                  F.maclaurin_coefficients(5, 1.0))


def test_seed_forms_give_the_same_stream():
    """The seed rule: an int, the same int as a NumPy integer, a SeedSequence of it and a fresh
    Generator from it all draw the same features."""
    Z = [F.rff(3, 8, rng=r)(X) for r in (5, np.int64(5), np.random.SeedSequence(5),
                                         np.random.default_rng(5))]
    for z in Z[1:]:
        np.testing.assert_array_equal(z, Z[0])
