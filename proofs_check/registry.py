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
            repro="yatmath.yat.product(w, x, eps) * eps / ||w||**4",
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


@dataclass
class Evidence:
    """What a check measured and what it concludes.

    verdict          one of ``verdicts.VERDICTS``, computed from ``numbers``
    numbers          the measured quantities (plain floats/ints/lists/strings), JSON-serialisable
    counterexample   for REFUTED: plain numbers a reader can re-evaluate; else None
    repro            a one-line ``yatmath`` expression that re-evaluates the counterexample or
                     the key number
    parts            sub-claims or readings: name -> Evidence (one record holds them all)
    notes            what was done, what the budget could not decide, substitutes used
    """

    verdict: str
    numbers: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    repro: str = ""
    parts: dict[str, "Evidence"] = field(default_factory=dict)
    notes: str = ""

    def __post_init__(self):
        if self.verdict not in V.VERDICTS:
            raise ValueError(f"verdict must be one of {V.VERDICTS}, got {self.verdict!r}")

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "evidence": _plain(self.numbers),
            "counterexample": _plain(self.counterexample),
            "repro": self.repro,
            "parts": {k: p.to_dict() for k, p in self.parts.items()},
            "notes": self.notes,
        }


def _plain(obj):
    """Convert numpy scalars/arrays (recursively) into JSON-ready Python objects."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):  # np.float64 too: store a plain float, non-finite as "inf"/"nan"
        return float(obj) if np.isfinite(obj) else repr(float(obj))
    if isinstance(obj, np.generic):
        return _plain(obj.item())
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
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
    import pkgutil

    from . import checks

    for mod in sorted(pkgutil.iter_modules(checks.__path__), key=lambda m: m.name):
        importlib.import_module(f"{checks.__name__}.{mod.name}")
    return REGISTRY


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
