"""Ledger checks of claims.md C3 (mean field and PDE) at level quick, seed 0.

Each check runs once (module fixture).  The tests assert a valid verdict and the Record fields,
and re-evaluate the key numbers independently: the Plummer Lipschitz constant 1/delta^2 and the
hard-core force jump analytically, W2^2 to a density on a case with a closed form, the printed
step against yatmath.langevin_step, and the sympy identities by direct substitution.
"""

import numpy as np
import pytest
from checkrun import assert_valid_evidence

import yatmath.particles as P
from proofs_check.checks import particles_mean_field as M
from proofs_check.registry import REGISTRY, Context

IDS = ["particles.thm1_mean_field", "particles.thm1_proof_bounds", "particles.pde_identities"]


@pytest.fixture(scope="module")
def results():
    return {cid: REGISTRY[cid].func(Context("quick", 0, cid)) for cid in IDS}


@pytest.mark.parametrize("cid", IDS)
def test_registered_and_valid(results, cid):
    assert_valid_evidence(cid, results[cid], M)


def test_thm1_record(results):
    ev = results["particles.thm1_mean_field"]
    p = ev.parts["N_rate_plummer"].numbers
    assert len(p["mean_W1"]) == len(p["N"]) and "ci95" in p            # errors, exponent with CI
    assert ev.parts["fv_mass_positivity"].numbers["max_mass_error"] < 1e-12
    assert ev.parts["fv_mass_positivity"].numbers["min_rho"] >= 0
    assert "ci95" in ev.parts["eta_rate_plummer"].numbers
    # W1 ~ N^-1/2 for i.i.d.-like fluctuations: the CI should not exclude -1/2 by much
    _, hi = p["ci95"]
    assert hi < 0


def test_printed_step_equals_langevin_step():
    inter = P.make_interaction("plummer", 0.0, 0.3)
    H = P.FieldHamiltonian(M.V1, M.gV1, lam=0.5, interaction=inter, backend="numpy")
    dom = P.Interval(-1.0, 1.0)
    Om = np.random.default_rng(0).uniform(-1, 1, (50, 1))
    a, _ = P.langevin_step(H, Om, 0.01, 10.0, np.random.default_rng(5), domain=dom)
    xi = np.random.default_rng(5).standard_normal(Om.shape)
    b = M.printed_step(H, Om, 0.01, 10.0, xi, dom)
    assert np.max(np.abs(a - b)) < 1e-15


def test_w2sq_to_density_closed_form():
    # one point at 0 vs uniform density on [-1, 1]: W2^2 = E U^2 = 1/3
    edges = np.linspace(-1, 1, 11)
    assert M.w2sq_to_density(np.array([0.0]), edges, np.ones(10)) == pytest.approx(1 / 3, rel=1e-6)


def test_proof_bounds_analytic(results):
    ev = results["particles.thm1_proof_bounds"]
    pl = ev.parts["plummer"].numbers
    # Plummer log: f(r) = r/(r^2 + delta^2), sup |f'| = 1/delta^2 at r = 0; sup f = 1/(2 delta)
    assert pl["lipschitz_est_h=1e-3,1e-4,1e-5"][-1] == pytest.approx(1 / 0.09, rel=1e-3)
    assert pl["drift_sup_rmin=1e-4,1e-8"][-1] == pytest.approx(1 / 0.6, rel=1e-3)  # 4 digits stored
    # hard truncation: force jumps from 0 to 1/delta at r = delta -> estimates grow like 1/h
    hd = ev.parts["hard"].numbers["lipschitz_est_h=1e-3,1e-4,1e-5"]
    assert hd[2] / hd[0] == pytest.approx(100.0, rel=0.05)
    assert ev.parts["unregularised"].numbers["A19_drift_bounded"] is False
    assert "W2_split" in pl and "a_N" in pl["W2_split"]


def test_pde_identities(results):
    ev = results["particles.pde_identities"]
    assert all(ev.parts["sympy_equivalences"].numbers.values())
    assert ev.numbers["max_F_increase"] <= 1e-12
    assert ev.numbers["max_gibbs_residual"] < 1e-10
    assert "max_L1_between_steady_states" in ev.numbers
    # direct check of one identity with concrete functions: rho = e^{-x^2}, U = x^3
    import sympy as sp
    x, b = sp.symbols("x beta", positive=True)
    rho, U = sp.exp(-x ** 2), x ** 3
    lhs = sp.diff(rho * sp.diff(U, x), x) + sp.diff(rho, x, 2) / b
    rhs = sp.diff(rho * sp.diff(U + sp.log(rho) / b, x), x)
    assert sp.simplify(lhs - rhs) == 0
