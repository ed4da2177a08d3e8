"""Why yatmath sets OPENBLAS_THREAD_TIMEOUT=4: gram/GEMM with OpenBLAS's default and with 4.

OpenBLAS's idle pool threads busy-wait for 2^OPENBLAS_THREAD_TIMEOUT TSC cycles (default 2^28,
~0.1 s) after each threaded call, so the Numba pass that follows gram's GEMM shares the cores
with them.  This script measures gram / GEMM (``X @ W.T``, same shape) at B = n = 2048 in fresh
interpreters with the variable at 28 (OpenBLAS's default) and 4 (yatmath's default, the
minimum), alternating, ``ROUNDS`` times each.

Run:  python benchmarks/bench_blas_spin.py
"""
from __future__ import annotations

import os
import sys

from yatmath.bench.timing import run_child

ROUNDS = 2
CHILD = """
import json, numpy as np
from yatmath.bench.yat import bench_gram
rows = bench_gram([2048], [64, 256], [np.float64, np.float32], repeat=9)
print(json.dumps({f"{r['d']} {r['dtype']}": (r["gram_over_gemm"], r["gemm_ms"]) for r in rows}))
"""


def main() -> int:
    results = {"28": [], "4": []}
    for _ in range(ROUNDS):
        for value in results:
            os.environ["OPENBLAS_THREAD_TIMEOUT"] = value
            results[value].append(run_child(CHILD))
    print("# gram / GEMM at B = n = 2048 (min of 9 repeats each) [GEMM ms], one column per run")
    for value, runs in results.items():
        for key in runs[0]:
            print(f"OPENBLAS_THREAD_TIMEOUT={value:>2}  d, dtype = {key:>12}: "
                  + "  ".join(f"{r[key][0]:.3f} [{r[key][1]:5.2f}]" for r in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
