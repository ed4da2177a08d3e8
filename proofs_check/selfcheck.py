"""Run some checks and audit their records: ``python -m proofs_check.selfcheck GLOB[,GLOB] [--level L]``.

For each selected claim it prints the verdict and the seconds, every rule its record breaks
(``Evidence.problems``), and whether each reproduction runs and gives the recorded number.
Exit status 1 when any record breaks a rule or any reproduction fails.  Check modules that fail
to import are reported and skipped, so one broken module does not hide the others.
"""
from __future__ import annotations

import argparse
import sys
import time

from . import registry, runner
from .report import walk
from .repro import run_repro


def audit(claim_id: str, *, level: str = "quick", seed: int = 0) -> tuple[str, float, list[str]]:
    """(verdict, seconds, problems) of one claim's check, reproductions included."""
    check = registry.REGISTRY[claim_id]
    t0 = time.perf_counter()
    with runner.single_threaded_blas():
        ev = check.func(registry.Context(level, seed, claim_id))
    seconds = time.perf_counter() - t0
    problems = list(ev.problems())
    if check.func.__module__ not in registry.module_for(claim_id):
        problems.append(f"lives in {check.func.__module__}, expected one of "
                        f"{registry.module_for(claim_id)}")
    for path, node in walk(ev.to_dict()):
        rep = node.get("repro")
        if rep:
            try:
                value, ok = run_repro(rep)
            except Exception as exc:  # noqa: BLE001 - reported
                problems.append(f"{path}: repro raised {type(exc).__name__}: {exc}")
                continue
            if not ok:
                problems.append(f"{path}: repro gave {value!r}, recorded {rep['expected']!r}")
    return ev.verdict, seconds, problems


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m proofs_check.selfcheck", description=__doc__)
    p.add_argument("only", help="comma-separated globs of claim ids")
    p.add_argument("--level", choices=registry.LEVELS, default="quick")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for mod, tb in runner.load_checks().items():
        print(f"!! {mod} failed to import: {tb.strip().splitlines()[-1]}", file=sys.stderr)
    checks, unchecked = runner.select(args.only)
    bad = 0
    total = 0.0
    for c in checks:
        try:
            verdict, sec, problems = audit(c.id, level=args.level, seed=args.seed)
        except Exception as exc:  # noqa: BLE001
            verdict, sec, problems = "CRASHED", 0.0, [f"{type(exc).__name__}: {exc}"]
        total += sec
        print(f"{c.id:<50} {verdict:<16} {sec:7.1f} s")
        for pr in problems:
            print(f"    !! {pr}")
        bad += bool(problems)
    for cid in unchecked:
        print(f"{cid:<50} (no check registered)")
    print(f"{len(checks)} checks, {bad} with problems, {len(unchecked)} unchecked, {total:.1f} s")
    return 1 if bad or unchecked else 0


if __name__ == "__main__":
    sys.exit(main())
