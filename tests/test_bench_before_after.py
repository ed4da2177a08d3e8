"""benchmarks/bench_before_after.py: the issue-12 before/after CPU benchmark.

1. A ``--quick`` run with one round (a subprocess; ~40 s on 2 cores, mostly Numba compiling both
   trees' kernels, hence ``slow``) writes JSON holding both revisions' numbers for every measure
   its size set defines, positive and finite, with both trees computing the same results.
2. The pieces without timing: the summary's medians, spreads, per-round ratios and verdicts
   (exact binary fractions, so every quotient below is exact), the child's environment (only the
   child's: ``os.environ`` is untouched), the adapter that supplies what the base lacks, and the
   errors for a bad ``--base``, ``--repo`` or ``--rounds``.

Tests that export the base revision need its commit in the repository (a shallow clone or an
unpacked archive lacks it); they say so and skip there.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_before_after.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_before_after", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bba = _load()


def _commit(rev: str) -> str | None:
    res = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                          f"{rev}^{{commit}}"], capture_output=True, text=True, check=False)
    return res.stdout.strip() if res.returncode == 0 else None


BASE = _commit(bba.DEFAULT_BASE)
needs_base = pytest.mark.skipif(BASE is None, reason=f"this checkout has no commit "
                                f"{bba.DEFAULT_BASE} (shallow clone or exported tree)")


def _expected_measures(cfg: dict) -> set[str]:
    """The measure names the size set defines (written here from the config, not the output)."""
    keys = set()
    for dt in cfg["gram_dtypes"]:
        for n, m, d in cfg["gram"]:
            shape = f"{dt} {n}x{m}x{d}"
            keys |= {f"gram/GEMM {shape}", f"gram ms {shape}", f"GEMM ms {shape} (control)"}
    keys |= {f"matvec pairs/s n={n} d={d}" for n, d in cfg["matvec"]}
    keys |= {f"forces pairs/s N={N} d={d} {b}" for N, d in cfg["forces"]
             for b in cfg["force_backends"]}
    return keys


# ------------------------------------------------------------------------ the quick run
@pytest.mark.slow
@needs_base
def test_quick_run_reports_both_revisions(tmp_path):
    out = tmp_path / "res" / "before_after.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--rounds", "1", "--json",
                          str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=600,
                         check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert [p.name for p in out.parent.iterdir()] == [out.name]   # no temporary file left
    assert doc["base"]["commit"] == BASE and doc["n_rounds"] == 1
    assert Path(doc["after"]["repo"]) == ROOT
    expected = _expected_measures(bba.QUICK)
    assert set(doc["summary"]) == expected
    (rnd,) = doc["rounds"]
    for rev in ("before", "after"):
        assert set(rnd[rev]) == expected
        bad = {k: v for k, v in rnd[rev].items() if not (math.isfinite(v) and v > 0)}
        assert not bad, f"{rev}: {bad}"
        # one fresh child per measurement group, each recording the machine's load
        assert len(rnd["load"][rev]) == len(bba.GROUPS)
        assert all(math.isfinite(x) and x >= 0 for x in rnd["load"][rev])
        # each child imported its own tree, not the installed package
        assert not Path(doc["children"][rev]["yatmath"]).is_relative_to(ROOT)
    for key, row in doc["summary"].items():
        assert row["ratio"]["median"] == rnd["after"][key] / rnd["before"][key]
        assert row["verdict"] == "n/a (1 round)"
    # same inputs, same functions: result norms agree to float32 rounding of a d = 32 Gram
    # (|rel. diff| <~ d u32 = 2e-6; 1e-4 leaves room for the repair path, and still catches
    # a tree computing something else)
    assert doc["max_rel_diff_result_norms"] < 1e-4
    assert "before" in res.stdout and "after/before" in res.stdout


# ------------------------------------------------------------------------ summary arithmetic
def _rounds(pairs):
    return [{"before": {"matvec pairs/s x": b, "gram/GEMM y": b},
             "after": {"matvec pairs/s x": a, "gram/GEMM y": a}} for b, a in pairs]


def test_summary_medians_spreads_and_paired_ratios():
    s = bba.summarize(_rounds([(4.0, 2.0), (8.0, 16.0), (2.0, 1.0)]))
    row = s["matvec pairs/s x"]
    assert row["before"]["median"] == 4.0 and row["before"]["min"] == 2.0
    assert row["before"]["max"] == 8.0 and row["after"]["median"] == 2.0
    assert row["ratio"]["values"] == [0.5, 2.0, 0.5]          # paired per round, not of medians
    assert (row["ratio"]["median"], row["ratio"]["min"], row["ratio"]["max"]) == (0.5, 0.5, 2.0)
    assert row["better"] == "higher" and s["gram/GEMM y"]["better"] == "lower"
    assert row["verdict"] == s["gram/GEMM y"]["verdict"] == "within noise"


@pytest.mark.parametrize("pairs, pairs_verdict, ratio_verdict", [
    ([(1.0, 2.0)] * 3, "faster", "slower"),        # pairs/s up is faster; gram/GEMM up is slower
    ([(2.0, 1.0)] * 3, "slower", "faster"),
    ([(2.0, 1.0)] * 2, "n/a (2 rounds)", "n/a (2 rounds)"),
    ([(1.0, 1.0)] * 4, "within noise", "within noise"),
])
def test_summary_verdict(pairs, pairs_verdict, ratio_verdict):
    s = bba.summarize(_rounds(pairs))
    assert s["matvec pairs/s x"]["verdict"] == pairs_verdict
    assert s["gram/GEMM y"]["verdict"] == ratio_verdict


# ------------------------------------------------------------------------ the child's setting
def test_child_env_points_at_one_tree_and_leaves_os_environ_alone(tmp_path):
    before = dict(os.environ)
    env = bba.child_env(tmp_path / "tree", tmp_path / "cache",
                        base_env={"PYTHONPATH": "/elsewhere", "KEEP": "1"})
    assert env == {"PYTHONPATH": os.pathsep.join([str(tmp_path / "tree"), "/elsewhere"]),
                   "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "KEEP": "1"}
    assert bba.child_env(tmp_path, tmp_path / "c")["PYTHONPATH"].split(os.pathsep)[0] == str(
        tmp_path)
    assert dict(os.environ) == before


@needs_base
def test_adapter_supplies_only_what_the_base_lacks(tmp_path):
    base = bba.export_base(ROOT, BASE, tmp_path / "before")
    assert "def gemm_rows(" not in (base / "yatmath/yat/_numba_kernels.py").read_text()
    (done,) = bba.write_adapters(ROOT, base)
    assert done["function"] == "gemm_rows" and done["source_commit"] == _commit("a814b76")
    module = (base / f"{bba.ADAPTER_MODULE}.py").read_text()
    assert "@njit(parallel=True, cache=True)\ndef gemm_rows(gemm, X, W, threads, out):" in module
    after = bba.snapshot_after(ROOT, tmp_path / "after")
    assert not list(after.rglob("__pycache__"))
    assert bba.write_adapters(ROOT, after) == []               # the working tree has gemm_rows
    assert not (after / f"{bba.ADAPTER_MODULE}.py").exists()


# ------------------------------------------------------------------------ bad arguments
def test_bad_base_names_the_argument_and_value(capsys):
    with pytest.raises(SystemExit) as exc:
        bba.main(["--base", "no-such-revision-xyz"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--base: 'no-such-revision-xyz' names no commit" in err


def test_repo_must_be_a_git_work_tree_with_yatmath(tmp_path, capsys):
    with pytest.raises(ValueError, match=r"--repo: .* is not inside a git work tree"):
        bba.resolve_repo(tmp_path)
    with pytest.raises(ValueError, match=r"--repo: .* is not a folder"):
        bba.resolve_repo(tmp_path / "missing")
    with pytest.raises(SystemExit) as exc:
        bba.main(["--repo", str(tmp_path / "missing")])
    assert exc.value.code == 2 and "--repo:" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "two"])
def test_rounds_must_be_a_positive_integer(value, capsys):
    with pytest.raises(SystemExit) as exc:
        bba.main(["--rounds", value])
    assert exc.value.code == 2
    assert f"--rounds: got {value!r}; expected an integer >= 1" in capsys.readouterr().err
