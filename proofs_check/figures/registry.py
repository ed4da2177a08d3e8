"""The figure registry.

A figure module defines a function computing the plotted data and registers a drawing function::

    from proofs_check.figures.registry import register_figure

    @register_figure("yat_potential_well", paper="000 Fig. 3", title="Yat potential well",
                     data=potential_well_data)
    def draw(data, fig):      # fig: a matplotlib Figure; draw ``data`` onto it
        ...

``data(seed=0, **params) -> dict`` returns plain numbers/arrays plus a ``"params"`` dict that
names every parameter used (eps, w, sizes, seeds): tests assert on it, the sidecar records it.
Figures that cannot be reproduced honestly are registered with ``reproduced=False`` and a
``reason`` and no drawing; a substitute drawn from synthetic or shipped data says
``substitute=True`` and the title says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Figure:
    name: str
    paper: str
    title: str
    data: Callable[..., dict] | None
    draw: Callable[[dict, Any], None] | None
    substitute: bool = False
    reproduced: bool = True
    reason: str = ""
    module: str = field(default="")


FIGURES: dict[str, Figure] = {}


def register_figure(name, *, paper, title, data=None, substitute=False):
    def deco(draw):
        if name in FIGURES:
            raise KeyError(f"figure {name!r} is registered twice")
        t = title if not substitute or "substitute" in title.lower() else f"{title} (substitute)"
        FIGURES[name] = Figure(name, paper, t, data, draw, substitute, True, "", draw.__module__)
        return draw

    return deco


def register_not_reproduced(name, *, paper, title, reason):
    if name in FIGURES:
        raise KeyError(f"figure {name!r} is registered twice")
    FIGURES[name] = Figure(name, paper, title, None, None, False, False, reason, "")


def load_all() -> dict[str, Figure]:
    """Import every figure module of this package (registering their figures)."""
    import importlib
    import pkgutil

    package = __name__.rpartition(".")[0]          # proofs_check.figures
    here = importlib.import_module(package)
    for mod in sorted(pkgutil.iter_modules(here.__path__), key=lambda m: m.name):
        if mod.name.startswith("fig_"):
            importlib.import_module(f"{package}.{mod.name}")
    return FIGURES
