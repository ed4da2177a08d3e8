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

from yatmath import _array as be
from yatmath import itnet as it
from yatmath.features import POSITIVE_KINDS, favor_plus, positive_features, rff, yat_features
from yatmath.particles import (FieldHamiltonian, interaction_force, interaction_potential,
                               make_interaction, random_batch_force)
from yatmath.particles.interactions import force_factor
from yatmath.yat import (gram, linear_attention, matvec, multihead_attention,
                         multihead_attention_backward, product)

from tests.itnet.test_evaluate import _setup as _itnet_setup  # noqa: E402
from tests.particles.test_forces import CASES as FORCE_CASES, potential_bound  # noqa: E402
from tests.yat.test_kernel_hypothesis import (SETTINGS, U64, _bound, _parity_tol, _u,  # noqa: E402
                                 broadcast_cases, gram_cases)

pytestmark = pytest.mark.gpu


def _cp():
    return be.cupy_module()


def _dev(a):
    return None if a is None else _cp().asarray(a)


def _host(a):
    assert be.is_cupy(a), f"expected a CuPy result, got {type(a).__name__}"
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
    xp = _cp() if be.is_cupy(X) else np
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


# ======================================================================= audit of issue 7
# Every other CuPy path of the repository, each compared with its NumPy reference:
#   random features (RFF, ORF, FAVOR+, the App. D positive maps, Yat features);
#   linear attention fed by those maps; ITNet tiled (backend="cupy") against the dense einsum;
#   particle forces (the RawKernel for d <= 16, the chunked reference on the device for d > 16)
#   and the host-computed particle paths that accept CuPy input.
# Parameters of the random maps are drawn once on the host, so "the same rng" gives the same
# map on both devices; only the evaluation differs.

U32 = 2.0 ** -24

#: Normwise relative agreement of one feature map evaluated on the two devices (float64 on both,
#: from the same float64 parameters).  Every entry is an elementary function (cos, sin, exp,
#: tanh, expm1, logaddexp: <= 2 ulps in CUDA's libdevice, <= 1 ulp in NumPy) of dot products of
#: length <= d + 1 = 7 whose reduction order may differ (cuBLAS vs the CPU BLAS), or a product of
#: <= ~20 such dot products (Maclaurin degrees).  A dot product differs by <= 2 gamma_7 |x|.|w|
#: ~ 2e-15 |x|.|w|; with |x|.|w| <= ~50 at the scales below (Laplace frequencies sqrt(2 t) N(0, I))
#: and the functions' slopes <= 1 (cos, sin) or relative slope |z| <= ~10 (exp), every entry agrees
#: to ~1e-13 of the map's scale.  1e-11 leaves a margin of ~100.
FEATURE_RTOL = 1e-11

FEATURE_MAPS = {
    "rff-phase": lambda d: rff(d, 64, gamma=0.5, rng=1),
    "orf-sincos": lambda d: rff(d, 64, gamma=0.5, form="sincos", orthogonal=True, rng=2),
    "favor+": lambda d: favor_plus(d, 64, rng=3),
    **{f"positive-{k}": (lambda d, k=k: positive_features(d, 64, k, tau=1.5, rng=4))
       for k in POSITIVE_KINDS if k != "favor"},
    "positive-softplus-no-renorm": lambda d: positive_features(d, 64, "softplus", renorm=False,
                                                               rng=5),
    "positive-elu+1-after-renorm": lambda d: positive_features(
        d, 64, "elu+1", n_scale_order="after_renorm", rng=5),
    "positive-sigmoid2-floor": lambda d: positive_features(d, 64, "sigmoid2", floor_sigmoid=True,
                                                           n_scale_order="before_renorm", rng=5),
    "yat-laplace_mc": lambda d: yat_features(d, 64, eps=0.5, bias=0.5, rng=6),
    "yat-laplace_mc-exact": lambda d: yat_features(d, 2 * (d + 1) ** 2, eps=0.5, poly="exact",
                                                   rng=7),
    "yat-laplace_quadrature": lambda d: yat_features(d, 64, eps=0.5, method="laplace_quadrature",
                                                     r2_max=16.0, rng=8),
    "yat-maclaurin": lambda d: yat_features(d, 64, eps=1.0, bias=0.5, spherical=True,
                                            method="maclaurin", rng=9),
    "yat-series": lambda d: yat_features(d, 128, eps=1.0, bias=0.5, spherical=True,
                                         method="series", rng=10),
    "yat-harmonic": lambda d: yat_features(d, 64, eps=1.0, bias=0.5, spherical=True,
                                           method="harmonic", rng=11),
}


def _feature_inputs(name, n=33, d=6, seed=51):
    X = 0.5 * np.random.default_rng(seed).standard_normal((n, d))
    if name in ("yat-maclaurin", "yat-series", "yat-harmonic"):
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


@pytest.mark.parametrize("name", sorted(FEATURE_MAPS))
def test_cupy_feature_maps_match_numpy(name):
    """CuPy in, CuPy out, equal to the NumPy evaluation of the same map (float64 and float32).

    float32 inputs: both devices compute in float64 and round once to float32, so they differ by
    <= the float64 difference plus u32 (|a| + |b|) per entry: normwise FEATURE_RTOL + 2 u32."""
    X = _feature_inputs(name)
    phi, phi_again = FEATURE_MAPS[name](X.shape[1]), FEATURE_MAPS[name](X.shape[1])  # same seed
    for dtype, rtol in ((np.float64, FEATURE_RTOL), (np.float32, FEATURE_RTOL + 2.001 * U32)):
        Xd = X.astype(dtype)
        ref = phi(Xd)
        got = phi_again(_dev(Xd))
        assert be.is_cupy(got) and got.dtype == ref.dtype == dtype
        assert got.shape == ref.shape == (X.shape[0], phi.num_features)
        _close(_host(got), ref, rtol)
    one = phi(_dev(X[0]))                       # a single point: 1-D in, 1-D out
    assert be.is_cupy(one) and one.shape == (phi.num_features,)
    _close(_host(one), phi(X[0]), FEATURE_RTOL)


def test_cupy_spherical_feature_map_rejects_off_sphere_rows():
    phi = FEATURE_MAPS["yat-series"](6)
    X = _feature_inputs("rff-phase") * 3.0
    with pytest.raises(ValueError, match="unit-norm"):
        phi(_dev(X))


#: Entrywise relative agreement of the kernel weights phi(q).phi(k) on the two devices for the
#: positive maps below: features agree entrywise to ~(|z| + 1) d u ~ 1e-14 (z the exponent,
#: |z| <= ~5 at |x| <= 1.5), the F = 64 term dot products and the L + chunk term sums add
#: (F + L + chunk) u ~ 1e-14.  1e-12 leaves a margin of ~50.
WEIGHT_RTOL = 1e-12


@pytest.mark.parametrize("vector_values", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("name", ["favor+", "positive-softplus", "positive-cos2"])
def test_cupy_linear_attention_with_feature_maps_matches_numpy(name, causal, vector_values):
    """Positive maps make every kernel weight >= 0, so each output is a convex combination of
    the values; a relative perturbation delta of every weight moves it by <= 2 delta max_j |v_j|
    (numerator and normaliser), hence |out_gpu - out_numpy| <= 2 WEIGHT_RTOL max |V|."""
    rng = np.random.default_rng(61)
    L, d = 40, 6
    Q, K = 0.3 * rng.standard_normal((L, d)), 0.3 * rng.standard_normal((L, d))
    V = rng.standard_normal(L) if vector_values else rng.standard_normal((L, 3))
    phi = FEATURE_MAPS[name](d)
    ref = linear_attention(Q, K, V, phi, causal, chunk=9)
    got = linear_attention(_dev(Q), _dev(K), _dev(V), phi, causal, chunk=9)
    assert be.is_cupy(got) and got.shape == ref.shape and got.dtype == ref.dtype
    assert np.max(np.abs(_host(got) - ref)) <= 2 * WEIGHT_RTOL * np.max(np.abs(V))


# ---------------------------------------------------------------- ITNet tiled (backend="cupy")
#: The module's stated accuracy (yatmath/itnet/tiled.py, and the CPU tests of test_itnet_modes):
#: float64 tiled sums differ from the dense einsum only in summation order and the angle-difference
#: evaluation of gamma(x - y), ~1e-15 relative at these sizes; 1e-12 of max |O|.
ITNET_RTOL = 1e-12
ITNET_TILES = [(1, 1), (1, 29), (5, 7), (13, 16), (29, 29), (64, 64)]


def assert_itnet_close(got, ref, rtol=ITNET_RTOL):
    assert np.max(np.abs(got - ref)) <= rtol * np.max(np.abs(ref))


@pytest.mark.parametrize("factorised", [True, False])
@pytest.mark.parametrize("causal,dw", [(False, 1.0), (True, 1.0), (True, 0.5), (True, 0.0)])
def test_cupy_itnet_tiled_equals_dense(causal, dw, factorised):
    op, mu, U = _itnet_setup(np.random.default_rng(71), causal=causal, dw=dw)
    O = it.apply(op, U, mu)
    for tile in ITNET_TILES:
        Og = it.apply(op, _dev(U), mu, mode="tiled", tile=tile, factorised=factorised,
                      backend="cupy")
        assert be.is_cupy(Og) and Og.shape == O.shape and Og.dtype == np.float64
        assert_itnet_close(_host(Og), O)


@pytest.mark.parametrize("groups", [("ux", "uy"), ("gd", "dist"), ("gx", "uxuy")])
def test_cupy_itnet_tiled_input_groups_and_tanh_gelu(groups):
    op, mu, U = _itnet_setup(np.random.default_rng(72), gelu="tanh", groups=groups)
    O = it.apply(op, U, mu)
    assert_itnet_close(_host(it.apply(op, _dev(U), mu, mode="tiled", tile=(6, 5))), O)


def test_cupy_itnet_tiled_multihead_separate_queries_and_float32():
    rng = np.random.default_rng(73)
    op, mu, U = _itnet_setup(rng, d=4, heads=2)
    Xq, Uq = rng.uniform(size=(11, 2)), rng.normal(size=(11, 4))
    O = it.apply(op, U, mu, Xq=Xq, Uq=Uq)
    Og = it.apply(op, _dev(U), mu, Xq=_dev(Xq), Uq=_dev(Uq), mode="tiled", tile=(3, 8))
    assert_itnet_close(_host(Og), O)
    # float32: float32 arithmetic on the device, error ~ (#terms) u32 relative; 1e-4 as on the CPU
    op1, mu1, U1 = _itnet_setup(rng)
    O64 = it.apply(op1, U1, mu1)
    O32 = it.apply(op1, _dev(U1.astype(np.float32)), mu1, mode="tiled", tile=(8, 8))
    assert O32.dtype == np.float32
    assert_itnet_close(_host(O32).astype(np.float64), O64, 1e-4)


@pytest.mark.parametrize("heads", [1, 2])
def test_cupy_itnet_tiled_host_inputs_come_back_to_the_host(heads):
    """NumPy in, backend="cupy": computed on the device, returned as NumPy (the repository-wide
    rule of the registry rows' host_input)."""
    op, mu, U = _itnet_setup(np.random.default_rng(74), d=4, heads=heads, causal=True)
    O = it.apply(op, U, mu)
    Ot = it.apply(op, U, mu, mode="tiled", tile=(7, 4), backend="cupy")
    assert type(Ot) is np.ndarray
    assert_itnet_close(Ot, O)


# ---------------------------------------------------------------- particle forces
def _force_bound(X, inter, dtype):
    """|F_gpu - F_numpy| componentwise: each pair term c(r^2) (x_k - x_l) is within
    (p (d + 1) + 8) u of exact on both devices (r^2 of d terms, relative error p gamma_{d+1} in
    c = a q^-p; pow <= 2 ulps in CUDA, sqrt correctly rounded, rsqrt <= 1 ulp; one rounding of the
    difference and of the product), the N - 1 terms are summed in different orders (<= 2 gamma_N
    S_k), S_k = sum_l |c_kl| |x_k - x_l| / (N - 1).  float32 outputs add one rounding of each
    side: u32 (|a| + |b|) <= 2.001 u32 |F_64|.  float32 input with d <= 16 and an interaction
    without pow (``particles._cuda_kernels.float32_computation``) is computed in float32 on the
    device: its bound (that module's docstring) adds ((p (d + 3) + 7) + 2 N u32) u32 S_k and
    N 2^-150 / (N - 1) for the subnormal terms."""
    X = np.asarray(X, np.float64).reshape(X.shape[0], -1)
    N, d = X.shape
    diff = X[:, None, :] - X[None, :, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = force_factor(np.sum(diff * diff, axis=-1), inter)
    c[np.arange(N), np.arange(N)] = 0.0
    S = np.einsum("ij,ijk->ik", np.abs(c), np.abs(diff)) / (N - 1)
    F = -np.einsum("ij,ijk->ik", c, diff) / (N - 1)
    bound = (2 * N + inter.p * (d + 1) + 16) * U64 * S * (1 + 1e-6)
    if np.dtype(dtype) == np.float32:
        bound = bound + 2.001 * U32 * np.abs(F)
        from yatmath.particles import _cuda_kernels as pk

        if d <= pk.MAX_D and pk.float32_computation(inter.family):
            bound = bound + ((inter.p * (d + 3) + 7) + 2 * N * U32) * U32 * S \
                + N * 2.0 ** -150 / (N - 1)
    return bound


@pytest.mark.parametrize("N,d", [(2, 3), (5, 1), (129, 2), (300, 3), (200, 16), (150, 17)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_interaction_force_matches_numpy(N, d, dtype):
    """The RawKernel (d <= 16; N = 129, 300 leave a ragged last tile of 128) and the chunked
    reference on the device (d = 17, in chunks of 7 rows), for every interaction of the CPU
    tests; d = 1 goes in as a 1-D array and must come back 1-D."""
    X = np.random.default_rng(N * 31 + d).standard_normal((N, d)).astype(dtype)
    if d == 1:
        X = X[:, 0]
    for kind, s, delta in FORCE_CASES:
        inter = make_interaction(kind, s, delta)
        ref = interaction_force(X, inter, backend="numpy")
        got = interaction_force(_dev(X), inter, backend="cupy", chunk=7 if d > 16 else None)
        assert be.is_cupy(got) and got.shape == ref.shape == X.shape
        assert got.dtype == ref.dtype == dtype
        err = np.abs(_host(got).astype(np.float64) - ref.astype(np.float64)).reshape(N, -1)
        assert np.all(err <= _force_bound(X, inter, dtype)), (kind, s, delta)


def test_cupy_force_backend_with_host_input_returns_host_and_drives_a_hamiltonian():
    """NumPy in, backend="cupy": the force comes back as NumPy, so FieldHamiltonian(backend=
    "cupy") adds it to its NumPy field gradient (this failed before: a CuPy + NumPy sum).  The
    Hamiltonian passes "cupy" to every interaction term, and each has a "cupy" row (this failed
    before: interaction_potential and random_batch_force had none, so energy(),
    particle_energies() and the random-batch drift raised ValueError)."""
    X = np.random.default_rng(81).standard_normal((140, 3))
    inter = make_interaction("plummer", 1.0, 0.3)
    F = interaction_force(X, inter, backend="cupy")
    assert type(F) is np.ndarray
    assert np.all(np.abs(F - interaction_force(X, inter, backend="numpy"))
                  <= _force_bound(X, inter, np.float64))
    kw = dict(V=lambda W: 0.5 * np.sum(W * W, axis=1), grad_V=lambda W: W, lam=2.0,
              interaction=("plummer", 1.0, 0.3))
    Hg, Hn = FieldHamiltonian(backend="cupy", **kw), FieldHamiltonian(backend="numpy", **kw)
    Dg, _ = Hg.drift(X)
    Dn, _ = Hn.drift(X)
    assert type(Dg) is np.ndarray
    # the drift is N grad E + lam F: the force bound scaled by lam, plus rounding of the sum
    tol = 2.0 * _force_bound(X, inter, np.float64) + 4 * U64 * np.abs(Dn)
    assert np.all(np.abs(Dg - Dn) <= tol)
    # the potential: the tiled CUDA kernel on the device, within the documented bound
    pot = interaction_potential(X, inter, backend="cupy")
    ref = interaction_potential(X, inter, backend="numpy")
    assert type(pot) is np.ndarray
    B = potential_bound(X, inter)
    assert np.all(np.abs(pot - ref) <= B)
    # particle energies h = V + lam P (lam = 2: lam P exact; one rounding of the sum on each
    # side); the energy mean(V) + lam/2 mean(P): the bound's mean, the two means' summations
    # (at most (N + 1) u mean|P| each) and the final sum's roundings
    N = X.shape[0]
    hg, hn = Hg.particle_energies(X), Hn.particle_energies(X)
    assert type(hg) is np.ndarray
    assert np.all(np.abs(hg - hn) <= 2.0 * B + 4 * U64 * np.abs(hn))
    eg, en = Hg.energy(X), Hn.energy(X)
    assert abs(eg - en) <= (np.mean(B) + 2 * (N + 1) * U64 * np.mean(np.abs(ref))
                            + 4 * U64 * abs(en)) * (1 + 1e-6)
    # the random-batch drift: s = 1 needs no pow, so the device gives the host's bits
    Rg, _ = Hg.drift(X, method="random_batch", batch_size=7, rng=5)
    Rn, _ = Hn.drift(X, method="random_batch", batch_size=7, rng=5)
    assert type(Rg) is np.ndarray
    np.testing.assert_array_equal(Rg, Rn)


#: interactions whose force factor c needs no pow (p = 3/2, 1, 1/2, 2: s = 1, 0, -1, 2)
NO_POW = [("plummer", 0.0, 0.2), ("plummer", 1.0, 0.3), ("none", -1.0, 0.0), ("hard", 2.0, 0.4),
          ("none", 1.0, 0.0)]


@pytest.mark.parametrize("kind,s,delta", NO_POW)
def test_cupy_input_potential_and_random_batch_run_on_the_device(kind, s, delta):
    """interaction_potential and random_batch_force on CuPy input run their "cupy" row (the
    tiled potential kernel and the per-batch kernel, d <= 16) and return CuPy.  (This test asserted bit equality with
    the NumPy potential when CuPy input was computed on the host; since the reference became
    generic it runs on the device, where CUDA's hypot/log/pow and CuPy's reduction order moved
    the last bit of 25 of 64 entries on the first H100 run.)

    The potential: within the bound stated in interaction_potential's docstring
    (:func:`test_particles_forces.potential_bound`).  The random batch force: the Numba
    kernel's bits, as random_batch_force's docstring states for these s (only +, -, *, / and
    sqrt, correctly rounded in float64 by CUDA, one array operation per CuPy kernel, in the
    kernel's order)."""
    X = np.random.default_rng(82).standard_normal((64, 2))
    inter = make_interaction(kind, s, delta)
    pot = interaction_potential(_dev(X), inter)
    assert be.is_cupy(pot)
    ref = interaction_potential(X, inter, backend="numpy")
    assert np.all(np.abs(_host(pot) - ref) <= potential_bound(X, inter))
    perm = np.random.default_rng(83).permutation(64)
    rb = random_batch_force(_dev(X), inter, batch_size=4, perm=perm)
    assert be.is_cupy(rb)
    np.testing.assert_array_equal(_host(rb), random_batch_force(X, inter, batch_size=4, perm=perm,
                                                                backend="numba"))
