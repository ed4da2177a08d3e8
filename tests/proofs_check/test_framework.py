"""The ledger framework: runner, report and the ``yatmath check`` command, on fake checks.

The fake checks are registered into an empty registry (``registry.REGISTRY`` is monkeypatched and
``runner.load_checks`` made a no-op, so the real check modules play no part).  They use real
catalogue ids, measure something with yatmath and decide by a rule (``V.holds``/``V.from_bound``):

- ``yat.def.basic``          symmetry K(w,x) = K(x,w) on random pairs        -> CONFIRMED
- ``yat.def.expanded_form``  draws from ctx.rng and numpy's global generator -> CONFIRMED
- ``yat.bound.global_upper`` a false bound K(w,x) <= ||w||^2 (the true sup along the ray through
                             w is larger), maximised on a grid                -> REFUTED
- ``yat.mercer_psd``         Cholesky of a negative definite matrix raises    -> CRASHED
"""
from __future__ import annotations

import io
import json
import math
import re
import warnings

import numpy as np
import pytest

import yatmath.yat as Y
from proofs_check import registry, report, runner
from proofs_check import verdicts as V
from proofs_check.catalogue import entries
from proofs_check.registry import Evidence, Repro, Scope, Threshold, register
from yatmath.cli import main

CONFIRM, DRAWS, REFUTE, CRASH = ("yat.def.basic", "yat.def.expanded_form",
                                 "yat.bound.global_upper", "yat.mercer_psd")
REQUIRED = {"id", "sources", "statement", "verdict", "evidence", "counterexample", "repro", "parts",
            "notes", "method", "seconds", "seed", "level"}


def _symmetry(ctx):
    rng = ctx.rng("pairs")
    w, x = rng.normal(size=(2, 50, 3))
    k1, k2 = Y.product(w, x, 0.1), Y.product(x, w, 0.1)
    asym = float(np.max(np.abs(k1 - k2)) / np.max(k1))
    # K is symmetric in exact arithmetic; both orders round the same terms: 1e-12 is generous
    return Evidence(verdict=V.holds(asym <= 1e-12), numbers={"max_rel_asymmetry": asym, "pairs": 50},
                    scope=Scope("instance", "50 Gaussian pairs in d = 3"),
                    thresholds=[Threshold("max relative asymmetry", 1e-12, "precision",
                                          "float64, both orders round the same terms", asym, asym)])


def _draws(ctx):
    a = float(ctx.rng("a").random())
    b = float(np.random.random())  # the runner seeds the global generator per claim
    return Evidence(verdict=V.holds(0 <= a < 1 and 0 <= b < 1), numbers={"ctx_draw": a, "global_draw": b},
                    scope=Scope("instance", "one draw of each generator"))


def _false_bound(ctx):
    w, eps = np.array([1.0, 1.0]), 0.5
    ks = np.linspace(-6, 6, ctx.pick(2001, 20001))
    xs = ks[:, None] * w / np.linalg.norm(w)
    K = Y.product(w, xs, eps)
    i = int(np.argmax(K))
    ratio = float(K[i] / np.dot(w, w))
    return Evidence(
        verdict=V.from_bound(ratio, 1.0, rtol=1e-12),
        numbers={"max_ratio": ratio, "grid": len(ks)},
        counterexample={"w": w, "x": xs[i], "eps": eps, "K": K[i]},
        repro=Repro("yatmath.yat.product(np.array(w), np.array(x), eps) / np.dot(w, w)",
                    {"w": w.tolist(), "x": xs[i].tolist(), "eps": eps}, expected=ratio),
        thresholds=[registry.bound_threshold("K / ||w||^2 <= 1", ratio, 1.0, source="fake claim")],
        plot=registry.Plot({"K / ||w||^2": (ks.tolist(), (K / np.dot(w, w)).tolist())},
                           "position along w", "ratio", logx=False, logy=False),
    )


def _crash(ctx):
    np.linalg.cholesky(-np.eye(2))  # raises LinAlgError
    return Evidence(verdict=V.holds(True))


FAKES = {CONFIRM: (_symmetry, "symmetry on random pairs"),
         DRAWS: (_draws, "draw from ctx.rng and np.random"),
         REFUTE: (_false_bound, "grid maximisation along the ray through w"),
         CRASH: (_crash, "cholesky of -I")}


@pytest.fixture
def fake(monkeypatch):
    """An empty registry holding only the fake checks; no real check module is loaded.

    Every family now has its checks, so the pending-family mechanism is exercised by declaring
    ``itnet`` pending here.
    """
    monkeypatch.setattr(registry, "REGISTRY", {})
    monkeypatch.setattr(registry, "PENDING_FAMILIES", ("itnet",))
    monkeypatch.setattr(runner, "load_checks", lambda: {})
    for cid, (func, method) in FAKES.items():
        register(cid, method=method)(func)
    return registry.REGISTRY


def _ledger(out):
    return json.loads((out / "ledger.json").read_text(encoding="utf-8"))


def _by_id(recs):
    return {r["id"]: r for r in recs}


# --------------------------------------------------------------------------------------------


def test_run_writes_ledger_with_crash_recorded(fake, tmp_path, capsys):
    out = tmp_path / "led"
    rc = main(["check", "--out", str(out), "--only", "yat.def.*,yat.bound.global_upper,yat.mercer_psd"])
    assert rc == 1  # one check crashed
    recs = _ledger(out)
    assert isinstance(recs, list) and [r["id"] for r in recs] == [
        i for i in entries() if i in FAKES]  # catalogue order
    for r in recs:
        assert REQUIRED <= set(r), REQUIRED - set(r)
        e = entries()[r["id"]]
        assert r["sources"] == e.sources and r["sources"]
        assert r["statement"] and r["method"] == FAKES[r["id"]][1]
        assert r["seed"] == 0 and r["level"] == "quick" and r["seconds"] >= 0
    by = _by_id(recs)
    assert by[CONFIRM]["verdict"] == "CONFIRMED" and by[CONFIRM]["counterexample"] is None
    assert by[CONFIRM]["evidence"]["max_rel_asymmetry"] <= 1e-12

    ref = by[REFUTE]
    assert ref["verdict"] == "REFUTED"
    ce = ref["counterexample"]
    # the stored counterexample is plain numbers that re-evaluate with yatmath
    k = float(Y.product(np.array(ce["w"]), np.array(ce["x"]), ce["eps"]))
    assert k == pytest.approx(ce["K"], rel=1e-12)
    assert k > np.dot(ce["w"], ce["w"])  # it violates the (false) bound
    assert ref["evidence"]["max_ratio"] > 1 and ref["repro"]

    cr = by[CRASH]
    assert cr["verdict"] == "CRASHED" and cr["error"]["type"] == "LinAlgError"
    assert "_crash" in cr["error"]["traceback"] and "cholesky" in cr["error"]["traceback"]
    assert cr["evidence"] == {} and cr["counterexample"] is None
    # the crash does not stop the run: the check after it in catalogue order still ran
    assert list(by).index(CRASH) < len(recs) - 1

    meta = json.loads((out / "ledger.meta.json").read_text())
    run = meta["run"]
    assert {"python", "numpy", "scipy", "sympy", "numba", "yatmath"} <= set(run["versions"])
    assert run["seed"] == 0 and run["level"] == "quick"
    assert run["total_seconds"] >= sum(r["seconds"] for r in recs) - 1e-3
    assert meta["counts"]["CONFIRMED"] == 2 and meta["counts"]["REFUTED"] == 1
    assert meta["counts"]["CRASHED"] == 1
    assert not list(out.glob("*.tmp")) and [p.name for p in out.glob(".*")] == [".cache"]
    assert "crashed" in capsys.readouterr().err


def test_ledger_md_summary_then_rows(fake, tmp_path):
    out = tmp_path / "led"
    main(["check", "--out", str(out), "--only", "yat.def.*,yat.bound.global_upper,yat.mercer_psd"])
    md = (out / "LEDGER.md").read_text(encoding="utf-8")
    recs = _by_id(_ledger(out))
    # the verdict counts come first, then the per-claim table
    assert md.index("| verdict | count |") < md.index("| claim | sources | verdict |")
    counts = dict(re.findall(r"^\| ([A-Z_]+) \| (\d+) \|$", md, flags=re.M))
    assert counts["CONFIRMED"] == "2" and counts["REFUTED"] == "1" and counts["CRASHED"] == "1"
    assert counts["AMBIGUOUS"] == "0"
    table = md[md.index("## Claims"):md.index("## Thresholds")]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([\w.]+)` \|.*$", table, flags=re.M)}
    for cid in FAKES:
        assert recs[cid]["verdict"] in rows[cid]
    # key numbers (4 significant digits) appear in the refuted row, the plot is linked
    ce = recs[REFUTE]["counterexample"]
    assert f"max_ratio={recs[REFUTE]['evidence']['max_ratio']:.4g}" in rows[REFUTE]
    assert f"(plots/{REFUTE}.png)" in rows[REFUTE] and (out / "plots" / f"{REFUTE}.png").exists()
    assert "LinAlgError" in rows[CRASH]
    # the counterexample section carries the values and the reproduction with its number
    section = md[md.index("## Counterexamples"):]
    assert f"K={ce['K']:.4g}" in section
    assert recs[REFUTE]["repro"]["expr"] in section
    # the summary by paper names the refuted claim with its decisive number
    summary = md[md.index("## Summary by paper"):md.index("## Claims")]
    line = next(l for l in summary.splitlines() if f"`{REFUTE}`" in l)
    assert f"{recs[REFUTE]['evidence']['max_ratio']:.4g}" in line
    # the deciding threshold is listed with its flip point
    assert "## Thresholds that decide verdicts" in md and r"K / \|\|w\|\|^2 <= 1" in md
    # every selected claim has a check here: no "not yet checked" section
    assert "## Not yet checked" not in md


def test_pending_families_listed_not_checked(fake, tmp_path):
    out = tmp_path / "led"
    rc = main(["check", "--out", str(out), "--only", "itnet.op.*,yat.def.basic,yat.mercer_proof_steps"])
    assert rc == 0
    ids = [r["id"] for r in _ledger(out)]
    assert ids == [CONFIRM]
    md = (out / "LEDGER.md").read_text(encoding="utf-8")
    section = md[md.index("## Not yet checked"):]
    itnet_op = [i for i in entries() if i.startswith("itnet.op.")]
    assert itnet_op and all(f"`{i}`" in section for i in itnet_op)
    assert all(registry.is_pending(i) for i in itnet_op)
    # a yat claim without a check is flagged as missing, not pending
    row = next(l for l in section.splitlines() if "`yat.mercer_proof_steps`" in l)
    assert "missing" in row
    meta = json.loads((out / "ledger.meta.json").read_text())
    assert set(meta["not_yet_checked"]) == set(itnet_op) | {"yat.mercer_proof_steps"}


def test_exit_zero_when_refuted_but_nothing_crashed(fake, tmp_path):
    rc = main(["check", "--out", str(tmp_path), "--only", "yat.bound.global_upper"])
    assert rc == 0
    assert _ledger(tmp_path)[0]["verdict"] == "REFUTED"


def test_only_filters_with_several_globs(fake, tmp_path):
    main(["check", "--out", str(tmp_path / "a"), "--only", "yat.def.*"])
    assert {r["id"] for r in _ledger(tmp_path / "a")} == {CONFIRM, DRAWS}
    main(["check", "--out", str(tmp_path / "b"), "--only", "yat.def.basic, yat.bound.*"])
    assert {r["id"] for r in _ledger(tmp_path / "b")} == {CONFIRM, REFUTE}
    rc = main(["check", "--out", str(tmp_path / "c"), "--only", "nothing.matches.*"])
    assert rc == 2 and not (tmp_path / "c").exists()


def test_same_seed_same_ledger_other_seed_differs(fake, tmp_path):
    only = "yat.def.*,yat.bound.global_upper"
    for d, seed in (("a", "0"), ("b", "0"), ("c", "1")):
        main(["check", "--out", str(tmp_path / d), "--seed", seed, "--only", only])

    def strip(recs):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in recs]

    a, b, c = (strip(_ledger(tmp_path / d)) for d in "abc")
    assert a == b
    da, dc = _by_id(a)[DRAWS]["evidence"], _by_id(c)[DRAWS]["evidence"]
    assert da["ctx_draw"] != dc["ctx_draw"] and da["global_draw"] != dc["global_draw"]
    assert _by_id(c)[DRAWS]["seed"] == 1


def test_runner_restores_global_random_state(fake):
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    runner.run([fake[DRAWS]], level="quick", seed=5)
    assert np.random.random() == expected


def test_interrupt_leaves_no_ledger_files(fake, tmp_path, monkeypatch):
    ran = []

    def interrupted(ctx):
        ran.append(ctx.claim_id)
        raise KeyboardInterrupt

    monkeypatch.setitem(registry.REGISTRY, CRASH, registry.Check(CRASH, interrupted, "ctrl-c"))
    out = tmp_path / "new"
    rc = main(["check", "--out", str(out), "--only", "yat.def.basic,yat.mercer_psd"])
    assert rc == 130 and ran == [CRASH]
    # no ledger file; only the cache of the check that finished (so a re-run resumes)
    assert sorted(p.name for p in out.iterdir()) == [".cache"]
    assert [p.name for p in (out / ".cache").iterdir()] == [CONFIRM]

    # an earlier ledger in the folder is left exactly as it was
    old = tmp_path / "old"
    assert main(["check", "--out", str(old), "--only", "yat.def.basic"]) == 0
    before = {p.name: p.read_bytes() for p in old.iterdir() if p.is_file()}
    assert main(["check", "--out", str(old), "--only", "yat.def.basic,yat.mercer_psd",
                 "--force"]) == 130   # another selection: --force, else refused before any work
    assert {p.name: p.read_bytes() for p in old.iterdir() if p.is_file()} == before


def test_rerun_reuses_finished_checks_and_fresh_ignores_them(fake, tmp_path, monkeypatch):
    calls = []
    real = registry.REGISTRY[CONFIRM].func

    def counted(ctx):
        calls.append(ctx.claim_id)
        return real(ctx)

    monkeypatch.setitem(registry.REGISTRY, CONFIRM, registry.Check(CONFIRM, counted, "m"))
    out = tmp_path / "led"
    assert main(["check", "--out", str(out), "--only", CONFIRM]) == 0
    first = _ledger(out)
    assert main(["check", "--out", str(out), "--only", CONFIRM]) == 0
    assert calls == [CONFIRM]                      # the second run took the cached record
    assert _ledger(out) == first
    meta = json.loads((out / "ledger.meta.json").read_text())
    assert meta["run"]["cached"] == [CONFIRM]
    assert main(["check", "--out", str(out), "--only", CONFIRM, "--fresh"]) == 0
    assert calls == [CONFIRM, CONFIRM]
    # another seed or level is another key
    assert main(["check", "--out", str(out), "--only", CONFIRM, "--seed", "1", "--force"]) == 0
    assert calls == [CONFIRM, CONFIRM, CONFIRM]


def test_cache_key_follows_the_check_source(fake):
    c = registry.REGISTRY[CONFIRM]
    k = runner.cache_key(c, level="quick", seed=0)
    assert k == runner.cache_key(c, level="quick", seed=0)
    assert k != runner.cache_key(c, level="full", seed=0)
    assert k != runner.cache_key(registry.Check(CONFIRM, json.dumps, "m"), level="quick", seed=0)


def test_atomic_write_interrupted_midway_leaves_targets(tmp_path):
    target, second = tmp_path / "a.txt", tmp_path / "b.txt"
    target.write_text("old")

    def boom(fh):
        fh.write(b"partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        report.atomic_write({target: "new", second: boom})
    assert target.read_text() == "old" and not second.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    with pytest.raises(TypeError, match="must be str, bytes or a callable"):
        report.atomic_write({target: 3})
    report.atomic_write({target: "new", second: b"\x00\x01"})
    assert target.read_text() == "new" and second.read_bytes() == b"\x00\x01"


def test_evidence_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="verdict"):
        Evidence(verdict="MAYBE")
    with pytest.raises(ValueError, match="verdict"):
        Evidence(verdict=V.CRASHED)  # reserved for the runner


def test_non_evidence_or_mutated_verdict_is_a_crash(fake):
    def returns_dict(ctx):
        return {"verdict": "CONFIRMED"}

    def mutates(ctx):
        ev = Evidence(verdict=V.holds(True))
        ev.verdict = "PROBABLY"
        return ev

    r1 = runner.run_one(registry.Check(CONFIRM, returns_dict, "m"))
    r2 = runner.run_one(registry.Check(CONFIRM, mutates, "m"))
    assert r1["verdict"] == r2["verdict"] == "CRASHED"
    assert r1["error"]["type"] == "TypeError" and "dict" in r1["error"]["message"]
    assert r2["error"]["type"] == "ValueError" and "PROBABLY" in r2["error"]["message"]


def test_warnings_are_recorded_not_printed(fake):
    def warns(ctx):
        with np.errstate(divide="warn"):
            v = np.log(np.zeros(1))[0]
        return Evidence(verdict=V.holds(v == -np.inf), numbers={"log0": v},
                        scope=Scope("exhaustive", "the one input 0"))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning escaping the runner would fail this test
        rec = runner.run_one(registry.Check(CONFIRM, warns, "m"))
    assert rec["verdict"] == "CONFIRMED"
    assert any(w.startswith("RuntimeWarning") for w in rec["warnings"])
    assert rec["evidence"]["log0"] == "-inf"  # non-finite numbers are stored as text in JSON


def test_progress_lines_in_a_log(fake):
    buf = io.StringIO()
    recs = runner.run([fake[CONFIRM], fake[CRASH], fake[REFUTE]], seed=0,
                      progress=runner.Progress(3, buf, tty=False))
    lines = buf.getvalue().splitlines()
    assert len(lines) == 3
    for i, (line, rec) in enumerate(zip(lines, recs), 1):
        m = re.fullmatch(r"\[(\d)/3\] ([\w.]+) \.\.\. ([A-Z_]+) \((\d+\.\d) s\)", line)
        assert m, line
        assert (int(m[1]), m[2], m[3]) == (i, rec["id"], rec["verdict"])
        assert abs(float(m[4]) - rec["seconds"]) <= 0.05 + 1e-9


def test_progress_single_updating_line_on_a_terminal(fake):
    buf = io.StringIO()
    runner.run([fake[CONFIRM], fake[DRAWS]], progress=runner.Progress(2, buf, tty=True))
    text = buf.getvalue()
    assert text.count("\r") == 4  # start and done for each claim, rewritten in place
    assert text.count("\n") == 1 and text.endswith("\n")  # one line, ended at close
    assert "[2/2] yat.def.expanded_form ... CONFIRMED" in text


def test_explain_prints_claim_method_evidence_repro(fake, capsys):
    rc = main(["check", "--explain", REFUTE])
    out = capsys.readouterr().out
    assert rc == 0
    e = entries()[REFUTE]
    assert e.sources in out and FAKES[REFUTE][1] in out
    assert "Verdict: REFUTED" in out and "max_ratio" in out
    assert "yatmath.yat.product(np.array(w), np.array(x), eps) / np.dot(w, w)   # expected" in out
    # the counterexample, with exact numbers: its K exceeds the false bound ||w||^2 = 2
    kline = next(l for l in out.splitlines() if l.strip().startswith("K: "))
    assert float(kline.split(":")[1]) > 2.0

    assert main(["check", "--explain", "itnet.op.identity"]) == 0
    assert "pending" in capsys.readouterr().out
    assert main(["check", "--explain", "yat.def.basik"]) == 2
    assert "yat.def.basic" in capsys.readouterr().err  # suggests the close match
    assert main(["check", "--explain", CRASH]) == 1


def test_list_shows_ids_with_method(fake, capsys):
    assert main(["check", "--list", "--only", "yat.def.*,yat.mercer_proof_steps,itnet.op.identity"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    row = {l.split()[0]: l for l in lines}
    assert FAKES[CONFIRM][1] in row[CONFIRM] and FAKES[DRAWS][1] in row[DRAWS]
    assert "no check registered" in row["yat.mercer_proof_steps"]
    assert "pending" in row["itnet.op.identity"]


def test_import_errors_are_reported_and_fail_the_run(fake, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "load_checks",
                        lambda: {"proofs_check.checks.yat_broken": "Traceback ...\nSyntaxError: bad"})
    rc = main(["check", "--out", str(tmp_path), "--only", "yat.def.basic"])
    assert rc == 1
    meta = json.loads((tmp_path / "ledger.meta.json").read_text())
    assert "proofs_check.checks.yat_broken" in meta["import_errors"]
    assert "yat_broken" in (tmp_path / "LEDGER.md").read_text()


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="level"):
        runner.run([], level="medium")
    with pytest.raises(TypeError, match="seed"):
        runner.run([], seed=1.5)
    with pytest.raises(ValueError, match="only"):
        runner.parse_only(" , ")


def test_short_renderings_are_bounded():
    ce = {"x": list(np.linspace(0, 1, 1000)), "eps": math.pi}
    s = report.short_counterexample(ce)
    assert len(s) <= 140 and "n=1000" in s and "eps=3.142" in s
    rec = {"verdict": "CONFIRMED", "evidence": {f"k{i}": float(i) for i in range(10)},
           "parts": {"(a)": {"verdict": "CONFIRMED"}, "(b)": {"verdict": "REFUTED"}}}
    k = report.key_numbers(rec)
    assert "k0=0" in k and "k3=3" in k and "k4" not in k and "+6 more" in k
    assert "(b) REFUTED" in k
