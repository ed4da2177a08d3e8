"""The fused feature-map epilogues (``yatmath/features/_cuda_features.py``) against the NumPy
float64 reference maps, and the 'cupy' rows of the three map calls that run them.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source thread by thread on NumPy arrays (shared memory and ``syncthreads`` included); with a
device the same tests launch the compiled kernels on CuPy arrays (``dev``).  Sizes are small
(each GPU thread is a Python thread): n = 37 rows, d = 5, F = 50.  The elementwise kernels run
with 16 threads in 3 blocks (grid-stride: 39 sweeps of 48 threads over 1850 entries, the last
sweep partial) and once with the default launch (15 blocks of 128, the last partial); the row
kernel with 16 threads per row (4 passes over F = 50, the last holding 2) and 3 blocks for 13
rows (grid-stride over rows: 5, 4 and 4 rows per block).

Tolerances.  u = 2^-53; E = 6u is the relative error of an elementary function on both sides
together (cos, sin, exp, expm1, log1p, tanh: <= 2 ulps = 4u in CUDA's libdevice, <= 1 ulp = 2u
in NumPy, Python's libm in the simulator).  Each test bounds |kernel - reference| per entry by
the first-order propagation of: the difference of the projections (dP: 0 where the kernel is
given the reference's own P; 2 gamma_k (|X| |W|) for two float64 dot products of length k where
they are computed by different code), each rounding of either side (u |value| each), E per
function, and the float64 sums (2 gamma_F of the sum of |terms| for a row sum, NumPy pairwise
against the kernel's tree), summed in absolute value -- and allows TWICE that (``MARGIN``): the
first-order terms are exact bounds up to O(u^2).  float32 output: one more rounding by the
kernel's store, u_32 (|ref| + bound), and 2^-150 absolute for results in float32's subnormal
range (spacing 2^-149).

Breakages these tests were checked to catch (each made on purpose, seen failing, restored): a
grid-stride loop stopping one entry short; sin written one column off; a reduction tree missing
its first level; the tree's leading barrier removed (a fast thread overwrites the shared buffer
of the previous reduction); the tree maximum reversed (caught only by the wide-range softmax
row, where a wrong shift overflows); FAVOR+'s ||x||^2 not halved; its norm loop skipping the
last stride of d = 40; the softmax maximum not subtracted in the write pass; the renormalising
sum without the before_renorm scaling; the row loop skipping the last row; ELU's expm1 at the
wrong argument; softplus's branch for u < 0 using exp(tmp); the sketch's bias column dropped;
the exact map's pair or frequency index wrong; a float32 output written over the float64 P.
"""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from yatmath import _array, _cuda, _registry
from yatmath.features import favor_plus, positive_features, rff, yat_features
from yatmath.features import _cuda_features as cf
from yatmath.features import positive as positive_module

SIMULATED = _cuda.simulated()
U, U32 = 2.0 ** -53, 2.0 ** -24
E = 6 * U
MARGIN = 2.0
TINY32 = 2.0 ** -150
N, D, F = 37, 5, 50
T, G = 16, 3            # threads and blocks of the small launches


@pytest.fixture(autouse=True, scope="module")
def _fast_thread_switching():
    """The simulator's barriers wait on Python threads; a short GIL switch interval makes the
    row kernel's syncthreads ~10x faster here (nothing else changes)."""
    old = sys.getswitchinterval()
    if SIMULATED:
        sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(old)


def dev(a):
    """``a`` where the kernels run: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _inputs(n=N, d=D, seed=1, scale=0.5):
    return scale * np.random.default_rng(seed).standard_normal((n, d))


def _gamma(k):
    return k * U / (1 - k * U)


def _assert_within(got, ref, bound64, dtype):
    """|got - ref| <= bound64 (float64) or the float32 bound of the module docstring."""
    got = host(got)
    assert got.dtype == np.dtype(dtype) and got.shape == ref.shape
    bound = MARGIN * bound64
    if np.dtype(dtype) == np.float32:
        bound = bound + U32 * (np.abs(ref) + bound) + TINY32
    err = np.abs(got.astype(np.float64) - ref)
    assert np.all(err <= bound), (float(np.max(err / np.maximum(bound, 1e-300))),
                                  np.unravel_index(np.argmax(err - bound), err.shape))


def test_mode_matches_the_device():
    assert SIMULATED == (not _array.has_cupy())


# ---------------------------------------------------------------------- bounds of each kernel

def _phase_bound(P, phase, s, dP):
    """y = s cos(theta), theta = P + phase: dP + 2u |theta| in theta (the add on either side),
    E in cos (|cos| <= 1), 2u |y| for the scaling."""
    theta = P + phase
    return s * (dP + 2 * U * np.abs(theta) + E) + 2 * U * s


def _sincos_bound(P, r, dP):
    """y = cos(P) / r (or sin): (dP + E) / r in the function, 2u |y| <= 2u / r in the division."""
    return np.zeros_like(P) + (dP + E) / r + 2 * U / r


def _favor_bound(y, X, P, dP):
    """y = exp(z) / sqrt(M), z = P - q / 2, q = sum x^2 (two sums of d terms: d u q);
    exp relative E, the subtraction 2u |z|, the division 2u."""
    q = np.sum(X * X, axis=1, keepdims=True)
    z = P - 0.5 * q
    return np.abs(y) * (dP + _gamma(X.shape[1]) * q + 2 * U * np.abs(z) + E + 2 * U)


def _softmax_bound(y, P, tau, dP):
    """y_f = sqrt(M) e_f / S, e_f = exp(v_f - m), v = P / tau, m = max v: v to dv = dP/tau +
    2u|v|, m to max dv; e_f relative dv_f + max dv + 2u |v_f - m| + E; S relative max of those
    + 2 gamma_M; the product and division 4u."""
    v = P / tau
    dv = dP / tau + 2 * U * np.abs(v)
    mdv = np.max(dv, axis=1, keepdims=True)
    de = dv + mdv + 2 * U * np.abs(v - np.max(v, axis=1, keepdims=True)) + E
    rel = de + np.max(de, axis=1, keepdims=True) + 2 * _gamma(P.shape[1]) + 4 * U
    return np.abs(y) * rel


def _activation_bound(phi, y, P, dP):
    """The positive maps other than favor/softmaxfeat.  The activation a (before scaling) of
    u = P / tau (cos2: theta = P + b) has slope <= 1 in every kind (|d cos^2 / d theta| =
    |sin 2 theta|, ELU' <= max(1, e^z) = 1 for z <= 0, logistic <= 1, d s^2/du <= 8/27), so
    da = du + 2u |u| (u's own rounding; the bias add) + 3E (1 + a) (the functions, the adds and
    the square).  y = k a with k the row's scale (1/sqrt(M), or sqrt(M)/S or 1/S with the l1
    renormalisation S = sum a): renormalised rows add a (sum_g da_g / S + 2 gamma_M + 6u)."""
    b = phi.bias[None, :]
    if phi.kind == "cos2":
        arg = P + b
        a = np.cos(arg) ** 2
        du = dP + 2 * U * np.abs(arg)
    else:
        arg = P / phi.tau
        a = positive_module._act(phi.kind, arg, b, phi.floor, phi.floor_sigmoid)
        du = dP / phi.tau + 2 * U * np.abs(arg)
        if phi.kind == "elu+1":
            du = du + 2 * U * np.abs(arg + b)
    assert np.all(a > 0)
    da = du + 3 * E * (1 + a)
    k = np.abs(y) / a
    if not phi.renorm:
        return k * (da + 2 * U * a)
    S = np.sum(a, axis=1, keepdims=True)
    rel = np.sum(da, axis=1, keepdims=True) / S + 2 * _gamma(a.shape[1]) + 6 * U
    return k * (da + a * rel)


def _positive_bound(phi, y, X, P, dP):
    if phi.kind == "favor":
        return _favor_bound(y, X, P, dP)
    if phi.kind == "softmaxfeat":
        return _softmax_bound(y, P, phi.tau, dP)
    return _activation_bound(phi, y, P, dP)


def _dot_bound(X, W):
    """|fl(X W) - fl'(X W)| for two float64 evaluations of length-k dot products in any order:
    2 gamma_k (|X| |W|)."""
    return 2 * _gamma(X.shape[1]) * (np.abs(X) @ np.abs(W))


def _sketch_parts(phi, X):
    """(z, rho, sigma) of the Yat sketch map in float64 NumPy and their bounds (dz, drho,
    dsigma): z = s cos(X Omega^T + beta), rho = x~ . r, sigma = x~ . s, x~ = [x; sqrt(b)]."""
    _, _, omega, beta, scale, R, S = phi._groups[0]
    Xt = np.concatenate([X, np.full((X.shape[0], 1), math.sqrt(phi.bias))], axis=1)
    theta = X @ omega.T + beta
    z = scale * np.cos(theta)
    dtheta = _dot_bound(X, omega.T) + 2 * U * np.abs(theta)
    dz = scale * (dtheta + E) + 2 * U * np.abs(z)
    return (z, Xt @ R.T, Xt @ S.T), (dz, _dot_bound(Xt, R.T), _dot_bound(Xt, S.T))


def _sketch_bound(phi, X, y):
    """y = z rho sigma: dz |rho sigma| + |z| (drho |sigma| + |rho| dsigma) + 4u |y|.  The
    kernel's rho is X R_x^T + sqrt(b) r_d, the reference's one product over d + 1 columns: two
    float64 dot products of length d + 1 (drho)."""
    (z, r, s), (dz, dr, ds) = _sketch_parts(phi, X)
    return dz * np.abs(r * s) + np.abs(z) * (dr * np.abs(s) + np.abs(r) * ds) + 4 * U * np.abs(y)


def _exact_bound(phi, X, y, dP):
    """y[i, (a (d+1) + c) M + f] = (x~_a x~_c) z_f: |x~_a x~_c| dz_f + 4u |y|."""
    _, _, omega, beta, scale = phi._groups[0]
    n, d = X.shape
    Xt = np.concatenate([X, np.full((n, 1), math.sqrt(phi.bias))], axis=1)
    theta = X @ omega.T + beta
    dz = scale * (dP + 2 * U * np.abs(theta) + E) + 2 * U * np.abs(scale * np.cos(theta))
    outer = np.abs(Xt[:, :, None] * Xt[:, None, :]).reshape(n, -1)
    return (outer[:, :, None] * dz[:, None, :]).reshape(n, -1) + 4 * U * np.abs(y)


# ------------------------------------------------------------------ the kernels, driven directly

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("form", ["phase", "sincos"])
def test_rff_kernels(form, dtype):
    """The elementwise RFF epilogues on the reference's own product P (dP = 0): 3 blocks of 16
    threads striding over the 37 x 50 (phase) or 37 x 25 (sincos) entries; float64 output is
    written over P."""
    phi = rff(D, F, gamma=0.7, form=form, orthogonal=form == "sincos", rng=2)
    X = _inputs()
    ref = phi(X, backend="reference")
    P = X @ phi.omega.T
    if form == "phase":
        Pd = dev(P)
        got = cf.phase_map(Pd, dev(phi.phase), math.sqrt(2.0 / F), dtype, threads=T, grid=G)
        bound = _phase_bound(P, phi.phase, math.sqrt(2.0 / F), 0.0)
        if dtype == np.float64:
            assert got is Pd
    else:
        got = cf.sincos_map(dev(P), math.sqrt(F // 2), dtype, threads=T, grid=G)
        bound = np.concatenate([_sincos_bound(P, math.sqrt(F // 2), 0.0)] * 2, axis=1)
    _assert_within(got, ref, bound, dtype)


def test_rff_kernel_default_launch():
    """The default launch: one entry per thread, 15 blocks of 128 for 1850 entries (the last
    block partial: 58 of its threads have an entry)."""
    phi = rff(D, F, gamma=0.7, rng=3)
    X = _inputs(seed=3)
    P = X @ phi.omega.T
    got = cf.phase_map(dev(P), dev(phi.phase), math.sqrt(2.0 / F), np.float64)
    _assert_within(got, phi(X, backend="reference"), _phase_bound(P, phi.phase, math.sqrt(2 / F), 0.0),
           np.float64)


#: The positive maps of the module table, every kind and scaling order.
POSITIVE = {
    "favor": lambda: favor_plus(D, F, rng=4),
    "softmaxfeat": lambda: positive_features(D, F, "softmaxfeat", tau=1.3, rng=4),
    "cos2": lambda: positive_features(D, F, "cos2", rng=4),
    "elu+1": lambda: positive_features(D, F, "elu+1", tau=0.8,
                                       bias=np.linspace(-1.0, 1.0, F), rng=4),
    "softplus": lambda: positive_features(D, F, "softplus", tau=1.3, rng=4),
    "porf-softplus-before": lambda: positive_features(D, F, "porf-softplus",
                                                      n_scale_order="before_renorm", rng=4),
    "sigmoid2": lambda: positive_features(D, F, "sigmoid2", rng=4),
    "sigmoid2-floor-after": lambda: positive_features(D, F, "sigmoid2", floor_sigmoid=True,
                                                      n_scale_order="after_renorm", rng=4),
    "softplus-no-renorm": lambda: positive_features(D, F, "softplus", renorm=False, rng=4),
    "elu+1-no-renorm-after": lambda: positive_features(D, F, "elu+1", renorm=False,
                                                       n_scale_order="after_renorm", rng=4),
}


def _positive_kernel(phi, X, P, dtype, **launch):
    return cf.positive_map(dev(P), dev(X), dev(phi.bias), phi.kind, phi.tau, phi.floor,
                           phi.renorm, phi.floor_sigmoid, phi.n_scale_order, dtype, **launch)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_positive_row_kernel(name, dtype):
    """One block of 16 threads per row, 3 blocks over 13 rows, on the reference's own product
    (dP = 0): the row norm (favor), max and sum (softmaxfeat) and l1 sums (renorm) reduced in
    shared memory, each row's passes over F = 50 (the last pass partial).  Rows 0-2 are scaled
    up (|x| ~ 3: exponents of several units, activations far from their linear parts)."""
    phi = POSITIVE[name]()
    X = _inputs(13, seed=5)
    X[:3] *= 6.0
    ref = phi(X, backend="reference")
    P = X @ phi.omega
    got = _positive_kernel(phi, X, P, dtype, threads=T, grid=G)
    _assert_within(got, ref, _positive_bound(phi, ref, X, P, 0.0), dtype)


def test_softmax_row_kernel_over_a_wide_range():
    """softmaxfeat with tau = 0.003: each row's u = P / tau spans 900-2100, so exp(u - c) is finite
    for every entry only with c the row's maximum (a wrong maximum overflows to inf or loses the
    row to 0/0); the shift cancels in e / sum(e) otherwise, so only this range tests it."""
    phi = positive_features(D, F, "softmaxfeat", tau=0.003, rng=4)
    X = _inputs(13, seed=10)
    ref = phi(X, backend="reference")
    P = X @ phi.omega
    assert np.all(np.ptp(P / phi.tau, axis=1) > 750)       # exp(750) overflows
    for dtype in (np.float64, np.float32):
        got = _positive_kernel(phi, X, P, dtype, threads=T, grid=G)
        _assert_within(got, ref, _softmax_bound(ref, P, phi.tau, 0.0), dtype)


@pytest.mark.parametrize("name", ["favor", "softplus"])
def test_positive_row_kernel_wide_input_and_default_launch(name):
    """d = 40 > 16 threads: FAVOR+'s ||x||^2 takes three strides of the block (the last
    partial) before its tree; then the default launch (one block of 64 threads per row, 7
    rows)."""
    phi = POSITIVE[name]() if name != "favor" else favor_plus(40, F, rng=6)
    X = _inputs(7, phi.d, seed=6, scale=0.3)
    ref = phi(X, backend="reference")
    P = X @ phi.omega
    for launch in (dict(threads=T, grid=G), {}):
        got = _positive_kernel(phi, X, P, np.float64, **launch)
        _assert_within(got, ref, _positive_bound(phi, ref, X, P, 0.0), np.float64)
    assert cf.row_threads(F) == 64 and cf.row_threads(3) == 32 and cf.row_threads(500) == 128
    with pytest.raises(ValueError, match="power of 2"):
        _positive_kernel(phi, X, P, np.float64, threads=24)


def test_float32_subnormal_outputs_are_kept():
    """FAVOR+ rows with exp(z) / sqrt(M) between 2^-149 and 2^-126: the kernel stores them as
    float32 subnormals (no flush to zero), equal to NumPy's rounding within the bound."""
    phi = favor_plus(D, F, rng=7)
    X = _inputs(4, seed=7)
    P = X @ phi.omega
    # shift the exponents so the row's values sit around 2^-140
    P = P - np.max(P, axis=1, keepdims=True) - 140 * math.log(2.0) + 0.5 * np.sum(X * X, 1)[:,
                                                                                         None]
    ref = np.exp(P - 0.5 * np.sum(X * X, axis=1, keepdims=True)) / math.sqrt(F)
    got = host(_positive_kernel(phi, X, P, np.float32, threads=T, grid=2))
    assert np.all(ref[:, :] < 2.0 ** -126)
    sub = ref > 2.0 ** -149
    assert sub.sum() > 20 and np.all(got[sub] > 0)
    _assert_within(got, ref, _favor_bound(ref, X, P, 0.0), np.float32)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bias", [0.0, 0.7])
def test_yat_sketch_kernel(bias, dtype):
    """laplace_mc, poly "sketch": the kernel's product X [Omega^T | R_x^T | S_x^T] plus the
    bias column sqrt(b) r_d against the reference's three products over x~ (b = 0: the same
    rho and sigma; b > 0: two dot products of length d + 1)."""
    phi = yat_features(D, F, eps=0.5, bias=bias, rng=8)
    X = _inputs(seed=8)
    ref = phi(X, backend="reference")
    _, _, omega, beta, scale, R, S = phi._groups[0]
    W = np.concatenate([omega.T, R[:, :D].T, S[:, :D].T], axis=1)
    sb = math.sqrt(bias)
    got = cf.sketch_map(dev(X @ W), dev(beta), dev(scale), dev(sb * R[:, D]), dev(sb * S[:, D]),
                        dtype, threads=T, grid=G)
    _assert_within(got, ref, _sketch_bound(phi, X, ref), dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_yat_exact_kernel(dtype):
    """poly "exact" (F = 2 (d+1)^2 = 72): out[i, (a (d+1) + c) M + f] = x~_a x~_c z_f; 37 x 72
    entries over 3 blocks of 16 threads, every index split (row, pair, frequency, a, c)."""
    phi = yat_features(D, 2 * (D + 1) ** 2, eps=0.5, bias=0.4, poly="exact", rng=9)
    X = _inputs(seed=9)
    ref = phi(X, backend="reference")
    _, _, omega, beta, scale = phi._groups[0]
    got = cf.exact_map(dev(X @ omega.T), dev(X), dev(beta), dev(scale), math.sqrt(0.4), dtype,
                       threads=T, grid=G)
    _assert_within(got, ref, _exact_bound(phi, X, ref, 0.0), dtype)


def test_empty_inputs():
    phi = favor_plus(D, F, rng=1)
    P = np.zeros((0, F))
    assert host(_positive_kernel(phi, np.zeros((0, D)), P, np.float32)).shape == (0, F)
    assert host(cf.phase_map(dev(P), dev(np.zeros(F)), 1.0, np.float32)).shape == (0, F)
    assert host(cf.sincos_map(dev(P), 1.0, np.float64)).shape == (0, 2 * F)


# ----------------------------------------------------------------- the registered 'cupy' rows


ROW_MAPS = {
    "rff-phase": lambda: rff(D, 24, gamma=0.5, rng=11),
    "orf-sincos": lambda: rff(D, 24, gamma=0.5, form="sincos", orthogonal=True, rng=12),
    "favor+": lambda: favor_plus(D, 24, rng=13),
    "softplus": lambda: positive_features(D, 24, "softplus", rng=14),
    "cos2": lambda: positive_features(D, 24, "cos2", rng=15),
    "yat-laplace_mc": lambda: yat_features(D, 24, eps=0.5, bias=0.5, rng=16),
    "yat-laplace_quadrature": lambda: yat_features(D, 24, eps=0.5, method="laplace_quadrature",
                                                   r2_max=16.0, rng=17),
    "yat-exact": lambda: yat_features(D, (D + 1) ** 2, eps=0.5, poly="exact", rng=18),
}


def _row_bound(phi, X, ref):
    """The kernel bound with dP for two products computed by different code (on a device cuBLAS
    against the CPU BLAS; here both NumPy, so dP over-covers)."""
    if hasattr(phi, "form"):
        W = phi.omega.T
        dP = _dot_bound(X, W)
        if phi.form == "phase":
            return _phase_bound(X @ W, phi.phase, math.sqrt(2.0 / phi.num_features), dP)
        m = W.shape[1]
        return np.concatenate([_sincos_bound(X @ W, math.sqrt(m), dP)] * 2, axis=1)
    if hasattr(phi, "kind"):
        return _positive_bound(phi, ref, X, X @ phi.omega, _dot_bound(X, phi.omega))
    if phi._groups[0][0] == "laplace_exact":
        return _exact_bound(phi, X, ref, _dot_bound(X, phi._groups[0][2].T))
    return _sketch_bound(phi, X, ref)


@pytest.mark.parametrize("name", sorted(ROW_MAPS))
def test_cupy_row_with_host_input_runs_the_fused_kernel(fake_cupy, name):
    """backend="cupy" on NumPy input: the registry's 'cupy' row copies X to the device once,
    runs the product and the kernel there and returns NumPy of the input's dtype (float32 in,
    float32 out, stored by the kernel), within the kernel bound; a 1-D input gives 1-D."""
    assert _registry.choose(ROW_MAPS[name]()._op, "auto", "cupy").backend == "cupy"
    phi = ROW_MAPS[name]()
    X = _inputs(9, seed=19)
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        ref = phi(Xd.astype(np.float64), backend="reference")
        copies = fake_cupy.copies
        got = phi(Xd, backend="cupy")
        assert type(got) is np.ndarray and fake_cupy.copies == copies + 1
        _assert_within(got, ref, _row_bound(phi, Xd.astype(np.float64), ref), dtype)
    one = phi(X[2], backend="cupy")
    ref1 = phi(X[2:3], backend="reference")
    assert one.shape == (phi.num_features,)
    _assert_within(one[None], ref1, _row_bound(phi, X[2:3], ref1), np.float64)


def test_cupy_row_of_the_spherical_yat_maps_runs_the_reference_on_the_device(fake_cupy):
    """The spherical methods (several small groups) run the reference inside the 'cupy' row:
    the same values (here the same NumPy code), NumPy out; an off-sphere row is refused as by
    the reference, also by the Laplace rows of a spherical map."""
    phi = yat_features(D, 40, eps=1.0, bias=0.5, spherical=True, method="series", rng=20)
    X = _inputs(6, seed=20)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    got = phi(X, backend="cupy")
    assert type(got) is np.ndarray and fake_cupy.copies == 1
    np.testing.assert_array_equal(got, phi(X, backend="reference"))
    lq = yat_features(D, 24, eps=0.5, spherical=True, method="laplace_quadrature", rng=21)
    for m in (phi, lq):
        with pytest.raises(ValueError, match="unit-norm"):
            m(3.0 * X, backend="cupy")


def test_the_rows_are_private_and_cache_their_stacked_weights(fake_cupy):
    """The public __call__ is not a row; the sketch's stacked (d, 3M) matrix is built once per
    map (and so copied to a device once per map, by ``_array.parameter``)."""
    for op in ("features.RandomFourierFeatures.__call__", "features.PositiveFeatures.__call__",
               "features.YatFeatures.__call__"):
        rows = {i.backend: i for i in _registry.implementations(op)}
        assert set(rows) == {"reference", "cupy"} and rows["cupy"].host_input
        assert rows["cupy"].func.__name__.startswith("_")
    phi = ROW_MAPS["yat-laplace_mc"]()
    phi(_inputs(3), backend="cupy")
    W = phi._derived["sketch_W"]
    phi(_inputs(4), backend="cupy")
    assert phi._derived["sketch_W"] is W and not W.flags.writeable and W.shape == (D, 72)
