"""Static types of the public API (issue 25).

* ``test_mypy_passes``: mypy, with the ``[tool.mypy]`` configuration of pyproject.toml, finds no
  error in the package (10 to 20 s from a clean cache; pytest's cache folder keeps mypy's
  incremental cache between local runs, so a rerun takes about a second).
* ``test_public_api_is_annotated``: every public function and method of every public module
  annotates every parameter and its return, and the annotations resolve at run time
  (``typing.get_type_hints``, which the documentation build uses; a name imported only under
  ``TYPE_CHECKING`` is looked up in the packages above its module), so a new public function
  without hints fails here with its name.

Public: a module none of whose dotted parts starts with ``_``; in it, the functions and classes
it defines that are in its ``__all__`` or whose names do not start with ``_``; of a class, the
methods, static methods, class methods and properties it defines whose names do not start with
``_``, and ``__init__``, ``__call__``, ``__enter__`` and ``__exit__``.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import typing
from pathlib import Path

import pytest

import yatmath

ROOT = Path(__file__).resolve().parents[1]

#: modules left out of the walk while a change annotates them: empty, every public module is
#: walked (and no module is exempt from mypy in pyproject.toml's [tool.mypy])
PENDING: tuple[str, ...] = ()

#: dunder methods that are part of a class's public interface
PUBLIC_DUNDERS = ("__init__", "__call__", "__enter__", "__exit__")


def _pending(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in PENDING)


def _public_modules() -> list[types.ModuleType]:
    mods = [yatmath]
    for info in pkgutil.walk_packages(yatmath.__path__, "yatmath."):
        if any(part.startswith("_") for part in info.name.split(".")) or _pending(info.name):
            continue
        mods.append(importlib.import_module(info.name))
    return mods


def _is_public(module: types.ModuleType, name: str) -> bool:
    return name in getattr(module, "__all__", ()) or not name.startswith("_")


def _functions(cls: type) -> list[tuple[str, types.FunctionType, bool]]:
    """(name, function, is_method) for the public methods ``cls`` itself defines."""
    out = []
    for name, attr in vars(cls).items():
        if name.startswith("_") and name not in PUBLIC_DUNDERS:
            continue
        is_method = True
        if isinstance(attr, staticmethod):
            attr, is_method = attr.__func__, False
        elif isinstance(attr, classmethod):
            attr = attr.__func__
        elif isinstance(attr, property):
            attr = attr.fget
        # defined in the class's module: not machinery another module puts there (a
        # ``typing.Protocol``'s ``__init__`` is typing's)
        if isinstance(attr, types.FunctionType) and attr.__module__ == cls.__module__:
            out.append((name, attr, is_method))
    return out


def _public_callables() -> list[tuple[str, types.FunctionType, bool]]:
    """(qualified name, function, is_method) of every public function and method, once each."""
    seen: set[int] = set()
    out = []
    for module in _public_modules():
        for name, obj in vars(module).items():
            if not _is_public(module, name) or getattr(obj, "__module__", None) != module.__name__:
                continue
            if isinstance(obj, types.FunctionType):
                found = [(f"{module.__name__}.{name}", obj, False)]
            elif isinstance(obj, type):
                found = [(f"{module.__name__}.{obj.__qualname__}.{m}", f, is_method)
                         for m, f, is_method in _functions(obj)]
            else:
                continue
            for qual, fn, is_method in found:
                if id(fn) not in seen:
                    seen.add(id(fn))
                    out.append((qual, fn, is_method))
    return out


def _missing(fn: types.FunctionType, is_method: bool) -> list[str]:
    """The parameters (and ``return``) of ``fn`` without an annotation."""
    target = inspect.unwrap(fn)
    annotations = getattr(target, "__annotations__", {})
    params = list(inspect.signature(target).parameters)
    if is_method and params:
        params = params[1:]           # self / cls
    return [p for p in params if p not in annotations] + (
        [] if "return" in annotations else ["return"])


def _hints(fn: types.FunctionType, module: str | None = None) -> dict[str, object]:
    """``typing.get_type_hints(fn)``; a name the module imports only for type checking
    (``if TYPE_CHECKING:``, to keep its import order) is looked up in the packages above it, as
    the documentation's reference resolver does (docs/_ext/yatmath_docs.py, resolve_relative).
    ``module``: the module that makes ``fn`` public (default ``fn.__module__``).  A Hypothesis
    ``@composite`` strategy (yatmath.testing.strategies) is a wrapper that Hypothesis compiles
    in a namespace of its own, carrying the annotations of the function it wraps: their names
    are looked up in that module too."""
    try:
        return typing.get_type_hints(fn)
    except NameError:
        home = module or fn.__module__
        parts = home.split(".")
        names: dict[str, object] = {}
        for k in range(1, len(parts)):
            names.update(vars(importlib.import_module(".".join(parts[:k]))))
        own = vars(importlib.import_module(home))
        if getattr(fn, "__globals__", own) is not own:
            names.update(own)
        return typing.get_type_hints(fn, localns=names)


def test_public_api_is_annotated() -> None:
    callables = _public_callables()
    assert len(callables) > 400, f"only {len(callables)} public callables found: a broken walk?"
    missing = {qual: m for qual, fn, is_method in callables if (m := _missing(fn, is_method))}
    assert not missing, (f"{len(missing)} public functions lack type hints (parameter names, "
                         "'return'):\n" + "\n".join(f"  {q}: {', '.join(m)}"
                                                    for q, m in sorted(missing.items())))
    unresolved = {}
    for qual, fn, _ in callables:
        try:
            _hints(inspect.unwrap(fn), fn.__module__)
        except Exception as exc:  # NameError for a name nothing exports, TypeError, ...
            unresolved[qual] = f"{type(exc).__name__}: {exc}"
    assert not unresolved, ("annotations that do not resolve at run time:\n"
                            + "\n".join(f"  {q}: {e}" for q, e in sorted(unresolved.items())))


@pytest.mark.slow
def test_mypy_passes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                     tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    pytest_cache = getattr(request.config, "cache", None)   # None with -p no:cacheprovider
    cache = pytest_cache.mkdir("mypy") if pytest_cache is not None else tmp_path / "mypy_cache"
    monkeypatch.chdir(ROOT)     # the configuration's `packages = ["yatmath"]`: this source tree
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                      "--cache-dir", str(cache), "--no-error-summary",
                                      "--hide-error-context", "--show-error-codes"])
    assert status == 0, f"mypy found errors (exit status {status}):\n{stdout}{stderr}"
