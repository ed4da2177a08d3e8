"""``yatmath figures``: regenerate the papers' figures (PNG, PDF and a JSON sidecar each).

    yatmath figures [--only GLOB[,GLOB...]] [--out DIR] [--seed N]
    yatmath figures --list     every registered figure, its paper reference, and whether it is
                               reproduced, a substitute, or not reproduced (with the reason)

Exit status: 0 when every selected figure rendered; 1 when one failed (the others are still
written); 2 for a usage error, found before any figure is computed (``--only`` matching no figure,
an ``--out`` that cannot be written, or one that holds the figures of a run with another seed --
``--force`` removes those first); 130 when interrupted (the figures finished before are complete,
each written atomically, and listed in ``figures.meta.json``).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
import traceback
from pathlib import Path

from yatmath import cli_args

DEFAULT_OUT = "yatmath-figures"
#: the record of the run whose figures a folder holds: its seed and the figures written
FIGURES_META = "figures.meta.json"


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``figures`` subcommand to an ``argparse`` subparsers object."""
    p = sub.add_parser("figures", help="regenerate the papers' figures",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", metavar="GLOB",
                   help="render only the figures whose name matches one of these comma-separated globs")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=cli_args.seed, default=0,
                   help="seed passed to every figure's data(), a non-negative integer (default 0)")
    p.add_argument("--force", action="store_true",
                   help="remove the figures of a run with another seed from --out before writing")
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

    try:
        out = _prepare_out(args.out, args.seed, getattr(args, "force", False))
    except cli_args.UsageError as exc:
        print(f"yatmath figures: {exc}", file=sys.stderr)
        return cli_args.EXIT_USAGE

    from .render import render

    failed, written = [], []
    todo = [n for n in names if figs[n].reproduced]
    for n in names:
        if not figs[n].reproduced:
            print(f"  skip {n}: not reproduced ({figs[n].reason})", file=sys.stderr)
    try:
        for i, n in enumerate(todo, 1):
            t0 = time.perf_counter()
            try:
                render(n, out, seed=args.seed)
                written.append(n)
                state = "ok"
            except Exception:  # noqa: BLE001 - reported, the others still render
                failed.append(n)
                state = "FAILED\n" + traceback.format_exc()
            print(f"[{i}/{len(todo)}] {n} ... {state} ({time.perf_counter() - t0:.1f} s)",
                  file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        _record_run(out, args.seed, written)
        print(f"yatmath figures: interrupted; {len(written)} figure(s) complete in {out}"
              + (f" ({', '.join(written)})" if written else ""), file=sys.stderr)
        return cli_args.EXIT_INTERRUPTED
    _record_run(out, args.seed, written)
    print(f"{len(todo) - len(failed)} figures written to {args.out}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _prepare_out(path, seed: int, force: bool) -> Path:
    """Check ``--out`` before any work; with ``force``, remove another seed's figures."""
    out = cli_args.writable_dir(path, "--out")
    meta = out / FIGURES_META
    cli_args.check_replace(meta, {"seed": seed}, what="figures", force=force)
    if force and meta.is_file():
        try:
            old = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if old.get("run", {}).get("seed") != seed:
            for name in old.get("figures", []):
                for ext in ("png", "pdf", "json"):
                    (out / f"{name}.{ext}").unlink(missing_ok=True)
            meta.unlink()
    return out


def _record_run(out: Path, seed: int, written: list[str]) -> None:
    """Add ``written`` to the folder's record of its run (seed and figure names), atomically."""
    from yatmath._atomic import atomic_write

    meta = out / FIGURES_META
    names = set(written)
    try:
        old = json.loads(meta.read_text(encoding="utf-8"))
        if old.get("run", {}).get("seed") == seed:
            names |= set(old.get("figures", []))
    except (OSError, ValueError):
        pass
    atomic_write({meta: json.dumps({"run": {"seed": seed}, "figures": sorted(names)},
                                   indent=1) + "\n"})
