"""``yatmath figures``: regenerate the papers' figures (PNG, PDF and a JSON sidecar each).

    yatmath figures [--only GLOB[,GLOB...]] [--out DIR] [--seed N] [--force]
    yatmath figures --list     every registered figure, its paper reference, and whether it is
                               reproduced, a substitute, or not reproduced (with the reason)

Exit status: 0 when every selected figure rendered; 1 when one failed (the others are still
written); 2 for a usage error, found before any figure is computed (``--only`` matching no figure,
an ``--out`` that cannot be written or is in use by another run, one that holds the figures of a
run with another seed or an unusable ``figures.meta.json`` -- ``--force`` removes that run's
recorded figures first -- or one holding a file this run would replace that no run recorded);
130 when interrupted (the figures finished before are complete, each written atomically, and
listed in ``figures.meta.json``).

``figures.meta.json`` records the run (its seed) and the figures it wrote; a name is recorded
before its files are written, so a killed run leaves no file unrecorded.  The command deletes or
replaces only the files so recorded, NAME.png, NAME.pdf and NAME.json plainly inside ``--out``:
a recorded name holding a separator, ``..`` or an absolute path is never followed.  One run at a
time per folder (``--out/.yatmath.lock``); temporary files a killed run left are removed.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
import time
import traceback
from pathlib import Path

from yatmath import cli_args

DEFAULT_OUT = "yatmath-figures"
#: the record of the run whose figures a folder holds: its seed and the figures written
FIGURES_META = "figures.meta.json"
#: the files of figure NAME: NAME.png, NAME.pdf and its sidecar NAME.json
EXTS = ("png", "pdf", "json")


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
                   help="replace the figures of a run with another seed (or with an unusable "
                        "figures.meta.json): remove its recorded files from --out first")
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
        out = cli_args.writable_dir(args.out, "--out")
        with cli_args.lock_out(out, "--out", "yatmath figures"):
            return _render_all(args, figs, names, out)
    except cli_args.UsageError as exc:
        print(f"yatmath figures: {exc}", file=sys.stderr)
        return cli_args.EXIT_USAGE


def _warn(msg: str) -> None:
    print(f"yatmath figures: warning: {msg}", file=sys.stderr)


def _files_of(name: str) -> list[str]:
    return [f"{name}.{ext}" for ext in EXTS]


def _render_all(args, figs, names, out: Path) -> int:
    from yatmath.files import remove_stale_temps

    from .render import render

    # temporaries a killed run left (this run holds the folder's lock: none is a live run's)
    remove_stale_temps(out, {f for n in figs for f in _files_of(n)} | {FIGURES_META})
    todo = [n for n in names if figs[n].reproduced]
    run = _Record(out, args.seed)
    run.prepare(getattr(args, "force", False), todo)
    for n in names:
        if not figs[n].reproduced:
            print(f"  skip {n}: not reproduced ({figs[n].reason})", file=sys.stderr)
    failed, written = [], []
    try:
        for i, n in enumerate(todo, 1):
            t0 = time.perf_counter()
            run.record(n)   # before its files exist: a killed run leaves no file unrecorded
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
        run.finish(written)
        print(f"yatmath figures: interrupted; {len(written)} figure(s) complete in {out}"
              + (f" ({', '.join(written)})" if written else ""), file=sys.stderr)
        return cli_args.EXIT_INTERRUPTED
    run.finish(written)
    print(f"{len(todo) - len(failed)} figures written to {args.out}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


class _Record:
    """The folder's record of its run, ``figures.meta.json`` (seed and figure names): it decides
    what this run may delete (with ``--force``) or replace."""

    def __init__(self, out: Path, seed: int):
        self.out, self.seed = out, seed
        self.meta = out / FIGURES_META
        self.names: set[str] = set()   # the figures of this seed recorded here (earlier and ours)
        self.last: str | None = None   # the record's text as this run last saw or wrote it

    def _read(self):
        """``(seed, names, text, problem)`` of the record now in the folder (``text`` None and
        ``problem`` None: there is none)."""
        if not os.path.lexists(self.meta):
            return None, [], None, None
        if not cli_args.is_own_file(self.meta):
            return None, [], "", "it is not a plain file"
        try:
            text = self.meta.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return None, [], "", f"it cannot be read ({exc})"
        old, problem = cli_args.read_run_record(self.meta)
        if problem:
            return None, [], text, problem
        figs = old.get("figures", [])
        if not isinstance(figs, list):
            return None, [], text, f"its 'figures' is a {type(figs).__name__}, not a list"
        return old.get("run", old).get("seed"), figs, text, None

    def _plain(self, names) -> set[str]:
        keep = set()
        for n in names:
            if cli_args.plain_name(n):
                keep.add(n)
            else:
                _warn(f"{FIGURES_META} in {str(self.out)!r} names {n!r}, which is not a plain "
                      "figure name in --out; nothing is deleted or replaced for it")
        return keep

    def prepare(self, force: bool, todo: list[str]) -> None:
        """Before any work: the replace-guard; with ``force``, remove the previous run's own
        recorded files (and nothing else); refuse to replace a file that no run recorded."""
        seed, names, text, problem = self._read()
        if problem and not force:
            raise cli_args.UsageError(
                f"--out {str(self.out)!r} holds figures whose record {FIGURES_META} is unusable "
                f"({problem}), so they count as another run's; pass --force to replace them, or "
                "choose another --out")
        cli_args.check_replace(self.meta, {"seed": self.seed}, what="figures", force=force)
        if text is not None and not problem and seed == self.seed:
            self.names = self._plain(names)
        elif text is not None:           # another seed's, or unusable: only with --force
            for n in self._plain(names):
                cli_args.remove_recorded(self.out, _files_of(n), warn=_warn)
            cli_args.remove_recorded(self.out, [FIGURES_META], warn=_warn)
        strangers = [f for n in todo if n not in self.names for f in _files_of(n)
                     if os.path.lexists(self.out / f)]
        if strangers:
            raise cli_args.UsageError(
                f"--out {str(self.out)!r} holds {', '.join(strangers)}, which this run would "
                f"replace but no run recorded writing (not listed in {FIGURES_META} for seed "
                f"{self.seed}); move them away or choose another --out")
        self.last = self._read()[2]

    def _write(self, names: set[str]) -> None:
        from yatmath.files import atomic_write

        seed, _, text, problem = self._read()
        if text != self.last:            # the replace-guard again, at write time
            raise cli_args.UsageError(
                f"--out {str(self.out)!r}: {FIGURES_META} was changed by another process during "
                f"this run ({problem or f'now seed {seed!r}'}); stopped without replacing it")
        text = json.dumps({"run": {"seed": self.seed}, "figures": sorted(names)}, indent=1) + "\n"
        atomic_write({self.meta: text})
        self.last = text

    def record(self, name: str) -> None:
        """Record ``name`` before its files are written."""
        if name not in self.names:
            self._write(self.names | {name})

    def finish(self, written: list[str]) -> None:
        """The final record: this seed's earlier figures and those this run wrote (a figure that
        failed, recorded before it was tried, is dropped again)."""
        self.names |= set(written)
        text = json.dumps({"run": {"seed": self.seed}, "figures": sorted(self.names)}, indent=1) + "\n"
        if text != self.last:
            self._write(self.names)
