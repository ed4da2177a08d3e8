"""Atomic file output: a group of files appears whole or not at all (the one writer of the
toolkit: ledgers, sites, figures, validation reports)."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(files: dict) -> list[Path]:
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
