"""Execute every notebook of notebooks/ (jupytext percent .py files) with small sizes.

Each notebook is converted with jupytext, a check cell is appended that prints its summary
variable as JSON, and nbclient runs it in a python3 kernel (timeout per cell) with
YATMATH_NB_SMALL=1.  The assertions are on the executed notebook: no error output, the outputs a
reader relies on (figures, the JavaScript animation, a GIF when asked for), and the numbers of the
summary against invariants that do not depend on the notebook's code (mass conservation of the
FV scheme, free-energy monotonicity, the Bayes bound, the parameter overrides taking effect).
About 15 s for both notebooks on 2 cores (kernel start-up included).
"""
from __future__ import annotations

import json
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

NB_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.py"))
SUMMARY = {"particle_dynamics": "summary", "synthetic_study": "study_summary"}
MARK = "NBCHECK:"


def execute(path: Path, summary_var: str, timeout=120):
    """Run the notebook at ``path``; return (executed notebook, summary dict)."""
    nb = jupytext.read(path)
    nb.cells.append(nbformat.v4.new_code_cell(
        f"import json as _json\nprint({MARK!r} + _json.dumps({summary_var}, default=float))"))
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(NB_DIR)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    line = next(s for s in text.splitlines() if s.startswith(MARK))
    return nb, json.loads(line[len(MARK):])


def outputs(nb, kind):
    """All output payloads of MIME type ``kind`` (e.g. 'image/png', 'text/html')."""
    return [o["data"][kind] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if kind in o.get("data", {})]


def test_notebooks_are_percent_scripts_with_parameters_first():
    assert {p.stem for p in NOTEBOOKS} >= set(SUMMARY), NOTEBOOKS
    for p in NOTEBOOKS:
        nb = jupytext.read(p)
        first = nb.cells[0]
        assert first.cell_type == "code" and "YATMATH_NB_SMALL" in first.source, p.name
        assert p.stem in SUMMARY, f"{p.name}: add its summary variable to SUMMARY"


def test_particle_dynamics_runs_with_overrides_and_animates(monkeypatch, tmp_path):
    gif = tmp_path / "particles.gif"
    monkeypatch.setenv("YATMATH_NB_SMALL", "1")
    monkeypatch.setenv("YATMATH_NB_N", "123")
    monkeypatch.setenv("YATMATH_NB_LAM", "0.3")
    monkeypatch.setenv("YATMATH_NB_BETA", "10")
    monkeypatch.setenv("YATMATH_NB_S", "0.5")
    monkeypatch.setenv("YATMATH_NB_GIF", str(gif))
    nb, s = execute(NB_DIR / "particle_dynamics.py", "summary")
    # the parameters of the first cell reached the run
    assert (s["N"], s["lam"], s["beta"], s["s"]) == (123, 0.3, 10.0, 0.5)
    # explicit FV steps conserve mass to a few ulps per step; SG dissipates F_h
    assert s["mass_error"] <= 1e-13 and s["free_energy_monotone"]
    # W1 of 123 particles to the density: the iid scale sqrt(2/(pi N)) * O(1) is ~0.07
    assert 0 < s["final_w1"] < 0.15
    assert outputs(nb, "image/png"), "no figure was displayed"
    html = " ".join("".join(h) if isinstance(h, list) else h for h in outputs(nb, "text/html"))
    assert "<script" in html and "animation" in html.lower(), "no JavaScript animation output"
    from PIL import Image

    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames >= 3


def test_synthetic_study_runs(monkeypatch):
    monkeypatch.setenv("YATMATH_NB_SMALL", "1")
    monkeypatch.delenv("YATMATH_NB_PAPER", raising=False)
    nb, s = execute(NB_DIR / "synthetic_study.py", "study_summary")
    assert len(outputs(nb, "image/png")) >= 3
    bayes = s["bayes"]
    assert all(0.5 <= b <= 1.0 for b in bayes)
    assert all(b1 >= b2 - 1e-12 for b1, b2 in zip(bayes, bayes[1:]))    # more noise, lower Bayes
    for m, acc in s["mean_acc"].items():
        assert len(acc) == len(s["sigmas"])
        # no method beats the Bayes rule by more than ~3 binomial s.e. of 240 test labels (0.032)
        assert all(0.0 <= a <= b + 0.1 for a, b in zip(acc, bayes)), m
    assert set(s["runtime_exponents"]) == {"logistic", "rbf_svm", "rff", "langevin"}
    assert all(0.0 <= f <= 1.0 for f in s["fraction_on_sphere"].values())
