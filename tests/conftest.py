"""Shared test helpers: the ``gpu`` marker skip, unit roundoffs, seeded generators."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from yatmath import _backend

#: Unit roundoff u of each working dtype (round-to-nearest: half the machine epsilon).
UNIT_ROUNDOFF = {np.dtype(np.float64): 2.0 ** -53, np.dtype(np.float32): 2.0 ** -24}


def unit_roundoff(dtype) -> float:
    return UNIT_ROUNDOFF[np.dtype(dtype)]


def pytest_runtest_setup(item):
    """Tests marked ``@pytest.mark.gpu`` run only where CuPy sees a CUDA device."""
    if item.get_closest_marker("gpu") is not None and not _backend.has_cupy():
        pytest.skip("needs CuPy and a CUDA device (yatmath._backend.has_cupy() is False)")


@pytest.fixture
def rng(request):
    """A generator seeded from the test's node id: deterministic, different per test."""
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)
