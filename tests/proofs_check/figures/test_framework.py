"""The figures framework: render() and ``yatmath figures``, on fake figures and on every real one.

Fake figures are registered into an empty ``proofs_check.figures.registry.FIGURES``
(monkeypatched).  The test over real figures iterates ``proofs_check.figures.registry.load_all()``,
so it covers figures added later.
"""
from __future__ import annotations

import json
import traceback

import numpy as np
import pytest

from proofs_check.figures import registry as figreg
from proofs_check.figures import render as R
from proofs_check.figures.cli import status
from proofs_check.registry import json_ready
from yatmath.cli import main

PNG_MAGIC, PDF_MAGIC = b"\x89PNG\r\n\x1a\n", b"%PDF-"


def _load_real():
    try:
        figs = figreg.load_all()
        return dict(figs), None
    except Exception:  # noqa: BLE001 - reported by test_figure_modules_import
        return dict(figreg.FIGURES), traceback.format_exc()


REAL, LOAD_ERROR = _load_real()


def _fake_data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    x = np.linspace(0.0, 1.0, n)
    return {"x": x, "y": rng.normal(size=n),
            "params": {"n": n, "seed": seed, "eps": 0.25, "w": np.array([1.0, 2.0])}}


def _fake_draw(data, fig):
    ax = fig.add_subplot()
    ax.plot(data["x"], data["y"])


def _no_params(seed=0):
    return {"x": [1, 2]}


def _broken_draw(data, fig):
    fig.add_subplot().plot(data["x"], data["y"])
    raise RuntimeError("drawing failed")


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(figreg, "FIGURES", {})
    figreg.register_figure("fake_plain", paper="000 Fig. 99", title="A fake figure",
                           data=_fake_data)(_fake_draw)
    figreg.register_figure("fake_subst", paper="002 Fig. 98", title="A fake stand-in",
                           data=_fake_data, substitute=True)(_fake_draw)
    figreg.register_not_reproduced("fake_missing", paper="001 Fig. 97", title="Needs MNIST training",
                                   reason="needs a trained MNIST network")
    return figreg.FIGURES


def test_render_writes_png_pdf_and_sidecar(fake, tmp_path):
    paths = R.render("fake_plain", tmp_path / "out", seed=3)
    assert set(paths) == {"png", "pdf", "json"}
    assert paths["png"].read_bytes()[:8] == PNG_MAGIC
    assert paths["pdf"].read_bytes()[:5] == PDF_MAGIC
    side = json.loads(paths["json"].read_text())
    expected = _fake_data(seed=3)["params"]
    assert side["params"] == {"n": 40, "seed": 3, "eps": 0.25, "w": [1.0, 2.0]} \
        == json_ready(expected)
    assert side["seed"] == 3 and side["paper"] == "000 Fig. 99" and side["substitute"] is False
    assert side["title"] == "A fake figure"
    assert {"python", "numpy", "matplotlib", "yatmath"} <= set(side["versions"])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "fake_plain.json", "fake_plain.pdf", "fake_plain.png"]


def test_drawn_figure_holds_the_data_and_states_the_params(fake):
    data = R.compute("fake_plain", seed=1)
    fig = R.draw("fake_plain", data)
    (line,) = fig.axes[0].get_lines()
    np.testing.assert_array_equal(line.get_ydata(), data["y"])
    np.testing.assert_array_equal(line.get_xdata(), data["x"])
    title = fig.get_suptitle()
    assert "A fake figure" in title and "000 Fig. 99" in title
    assert "eps=0.25" in title and "n=40" in title and "w=(1, 2)" in title


def test_substitute_is_labelled(fake, tmp_path):
    assert "substitute" in fake["fake_subst"].title.lower()
    side = json.loads(R.render("fake_subst", tmp_path)["json"].read_text())
    assert side["substitute"] is True and "substitute" in side["title"].lower()


def test_render_errors_name_the_argument_and_leave_no_files(fake, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="name 'nope'"):
        R.render("nope", tmp_path)
    with pytest.raises(ValueError, match="not reproduced"):
        R.render("fake_missing", tmp_path)
    with pytest.raises(TypeError, match="seed"):
        R.render("fake_plain", tmp_path, seed=0.5)
    figreg.register_figure("fake_noparams", paper="x", title="t", data=_no_params)(_fake_draw)
    with pytest.raises(ValueError, match="params"):
        R.render("fake_noparams", tmp_path)
    figreg.register_figure("fake_broken", paper="x", title="t", data=_fake_data)(_broken_draw)
    with pytest.raises(RuntimeError, match="drawing failed"):
        R.render("fake_broken", tmp_path)
    # a failure while writing (here: the PDF) removes the temporary files and writes nothing
    orig = R.MplFigure.savefig

    def failing_savefig(self, fh, format=None, **kw):
        if format == "pdf":
            raise KeyboardInterrupt
        return orig(self, fh, format=format, **kw)

    monkeypatch.setattr(R.MplFigure, "savefig", failing_savefig)
    with pytest.raises(KeyboardInterrupt):
        R.render("fake_plain", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_cli_list_shows_status_and_reason(fake, capsys):
    assert main(["figures", "--list"]) == 0
    rows = {l.split()[0]: l for l in capsys.readouterr().out.splitlines()}
    assert "000 Fig. 99" in rows["fake_plain"] and "reproduced" in rows["fake_plain"]
    assert "substitute" in rows["fake_subst"]
    assert "not reproduced: needs a trained MNIST network" in rows["fake_missing"]
    assert status(fake["fake_plain"]) == "reproduced"


def test_cli_renders_selection(fake, tmp_path, capsys):
    out = tmp_path / "figs"
    assert main(["figures", "--only", "fake_*", "--out", str(out), "--seed", "2"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([f"{n}.{e}" for n in ("fake_plain", "fake_subst") for e in ("png", "pdf", "json")]
                           + ["figures.meta.json"])
    assert json.loads((out / "fake_plain.json").read_text())["seed"] == 2
    assert json.loads((out / "figures.meta.json").read_text()) == {
        "run": {"seed": 2}, "figures": ["fake_plain", "fake_subst"]}
    assert "fake_missing" in capsys.readouterr().err  # skipped, with its reason

    out2 = tmp_path / "only"
    assert main(["figures", "--only", "fake_subst", "--out", str(out2)]) == 0
    assert {p.stem for p in out2.iterdir()} == {"fake_subst", "figures.meta"}
    assert main(["figures", "--only", "zzz*", "--out", str(out2)]) == 2


def test_cli_failure_exits_one_and_renders_the_rest(fake, tmp_path):
    figreg.register_figure("fake_broken", paper="x", title="t", data=_fake_data)(_broken_draw)
    assert main(["figures", "--only", "fake_broken,fake_plain", "--out", str(tmp_path)]) == 1
    assert {p.stem for p in tmp_path.iterdir()} == {"fake_plain", "figures.meta"}
    # the failed figure is not recorded as part of the run
    assert json.loads((tmp_path / "figures.meta.json").read_text())["figures"] == ["fake_plain"]


# ------------------------------------------------------------------------------- real figures


def test_figure_modules_import():
    assert LOAD_ERROR is None, LOAD_ERROR


def test_not_reproduced_figures_give_a_reason():
    for name, f in REAL.items():
        assert f.paper, name
        if not f.reproduced:
            assert f.reason.strip() and f.data is None and f.draw is None, name
        if f.substitute:
            assert "substitute" in f.title.lower(), name


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, f in REAL.items() if f.reproduced))
def test_every_registered_figure_renders(name, tmp_path):
    spec = REAL[name]
    paths = R.render(name, tmp_path, seed=0)
    assert paths["png"].read_bytes()[:8] == PNG_MAGIC
    assert paths["pdf"].read_bytes()[:5] == PDF_MAGIC
    side = json.loads(paths["json"].read_text())
    assert isinstance(side["params"], dict) and side["params"], "the figure states its parameters"
    assert side["seed"] == 0 and side["paper"] == spec.paper and side["substitute"] == spec.substitute
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{name}.{e}" for e in ("png", "pdf", "json"))
