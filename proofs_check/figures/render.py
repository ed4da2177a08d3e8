"""Render a registered figure: NAME.png, NAME.pdf and the sidecar NAME.json.

``render(name, out_dir, seed=0)`` calls the figure's ``data(seed=seed)``, draws it with the
figure's drawing function onto a fresh matplotlib ``Figure`` (Agg canvas, no pyplot state), and
writes the three files atomically with ``yatmath.files.atomic_write`` (temporary files in
``out_dir``, renamed into place only when all three are complete), so a failure or Ctrl-C leaves
no partial output.  The sidecar records the name, title, paper reference, substitute flag, ``data()["params"]``,
the seed, package versions and the file names.

When the drawing sets no suptitle, the renderer adds one: the title, the paper reference and
the parameters (so eps, w and sizes are stated on the figure).
"""
from __future__ import annotations

import json
import platform
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

from proofs_check.registry import json_ready  # noqa: E402  (numpy -> plain JSON values)
from yatmath.files import atomic_write  # noqa: E402  (the one atomic writer)

from . import registry  # noqa: E402

DPI = 150


def versions() -> dict[str, str | None]:
    """Versions of python and of the packages a figure uses (None when not installed)."""
    import importlib.metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("numpy", "scipy", "sympy", "matplotlib", "yatmath"):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def params_line(params: dict, limit: int = 150) -> str:
    """``k=v, ...`` for the figure text (numbers to 4 significant digits, long arrays abbreviated)."""
    def fmt(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        if isinstance(v, (list, tuple)):
            if len(v) <= 4 and all(isinstance(x, (int, float)) for x in v):
                return "(" + ", ".join(fmt(x) for x in v) + ")"
            return f"<{len(v)} values>"
        return str(v)

    text = ", ".join(f"{k}={fmt(v)}" for k, v in json_ready(params).items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def get(name: str) -> registry.Figure:
    """The registered figure ``name``, or ValueError naming the argument."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a figure name (str), got {type(name).__name__}")
    fig = registry.FIGURES.get(name)
    if fig is None:
        raise ValueError(f"name {name!r} is not a registered figure "
                         f"(known: {', '.join(sorted(registry.FIGURES)) or 'none'})")
    return fig


def compute(name: str, seed: int = 0) -> dict:
    """``data(seed=seed)`` of figure ``name``, checked to hold a ``params`` dict."""
    fig = get(name)
    if not fig.reproduced or fig.data is None or fig.draw is None:
        raise ValueError(f"name {name!r} is a figure that is not reproduced: {fig.reason}")
    data = fig.data(seed=seed)
    if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
        raise ValueError(f"figure {name!r}: data() must return a dict with a 'params' dict, "
                         f"got {type(data).__name__}")
    return data


def draw(name: str, data: dict) -> MplFigure:
    """A matplotlib Figure with ``data`` drawn by figure ``name``'s drawing function."""
    spec = get(name)
    fig = MplFigure(figsize=(7.0, 5.0), layout="constrained")
    FigureCanvasAgg(fig)
    spec.draw(data, fig)
    if not fig.get_suptitle():
        line = params_line(data["params"])
        fig.suptitle(f"{spec.title} [{spec.paper}]" + (f"\n{line}" if line else ""), fontsize=9)
    return fig


def sidecar(name: str, data: dict, seed: int, files: list[str]) -> dict:
    """The JSON sidecar of a rendered figure."""
    spec = get(name)
    return {
        "name": spec.name,
        "title": spec.title,
        "paper": spec.paper,
        "substitute": spec.substitute,
        "module": spec.module,
        "params": json_ready(data["params"]),
        "seed": seed,
        "versions": versions(),
        "files": files,
    }


def render(name: str, out_dir, seed: int = 0) -> dict[str, Path]:
    """Compute, draw and write figure ``name`` into ``out_dir``; return ``{"png", "pdf", "json"}`` paths."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    data = compute(name, seed)
    fig = draw(name, data)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    targets = {ext: out / f"{name}.{ext}" for ext in ("png", "pdf", "json")}
    meta = sidecar(name, data, seed, [targets["png"].name, targets["pdf"].name])
    atomic_write({
        targets["png"]: lambda fh: fig.savefig(fh, format="png", dpi=DPI),
        targets["pdf"]: lambda fh: fig.savefig(fh, format="pdf", metadata={"CreationDate": None}),
        targets["json"]: json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
    })
    return targets
