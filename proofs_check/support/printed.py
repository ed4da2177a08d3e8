"""Numbers as the papers print them, read from the shipped texts (``proofs_check.papers``).

A check that compares printed numbers quotes them from the paper instead of typing them in:
:func:`printed` finds a regular expression in one paper's text and returns each number it
captures as a :class:`Printed` (its value, the digits as printed, the matched words verbatim and
their line), so the record can cite exactly where each number stands.  A pattern that is missing,
or that matches a different number of times than the check expects, raises ``LookupError``: a
changed text makes the check crash loudly (the runner records CRASHED) rather than decide on
stale numbers.

Printed precision: a number printed with k digits after the point (or a mantissa with k digits,
``1e-4``) stands for any true value within half a unit of its last digit (:attr:`Printed.half_unit`).
Two printed numbers that are said to be the same quantity contradict each other when they differ
by more than the sum of their half units (:func:`rounding_gap` > 0): no pair of true values behind
them is equal.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from proofs_check.papers import paper_text


@dataclass(frozen=True)
class Printed:
    """One printed number: ``value`` as printed (``digits``), in paper ``paper`` at ``line``
    (1-based line of the shipped text), inside the verbatim ``words`` the pattern matched."""

    paper: str
    digits: str
    words: str
    line: int

    @property
    def value(self) -> float:
        return float(self.digits)

    @property
    def half_unit(self) -> float:
        """Half a unit of the last printed digit (``92.18`` -> 0.005, ``93`` -> 0.5, ``1e-4`` -> 0.5e-4)."""
        exp = Decimal(self.digits).as_tuple().exponent
        return 0.5 * 10.0 ** int(exp)

    def cite(self) -> str:
        """``'002 line 478: "... from 93% to nearly 0% ..."'``: where the number stands, verbatim."""
        return f'{self.paper} line {self.line}: "{" ".join(self.words.split())}"'


def printed(paper: str, pattern: str, *, count: int = 1, flags: int = 0) -> list[tuple[Printed, ...]]:
    """Every match of ``pattern`` in paper ``paper`` (exactly ``count`` of them, else LookupError),
    each as the tuple of its captured groups read as :class:`Printed` numbers."""
    text = paper_text(paper)
    found = list(re.finditer(pattern, text, flags))
    if len(found) != count:
        raise LookupError(f"paper {paper}: pattern {pattern!r} matched {len(found)} times, expected {count} "
                          "(has the shipped text changed?)")
    out = []
    for m in found:
        line = text.count("\n", 0, m.start()) + 1
        out.append(tuple(Printed(paper, g, m.group(0), line) for g in m.groups()))
    return out


def printed_one(paper: str, pattern: str, *, flags: int = 0) -> tuple[Printed, ...]:
    """The captured numbers of the single match of ``pattern`` in paper ``paper``."""
    return printed(paper, pattern, flags=flags)[0]


def words(paper: str, pattern: str, *, flags: int = 0) -> list[tuple[str, int]]:
    """Every match of ``pattern`` (group 1 if it has groups, else the whole match) with its line."""
    text = paper_text(paper)
    out = []
    for m in re.finditer(pattern, text, flags):
        out.append((m.group(1) if m.groups() else m.group(0), text.count("\n", 0, m.start()) + 1))
    return out


def rounding_gap(a: Printed, b: Printed) -> float:
    """|a - b| minus the two half units: > 0 when the two printed numbers cannot be one value."""
    return abs(a.value - b.value) - (a.half_unit + b.half_unit)


PRINTED_PRECISION = ("each printed number stands for any value within half a unit of its last printed digit; "
                     "two printed values of one quantity agree when |a - b| <= half_a + half_b")
