"""The claim catalogue (a copy of shared/spec/claims.md shipped with the package), parsed.

Each ``### id`` heading opens an entry; its ``- Src:`` line gives the sources and its
``- Claim:``/``- Claims:`` block the statement.  A test checks that the shipped copy matches
``../shared/spec/claims.md`` when that file is present, and that every id has a check.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

CATALOGUE = Path(__file__).with_name("claims.md")


@dataclass(frozen=True)
class Entry:
    id: str
    sources: str
    statement: str
    text: str  # the whole entry, for --explain


@functools.lru_cache(maxsize=None)
def entries(path: str | None = None) -> dict[str, Entry]:
    text = Path(path or CATALOGUE).read_text(encoding="utf-8")
    out: dict[str, Entry] = {}
    blocks = re.split(r"^### ", text, flags=re.M)[1:]
    for block in blocks:
        head, _, body = block.partition("\n")
        cid = head.strip()
        body = re.split(r"^#{1,2} ", body, flags=re.M)[0].strip()
        src = re.search(r"^- Src:(.*(?:\n[ \t]+.*)*)", body, flags=re.M)
        claim = re.search(r"^- Claims?\b[^:\n]*:\s*(.*?)(?=^- (?:Read|Check|Record|Versions)\b|\Z)",
                          body, flags=re.M | re.S)
        if claim is None:  # entries that state the claim only through quotes in Src / Read
            claim = (re.search(r"^- Read:\s*(.*?)(?=^- (?:Check|Record)\b|\Z)", body, flags=re.M | re.S)
                     or re.search(r"^- Src:\s*(.*?)(?=^- (?:Read|Check|Record)\b|\Z)", body,
                                  flags=re.M | re.S))
        out[cid] = Entry(cid, " ".join(src.group(1).split()) if src else "",
                         " ".join(claim.group(1).split()) if claim else "", body)
    return out
