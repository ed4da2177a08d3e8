"""The fixed verdict vocabulary and the rules of claims.md ("How a verdict is decided").

A check never writes a verdict as a literal: it measures, then decides through the helpers here
(or a rule of its own written from its numbers), and a claim made of parts takes the verdict the
parts give under :func:`combine_parts`.  ``registry.Evidence.problems`` re-applies these rules to a
finished record, so a record whose verdict does not follow from its parts cannot be written.

The rules, as implemented:

* **Parts.** A claim of several parts is CONFIRMED only if every part is.  Any REFUTED part refutes
  it.  Otherwise a part that could not be checked (NOT_CHECKABLE) makes the claim NOT_CHECKABLE;
  then an undecided part (INCONCLUSIVE) makes it INCONCLUSIVE; a CONFIRMED_LOOSE part makes it
  CONFIRMED_LOOSE.  (An AMBIGUOUS part is a part whose readings the papers do not decide; it makes
  the claim AMBIGUOUS unless another part refutes it.)
* **Readings.** The verdict is the operative reading's.  Other readings are reported beside it
  and never combined.  :func:`undecided_readings` is the only road to AMBIGUOUS: readings that the
  papers support equally (each with its passage) and that get different verdicts.
* **Thresholds.** A number that decides a verdict is a ``registry.Threshold``: a constant printed
  in the paper, a statistical level, or the precision of the arithmetic, with its flip point.
"""
from __future__ import annotations

CONFIRMED = "CONFIRMED"
REFUTED = "REFUTED"
CONFIRMED_LOOSE = "CONFIRMED_LOOSE"
AMBIGUOUS = "AMBIGUOUS"
INCONCLUSIVE = "INCONCLUSIVE"
NOT_CHECKABLE = "NOT_CHECKABLE"
CRASHED = "CRASHED"  # the check raised or broke the rules; recorded by the runner, never returned

VERDICTS = (CONFIRMED, REFUTED, CONFIRMED_LOOSE, AMBIGUOUS, INCONCLUSIVE, NOT_CHECKABLE)

# combine_parts: the first verdict of this list present among the parts wins.
PART_PRECEDENCE = (REFUTED, AMBIGUOUS, NOT_CHECKABLE, INCONCLUSIVE, CONFIRMED_LOOSE, CONFIRMED)


def _known(v: str) -> str:
    if v not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {v!r}")
    return v


def holds(condition: bool, *, otherwise: str = REFUTED) -> str:
    """CONFIRMED when the measured condition holds, else ``otherwise``."""
    return CONFIRMED if bool(condition) else _known(otherwise)


def from_bound(measured: float, claimed: float, *, rtol: float) -> str:
    """Verdict for a claimed upper bound ``measured <= claimed``.

    ``rtol`` is the precision of the arithmetic that produced ``measured`` (never a private
    allowance): REFUTED when the measured value exceeds the claim by more than ``rtol`` relative,
    else CONFIRMED.  Record the comparison as a ``Threshold`` (``registry.bound_threshold``).
    """
    if measured > claimed * (1 + rtol) + rtol * (claimed == 0):
        return REFUTED
    return CONFIRMED


def from_interval(ci: tuple[float, float], claimed: float, *, below_is_loose: bool = False) -> str:
    """Verdict for a claimed value (a rate, a constant) against a confidence interval.

    CONFIRMED when ``claimed`` lies inside the interval; otherwise REFUTED, except that with
    ``below_is_loose`` (the claim is an upper bound on the quantity, e.g. an error rate "at least
    as fast as") an interval wholly *below* the claim means the claim holds with a better measured
    value: CONFIRMED_LOOSE.  The interval's level is the threshold and must be recorded.
    """
    lo, hi = float(ci[0]), float(ci[1])
    if lo > hi:
        raise ValueError(f"ci must be (low, high) with low <= high, got {ci!r}")
    if lo <= claimed <= hi:
        return CONFIRMED
    if below_is_loose and hi < claimed:
        return CONFIRMED_LOOSE
    return REFUTED


def from_tight(tight: float, claimed: float, *, rtol: float, better: str = "smaller") -> str:
    """Verdict of a claimed constant against the tight one (claims.md, rule 5).

    ``better="smaller"`` for an upper bound (a smaller constant is the stronger statement),
    ``"larger"`` for a lower bound or a convergence exponent.  REFUTED when the tight value breaks
    the claim, CONFIRMED when they agree to ``rtol`` (relative, the precision of the arithmetic
    that produced ``tight``; 0 for exact values), CONFIRMED_LOOSE when the tight value is strictly
    better.
    """
    if better not in ("smaller", "larger"):
        raise ValueError(f"better must be 'smaller' or 'larger', got {better!r}")
    sign = 1.0 if better == "smaller" else -1.0
    t, c = sign * float(tight), sign * float(claimed)
    h = abs(t) * rtol
    return from_interval((t - h, t + h), c, below_is_loose=True)


def combine_parts(verdicts) -> str:
    """The verdict of a claim made of parts (sub-claims (a), (b), ...): see the module docstring."""
    vs = [_known(v) for v in verdicts]
    if not vs:
        raise ValueError("combine_parts needs at least one part")
    for v in PART_PRECEDENCE:
        if v in vs:
            return v
    raise AssertionError("unreachable")


def undecided_readings(verdicts) -> str:
    """Readings the papers support equally (nothing in them decides): AMBIGUOUS when their verdicts
    differ, else their common verdict.  Use only after recording, for every reading, the passage
    that supports it; when the paper fixes one reading, its verdict is the claim's."""
    vs = [_known(v) for v in verdicts]
    if len(vs) < 2:
        raise ValueError("undecided_readings needs at least two readings")
    return vs[0] if all(v == vs[0] for v in vs) else AMBIGUOUS
