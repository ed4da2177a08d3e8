"""The bad-input table: one row per (public function, argument, bad value, expected error).

In the manner of SciPy's argument-validation tests.  Each area has a module ``badinput_<area>.py``
with a list ``ROWS`` of :class:`Case` and, optionally, ``NOT_VALIDATED``: a dict from public name
to the reason it takes no user arguments worth a row (a result record the library builds itself).
``tests/test_bad_input.py`` runs every row and checks that every public callable has one.

A row passes when calling ``case.call(case.bad)``

* raises ``case.exc`` within ``TIMEOUT_S`` seconds (a hang is a failure, not a wait), and
* the message contains the argument's name ``case.arg`` and each of ``case.words``
  (case-insensitive), so the user learns which argument was wrong and what was expected.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from typing import Any, Callable

#: the public namespaces whose ``__all__`` the table must cover
PUBLIC_MODULES = ("yatmath.yat", "yatmath.features", "yatmath.estimators", "yatmath.itnet",
                  "yatmath.particles", "yatmath.sweep")
AREAS = ("tests.badinput_yat", "tests.badinput_itnet", "tests.badinput_particles",
         "tests.badinput_sweep")
TIMEOUT_S = 20


@dataclasses.dataclass(frozen=True)
class Case:
    """One bad input.

    func  the public name, ``"yatmath.yat.gram"`` or ``"yatmath.particles.McKeanVlasovFV.run"``
          (a class's constructor is the class name itself)
    arg   the argument's name as the user wrote it
    bad   the bad value (shown in the test id)
    call  ``call(bad)`` makes the call with the bad value in place of ``arg``
    exc   the exception type (or a tuple of them) expected
    words further words the message must contain (besides ``arg``)
    note  why the value is bad, when not obvious
    """

    func: str
    arg: str
    bad: Any
    call: Callable[[Any], Any]
    exc: type | tuple = ValueError
    words: tuple[str, ...] = ()
    note: str = ""

    @property
    def id(self) -> str:
        text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(self.bad))  # stable across processes
        if len(text) > 30:
            text = text[:27] + "..."
        return f"{self.func.removeprefix('yatmath.')}:{self.arg}={text}"


def public_callables() -> dict[str, object]:
    """Every public function, class (its constructor) and public method defined on a public
    class, by dotted name; callables that take no argument besides ``self`` are left out."""
    out: dict[str, object] = {}
    for modname in PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                out[f"{modname}.{name}"] = obj
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not inspect.isfunction(member):
                        continue
                    params = list(inspect.signature(member).parameters)[1:]
                    if params:
                        out[f"{modname}.{name}.{attr}"] = member
            elif callable(obj) and not inspect.ismodule(obj):
                try:
                    params = inspect.signature(obj).parameters
                except (TypeError, ValueError):
                    params = {"?": None}
                if params:
                    out[f"{modname}.{name}"] = obj
    return out


def load_table():
    """All rows and all NOT_VALIDATED entries of the area modules present."""
    rows, exempt = [], {}
    for area in AREAS:
        try:
            mod = importlib.import_module(area)
        except ModuleNotFoundError as exc:
            if exc.name != area:
                raise
            continue
        rows.extend(mod.ROWS)
        exempt.update(getattr(mod, "NOT_VALIDATED", {}))
    return rows, exempt
