"""``yatmath check``: run the claim checks and write the ledger.

    yatmath check [--level quick|full] [--only GLOB[,GLOB...]] [--out DIR] [--seed N]
                  [--workers N | --scheduler ADDRESS]
    yatmath check --explain ID      the claim, the method, and (running its check) the evidence
                                    and the one-line reproduction
    yatmath check --list            the ids with their method

Exit status: 0 when every selected check ran, whatever the verdicts; 1 when a check crashed (or a
check module failed to import) -- the ledger is still written; 2 for a usage error, found before
any check runs (an ``--only`` that matches nothing, an unknown ``--explain`` id, an ``--out`` that
cannot be written, is in use by another run, or holds the ledger of a different run or one whose
``ledger.meta.json`` is missing or unusable -- ``--force`` replaces it -- or a plot in ``plots/``
that no run recorded, an unreachable scheduler), or found again just before writing (another
run's ledger appeared meanwhile: nothing is written); 130 when interrupted before the ledger was
written (none is written).  A Ctrl-C that lands after the ledger was written says so, and the
exit status is that of the run.

``--force`` replaces the ledger in ``--out``: its three files, and the evidence plots its
``ledger.meta.json`` records (plain names in ``plots/``; nothing else is removed).  One run at a
time per folder (``--out/.yatmath.lock``); a killed run's temporary files are removed by the next.
A cache entry that is not a valid record of its claim is reported and recomputed.

On a cluster (``yatmath.sweep``): ``--workers N`` runs the checks on a Dask LocalCluster of N
single-threaded worker processes started for the run and closed after it; ``--scheduler ADDRESS``
on an existing Dask cluster (``tcp://host:8786``).  The ledger is the one the in-process run
writes for the same seed, apart from timings; a check whose worker dies is re-run.
"""
from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import re
import os
import sys
import time
from pathlib import Path

from yatmath import cli_args

DEFAULT_OUT = "yatmath-ledger"


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to an ``argparse`` subparsers object."""
    from .registry import LEVELS

    p = sub.add_parser("check", help="check the papers' claims and write the ledger",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--level", choices=LEVELS, default="quick",
                   help="budget: quick (minutes on 2 cores) or full (larger sweeps); default quick")
    p.add_argument("--only", metavar="GLOB",
                   help="run only the ids matching one of these comma-separated globs, e.g. 'yat.*'")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"output folder for ledger.json and LEDGER.md (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=cli_args.seed, default=0,
                   help="run seed, a non-negative integer (default 0)")
    p.add_argument("--force", action="store_true",
                   help="replace a ledger of a different run (level, seed or --only) in --out")
    ex = p.add_mutually_exclusive_group()
    ex.add_argument("--workers", type=cli_args.positive_int("--workers"), metavar="N",
                    help="run the checks on a local Dask cluster of N worker processes")
    ex.add_argument("--scheduler", metavar="ADDRESS",
                    help="run the checks on the Dask cluster at ADDRESS (e.g. tcp://host:8786)")
    p.add_argument("--fresh", action="store_true",
                   help="ignore the cache of finished checks (DIR/.cache) and run every check again")
    p.add_argument("--html", action="store_true",
                   help="after the ledger, build the static site DIR/site (as `yatmath report DIR`)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--explain", metavar="ID", help="explain one claim: statement, method, evidence")
    g.add_argument("--list", action="store_true", help="list the claim ids with their method")
    p.set_defaults(func=cmd_check)
    return p


def _err(msg: str):
    print(f"yatmath check: {msg}", file=sys.stderr)


def _report_import_errors(errors: dict[str, str]):
    for mod, tb in errors.items():
        last = tb.strip().splitlines()[-1] if tb.strip() else ""
        _err(f"check module {mod} failed to import: {last}")


def cmd_check(args) -> int:
    state: dict = {}
    args._state = state  # _run records here what it has written, for a late Ctrl-C
    try:
        return _cmd_check(args)
    except KeyboardInterrupt:
        if "written" in state:
            _err("interrupted after the ledger was written: "
                 + ", ".join(str(p) for p in state["written"]) + " are complete"
                 + (f"; {state['unfinished']}" if "unfinished" in state else ""))
            if "unfinished" in state:
                return cli_args.EXIT_INTERRUPTED
            return state.get("status", cli_args.EXIT_OK)
        _err("interrupted; no ledger written")
        return cli_args.EXIT_INTERRUPTED
    except cli_args.UsageError as exc:
        _err(str(exc))
        return cli_args.EXIT_USAGE


def _cmd_check(args) -> int:
    from . import runner

    import_errors = runner.load_checks()
    _report_import_errors(import_errors)
    if args.explain:
        return _explain(args.explain, level=args.level, seed=args.seed)
    try:
        checks, unchecked = runner.select(args.only)
    except ValueError as exc:
        _err(str(exc))
        return 2
    if args.list:
        return _list(checks, unchecked)
    out = cli_args.writable_dir(args.out, "--out")
    with cli_args.lock_out(out, "--out", "yatmath check"):
        folder = LedgerFolder(out, {"level": args.level, "seed": args.seed, "only": args.only},
                              force=getattr(args, "force", False))
        folder.prepare([c.id for c in checks])
        return _run(args, checks, unchecked, import_errors, folder)


class LedgerFolder:
    """The ledger folder ``--out`` of one run: what it may replace and what it may remove.

    The ledger is ledger.json, ledger.meta.json and LEDGER.md, and the evidence plots in
    ``plots/`` that ``ledger.meta.json`` records (``files.plots``; for a ledger written before
    that record existed, the plots its ledger.json names).  A run replaces a ledger of the same
    run (level, seed, ``--only``); another run's, or one whose ledger.meta.json is missing or
    unusable, only with ``--force``.  It removes the previous run's recorded plots that it does not
    write again -- plain names inside ``plots/``, never a path -- and never replaces a plot that no
    run recorded.  The guard is checked before any work and again just before writing.
    """

    def __init__(self, out: Path, run: dict, *, force: bool):
        self.out, self.run, self.force = Path(out), run, force
        self.plots = self.out / _report().PLOTS
        self.seen = None

    def _state(self) -> dict:
        """The ledger now in the folder: ``exists``, ``problem`` (a reason it counts as another
        run's), ``recorded`` (plot names it may remove) and ``snapshot`` (to notice a change)."""
        R = _report()
        meta_path = self.out / R.LEDGER_META
        old, problem = cli_args.read_run_record(meta_path)
        if os.path.lexists(meta_path) and not cli_args.is_own_file(meta_path):
            old, problem = None, "it is not a plain file"
        exists = any(os.path.lexists(self.out / f) for f in (R.LEDGER_JSON, R.LEDGER_MD, R.LEDGER_META))
        if old is None and problem is None and exists:
            problem = f"there is no {R.LEDGER_META} recording its run"
        recorded = None
        if old is not None:
            files = old.get("files")
            if isinstance(files, dict) and isinstance(files.get("plots"), list):
                recorded = files["plots"]
            elif files is not None:
                problem = "its 'files' record is not {'plots': [names]}"
        if recorded is None:   # an older ledger (or an unusable record): the plots ledger.json names
            recorded = self._plots_of_ledger_json()
        try:
            snapshot = (meta_path.read_bytes() if cli_args.is_own_file(meta_path) else None,
                        tuple(os.path.lexists(self.out / f) for f in (R.LEDGER_JSON, R.LEDGER_MD)))
        except OSError:
            snapshot = None
        return {"old": old, "exists": exists, "problem": problem, "snapshot": snapshot,
                "recorded": {n for n in recorded if cli_args.plain_name(n)},
                "unplain": [n for n in recorded if not cli_args.plain_name(n)]}

    def _plots_of_ledger_json(self) -> list[str]:
        R = _report()
        try:
            recs = json.loads((self.out / R.LEDGER_JSON).read_text(encoding="utf-8"))
            return [n for r in recs if isinstance(r, dict) and isinstance(r.get("id"), str)
                    for n, _ in R.plot_nodes(r)]
        except Exception:  # noqa: BLE001 - unreadable: it names no plot
            return []

    def _guard(self, st: dict, during: bool = False) -> None:
        """Refuse (``UsageError``) to replace another run's ledger without ``--force``."""
        if self.force or not st["exists"]:
            return
        said = (" (it changed during this run: the ledger was not written; the finished checks "
                "are in the cache)") if during else ""
        if st["problem"]:
            raise cli_args.UsageError(
                f"--out {str(self.out)!r} holds a ledger whose {_report().LEDGER_META} is unusable "
                f"({st['problem']}), so it counts as another run's{said}; pass --force to replace "
                "it, or choose another --out")
        try:
            cli_args.check_replace(self.out / _report().LEDGER_META, self.run, what="a ledger",
                                   force=False)
        except cli_args.UsageError as exc:
            raise cli_args.UsageError(f"{exc}{said}") from None

    def _strangers(self, st: dict, names) -> list[str]:
        """The plots among ``names`` that exist in plots/ but no run recorded writing."""
        return sorted(n for n in names if n not in st["recorded"]
                      and os.path.lexists(self.plots / n))

    def prepare(self, ids: list[str]) -> None:
        """Before any work: remove the temporaries of a killed run; the replace-guard; refuse a
        plots/ that is a link or holds a plot of these claims that no run recorded."""
        from yatmath.files import remove_stale_temps

        R = _report()
        remove_stale_temps(self.out, {R.LEDGER_JSON, R.LEDGER_META, R.LEDGER_MD})
        if os.path.islink(self.plots) or (os.path.lexists(self.plots) and not self.plots.is_dir()):
            raise cli_args.UsageError(f"--out {str(self.out)!r}: {R.PLOTS} is not a folder of its "
                                      "own (a link or a file); move it away or choose another --out")
        remove_stale_temps(self.plots)
        cache = self.out / ".cache"
        if cache.is_dir() and not cache.is_symlink():
            for sub in cache.iterdir():
                if sub.is_dir() and not sub.is_symlink():
                    remove_stale_temps(sub)
        st = self._state()
        self._guard(st)
        if os.path.isdir(self.plots):
            mine = [n for n in os.listdir(self.plots)
                    if any(n == f"{i}.png" or (n.startswith(f"{i}.") and n.endswith(".png"))
                           for i in ids)]
            strangers = self._strangers(st, mine)
            if strangers:
                raise cli_args.UsageError(
                    f"--out {str(self.out)!r}: {R.PLOTS}/ holds {', '.join(strangers)}, which this "
                    "run may replace but no run recorded writing; move them away or choose "
                    "another --out")
        self.seen = st

    def write(self, records, meta, unchecked) -> list[Path]:
        """Write the ledger (atomically, as one group), then remove the previous run's recorded
        plots this run did not write again."""
        R = _report()
        st = self._state()
        if st["snapshot"] != self.seen["snapshot"]:   # changed during the run: guard again
            self._guard(st, during=True)
        new = R.plot_names(records)
        strangers = self._strangers(st, new)
        if strangers:
            raise cli_args.UsageError(
                f"--out {str(self.out)!r}: {R.PLOTS}/ now holds {', '.join(strangers)}, which no "
                "run recorded writing; the ledger was not written (the finished checks are in "
                "the cache: run again with another --out)")
        paths = R.write_ledger(self.out, records, meta, unchecked)
        for name in st["unplain"]:
            _err(f"warning: {R.LEDGER_META} in {str(self.out)!r} recorded the plot {name!r}, "
                 "which is not a plain file name in plots/; left alone")
        cli_args.remove_recorded(self.plots, sorted(st["recorded"] - set(new)))
        return paths


def _report():
    from . import report

    return report


def _run(args, checks, unchecked, import_errors, folder: LedgerFolder) -> int:
    from . import report, runner
    from .verdicts import CRASHED

    from yatmath import sweep

    scheduler, workers = getattr(args, "scheduler", None), getattr(args, "workers", None)
    executor = sweep.executor_description(scheduler, workers)
    if scheduler is not None or workers is not None:
        _err(f"running {len(checks)} check(s) on {executor}")
    t0 = time.perf_counter()
    progress = runner.Progress(len(checks), sys.stderr)
    cache = None if getattr(args, "fresh", False) else runner.Cache(
        Path(args.out) / ".cache", warn=lambda msg: _err(f"warning: {msg}"))
    cached: list[str] = []
    try:
        records = runner.run(checks, level=args.level, seed=args.seed, progress=progress,
                             scheduler=scheduler, workers=workers, cache=cache, cached_ids=cached)
    except ImportError as exc:  # dask.distributed missing
        _err(str(exc))
        return 2
    except OSError as exc:  # scheduler unreachable (connection refused, timed out)
        _err(f"cannot run on {executor}: {type(exc).__name__}: {exc}")
        return 2
    meta = report.run_metadata(records, level=args.level, seed=args.seed, only=args.only,
                               seconds=time.perf_counter() - t0, unchecked=unchecked,
                               import_errors=import_errors)
    meta["run"]["executor"] = executor
    meta["run"]["cached"] = cached
    state = getattr(args, "_state", {})
    state["status"] = 1 if (meta["counts"].get(CRASHED, 0) or import_errors) else 0
    paths = folder.write(records, meta, unchecked)
    state["written"] = paths
    c = meta["counts"]
    summary = ", ".join(f"{n} {v}" for v, n in c.items() if n)
    print(f"{len(records)} claims checked ({summary or 'none'}); {len(unchecked)} not yet checked; "
          f"{meta['run']['total_seconds']:.1f} s")
    print("wrote " + ", ".join(str(p) for p in paths))
    html_ok = True
    if getattr(args, "html", False):
        from proofs_check.site.cli import site_after_check

        state["unfinished"] = f"the site {Path(args.out) / 'site'} (--html) was not built"
        html_ok = site_after_check(args.out)
        del state["unfinished"]
    crashed = c.get(CRASHED, 0)
    if crashed or import_errors:
        _err(f"{crashed} check(s) crashed, {len(import_errors)} check module(s) failed to import; "
             "see the ledger")
        return 1
    return 0 if html_ok else 1


def _list(checks, unchecked) -> int:
    from .catalogue import entries
    from .registry import is_pending

    rows = {c.id: c.method for c in checks}
    for cid in unchecked:
        rows[cid] = ("(not yet checked: pending family)" if is_pending(cid)
                     else "(no check registered)")
    order = [i for i in entries() if i in rows] + sorted(set(rows) - set(entries()))
    width = max((len(i) for i in order), default=0)
    for cid in order:
        print(f"{cid:<{width}}  {rows[cid]}")
    return 0


def _explain(claim_id: str, *, level: str, seed: int) -> int:
    from . import registry, runner
    from .catalogue import entries
    from .report import statement_of
    from .verdicts import CRASHED

    cat = entries()
    if claim_id not in cat and claim_id not in registry.REGISTRY:
        near = difflib.get_close_matches(claim_id, list(cat), n=3)
        _err(f"unknown claim id {claim_id!r}" + (f"; did you mean {', '.join(near)}?" if near else ""))
        return 2
    e = cat.get(claim_id)
    print(claim_id)
    if e:
        print(f"Sources:   {e.sources}")
        print(f"Statement: {statement_of(e)}")
        print("\nCatalogue entry:")
        for line in e.text.splitlines():
            print(f"  {line}")
    check = registry.REGISTRY.get(claim_id)
    if check is None:
        why = ("its family is pending (built by a later issue)" if registry.is_pending(claim_id)
               else "its check is missing")
        print(f"\nNo check is registered for {claim_id}: {why}.")
        return 0
    print(f"\nMethod: {check.method}")
    print(f"Running the check (level {level}, seed {seed}) ...", flush=True)
    rec = runner.run_one(check, level=level, seed=seed)
    print(f"Verdict: {rec['verdict']}  ({rec['seconds']:.2f} s)")
    if rec["verdict"] == CRASHED:
        print(rec["error"]["traceback"])
        return 1
    _print_reading(rec)
    print("Evidence:")
    _print_items(rec["evidence"])
    _print_thresholds(rec)
    if rec["counterexample"] is not None:
        print("Counterexample (exact values):")
        _print_items(rec["counterexample"])
    _print_parts(rec, "")
    if rec["notes"]:
        print(f"Notes: {rec['notes']}")
    if rec["warnings"]:
        print("Warnings: " + "; ".join(rec["warnings"]))
    if rec.get("repro"):
        print(f"Reproduce: {format_repro(rec['repro'])}")
    elif _has_repro(rec):
        print("Reproduce: see the reproductions of the parts and readings above")
    else:
        print("Reproduce: (the check gave no reproduction)")
    return 0


def format_repro(repro) -> str:
    """A reproduction as the Python a reader pastes into a fresh interpreter (the imports of every
    ``yatmath`` module the expression names, the bindings, then the expression)."""
    if not repro:
        return ""
    mods = ["numpy as np", "math", "yatmath"]
    named = re.findall(r"\b(?:yatmath|proofs_check)(?:\.[A-Za-z_]\w*)+", repro["expr"])
    for dotted in sorted(set(named)):
        parts = dotted.split(".")
        for k in range(len(parts), 1, -1):          # the longest prefix that is a module
            name = ".".join(parts[:k])
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if found:
                if name not in mods:
                    mods.append(name)
                break
    lines = ["import " + ", ".join(mods)]
    lines += [f"{k} = {json.dumps(v)}" for k, v in (repro.get("bindings") or {}).items()]
    lines.append(f"{repro['expr']}   # expected {json.dumps(repro['expected'])} "
                 f"(rtol {repro.get('rtol')}, atol {repro.get('atol')})")
    return "\n".join(lines)


def _print_reading(rec, pad=""):
    r = rec.get("reading")
    if r:
        print(f"{pad}Operative reading: {r['text']}")
        print(f"{pad}  fixed by: {r['passage']}")
    sc = rec.get("scope")
    if sc:
        print(f"{pad}Scope: {sc['kind']}{' (universal claim)' if sc.get('universal') else ''}: "
              f"{sc['covered']}")
    for b in rec.get("bounds") or []:
        print(f"{pad}Bound {b['name']}: claimed {b['claimed']}, tight {b['tight']} "
              f"(a {b['better']} value is stronger; rtol {b['rtol']}): {b['how']}")
    tried = rec.get("tried")
    if tried:
        print(f"{pad}Tried before giving up (rule 5):")
        for k, what in (("printed", "printed numbers compared"), ("search", "search"),
                        ("budget", "budget")):
            print(f"{pad}  {what}: {tried[k]}")
    for name, o in (rec.get("other_readings") or {}).items():
        rr = o.get("reading") or {}
        print(f"{pad}Other reading {name}: {o['verdict']}: {rr.get('text', '')}")
        print(f"{pad}  passage: {rr.get('passage', '')}")
        _print_node_details(o, pad + "  ")


def _print_thresholds(rec, pad=""):
    for t in rec.get("thresholds") or []:
        print(f"{pad}Threshold {t['name']}: {t['value']} ({t['kind']}: {t['source']}); "
              f"measured {t['measured']}, flips at {t['flip']}")


def _has_repro(node) -> bool:
    """Whether a part or reading anywhere under ``node`` carries a reproduction."""
    subs = list((node.get("parts") or {}).values()) + list((node.get("other_readings") or {}).values())
    return any(bool(n.get("repro")) or _has_repro(n) for n in subs)


def _print_node_details(node, pad):
    """A part's or another reading's evidence, thresholds, counterexample, reproduction, notes
    and parts (each of them carries the same record as the claim)."""
    if node.get("evidence"):
        print(f"{pad}evidence: " + json.dumps(node["evidence"], ensure_ascii=False)[:300])
    _print_thresholds(node, pad)
    if node.get("counterexample") is not None:
        print(f"{pad}counterexample: {json.dumps(node['counterexample'], ensure_ascii=False)}")
    if node.get("repro"):
        print(f"{pad}reproduce:\n" + "\n".join(f"{pad}  {ln}" for ln in
                                               format_repro(node["repro"]).splitlines()))
    if node.get("notes"):
        print(f"{pad}notes: {node['notes']}")
    _print_parts(node, pad)


def _print_parts(rec, pad):
    for name, part in (rec.get("parts") or {}).items():
        print(f"{pad}Part {name}: {part['verdict']}")
        _print_reading(part, pad + "  ")
        _print_node_details(part, pad + "  ")


def _print_items(obj, pad: str = "  "):
    """One ``key: value`` line per top-level item, values as compact JSON (exact numbers)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            print(f"{pad}{k}: {json.dumps(v, ensure_ascii=False)}")
    else:
        print(f"{pad}{json.dumps(obj, ensure_ascii=False)}")
