"""Helpers of tests/test_properties_*.py: the backends to run, example budgets, and the check
that a deliberately broken implementation is caught."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings

from yatmath import _registry
from yatmath import estimators, features, itnet, particles, yat  # noqa: F401  (they register)


def backends(op: str) -> list[str]:
    """The registered backends of ``op`` that run here: "reference" always, "numba" / "cupy"
    where their library (and, for CuPy, a device) is available."""
    avail = _registry.libraries_available()
    rows = [i.backend for i in _registry.implementations(op)]
    assert rows, f"no implementation registered for {op}"
    return [b for b in rows if b == "reference" or avail.get(b, False)]


def examples(factor: float = 1.0, **kw):
    """Settings with ``factor`` x the active profile's max_examples (``ci`` by default,
    ``thorough`` with HYPOTHESIS_PROFILE=thorough); deadline and the slow-data health checks
    off (some examples run statistical tests of hundreds of replicates)."""
    n = max(2, round(settings.default.max_examples * factor))
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large], **kw)


def raises_property(name: str, prop, *args, **kwargs) -> bool:
    """True when ``prop(*args, **kwargs)`` fails with the AssertionError of property ``name``
    (its message names the property, its source and its tolerance)."""
    try:
        prop(*args, **kwargs)
    except AssertionError as e:
        msg = str(e)
        assert msg.startswith(f"[{name}]"), msg
        assert "\n  source: " in msg and "\n  tolerance: " in msg, msg
        return True
    return False


def search_counterexample(strategy, condition, max_examples=300):
    """hypothesis.find with a fixed seed: the first example of ``strategy`` (the same strategy
    the property tests draw from) that satisfies ``condition`` -- raises NoSuchExample when
    none is found, so a broken implementation the strategies cannot expose fails the test.
    Not shrunk: the first counterexample is the evidence; minimising it would only cost time."""
    return find(strategy, condition, settings=settings(
        max_examples=max_examples, derandomize=True, database=None, deadline=None,
        phases=[Phase.generate], suppress_health_check=list(HealthCheck)))


def rng(seed):
    return np.random.default_rng(seed)
