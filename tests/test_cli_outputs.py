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
    from figures import render as render_mod

    def render(name, out_dir, seed=0):
        out_dir.mkdir(parents=True, exist_ok=True)
        for ext in ("png", "pdf", "json"):
            (out_dir / f"{name}.{ext}").write_text(f"{name} seed {seed}")
        return {}
    monkeypatch.setattr(render_mod, "render", render)


def _two_figures():
    from figures import registry

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
    from figures import render as render_mod

    monkeypatch.setattr(render_mod, "render", lambda *a, **k: pytest.fail("rendered"))
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["figures", "--only", _two_figures()[0], "--out", str(f)]) == 2
    assert "is a file" in capsys.readouterr().err
