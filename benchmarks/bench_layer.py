"""NMN layer backward against a BLAS GEMM of the forward's shape (issue 12, item 7).

    python benchmarks/bench_layer.py            # full run (~1-2 min on 2 cores)
    python benchmarks/bench_layer.py --quick    # smaller sizes, fewer rounds
    python benchmarks/bench_layer.py --repeat=3 # three tables and the per-row medians

Target: ``layer_backward`` (numba path: dX, dW, dbias, dalpha, deps) <= 3.5 x the GEMM
X @ W.T (B x d times d x n) of the same shapes, float32 and float64.  Three GEMM-sized products
are its floor: the dots X W^T again (the forward keeps only Y), then P W and P^T X.

Timed in the same process, interleaved: rounds of (GEMM, new backward), (GEMM, old backward) and
(GEMM, forward) take turns in blocks of 4 (about 8 s per shape and dtype, at most 40 rounds of
each), minimum per method over its rounds, so the ratios share the machine's state.  Every ratio
divides by the GEMM's minimum over both kinds of rounds.  "old" is the
backward as it was before the fused pass (commit 772fafb: one multi-threaded GEMM, ~12 NumPy
passes over the (B, n) matrices, two more GEMMs), kept verbatim below for this comparison only.
Each row also prints the relative difference (2-norm) between the old and new dX and dW.

OPENBLAS_THREAD_TIMEOUT=4 is set before NumPy loads unless already set: otherwise OpenBLAS's
pool threads busy-wait ~0.1 s after each threaded GEMM (the baseline's), and take the cores from
the Numba pass that follows (benchmarks/bench_blas_spin.py); pass --spin to leave it unset.
"""
from __future__ import annotations

import os
import sys

if "--spin" not in sys.argv:
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import time

import numpy as np

from yatmath import info as platform_info
from yatmath.yat import layer_backward, layer_forward
from yatmath.yat.kernel import REPAIR_TAU

TARGET = 3.5
SHAPES = [(1024, 256, 1024), (4096, 512, 1024), (256, 64, 4096)]
QUICK_SHAPES = [(512, 128, 512), (256, 64, 2048)]


# ---- the backward before the fused pass (commit 772fafb), for the comparison only ----------
def _old_squared_distance(X, W, S, eps):
    xn = np.sum(X * X, axis=1)
    wn = np.sum(W * W, axis=1)
    D = xn[:, None] + wn[None, :]
    S2 = 2.0 * S
    flag = S2 > (1.0 - REPAIR_TAU) * D
    D -= S2
    del S2
    D += eps
    flag |= np.isnan(D)
    ii, jj = np.nonzero(flag)
    if ii.size:
        step = max(1, (1 << 22) // max(1, X.shape[1]))
        for k0 in range(0, int(ii.size), step):
            i, j = ii[k0:k0 + step], jj[k0:k0 + step]
            diff = X[i].astype(np.float64) - W[j].astype(np.float64)
            D[i, j] = (np.sum(diff * diff, axis=1) + eps).astype(D.dtype)
    return D


def _old_pair_backward(X, W, eps, Gk, c=None, bias_mode="inner"):
    S = X @ W.T
    D = _old_squared_distance(X, W, S, eps)
    if c is not None and bias_mode == "inner":
        S += c
    S /= D
    r = S
    del D
    dc = None
    if c is not None:
        dc = 2.0 * np.sum(Gk * r, axis=0) if bias_mode == "inner" else np.sum(Gk, axis=0)
        if c.ndim == 0:
            dc = np.sum(dc)
    Q = r * r
    P = r
    P += Q
    P *= Gk
    P *= 2.0
    Q *= Gk
    Q *= -1.0
    qx, qw = np.sum(Q, axis=1), np.sum(Q, axis=0)
    dX = P @ W + 2.0 * qx[:, None] * X
    dW = P.T @ X + 2.0 * qw[:, None] * W
    deps = np.sum(qx)
    return dX, dW, dc, deps


def old_layer_backward(G, cache):
    """The old layer_backward for a (B, n) output (reduce=None), as at commit 772fafb."""
    Yfull = cache.Y
    dalpha = cache.log_base * float(np.sum(G * Yfull))
    Gk = G * Yfull.dtype.type(cache.s)
    dX, dW, dc, deps = _old_pair_backward(cache.X, cache.W, cache.eps, Gk, cache.bias,
                                          cache.bias_mode)
    return dX, dW, dc, dalpha, float(deps)
# ---------------------------------------------------------------------------------------------


def _min_interleaved(groups, seconds, block=4, max_rounds=40, min_rounds=6):
    """Minimum wall time of every fn in ``groups`` (lists of fns), in blocks of ``block`` rounds
    per group, the groups taking turns, each fn called once per round of its group, for about
    ``seconds`` in all (each group min_rounds .. max_rounds rounds), after one untimed warm-up
    call each.  The minimum over many short rounds picks the machine's quiet moments for every
    fn alike; blocks keep a group's fns apart from the others' allocations (the old backward
    frees ~6 (B, n) arrays per call, the forward its output, which slowed whatever ran just after
    them by up to 10% at B n = 2^20 on 2 cores).
    Returns one list of minima per group."""
    t_round = 0.0
    for fns in groups:
        for f in fns:
            t0 = time.perf_counter()
            f()
            t_round += time.perf_counter() - t0
    rounds = int(min(max_rounds, max(min_rounds, seconds / max(t_round, 1e-9))))
    best = [[float("inf")] * len(fns) for fns in groups]
    for _ in range(0, rounds, block):
        for g, fns in enumerate(groups):
            for _ in range(block):
                for k, f in enumerate(fns):
                    t0 = time.perf_counter()
                    f()
                    best[g][k] = min(best[g][k], time.perf_counter() - t0)
    return best


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def bench_one(B, d, n, dt, seconds, rng, bias=True):
    """One row of the table: times (ms), ratios and the old-vs-new difference at (B, d, n)."""
    X = rng.standard_normal((B, d)).astype(dt)
    W = rng.standard_normal((n, d)).astype(dt)
    c = rng.standard_normal(n).astype(dt) if bias else None
    G = rng.standard_normal((B, n)).astype(dt)
    _, cache = layer_forward(X, W, 1.0, c, return_cache=True)

    def gemm():
        return X @ W.T

    (g1, t_new), (g2, t_old), (g3, t_fwd) = _min_interleaved(
        [[gemm, lambda: layer_backward(G, cache)],
         [gemm, lambda: old_layer_backward(G, cache)],
         [gemm, lambda: layer_forward(X, W, 1.0, c, return_cache=True)]], seconds)
    t_gemm = min(g1, g2, g3)
    new, old = layer_backward(G, cache), old_layer_backward(G, cache)
    return {"B": B, "d": d, "n": n, "dtype": np.dtype(dt).name, "gemm_ms": 1e3 * t_gemm,
            "new_ms": 1e3 * t_new, "old_ms": 1e3 * t_old, "fwd_ms": 1e3 * t_fwd,
            "new_ratio": t_new / t_gemm, "old_ratio": t_old / t_gemm, "fwd_ratio": t_fwd / t_gemm,
            "diff": max(_rel(new.X, old[0]), _rel(new.W, old[1])),
            "ok": t_new / t_gemm <= TARGET}


def bench(shapes, dtypes, seconds):
    rng = np.random.default_rng(0)
    return [bench_one(B, d, n, dt, seconds, rng) for B, d, n in shapes for dt in dtypes]


def _print_table(rows):
    print(f"bias per unit (inner), eps = 1, Gaussian data; min over interleaved rounds\n"
          f"{'B':>5} {'d':>4} {'n':>5} {'dtype':>7} {'gemm ms':>8} {'new ms':>8} {'old ms':>8} "
          f"{'new/gemm':>9} {'old/gemm':>9} {'old/new':>8} {'fwd/gemm':>9} {'|new-old|':>9} "
          f"{'<=' + str(TARGET):>6}")
    for r in rows:
        print(f"{r['B']:>5} {r['d']:>4} {r['n']:>5} {r['dtype']:>7} {r['gemm_ms']:>8.2f} "
              f"{r['new_ms']:>8.2f} {r['old_ms']:>8.2f} {r['new_ratio']:>9.2f} "
              f"{r['old_ratio']:>9.2f} {r['old_ms'] / r['new_ms']:>8.2f} {r['fwd_ratio']:>9.2f} "
              f"{r['diff']:>9.1e} {'yes' if r['ok'] else 'NO':>6}", flush=True)


def main(quick=False, repeat=1):
    """One table per repetition; with ``repeat`` > 1 also the per-row medians of the ratios
    (the VM's speed drifts by ~20% within minutes: the median of whole-table repetitions is the
    number to quote, each table's own ratios sharing one stretch of the machine's state)."""
    info = platform_info()
    print(f"NMN layer backward vs GEMM X @ W.T  numpy {info['numpy']}  numba {info['numba']} "
          f"({info['numba_threads']} threads)  "
          f"OPENBLAS_THREAD_TIMEOUT={os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset')}")
    dtypes = [np.float32, np.float64]
    for dt in dtypes:   # compile every specialisation before timing
        Z = np.ones((8, 24), dt)
        _, k = layer_forward(Z, Z[:4], 1.0, np.ones(4, dt), return_cache=True)
        layer_backward(np.ones((8, 4), dt), k)
    tables = []
    for _ in range(repeat):
        tables.append(bench(QUICK_SHAPES if quick else SHAPES, dtypes,
                            seconds=2.0 if quick else 8.0))
        _print_table(tables[-1])
    rows = tables[0]
    if repeat > 1:
        print(f"medians over {repeat} tables\n{'B':>5} {'d':>4} {'n':>5} {'dtype':>7} "
              f"{'new/gemm':>9} {'old/gemm':>9} {'fwd/gemm':>9} {'<=' + str(TARGET):>6}")
        rows = []
        for k, r in enumerate(tables[0]):
            med = {key: float(np.median([t[k][key] for t in tables]))
                   for key in ("new_ratio", "old_ratio", "fwd_ratio")}
            rows.append(dict(r, **med, ok=med["new_ratio"] <= TARGET))
            print(f"{r['B']:>5} {r['d']:>4} {r['n']:>5} {r['dtype']:>7} {med['new_ratio']:>9.2f} "
                  f"{med['old_ratio']:>9.2f} {med['fwd_ratio']:>9.2f} "
                  f"{'yes' if rows[-1]['ok'] else 'NO':>6}")
    ok = all(r["ok"] for r in rows)
    print(f"all backward/GEMM <= {TARGET}{' (medians)' if repeat > 1 else ''}: "
          f"{'yes' if ok else 'NO'}")
    return 0


if __name__ == "__main__":
    _rep = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--repeat=")]
    sys.exit(main(quick="--quick" in sys.argv, repeat=int(_rep[0]) if _rep else 1))
