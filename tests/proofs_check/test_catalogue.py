"""The claim catalogue and the ledger cannot drift apart.

- the shipped proofs_check/claims.md is the shared spec's claims.md (when the shared file exists);
- ids are unique and well formed;
- every id has a registered check after ``load_all()``, unless its family is pending (built by a
  later issue: ``registry.PENDING_FAMILIES``); every registered check belongs to a catalogue id.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from proofs_check import registry
from proofs_check.catalogue import CATALOGUE, entries
from proofs_check.report import statement_of

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "spec" / "claims.md"


def test_shipped_catalogue_equals_shared_spec():
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is absent (checkout without the shared spec)")
    assert CATALOGUE.read_bytes() == SHARED.read_bytes(), (
        "proofs_check/claims.md differs from ../shared/spec/claims.md: copy the spec over")


def test_shipped_papers_equal_shared_seeds():
    from proofs_check.papers import DIR
    seeds = REPO.parent / "shared" / "seeds"
    if not seeds.is_dir():
        pytest.skip(f"{seeds} is absent (checkout without the shared seeds)")
    shared = {p.name: p.read_bytes() for p in seeds.glob("*.txt")}
    shipped = {p.name: p.read_bytes() for p in DIR.glob("*.txt")}
    assert shipped == shared, "proofs_check/papers differs from ../shared/seeds: copy the seeds over"


def test_ids_are_unique_and_well_formed():
    raw = re.findall(r"^### (.*)$", CATALOGUE.read_text(encoding="utf-8"), flags=re.M)
    ids = [r.strip() for r in raw]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"duplicate ids: {dup}"
    bad = [i for i in ids if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+", i)]
    assert not bad, f"malformed ids: {bad}"
    assert list(entries()) == ids


def test_every_entry_has_sources_and_a_statement():
    E = entries()
    assert not [i for i, e in E.items() if not e.sources]
    assert not [i for i, e in E.items() if not statement_of(e)]


def test_pending_families_are_catalogue_families():
    fams = {registry.family(i) for i in entries()}
    assert set(registry.PENDING_FAMILIES) <= fams
    assert "yat" in fams and "yat" not in registry.PENDING_FAMILIES


def test_every_claim_has_a_check_or_a_pending_family():
    reg = registry.load_all()
    missing = [i for i in entries() if i not in reg and not registry.is_pending(i)]
    assert not missing, f"{len(missing)} claims of claims.md have no registered check: {missing}"
    stray = sorted(set(reg) - set(entries()))
    assert not stray, f"checks registered under ids absent from claims.md: {stray}"
    assert all(reg[i].method.strip() for i in reg), "every check states its method"


def test_register_refuses_unknown_and_duplicate_ids(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", {})
    with pytest.raises(KeyError, match="not an id of claims.md"):
        registry.register("yat.no_such_claim", method="m")
    registry.register("yat.def.basic", method="m")(lambda ctx: None)
    with pytest.raises(KeyError, match="already has a check"):
        registry.register("yat.def.basic", method="m")(lambda ctx: None)
