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
tests check them against central finite differences.  The energies, drifts, gradients and
potentials are written once against the array API standard: particles of any library (NumPy,
CuPy, PyTorch, JAX, ``array_api_strict``) are computed on in that library, on their device (the
data X and labels are kept as NumPy and copied once per device); ``label_factor`` (np.unique)
stays on the host.  Accuracy: float64; the O(n) forms cancel
(sum y phi)^2 against sum y^2 phi^2, losing about log10(n) digits relative to their magnitudes.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._typing import Array, RNGLike
from .._array import device_of, namespace, parameter, to_host
from .._registry import ALIASES, BACKENDS
from ._arrays import generic_op, host_op
from .._validate import as_float_array, as_rng, check_callable, check_choice, check_int, check_real
from .featuremaps import MAPS, SEPARABLE, features, features_vjp
from .forces import (interaction_energy, interaction_force, interaction_potential,
                     random_batch_force)
from .interactions import Interaction, interaction_argument

OBJECTIVES = ("printed", "kta", "centred_kta", "within_class")
LABEL_KERNELS = ("signed", "classes")

_DATA = ("X, y and E = label_factor(y) stored as NumPy at construction and copied once per "
         "device")


@host_op("particles.label_factor", note="np.unique")
def label_factor(y: Array, label_kernel: str = "signed") -> Array:
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


def _alignment(Phi, E, objective):
    """(A as a 0-d array (NumPy: a scalar), dA/dPhi) on validated float64 Phi (n, M), n >= 2,
    M >= 1, and the label factor E (n, c) of the same library; generic over the array API."""
    xp = namespace(Phi)
    n, M = Phi.shape
    if objective in ("printed", "within_class"):
        EtP = E.T @ Phi                                 # (c, M)
        Yii = xp.sum(E * E, axis=1)                     # (n,)
        # sum_{i != j} Y_ij Phi_i.Phi_j
        tot = xp.sum(EtP * EtP) - xp.sum(Yii * xp.sum(Phi * Phi, axis=1))
        dtot = 2.0 * (E @ EtP) - 2.0 * Yii[:, None] * Phi
        scale = 1.0 / (M * n * (n - 1)) if objective == "printed" else 0.5 / (n * (n - 1))
        return scale * tot, scale * dtot
    if objective == "centred_kta":
        Pc = Phi - xp.mean(Phi, axis=0)
        Ec = E - xp.mean(E, axis=0)
    else:
        Pc, Ec = Phi, E
    EtP = Ec.T @ Pc
    P = xp.sum(EtP * EtP)                               # M <K, Y>
    G = Pc.T @ Pc
    Q = xp.sqrt(xp.sum(G * G))                          # M ||K||_F
    Z = xp.sqrt(xp.sum((Ec.T @ Ec) ** 2))               # ||Y||_F
    if bool(Q == 0.0) or bool(Z == 0.0):
        raise ValueError("KTA is undefined: the (centred) kernel or label matrix is zero")
    A = P / (Q * Z)
    dP = 2.0 * (Ec @ EtP)
    dQ = 2.0 * (Pc @ G) / Q
    dA = dP / (Q * Z) - P * dQ / (Q * Q * Z)
    if objective == "centred_kta":
        dA = dA - xp.mean(dA, axis=0)                   # Hc is symmetric: dPhi = Hc dPc
    return A, dA


@generic_op("particles.alignment", dtypes=("float64",),
            note="generic; the label factor (np.unique for classes) "
            "is built on the host and copied to Phi's device")
def alignment(Phi: Array, y: Array, *, objective: str = "printed",
              label_kernel: str = "signed") -> tuple[float, Array]:
    """(A, dA/dPhi) for the alignment objective ``objective`` (see module docstring).

    Phi : (n, M) feature matrix (n >= 2); K = Phi Phi^T / M.  Cost O(n M c) (KTA: O(n M^2)).
    Phi and y of one array API library: A is a float, dA float64 in Phi's library and device.
    """
    check_choice(objective, "objective", OBJECTIVES)
    Phi = as_float_array(Phi, "Phi", ndim=2)
    xp = namespace(Phi, y)                      # one library (TypeError otherwise)
    Phi = xp.astype(Phi, xp.float64, copy=False)
    E = to_host(label_factor(to_host(y), label_kernel))
    n, M = Phi.shape
    if E.shape[0] != n:
        raise ValueError(f"y must have length n={n} (rows of Phi), got {E.shape[0]}")
    if n < 2:
        raise ValueError(f"Phi must hold at least 2 data points (rows), got shape "
                         f"{tuple(Phi.shape)}")
    if M == 0:
        raise ValueError(f"Phi must have at least one feature (column), got shape "
                         f"{tuple(Phi.shape)}")
    if not isinstance(Phi, np.ndarray):
        E = xp.asarray(E, device=device_of(Phi))
    A, dA = _alignment(Phi, E, objective)
    return float(A), dA


class ParticleEnergy:
    """Common interface of the particle energies that drive :func:`.langevin.run_langevin`.

    Subclasses define ``field_energy(Omega, b)``, ``field_grad(Omega, b)`` (the gradient of the
    non-interacting part E, shape (N, d), and its phase gradient or None) and optionally
    ``field_potential(Omega, b)`` (the per-particle V(omega_k) whose mean is E).
    The interaction part is lam * W_{N,s} with the interaction ``(kind, s, delta)``.

    Every method takes Omega (and b) of any array API library (NumPy, CuPy, PyTorch, JAX,
    ``array_api_strict``) and computes in that library, on its device (float64); the
    interaction terms are the generic :mod:`.forces` (``backend="auto"`` picks the reference
    for libraries other than NumPy and CuPy).  NumPy results are the same bits as before the
    generic rewrite.

    ``backend`` is passed unchanged to every interaction term (:func:`.forces.interaction_force`,
    :func:`.forces.interaction_potential` through the energy and the particle energies, and
    :func:`.forces.random_batch_force`), and each of them has a row for every backend accepted
    here: ``backend="cupy"`` computes all of them on the GPU (the force and the potential by their
    tiled CUDA kernels, the random batch force by its per-batch kernel; d > 16: the reference run
    by CuPy), NumPy particles being copied to the device and the results back.
    """

    def __init__(self, lam: float = 0.0,
                 interaction: Interaction | tuple[Any, ...] | None = None,
                 backend: str = "auto") -> None:
        lam = check_real(lam, "lam")
        if lam != 0.0 and interaction is None:
            raise ValueError("interaction is needed when lam != 0, e.g. "
                             "interaction=('plummer', 0.0, 0.1)")
        self.lam = lam
        if interaction is None:
            self.interaction: Interaction | tuple[Any, ...] | None = None
        elif isinstance(interaction, (tuple, list)):
            self.interaction = tuple(interaction)
            coulomb = len(self.interaction) > 1 and isinstance(self.interaction[1], str)
            interaction_argument(self.interaction if not coulomb else self.interaction[:1])
            if coulomb:           # 'coulomb' needs d: checked with the particles
                interaction_argument(self.interaction, d=2)
        else:
            self.interaction = interaction_argument(interaction)
        self.backend = check_choice(backend, "backend", BACKENDS + tuple(ALIASES))

    def _inter(self, d):
        it = self.interaction
        return interaction_argument(it, d=d) if isinstance(it, tuple) else it

    @generic_op("particles.ParticleEnergy.energy", dtypes=("float64",),
                note="generic; returns a float")
    def energy(self, Omega: Array, b: Array | None = None) -> float:
        """H_N(Omega) = E(Omega) + lam W_{N,s}(Omega), a float."""
        Om = _rows(Omega)
        e = self.field_energy(Om, b)  # type: ignore[attr-defined]  # defined by subclasses
        if self.lam != 0.0:
            e += self.lam * interaction_energy(Om, self._inter(Om.shape[1]), backend=self.backend)
        return float(e)

    @generic_op("particles.ParticleEnergy.drift", dtypes=("float64",),
                note="generic; random batches drawn on the "
                "host (numpy.random.Generator permutation), so equal for every library")
    def drift(self, Omega: Array, b: Array | None = None, *, method: str = "direct",
              batch_size: int = 2, rng: RNGLike = None) -> tuple[Array, Array | None]:
        """(N grad_{omega_k} H_N (N, d), N d H_N/d b_k or None): the Langevin drift of 004 Alg 1.

        method="random_batch" replaces the interaction sum by :func:`.random_batch_force`
        (its permutation is a host draw from ``rng``: the same seed gives the same batches on
        every array library).
        """
        check_choice(method, "method", ("direct", "random_batch"))
        batch_size = check_int(batch_size, "batch_size", minimum=2)
        rng = as_rng(rng) if method == "random_batch" else rng
        Om = _rows(Omega)
        N = Om.shape[0]
        gO, gb = self.field_grad(Om, b)  # type: ignore[attr-defined]  # defined by subclasses
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

    @generic_op("particles.ParticleEnergy.grad", dtypes=("float64",), note="generic")
    def grad(self, Omega: Array, b: Array | None = None) -> tuple[Array, Array | None]:
        """(grad_Omega H_N, grad_b H_N or None) = drift / N."""
        N = _rows(Omega).shape[0]
        D, Db = self.drift(Omega, b)
        return D / N, (None if Db is None else Db / N)

    @generic_op("particles.ParticleEnergy.particle_energies", dtypes=("float64",), note="generic")
    def particle_energies(self, Omega: Array, b: Array | None = None, reading: str = "a") -> Array:
        """H_k of the Alg 2 reweighting: (a) V(omega_k) + (lam/(N-1)) sum_{l!=k} g; (b) V(omega_k)."""
        check_choice(reading, "reading", ("a", "b"))
        Om = _rows(Omega)
        xp = namespace(Om)
        h = xp.asarray(self.field_potential(Om, b),  # type: ignore[attr-defined]
                       dtype=xp.float64, copy=True)
        if reading == "a" and self.lam != 0.0:
            h = h + self.lam * interaction_potential(Om, self._inter(Om.shape[1]),
                                                     backend=self.backend)
        return h


def _rows(Omega, name="Omega"):
    """Omega as (N, d) float64 in its own library and on its device (1-D: d = 1)."""
    Om = as_float_array(Omega, name, ndim=(1, 2))
    xp = namespace(Om)
    Om = xp.astype(Om, xp.float64, copy=False)
    Om = Om[:, None] if Om.ndim == 1 else Om
    if Om.shape[0] == 0 or Om.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one particle with at least one coordinate, "
                         f"got shape {tuple(Om.shape)}")
    return Om


def _field_values(v, name, shape, like):
    """The value ``v`` of a user callable as float64 of ``shape`` in the library and on the
    device of ``like`` (a NumPy result for non-NumPy particles is copied there)."""
    if isinstance(like, np.ndarray) or isinstance(v, (int, float, list, tuple, np.ndarray)):
        v = np.asarray(v)
    if math.prod(v.shape) != math.prod(shape):
        raise ValueError(f"{name} must return an array of shape {shape}, got shape "
                         f"{tuple(v.shape)}")
    v = as_float_array(v, f"the value of {name}", check_finite=False)
    if isinstance(like, np.ndarray):
        return v.astype(np.float64).reshape(shape)
    xp = namespace(like)
    v = xp.asarray(v, device=device_of(like)) if isinstance(v, np.ndarray) else v
    namespace(like, v)                    # one library (TypeError naming them otherwise)
    return xp.reshape(xp.astype(v, xp.float64, copy=False), shape)


class FieldHamiltonian(ParticleEnergy):
    """H_N = (1/N) sum_k V(omega_k) + lam W_{N,s}: an external potential V (the PDE setting §P4).

    V(W) takes (N, d) and returns (N,); grad_V(W) returns (N, d).  W is an array of the
    particles' library on their device (NumPy particles: a NumPy array, as always), so for a
    run on another library write V and grad_V with the array API (e.g.
    ``xp = array_api_compat.array_namespace(W)``); a NumPy value returned for such particles
    is copied to their device.
    """

    @generic_op("particles.FieldHamiltonian", dtypes=("float64",),
                note="stores the callables (no array argument)")
    def __init__(self, V: Callable[[Array], Array], grad_V: Callable[[Array], Array],
                 lam: float = 0.0, interaction: Interaction | tuple[Any, ...] | None = None,
                 backend: str = "auto") -> None:
        super().__init__(lam, interaction, backend)
        self.V = check_callable(V, "V")
        self.grad_V = check_callable(grad_V, "grad_V")

    @generic_op("particles.FieldHamiltonian.field_potential", dtypes=("float64",),
                note="generic; V receives arrays of the particles' library and device")
    def field_potential(self, Om: Array, b: Array | None = None) -> Array:
        """V(omega_k) for every particle, (N,)."""
        Om = _rows(Om, "Om")
        return _field_values(self.V(Om), "V", (Om.shape[0],), Om)

    @generic_op("particles.FieldHamiltonian.field_energy", dtypes=("float64",),
                note="generic; returns a float")
    def field_energy(self, Om: Array, b: Array | None = None) -> float:
        """(1/N) sum_k V(omega_k), a float."""
        v = self.field_potential(Om)
        return float(namespace(v).mean(v))

    @generic_op("particles.FieldHamiltonian.field_grad", dtypes=("float64",),
                note="generic; grad_V receives arrays of the particles' library and device")
    def field_grad(self, Om: Array, b: Array | None = None) -> tuple[Array, None]:
        """(grad of (1/N) sum_k V(omega_k), None)."""
        Om = _rows(Om, "Om")
        return _field_values(self.grad_V(Om), "grad_V", tuple(Om.shape), Om) / Om.shape[0], None


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

    X, y are validated and kept as NumPy arrays (``self.X``, ``self.y``, ``self.E``); the
    methods take particles of any array API library and use copies of the data made once per
    library and device.
    """

    @host_op("particles.Hamiltonian", note=_DATA)
    def __init__(self, X: Array, y: Array, *, feature: str = "rff", objective: str = "printed",
                 label_kernel: str = "signed", sign: str = "max", lam: float = 0.0,
                 interaction: Interaction | tuple[Any, ...] | None = None, tau: float = 1.0,
                 floor: float = 1e-6, learn_phase: bool = False, backend: str = "auto") -> None:
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
        self.X.flags.writeable = self.E.flags.writeable = False   # frozen: cached on a device
        check_choice(objective, "objective", OBJECTIVES)
        check_choice(sign, "sign", ("max", "min"))
        self.feature, self.objective, self.label_kernel = feature, objective, label_kernel
        self.sign = -1.0 if sign == "max" else 1.0
        self.tau, self.floor, self.learn_phase = tau, floor, learn_phase

    def _data(self, like):
        """(X, E) in the library and on the device of the array ``like``."""
        return parameter(self, self.X, like), parameter(self, self.E, like)

    @generic_op("particles.Hamiltonian.features", dtypes=("float64",),
                note="generic (see particles.features); " + _DATA)
    def features(self, Omega: Array, b: Array | None = None) -> Array:
        """Phi (n, N) of the data X for the particles Omega (and phases b)."""
        Om = _rows(Omega)
        return features(self._data(Om)[0], Om, b, kind=self.feature, tau=self.tau,
                        floor=self.floor)

    def _field(self, Om, b):
        """(Om as rows, Phi, A, dA/dPhi) with A a 0-d array of Om's library."""
        Om = _rows(Om, "Om")
        Phi = self.features(Om, b)
        A, dA = _alignment(Phi, self._data(Om)[1], self.objective)
        return Om, Phi, A, dA

    @generic_op("particles.Hamiltonian.field_energy", dtypes=("float64",),
                note="generic; returns a float; " + _DATA)
    def field_energy(self, Om: Array, b: Array | None = None) -> float:
        """E_align = -A ("max") or +A ("min") of the features of Om, a float."""
        _, _, A, _ = self._field(Om, b)
        return self.sign * float(A)

    @generic_op("particles.Hamiltonian.field_grad", dtypes=("float64",), note="generic; " + _DATA)
    def field_grad(self, Om: Array, b: Array | None = None) -> tuple[Array, Array | None]:
        """(dE_align/dOm (N, d), dE_align/db (N,) when learn_phase else None)."""
        Om, _, _, dA = self._field(Om, b)
        gO, gb = features_vjp(self._data(Om)[0], Om, b, self.sign * dA, kind=self.feature,
                              tau=self.tau, floor=self.floor)
        return gO, (gb if self.learn_phase else None)

    def _check_separable(self):
        if self.feature not in SEPARABLE or self.objective != "printed":
            raise ValueError("the per-particle potential V_D exists only for the printed objective "
                             f"with a separable map {SEPARABLE}; got feature={self.feature!r}, "
                             f"objective={self.objective!r}")

    @generic_op("particles.Hamiltonian.potential", dtypes=("float64",), note="generic; " + _DATA)
    def potential(self, Omega: Array, b: Array | None = None) -> Array:
        """V_D(omega_k) for every particle (P1 O(n) form); printed objective, separable map."""
        self._check_separable()
        Om = _rows(Omega)
        xp = namespace(Om)
        E = self._data(Om)[1]
        Phi = self.features(Om, b)
        n = Phi.shape[0]
        Yii = xp.sum(E * E, axis=1)
        EtP = E.T @ Phi
        return self.sign * (xp.sum(EtP * EtP, axis=0) - Yii @ (Phi * Phi)) / (n * (n - 1))

    field_potential = potential

    @generic_op("particles.Hamiltonian.potential_grad", dtypes=("float64",),
                note="generic; " + _DATA)
    def potential_grad(self, Omega: Array, b: Array | None = None) -> tuple[Array, Array]:
        """(grad V_D(omega_k) (N, d), dV_D/db_k (N,)): the vectorised P1 formula for RFF,
        grad phi = phi x for FAVOR (no autodiff, no N x N array)."""
        self._check_separable()
        Om = _rows(Omega)
        xp = namespace(Om)
        dev = device_of(Om)
        N = Om.shape[0]
        if b is None:
            b = xp.zeros(N, dtype=xp.float64, device=dev)
        else:
            b = as_float_array(b, "b", ndim=1)
            b = xp.astype(b, xp.float64, copy=False)
            if tuple(b.shape) != (N,):
                raise ValueError(f"b must have length N={N} (one phase per particle), got "
                                 f"{tuple(b.shape)}")
        X, E = self._data(Om)
        n = X.shape[0]
        Yii = xp.sum(E * E, axis=1)
        Phi = self.features(Om, b)
        if self.feature == "rff":
            dPhi = -math.sqrt(2.0) * xp.sin(X @ Om.T + b)     # d phi / d(omega.x + b)
        else:
            dPhi = Phi                                        # d phi / d(omega.x) for FAVOR
        EtP = E.T @ Phi                                        # (c, N)
        # dV/dt_ik = sign * 2 (sum_c E_ic (E^T Phi)_ck - Y_ii Phi_ik) dPhi_ik / (n(n-1))
        W = 2.0 * ((E @ EtP) - Yii[:, None] * Phi) * dPhi * self.sign / (n * (n - 1))
        gO = W.T @ X
        gb = xp.sum(W, axis=0) if self.feature == "rff" else xp.zeros(N, dtype=xp.float64,
                                                                       device=dev)
        return gO, gb
