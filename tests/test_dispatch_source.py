"""The registry is the only dispatcher (issue 23): no public function of the library branches on a
backend or an array library's name, as ``scipy.spatial.distance.cdist`` never branches on a
metric's name.

A public function validates its arguments, asks ``yatmath._registry.choose`` for the row and calls
it; the rows (private functions registered with ``register``) are where backend-specific code
lives, and the host/device copy is a row property (``host_input``) applied by the registry.  This
test reads the source of every public function and method of the subpackages and refuses:

* a comparison with a backend or library name (``"numba"``, ``"cupy"``, ``"reference"``,
  ``"numpy"``) on either side, or of anything called ``backend`` / ``.backend``;
* a call of a helper that answers "is this on the GPU?" to choose a path (``is_cupy``,
  ``is_cupy_array``, ``wants_device_copy``, ``resolve``, ``array_module``).

The compiled kernel modules (``_numba_*.py``, ``_cuda_*.py``) are the rows' insides and exempt.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import yatmath

ROOT = Path(yatmath.__file__).parent
SUBPACKAGES = ("yat", "features", "estimators", "itnet", "particles")
NAMES = {"numba", "cupy", "reference", "numpy"}
HELPERS = {"is_cupy", "is_cupy_array", "wants_device_copy", "resolve", "array_module"}


def _is_backend_operand(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_backend_operand(e) for e in node.elts)
    if isinstance(node, ast.Name) and node.id in ("backend", "be_name"):
        return True
    return isinstance(node, ast.Attribute) and node.attr == "backend"


def branches(func: ast.AST) -> list[str]:
    """The backend branches in the body of ``func`` (line: source), nested functions excluded
    (a nested function is a private helper of its own)."""
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue
            if isinstance(child, ast.Compare) and any(
                    _is_backend_operand(o) for o in [child.left, *child.comparators]):
                out.append(f"line {child.lineno}: {ast.unparse(child)}")
            elif isinstance(child, ast.Call):
                f = child.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if name in HELPERS:
                    out.append(f"line {child.lineno}: {ast.unparse(child)}")
            visit(child)
    visit(func)
    return out


def public_functions(path: Path):
    """(qualified name, node) of every public function and public method of a public class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not \
                node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        not item.name.startswith("_") or item.name == "__call__"):
                    yield f"{node.name}.{item.name}", item


# the compiled kernels themselves (the rows' insides, one processor each) are exempt
KERNEL_MODULES = ("_numba_", "_cuda_")
FILES = sorted(p for sub in SUBPACKAGES for p in (ROOT / sub).rglob("*.py")
               if not p.name.startswith(KERNEL_MODULES))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_do_not_branch_on_backends(path):
    bad = [f"{name} {b}" for name, node in public_functions(path) for b in branches(node)]
    assert not bad, (f"{path.relative_to(ROOT)}: public functions branch on a backend or library "
                     "name (make it a registry row):\n  " + "\n  ".join(bad))


def test_the_checker_sees_a_branch():
    src = ("def gram(X, backend='auto'):\n    if backend == 'numba':\n        return 1\n"
           "    impl = choose('yat.gram', backend, 'numpy')\n"
           "    if impl.backend != 'reference':\n        pass\n"
           "    if be.is_cupy_array(X):\n        pass\n    return impl(X)\n"
           "def ok(X, backend='auto'):\n    return choose('op', backend, lib)(X)\n")
    tree = ast.parse(src)
    found = {f.name: branches(f) for f in tree.body}
    assert len(found["gram"]) == 3 and found["ok"] == []
