"""Record helpers shared by the yat A9-A11 check modules (squash, cost, numerics, exp, ...)."""
from __future__ import annotations

from proofs_check import verdicts as V


def lift(parts: dict) -> dict:
    """``counterexample`` and ``repro`` of the first REFUTED part (for the top of an ``of_parts`` record,
    so that a refuted claim shows its decisive counterexample and a reproduction that runs); {} if none."""
    for p in parts.values():
        if p.verdict == V.REFUTED and p.counterexample and p.repro is not None:
            return {"counterexample": p.counterexample, "repro": p.repro}
    return {}
