"""Testing utilities: the mpmath-referenced accuracy harness of the Yat kernel.

``generators`` (inputs chosen to be hard: all magnitudes, near-coincident, orthogonal and
near-orthogonal pairs, eps over its whole range), ``oracle`` (the exact reference and the
condition-aware bound), ``harness`` (``KernelAccuracy``: one object per implementation),
``backends`` (yatmath's own paths as harnesses).  Used by ``tests/yat/test_accuracy.py`` and by
``yatmath validate``.
"""
from .generators import Block, blocks, huge_float32_blocks, make_block
from .harness import AccuracyResult, KernelAccuracy, entry_errors
from .oracle import Exact, exact, kernel_bound, unit_roundoff
# the property checks of every family (yatmath.testing.properties); their Hypothesis strategies
# are yatmath.testing.strategies (imported on demand: it needs hypothesis)
from . import properties
from .properties import PROPERTIES

__all__ = ["AccuracyResult", "Block", "Exact", "KernelAccuracy", "blocks", "entry_errors", "exact",
           "huge_float32_blocks", "kernel_bound", "make_block", "unit_roundoff", "properties",
           "PROPERTIES"]
