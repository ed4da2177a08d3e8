"""One registry of claim checks.

A check is a function ``check(ctx) -> Evidence`` registered under a catalogue id::

    from proofs_check.registry import register, Evidence
    from proofs_check import verdicts as V

    @register("yat.bound.global_upper", method="multi-start L-BFGS of K(w,x) eps/||w||^4")
    def _(ctx):
        worst, x = ...                      # measure
        return Evidence(
            verdict=V.from_bound(worst, 1.0),   # decided by a rule from the numbers
            numbers={"max_ratio": worst, "restarts": ctx.pick(20, 200)},
            counterexample=None if worst <= 1 else {"w": w.tolist(), "x": x.tolist(), "eps": eps},
            repro=Repro("yatmath.yat.product(np.array(w), np.array(x), eps) * eps "
                        "/ np.linalg.norm(w)**4", {"w": w.tolist(), "x": x.tolist(), "eps": eps},
                        expected=worst),
        )

``ctx.pick(quick, full)`` chooses a budget by level; ``ctx.rng(tag)`` gives a generator that is
a deterministic function of the run seed, the claim id and the tag.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import verdicts as V
from .catalogue import entries

LEVELS = ("quick", "full")

THRESHOLD_KINDS = ("paper", "statistical", "precision")
SCOPE_KINDS = ("symbolic", "proof", "reference", "search", "exhaustive", "instance", "replication",
               "consistency", "none")
UNIVERSAL_SCOPES = ("symbolic", "proof", "reference", "search", "exhaustive")


@dataclass
class Reading:
    """One reading of a claim: what it asserts, and the paper passage(s) behind it.

    text      the statement under this reading, in plain-text formulas
    passage   the passage(s) of the paper that make it the operative reading (what the proof
              proves, what a corollary, experiment or the abstract needs), or, for another reading,
              the words that admit it; quoted with paper and section, e.g. '000 App C.2: "..."'
    """

    text: str
    passage: str

    def to_dict(self) -> dict:
        return {"text": self.text, "passage": self.passage}


@dataclass
class Threshold:
    """A number that decides a verdict, with where it comes from and how robust the verdict is.

    name      what is compared, e.g. "sup K eps / ||w||^4 <= value"
    value     the threshold used
    kind      "paper" (a constant printed in the paper), "statistical" (a test or interval at a
              stated level) or "precision" (the rounding error of the arithmetic)
    source    the passage, the test and its level, or the dtype and error model
    measured  the measured statistic compared with ``value``
    flip      the value of the threshold at which the verdict would change (for ``measured <=
              value`` that is ``measured``; for a p-value against a level, the p-value)
    """

    name: str
    value: float
    kind: str
    source: str
    measured: float
    flip: float

    def __post_init__(self):
        if self.kind not in THRESHOLD_KINDS:
            raise ValueError(f"Threshold.kind must be one of {THRESHOLD_KINDS}, got {self.kind!r} "
                             "(a verdict may not rest on a private number)")
        if not str(self.source).strip():
            raise ValueError(f"Threshold {self.name!r} needs a source")

    def to_dict(self) -> dict:
        return {"name": self.name, "value": json_ready(self.value), "kind": self.kind,
                "source": self.source, "measured": json_ready(self.measured),
                "flip": json_ready(self.flip)}


@dataclass
class Scope:
    """What the check covered.

    kind       "symbolic" (a proof in sympy or exact arithmetic), "proof" (a written argument, given in
               ``covered`` or the notes, that a reader can follow line by line), "reference" (the
               printed statement compared with a named textbook theorem, for claims that cite one),
               "search" (an adversarial search
               over the stated domain), "exhaustive" (every case of a finite domain), "instance"
               (particular cases only), "replication" (an experiment re-run), "consistency" (the
               printed numbers against each other), or "none" (nothing could be run)
    covered    the domain or cases covered, and the budget (restarts, sizes, seeds)
    universal  the claim (or this part) is a universal statement ("for all ..."): then one
               instance cannot confirm it
    """

    kind: str
    covered: str
    universal: bool = False

    def __post_init__(self):
        if self.kind not in SCOPE_KINDS:
            raise ValueError(f"Scope.kind must be one of {SCOPE_KINDS}, got {self.kind!r}")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "covered": self.covered, "universal": bool(self.universal)}


@dataclass
class Repro:
    """A reproduction a reader (and the test suite) runs: ``eval(expr, bindings)`` gives ``expected``.

    expr      one Python expression over the public API of ``yatmath`` (imported as ``yatmath``
              with its subpackages), ``np`` (NumPy) and ``math``; no name or attribute that starts
              with an underscore
    bindings  the counterexample's own values (plain JSON: numbers, lists, strings, dicts); lists
              stay lists, so write ``np.array(w)`` in ``expr`` where an array is meant
    expected  the number (or list, or bool) the expression must give, as the check computed it
    rtol, atol  the agreement required, justified in ``tol_reason`` (dtype, conditioning, BLAS
              summation order)
    """

    expr: str
    bindings: dict[str, Any]
    expected: Any
    rtol: float = 1e-9
    atol: float = 0.0
    tol_reason: str = "float64 evaluation of the same expression; only summation order may differ"

    def to_dict(self) -> dict:
        return {"expr": self.expr, "bindings": json_ready(self.bindings),
                "expected": json_ready(self.expected), "rtol": self.rtol, "atol": self.atol,
                "tol_reason": self.tol_reason}


@dataclass
class Tried:
    """What a check tried before it gave up at NOT_CHECKABLE or INCONCLUSIVE (claims.md, rule 5:
    "Decide before giving up"). Each field says what was done and what it found, in words a reader
    can follow; none may be empty.

    printed   (a) every number the papers print about the claim compared with every other (which
              numbers, in which passages, and whether any two contradict each other), or where the
              papers were searched and found to print none
    search    (b) the adversarial search over the claim's free parameters and stated hypotheses
              (what was varied, over which range, the extreme found), or why the claim leaves
              nothing free to choose
    budget    (c) the budget spent at ``quick`` and why it does not decide; for INCONCLUSIVE the
              budget that would (and its time), for NOT_CHECKABLE why no budget would
    """

    printed: str
    search: str
    budget: str

    def missing(self) -> list[str]:
        """The names of the fields left empty."""
        return [k for k in ("printed", "search", "budget") if not str(getattr(self, k)).strip()]

    def to_dict(self) -> dict:
        return {"printed": self.printed, "search": self.search, "budget": self.budget}


BETTER = ("smaller", "larger")


@dataclass
class Bound:
    """A claimed constant or rate beside the tight one the check measured or proved (claims.md,
    rule 5: "A bound that holds while a strictly better constant or rate is measured or proved is
    CONFIRMED_LOOSE, not CONFIRMED").

    name      what is bounded, e.g. "sup sqrt(r) ||K - K_r||_F / ||K||_*"
    claimed   the paper's constant or rate exponent
    tight     the tight value: a supremum proved or attained, or a measured exponent
    better    "smaller" when a smaller constant is the stronger statement (an upper bound, an error
              constant), "larger" when a larger one is (a lower bound, a convergence exponent)
    rtol      the relative precision of ``tight`` (0 for exact values), from the arithmetic or the
              interval that produced it
    how       how ``tight`` was obtained (proof, attaining input, search and its budget)
    """

    name: str
    claimed: float
    tight: float
    better: str
    rtol: float
    how: str

    def __post_init__(self):
        if self.better not in BETTER:
            raise ValueError(f"Bound.better must be one of {BETTER}, got {self.better!r}")
        if not (self.rtol >= 0):
            raise ValueError(f"Bound.rtol must be >= 0, got {self.rtol!r}")
        if not str(self.how).strip():
            raise ValueError(f"Bound {self.name!r} needs ``how`` (proof, attaining input or search)")

    def verdict(self) -> str:
        """REFUTED when the tight value breaks the claim, CONFIRMED_LOOSE when it is strictly
        better than the claimed one beyond ``rtol``, else CONFIRMED."""
        return V.from_tight(self.tight, self.claimed, rtol=self.rtol, better=self.better)

    def to_dict(self) -> dict:
        return {"name": self.name, "claimed": json_ready(self.claimed),
                "tight": json_ready(self.tight),
                "better": self.better, "rtol": self.rtol, "how": self.how,
                "ratio": json_ready(self.tight / self.claimed) if self.claimed else None}


@dataclass
class Plot:
    """A small evidence plot drawn beside the ledger (``DIR/plots/<id>.png``), for a verdict that
    rests on a fitted rate or a curve.

    series     label -> (x, y): the measured curves (points)
    reference  label -> (x, y): claimed or fitted lines (drawn as lines)
    xlabel, ylabel, title; ``logx``/``logy`` for log axes
    """

    series: dict[str, tuple[list, list]]
    xlabel: str
    ylabel: str
    title: str = ""
    reference: dict[str, tuple[list, list]] = field(default_factory=dict)
    logx: bool = True
    logy: bool = True

    def to_dict(self) -> dict:
        return {"series": {k: [json_ready(x), json_ready(y)] for k, (x, y) in self.series.items()},
                "reference": {k: [json_ready(x), json_ready(y)]
                              for k, (x, y) in self.reference.items()},
                "xlabel": self.xlabel, "ylabel": self.ylabel, "title": self.title,
                "logx": self.logx, "logy": self.logy}


@dataclass
class Evidence:
    """What a check measured and what it concludes.

    verdict         one of ``verdicts.VERDICTS``, computed from ``numbers`` (or from ``parts`` by
                    ``verdicts.combine_parts``: use :meth:`Evidence.of_parts`)
    numbers         the measured quantities (plain floats/ints/lists/strings), JSON-serialisable
    counterexample  for REFUTED: the exact inputs and computed quantities; else None
    repro           a :class:`Repro` that re-evaluates the counterexample (required with REFUTED) or
                    the key number
    parts           sub-claims: name -> Evidence; the verdict must follow from them
    reading         the operative reading and the passage that fixes it (None when the claim admits
                    one reading only, or when the readings are undecided: then ``other_readings``
                    holds them and the verdict comes from ``verdicts.undecided_readings``)
    other_readings  name -> Evidence of each other reading (its ``reading`` set); reported beside the
                    verdict, never combined into it
    thresholds      every number that decides a verdict (:class:`Threshold`)
    scope           what the check covered (:class:`Scope`); required for a CONFIRMED leaf
    tried           for a NOT_CHECKABLE or INCONCLUSIVE leaf: what rule 5 asks to try first
                    (:class:`Tried`); required
    bounds          each claimed constant or rate beside its tight value (:class:`Bound`); a leaf
                    that finds a strictly better one cannot be CONFIRMED
    plot            a :class:`Plot` where the verdict rests on a fitted rate or a curve
    notes           what was done, what the budget could not decide, substitutes used
    """

    verdict: str
    numbers: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    repro: Repro | None = None
    parts: dict[str, "Evidence"] = field(default_factory=dict)
    notes: str = ""
    reading: Reading | None = None
    other_readings: dict[str, "Evidence"] = field(default_factory=dict)
    thresholds: list[Threshold] = field(default_factory=list)
    scope: Scope | None = None
    plot: Plot | None = None
    tried: Tried | None = None
    bounds: list[Bound] = field(default_factory=list)

    def __post_init__(self):
        if self.verdict not in V.VERDICTS:
            raise ValueError(f"verdict must be one of {V.VERDICTS}, got {self.verdict!r}")
        if self.repro is not None and not isinstance(self.repro, Repro):
            raise TypeError(f"repro must be a Repro or None, got {type(self.repro).__name__}")

    @classmethod
    def of_parts(cls, parts: dict[str, "Evidence"], **kw) -> "Evidence":
        """An Evidence whose verdict is ``verdicts.combine_parts`` of ``parts``."""
        return cls(verdict=V.combine_parts(p.verdict for p in parts.values()), parts=parts, **kw)

    @classmethod
    def of_undecided_readings(cls, readings: dict[str, "Evidence"], **kw) -> "Evidence":
        """Readings that the papers support equally (each with its ``reading`` and passage)."""
        return cls(verdict=V.undecided_readings(r.verdict for r in readings.values()),
                   other_readings=readings, **kw)

    def problems(self, path: str = "") -> list[str]:
        """Where this record breaks the rules of claims.md; [] when it follows them."""
        where = path or "record"
        out: list[str] = []
        if self.parts:
            want = V.combine_parts(p.verdict for p in self.parts.values())
            if self.verdict != want:
                out.append(f"{where}: verdict {self.verdict} does not follow from its parts ({want})")
        if self.verdict == V.AMBIGUOUS and not self.parts:
            rs = self.other_readings
            if self.reading is not None:
                out.append(f"{where}: AMBIGUOUS with an operative reading; the verdict is that "
                           "reading's")
            if len(rs) < 2 or len({r.verdict for r in rs.values()}) < 2:
                out.append(f"{where}: AMBIGUOUS needs two readings with different verdicts")
            for name, r in rs.items():
                if r.reading is None or not r.reading.passage.strip():
                    out.append(f"{where}: AMBIGUOUS reading {name!r} cites no passage")
        if self.other_readings and self.verdict != V.AMBIGUOUS and self.reading is None:
            out.append(f"{where}: other readings are reported but the operative one is not named")
        if self.verdict == V.REFUTED and not self.parts:
            if not self.counterexample:
                out.append(f"{where}: REFUTED without a counterexample")
            if self.repro is None:
                out.append(f"{where}: REFUTED without a Repro")
        if self.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE) and not self.parts:
            if self.scope is None:
                out.append(f"{where}: {self.verdict} without a Scope")
            elif self.scope.universal and self.scope.kind not in UNIVERSAL_SCOPES:
                out.append(f"{where}: a universal statement {self.verdict} by scope "
                           f"{self.scope.kind!r} (needs one of {UNIVERSAL_SCOPES})")
            elif self.scope.kind == "none" or (self.scope.kind == "consistency" and not path):
                out.append(f"{where}: {self.verdict} by scope {self.scope.kind!r}")
        if self.verdict in (V.NOT_CHECKABLE, V.INCONCLUSIVE) and not self.parts:
            if not self.notes.strip():
                out.append(f"{where}: {self.verdict} must say why (notes)")
            if self.tried is None:
                out.append(f"{where}: {self.verdict} without the record of what rule 5 asks to "
                           "try first (tried=Tried(printed, search, budget))")
            elif self.tried.missing():
                out.append(f"{where}: {self.verdict} whose Tried leaves "
                           f"{', '.join(self.tried.missing())} empty")
        if not self.parts:
            for b in self.bounds:
                bv = b.verdict()
                if bv == V.REFUTED and self.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE):
                    out.append(f"{where}: {self.verdict} although the tight value of {b.name!r} "
                               f"({b.tight:.6g}) breaks the claimed {b.claimed:.6g}")
                elif bv == V.CONFIRMED_LOOSE and self.verdict == V.CONFIRMED:
                    out.append(f"{where}: CONFIRMED although {b.name!r} holds with a strictly "
                               f"better value ({b.tight:.6g} against the claimed {b.claimed:.6g}): "
                               "CONFIRMED_LOOSE (rule 5)")
        if not path and self.parts and self.verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE):
            kinds = {leaf.scope.kind for leaf in self._leaves() if leaf.scope is not None}
            if kinds == {"consistency"}:
                out.append(f"{where}: {self.verdict} by the consistency of printed numbers alone "
                           "(it never confirms a result: add the replication part)")
        for name, p in self.parts.items():
            out += p.problems(f"{where}.parts[{name}]")
        for name, r in self.other_readings.items():
            if r.reading is None:
                out.append(f"{where}.other_readings[{name}]: no reading text")
            out += r.problems(f"{where}.other_readings[{name}]")
        return out

    def _leaves(self):
        if not self.parts:
            yield self
        for p in self.parts.values():
            yield from p._leaves()

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "reading": self.reading.to_dict() if self.reading else None,
            "evidence": json_ready(self.numbers),
            "thresholds": [t.to_dict() for t in self.thresholds],
            "scope": self.scope.to_dict() if self.scope else None,
            "counterexample": json_ready(self.counterexample),
            "repro": self.repro.to_dict() if self.repro else None,
            "parts": {k: p.to_dict() for k, p in self.parts.items()},
            "other_readings": {k: r.to_dict() for k, r in self.other_readings.items()},
            "plot": self.plot.to_dict() if self.plot else None,
            "tried": self.tried.to_dict() if self.tried else None,
            "bounds": [b.to_dict() for b in self.bounds],
            "notes": self.notes,
        }


def bound_threshold(name: str, measured: float, claimed: float, *, source: str, kind: str = "paper",
                    ) -> Threshold:
    """The Threshold of a claimed upper bound ``measured <= claimed``: flips at ``measured``."""
    return Threshold(name=name, value=claimed, kind=kind, source=source, measured=measured,
                     flip=measured)


def json_ready(obj):
    """Convert numpy scalars/arrays (recursively) into JSON-ready Python objects."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):  # np.float64 too: store a plain float, non-finite as "inf"/"nan"
        return float(obj) if np.isfinite(obj) else repr(float(obj))
    if isinstance(obj, np.generic):
        return json_ready(obj.item())
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist())
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    return str(obj)


@dataclass
class Context:
    level: str = "quick"
    seed: int = 0
    claim_id: str = ""

    def __post_init__(self):
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {self.level!r}")

    def pick(self, quick, full):
        """The budget for this level."""
        return quick if self.level == "quick" else full

    def rng(self, tag: str = "") -> np.random.Generator:
        """A generator determined by (seed, claim id, tag) alone."""
        h = hashlib.sha256(f"{self.seed}|{self.claim_id}|{tag}".encode()).digest()
        return np.random.default_rng(int.from_bytes(h[:8], "little"))


@dataclass(frozen=True)
class Check:
    id: str
    func: Callable[[Context], Evidence]
    method: str

    @property
    def entry(self):
        return entries()[self.id]


REGISTRY: dict[str, Check] = {}


def register(claim_id: str, *, method: str):
    """Register ``func`` as the check of catalogue entry ``claim_id`` (exactly one per id)."""
    if claim_id not in entries():
        raise KeyError(f"{claim_id!r} is not an id of claims.md")

    def deco(func):
        if claim_id in REGISTRY:
            raise KeyError(f"{claim_id!r} already has a check ({REGISTRY[claim_id].func.__module__})")
        REGISTRY[claim_id] = Check(claim_id, func, method)
        return func

    return deco


def load_all() -> dict[str, Check]:
    """Import every module of ``proofs_check.checks`` (registering their checks)."""
    import importlib

    for name in check_module_names():
        importlib.import_module(name)
    return REGISTRY


def check_module_names() -> list[str]:
    """Every module under ``proofs_check.checks`` (packages walked), sorted."""
    import pkgutil

    from . import checks

    return sorted(m.name for m in pkgutil.walk_packages(checks.__path__, checks.__name__ + ".")
                  if not m.ispkg)


def module_for(claim_id: str) -> tuple[str, ...]:
    """The module(s) where the check of ``claim_id`` must live: an id leads to its file.

    ``family.group.rest`` lives in ``proofs_check/checks/family/group.py``, or, where a group is
    a package, in ``proofs_check/checks/family/group/<third component>.py``.
    """
    parts = claim_id.split(".")
    base = f"proofs_check.checks.{parts[0]}.{parts[1]}"
    return (base,) + ((f"{base}.{parts[2]}",) if len(parts) > 2 else ())


# Claim families of claims.md whose checks are built by later issues (none at present).
# Their unregistered ids are listed as "not yet checked" in LEDGER.md and
# are absent from ledger.json; remove a family here once all its checks are registered.
PENDING_FAMILIES: tuple[str, ...] = ()


def family(claim_id: str) -> str:
    """The family of a claim id: the part before the first dot (``yat``, ``itnet``, ``particles``)."""
    return claim_id.split(".", 1)[0]


def is_pending(claim_id: str) -> bool:
    """True when ``claim_id`` belongs to a family whose checks are not built yet."""
    return family(claim_id) in PENDING_FAMILIES
