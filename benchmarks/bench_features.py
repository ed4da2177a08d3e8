"""Linear Yat attention with random features vs exact Yat attention (issue 4 target).

Setting: d = 64, L = 512 tokens, Gaussian q, k, v; q and k normalised to unit rows; eps = the
median squared distance between the normalised q and k; kernel (q.k + b)^2 / (||q-k||^2 + eps)
with inner bias b; budget F = 256 features.  Exact attention: S = yatmath.yat.gram(Qn, Kn, eps,
bias=b), rows normalised, O = S V / rowsum(S).  Error: ||O_lin - O||_F / ||O||_F, averaged over
seeds (data and features re-drawn per seed), and the mean over tokens of the cosine
cos(O_lin_i, O_i) (1 = same direction), for three spherical Yat feature maps:
  harmonic   the Mercer (spherical-harmonic) truncation: minimum mean-square error, BIASED;
  series     the variance-allocated Maclaurin expansion: the best unbiased map here;
  maclaurin  the random Maclaurin baseline (Kar-Karnick, p = 2), unbiased.
Target: ratio method / maclaurin <= 0.5 for every b; reported for each method.

Also: the sequence length from which linear attention (features + linear attention) is faster
than exact attention (gram + normalise + matmul), measured here, and the memory crossover
(L^2 kernel entries vs L F + F dv feature/state entries).

Run:  python benchmarks/bench_features.py [--quick]
"""
from __future__ import annotations

import sys

import numpy as np

from yatmath.bench.timing import best_time
from yatmath.features import yat_features
from yatmath.yat import gram, linear_attention

D, L, F = 64, 512, 256
BIASES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


def data(seed, L=L, d=D, near=None):
    """Gaussian q, k, v with q, k normalised; with ``near`` = sigma, every query has a close key
    (K = a permutation of Q plus N(0, sigma^2) noise): the regime the truncation is worst at."""
    g = np.random.default_rng(seed)
    Q, K, V = (g.standard_normal((L, d)) for _ in range(3))
    if near is not None:
        K = Q[g.permutation(L)] + near * K
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn, Kn, V


def median_sqdist(Qn, Kn):
    return float(np.median(np.maximum(2.0 - 2.0 * Qn @ Kn.T, 0.0)))


def exact_attention(Qn, Kn, V, eps, b):
    S = gram(Qn, Kn, eps=eps, bias=b if b else None)
    return (S @ V) / S.sum(1, keepdims=True)


def mean_cosine(A, B):
    """Mean over tokens (rows) of cos(A_i, B_i) = A_i . B_i / (|A_i| |B_i|)."""
    return float(np.mean((A * B).sum(1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))))


def errors(Qn, Kn, V, eps, b, method, seed):
    """(relative L2 error ||O_lin - O||_F / ||O||_F, mean per-token cosine of O_lin and O)."""
    phi = yat_features(D, F, eps=eps, bias=b, spherical=True, method=method, rng=10_000 + seed)
    O = exact_attention(Qn, Kn, V, eps, b)
    Olin = linear_attention(Qn, Kn, V, phi)
    return float(np.linalg.norm(Olin - O) / np.linalg.norm(O)), mean_cosine(Olin, O)


METHODS = ("harmonic", "series", "maclaurin")


def error_table(seeds, biases=BIASES, near=None):
    """Per b: (b, {method: (relative L2 errors over seeds, mean cosines over seeds)})."""
    rows = []
    for b in biases:
        res = {m: [] for m in METHODS}
        for s in seeds:
            Qn, Kn, V = data(s, near=near)
            eps = median_sqdist(Qn, Kn)
            for m in res:
                res[m].append(errors(Qn, Kn, V, eps, b, m, s))
        rows.append((b, {m: tuple(np.array(x) for x in zip(*v)) for m, v in res.items()}))
    return rows


def crossover(lengths):
    out = []
    for Lc in lengths:
        Qn, Kn, V = data(0, Lc)
        eps = median_sqdist(Qn[:256], Kn[:256])
        phi = yat_features(D, F, eps=eps, bias=1.0, spherical=True, method="harmonic", rng=0)
        t_lin = best_time(lambda: linear_attention(Qn, Kn, V, phi), repeat=3)
        t_ex = best_time(lambda: exact_attention(Qn, Kn, V, eps, 1.0), repeat=3)
        out.append((Lc, t_lin, t_ex))
    return out


def _print_row(b, res, ok):
    base = res["maclaurin"][0].mean()
    ratios = {m: res[m][0].mean() / base for m in METHODS[:2]}
    for m in ok:
        ok[m] &= ratios[m] <= 0.5
    print(f"{b:5.2f} | " + " | ".join(f"{res[m][0].mean():9.4f} +- {res[m][0].std():6.4f}"
                                      for m in METHODS)
          + f" | {ratios['harmonic']:14.3f} | {ratios['series']:12.3f} | "
          + " | ".join(f"{res[m][1].mean():13.4f}" for m in METHODS))


def main(quick=False):
    seeds = range(4) if quick else range(10)
    print(f"# linear Yat attention, d={D}, L={L}, F={F}, {len(seeds)} seeds "
          "(mean +- sd of the relative L2 error over seeds)")
    print("# relative L2 = ||O_lin - O||_F / ||O||_F; cos = mean over tokens of cos(O_lin_i, O_i)")
    print("# ratio = mean rel L2 of the method / mean rel L2 of maclaurin (target <= 0.5)")
    print(f"{'b':>5} | " + " | ".join(f"{m + ' rel L2':>19}" for m in METHODS)
          + " | ratio harmonic | ratio series | " + " | ".join(f"{m + ' cos':>13}" for m in METHODS))
    ok = {m: True for m in METHODS[:2]}
    for b, res in error_table(seeds):
        _print_row(b, res, ok)
    print(f"target (ratio <= 0.5 for every b): harmonic (biased) {'MET' if ok['harmonic'] else 'NOT MET'}"
          f"; series (unbiased) {'MET' if ok['series'] else 'NOT MET'}")
    print("\n# robustness (not the target): every query has a near key, K = permuted Q + 0.3 N(0, I),"
          " then normalised")
    for b, res in error_table(seeds, biases=(0.5, 1.0, 4.0), near=0.3):
        _print_row(b, res, {})

    lengths = (128, 256, 512, 1024, 2048) if quick else (128, 256, 512, 1024, 2048, 4096)
    print("\n# time, b=1: L, linear (s), exact (s)")
    first = None
    for Lc, tl, te in crossover(lengths):
        print(f"{Lc:6d} {tl:10.5f} {te:10.5f}")
        if first is None and tl < te:
            first = Lc
    print(f"linear attention is faster from L = {first} (first measured length; "
          f"None = not within {lengths[-1]})")
    # memory: exact holds Lq*Lk scores; linear holds 2 L F features + F (dv + 1) state
    Lm = next(x for x in range(1, 10 ** 6) if x * x > 2 * x * F + F * (D + 1))
    print(f"memory (entries): exact L^2 > linear 2 L F + F (dv+1) from L = {Lm}")
    return 0


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
