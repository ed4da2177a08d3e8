"""yatmath.itnet on every array API library: array_api_strict always, PyTorch and JAX on the CPU
where installed.  One row (at least) per registered operation whose reference accepts any library;
every evaluation mode of ``apply`` (dense, tiled, mc, lowrank) and ``grad`` (dense, tiled) has rows
(single and multi-head, causal, separate queries).

Tolerances (relative to each output leaf's largest magnitude, and relative entrywise).
* Generic operations (everything but ``BOUNDARY``) run in the caller's library.
  - Elementwise rows (:data:`ELEMENTWISE`: GELU, the Fourier lift, the network's input rows) on
    array_api_strict do NumPy's arithmetic (erfc through SciPy at its boundary): 4 u_dtype.
  - Rows with contractions: :func:`yatmath.itnet._xp_ops.einsum` is ``numpy.einsum`` for NumPy
    but batched ``matmul`` elsewhere, so sums run in another order: the error is bounded by
    (number of terms) u times the sum of the terms' magnitudes; here at most ~60 terms per sum
    with terms up to ~5 times the output scale, i.e. ~3e-14.  PyTorch and JAX also use their own
    libm (sin, cos, exp, tanh, erfc: a few ulps on arguments up to |2 pi X B^T| ~ 60, ~1e-15
    relative to the output).  Tolerance 1e-13 in float64 (the worst seen is 9e-16) and 1e-5 in
    float32 (worst seen 5e-7: float32 sines of arguments ~60 lose ~2^6 ulps).
  - Monte Carlo rows draw their indices on the host with NumPy's Generator from the pmf table, so
    the same keys are drawn on every library (checked directly below) and the same tolerance holds.
* ``BOUNDARY`` rows (LAPACK, NumPy at the boundary) do the same float64 NumPy arithmetic on an exact
  copy: equal bit for bit (tolerance 0); these rows test the round trip.
"""
from __future__ import annotations

import numpy as np
import pytest

from yatmath import _array as ya
from yatmath import _registry as R
from yatmath import itnet as it


def to_numpy(a):
    """A NumPy copy of an array of any library (the host boundary's copy)."""
    return np.array(ya.to_host(a), copy=True)

#: rows that stay NumPy at the boundary (LAPACK): bit for bit the NumPy result on a copy
BOUNDARY = {"itnet.svd_factors"}
#: rows without a contraction that could be reordered: NumPy's arithmetic on array_api_strict
ELEMENTWISE = {"gelu", "gelu_prime", "fourier_lift", "inputs", "pair_inputs", "trig"}

_rng = np.random.default_rng(2024)
N, D, S = 9, 2, 2
X = _rng.uniform(size=(N, S))
MU = it.Measure(X, _rng.uniform(0.5, 1.5, N) / N)
U = _rng.normal(size=(N, D))
G = _rng.normal(size=(N, D))
XQ, UQ, GQ = _rng.uniform(size=(4, S)), _rng.normal(size=(4, D)), _rng.normal(size=(4, D))
NET = it.random_kernel_mlp(D, S, width=6, L=3, rng=_rng)
OP = it.ITNetOperator(NET, _rng.normal(size=(D, D)))
MH = it.MultiHeadOperator([it.random_kernel_mlp(1, S, width=4, L=2, rng=_rng) for _ in range(2)],
                          _rng.normal(size=(D, D)), _rng.normal(size=(D, D)), causal=True)
FAC = it.init_factor_mlp(D, S, 3, width=5, L=2, rng=_rng)
LR = it.LowRankOperator(FAC, FAC, _rng.normal(size=(D, D)), 3, D)
FAC2 = it.init_factor_mlp(D, S, 2, width=5, L=2, rng=_rng)
LR2 = it.LowRankOperator(FAC2, FAC2, _rng.normal(size=(D, D)), 2, D, heads=2, causal=True,
                         diag_weight=0.5)
K4 = NET.kernel(X[:5], X[:4], U[:5], U[:4])
PMF = _rng.uniform(0.1, 1.0, size=(4, N))
PMF /= PMF.sum(axis=1, keepdims=True)
# hard inputs for GELU: the erfc tail (gelu(-10) ~ -7.6e-23), the underflowing tail of phi,
# the infinite limits, and 0
A = np.array([-np.inf, -40.0, -10.0, -3.0, -1e-300, 0.0, 1e-8, 0.5, 3.0, 40.0, np.inf])
XB = _rng.normal(size=(6, S)) * 5.0
BB = _rng.normal(size=(4, S)) * 2.0

#: (id, op, builder): builder(to) runs the operation on arrays passed through ``to`` (numpy ->
#: library); several rows may exercise one registered op (the id tells them apart)
ROWS = [
    ("gelu", "itnet.gelu", lambda to: it.gelu(to(A))),
    ("gelu_prime", "itnet.gelu_prime", lambda to: it.gelu_prime(to(A))),
    ("fourier_lift", "itnet.fourier_lift", lambda to: it.fourier_lift(to(XB), to(BB))),
    ("integrate", "itnet.Measure.integrate", lambda to: MU.integrate(to(U))),
    ("inputs", "itnet.KernelMLP.inputs", lambda to: NET.inputs(to(X), to(X[:3]), to(U), to(U[:3]))),
    ("pair_inputs", "itnet.KernelMLP.pair_inputs",
     lambda to: NET.pair_inputs(to(X), to(X[::-1]), to(U), to(U))),
    ("kernel_pairs", "itnet.KernelMLP.kernel_pairs",
     lambda to: NET.kernel_pairs(to(X), to(X[::-1]), to(U), to(U))),
    ("preactivation", "itnet.KernelMLP.preactivation",
     lambda to: NET.preactivation(to(X), to(X), to(U), to(U))),
    ("hidden", "itnet.KernelMLP.hidden", lambda to: NET.hidden(to(X), to(X), to(U), to(U))),
    ("kernel", "itnet.KernelMLP.kernel", lambda to: NET(to(X), to(X[:4]), to(U), to(U[:4]))),
    ("query_part", "itnet.KernelMLP.query_part", lambda to: NET.query_part(to(X), to(U))),
    ("key_part", "itnet.KernelMLP.key_part", lambda to: NET.key_part(to(X), to(U))),
    ("trig", "itnet.KernelMLP.trig", lambda to: NET.trig(to(X))),
    ("kernel_tensor", "itnet.kernel_tensor",
     lambda to: it.kernel_tensor(MH, to(X), to(X), to(U), to(U))),
    ("apply_kernel_tensor", "itnet.apply_kernel_tensor",
     lambda to: it.apply_kernel_tensor(to(K4), to(U[:4]), to(MU.weights[:4]), Uq=to(U[:5]),
                                       W=to(OP.W))),
    ("factor_mlp", "itnet.FactorMLP.__call__", lambda to: FAC(to(X), to(U))),
    ("lowrank_factors", "itnet.LowRankOperator.factors",
     lambda to: LR2.factors(to(X), to(X), to(U), to(U))),
    ("lowrank_kernel_tensor", "itnet.LowRankOperator.kernel_tensor",
     lambda to: LR.kernel_tensor(to(X), to(X), to(U), to(U))),
    ("svd_factors", "itnet.svd_factors", lambda to: it.svd_factors(to(K4), 3)),
    # every evaluation mode of apply and grad
    ("apply.dense-multihead-causal", "itnet.apply.dense", lambda to: it.apply(MH, to(U), MU)),
    ("apply.dense-queries", "itnet.apply.dense",
     lambda to: it.apply(OP, to(U), MU, Xq=to(XQ), Uq=to(UQ))),
    ("apply.dense-lowrank-causal", "itnet.apply.dense", lambda to: it.apply(LR2, to(U), MU)),
    ("apply.tiled-queries", "itnet.apply.tiled",
     lambda to: it.apply(OP, to(U), MU, mode="tiled", tile=(4, 3), Xq=to(XQ), Uq=to(UQ),
                         backend="reference")),
    ("apply.tiled-multihead-causal-unfactorised", "itnet.apply.tiled",
     lambda to: it.apply(MH, to(U), MU, mode="tiled", tile=(2, 4), factorised=False)),
    ("apply.mc-gaussian", "itnet.apply.mc",
     lambda to: it.apply(OP, to(U), MU, mode="mc", M=5, rng=3, proposal="gaussian")),
    ("apply.mc-without-replacement", "itnet.apply.mc",
     lambda to: it.apply(MH, to(U), MU, mode="mc", M=4, rng=7, replace=False)),
    ("apply.mc-proposal-array", "itnet.apply.mc",
     lambda to: it.apply(OP, to(U), MU, mode="mc", M=6, rng=1, Xq=to(XQ), Uq=to(UQ),
                         proposal=to(PMF), eps_mix=0.1)),
    ("apply.lowrank", "itnet.apply.lowrank", lambda to: it.apply(LR, to(U), MU, mode="lowrank")),
    ("apply.lowrank-causal-heads", "itnet.apply.lowrank",
     lambda to: it.apply(LR2, to(U), MU, mode="lowrank")),
    ("grad.dense", "itnet.grad.dense", lambda to: it.grad(OP, to(U), MU, to(G))),
    ("grad.dense-multihead-causal", "itnet.grad.dense", lambda to: it.grad(MH, to(U), MU, to(G))),
    ("grad.dense-queries", "itnet.grad.dense",
     lambda to: it.grad(OP, to(U), MU, to(GQ), Xq=to(XQ), Uq=to(UQ))),
    ("grad.tiled-multihead-causal", "itnet.grad.tiled",
     lambda to: it.grad(MH, to(U), MU, to(G), mode="tiled", tile=4, backend="numpy")),
    ("grad.tiled-queries", "itnet.grad.tiled",
     lambda to: it.grad(OP, to(U), MU, to(GQ), Xq=to(XQ), Uq=to(UQ), mode="tiled", tile=(3, 4))),
]
FLOAT32 = [r for r in ROWS if r[0] in ("gelu", "gelu_prime", "fourier_lift", "apply.tiled-queries")]


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
    if name == "cupy":
        cp = ya.cupy_module()
        return name, cp.asarray, cp.float32
    jax = pytest.importorskip("jax")
    return name, jax.numpy.asarray, jax.numpy.float32


def assert_matches_numpy(rid, op, build, lib, to, dtype_np):
    ref = build(lambda a: np.asarray(a, dtype=dtype_np))
    got = build(lambda a: to(np.array(a, dtype=dtype_np)))   # a fresh C-order copy
    ref_l, got_l = _leaves(ref), _leaves(got)
    assert len(ref_l) == len(got_l)
    eps = np.finfo(dtype_np).eps
    for r, g in zip(ref_l, got_l):
        if not isinstance(r, np.ndarray):
            assert g == r
            continue
        assert ya.library_name(ya.namespace(g)) == lib, (rid, type(g))   # the caller's library
        h = to_numpy(g)
        assert h.dtype == r.dtype and h.shape == r.shape, (rid, h.dtype, r.dtype, h.shape, r.shape)
        if op in BOUNDARY:
            np.testing.assert_array_equal(h, r, err_msg=rid)  # same NumPy arithmetic on a copy
            continue
        if lib == "array_api_strict" and rid in ELEMENTWISE:
            tol = 4 * eps
        else:
            tol = 1e-13 if dtype_np == np.float64 else 1e-5
        scale = float(np.max(np.abs(r[np.isfinite(r)]), initial=0.0))
        np.testing.assert_allclose(h, r, rtol=tol, atol=tol * scale, err_msg=rid)


@pytest.mark.slow
@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
@pytest.mark.parametrize("rid,op,build", ROWS, ids=[r[0] for r in ROWS])
def test_float64_matches_numpy(rid, op, build, lib, x64):
    lib, to, _ = _library(lib)
    assert_matches_numpy(rid, op, build, lib, to, np.float64)


# JAX without x64 has no float64: the tiled row's float64 per-point pieces are float32 there (JAX
# warns), still within the float32 tolerance
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")
@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
@pytest.mark.parametrize("rid,op,build", FLOAT32, ids=[r[0] for r in FLOAT32])
def test_float32_stays_float32(rid, op, build, lib):
    lib, to, _ = _library(lib)
    assert_matches_numpy(rid, op, build, lib, to, np.float32)


def test_every_generic_itnet_row_is_covered():
    listed = {op for _, op, _ in ROWS}
    rows = {i.op for i in R.implementations() if i.op.startswith("itnet.")
            and i.backend == "reference" and i.accepts("some_other_library")}
    assert rows == listed, (rows - listed, listed - rows)
    assert BOUNDARY <= rows
    modes = {op for op in rows if op.startswith(("itnet.apply.", "itnet.grad."))}
    want = {f"itnet.apply.{m}" for m in it.MODES} | {"itnet.grad.dense", "itnet.grad.tiled"}
    assert modes == want


def test_registry_notes_say_what_is_generic_and_what_stays_on_the_host():
    """A generic row's note says so; the Monte Carlo row names its host draw; the boundary row
    names the boundary; no generic row still claims a NumPy boundary."""
    notes = {i.op: i.note for i in R.implementations() if i.op.startswith("itnet.")
             and i.backend == "reference" and i.accepts("some_other_library")}
    for op, note in notes.items():
        if op in BOUNDARY:
            assert "boundary" in note, (op, note)
        else:
            assert "array API generic" in note and "converted to NumPy" not in note, (op, note)
    assert "host" in notes["itnet.apply.mc"] and "Generator" in notes["itnet.apply.mc"]


_NO_HOST_ROWS = [r for r in ROWS if r[1].startswith(("itnet.apply.", "itnet.grad."))]


@pytest.mark.filterwarnings("ignore:torch.asarray. unspecified requires_grad")
@pytest.mark.parametrize("rid,op,build", _NO_HOST_ROWS, ids=[r[0] for r in _NO_HOST_ROWS])
def test_torch_evaluation_never_copies_to_the_host(rid, op, build, monkeypatch):
    """Every mode runs in PyTorch: no argument, parameter or intermediate is converted to NumPy
    (``yatmath._array.to_host`` records every conversion), except in mode="mc" with replacement
    the (nq, nk) pmf table for the NumPy Generator's draw.  Inputs that require grad make any silent
    ``numpy.asarray`` of them raise as well."""
    torch = pytest.importorskip("torch")
    copied = []
    real = ya.to_host

    def recording(a):
        if ya.is_foreign(a):
            copied.append(tuple(a.shape))
        return real(a)

    monkeypatch.setattr(ya, "to_host", recording)
    out = build(lambda a: torch.asarray(np.array(a)).requires_grad_(True))
    assert all(isinstance(x, torch.Tensor) and x.device.type == "cpu" for x in _leaves(out))
    if op == "itnet.apply.mc" and "without-replacement" not in rid:   # no pmf draw without
        nq = 4 if "proposal" in rid else N                              # replacement
        assert copied == [(nq, N)], copied
    else:
        assert copied == [], copied


@pytest.mark.slow
@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
@pytest.mark.parametrize("proposal", ["uniform", "gaussian", "measure"])
def test_mc_draws_the_same_keys_on_every_library(lib, proposal, x64):
    """One seed, the same indices and importance weights as NumPy (the draw is on the host; the
    weights c / (M q) agree to the pmfs' rounding, 1e-13 relative)."""
    from yatmath.itnet import mc

    lib, to, _ = _library(lib)
    q_np = mc.proposal_pmf(proposal, X, X, MU.weights, scale=0.3)
    ref = mc.mc_integral(OP, X, X, U, U, MU.weights, M=7, q=q_np, rng=11)
    args = [to(np.array(a)) for a in (X, X, U, U, MU.weights)]
    q = mc.proposal_pmf(proposal, args[0], args[1], args[4], scale=0.3)
    got = mc.mc_integral(OP, *args, M=7, q=q, rng=11)
    np.testing.assert_array_equal(to_numpy(got[1]), ref[1])
    np.testing.assert_allclose(to_numpy(got[2]), ref[2], rtol=1e-13)
    np.testing.assert_allclose(to_numpy(got[0]), ref[0], rtol=1e-13,
                               atol=1e-13 * np.abs(ref[0]).max())


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
@pytest.mark.parametrize("rid,op,build,dtype",
                         [(*r, np.float64) for r in ROWS] + [(*r, np.float32) for r in FLOAT32],
                         ids=[r[0] for r in ROWS] + [r[0] + "-f32" for r in FLOAT32])
def test_cupy_matches_numpy(rid, op, build, dtype):
    """Every row on CuPy arrays: the result stays on the device (boundary rows come back there)
    and matches the NumPy oracle at the PyTorch/JAX tolerance (CUDA's sin/cos/exp/erfc within
    1-2 ulps, CUDA C Programming Guide; cuBLAS sums in another order)."""
    lib, to, _ = _library("cupy")
    assert_matches_numpy(rid, op, build, lib, to, dtype)


_DEVICE_ROWS = [(*r, np.float64) for r in ROWS] + [(*r, np.float32) for r in FLOAT32]
_DEVICE_IDS = [r[0] for r in ROWS] + [r[0] + "-f32" for r in FLOAT32]


def _strict_device():
    """array_api_strict's non-CPU device: numpy.asarray of its arrays raises (as for CuPy arrays),
    only an explicit copy (DLPack, ``yatmath._array.to_host``) reads them, and arrays of two
    devices cannot be combined (a parameter left on the CPU raises)."""
    xps = pytest.importorskip("array_api_strict")
    return xps.Device("device1")


def _assert_on_device(out, dev):
    for g in _leaves(out):
        if not isinstance(g, (int, float, bool)) and g is not None:
            assert g.device == dev, (type(g), g.device)


@pytest.mark.parametrize("rid,op,build,dtype", _DEVICE_ROWS, ids=_DEVICE_IDS)
def test_every_row_stays_on_a_non_cpu_device(rid, op, build, dtype):
    """The CPU shadow of :func:`test_cupy_matches_numpy`: every row on array_api_strict arrays on
    its non-CPU device runs without an implicit conversion to NumPy, keeps that device (boundary
    rows come back there) and matches the NumPy oracle."""
    xps = pytest.importorskip("array_api_strict")
    dev = _strict_device()
    to = lambda a: xps.asarray(a, device=dev)     # noqa: E731
    assert_matches_numpy(rid, op, build, "array_api_strict", to, dtype)
    _assert_on_device(build(lambda a: to(np.array(a, dtype=dtype))), dev)


class _CupyLike(ya.Caller):
    """The caller of array_api_strict arrays on its non-CPU device, named "cupy" (zeros made by
    the namespace on that device: the stand-in has no CuPy module)."""

    def zeros(self, shape, dtype=None):
        return self.xp.zeros(shape, dtype=self.dtype_of() if dtype is None else dtype,
                             device=self.device)


@pytest.fixture
def cupy_like(monkeypatch):
    """A CPU stand-in for CuPy arrays as yatmath.itnet's dispatch sees them, returning the
    numpy -> "CuPy" converter.

    The strict/PyTorch/JAX rows above cannot reach what the dispatch does for arrays of the
    library "cupy" (e.g. a boundary that let "cupy" through unconverted, or a tiled reference
    refused for device arrays): both failed only on the H100 (2026-11-27).  Here array_api_strict
    arrays on its non-CPU device (which, like CuPy arrays, refuse ``numpy.asarray``) are named
    "cupy" by the caller lookups of itnet's dispatching modules (the registry front door, apply /
    grad and the tiled functions), so the registry is asked for rows of CuPy arrays.  CuPy is
    absent here (``has_cupy()`` is False, also on a GPU machine), so ``auto`` runs the reference
    rows, the rows CuPy arrays take where a mode has no CuPy kernel (or when
    ``backend="reference"``)."""
    from yatmath.itnet import _dispatch, _xp_ops, evaluate, tiled

    xps = pytest.importorskip("array_api_strict")
    dev = _strict_device()
    real = _xp_ops.caller

    def caller(*values):
        c = real(*values)
        if c.library == "array_api_strict" and c.device == dev:
            return _CupyLike("cupy", c.xp, c.xp, c.device, c.dtype)
        return c

    for mod in (_dispatch, evaluate, tiled):
        monkeypatch.setattr(mod, "caller", caller)
    monkeypatch.setattr(ya, "has_cupy", lambda: False)   # no CuPy kernel row for these arrays
    return lambda a: xps.asarray(a, device=dev)


@pytest.mark.parametrize("rid,op,build,dtype", _DEVICE_ROWS, ids=_DEVICE_IDS)
def test_rows_dispatched_as_cupy_run_and_keep_the_device(rid, op, build, dtype, cupy_like):
    """Every row on arrays the dispatch takes for CuPy arrays: the array API references run on
    them as they are (the tiled reference row takes every library), the boundary row
    (svd_factors) copies them to the host explicitly, and every result comes back on the device,
    matching the NumPy oracle.  Before the fix apply.tiled (backend="reference"), grad.tiled and
    svd_factors failed here as on the H100."""
    assert_matches_numpy(rid, op, build, "array_api_strict", cupy_like, dtype)
    _assert_on_device(build(lambda a: cupy_like(np.array(a, dtype=dtype))), _strict_device())


def test_tiled_rows_chosen_for_each_backend_and_library(monkeypatch):
    """The tiled modes are registry rows: ``backend="numpy"``/``"reference"`` is the array API
    tile loop for every library and device; ``"auto"`` on CuPy arrays is the CuPy forward and the
    reference backward (no CuPy backward); ``"numba"`` on device arrays is refused; an explicit
    ``"cupy"`` forward takes NumPy input (copied to the device and back: ``host_input``)."""
    from yatmath.itnet import tiled

    for op in ("itnet.apply.tiled", "itnet.grad.tiled"):
        for backend in ("numpy", "reference"):
            for lib in ("cupy", "array_api_strict", "numpy"):
                assert R.choose(op, backend, lib).backend == "reference"
        with pytest.raises(ValueError, match="backend must be one of"):
            R.choose(op, "gpu", "cupy")
        auto = R.choose(op, "auto", "numpy").backend
        assert auto == ("numba" if ya.has_numba() else "reference")
    monkeypatch.setattr(R, "libraries_available", lambda: {"numba": True, "cupy": True})
    assert R.choose("itnet.apply.tiled", "auto", "cupy").backend == "cupy"
    assert R.choose("itnet.grad.tiled", "auto", "cupy").backend == "reference"
    with pytest.raises(ValueError, match="backend='numba' for itnet.apply.tiled takes numpy "
                                         "arrays, got cupy arrays"):
        R.choose("itnet.apply.tiled", "numba", "cupy")
    with pytest.raises(ValueError, match="itnet.grad.tiled has no 'cupy' implementation"):
        R.choose("itnet.grad.tiled", "cupy", "numpy")
    row = R.choose("itnet.apply.tiled", "cupy", "numpy")
    assert row.host_input and row.libraries == ("cupy",)
    # the public tiled functions choose the same rows
    Xk, om = MU.nodes, MU.weights
    ref = tiled.tiled_forward(OP, Xk, Xk, U, U, om, tile=4, backend="reference")
    np.testing.assert_array_equal(ref, it.apply(OP, U, MU, mode="tiled", tile=4,
                                                backend="reference"))
    I = tiled.tiled_integral(OP.kernel, Xk, Xk, U, U, om, tile=4, backend="reference")
    np.testing.assert_array_equal(ref, I + U @ OP.W.T)
    g = tiled.tiled_grad(OP, Xk, Xk, U, U, om, G, tile=4, backend="reference")
    np.testing.assert_array_equal(g["U"], it.grad(OP, U, MU, G, mode="tiled", tile=4,
                                                  backend="reference")["U"])


def test_times_pow2_is_ldexp_bit_for_bit():
    """The standard-operations rescaling of the overflow repair equals numpy.ldexp on every value
    class (subnormal, normal, huge, signed zero, inf) for every exponent in its documented range
    e >= -1074, including the results that round into the subnormals or overflow to inf."""
    from yatmath.itnet._xp_ops import times_pow2

    a = np.array([5e-324, -3e-310, 2.2250738585072014e-308, 1e-200, -0.7, 1.0, 1.5, 3e150,
                  -1.7976931348623157e308, 0.0, -0.0, np.inf, -np.inf])
    with np.errstate(over="ignore", under="ignore"):
        for e in list(range(-1074, -900)) + list(range(-60, 60)) + list(range(900, 2200, 7)):
            np.testing.assert_array_equal(times_pow2(a, e), np.ldexp(a, e), err_msg=str(e))
            assert np.array_equal(np.signbit(times_pow2(a, e)), np.signbit(np.ldexp(a, e)))


@pytest.mark.slow
@pytest.mark.parametrize("lib", ["array_api_strict", "torch", "jax"])
def test_overflow_repair_runs_on_every_library(lib, x64):
    """The frexp/ldexp-free repair of scaled_einsum: K u omega = 1e300 * 1e10 * 1e-20 per term (two
    terms: 2e290) although K u overflows; 4 u relative (three roundings).  A sum that does
    overflow is -inf with its sign, not NaN."""
    from yatmath.itnet.dense import scaled_einsum

    lib, to, _ = _library(lib)
    got = to_numpy(it.apply_kernel_tensor(to(np.full((1, 2, 1, 1), 1e300)),
                                          to(np.full((2, 1), 1e10)), to(np.full(2, 1e-20))))
    assert got.shape == (1, 1) and abs(got[0, 0] - 2e290) <= 4 * 2.0 ** -53 * 2e290
    out = to_numpy(scaled_einsum("i,i->", to(np.array([1e300, 1e300])),
                                 to(np.array([-1e300, -1e10]))))
    assert out == -np.inf


@pytest.mark.parametrize("lib", ["array_api_strict", "torch"])
def test_generic_einsum_matches_numpy(lib):
    """Every contraction spec the ITNet references use, on random operands (including a zero-size
    axis): batched-matmul einsum vs numpy.einsum to 1e-13 relative (sums of <= 6 terms, O(1))."""
    from yatmath.itnet._xp_ops import einsum, xp_of

    lib, to, _ = _library(lib)
    rng = np.random.default_rng(5)
    cases = [("ijab,jb,ij->ia", [(3, 4, 2, 5), (4, 5), (3, 4)]),
             ("ae,ijeb->ijab", [(2, 3), (4, 5, 3, 2)]), ("ijv,ijk->vk", [(3, 4, 5), (3, 4, 6)]),
             ("ira,jrb->ijab", [(3, 2, 4), (5, 2, 3)]), ("ira,r->ia", [(3, 2, 4), (2,)]),
             ("i,i->", [(5,), (5,)]), ("pqk,qb->pbk", [(2, 3, 4), (3, 5)]),
             ("ijab,ia,ij->jb", [(3, 4, 2, 5), (3, 2), (3, 4)]), ("pqk,pq->k", [(0, 3, 4), (0, 3)]),
             ("abk,pbk->pa", [(2, 3, 4), (5, 3, 4)]), ("pqb,pb->qb", [(2, 3, 4), (2, 4)])]
    for spec, shapes in cases:
        ops = [rng.normal(size=sh) for sh in shapes]
        ref = np.einsum(spec, *ops)
        xops = [to(o) for o in ops]
        got = to_numpy(einsum(spec, *xops, xp=xp_of(*xops)))
        assert got.shape == ref.shape, spec
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-13, err_msg=spec)
    with pytest.raises(ValueError, match="explicit"):
        einsum("ij,jk", *[to(np.ones((2, 2)))] * 2, xp=xp_of(to(np.ones(1))))
