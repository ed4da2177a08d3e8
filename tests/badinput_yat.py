"""Bad-input rows for ``yatmath.yat``, ``yatmath.features`` and ``yatmath.estimators`` (area "yat").

One row per (public callable, argument, bad value); the main entry points have a row per
argument class (shape, dtype/finiteness, range, option string, size, seed).  Run by
``tests/test_bad_input.py``.
"""
from __future__ import annotations

import numpy as np

import yatmath.estimators as E
import yatmath.features as F
import yatmath.yat as Y
from tests.badinput import Case

X3 = np.arange(6.0).reshape(3, 2) / 7.0
W2 = np.arange(4.0).reshape(2, 2) / 5.0 + 0.1
Q = np.random.default_rng(0).standard_normal((4, 3))
HUGE = 10 ** 7   # a (HUGE, HUGE) float64 matrix is 800 TB: refused before any allocation
NAN = np.array([[1.0, np.nan], [0.0, 1.0]])
PSD = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])


def _product(**kw):
    a = dict(w=W2[0], x=X3, eps=0.5)
    a.update(kw)
    return Y.product(a.pop("w"), a.pop("x"), a.pop("eps"), **a)


def _gram(**kw):
    a = dict(X=X3, W=W2, eps=0.5)
    a.update(kw)
    return Y.gram(a.pop("X"), a.pop("W"), a.pop("eps"), **a)


def _matvec(**kw):
    a = dict(X=X3, Y=W2, v=np.ones(2), eps=0.5)
    a.update(kw)
    return Y.matvec(a.pop("X"), a.pop("Y"), a.pop("v"), a.pop("eps"), **a)


def _grad(**kw):
    a = dict(w=W2[0], x=X3, eps=0.5)
    a.update(kw)
    return Y.grad(a.pop("w"), a.pop("x"), a.pop("eps"), **a)


def _layer(**kw):
    a = dict(X=X3, W=W2, eps=0.5)
    a.update(kw)
    return Y.layer_forward(a.pop("X"), a.pop("W"), a.pop("eps"), **a)


def _attn(**kw):
    a = dict(Q=Q, K=Q, V=Q[:, :2], eps=1.0)
    a.update(kw)
    return Y.attention(a.pop("Q"), a.pop("K"), a.pop("V"), a.pop("eps"), **a)


def _mha(**kw):
    a = dict(X=Q, Wq=np.ones((3, 4)), Wk=np.ones((3, 4)), Wv=np.ones((3, 4)), num_heads=2,
             eps=1.0)
    a.update(kw)
    return Y.multihead_attention(a.pop("X"), a.pop("Wq"), a.pop("Wk"), a.pop("Wv"), **a)


def _lin(**kw):
    a = dict(Q=Q, K=Q, V=Q[:, :2], feature_map=lambda Z: np.exp(Z))
    a.update(kw)
    return Y.linear_attention(a.pop("Q"), a.pop("K"), a.pop("V"), a.pop("feature_map"), **a)


def _conv(**kw):
    a = dict(image=np.ones((1, 5, 5)), filters=np.ones((2, 1, 2, 2)), eps=1.0)
    a.update(kw)
    return Y.conv2d(a.pop("image"), a.pop("filters"), a.pop("eps"), **a)


def _attn_cache():
    return Y.attention(Q, Q, Q[:, :2], 1.0, return_cache=True)[1]


def _mha_cache():
    return _mha(return_cache=True)[1]


def _layer_cache():
    return _layer(return_cache=True)[1]


def _yf(**kw):
    a = dict(d=3, num_features=8, eps=1.0)
    a.update(kw)
    return F.yat_features(a.pop("d"), a.pop("num_features"), **a)


def _pf(**kw):
    a = dict(d=3, num_features=4, kind="elu+1")
    a.update(kw)
    return F.positive_features(a.pop("d"), a.pop("num_features"), a.pop("kind"), **a)


def _rff(**kw):
    a = dict(d=3, num_features=4)
    a.update(kw)
    return F.rff(a.pop("d"), a.pop("num_features"), **a)


G5 = np.arange(1.0, 6.0)
OM5 = np.full(5, 0.2)
P5 = np.full(5, 0.2)


def _idisc(**kw):
    a = dict(g=G5, omega=OM5, num_samples=10, pmf=P5, rng=0)
    a.update(kw)
    return E.integrate_discrete(a.pop("g"), a.pop("omega"), a.pop("num_samples"), **a)


def _dvar(**kw):
    a = dict(g=G5, omega=OM5, pmf=P5, num_samples=10)
    a.update(kw)
    return E.discrete_variance(**a)


def _icont(**kw):
    a = dict(g=lambda y: y ** 2, sample=lambda M, r: r.random(M), density=lambda y: np.ones_like(y),
             num_samples=10, rng=0)
    a.update(kw)
    return E.integrate_continuous(a.pop("g"), a.pop("sample"), a.pop("density"),
                                  a.pop("num_samples"), **a)


def _qmc(**kw):
    a = dict(f=lambda u: u.sum(1), d=2, num_samples=8, rng=0)
    a.update(kw)
    return E.integrate_qmc(a.pop("f"), a.pop("d"), a.pop("num_samples"), **a)


def _rsvd(**kw):
    a = dict(A=np.eye(4), rank=2, rng=0)
    a.update(kw)
    return E.randomized_svd(a.pop("A"), a.pop("rank"), **a)


def _nys(**kw):
    a = dict(K=PSD, num_landmarks=2, rng=0)
    a.update(kw)
    return E.nystrom(a.pop("K"), a.pop("num_landmarks"), **a)


def _rows(func, arg, call, table):
    """One Case per (bad, exc, words) for ``call(**{arg: bad})``."""
    return [Case(func, arg, bad, (lambda b, _c=call, _a=arg: _c(**{_a: b})), exc, words, note)
            for bad, exc, words, note in table]


V, T = ValueError, TypeError
_SHAPE = "2-D"
ROWS: list[Case] = []

# ----------------------------------------------------------------------------------- yat kernel
ROWS += _rows("yatmath.yat.product", "w", _product, [
    (np.ones(3), V, ("same last dimension",), "d = 3 against x's d = 2"),
    (np.ones(2, dtype=complex), T, ("float32/float64",), ""),
    (np.float64(1.0), V, ("feature axis",), "a scalar has no feature axis"),
])
ROWS += [Case("yatmath.yat.product", "w", HUGE, lambda b: Y.product(
    np.broadcast_to(0.0, (b, 1, 2)), np.broadcast_to(0.0, (1, b, 2)), 1.0), MemoryError,
    ("needs", "blocks"), "w (1e7, 1, 2) against x (1, 1e7, 2): a (1e7, 1e7) result")]
ROWS += _rows("yatmath.yat.product", "x", _product, [
    (np.array([[1.0, np.nan]]), V, ("nan",), ""),
])
ROWS += [Case("yatmath.yat.product", "x", np.ones((2, 3, 2)),
              lambda b: Y.product(np.ones((4, 2)), b, 0.5), V, ("broadcast",),
              "leading shape (4,) against (2, 3)")]
ROWS += _rows("yatmath.yat.product", "eps", _product, [
    (0.0, V, ("> 0",), ""), (np.nan, V, ("finite",), ""), ("1", T, ("real",), "")])
ROWS += [Case("yatmath.yat.product", "eps", 1e-300,
              lambda b: Y.product(np.ones(2, np.float32), np.ones(2, np.float32), b), V,
              ("representable",), "eps = 1e-300 underflows to 0 in float32")]
ROWS += _rows("yatmath.yat.product", "bias", _product, [(np.ones(5), V, ("broadcast",), "")])
ROWS += _rows("yatmath.yat.product", "bias_mode", _product, [("middle", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.product", "backend", _product, [("nope", V, ("one of",), "")])

ROWS += _rows("yatmath.yat.gram", "X", _gram, [
    (np.ones(3), V, (_SHAPE,), ""), (NAN, V, ("nan",), ""),
    (np.array([["a", "b"]]), T, ("float32/float64",), "")])
ROWS += [Case("yatmath.yat.gram", "X", HUGE, lambda b: Y.gram(np.broadcast_to(0.0, (b, 2)),
                                                             None, 1.0),
              MemoryError, ("needs", "matvec", "tiles"),
              "W=None: a (1e7, 1e7) Gram matrix, 800 TB")]
ROWS += _rows("yatmath.yat.gram", "W", _gram, [
    (np.ones((2, 3)), V, ("same last dimension",), ""), (np.ones(2), V, (_SHAPE,), "")])
ROWS += _rows("yatmath.yat.gram", "eps", _gram, [
    (None, T, ("needs eps",), "eps has no default"), (-1.0, V, ("> 0",), ""),
    (np.inf, V, ("finite",), "")])
ROWS += _rows("yatmath.yat.gram", "bias", _gram, [
    (np.ones(3), V, ("length 2",), "one bias per row of W")])
ROWS += _rows("yatmath.yat.gram", "method", _gram, [("nope", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.gram", "bias_mode", _gram, [("nope", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.gram", "backend", _gram, [("nope", V, ("one of",), "")])

ROWS += _rows("yatmath.yat.matvec", "X", _matvec, [(np.ones((2, 3)), V, ("same last",), "")])
ROWS += _rows("yatmath.yat.matvec", "Y", _matvec, [(None, T, ("keys",), ""),
                                                   (np.ones((2, 2, 2)), V, (_SHAPE,), "")])
ROWS += _rows("yatmath.yat.matvec", "v", _matvec, [
    (np.ones(3), V, ("2 rows",), ""), (np.array([np.inf, 1.0]), V, ("nan or infinity",), "")])
ROWS += _rows("yatmath.yat.matvec", "eps", _matvec, [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.matvec", "tile", _matvec, [
    ((0, 4), V, (">= 1",), ""), ((2.5, 4), T, ("integer",), "sizes are not rounded"),
    (16, T, ("pair",), "")])
ROWS += _rows("yatmath.yat.matvec", "bias_mode", _matvec, [("nope", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.matvec", "backend", _matvec, [("nope", V, ("one of",), "")])

ROWS += _rows("yatmath.yat.grad", "x", _grad, [(np.ones(3), V, ("same last",), "")])
ROWS += _rows("yatmath.yat.grad", "w", _grad, [(np.ones(2, dtype=object), T, ("float",), "")])
ROWS += _rows("yatmath.yat.grad", "eps", _grad, [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.grad", "bias", _grad, [(np.ones(7), V, ("broadcast",), "")])
ROWS += _rows("yatmath.yat.grad", "bias_mode", _grad, [("middle", V, ("one of",), "")])

# ------------------------------------------------------------------------------ layer, attention
ROWS += _rows("yatmath.yat.layer_forward", "X", _layer, [
    (np.ones((2, 3)), V, ("same last",), ""), (np.ones((1, 1, 2)), V, ("1-d or 2-d",), ""),
    (NAN, V, ("nan",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "W", _layer, [
    (np.ones((0, 2)), V, ("at least one unit",), ""), (np.ones(2), V, (_SHAPE,), "")])
ROWS += _rows("yatmath.yat.layer_forward", "eps", _layer, [(-1.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "alpha", _layer, [
    (np.inf, V, ("finite",), ""), ("1", T, ("real",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "bias", _layer, [(np.ones(3), V, ("length 2",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "bias_mode", _layer, [("mid", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "scale_num", _layer, [("log", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "reduce", _layer, [("mean", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.layer_forward", "backend", _layer, [("nope", V, ("one of",), "")])
ROWS += [
    Case("yatmath.yat.layer_backward", "cache", object(), lambda b: Y.layer_backward(
        np.ones((3, 2)), b), T, ("LayerCache",)),
    Case("yatmath.yat.layer_backward", "G", np.ones((2, 3)), lambda b: Y.layer_backward(
        b, _layer_cache()), V, ("shape",), "the forward output is (3, 2)"),
    Case("yatmath.yat.layer_backward", "G", np.full((3, 2), np.nan), lambda b: Y.layer_backward(
        b, _layer_cache()), V, ("nan",)),
]
ROWS += _rows("yatmath.yat.width_scale", "n", Y.width_scale, [
    (0, V, (">= 1",), ""), (2.0, T, ("integer",), "not rounded"), (True, T, ("integer",), "")])
ROWS += _rows("yatmath.yat.width_scale", "alpha", lambda **k: Y.width_scale(4, **k), [
    (np.nan, V, ("finite",), "")])
ROWS += _rows("yatmath.yat.width_scale", "scale_num", lambda **k: Y.width_scale(4, **k), [
    ("sqrt", V, ("one of",), "")])

ROWS += _rows("yatmath.yat.attention", "Q", _attn, [
    (np.ones(3), V, ("at least 2-d",), ""), (np.ones((4, 2)), V, ("same last",), ""),
    (np.full((4, 3), np.inf), V, ("nan or infinity",), "")])
ROWS += _rows("yatmath.yat.attention", "V", _attn, [(np.ones((3, 2)), V, ("same number of rows",),
                                                     "")])
ROWS += _rows("yatmath.yat.attention", "eps", _attn, [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.attention", "causal", _attn, [
    ("yes", T, ("true or false",), "a string is not read by its truthiness")])
ROWS += _rows("yatmath.yat.attention", "normalize", _attn, [("sparsemax", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.attention", "scale", _attn, [
    (-1.0, V, ("> 0",), ""), ("n", V, ("one of",), "")])
ROWS += _rows("yatmath.yat.attention", "power", _attn, [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.attention", "delta", _attn, [(-1.0, V, (">= 0",), "")])
ROWS += _rows("yatmath.yat.attention", "scale_alpha", _attn, [
    (np.nan, V, ("finite",), "the exponent alpha of the width scale: any finite real (002 §3.4), "
                             "checked even with a numeric scale"),
    ("1", T, ("real number",), "")])
ROWS += [Case("yatmath.yat.attention", "scale_alpha", np.nan,
              lambda b: _attn(scale="d", scale_alpha=b), V, ("finite",), "with scale='d' (used)")]
ROWS += _rows("yatmath.yat.attention", "mask", _attn, [
    (np.ones((4, 4)), T, ("boolean",), ""), (np.ones((3, 4), bool), V, ("broadcast",), "")])
ROWS += _rows("yatmath.yat.attention", "backend", _attn, [("nope", V, ("one of",), "")])
ROWS += [Case("yatmath.yat.attention", "Q", HUGE, lambda b: Y.attention(
    np.broadcast_to(0.0, (b, 1)), np.broadcast_to(0.0, (b, 1)), np.broadcast_to(0.0, (b, 1)), 1.0),
    MemoryError, ("needs", "linear_attention"), "(1e7, 1e7) scores")]
ROWS += [
    Case("yatmath.yat.attention_backward", "cache", None, lambda b: Y.attention_backward(
        np.ones((4, 2)), b), T, ("AttentionCache",)),
    Case("yatmath.yat.attention_backward", "dO", np.ones((4, 3)), lambda b: Y.attention_backward(
        b, _attn_cache()), V, ("shape",)),
]
ROWS += _rows("yatmath.yat.multihead_attention", "num_heads", _mha, [
    (0, V, (">= 1",), ""), (2.0, T, ("integer",), ""), (3, V, ("divisible",), "4 columns")])
ROWS += _rows("yatmath.yat.multihead_attention", "Wq", _mha, [
    (np.ones((2, 4)), V, ("rows",), "d_model = 3")])
ROWS += _rows("yatmath.yat.multihead_attention", "Wo", _mha, [
    (np.ones((3, 2)), V, ("rows",), "H d_v = 4")])
ROWS += _rows("yatmath.yat.multihead_attention", "eps", _mha, [(np.nan, V, ("finite",), "")])
ROWS += _rows("yatmath.yat.multihead_attention", "scale_alpha", _mha, [
    (np.inf, V, ("finite",), "")])
ROWS += _rows("yatmath.yat.multihead_attention", "X", _mha, [(np.ones(3), V, ("2-d",), "")])
ROWS += [
    Case("yatmath.yat.multihead_attention_backward", "cache", 3, lambda b:
         Y.multihead_attention_backward(np.ones((4, 4)), b), T, ("MultiheadCache",)),
    Case("yatmath.yat.multihead_attention_backward", "dY", np.ones((4, 5)), lambda b:
         Y.multihead_attention_backward(b, _mha_cache()), V, ("shape",)),
]
ROWS += _rows("yatmath.yat.linear_attention", "Q", _lin, [(np.ones((4, 2)), V, ("same last",), "")])
ROWS += _rows("yatmath.yat.linear_attention", "V", _lin, [(np.ones((3, 2)), V, ("one row per key",),
                                                           "")])
ROWS += _rows("yatmath.yat.linear_attention", "feature_map", _lin, [
    ("elu", T, ("callable",), ""), (lambda Z: Z.sum(1), V, ("(n, F)",), "returns 1-D"),
    (lambda Z: np.full((Z.shape[0], 3), np.nan), V, ("nan", "rows of Q"),
     "returns NaN features: the output would be NaN"),
    (lambda Z: np.where(Z > 1.0, np.inf, 1.0), V, ("infinity", "finite"),
     "returns an infinite feature for some rows"),
    (lambda Z: np.exp(np.abs(Z)) * 1e300, V, ("overflow", "rescale"),
     "finite features so large that the float64 sums overflow")])
ROWS += _rows("yatmath.yat.linear_attention", "causal", _lin, [(1, T, ("true or false",), "")])
ROWS += _rows("yatmath.yat.linear_attention", "chunk", _lin, [
    (0, V, (">= 1",), ""), (64.0, T, ("integer",), "")])
ROWS += _rows("yatmath.yat.linear_attention", "K", _lin, [
    (np.full((4, 3), np.nan), V, ("nan",), "")])

ROWS += _rows("yatmath.yat.conv2d", "image", _conv, [
    (np.ones((5, 5)), V, ("3-d or 4-d",), ""), (np.full((1, 5, 5), np.inf), V, ("nan",), ""),
    (np.ones((2, 5, 5)), V, ("channels",), "filters expect 1 channel")])
ROWS += _rows("yatmath.yat.conv2d", "filters", _conv, [
    (np.ones((1, 2, 2)), V, ("4-d",), ""),
    (np.ones((1, 1, 9, 9)), V, ("dilated filter", "larger"), "a 9x9 filter on a 5x5 image")])
ROWS += _rows("yatmath.yat.conv2d", "eps", _conv, [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.conv2d", "stride", _conv, [(0, V, (">= 1",), ""),
                                                      ((1, 2, 3), V, ("pair",), "")])
ROWS += _rows("yatmath.yat.conv2d", "padding", _conv, [(-1, V, (">= 0",), "")])
ROWS += _rows("yatmath.yat.conv2d", "dilation", _conv, [(1.5, T, ("integer",), "")])
ROWS += _rows("yatmath.yat.conv2d", "backend", _conv, [
    ("nope", V, ("one of",), ""), ("numba", V, ("has no 'numba' implementation",), "refused, not ignored")])

ROWS += _rows("yatmath.yat.softermax", "x", Y.softermax, [
    (np.array([1.0, -0.1]), V, (">= 0",), ""), (1.0, V, ("scalar",), "")])
ROWS += _rows("yatmath.yat.softermax", "n", lambda **k: Y.softermax(np.ones(3), **k), [
    (0.0, V, ("> 0",), ""), ("two", T, ("real",), "")])
ROWS += _rows("yatmath.yat.softermax", "delta", lambda **k: Y.softermax(np.ones(3), **k), [
    (-1e-3, V, (">= 0",), "")])
ROWS += _rows("yatmath.yat.softermax", "axis", lambda **k: Y.softermax(np.ones(3), **k), [
    (2, V, ("out of range",), ""), (0.5, T, ("integer",), "not rounded")])
ROWS += _rows("yatmath.yat.soft_sigmoid", "x", Y.soft_sigmoid, [(-1.0, V, (">= 0",), "")])
ROWS += _rows("yatmath.yat.soft_sigmoid", "n", lambda **k: Y.soft_sigmoid(np.ones(3), **k), [
    (-2.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.yat.soft_tanh", "x", Y.soft_tanh, [(np.array([np.nan]), V, ("nan",), "")])
ROWS += _rows("yatmath.yat.soft_tanh", "n", lambda **k: Y.soft_tanh(np.ones(3), **k), [
    (np.inf, V, ("finite",), "")])

# ------------------------------------------------------------------------------------- features
for _name, _call in (("yatmath.features.rff", _rff),
                     ("yatmath.features.RandomFourierFeatures",
                      lambda **k: F.RandomFourierFeatures(**{"d": 3, "num_features": 4, **k}))):
    ROWS += _rows(_name, "d", _call, [(0, V, (">= 1",), ""), (3.0, T, ("integer",), "")])
    ROWS += _rows(_name, "num_features", _call, [(2.5, T, ("integer",), "not rounded")])
    ROWS += [Case(_name, "num_features", 5, (lambda b, _c=_call: _c(num_features=b,
                                                                     form="sincos")),
                  V, ("even",), "form='sincos' needs cos/sin pairs")]
    ROWS += _rows(_name, "gamma", _call, [(0.0, V, ("> 0",), ""), (np.nan, V, ("finite",), "")])
    ROWS += _rows(_name, "form", _call, [("cos", V, ("one of",), "")])
    ROWS += _rows(_name, "orthogonal", _call, [("yes", T, ("true or false",), "")])
    ROWS += _rows(_name, "rng", _call, [(-1, V, ("non-negative",), ""),
                                        ("seed", T, ("seedsequence",), "")])
ROWS += [Case("yatmath.features.RandomFourierFeatures.kernel", "X", np.ones((2, 4)),
              lambda b: _rff(rng=0).kernel(b, np.ones((2, 3))), V, ("3 columns",)),
         Case("yatmath.features.RandomFourierFeatures.kernel", "Y", np.ones(3),
              lambda b: _rff(rng=0).kernel(np.ones((2, 3)), b), V, ("2-d",))]
ROWS += _rows("yatmath.features.gaussian_frequencies", "d",
              lambda **k: F.gaussian_frequencies(**{"d": 3, "m": 4, **k}),
              [(0, V, (">= 1",), ""), (2.0, T, ("integer",), "")])
ROWS += _rows("yatmath.features.gaussian_frequencies", "m",
              lambda **k: F.gaussian_frequencies(**{"d": 3, "m": 4, **k}),
              [(-1, V, (">= 0",), ""), (HUGE ** 2, MemoryError, ("needs",), "1e14 x 3 floats")])
ROWS += _rows("yatmath.features.gaussian_frequencies", "scale",
              lambda **k: F.gaussian_frequencies(3, 4, **k), [(-1.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.gaussian_frequencies", "orthogonal",
              lambda **k: F.gaussian_frequencies(3, 4, **k), [("no", T, ("true or false",), "")])
ROWS += _rows("yatmath.features.gaussian_frequencies", "rng",
              lambda **k: F.gaussian_frequencies(3, 4, **k), [(1.5, T, ("seed",), "")])
ROWS += _rows("yatmath.features.gaussian_kernel", "X",
              lambda **k: F.gaussian_kernel(**{"X": Q, "Y": Q, "gamma": 1.0, **k}), [
                  (np.ones(3), V, ("2-d",), "a single point must be (1, d)"),
                  (np.full((2, 3), np.nan), V, ("nan",), "")])
ROWS += [Case("yatmath.features.gaussian_kernel", "Y", np.ones((2, 4)),
              lambda b: F.gaussian_kernel(Q, b, 1.0), V, ("same last",)),
         Case("yatmath.features.gaussian_kernel", "X", HUGE,
              lambda b: F.gaussian_kernel(np.broadcast_to(0.0, (b, 1)),
                                          np.broadcast_to(0.0, (b, 1)), 1.0),
              MemoryError, ("needs", "rff"), "(1e7, 1e7) kernel matrix")]
ROWS += _rows("yatmath.features.gaussian_kernel", "gamma",
              lambda **k: F.gaussian_kernel(Q, Q, **k), [
                  (0.0, V, ("> 0",), "a bandwidth of 0"), ("1", T, ("real",), "")])
ROWS += _rows("yatmath.features.orthogonal_gaussian", "d",
              lambda **k: F.orthogonal_gaussian(**{"d": 3, "m": 4, **k}), [(0, V, (">= 1",), "")])
ROWS += _rows("yatmath.features.orthogonal_gaussian", "m",
              lambda **k: F.orthogonal_gaussian(**{"d": 3, "m": 4, **k}),
              [(4.0, T, ("integer",), "")])
ROWS += _rows("yatmath.features.orthogonal_gaussian", "rng",
              lambda **k: F.orthogonal_gaussian(3, 4, **k), [(True, T, ("seed",), "")])
ROWS += _rows("yatmath.features.favor_plus", "d",
              lambda **k: F.favor_plus(**{"d": 3, "num_features": 4, **k}),
              [(-3, V, (">= 1",), "")])
ROWS += _rows("yatmath.features.favor_plus", "num_features",
              lambda **k: F.favor_plus(**{"d": 3, "num_features": 4, **k}),
              [(0, V, (">= 1",), "")])
ROWS += _rows("yatmath.features.favor_plus", "orthogonal", lambda **k: F.favor_plus(3, 4, **k),
              [("False", T, ("true, false",), "a string 'False' is truthy")])
ROWS += _rows("yatmath.features.favor_plus", "rng", lambda **k: F.favor_plus(3, 4, **k),
              [(-5, V, ("non-negative",), "")])
for _name, _call in (("yatmath.features.positive_features", _pf),
                     ("yatmath.features.PositiveFeatures",
                      lambda **k: F.PositiveFeatures(**{"d": 3, "num_features": 4, **k}))):
    ROWS += _rows(_name, "kind", _call, [("relu", V, ("one of",), "")])
    ROWS += _rows(_name, "d", _call, [(0, V, (">= 1",), "")])
    ROWS += _rows(_name, "num_features", _call, [(1.5, T, ("integer",), "")])
    ROWS += _rows(_name, "tau", _call, [(0.0, V, ("> 0",), "")])
    ROWS += _rows(_name, "floor", _call, [(-1e-6, V, ("> 0",), "")])
    ROWS += _rows(_name, "renorm", _call, [("nope", T, ("true, false or none",), "")])
    ROWS += _rows(_name, "floor_sigmoid", _call, [("nope", T, ("true or false",), "")])
    ROWS += _rows(_name, "n_scale_order", _call, [("first", V, ("one of",), "")])
    ROWS += _rows(_name, "orthogonal", _call, [(2, T, ("true, false or none",), "")])
    ROWS += _rows(_name, "omega", _call, [(np.ones((4, 3)), V, ("shape",), "(d, M) = (3, 4)"),
                                          (np.full((3, 4), np.nan), V, ("nan",), "")])
    ROWS += _rows(_name, "bias", _call, [(np.ones(3), V, ("shape",), "")])
    ROWS += _rows(_name, "rng", _call, [("0", T, ("seed",), "")])
for _meth in ("limit_kernel", "kernel"):
    ROWS += [Case(f"yatmath.features.PositiveFeatures.{_meth}", "X", np.ones(3),
                  (lambda b, _m=_meth: getattr(_pf(rng=0), _m)(b, Q)), V, ("2-d",)),
             Case(f"yatmath.features.PositiveFeatures.{_meth}", "Y", np.ones((2, 2)),
                  (lambda b, _m=_meth: getattr(_pf(rng=0), _m)(Q, b)), V, ("3 columns",)),
             Case(f"yatmath.features.PositiveFeatures.{_meth}", "nodes", 0,
                  (lambda b, _m=_meth: getattr(_pf(rng=0), _m)(Q, Q, nodes=b)), V, (">= 1",))]
for _name, _call in (("yatmath.features.yat_features", _yf),
                     ("yatmath.features.YatFeatures",
                      lambda **k: F.YatFeatures(**{"d": 3, "num_features": 8, "eps": 1.0, **k}))):
    ROWS += _rows(_name, "d", _call, [(0, V, (">= 1",), ""), (3.0, T, ("integer",), "")])
    ROWS += _rows(_name, "num_features", _call, [(0, V, (">= 1",), ""),
                                                 (8.0, T, ("integer",), "")])
    ROWS += _rows(_name, "eps", _call, [(0.0, V, ("> 0",), ""), (None, T, ("real",), "")])
    ROWS += _rows(_name, "bias", _call, [(-1.0, V, (">= 0",), ""), (np.nan, V, ("finite",), "")])
    ROWS += _rows(_name, "method", _call, [("nope", V, ("one of",), "")])
    ROWS += _rows(_name, "spherical", _call, [("yes", T, ("true or false",), "")])
    ROWS += _rows(_name, "rng", _call, [(-1, V, ("non-negative",), ""), ("s", T, ("seed",), "")])
ROWS += _rows("yatmath.features.yat_features", "poly", _yf, [("nope", V, ("one of",), "")])
ROWS += _rows("yatmath.features.yat_features", "t_rate", _yf, [(2.5, V, ("2*eps",), ""),
                                                                (0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.yat_features", "r2_max",
              lambda **k: _yf(method="laplace_quadrature", **k), [
                  (None, V, ("required",), "general inputs"), (-4.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.yat_features", "h",
              lambda **k: _yf(method="laplace_quadrature", r2_max=4.0, **k),
              [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.yat_features", "maclaurin_p",
              lambda **k: _yf(method="maclaurin", spherical=True, **k), [(1.0, V, ("> 1",), "")])
ROWS += _rows("yatmath.features.yat_features", "sphere_tol", _yf, [(-1e-5, V, ("> 0",), "")])
ROWS += [Case("yatmath.features.YatFeatures.kernel", "X", np.ones((2, 2)),
              lambda b: _yf(rng=0).kernel(b, Q), V, ("3 columns",)),
         Case("yatmath.features.YatFeatures.kernel", "Y", np.full((2, 3), np.inf),
              lambda b: _yf(rng=0).kernel(Q, b), V, ("nan or infinity",))]
ROWS += _rows("yatmath.features.laplace_nodes", "eps",
              lambda **k: F.laplace_nodes(**{"eps": 1.0, "r2_max": 4.0, **k}),
              [(-1.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.laplace_nodes", "r2_max",
              lambda **k: F.laplace_nodes(**{"eps": 1.0, "r2_max": 4.0, **k}),
              [(-1.0, V, (">= 0",), ""), (np.inf, V, ("finite",), "")])
ROWS += _rows("yatmath.features.laplace_nodes", "h", lambda **k: F.laplace_nodes(1.0, 4.0, **k),
              [(0.0, V, ("> 0",), ""), (1e-300, MemoryError, ("needs", "larger h"),
                                         "1e301 nodes")])
ROWS += _rows("yatmath.features.maclaurin_coefficients", "n_max",
              lambda **k: F.maclaurin_coefficients(**{"n_max": 4, "eps": 1.0, **k}),
              [(-1, V, (">= 0",), ""), (2.5, T, ("integer",), "not rounded"),
               (HUGE ** 2, MemoryError, ("needs",), "1e14 coefficients")])
ROWS += _rows("yatmath.features.maclaurin_coefficients", "eps",
              lambda **k: F.maclaurin_coefficients(**{"n_max": 4, "eps": 1.0, **k}),
              [(0.0, V, ("> 0",), "")])
ROWS += _rows("yatmath.features.maclaurin_coefficients", "bias",
              lambda **k: F.maclaurin_coefficients(4, 1.0, **k), [(np.nan, V, ("finite",), "")])

# ----------------------------------------------------------------------------------- estimators
ROWS += _rows("yatmath.estimators.mean_estimate", "samples", E.mean_estimate, [
    ([1.0], V, ("at least 2",), ""), (np.ones((3, 2, 2)), V, ("1-d or 2-d",), ""),
    ([1.0, np.nan], V, ("nan",), ""), (["a", "b"], T, ("float",), "")])
ROWS += _rows("yatmath.estimators.mean_estimate", "confidence",
              lambda **k: E.mean_estimate([1.0, 2.0], **k),
              [(1.5, V, ("< 1",), ""), (0.0, V, ("> 0",), ""), ("95%", T, ("real",), "")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "g", _icont, [
    (3, T, ("callable",), ""), (lambda y: np.full_like(y, np.nan), V, ("nan",), "g(y) is NaN")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "sample", _icont, [
    (None, T, ("callable",), ""), (lambda M, r: r.random(M + 1), V, ("first axis",), "")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "density", _icont, [
    (lambda y: -np.ones_like(y), V, ("> 0",), ""), (lambda y: np.ones(3), V, ("one value",), "")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "num_samples", _icont, [
    (1, V, (">= 2",), ""), (10.0, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "rng", _icont, [(-1, V, ("non-neg",), "")])
ROWS += _rows("yatmath.estimators.integrate_continuous", "confidence", _icont, [
    (1.0, V, ("< 1",), "")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "g", _idisc, [
    (np.ones(0), V, ("at least one",), ""), (np.ones((5, 2, 2)), V, ("1-d or 2-d",), "")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "omega", _idisc, [
    (-OM5, V, (">= 0",), ""), (np.ones(4), V, ("length 5",), "")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "pmf", _idisc, [
    (np.array([-0.2, 0.4, 0.4, 0.2, 0.2]), V, (">= 0",), ""), (2 * P5, V, ("sum to 1",), ""),
    (np.array([0.0, 0.25, 0.25, 0.25, 0.25]), V, ("> 0 wherever",), "biased")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "density", _idisc, [
    (P5, V, ("exactly one",), "with pmf= as well")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "num_samples", _idisc, [
    (1, V, (">= 2",), ""), (10.5, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "rng", _idisc, [(1.0, T, ("seed",), "")])
ROWS += _rows("yatmath.estimators.integrate_discrete", "confidence", _idisc, [
    (np.nan, V, ("finite",), "")])
ROWS += _rows("yatmath.estimators.discrete_variance", "g", _dvar, [
    (np.ones(0), V, ("at least one",), "zero-size")])
ROWS += _rows("yatmath.estimators.discrete_variance", "omega", _dvar, [
    (np.ones(3), V, ("length 5",), "mismatched")])
ROWS += _rows("yatmath.estimators.discrete_variance", "pmf", _dvar, [
    (np.full(4, 0.25), V, ("length 5",), "mismatched"), (np.ones(0), V, ("non-empty",), ""),
    (np.array([-0.2, 0.4, 0.4, 0.2, 0.2]), V, (">= 0",), "negative entries"),
    (np.array([0.0, 0.25, 0.25, 0.25, 0.25]), V, ("> 0 wherever",),
     "a zero where omega g != 0 would give a negative 'variance'")])
ROWS += _rows("yatmath.estimators.discrete_variance", "num_samples", _dvar, [
    (0, V, (">= 1",), "was a ZeroDivisionError"), (2.5, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.optimal_pmf", "g", lambda **k: E.optimal_pmf(**{
    "g": G5, "omega": OM5, **k}), [(np.zeros(5), V, ("zero integrand",), ""),
                                   (np.ones(0), V, ("at least one",), "")])
ROWS += _rows("yatmath.estimators.optimal_pmf", "omega", lambda **k: E.optimal_pmf(G5, **k), [
    (np.ones(4), V, ("length 5",), ""), (np.full(5, np.inf), V, ("nan or infinity",), "")])
ROWS += _rows("yatmath.estimators.density_from_pmf", "pmf",
              lambda **k: E.density_from_pmf(**{"pmf": P5, "omega": OM5, **k}), [
                  (np.array([-0.2, 0.4, 0.4, 0.2, 0.2]), V, (">= 0",), ""),
                  (np.ones(5), V, ("sum to 1",), "")])
ROWS += _rows("yatmath.estimators.density_from_pmf", "omega",
              lambda **k: E.density_from_pmf(P5, **k), [
                  (np.array([0.0, 1, 1, 1, 1]), V, ("no density",), "mass on a null key"),
                  (np.ones(4), V, ("length 5",), ""), (-OM5, V, (">= 0",), "")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "f", _qmc, [
    ("sum", T, ("callable",), ""), (lambda u: u, V, ("1-d",), "returns (M, d)")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "d", _qmc, [(0, V, (">= 1",), ""),
                                                              (2.0, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "num_samples", _qmc, [
    (0, V, (">= 1",), ""), (HUGE ** 2, MemoryError, ("needs",), "1e14 points")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "method", _qmc, [("lhs", V, ("one of",), "")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "randomizations", _qmc, [(1, V, (">= 2",), "")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "rng", _qmc, [(-2, V, ("non-negative",), "")])
ROWS += _rows("yatmath.estimators.integrate_qmc", "confidence", _qmc, [(2.0, V, ("< 1",), "")])
ROWS += _rows("yatmath.estimators.truncated_svd", "A", lambda **k: E.truncated_svd(**{
    "A": np.eye(3), "rank": 1, **k}), [
        (np.ones(3), V, ("2-d",), ""), (NAN, V, ("nan",), ""),
        (np.ones((0, 3)), V, ("at least one row",), "")])
ROWS += _rows("yatmath.estimators.truncated_svd", "rank", lambda **k: E.truncated_svd(
    np.eye(3), **k), [(0, V, (">= 1",), "was ignored"), (4, V, ("<= 3",), ""),
                      (1.0, T, ("integer",), "not rounded")])
ROWS += _rows("yatmath.estimators.randomized_svd", "A", _rsvd, [(np.ones(4), V, ("2-d",), "")])
ROWS += _rows("yatmath.estimators.randomized_svd", "rank", _rsvd, [(0, V, (">= 1",), "")])
ROWS += _rows("yatmath.estimators.randomized_svd", "oversample", _rsvd, [
    (1, V, (">= 2",), ""), (10.0, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.randomized_svd", "power_iters", _rsvd, [(-1, V, (">= 0",), "")])
ROWS += _rows("yatmath.estimators.randomized_svd", "rng", _rsvd, [("x", T, ("seed",), "")])
ROWS += _rows("yatmath.estimators.nystrom", "K", _nys, [
    (np.diag([1.0, -1.0, 2.0]), V, ("positive semidefinite",), "indefinite"),
    (np.triu(np.ones((3, 3))), V, ("symmetric",), ""), (np.ones((3, 2)), V, ("square",), "")])
ROWS += _rows("yatmath.estimators.nystrom", "num_landmarks", _nys, [
    (0, V, (">= 1",), ""), (4, V, ("<= 3",), ""), (2.0, T, ("integer",), "")])
ROWS += _rows("yatmath.estimators.nystrom", "sampling", _nys, [("norm", V, ("one of",), "")])
ROWS += _rows("yatmath.estimators.nystrom", "rank", _nys, [
    (2, V, ("leverage",), "ignored with uniform sampling before")])
ROWS += _rows("yatmath.estimators.nystrom", "rank", lambda **k: _nys(sampling="leverage", **k), [
    (0, V, (">= 1",), "rank=0 was ignored")])
ROWS += [Case("yatmath.estimators.nystrom", "rank", 1,
              lambda b: _nys(K=np.diag([1.0, 0.0, 0.0]), sampling="leverage", rank=b), V,
              ("num_landmarks",), "the rank-1 leverage scores live on one row, 2 landmarks")]
ROWS += _rows("yatmath.estimators.nystrom", "rng", _nys, [(np.float64(3.0), T, ("seed",), "")])

#: result records the library builds itself (no user-supplied arguments worth a row)
NOT_VALIDATED = {
    "yatmath.yat.YatGrad": "a result record returned by yatmath.yat.grad (a NamedTuple)",
    "yatmath.estimators.MCEstimate": "a result record returned by the Monte Carlo estimators",
    "yatmath.estimators.LowRank": "a result record returned by truncated_svd, randomized_svd "
                                  "and nystrom",
}
