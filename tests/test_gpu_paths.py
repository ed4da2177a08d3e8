"""CuPy paths of yatmath.yat not covered elsewhere, each compared with the NumPy reference.

Already covered (and not repeated here): gram on CuPy inputs with a separate W
(test_yat_properties), product/gram/matvec against mpmath (test_yat_accuracy, K @ I only),
attention (single head), conv2d, layer, grad, squashers (their own test files).

Added here: matvec with general v (1-D and k columns), tiles that do not divide the sizes, and
biases; product with broadcasting; gram with W=None (the exact-symmetry mirror of the CuPy
branch); NumPy inputs with ``backend="cupy"`` (copied to the device and back); multi-head
attention forward and backward; linear attention (plain and causal, chunked).

Tolerances for product/gram/matvec are the accuracy bound of ``yatmath/yat/kernel.py``, through
the helpers of test_yat_properties (one definition: the Numba parity tests use the same ones).
All tests need CuPy and a CUDA device (``@pytest.mark.gpu``; skipped otherwise by conftest).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yatmath import _backend as be
from yatmath.yat import (gram, linear_attention, matvec, multihead_attention,
                         multihead_attention_backward, product)

from test_yat_properties import (SETTINGS, U64, _bound, _parity_tol, _u,  # noqa: E402
                                 broadcast_cases, gram_cases)

pytestmark = pytest.mark.gpu


def _cp():
    return be.cupy_module()


def _dev(a):
    return None if a is None else _cp().asarray(a)


def _host(a):
    assert be.is_cupy_array(a), f"expected a CuPy result, got {type(a).__name__}"
    return a.get()


def _matvec_bound(X, Y, v, eps, bias, mode, dtype):
    """|y_gpu - y_numpy| bound: per-entry kernel bounds times |v|, two float64 summations of
    m terms, and the rounding of both results to the dtype (as for the Numba matvec)."""
    m = Y.shape[0]
    tol = _parity_tol(X, Y, eps, bias, mode, dtype)
    _, K = _bound(X, Y, eps, bias, mode, U64)
    if mode == "outer" and bias is not None:
        K = K + np.abs(bias.astype(np.float64))[None, :]
    V = np.abs(v.astype(np.float64))
    V = V[:, None] if V.ndim == 1 else V
    g = 2 * (m + 1) * U64
    bound = tol @ V + g * (K + tol) @ V
    return (bound + 2 * _u(dtype) * (K @ V + bound)) * (1 + 2.0 ** -40)


@settings(max_examples=40, **SETTINGS)
@given(case=gram_cases(max_rows=20), k=st.sampled_from([None, 1, 3]),
       tile=st.tuples(st.integers(1, 9), st.integers(1, 9)))
def test_cupy_matvec_matches_numpy_reference(case, k, tile):
    X, Y, eps, bias, mode, dtype = case
    m = Y.shape[0]
    v = np.random.default_rng(m * 7 + X.shape[1]).standard_normal(
        (m,) if k is None else (m, k)).astype(dtype)
    kw = dict(bias_mode=mode or "inner")
    ref = matvec(X, Y, v, eps, bias, backend="numpy", **kw)
    got = matvec(_dev(X), _dev(Y), _dev(v), eps, _dev(bias), tile=tile, **kw)
    got = _host(got)
    assert got.shape == ref.shape == (X.shape[0],) + v.shape[1:] and got.dtype == dtype
    bound = _matvec_bound(X, Y, v, eps, bias, mode, dtype)
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64)).reshape(bound.shape)
    assert np.all(err <= bound)


@settings(max_examples=40, **SETTINGS)
@given(case=broadcast_cases())
def test_cupy_product_matches_numpy_reference(case):
    w, x, eps, dtype = case
    try:
        lead = np.broadcast_shapes(w.shape[:-1], x.shape[:-1])
    except ValueError:
        return  # shapes that do not broadcast are tested for the error elsewhere
    ref = product(w, x, eps, backend="numpy")
    got = _host(product(_dev(w), _dev(x), eps))
    assert got.shape == ref.shape == lead and got.dtype == dtype
    d = w.shape[-1]
    P = int(np.prod(lead))
    W2 = np.broadcast_to(w, lead + (d,)).reshape(P, d)
    X2 = np.broadcast_to(x, lead + (d,)).reshape(P, d)
    tol = np.array([_parity_tol(W2[i:i + 1], X2[i:i + 1], eps, None, None, dtype)[0, 0]
                    for i in range(P)]).reshape(lead)
    assert np.all(np.abs(got.astype(np.float64) - ref.astype(np.float64)) <= tol)


def _points(n, d, seed, dtype):
    """Gaussian points at mixed scales with a duplicate and a near-duplicate row."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-2, 2, (n, 1))
    X[3] = X[1]
    X[5] = X[2] * (1 + 1e-7)
    return X.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["direct", "expanded"])
def test_cupy_self_gram_exactly_symmetric_and_matches_reference(method, dtype):
    X = _points(40, 24, 11, dtype)
    ref = gram(X, None, 0.01, backend="numpy")
    G = _host(gram(_dev(X), None, 0.01, method=method))
    assert G.dtype == dtype
    np.testing.assert_array_equal(G, G.T)
    tol = _parity_tol(X, X, 0.01, None, None, dtype)
    assert np.all(np.abs(G.astype(np.float64) - ref.astype(np.float64)) <= tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_backend_cupy_with_host_inputs_returns_host_arrays(dtype):
    """NumPy in, backend="cupy": computed on the device, returned as NumPy, within the bound."""
    X, Y = _points(17, 9, 12, dtype), _points(13, 9, 13, dtype)
    b = np.linspace(-1, 1, 13).astype(dtype)
    v = np.random.default_rng(14).standard_normal((13, 2)).astype(dtype)
    eps = 0.1

    P = product(X[:, None, :], Y[None, :, :], eps, b, backend="cupy")
    assert type(P) is np.ndarray and P.dtype == dtype
    ref = product(X[:, None, :], Y[None, :, :], eps, b, backend="numpy")
    assert np.all(np.abs(P.astype(float) - ref.astype(float))
                  <= _parity_tol(X, Y, eps, b, "inner", dtype))

    G = gram(X, Y, eps, b, bias_mode="outer", backend="cupy")
    assert type(G) is np.ndarray and G.dtype == dtype
    ref = gram(X, Y, eps, b, bias_mode="outer", backend="numpy")
    assert np.all(np.abs(G.astype(float) - ref.astype(float))
                  <= _parity_tol(X, Y, eps, b, "outer", dtype))

    y = matvec(X, Y, v, eps, b, backend="cupy", tile=(5, 4))
    assert type(y) is np.ndarray and y.dtype == dtype
    ref = matvec(X, Y, v, eps, b, backend="numpy")
    assert np.all(np.abs(y.astype(float) - ref.astype(float))
                  <= _matvec_bound(X, Y, v, eps, b, "inner", dtype))


# ---------------------------------------------------------------- attention

#: Normwise relative tolerance for float64 compositions evaluated on both devices by the same
#: formulas, differing only in reduction order (cuBLAS vs the CPU BLAS): every output is a chain
#: of a few dot products of length <= 32 (error <= 32 u ~ 4e-15 each), amplified by the
#: condition of the scores and the softmax at unit-scale inputs (well below 1e3): < 1e-11.
ATTN_RTOL = 1e-10


def _close(got, ref, rtol=ATTN_RTOL):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    err = np.linalg.norm((got - ref).ravel())
    assert err <= rtol * max(np.linalg.norm(ref.ravel()), 1e-300), err


@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
@pytest.mark.parametrize("with_wo", [True, False])
def test_cupy_multihead_attention_matches_numpy(with_wo, normalize):
    rng = np.random.default_rng(21)
    B, L, dm, H, dh, dv = 2, 9, 8, 2, 4, 3
    X = rng.normal(size=(B, L, dm))
    Wq, Wk = rng.normal(size=(dm, H * dh)) / 2, rng.normal(size=(dm, H * dh)) / 2
    Wv = rng.normal(size=(dm, H * dv))
    Wo = rng.normal(size=(H * dv, 5)) if with_wo else None
    kw = dict(num_heads=H, eps=0.5, causal=True, normalize=normalize, power=2.0,
              return_cache=True)
    Y, c = multihead_attention(X, Wq, Wk, Wv, Wo, backend="numpy", **kw)
    Yc, cc = multihead_attention(_dev(X), _dev(Wq), _dev(Wk), _dev(Wv), _dev(Wo), **kw)
    _close(_host(Yc), Y)
    G = rng.normal(size=Y.shape)
    g, gc = multihead_attention_backward(G, c), multihead_attention_backward(_dev(G), cc)
    for name in ("X", "Wq", "Wk", "Wv") + (("Wo",) if with_wo else ()):
        _close(_host(getattr(gc, name)), getattr(g, name))
    if not with_wo:
        assert gc.Wo is None


def _concat(X):
    """phi(x) = (x_1^2, ..., x_d^2, 1): non-negative kernel values, on either device."""
    xp = _cp() if be.is_cupy_array(X) else np
    return xp.concatenate([X * X, xp.ones((X.shape[0], 1), dtype=X.dtype)], axis=1)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_linear_attention_matches_numpy(causal, dtype):
    """Both devices compute phi in the input dtype, then sums in float64 in different orders.

    With phi >= 0 every kernel value is >= 0, so (standard summation analysis) the numerator
    num_i = sum_j K_ij v_j is computed to within gamma_n sum_j K_ij |v_j| and the normaliser to
    within gamma_n den_i, n = 2 (F + L + chunk) bounding the depth of every sum; out = num/den
    then differs by at most 2 gamma_n (S_i / den_i + |out_i|) (1 + O(gamma_n)) between any two
    orders (we allow 4 gamma_n), plus one rounding of each result to the dtype (u |out_i| each).  S is evaluated from the
    quadratic form in float64 on the host."""
    rng = np.random.default_rng(31)
    L, d, dv, chunk = 30, 6, 3, 7
    Q, K = rng.normal(size=(L, d)).astype(dtype), rng.normal(size=(L, d)).astype(dtype)
    V = rng.normal(size=(L, dv)).astype(dtype)
    ref = linear_attention(Q, K, V, _concat, causal, chunk=chunk)
    got = _host(linear_attention(_dev(Q), _dev(K), _dev(V), _concat, causal, chunk=chunk))
    assert got.shape == ref.shape == (L, dv) and got.dtype == dtype
    Pq, Pk = _concat(Q).astype(np.float64), _concat(K).astype(np.float64)
    Kqk = Pq @ Pk.T
    if causal:
        Kqk = np.tril(Kqk)
    den = Kqk.sum(1, keepdims=True)
    S = Kqk @ np.abs(V.astype(np.float64))
    out = np.abs(ref.astype(np.float64))
    n = 2 * (Pq.shape[1] + L + chunk)
    gamma = n * U64 / (1 - n * U64)
    tol = 4 * gamma * (S / den + out) + 2 * _u(dtype) * out * (1 + 1e-6)
    assert np.all(np.abs(got.astype(np.float64) - ref.astype(np.float64)) <= tol)
