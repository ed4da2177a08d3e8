"""Yat kernel benchmarks: ``yatmath bench yat`` (also ``python benchmarks/bench_yat.py``).

Targets (issue 2, 2 cores):
  * gram / GEMM ``X @ W.T`` of the same shape <= 1.5 at d = 64, <= 1.2 at d >= 256, B = n in
    2048..4096, float32 and float64;
  * plain NumPy ``S**2/(xn[:,None]+wn[None,:]-2S+eps)`` / gram >= 2;
  * matvec n = m = 200,000, d = 3: peak resident memory < 300 MB; pairs per second printed;
  * with CuPy and a device: the same gram ratios against CuPy's own matmul.

``main`` returns the exit status of ``yatmath bench yat``: 0 when every CPU target is met, 1 when
one is missed (``yatmath.cli_args.EXIT_FAILED``: "a target that fails its bound").
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from .. import _array, _platform
from .._typing import Namespace
from ..cli_args import EXIT_FAILED, EXIT_OK
from ..yat import gram
from .timing import best_time, run_child

GRAM_TARGET = {64: 1.5, 256: 1.2, 512: 1.2}
PLAIN_TARGET = 2.0
MATVEC_RSS_MB = 300.0


def _plain_numpy(X: Any, W: Any, eps: float) -> Any:
    S = X @ W.T
    xn = np.einsum("ij,ij->i", X, X)
    wn = np.einsum("ij,ij->i", W, W)
    return S**2 / (xn[:, None] + wn[None, :] - 2 * S + eps)


def _settled(fn: Callable[[], Any], **kw: Any) -> float:
    """best_time after 0.2 s: idle OpenBLAS threads spin ~0.1 s after a threaded call (and
    OpenMP workers after a parallel loop), which would slow the next measurement's first calls."""
    time.sleep(0.2)
    return best_time(fn, **kw)


def bench_gram(sizes: Sequence[int], dims: Sequence[int], dtypes: Sequence[Any],
               xp: Namespace = np, backend: str = "auto",
               sync: Callable[[], Any] | None = None, repeat: int = 7) -> list[dict[str, Any]]:
    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        for d in dims:
            for dt in dtypes:
                X = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                W = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                t_gemm = _settled(lambda: X @ W.T, repeat=repeat, sync=sync)
                t_yat = _settled(lambda: gram(X, W, eps=1.0, backend=backend), repeat=repeat,
                                  sync=sync)
                t_plain = _settled(lambda: _plain_numpy(X, W, 1.0), repeat=repeat, sync=sync)
                target = GRAM_TARGET.get(d, 1.2 if d >= 256 else 1.5)
                rows.append(dict(n=n, d=d, dtype=np.dtype(dt).name, gemm_ms=1e3 * t_gemm,
                                 gram_ms=1e3 * t_yat, plain_ms=1e3 * t_plain,
                                 gram_over_gemm=t_yat / t_gemm, plain_over_gram=t_plain / t_yat,
                                 gemm_target=target,
                                 ok=(t_yat / t_gemm <= target) and (t_plain / t_yat >= PLAIN_TARGET)))
    return rows


_MATVEC_CHILD = """
import json, time, numpy as np, yatmath.yat as y
from yatmath.bench.timing import peak_rss_mb as hwm_mb
n = {n}
rng = np.random.default_rng(0)
X = rng.standard_normal((n, 3)); Y = rng.standard_normal((n, 3)); v = rng.standard_normal(n)
y.matvec(X[:64], Y[:64], v[:64], eps=1.0)            # compile outside the timing
rss0 = hwm_mb()
t0 = time.perf_counter(); out = y.matvec(X, Y, v, eps=1.0); t = time.perf_counter() - t0
peak = hwm_mb()   # before the reference check
ref = y.gram(X[:8], Y, eps=1.0, backend="numpy") @ v
rel = float(np.max(np.abs(out[:8] - ref)) / np.max(np.abs(ref)))
print(json.dumps(dict(n=n, seconds=t, pairs_per_s=n * n / t, rel_err_first_rows=rel,
                      peak_rss_mb=peak, rss_before_mb=rss0)))
"""


def bench_matvec(n: int) -> dict[str, Any]:
    r = run_child(_MATVEC_CHILD.format(n=n))
    r["ok"] = r["peak_rss_mb"] < MATVEC_RSS_MB
    return r


def _print_gram(rows: Sequence[Mapping[str, Any]], label: str, base: str) -> None:
    print(f"\n{label}: gram vs {base} (min of repeats; ratios measured in this run)")
    print(f"{'n':>6} {'d':>5} {'dtype':>8} {base + ' ms':>10} {'gram ms':>9} {'plain ms':>9} "
          f"{'gram/gemm':>10} {'target':>7} {'plain/gram':>11} {'ok':>4}")
    for r in rows:
        print(f"{r['n']:>6} {r['d']:>5} {r['dtype']:>8} {r['gemm_ms']:>10.2f} {r['gram_ms']:>9.2f} "
              f"{r['plain_ms']:>9.2f} {r['gram_over_gemm']:>10.3f} {r['gemm_target']:>7.2f} "
              f"{r['plain_over_gram']:>11.2f} {'yes' if r['ok'] else 'NO':>4}")


def main(quick: bool = False) -> int:
    """Print the tables; return 0 when every CPU target is met, 1 when one is missed (the
    ``ok`` column and the last line name it).  GPU ratios are printed, not judged."""
    info = _platform.info()
    print(f"yatmath bench yat  numpy {info['numpy']}  numba {info['numba']} "
          f"({info['numba_threads']} threads)  device: {info['cuda_device'] or 'none'}  "
          f"OPENBLAS_THREAD_TIMEOUT {info['openblas_thread_timeout'] or 'OpenBLAS default (28)'}",
          flush=True)
    sizes = [1024] if quick else [2048, 4096]
    dims = [64, 256]
    dtypes = [np.float64, np.float32]
    # compile every specialisation before timing
    for dt in dtypes:
        Z = np.ones((8, max(dims)), dt)
        gram(Z, Z[:4], eps=1.0)
    rows = bench_gram(sizes, dims, dtypes, repeat=3 if quick else 7)
    _print_gram(rows, "CPU (numba)", "gemm")
    ok = all(r["ok"] for r in rows)
    mv = bench_matvec(20_000 if quick else 200_000)
    print(f"\nmatvec n = m = {mv['n']}, d = 3: {mv['seconds']:.2f} s, "
          f"{mv['pairs_per_s']:.3g} pairs/s, peak RSS {mv['peak_rss_mb']:.0f} MB "
          f"({mv['rss_before_mb']:.0f} MB before the call: interpreter, NumPy, Numba) "
          f"(target < {MATVEC_RSS_MB:.0f} MB: {'yes' if mv['ok'] else 'NO'}), "
          f"rel. error of the first rows vs the NumPy reference {mv['rel_err_first_rows']:.1e}")
    ok = ok and mv["ok"]
    cp = _array.cupy_module()
    if cp is not None:
        sync = cp.cuda.Stream.null.synchronize
        for dt in dtypes:
            Z = cp.ones((8, max(dims)), dt)
            gram(Z, Z[:4], eps=1.0)
        grows = bench_gram([4096, 8192] if not quick else [2048], dims, dtypes, xp=cp,
                           backend="cupy", sync=sync, repeat=3 if quick else 10)
        _print_gram(grows, "GPU (cupy)", "cupy matmul")
    else:
        print("\nGPU: no CuPy device found; GPU ratios not measured")
    missed = [f"gram n={r['n']} d={r['d']} {r['dtype']}" for r in rows if not r["ok"]]
    missed += [] if mv["ok"] else [f"matvec peak RSS {mv['peak_rss_mb']:.0f} MB"]
    print(f"\nall CPU targets met: {'yes' if ok else 'NO'}"
          + (f" (missed: {'; '.join(missed)})" if missed else ""))
    return EXIT_OK if ok else EXIT_FAILED
