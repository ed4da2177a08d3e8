"""Run a registered ledger check once per test session (shared by the tests/test_checks_*.py files)."""
import functools
import json

from proofs_check import verdicts as V
from proofs_check.registry import REGISTRY, Context, load_all, module_for
from proofs_check.runner import single_threaded_blas

load_all()   # every check registered, whichever test file imports this first


@functools.lru_cache(maxsize=None)
def run_quick(cid: str, seed: int = 0):
    """The Evidence of check ``cid`` at level quick (cached: checks are deterministic given the seed)."""
    with single_threaded_blas():          # as the runner runs it
        return REGISTRY[cid].func(Context("quick", seed, cid))


def assert_valid_evidence(cid: str, ev, module=None) -> None:
    """``cid`` is registered by ``module``; its record is JSON-serialisable and follows the rules of
    claims.md (``Evidence.problems``: among them, every REFUTED leaf carries a counterexample and a
    reproduction, and the verdict follows from the parts).  Every reproduction is run for every id
    by tests/proofs_check/test_consistency.py."""
    if module is not None:
        assert REGISTRY[cid].func.__module__ == module.__name__
    assert REGISTRY[cid].func.__module__ in module_for(cid)
    assert ev.verdict in V.VERDICTS
    json.dumps(ev.to_dict())
    assert ev.problems() == []
