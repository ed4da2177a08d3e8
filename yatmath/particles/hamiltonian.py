"""The particle Hamiltonian of 004 (eq.2.2 / B.3) and its exact gradients (algorithms.md §P1-P2).

    H_N(Omega) = E_align(Omega) + lambda W_{N,s}(Omega)

with W_{N,s} = (1/(2N(N-1))) sum_{k != l} g(omega_k - omega_l) (:func:`.forces.interaction_energy`)
and E_align = -A(Phi) ("max" objectives) or +A(Phi) ("min"), where Phi = features(X, Omega, b) is
the (n, M) feature matrix (:mod:`.featuremaps`) and A is one of the alignment objectives

``"printed"``      A = (1/(n(n-1))) sum_{i != j} Y_ij K_ij, K = Phi Phi^T / N   (004 A.2/B.2)
``"kta"``          A = <K, Y>_F / (||K||_F ||Y||_F)                               (uncentred KTA)
``"centred_kta"``  the same with K -> Hc K Hc, Y -> Hc Y Hc, Hc = I - 11^T/n
``"within_class"`` A = (1/(n(n-1))) sum_{i<j} Y_ij Phi_i . Phi_j                 (004 C.4)

and the label kernel Y = E E^T is y y^T (``label_kernel="signed"``, y in R, e.g. +-1) or
1{y_i = y_j} (``"classes"``).  For ``"printed"`` with a separable map (rff, favor),
E_align = (1/N) sum_k V_D(omega_k) with the O(n) potential

    V_D(omega) = -(1/(n(n-1))) [ (sum_i y_i phi_i)^2 - sum_i y_i^2 phi_i^2 ]     (P1, eq.4.1)

(:meth:`Hamiltonian.potential`, :meth:`Hamiltonian.potential_grad`), and the particle gradient is

    N grad_{omega_k} H_N = grad V_D(omega_k) + (lambda/(N-1)) sum_{l != k} grad g(omega_k - omega_l).

Every gradient here is analytic (chain rule through :func:`.featuremaps.features_vjp`); the
tests check them against central finite differences.  Accuracy: float64; the O(n) forms cancel
(sum y phi)^2 against sum y^2 phi^2, losing about log10(n) digits relative to their magnitudes.
"""
from __future__ import annotations

import numpy as np

from ._arrays import host_op
from .. import _backend as be
from .._validate import as_float_array, as_rng, check_callable, check_choice, check_int, check_real
from .featuremaps import MAPS, SEPARABLE, features, features_vjp
from .forces import (interaction_energy, interaction_force, interaction_potential,
                     random_batch_force)
from .interactions import interaction_argument

OBJECTIVES = ("printed", "kta", "centred_kta", "within_class")
LABEL_KERNELS = ("signed", "classes")


@host_op("particles.label_factor", note="np.unique")
def label_factor(y, label_kernel="signed"):
    """E (n, c) with label kernel Y = E E^T: y[:, None] ("signed") or one-hot ("classes")."""
    check_choice(label_kernel, "label_kernel", LABEL_KERNELS)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] == 0:
        raise ValueError("y must hold at least one label, got length 0")
    if label_kernel == "signed":
        return as_float_array(y, "y", ndim=1).astype(np.float64)[:, None]
    _, inv = np.unique(y, return_inverse=True)
    E = np.zeros((y.shape[0], inv.max() + 1))
    E[np.arange(y.shape[0]), inv] = 1.0
    return E


@host_op("particles.alignment")
def alignment(Phi, y, *, objective="printed", label_kernel="signed"):
    """(A, dA/dPhi) for the alignment objective ``objective`` (see module docstring).

    Phi : (n, M) feature matrix (n >= 2); K = Phi Phi^T / M.  Cost O(n M c) (KTA: O(n M^2)).
    """
    check_choice(objective, "objective", OBJECTIVES)
    Phi = as_float_array(Phi, "Phi", ndim=2).astype(np.float64)
    E = label_factor(y, label_kernel)
    n, M = Phi.shape
    if E.shape[0] != n:
        raise ValueError(f"y must have length n={n} (rows of Phi), got {E.shape[0]}")
    if n < 2:
        raise ValueError(f"Phi must hold at least 2 data points (rows), got shape {Phi.shape}")
    if M == 0:
        raise ValueError(f"Phi must have at least one feature (column), got shape {Phi.shape}")
    if objective in ("printed", "within_class"):
        EtP = E.T @ Phi                                 # (c, M)
        Yii = np.sum(E * E, axis=1)                     # (n,)
        tot = np.sum(EtP * EtP) - np.sum(Yii * np.sum(Phi * Phi, axis=1))   # sum_{i!=j} Y_ij Phi_i.Phi_j
        dtot = 2.0 * (E @ EtP) - 2.0 * Yii[:, None] * Phi
        scale = 1.0 / (M * n * (n - 1)) if objective == "printed" else 0.5 / (n * (n - 1))
        return scale * tot, scale * dtot
    if objective == "centred_kta":
        Pc = Phi - Phi.mean(axis=0)
        Ec = E - E.mean(axis=0)
    else:
        Pc, Ec = Phi, E
    EtP = Ec.T @ Pc
    P = np.sum(EtP * EtP)                               # M <K, Y>
    G = Pc.T @ Pc
    Q = np.sqrt(np.sum(G * G))                          # M ||K||_F
    Z = np.sqrt(np.sum((Ec.T @ Ec) ** 2))               # ||Y||_F
    if Q == 0.0 or Z == 0.0:
        raise ValueError("KTA is undefined: the (centred) kernel or label matrix is zero")
    A = P / (Q * Z)
    dP = 2.0 * (Ec @ EtP)
    dQ = 2.0 * (Pc @ G) / Q
    dA = dP / (Q * Z) - P * dQ / (Q * Q * Z)
    if objective == "centred_kta":
        dA = dA - dA.mean(axis=0)                       # Hc is symmetric: dPhi = Hc dPc
    return A, dA


class ParticleEnergy:
    """Common interface of the particle energies that drive :func:`.langevin.run_langevin`.

    Subclasses define ``field_energy(Omega, b)``, ``field_grad(Omega, b)`` (the gradient of the
    non-interacting part E, shape (N, d), and its phase gradient or None) and optionally
    ``field_potential(Omega, b)`` (the per-particle V(omega_k) whose mean is E).
    The interaction part is lam * W_{N,s} with the interaction ``(kind, s, delta)``.
    """

    def __init__(self, lam=0.0, interaction=None, backend="auto"):
        lam = check_real(lam, "lam")
        if lam != 0.0 and interaction is None:
            raise ValueError("interaction is needed when lam != 0, e.g. "
                             "interaction=('plummer', 0.0, 0.1)")
        self.lam = lam
        if interaction is None:
            self.interaction = None
        elif isinstance(interaction, (tuple, list)):
            self.interaction = tuple(interaction)
            coulomb = len(self.interaction) > 1 and isinstance(self.interaction[1], str)
            interaction_argument(self.interaction if not coulomb else self.interaction[:1])
            if coulomb:           # 'coulomb' needs d: checked with the particles
                interaction_argument(self.interaction, d=2)
        else:
            self.interaction = interaction_argument(interaction)
        self.backend = check_choice(backend, "backend", be.BACKENDS)

    def _inter(self, d):
        it = self.interaction
        return interaction_argument(it, d=d) if isinstance(it, tuple) else it

    @host_op("particles.ParticleEnergy.energy")
    def energy(self, Omega, b=None) -> float:
        """H_N(Omega) = E(Omega) + lam W_{N,s}(Omega)."""
        Om = _rows(Omega)
        e = self.field_energy(Om, b)
        if self.lam != 0.0:
            e += self.lam * interaction_energy(Om, self._inter(Om.shape[1]), backend=self.backend)
        return float(e)

    @host_op("particles.ParticleEnergy.drift")
    def drift(self, Omega, b=None, *, method="direct", batch_size=2, rng=None):
        """(N grad_{omega_k} H_N (N, d), N d H_N/d b_k or None): the Langevin drift of 004 Alg 1.

        method="random_batch" replaces the interaction sum by :func:`.random_batch_force`.
        """
        check_choice(method, "method", ("direct", "random_batch"))
        batch_size = check_int(batch_size, "batch_size", minimum=2)
        rng = as_rng(rng) if method == "random_batch" else rng
        Om = _rows(Omega)
        N = Om.shape[0]
        gO, gb = self.field_grad(Om, b)
        D = N * gO
        Db = None if gb is None else N * gb
        if self.lam != 0.0:
            it = self._inter(Om.shape[1])
            if method == "direct":
                F = interaction_force(Om, it, backend=self.backend)
            else:
                F = random_batch_force(Om, it, batch_size=batch_size, rng=rng,
                                       backend=self.backend)
            D = D + self.lam * F
        return D, Db

    @host_op("particles.ParticleEnergy.grad")
    def grad(self, Omega, b=None):
        """(grad_Omega H_N, grad_b H_N or None) = drift / N."""
        N = _rows(Omega).shape[0]
        D, Db = self.drift(Omega, b)
        return D / N, (None if Db is None else Db / N)

    @host_op("particles.ParticleEnergy.particle_energies")
    def particle_energies(self, Omega, b=None, reading="a"):
        """H_k of the Alg 2 reweighting: (a) V(omega_k) + (lam/(N-1)) sum_{l!=k} g; (b) V(omega_k)."""
        check_choice(reading, "reading", ("a", "b"))
        Om = _rows(Omega)
        h = np.array(self.field_potential(Om, b), dtype=np.float64)
        if reading == "a" and self.lam != 0.0:
            h = h + self.lam * interaction_potential(Om, self._inter(Om.shape[1]),
                                                     backend=self.backend)
        return h


def _rows(Omega, name="Omega"):
    Om = as_float_array(Omega, name, ndim=(1, 2)).astype(np.float64)
    Om = Om[:, None] if Om.ndim == 1 else Om
    if Om.shape[0] == 0 or Om.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one particle with at least one coordinate, "
                         f"got shape {Om.shape}")
    return Om


def _field_values(v, name, shape):
    v = np.asarray(v)
    if v.size != int(np.prod(shape)):
        raise ValueError(f"{name} must return an array of shape {shape}, got shape {v.shape}")
    v = as_float_array(v, f"the value of {name}", check_finite=False).astype(np.float64)
    return v.reshape(shape)


class FieldHamiltonian(ParticleEnergy):
    """H_N = (1/N) sum_k V(omega_k) + lam W_{N,s}: an external potential V (the PDE setting §P4).

    V(W) takes (N, d) and returns (N,); grad_V(W) returns (N, d).
    """

    @host_op("particles.FieldHamiltonian")
    def __init__(self, V, grad_V, lam=0.0, interaction=None, backend="auto"):
        super().__init__(lam, interaction, backend)
        self.V = check_callable(V, "V")
        self.grad_V = check_callable(grad_V, "grad_V")

    @host_op("particles.FieldHamiltonian.field_potential", note="user callables V, grad_V receive NumPy arrays")
    def field_potential(self, Om, b=None):
        """V(omega_k) for every particle, (N,)."""
        Om = _rows(Om, "Om")
        return _field_values(self.V(Om), "V", (Om.shape[0],))

    @host_op("particles.FieldHamiltonian.field_energy")
    def field_energy(self, Om, b=None):
        """(1/N) sum_k V(omega_k)."""
        return float(np.mean(self.field_potential(Om)))

    @host_op("particles.FieldHamiltonian.field_grad")
    def field_grad(self, Om, b=None):
        """(grad of (1/N) sum_k V(omega_k), None)."""
        Om = _rows(Om, "Om")
        return _field_values(self.grad_V(Om), "grad_V", Om.shape) / Om.shape[0], None


class Hamiltonian(ParticleEnergy):
    """Kernel-target-alignment Hamiltonian of 004 eq.2.2 (see the module docstring).

    Parameters
    ----------
    X : (n, d) data; y : (n,) labels (+-1 for the printed objective of 004)
    feature : a map of :mod:`.featuremaps` ("rff", "favor", "elu1", "softplus", "sigmoid2",
        "softmaxfeat", "cos2"); tau, floor : its temperature and floor
    objective : "printed" | "kta" | "centred_kta" | "within_class"; sign : "max" | "min"
        (E_align = -A for "max", +A for "min")
    lam, interaction : the repulsion lam W_{N,s}; interaction = (kind, s, delta) or Interaction
    learn_phase : whether drift() returns the phase gradient (rff, elu1)
    """

    @host_op("particles.Hamiltonian")
    def __init__(self, X, y, *, feature="rff", objective="printed", label_kernel="signed",
                 sign="max", lam=0.0, interaction=None, tau=1.0, floor=1e-6, learn_phase=False,
                 backend="auto"):
        super().__init__(lam, interaction, backend)
        check_choice(feature, "feature", MAPS)
        tau = check_real(tau, "tau", gt=0.0)
        floor = check_real(floor, "floor", gt=0.0)
        if not isinstance(learn_phase, (bool, np.bool_)):
            raise TypeError(f"learn_phase must be True or False, got {learn_phase!r}")
        self.X = as_float_array(X, "X", ndim=2).astype(np.float64)
        if self.X.shape[0] < 2 or self.X.shape[1] == 0:
            raise ValueError(f"X must hold at least 2 data points with at least one coordinate, "
                             f"got shape {self.X.shape}")
        self.E = label_factor(y, label_kernel)
        if self.E.shape[0] != self.X.shape[0]:
            raise ValueError(f"y must have length n={self.X.shape[0]}, got {self.E.shape[0]}")
        self.y = np.asarray(y)
        check_choice(objective, "objective", OBJECTIVES)
        check_choice(sign, "sign", ("max", "min"))
        self.feature, self.objective, self.label_kernel = feature, objective, label_kernel
        self.sign = -1.0 if sign == "max" else 1.0
        self.tau, self.floor, self.learn_phase = tau, floor, learn_phase

    @host_op("particles.Hamiltonian.features")
    def features(self, Omega, b=None):
        """Phi (n, N) of the data X for the particles Omega (and phases b)."""
        return features(self.X, _rows(Omega), b, kind=self.feature, tau=self.tau,
                        floor=self.floor)

    @host_op("particles.Hamiltonian.field_energy")
    def field_energy(self, Om, b=None):
        """E_align = -A ("max") or +A ("min") of the features of Om."""
        A, _ = alignment(self.features(Om, b), self.y, objective=self.objective,
                         label_kernel=self.label_kernel)
        return self.sign * A

    @host_op("particles.Hamiltonian.field_grad")
    def field_grad(self, Om, b=None):
        """(dE_align/dOm (N, d), dE_align/db (N,) when learn_phase else None)."""
        Om = _rows(Om, "Om")
        Phi = self.features(Om, b)
        _, dA = alignment(Phi, self.y, objective=self.objective, label_kernel=self.label_kernel)
        gO, gb = features_vjp(self.X, Om, b, self.sign * dA, kind=self.feature, tau=self.tau,
                              floor=self.floor)
        return gO, (gb if self.learn_phase else None)

    def _check_separable(self):
        if self.feature not in SEPARABLE or self.objective != "printed":
            raise ValueError("the per-particle potential V_D exists only for the printed objective "
                             f"with a separable map {SEPARABLE}; got feature={self.feature!r}, "
                             f"objective={self.objective!r}")

    @host_op("particles.Hamiltonian.potential")
    def potential(self, Omega, b=None):
        """V_D(omega_k) for every particle (P1 O(n) form); printed objective, separable map."""
        self._check_separable()
        Phi = self.features(Omega, b)
        n = Phi.shape[0]
        Yii = np.sum(self.E * self.E, axis=1)
        EtP = self.E.T @ Phi
        return self.sign * (np.sum(EtP * EtP, axis=0) - Yii @ (Phi * Phi)) / (n * (n - 1))

    field_potential = potential

    @host_op("particles.Hamiltonian.potential_grad")
    def potential_grad(self, Omega, b=None):
        """(grad V_D(omega_k) (N, d), dV_D/db_k (N,)): the vectorised P1 formula for RFF,
        grad phi = phi x for FAVOR (no autodiff, no N x N array)."""
        self._check_separable()
        Om = _rows(Omega)
        N = Om.shape[0]
        if b is None:
            b = np.zeros(N)
        else:
            b = as_float_array(b, "b", ndim=1).astype(np.float64)
            if b.shape != (N,):
                raise ValueError(f"b must have length N={N} (one phase per particle), got {b.shape}")
        X, E = self.X, self.E
        n = X.shape[0]
        Yii = np.sum(E * E, axis=1)
        Phi = self.features(Om, b)
        if self.feature == "rff":
            dPhi = -np.sqrt(2.0) * np.sin(X @ Om.T + b)       # d phi / d(omega.x + b)
        else:
            dPhi = Phi                                        # d phi / d(omega.x) for FAVOR
        EtP = E.T @ Phi                                        # (c, N)
        # dV/dt_ik = sign * 2 (sum_c E_ic (E^T Phi)_ck - Y_ii Phi_ik) dPhi_ik / (n(n-1))
        W = 2.0 * ((E @ EtP) - Yii[:, None] * Phi) * dPhi * self.sign / (n * (n - 1))
        gO = W.T @ X
        gb = W.sum(axis=0) if self.feature == "rff" else np.zeros(N)
        return gO, gb
