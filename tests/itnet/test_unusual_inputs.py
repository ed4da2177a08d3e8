"""Valid but unusual inputs to the main entry points of yatmath.itnet.

Each array argument is passed in another valid form (``tests/unusual.py``: Fortran order, a strided
view, read-only, a nested list, a view into a larger buffer); the result must equal the plain
C-contiguous float64 call bit for bit, since the values are the same and the library brings every
array to one C-contiguous float64 layout before any arithmetic.  Integer and boolean arrays must
give exactly the float64 call on the same values, and 0-d arrays and NumPy scalars are accepted
wherever a Python scalar is.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import yatmath.itnet as it
from tests.unusual import assert_layout_variants_match, integral, variant_kinds

_R = np.random.default_rng(20240614)
N, D = 6, 2
NET = it.random_kernel_mlp(D, 1, width=5, L=2, rng=_R)
OP = it.ITNetOperator(NET, _R.normal(size=(D, D)))
MH = it.MultiHeadOperator([it.random_kernel_mlp(1, 2, width=4, L=2, rng=_R) for _ in range(2)],
                          _R.normal(size=(D, D)), np.eye(D))
X1 = np.sort(_R.uniform(size=(N, 1)), axis=0)
X2 = _R.uniform(size=(N, 2))
OM = _R.uniform(0.5, 1.5, N) / N
U = _R.normal(size=(N, D))
G = _R.normal(size=(N, D))
K4 = NET.kernel(X1, X1, U, U)
PHI = _R.normal(size=(N, 2, D))
LR = it.LowRankOperator(PHI, PHI, np.eye(D), 2, D)
A = _R.normal(size=(7,))


def _measure(x, w):
    return it.Measure(x, w)


#: (name, function of the array arguments, the plain arguments)
ENTRY_POINTS = [
    ("apply_dense", lambda x, w, u: it.apply(OP, u, _measure(x, w)), (X1, OM, U)),
    ("apply_dense_multihead", lambda x, w, u: it.apply(MH, u, _measure(x, w)), (X2, OM, U)),
    ("apply_tiled_numba", lambda x, w, u: it.apply(OP, u, _measure(x, w), mode="tiled", tile=4,
                                                   backend="numba"), (X1, OM, U)),
    ("apply_tiled_numpy", lambda x, w, u: it.apply(OP, u, _measure(x, w), mode="tiled", tile=(3, 4),
                                                   backend="numpy"), (X1, OM, U)),
    ("apply_mc", lambda x, w, u: it.apply(OP, u, _measure(x, w), mode="mc", M=3, rng=0,
                                          proposal="gaussian"), (X1, OM, U)),
    ("apply_mc_pmf_array", lambda q: it.apply(OP, U, _measure(X1, OM), mode="mc", M=3, rng=1,
                                              proposal=q), (np.full((N, N), 1.0 / N),)),
    ("apply_queries", lambda xq, uq: it.apply(OP, U, _measure(X1, OM), Xq=xq, Uq=uq),
     (X1[:4] + 0.01, U[:4])),
    ("apply_lowrank", lambda u: it.apply(LR, u, _measure(X1, OM), mode="lowrank"), (U,)),
    ("grad_dense", lambda u, g: it.grad(OP, u, _measure(X1, OM), g)["U"], (U, G)),
    ("grad_tiled", lambda u, g: it.grad(OP, u, _measure(X1, OM), g, mode="tiled", tile=4)["U"],
     (U, G)),
    ("kernel_tensor", lambda xq, xk, uq, uk: it.kernel_tensor(OP, xq, xk, uq, uk), (X1, X1, U, U)),
    ("apply_kernel_tensor", lambda k, u, w: it.apply_kernel_tensor(k, u, w, W=np.eye(D)), (K4, U, OM)),
    ("svd_factors", lambda k: it.svd_factors(k, 3)[0], (K4,)),
    ("fourier_lift", lambda x, b: it.fourier_lift(x, b), (X2, NET.B.repeat(2, axis=1))),
    ("gelu", lambda a: it.gelu(a), (A,)),
    ("gelu_prime_tanh", lambda a: it.gelu_prime(a, "tanh"), (A,)),
    ("discrete_uniform", lambda x: it.discrete_uniform(x).weights, (X2,)),
    ("integrate", lambda f: _measure(X1, OM).integrate(f), (U,)),
    ("mixed_difference", lambda u, a, b: it.mixed_difference(lambda V: V ** 2, u, 0, 1, 2, a, b, b, a),
     (U, G[0], G[1])),
]
IDS = [e[0] for e in ENTRY_POINTS]


@pytest.mark.parametrize("name, fn, args", ENTRY_POINTS, ids=IDS)
@settings(max_examples=6, deadline=None)
@given(kind=variant_kinds)
def test_layout_variants_give_the_plain_result_bit_for_bit(name, fn, args, kind):
    assert_layout_variants_match(name, fn, args, kind)


# integer / bool forms: positions and features of a few representable values
INTEGRAL_POINTS = [
    ("apply_dense", lambda x, u: it.apply(OP, u, it.discrete_uniform(x)), (X1 * 4, U)),
    ("apply_tiled", lambda x, u: it.apply(OP, u, it.discrete_uniform(x), mode="tiled", tile=4),
     (X1 * 4, U)),
    ("kernel_tensor", lambda x, u: it.kernel_tensor(OP, x, x, u, u), (X1 * 4, U)),
    ("gelu", lambda a: it.gelu(a), (A,)),
    ("integrate", lambda f: _measure(X1, OM).integrate(f), (U,)),
]


@pytest.mark.parametrize("name, fn, args", INTEGRAL_POINTS, ids=[e[0] for e in INTEGRAL_POINTS])
@pytest.mark.parametrize("ikind", ["int", "bool"])
def test_integer_and_bool_arrays_equal_the_float64_call(name, fn, args, ikind):
    conv = [integral(3 * a, kind=ikind) for a in args]
    ints, floats = [c[0] for c in conv], [c[1] for c in conv]
    want = np.asarray(fn(*floats))
    got = np.asarray(fn(*ints))
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("conv, iconv", [(np.float64, np.int64), (np.array, np.array),
                                         (np.int64, np.int32)])
def test_zero_d_scalars_for_real_and_integer_options(conv, iconv):
    """Reals accept NumPy scalars and 0-d arrays (of floats or ints); sizes NumPy integers and
    0-d integer arrays (a float size is refused: tests/badinput_itnet.py)."""
    ref = it.interval_rule("gauss", 5, 0, 2)
    got = it.interval_rule("gauss", iconv(5), conv(0), conv(2))
    np.testing.assert_array_equal(got.nodes, ref.nodes)
    np.testing.assert_array_equal(got.weights, ref.weights)
    np.testing.assert_array_equal(it.grid_rule("midpoint", (iconv(2), iconv(3))).nodes,
                                  it.grid_rule("midpoint", (2, 3)).nodes)
    np.testing.assert_array_equal(it.causal_mask(iconv(3), diag_weight=conv(1)),
                                  it.causal_mask(3, diag_weight=1.0))
    mu = _measure(X1, OM)
    np.testing.assert_array_equal(it.apply(OP, U, mu, mode="mc", M=iconv(4), rng=3),
                                  it.apply(OP, U, mu, mode="mc", M=4, rng=3))
    np.testing.assert_array_equal(it.apply(OP, U, mu, mode="tiled", tile=iconv(3)),
                                  it.apply(OP, U, mu, mode="tiled", tile=3))
    np.testing.assert_array_equal(it.gelu(conv(1)), it.gelu(1.0))


def test_seed_forms_give_the_same_stream():
    """The seed rule: an int, the same int as a NumPy integer, a SeedSequence of it and a fresh
    Generator from it draw the same Monte Carlo estimate and the same initialisation."""
    mu = _measure(X1, OM)
    outs = [it.apply(OP, U, mu, mode="mc", M=3, rng=r)
            for r in (5, np.int64(5), np.random.SeedSequence(5), np.random.default_rng(5))]
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    nets = [it.random_kernel_mlp(2, rng=r) for r in (9, np.random.default_rng(9))]
    np.testing.assert_array_equal(nets[0].W1, nets[1].W1)
