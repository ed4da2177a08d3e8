"""Valid but unusual inputs to the main entry points of yatmath.particles give the plain
answer: bit for bit for layout/container variants (Fortran order, strided views, read-only,
lists, views into larger buffers: no arithmetic changes), and for integer or boolean arrays
the answer of the float64 array with the same values (the conversion is exact)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import yatmath.particles as P
from tests.unusual import integral, variant, variant_kinds

_R = np.random.default_rng(1)
X = _R.standard_normal((12, 2))
Y = _R.standard_normal((9, 2)) + 0.5
RHO = 1.0 + _R.random(20)
SETTINGS = settings(max_examples=10, deadline=None)


def assert_same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


CALLS = {
    "interaction_force": lambda A: P.interaction_force(A, "plummer", 1.0, 0.3),
    "interaction_force_numpy": lambda A: P.interaction_force(A, "none", 1.0, 0.0,
                                                             backend="numpy"),
    "interaction_potential": lambda A: P.interaction_potential(A, "hard", 1.0, 0.2),
    "interaction_energy": lambda A: P.interaction_energy(A, "plummer", 0.0, 0.1),
    "random_batch_force": lambda A: P.random_batch_force(A, "plummer", 1.0, 0.3, batch_size=3,
                                                         rng=4),
    "features": lambda A: P.features(Y, A, kind="rff"),
    "sliced_w2": lambda A: P.sliced_w2(A, Y, n_dirs=8, rng=2),
    "mmd2": lambda A: P.mmd2(A, Y),
    "energy_distance": lambda A: P.energy_distance(A, Y),
    "box_reflect": lambda A: P.Box(-0.5, 0.5, d=2).reflect(A),
    "ball_project": lambda A: P.Ball(0.7, 2).project(A),
}


@SETTINGS
@given(kind=variant_kinds, name=st.sampled_from(sorted(CALLS)))
def test_layout_variants_are_bit_for_bit(kind, name):
    f = CALLS[name]
    assert_same(f(variant(kind, X)), f(X))


@SETTINGS
@given(ikind=st.sampled_from(["int", "bool"]), name=st.sampled_from(
    ["interaction_potential", "interaction_energy", "features", "sliced_w2", "energy_distance",
     "box_reflect"]))
def test_integer_and_bool_arrays_equal_their_float64_values(ikind, name):
    f = CALLS[name]
    A_int, A_float = integral(3.0 * X, kind=ikind)
    if ikind == "bool":       # rounded bools repeat rows: use four distinct corners instead
        A_int = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=bool)
        A_float = A_int.astype(np.float64)
    assert_same(f(A_int), f(A_float))


@SETTINGS
@given(kind=variant_kinds)
def test_pde_run_and_normalise_accept_unusual_densities(kind):
    g = P.FVGrid(-1.0, 1.0, 20)
    pde = P.McKeanVlasovFV(g, lambda w: w[:, 0] ** 2, lam=0.5, interaction=("plummer", 1.0, 0.2))
    plain = pde.run(RHO, 0.01)
    other = pde.run(variant(kind, RHO), 0.01)
    assert_same(other.rho, plain.rho)
    assert_same(g.normalise(variant(kind, RHO)), g.normalise(RHO))
    ints, floats = integral(10 * RHO)
    assert_same(pde.run(ints, 0.01).rho, pde.run(floats, 0.01).rho)


@SETTINGS
@given(kind=variant_kinds)
def test_langevin_step_accepts_unusual_particles(kind):
    H = P.FieldHamiltonian(lambda w: np.sum(w * w, -1), lambda w: 2 * w, lam=0.3,
                           interaction=("plummer", 1.0, 0.2))
    a, _ = P.langevin_step(H, X, 0.01, 10.0, 7)
    b, _ = P.langevin_step(H, variant(kind, X), 0.01, 10.0, 7)
    assert_same(a, b)


def test_zero_d_scalars_where_scalars_are_accepted():
    """0-d arrays (and NumPy scalars) for scalar arguments: the same answer as Python floats."""
    it = P.make_interaction("plummer", 1.0, 0.3)
    assert_same(it.g(np.array(0.7)), it.g(0.7))
    assert_same(P.make_interaction("plummer", np.array(1.0), np.float32(0.5)).g(1.0),
          P.make_interaction("plummer", 1.0, 0.5).g(1.0))
    assert_same(P.mmd2(X, Y, bandwidth=np.array(0.8)), P.mmd2(X, Y, bandwidth=0.8))
    assert_same(P.Interval(np.array(-1.0), np.float64(2.0)).project(X[:, 0]),
          P.Interval(-1.0, 2.0).project(X[:, 0]))
    g = P.FVGrid(-1.0, 1.0, 20)
    pde = P.McKeanVlasovFV(g, lambda w: w[:, 0] ** 2)
    assert_same(pde.run(RHO, np.array(0.01), dt=np.float64(0.001)).rho,
          pde.run(RHO, 0.01, dt=0.001).rho)
    assert_same(P.random_batch_force(X, batch_size=np.int64(3), rng=np.uint8(4)),
          P.random_batch_force(X, batch_size=3, rng=4))
