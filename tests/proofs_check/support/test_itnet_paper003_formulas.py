"""proofs_check.support.itnet_paper003_formulas (formerly yatmath.itnet.paper003):
seeded instances and the printed formulas of 003 used by ledger reproductions."""
import numpy as np

import yatmath.itnet as I
from proofs_check.support import itnet_paper003_formulas as P


def test_seeded_setup_is_deterministic():
    a, b = P.seeded_setup(5, 4, 2), P.seeded_setup(5, 4, 2)
    assert np.array_equal(a["U"], b["U"]) and np.array_equal(a["net"].W1, b["net"].W1)


def test_alg1_ragged_matches_dense_and_literal_drops_rows():
    assert P.alg1_rel_error(1, 100, 64, 64, ragged=True) < 1e-12
    assert P.alg1_rel_error(1, 128, 64, 64) < 1e-12          # divisible n: the printed loops cover all
    assert P.alg1_rel_error(1, 100, 64, 64) > 0.1


def test_eq204_equals_reference_for_position_kernels():
    assert P.eq204_rel_error(2, 4, 2, content_dependent=False) < 1e-12


def test_eq253_exact_for_scalar_A():
    # 1x1: d/da e^{a tau} = tau e^{a tau} exactly
    assert P.eq253_rel_error([[-0.7]], 0) < 1e-12


def test_mamba_bound_ratio_scale_invariance_in_WC():
    rng = np.random.default_rng(0)
    p = {"A": -rng.uniform(0.5, 1.5, (3, 4)), "WD": rng.normal(size=(3, 3)), "bD": rng.normal(size=3),
         "WB": rng.normal(size=(4, 3)), "WC": rng.normal(size=(4, 3))}
    U = rng.normal(size=(5, 3))
    r = P.mamba_bound_ratio(p, U)
    q = dict(p, WC=3.0 * p["WC"])
    assert r > 0 and abs(P.mamba_bound_ratio(q, U) - r) < 1e-12 * max(1, r)


def test_alekseev_formulas_linear_case_exact():
    A = np.array([[-1.0, 0.5], [0.0, -2.0]])
    B = np.array([[1.0], [0.5]])
    r = P.alekseev_formulas(lambda h, u: A @ h + B @ u, lambda h, u: A, lambda t: np.array([np.cos(t)]),
                            np.array([0.3, -0.2]), 1.0, 24)
    assert np.allclose(r["printed"], r["h_T"], atol=1e-9) and np.allclose(r["textbook"], r["h_T"], atol=1e-9)
    from proofs_check.support import itnet_alg_literal, itnet_io_model
    assert itnet_alg_literal.alg1_literal and itnet_io_model.pair_macs
    assert not any(hasattr(I, m) for m in ("literal", "iomodel", "paper003"))  # ledger-only
