"""Properties of random features and of the low-rank / Monte Carlo estimators.

Implementations:

    make_map(seed) -> phi                 a random feature map, phi(X) (n, F); independent maps for
                                          different seeds (``yatmath.features.rff(d, F, rng=seed)``)
    make_map(F, seed) -> phi              the same with the number of features F
    svd(A, r) -> rank-r approximation     a matrix, a ``yatmath.estimators.LowRank`` or (U, s, Vt)
    rsvd(A, r, seed) -> same              a randomized SVD
    nystrom(K, m, seed) -> (K_hat, S)     a Nystrom approximation and its landmark indices S (or a
                                          ``LowRank`` with ``info["landmarks"]``)
    optimal(g, omega) -> q*               the variance-optimal importance pmf (``optimal_pmf``)
    variance(g, omega, q, M) -> V         the exact trace variance (``discrete_variance``)
    estimator(seed) -> estimate           one M-sample importance estimate (``integrate_discrete``)

Statistical properties are seeded t-tests at a stated level alpha: under the property (an
unbiased estimator with finite variance), the probability that the test fails is at most alpha
(Bonferroni over the entries; exact for Gaussian estimates, asymptotically in the number of
replicates otherwise; an entry whose sample skewness g1 breaks Cochran's rule R >= 25 g1^2 is
judged by Chebyshev's inequality instead, which needs no normality).  With fixed seeds the
outcome is deterministic; alpha is the probability that a fresh seed would fail a correct
implementation.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._core import (U64, Property, gamma, host64, log_variance_se, mean_test, prop,
                    unit_roundoff, worst_outside)

__all__ = ["check_unbiased", "eckart_young_check", "feature_kernel_unbiased",
           "feature_variance_one_over_F", "truncated_svd_optimal", "randomized_svd_near_optimal",
           "nystrom_bounds", "nystrom_exact_at_low_rank", "as_matrix",
           "importance_optimal_proposal", "importance_variance_matches", "importance_variance"]


# ----------------------------------------------------------------------------------------------
@prop("estimator.unbiased", "features",
      "the definition of an unbiased estimator, E[est] = exact (each caller names the paper "
      "statement: R1 Bochner / Rahimi-Recht, 003 eq. 13, ...)",
      "|mean - exact| <= t_{alpha/(2m), R-1} sd / sqrt(R) + rounding, Bonferroni over the m "
      "entries: failure probability <= alpha under the property (t-test; asymptotic for "
      "non-Gaussian estimates; entries breaking Cochran's rule R >= 25 g1^2 use Chebyshev's "
      "k = sqrt(m/alpha) instead of the t quantile)")
def check_unbiased(sample: Callable[[int], Any], exact: npt.ArrayLike, *, replicates: int = 200,
                   alpha: float = 1e-6, rounding: npt.ArrayLike = 0.0,
                   what: str = "estimate") -> None:
    """``sample(r)`` (r = 0..replicates-1, independent draws) has mean ``exact`` entrywise.

    ``rounding``: the floating-point error allowed on the mean (array or number)."""
    exact = host64(exact)
    S = np.stack([host64(sample(r)).reshape(exact.shape) for r in range(replicates)])
    _judge_mean(check_unbiased.spec, S, exact, alpha, rounding, what)


def _judge_mean(spec: Property, S: npt.NDArray[np.float64], exact: npt.NDArray[np.float64],
                alpha: float, rounding: npt.ArrayLike, what: str) -> None:
    R = S.shape[0]
    ok, half, mean, sd, tq = mean_test(S, exact, alpha, rounding=np.ravel(
        np.broadcast_to(rounding, exact.shape)))
    if not ok.all():
        ex = exact.ravel()
        k = int(np.argmax(np.abs(mean - ex) / np.maximum(half, 1e-300)))
        idx = np.unravel_index(k, exact.shape) if exact.ndim else ()
        nse = abs(mean[k] - ex[k]) / max(sd[k] / math.sqrt(R), 1e-300)
        how = "t" if tq[k] < math.sqrt(exact.size / alpha) else "Chebyshev (skewed)"
        spec.fail(f"{what} {tuple(int(i) for i in idx)}: mean of {R} = {mean[k]!r}, exact "
                  f"{ex[k]!r} (|diff| = {abs(mean[k] - ex[k]):.3g} = {nse:.2f} standard errors; "
                  f"{how} quantile {tq[k]:.2f}, alpha = {alpha:g} over {exact.size} entries)",
                  half[k])


def _pair_estimates(phi: Callable[[Any], Any], X: npt.ArrayLike,
                    Y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    PX, PY = host64(phi(X)), host64(phi(Y))
    return PX @ PY.T


@prop("features.kernel_unbiased", "features",
      "R1 (Rahimi & Recht 2007; Bochner: k(x - y) = E_omega cos(omega.(x - y))), R3 (FAVOR+), R5/Y8 "
      "(yatmath/features/yat.py docstring: E[phi(q).phi(k)] = K(q, k) for the unbiased "
      "methods): E[phi(X) phi(Y)^T] = k(X, Y)",
      "the t-test of estimator.unbiased at level alpha over the n m entries, plus the rounding "
      "of the F-term dot products, 2 gamma_F mean|phi(x)|.|phi(y)|")
def feature_kernel_unbiased(make_map: Callable[[int], Callable[[Any], Any]],
                            kernel: Callable[[Any, Any], Any], X: npt.ArrayLike, Y: npt.ArrayLike,
                            *, replicates: int = 200, alpha: float = 1e-6) -> None:
    """Random-feature estimates phi(x).phi(y) average to the kernel k(x, y)."""
    X, Y = np.asarray(X), np.asarray(Y)
    exact = host64(kernel(X, Y))
    S, absmean, F, u = [], 0.0, 1, U64
    for r in range(replicates):
        phi = make_map(r)
        RX = phi(X)
        u = max(u, unit_roundoff(getattr(RX, "dtype", np.float64)))
        PX, PY = host64(RX), host64(phi(Y))
        F = max(F, PX.shape[1])
        absmean = absmean + np.abs(PX) @ np.abs(PY).T / replicates
        S.append(PX @ PY.T)
    _judge_mean(feature_kernel_unbiased.spec, np.stack(S), exact, alpha,
                2 * gamma(F, u) * absmean, "kernel entry")


@prop("features.variance_one_over_F", "features",
      "R1 (yatmath/features/fourier.py docstring: the F-feature estimate of i.i.d. features is the "
      "mean of F i.i.d. single-feature estimates, variance sigma_1^2 / F; likewise every "
      "i.i.d.-feature map, e.g. yat_features method 'laplace_mc')",
      "|ln(F_a s^2_a) - ln(F_b s^2_b)| <= z_{alpha/(2m)} sqrt(se_a^2 + se_b^2) for the smallest "
      "and largest F, se from the delta method with the sample kurtosis (ln s^2 has sd ~ "
      "sqrt((kurt - 1)/R)); failure probability <= alpha asymptotically; variances below the "
      "rounding floor (8 gamma_F mean|est|)^2 are raised to it")
def feature_variance_one_over_F(make_map: Callable[[int, int], Callable[[Any], Any]],
                                X: npt.ArrayLike, Y: npt.ArrayLike, *,
                                features: Sequence[int] = (8, 128), replicates: int = 200,
                                alpha: float = 1e-6) -> None:
    """The variance of phi(x).phi(y) decreases like 1/F (i.i.d. features)."""
    from scipy.stats import norm

    spec = feature_variance_one_over_F.spec
    X, Y = np.asarray(X), np.asarray(Y)
    Fs = sorted(int(f) for f in features)
    if len(Fs) < 2:
        raise ValueError("features needs at least two sizes")
    stats = []
    for F in (Fs[0], Fs[-1]):
        S = np.stack([_pair_estimates(make_map(F, 1_000_003 * F + r), X, Y).ravel()
                      for r in range(replicates)])
        s2 = S.var(0, ddof=1)
        # rounding floor of the variance: the estimates carry errors ~ gamma_F |mean|, so a
        # sample variance below (8 gamma_F mean|est|)^2 is rounding noise, not a rate
        floor = (8 * gamma(F) * np.abs(S).mean(0)) ** 2
        stats.append((F, s2, log_variance_se(S), floor))
    (Fa, sa, ea, fa), (Fb, sb, eb, fb) = stats
    keep = (sa > fa) | (sb > fb)
    if not keep.any():
        return              # no randomness above rounding at either F (e.g. x = y, sin/cos form)
    m = int(keep.sum())
    z = float(norm.isf(alpha / (2 * m)))
    sa_, sb_ = np.maximum(sa, fa)[keep], np.maximum(sb, fb)[keep]
    dev = np.log(Fa * sa_) - np.log(Fb * sb_)
    tol = z * np.sqrt(ea[keep] ** 2 + eb[keep] ** 2)
    if not (np.abs(dev) <= tol).all():
        k = int(np.argmax(np.abs(dev) / tol))
        spec.fail(f"F s^2 changes by a factor {math.exp(-dev[k]):.3g} from F = {Fa} to F = {Fb} "
                  f"(variances {sa_[k]:.3g} -> {sb_[k]:.3g}; 1/F would keep F s^2 "
                  f"constant)", f"exp(+-{tol[k]:.3g})")


# ----------------------------------------------------------------------------------------------
def as_matrix(result: Any) -> npt.NDArray[np.float64]:
    """A low-rank result as a float64 matrix: a matrix, a LowRank (``.matrix()``), (U, s, Vt)
    or (K_hat, landmarks) (the first element when it is 2-D)."""
    if hasattr(result, "matrix"):
        return host64(result.matrix())
    if isinstance(result, tuple):
        if len(result) == 3:
            U, s, Vt = (host64(a) for a in result)
            return (U * s) @ Vt
        return host64(result[0])
    return host64(result)


def _landmarks(result: Any) -> npt.NDArray[Any] | None:
    if hasattr(result, "info") and "landmarks" in getattr(result, "info", {}):
        return np.asarray(result.info["landmarks"])
    if isinstance(result, tuple) and len(result) == 2:
        return np.asarray(result[1])
    return None


def _svd_perturbation(A: npt.NDArray[np.float64], rank: int, mult: float = 32) -> float:
    """A bound tau on the Frobenius norm of the rounding in a rank-r approximation of A:
    the backward error E of an SVD computed in float64 (LAPACK: ||E||_2 <= p(m, n) u ||A||_2
    with p "a modestly growing function"; p = 32 max(m, n) taken, ||E||_F <= sqrt(min(m, n))
    ||E||_2: NumPy's gesdd measured up to 18 max(m, n) sqrt(min(m, n)) u sigma_1 in
    ||U S V^T - A||_F on a nearly rank-one 3 x 3 matrix, ~8 on larger ones), plus the
    evaluation of the approximation from its factors, sum_{k<=r} U_ik s_k V_jk: gamma_{r+2} per
    entry of sum_k |U_ik| s_k |V_jk| <= sigma_1 (orthonormal factors), sqrt(m n) entries."""
    m, n = A.shape
    s1 = float(np.linalg.norm(A, 2)) if A.size else 0.0
    return (mult * max(m, n) * math.sqrt(min(m, n)) * U64
            + gamma(rank + 2) * math.sqrt(m * n)) * s1


@prop("lowrank.truncated_svd_optimal", "features",
      "Eckart-Young-Mirsky (yatmath/estimators/lowrank.py docstring, I8): the rank-r truncated "
      "SVD A_r minimises ||A - B|| over rank(B) <= r, with ||A - A_r||_F = sqrt(sum_{k>r} "
      "sigma_k^2) and ||A - A_r||_2 = sigma_{r+1}",
      "sigma_{r+1}(A_hat) <= tau; | ||A - A_hat||_F - opt_F | <= 2 tau and | ||A - A_hat||_2 - "
      "sigma_{r+1} | <= 2 tau with tau = (32 max(m,n) sqrt(min(m,n)) u64 + gamma_{r+2} "
      "sqrt(m n)) ||A||_2 (a backward stable SVD: computed = SVD of A + E, and opt(A + E) is "
      "within ||E|| of opt(A) (Weyl/Mirsky); then the product of the r factors, gamma_{r+2} per "
      "entry of |U| s |V|^T <= sigma_1)")
def truncated_svd_optimal(svd: Callable[..., Any], A: npt.ArrayLike, rank: int) -> None:
    """A truncated SVD reaches the Eckart-Young optimum in both norms and has rank <= r."""
    A = host64(A)
    eckart_young_check(truncated_svd_optimal.spec, A, as_matrix(svd(A, rank)), rank)


def eckart_young_check(spec: Property, A: npt.NDArray[np.float64], Ah: npt.NDArray[np.float64],
                       rank: int, what: str = "A_hat") -> None:
    """The checks of ``lowrank.truncated_svd_optimal`` on a given approximation ``Ah`` of ``A``,
    failing as ``spec`` (shared with the ITNet low-rank property)."""
    spec.check(Ah.shape == A.shape, f"{what} has shape {Ah.shape}, A has {A.shape}")
    sig = np.linalg.svd(A, compute_uv=False)
    opt_f = float(np.sqrt(np.sum(sig[rank:] ** 2)))
    opt_2 = float(sig[rank]) if rank < sig.size else 0.0
    tau = _svd_perturbation(A, rank)
    sh = np.linalg.svd(Ah, compute_uv=False)
    extra = float(sh[rank]) if rank < sh.size else 0.0
    spec.check(extra <= tau, f"{what} has rank > {rank}: sigma_{rank + 1}({what}) = "
               f"{extra:.3g}", tau)
    E = A - Ah
    ef, e2 = float(np.linalg.norm(E)), float(np.linalg.norm(E, 2))
    spec.check(abs(ef - opt_f) <= 2 * tau, f"||A - {what}||_F = {ef:.10g}, the optimum "
               f"sqrt(sum_(k>r) sigma_k^2) = {opt_f:.10g} (r = {rank})", 2 * tau)
    spec.check(abs(e2 - opt_2) <= 2 * tau, f"||A - {what}||_2 = {e2:.10g}, the optimum "
               f"sigma_(r+1) = {opt_2:.10g} (r = {rank})", 2 * tau)


@prop("lowrank.randomized_svd_near_optimal", "features",
      "Halko, Martinsson & Tropp 2011, Thm 10.5 / Cor 10.10 and §9.3 (yatmath/estimators/"
      "lowrank.py docstring): E ||A - Q Q^T A||_2 <= bound(sigma, r, p, q) and ||A - A_hat_r||_2 "
      "<= sigma_{r+1} + ||A - Q Q^T A||_2; no rank-r matrix beats sigma_{r+1} (Eckart-Young)",
      "per run: sigma_{r+1} - 2 tau <= ||A - A_hat||_2 and rank(A_hat) <= r (tau as in "
      "truncated_svd_optimal); over R runs: mean ||A - A_hat||_2 <= sigma_{r+1} + t bound "
      "(Markov: P(mean > t E) <= 1/t; t = 1/alpha), bound from yatmath.estimators.randomized_svd's "
      "'proj_spec_expected' (the HMT bound as a function of A's singular values only)")
def randomized_svd_near_optimal(rsvd: Callable[..., Any], A: npt.ArrayLike, rank: int, *,
                                oversample: int = 10, power_iters: int = 0, runs: int = 5,
                                alpha: float = 1e-4) -> None:
    """A randomized SVD is never better than Eckart-Young and, on average over runs, within
    the Halko-Martinsson-Tropp expectation bound of it (Markov inequality at level alpha)."""
    from ...estimators import randomized_svd as _ref_rsvd

    spec = randomized_svd_near_optimal.spec
    A = host64(A)
    sig = np.linalg.svd(A, compute_uv=False)
    opt_2 = float(sig[rank]) if rank < sig.size else 0.0
    tau = _svd_perturbation(A, rank)
    bound = _ref_rsvd(A, rank, oversample=oversample, power_iters=power_iters,
                      rng=0).bounds["proj_spec_expected"]
    errs = []
    for r in range(runs):
        Ah = as_matrix(rsvd(A, rank, r))
        spec.check(Ah.shape == A.shape, f"returned shape {Ah.shape} for A of shape {A.shape}")
        sh = np.linalg.svd(Ah, compute_uv=False)
        extra = float(sh[rank]) if rank < sh.size else 0.0
        spec.check(extra <= tau, f"run {r}: rank > {rank}: sigma_(r+1)(A_hat) = {extra:.3g}", tau)
        e2 = float(np.linalg.norm(A - Ah, 2))
        spec.check(e2 >= opt_2 - 2 * tau, f"run {r}: ||A - A_hat||_2 = {e2:.10g} beats the "
                   f"Eckart-Young optimum sigma_(r+1) = {opt_2:.10g}", 2 * tau)
        errs.append(e2)
    mean = float(np.mean(errs))
    limit = opt_2 + bound / alpha + 2 * tau
    spec.check(mean <= limit, f"mean spectral error over {runs} runs = {mean:.6g}; sigma_(r+1) = "
               f"{opt_2:.6g}, HMT expectation bound {bound:.6g}, t = 1/alpha = {1 / alpha:g}",
               limit)


def _eig_floor(M: npt.NDArray[np.float64]) -> float:
    return float(np.linalg.eigvalsh((M + M.T) / 2)[0])


def _nystrom_tau(K: npt.NDArray[np.float64], S: npt.NDArray[Any] | None,
                 n: int) -> tuple[float, float]:
    """Rounding allowance of K_hat = C W^+ C^T: 8 (n + m) u64 ||K||_2 kappa(W), kappa(W) the
    condition number of the landmark block on its numerical range (eigenvalues above n u64
    lambda_max(W)): the pseudo-inverse amplifies the rounding of C and W by kappa(W)."""
    lamK = float(np.linalg.eigvalsh(K)[-1])
    if S is None:
        raise ValueError("the Nystrom properties need the landmark indices: return (K_hat, S) "
                         "or a LowRank with info['landmarks']")
    W = K[np.ix_(S, S)]
    lw = np.linalg.eigvalsh((W + W.T) / 2)
    keep = lw[lw > n * U64 * max(lw[-1], 0.0)]
    kappa = float(lw[-1] / keep[0]) if keep.size else 1.0
    return 8 * (n + len(S)) * U64 * max(lamK, 0.0) * kappa, kappa


@prop("lowrank.nystrom_bounds", "features",
      "yatmath/estimators/lowrank.py docstring (I8; Gittens & Mahoney 2016): for PSD K, "
      "K_hat = C W^+ C^T is symmetric with 0 <= K_hat <= K (K - K_hat is a Schur complement), "
      "rank(K_hat) <= m, and by Eckart-Young trace(K - K_hat) >= sum_{k>m} lambda_k and "
      "||K - K_hat||_2 >= lambda_{m+1}",
      "tau = 8 (n + m) u64 ||K||_2 kappa(W) (kappa(W): the landmark block's condition number on "
      "its numerical range) on the Loewner order, symmetry, rank and the two floors (n tau "
      "for the trace)")
def nystrom_bounds(nystrom: Callable[..., Any], K: npt.ArrayLike, m: int, seed: int = 0) -> None:
    """Loewner order 0 <= K_hat <= K, rank <= m and the Eckart-Young floors."""
    spec = nystrom_bounds.spec
    K = host64(K)
    n = K.shape[0]
    res = nystrom(K, m, seed)
    Kh = as_matrix(res)
    spec.check(Kh.shape == K.shape, f"returned shape {Kh.shape} for K of shape {K.shape}")
    tau, kappa = _nystrom_tau(K, _landmarks(res), n)
    asym = float(np.abs(Kh - Kh.T).max())
    spec.check(asym <= tau, f"K_hat is not symmetric: max |K_hat - K_hat^T| = {asym:.3g}", tau)
    lo = _eig_floor(Kh)
    spec.check(lo >= -tau, f"K_hat is not PSD: lambda_min(K_hat) = {lo:.6g} (kappa(W) = "
               f"{kappa:.3g})", tau)
    lo = _eig_floor(K - Kh)
    spec.check(lo >= -tau, f"K_hat is not below K: lambda_min(K - K_hat) = {lo:.6g} "
               f"(kappa(W) = {kappa:.3g})", tau)
    lam = np.linalg.eigvalsh(K)[::-1]
    sh = np.linalg.eigvalsh((Kh + Kh.T) / 2)[::-1]
    extra = float(abs(sh[m])) if m < n else 0.0
    spec.check(extra <= tau, f"rank(K_hat) > m = {m}: lambda_(m+1)(K_hat) = {extra:.3g}", tau)
    tail = np.clip(lam[m:], 0, None)
    tr = float(np.trace(K - Kh))
    spec.check(tr >= tail.sum() - n * tau, f"trace(K - K_hat) = {tr:.10g} is below the best "
               f"rank-{m} trace error {tail.sum():.10g}", n * tau)
    e2 = float(np.linalg.norm(K - Kh, 2))
    floor2 = float(tail[0]) if tail.size else 0.0
    spec.check(e2 >= floor2 - tau, f"||K - K_hat||_2 = {e2:.10g} is below lambda_(m+1) = "
               f"{floor2:.10g}", tau)


@prop("lowrank.nystrom_exact_at_low_rank", "features",
      "yatmath/estimators/lowrank.py docstring (I8): K_hat = C W^+ C^T = K when rank(K) <= m and "
      "the landmark columns span the range of K (K = B B^T: K_hat = B P B^T with P the projector "
      "on the row space of B_S, the identity when rank(B_S) = rank(B))",
      "||K - K_hat||_2 <= tau = 8 (n + m) u64 ||K||_2 kappa(W), as in lowrank.nystrom_bounds")
def nystrom_exact_at_low_rank(nystrom: Callable[..., Any], B: npt.ArrayLike, m: int,
                              seed: int = 0) -> None:
    """For K = B B^T with rank(B) <= m, Nystrom with landmarks whose rows of B have full rank
    reproduces K."""
    spec = nystrom_exact_at_low_rank.spec
    B = host64(B)
    K = B @ B.T
    K = (K + K.T) / 2
    n = K.shape[0]
    res = nystrom(K, m, seed)
    Kh = as_matrix(res)
    S = _landmarks(res)
    tau, kappa = _nystrom_tau(K, S, n)
    r = np.linalg.matrix_rank(B)
    if np.linalg.matrix_rank(B[S]) < r:
        raise ValueError(f"the landmarks {np.sort(S).tolist()} do not span the range of K "  # type: ignore[arg-type]
                         f"(rank {r}): the property's hypothesis fails")
    err = float(np.linalg.norm(K - Kh, 2))
    spec.check(err <= tau, f"||K - K_hat||_2 = {err:.3g} for rank(K) = {r} <= m = {m} "
               f"(kappa(W) = {kappa:.3g})", tau)


# ----------------------------------------------------------------------------------------------
# importance sampling: the optimal proposal and the variance of the estimator

def _is_parts(g: npt.ArrayLike, omega: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float, npt.NDArray[np.float64]]:
    """a_j = omega_j g_j (n, k) in float64 and its magnitudes: ||a_j||, S = sum_j ||a_j|| and the
    integral I = sum_j a_j, the sums correctly rounded (math.fsum)."""
    G = host64(g)
    G = G[:, None] if G.ndim == 1 else G.reshape(G.shape[0], -1)
    om = host64(omega).reshape(-1)
    a = om[:, None] * G
    na = np.sqrt((a * a).sum(1))
    S = math.fsum(na.tolist())
    I = np.array([math.fsum(a[:, c].tolist()) for c in range(a.shape[1])])
    return a, na, S, I


def importance_variance(g: npt.ArrayLike, omega: npt.ArrayLike, q: npt.ArrayLike,
                        M: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(V_c, err_c): the exact variance of each component c of the discrete importance estimator
    (1/M) sum_m a_{j_m} / q_{j_m} (keys j_m ~ q i.i.d., a_j = omega_j g_j), evaluated in the
    cancellation-free form V_c = (1/M) sum_j q_j (a_jc / q_j - I_c)^2 (yatmath/estimators/
    montecarlo.py docstring, I7), with a bound err_c of its rounding: r_jc = a_jc/q_j - I_c has
    error <= 3u |a_jc/q_j| + u |I_c| + (|I_c| the fsum's own half ulp) =: e_jc, so
    |V_hat_c - V_c| <= (1/M) sum_j q_j (2 |r_jc| e_jc + e_jc^2) + gamma_{n+3} V_c."""
    a, _, _, I = _is_parts(g, omega)
    q = host64(q).reshape(-1)
    n = a.shape[0]
    nz = q > 0
    if np.any((~nz) & np.any(a != 0, axis=1)):
        raise ValueError("q must be > 0 wherever omega_j g_j != 0 (the estimator is biased there)")
    ratio = a[nz] / q[nz, None]
    r = ratio - I
    V = (q[nz, None] * r * r).sum(0) / M
    e = 3 * U64 * np.abs(ratio) + 2 * U64 * np.abs(I)
    err = (q[nz, None] * (2 * np.abs(r) * e + e * e)).sum(0) / M + gamma(n + 3) * V
    return V, err


def _impl_variance_tolerance(a: npt.NDArray[np.float64], q: npt.NDArray[np.float64],
                             I: npt.NDArray[np.float64], V: float, M: int, k: int) -> float:
    """The accuracy the cancellation-free evaluation (montecarlo.py: discrete_variance) reaches
    on the trace variance V: with T = max_j ||a_j / q_j|| + ||I||, every ||delta r_j|| <=
    sqrt(k) (n + 4) u T (the n-term sum I and the quotient), so |delta V| <= (2/M) sum_j q_j
    ||r_j|| ||delta r_j|| + (1/M) sum_j q_j ||delta r_j||^2 + gamma_{n+k+4} V
    <= 2 sqrt(k) (n+4) u T sqrt(V/M) + k ((n+4) u T)^2 / M + gamma_{n+k+4} V
    (Cauchy-Schwarz: sum_j q_j ||r_j|| <= sqrt(M V))."""
    n = a.shape[0]
    nz = q > 0
    T = float(np.sqrt(((a[nz] / q[nz, None]) ** 2).sum(1)).max(initial=0.0)
              + np.sqrt((I * I).sum()))
    e = (n + 4) * U64 * T
    return (2 * math.sqrt(k) * e * math.sqrt(max(V, 0.0) / M) + k * e * e / M
            + gamma(n + k + 4) * abs(V))


@prop("estimator.optimal_proposal", "features",
      "yatmath/estimators/montecarlo.py docstring (I7; Owen, Monte Carlo theory, §9.1 / Kahn & "
      "Marshall 1953): the trace variance V(q) = (1/M)(sum_j ||a_j||^2 / q_j - ||I||^2) of the "
      "importance estimator (a_j = omega_j g_j) is minimised over pmfs by q*_j = ||a_j|| / S, "
      "S = sum ||a_j||, with V(q*) = (1/M)(S^2 - ||I||^2) (Cauchy-Schwarz), zero for a one-signed "
      "scalar integrand; any other proposal q has V(q) >= V(q*)",
      "q*: |q*_j - ||a_j||/S| <= 4 (k + n + 4) u ||a_j||/S (optimal_pmf docstring: ~(k + n) u "
      "per entry); V(q*) against (S^2 - ||I||^2)/M: tau(q*) + (2k + 10) u S^2 / M (S and I "
      "correctly rounded sums of terms with (k + 3) u relative error); V(q) >= V(q*) - tau(q) - "
      "tau(q*); tau(q) = 2 sqrt(k) (n+4) u T sqrt(V/M) + k ((n+4) u T)^2 / M + gamma_{n+k+4} V, "
      "T = max ||a_j/q_j|| + ||I|| (the cancellation-free evaluation's error, module helper "
      "_impl_variance_tolerance)")
def importance_optimal_proposal(optimal: Callable[..., Any], variance: Callable[..., Any],
                                g: npt.ArrayLike, omega: npt.ArrayLike, M: int,
                                proposals: Sequence[npt.ArrayLike] = ()) -> None:
    """``optimal(g, omega)`` returns the variance-optimal pmf and ``variance(g, omega, q, M)``
    the exact trace variance of the M-sample importance estimator: q* is proportional to
    |omega_j| ||g_j||, its variance is (S^2 - ||I||^2)/M, and no proposal in ``proposals`` (pmfs
    on the n keys) has a smaller variance."""
    spec = importance_optimal_proposal.spec
    a, na, S, I = _is_parts(g, omega)
    n, k = a.shape
    if not S > 0:
        raise ValueError("a zero integrand has no optimal proposal")
    qs = host64(optimal(g, omega)).reshape(-1)
    spec.check(qs.shape == (n,), f"optimal returned {qs.shape} for {n} keys")
    want = na / S
    tolq = 4 * (k + n + 4) * U64 * want
    err = np.abs(qs - want)
    bad = ~(err <= tolq)
    if bad.any():
        j = int(np.argmax(np.where(bad, err - tolq, -np.inf)))
        spec.fail(f"q*[{j}] = {qs[j]!r}, |omega_j| ||g_j|| / S = {want[j]!r} (n = {n}, k = {k})",
                  tolq[j])
    Vs = float(variance(g, omega, qs, M))
    closed = (S - math.sqrt(float((I * I).sum()))) * (S + math.sqrt(float((I * I).sum()))) / M
    tol = _impl_variance_tolerance(a, qs, I, Vs, M, k) + (2 * k + 10) * U64 * S * S / M
    spec.check(abs(Vs - closed) <= tol, f"V(q*) = {Vs!r}, (S^2 - ||I||^2)/M = {closed!r} (S = "
               f"{S:.6g}, ||I|| = {math.sqrt(float((I * I).sum())):.6g}, M = {M})", tol)
    for i, q in enumerate(proposals):
        q = host64(q).reshape(-1)
        Vq = float(variance(g, omega, q, M))
        tol = (_impl_variance_tolerance(a, q, I, Vq, M, k)
               + _impl_variance_tolerance(a, qs, I, Vs, M, k))
        spec.check(Vq >= Vs - tol, f"proposal {i} has V(q) = {Vq!r} < V(q*) = {Vs!r} "
                   f"(q = {q.tolist()}, n = {n}, M = {M})", tol)


@prop("estimator.variance_matches", "features",
      "yatmath/estimators/montecarlo.py docstring (I7): keys j_m ~ q i.i.d., the estimate "
      "(1/M) sum_m a_{j_m} / q_{j_m} has per-component variance V_c(q) = (1/M) sum_j q_j "
      "(a_jc / q_j - I_c)^2 -- in particular zero for the optimal proposal of a one-signed scalar "
      "integrand (every draw equals I)",
      "components with V_c > (1000 e_c)^2 (e_c = (n + M + 8) u max_j |a_jc / q_j| + u |I_c|: the "
      "rounding of one estimate): |ln(s^2_c / V_c)| <= z_{alpha/(2m)} se_c + 3 e_c / sqrt(V_c) "
      "(se_c: delta method with the sample kurtosis, as features.variance_one_over_F; the second "
      "term bounds the rounding's share of s^2; needs R M q_j >= 20 on every key with a_j != 0, "
      "else ValueError); the others (zero-variance proposals included): "
      "every replicate within e_c + sqrt(R m V_c / alpha) of I_c (Chebyshev and a union bound "
      "over the R replicates).  Failure probability <= alpha (asymptotically in R for the first "
      "test); seeded")
def importance_variance_matches(estimator: Callable[[int], Any], g: npt.ArrayLike,
                                omega: npt.ArrayLike, q: npt.ArrayLike, M: int, *,
                                replicates: int = 300, alpha: float = 1e-6) -> None:
    """``estimator(r)`` (r = 0..replicates-1, independent draws of M keys from ``q``) has the
    variance of the exact formula, per component; a zero-variance proposal gives I every time."""
    from scipy.stats import norm

    spec = importance_variance_matches.spec
    a, _, _, I = _is_parts(g, omega)
    n, k = a.shape
    q = host64(q).reshape(-1)
    V, _ = importance_variance(g, omega, q, M)
    X = np.stack([host64(estimator(r)).reshape(-1) for r in range(replicates)])
    spec.check(X.shape == (replicates, k), f"the estimator returned {X.shape[1:]} values for a "
               f"{k}-component integrand")
    nz = q > 0
    e = (n + M + 8) * U64 * np.abs(a[nz] / q[nz, None]).max(0) + U64 * np.abs(I)
    small = V <= (1000 * e) ** 2
    m = k
    if small.any():
        dev = np.abs(X[:, small] - I[small]).max(0)
        t = e[small] + np.sqrt(replicates * m * V[small] / alpha)
        c = worst_outside(dev, t)
        if c is not None:
            j = int(np.flatnonzero(small)[c[0]])
            spec.fail(f"component {j}: V = {V[j]:.3g} (at most the rounding scale (1000 e)^2 = "
                      f"{(1000 * e[j]) ** 2:.3g}) but a replicate is {dev[c]:.3g} from I = "
                      f"{I[j]!r} (M = {M}, n = {n})", t[c])
    keep = ~small
    if not keep.any():
        return
    live = nz & np.any(a != 0, axis=1)
    if replicates * M * float(q[live].min()) < 20:
        qmin = float(q[live].min())
        raise ValueError(f"key {int(np.flatnonzero(live)[np.argmin(q[live])])} has q = "
                         f"{qmin:.3g}: R M q = {replicates * M * qmin:.3g} < 20, so the "
                         "replicates may never draw it and the sample variance cannot see its "
                         "share (mean_test docstring); mix q with the uniform pmf or raise R")
    s2 = X[:, keep].var(0, ddof=1)
    se = log_variance_se(X[:, keep])
    z = float(norm.isf(alpha / (2 * m)))
    with np.errstate(divide="ignore"):
        dev = np.log(np.maximum(s2, 1e-300) / V[keep])
    tol = z * se + 3 * e[keep] / np.sqrt(V[keep])
    ok = np.abs(dev) <= tol
    if not ok.all():
        c = int(np.argmax(np.abs(dev) / tol))
        spec.fail(f"component {int(np.flatnonzero(keep)[c])}: sample variance over {replicates} "
                  f"replicates = {s2[c]:.6g}, exact V(q) = {V[keep][c]:.6g} (ratio "
                  f"{math.exp(dev[c]):.3g}; M = {M}, n = {n})", f"exp(+-{tol[c]:.3g})")
