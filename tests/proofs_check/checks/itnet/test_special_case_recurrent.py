"""Ledger checks itnet.special_case.{linear_ode, ..., gru} (003 App E): records and independent re-derivations."""
import importlib
import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.linalg import expm

from tests.checkrun import assert_valid_evidence, run_quick
from proofs_check import verdicts as V
from proofs_check.repro import run_repro

IDS = ["linear_ode", "nonlinear_ode_alekseev", "discrete_rnn", "nonlinear_rnn", "s4", "discretisation", "mamba",
       "lstm", "gru"]
MODS = [importlib.import_module(f'proofs_check.checks.itnet.special_case.{n}') for n in IDS]


@pytest.mark.parametrize("name", IDS)
def test_record_is_valid_and_repros_run(name):
    cid = f"itnet.special_case.{name}"
    ev = run_quick(cid)
    assert_valid_evidence(cid, ev, importlib.import_module(f"proofs_check.checks.itnet.special_case.{name}"))
    assert ev.problems() == []
    for node in [ev, *ev.parts.values(), *ev.other_readings.values()]:
        if node.repro is not None:
            assert run_repro(node.repro.to_dict())[1]


def test_linear_ode_method2_lebesgue_residual_is_the_free_response():
    ev = run_quick("itnet.special_case.linear_ode")
    ce = ev.parts["b_method2_h0"].counterexample
    A, C, h0 = np.array(ce["A"]), np.array(ce["C"]), np.array(ce["h0"])
    free = np.linalg.norm(C @ expm(A * ce["T"]) @ h0)
    assert math.isclose(free, ce["missing_term_norm"], rel_tol=1e-10)
    assert ev.parts["b_method2_h0"].verdict == V.REFUTED and ev.parts["a_exact_h0_zero"].verdict == V.CONFIRMED


def test_alekseev_printed_counterexample_independently():
    ev = run_quick("itnet.special_case.nonlinear_ode_alekseev")
    p = ev.parts["printed_formula_exact_affine_in_u"]
    T, h0 = 2.0, 0.5
    u = lambda t: math.sin(3 * t)                                    # noqa: E731
    # state and log of the scalar transition Phi(t, 0) = exp(int -3 h^2) along the input-driven trajectory
    sol = solve_ivp(lambda t, z: [-z[0] ** 3 + u(t), -3 * z[0] ** 2], (0, T), [h0, 0.0], method="Radau",
                    rtol=1e-12, atol=1e-12, dense_output=True)
    hT, lT = sol.y[0, -1], sol.y[1, -1]
    psi = solve_ivp(lambda t, z: [-z[0] ** 3], (0, T), [h0], method="Radau", rtol=1e-12, atol=1e-12).y[0, -1]
    printed = psi + quad(lambda s: math.exp(lT - sol.sol(s)[1]) * u(s), 0, T, epsabs=1e-13, limit=200)[0]
    assert math.isclose(hT, p.numbers["h_T"], rel_tol=1e-7)
    assert math.isclose(printed, p.numbers["printed_formula"], rel_tol=1e-6)
    assert abs(printed - hT) > 1e-3 and p.verdict == V.REFUTED


def test_discrete_rnn_scalar_by_hand():
    import yatmath.itnet.special.recurrent as R
    from yatmath.itnet.dense import apply_kernel_tensor
    a, n = 0.5, 5
    U = np.ones((n, 1))
    y = [sum(a ** (t - s) for s in range(t + 1)) for t in range(n)]      # h_t = a h_{t-1} + u_t
    K = R.linear_kernel(np.array([[a]]), np.eye(1), np.eye(1), n)
    assert np.allclose(apply_kernel_tensor(K, U, np.ones(n))[:, 0], y)
    ev = run_quick("itnet.special_case.discrete_rnn")
    assert ev.verdict == V.CONFIRMED and ev.scope.universal and ev.numbers["restarts"] >= 20
    assert ev.other_readings["mu_dt_thm_E1b"].verdict == V.REFUTED


def test_gated_verdicts_follow_numbers():
    for name in ("lstm", "gru", "nonlinear_rnn"):
        ev = run_quick(f"itnet.special_case.{name}")
        errs = ev.numbers["rel_err_vs_scale"] if "rel_err_vs_scale" in ev.numbers else \
            ev.parts["printed_kernel_recovers_output"].numbers["rel_err_vs_scale"]
        assert errs[-1] > 1e-3
        assert ev.verdict == V.REFUTED


def test_discretisation_off_by_one_power_scalar():
    ev = run_quick("itnet.special_case.discretisation")
    # scalar: sum_{s<t} a^{t-1-s} vs sum_{s<=t} a^{t-s}: the printed kernel is never equal for u = 1
    a = 0.5
    assert sum(a ** (3 - s) for s in range(4)) != sum(a ** (2 - s) for s in range(3))
    assert ev.parts["zoh_kernel_vs_printed_recurrence"].verdict == V.REFUTED


def test_s4_confirmed_by_both_searches_remark_12_only_recorded():
    ev = run_quick("itnet.special_case.s4")
    assert set(ev.parts) == {"dense_A", "diag_complex_A"}      # the absent Remark 12 is no part
    assert ev.verdict == V.combine_parts(p.verdict for p in ev.parts.values())
    assert ev.parts["dense_A"].verdict == V.CONFIRMED and ev.parts["diag_complex_A"].verdict == V.CONFIRMED
    assert "NOT_CHECKABLE" in ev.numbers["remark_12"]
