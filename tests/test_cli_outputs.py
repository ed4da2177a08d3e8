"""The command line checks its arguments before any work, never replaces another run's output
unasked, and says what was written when interrupted (issue 13's CLI items)."""
from __future__ import annotations

import json

import pytest

from yatmath import cli_args
from yatmath.cli import main

ONE_CLAIM = "yat.def.basic"


@pytest.fixture
def no_checks_run(monkeypatch):
    """Fail the test if any check starts: a usage error must be found before the work."""
    from proofs_check import runner

    def forbidden(*a, **k):
        raise AssertionError("a check ran before the arguments were checked")

    monkeypatch.setattr(runner, "run", forbidden)


@pytest.fixture
def fast_checks(monkeypatch):
    """Replace the check runner by one returning no records (the CLI logic is what is tested)."""
    from proofs_check import runner

    monkeypatch.setattr(runner, "run", lambda checks, **kw: [])


# --------------------------------------------------------------------------- yatmath check
@pytest.mark.parametrize("bad", ["", "   "])
def test_check_refuses_an_empty_out(bad, no_checks_run, capsys):
    assert main(["check", "--only", ONE_CLAIM, "--out", bad]) == cli_args.EXIT_USAGE
    assert "--out must name a folder" in capsys.readouterr().err


def test_check_refuses_an_out_that_is_a_file(tmp_path, no_checks_run, capsys):
    f = tmp_path / "file.txt"
    f.write_text("mine")
    assert main(["check", "--only", ONE_CLAIM, "--out", str(f)]) == cli_args.EXIT_USAGE
    assert "is a file, not a folder" in capsys.readouterr().err
    assert f.read_text() == "mine"


def test_writable_dir_refuses_a_folder_under_a_file(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(cli_args.UsageError, match="--out .* cannot be created"):
        cli_args.writable_dir(f / "sub", "--out")
    assert not (f.parent / "sub").exists()


@pytest.mark.parametrize("cmd", [["check"], ["figures"]])
@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
def test_seed_rule_is_the_same_everywhere(cmd, seed, capsys):
    with pytest.raises(SystemExit) as e:
        main([*cmd, "--seed", seed])
    assert e.value.code == cli_args.EXIT_USAGE
    assert "--seed must be a non-negative integer" in capsys.readouterr().err


def test_sweep_follows_the_same_seed_rule():
    from yatmath import sweep

    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        sweep.spawn_seeds(-1, 2)
    assert len(sweep.spawn_seeds(0, 2)) == 2


def test_a_narrower_only_does_not_replace_a_ledger_unasked(tmp_path, fast_checks, capsys):
    out = tmp_path / "ledger"
    assert main(["check", "--only", "yat.*", "--out", str(out)]) == 0
    meta = json.loads((out / "ledger.meta.json").read_text())
    assert meta["run"]["only"] == "yat.*"
    capsys.readouterr()
    rc = main(["check", "--only", ONE_CLAIM, "--out", str(out)])
    assert rc == cli_args.EXIT_USAGE
    err = capsys.readouterr().err
    assert "different run" in err and "--force" in err and "only" in err
    assert json.loads((out / "ledger.meta.json").read_text()) == meta   # untouched
    # the same run again may refresh it; --force replaces it
    assert main(["check", "--only", "yat.*", "--out", str(out)]) == 0
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out), "--force"]) == 0
    assert json.loads((out / "ledger.meta.json").read_text())["run"]["only"] == ONE_CLAIM


def test_another_seed_or_level_is_another_run(tmp_path, fast_checks, capsys):
    out = tmp_path / "ledger"
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out)]) == 0
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out), "--seed", "3"]) == 2
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out), "--level", "full"]) == 2
    assert "seed" in capsys.readouterr().err


def test_ctrl_c_after_the_ledger_is_written_says_so(tmp_path, fast_checks, monkeypatch, capsys):
    from proofs_check import cli as check_cli

    import builtins

    def interrupted_print(*a, **k):  # the Ctrl-C lands while the summary line is printed
        if "file" not in k:          # (stdout; the error messages to stderr still print)
            raise KeyboardInterrupt
        builtins.print(*a, **k)
    monkeypatch.setattr(check_cli, "print", interrupted_print, raising=False)
    out = tmp_path / "ledger"
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out)]) == cli_args.EXIT_OK
    err = capsys.readouterr().err
    assert "interrupted after the ledger was written" in err and "LEDGER.md" in err
    assert (out / "LEDGER.md").is_file()


def test_ctrl_c_before_the_ledger_writes_nothing(tmp_path, monkeypatch, capsys):
    from proofs_check import runner

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(runner, "run", interrupted)
    out = tmp_path / "ledger"
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out), "--fresh"]) == 130
    assert "no ledger written" in capsys.readouterr().err
    assert not (out / "LEDGER.md").exists()


# --------------------------------------------------------------------------- yatmath figures
@pytest.fixture
def fake_render(monkeypatch):
    """A render that writes the three files of a figure instantly."""
    from proofs_check.figures import render as render_mod

    def render(name, out_dir, seed=0):
        out_dir.mkdir(parents=True, exist_ok=True)
        for ext in ("png", "pdf", "json"):
            (out_dir / f"{name}.{ext}").write_text(f"{name} seed {seed}")
        return {}
    monkeypatch.setattr(render_mod, "render", render)


def _two_figures():
    from proofs_check.figures import registry

    return sorted(n for n, f in registry.load_all().items() if f.reproduced)[:2]


def test_figures_of_another_seed_do_not_mix_unasked(tmp_path, fake_render, capsys):
    a, b = _two_figures()
    out = tmp_path / "figs"
    assert main(["figures", "--only", a, "--out", str(out)]) == 0
    # the same seed adds to the set
    assert main(["figures", "--only", b, "--out", str(out)]) == 0
    rec = json.loads((out / "figures.meta.json").read_text())
    assert rec == {"run": {"seed": 0}, "figures": sorted([a, b])}
    capsys.readouterr()
    # another seed is refused, and nothing is touched
    assert main(["figures", "--only", a, "--out", str(out), "--seed", "1"]) == 2
    assert "different run" in capsys.readouterr().err
    assert (out / f"{b}.png").read_text() == f"{b} seed 0"
    # --force removes the old run's figures first
    assert main(["figures", "--only", a, "--out", str(out), "--seed", "1", "--force"]) == 0
    assert not (out / f"{b}.png").exists()
    assert (out / f"{a}.png").read_text() == f"{a} seed 1"
    assert json.loads((out / "figures.meta.json").read_text()) == {"run": {"seed": 1},
                                                                    "figures": [a]}


def test_figures_refuse_a_bad_out_before_any_work(tmp_path, monkeypatch, capsys):
    from proofs_check.figures import render as render_mod

    monkeypatch.setattr(render_mod, "render", lambda *a, **k: pytest.fail("rendered"))
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["figures", "--only", _two_figures()[0], "--out", str(f)]) == 2
    assert "is a file" in capsys.readouterr().err


# =========================================================================== the folder rules
# (issue: the audit of hostile CLI invocations).  These run the command as a user meets it, in a
# child process (`python -m yatmath.cli ...`), on files the test itself creates in tmp_path.
import signal
import subprocess
import sys
import time
from pathlib import Path

CHEAP_PAIR = "yat.def.basic,yat.grad.scalar_partials"   # two checks of ~0.1 s each
NOT_RENDERED = "arch_mha"      # a registered figure that is not reproduced: selects, renders nothing
CHEAP_FIGURE = "squashers"     # a real figure that renders in about a second


def yatmath(*args, cwd, **kw) -> subprocess.CompletedProcess:
    """``yatmath ARGS`` in a child process; stdout and stderr captured as text."""
    return subprocess.run([sys.executable, "-m", "yatmath.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, **kw)


def start(*args, cwd) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "yatmath.cli", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_usage_error(res, *words):
    assert res.returncode == cli_args.EXIT_USAGE, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    for w in words:
        assert w in res.stderr, (w, res.stderr)


def victims(tmp_path) -> dict[Path, str]:
    """Files outside --out that a hostile record names: beside it (../victim) and by an
    absolute path elsewhere."""
    files = {}
    (tmp_path / "elsewhere").mkdir()
    for base in (tmp_path / "victim", tmp_path / "elsewhere" / "abs"):
        for ext in ("png", "pdf", "json"):
            p = base.with_name(f"{base.name}.{ext}")
            p.write_text(f"victim {p.name}")
            files[p] = p.read_text()
    return files


# --------------------------------------------------------------------------- 1. delete only what was recorded
@pytest.mark.slow
def test_figures_force_never_follows_a_recorded_name_out_of_out(tmp_path):
    """A figures.meta.json naming ../victim and an absolute path: --force removes the previous
    run's own recorded files (a plain name inside --out) and nothing outside it."""
    kept = victims(tmp_path)
    out = tmp_path / "figs"
    out.mkdir()
    for ext in ("png", "pdf", "json"):
        (out / f"old_fig.{ext}").write_text("the previous run's")
    (out / "notes.txt").write_text("mine")
    (out / "figures.meta.json").write_text(json.dumps(
        {"run": {"seed": 5}, "figures": ["../victim", str(tmp_path / "elsewhere" / "abs"),
                                         "old_fig", ".yatmath"]}))
    # without --force: another seed's figures are refused before any work, nothing touched
    assert_usage_error(yatmath("figures", "--only", NOT_RENDERED, "--out", out, cwd=tmp_path),
                       "different run", "--force")
    assert (out / "old_fig.png").exists()
    res = yatmath("figures", "--only", NOT_RENDERED, "--out", out, "--force", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert {p: p.read_text() for p in kept} == kept                       # outside: untouched
    assert not any((out / f"old_fig.{e}").exists() for e in ("png", "pdf", "json"))  # recorded: gone
    assert (out / "notes.txt").read_text() == "mine"                      # unrecorded: kept
    assert "'../victim', which is not a plain figure name" in res.stderr
    assert json.loads((out / "figures.meta.json").read_text()) == {"run": {"seed": 0},
                                                                   "figures": []}


@pytest.mark.slow
def test_figures_never_replace_a_file_no_run_recorded(tmp_path):
    out = tmp_path / "figs"
    out.mkdir()
    (out / f"{CHEAP_FIGURE}.png").write_text("my own drawing")
    for extra in ([], ["--force"]):
        assert_usage_error(yatmath("figures", "--only", CHEAP_FIGURE, "--out", out, *extra,
                                   cwd=tmp_path), f"{CHEAP_FIGURE}.png", "no run recorded")
    assert (out / f"{CHEAP_FIGURE}.png").read_text() == "my own drawing"


def _previous_ledger(out: Path, tmp_path: Path, only: str) -> str:
    """A ledger another run (``--only ONLY``) wrote, with an evidence plot, whose record also
    names a plot ../victim.png and an absolute path.  Returns the recorded plot's name."""
    from proofs_check import verdicts as V
    from proofs_check.registry import Evidence, Plot, Scope
    from proofs_check.report import run_metadata, write_ledger

    ev = Evidence(verdict=V.CONFIRMED, scope=Scope("instance", "one"),
                  plot=Plot({"m": ([1, 2], [1.0, 0.5])}, "n", "err"))
    rec = {"id": "yat.mercer_psd", "sources": "000 Thm 1", "statement": "", **ev.to_dict(),
           "method": "m", "seconds": 0.0, "seed": 0, "level": "quick", "warnings": [],
           "error": None, "versions": {}}
    write_ledger(out, [rec], run_metadata([rec], level="quick", seed=0, only=only, seconds=0.0,
                                          versions={}))
    meta = json.loads((out / "ledger.meta.json").read_text())
    meta["files"]["plots"] += ["../../victim.png", str(tmp_path / "elsewhere" / "abs.png")]
    (out / "ledger.meta.json").write_text(json.dumps(meta))
    return "yat.mercer_psd.png"


@pytest.mark.slow
def test_check_force_removes_the_previous_runs_recorded_plots_and_nothing_else(tmp_path):
    kept = victims(tmp_path)
    out = tmp_path / "ledger"
    plot = _previous_ledger(out, tmp_path, only="yat.mercer_psd")
    (out / "plots" / "my_notes.png").write_text("mine")
    assert_usage_error(yatmath("check", "--only", ONE_CLAIM, "--out", out, cwd=tmp_path),
                       "different run", "--force")
    assert (out / "plots" / plot).is_file()
    res = yatmath("check", "--only", ONE_CLAIM, "--out", out, "--force", "--fresh", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert not (out / "plots" / plot).exists()                # the previous run's own plot
    assert (out / "plots" / "my_notes.png").read_text() == "mine"
    assert {p: p.read_text() for p in kept} == kept
    assert "'../../victim.png', which is not a plain file name" in res.stderr
    assert [r["id"] for r in json.loads((out / "ledger.json").read_text())] == [ONE_CLAIM]
    assert json.loads((out / "ledger.meta.json").read_text())["files"]["plots"] == []


@pytest.mark.slow
def test_check_never_replaces_a_plot_no_run_recorded(tmp_path):
    out = tmp_path / "ledger"
    (out / "plots").mkdir(parents=True)
    (out / "plots" / f"{ONE_CLAIM}.png").write_text("my own plot")
    for extra in ([], ["--force"]):
        assert_usage_error(yatmath("check", "--only", ONE_CLAIM, "--out", out, *extra,
                                   cwd=tmp_path), f"{ONE_CLAIM}.png", "no run recorded")
    assert (out / "plots" / f"{ONE_CLAIM}.png").read_text() == "my own plot"


# --------------------------------------------------------------------------- 3. output folders
def _bad_outs(tmp_path) -> dict[str, Path]:
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    return {"proc": Path("/proc/yatmath-out"), "sys": Path("/sys/yatmath-out"),
            "dangling": tmp_path / "dangling", "loop": tmp_path / "loop_a",
            "too_long": tmp_path / ("x" * 300), "under_too_long": tmp_path / ("y" * 300) / "sub"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["proc", "sys", "dangling", "loop", "too_long", "under_too_long"])
def test_figures_out_that_cannot_be_written_is_a_usage_error(kind, tmp_path):
    out = _bad_outs(tmp_path)[kind]
    if kind in ("proc", "sys") and not out.parent.is_dir():
        pytest.skip(f"no {out.parent} here")
    assert_usage_error(yatmath("figures", "--only", CHEAP_FIGURE, "--out", out, cwd=tmp_path),
                       "--out")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["dangling", "loop_a", "loop_b"])            # nothing created, the links left as they were


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["proc", "dangling"])
def test_check_out_that_cannot_be_written_is_a_usage_error(kind, tmp_path):
    out = _bad_outs(tmp_path)[kind]
    assert_usage_error(yatmath("check", "--only", ONE_CLAIM, "--out", out, cwd=tmp_path), "--out")


def _wait_for_lock(proc, out: Path, timeout=120.0) -> None:
    """Poll until ``proc`` holds the lock of ``out`` (its pid in the lock file), then stop it."""
    lock = out / cli_args.LOCK_NAME
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            if f"pid {proc.pid}:" in lock.read_text():
                proc.send_signal(signal.SIGSTOP)
                return
        except OSError:
            pass
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.005)
    raise AssertionError("the run never took the lock")


@pytest.mark.slow
def test_two_concurrent_figure_runs_into_one_folder(tmp_path):
    out = tmp_path / "figs"
    first = start("figures", "--only", CHEAP_FIGURE, "--out", out, cwd=tmp_path)
    try:
        _wait_for_lock(first, out)           # the first run holds the folder, and is paused
        second = yatmath("figures", "--only", CHEAP_FIGURE, "--out", out, cwd=tmp_path)
        assert_usage_error(second, "in use by another run", f"pid {first.pid}", "yatmath figures")
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert json.loads((out / "figures.meta.json").read_text())["figures"] == [CHEAP_FIGURE]
    assert not (out / cli_args.LOCK_NAME).exists()       # removed when the run ended


def test_a_killed_run_releases_its_folder_and_its_temporaries_are_removed(tmp_path):
    out = tmp_path / "figs"
    killed = start("figures", "--only", CHEAP_FIGURE, "--out", out, cwd=tmp_path)
    _wait_for_lock(killed, out)
    killed.kill()                                # SIGKILL: no finally, no except ran
    killed.communicate(timeout=60)
    assert (out / cli_args.LOCK_NAME).exists()   # left behind, but the OS released the flock
    # what a run killed inside atomic_write leaves, beside a user's own look-alike files
    (out / f".{CHEAP_FIGURE}.png.a1b2c3d4.tmp").write_text("half a png")
    (out / ".figures.meta.json.zz99zz99.tmp").write_text("{")
    (out / ".mine.txt.a1b2c3d4.tmp").write_text("not a figure's")
    (out / "notes.tmp").write_text("mine")
    res = yatmath("figures", "--only", NOT_RENDERED, "--out", out, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [".mine.txt.a1b2c3d4.tmp", "notes.tmp", "figures.meta.json"]
        + [f"{CHEAP_FIGURE}.{e}" for e in ("png", "pdf", "json") if (out / f"{CHEAP_FIGURE}.{e}").exists()])
    # a figure is recorded before its files are written: none the killed run left is unrecorded
    if (out / f"{CHEAP_FIGURE}.png").exists():
        assert CHEAP_FIGURE in json.loads((out / "figures.meta.json").read_text())["figures"]


@pytest.mark.slow
def test_check_refuses_a_folder_another_run_holds(tmp_path):
    out = tmp_path / "ledger"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from yatmath import cli_args\n"
         f"with cli_args.lock_out({str(out)!r}, '--out', 'yatmath check --level full'):\n"
         "    print('locked', flush=True); time.sleep(120)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert_usage_error(yatmath("check", "--only", ONE_CLAIM, "--out", out, cwd=tmp_path),
                           "in use by another run", f"pid {holder.pid}", "yatmath check --level full")
        assert not (out / "ledger.json").exists()
    finally:
        holder.kill()
        holder.wait()
    # killed: the OS released its lock, and the stale temporaries of the ledger are removed
    (out / ".ledger.json.k1ll3d00.tmp").write_text("[")
    (out / "plots").mkdir()
    (out / "plots" / f".{ONE_CLAIM}.png.k1ll3d00.tmp").write_text("half")
    (out / ".notes.md.k1ll3d00.tmp").write_text("mine")
    res = yatmath("check", "--only", ONE_CLAIM, "--out", out, "--fresh", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".notes.md.k1ll3d00.tmp"]
    assert list((out / "plots").iterdir()) == []


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"run": 3}', '{"run": {}, "files": 7}'])
def test_an_unusable_ledger_meta_counts_as_another_run(content, tmp_path, fast_checks, capsys):
    out = tmp_path / "ledger"
    out.mkdir()
    (out / "ledger.json").write_text("[]")
    (out / "ledger.meta.json").write_text(content)
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out)]) == cli_args.EXIT_USAGE
    err = capsys.readouterr().err
    assert "ledger.meta.json is unusable" in err and "--force" in err
    assert (out / "ledger.meta.json").read_text() == content
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out), "--force"]) == 0


def test_an_unusable_ledger_meta_is_refused_as_the_user_meets_it(tmp_path):
    out = tmp_path / "ledger"
    out.mkdir()
    (out / "LEDGER.md").write_text("# a ledger without its record")
    assert_usage_error(yatmath("check", "--only", ONE_CLAIM, "--out", out, cwd=tmp_path),
                       "no ledger.meta.json recording its run", "--force")
    assert (out / "LEDGER.md").read_text() == "# a ledger without its record"


def test_replace_guard_is_checked_again_at_write_time(tmp_path, monkeypatch, capsys):
    """Another run's ledger that appears while this run works is not replaced."""
    from proofs_check import runner

    out = tmp_path / "ledger"
    theirs = json.dumps({"run": {"level": "full", "seed": 9, "only": None}})

    def meanwhile(checks, **kw):
        (out / "ledger.meta.json").write_text(theirs)
        (out / "ledger.json").write_text("[]")
        return []
    monkeypatch.setattr(runner, "run", meanwhile)
    assert main(["check", "--only", ONE_CLAIM, "--out", str(out)]) == cli_args.EXIT_USAGE
    err = capsys.readouterr().err
    assert "changed during this run" in err and "different run" in err
    assert (out / "ledger.meta.json").read_text() == theirs
    assert not (out / "LEDGER.md").exists()


@pytest.mark.slow
def test_a_corrupt_cache_entry_is_recomputed_and_a_misfiled_one_not_doubled(tmp_path):
    out = tmp_path / "ledger"
    assert yatmath("check", "--only", CHEAP_PAIR, "--out", out, cwd=tmp_path).returncode == 0
    first, second = CHEAP_PAIR.split(",")
    (entry1,) = (out / ".cache" / first).glob("*.json")
    (entry2,) = (out / ".cache" / second).glob("*.json")
    record1 = entry1.read_text()
    entry1.write_text('{"id": "yat.def.basic", "verdict": ')   # truncated: a crash mid-write
    entry2.write_text(record1)                                 # the first claim's record, misfiled
    for _ in range(2):    # the bad entries are replaced: the run after is clean again
        res = yatmath("check", "--only", CHEAP_PAIR, "--out", out, cwd=tmp_path)
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
        ids = [r["id"] for r in json.loads((out / "ledger.json").read_text())]
        assert sorted(ids) == sorted([first, second])          # each claim once
        if _ == 0:
            assert f"not a valid record of {first} (it is not valid JSON" in res.stderr
            assert f"not a valid record of {second} (it holds the record of '{first}')" in res.stderr
            assert json.loads((out / "ledger.meta.json").read_text())["run"]["cached"] == []
        else:
            assert "warning" not in res.stderr
            assert json.loads((out / "ledger.meta.json").read_text())["run"]["cached"] == [first, second]


def test_cache_refuses_wrongly_typed_entries(tmp_path):
    from proofs_check import runner

    said = []
    cache = runner.Cache(tmp_path, warn=said.append)
    (tmp_path / ONE_CLAIM).mkdir()
    for bad in ([1, 2], {"id": ONE_CLAIM}, {"id": ONE_CLAIM, "verdict": "CONFIRMED", "evidence": [1]},
                {"id": ONE_CLAIM, "verdict": "CRASHED"}):
        (tmp_path / ONE_CLAIM / "k.json").write_text(json.dumps(bad))
        assert cache.get(ONE_CLAIM, "k") is None
    assert len(said) == 4 and all(ONE_CLAIM in m for m in said)
    good = {"id": ONE_CLAIM, "verdict": "CONFIRMED", "evidence": {}, "level": "quick", "seed": 0}
    (tmp_path / ONE_CLAIM / "k.json").write_text(json.dumps(good))
    assert cache.get(ONE_CLAIM, "k", level="quick", seed=0) == good
    assert cache.get(ONE_CLAIM, "k", level="quick", seed=1) is None     # not this run's
