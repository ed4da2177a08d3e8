"""Every "cupy" registry row, run as a GPU runs it: does CuPy's float32 flush-to-zero change it?

Each public operation with a "cupy" row is called with ``backend="cupy"`` on float32 inputs whose
results (or inputs) are float32 subnormals, twice, on NumPy arrays that stand in for CuPy
arrays (``tests/cupy_ftz.py``: routed through yatmath as CuPy arrays are): once without
flushing, once flushing float32 subnormals in array code as CuPy does.  The kernels run in numba-cuda's simulator both times and keep
subnormals, as the compiled kernels do.  The two results must be the same bits: any difference
is float32 array work in a row (a conversion, an arithmetic step before or after a kernel) that
a device would flush.  The first H100 run found two such rows by failing (the float32 product,
gram and matvec results, a subnormal matvec bias); this test finds them without a device.

``FALLBACKS`` adds the paths on which a "cupy" row runs the generic reference on the device
(the attention's mask and cache, ITNet without the factorisation, the particle sums beyond 16
dimensions).  ``FLUSHES`` lists
what is known to flush, with the reason; for those the test asserts that the emulation sees a
difference, so the table and the README change when a row is fixed.

Each case checks that its inputs or plain result hold subnormals, so that the comparison is not
vacuous.
Skipped on a real device, where ``tests/test_gpu_paths.py`` runs the rows themselves.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from tests import cupy_ftz
from tests.itnet.test_evaluate import _setup as _itnet_setup
from yatmath import _registry
from yatmath import itnet as it
from yatmath import particles as P
from yatmath import yat
from yatmath.features import positive_features, rff, yat_features

F32 = np.float32
TINY32 = 2.0 ** -126
SUBNORMAL_BIAS = -9.143864843289442e-39          # the H100 run's failing bias (float32 subnormal)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _tiny(shape: tuple[int, ...], seed: int, scale: float = 1e-15) -> np.ndarray:
    return (scale * _rng(seed).standard_normal(shape)).astype(F32)


def _bias(n: int) -> np.ndarray:
    return (SUBNORMAL_BIAS * (1 + np.arange(n) / 8)).astype(F32)


def _call(f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[list, Any]:
    """(the array arguments, f(*args, **kwargs) with backend="cupy")."""
    return [a for a in args if isinstance(a, np.ndarray)], f(*args, backend="cupy", **kwargs)


def _layer_backward() -> Any:
    X, W, G = _tiny((7, 4), 3, 1.0), _tiny((5, 4), 4, 1.0), _tiny((7, 5), 5, 1e-39)
    _, cache = yat.layer_forward(X, W, 0.5, _bias(5), bias_mode="outer", backend="cupy",
                                 return_cache=True)
    return [X, W, G], yat.layer_backward(G, cache)


def _itnet(heads: int = 1, factorised: bool = True) -> Any:
    op, mu, U = _itnet_setup(_rng(6), n=13, d=4, heads=heads)
    return _call(it.apply, op, (1e-39 * U).astype(F32), mu, mode="tiled", tile=(4, 5),
                 factorised=factorised)


def _feature(make: Callable[[], Any], scale: float) -> Callable[[], Any]:
    def run() -> Any:
        return _call(make(), (scale * _rng(7).standard_normal((9, 4))).astype(F32))
    return run


def _line(N: int = 40, spacing: float = 2.0 ** 42) -> np.ndarray:
    X = np.zeros((N, 1))
    X[:, 0] = _rng(8).permutation(N) * spacing
    return X.astype(F32)


#: op -> (inputs, result) of its public function with backend="cupy" on float32 input, where
#: inputs or results are float32 subnormals
CASES: dict[str, Callable[[], Any]] = {
    "yat.product": lambda: _call(yat.product, _tiny((9, 4), 1), _tiny((9, 4), 2), 1e-12,
                                 _bias(9), bias_mode="outer"),
    "yat.gram": lambda: _call(yat.gram, _tiny((9, 4), 1), _tiny((11, 4), 2), 1e-12, _bias(11),
                              bias_mode="outer"),
    "yat.matvec": lambda: _call(yat.matvec, _tiny((9, 4), 1), _tiny((11, 4), 2),
                                np.eye(11, 3, dtype=F32), 1e-12, _bias(11), bias_mode="outer"),
    "yat.attention": lambda: _call(yat.attention, _tiny((6, 3), 1, 1.0), _tiny((7, 3), 2, 1.0),
                                   _tiny((7, 2), 3, 1e-39), 1.0),
    "yat.conv2d": lambda: _call(yat.conv2d, _tiny((1, 2, 5, 5), 1, 1e-20),
                                _tiny((3, 2, 2, 2), 2, 1.0), 1.0),
    "yat.layer_backward": _layer_backward,
    "itnet.apply.tiled": _itnet,
    "features.RandomFourierFeatures.__call__": _feature(lambda: rff(4, 16, rng=11), 1e-39),
    "features.PositiveFeatures.__call__": _feature(
        lambda: positive_features(4, 16, "favor", rng=12), 9.0),
    "features.YatFeatures.__call__": _feature(
        lambda: yat_features(4, 16, eps=0.5, rng=13), 1e-39),
    "particles.interaction_force": lambda: _call(P.interaction_force, _line(), "none", 2.0),
    "particles.interaction_potential": lambda: _call(
        P.interaction_potential, _line(spacing=2.0 ** -140), "plummer", 1.0, 1e-40),
    "particles.random_batch_force": lambda: _call(
        P.random_batch_force, _line(), "none", 2.0, batch_size=40, rng=9),
}


#: the paths of "cupy" rows that run the generic reference on the device instead of a kernel
FALLBACKS: dict[str, Callable[[], Any]] = {
    "yat.attention with a mask": lambda: _call(
        yat.attention, _tiny((6, 3), 1, 1.0), _tiny((7, 3), 2, 1.0), _tiny((7, 2), 3, 1e-39),
        1.0, mask=np.ones((6, 7), bool)),
    "yat.attention with its cache": lambda: _call(
        yat.attention, _tiny((6, 3), 1, 1.0), _tiny((7, 3), 2, 1.0), _tiny((7, 2), 3, 1e-39),
        1.0, return_cache=True),
    "itnet.apply.tiled, two heads": lambda: _itnet(heads=2),
    "itnet.apply.tiled, factorised=False": lambda: _itnet(factorised=False),
    "particles.interaction_force, d > 16": lambda: _call(
        P.interaction_force, np.repeat(_line(), 17, axis=1), "none", 2.0),
    "particles.interaction_potential, d > 16": lambda: _call(
        P.interaction_potential, np.repeat(_line(spacing=2.0 ** -140), 17, axis=1), "plummer",
        1.0, 1e-40),
}

#: rows whose float32 array code after their kernel is known to flush on a GPU (README, "float32
#: below 2^-126 on the GPU"): the test asserts that the emulation sees it, so that fixing one
#: moves it out of this table and the README
FLUSHES = {
    "itnet.apply.tiled, factorised=False": "the reference's float32 tile loop in CuPy",
    "yat.attention with a mask": "the reference's float32 scores, softmax and A V in CuPy",
    "yat.attention with its cache": "the reference's float32 scores, softmax and A V in CuPy",
}
ALL = {**CASES, **FALLBACKS}


def _plain(result: Any) -> list[np.ndarray]:
    """The arrays of a result (an array, a tuple or a dataclass of arrays) as plain NumPy."""
    if isinstance(result, np.ndarray):
        return [np.array(result.view(np.ndarray))]
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _plain(r)]
    if hasattr(result, "__dataclass_fields__"):
        return [a for f in result.__dataclass_fields__ for a in _plain(getattr(result, f))]
    return []


def _subnormals(arrays: list[np.ndarray]) -> int:
    return sum(int(np.count_nonzero((a != 0) & (np.abs(a) < TINY32))) for a in arrays
               if a.dtype.kind == "f")


def test_every_cupy_row_has_a_case():
    """A new "cupy" row cannot be left out of this test."""
    rows = {i.op for i in _registry.implementations() if i.backend == "cupy"}
    assert rows == set(CASES)


@pytest.mark.parametrize("op", sorted(ALL))
def test_cupy_row_is_unchanged_by_cupys_flush_to_zero(op, monkeypatch, fake_cupy):
    """The row's float32 result under CuPy's flushing (emulated) is bit for bit its result
    without it, and holds float32 subnormals (inputs or results) that the flushing would zero."""
    with monkeypatch.context() as m:
        cupy_ftz.use_device(m, cupy_ftz.FtzDevice())
        cupy_ftz.install(m, flush=False)
        args, result = ALL[op]()
    plain = _plain(result)
    assert plain and _subnormals(args + plain) > 0, "the case needs float32 subnormals"
    with monkeypatch.context() as m:
        fake = cupy_ftz.FtzDevice()
        cupy_ftz.use_device(m, fake)
        cupy_ftz.install(m)
        flushed = _plain(ALL[op]()[1])
        assert fake.copies > 0                      # the row ran on the (flushing) device
    assert len(flushed) == len(plain)
    for got, want in zip(flushed, plain):
        assert got.dtype == want.dtype and got.shape == want.shape
    same = [np.array_equal(g.view(np.uint8), w.view(np.uint8)) for g, w in zip(flushed, plain)]
    if op in FLUSHES:
        assert not all(same), f"{op} no longer flushes: take it out of FLUSHES and the README"
        return
    for got, want in zip(flushed, plain):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))

