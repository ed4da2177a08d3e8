"""``yatmath validate``: an accuracy certificate for anyone's Yat implementation.

``validate(target, kind=..., framework=..., dtypes=...)`` runs yatmath's accuracy harness
(``yatmath.testing``), gradient, Gram, attention and feature-map checks on a product, Gram,
NMN layer, attention, linear attention or random-feature target written in NumPy, PyTorch or
JAX, and returns a ``Report`` (JSON, Markdown, a plot of error against condition number).
"""
from .api import DEFAULT_DTYPES, validate
from .report import Report

__all__ = ["DEFAULT_DTYPES", "Report", "validate"]
