"""The backend registry (yatmath._registry): auto rules, refusals, the table `yatmath info` prints."""
from __future__ import annotations

import json
import types

import numpy as np
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


class _OnDevice:
    """A stand-in for a CuPy array (its module name says cupy): the host copy is ``.get()``."""

    __module__ = "cupy._stand_in"

    def __init__(self, a):
        self.a = np.array(a, dtype=float)

    def get(self):
        return self.a.copy()


def test_calling_a_row_applies_host_input_and_finish_steps(monkeypatch):
    """host_input: host arrays go to the device, the row runs there, the result comes back as
    NumPy; finish: every step sees the result and the row's arguments, in order."""
    from yatmath import _array

    monkeypatch.setattr(R, "_TABLE", {})
    monkeypatch.setattr(R, "libraries_available", lambda: {"numba": True, "cupy": True})
    monkeypatch.setattr(_array, "cupy_module", lambda: types.SimpleNamespace(asarray=_OnDevice))
    seen = []

    def on_device(x, k):
        assert isinstance(x, _OnDevice), "the row ran on host arrays"
        return _OnDevice(x.a * k)

    def plus_one(out, x, k):
        seen.append(("plus_one", type(out).__name__, k))
        return _OnDevice(out.a + 1)

    def doubled(out, x, k):
        seen.append(("doubled", type(out).__name__, k))
        return _OnDevice(out.a * 2)

    R.register("toy.dev", "reference")(lambda x, k: x * k)
    R.register("toy.dev", "cupy", libraries=("cupy",), device="gpu", host_input=True,
               finish=(plus_one, doubled))(on_device)
    R.register("toy.plain", "reference")(lambda x, k: x * k)
    R.register("toy.plain", "cupy", libraries=("cupy",), device="gpu")(on_device)

    impl = R.choose("toy.dev", "cupy", "numpy")
    got = impl(np.array([1.0, 2.0]), 3)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, [8.0, 14.0])              # (x k + 1) 2, steps in order
    assert seen == [("plus_one", "_OnDevice", 3), ("doubled", "_OnDevice", 3)]
    # device input runs as it is and stays on the device
    out = impl(_OnDevice([1.0]), 2)
    assert isinstance(out, _OnDevice) and out.a.tolist() == [6.0]
    # a GPU row without host_input refuses host arrays instead of copying them
    with pytest.raises(ValueError, match="backend='cupy' for toy.plain takes cupy arrays, got numpy"):
        R.choose("toy.plain", "cupy", "numpy")
    libs = {(r["op"], r["backend"]): r["libraries"] for r in R.table()}
    assert libs[("toy.dev", "cupy")] == "cupy (numpy: copied)"
    assert libs[("toy.plain", "cupy")] == "cupy"
