"""Small helpers for assembling a ledger record from its parts.

:func:`decisive_repro` gives a claim of parts the reproduction of its first refuted part, so the
claim's own line (``yatmath check --explain ID``: "Reproduce: ...") shows the counterexample a
reader can re-run instead of "(the check gave no reproduction)".
"""
from __future__ import annotations

from proofs_check import verdicts as V


def decisive_repro(parts: dict):
    """The ``Repro`` of the first REFUTED leaf among ``parts`` (depth first, in order), else None."""
    for ev in parts.values():
        if ev.verdict != V.REFUTED:
            continue
        if ev.parts:
            rep = decisive_repro(ev.parts)
            if rep is not None:
                return rep
        elif ev.repro is not None:
            return ev.repro
    return None
