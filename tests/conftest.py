"""Shared test helpers: the ``gpu`` marker skip, unit roundoffs, seeded generators, JAX in
float64."""
from __future__ import annotations

import os
import zlib

import numpy as np
import pytest

from yatmath import _array

# yatmath's GPU kernels are numba-cuda kernels (yatmath/_cuda.py).  Where no CUDA device is
# visible, numba-cuda's simulator runs the same kernel source on NumPy arrays, so
# tests/yat/test_cuda_kernels.py executes every kernel's logic on the CPU.  This must be decided before
# numba.cuda is first imported; a device (CuPy sees one) runs them for real instead.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and not _array.has_cupy():
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

#: Unit roundoff u of each working dtype (round-to-nearest: half the machine epsilon).
UNIT_ROUNDOFF = {np.dtype(np.float64): 2.0 ** -53, np.dtype(np.float32): 2.0 ** -24}


def unit_roundoff(dtype) -> float:
    return UNIT_ROUNDOFF[np.dtype(dtype)]


def pytest_runtest_setup(item):
    """Tests marked ``@pytest.mark.gpu`` run only where CuPy sees a CUDA device."""
    if item.get_closest_marker("gpu") is not None and not _array.has_cupy():
        pytest.skip("needs CuPy and a CUDA device (yatmath._array.has_cupy() is False)")


@pytest.fixture
def rng(request):
    """A generator seeded from the test's node id: deterministic, different per test."""
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)


@pytest.fixture
def x64():
    """``yatmath.testing.properties.yat.jax_float64`` for the test (a no-op without JAX: the test
    may use other libraries)."""
    from yatmath.testing.properties.yat import jax_float64

    with jax_float64() as jax:
        yield jax


@pytest.fixture
def jax_x64():
    """``jax_float64`` for a test that needs JAX: skipped where JAX is not installed."""
    from yatmath.testing.properties.yat import jax_float64

    pytest.importorskip("jax")
    with jax_float64() as jax:
        yield jax


# --- Hypothesis profiles (tests/test_properties_*.py size their examples from the active one) ---
# ``ci`` (the default): a fixed seed (derandomize=True), a bounded number of examples and no
# deadline, so CI runs are reproducible and bounded in time.  ``thorough``: many more random
# examples for long local runs (HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_properties_*.py).
from hypothesis import HealthCheck as _HealthCheck  # noqa: E402
from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("ci", derandomize=True, max_examples=40, deadline=None,
                               print_blob=True)
_hyp_settings.register_profile("thorough", max_examples=400, deadline=None, print_blob=True,
                               suppress_health_check=[_HealthCheck.too_slow])
_hyp_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def _simulator_reads_read_only_inputs():
    """numba-cuda's simulator copies every array argument back to its host array after a
    launch, which fails for a read-only input view (a ``broadcast_to`` result) that the kernel
    only read; a device copies nothing back.  Read-only arguments are passed as inputs only
    (``cuda.In``), so the simulator launches what a device launches."""
    if not _cuda_simulated():
        yield
        return
    from numba.cuda.simulator import args

    real = args.InOut.to_device

    def to_device(self, retr, stream=0):
        if isinstance(self.value, np.ndarray) and not self.value.flags.writeable:
            return args.In(self.value).to_device(retr, stream)
        return real(self, retr, stream)

    args.InOut.to_device = to_device
    yield
    args.InOut.to_device = real


@pytest.fixture
def fake_cupy(monkeypatch):
    """NumPy standing in for CuPy (``tests.particles.test_array_api._FakeDevice``, which counts
    the host/device copies) with the "cupy" registry rows enabled, so a row's ``host_input``
    round trip runs and its numba-cuda kernels run in the simulator on the copies.  Skipped on a
    real device, where CuPy itself is there."""
    from tests.particles.test_array_api import _FakeDevice
    from yatmath import _registry

    if not _cuda_simulated():
        pytest.skip("the fake device stands in for CuPy only where the simulator runs")
    fake = _FakeDevice()
    monkeypatch.setattr(_array, "cupy_module", lambda: fake)
    monkeypatch.setattr(_registry, "libraries_available",
                        lambda: {"numba": _array.has_numba(), "cupy": True})
    return fake


@pytest.fixture
def ftz_cupy(monkeypatch, fake_cupy):
    """``fake_cupy`` with CuPy's float32 flush-to-zero emulated (``tests/cupy_ftz.py``): the
    device copies are FtzArrays, whose array code (conversions, arithmetic, reductions) flushes
    float32 subnormals as CuPy's ``-ftz=true`` kernels do, while the numba-cuda kernels (in the
    simulator) keep them.  A row that differs from its ``fake_cupy`` result under this fixture
    does float32 array work a GPU would flush."""
    from tests import cupy_ftz

    fake = cupy_ftz.FtzDevice()
    cupy_ftz.use_device(monkeypatch, fake)
    cupy_ftz.install(monkeypatch)
    return fake


def _cuda_simulated() -> bool:
    from yatmath import _cuda

    return _cuda.simulated()
