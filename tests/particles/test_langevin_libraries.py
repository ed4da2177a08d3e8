"""The projected Langevin solver on PyTorch (CPU, float64) and JAX (CPU, x64) equals the NumPy run
for the same seed.

The noise xi (and the random-batch permutation) is drawn on the host by NumPy's Generator and
copied to the particles' library, so the two runs see the same random numbers; they differ only
by rounding in the drift (another libm for sqrt/pow/exp, another summation order in the
interaction sums: a few ulps of |drift| per step).  A difference e_m between the runs grows at
most like e_{m+1} <= (1 + eta L) e_m + eta * 10 u |D| with L the Lipschitz constant of the drift
(projection, reflection and clipping are 1-Lipschitz).  Here L <= 1 + lam * max|g''| with the
Plummer kernel s = 0, delta = 0.2: |g''| <= 1/delta^2 = 25, lam = 0.5, so L <= 13.5 and
eta L = 0.135; over m = 25 steps (1.135)^25 ~ 24 and the bound is ~ 25 * 24 * 0.01 * 10 u * |D|
(|D| <= 50) ~ 7e-13.  We allow atol 1e-11 on coordinates of order 1 (the observed difference is
below 1e-15).  The phase variant uses the RFF Hamiltonian with the same argument.
"""
from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

from yatmath.testing.properties.yat import jax_float64

import yatmath.particles as P

torch = pytest.importorskip("torch")

ATOL = 1e-11


def _V(W):
    xp = array_api_compat.array_namespace(W)
    return 0.5 * xp.sum(W * W, axis=1)


def _gV(W):
    return W


def _H():
    return P.FieldHamiltonian(_V, _gV, lam=0.5, interaction=("plummer", 0.0, 0.2))


W0 = np.random.default_rng(1).standard_normal((64, 2))


@pytest.fixture(params=["torch", "jax", pytest.param("cupy", marks=pytest.mark.gpu)])
def lib(request):
    """(asarray, to_numpy) of the library, float64 (JAX with x64 switched on for the test; CuPy
    only where a device is, the ``gpu`` marker)."""
    if request.param == "cupy":
        from yatmath import _array

        cp = _array.cupy_module()
        yield (lambda a: cp.asarray(a, dtype=cp.float64)), (lambda t: t.get())
        return
    if request.param == "torch":
        yield (lambda a: torch.asarray(a, dtype=torch.float64)), (lambda t: t.numpy())
        return
    pytest.importorskip("jax")
    with jax_float64() as jax:
        jnp = jax.numpy
        yield (lambda a: jnp.asarray(a, dtype=jnp.float64)), np.asarray


def _library(a):
    return array_api_compat.array_namespace(a).__name__


@pytest.mark.slow
@pytest.mark.parametrize("method", ["direct", "random_batch"])
@pytest.mark.parametrize("domain,boundary,clip", [(P.Box(-2, 2, d=2), "project", None),
                                                  (P.Ball(1.2, 2), "reflect", 3.0),
                                                  (None, "project", 0.5)])
def test_run_langevin_equals_numpy_for_the_same_seed(lib, method, domain, boundary, clip):
    conv, back = lib
    kw = dict(eta=0.01, beta=10.0, n_steps=25, rng=3, domain=domain, boundary=boundary,
              method=method, batch_size=4, clip=clip)
    ref = P.run_langevin(_H(), W0, **kw)
    got = P.run_langevin(_H(), conv(W0), **kw)
    assert _library(got.Omega) == _library(conv(W0))
    assert got.steps == ref.steps == 25 and got.stop_reason == ref.stop_reason
    np.testing.assert_allclose(back(got.Omega), ref.Omega, rtol=0, atol=ATOL)
    # the energies (a float per step) follow: H is Lipschitz in Omega with constant O(|Omega|)
    np.testing.assert_allclose(got.history["energy"], ref.history["energy"], rtol=1e-11)
    np.testing.assert_allclose(got.history["max_move"][1:], ref.history["max_move"][1:],
                               rtol=0, atol=ATOL)
    if domain is not None:
        assert np.all(domain.contains(back(got.Omega)))


@pytest.mark.slow
def test_kernel_learning_run_with_phases_equals_numpy(lib):
    """The RFF Hamiltonian (features, their VJP, alignment, learned phases) on the device."""
    conv, back = lib
    R = np.random.default_rng(2)
    X = R.standard_normal((40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    Om, b = R.standard_normal((16, 2)), R.uniform(0, 2 * np.pi, 16)
    H = P.Hamiltonian(X, y, lam=0.2, interaction=("plummer", 1.0, 0.2), learn_phase=True)
    kw = dict(eta=0.05, beta=50.0, n_steps=10, rng=4, domain=P.Ball(3.0, 2), clip=1.0)
    ref = P.run_langevin(H, Om, b0=b, **kw)
    got = P.run_langevin(H, conv(Om), b0=conv(b), **kw)
    assert _library(got.Omega) == _library(got.b) == _library(conv(Om))
    np.testing.assert_allclose(back(got.Omega), ref.Omega, rtol=0, atol=ATOL)
    # phases are wrapped mod 2 pi: compare on the circle
    dphi = np.angle(np.exp(1j * (back(got.b) - ref.b)))
    assert np.max(np.abs(dphi)) <= ATOL


def test_same_seed_same_noise_bit_for_bit(lib):
    """With zero drift the step is Omega + sqrt(2 eta/beta) xi: one multiply and one add of the
    same numbers, so the libraries agree exactly -- the noise is the host Generator's."""
    conv, back = lib
    H0 = P.FieldHamiltonian(lambda W: 0.0 * W[:, 0], lambda W: 0.0 * W)
    ref, _ = P.langevin_step(H0, W0, 0.01, 2.0, 9)
    got, _ = P.langevin_step(H0, conv(W0), 0.01, 2.0, 9)
    np.testing.assert_array_equal(back(got), ref)
    xi = np.random.default_rng(9).standard_normal(W0.shape)
    np.testing.assert_array_equal(ref, W0 + np.sqrt(2 * 0.01 / 2.0) * xi)


def test_field_callables_receive_the_particles_library():
    seen = []

    def V(W):
        seen.append(_library(W))
        return _V(W)

    H = P.FieldHamiltonian(V, _gV)
    H.field_potential(torch.asarray(W0))
    assert seen == [_library(torch.asarray(W0))]


def test_ball_guard_keeps_rounded_points_inside_on_torch():
    """Points at distance R (1 + k u), k = 1..5, from the centre: rounding of c + Z R/||Z||
    leaves ~10% of them outside (1868 of 20000 on torch before the guard); the where/nextafter
    guard must bring every row inside, as the NumPy loop does.  The two differ by the rounding
    of the norm and the 2-ulp guard steps: atol 4 ulps of the coordinates (|x| < 1)."""
    R = np.random.default_rng(5)
    Z = R.standard_normal((20000, 3))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    Z *= 1.0 + 2.0 ** -52 * R.integers(1, 6, (20000, 1))
    ball = P.Ball(0.7, 3, center=np.array([0.3, -0.1, 0.2]))
    A = Z * 0.7 + ball.center
    out = ball.project(torch.asarray(A))
    assert bool(torch.all(ball.contains(out)))
    np.testing.assert_allclose(out.numpy(), ball.project(A), rtol=0, atol=4 * 2.0 ** -52)


def test_resampling_draws_equal_indices():
    """Multinomial: Generator.choice (NumPy) and the device inverse CDF with the same host
    uniforms give the same indices; systematic likewise."""
    w = np.random.default_rng(6).random(50)
    for method in ("multinomial", "systematic"):
        ref = P.resample(w, 400, 8, method)
        got = P.resample(torch.asarray(w), 400, 8, method)
        np.testing.assert_array_equal(got.numpy(), ref)
