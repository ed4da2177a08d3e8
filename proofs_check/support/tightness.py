"""The verdict of a claimed bound whose tight value is known (claims.md, rule 5).

"A bound that holds while a strictly better constant or rate is measured or proved is
CONFIRMED_LOOSE, not CONFIRMED."  :func:`tight_bound_verdict` carries that out through
``verdicts.from_interval`` (with ``below_is_loose``): the tight value (a supremum proved or attained,
or the exponent of a derived rate) against the claimed one, to the precision of the arithmetic
that gave the tight value.  Record the claimed value, the tight value and their ratio beside it,
and a ``Threshold`` of kind "paper" (the claimed value) whose flip point is the tight value.
"""
from __future__ import annotations

from proofs_check import verdicts as V


def tight_bound_verdict(tight: float, claimed: float, *, rtol: float) -> str:
    """REFUTED when the tight value exceeds the claimed bound, CONFIRMED when it equals it, and
    CONFIRMED_LOOSE when it is strictly below it; equality is judged to ``rtol`` (relative, the
    precision of the arithmetic that produced ``tight``; 0 for exact values)."""
    h = abs(tight) * rtol
    return V.from_interval((tight - h, tight + h), claimed, below_is_loose=True)
