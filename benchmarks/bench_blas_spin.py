"""Thread control without environment writes: the CPU benchmarks before and after, same run.

Before, ``import yatmath`` set ``OMP_WAIT_POLICY=PASSIVE`` and ``OPENBLAS_THREAD_TIMEOUT=4`` in
``os.environ`` (when unset) so that idle OpenMP (Numba) and OpenBLAS threads slept instead of
spinning on the cores the other library needed next.  Now yatmath writes no environment variable;
gram() runs its GEMMs on Numba's threads with BLAS limited to one thread per call (threadpoolctl),
so no OpenBLAS pool thread spins beside its Numba pass (``yatmath/yat/_numba_kernels.py``,
"Threads").  This script measures, in fresh interpreters, alternating variants ``ROUNDS`` times:

``before``     the last commit whose ``yatmath/__init__.py`` set the variables (exported with
               ``git archive`` into a temporary folder), the two variables set in the CHILD's
               environment (as the old setdefault did when yatmath was imported before NumPy)
``after``      this working tree, both variables unset in the child
``after+env``  this working tree, both variables set in the child (what a user who exports them
               gets; shows what they still buy)

Per child: GEMM ``X @ W.T`` and gram (B = n, eps = 1) at several sizes, each the minimum over
``REPEAT`` calls after one warm-up, after a 0.2 s pause (so no thread of the previous measurement
is still spinning); ``gram after GEMM``: gram timed right after an untimed caller GEMM (the
caller's OpenBLAS pool then still spins); ``GEMM after gram``: the converse (Numba's OpenMP
workers still spin); matvec pairs/s (d = 3, the direct kernel; d = 64, gram tiles + GEMV) and
direct particle force pairs/s (N = 10,000, d = 3, Coulomb).  The table gives the median over
rounds, the spread (min-max) and after/before of the medians (> 1: slower now; times) or
before/after (pairs/s).

Run:  python benchmarks/bench_blas_spin.py [--rounds 3] [--before REV] [--after-path DIR] [--quick]
(``--after-path DIR``: a folder holding the ``yatmath`` package to time as "after", e.g. the
"before" commit with only the thread changes applied, for an A/B of those alone.)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VARS = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_THREAD_TIMEOUT": "4"}
CHILD = r"""
import json, sys, time
import numpy as np
import yatmath
from yatmath.yat import gram, matvec
from yatmath.particles import interaction_force

CFG = json.loads(sys.argv[1])
R = CFG["repeat"]


def best(fn, before=None, repeat=None):
    t = float("inf")
    for k in range((repeat or R) + 1):          # the first call is a warm-up
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        if k:
            t = min(t, time.perf_counter() - t0)
    return t


def settled(fn, before=None, repeat=None):
    time.sleep(0.2)                 # > OpenBLAS's default 2^28-cycle spin and libgomp's
    return best(fn, before, repeat)


out = {"yatmath": yatmath.__file__}
rng = np.random.default_rng(0)
for n, d, dt in CFG["gram"]:
    X = rng.standard_normal((n, d)).astype(dt)
    W = rng.standard_normal((n, d)).astype(dt)
    gemm = lambda: X @ W.T
    g = lambda: gram(X, W, eps=1.0)
    g()
    key = f"{n} {d} {dt}"
    out["gemm ms " + key] = 1e3 * settled(gemm)
    out["gram ms " + key] = 1e3 * settled(g)
    out["gram after GEMM ms " + key] = 1e3 * settled(g, before=gemm)
    out["GEMM after gram ms " + key] = 1e3 * settled(gemm, before=g)
for n, d in CFG["matvec"]:
    X, Y, v = (rng.standard_normal((n, d)), rng.standard_normal((n, d)), rng.standard_normal(n))
    matvec(X[:64], Y[:64], v[:64], eps=1.0)
    out[f"matvec pairs/s n={n} d={d}"] = n * n / settled(lambda: matvec(X, Y, v, eps=1.0),
                                                         repeat=CFG["repeat_big"])
N = CFG["forces"]
P = rng.standard_normal((N, 3))
f = lambda: interaction_force(P, "none", 1.0, 0.0, backend="numba")
f()
out[f"forces pairs/s N={N}"] = N * (N - 1) / settled(f, repeat=CFG["repeat_big"])
print(json.dumps(out))
"""


def _show(rev: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:{path}"], capture_output=True,
                          text=True, check=True).stdout


def before_rev() -> str:
    """The newest commit whose yatmath/__init__.py writes OPENBLAS_THREAD_TIMEOUT and whose gram
    still runs OpenBLAS's threaded GEMM (no gemm_rows)."""
    revs = subprocess.run(["git", "-C", str(REPO), "log", "--format=%H", "--", "yatmath"],
                          capture_output=True, text=True, check=True).stdout.split()
    for rev in revs:
        if ('setdefault("OPENBLAS_THREAD_TIMEOUT"' in _show(rev, "yatmath/__init__.py")
                and "gemm_rows" not in _show(rev, "yatmath/yat/kernel.py")):
            return rev
    raise SystemExit("no commit with the old thread settings found; pass --before REV")


def export(rev: str, dest: Path) -> None:
    """``git archive REV yatmath`` unpacked into ``dest`` (reads the repository only)."""
    archive = dest / "old.tar"
    with open(archive, "wb") as f:
        subprocess.run(["git", "-C", str(REPO), "archive", rev, "yatmath"], stdout=f, check=True)
    with tarfile.open(archive) as t:
        t.extractall(dest, filter="data")


def run(variant: str, old: Path, new: Path | None, cwd: Path, cfg: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in VARS}
    if variant != "after":
        env.update(VARS)
    code = old if variant == "before" else new
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    # cwd: a folder without yatmath/, so that `python -c` (sys.path[0] = cwd) finds the intended one
    res = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cfg)], env=env, cwd=cwd,
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{variant} child failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", default=None, help="commit of the 'before' code (default: the "
                    "newest that set the variables)")
    ap.add_argument("--after-path", default=None, help="folder holding the 'after' yatmath "
                    "package (default: the one installed, i.e. this working tree)")
    ap.add_argument("--quick", action="store_true", help="small sizes, 1 round (smoke run)")
    ap.add_argument("--variants", default="before,after,after+env")
    args = ap.parse_args(argv)
    variants = args.variants.split(",")
    if args.quick:
        cfg = {"gram": [[256, 64, "float64"]], "matvec": [[2000, 3]], "forces": 2000,
               "repeat": 2, "repeat_big": 1}
        rounds = 1
    else:
        cfg = {"gram": [[n, 64, dt] for n in (512, 1024, 2048, 4096)
                        for dt in ("float64", "float32")]
               + [[2048, 256, dt] for dt in ("float64", "float32")],
               "matvec": [[20000, 3], [4096, 64]], "forces": 10000, "repeat": 5,
               "repeat_big": 3}
        rounds = args.rounds
    rev = args.before or before_rev()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        export(rev, old)
        warm = dict(cfg, gram=cfg["gram"][:1], repeat=1, repeat_big=1)   # compile outside rounds
        new = None if args.after_path is None else Path(args.after_path).resolve()
        for v in variants:
            where = run(v, old, new, Path(tmp), warm)["yatmath"]
            print(f"# {v:>9}: {where}" + (f" (commit {rev[:10]})" if v == "before" else ""))
        results = {v: [] for v in variants}
        for _ in range(rounds):
            for v in variants:
                results[v].append(run(v, old, new, Path(tmp), cfg))
    base = variants[0]
    print(f"\n# median over {rounds} rounds [min-max]; ratio: {variants[1:]} against {base} "
          "(times: new/old, > 1 slower; pairs/s: old/new, > 1 slower)")
    keys = [k for k in results[base][0] if k != "yatmath"]
    head = f"{'measure':<36}" + "".join(f"  {v:>27}" for v in variants) + "".join(
        f"  {'ratio ' + v:>15}" for v in variants[1:])
    print(head)
    for k in keys:
        med = {v: statistics.median(r[k] for r in results[v]) for v in variants}
        cells = []
        for v in variants:
            xs = [r[k] for r in results[v]]
            fmt = "{:.3g}" if "pairs/s" in k else "{:.2f}"
            cells.append(f"{fmt.format(med[v])} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]")
        ratios = [(med[base] / med[v]) if "pairs/s" in k else (med[v] / med[base])
                  for v in variants[1:]]
        print(f"{k:<36}" + "".join(f"  {c:>27}" for c in cells)
              + "".join(f"  {r:>15.3f}" for r in ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
