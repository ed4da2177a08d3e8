"""Argument checks shared by every ``yatmath`` subcommand, done before any work starts.

Exit codes of the ``yatmath`` command: 0 done; 1 the work ran and something in it failed (a
crashed check, a figure that failed, a target that fails its bound); 2 a usage error, found
before any work (argparse's own convention); 3 the machine lacks what the command needs (no CUDA
device for ``bench gpu``); 130 interrupted before the output was written.

Seed rule (the same as the library's ``rng`` arguments, ``yatmath._validate.as_rng``): a seed is a
non-negative integer.

Output folders (``--out`` of ``check`` and ``figures``): :func:`writable_dir` proves the folder
writable before any work; :func:`lock_out` holds it for one run (``flock``: a killed run's lock is
released by the system); :func:`check_replace` refuses another run's output without ``--force``
(an unreadable or malformed record counts as another run's); a run deletes or replaces only files
it recorded writing, plain names inside the folder (:func:`plain_name`, :func:`remove_recorded`).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable, Literal

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


def positive_int(flag: str) -> Callable[[str], int]:
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


def writable_dir(path: str | os.PathLike[str], flag: str = "--out") -> Path:
    """Make sure ``path`` is a folder this process can write, before any work starts.

    The folder is proved writable by creating and removing a probe file in it; a missing folder
    (and its missing parents) is created for the probe and removed again, so nothing is left
    (:func:`lock_out` creates it for the run).  Raises :class:`UsageError` naming ``flag``, never
    an ``OSError``, for an empty path, a path that is a file, a symbolic link to nothing (dangling,
    or a loop), a name too long for the file system, or a folder that cannot be created or written
    (under ``/proc`` or ``/sys``, read-only, no permission).
    """
    text = os.fspath(path) if path is not None else ""
    if not str(text).strip():
        raise UsageError(f"{flag} must name a folder, got an empty path")
    out = Path(text).expanduser()
    shown = repr(str(out))
    created: list[Path] = []
    try:
        if os.path.lexists(out) and not out.exists():   # exists() follows links: False for these
            raise UsageError(f"{flag} {shown} is a symbolic link to nothing (dangling, or a loop "
                             "of links); expected a folder")
        if out.exists() and not out.is_dir():
            raise UsageError(f"{flag} {shown} is a file, not a folder")
        missing, parent = [], out.absolute()
        while not os.path.lexists(parent):
            missing.append(parent)
            parent = parent.parent
        if not parent.exists():
            raise UsageError(f"{flag} {shown} cannot be created: {str(parent)!r} is a symbolic "
                             "link to nothing")
        if not parent.is_dir():
            raise UsageError(f"{flag} {shown} cannot be created: {str(parent)!r} is not a folder")
        for folder in reversed(missing):
            folder.mkdir()
            created.append(folder)
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        verb = "cannot be created" if created or not os.path.isdir(out) else "cannot be written"
        raise UsageError(f"{flag} {shown} {verb}: {exc.strerror or exc}; expected a folder this "
                         "process can write") from None
    finally:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
    return out


def read_run_record(existing_meta: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``(record, problem)`` of the JSON file in which an earlier run recorded its identity:
    ``(None, None)`` when there is none, ``(None, why)`` when it cannot be read or is not a JSON
    object, else ``(record, None)``."""
    try:
        if not os.path.lexists(existing_meta):
            return None, None
        text = Path(existing_meta).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"it cannot be read ({getattr(exc, 'strerror', None) or exc})"
    try:
        old = json.loads(text)
    except ValueError as exc:
        return None, f"it is not valid JSON ({exc})"
    if not isinstance(old, dict):
        return None, f"it holds a JSON {type(old).__name__}, not an object"
    run = old.get("run", old)
    if not isinstance(run, dict):
        return None, f"its 'run' is a {type(run).__name__}, not an object"
    return old, None


def check_replace(existing_meta: Path, run: dict[str, Any], *, what: str, force: bool,
                  flag: str = "--out") -> None:
    """Refuse (``UsageError``) to overwrite the output of a different run unless ``force``.

    ``existing_meta`` is the JSON file in which the earlier run recorded its identity; ``run`` is
    this run's identity (the keys compared: whatever ``run`` holds, e.g. level, seed, selection).
    A missing record is no conflict (nothing was recorded there); a record that cannot be read,
    is not valid JSON or not an object counts as another run's: it needs ``force`` too.
    """
    if force:
        return
    old, problem = read_run_record(existing_meta)
    if problem:
        raise UsageError(
            f"{flag} {str(existing_meta.parent)!r} holds {what} whose record "
            f"{existing_meta.name} is unusable ({problem}), so it counts as another run's; "
            f"pass --force to replace it, or choose another {flag}")
    if old is None:
        return
    old_run = old.get("run", old)
    diff = {k: (old_run.get(k), v) for k, v in run.items() if old_run.get(k) != v}
    if diff:
        said = "; ".join(f"{k}: {a!r} there, {b!r} now" for k, (a, b) in diff.items())
        raise UsageError(
            f"{flag} {str(existing_meta.parent)!r} already holds {what} of a different run ({said}); "
            f"pass --force to replace it, or choose another {flag}")


# --------------------------------------------------------------------------------------------
# what a run may delete or replace: only files it recorded writing, named plainly inside --out

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")


def plain_name(name: object) -> bool:
    """True for a plain file name a run may record writing: a non-empty string of letters, digits
    and ``_ . + -`` that does not start with a dot -- no separator, no ``..``, no absolute path,
    no hidden file (the lock, temporaries and the cache are hidden)."""
    return (isinstance(name, str) and len(name.encode("utf-8", "replace")) <= 255
            and bool(_PLAIN.match(name)) and ".." not in name)


def is_own_file(path: Path) -> bool:
    """True when ``path`` is a plain file (not a link, folder or device) that may be replaced."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def remove_recorded(folder: Path, names: Iterable[Any], *,
                    warn: Callable[[str], Any] | None = None) -> list[Path]:
    """Remove the files ``names`` that an earlier run recorded writing in ``folder``.

    A name that is not a :func:`plain_name` (``../victim``, ``/etc/x``, ``a/b``) is never joined
    to ``folder``: it is skipped, and ``warn(message)`` told.  A name that is a link or a folder
    is left as it is (the run wrote plain files).  Returns the paths removed.
    """
    removed = []
    for name in names:
        if not plain_name(name):
            if warn:
                warn(f"{str(folder)!r}: the record names {name!r}, which is not a plain file name "
                     "in this folder; left alone")
            continue
        path = Path(folder) / name
        if not is_own_file(path):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
            removed.append(path)
    return removed


# --------------------------------------------------------------------------------------------
# one run at a time per output folder

LOCK_NAME = ".yatmath.lock"


class FolderLock:
    """An exclusive lock on an output folder for the length of one run (``fcntl.flock`` on
    ``FOLDER/.yatmath.lock``, which records the holder's pid and command).

    The operating system releases the lock when its process ends, killed or not, so a killed
    run never blocks the next one.  The lock file is removed when the run ends normally, and so
    are the folders the lock created when the run left them empty (a run that wrote nothing
    leaves nothing).
    """

    def __init__(self, folder: str | os.PathLike[str], flag: str = "--out",
                 command: str = "yatmath") -> None:
        self.folder, self.flag, self.command = Path(folder), flag, command
        self.path = self.folder / LOCK_NAME
        self.fd: int | None = None
        self.created: list[Path] = []

    def __enter__(self) -> FolderLock:
        import fcntl

        shown = repr(str(self.folder))
        try:
            missing, parent = [], self.folder.absolute()
            while not os.path.lexists(parent):
                missing.append(parent)
                parent = parent.parent
            for folder in reversed(missing):
                folder.mkdir()
                self.created.append(folder)
        except OSError as exc:
            self._remove_created()
            raise UsageError(f"{self.flag} {shown} cannot be created "
                             f"({exc.strerror or exc})") from None
        try:
            self._lock(fcntl, shown)
        except BaseException:
            self._remove_created()
            raise
        return self

    def _remove_created(self) -> None:
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):
                folder.rmdir()          # only while empty: never anything the run wrote
        self.created = []

    def _lock(self, fcntl: Any, shown: str) -> None:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
                             0o666)
            except OSError as exc:
                raise UsageError(f"{self.flag} {shown} cannot be locked for this run "
                                 f"({LOCK_NAME}: {exc.strerror or exc})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
                os.close(fd)
                holder = holder or "a process that is just starting"
                raise UsageError(f"{self.flag} {shown} is in use by another run ({holder}); "
                                 f"wait for it to end, or choose another {self.flag}") from None
            # the run that held it may have removed the file just before releasing it: then this
            # lock is on a file nobody else will open; take the one now at the path instead
            try:
                now, held = os.stat(self.path, follow_symlinks=False), os.fstat(fd)
                same = (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
            except OSError:
                same = False
            if same:
                break
            os.close(fd)
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {self.command} (started {started})\n".encode(), 0)
        self.fd = fd

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)      # while still held: no other run holds this file
            os.close(self.fd)
            self.fd = None
        self._remove_created()
        return False


def lock_out(folder: str | os.PathLike[str], flag: str = "--out",
             command: str = "yatmath") -> FolderLock:
    """``with lock_out(out, "--out", "yatmath check"):`` -- the run holds ``out`` alone; a
    second run into the same folder gets :class:`UsageError` naming the holder's pid."""
    return FolderLock(folder, flag, command)
