"""The finite-volume McKean-Vlasov solver (yatmath.particles.pde) on array_api_strict, PyTorch
(CPU) and JAX (CPU, float64 via ``jax_enable_x64``), against the NumPy float64 reference.

One row per registered operation of ``particles.FVGrid*`` / ``particles.McKeanVlasovFV*``
(``ROWS``): a builder ``build(conv)`` that calls the operation with its array inputs passed
through ``conv`` (the identity for the NumPy oracle, or ``lib.asarray``) on three problems --
a 1-D interval (SG flux, Plummer s = 1), a 2-D square (SG, Plummer log kernel) and a 2-D disk
mask (upwind, hard-core kernel) -- and a flag ``exact``.  The test asserts that every array in
the result is of the input's library and that it equals the NumPy result:

* ``exact`` rows (``operator``, ``step_semi_implicit``: SciPy's sparse LU on the host) run the
  very NumPy code on a copy: equal bit for bit.
* generic rows: rtol 1e-12 with atol 1e-13 * max|ref|.  The other libraries differ from NumPy in
  the convolution (``scipy.signal.fftconvolve`` pads 3M-2 to a fast length; the generic path
  uses the library's FFT on a 2M-1 periodic extension) and in libm (exp, expm1, log, cos within
  ~1 ulp).  The FFT convolution errs by about u log2(L) max|T| h^d sum|rho| <= 10 u relative
  (L <= 64 here); the SG flux loses at most the factor 1 + beta max|dU| <= 10 to cancellation;
  ``run`` takes at most 60 explicit steps with dt <= stable_dt, each a monotone (l1
  non-expansive) map, so differences add up at most linearly: 60 * 10 * 10 u ~ 1.3e-12.
  ``stationary`` stops when the damped step is below tol = 1e-13 (h^d-weighted l1); both
  iterations converge to the same discrete fixed point, whose rounding floor is the same ~10 u.
  Measured: at most 5.1e-15 relative (``face_flux``), 4.4e-16 for the runs.
* integer results (step counts) are equal exactly.

Further tests: mass is conserved to rounding on every library; a callable V receives the
centres in the caller's library; NumPy's structured divergence is the face-list bincount bit
for bit and ``run`` is the loop of the public steps bit for bit; the dense Toeplitz fallback
for a namespace without ``fft``; float32 is promoted; JAX without float64 is refused.
"""
from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

from yatmath.testing.properties.yat import jax_float64

from yatmath import _array, _registry
from yatmath import particles as P
from yatmath.particles import pde

U64 = 2.0 ** -53
RTOL, ATOL_SCALE = 1e-12, 1e-13
FV_PREFIXES = ("particles.FVGrid", "particles.McKeanVlasovFV")


def V(c):
    """A confinement written with the array API: it runs on the centres of any library."""
    xp = array_api_compat.array_namespace(c)
    return 0.5 * xp.sum(c * c, axis=1) - 0.3 * xp.cos(3.0 * c[:, 0])


def _problems():
    """(solver, rho) for the three problems of the module docstring (host data)."""
    out = []
    for grid, kw in ((P.FVGrid(-2.0, 2.0, 24, 1), dict(interaction=("plummer", 1.0, 0.3),
                                                       lam=0.3, beta=2.0, flux="sg")),
                     (P.FVGrid(-2.0, 2.0, 14, 2), dict(interaction=("plummer", 0.0, 0.3),
                                                       lam=0.3, beta=2.0, flux="sg")),
                     (P.FVGrid.disk(1.0, 16), dict(interaction=("hard", 1.0, 0.2), lam=0.5,
                                                   beta=3.0, flux="upwind"))):
        rho = np.exp(-3.0 * np.sum((grid.centres - 0.2) ** 2, axis=1)) + 0.05
        out.append((P.McKeanVlasovFV(grid, V, **kw), np.where(grid.active, rho, 0.0)))
    return out


PROBLEMS = _problems()


def _each(f):
    """A builder applying f(solver, rho_converted, conv) to every problem."""
    return lambda c: tuple(f(p, c(rho), c) for p, rho in PROBLEMS)


def _info(pair):
    rho, info = pair
    return rho, info["residual"], info["converged"]


# op -> (build(conv), exact)
ROWS = {
    "particles.FVGrid": (lambda c: P.FVGrid(-1.0, 1.0, 6, 2, mask=c(np.arange(36) % 3 > 0))
                         .normalise(c(np.arange(36.0))), False),
    "particles.FVGrid.disk": (lambda c: P.FVGrid.disk(1.0, 8, c(np.array([0.5, 0.5])))
                              .normalise(c(np.ones(64))), False),
    "particles.FVGrid.mass": (_each(lambda p, r, c: p.grid.mass(r)), False),
    "particles.FVGrid.normalise": (_each(lambda p, r, c: p.grid.normalise(r)), False),
    "particles.McKeanVlasovFV": (_each(lambda p, r, c: P.McKeanVlasovFV(
        p.grid, c(np.linspace(0.0, 1.0, p.grid.active.shape[0])), lam=0.2,
        interaction=("plummer", 1.0, 0.5), beta=1.5).gibbs(r)), False),
    "particles.McKeanVlasovFV.convolve": (_each(lambda p, r, c: p.convolve(r)), False),
    "particles.McKeanVlasovFV.potential": (_each(lambda p, r, c: p.potential(r)), False),
    "particles.McKeanVlasovFV.free_energy": (_each(lambda p, r, c: p.free_energy(r)), False),
    "particles.McKeanVlasovFV.gibbs": (_each(lambda p, r, c: p.gibbs(r)), False),
    "particles.McKeanVlasovFV.gibbs_residual": (_each(lambda p, r, c: p.gibbs_residual(r)),
                                                False),
    "particles.McKeanVlasovFV.face_flux": (_each(lambda p, r, c: p.face_flux(r)), False),
    "particles.McKeanVlasovFV.stable_dt": (_each(lambda p, r, c: p.stable_dt(r)), False),
    "particles.McKeanVlasovFV.step_explicit": (_each(lambda p, r, c: p.step_explicit(r, 1e-3)),
                                               False),
    # a scipy.sparse matrix by contract (the array API has no sparse standard): values only
    "particles.McKeanVlasovFV.operator": (_each(lambda p, r, c: p.operator(r).toarray()), True),
    "particles.McKeanVlasovFV.step_semi_implicit": (_each(
        lambda p, r, c: p.step_semi_implicit(r, 1e-2)), True),
    "particles.McKeanVlasovFV.run": (_each(lambda p, r, c: (
        lambda res: (res.rho, res.mass, res.min_rho, res.free_energy, res.times, res.steps))(
            p.run(r, 0.3, record_every=3))), False),
    "particles.McKeanVlasovFV.stationary": (_each(lambda p, r, c: _info(p.stationary(
        r, tol=1e-13))), False),
}

#: operations whose result is a host object by contract (checked for values, not type)
HOST_RESULT = {"particles.McKeanVlasovFV.operator"}


def _library(a):
    return _array.library_name(array_api_compat.array_namespace(a))


def _leaves(r):
    if isinstance(r, (tuple, list)):
        for v in r:
            yield from _leaves(v)
    else:
        yield r


def assert_matches_numpy(op, lib, conv):
    build, exact = ROWS[op]
    ref, got = build(lambda a: a), build(conv)
    ref_l, got_l = list(_leaves(ref)), list(_leaves(got))
    assert len(ref_l) == len(got_l), op
    for r, g in zip(ref_l, got_l):
        if isinstance(r, np.ndarray):
            assert op in HOST_RESULT or _library(g) == lib, (op, type(g))
            gh = np.asarray(_array.to_host(g))
            assert gh.shape == r.shape and gh.dtype == r.dtype, (op, gh.shape, gh.dtype)
            if exact or r.dtype.kind != "f":
                np.testing.assert_array_equal(gh, r, err_msg=op)
            else:
                scale = float(np.max(np.abs(r), initial=1.0))
                np.testing.assert_allclose(gh, r, rtol=RTOL, atol=ATOL_SCALE * scale, err_msg=op)
        elif isinstance(r, float) and not exact:
            assert isinstance(g, float), (op, type(g))
            assert g == pytest.approx(r, rel=RTOL, abs=ATOL_SCALE * max(1.0, abs(r))), op
        else:
            assert type(g) is type(r) and g == r, (op, g, r)


def test_every_fv_op_is_listed():
    ops = {i.op for i in _registry.implementations()
           if i.op.startswith(FV_PREFIXES) and i.backend == "reference"}
    assert ops == set(ROWS), ops ^ set(ROWS)


def test_registry_notes_say_what_runs_where():
    """Generic rows compute in float64 in the caller's library; host rows say they convert at
    the boundary, and the semi-implicit scheme of run says it runs on the host."""
    host = {"particles.FVGrid", "particles.FVGrid.disk", "particles.McKeanVlasovFV",
            "particles.McKeanVlasovFV.operator", "particles.McKeanVlasovFV.step_semi_implicit"}
    for op in ROWS:
        impl = _registry.implementations(op)[0]
        assert ("converted at the boundary" in impl.note) == (op in host), (op, impl.note)
        assert impl.dtypes == ("float64",) and impl.accepts("torch"), op
    assert "semi_implicit" in _registry.implementations("particles.McKeanVlasovFV.run")[0].note


@pytest.mark.parametrize("op", sorted(ROWS))
def test_array_api_strict_matches_numpy(op):
    xs = pytest.importorskip("array_api_strict")
    assert_matches_numpy(op, "array_api_strict", xs.asarray)


@pytest.mark.parametrize("op", sorted(ROWS))
def test_torch_cpu_matches_numpy(op):
    torch = pytest.importorskip("torch")
    assert_matches_numpy(op, "torch", torch.asarray)


@pytest.mark.slow
@pytest.mark.parametrize("op", sorted(ROWS))
def test_jax_cpu_matches_numpy(op, jax_x64):
    import jax.numpy as jnp

    assert_matches_numpy(op, "jax", jnp.asarray)


@pytest.mark.gpu
@pytest.mark.parametrize("op", sorted(ROWS))
def test_cupy_matches_numpy(op):
    """Every FV row on CuPy arrays (cuFFT convolution, CUDA libm within 1-2 ulps): on the device
    and within the tolerance of the other libraries."""
    assert_matches_numpy(op, "cupy", _array.cupy_module().asarray)


@pytest.fixture(params=["numpy", "array_api_strict", "torch", "jax"])
def conv(request):
    """asarray of each library (JAX with float64 enabled for the test)."""
    if request.param == "numpy":
        yield np.asarray
    elif request.param == "jax":
        pytest.importorskip("jax")
        with jax_float64() as jax:
            yield jax.numpy.asarray
    else:
        yield pytest.importorskip(request.param).asarray


@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 1, 2])
def test_mass_is_conserved_to_rounding_on_every_library(conv, k):
    """Each explicit step adds every face flux to one cell and subtracts it from the other, so
    h^d sum rho changes only by rounding: the n values rho_i - (dt/h) div_i are each rounded
    once (relative u) and the mass is summed (pairwise, ~u log2 n); |mass - 1| <= (steps + 8) *
    4 u is a safe bound for these runs of 25-90 steps on at most 208 active cells."""
    p, rho = PROBLEMS[k]
    res = p.run(conv(rho), 0.5)
    assert res.steps >= 25
    drift = max(abs(m - 1.0) for m in res.mass)
    assert drift <= (res.steps + 8) * 4 * U64, (res.steps, drift)
    assert min(res.min_rho) > 0


def test_callable_V_receives_the_callers_arrays(conv):
    seen = []

    def V_spy(c):
        seen.append(type(c).__module__.split(".")[0])
        return V(c)

    grid = P.FVGrid(-1.0, 1.0, 10, 2)
    solver = P.McKeanVlasovFV(grid, V_spy, lam=0.1, interaction=("plummer", 1.0, 0.5))
    rho = conv(np.ones(100))
    U = solver.potential(rho)
    solver.potential(rho)                             # V is evaluated once per library
    lib = type(rho).__module__.split(".")[0]
    assert seen == (["numpy"] if lib == "numpy" else ["numpy", lib])
    assert type(U).__module__.split(".")[0] == lib


def test_numpy_divergence_is_the_face_list_bincount():
    """The structured divergence (slices and concat, no scatter) against the face-list formula
    div = bincount(face_l, F) - bincount(face_r, F): equal bit for bit on the masked disk."""
    p, rho = PROBLEMS[2]
    g = p.grid
    F = p.face_flux(rho)
    n = rho.shape[0]
    div = np.bincount(g.face_l, F, n) - np.bincount(g.face_r, F, n)
    dt = 1e-3
    np.testing.assert_array_equal(p.step_explicit(rho, dt), rho - (dt / g.h) * div)


@pytest.mark.parametrize("k", [0, 2])
def test_run_is_the_loop_of_the_public_steps(k):
    """run (one convolution per step, U shared by the stable step, the flux and F_h) gives bit
    for bit what the public stable_dt / step_explicit / mass / free_energy calls give."""
    p, rho0 = PROBLEMS[k]
    g = p.grid
    res = p.run(rho0, 0.03)
    rho, t, times, mass, F = g.normalise(rho0), 0.0, [0.0], [], []
    mass.append(g.mass(rho))
    F.append(p.free_energy(rho))
    while t < 0.03 - 1e-15:
        step = min(p.stable_dt(rho), 0.03 - t)
        rho = p.step_explicit(rho, step)
        t += step
        times.append(t)
        mass.append(g.mass(rho))
        F.append(p.free_energy(rho))
    np.testing.assert_array_equal(res.rho, rho)
    assert (res.times, res.mass, res.free_energy) == (times, mass, F)


def test_semi_implicit_run_is_the_host_run(conv):
    """scheme='semi_implicit' needs SciPy's sparse LU: it runs on the host and returns rho in
    the caller's library, equal bit for bit to the NumPy run."""
    p, rho = PROBLEMS[1]
    ref = p.run(rho, 0.5, dt=0.1, scheme="semi_implicit")
    got = p.run(conv(rho), 0.5, dt=0.1, scheme="semi_implicit")
    assert type(got.rho) is type(conv(rho))
    np.testing.assert_array_equal(np.asarray(_array.to_host(got.rho)), ref.rho)
    assert got.free_energy == ref.free_energy and got.steps == ref.steps == 5


@pytest.mark.parametrize("k", [0, 1, 2])
def test_dense_fallback_without_fft(monkeypatch, k):
    """A namespace without the fft extension gets the direct sum h^d G rho by a dense
    Toeplitz matmul: the same tolerance as the FFT path (a sum of n <= 256 products)."""
    xs = pytest.importorskip("array_api_strict")
    p, rho = PROBLEMS[k]
    ref = p.convolve(rho)
    monkeypatch.setattr(pde, "_has_fft", lambda xp: False)
    fresh = P.McKeanVlasovFV(p.grid, V, lam=p.lam, interaction=p.interaction, beta=p.beta,
                             flux=p.flux)           # no cached FFT of the table
    got = fresh.convolve(xs.asarray(rho))
    assert fresh._on(xs.asarray(rho)).T_dense is not None
    np.testing.assert_allclose(np.from_dlpack(got), ref, rtol=RTOL,
                               atol=ATOL_SCALE * np.max(np.abs(ref)))


def test_float32_input_is_promoted_to_float64():
    xs = pytest.importorskip("array_api_strict")
    p, rho = PROBLEMS[1]
    r32 = rho.astype(np.float32)
    got = p.step_explicit(xs.asarray(r32), 1e-3)
    assert got.dtype == xs.float64
    ref = p.step_explicit(r32.astype(np.float64), 1e-3)
    np.testing.assert_allclose(np.from_dlpack(got), ref, rtol=RTOL,
                               atol=ATOL_SCALE * np.max(np.abs(ref)))


def test_jax_without_float64_is_refused():
    jax = pytest.importorskip("jax")
    if jax.config.jax_enable_x64:
        pytest.skip("float64 is enabled in this process")
    import jax.numpy as jnp

    p, rho = PROBLEMS[0]
    with pytest.raises(TypeError, match="rho.*float64.*jax_enable_x64"):
        p.potential(jnp.asarray(rho))


def test_U_of_another_library_is_refused():
    torch = pytest.importorskip("torch")
    p, rho = PROBLEMS[0]
    with pytest.raises(TypeError, match="U must be an array of the library"):
        p.face_flux(torch.asarray(rho), p.potential(rho))
