"""The tiled ITNet kernel (``yatmath/itnet/_cuda_tiled.py``) and the "cupy" row of
``itnet.apply.tiled`` that runs it, against the float64 NumPy reference.

Without a CUDA device ``conftest.py`` turns on numba-cuda's simulator, which runs the kernel
source thread by thread on NumPy arrays (shared memory and ``syncthreads`` included); with a
device (CuPy sees one) the same tests launch the compiled kernel on CuPy arrays.

Sizes are small (the simulator runs each GPU thread as a Python thread): 37 queries in blocks of
G = 4 (ten blocks, the last holding one query), 29 keys in shared tiles of 8 (four tiles, the
last holding 5), and 1, 2 or 4 key splits (grid rows, partial sums added by a second kernel);
widths w = 4 and 8, d = 2 and 3, positions in R^1 and R^2, L = 3 frequencies.

Tolerance.  The kernel and the reference evaluate the same split-W1 formulas in other orders:
the pre-activation a_ijk (n_a = 2L + nh + 4 terms S_ijk = sum of their magnitudes) is summed
sequentially instead of by matmul, GELU's erfc/tanh is libdevice's instead of SciPy's/NumPy's
(a few ulps), and T_i, ubar_i and the finish are sums of n_s = nk + w d + d + 8 terms in another
order (float64 partial sums of the key splits).  An error of n_a u S_ijk in a_ijk moves
GELU by |GELU'(a_ijk)| times that, so every component of I_i is within

    2 u sum_j |c_ij| sum_b (sum_k |W2[a, b, k]| (n_a |GELU'(a_ijk)| S_ijk + n_s |h_ijk|)
                            + n_s |B2[a, b]|) |u_jb|

of the reference (u: the unit roundoff of the working dtype: 2^-53 in float64; in float32,
2^-24, which also covers rounding the float64 pieces, W2, b2 and omega to float32 once).  Leaving
out one key (an off-by-one tile bound) or one split changes I_i by O(|I_i| / nk), ~10^11 times
the float64 bound.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from yatmath import _array, _cuda, _registry
from yatmath import itnet as it
from yatmath.itnet import _cuda_tiled as ct
from yatmath.itnet import tiled
from yatmath.itnet.measures import causal_mask
from yatmath.itnet.network import _gelu, _gelu_prime, pair_distance

SIMULATED = _cuda.simulated()
U64, U32 = 2.0 ** -53, 2.0 ** -24
NQ, NK = 37, 29
LAYOUT = dict(groups=4, tile=8)       # ten query blocks, four key tiles (the last ones partial)
tiled_module = importlib.import_module("yatmath.itnet.tiled")


def dev(a):
    """``a`` where the kernel runs: CuPy on a device, a writable NumPy copy in the simulator."""
    return np.array(a) if SIMULATED else _array.cupy_module().asarray(a)


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _problem(seed, d, w, s=1, gelu="exact", groups=it.network.GROUPS, nq=NQ, nk=NK):
    rng = np.random.default_rng(seed)
    net = it.random_kernel_mlp(d, s, width=w, L=3, gelu=gelu, groups=groups, rng=rng)
    Xq, Xk = rng.uniform(size=(nq, s)), rng.uniform(size=(nk, s))
    Uq, Uk = rng.normal(size=(nq, d)), rng.normal(size=(nk, d))
    omega = rng.uniform(0.5, 1.5, nk) / nk
    return net, Xq, Xk, Uq, Uk, omega


def _kernel(net, Xq, Xk, Uq, Uk, omega, dtype=np.float64, causal=False, diag_weight=1.0,
            **layout):
    """The kernel driver on the row's pieces (``tiled._Prep``), result on the host."""
    P = tiled._Prep(net, Xq, Xk, Uq, Uk, dtype)
    args = [dev(a) for a in P.numba_args()] + [dev(P.cast(omega)), dev(P.W2r), dev(P.B2)]
    return host(ct.integral(*args, causal, diag_weight, P.gelu_kind, P.use_dist, **layout))


def _bound(net, Xq, Xk, Uq, Uk, omega, u, causal=False, diag_weight=1.0):
    """The module docstring's bound, per component of I (float64, dense at these sizes)."""
    P = tiled._Prep(net, Xq, Xk, Uq, Uk, np.float64)
    sd = P.Sq[:, None, :] * P.Ck[None] - P.Cq[:, None, :] * P.Sk[None]
    cd = P.Cq[:, None, :] * P.Ck[None] + P.Sq[:, None, :] * P.Sk[None]
    nh = P.Wh.shape[1]
    had = P.Uq[:, None, :nh] * P.Uk[None, :, :nh]
    r = (pair_distance(P.Xq[:, None, :] - P.Xk[None], np) if P.use_dist
         else np.zeros((Uq.shape[0], Uk.shape[0])))
    a = (P.Aq[:, None] + P.Ak[None] + sd @ P.Wgs.T + cd @ P.Wgc.T + had @ P.Wh.T
         + r[..., None] * P.wr)
    S = (np.abs(P.Aq)[:, None] + np.abs(P.Ak)[None] + (np.abs(sd) + 1) @ np.abs(P.Wgs).T
         + (np.abs(cd) + 1) @ np.abs(P.Wgc).T + np.abs(had) @ np.abs(P.Wh).T
         + r[..., None] * np.abs(P.wr))
    h, gp = _gelu(a, net.gelu), _gelu_prime(a, net.gelu)
    n_a = 2 * net.L + nh + 4
    n_s = Uk.shape[0] + net.width * net.d + net.d + 8
    E = n_a * np.abs(gp) * S + n_s * np.abs(h)                      # (nq, nk, w)
    c = np.broadcast_to(omega[None, :], (Uq.shape[0], Uk.shape[0]))
    if causal:
        c = c * causal_mask(Uq.shape[0], Uk.shape[0], diag_weight)
    per = np.einsum("abk,ijk->ijab", np.abs(P.W2r), E) + n_s * np.abs(P.B2)
    return 2 * u * np.einsum("ij,ijab,jb->ia", np.abs(c), per, np.abs(Uk))


def _check(got, net, Xq, Xk, Uq, Uk, omega, causal=False, diag_weight=1.0):
    u = U32 if got.dtype == np.float32 else U64
    q64, k64 = np.asarray(Uq, np.float64), np.asarray(Uk, np.float64)
    want = tiled.tiled_integral(net, Xq, Xk, q64, k64, omega, causal=causal,
                                diag_weight=diag_weight, backend="reference")
    bound = _bound(net, Xq, Xk, q64, k64, omega, u, causal, diag_weight)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), (float(np.max(err - bound)), float(np.max(err)))
    assert np.max(np.abs(want)) > 1e3 * np.max(bound)     # the bound is far below |I|
    return want


def test_mode_matches_the_device():
    assert SIMULATED == (not _array.has_cupy())


def test_layout_and_limits():
    """G = 128 // w queries per block; TK = 64 keys per tile while the tile and the finish buffer
    fit 48 KiB; unsupported widths, dtypes and oversized networks are refused."""
    assert ct.layout(16, 3, 1, 8, 8) == (8, 64)           # the benchmark's network
    assert ct.layout(200, 3, 1, 4, 8) == (1, 25)           # G = 1; (48 KiB - 6520) // 1688
    assert ct.layout(4, 3, 1, 2, 8, groups=4, tile=8) == (4, 8)
    assert ct.layout(128, 64, 1, 64, 8) == (0, 0)          # a 66 KiB finish buffer
    assert ct.layout(1025, 1, 1, 1, 8) == (0, 0) and ct.layout(4, 1, 1, 0, 8) == (0, 0)
    assert ct.supported(16, 3, 1, 8, np.float32) and not ct.supported(16, 3, 1, 8, np.float16)
    with pytest.raises(ValueError, match="w <= 1024"):
        ct.integral(*([np.zeros((1, 2000))] * 14), np.ones(1), np.zeros((1, 1, 2000)),
                    np.zeros((1, 1)), False, 1.0, 0, True)


@pytest.mark.parametrize("d,w,s,gelu,splits,dtype", [
    (3, 8, 1, "exact", 1, np.float64),
    (2, 4, 2, "tanh", 2, np.float64),
    (3, 4, 1, "exact", 4, np.float64),
    (2, 8, 1, "exact", 2, np.float32),
    (3, 4, 2, "tanh", 1, np.float32),
])
def test_kernel_matches_the_reference(d, w, s, gelu, splits, dtype):
    """Every input group, ten query blocks x four key tiles, 1, 2 or 4 key splits (per = 4, 2, 1
    tiles), float64 and float32 (pieces and accumulators in float32, the float64 reference on the
    same float32 features)."""
    net, Xq, Xk, Uq, Uk, om = _problem(d * 10 + w, d, w, s, gelu)
    Uq, Uk = Uq.astype(dtype), Uk.astype(dtype)
    got = _kernel(net, Xq, Xk, Uq, Uk, om, dtype, splits=splits, **LAYOUT)
    assert got.dtype == dtype and got.shape == (NQ, d)
    _check(got, net, Xq, Xk, Uq, Uk, om)


@pytest.mark.parametrize("groups", [("gx", "gy", "ux", "uy"), ("gd", "uxuy"), ("dist", "uy")])
def test_kernel_with_some_input_groups(groups):
    """No angle difference (L = 0 in the kernel: its sin/cos tiles sliced to width 0), no
    Hadamard term (nh = 0), no distance: the zero-width pieces never indexed."""
    net, Xq, Xk, Uq, Uk, om = _problem(5, 2, 4, 1, "exact", groups)
    got = _kernel(net, Xq, Xk, Uq, Uk, om, splits=2, **LAYOUT)
    _check(got, net, Xq, Xk, Uq, Uk, om)


@pytest.mark.parametrize("splits", [1, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_causal_kernel(splits, dtype):
    """Queries = keys (37 nodes), mask j < i, diag_weight 0.5 on j = i: each block stops after
    its last query's diagonal; key splits past a block's diagonal add nothing."""
    net, X, _, U, _, _ = _problem(7, 3, 4, nq=NQ, nk=NQ)
    om = np.random.default_rng(8).uniform(0.5, 1.5, NQ) / NQ
    U = U.astype(dtype)
    got = _kernel(net, X, X, U, U, om, dtype, True, 0.5, splits=splits, **LAYOUT)
    want = _check(got, net, X, X, U, U, om, True, 0.5)
    assert np.all(want[0] != 0.0)                    # the first query has its diagonal key


@pytest.mark.slow
def test_kernel_default_layout():
    """The default layout (G = 16 queries per block of 128 threads, one tile of 64 keys, the key
    splits the grid size asks for) on 37 queries x 70 keys."""
    net, Xq, Xk, Uq, Uk, om = _problem(9, 2, 8, nk=70)
    got = _kernel(net, Xq, Xk, Uq, Uk, om)
    _check(got, net, Xq, Xk, Uq, Uk, om)


def test_empty_sets():
    net, Xq, Xk, Uq, Uk, om = _problem(3, 2, 4)
    got = _kernel(net, Xq, Xk[:0], Uq, Uk[:0], om[:0], **LAYOUT)
    assert got.shape == (NQ, 2) and np.all(got == 0)
    assert _kernel(net, Xq[:0], Xk, Uq[:0], Uk, om, **LAYOUT).shape == (0, 2)


# ------------------------------------------------------------------ the registered 'cupy' row


@pytest.fixture
def fake_device(monkeypatch, fake_cupy):
    """NumPy standing in for CuPy (``tests/particles/test_array_api.py``): the row's host_input
    copies count, and the kernel runs in the simulator on the copies (small layout, several
    tiles and splits).  Calls of the kernel driver are recorded."""
    fake = fake_cupy
    calls = []
    driver = ct.integral

    def spy(*args, **kwargs):
        calls.append(args[12].shape)          # Uq of the head
        return driver(*args, groups=4, tile=8, splits=2)
    monkeypatch.setattr(ct, "integral", spy)
    fake.calls = calls
    return fake


def _operator(kind, rng, d=4, w=4, n=NQ):
    X = np.sort(rng.uniform(size=(n, 1)), axis=0)
    mu = it.Measure(X, rng.uniform(0.5, 1.5, n) / n)
    if kind == "multihead":
        heads = [it.random_kernel_mlp(d // 2, 1, width=w, L=3, rng=rng) for _ in range(2)]
        op = it.MultiHeadOperator(heads, rng.normal(size=(d, d)) / d,
                                  rng.normal(size=(d, d)) / d)
    else:
        net = it.random_kernel_mlp(d, 1, width=w, L=3, rng=rng)
        op = it.ITNetOperator(net, rng.normal(size=(d, d)) / d, kind == "causal", 0.5)
    return op, mu, rng.normal(size=(n, d))


@pytest.mark.parametrize("kind", ["single", "causal", pytest.param("multihead",
                                                                   marks=pytest.mark.slow),
                                  "queries"])
def test_cupy_row_runs_the_kernel(fake_device, kind):
    """apply(mode="tiled", backend="cupy") on NumPy input: the 'cupy' row copies the inputs to
    the device, runs the kernel once per head (a separate query set too) and adds the residual;
    NumPy out, within 1e-12 of the reference (the kernel's bound above, ~1e-14 here)."""
    rng = np.random.default_rng(21)
    op, mu, U = _operator(kind, rng)
    kw = {}
    if kind == "queries":
        kw = dict(Xq=rng.uniform(size=(11, 1)), Uq=rng.normal(size=(11, 4)))
    assert _registry.choose("itnet.apply.tiled", "cupy", "numpy").backend == "cupy"
    got = it.apply(op, U, mu, mode="tiled", backend="cupy", **kw)
    want = it.apply(op, U, mu, mode="tiled", backend="reference", **kw)
    assert type(got) is np.ndarray and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 * np.max(np.abs(want)))
    nq = 11 if kind == "queries" else NQ
    heads = 2 if kind == "multihead" else 1
    assert fake_device.calls == [(nq, 4 // heads)] * heads


def test_cupy_row_unfactorised_runs_the_array_loop(fake_device):
    """factorised=False (the naive per-pair d x d form) is not the kernel's: the row runs the
    array API tile loop on the device, the reference's bits."""
    op, mu, U = _operator("single", np.random.default_rng(22))
    got = it.apply(op, U, mu, mode="tiled", factorised=False, backend="cupy")
    want = it.apply(op, U, mu, mode="tiled", factorised=False, backend="reference")
    np.testing.assert_array_equal(got, want)
    assert fake_device.calls == []


def test_cupy_row_beyond_the_limits_runs_the_array_loop(fake_device, monkeypatch):
    """A network the kernel does not take (here: declared unsupported) runs the array loop."""
    monkeypatch.setattr(ct, "supported", lambda *a: False)
    op, mu, U = _operator("single", np.random.default_rng(23))
    got = it.apply(op, U, mu, mode="tiled", backend="cupy")
    np.testing.assert_array_equal(got, it.apply(op, U, mu, mode="tiled", backend="reference"))
    assert fake_device.calls == []


def test_the_public_function_is_not_the_row():
    """The rows are private functions; the 'cupy' row's integral is the kernel's driver."""
    rows = {i.backend: i for i in _registry.implementations("itnet.apply.tiled")}
    assert set(rows) == {"reference", "numba", "cupy"}
    assert rows["cupy"].func.__name__ == "_apply_tiled_cupy"
    assert "numba-cuda kernel (_cuda_tiled)" in rows["cupy"].note
    assert tiled_module.tiled_forward not in {i.func for i in rows.values()}


@pytest.mark.gpu
def test_apply_on_cupy_arrays():
    """On a device: CuPy U in, CuPy out, the kernel's values (the benchmark's problem, small)."""
    from yatmath.bench.gpu import itnet_problem

    cp = _array.cupy_module()
    op, mu, U = itnet_problem(256, 8)
    got = it.apply(op, cp.asarray(U), mu, mode="tiled")
    assert type(got) is cp.ndarray
    want = it.apply(op, U, mu, mode="tiled", backend="reference")
    np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-14 * np.max(np.abs(want)))
