"""Run a selection of claim checks and collect one ledger record per check.

A record is a plain, JSON-ready dict::

    id, sources, statement        from claims.md
    verdict                        from the check's Evidence, or CRASHED when the check raised
    evidence, counterexample, repro, parts, notes
    method                         as registered
    seconds, seed, level           the run that produced the record
    warnings                       distinct warnings the check emitted (at most ``MAX_WARNINGS``)
    error                          None, or {type, message, traceback} for a crashed check
    versions                       package versions (every record carries the config it ran with)

A check that raises (or returns something that is not an ``Evidence``) is recorded as CRASHED with
its traceback and the run goes on.  ``KeyboardInterrupt`` is not caught: it stops the run, and
since nothing is written before the run ends, no partial ledger is left behind.

Distributed runs: ``run(..., scheduler=ADDRESS)`` or ``run(..., workers=N)`` send the checks
through ``yatmath.sweep`` to a Dask cluster (an existing one, or a LocalCluster of N worker
processes started for the run); records come back in catalogue order, progress is reported as
checks complete, a check whose worker dies is re-run (``retries``), and Ctrl-C cancels the
outstanding checks and propagates, so again nothing is written.  Each record's ``versions`` are
those of the process that ran it.

Determinism: each check runs with ``Context(level, seed, claim_id)`` (``ctx.rng(tag)`` is a
function of those alone) and, as a safety net for code that uses the global generators, with
``numpy.random`` and ``random`` seeded from (seed, claim id) and restored afterwards; the records of
two runs with the same seed therefore agree in everything but ``seconds``.
"""
from __future__ import annotations

import contextlib
import fnmatch
import functools
import hashlib
import json
import random
import shutil
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

# every check runs with BLAS on one thread: the checks' matrices are small, so on a loaded machine a
# threaded call waits far longer for its threads than it computes (a 120x120 SVD took 0.5-1 s with
# 2 threads under load, 1 ms with one), and one thread makes every summation order, hence every
# record, the same on any machine and in any Dask worker
from yatmath.sweep import single_threaded_blas

from . import registry
from . import verdicts as V
from .catalogue import entries

MAX_WARNINGS = 10


class RuleViolation(ValueError):
    """A check returned a record whose verdict does not follow the rules of claims.md."""


# --------------------------------------------------------------------------------------------
# selection


def parse_only(only: str | None) -> list[str]:
    """The glob patterns of ``--only`` (comma-separated); ``[]`` when ``only`` is None."""
    if only is None:
        return []
    if not isinstance(only, str):
        raise TypeError(f"only must be a string of comma-separated globs, got {type(only).__name__}")
    pats = [p.strip() for p in only.split(",") if p.strip()]
    if not pats:
        raise ValueError(f"only must hold at least one glob pattern, got {only!r}")
    return pats


def matches(claim_id: str, patterns: list[str]) -> bool:
    """True when ``claim_id`` matches one of ``patterns`` (fnmatch, case-sensitive); all match ``[]``."""
    return not patterns or any(fnmatch.fnmatchcase(claim_id, p) for p in patterns)


def load_checks() -> dict[str, str]:
    """Import every module of ``proofs_check.checks``; return ``{module: traceback}`` of failures.

    Unlike ``registry.load_all`` this goes on past a module that fails to import, so that one
    broken module does not stop the whole ledger: the caller records the failures, and the ids
    that module would have registered appear as having no check.
    """
    import importlib

    errors: dict[str, str] = {}
    for name in registry.check_module_names():
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - reported in the ledger
            errors[name] = traceback.format_exc()
    return errors


def select(only: str | None = None):
    """The registered checks and the unchecked catalogue ids matching ``only``, in catalogue order.

    Returns ``(checks, unchecked)``: ``checks`` is a list of ``registry.Check``; ``unchecked`` the
    ids of claims.md that match but have no registered check (pending families, or missing).
    Raises ValueError when ``only`` matches no id at all.
    """
    pats = parse_only(only)
    cat = entries()
    reg = registry.REGISTRY
    ids = list(cat) + sorted(set(reg) - set(cat))
    chosen = [i for i in ids if matches(i, pats)]
    if pats and not chosen:
        raise ValueError(f"only={only!r} matches no claim id of claims.md")
    return [reg[i] for i in chosen if i in reg], [i for i in chosen if i not in reg]


# --------------------------------------------------------------------------------------------
# running


def versions() -> dict[str, str | None]:
    """Versions of python and of the packages the checks use (None when not installed)."""
    import importlib.metadata
    import platform

    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("numpy", "scipy", "sympy", "numba", "mpmath", "matplotlib", "yatmath"):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def _seed32(seed: int, claim_id: str) -> int:
    h = hashlib.sha256(f"{seed}|{claim_id}|global".encode()).digest()
    return int.from_bytes(h[:4], "little")


@contextlib.contextmanager
def _seeded_globals(seed: int, claim_id: str):
    """Seed ``numpy.random`` and ``random`` from (seed, claim id); restore them afterwards."""
    np_state, py_state = np.random.get_state(), random.getstate()
    s = _seed32(seed, claim_id)
    np.random.seed(s)
    random.seed(s)
    try:
        yield
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)


def _entry_fields(claim_id: str) -> dict:
    from .report import statement_of

    e = entries().get(claim_id)
    return {"sources": e.sources if e else "", "statement": statement_of(e) if e else ""}


def run_one(check, *, level: str = "quick", seed: int = 0, _versions=None) -> dict:
    """Run one registered check and return its ledger record (never raises, except on Ctrl-C)."""
    ctx = registry.Context(level=level, seed=seed, claim_id=check.id)
    rec = {"id": check.id, **_entry_fields(check.id)}
    caught: list = []
    t0 = time.perf_counter()
    try:
        with _seeded_globals(seed, check.id), single_threaded_blas(), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = check.func(ctx)
        if not isinstance(ev, registry.Evidence):
            raise TypeError(f"check {check.id!r} returned {type(ev).__name__}, expected Evidence")
        if ev.verdict not in V.VERDICTS:  # changed after construction
            raise ValueError(f"check {check.id!r} returned verdict {ev.verdict!r}, "
                             f"expected one of {V.VERDICTS}")
        problems = ev.problems()
        if problems:
            raise RuleViolation(f"the record of {check.id!r} breaks the rules of claims.md: "
                                + "; ".join(problems))
        body, error = ev.to_dict(), None
        json.dumps(body, allow_nan=False)  # what cannot be written is the check's failure
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a crash is recorded, the run goes on
        body = {"verdict": V.CRASHED, "evidence": {}, "counterexample": None, "repro": "",
                "parts": {}, "notes": f"the check raised {type(exc).__name__}: {exc}"}
        error = {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()}
    seconds = time.perf_counter() - t0
    warn = []
    for w in caught:
        msg = f"{w.category.__name__}: {w.message}"
        if msg not in warn:
            warn.append(msg)
    rec.update(body)
    rec.update({"method": check.method, "seconds": round(seconds, 4), "seed": seed, "level": level,
                "warnings": warn[:MAX_WARNINGS], "error": error,
                "versions": _versions if _versions is not None else versions()})
    return rec


class Progress:
    """Progress of a run on ``stream``: one line per claim in a log, one updating line on a terminal.

    Log line: ``[12/74] yat.mercer_psd ... CONFIRMED (3.1 s)``.  On a terminal the same text is
    rewritten in place (crashes stay on their own line); ``close()`` ends the line.
    """

    def __init__(self, total: int, stream=None, tty: bool | None = None):
        self.total = int(total)
        self.stream = sys.stderr if stream is None else stream
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty = tty
        self.width = len(str(self.total))
        self._open = False

    def _prefix(self, i, claim_id):
        return f"[{i:>{self.width}}/{self.total}] {claim_id} ..."

    def _overwrite(self, text):
        cols = shutil.get_terminal_size((100, 20)).columns
        if len(text) >= cols:
            text = text[: max(cols - 2, 10)] + "…"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self._open = True

    def start(self, i: int, claim_id: str):
        if self.tty:
            self._overwrite(self._prefix(i, claim_id))

    def done(self, i: int, claim_id: str, verdict: str, seconds: float):
        text = f"{self._prefix(i, claim_id)} {verdict} ({seconds:.1f} s)"
        if self.tty:
            self._overwrite(text)
            if verdict == V.CRASHED:  # keep crashes visible
                self.stream.write("\n")
                self._open = False
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self):
        if self.tty and self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


# --------------------------------------------------------------------------------------------
# the cache of finished checks


def _tree_digest(paths) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.name).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _library_digest() -> str:
    """Digest of the sources every check depends on: yatmath, and proofs_check outside its checks
    (framework, shared helpers, the catalogue and the papers)."""
    import yatmath

    lib = Path(yatmath.__file__).parent
    pc = Path(__file__).parent
    files = [p for p in lib.rglob("*.py")]
    files += [p for p in pc.rglob("*") if p.is_file() and "checks" not in p.relative_to(pc).parts
              and p.suffix in (".py", ".md", ".txt")]
    return _tree_digest(files)


def cache_key(check, *, level: str, seed: int) -> str:
    """Key of a finished check: claim id, level, seed, the check's module source and the library."""
    import inspect

    src = Path(inspect.getsourcefile(check.func)).read_bytes()
    h = hashlib.sha256()
    for part in (check.id, level, str(seed), hashlib.sha256(src).hexdigest(), _library_digest()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


class Cache:
    """Finished records on disk, one JSON file per (claim id, key); written atomically.

    A record is stored as soon as its check finishes, so an interrupted run resumes where it
    stopped; a crashed check is never stored (it runs again).  A stored entry is used only when
    it is a valid record (``report.record_problems``) of that very claim, level and seed: anything
    else (unreadable, not JSON, another claim's record filed under this one) is reported through
    ``warn`` and the check runs again, its record replacing the bad entry.
    """

    def __init__(self, root, warn=None):
        self.root = Path(root)
        self.warn = warn if warn is not None else (
            lambda msg: print(f"warning: {msg}", file=sys.stderr))

    def _path(self, claim_id: str, key: str) -> Path:
        return self.root / claim_id / f"{key}.json"

    def get(self, claim_id: str, key: str, *, level: str | None = None,
            seed: int | None = None) -> dict | None:
        from .report import record_problems

        path = self._path(claim_id, key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            return self._bad(path, claim_id, f"it cannot be read ({exc})")
        try:
            rec = json.loads(text)
        except ValueError as exc:
            return self._bad(path, claim_id, f"it is not valid JSON ({exc})")
        problems = record_problems(rec)
        if problems:
            return self._bad(path, claim_id, problems[0])
        if rec["id"] != claim_id:
            return self._bad(path, claim_id, f"it holds the record of {rec['id']!r}")
        if rec["verdict"] == V.CRASHED:
            return self._bad(path, claim_id, "it holds a crashed check")
        for name, want in (("level", level), ("seed", seed)):
            if want is not None and rec.get(name) != want:
                return self._bad(path, claim_id, f"its {name} is {rec.get(name)!r}, not {want!r}")
        return rec

    def _bad(self, path: Path, claim_id: str, why: str) -> None:
        self.warn(f"the cached record {path} is not a valid record of {claim_id} ({why}); "
                  "running the check again")
        return None

    def put(self, claim_id: str, key: str, rec: dict) -> None:
        if rec.get("verdict") == V.CRASHED:
            return
        from yatmath.files import atomic_write

        with contextlib.suppress(OSError):
            atomic_write({self._path(claim_id, key): json.dumps(rec, allow_nan=False)})


def run(checks, *, level: str = "quick", seed: int = 0, progress: Progress | None = None,
        scheduler=None, workers: int | None = None, retries: int = 3, cache: Cache | None = None,
        cached_ids: list | None = None) -> list[dict]:
    """Run ``checks`` and return their records in the given order.  Ctrl-C propagates.

    In-process by default; on Dask when ``scheduler`` (an address or a ``distributed.Client``)
    or ``workers`` (a LocalCluster of that many processes) is given -- see ``yatmath.sweep``.
    The records are the same either way except for ``seconds`` (and ``versions``, which name the
    process that ran the check).
    """
    from yatmath import sweep

    if level not in registry.LEVELS:
        raise ValueError(f"level must be one of {registry.LEVELS}, got {level!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    all_checks = list(checks)
    records: list[dict | None] = [None] * len(all_checks)
    keys = [cache_key(c, level=level, seed=int(seed)) for c in all_checks] if cache else []
    if cache:
        for i, c in enumerate(all_checks):
            records[i] = cache.get(c.id, keys[i], level=level, seed=int(seed))
            if records[i] is not None and cached_ids is not None:
                cached_ids.append(c.id)
    todo = [i for i, r in enumerate(records) if r is None]
    done_before = len(all_checks) - len(todo)
    if progress and done_before:
        for n, i in enumerate(j for j, r in enumerate(records) if r is not None):
            progress.done(n + 1, all_checks[i].id, records[i]["verdict"] + " (cached)", 0.0)
    local = scheduler is None and workers is None
    vers = versions() if local else None   # on Dask, each worker reports its own
    jobs = [sweep.Job(run_one, (all_checks[i],), {"level": level, "seed": int(seed), "_versions": vers},
                      label=all_checks[i].id) for i in todo]

    def on_start(j):
        if progress:
            progress.start(done_before + j + 1, all_checks[todo[j]].id)

    def on_done(count, j, rec):
        i = todo[j]
        if cache:
            cache.put(all_checks[i].id, keys[i], rec)
        if progress:
            progress.done(done_before + count, all_checks[i].id, rec["verdict"], rec["seconds"])

    try:
        fresh = sweep.run(jobs, scheduler=scheduler, workers=workers, retries=retries,
                          on_start=on_start, on_done=on_done) if jobs else []
    finally:
        if progress:
            progress.close()
    for i, rec in zip(todo, fresh):
        records[i] = rec
    return records
