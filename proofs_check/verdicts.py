"""The fixed verdict vocabulary and the rules that combine verdicts.

A check never writes a verdict as a literal: it measures, then calls one of the deciding helpers
here (or its own rule written from its numbers).  Changing a tolerance or a budget changes the
verdict through these rules.
"""
from __future__ import annotations

CONFIRMED = "CONFIRMED"
REFUTED = "REFUTED"
CONFIRMED_LOOSE = "CONFIRMED_LOOSE"
AMBIGUOUS = "AMBIGUOUS"
INCONCLUSIVE = "INCONCLUSIVE"
NOT_CHECKABLE = "NOT_CHECKABLE"
CRASHED = "CRASHED"  # the check raised; recorded by the runner, never returned by a check

VERDICTS = (CONFIRMED, REFUTED, CONFIRMED_LOOSE, AMBIGUOUS, INCONCLUSIVE, NOT_CHECKABLE)

# Severity order used when several sub-claims make up one claim: the claim is as weak as its
# weakest checked part.
_SEVERITY = {CONFIRMED: 0, CONFIRMED_LOOSE: 1, INCONCLUSIVE: 2, AMBIGUOUS: 3, REFUTED: 4,
             NOT_CHECKABLE: -1}


def holds(condition: bool, *, otherwise: str = REFUTED) -> str:
    """CONFIRMED when the measured condition holds, else ``otherwise``."""
    return CONFIRMED if bool(condition) else otherwise


def from_bound(measured: float, claimed: float, *, rtol: float = 1e-9, loose_factor: float | None = None) -> str:
    """Verdict for a claimed upper bound ``measured <= claimed``.

    REFUTED when the measured supremum exceeds the claim by more than ``rtol`` (relative);
    CONFIRMED_LOOSE when ``loose_factor`` is given and the bound holds but is loose by more than
    that factor (claimed > loose_factor * measured); else CONFIRMED.
    """
    if measured > claimed * (1 + rtol) + rtol * (claimed == 0):
        return REFUTED
    if loose_factor is not None and measured > 0 and claimed > loose_factor * measured:
        return CONFIRMED_LOOSE
    return CONFIRMED


def from_rate(measured: float, ci: tuple[float, float], claimed: float, *, atol: float) -> str:
    """Verdict for a claimed exponent/rate given a fitted value and its confidence interval.

    CONFIRMED when ``claimed`` lies within ``atol`` of the interval; REFUTED when the whole
    interval is further than ``atol`` from it and the interval is narrow enough to tell
    (width < 4 atol); INCONCLUSIVE otherwise.
    """
    lo, hi = ci
    if lo - atol <= claimed <= hi + atol:
        return CONFIRMED
    if hi - lo < 4 * atol:
        return REFUTED
    return INCONCLUSIVE


def combine_subclaims(verdicts) -> str:
    """A claim made of sub-claims (a), (b), ... is as weak as its weakest checked part."""
    vs = [v for v in verdicts if v != NOT_CHECKABLE]
    if not vs:
        return NOT_CHECKABLE
    return max(vs, key=_SEVERITY.__getitem__)


def combine_readings(verdicts) -> str:
    """Several readings of one statement: their common verdict if they agree, else AMBIGUOUS."""
    vs = list(verdicts)
    return vs[0] if vs and all(v == vs[0] for v in vs) else AMBIGUOUS
