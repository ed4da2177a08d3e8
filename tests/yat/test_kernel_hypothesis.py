"""Property-based tests (hypothesis) of yatmath.yat.product / gram / matvec / grad.

Facts about the implementation, each with a tolerance derived from the accuracy bound stated in
the module docstring of ``yatmath/yat/kernel.py`` (u = unit roundoff of the working dtype):

    |K_hat - K| <= B_u := 4 (d+4) u (|N| A / D + 8 K) + ((d+4) u ||w|| ||x||)^2 / D,
    A = ||w|| ||x|| + |b_inner|.

Generated entries are 0 or have magnitude in [1e-4, 1e3] times a per-example scale, so no
intermediate is subnormal and the bound needs no underflow term.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from yatmath import _array
from yatmath.yat import gram, kernel, matvec, product

try:                                   # written by another engineer; tested only if present
    from yatmath.yat import grad as yat_grad
except ImportError:                    # pragma: no cover
    yat_grad = None

U64 = 2.0 ** -53
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = st.sampled_from([np.float32, np.float64])


def _u(dtype):
    return float(np.finfo(dtype).eps) / 2


@st.composite
def point_sets(draw, max_n=12, max_d=40, min_n=1, min_d=1):
    """(n, d) float64 points with duplicates, zero rows and a common scale 10^[-3, 3]."""
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(min_d, max_d))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(-4, 3, (n, d))
    X = np.where(rng.random((n, d)) < 0.1, 0.0, rng.choice([-1.0, 1.0], (n, d)) * mag)
    if n > 1 and draw(st.booleans()):              # duplicates
        k = draw(st.integers(1, n - 1))
        X[rng.integers(0, n, k)] = X[rng.integers(0, n, k)]
    if draw(st.booleans()):                        # zero rows
        X[rng.integers(0, n, draw(st.integers(1, n)))] = 0.0
    return X * 10.0 ** draw(st.integers(-3, 3))


EPS = st.integers(-4, 4).map(lambda e: 10.0 ** e)


# ---------------------------------------------------------------- tolerances

def _bound(X, W, eps, bias, mode, u):
    """An upper bound on B_u for every pair, evaluated from float64 reference quantities.

    s_hat = X W^T and D_hat (direct form) carry relative errors below g = (d+2) u64, so
    |N| <= |N_hat| + g (P + |b|), D >= D_hat (1 - g), P <= P_hat (1 + g)."""
    X64, W64 = X.astype(np.float64), W.astype(np.float64)
    d = X.shape[1]
    g = (d + 2) * U64
    P = np.linalg.norm(X64, axis=1)[:, None] * np.linalg.norm(W64, axis=1)[None, :] * (1 + g)
    D = (((X64[:, None, :] - W64[None, :, :]) ** 2).sum(-1) + eps) * (1 - g)
    b = np.zeros(W.shape[0]) if bias is None else np.broadcast_to(bias, (W.shape[0],))
    bs = b.astype(np.float64)[None, :]
    b = np.abs(bs)
    inner = mode == "inner" and bias is not None
    N = np.abs(X64 @ W64.T + (bs if inner else 0)) + g * (P + b)
    A = P + (b if inner else 0)
    K = N * (N / D)
    c = d + 4
    out = 4 * c * u * (N * A / D + 8 * K) + (c * u * P) * ((c * u * P) / D)
    if mode == "outer" and bias is not None:
        out = out * (1 + u) + u * (K + b)
    return out * (1 + 2.0 ** -40), K


def _parity_tol(X, W, eps, bias, mode, dtype):
    """|numba - numpy| <= B_{u(dtype)} + B_{u64} + the numpy result's one rounding to dtype."""
    u = _u(dtype)
    Bd, K = _bound(X, W, eps, bias, mode, u)
    B64, _ = _bound(X, W, eps, bias, mode, U64)
    extra = 0.0 if bias is None or mode != "outer" else np.abs(bias)
    return Bd + B64 * (1 + u) + u * (K + extra)


# ---------------------------------------------------------------- symmetry, PSD, zero rows

GRAM_PATHS = [("numpy", "auto"), ("numba", "direct"), ("numba", "expanded")]


@settings(max_examples=100, **SETTINGS)
@given(X=point_sets(max_n=16), eps=EPS, dtype=DTYPES)
def test_gram_is_exactly_symmetric(X, eps, dtype):
    X = X.astype(dtype)
    for backend, method in GRAM_PATHS:
        G = gram(X, None, eps, method=method, backend=backend)
        assert G.dtype == dtype
        np.testing.assert_array_equal(G, G.T)


@settings(max_examples=100, **SETTINGS)
@given(X=point_sets(max_n=16), eps=EPS, dtype=DTYPES)
def test_gram_is_positive_semidefinite_up_to_rounding(X, eps, dtype):
    """K = (x.y)^2 * 1/(||x-y||^2 + eps) is PSD (Schur product of the polynomial kernel and the
    inverse multiquadric), so lambda_min(G_hat) >= -||E||_2 with E = G_hat - G.

    c: each |E_ij| <= B_u (docstring); with P = ||x_i|| ||x_j||, both |s| P / D and K are
    <= P^2 / eps <= max(G_ii, G_jj) <= lambda_max, so |E_ij| <= (36 (d+4) u + ((d+4) u)^2)
    lambda_max and ||E||_2 <= n max |E_ij|.  Add the eigensolver's backward error (LAPACK in
    float64, ~n u64 lambda_max) and the rounding of lambda_max itself: c = 37 (d+4) covers all
    of it since (d+4) u < 1e-5 here."""
    X = X.astype(dtype)
    n, d = X.shape
    c = 37 * (d + 4)
    for backend, method in GRAM_PATHS:
        G = gram(X, None, eps, method=method, backend=backend).astype(np.float64)
        lam = np.linalg.eigvalsh(G)
        assert lam[0] >= -c * n * _u(dtype) * max(lam[-1], 0.0), (backend, method, lam[0], lam[-1])


@settings(max_examples=60, **SETTINGS)
@given(X=point_sets(max_n=10), eps=EPS, dtype=DTYPES, data=st.data())
def test_zero_point_gives_zero_row_and_column(X, eps, dtype, data):
    X = X.astype(dtype)
    i = data.draw(st.integers(0, X.shape[0] - 1))
    X[i] = 0
    for backend, method in GRAM_PATHS:
        G = gram(X, None, eps, method=method, backend=backend)
        assert not G[i].any() and not G[:, i].any()
        assert not gram(X[i:i + 1], X[::-1], eps, method=method, backend=backend).any()
        # outer bias: exactly b on that row; inner bias: b^2 / (||x_j||^2 + eps) >= 0
        b = np.linspace(-1, 2, X.shape[0]).astype(dtype)
        Go = gram(X, None, eps, b, bias_mode="outer", method=method, backend=backend)
        np.testing.assert_array_equal(Go[i], b)
    for backend in ("numpy", "numba"):
        assert not product(X[i], X, eps, backend=backend).any()
        v = np.arange(1.0, X.shape[0] + 1)
        assert matvec(X, X, v, eps, backend=backend)[i] == 0


# ---------------------------------------------------------------- rays

@st.composite
def ray_pairs(draw):
    d = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    w = rng.standard_normal(d) * 10.0 ** draw(st.integers(-2, 2))
    u = rng.standard_normal(d) * 10.0 ** draw(st.integers(-2, 2))
    return w, u


def _ray_ks(w, u, eps, top):
    """k = k0 2^j, j = 0..top, with k0 a power of two making k0 ||u|| >> ||w|| + sqrt(eps)."""
    k0 = 2.0 ** np.ceil(np.log2(4 * (np.linalg.norm(w) + np.sqrt(eps) + 1) / np.linalg.norm(u)))
    return k0 * 2.0 ** np.arange(top + 1)


@settings(max_examples=100, **SETTINGS)
@given(pair=ray_pairs(), eps=EPS, dtype=DTYPES)
def test_limit_along_rays(pair, eps, dtype):
    """K(w, k u) -> L = (w.u)^2/||u||^2 as k -> inf.  Exactly (algebra),
    K(w, k u) - L = L (2 k w.u - ||w||^2 - eps) / D_k,  D_k = ||w - k u||^2 + eps, so
    |K_hat_k - L| <= L (2 k |w.u| + ||w||^2 + eps) / D_k + B_u(w, k u)  (B_u: docstring bound),
    both terms computed in mpmath.  The first term is below 2^-top L at the last k (k0 ||u|| >=
    4 ||w||), so there the implementation must be within rounding of the limit."""
    w, u = (a.astype(dtype) for a in pair)
    d = w.size
    uu = _u(dtype)
    ks = _ray_ks(w.astype(np.float64), u.astype(np.float64), eps, 20 if dtype is np.float32 else 40)
    X = (ks[:, None] * u[None, :]).astype(dtype)         # exact: k is a power of two
    assume(np.isfinite((X.astype(np.float64) ** 2).sum(1)).all())
    outs = {"product/numpy": product(w, X, eps, backend="numpy"),
            "product/numba": product(w, X, eps, backend="numba"),
            "gram/expanded": gram(w[None], X, eps, method="expanded", backend="numba")[0],
            "gram/direct": gram(w[None], X, eps, method="direct", backend="numba")[0]}
    with mp.workdps(40):
        W = [mp.mpf(float(a)) for a in w]
        Uv = [mp.mpf(float(a)) for a in u]
        s1, UU, WW = mp.fdot(W, Uv), mp.fdot(Uv, Uv), mp.fdot(W, W)
        L = s1 ** 2 / UU
        for j, k in enumerate(ks):
            k = mp.mpf(float(k))
            s, Dk = k * s1, mp.fsum((a - k * b) ** 2 for a, b in zip(W, Uv)) + eps
            Kk = s * s / Dk
            P = mp.sqrt(WW) * k * mp.sqrt(UU)
            Bk = 4 * (d + 4) * uu * (abs(s) * P / Dk + 8 * Kk) + ((d + 4) * uu * P) ** 2 / Dk
            approach = L * (2 * k * abs(s1) + WW + eps) / Dk
            for name, K in outs.items():
                assert abs(mp.mpf(float(K[j])) - L) <= approach + Bk, (name, j)
        assert approach <= L * 2.0 ** -(len(ks) - 1)


@pytest.mark.skipif(yat_grad is None, reason="yatmath.yat.grad is not available")
@settings(max_examples=100, **SETTINGS)
@given(pair=ray_pairs(), eps=EPS)
def test_gradient_decays_along_rays(pair, eps):
    """grad_x K(w, x) = 2 r (w - r (x - w)), r = w.x / D.  On x = k u, with a = w.u/||u||^2 and
    k >= k0 (k0 ||u|| >= 4 (||w|| + sqrt(eps) + 1), so D_k >= k^2 ||u||^2 (1 - 2|a|/k) >= half),
    |r| <= 2|a|/k and |r k| <= 2|a|, hence
        ||grad_x K(w, k u)|| <= (4|a|/k) ((1 + 2|a|/k) ||w|| + 2|a| ||u||)  = O(1/k),
    and k grad_x -> 2 a (w - a u), the limit the test checks to 1e-6 at k = k0 2^40 (the
    remainder there is O(1/k) < 1e-9 relative; rounding is O(d u cond) in float64)."""
    w, u = pair
    a = (w @ u) / (u @ u)
    wperp = w - a * u
    assume(abs(a) * np.linalg.norm(u) > 1e-2 * np.linalg.norm(w))       # cond = ||w|| ||u||/|w.u|
    assume(np.linalg.norm(wperp) > 1e-2 * np.linalg.norm(w))            # nonzero limit
    ks = _ray_ks(w, u, eps, 40)
    X = ks[:, None] * u[None, :]
    gx = np.asarray(yat_grad(w, X, eps).x)
    norms = np.linalg.norm(gx, axis=1)
    upper = (4 * abs(a) / ks) * ((1 + 2 * abs(a) / ks) * np.linalg.norm(w)
                                 + 2 * abs(a) * np.linalg.norm(u))
    assert np.all(norms <= upper * (1 + 1e-6))
    limit = 2 * a * wperp
    np.testing.assert_allclose(ks[-1] * gx[-1], limit, rtol=1e-6,
                               atol=1e-6 * np.linalg.norm(limit))


# ---------------------------------------------------------------- backend parity

@st.composite
def gram_cases(draw, max_rows=30):
    dtype = draw(DTYPES)
    B = draw(st.integers(0, max_rows))
    n = draw(st.integers(0, max_rows))
    d = draw(st.integers(0, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    Z = draw(point_sets(max_n=B + n, min_n=B + n, max_d=d, min_d=d)) if B + n else np.zeros((0, d))
    Z = Z.astype(dtype)
    eps = draw(EPS)
    mode = draw(st.sampled_from([None, "inner", "outer"]))
    scale = float(np.abs(Z.astype(np.float64)).max(initial=1.0)) ** 2
    bias = None if mode is None else (rng.standard_normal(n) * scale).astype(dtype)
    return Z[:B], Z[B:], eps, bias, mode, dtype


@pytest.mark.slow
@settings(max_examples=300, **SETTINGS)
@given(case=gram_cases(), method=st.sampled_from(["auto", "direct", "expanded"]))
def test_numba_gram_matches_numpy_reference(case, method):
    X, W, eps, bias, mode, dtype = case
    kw = dict(bias=bias, bias_mode=mode or "inner")
    ref = gram(X, W, eps, backend="numpy", **kw)
    got = gram(X, W, eps, method=method, backend="numba", **kw)
    assert got.shape == ref.shape == (X.shape[0], W.shape[0]) and got.dtype == ref.dtype == dtype
    tol = _parity_tol(X, W, eps, bias, mode, dtype)
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    assert np.all(err <= tol), float(np.max(err / np.where(tol > 0, tol, 1)))


@pytest.mark.slow
@settings(max_examples=200, **SETTINGS)
@given(case=gram_cases(max_rows=20), k=st.sampled_from([None, 1, 3]),
       tile=st.tuples(st.integers(1, 9), st.integers(1, 9)), force_tiles=st.booleans())
def test_numba_matvec_matches_numpy_reference(case, k, tile, force_tiles):
    """y = K v: |y_numba - y_numpy| <= sum_j tol_ij |v_j| + two float64 summations
    (gamma_m sum_j |K_ij v_j| each) + the rounding of both results to the dtype."""
    X, Y, eps, bias, mode, dtype = case
    m = Y.shape[0]
    rng = np.random.default_rng(m * 7 + X.shape[1])
    v = rng.standard_normal((m,) if k is None else (m, k)).astype(dtype)
    kw = dict(bias=bias, bias_mode=mode or "inner")
    ref = matvec(X, Y, v, eps, backend="numpy", **kw)
    old = kernel.DIRECT_MAX_D
    try:
        if force_tiles:
            kernel.DIRECT_MAX_D = -1
        got = matvec(X, Y, v, eps, backend="numba", tile=tile, **kw)
    finally:
        kernel.DIRECT_MAX_D = old
    assert got.shape == ref.shape == (X.shape[0],) + v.shape[1:] and got.dtype == dtype
    tol = _parity_tol(X, Y, eps, bias, mode, dtype)
    _, K = _bound(X, Y, eps, bias, mode, U64)
    if mode == "outer" and bias is not None:
        K = K + np.abs(bias.astype(np.float64))[None, :]
    V = np.abs(v.astype(np.float64))
    V = V[:, None] if V.ndim == 1 else V
    g = 2 * (m + 1) * U64
    u = _u(dtype)
    bound = tol @ V + g * (K + tol) @ V
    bound = bound + 2 * u * (K @ V + bound)
    err = np.abs(got.astype(np.float64) - ref.astype(np.float64)).reshape(bound.shape)
    assert np.all(err <= bound * (1 + 2.0 ** -40))


@st.composite
def broadcast_cases(draw):
    dtype = draw(DTYPES)
    d = draw(st.integers(0, 40))
    a, b = draw(st.integers(0, 4)), draw(st.integers(0, 5))
    w_shape = draw(st.sampled_from([(a, 1, d), (1, b, d), (d,), (a, b, d)]))
    x_shape = draw(st.sampled_from([(b, d), (a, 1, d), (d,), (1, b, d)]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    w = (rng.standard_normal(w_shape) * 10.0 ** rng.uniform(-2, 2, w_shape)).astype(dtype)
    x = (rng.standard_normal(x_shape) * 10.0 ** rng.uniform(-2, 2, x_shape)).astype(dtype)
    return w, x, draw(EPS), dtype


@settings(max_examples=200, **SETTINGS)
@given(case=broadcast_cases())
def test_numba_product_matches_numpy_reference(case):
    w, x, eps, dtype = case
    try:
        lead = np.broadcast_shapes(w.shape[:-1], x.shape[:-1])
    except ValueError:
        assume(False)
    ref = product(w, x, eps, backend="numpy")
    got = product(w, x, eps, backend="numba")
    assert got.shape == ref.shape == lead and got.dtype == ref.dtype == dtype
    d = w.shape[-1]
    P = int(np.prod(lead))
    W2 = np.broadcast_to(w, lead + (d,)).reshape(P, d)
    X2 = np.broadcast_to(x, lead + (d,)).reshape(P, d)
    tol = np.array([_parity_tol(W2[i:i + 1], X2[i:i + 1], eps, None, None, dtype)[0, 0]
                    for i in range(W2.shape[0])]).reshape(lead)
    assert np.all(np.abs(got.astype(np.float64) - ref.astype(np.float64)) <= tol)


@pytest.mark.gpu
@settings(max_examples=40, **SETTINGS)
@given(case=gram_cases(), method=st.sampled_from(["direct", "expanded"]))
def test_cupy_gram_matches_numpy_reference(case, method):
    cp = _array.cupy_module()
    X, W, eps, bias, mode, dtype = case
    kw = dict(bias=bias, bias_mode=mode or "inner")
    ref = gram(X, W, eps, backend="numpy", **kw)
    got = gram(cp.asarray(X), cp.asarray(W), eps, method=method, backend="cupy",
               **dict(kw, bias=None if bias is None else cp.asarray(bias)))
    assert _array.is_cupy(got) and got.dtype == dtype and got.shape == ref.shape
    tol = _parity_tol(X, W, eps, bias, mode, dtype)
    assert np.all(np.abs(got.get().astype(np.float64) - ref.astype(np.float64)) <= tol)
