"""Layers import downwards (issue 23): every import of a module, those inside functions included,
read from its source.

    foundation   _typing < _threads < files < stats < _array < _platform < _validate < arguments
                 < _registry < _cuda  (``files``: atomic writing; ``_array``: the array plumbing;
                 ``_platform``: what ``yatmath info`` reports; ``arguments``: the public face of
                 ``_validate``)
    subpackages  yat, features, estimators, itnet, particles, testing (import the foundation and
                 each other)
    tools        sweep, validate, bench, cli_args (the command-line argument checks and exit
                 statuses the tools' own front ends share)  (import the above and each other)
    command      cli, __main__ (import anything, the ledger's and the figures' front ends too)

The foundation never imports a subpackage or a tool (the registry learns its rows when a
subpackage is imported; ``yatmath info`` imports them); nothing below the command line imports
it; only the command line imports the ledger (``proofs_check``, its figures included).

The ledger and its figures (every module of ``proofs_check``) import only the public library: no
private module (``yatmath._x``, ``yatmath.<sub>._x``) and no private name of a public module.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import proofs_check
import yatmath

ROOT = Path(yatmath.__file__).parent
LEDGER = Path(proofs_check.__file__).parent
# within the foundation, each module may import only those listed before it in this order
ORDER = ["_typing", "_threads", "files", "stats", "_array", "_platform", "_validate",
         "arguments", "_registry", "_cuda"]
FOUNDATION = list(ORDER)
SUBPACKAGES = ["yat", "features", "estimators", "itnet", "particles", "testing"]
TOOLS = ["sweep", "validate", "bench", "cli_args"]
COMMAND = ["cli", "__main__"]


def _module_name(path: Path, root: Path | None = None) -> str:
    rel = path.relative_to((root or ROOT).parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, root: Path | None = None) -> set[str]:
    """The absolute names of every module ``path`` imports, anywhere in its body (``root``: the
    package folder ``path`` is in, yatmath's by default)."""
    me = _module_name(path, root)
    pkg = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if node.module or not node.level:
                out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)   # `from . import yat`
    return out


def _top(name: str) -> str | None:
    """The first component below ``yatmath`` of an imported name (None outside yatmath)."""
    parts = name.split(".")
    if parts[0] != "yatmath":
        return None
    return parts[1] if len(parts) > 1 else ""


def _layer(top: str) -> str:
    for layer, names in (("foundation", FOUNDATION), ("subpackage", SUBPACKAGES),
                         ("tool", TOOLS), ("command", COMMAND)):
        if top in names:
            return layer
    return "package"          # yatmath/__init__ (the version and the public entry)


FILES = sorted(ROOT.rglob("*.py"))


def violations(path: Path) -> list[str]:
    """The imports of ``path`` that go upwards (empty when it follows the layers)."""
    me = _module_name(path)
    my_top = _top(me)
    layer = _layer(my_top)
    bad = []
    for name in sorted(_imports(path)):
        if name.split(".")[0] == "proofs_check":
            if layer != "command":
                bad.append(f"{name} (only the command line imports the ledger and its figures)")
            continue
        top = _top(name)
        if top is None or top == "" or top == my_top or top not in FOUNDATION + SUBPACKAGES + \
                TOOLS + COMMAND:
            if top == "" and layer == "foundation":
                bad.append(f"{name} (the foundation imports no package entry)")
            continue
        other = _layer(top)
        if layer == "foundation" and (other != "foundation"
                                      or ORDER.index(top) > ORDER.index(my_top)):
            bad.append(f"{name} (the foundation imports only foundation modules below it: "
                       f"{' < '.join(ORDER)})")
        elif layer == "subpackage" and other in ("tool", "command"):
            bad.append(f"{name} (a subpackage imports no {other})")
        elif layer == "tool" and other == "command":
            bad.append(f"{name} (a tool imports no command-line module)")
    return bad


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_go_downwards(path):
    bad = violations(path)
    assert not bad, f"{_module_name(path)} imports upwards: " + "; ".join(bad)


def test_the_checker_catches_upward_imports_inside_functions(tmp_path):
    global ROOT
    old, ROOT = ROOT, tmp_path / "yatmath"
    try:
        (ROOT / "yat").mkdir(parents=True)
        reg = ROOT / "_registry.py"
        reg.write_text("from ._typing import FuncT\n\ndef table():\n    from . import itnet\n"
                       "    from .yat import gram\n")
        assert {"yatmath.itnet", "yatmath.yat", "yatmath.yat.gram"} <= _imports(reg)
        assert any("yatmath.itnet" in v for v in violations(reg))
        sub = ROOT / "yat" / "kernel.py"
        sub.write_text("import numpy\n\ndef f():\n    from ..sweep import run\n")
        assert any("sweep" in v for v in violations(sub))
        sub.write_text("from .._validate import check_eps\nfrom ..features import rff\n")
        assert violations(sub) == []
        back = ROOT / "_array.py"
        back.write_text("def f():\n    from ._registry import table\n")
        assert any("_registry" in v for v in violations(back))
    finally:
        ROOT = old


def private_imports(path: Path, root: Path = LEDGER) -> list[str]:
    """The private yatmath modules and names that ``path`` (a module of the package folder
    ``root``) imports: a component after ``yatmath`` that starts with one underscore
    (``yatmath._array``, ``yatmath.yat._numba_kernels``, ``yatmath.stats._helper``)."""
    return sorted(name for name in _imports(path, root)
                  if name.split(".")[0] == "yatmath"
                  and any(part.startswith("_") and not part.startswith("__")
                          for part in name.split(".")[1:]))


LEDGER_FILES = sorted(LEDGER.rglob("*.py"))


@pytest.mark.parametrize("path", LEDGER_FILES, ids=lambda p: str(p.relative_to(LEDGER.parent)))
def test_the_ledger_and_figures_import_only_the_public_library(path):
    bad = private_imports(path)
    assert not bad, (f"{_module_name(path, LEDGER)} imports private yatmath names: "
                     + ", ".join(bad) + " (use or add a public name)")


def test_the_ledger_has_its_figures():
    assert any(p.parts[-2:] == ("figures", "registry.py") for p in LEDGER_FILES)


def test_the_private_import_checker_catches_them_inside_functions(tmp_path):
    pkg = tmp_path / "proofs_check"
    (pkg / "figures").mkdir(parents=True)
    mod = pkg / "figures" / "fig_x.py"
    mod.write_text("from yatmath.yat import gram\nfrom yatmath import __version__, stats\n\n"
                   "def f():\n    from yatmath._array import has_numba\n"
                   "    import yatmath.yat._numba_kernels\n    from yatmath import _validate\n"
                   "    from yatmath.stats import _hidden\n")
    assert private_imports(mod, pkg) == [
        "yatmath._array", "yatmath._array.has_numba", "yatmath._validate",
        "yatmath.stats._hidden", "yatmath.yat._numba_kernels"]
    mod.write_text("from yatmath.files import atomic_write\nfrom yatmath import info\n")
    assert private_imports(mod, pkg) == []
