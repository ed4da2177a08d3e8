"""Argument checks shared by every ``yatmath`` subcommand, done before any work starts.

Exit codes of the ``yatmath`` command: 0 done; 1 the work ran and something in it failed (a
crashed check, a figure that failed, a target that fails its bound); 2 a usage error, found
before any work (argparse's own convention); 3 the machine lacks what the command needs (no CUDA
device for ``bench gpu``); 130 interrupted before the output was written.

Seed rule (the same as the library's ``rng`` arguments, ``yatmath._validate.as_rng``): a seed is a
non-negative integer.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNAVAILABLE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UsageError(Exception):
    """A command-line argument that cannot work; reported with exit status 2 before any work."""


def seed(text: str) -> int:
    """argparse type of ``--seed``: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seed must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be a non-negative integer, got {value}")
    return value


def positive_int(flag: str):
    """argparse type factory: an integer >= 1, the message naming ``flag``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be an integer >= 1, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{flag} must be an integer >= 1, got {value}")
        return value

    parse.__name__ = "int"
    return parse


def writable_dir(path, flag: str = "--out") -> Path:
    """Check that ``path`` is, or can be created as, a folder this process can write; create
    nothing (the command creates it when it first writes).

    An existing folder is proved writable by creating and removing a temporary file in it; for a
    missing one, its nearest existing ancestor must be a writable folder.  Raises
    :class:`UsageError` naming ``flag`` for an empty path, a path that is a file, or a folder that
    cannot be written.
    """
    text = os.fspath(path) if path is not None else ""
    if not str(text).strip():
        raise UsageError(f"{flag} must name a folder, got an empty path")
    out = Path(text).expanduser()
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"{flag} {str(out)!r} is a file, not a folder")
        try:
            fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=out)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise UsageError(f"{flag} {str(out)!r} cannot be written: "
                             f"{exc.strerror or exc}") from None
        return out
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {str(out)!r} cannot be created: {str(parent)!r} is not a "
                         "writable folder")
    return out


def check_replace(existing_meta: Path, run: dict, *, what: str, force: bool, flag: str = "--out"):
    """Refuse (``UsageError``) to overwrite the output of a different run unless ``force``.

    ``existing_meta`` is the JSON file in which the earlier run recorded its identity; ``run`` is
    this run's identity (the keys compared: whatever ``run`` holds, e.g. level, seed, selection).
    A missing or unreadable earlier record is no conflict: there is nothing of value to lose.
    """
    if force or not existing_meta.is_file():
        return
    try:
        old = json.loads(existing_meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    old_run = old.get("run", old) if isinstance(old, dict) else {}
    diff = {k: (old_run.get(k), v) for k, v in run.items() if old_run.get(k) != v}
    if diff:
        said = "; ".join(f"{k}: {a!r} there, {b!r} now" for k, (a, b) in diff.items())
        raise UsageError(
            f"{flag} {str(existing_meta.parent)!r} already holds {what} of a different run ({said}); "
            f"pass --force to replace it, or choose another {flag}")
