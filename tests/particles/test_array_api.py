"""Every public operation of yatmath.particles on array_api_strict, PyTorch (CPU) and JAX (CPU)
arrays, against the NumPy float64 reference.

One row per registered operation (``ROWS``), each a builder ``build(conv)`` that calls the
operation with its array inputs passed through ``conv`` (the identity for the NumPy oracle, or
``lib.asarray``).  The test asserts (a) every array in the result is of the input's library and
(b) it equals the NumPy result within the row's tolerance:

* array_api_strict is NumPy underneath: generic operations perform the same NumPy operations in
  the same order and host operations run the very NumPy code on a copy, so the results agree
  exactly; we allow 4 ulps (rtol 1e-15) for safety.
* PyTorch / JAX on the CPU: host operations are bit-identical (the same NumPy code runs);
  generic ones use another libm (pow/sqrt/log/hypot within ~1 ulp) and may sum in another
  order.  The sums here add O(100) terms of magnitude <= 1e3 for well-separated random particles,
  so rtol 1e-11 with atol 1e-12 * scale is a safe bound (about 100 u times the condition).
* float32 (generic operations only): u32 = 6e-8 times the same factors: rtol 2e-4.
* The Langevin rows (langevin_step, run_langevin: 3 steps of eta = 1e-3) draw the same noise on
  the host for every library; the drift differs by the rounding above and each step multiplies
  a difference by at most 1 + eta L (L ~ lam / delta^2 = 12.5 here), so the same rtol holds.
  resample returns indices: equal exactly (same host uniforms, same inverse CDF).

Rows for operations that take no array at all (constructors from scalars, seeds) are listed in
``NO_ARRAY_OPS``: they have nothing to convert, so the only claim is that they are registered.
The finite-volume solver's rows (``particles.FVGrid*``, ``particles.McKeanVlasovFV*``) are in
``tests/particles/test_array_api_pde.py``.
"""
from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

from yatmath import _array, _registry
from yatmath import particles as P
from yatmath.particles import forces
from yatmath.particles import ldp

#: the finite-volume solver's operations: their rows are in tests/particles/test_array_api_pde.py
FV_PREFIXES = ("particles.FVGrid", "particles.McKeanVlasovFV")

RNG = np.random.default_rng(7)
X30 = RNG.standard_normal((30, 3))
X1 = RNG.standard_normal(40)
DATA = RNG.standard_normal((25, 2))
YLAB = np.sign(RNG.standard_normal(25))
OM = RNG.standard_normal((12, 2))
BPH = RNG.uniform(0, 2 * np.pi, 12)
A2 = RNG.standard_normal((20, 2))
B2 = RNG.standard_normal((22, 2)) + 0.3
INTER = ("plummer", 1.0, 0.2)


def _ident(a):
    return a


def _ham(conv, **kw):
    return P.Hamiltonian(conv(DATA), conv(YLAB), lam=0.5, interaction=INTER, **kw)


def _field(conv):
    # V receives the particles' own arrays (generic FieldHamiltonian): written with the array API
    return P.FieldHamiltonian(lambda W: array_api_compat.array_namespace(W).sum(W * W, axis=1),
                              lambda W: 2.0 * W, lam=0.5,
                              interaction=INTER)


def _grid(dim=1):
    return P.FVGrid(-2.0, 2.0, 24, dim)


RHO1 = np.exp(-np.linspace(-2, 2, 24) ** 2)
DOM = P.Box(-1.0, 1.0, d=2)


def _pg():
    return ldp.PairGibbs(lambda W: np.sum(W * W, axis=-1), lambda W: 2.0 * W, 0.5, INTER, DOM)


W0 = DOM.sample_uniform(2 * 5, 3).reshape(2, 5, 2)

# op -> (build(conv), generic: bool)
ROWS = {
    # generic (array API) operations
    "particles.interaction_force": (lambda c: P.interaction_force(c(X30), *INTER,
                                                                  backend="reference"), True),
    "particles.interaction_potential": (lambda c: P.interaction_potential(
        c(X30), "hard", 0.5, 0.3, backend="reference"), True),
    "particles.interaction_energy": (lambda c: P.interaction_energy(
        c(X30), "none", 1.0, 0.0, backend="reference"), True),
    "particles.random_batch_force": (lambda c: P.random_batch_force(
        c(X30), "none", 1.0, 0.0, batch_size=4, rng=3, backend="reference"), True),
    "particles.Interaction.g": (lambda c: P.make_interaction("none", 0.0).g(
        c(np.abs(X1) + 0.1)), True),
    "particles.Interaction.g_vec": (lambda c: P.make_interaction("hard", 1.5, 0.4).g_vec(
        c(X30)), True),
    "particles.Interaction.factor": (lambda c: P.make_interaction("plummer", 0.7, 0.2).factor(
        c(X1 * X1)), True),
    # below: host operations (NumPy/SciPy inside, converted at the boundary) unless
    # flagged True (the particle solver: domains, features, Hamiltonians, Langevin)
    "particles.Interaction.grad": (lambda c: P.make_interaction(*INTER).grad(c(X30)), False),
    "particles.features": (lambda c: P.features(c(DATA), c(OM), c(BPH), kind="elu1"), True),
    "particles.features_vjp": (lambda c: P.features_vjp(
        c(DATA), c(OM), c(BPH), c(np.ones((25, 12))), kind="rff"), True),
    "particles.label_factor": (lambda c: P.label_factor(c(YLAB)), False),
    "particles.alignment": (lambda c: P.alignment(c(P.features(DATA, OM, BPH)), c(YLAB),
                                                  objective="kta"), True),
    "particles.Hamiltonian": (lambda c: _ham(c, feature="favor").potential(c(OM)), False),
    "particles.Hamiltonian.features": (lambda c: _ham(c).features(c(OM), c(BPH)), True),
    "particles.Hamiltonian.field_energy": (lambda c: _ham(c).field_energy(c(OM), c(BPH)), True),
    "particles.Hamiltonian.field_grad": (lambda c: _ham(c).field_grad(c(OM), c(BPH)), True),
    "particles.Hamiltonian.potential": (lambda c: _ham(c).potential(c(OM), c(BPH)), True),
    "particles.Hamiltonian.potential_grad": (lambda c: _ham(c).potential_grad(c(OM), c(BPH)),
                                             True),
    "particles.ParticleEnergy.energy": (lambda c: _ham(c).energy(c(OM), c(BPH)), True),
    "particles.ParticleEnergy.drift": (lambda c: _ham(c).drift(c(OM), c(BPH)), True),
    "particles.ParticleEnergy.grad": (lambda c: _field(c).grad(c(OM)), True),
    "particles.ParticleEnergy.particle_energies": (lambda c: _field(c).particle_energies(
        c(OM)), True),
    "particles.FieldHamiltonian.field_potential": (lambda c: _field(c).field_potential(c(OM)),
                                                   True),
    "particles.FieldHamiltonian.field_energy": (lambda c: _field(c).field_energy(c(OM)), True),
    "particles.FieldHamiltonian.field_grad": (lambda c: _field(c).field_grad(c(OM)), True),
    "particles.Box": (lambda c: P.Box(c(np.array([-1.0, -2.0])), c(np.array([1.0, 0.5])))
                      .project(c(2 * A2)), False),
    "particles.Box.contains": (lambda c: DOM.contains(c(A2)), True),
    "particles.Box.project": (lambda c: DOM.project(c(2 * A2)), True),
    "particles.Box.reflect": (lambda c: DOM.reflect(c(2 * A2)), True),
    "particles.Domain.apply": (lambda c: P.Interval(-1.0, 0.5).apply(c(X1), "reflect"), True),
    "particles.Ball": (lambda c: P.Ball(1.5, 2, c(np.array([0.1, 0.2]))).project(c(2 * A2)),
                       False),
    "particles.Ball.contains": (lambda c: P.Ball(1.0, 2).contains(c(A2)), True),
    "particles.Ball.project": (lambda c: P.Ball(1.0, 2).project(c(2 * A2)), True),
    "particles.Ball.reflect": (lambda c: P.Ball(1.0, 2).reflect(c(2 * A2)), True),
    "particles.langevin_step": (lambda c: P.langevin_step(_field(c), c(OM), 1e-3, 10.0, 5,
                                                          domain=DOM), True),
    "particles.run_langevin": (lambda c: P.run_langevin(
        _field(c), c(OM), eta=1e-3, beta=10.0, n_steps=3, rng=5).Omega, True),
    "particles.reweight": (lambda c: P.reweight(_field(c), c(OM), 2.0), True),
    "particles.resample": (lambda c: P.resample(c(np.abs(X1)), 10, 2, "systematic"), True),
    "particles.w1_1d": (lambda c: P.w1_1d(c(X1), c(X1[:30] + 0.2)), False),
    "particles.w1_density": (lambda c: P.w1_density(c(X1), c(np.linspace(-3, 3, 25)),
                                                    c(RHO1)), False),
    "particles.sliced_w2": (lambda c: P.sliced_w2(c(A2), c(B2)), False),
    "particles.median_bandwidth": (lambda c: P.median_bandwidth(c(A2), c(B2)), False),
    "particles.mmd2": (lambda c: P.mmd2(c(A2), c(B2)), False),
    "particles.mmd2_test": (lambda c: P.mmd2_test(c(A2), c(B2), n_perm=20), False),
    "particles.energy_distance": (lambda c: P.energy_distance(c(A2), c(B2)), False),
    "particles.n_var": (lambda c: P.n_var(c(X1), 100), False),
    "particles.fit_rate": (lambda c: P.fit_rate(c(np.arange(1.0, 9.0)),
                                                c(np.arange(1.0, 9.0) ** -0.5 * 1.1)), False),
    "particles.histogram_entropy": (lambda c: P.histogram_entropy(
        c(A2), [c(np.linspace(-3, 3, 7)), c(np.linspace(-3, 3, 5))]), False),
    "particles.PairGibbs.energy": (lambda c: _pg().energy(c(W0)), False),
    "particles.PairGibbs.grad": (lambda c: _pg().grad(c(W0)), False),
    "particles.tilted_langevin": (lambda c: ldp.tilted_langevin(
        _pg(), c(W0), beta_N=c(np.array([1.0, 2.0])), t=0.5, f=lambda W: W[..., 0],
        grad_f=lambda W: np.stack([np.ones(W.shape[:-1]), np.zeros(W.shape[:-1])], -1),
        step=1e-3, n_steps=6, burn=2, rng=1).W, False),
    "particles.cumulative_integral": (lambda c: ldp.cumulative_integral(
        c(np.linspace(0, 1, 9)), c(np.linspace(0, 1, 9) ** 2)), False),
    "particles.lambda_n_curve": (lambda c: ldp.lambda_n_curve(
        ldp.PairGibbs(None, None, 0.0, None, DOM), 3, c(np.array([0.0, 0.5])), beta_N=1.0,
        f=lambda W: W[..., 0], grad_f=lambda W: np.ones_like(W),
        replicas=2, step=1e-3, n_steps=10, burn=5, rng=2)["lam_N"], False),
    "particles.log_partition": (lambda c: ldp.log_partition(
        _pg(), 3, c(np.array([0.0, 1.0])), replicas=2, step=1e-3, n_steps=10, burn=5,
        rng=4)["logZ"], False),
    "particles.mean_field_tilted": (lambda c: ldp.mean_field_tilted(
        _grid(), lambda x: x[:, 0] ** 2, 0.0, None, 1.0, lambda x: x[:, 0], 0.3,
        rho0=c(RHO1), tol=1e-10)[0], False),
    "particles.mean_field_lambda": (lambda c: ldp.mean_field_lambda(
        _grid(), lambda x: x[:, 0] ** 2, 0.0, None, 1.0, lambda x: x[:, 0],
        c(np.array([0.0, 0.3])), tol=1e-10)["Lambda"], False),
    "particles.bernoulli_kl": (lambda c: ldp.bernoulli_kl(c(np.array([0.2, 0.6])), 0.5), False),
    "particles.sanov_two_bin": (lambda c: ldp.sanov_two_bin(c(np.array([10, 100])), 0.5, 0.7)
                                ["rate"], False),
    "particles.simplex_ground_state": (lambda c: ldp.simplex_ground_state(
        c(np.array([0.3, -0.2, 0.1])), c(np.eye(3)), 0.5, restarts=2, iters=50)[1], False),
}

NO_ARRAY_OPS = {
    "particles.make_interaction", "particles.as_interaction", "particles.random_batches",
    "particles.orthogonal_init", "particles.Box.sample_uniform", "particles.Ball.sample_uniform",
    "particles.Interval", "particles.FieldHamiltonian", "particles.PairGibbs",
    "particles.beta_n", "particles.truncated_riesz_energy_uniform",
}


def _library(a):
    import array_api_compat

    return _array.library_name(array_api_compat.array_namespace(a))


def _leaves(r):
    if isinstance(r, dict):
        for v in r.values():
            yield from _leaves(v)
    elif isinstance(r, (tuple, list)):
        for v in r:
            yield from _leaves(v)
    else:
        yield r


#: operations whose result is a host object by contract (checked for values, not type)
HOST_RESULT: set = set()       # (McKeanVlasovFV.operator's row is in test_array_api_pde.py)


def assert_matches_numpy(op, lib, conv, *, rtol, atol_scale, dtype=None):
    build, _ = ROWS[op]
    if dtype is not None:
        ref = build(lambda a: np.asarray(a, dtype=dtype))
        got = build(lambda a: conv(np.asarray(a, dtype=dtype)))
    else:
        ref, got = build(_ident), build(conv)
    ref_l, got_l = list(_leaves(ref)), list(_leaves(got))
    assert len(ref_l) == len(got_l)
    for r, g in zip(ref_l, got_l):
        if isinstance(r, np.ndarray):
            assert op in HOST_RESULT or _library(g) == lib, (op, type(g))
            gh = np.from_dlpack(g) if lib == "array_api_strict" else np.asarray(_array.to_host(g))
            assert gh.shape == r.shape
            if r.dtype.kind == "f":
                scale = float(np.max(np.abs(r[np.isfinite(r)]), initial=1.0))
                np.testing.assert_allclose(gh, r, rtol=rtol, atol=atol_scale * scale,
                                           err_msg=op)
            else:
                np.testing.assert_array_equal(gh, r, err_msg=op)
        elif isinstance(r, float):
            assert g == pytest.approx(r, rel=rtol, abs=atol_scale * max(1.0, abs(r))), op
        else:
            assert g == r or (isinstance(r, float) and np.isnan(r) and np.isnan(g)), op


def test_every_particles_op_is_listed():
    ops = {i.op for i in _registry.implementations()
           if i.op.startswith("particles.") and i.backend == "reference"
           and _registry.ANY in i.libraries and not i.op.startswith(FV_PREFIXES)}
    assert ops == set(ROWS) | NO_ARRAY_OPS, (ops ^ (set(ROWS) | NO_ARRAY_OPS))


def test_generic_ops_are_flagged_as_such():
    """The generic rows carry no host note; the host rows say they convert at the boundary."""
    for op, (_, generic) in ROWS.items():
        note = _registry.implementations(op)[0].note
        assert ("converted at the boundary" in note) != generic, (op, note)


@pytest.mark.parametrize("op", sorted(ROWS))
def test_array_api_strict_matches_numpy(op):
    xs = pytest.importorskip("array_api_strict")
    assert_matches_numpy(op, "array_api_strict", xs.asarray, rtol=1e-15, atol_scale=1e-15)


@pytest.mark.parametrize("op", sorted(o for o, (_, gen) in ROWS.items() if gen))
def test_array_api_strict_float32(op):
    xs = pytest.importorskip("array_api_strict")
    assert_matches_numpy(op, "array_api_strict", xs.asarray, rtol=2e-4, atol_scale=2e-5, dtype=np.float32)


@pytest.mark.parametrize("op", sorted(ROWS))
def test_torch_cpu_matches_numpy(op):
    torch = pytest.importorskip("torch")
    assert_matches_numpy(op, "torch", torch.asarray, rtol=1e-11, atol_scale=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("op", sorted(ROWS))
def test_jax_cpu_matches_numpy(op, jax_x64):
    import jax.numpy as jnp

    assert_matches_numpy(op, "jax", jnp.asarray, rtol=1e-11, atol_scale=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("op", sorted(ROWS))
def test_cupy_matches_numpy(op):
    """Every row on CuPy arrays: the result stays on the device and matches the NumPy float64
    oracle at the PyTorch tolerance (CUDA's sqrt/pow/exp/log are within 1-2 ulps, CUDA C
    Programming Guide, double precision; reductions sum in another order)."""
    assert_matches_numpy(op, "cupy", _array.cupy_module().asarray, rtol=1e-11,
                         atol_scale=1e-12)


def test_backend_is_refused_for_other_libraries():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="numba.*numpy.*torch"):
        P.interaction_force(torch.asarray(X30), backend="numba")


def test_missing_backend_is_refused_never_replaced(monkeypatch):
    """A backend an operation lacks is refused naming both (a stand-in operation: every
    particles operation with a ``backend=`` now has all three rows); an explicit "cupy" without
    CuPy is a RuntimeError, never a silent fallback to the host."""
    rows = {"reference": _registry.Implementation("particles.test_only", "reference", _ident)}
    monkeypatch.setitem(_registry._TABLE, "particles.test_only", rows)
    with pytest.raises(ValueError, match="particles.test_only has no 'cupy' implementation"):
        _registry.choose("particles.test_only", "cupy", "numpy")
    if not _array.has_cupy():
        for call in (lambda: P.interaction_potential(X30, backend="cupy"),
                     lambda: P.random_batch_force(X30, batch_size=3, rng=0, backend="cupy")):
            with pytest.raises(RuntimeError, match="needs CuPy and a CUDA device"):
                call()


#: the operations a ParticleEnergy passes its ``backend`` to
ENERGY_OPS = ("particles.interaction_force", "particles.interaction_potential",
              "particles.random_batch_force")


def _calls_with_backend(monkeypatch, backend):
    """The (op, backend) pairs that FieldHamiltonian(backend=...) asks the registry for, over
    every method that computes an interaction term (NumPy particles)."""
    from yatmath.particles import forces

    seen = []
    real = forces.choose

    def spy(op, b, lib, **kw):
        seen.append((op, b))
        return real(op, b, lib, **kw)

    monkeypatch.setattr(forces, "choose", spy)
    H = P.FieldHamiltonian(lambda W: np.sum(W * W, axis=1), lambda W: 2.0 * W, lam=0.5,
                           interaction=INTER, backend=backend)
    H.energy(OM)
    H.drift(OM)
    H.drift(OM, method="random_batch", rng=0)
    H.particle_energies(OM)
    return {op for op, b in seen if b == backend}


def test_particle_energy_backend_has_a_row_in_every_interaction_term(monkeypatch):
    """FieldHamiltonian(backend=b) passes b to every interaction term unchanged; each of them
    must have a row for every explicit backend the Hamiltonian accepts, else backend="cupy"
    fails (the first H100 run: interaction_potential had no 'cupy' row) or would have to be
    replaced silently.  The GPU rows run on the GPU."""
    assert _calls_with_backend(monkeypatch, "numpy") == set(ENERGY_OPS)
    for op in ENERGY_OPS:
        rows = {i.backend: i for i in _registry.implementations(op)}
        assert set(rows) == {"reference", "numba", "cupy"}, (op, set(rows))
        assert rows["cupy"].device == "gpu" and rows["cupy"].accepts("cupy"), op


class _FakeDevice:
    """NumPy standing in for CuPy on a machine without a GPU: ``asarray`` copies and counts (the
    'cupy' rows' numba-cuda kernels then run in numba-cuda's simulator on the copies)."""

    def __init__(self):
        self.copies = 0

    def asarray(self, a, dtype=None):
        self.copies += 1
        return np.array(a, dtype=dtype)

    def __getattr__(self, name):
        """Everything else of CuPy's module as NumPy's."""
        return getattr(np, name)


def _use_fake_device(monkeypatch, fake):
    # to_device's copy counts; the rows' own asarray of an array already there must not
    monkeypatch.setattr(_array, "cupy_module", lambda: fake)
    monkeypatch.setattr(forces, "cupy_module", lambda: np)
    monkeypatch.setattr(_registry, "libraries_available",
                        lambda: {"numba": _array.has_numba(), "cupy": True})


@pytest.mark.parametrize("op", ["particles.interaction_potential", "particles.random_batch_force"])
def test_cupy_row_with_host_input_runs_on_the_device_and_returns_host(monkeypatch, op):
    """backend="cupy" with NumPy input: the registry picks the 'cupy' row (not the reference),
    which copies the particles to the device once (the row's host_input), runs the tiled kernel
    there and returns NumPy; tests/test_gpu_paths.py runs the same rows on a real device."""
    fake = _FakeDevice()
    _use_fake_device(monkeypatch, fake)
    assert _registry.choose(op, "cupy", "numpy").backend == "cupy"
    if op == "particles.interaction_potential":
        got = P.interaction_potential(X30, "plummer", 0.0, 0.2, backend="cupy")
        ref = P.interaction_potential(X30, "plummer", 0.0, 0.2, backend="reference")
        # the kernel sums in its own order (bound: tests/particles/test_cuda_kernels.py)
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=0)
    else:
        got = P.random_batch_force(X30, *INTER, batch_size=4, rng=3, backend="cupy")
        ref = P.random_batch_force(X30, *INTER, batch_size=4, rng=3, backend="reference")
        np.testing.assert_array_equal(got, ref)      # s = 1: no pow, the same bits
    assert fake.copies == 1
    assert type(got) is np.ndarray


def test_field_hamiltonian_cupy_backend_with_host_input(monkeypatch):
    """FieldHamiltonian(backend="cupy") on NumPy particles: energy, particle energies and the
    random-batch drift run their interaction terms through the 'cupy' rows (the first H100
    run: ValueError, interaction_potential had no 'cupy' row) and return host values: the
    potential within the kernel's summation-order bound, the random batch (s = 1, no pow) bit
    for bit."""
    fake = _FakeDevice()
    _use_fake_device(monkeypatch, fake)
    kw = dict(V=lambda W: np.sum(W * W, axis=1), grad_V=lambda W: 2.0 * W, lam=0.5,
              interaction=INTER)
    Hg, Hn = P.FieldHamiltonian(backend="cupy", **kw), P.FieldHamiltonian(backend="numpy", **kw)
    assert Hg.energy(OM) == pytest.approx(Hn.energy(OM), rel=1e-13)
    hg = Hg.particle_energies(OM)
    assert type(hg) is np.ndarray
    np.testing.assert_allclose(hg, Hn.particle_energies(OM), rtol=1e-13)
    Dg, _ = Hg.drift(OM, method="random_batch", rng=0)
    assert type(Dg) is np.ndarray
    np.testing.assert_array_equal(Dg, Hn.drift(OM, method="random_batch", rng=0)[0])
    assert fake.copies == 3


HARD_R2 = np.array([0.0, 5e-324, 1e-300, 1e-160, 1e-20, 1e-3, 0.04, 1.0, 7.5, 1e20, 1e160,
                    1e300, np.inf])
FAMILIES = [("none", 1.0, 0.0), ("none", 0.0, 0.0), ("none", -1.0, 0.0), ("none", 2.0, 0.0),
            ("none", 0.7, 0.0), ("plummer", 1.0, 0.2), ("plummer", 0.0, 1e-3),
            ("plummer", -1.5, 0.5), ("hard", 1.0, 0.2), ("hard", 2.0, 1e-150),
            ("hard", 3.3, 0.1)]


@pytest.mark.parametrize("kind,s,delta", FAMILIES)
def test_numba_force_factor_is_the_reference_on_hard_inputs(kind, s, delta):
    """The Numba definition (``cfac``, the IEEE compilation the random batch uses) equals the
    Python definition bit for bit on r^2 from 0 (coincident) through subnormal to overflow,
    for every family but the general power (pow: within 8 ulps, see below)."""
    pytest.importorskip("numba")
    from yatmath.particles import _numba_kernels as nk
    from yatmath.particles.interactions import force_factor

    it = P.make_interaction(kind, s, delta)
    ref = force_factor(HARD_R2, it)
    with np.errstate(all="ignore"):
        got = np.array([nk._c_ieee(r2 + it.soft2, it.family, it.a, it.p) if r2 > it.cut2 else 0.0
                        for r2 in HARD_R2])
        raw = np.array([nk.cfac(r2 + it.soft2, it.family, it.a, it.p) for r2 in HARD_R2])
    if it.family != 0:  # no pow (0: the general power, Interaction.family): +, -, *, / and sqrt are correctly rounded on every CPU
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(np.where(HARD_R2 > it.cut2, raw, 0.0), ref)
        return
    # the general power: NumPy's pow is chosen by CPU (AVX-512: a SIMD kernel, 1 ulp off the C
    # library's on an AVX-512 EPYC), Numba's is the C library's: within 8 ulps, same inf and 0
    for a in (got, np.where(HARD_R2 > it.cut2, raw, 0.0)):
        np.testing.assert_array_equal(np.isfinite(a), np.isfinite(ref))
        np.testing.assert_array_equal(a == 0, ref == 0)
        fin = np.isfinite(ref)
        np.testing.assert_allclose(a[fin], ref[fin], rtol=8 * 2.0 ** -52, atol=0)
