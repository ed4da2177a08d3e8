"""Every generic ``yatmath.yat`` operation on non-NumPy array libraries, against the NumPy result.

One row per operation (``ROWS``): ``run(asarray)`` builds the inputs from fixed NumPy data with
``asarray`` (the target library's constructor) and calls the public function.  Each row runs on
``array_api_strict`` (float64 and float32), PyTorch on the CPU and JAX on the CPU (float64 via
``jax.experimental.enable_x64``; those two skip where not installed) and is compared with the
NumPy float64 / float32 result; the result must be an array of the input's library.

Tolerances.  ``array_api_strict`` is NumPy underneath and the reference performs the same
operations in the same order, so float64 agrees to a few ulps (``RTOL_STRICT`` = 8 u, u = 2^-53,
relative to the largest |entry|).  PyTorch and JAX sum in another order (blocked / pairwise
reductions), so each dot and squared distance of d <= 8 terms may differ by ~d u relative to the
sum of |terms|; with the well-conditioned data below (entries O(1), cond <= ~10^2) that is
<= 1e-12 relative to the largest |entry| (``RTOL_OTHER``).  float32 results are the float64
reference rounded once to float32, so two libraries whose float64 values differ in the last bits
may round to neighbouring float32 numbers: 2 ulps of float32 (2^-22) relative.

A second part tests each definition of the two shared formulas -- the finishing step
K = N (N / D) with the inner/outer bias and the repair rule of the expanded form -- in Python
(``_reference``), Numba (``_numba_kernels``) and CUDA (``_cupy_kernels``, marked ``gpu``)
against the float64 reference on hard inputs (near-coincident, orthogonal, huge and tiny norms).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import yatmath.yat as yat
from yatmath import _backend
from yatmath._registry import ANY, implementations
from yatmath.yat import _reference as ref

U64 = 2.0 ** -53
RTOL_STRICT = 8 * U64
RTOL_OTHER = 1e-12
RTOL_F32 = 2.0 ** -22

_rng = np.random.default_rng(20240612)
X = _rng.standard_normal((7, 5))
W = _rng.standard_normal((6, 5))
V = _rng.standard_normal((6, 3))
BIAS = _rng.standard_normal(6)
NONNEG = np.abs(_rng.standard_normal((4, 6))) * 3.0
NONNEG[0, :2] = 0.0          # exact zeros (0^n, ln 0)
NONNEG[1] = [0.5, 1.0, 1.5, 2.0, 1e-3, 40.0]


def _grad_fields(g):
    return tuple(a for a in (g.w, g.x, g.eps, g.bias) if a is not None)


#: (op, run(asarray, dtype)) -- one row per generic operation of yatmath.yat
ROWS = [
    ("yat.product", lambda a, dt: yat.product(a(W, dt), a(X[:6], dt), 0.3)),
    ("yat.product", lambda a, dt: yat.product(a(W[None, :, :], dt), a(X[:, None, :], dt), 0.3,
                                              a(BIAS, dt), bias_mode="outer")),
    ("yat.gram", lambda a, dt: yat.gram(a(X, dt), a(W, dt), 0.3, a(BIAS, dt))),
    ("yat.gram", lambda a, dt: yat.gram(a(X, dt), None, 0.3, 0.7, bias_mode="outer")),
    ("yat.matvec", lambda a, dt: yat.matvec(a(X, dt), a(W, dt), a(V, dt), 0.3, a(BIAS, dt))),
    ("yat.matvec", lambda a, dt: yat.matvec(a(X, dt), a(W, dt), a(V[:, 0], dt), 0.3,
                                            tile=(3, 2))),
    ("yat.grad", lambda a, dt: _grad_fields(yat.grad(a(W, dt), a(X[:6], dt), 0.3,
                                                     a(BIAS, dt)))),
    ("yat.grad", lambda a, dt: _grad_fields(yat.grad(a(W[0], dt), a(X, dt), 0.3, 0.5,
                                                     bias_mode="outer"))),
    ("yat.softermax", lambda a, dt: yat.softermax(a(NONNEG, dt), 2.0, 0.5)),
    ("yat.softermax", lambda a, dt: yat.softermax(a(NONNEG, dt), 0.7, axis=0)),
    ("yat.soft_sigmoid", lambda a, dt: yat.soft_sigmoid(a(NONNEG, dt), 1.5)),
    ("yat.soft_tanh", lambda a, dt: yat.soft_tanh(a(NONNEG, dt), 2.5)),
]
IDS = [f"{op}-{k}" for k, (op, _) in enumerate(ROWS)]
#: generic rows with no array argument (nothing to convert)
NO_ARRAYS = {"yat.width_scale"}


def test_every_generic_yat_op_has_a_row():
    generic = {i.op for i in implementations() if i.op.startswith("yat.")
               and i.backend == "reference" and ANY in i.libraries}
    assert generic - NO_ARRAYS <= {op for op, _ in ROWS}, generic - {op for op, _ in ROWS}
    assert {"yat.product", "yat.gram", "yat.matvec", "yat.grad"} <= generic


def _as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def assert_matches(got, want, rtol, lib_check):
    got, want = _as_tuple(got), _as_tuple(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert lib_check(g), type(g)
        gn = np.asarray(g)
        assert gn.shape == w.shape and gn.dtype == w.dtype, (gn.shape, w.shape, gn.dtype, w.dtype)
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(gn, w, rtol=0, atol=rtol * max(scale, np.finfo(w.dtype).tiny))


def _numpy(a, dt):
    return np.asarray(a, dtype=dt)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_array_api_strict(op, run, dtype):
    xs = pytest.importorskip("array_api_strict")
    dt = getattr(np, dtype)
    want = run(_numpy, dt)
    got = run(lambda a, d: xs.asarray(np.asarray(a, dtype=d)), dt)
    assert_matches(got, want, RTOL_STRICT if dtype == "float64" else RTOL_F32,
             lambda g: type(g).__module__.startswith("array_api_strict"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_torch_cpu(op, run, dtype):
    torch = pytest.importorskip("torch")
    dt = getattr(np, dtype)
    want = run(_numpy, dt)
    got = run(lambda a, d: torch.asarray(np.asarray(a, dtype=d)), dt)
    assert_matches(got, want, RTOL_OTHER if dtype == "float64" else RTOL_F32,
             lambda g: isinstance(g, torch.Tensor) and g.device.type == "cpu")


@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_jax_cpu(op, run):
    jax = pytest.importorskip("jax")
    enable_x64 = getattr(jax, "enable_x64", None)
    if enable_x64 is None:  # older JAX
        from jax.experimental import enable_x64

    want = run(_numpy, np.float64)
    with enable_x64():
        got = run(lambda a, d: jax.numpy.asarray(np.asarray(a, dtype=d)), np.float64)
        assert_matches(got, want, RTOL_OTHER, lambda g: isinstance(g, jax.Array))


def test_compiled_backends_refuse_other_libraries():
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match=r"backend='numba' for yat.gram takes numpy arrays, "
                                         r"got array_api_strict arrays"):
        yat.gram(xs.asarray(X), xs.asarray(W), 0.3, backend="numba")
    with pytest.raises(ValueError, match=r"yat.conv2d has no 'numba' implementation"):
        yat.conv2d(np.ones((1, 4, 4)), np.ones((1, 1, 2, 2)), 0.1, backend="numba")


# ------------------------------------------------ one definition per language, on hard inputs

def _exact_finish(s, D, b=0.0, mode="inner"):
    """N^2 / D (+ b) in exact rational arithmetic, rounded once to float64 (inf beyond range)."""
    s, D, b = Fraction(s), Fraction(D), Fraction(b)
    N = s + b if mode == "inner" else s
    val = N * N / D + (b if mode == "outer" else 0)
    try:
        return float(val)
    except OverflowError:
        return math.inf if val > 0 else -math.inf


# (s, D): |s| ~ 1e160 with D ~ 1e300 and |s| ~ 1e-160 with D ~ 1e-300 (s^2 leaves the range,
# K does not), a nearly orthogonal pair (s ~ 0), ordinary values and a true overflow.
HARD_SD = [(1.3e160, 2.1e300), (-7.7e-161, 3.3e-300), (2.0e-300, 1.0), (0.0, 0.5),
           (3.7, 1.1), (-1e-12, 1e-8), (1e200, 1e-100)]


@pytest.mark.parametrize("mode", [None, "inner", "outer"])
def test_python_finish_on_hard_inputs(mode):
    # N (N / D) is two correctly rounded operations: <= 2 u relative (+1 u for the outer add)
    for s, D in HARD_SD:
        b = 0.25 if mode else 0.0
        got = float(ref.finish(np.float64(s), np.float64(D), b if mode else None,
                               mode or "inner"))
        want = _exact_finish(s, D, b, mode or "inner")
        if math.isinf(want):
            assert got == want
        else:
            assert abs(got - want) <= 4 * U64 * max(abs(want), 1e-300), (s, D, mode, got, want)


def test_numba_finish_matches_python():
    pytest.importorskip("numba")
    from yatmath.yat import _numba_kernels as nk

    for s, D in HARD_SD:
        for code, mode in ((0, None), (1, "inner"), (2, "outer")):
            py = float(ref.finish(np.float64(s), np.float64(D), 0.25 if mode else None,
                                  mode or "inner"))
            # the same two (three) IEEE operations in the same order: bit for bit
            assert nk._finish(s, D, 0.25, code) == py or (math.isnan(py) and math.isnan(
                nk._finish(s, D, 0.25, code)))


# (s, nrm) around the threshold t = nrm - 2 s = tau nrm, and NaN / inf cases
HARD_REPAIR = [(0.4375, 1.0), (0.4375 + 2 ** -40, 1.0), (0.4375 - 2 ** -40, 1.0), (0.5, 1.0),
               (0.0, 0.0), (-3.0, 1.0), (np.nan, 1.0), (1.0, np.inf), (-np.inf, 1.0),
               (1e308, 1e308), (0.49999, 1.0)]


def test_python_repair_rule():
    s = np.array([p[0] for p in HARD_REPAIR])
    nrm = np.array([p[1] for p in HARD_REPAIR])
    with np.errstate(invalid="ignore", over="ignore"):
        got = ref.needs_repair(s, nrm)
    # by hand: t = nrm - 2 s against tau nrm = nrm / 8 (exact: power of two)
    # (0, 0): t = 0 = tau nrm, kept; (1e308, 1e308): 2 s overflows, t = -inf, repaired
    want = [False, True, False, True, False, False, True, True, True, True, True]
    assert list(got) == want


def test_numba_repair_rule_matches_python():
    pytest.importorskip("numba")
    from yatmath.yat import _numba_kernels as nk

    for s, nrm in HARD_REPAIR:
        with np.errstate(invalid="ignore", over="ignore"):
            py = bool(ref.needs_repair(np.float64(s), np.float64(nrm)))
        assert nk._needs_repair(s, nrm, ref.REPAIR_TAU) == py, (s, nrm)


def _hard_pairs():
    """(X, W) rows: near-coincident (relative gap 1e-9), orthogonal, huge (1e150) and tiny
    (1e-150) norms, mixed magnitudes."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal((4, 16))
    near = base + 1e-9 * rng.standard_normal((4, 16))
    orth = np.zeros((2, 16))
    orth[0, 0], orth[1, 1] = 1.0, 1.0
    X = np.vstack([base, orth[:1], 1e150 * base[:1], 1e-150 * base[1:2], base[2:3]])
    W = np.vstack([near, orth[1:], 1e150 * near[:1], 1e-150 * near[1:2], 1e100 * base[3:]])
    return X, W


@pytest.mark.parametrize("method", ["direct", "expanded"])
@pytest.mark.parametrize("bias_mode", [None, "inner", "outer"])
def test_numba_gram_against_reference_on_hard_inputs(method, bias_mode):
    pytest.importorskip("numba")
    X, W = _hard_pairs()
    bias = None if bias_mode is None else 1e-3
    kw = dict(bias_mode=bias_mode or "inner", method=method)
    want = yat.gram(X, W, 1e-6, bias, backend="reference", **kw)
    got = yat.gram(X, W, 1e-6, bias, backend="numba", **kw)
    # kernel module bound: 4 (d + 4) u K (cond + 8) + ((d + 4) u |w||x|)^2 / D, with the dots in
    # float64; the GEMM's dot adds ~d u |w||x|, which the last term covers.
    d = X.shape[1]
    nx = np.linalg.norm(X, axis=1)[:, None] * np.linalg.norm(W, axis=1)[None, :]
    N = np.abs(X @ W.T) + (1e-3 if bias_mode == "inner" else 0.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        cond = np.where(N > 0, (nx + 1e-3) / N, np.inf)
        Dd = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + 1e-6
        tol = 4 * (d + 4) * U64 * np.abs(want) * (cond + 8) + ((d + 4) * U64 * nx) ** 2 / Dd
    fin = np.isfinite(want)
    assert np.array_equal(fin, np.isfinite(got))
    err = np.abs(got - want)
    ok = (err <= np.where(np.isfinite(tol), tol, np.inf)) | ~fin
    assert ok.all(), np.argwhere(~ok)


@pytest.mark.gpu
def test_cuda_finish_and_repair_match_python():
    if not _backend.has_cupy():
        pytest.skip("needs CuPy and a CUDA device")
    cp = _backend.cupy_module()
    from yatmath.yat import _cupy_kernels as ck

    s = cp.asarray([p[0] for p in HARD_SD])
    D = cp.asarray([p[1] for p in HARD_SD])
    for code, mode in ((0, None), (1, "inner"), (2, "outer")):
        got = ck.finish(s, D, cp.full(s.shape, 0.25), code).get()
        want = ref.finish(s.get(), D.get(), 0.25 if mode else None, mode or "inner")
        np.testing.assert_array_equal(got, want)
    rs = cp.asarray([p[0] for p in HARD_REPAIR])
    rn = cp.asarray([p[1] for p in HARD_REPAIR])
    with np.errstate(invalid="ignore", over="ignore"):
        want = ref.needs_repair(rs.get(), rn.get())
    np.testing.assert_array_equal(ck.needs_repair(rs, rn, ref.REPAIR_TAU).get(), want)


@pytest.mark.gpu
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_cupy(op, run):
    if not _backend.has_cupy():
        pytest.skip("needs CuPy and a CUDA device")
    cp = _backend.cupy_module()
    want = run(_numpy, np.float64)
    got = run(lambda a, d: cp.asarray(np.asarray(a, dtype=d)), np.float64)
    assert_matches(tuple(g.get() if hasattr(g, "get") else g for g in _as_tuple(got)), want,
             RTOL_OTHER, lambda g: isinstance(g, np.ndarray))
