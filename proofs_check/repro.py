"""Run a ledger record's reproduction: ``eval(expr, bindings)`` must give ``expected``.

A reproduction is one expression over the public API of ``yatmath`` (with its subpackages
imported), ``np`` and ``math``, evaluated with the counterexample's own values bound to names.
It may not reach private names (anything that starts with an underscore) nor free variables, so
what a reader copies from LEDGER.md runs as it stands::

    from proofs_check.repro import run_repro
    value, ok = run_repro(record["repro"])
"""
from __future__ import annotations

import ast
import importlib
import keyword
import math
from typing import Any

import numpy as np

PUBLIC_SUBPACKAGES = ("yat", "features", "estimators", "itnet", "particles", "sweep")
#: ledger-only and study code (it serves only the checks and the figures), importable by name in
#: an expression as ``proofs_check.support.<module>.<name>``
LEDGER_MODULES = ("proofs_check.support.itnet_paper003_formulas",
                  "proofs_check.support.itnet_alg_literal", "proofs_check.support.itnet_io_model",
                  "proofs_check.studies.synthetic")
ALLOWED_BUILTINS = ("abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "len", "list",
                    "max", "min", "range", "round", "sorted", "sum", "tuple", "zip")


def namespace() -> dict[str, Any]:
    """The names an expression may use besides its bindings."""
    import yatmath

    for sub in PUBLIC_SUBPACKAGES:
        importlib.import_module(f"yatmath.{sub}")
    for mod in LEDGER_MODULES:
        importlib.import_module(mod)
    import builtins

    import proofs_check

    ns = {"yatmath": yatmath, "proofs_check": proofs_check, "np": np, "math": math}
    ns["__builtins__"] = {k: getattr(builtins, k) for k in ALLOWED_BUILTINS}
    # library code called from the expression may import lazily (ndarray.var does); the expression
    # itself cannot name __import__ (validate refuses names that start with an underscore)
    ns["__builtins__"]["__import__"] = builtins.__import__
    return ns


def validate(expr: str, bindings: dict) -> None:
    """Raise ValueError when ``expr`` is not one expression, uses a private name, or a free one,
    or when a name of ``bindings`` is not a public Python identifier (each binding becomes a
    line ``NAME = VALUE`` of the Python a reader pastes)."""
    if not isinstance(expr, str):
        raise ValueError(f"repro expr must be a string, got {type(expr).__name__}")
    if not isinstance(bindings, dict):
        raise ValueError(f"repro bindings must be a dict, got {type(bindings).__name__}")
    for name in bindings:
        if (not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name)
                or name.startswith("_")):
            raise ValueError(f"repro binding name {name!r} is not a public Python identifier")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"repro expr is not one Python expression: {exc}") from None
    known = set(namespace()) | set(bindings) | set(ALLOWED_BUILTINS)
    bound_here: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound_here.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound_here.add(node.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ValueError(f"repro expr reaches a private attribute {node.attr!r}")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id.startswith("_"):
                raise ValueError(f"repro expr uses a private name {node.id!r}")
            if node.id not in known and node.id not in bound_here:
                raise ValueError(f"repro expr uses a free name {node.id!r} (bind it in bindings)")


def evaluate(expr: str, bindings: dict) -> Any:
    """The value of ``expr`` with ``bindings`` (after :func:`validate`)."""
    validate(expr, bindings)
    ns = namespace()
    ns.update(bindings)
    return eval(compile(expr, "<repro>", "eval"), ns)  # noqa: S307 - the ledger's own expressions


def agrees(value, expected, *, rtol: float, atol: float) -> bool:
    """``value`` equals ``expected`` to ``rtol``/``atol`` (bools and strings exactly)."""
    if isinstance(expected, (bool, str)) or expected is None:
        return (bool(value) if isinstance(expected, bool) else value) == expected
    try:
        v = np.asarray(value, dtype=float)
        e = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return False
    if v.shape != e.shape:
        return False
    return bool(np.all((v == e) | np.isclose(v, e, rtol=rtol, atol=atol)))


def run_repro(repro: dict) -> tuple[Any, bool]:
    """Evaluate a record's ``repro`` dict; return (value, agrees with ``expected``)."""
    value = evaluate(repro["expr"], repro.get("bindings") or {})
    expected = repro["expected"]
    if isinstance(expected, str) and expected in ("inf", "-inf", "nan"):
        expected = float(expected)
    return value, agrees(value, expected, rtol=repro.get("rtol", 1e-9), atol=repro.get("atol", 0.0))
