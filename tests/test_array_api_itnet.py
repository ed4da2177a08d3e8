"""yatmath.itnet on every array API library: array_api_strict always, PyTorch and JAX on the CPU
where installed.  One row per registered operation whose reference accepts any library.

Tolerances.
* Generic operations (gelu, gelu_prime, fourier_lift, Measure.integrate) run in the caller's
  library.  array_api_strict is backed by NumPy and erfc goes through SciPy at its boundary, so the
  arithmetic is NumPy's: agreement to 4 ulps (4 u_dtype relative, with an absolute floor of 4 u_dtype
  times the output's largest magnitude for entries near 0).  PyTorch and JAX use their own
  libm (sin, cos, exp, tanh, erfc): a few ulps per call on arguments up to |2 pi X B^T| ~ 60, so
  1e-13 (float64) relative to the output's magnitude, 100x the ~1e-15 seen.
* Operations computed by the NumPy reference at the boundary (the kernel network, the operators,
  every evaluation mode) do the same float64 NumPy arithmetic on an exact copy: equal bit for bit
  (tolerance 0); what these rows test is the round trip: the result comes back in the caller's
  library, on its device, with the dtype the NumPy reference gives.
"""
from __future__ import annotations

import numpy as np
import pytest

from yatmath import _backend as be
from yatmath import _registry as R
from yatmath import itnet as it
from yatmath.itnet._dispatch import to_numpy

GENERIC = {"itnet.gelu", "itnet.gelu_prime", "itnet.fourier_lift", "itnet.Measure.integrate"}

_rng = np.random.default_rng(2024)
N, D, S = 9, 2, 2
X = _rng.uniform(size=(N, S))
MU = it.Measure(X, _rng.uniform(0.5, 1.5, N) / N)
U = _rng.normal(size=(N, D))
G = _rng.normal(size=(N, D))
XQ, UQ = _rng.uniform(size=(4, S)), _rng.normal(size=(4, D))
NET = it.random_kernel_mlp(D, S, width=6, L=3, rng=_rng)
OP = it.ITNetOperator(NET, _rng.normal(size=(D, D)))
MH = it.MultiHeadOperator([it.random_kernel_mlp(1, S, width=4, L=2, rng=_rng) for _ in range(2)],
                          _rng.normal(size=(D, D)), _rng.normal(size=(D, D)), causal=True)
FAC = it.init_factor_mlp(D, S, 3, width=5, L=2, rng=_rng)
LR = it.LowRankOperator(FAC, FAC, _rng.normal(size=(D, D)), 3, D)
K4 = NET.kernel(X[:5], X[:4], U[:5], U[:4])
# hard inputs for GELU: the erfc tail (gelu(-10) ~ -7.6e-23), the underflowing tail of phi,
# the infinite limits, and 0
A = np.array([-np.inf, -40.0, -10.0, -3.0, -1e-300, 0.0, 1e-8, 0.5, 3.0, 40.0, np.inf])
XB = _rng.normal(size=(6, S)) * 5.0
BB = _rng.normal(size=(4, S)) * 2.0

#: (op, builder): builder(to) runs the operation on arrays passed through ``to`` (numpy -> library)
ROWS = [
    ("itnet.gelu", lambda to: it.gelu(to(A))),
    ("itnet.gelu_prime", lambda to: it.gelu_prime(to(A))),
    ("itnet.fourier_lift", lambda to: it.fourier_lift(to(XB), to(BB))),
    ("itnet.Measure.integrate", lambda to: MU.integrate(to(U))),
    ("itnet.KernelMLP.inputs", lambda to: NET.inputs(to(X), to(X[:3]), to(U), to(U[:3]))),
    ("itnet.KernelMLP.pair_inputs", lambda to: NET.pair_inputs(to(X), to(X[::-1]), to(U), to(U))),
    ("itnet.KernelMLP.kernel_pairs", lambda to: NET.kernel_pairs(to(X), to(X[::-1]), to(U), to(U))),
    ("itnet.KernelMLP.preactivation", lambda to: NET.preactivation(to(X), to(X), to(U), to(U))),
    ("itnet.KernelMLP.hidden", lambda to: NET.hidden(to(X), to(X), to(U), to(U))),
    ("itnet.KernelMLP.kernel", lambda to: NET(to(X), to(X[:4]), to(U), to(U[:4]))),
    ("itnet.KernelMLP.query_part", lambda to: NET.query_part(to(X), to(U))),
    ("itnet.KernelMLP.key_part", lambda to: NET.key_part(to(X), to(U))),
    ("itnet.KernelMLP.trig", lambda to: NET.trig(to(X))),
    ("itnet.kernel_tensor", lambda to: it.kernel_tensor(MH, to(X), to(X), to(U), to(U))),
    ("itnet.apply_kernel_tensor",
     lambda to: it.apply_kernel_tensor(to(K4), to(U[:4]), to(MU.weights[:4]), Uq=to(U[:5]),
                                       W=to(OP.W))),
    ("itnet.FactorMLP.__call__", lambda to: FAC(to(X), to(U))),
    ("itnet.LowRankOperator.factors", lambda to: LR.factors(to(X), to(X), to(U), to(U))),
    ("itnet.LowRankOperator.kernel_tensor", lambda to: LR.kernel_tensor(to(X), to(X), to(U), to(U))),
    ("itnet.svd_factors", lambda to: it.svd_factors(to(K4), 3)),
    ("itnet.apply.dense", lambda to: it.apply(MH, to(U), MU)),
    ("itnet.apply.tiled", lambda to: it.apply(OP, to(U), MU, mode="tiled", tile=(4, 3),
                                              Xq=to(XQ), Uq=to(UQ), backend="reference")),
    ("itnet.apply.mc", lambda to: it.apply(OP, to(U), MU, mode="mc", M=5, rng=3,
                                           proposal="gaussian")),
    ("itnet.apply.lowrank", lambda to: it.apply(LR, to(U), MU, mode="lowrank")),
    ("itnet.grad.dense", lambda to: it.grad(OP, to(U), MU, to(G))),
    ("itnet.grad.tiled", lambda to: it.grad(MH, to(U), MU, to(G), mode="tiled", tile=4,
                                            backend="numpy")),
]
FLOAT32 = [r for r in ROWS if r[0] in ("itnet.gelu", "itnet.gelu_prime", "itnet.fourier_lift")]


def _leaves(obj):
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _leaves(v)]
    if isinstance(obj, (list, tuple)):
        return [x for v in obj for x in _leaves(v)]
    return [obj]


def _library(name):
    """(library name, numpy -> library converter, library dtype of float32)."""
    if name == "array_api_strict":
        xp = pytest.importorskip("array_api_strict")
        return name, xp.asarray, xp.float32
    if name == "torch":
        torch = pytest.importorskip("torch")
        return name, torch.asarray, torch.float32
    jax = pytest.importorskip("jax")
    return name, jax.numpy.asarray, jax.numpy.float32


@pytest.fixture
def x64():
    """JAX computes in float32 unless x64 is on: on for the test, restored after."""
    try:
        import jax
    except ImportError:
        yield
        return
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)


def assert_matches_numpy(op, build, lib, to, dtype_np):
    ref = build(lambda a: np.asarray(a, dtype=dtype_np))
    got = build(lambda a: to(np.array(a, dtype=dtype_np)))   # a fresh C-order copy
    ref_l, got_l = _leaves(ref), _leaves(got)
    assert len(ref_l) == len(got_l)
    eps = np.finfo(dtype_np).eps
    for r, g in zip(ref_l, got_l):
        if not isinstance(r, np.ndarray):
            assert g == r
            continue
        assert be.library(g) == lib, (op, type(g))           # the caller's library comes back
        h = to_numpy(g)
        assert h.dtype == r.dtype and h.shape == r.shape, (op, h.dtype, r.dtype, h.shape, r.shape)
        if op not in GENERIC:
            np.testing.assert_array_equal(h, r, err_msg=op)  # same NumPy arithmetic on a copy
            continue
        tol = 4 * eps if lib == "array_api_strict" else (1e-13 if dtype_np == np.float64 else 1e-5)
        scale = float(np.max(np.abs(r[np.isfinite(r)]), initial=0.0))
        np.testing.assert_allclose(h, r, rtol=tol, atol=tol * scale, err_msg=op)


@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
@pytest.mark.parametrize("op,build", ROWS, ids=[r[0] for r in ROWS])
def test_float64_matches_numpy(op, build, lib, x64):
    lib, to, _ = _library(lib)
    assert_matches_numpy(op, build, lib, to, np.float64)


@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
@pytest.mark.parametrize("op,build", FLOAT32, ids=[r[0] for r in FLOAT32])
def test_float32_stays_float32(op, build, lib):
    lib, to, _ = _library(lib)
    assert_matches_numpy(op, build, lib, to, np.float32)


def test_every_generic_itnet_row_is_covered():
    listed = {op for op, _ in ROWS}
    rows = {i.op for i in R.implementations() if i.op.startswith("itnet.")
            and i.backend == "reference" and i.accepts("some_other_library")}
    assert rows == listed, (rows - listed, listed - rows)
    assert GENERIC <= rows


def test_gelu_hard_inputs_keep_their_limits_on_strict():
    xps = pytest.importorskip("array_api_strict")
    g = to_numpy(it.gelu(xps.asarray(A)))
    gp = to_numpy(it.gelu_prime(xps.asarray(A)))
    assert g[0] == 0.0 and g[-1] == np.inf and gp[0] == 0.0 and gp[-1] == 1.0
    assert not np.isnan(g).any() and not np.isnan(gp).any()
    # the erfc tail keeps its relative accuracy: gelu(-10) = -10 Phi(-10) = -7.6198530241605e-23
    assert abs(g[2] / -7.619853024160527e-23 - 1) < 1e-13


def test_backend_is_honoured_or_refused_per_mode_and_library():
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match="backend='numba' for itnet.apply.tiled takes numpy "
                                         "arrays, got array_api_strict"):
        it.apply(OP, xps.asarray(U), MU, mode="tiled", backend="numba")
    with pytest.raises(ValueError, match="mode='dense'.*itnet.apply.dense has no 'numba'"):
        it.apply(OP, U, MU, backend="numba")
    with pytest.raises(ValueError, match="mode='tiled'.*itnet.grad.tiled has no 'cupy'"):
        it.grad(OP, U, MU, G, mode="tiled", backend="cupy")
    # numba (when installed) and reference give the same tiled result on NumPy arrays
    ref = it.apply(OP, U, MU, mode="tiled", backend="reference")
    np.testing.assert_array_equal(ref, it.apply(OP, U, MU, mode="tiled", backend="numpy"))
    if R.libraries_available()["numba"]:
        nb = it.apply(OP, U, MU, mode="tiled", backend="numba")
        assert np.abs(nb - ref).max() <= 1e-12 * np.abs(ref).max()   # summation order only


@pytest.mark.gpu
def test_cupy_generic_ops_stay_on_the_device():
    cp = pytest.importorskip("cupy")
    for op, build in ROWS:
        if op in GENERIC:
            out = build(cp.asarray)
            assert all(be.library(x) == "cupy" for x in _leaves(out)), op
