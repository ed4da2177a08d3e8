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

Composite rows (``RTOL_OP``, read through :func:`rtol_for`; an override only loosens).
``conv2d`` runs other code than NumPy's on every other library (a stacked patch matrix and one
matmul instead of sliding_window_view + tensordot; GEMMs of d = C kh kw <= 18 terms summed in
another order), and the attention backwards' Y3 part is the Numba pass for NumPy but the array
API reference of ``yat.layer_backward`` elsewhere: so ``array_api_strict`` too gets ``RTOL_OTHER``
there, not the same-operations 8 u.  The softmax / softermax rows, linear attention (float64
sums), the simplex rows (SciPy's rel_entr/xlogy for NumPy, the same definitions with ``where``
elsewhere: logarithms within ~1 ulp, so a few u) and ntk_gram (host draws, the same arithmetic)
stay within the defaults.  Multi-head attention and the attention backwards in float32 chain
~10 float32 GEMMs and reductions (projections, scores, normalisation, Y3 backward, head merge)
whose terms partly cancel; each adds <= k u32 (sum |terms| / |result|), measured at most ~100 u32
relative to the largest |entry| on this data (multihead backward, PyTorch), so they get
``RTOL_F32_CHAIN`` = 2^-15 = 512 u32 (5x margin).  So does ``conv2d`` in float32: its dots are
a float32 GEMM (not float64 sums rounded once), so the kernel module's bound
4 (d + 4) u32 (cond + 8) with d = 18 applies per entry (measured <= 7 u32 here).

A second part tests each definition of the two shared formulas -- the finishing step
K = N (N / D) with the inner/outer bias and the repair rule of the expanded form -- in Python
(``_reference``), Numba (``_numba_kernels``) and CUDA (``_cuda_kernels``, in test_cuda_kernels.py)
against the float64 reference on hard inputs (near-coincident, orthogonal, huge and tiny norms).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import yatmath.yat as yat
from yatmath import _array
from yatmath._registry import ANY, implementations
from yatmath.yat import _reference as ref

U64 = 2.0 ** -53
RTOL_STRICT = 8 * U64
RTOL_OTHER = 1e-12
RTOL_F32 = 2.0 ** -22
RTOL_F32_CHAIN = 2.0 ** -15
#: op -> {dtype: rtol} for the composite rows (module docstring)
RTOL_OP = {"yat.conv2d": {"float64": RTOL_OTHER, "float32": RTOL_F32_CHAIN},
           "yat.attention_backward": {"float64": RTOL_OTHER, "float32": RTOL_F32_CHAIN},
           "yat.multihead_attention": {"float32": RTOL_F32_CHAIN},
           "yat.multihead_attention_backward": {"float64": RTOL_OTHER,
                                                "float32": RTOL_F32_CHAIN}}


def rtol_for(op, library, dtype):
    """The tolerance of a row of ``op`` on ``library`` in ``dtype`` (module docstring)."""
    if dtype == "float32":
        default = RTOL_F32
    else:
        default = RTOL_STRICT if library == "array_api_strict" else RTOL_OTHER
    return max(default, RTOL_OP.get(op, {}).get(dtype, 0.0))


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
# --- attention, linear attention, conv2d, simplex, ntk_gram (derived from the data above)
Q3, K3, V3 = np.stack([X, 0.5 * X[::-1]]), np.stack([W, W[::-1]]), np.stack([V, 2.0 * V])
DO3 = np.stack([X[:, :3], X[:, 2:]])                     # dL/dO for Q3, K3, V3: (2, 7, 3)
MASK = np.add.outer(np.arange(7), np.arange(6)) % 3 != 0  # every row keeps 4 of its 6 keys
CONV_IMG = np.stack([X, X * X - 1.0])[None]                # (1, 2, 7, 5)
CONV_F = np.concatenate([W.ravel(), X.ravel()])[:54].reshape(3, 2, 3, 3)
# filter 0 within 1e-4 of a patch: there D = ||patch - F||^2 + eps ~ 1e-6, which the expanded
# form gets only to ~1e-9 relative; the repaired (direct) D makes it the largest entry, exact
CONV_F[0] = CONV_IMG[0, :, 1:4, 0:3] + 1e-4 * W.ravel()[:18].reshape(2, 3, 3)
SIMPLEX_P = NONNEG / NONNEG.sum(axis=1, keepdims=True)    # with exact zeros (0 ln 0 = 0)
SIMPLEX_Q = np.abs(np.concatenate([W[:4], V[:4, :1]], axis=1)) + 0.05
SIMPLEX_Q /= SIMPLEX_Q.sum(axis=1, keepdims=True)         # > 0: every result finite


def _positive_map():
    from yatmath.features import PositiveFeatures

    return PositiveFeatures(5, 16, rng=3)   # drawn once on the host; phi(X) in X's library


PHI = _positive_map()


def _attention_grads(a, dt, **kw):
    _, cache = yat.attention(a(Q3, dt), a(K3, dt), a(V3, dt), 0.3, return_cache=True,
                             backend="reference", **kw)
    g = yat.attention_backward(a(DO3, dt), cache)
    return g.Q, g.K, g.V


def _multihead(a, dt, grads):
    Y, cache = yat.multihead_attention(a(X, dt), a(W[:5, :4], dt), a(W[1:, :4], dt),
                                       a(W[:5, 1:], dt), a(V[:4], dt), num_heads=2, eps=0.3,
                                       causal=True, backend="reference", return_cache=True)
    if not grads:
        return Y
    g = yat.multihead_attention_backward(a(X[:, :3], dt), cache)
    return g.X, g.Wq, g.Wk, g.Wv, g.Wo


def _ntk(a, dt, **kw):
    from yatmath.yat.kernel import ntk_gram

    return ntk_gram(a(X, dt), 0.5, n_w=300, seed=4, chunk=128, **kw)


ROWS += [
    ("yat.attention", lambda a, dt: yat.attention(a(Q3, dt), a(K3, dt), a(V3, dt), 0.3,
                                                  mask=a(MASK, bool), backend="reference")),
    ("yat.attention", lambda a, dt: yat.attention(a(X[:6], dt), a(W, dt), a(V, dt), 0.3, True,
                                                  "softermax", "d", power=1.5, delta=0.2,
                                                  backend="reference")),
    ("yat.attention_backward", lambda a, dt: _attention_grads(a, dt, mask=a(MASK, bool))),
    ("yat.attention_backward", lambda a, dt: _attention_grads(a, dt, normalize="softermax",
                                                              power=2.0)),
    ("yat.multihead_attention", lambda a, dt: _multihead(a, dt, False)),
    ("yat.multihead_attention_backward", lambda a, dt: _multihead(a, dt, True)),
    ("yat.linear_attention", lambda a, dt: yat.linear_attention(a(X, dt), a(W, dt), a(V, dt),
                                                                PHI)),
    ("yat.linear_attention", lambda a, dt: yat.linear_attention(a(X[:6], dt), a(W, dt),
                                                                a(V[:, 0], dt), PHI, True,
                                                                chunk=4)),
    ("yat.conv2d", lambda a, dt: yat.conv2d(a(CONV_IMG, dt), a(CONV_F, dt), 1e-6)),
    ("yat.conv2d", lambda a, dt: yat.conv2d(a(CONV_IMG[0], dt), a(CONV_F[:, :, :2], dt), 0.3,
                                            stride=(2, 1), padding=(1, 2), dilation=(1, 2))),
    ("yat.simplex.simplex_product", lambda a, dt: yat.simplex.simplex_product(
        a(SIMPLEX_P, dt), a(SIMPLEX_Q, dt), 0.0)),
    ("yat.simplex.simplex_product", lambda a, dt: yat.simplex.simplex_product(
        a(SIMPLEX_P, dt), a(SIMPLEX_Q, dt), 0.1)),
    ("yat.simplex.kl_divergence", lambda a, dt: yat.simplex.kl_divergence(a(SIMPLEX_P, dt),
                                                                          a(SIMPLEX_Q, dt))),
    ("yat.simplex.cross_entropy", lambda a, dt: yat.simplex.cross_entropy(a(SIMPLEX_P, dt),
                                                                          a(SIMPLEX_Q, dt))),
    ("yat.simplex.entropy", lambda a, dt: yat.simplex.entropy(a(SIMPLEX_P, dt))),
    ("yat.ntk_gram", lambda a, dt: _ntk(a, dt)),
    ("yat.ntk_gram", lambda a, dt: _ntk(a, dt, terms=True)),
]
# --- the NMN layer (forward and backward through the array API reference on every library;
# NEAR_X[2] nearly coincides with W[1], so its D comes from the float64 direct form -- the
# repair, which other libraries place with layer._put_pairs' searchsorted select)
NEAR_X = X.copy()
NEAR_X[2] = W[1] * (1 + 1e-9)
LAYER_G = np.sin(np.arange(42.0)).reshape(7, 6)
#: float32 layer backward: computed in float32 (not float64 rounded once), so each dot and sum
#: of <= d + n = 11 terms may differ by ~11 u32 between libraries, and the GEMM form
#: P w - 2 q x cancels by up to r = N / D <= ~40 at the near pair (layer module docstring):
#: 11 u32 * 40 ~ 2.6e-5; measured <= 5e-6 (PyTorch) -> 2^-14 = 6.1e-5
RTOL_OP["yat.layer_backward"] = {"float32": 2.0 ** -14}


def _layer_grads(a, dt, x, bias, G, **kw):
    _, cache = yat.layer_forward(a(x, dt), a(W, dt), 0.3, bias, 0.7, backend="reference",
                                 return_cache=True, **kw)
    g = yat.layer_backward(a(G, dt), cache)
    return tuple(v for v in (g.X, g.W, g.bias) if v is not None) + (
        a(np.array([g.alpha, g.eps]), np.float64),)


ROWS += [
    ("yat.layer_forward", lambda a, dt: yat.layer_forward(a(X, dt), a(W, dt), 0.3, a(BIAS, dt),
                                                          0.7, backend="reference")),
    ("yat.layer_forward", lambda a, dt: yat.layer_forward(
        a(X[0], dt), a(W, dt), 0.3, 0.5, bias_mode="outer", scale_num="sqrt_n", reduce="sum",
        backend="reference")),
    ("yat.layer_backward", lambda a, dt: _layer_grads(a, dt, NEAR_X, a(BIAS, dt), LAYER_G)),
    ("yat.layer_backward", lambda a, dt: _layer_grads(
        a, dt, X[3], 0.5, np.array(1.3), bias_mode="outer", scale_num="sqrt_n", reduce="sum")),
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


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_array_api_strict(op, run, dtype):
    xs = pytest.importorskip("array_api_strict")
    dt = getattr(np, dtype)
    want = run(_numpy, dt)
    got = run(lambda a, d: xs.asarray(np.asarray(a, dtype=d)), dt)
    assert_matches(got, want, rtol_for(op, "array_api_strict", dtype),
             lambda g: type(g).__module__.startswith("array_api_strict"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_torch_cpu(op, run, dtype):
    torch = pytest.importorskip("torch")
    dt = getattr(np, dtype)
    want = run(_numpy, dt)
    got = run(lambda a, d: torch.asarray(np.asarray(a, dtype=d)), dt)
    assert_matches(got, want, rtol_for(op, "torch", dtype),
             lambda g: isinstance(g, torch.Tensor) and g.device.type == "cpu")


@pytest.mark.slow
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_jax_cpu(op, run):
    jax = pytest.importorskip("jax")
    enable_x64 = getattr(jax, "enable_x64", None)
    if enable_x64 is None:  # older JAX
        from jax.experimental import enable_x64

    want = run(_numpy, np.float64)
    with enable_x64():
        got = run(lambda a, d: jax.numpy.asarray(np.asarray(a, dtype=d)), np.float64)
        assert_matches(got, want, rtol_for(op, "jax", "float64"),
                       lambda g: isinstance(g, jax.Array))


def _libraries():
    """(name, asarray) of the installed libraries beside NumPy (float64)."""
    out = [("numpy", np.asarray)]
    for name in ("array_api_strict", "torch"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        out.append((name, mod.asarray))
    return out


@pytest.mark.parametrize("name, asarray", _libraries(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_simplex_conventions_on_every_library(name, asarray):
    # scipy.special's conventions, by hand: 0 ln 0 = 0, p_i > 0 = q_i gives +inf, NaN propagates,
    # Y(p, p) = +inf for eps = 0 -- from SciPy's ufuncs (NumPy) and the where-forms (others)
    p = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [np.nan, 0.5, 0.5]])
    q = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.3, 0.3, 0.4]])
    h = -(0.2 * math.log(0.2) + 0.3 * math.log(0.3) + 0.5 * math.log(0.5))
    want = {"kl": [math.inf, math.log(2), 0.0, math.nan],
            "ce": [math.inf, math.log(2), h, math.nan],
            "h": [math.log(2), 0.0, h, math.nan],
            "y_pp": [math.inf, math.inf, math.inf, math.nan]}
    P, Qa = asarray(p), asarray(q)
    got = {"kl": yat.simplex.kl_divergence(P, Qa), "ce": yat.simplex.cross_entropy(P, Qa),
           "h": yat.simplex.entropy(P), "y_pp": yat.simplex.simplex_product(P, P, 0.0)}
    for key, w in want.items():
        assert type(got[key]).__module__.split(".")[0] == type(P).__module__.split(".")[0]
        # three terms of size <= 1, each ln within ~1 ulp: 8 u absolute
        np.testing.assert_allclose(np.asarray(got[key]), w, rtol=0, atol=8 * U64, err_msg=key)


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
@pytest.mark.parametrize("op, run", ROWS, ids=IDS)
def test_cupy(op, run):
    if not _array.has_cupy():
        pytest.skip("needs CuPy and a CUDA device")
    cp = _array.cupy_module()
    want = run(_numpy, np.float64)
    got = run(lambda a, d: cp.asarray(np.asarray(a, dtype=d)), np.float64)
    assert_matches(tuple(g.get() if hasattr(g, "get") else g for g in _as_tuple(got)), want,
             RTOL_OTHER, lambda g: isinstance(g, np.ndarray))
