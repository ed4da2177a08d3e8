"""Atomic file writing: a group of files appears whole or not at all (the one writer of the
toolkit: ledgers, sites, figures, validation reports).

Public: :func:`atomic_write` (write a group of files), :func:`remove_stale_temps` (the temporary
files a killed writer left), :func:`temp_target` (the target a temporary file stands for) and
:func:`current_umask` (the permissions new files get).
"""
from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Container, Mapping
from pathlib import Path
from typing import Any

#: the temporary file ``atomic_write`` writes beside ``NAME`` before renaming it into place:
#: ``.NAME.XXXXXXXX.tmp`` (``tempfile.mkstemp``'s eight random characters)
_TEMP = re.compile(r"^\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp$")


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(files: Mapping[str | os.PathLike[str], Any]) -> list[Path]:
    """Write ``{path: content}`` atomically as a group.

    ``content`` is a ``str`` (written as UTF-8), ``bytes``, or a callable ``write(fh)`` given the
    open binary file (e.g. ``lambda fh: fig.savefig(fh, format="png")``).  Every content goes to a
    temporary file beside its target first; only when all are complete are they renamed into
    place with ``os.replace``.  On any error (Ctrl-C included) the temporary files are removed and
    the targets are left as they were.  Files get the usual permissions (0666 less the umask).
    """
    temps: list[tuple[str, Path]] = []
    mode = 0o666 & ~current_umask()
    try:
        for path, content in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            # (the name stale_temps() recognises when a killed process leaves it behind)
            temps.append((tmp, path))
            with os.fdopen(fd, "wb") as fh:
                if isinstance(content, str):
                    fh.write(content.encode("utf-8"))
                elif isinstance(content, (bytes, bytearray)):
                    fh.write(content)
                elif callable(content):
                    content(fh)
                else:
                    raise TypeError(f"files[{str(path)!r}] must be str, bytes or a callable, "
                                    f"got {type(content).__name__}")
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
        for tmp, path in temps:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    return [p for _, p in temps]


def temp_target(filename: str) -> str | None:
    """The target name of a temporary file ``atomic_write`` creates (``.NAME.XXXXXXXX.tmp`` ->
    ``NAME``), or None for any other name."""
    m = _TEMP.match(filename)
    return m.group("target") if m else None


def remove_stale_temps(folder: str | os.PathLike[str],
                       targets: Container[str] | None = None) -> list[Path]:
    """Remove the temporary files that ``atomic_write`` left in ``folder`` when its process was
    killed (SIGKILL, power loss: no ``except`` ran), for the targets named in ``targets`` (a
    container of file names; None: any target).

    Only plain files (not links, not folders) named exactly as ``atomic_write`` names its
    temporaries are removed.  Call it only while holding the folder's run lock
    (``yatmath.cli_args.lock_out``): a live run's temporaries look the same.  Returns the paths
    removed; a folder that does not exist, or a file that cannot be removed, is skipped.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        target = temp_target(entry.name)
        if target is None or (targets is not None and target not in targets):
            continue
        try:
            if not stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed
