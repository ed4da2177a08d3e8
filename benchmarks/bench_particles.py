"""Particle-interaction benchmarks (issue 6 targets), every ratio measured in this run.

    python benchmarks/bench_particles.py            # full: N = 100,000 random-batch comparison
    python benchmarks/bench_particles.py --quick    # smoke run (small N; targets not judged)

1. Direct forces, d = 3, s = 1 (Riesz, the Coulomb case of d = 3), float64:
   pair interactions per second = N (N - 1) / t (ordered pairs (k, l), l != k, as in the sum
   that defines the force), for the Numba pair-symmetric kernel; and its ratio to the chunked
   NumPy reference at the same N.  Targets: >= 3e8 pairs/s and >= 20x.
2. Random batch method at N = 100,000: one Langevin step with random-batch forces vs one with
   direct summation (same energy, same N).  Target: >= 50x.  Then both dynamics run for the same
   fixed time from the same initial particles with independent noise, and the final laws are
   compared by an MMD^2 permutation test on subsamples (its 95% null quantile is the statistical
   error); the law's own displacement over the run is printed to show the test has power.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from yatmath import info as platform_info
from yatmath.bench.timing import best_time
from yatmath.particles import (FieldHamiltonian, interaction_force, langevin_step, mmd2_test,
                               sliced_w2)


def bench_direct(N_fast, N_ref):
    rng = np.random.default_rng(0)
    Xf = rng.standard_normal((N_fast, 3))
    Xr = rng.standard_normal((N_ref, 3))
    f = lambda X, b: interaction_force(X, "none", 1.0, 0.0, backend=b)
    t_fast = best_time(lambda: f(Xf, "numba"), repeat=3)
    t_nb_ref = best_time(lambda: f(Xr, "numba"), repeat=5)
    t_np_ref = best_time(lambda: f(Xr, "numpy"), repeat=2, warmup=0)
    err = np.max(np.abs(f(Xr, "numba") - f(Xr, "numpy"))) / np.mean(np.abs(f(Xr, "numpy")))
    return {"N": N_fast, "pairs_per_s": N_fast * (N_fast - 1) / t_fast, "t": t_fast,
            "N_ref": N_ref, "numba_ref_pairs_per_s": N_ref * (N_ref - 1) / t_nb_ref,
            "numpy_pairs_per_s": N_ref * (N_ref - 1) / t_np_ref,
            "ratio_vs_numpy": t_np_ref / t_nb_ref, "rel_err": err}


def bench_random_batch(N, n_steps, eta, m_sub):
    """Confining quadratic V + Plummer-softened Riesz s = 1 repulsion in d = 3."""
    inter = ("plummer", 1.0, 0.5)
    H = FieldHamiltonian(lambda W: 0.5 * np.sum(W * W, axis=1), lambda W: W, lam=2.0,
                         interaction=inter)
    beta, bs = 30.0, 2
    W0 = 0.3 * np.random.default_rng(1).standard_normal((N, 3))
    step = lambda W, r, method: langevin_step(H, W, eta, beta, r, method=method, batch_size=bs)[0]
    t_rb = best_time(lambda: step(W0, np.random.default_rng(2), "random_batch"), repeat=5)
    # the direct run doubles as the timing of a direct step
    W_d, W_r, times = W0, W0, []
    r_d, r_r = np.random.default_rng(10), np.random.default_rng(20)
    for _ in range(n_steps):
        t0 = time.perf_counter()
        W_d = step(W_d, r_d, "direct")
        times.append(time.perf_counter() - t0)
        W_r = step(W_r, r_r, "random_batch")
    t_direct = min(times)
    sub = np.random.default_rng(3)
    ia, ib = sub.choice(N, m_sub, replace=False), sub.choice(N, m_sub, replace=False)
    test = mmd2_test(W_r[ia], W_d[ib], n_perm=200, rng=4)
    moved = mmd2_test(W0[ia], W_d[ib], n_perm=50, rng=5)
    return {"N": N, "steps": n_steps, "T": n_steps * eta, "batch_size": bs, "t_direct": t_direct,
            "t_rb": t_rb, "speedup": t_direct / t_rb, "mmd2": test["mmd2"],
            "mmd2_threshold": test["threshold"], "p_value": test["p_value"],
            "mmd2_initial_vs_final": moved["mmd2"],
            "sliced_w2_rb_vs_direct": sliced_w2(W_r[ia], W_d[ib], rng=6),
            "sliced_w2_initial_vs_final": sliced_w2(W0[ia], W_d[ib], rng=6)}


def main(quick=False):
    info = platform_info()
    print(f"numba {info['numba']} threads={info['numba_threads']}  numpy {info['numpy']}")
    d = bench_direct(4000 if quick else 20000, 2000 if quick else 10000)
    ok1 = d["pairs_per_s"] >= 3e8
    ok2 = d["ratio_vs_numpy"] >= 20
    print("\n| benchmark | measured | target | met |")
    print("|---|---|---|---|")
    print(f"| direct forces d=3 s=1 f64, Numba symmetric, N={d['N']} | "
          f"{d['pairs_per_s'] / 1e6:.0f} M pairs/s ({d['t'] * 1e3:.0f} ms) | >= 300 M pairs/s | {ok1} |")
    print(f"| vs chunked NumPy, N={d['N_ref']} | {d['ratio_vs_numpy']:.1f}x "
          f"(NumPy {d['numpy_pairs_per_s'] / 1e6:.1f} M/s, Numba {d['numba_ref_pairs_per_s'] / 1e6:.0f} M/s, "
          f"rel. diff {d['rel_err']:.1e}) | >= 20x | {ok2} |")
    rb = bench_random_batch(20000 if quick else 100000, 3 if quick else 6, 0.05,
                            1000 if quick else 2500)
    ok3 = rb["speedup"] >= 50
    ok4 = rb["mmd2"] <= rb["mmd2_threshold"]
    print(f"| random batch (p={rb['batch_size']}) step vs direct step, N={rb['N']} | "
          f"{rb['speedup']:.0f}x ({rb['t_rb'] * 1e3:.1f} ms vs {rb['t_direct']:.2f} s) | >= 50x | {ok3} |")
    print(f"| law at T={rb['T']:.2f} ({rb['steps']} steps), RBM vs direct | MMD^2 {rb['mmd2']:.2e} "
          f"<= 95% null {rb['mmd2_threshold']:.2e} (p={rb['p_value']:.2f}); sliced W2^2 "
          f"{rb['sliced_w2_rb_vs_direct']:.1e}; law moved: MMD^2 {rb['mmd2_initial_vs_final']:.2e}, "
          f"sliced W2^2 {rb['sliced_w2_initial_vs_final']:.1e} | within statistical error | {ok4} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
