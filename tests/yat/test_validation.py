"""Bad input to yatmath.yat.product / gram / matvec, and the documented results for edge input.

Every error is a ValueError or TypeError (RuntimeError for a backend that is not available)
whose message names the offending argument; each test pins that with ``match=``.
"""
from __future__ import annotations

import numpy as np
import pytest

from yatmath import _array
from yatmath.yat import gram, matvec, product

CPU_BACKENDS = ["numpy", "numba"]
GRAM_PATHS = [("numpy", "auto"), ("numba", "direct"), ("numba", "expanded")]

X3 = np.arange(6.0).reshape(3, 2) / 7.0
W2 = np.arange(4.0).reshape(2, 2) / 5.0 + 0.1


def _call(fn, **override):
    """Call one of the three operations with valid arguments, some replaced by ``override``."""
    if fn == "product":
        kw = dict(w=W2[0], x=X3, eps=0.5)
        kw.update(override)
        return product(kw.pop("w"), kw.pop("x"), kw.pop("eps"), **kw)
    if fn == "gram":
        kw = dict(X=X3, W=W2, eps=0.5)
        kw.update(override)
        return gram(kw.pop("X"), kw.pop("W"), kw.pop("eps"), **kw)
    kw = dict(X=X3, Y=W2, v=np.ones(2), eps=0.5)
    kw.update(override)
    return matvec(kw.pop("X"), kw.pop("Y"), kw.pop("v"), kw.pop("eps"), **kw)


ARRAY_ARGS = [("product", "w"), ("product", "x"), ("gram", "X"), ("gram", "W"),
              ("matvec", "X"), ("matvec", "Y"), ("matvec", "v")]
FNS = ["product", "gram", "matvec"]


def _like(fn, arg, dtype=None, fill=None):
    """A valid value for ``arg`` of ``fn``, optionally cast or with one entry replaced."""
    base = {("product", "w"): W2[0], ("product", "x"): X3, ("gram", "X"): X3,
            ("gram", "W"): W2, ("matvec", "X"): X3, ("matvec", "Y"): W2,
            ("matvec", "v"): np.ones(2)}[fn, arg]
    a = np.array(base, dtype=dtype if dtype is not None else base.dtype)
    if fill is not None:
        a.flat[0] = fill
    return a


# ---------------------------------------------------------------- shapes

@pytest.mark.parametrize("w, x, match", [
    (np.float64(1.0), X3, r"w and x must have a feature axis"),
    (W2[0], np.float64(2.0), r"w and x must have a feature axis"),
    (np.ones(3), X3, r"w and x must have the same last dimension"),
    (np.ones((2, 3, 2)), np.ones((4, 2)), r"w and x leading shapes do not broadcast"),
])
def test_product_shapes(w, x, match):
    with pytest.raises(ValueError, match=match):
        product(w, x, 0.5)


def test_product_bias_must_broadcast():
    with pytest.raises(ValueError, match=r"bias of shape \(4,\) does not broadcast"):
        product(X3, X3, 0.5, bias=np.ones(4))


@pytest.mark.parametrize("fn, arg, value, match", [
    ("gram", "X", np.ones(3), r"X must be 2-D, got an array of shape \(3,\)"),
    ("gram", "X", np.ones((2, 2, 2)), r"X must be 2-D"),
    ("gram", "W", np.ones(2), r"W must be 2-D"),
    ("gram", "W", np.ones((2, 3)), r"X and W must have the same last dimension"),
    ("matvec", "X", np.ones(2), r"X must be 2-D"),
    ("matvec", "Y", np.ones((2, 2, 2)), r"Y must be 2-D"),
    ("matvec", "Y", np.ones((2, 3)), r"X and Y must have the same last dimension"),
    ("matvec", "v", np.ones(3), r"v must have 2 rows \(one per row of Y\)"),
    ("matvec", "v", np.ones((2, 2, 1)), r"v must be 1-D or 2-D"),
    ("matvec", "v", np.float64(1.0), r"v must be 1-D or 2-D"),
])
def test_matrix_shapes(fn, arg, value, match):
    with pytest.raises(ValueError, match=match):
        _call(fn, **{arg: value})


# ---------------------------------------------------------------- dtypes

@pytest.mark.parametrize("dtype", [np.complex128, object, np.str_, np.float16])
@pytest.mark.parametrize("fn, arg", ARRAY_ARGS)
def test_unsupported_dtypes(fn, arg, dtype):
    bad = _like(fn, arg).astype(dtype)
    with pytest.raises(TypeError, match=rf"{arg} must be a real float32/float64 \(or integer\) "
                                        rf"array, got dtype"):
        _call(fn, **{arg: bad})


@pytest.mark.parametrize("fn", FNS)
def test_bias_dtype(fn):
    with pytest.raises(TypeError, match=r"bias must be a real"):
        _call(fn, bias=np.array(1 + 1j))


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("fn", FNS)
def test_integer_and_bool_inputs_promote_to_float64(fn, backend):
    ints = {"product": dict(w=np.array([1, 2]), x=np.array([[3, -1], [0, 2]])),
            "gram": dict(X=np.array([[1, 2], [3, -1]]), W=np.array([[0, 2], [1, 1], [2, 5]])),
            "matvec": dict(X=np.array([[1, 2], [3, -1]]), Y=np.array([[0, 2], [1, 1]]),
                           v=np.array([1, -2]))}[fn]
    out = _call(fn, backend=backend, **ints)
    assert out.dtype == np.float64
    floats = _call(fn, backend=backend, **{k: v.astype(np.float64) for k, v in ints.items()})
    np.testing.assert_array_equal(out, floats)
    bools = {k: (v > 0) for k, v in ints.items()}
    assert _call(fn, backend=backend, **bools).dtype == np.float64


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("fn", FNS)
def test_float32_in_float32_out_and_mixed_gives_float64(fn, backend):
    args = {"product": ("w", "x"), "gram": ("X", "W"), "matvec": ("X", "Y", "v")}[fn]
    f32 = {a: _like(fn, a, np.float32) for a in args}
    assert _call(fn, backend=backend, **f32).dtype == np.float32
    for a in args:                              # any one float64 argument promotes
        mixed = dict(f32, **{a: _like(fn, a, np.float64)})
        assert _call(fn, backend=backend, **mixed).dtype == np.float64


# ---------------------------------------------------------------- eps

@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("eps", [0.0, -0.0, -1.0, -1e-300])
def test_eps_not_positive(fn, eps):
    with pytest.raises(ValueError, match=r"eps must be finite and > 0"):
        _call(fn, eps=eps)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("eps", [np.nan, np.inf, -np.inf])
def test_eps_not_finite(fn, eps):
    with pytest.raises(ValueError, match=r"eps must be finite and > 0"):
        _call(fn, eps=eps)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("eps", [None, "1", True, 1 + 0j, np.ones(2)])
def test_eps_not_a_real_number(fn, eps):
    with pytest.raises(TypeError, match=r"eps"):
        _call(fn, eps=eps)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("eps", [1e-300, 1e-46, 1e39, 1e300])
def test_eps_not_representable_in_float32(fn, eps):
    args = {"product": ("w", "x"), "gram": ("X", "W"), "matvec": ("X", "Y", "v")}[fn]
    f32 = {a: _like(fn, a, np.float32) for a in args}
    with pytest.raises(ValueError, match=r"eps=.* is not representable in float32"):
        _call(fn, eps=eps, **f32)
    # The same eps is fine once any input is float64 (the computation is then float64).
    mixed = dict(f32, **{args[0]: _like(fn, args[0], np.float64)})
    assert np.all(np.isfinite(_call(fn, eps=eps, **mixed)))


@pytest.mark.parametrize("fn", FNS)
def test_eps_accepts_numpy_scalars(fn):
    ref = _call(fn, eps=0.5)
    for eps in (np.float32(0.5), np.float64(0.5), np.array(0.5), np.int64(1) / 2):
        np.testing.assert_array_equal(_call(fn, eps=eps), ref)


# ---------------------------------------------------------------- non-finite inputs

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("fn, arg", ARRAY_ARGS)
def test_nonfinite_inputs_raise_by_default(fn, arg, bad):
    with pytest.raises(ValueError, match=rf"{arg} contains NaN or infinity; .*"
                                         rf"check_finite=False"):
        _call(fn, **{arg: _like(fn, arg, fill=bad)})


@pytest.mark.parametrize("method", ["expanded", "direct"])
@pytest.mark.parametrize("arg", ["X", "W"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_gram_single_nonfinite_entry_raises_on_every_path(rng, method, arg, bad):
    # the Numba expanded path detects non-finite rows through their norms: one bad entry in a
    # 300 x 40 array (d > DIRECT_MAX_D) must still be caught, and named
    X, W = rng.standard_normal((300, 40)), rng.standard_normal((250, 40))
    (X if arg == "X" else W)[123 if arg == "X" else 200, 17] = bad
    for backend in ("numpy", "numba"):
        with pytest.raises(ValueError, match=rf"{arg} contains NaN or infinity"):
            gram(X, W, 0.5, method=method, backend=backend)
    if arg == "X":
        with pytest.raises(ValueError, match=r"X contains NaN or infinity"):
            gram(X, None, 0.5, method=method, backend="numba")


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_gram_norm_overflow_is_not_mistaken_for_nonfinite_input(rng):
    # float32 rows of norm ~3e19 are finite, and so is K (~1e37), but the squared norms overflow
    # float32 (> 3.4e38): the norm-based check must fall back to scanning the entries and accept
    # them.  rtol: the float32 bound 4 (d+4) u32 (cond + 8) ~ 1e-5 (cond + 8), cond ~ 1 here.
    X = (rng.standard_normal((64, 40)) * 5e18).astype(np.float32)
    W = (rng.standard_normal((48, 40)) * 5e18).astype(np.float32)
    assert np.isinf(np.einsum("ij,ij->i", X, X)).any()
    G = gram(X, W, 0.5, method="expanded", backend="numba")
    ref = gram(X.astype(np.float64), W.astype(np.float64), 0.5, backend="numpy")
    assert np.all(np.isfinite(G))
    np.testing.assert_allclose(G, ref, rtol=1e-4)


@pytest.mark.parametrize("fn", FNS)
def test_nonfinite_bias_raises_by_default(fn):
    with pytest.raises(ValueError, match=r"bias contains NaN or infinity"):
        _call(fn, bias=np.nan)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("backend, method", GRAM_PATHS)
def test_check_finite_false_propagates_to_the_pairs_of_that_row(backend, method, bad, rng):
    """With check_finite=False a non-finite entry in X[i] (or W[j]) makes exactly the entries
    of row i (column j) non-finite; every other entry is the clean result, bit for bit."""
    X = rng.standard_normal((5, 20))
    W = rng.standard_normal((4, 20))
    clean = gram(X, W, 0.5, method=method, backend=backend)
    Xb, Wb = X.copy(), W.copy()
    Xb[2, 7] = bad
    Wb[1, 3] = bad
    G = gram(Xb, Wb, 0.5, method=method, backend=backend, check_finite=False)
    hit = np.zeros(G.shape, bool)
    hit[2, :] = hit[:, 1] = True
    assert not np.isfinite(G[hit]).any()
    np.testing.assert_array_equal(G[~hit], clean[~hit])
    # W=None: row and column i both
    S = gram(Xb, None, 0.5, method=method, backend=backend, check_finite=False)
    hit = np.zeros(S.shape, bool)
    hit[2, :] = hit[:, 2] = True
    assert not np.isfinite(S[hit]).any()
    np.testing.assert_array_equal(S[~hit], gram(X, None, 0.5, method=method,
                                               backend=backend)[~hit])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_check_finite_false_propagation_product_and_matvec(backend, rng):
    w = rng.standard_normal((4, 3))
    x = rng.standard_normal((4, 3))
    xb = x.copy()
    xb[1, 0] = np.nan
    p = product(w, xb, 0.5, backend=backend, check_finite=False)
    assert np.isnan(p[1]) and np.isfinite(np.delete(p, 1)).all()
    # matvec: a bad query row spoils its output row; a bad key row or weight spoils every row.
    X, Y, v = rng.standard_normal((5, 3)), rng.standard_normal((6, 3)), rng.standard_normal(6)
    clean = matvec(X, Y, v, 0.5, backend=backend)
    Xb = X.copy()
    Xb[3, 1] = np.inf
    out = matvec(Xb, Y, v, 0.5, backend=backend, check_finite=False)
    assert not np.isfinite(out[3])
    np.testing.assert_array_equal(np.delete(out, 3), np.delete(clean, 3))
    Yb = Y.copy()
    Yb[0, 2] = np.nan
    assert np.isnan(matvec(X, Yb, v, 0.5, backend=backend, check_finite=False)).all()
    vb = v.copy()
    vb[4] = np.nan
    assert np.isnan(matvec(X, Y, vb, 0.5, backend=backend, check_finite=False)).all()


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("fn", FNS)
def test_unknown_backend(fn):
    with pytest.raises(ValueError, match=r"backend must be one of \('auto', 'reference', "
                                         r"'numba', 'cupy', 'numpy'\), got 'torch'"):
        _call(fn, backend="torch")


@pytest.mark.skipif(_array.has_cupy(), reason="a CUDA device is present, so backend='cupy' "
                                                 "is available (tested in the gpu suites)")
@pytest.mark.parametrize("fn", FNS)
def test_cupy_backend_without_gpu(fn):
    with pytest.raises(RuntimeError, match=r"backend='cupy' needs CuPy and a CUDA device"):
        _call(fn, backend="cupy")


@pytest.mark.parametrize("fn", FNS)
def test_unknown_bias_mode(fn):
    with pytest.raises(ValueError, match=r"bias_mode must be one of \('inner', 'outer'\)"):
        _call(fn, bias=1.0, bias_mode="middle")


def test_unknown_method():
    with pytest.raises(ValueError, match=r"method must be one of \('auto', 'direct', "
                                         r"'expanded'\), got 'fast'"):
        gram(X3, W2, 0.5, method="fast")


@pytest.mark.parametrize("fn, bias, match", [
    ("gram", np.ones(3), r"bias must be a scalar or have length 2, got shape \(3,\)"),
    ("gram", np.ones((2, 1)), r"bias must be 0-D or 1-D"),
    ("matvec", np.ones(5), r"bias must be a scalar or have length 2"),
    ("product", np.ones((3, 2)), r"bias of shape \(3, 2\) does not broadcast"),
])
def test_wrong_bias_shape(fn, bias, match):
    with pytest.raises(ValueError, match=match):
        _call(fn, bias=bias)


@pytest.mark.parametrize("tile, exc", [
    (5, TypeError), ((1, 2, 3), TypeError), (("a", 2), TypeError), ((1.5, 2), TypeError),
    ((0, 3), ValueError), ((3, -1), ValueError)])
def test_bad_tile(tile, exc):
    with pytest.raises(exc, match=r"tile must be"):
        _call("matvec", tile=tile)


def test_gram_and_matvec_need_eps():
    with pytest.raises(TypeError, match=r"gram\(\) needs eps"):
        gram(X3, W2)
    with pytest.raises(TypeError, match=r"matvec\(\) needs eps"):
        matvec(X3, W2, np.ones(2))


# ---------------------------------------------------------------- empty inputs

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_product_empty(backend, dtype):
    out = product(np.ones((0, 3), dtype), np.ones(3, dtype), 0.5, backend=backend)
    assert out.shape == (0,) and out.dtype == dtype
    out = product(np.ones((2, 4, 0), dtype), np.ones((4, 0), dtype), 0.5, backend=backend)
    assert out.shape == (2, 4) and out.dtype == dtype and not out.any()   # K = 0 / eps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("backend, method", GRAM_PATHS)
def test_gram_empty(backend, method, dtype):
    kw = dict(method=method, backend=backend)
    for (B, n, d) in [(0, 4, 3), (3, 0, 3), (0, 0, 3), (3, 4, 0)]:
        G = gram(np.ones((B, d), dtype), np.ones((n, d), dtype), 0.5, **kw)
        assert G.shape == (B, n) and G.dtype == dtype and not G.any()
    assert gram(np.ones((0, 3), dtype), None, 0.5, **kw).shape == (0, 0)
    G = gram(np.ones((2, 0), dtype), np.ones((5, 0), dtype), 0.5, bias=np.arange(5.0), **kw)
    np.testing.assert_allclose(G, np.broadcast_to(np.arange(5.0) ** 2 / 0.5, (2, 5)),
                               rtol=4 * np.finfo(dtype).eps)          # d = 0: K = b^2 / eps


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("k", [None, 3])
def test_matvec_empty(backend, k):
    vshape = lambda m: (m,) if k is None else (m, k)     # noqa: E731
    tail = () if k is None else (k,)
    out = matvec(np.ones((0, 2)), np.ones((4, 2)), np.ones(vshape(4)), 0.5, backend=backend)
    assert out.shape == (0,) + tail
    out = matvec(np.ones((3, 2)), np.ones((0, 2)), np.ones(vshape(0)), 0.5, backend=backend)
    assert out.shape == (3,) + tail and not out.any()          # an empty sum is 0
    out = matvec(np.ones((3, 0)), np.ones((4, 0)), np.ones(vshape(4)), 0.5, backend=backend)
    assert out.shape == (3,) + tail and not out.any()          # d = 0: K = 0
