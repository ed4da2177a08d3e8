"""Every generic operation of yatmath.features and yatmath.estimators on other array libraries.

Each row (op, builder) builds the operation's arguments from NumPy arrays through a converter
``to`` (NumPy -> the library under test) and returns the outputs to compare.  The operation runs
on ``array_api_strict`` arrays (always installed), then PyTorch CPU and JAX CPU where installed,
and is compared with the NumPy float64 result (the oracle).

Tolerances.  array_api_strict is backed by NumPy and calls the same ufuncs/BLAS/LAPACK in the
same order, so its results agree with NumPy's to a few ulps: rtol 1e-12 (float64), with an atol
of 1e-12 times the output's scale for entries that are rounding-level cancellations.  PyTorch
and JAX use their own BLAS/LAPACK and transcendental implementations: entries agree to ~n u
times the condition of the op; rtol/atol 1e-9 relative to the output's scale covers the n <= 40
sums here with room (the observed differences are ~1e-15).  SVD/eigen factors are compared
through sign-free quantities (singular values, reconstructions, errors), whose conditioning is
that of the matrix (gaps >= 0.1 here).  float32 rows: the maps evaluate in float64 and round once
to float32, so they agree with the NumPy float32 result to 1 ulp of float32 (rtol 2.4e-7).
"""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest

import yatmath.estimators as E
import yatmath.features as F
from yatmath._registry import implementations

RNG = np.random.default_rng(20240612)
X = RNG.standard_normal((7, 4)) * 0.5
Y = RNG.standard_normal((5, 4)) * 0.5
XS = X / np.linalg.norm(X, axis=1, keepdims=True)
YS = Y / np.linalg.norm(Y, axis=1, keepdims=True)
A = RNG.standard_normal((12, 9)) @ np.diag(0.7 ** np.arange(9)) @ RNG.standard_normal((9, 9))
KPSD = A @ A.T
G2 = RNG.standard_normal((9, 2))
W = RNG.random(9) + 0.1
Q = W / W.sum()
SAMPLES = RNG.standard_normal((40, 3))

RFF = F.rff(4, 16, gamma=0.7, rng=1)
RFF_SC = F.rff(4, 16, gamma=0.7, form="sincos", orthogonal=True, rng=1)
POS = {k: F.positive_features(4, 12, k, rng=2) for k in F.POSITIVE_KINDS}
YAT = {m: F.yat_features(4, 40 if m != "harmonic" else 12, eps=0.5, bias=0.7, rng=3, method=m,
                         spherical=m not in ("laplace_mc", "laplace_quadrature"),
                         **({"r2_max": 9.0} if m == "laplace_quadrature" else {}))
       for m in F.METHODS}
YAT["harmonic_big"] = F.yat_features(4, 30, eps=0.5, bias=0.7, spherical=True, method="harmonic",
                                     rng=3)
YAT["laplace_exact"] = F.yat_features(4, 50, eps=0.5, method="laplace_mc", poly="exact", rng=3)


def _xs(phi):
    return (XS, YS) if getattr(phi, "spherical", False) else (X, Y)


def _lowrank(lr):
    return (lr.s, lr.matrix(), lr.error_fro, lr.error_spec)


# (op, builder(to) -> outputs): one row per generic op (every registered "*" reference row).
ROWS = [
    ("features.gaussian_kernel", lambda to: F.gaussian_kernel(to(X), to(Y), 0.7)),
    ("features.RandomFourierFeatures.__call__",
     lambda to: (RFF(to(X)), RFF_SC(to(X)), RFF(to(X[0])))),
    ("features.RandomFourierFeatures.kernel", lambda to: RFF.kernel(to(X), to(Y))),
    ("features.PositiveFeatures.__call__", lambda to: tuple(p(to(X)) for p in POS.values())),
    ("features.PositiveFeatures.limit_kernel",
     lambda to: tuple(POS[k].limit_kernel(to(X), to(Y), nodes=12)
                      for k in ("favor", "softplus", "cos2", "softmaxfeat"))),
    ("features.YatFeatures.__call__",
     lambda to: tuple(phi(to(_xs(phi)[0])) for phi in YAT.values())),
    ("features.YatFeatures.kernel",
     lambda to: YAT["laplace_exact"].kernel(to(X), to(Y))),   # bias 0: yat.gram with bias on torch is ~1e-7 off (yat area)
    ("estimators.mean_estimate",
     lambda to: dataclasses.astuple(E.mean_estimate(to(SAMPLES)))[:4]),
    ("estimators.integrate_continuous",
     lambda to: dataclasses.astuple(E.integrate_continuous(
         lambda y: to(y) ** 2, lambda M, r: r.random(M), lambda y: to(np.ones_like(y)), 50,
         rng=1))[:4]),
    ("estimators.density_from_pmf", lambda to: E.density_from_pmf(to(Q), to(W))),
    ("estimators.integrate_discrete",
     lambda to: dataclasses.astuple(E.integrate_discrete(to(G2), to(W), 30, pmf=to(Q),
                                                         rng=2))[:4]),
    ("estimators.discrete_variance", lambda to: E.discrete_variance(to(G2), to(W), to(Q), 7)),
    ("estimators.optimal_pmf", lambda to: E.optimal_pmf(to(G2), to(W))),
    ("estimators.integrate_qmc",
     lambda to: dataclasses.astuple(E.integrate_qmc(lambda u: to(np.sum(u ** 2, axis=1)), 3, 64,
                                                    rng=3))[:4]),
    ("estimators.LowRank.matrix", lambda to: E.truncated_svd(to(A), 3).matrix()),
    ("estimators.truncated_svd", lambda to: _lowrank(E.truncated_svd(to(A), 3))),
    ("estimators.randomized_svd",
     lambda to: _lowrank(E.randomized_svd(to(A), 3, oversample=3, power_iters=1, rng=4))),
    ("estimators.nystrom",
     lambda to: (_lowrank(E.nystrom(to(KPSD), 5, rng=5)),
                 _lowrank(E.nystrom(to(KPSD), 5, sampling="leverage", rng=5)))),
]


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [v for o in out for v in _leaves(o)]
    return [out]


def _strict():
    xs = pytest.importorskip("array_api_strict")
    return xs, (lambda a: xs.asarray(a)), "array_api_strict", contextlib.nullcontext


def _torch():
    torch = pytest.importorskip("torch")
    return torch, (lambda a: torch.asarray(a)), "torch", contextlib.nullcontext


def _jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    return jnp, (lambda a: jnp.asarray(a)), "jax", lambda: jax.enable_x64(True)


LIBS = {"array_api_strict": (_strict, 1e-12), "torch": (_torch, 1e-9), "jax": (_jax, 1e-9)}


def _host(a):
    if isinstance(a, (float, int, np.floating)):
        return np.asarray(a, dtype=np.float64)
    if type(a).__module__.startswith("torch"):
        return a.detach().cpu().numpy()
    return np.asarray(np.from_dlpack(a))


@pytest.mark.slow
@pytest.mark.parametrize("lib", list(LIBS))
@pytest.mark.parametrize("op,build", ROWS, ids=[r[0] for r in ROWS])
def test_generic_op_matches_numpy(op, build, lib):
    make, rtol = LIBS[lib]
    _mod, to, name, ctx = make()
    ref = _leaves(build(np.asarray))
    with ctx():
        got = _leaves(build(to))
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            if isinstance(r, np.ndarray) and r.ndim > 0:
                # the result is the caller's array type (not NumPy, not a Python float)
                assert not isinstance(g, np.ndarray), (op, type(g))
                assert name.split("_")[0] in type(g).__module__, (op, type(g))
            gh, rh = _host(g), np.asarray(r, dtype=np.float64)
            assert gh.shape == rh.shape, (op, gh.shape, rh.shape)
            scale = float(np.max(np.abs(rh))) if rh.size else 0.0
            np.testing.assert_allclose(gh, rh, rtol=rtol, atol=rtol * scale, err_msg=op)


@pytest.mark.parametrize("phi", [RFF, POS["favor"], POS["softplus"], YAT["laplace_mc"],
                                 YAT["series"]], ids=["rff", "favor", "softplus", "laplace_mc",
                                                      "series"])
def test_feature_maps_float32_on_strict(phi):
    xs = pytest.importorskip("array_api_strict")
    Z = _xs(phi)[0].astype(np.float32)
    ref = phi(Z)
    got = phi(xs.asarray(Z))
    assert got.dtype == xs.float32
    np.testing.assert_allclose(np.asarray(np.from_dlpack(got)), ref, rtol=2.4e-7,
                               atol=2.4e-7 * float(np.max(np.abs(ref))))


def test_every_generic_op_of_the_area_has_a_row():
    generic = {i.op for i in implementations() if i.backend == "reference" and "*" in i.libraries
               and i.op.split(".")[0] in ("features", "estimators")}
    assert generic == {r[0] for r in ROWS}


def test_host_only_ops_say_so():
    host = [i for i in implementations() if i.op.split(".")[0] in ("features", "estimators")
            and "*" not in i.libraries and i.device != "gpu"]
    assert host and all(i.libraries == ("numpy",) and "host" in i.note for i in host)


def test_backend_is_honoured_or_refused():
    xs = pytest.importorskip("array_api_strict")
    np.testing.assert_array_equal(RFF(X, backend="reference"), RFF(X))
    np.testing.assert_array_equal(RFF(X, backend="numpy"), RFF(X))
    with pytest.raises(ValueError, match="no 'numba' implementation"):
        RFF(X, backend="numba")
    with pytest.raises(ValueError, match="backend must be one of"):
        RFF(X, backend="gpu")
    with pytest.raises(TypeError, match="one array library"):
        RFF.kernel(xs.asarray(X), Y)


def test_same_seed_same_map_on_every_library():
    """Draws come from NumPy's Generator: two maps from one seed agree exactly on NumPy, and the
    strict evaluation of either equals NumPy's to rounding."""
    xs = pytest.importorskip("array_api_strict")
    a, b = F.rff(4, 16, rng=9), F.rff(4, 16, rng=9)
    np.testing.assert_array_equal(a.omega, b.omega)
    np.testing.assert_allclose(np.asarray(np.from_dlpack(b(xs.asarray(X)))), a(X), rtol=1e-12,
                               atol=1e-15)


@pytest.mark.gpu
def test_cupy_feature_map_and_svd():
    cp = pytest.importorskip("cupy")
    from yatmath import _array
    if not _array.has_cupy():
        pytest.skip("no CUDA device")
    got = RFF(cp.asarray(X))
    assert isinstance(got, cp.ndarray)
    np.testing.assert_allclose(got.get(), RFF(X), rtol=1e-12, atol=1e-14)
    lr = E.truncated_svd(cp.asarray(A), 3)
    np.testing.assert_allclose(lr.s.get(), E.truncated_svd(A, 3).s, rtol=1e-12)
