"""The backend registry (yatmath._registry): auto rules, refusals, the table `yatmath info` prints."""
from __future__ import annotations

import json

import pytest

from yatmath import _registry as R


@pytest.fixture
def toy(monkeypatch):
    """A private table with one operation, so the rules are tested apart from the library's rows."""
    monkeypatch.setattr(R, "_TABLE", {})
    monkeypatch.setattr(R, "libraries_available", lambda: {"numba": True, "cupy": False})
    R.register("toy.op", "reference")(lambda: "reference")
    R.register("toy.op", "numba", libraries=("numpy",), device="cpu", min_size=100)(lambda: "numba")
    R.register("toy.op", "cupy", libraries=("cupy",), device="gpu")(lambda: "cupy")


def test_auto_picks_numba_for_numpy_from_its_min_size(toy):
    assert R.choose("toy.op", "auto", "numpy", size=99).backend == "reference"
    assert R.choose("toy.op", "auto", "numpy", size=100).backend == "numba"
    assert R.choose("toy.op", "auto", "torch", size=10**6).backend == "reference"
    assert R.choose("toy.op", "auto", "array_api_strict").backend == "reference"


def test_numpy_is_an_alias_of_the_reference(toy):
    assert R.choose("toy.op", "numpy", "numpy").backend == "reference"
    assert R.choose("toy.op", "reference", "torch").backend == "reference"


def test_an_explicit_backend_is_honoured_or_refused(toy):
    assert R.choose("toy.op", "numba", "numpy", size=1).backend == "numba"  # below min_size: asked
    with pytest.raises(ValueError, match="backend='numba' for toy.op takes numpy arrays, got torch"):
        R.choose("toy.op", "numba", "torch")
    with pytest.raises(RuntimeError, match="CuPy and a CUDA device"):
        R.choose("toy.op", "cupy", "cupy")
    with pytest.raises(ValueError, match=r"backend must be one of .*got 'nope'"):
        R.choose("toy.op", "nope", "numpy")
    R.register("toy.only_ref", "reference")(lambda: 0)
    with pytest.raises(ValueError, match="toy.only_ref has no 'numba' implementation; it has 'reference'"):
        R.choose("toy.only_ref", "numba", "numpy")


def test_register_refuses_an_unknown_backend():
    with pytest.raises(ValueError, match="backend must be one of"):
        R.register("toy.op", "auto")


def test_library_names():
    import array_api_strict
    import numpy as np

    from yatmath import _array

    assert _array.caller(np.ones(2)).library == "numpy"
    assert _array.caller(array_api_strict.asarray([1.0])).library == "array_api_strict"
    assert _array.caller(None, 3.0, [1, 2]).library == "numpy"
    with pytest.raises(TypeError, match="one array library"):
        _array.caller(np.ones(2), array_api_strict.asarray([1.0]))


def test_info_prints_the_table(capsys):
    from yatmath.cli import main

    assert main(["info", "--backends"]) == 0
    out = capsys.readouterr().out
    rows = R.table()
    assert "operation" in out and len(rows) >= 1
    for r in rows:
        assert r["op"] in out
    assert main(["info", "--json", "--backends"]) == 0
    assert json.loads(capsys.readouterr().out)["registry"] == rows
