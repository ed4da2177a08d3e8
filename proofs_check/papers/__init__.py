"""Copies of the five source papers (plain-text extractions of shared/seeds), shipped with the
package so that checks which read the papers' own words (table forensics, text searches) give the
same verdict in an installed copy as in the repository.  A test keeps them equal to shared/seeds.

``paper_text("004")`` returns the text of paper 004.
"""
from __future__ import annotations

import functools
from pathlib import Path

DIR = Path(__file__).parent


@functools.lru_cache(maxsize=None)
def paper_text(prefix: str) -> str:
    """The text of paper ``prefix`` ("000" .. "004")."""
    matches = sorted(DIR.glob(f"{prefix}_*.txt"))
    if len(matches) != 1:
        raise FileNotFoundError(f"no single shipped paper with prefix {prefix!r} in {DIR}")
    return matches[0].read_text(encoding="utf-8", errors="replace")
