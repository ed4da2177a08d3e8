"""Timing and memory helpers shared by the benchmarks."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import Any, Callable


def best_time(fn: Callable[[], Any], *, repeat: int = 7, warmup: int = 1,
              sync: Callable[[], Any] | None = None) -> float:
    """Minimum wall time of ``fn()`` over ``repeat`` runs, after ``warmup`` untimed runs.

    The minimum is the least noisy estimate of the cost on a shared machine; ``sync`` (e.g. a
    CUDA stream synchronize) is called before stopping the clock.
    """
    for _ in range(warmup):
        fn()
        if sync:
            sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        best = min(best, time.perf_counter() - t0)
    return best


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB (VmHWM of /proc/self/status).

    Not ``ru_maxrss``: Linux carries that across fork + exec, so a child started by a large
    parent would report the parent's peak.
    """
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def run_child(code: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; it must print one JSON object as its last line.

    Peak resident memory is read in the child from /proc/self/status (VmHWM), isolated from ours.
    A child stopped by Ctrl-C raises ``KeyboardInterrupt`` here, as Ctrl-C in this process does
    (``subprocess.run`` then kills the child).
    """
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if res.returncode == -signal.SIGINT or (
            res.returncode != 0 and res.stderr.rstrip().endswith("KeyboardInterrupt")):
        raise KeyboardInterrupt   # Ctrl-C reached the child (its process group) first
    if res.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])
