"""Run a registered ledger check once per test session (shared by the tests/test_checks_*.py files)."""
import functools

from proofs_check.registry import REGISTRY, Context


@functools.lru_cache(maxsize=None)
def run_quick(cid: str, seed: int = 0):
    """The Evidence of check ``cid`` at level quick (cached: checks are deterministic given the seed)."""
    return REGISTRY[cid].func(Context("quick", seed, cid))
