"""``yatmath figures``: regenerate the papers' figures (PNG, PDF and a JSON sidecar each).

    yatmath figures [--only GLOB[,GLOB...]] [--out DIR] [--seed N]
    yatmath figures --list     every registered figure, its paper reference, and whether it is
                               reproduced, a substitute, or not reproduced (with the reason)

Exit status: 0 when every selected figure rendered; 1 when one failed (the others are still
written); 2 when ``--only`` matches no figure; 130 when interrupted.
"""
from __future__ import annotations

import argparse
import fnmatch
import sys
import time
import traceback

DEFAULT_OUT = "yatmath-figures"


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``figures`` subcommand to an ``argparse`` subparsers object."""
    p = sub.add_parser("figures", help="regenerate the papers' figures",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", metavar="GLOB",
                   help="render only the figures whose name matches one of these comma-separated globs")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=int, default=0, help="seed passed to every figure's data() (default 0)")
    p.add_argument("--list", action="store_true",
                   help="list the figures: paper reference and reproduced / substitute / not reproduced")
    p.set_defaults(func=cmd_figures)
    return p


def status(fig) -> str:
    """``reproduced``, ``substitute`` or ``not reproduced: REASON``."""
    if not fig.reproduced:
        return f"not reproduced: {fig.reason}"
    return "substitute" if fig.substitute else "reproduced"


def _select(figs: dict, only: str | None) -> list[str]:
    if only is None:
        return sorted(figs)
    pats = [p.strip() for p in only.split(",") if p.strip()]
    if not pats:
        raise ValueError(f"--only must hold at least one glob pattern, got {only!r}")
    names = sorted(n for n in figs if any(fnmatch.fnmatchcase(n, p) for p in pats))
    if not names:
        raise ValueError(f"--only {only!r} matches no registered figure")
    return names


def cmd_figures(args) -> int:
    from . import registry

    figs = registry.load_all()
    try:
        names = _select(figs, args.only)
    except ValueError as exc:
        print(f"yatmath figures: {exc}", file=sys.stderr)
        return 2
    if args.list:
        width = max((len(n) for n in names), default=0)
        pwidth = max((len(figs[n].paper) for n in names), default=0)
        for n in names:
            f = figs[n]
            print(f"{n:<{width}}  {f.paper:<{pwidth}}  {status(f)}  -- {f.title}")
        return 0

    from .render import render

    failed = []
    todo = [n for n in names if figs[n].reproduced]
    for n in names:
        if not figs[n].reproduced:
            print(f"  skip {n}: not reproduced ({figs[n].reason})", file=sys.stderr)
    try:
        for i, n in enumerate(todo, 1):
            t0 = time.perf_counter()
            try:
                render(n, args.out, seed=args.seed)
                state = "ok"
            except Exception:  # noqa: BLE001 - reported, the others still render
                failed.append(n)
                state = "FAILED\n" + traceback.format_exc()
            print(f"[{i}/{len(todo)}] {n} ... {state} ({time.perf_counter() - t0:.1f} s)",
                  file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("yatmath figures: interrupted", file=sys.stderr)
        return 130
    print(f"{len(todo) - len(failed)} figures written to {args.out}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
