"""The verdict rules of claims.md as code: verdicts.py, Evidence.problems, repro.py, stats.py."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from proofs_check import stats
from proofs_check import verdicts as V
from proofs_check.registry import Bound, Evidence, Reading, Repro, Scope, Threshold, Tried
from proofs_check.repro import agrees, evaluate, run_repro, validate

ALL = V.VERDICTS


# --------------------------------------------------------------------------------------------
# combining parts


@pytest.mark.parametrize("vs", list(itertools.product(ALL, repeat=2)))
def test_combine_parts_follows_the_rules(vs):
    got = V.combine_parts(vs)
    if V.REFUTED in vs:
        assert got == V.REFUTED                      # any refuted part refutes the claim
    elif V.AMBIGUOUS in vs:
        assert got == V.AMBIGUOUS
    elif V.NOT_CHECKABLE in vs:
        assert got == V.NOT_CHECKABLE                # an unchecked part: not checkable
    elif V.INCONCLUSIVE in vs:
        assert got == V.INCONCLUSIVE
    elif V.CONFIRMED_LOOSE in vs:
        assert got == V.CONFIRMED_LOOSE
    else:
        assert got == V.CONFIRMED
    assert (got == V.CONFIRMED) == all(v == V.CONFIRMED for v in vs)


def test_consistency_never_confirms_an_experiment():
    """Printed numbers that agree (CONFIRMED) beside a replication that cannot run."""
    assert V.combine_parts([V.CONFIRMED, V.NOT_CHECKABLE]) == V.NOT_CHECKABLE


def test_undecided_readings():
    assert V.undecided_readings([V.CONFIRMED, V.REFUTED]) == V.AMBIGUOUS
    assert V.undecided_readings([V.REFUTED, V.REFUTED]) == V.REFUTED
    with pytest.raises(ValueError, match="two readings"):
        V.undecided_readings([V.REFUTED])
    with pytest.raises(ValueError, match="verdict must be one of"):
        V.combine_parts(["MAYBE"])


def test_from_bound_and_interval():
    assert V.from_bound(1.0 + 1e-15, 1.0, rtol=1e-12) == V.CONFIRMED
    assert V.from_bound(1.0 + 1e-9, 1.0, rtol=1e-12) == V.REFUTED
    assert V.from_interval((-0.52, -0.48), -0.5) == V.CONFIRMED
    assert V.from_interval((-0.9, -0.8), -0.5) == V.REFUTED
    assert V.from_interval((-0.9, -0.8), -0.5, below_is_loose=True) == V.CONFIRMED_LOOSE
    assert V.from_interval((-0.3, -0.2), -0.5, below_is_loose=True) == V.REFUTED
    with pytest.raises(ValueError, match="low <= high"):
        V.from_interval((1, 0), 0.5)


# --------------------------------------------------------------------------------------------
# Evidence.problems


def _leaf(verdict, **kw):
    if verdict in (V.CONFIRMED, V.CONFIRMED_LOOSE):
        kw.setdefault("scope", Scope("search", "40 restarts", universal=True))
    if verdict == V.REFUTED:
        kw.setdefault("counterexample", {"x": 1.0})
        kw.setdefault("repro", Repro("x + 1", {"x": 1.0}, expected=2.0))
    if verdict in (V.NOT_CHECKABLE, V.INCONCLUSIVE):
        kw.setdefault("notes", "why")
    return Evidence(verdict=verdict, **kw)


def test_a_well_formed_record_has_no_problems():
    ev = Evidence.of_parts({"a": _leaf(V.CONFIRMED), "b": _leaf(V.REFUTED)},
                           reading=Reading("text", "000 §3: quote"),
                           other_readings={"weaker": _leaf(V.CONFIRMED, reading=Reading("w", "p"))})
    assert ev.verdict == V.REFUTED and ev.problems() == []


@pytest.mark.parametrize("bad, words", [
    (Evidence(verdict=V.CONFIRMED, parts={"a": _leaf(V.REFUTED)}), "does not follow from its parts"),
    (Evidence(verdict=V.REFUTED, counterexample={"x": 1}), "without a Repro"),
    (Evidence(verdict=V.REFUTED, repro=Repro("1", {}, 1)), "without a counterexample"),
    (Evidence(verdict=V.CONFIRMED), "without a Scope"),
    (Evidence(verdict=V.CONFIRMED, scope=Scope("instance", "w = x = 1", universal=True)),
     "universal statement"),
    (Evidence(verdict=V.CONFIRMED, scope=Scope("consistency", "printed numbers")), "consistency"),
    (Evidence.of_parts({"table": Evidence(verdict=V.CONFIRMED, scope=Scope("consistency", "sums"))}),
     "consistency of printed numbers alone"),
    (Evidence(verdict=V.NOT_CHECKABLE), "must say why"),
    (Evidence(verdict=V.AMBIGUOUS), "two readings"),
    (Evidence(verdict=V.AMBIGUOUS, other_readings={
        "R1": _leaf(V.CONFIRMED, reading=Reading("r1", "")),
        "R2": _leaf(V.REFUTED, reading=Reading("r2", "001 eq.3"))}), "cites no passage"),
    (Evidence(verdict=V.CONFIRMED, scope=Scope("search", "s"),
              other_readings={"R2": _leaf(V.REFUTED, reading=Reading("r2", "p"))}),
     "operative one is not named"),
])
def test_problems_name_each_broken_rule(bad, words):
    assert any(words in p for p in bad.problems()), bad.problems()


TRIED = Tried(printed="000 Table 2 against 001 §4: no two printed numbers differ",
              search="eps over [1e-6, 1e2] and d over 2..512: no input settles the vague word",
              budget="the decisive run needs training on ImageNet; no budget here decides it")


@pytest.mark.parametrize("verdict", [V.NOT_CHECKABLE, V.INCONCLUSIVE])
def test_giving_up_needs_the_rule_5_record(verdict):
    """Rule 5: NOT_CHECKABLE and INCONCLUSIVE only after (a) printed numbers, (b) a search and
    (c) the budget were tried, and the record says what was tried."""
    bare = Evidence(verdict=verdict, notes="why")
    assert any("rule 5" in p for p in bare.problems())
    half = Evidence(verdict=verdict, notes="why", tried=Tried(printed="p", search=" ", budget=""))
    assert any("search, budget empty" in p for p in half.problems())
    assert Evidence(verdict=verdict, notes="why", tried=TRIED).problems() == []
    # the rule reaches other readings and parts
    ev = Evidence.of_parts({"a": _leaf(V.CONFIRMED), "b": bare})
    assert any("parts[b]" in p and "rule 5" in p for p in ev.problems())
    ok = _leaf(V.CONFIRMED, reading=Reading("t", "p"),
               other_readings={"R2": Evidence(verdict=verdict, notes="why",
                                              reading=Reading("r2", "p"))})
    assert any("other_readings[R2]" in p for p in ok.problems())


@pytest.mark.parametrize("better, tight, claimed, want", [
    ("smaller", 0.5, 1.0, V.CONFIRMED_LOOSE),    # sqrt(r)||K-K_r||_F/||K||_* <= 1/2 < 1
    ("smaller", 1.0, 1.0, V.CONFIRMED),
    ("smaller", 1.0 + 1e-13, 1.0, V.CONFIRMED),  # within the rtol of the tight value
    ("smaller", 2.0, 1.0, V.REFUTED),
    ("larger", 2.0, 1.0, V.CONFIRMED_LOOSE),     # a measured exponent 2 against a claimed 1
    ("larger", 0.5, 1.0, V.REFUTED),
])
def test_bound_verdicts(better, tight, claimed, want):
    b = Bound("c", claimed=claimed, tight=tight, better=better, rtol=1e-12, how="attained")
    assert b.verdict() == want == V.from_tight(tight, claimed, rtol=1e-12, better=better)


def test_a_confirmed_bound_with_a_better_constant_is_loose():
    loose = Bound("sqrt(r)||K-K_r||_F/||K||_*", claimed=1.0, tight=0.5, better="smaller", rtol=0,
                  how="proved; attained at 2r equal singular values")
    bad = _leaf(V.CONFIRMED, bounds=[loose])
    assert any("strictly better" in p and "CONFIRMED_LOOSE" in p for p in bad.problems())
    assert _leaf(V.CONFIRMED_LOOSE, bounds=[loose]).problems() == []
    broken = Bound("c", claimed=1.0, tight=2.0, better="smaller", rtol=0, how="attained")
    assert any("breaks the claimed" in p for p in _leaf(V.CONFIRMED_LOOSE, bounds=[broken]).problems())
    with pytest.raises(ValueError, match="better"):
        Bound("c", 1.0, 1.0, better="tighter", rtol=0, how="x")
    with pytest.raises(ValueError, match="how"):
        Bound("c", 1.0, 1.0, better="smaller", rtol=0, how=" ")


def test_consistency_is_a_part_of_its_own():
    ev = Evidence.of_parts({"printed": _leaf(V.CONFIRMED, scope=Scope("consistency", "sums")),
                            "replication": _leaf(V.NOT_CHECKABLE, tried=TRIED)})
    assert ev.verdict == V.NOT_CHECKABLE and ev.problems() == []


def test_undecided_readings_record():
    ev = Evidence.of_undecided_readings({
        "R1": _leaf(V.CONFIRMED, reading=Reading("r1", "000 §2: a")),
        "R2": _leaf(V.REFUTED, reading=Reading("r2", "001 §2: b"))}, notes="nothing decides")
    assert ev.verdict == V.AMBIGUOUS and ev.problems() == []


def test_thresholds_must_not_be_private():
    with pytest.raises(ValueError, match="private number"):
        Threshold("competitive", 2.0, "chosen", "us", 1.0, 1.0)
    with pytest.raises(ValueError, match="needs a source"):
        Threshold("x", 1.0, "paper", " ", 1.0, 1.0)
    with pytest.raises(ValueError, match="Scope.kind"):
        Scope("guess", "")
    with pytest.raises(TypeError, match="repro must be a Repro"):
        Evidence(verdict=V.CONFIRMED, repro="yatmath.yat.product(w, x, 1)")


# --------------------------------------------------------------------------------------------
# reproductions


def test_repro_runs_public_api_with_bindings():
    rep = Repro("yatmath.yat.product(np.array(w), np.array(x), eps)",
                {"w": [1.0, 2.0], "x": [2.0, 0.0], "eps": 1.0}, expected=4.0 / 6.0).to_dict()
    value, ok = run_repro(rep)
    assert ok and value == pytest.approx(4.0 / 6.0, rel=1e-15)
    rep["expected"] = 0.7
    assert run_repro(rep)[1] is False


@pytest.mark.parametrize("expr, words", [
    ("yatmath.yat._kernels", "private attribute"),
    ("_x + 1", "private name"),
    ("w + 1", "free name"),
    ("x = 1", "one Python expression"),
    ("__import__('os')", "private name"),
])
def test_repro_refuses_private_or_free_names(expr, words):
    with pytest.raises(ValueError, match=words):
        validate(expr, {})


def test_repro_lambdas_and_comprehensions_bind_their_names():
    assert evaluate("sum(k * k for k in range(n))", {"n": 4}) == 14
    assert evaluate("(lambda t: t + 1)(a)", {"a": 1}) == 2


def test_repro_library_code_may_import_lazily():
    assert evaluate("np.array(g).var(0, ddof=1)", {"g": [1.0, 3.0]}) == 2.0


def test_agrees():
    assert agrees(1.0 + 1e-12, 1.0, rtol=1e-9, atol=0)
    assert not agrees([1.0, 2.0], [1.0], rtol=1e-9, atol=0)
    assert agrees(np.bool_(True), True, rtol=0, atol=0)
    assert agrees(float("inf"), float("inf"), rtol=1e-9, atol=0)


# --------------------------------------------------------------------------------------------
# statistics


def test_loglog_fit_recovers_a_power_law_and_covers_it():
    rng = np.random.default_rng(0)
    x = np.logspace(1, 4, 12)
    y = 3.0 * x ** -0.5 * np.exp(rng.normal(0, 0.05, x.size))
    fit = stats.loglog_fit(x, y, np.random.default_rng(1), n_boot=500)
    assert fit.ci[0] < -0.5 < fit.ci[1] and fit.ci[1] - fit.ci[0] < 0.1
    reps = 3.0 * x[:, None] ** -1.0 * np.exp(rng.normal(0, 0.1, (x.size, 30)))
    fit2 = stats.loglog_fit(x, reps, np.random.default_rng(2), n_boot=300)
    assert fit2.ci[0] < -1.0 < fit2.ci[1]
    with pytest.raises(ValueError, match="positive"):
        stats.loglog_fit(x, -y, rng)


def test_mean_and_binomial_intervals_cover_at_their_level():
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(400):
        m, (lo, hi) = stats.mean_ci(rng.normal(1.0, 2.0, 20))
        hits += lo <= 1.0 <= hi
    assert 0.91 <= hits / 400 <= 0.99            # 95% nominal, 400 trials: +-2.2% s.e.
    lo, hi = stats.binom_ci(0, 50)
    assert lo == 0.0 and 0.05 < hi < 0.08         # exact: 1 - 0.025^(1/50) = 0.0711
    assert hi == pytest.approx(1 - 0.025 ** (1 / 50), rel=1e-9)


def test_psd_report_and_rel_err():
    r = stats.psd_report(np.diag([2.0, 1.0, -1e-14]))
    assert r["psd"] and r["rank"] == 2 and r["ratio"] == pytest.approx(-5e-15)
    assert not stats.psd_report(np.diag([1.0, -1e-6]))["psd"]
    assert stats.rel_err([1.0, 2.0], [1.0, 4.0]) == 0.5
    assert stats.rel_err([0.0], [0.0]) == 0.0 and stats.rel_err([1.0], [0.0]) == float("inf")


def test_decisive_sentence_comes_from_the_operative_reading():
    from proofs_check.report import decisive_sentence

    other = _leaf(V.REFUTED, reading=Reading("weaker", "p"),
                  thresholds=[Threshold("other reading's number", 1.0, "paper", "q", 9.0, 9.0)])
    refuted = _leaf(V.REFUTED, thresholds=[Threshold("decisive number", 1.0, "paper", "eq.3", 2.5, 2.5)])
    ev = Evidence.of_parts({"a": _leaf(V.CONFIRMED), "b": refuted}, reading=Reading("op", "000 §1"),
                           other_readings={"R2": other})
    text = decisive_sentence(ev.to_dict())
    assert "decisive number (b): measured 2.5 against 1" in text and "other reading" not in text
