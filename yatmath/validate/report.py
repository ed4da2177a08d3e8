"""The validation report: JSON and Markdown, a plot of error against condition number.

Files are written atomically (each to a temporary file in the target folder, then
``os.replace``), so an interrupted run leaves the previous report intact.

``report.json`` is strict JSON (RFC 8259, ``json.loads(text, parse_constant=...)`` never sees a
constant): a value that is not a number is written as ``null`` when it is NaN (nothing was
measured, e.g. ``worst_rel_u`` of a suite that has no relative error) and as the strings
``"inf"`` / ``"-inf"`` when it is infinite (e.g. ``worst_ratio`` of an entry that should be
finite and is not).  NumPy scalars and arrays become numbers and lists; anything else that JSON
cannot hold becomes its ``str``.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..files import atomic_write
from .suites import SuiteResult


@dataclass
class Report:
    """What ``validate`` found: one ``SuiteResult`` per (suite, dtype)."""

    target: str
    kind: str
    framework: str
    settings: dict[str, Any]
    results: list[SuiteResult] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    problem: str | None = None      # the target failed before any suite (exit at import, hang)

    @property
    def passed(self) -> bool:
        """True when no applicable suite failed (a suite that does not apply counts as None)
        and the target did not fail before its suites."""
        return self.problem is None and all(r.passed is not False for r in self.results)

    def failures(self) -> list[str]:
        """One line per thing that failed because of what the target did (raised, exited, hung,
        wrong shape or type, NaN, modified inputs), naming it."""
        out = [f"FAIL: {self.problem}"] if self.problem else []
        for r in self.results:
            out += [f"FAIL {r.suite} {r.dtype}: {p}" for p in getattr(r, "problems", ())]
        return out

    def to_dict(self) -> dict[str, Any]:
        return strict(dict(target=self.target, kind=self.kind, framework=self.framework,
                           settings=self.public_settings(), passed=self.passed,
                           problem=self.problem, versions=self.versions,
                           columns=self.columns(),
                           results=[r.to_dict() for r in self.results]))

    def public_settings(self) -> dict[str, Any]:
        return {k: v for k, v in self.settings.items() if not k.startswith("_") and _jsonable(v)}

    def to_json(self) -> str:
        """report.json's text: strict JSON (module docstring)."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False)

    def table(self) -> str:
        """Markdown table: suite, dtype, class, entries, fails, worst rel. error [u], worst
        error / bound (``legend`` says what each column means)."""
        lines = ["| suite | dtype | input class | checked | fails | worst rel. err [u] | "
                 "worst err / bound |", "|---|---|---|---:|---:|---:|---:|"]
        for r in self.results:
            if r.passed is None:
                lines.append(f"| {r.suite} | {r.dtype} | {r.verdict}: {_cell(r.reason)} "
                             f"| | | | |")
                continue
            if not r.rows:
                lines.append(f"| {r.suite} | {r.dtype} | FAIL: {_cell(r.note)} | | | | |")
                continue
            for row in r.rows:
                rel = _fmt(row.get("worst_rel_u"))
                cond, value = row.get("worst_rel_cond"), row.get("worst_rel_u")
                if cond is not None and isinstance(value, float) and 1.0 < value < math.inf:
                    rel += f" (cond {_fmt(cond)})"     # what explains a relative error > 1
                lines.append(f"| {r.suite} | {r.dtype} | {row['cls']} | {row['entries']} | "
                             f"{row['fails']} | {rel} | {_fmt(row.get('worst_ratio'))} |")
        return "\n".join(lines)

    def legend(self) -> list[str]:
        """Lines under the table that say what its columns mean, with units, for the suites in
        it (``columns`` gives them as a dict; ``suites``' docstring justifies the choices)."""
        return [f"- {key}: {text}" for key, text in self.columns().items()]

    def columns(self) -> dict[str, str]:
        """{column: definition} for the suites of this report."""
        present = []
        for r in self.results:
            if r.passed is not None and r.suite not in present:
                present.append(r.suite)
        dtypes = sorted({r.dtype for r in self.results})
        u = ", ".join(f"{dt} {_U_TEXT[dt]}" for dt in dtypes if dt in _U_TEXT)
        out = {"checked": "how many things the suite judged: " + "; ".join(
                   _CHECKED[s] for s in present if s in _CHECKED),
               "fails": "how many of them are outside what the suite allows (0: the row passes)"}
        rel = [_REL[s] for s in present if s in _REL]
        if rel:
            out["worst rel. err [u]"] = (
                f"max |got - exact| / (u * max(|exact|, floor)), in units of the dtype's unit "
                f"roundoff u ({u or 'of the dtype'}); floor = " + "; ".join(rel) + ". It "
                "describes, the bound decides: the bound grows with the condition number cond "
                "= (|w||x| + |b|) / |w.x + b| (about 4 (d+4) (cond+8) u), so a row with a large "
                "cond passes with a large value; (cond c): the cond of the entry that has it, "
                "shown where the value is > 1; '–': the suite compares with no exact value")
        ratio = [_RATIO[s] for s in present if s in _RATIO]
        if ratio:
            out["worst err / bound"] = (
                "the largest error divided by what the suite allows (dimensionless): "
                + "; ".join(ratio) + ". A row passes exactly when it is <= 1 (fails = 0)")
        return out

    def summary_rows(self) -> list[dict[str, Any]]:
        """One row per (suite, dtype): verdict, worst ratio, note."""
        return [dict(suite=r.suite, dtype=r.dtype, verdict=r.verdict,
                     worst_ratio=None if r.passed is None else _max_ratio(r.rows),
                     note=r.note) for r in self.results]

    def markdown(self) -> str:
        out = [f"# yatmath validate: `{self.target}`", "",
               f"kind **{self.kind}**, framework **{self.framework}**: "
               f"**{'PASS' if self.passed else 'FAIL'}**", ""]
        if self.failures():
            out += ["What the target did wrong:", ""] + [f"- {f}" for f in self.failures()] + [""]
        out += [
               "Errors are judged against the condition-aware bound of `yatmath/yat/kernel.py` "
               "(err/bound <= 1 passes); the columns are defined under the per-class table.", "",
               "| suite | dtype | verdict | worst err / bound | note |", "|---|---|---|---:|---|"]
        for row in self.summary_rows():
            out.append(f"| {row['suite']} | {row['dtype']} | {row['verdict']} | "
                       f"{_fmt(row['worst_ratio'])} | {_cell(row['note'])} |")
        out += ["", "## Per input class", "", self.table(), "", "Columns:", ""] \
            + self.legend() + ["", "## Worst inputs", ""]
        for r in self.results:
            if r.worst:
                w = {k: v for k, v in r.worst.items() if k not in ("Z", "Q", "K", "V", "mask", "X")}
                out.append(f"- **{r.suite} / {r.dtype}**: `{json.dumps(strict(w))}`")
        out += ["", f"Settings: `{json.dumps(strict(self.public_settings()))}`",
                f"Versions: `{json.dumps(strict(self.versions))}`", ""]
        return "\n".join(out)

    def plot(self, fh: str | os.PathLike[str] | IO[bytes]) -> None:
        """Relative error [u] (the table's, floored at the smallest normal) against the
        condition number cond = A/|N| of every accuracy entry."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        plotted = False
        for r in self.results:
            p = r.points
            if not p:
                continue
            cond, rel, ok = p["cond"], p["rel_u"], p["ok"]
            sel = np.isfinite(cond) & np.isfinite(rel) & (rel > 0)
            ax.scatter(cond[sel & ok], rel[sel & ok], s=4, alpha=0.4, label=f"{r.dtype} pass")
            if (sel & ~ok).any():
                ax.scatter(cond[sel & ~ok], rel[sel & ~ok], s=10, marker="x",
                           label=f"{r.dtype} FAIL")
            plotted = True
        if plotted:
            c = np.logspace(0, 16, 50)
            ax.plot(c, 4 * 44 * (c + 8), "k--", lw=1, label="bound 4(d+4)(cond+8), d = 40")
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel("condition number cond = (|w||x| + |b|) / |N|")
        ax.set_ylabel("|error| / (u max(|K|, smallest normal))")
        ax.set_title(f"{self.target} ({self.framework})", fontsize=9)
        if plotted:
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(fh, format="png", dpi=110)
        plt.close(fig)

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """report.json, report.md and error_vs_condition.png in ``out_dir``, atomically."""
        out = Path(out_dir)
        buf = io.BytesIO()
        self.plot(buf)
        files: dict[str | os.PathLike[str], Any] = {out / "report.json": self.to_json(),
                 out / "report.md": self.markdown(),
                 out / "error_vs_condition.png": buf.getvalue()}
        return atomic_write(files)


_U_TEXT = {"float32": "2^-24 = 6.0e-8", "float64": "2^-53 = 1.1e-16", "bfloat16": "2^-8"}
#: what "checked" counts, per suite
_CHECKED = {
    "accuracy": "accuracy kernel entries",
    "gram": "gram Gram entries (symmetry) and points (PSD)",
    "gradients": "gradients rows of dL/dX and dL/dW",
    "attention": "attention output entries",
    "linear": "linear output entries",
    "unbiased": "unbiased feature maps drawn per pair",
    "budget": "budget feature maps (seeds)",
    "properties": "properties checks (one input set each)",
}
#: the floor of the relative error, per suite that reports one
_REL = {
    "accuracy": "the dtype's smallest normal number for accuracy (below it an error counts in "
                "units of u * smallest normal, half the subnormal spacing: a correctly rounded "
                "result scores <= 1, subnormal and zero exact values included)",
    "attention": "max |V| of the output column for attention (outputs are weighted averages "
                 "of V's rows; the bound is a multiple of u max|V|)",
    "linear": "max |V| of the output column for linear (as for attention)",
}
#: what "worst err / bound" divides, per suite
_RATIO = {
    "accuracy": "accuracy |K_hat - K| / the condition-aware bound of yatmath/yat/kernel.py (an "
                "entry that breaks another rule -- a negative K, finite where K overflows -- "
                "counts as inf)",
    "gram": "gram |G_ij - G_ji| / (bound_ij + bound_ji) and max(0, -lambda_min) / tolerance",
    "gradients": "gradients |autodiff - closed form| / bound per component",
    "attention": "attention |O_hat - O| / bound",
    "linear": "linear |O_hat - O| / bound",
    "unbiased": "unbiased |mean - K| / confidence half-width",
    "budget": "budget median RMS error / budget",
    "properties": "properties '–' (each property passes or fails at its own stated tolerance, "
                  "named in its FAIL line)",
}


def _jsonable(v: object) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def strict(o: object) -> Any:
    """``o`` with every float made JSON-safe (module docstring: NaN -> None, +-inf -> "inf" /
    "-inf"), NumPy scalars and arrays as Python numbers and lists, other objects as str."""
    import numpy as np

    if isinstance(o, dict):
        return {str(k): strict(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [strict(v) for v in o]
    if isinstance(o, np.ndarray):
        return strict(o.tolist())
    if isinstance(o, (bool, np.bool_)):
        return bool(o)
    if o is None or isinstance(o, str):
        return o
    if isinstance(o, (int, np.integer)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        x = float(o)
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return str(o)


def _max_ratio(rows: Sequence[Mapping[str, Any]]) -> float:
    vals = [row.get("worst_ratio", 0.0) for row in rows]
    vals = [v for v in vals if not (isinstance(v, float) and math.isnan(v))]
    if not rows:
        return 0.0
    return max(vals) if vals else float("nan")


def _cell(text: object) -> str:
    """Text for a Markdown table cell (a '|' would end the cell)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fmt(x: object) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and math.isnan(x):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.3g}"


def versions(framework: str) -> dict[str, str]:
    import numpy

    import yatmath

    out = dict(yatmath=yatmath.__version__, numpy=numpy.__version__, python=platform.python_version())
    for mod in (framework, "nmn"):
        if mod == "numpy":
            continue
        with contextlib.suppress(Exception):
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
    return out
