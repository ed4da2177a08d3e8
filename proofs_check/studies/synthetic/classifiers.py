"""The classifiers of the 004 App F.1 synthetic study (algorithms.md §P7).

:func:`fit_logistic`, :func:`fit_rbf_svm`, :func:`fit_rff_svm`, :func:`fit_mkl_svm` (substitute
for MKLpy/MEMO: centred-alignment weights), :func:`fit_sinha_duchi` (bisection on the multiplier
+ Duchi simplex projection), :func:`fit_langevin` (004 Alg 1 with
``yatmath.particles.Hamiltonian`` / ``run_langevin``).  Each returns a :class:`Fit` (test
predictions, scores, wall time, options used).  :data:`METHODS` names them for the study
drivers; method randomness uses ``default_rng([si, t, 2026, code])`` with a fixed per-method
``code`` (:data:`METHOD_CODES`).
"""
from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from yatmath.arguments import as_float_array, check_choice
from yatmath.particles.hamiltonian import Hamiltonian

from ._args import posint as _posint
from .data import PAPER

# =============================================================================== baselines (§P7)

@dataclass
class Fit:
    """Test predictions (0/1), real-valued scores (larger = class 1), seconds, options used."""

    pred: np.ndarray
    score: np.ndarray
    seconds: float
    info: dict = field(default_factory=dict)


def _check_xy(Xtr, ytr, Xte):
    Xtr = as_float_array(Xtr, "Xtr", ndim=2).astype(np.float64)
    Xte = as_float_array(Xte, "Xte", ndim=2).astype(np.float64)
    ytr = np.asarray(ytr)
    if ytr.ndim != 1 or ytr.shape[0] != Xtr.shape[0]:
        raise ValueError(f"ytr must have shape ({Xtr.shape[0]},), got {ytr.shape}")
    if not np.all(np.isin(ytr, (0, 1))):
        raise ValueError("ytr must hold 0/1 labels")
    if Xte.shape[1] != Xtr.shape[1]:
        raise ValueError(f"Xte must have {Xtr.shape[1]} columns, got {Xte.shape[1]}")
    return Xtr, ytr.astype(int), Xte


def _single_class(ytr, nte, t0, info):
    """Every classifier predicts the only training class (sklearn refuses one-class fits)."""
    c = int(ytr[0])
    return Fit(np.full(nte, c), np.full(nte, 2.0 * c - 1.0), time.perf_counter() - t0,
               {**info, "single_class": True})


def fit_logistic(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                 rng: np.random.Generator | None = None) -> Fit:
    """sklearn ``LogisticRegression()`` with its defaults (L2, C=1, lbfgs) on the raw inputs."""
    from sklearn.linear_model import LogisticRegression

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    info = {"method": "LogisticRegression()", "C": 1.0, "penalty": "l2", "solver": "lbfgs"}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    m = LogisticRegression().fit(Xtr, ytr)
    s = m.decision_function(Xte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0,
               {**info, "proba": m.predict_proba(Xte)[:, 1]})


def fit_rbf_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator | None = None, *, gamma: float = 0.5,
                C: float = 1.0) -> Fit:
    """sklearn ``SVC(kernel="rbf", gamma=gamma, C=C)``."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    info = {"method": "SVC(rbf)", "gamma": gamma, "C": C}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    m = SVC(kernel="rbf", gamma=gamma, C=C).fit(Xtr, ytr)
    s = m.decision_function(Xte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def rff_map(X: npt.NDArray[np.float64], W: npt.NDArray[np.float64],
            b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """z(x) = sqrt(2/D) cos(W^T x + b), W (p, D), b (D,)."""
    return np.sqrt(2.0 / W.shape[1]) * np.cos(X @ W + b)


#: the LinearSVC losses an implementation may use: 004 App F.1.2 (3) prints "hinge loss" for RFF; (5) prints
#: no loss for the importance-sampled features, where sklearn's LinearSVC default is "squared_hinge"
SVC_LOSSES = ("hinge", "squared_hinge")


def _linear_svc(Ztr, ytr, Zte, t0, info, C=1.0, loss="hinge", random_state=None):
    """LinearSVC(C, loss, dual=True, max_iter=1e5).  ``random_state=None`` (the default) draws liblinear's
    coordinate-order seed from NumPy's global RNG (one draw per fit); an int fixes it without a draw."""
    from sklearn.svm import LinearSVC

    check_choice(loss, "loss", SVC_LOSSES)
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Zte.shape[0], t0, info)
    m = LinearSVC(C=C, loss=loss, dual=True, max_iter=100_000, random_state=random_state).fit(Ztr, ytr)
    s = m.decision_function(Zte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def fit_rff_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator, *, D: int = 200, gamma: float = 0.5,
                C: float = 1.0, loss: str = "hinge", random_state: int | None = None) -> Fit:
    """RFF + linear SVM: W_{:,j} ~ N(0, 2 gamma I_p), b ~ U[0, 2 pi], D features, LinearSVC(C, loss)
    (004 App F.1.2 (3): hinge loss, the default; ``random_state`` as in ``_linear_svc``)."""
    from yatmath.arguments import as_rng

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    D = _posint(D, "D")
    t0 = time.perf_counter()
    W = r.normal(0.0, np.sqrt(2.0 * gamma), size=(Xtr.shape[1], D))
    b = r.uniform(0.0, 2.0 * np.pi, D)
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0,
                       {"method": f"RFF + LinearSVC({loss})", "D": D, "gamma": gamma, "C": C}, C, loss,
                       random_state)


def _sqdist(A, B):
    d2 = np.sum(A * A, 1)[:, None] + np.sum(B * B, 1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d2, 0.0)


def centred_alignment(K: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """A_c(K, y y^T) = <Hc K Hc, Hc Y Hc>_F / (||Hc K Hc|| ||Hc Y Hc||), y in {+-1} or {0,1}."""
    K = as_float_array(K, "K", ndim=2)
    y = np.asarray(y, dtype=np.float64)
    Kc = K - K.mean(0) - K.mean(1)[:, None] + K.mean()
    yc = y - y.mean()
    Yc = np.outer(yc, yc)
    den = np.linalg.norm(Kc) * np.linalg.norm(Yc)
    return float(np.sum(Kc * Yc) / den) if den > 0 else 0.0


def fit_mkl_svm(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                rng: np.random.Generator | None = None, *,
                gammas: Sequence[float] = PAPER["mkl_gammas"],  # type: ignore[assignment]
                C: float = 1.0) -> Fit:
    """MKL substitute (labelled; MKLpy/MEMO is not used): Gaussian Grams K_m for each gamma,
    weights w_m ∝ max(0, A_c(K_m, yy^T)) normalised to sum 1 (uniform if all vanish), and
    ``SVC(kernel="precomputed", C)`` on sum_m w_m K_m."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    t0 = time.perf_counter()
    d_tr, d_te = _sqdist(Xtr, Xtr), _sqdist(Xte, Xtr)
    Ks = [np.exp(-g * d_tr) for g in gammas]
    a = np.array([max(0.0, centred_alignment(K, 2 * ytr - 1)) for K in Ks])
    wts = a / a.sum() if a.sum() > 0 else np.full(len(gammas), 1.0 / len(gammas))
    info = {"method": "MKL substitute: centred-alignment weights + SVC(precomputed)",
            "gammas": list(gammas), "weights": wts.tolist(), "C": C}
    if np.unique(ytr).size < 2:
        return _single_class(ytr, Xte.shape[0], t0, info)
    Ktr = sum(w * K for w, K in zip(wts, Ks))
    Kte = sum(w * np.exp(-g * d_te) for w, g in zip(wts, gammas))
    m = SVC(kernel="precomputed", C=C).fit(Ktr, ytr)
    s = m.decision_function(Kte)
    return Fit((s > 0).astype(int), s, time.perf_counter() - t0, info)


def project_simplex(v: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Euclidean projection onto the probability simplex (Duchi et al. 2008): sort descending,
    k* = max{k : mu_k - (sum_{j<=k} mu_j - 1)/k > 0}, theta = (sum_{j<=k*} mu_j - 1)/k*,
    q = max(v - theta, 0).  Exact up to rounding of the cumulative sum."""
    v = as_float_array(v, "v", ndim=1).astype(np.float64)
    mu = np.sort(v)[::-1]
    css = np.cumsum(mu) - 1.0
    k = np.arange(1, v.size + 1)
    kstar = k[mu - css / k > 0][-1]
    theta = css[kstar - 1] / kstar
    return np.maximum(v - theta, 0.0)


def sinha_duchi_weights(v: npt.ArrayLike, rho: float, *, tol: float = 1e-10,
                        lam_start: float = 1.0, max_doublings: int = 200,
                        max_bisections: int = 200
                        ) -> tuple[npt.NDArray[np.float64], float, dict[str, Any]]:
    """max_q v.q over the simplex with ||q - u||^2 <= rho/N_w (u uniform), by bisection on the
    multiplier lam with q(lam) = Proj_simplex(u + v/lam): double lam from ``lam_start`` until
    feasible, then bisect [lam/2, lam] to relative width < tol (hi - lo < tol * hi), stopping also
    when the midpoint no longer splits the float64 interval or after ``max_bisections`` steps (an
    absolute width tol * lam_start cannot be reached once lam's ulp exceeds it, lam >~ 5e5).
    Returns (q, lam, info); lam is always feasible."""
    v = as_float_array(v, "v", ndim=1).astype(np.float64)
    Nw = v.size
    u = np.full(Nw, 1.0 / Nw)
    bound = rho / Nw
    if not bound > 0:
        raise ValueError(f"rho must be > 0, got {rho!r}")

    def q_of(lam):
        return project_simplex(u + v / lam)

    def dev(lam):
        q = q_of(lam)
        return float(np.sum((q - u) ** 2))

    lam, k = float(lam_start), 0
    while dev(lam) > bound:
        lam *= 2.0
        k += 1
        if k > max_doublings:
            raise RuntimeError("sinha_duchi_weights: no feasible multiplier found")
    lo, hi, it = (lam / 2.0 if k else 0.0), lam, 0
    if k:
        while hi - lo >= tol * hi and it < max_bisections:
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:
                break
            if dev(mid) <= bound:
                hi = mid
            else:
                lo = mid
            it += 1
    q = q_of(hi)
    return q, hi, {"doublings": k, "bisections": it, "deviation": dev(hi), "bound": bound}


def fit_sinha_duchi(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                    rng: np.random.Generator, *, N_w: int = 10_000, rho_frac: float = 0.005,
                    D: int = 200, gamma: float = 0.5, select: str = "stratified",
                    tol: float = 1e-10, C: float = 1.0) -> Fit:
    """Sinha-Duchi (2016) importance-sampled RFF (reimplemented as §P7.5) + LinearSVC(C).

    Candidates w_m ~ N(0, 2 gamma I), b_m ~ U[0, 2 pi]; v_m = (sum_i y_i cos(w_m.x_i + b_m))^2
    (y in {+-1}); q from :func:`sinha_duchi_weights` with rho = rho_frac N_w; keep q_m > eps;
    D features by ``select`` = "stratified" (systematic resampling on the CDF of q) or "iid";
    then unweighted features sqrt(2/D) cos(w.x + b)."""
    from yatmath.arguments import as_rng
    from yatmath.particles.langevin import resample

    check_choice(select, "select", ("stratified", "iid"))
    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    N_w, D = _posint(N_w, "N_w"), _posint(D, "D")
    t0 = time.perf_counter()
    Wc = r.normal(0.0, np.sqrt(2.0 * gamma), size=(Xtr.shape[1], N_w))
    bc = r.uniform(0.0, 2.0 * np.pi, N_w)
    ypm = 2.0 * ytr - 1.0
    v = (ypm @ np.cos(Xtr @ Wc + bc)) ** 2
    q, lam, sd = sinha_duchi_weights(v, rho_frac * N_w, tol=tol)
    q = np.where(q > np.finfo(float).eps, q, 0.0)
    idx = resample(q, D, r, "systematic" if select == "stratified" else "multinomial")
    W, b = Wc[:, idx], bc[idx]
    info = {"method": "Sinha-Duchi importance sampling + LinearSVC", "N_w": N_w,
            "rho": rho_frac * N_w, "D": D, "gamma": gamma, "select": select, "lam": lam,
            "support": int(np.count_nonzero(q)), "unique_selected": int(np.unique(idx).size), **sd}
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0, info, C)


#: the ways of turning the Sinha-Duchi weights q into D features (004 App F.1.2 (5): "align to D = 200 via
#: stratified subsampling (padding if needed)"): "stratified" = systematic resampling (one U, u_j = (U + j)/D;
#: fit_sinha_duchi's default), "stratified_per_stratum" (one U_j per stratum, u_j = (U_j + j)/D), "iid"
#: (multinomial, with replacement), "iid_distinct" (D distinct features drawn i.i.d. from q without replacement;
#: with replacement, i.e. padded, only when q has fewer than D positive entries)
SD_SELECTIONS = ("stratified", "stratified_per_stratum", "iid", "iid_distinct")


def _sd_select(q, D, r, select):
    from yatmath.particles.langevin import resample

    if select in ("stratified", "iid"):
        return resample(q, D, r, "systematic" if select == "stratified" else "multinomial")
    w = q / q.sum()
    if select == "iid_distinct":
        return r.choice(w.size, size=D, replace=bool(np.count_nonzero(w) < D), p=w)
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, (r.random(D) + np.arange(D)) / D, side="right")


def sinha_duchi_variants(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                         rng: np.random.Generator, variants: Sequence[tuple[str, str]], *,
                         N_w: int = 10_000, rho_frac: float = 0.005, D: int = 200, gamma: float = 0.5,
                         tol: float = 1e-10, C: float = 1.0, svc_seed: int = 0) -> dict[tuple[str, str], Fit]:
    """Several implementations of :func:`fit_sinha_duchi` on one candidate draw and one weight vector q.

    ``variants`` are (select, loss) pairs (select in :data:`SD_SELECTIONS`, loss in :data:`SVC_LOSSES`).  The
    candidates and q are those of :func:`fit_sinha_duchi` with the same ``rng``; every variant selects its D
    features with a copy of ``rng`` taken after the candidates, so the variant ("stratified", "hinge") equals
    ``fit_sinha_duchi(..., select="stratified")`` (and ("iid", "hinge") its ``select="iid"``).  The first
    variant's LinearSVC draws its seed from NumPy's global RNG (as fit_sinha_duchi does); the others use
    ``random_state=svc_seed`` and draw nothing from it.  Returns {(select, loss): Fit}; seconds are the
    variant's selection and fit plus the shared weight computation."""
    import copy

    from yatmath.arguments import as_rng

    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    N_w, D = _posint(N_w, "N_w"), _posint(D, "D")
    variants = [tuple(v) for v in variants]
    for sel, loss in variants:
        check_choice(sel, "select", SD_SELECTIONS)
        check_choice(loss, "loss", SVC_LOSSES)
    t0 = time.perf_counter()
    Wc = r.normal(0.0, np.sqrt(2.0 * gamma), size=(Xtr.shape[1], N_w))
    bc = r.uniform(0.0, 2.0 * np.pi, N_w)
    ypm = 2.0 * ytr - 1.0
    v = (ypm @ np.cos(Xtr @ Wc + bc)) ** 2
    q, lam, sd = sinha_duchi_weights(v, rho_frac * N_w, tol=tol)
    q = np.where(q > np.finfo(float).eps, q, 0.0)
    t_shared = time.perf_counter() - t0
    state = copy.deepcopy(r)
    out = {}
    for k, (sel, loss) in enumerate(variants):
        t1 = time.perf_counter()
        idx = _sd_select(q, D, copy.deepcopy(state), sel)
        W, b = Wc[:, idx], bc[idx]
        info = {"method": f"Sinha-Duchi importance sampling + LinearSVC({loss})", "N_w": N_w,
                "rho": rho_frac * N_w, "D": D, "gamma": gamma, "select": sel, "loss": loss, "lam": lam,
                "support": int(np.count_nonzero(q)), "unique_selected": int(np.unique(idx).size), **sd}
        fit = _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t1, info, C, loss,
                          None if k == 0 else svc_seed)
        fit.seconds += t_shared
        out[(sel, loss)] = fit
    return out


def fit_langevin(Xtr: npt.ArrayLike, ytr: npt.ArrayLike, Xte: npt.ArrayLike,
                 rng: np.random.Generator, *, lam: float = 0.5, N: int = 300, D: int = 200,
                 eta: float = 30.0, beta: float = 100.0, T_max: int = 2000,
                 radius: float = 5.0, clip: float = 1.0, gamma: float = 0.5,
                 interaction: tuple[Any, ...] = ("none", 0.0, 0.0), select: str = "first",
                 C: float = 1.0, backend: str = "auto") -> Fit:
    """004 Alg 1 ("Alg-1" lam = 0.5, "robust" lam = 0) + LinearSVC(C).

    H_N = -A_printed(sqrt2 cos(X omega + b)) + lam W_{N,s} (``Hamiltonian``, RFF map, learned
    phases), particles in the ball of radius ``radius`` (projection), drift N grad H_N clipped
    per particle to ``clip``, eta, beta, T_max steps (``run_langevin``); initial particles
    omega ~ N(0, 2 gamma I_p), b ~ U[0, 2 pi] (unspecified in 004; recorded).  Features from the
    first D particles (``select="first"``) or from D draws of the Alg 2 weights
    (``select="alg2"``, reading (a), multinomial).  ``interaction`` = (kind, s, delta) with
    ``s="coulomb"`` allowed; the default is the bare logarithmic kernel (s = 0)."""
    from yatmath.arguments import as_rng

    check_choice(select, "select", ("first", "alg2"))
    Xtr, ytr, Xte = _check_xy(Xtr, ytr, Xte)
    r = as_rng(rng)
    N, D = _posint(N, "N", 2), _posint(D, "D")
    if D > N:
        raise ValueError(f"D must be <= N={N}, got {D}")
    T_max = _posint(T_max, "T_max", 0)
    t0 = time.perf_counter()
    # imported here: threadpoolctl's import writes KMP_DUPLICATE_LIB_OK into os.environ
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _fit_langevin(Xtr, ytr, Xte, r, t0, lam, N, D, eta, beta, T_max, radius, clip,
                             gamma, interaction, select, C, backend)


def _fit_langevin(Xtr, ytr, Xte, r, t0, lam, N, D, eta, beta, T_max, radius, clip, gamma,
                  interaction, select, C, backend):
    from scipy.spatial.distance import pdist

    from yatmath.particles.domains import Ball
    from yatmath.particles.langevin import resample, reweight, run_langevin

    p = Xtr.shape[1]
    ypm = 2.0 * ytr - 1.0
    H = _PrintedRFF(Xtr, ypm, feature="rff", objective="printed", lam=lam,
                    interaction=tuple(interaction) if lam != 0 else None, learn_phase=True,
                    backend=backend)
    Om0 = r.normal(0.0, np.sqrt(2.0 * gamma), size=(N, p))
    b0 = r.uniform(0.0, 2.0 * np.pi, N)
    res = run_langevin(H, Om0, b0=b0, eta=eta, beta=beta, n_steps=T_max, rng=r,
                       domain=Ball(radius, p), clip=clip, track_energy=False)
    if select == "first":
        idx = np.arange(D)
    else:
        idx = resample(reweight(H, res.Omega, beta, res.b, "a"), D, r)
    W, b = res.Omega[idx].T, res.b[idx]
    info = {"method": f"Langevin Alg-1 (lam={lam}) + LinearSVC", "lam": lam, "N": N, "D": D,
            "eta": eta, "beta": beta, "T_max": T_max, "radius": radius, "clip": clip,
            "interaction": list(interaction), "init": f"N(0, {2 * gamma} I), b ~ U[0, 2pi]",
            "select": select, "steps": res.steps, "stop": res.stop_reason,
            "mean_norm": float(np.mean(np.linalg.norm(res.Omega, axis=1))),
            "frac_on_sphere": float(np.mean(np.linalg.norm(res.Omega, axis=1)
                                            > radius * (1 - 1e-9))),
            "min_pair_distance": float(pdist(res.Omega).min())}
    return _linear_svc(rff_map(Xtr, W, b), ytr, rff_map(Xte, W, b), t0, info, C)


class _PrintedRFF(Hamiltonian):
    """The printed-objective RFF Hamiltonian whose field gradient is the library's vectorised
    P1 formula ``potential_grad`` / N (one cos and one sin evaluation per step instead of three;
    equal to ``Hamiltonian.field_grad`` to rounding, see the tests)."""

    def field_grad(self, Om, b=None):
        gO, gb = self.potential_grad(Om, b)
        N = Om.shape[0]
        return gO / N, (gb / N if self.learn_phase else None)


def _gamma_svm(g):
    def f(Xtr, ytr, Xte, rng=None):
        return fit_rbf_svm(Xtr, ytr, Xte, rng, gamma=g)
    return f


#: method name -> callable(Xtr, ytr, Xte, rng, **size options) (the Fig.1 line-up)
METHODS = {
    "logistic": fit_logistic,
    "rbf_svm": _gamma_svm(0.5),
    "rbf_svm_g0.01": _gamma_svm(0.01),
    "rbf_svm_g100": _gamma_svm(100.0),
    "rff": fit_rff_svm,
    "mkl": fit_mkl_svm,
    "sinha_duchi": fit_sinha_duchi,
    "langevin": fit_langevin,
    "langevin_robust": lambda Xtr, ytr, Xte, rng, **kw: fit_langevin(Xtr, ytr, Xte, rng,
                                                                     **{**kw, "lam": 0.0}),
}
#: fixed per-method seed component (crc32 of the name)
METHOD_CODES = {k: zlib.crc32(k.encode()) for k in METHODS}
#: which size options each method accepts
_SIZE_KEYS = {"rff": ("D", "gamma"), "sinha_duchi": ("N_w", "D", "gamma", "select"),
              "langevin": ("N", "D", "eta", "beta", "T_max", "radius", "clip", "interaction",
                           "lam", "select"),
              "langevin_robust": ("N", "D", "eta", "beta", "T_max", "radius", "clip", "select"),
              "mkl": ("gammas",)}
