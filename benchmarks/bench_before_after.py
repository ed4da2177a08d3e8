"""Issue 12 before/after: the CPU benchmarks of a base revision and of this working tree, same run.

    python benchmarks/bench_before_after.py                    # full run (4 min on 2 idle cores)
    python benchmarks/bench_before_after.py --quick            # smoke run (tiny sizes, 1 round)
    python benchmarks/bench_before_after.py --rounds 7 --json out/before_after.json
    python benchmarks/bench_before_after.py --base REV --repo PATH

"before" is ``yatmath`` at ``--base`` (default ``858a2c6``: the last commit changing yatmath
before its operations were registered and made generic over the array API, 5832730 on; the
registry module itself came earlier, in 772fafb), materialised with ``git archive REV yatmath | tar -x`` into a temporary folder (no git
command that changes state).  "after" is the working tree's ``yatmath`` of ``--repo`` (default:
the repository holding this script), copied once at the start so that every round times the
same code even while the tree is being edited.

Every measurement group runs in a fresh interpreter whose environment (the child's only) has
``PYTHONPATH`` at one tree and ``NUMBA_CACHE_DIR`` at that tree's own temporary folder, so Numba's
compiled kernels never cross between revisions.  The child imports ``yatmath`` before NumPy, so a
revision that sets thread defaults at import (858a2c6 sets ``OMP_WAIT_POLICY=PASSIVE`` and
``OPENBLAS_THREAD_TIMEOUT=4`` in its own process when unset) runs as its users got it; the
variables each child saw after the import are recorded in the JSON.  Per round the groups run in
the order gram, matvec, forces, each ``before`` then ``after`` (ABAB...), so drift of a shared
machine hits both.

Measures (float64 unless named; inputs from ``numpy.random.default_rng(0)``, the same for both):

``gram/GEMM``   ``yat.gram(X, W, eps=1)`` time over the time of the GEMM ``X @ W.T`` of the same
                shape and dtype, timed in the same child (X: n x d, W: m x d); lower is better.
                The GEMM's own time is reported as a control: it is NumPy's code in both trees,
                so its after/before ratio shows the machine's drift between the children.
``matvec``      ``yat.matvec(X, Y, v, eps=1)`` (X, Y: n x d), pairs/s = n^2 / t; higher is better.
``forces``      ``particles.interaction_force(P, "none", 1.0, 0.0, backend=B)`` (Riesz s = 1, the
                Coulomb case of d = 3; P: N x d), B = "numba" and "auto",
                pairs/s = N (N - 1) / t (ordered pairs, as the force sum); higher is better.

Each child records the machine's 1-minute load average as it starts (JSON ``rounds[r]["load"]``;
the median and range are printed): on a shared machine a load above the CPU count stretches
times, and the GEMM control rows show by how much.

Each time is the minimum over ``repeat`` calls (``timeit``, one call each) after one untimed
warm-up call of the same shape (compilation, cache loads and first-touch excluded) and a 0.2 s
pause (no thread of the previous measurement still spinning).  The table gives, per measure, the
median over rounds with the min-max over rounds, and after/before: the median of the per-round
ratios (round r's after over round r's before) with their min-max.  Verdict: ``faster`` or
``slower`` when every round's ratio lies on that side of 1, else ``within noise`` (no verdict
below 3 rounds).

API of the two revisions: 858a2c6 and this tree have the same names and arguments for the three
functions timed (gram(X, W, eps, ..., backend=), matvec(X, Y, v, eps, ..., backend=),
interaction_force(omega, kind, s, delta, *, backend=)); each child checks the arguments it passes
exist (``REQUIRED``) and stops with a message naming the function otherwise, so an older or newer
base needs an explicit adapter here rather than silently timing something else.

Adapter (``ADAPTERS``, applied only where the exported tree needs it, printed and recorded in the
JSON): 858a2c6 is internally inconsistent -- its ``yat/kernel.py`` calls
``_numba_kernels.gemm_rows`` (gram's expanded Numba path when the result is below
``TILED_MIN_BYTES``: 16 MiB float32, 64 MiB float64, e.g. every matvec tile with d > 16), which
that commit's ``_numba_kernels.py`` lacks (AttributeError); the function came in a814b76 (the same
source as now).  The "before" child takes ``gemm_rows`` verbatim from a814b76, compiled in a module
of the exported tree against 858a2c6's own ``_numba_kernels`` globals (its ``_gemm_nt``), so
"before" runs the code 858a2c6's kernel.py calls for, with nothing else of a later commit.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from functools import partial
from pathlib import Path

DEFAULT_BASE = "858a2c6"
REVISIONS = ("before", "after")
GROUPS = ("gram", "matvec", "forces")
#: Thread variables a child reports after importing yatmath (858a2c6 set the first two itself).
THREAD_VARS = ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT", "NUMBA_NUM_THREADS",
               "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: Arguments each timed function must accept, in both revisions.
REQUIRED = {"yatmath.yat.gram": ("X", "W", "eps", "backend"),
            "yatmath.yat.matvec": ("X", "Y", "v", "eps", "backend"),
            "yatmath.particles.interaction_force": ("omega", "kind", "s", "delta", "backend")}

#: Functions a base revision calls but lacks, supplied from the commit that added them:
#: (module that lacks it, its file, the file calling it, the call's text, the commit to take it from)
ADAPTERS = [("yatmath.yat._numba_kernels", "yatmath/yat/_numba_kernels.py",
             "yatmath/yat/kernel.py", "nk.gemm_rows", "gemm_rows", "a814b76")]
ADAPTER_MODULE = "_bench_before_after_adapters"

FULL = {"gram": [[1024, 1024, 64], [4096, 4096, 64], [2048, 2048, 256]],
        "gram_dtypes": ["float32", "float64"],
        "matvec": [[20000, 3], [20000, 64]],
        "forces": [[4096, 2], [4096, 3], [16384, 2], [16384, 3]],
        "force_backends": ["numba", "auto"],
        "repeat": 5, "repeat_big": 2, "pause_s": 0.2}
QUICK = {"gram": [[192, 160, 32]], "gram_dtypes": ["float32", "float64"],
         "matvec": [[600, 3], [600, 64]], "forces": [[300, 2], [300, 3]],
         "force_backends": ["numba", "auto"], "repeat": 2, "repeat_big": 1, "pause_s": 0.0}


# ------------------------------------------------------------------------------ the child
def _time(fn, repeat: int, pause_s: float):
    """(min seconds over ``repeat`` single calls, result of the untimed warm-up call)."""
    import time
    import timeit

    result = fn()                       # warm-up: compilation / cache loads, first touch
    time.sleep(pause_s)
    return min(timeit.Timer(fn, timer=time.perf_counter).repeat(repeat=repeat, number=1)), result


def _check_api() -> dict:
    """The signatures of the timed functions; SystemExit naming what a revision lacks."""
    import importlib
    import inspect

    sigs = {}
    for name, args in REQUIRED.items():
        mod, _, attr = name.rpartition(".")
        fn = getattr(importlib.import_module(mod), attr, None)
        if fn is None:
            raise SystemExit(f"this revision has no {name}; add an adapter to "
                             "benchmarks/bench_before_after.py")
        params = inspect.signature(fn).parameters
        missing = [a for a in args if a not in params]
        if missing:
            raise SystemExit(f"this revision's {name}{inspect.signature(fn)} lacks {missing}; "
                             "add an adapter to benchmarks/bench_before_after.py")
        sigs[name] = str(inspect.signature(fn))
    return sigs


def child(group: str, cfg: dict) -> dict:
    """Run one measurement group in this (fresh) interpreter; returns the JSON-able record."""
    load = os.getloadavg()[0]   # the machine's 1-minute load as this child starts
    import yatmath  # first: a revision's import-time thread defaults act as for its users
    seen = {k: os.environ.get(k) for k in THREAD_VARS}
    import numba
    import numpy as np

    from yatmath.particles import interaction_force
    from yatmath.yat import gram, matvec

    for mod, attr in cfg.get("adapters", []):                # see ADAPTERS
        import importlib

        setattr(importlib.import_module(mod), attr,
                getattr(importlib.import_module(ADAPTER_MODULE), attr))
    out = {"yatmath": yatmath.__file__, "env_after_import": seen, "api": _check_api(),
           "numba_threads": numba.get_num_threads(), "numpy": np.__version__, "load": load,
           "measures": {}, "norms": {}}
    m, norms = out["measures"], out["norms"]
    rng = np.random.default_rng(0)
    R, RB, pause = cfg["repeat"], cfg["repeat_big"], cfg["pause_s"]
    if group == "gram":
        for dt in cfg["gram_dtypes"]:
            for n, mm, d in cfg["gram"]:
                X = rng.standard_normal((n, d)).astype(dt)
                W = rng.standard_normal((mm, d)).astype(dt)
                shape = f"{dt} {n}x{mm}x{d}"
                t_gemm, _ = _time(partial(np.matmul, X, W.T), R, pause)
                t_gram, K = _time(partial(gram, X, W, eps=1.0), R, pause)
                m[f"gram/GEMM {shape}"] = t_gram / t_gemm
                m[f"gram ms {shape}"] = 1e3 * t_gram
                m[f"GEMM ms {shape} (control)"] = 1e3 * t_gemm
                norms[f"gram/GEMM {shape}"] = float(np.linalg.norm(K))
    elif group == "matvec":
        for n, d in cfg["matvec"]:
            X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d))
            v = rng.standard_normal(n)
            t, y = _time(partial(matvec, X, Y, v, eps=1.0), RB, pause)
            m[f"matvec pairs/s n={n} d={d}"] = n * n / t
            norms[f"matvec pairs/s n={n} d={d}"] = float(np.linalg.norm(y))
    elif group == "forces":
        for N, d in cfg["forces"]:
            P = rng.standard_normal((N, d))
            for b in cfg["force_backends"]:
                t, F = _time(partial(interaction_force, P, "none", 1.0, 0.0, backend=b), RB,
                             pause)
                key = f"forces pairs/s N={N} d={d} {b}"
                m[key] = N * (N - 1) / t
                norms[key] = float(np.linalg.norm(F))
    else:
        raise SystemExit(f"--child: group must be one of {GROUPS}, got {group!r}")
    return out


# ------------------------------------------------------------------------------ the parent
def _git(repo: Path, *args: str) -> str:
    res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {res.stderr.strip()}")
    return res.stdout.strip()


def resolve_repo(path) -> Path:
    """The top folder of the git work tree holding ``path``; it must contain ``yatmath/``."""
    p = Path(path).resolve()
    if not p.is_dir():
        raise ValueError(f"--repo: {str(path)!r} is not a folder; expected a git work tree "
                         "holding yatmath/")
    try:
        top = Path(_git(p, "rev-parse", "--show-toplevel"))
    except RuntimeError as exc:
        raise ValueError(f"--repo: {str(path)!r} is not inside a git work tree ({exc}); "
                         "expected a git work tree holding yatmath/") from None
    if not (top / "yatmath" / "__init__.py").is_file():
        raise ValueError(f"--repo: {str(path)!r} (work tree {top}) has no yatmath/__init__.py; "
                         "expected the yatmath repository")
    return top


def resolve_base(repo: Path, rev: str) -> str:
    """The full hash of commit ``rev`` of ``repo``; ValueError naming --base otherwise."""
    if not rev or rev.startswith("-"):
        raise ValueError(f"--base: got {rev!r}; expected a revision of {repo} naming a commit")
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except RuntimeError:
        raise ValueError(f"--base: {rev!r} names no commit of {repo}; expected a revision "
                         f"naming a commit (the default is {DEFAULT_BASE}; a shallow clone "
                         "may lack it)") from None


def export_base(repo: Path, commit: str, dest: Path) -> Path:
    """``git archive COMMIT yatmath | tar -x -C dest``; returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(["git", "-C", str(repo), "archive", commit, "yatmath"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        tar.extractall(dest, filter="data")
    err = proc.stderr.read().decode()
    if proc.wait() != 0:
        raise RuntimeError(f"git archive {commit} yatmath failed: {err.strip()}")
    return dest


def write_adapters(repo: Path, tree: Path) -> list[dict]:
    """Supply what the exported ``tree`` calls but lacks (``ADAPTERS``): each missing function's
    source, verbatim from the commit that added it, goes into ``tree/ADAPTER_MODULE.py``, whose
    globals are those of the module that lacks it.  Returns what was supplied (empty when the
    tree needs nothing); the child installs them before timing."""
    import ast

    done, parts = [], []
    for mod, path, caller, call, attr, commit in ADAPTERS:
        src = (tree / path).read_text()
        if call not in (tree / caller).read_text() or f"def {attr}(" in src:
            continue
        later = _git(repo, "show", f"{commit}:{path}")
        fn = next((n for n in ast.parse(later).body
                   if isinstance(n, ast.FunctionDef) and n.name == attr), None)
        if fn is None:
            raise RuntimeError(f"{commit}:{path} has no {attr}; the adapter for {caller} "
                               "needs another source commit")
        lines = later.splitlines()
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        parts.append(f"import {mod} as _lacking\n"
                     "globals().update({k: v for k, v in vars(_lacking).items() "
                     "if not k.startswith('__')})\n\n\n"
                     + "\n".join(lines[first - 1:fn.end_lineno]) + "\n")
        done.append({"module": mod, "function": attr, "called_in": caller,
                     "source_commit": _git(repo, "rev-parse", f"{commit}^{{commit}}")})
    if parts:
        (tree / f"{ADAPTER_MODULE}.py").write_text(
            '"""Written by benchmarks/bench_before_after.py (ADAPTERS)."""\n' + "\n".join(parts))
    return done


def snapshot_after(repo: Path, dest: Path) -> Path:
    """A copy of the working tree's ``yatmath`` (no bytecode) in ``dest``; returns ``dest``."""
    shutil.copytree(repo / "yatmath", dest / "yatmath",
                    ignore=shutil.ignore_patterns("__pycache__", "*.py[cod]"))
    return dest


def child_env(tree: Path, numba_cache: Path, base_env=None) -> dict:
    """The environment of a child timing ``tree``: ``base_env`` (default ``os.environ``, not
    modified) with ``PYTHONPATH`` led by ``tree`` and ``NUMBA_CACHE_DIR`` at ``numba_cache``."""
    env = dict(os.environ if base_env is None else base_env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    env["NUMBA_CACHE_DIR"] = str(numba_cache)
    return env


def run_child(tree: Path, numba_cache: Path, group: str, cfg: dict, cwd: Path) -> dict:
    """One fresh interpreter running :func:`child`; checks it imported ``tree``'s yatmath."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", group, json.dumps(cfg)]
    # cwd: a folder without yatmath/, so that only PYTHONPATH decides which yatmath is imported
    res = subprocess.run(cmd, env=child_env(tree, numba_cache), cwd=cwd, capture_output=True,
                         text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"child ({group}, tree {tree}) failed with exit {res.returncode}:\n"
                           f"{res.stderr[-4000:]}")
    rec = json.loads(res.stdout.strip().splitlines()[-1])
    if not Path(rec["yatmath"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"child ({group}) imported {rec['yatmath']}, not the yatmath of {tree}")
    return rec


#: Fewest rounds for a verdict: all of 3 paired rounds on one side by chance has p = 1/4.
MIN_VERDICT_ROUNDS = 3


def summarize(rounds: list[dict]) -> dict:
    """Per measure: medians and min-max over rounds of each revision, and the per-round
    after/before ratios (median, min, max), with which direction is better and the verdict
    (``faster``/``slower`` when every round's ratio is on that side of 1, else ``within noise``;
    ``n/a`` below ``MIN_VERDICT_ROUNDS`` rounds).

    ``rounds``: ``[{"before": {measure: value}, "after": {measure: value}, ...}, ...]`` (other
    keys of a round, e.g. ``load``, are ignored).
    """
    out = {}
    for key in rounds[0]["before"]:
        better = "higher" if "pairs/s" in key else "lower"
        row = {"better": better, "control": "(control)" in key}
        for rev in REVISIONS:
            xs = [r[rev][key] for r in rounds]
            row[rev] = {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
                        "values": xs}
        ratios = [r["after"][key] / r["before"][key] for r in rounds]
        row["ratio"] = {"median": statistics.median(ratios), "min": min(ratios),
                        "max": max(ratios), "values": ratios}
        good = [(q > 1) if better == "higher" else (q < 1) for q in ratios]
        bad = [(q < 1) if better == "higher" else (q > 1) for q in ratios]
        row["verdict"] = (f"n/a ({len(rounds)} round{'s' * (len(rounds) > 1)})"
                          if len(rounds) < MIN_VERDICT_ROUNDS else "faster" if all(good)
                          else "slower" if all(bad) else "within noise")
        out[key] = row
    return out


def _fmt(x: float, key: str) -> str:
    return f"{x:.3g}" if "pairs/s" in key else f"{x:.3f}" if "/GEMM" in key else f"{x:.2f}"


def table(summary: dict, n_rounds: int) -> str:
    lines = [(f"# median over {n_rounds} round(s) [min-max]; after/before = median of per-round "
              "ratios [min-max]; 'better' says which direction of the measure is good"),
             (f"{'measure':<40} {'better':>6}  {'before':>26}  {'after':>26}  "
              f"{'after/before':>22}  verdict")]
    for key, row in summary.items():
        cells = [f"{_fmt(row[r]['median'], key)} [{_fmt(row[r]['min'], key)}-"
                 f"{_fmt(row[r]['max'], key)}]" for r in REVISIONS]
        q = row["ratio"]
        ratio = f"{q['median']:.3f} [{q['min']:.3f}-{q['max']:.3f}]"
        verdict = "control (NumPy in both)" if row["control"] else row["verdict"]
        lines.append(f"{key:<40} {row['better']:>6}  {cells[0]:>26}  {cells[1]:>26}  "
                     f"{ratio:>22}  {verdict}")
    return "\n".join(lines)


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"got {text!r}; expected an integer >= 1")
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default=DEFAULT_BASE, help=f"the 'before' commit (default "
                    f"{DEFAULT_BASE}, the last change of yatmath before its operations became "
                    "generic)")
    ap.add_argument("--repo", default=None, help="the repository whose working tree is 'after' "
                    "(default: the one holding this script)")
    ap.add_argument("--rounds", type=positive_int, default=None,
                    help="ABAB rounds (default 5; 1 with --quick)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke run, < 1 minute)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write the results here "
                    "(atomically)")
    ap.add_argument("--child", nargs=2, metavar=("GROUP", "CONFIG"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], json.loads(args.child[1]))))
        return 0
    try:
        repo = resolve_repo(args.repo if args.repo is not None else Path(__file__).parent)
        base = resolve_base(repo, args.base)
    except ValueError as exc:
        ap.error(str(exc))
    cfg = QUICK if args.quick else FULL
    n_rounds = args.rounds or (1 if args.quick else 5)
    head = _git(repo, "rev-parse", "HEAD")
    dirty = _git(repo, "diff", "--shortstat", "HEAD", "--", "yatmath") or "clean"
    print(f"# before: {args.base} = {base[:12]} (git archive)\n"
          f"# after:  working tree of {repo} (HEAD {head[:12]}, yatmath vs HEAD: {dirty})")
    rounds = []
    with tempfile.TemporaryDirectory(prefix="bench_before_after_") as tmp:
        tmp = Path(tmp)
        trees = {"before": export_base(repo, base, tmp / "before"),
                 "after": snapshot_after(repo, tmp / "after")}
        adapters = write_adapters(repo, trees["before"])
        for a in adapters:
            print(f"# adapter (before only): {args.base}'s {a['called_in']} calls "
                  f"{a['module']}.{a['function']}, which it lacks; taken verbatim from "
                  f"{a['source_commit'][:12]}")
        cfgs = {"before": dict(cfg, adapters=[[a["module"], a["function"]] for a in adapters]),
                "after": cfg}
        caches = {rev: tmp / f"numba_cache_{rev}" for rev in REVISIONS}
        work = tmp / "cwd"
        work.mkdir()
        meta = {}
        for r in range(n_rounds):
            rec = {rev: {} for rev in REVISIONS}
            rec["load"] = {rev: [] for rev in REVISIONS}
            for group in GROUPS:
                for rev in REVISIONS:                       # ABAB...
                    res = run_child(trees[rev], caches[rev], group, cfgs[rev], work)
                    rec[rev].update(res["measures"])
                    rec["load"][rev].append(res["load"])
                    meta.setdefault(rev, {k: v for k, v in res.items()
                                          if k not in ("measures", "load")})
                    meta[rev].setdefault("norms", {}).update(res["norms"])
            rounds.append(rec)
            print(f"# round {r + 1}/{n_rounds} done", flush=True)
    summary = summarize(rounds)
    print(table(summary, n_rounds))
    agree = max(abs(meta["after"]["norms"][k] - meta["before"]["norms"][k])
                / abs(meta["before"]["norms"][k]) for k in meta["before"]["norms"])
    print(f"# results agree across revisions: max relative difference of the result norms "
          f"{agree:.1e}")
    cpus = os.cpu_count()
    for rev in REVISIONS:
        loads = [x for r in rounds for x in r["load"][rev]]
        busy = max(loads) > cpus
        print(f"# {rev}: 1-minute load average as its children started: median "
              f"{statistics.median(loads):.2f} [{min(loads):.2f}-{max(loads):.2f}] on {cpus} CPUs"
              + (" (above the CPU count: other processes shared the cores, times stretch)"
                 if busy else ""))
    for rev in REVISIONS:
        print(f"# {rev}: numba threads {meta[rev]['numba_threads']}, thread variables after "
              f"import: { {k: v for k, v in meta[rev]['env_after_import'].items() if v} }")
    if args.json:
        from yatmath.files import atomic_write

        doc = {"base": {"rev": args.base, "commit": base, "adapters": adapters},
               "after": {"repo": str(repo), "head": head, "yatmath_vs_head": dirty},
               "config": cfg, "n_rounds": n_rounds, "rounds": rounds, "summary": summary,
               "max_rel_diff_result_norms": agree,
               "children": meta}
        atomic_write({args.json: json.dumps(doc, indent=1, allow_nan=False) + "\n"})
        print(f"# wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
