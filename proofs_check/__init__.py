"""proofs_check: the claim ledger.  One registered check per id of claims.md."""
from .registry import REGISTRY, Context, Evidence, load_all, register

__all__ = ["REGISTRY", "Context", "Evidence", "load_all", "register"]
