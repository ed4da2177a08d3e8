"""Refuted claims read as sentences (LEDGER.md's summary by paper, the site's index).

For every registered claim whose record (level quick, seed 0) is REFUTED:
- a sentence is registered (``proofs_check.site.sentences``) for one of its refuted leaves and fits
  the record (no fallback to the deciding threshold);
- the summary (``report.decisive_sentence``) is words, not a Python expression, and leaks no
  Markdown escaping;
- the sentence takes its numbers from the record: with the record's numbers changed, it changes.

Cheap tests below check the expression heuristic itself, the fallbacks and the Markdown lines.
"""
from __future__ import annotations

import copy
import re

import pytest

from tests.checkrun import run_quick
from proofs_check import registry
from proofs_check import verdicts as V
from proofs_check.catalogue import entries
from proofs_check.registry import Evidence, Repro, Threshold
from proofs_check.report import decisive_sentence, render_markdown, run_metadata, walk
from proofs_check.site import sentences as S

registry.load_all()
IDS = list(registry.REGISTRY)

# What gives a summary away as code (or as escaped Markdown) rather than a sentence.
_CODE = [
    (re.compile(r"==|!="), "a comparison operator"),
    (re.compile(r"\b(?:np|math|yatmath|scipy)\.\w"), "a module attribute"),
    (re.compile(r"\b(?:abs|float|int|len|round|sum|max|min|bool|list)\("), "a Python call"),
    (re.compile(r"\*\*"), "a power operator"),
    (re.compile(r"\.tolist\(\)|\blambda\b"), "Python"),
    (re.compile(r"\[[^\]]*\bfor \w+ in\b"), "a comprehension"),
    (re.compile(r"\b[A-Za-z_]\w*\s*(?:<=|>=)\s*[A-Za-z_]\w*"), "'<=' between identifiers"),
    (re.compile(r"\\\|"), "an escaped pipe"),
    (re.compile(r"\\\\"), "a doubled backslash"),
    (re.compile(r"\d[eE][+-]\d"), "a Python exponent"),
]


def code_marks(text: str) -> list[str]:
    """Why ``text`` reads as code or leaks escaping ([] when it reads as words)."""
    return [f"{why}: {m.group(0)!r}" for pat, why in _CODE for m in [pat.search(text)] if m]


def _record(cid: str) -> dict:
    return {"id": cid, **run_quick(cid).to_dict()}


def _refuted_leaves(rec: dict):
    return [(p, n) for p, n in walk(rec, readings=False)
            if n["verdict"] == V.REFUTED and not n.get("parts")]


def _registered(rec: dict) -> list[tuple[str, str]]:
    """(leaf path, sentence) of the refuted leaves that have a sentence; raises where one does
    not fit the record."""
    out = []
    for path, node in _refuted_leaves(rec):
        text = S.for_leaf(rec, path, node, strict=True)
        if text is not None:
            out.append((path, text))
    return out


def _perturbed(obj):
    """``obj`` with every number changed (floats scaled, integers incremented)."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return obj + 1
    if isinstance(obj, float):
        return obj * 1.0123 + 1e-3
    if isinstance(obj, list):
        return [_perturbed(v) for v in obj]
    if isinstance(obj, dict):
        return {k: (v if k in ("verdict", "kind") else _perturbed(v)) for k, v in obj.items()}
    return obj


# --------------------------------------------------------------------------------------------
# every refuted record of the quick ledger


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_refuted_summary_is_a_sentence(cid):
    rec = _record(cid)
    if rec["verdict"] != V.REFUTED:
        return
    said = _registered(rec)
    assert said, (f"{cid}: no sentence in proofs_check/site/sentences.py for any of its refuted "
                  f"leaves {[p for p, _ in _refuted_leaves(rec)]}")
    summary = decisive_sentence(rec)
    assert summary.startswith(said[0][1])
    assert code_marks(summary) == [], f"{cid}: {summary}"
    assert re.search(r"\d", said[0][1]), f"{cid}: the sentence states no number"


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_sentence_numbers_come_from_the_record(cid):
    rec = _record(cid)
    if rec["verdict"] != V.REFUTED:
        return
    other = _perturbed(copy.deepcopy(rec))
    for (path, text), (path2, text2) in zip(_registered(rec), _registered(other)):
        assert path == path2
        assert text != text2, f"{cid} {path}: the sentence prints no number of the record: {text}"


def test_every_sentence_belongs_to_a_registered_claim():
    for cid, leaf in S.SENTENCES:
        assert cid in entries() and cid in registry.REGISTRY, cid
        assert leaf == "" or not leaf.startswith("claim"), (cid, leaf)


# --------------------------------------------------------------------------------------------
# the heuristic, the fallbacks and LEDGER.md


# Summaries of the ledger before sentences (each is code, or leaks escaping)
OLD = [
    "[float(v) for v in yatmath.features.fourier.imq_fourier_transform(np.array(xi), d, eps)] "
    "(removable_at_0) = [1954, 1.974e+05, 1.974e+07]",
    "abs(1.0 - float(yatmath.yat.gram(np.zeros((1, 1)), np.array(W), eps=eps)[0] @ np.array(c))) = 1",
    "lr_gpt2 == lr_aether (identical_hyperparameters) = false",
    "mv + lam * eps ** (-s) / (2 * math.ceil(length / eps)) = 1.25e+04",
    r"K(w,x) eps/\|\|w\|\|^4 <= 1: measured 2 against 1 (paper: 000 Prop 11: \\|\\|w\\|\\|^4/eps)",
]


@pytest.mark.parametrize("text", OLD)
def test_heuristic_flags_expressions_and_escapes(text):
    assert code_marks(text)


def test_heuristic_passes_words():
    assert code_marks("000 Prop 11 says K(w,x) ≤ ‖w‖⁴/ε; at w = (1, 0) K = 2, against the bound "
                      "1 (‖x‖ = 10⁶, ratio 1.97×10⁵, error 0.0239 for x in [0, 1]).") == []


def _leaf(**kw) -> Evidence:
    return Evidence(verdict=V.REFUTED, counterexample={"k": 1}, **kw)


def test_fallback_states_the_threshold_unescaped_and_never_the_expression():
    th = Threshold("K eps/||w||^4 <= 1", 1.0, "paper", "000 Prop 11: '||w||^4/eps'", 2.0, 2.0)
    rec = {"id": "test.none", **_leaf(repro=Repro("float(np.dot(w, x))", {}, 1.0),
                                      thresholds=[th]).to_dict()}
    text = decisive_sentence(rec)
    assert "measured 2 against 1" in text and "||w||^4" in text and "\\" not in text
    rec = {"id": "test.none", **_leaf(repro=Repro("float(np.dot(w, x)) == 1.0", {}, False)).to_dict()}
    text = decisive_sentence(rec)
    assert "np." not in text and "==" not in text and "reproduction" in text


def test_a_sentence_that_no_longer_fits_falls_back():
    th = Threshold("the deciding number", 1.0, "paper", "000 Prop 11", 3.0, 3.0)
    ev = Evidence.of_parts({"K<=||w||^4/eps_for_all_x": _leaf(repro=Repro("1", {}, 1),
                                                              thresholds=[th])})
    rec = {"id": "yat.bound.global_upper", **ev.to_dict()}
    path, node = _refuted_leaves(rec)[0]
    with pytest.raises(KeyError):
        S.for_leaf(rec, path, node, strict=True)
    assert "the deciding number (K<=||w||^4/eps_for_all_x): measured 3 against 1" in \
        decisive_sentence(rec)


def test_ledger_md_summary_lines_are_sentences_without_escapes():
    th = Threshold("K eps/||w||^4 <= 1", 1.0, "paper", "000 Prop 11: '||w||^4/eps'", 2.0, 2.0)
    ce = {"w": [1.0, 0.0], "x": [2.0, 0.0], "eps": 1.0, "K(w,x)": 2.0, "claimed_bound": 1.0}
    leaf = Evidence(verdict=V.REFUTED, numbers={"max_search_ratio_sup/(a^4/eps)": 1001.0},
                    counterexample=ce, repro=Repro("1", {}, 1), thresholds=[th])
    rec = {"id": "yat.bound.global_upper", "sources": entries()["yat.bound.global_upper"].sources,
           "statement": "", **Evidence.of_parts({"K<=||w||^4/eps_for_all_x": leaf}).to_dict(),
           "method": "m", "seconds": 0.0, "seed": 0, "level": "quick", "warnings": [],
           "error": None, "versions": {}}
    meta = run_metadata([rec], level="quick", seed=0, only=None, seconds=0.0, versions={})
    md = render_markdown([rec], meta)
    summary = md[md.index("## Summary by paper"):md.index("## Claims")]
    line = next(x for x in summary.splitlines() if "`yat.bound.global_upper`" in x)
    assert "K(w,x) ≤ ‖w‖⁴/ε" in line and "K = 2 against the bound 1" in line
    assert "1,001 times the bound" in line
    assert code_marks(line.split(": ", 1)[1]) == []
    # outside tables nothing is escaped; inside the claims table the pipe is escaped once
    section = md[md.index("## Counterexamples"):]
    assert "\\|" not in section and "\\|" not in summary
    assert r"K eps/\|\|w\|\|^4 <= 1" in md[md.index("## Thresholds"):md.index("## Counterexamples")]
