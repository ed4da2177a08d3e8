"""Build the static site of a ledger folder and a figures folder (``yatmath report``).

``build_site(ledger_dir, out_dir=None, figures_dir=None)`` reads

* ``ledger_dir/ledger.json`` (the records written by ``yatmath check``), ``ledger.meta.json``
  (the run; optional) and the evidence plots ``ledger_dir/plots/*.png``;
* optionally ``figures_dir/*.json``, the sidecars of ``yatmath figures`` (name, title, paper,
  substitute flag, params, seed, files), with their PNG and PDF files;

and writes, into ``out_dir`` (default ``ledger_dir/site``), pages that open from disk with no
server:

``index.html``            every claim: verdict counts, a summary per paper, the refuted claims
                          first with their decisive numbers, and a table filterable by verdict and
                          by paper (``static/site.js``; without JavaScript every row shows)
``paper-000.html`` ...    the same for the claims citing one paper
``claims/<id>.html``      one page per claim: statement, the cited passages quoted from the
                          shipped paper texts (:mod:`proofs_check.site.passages`), the operative and
                          other readings, the verdict and the parts it follows from, thresholds
                          with their flip points, scope, evidence numbers and plots, the
                          counterexample as a small key/value table (nested values under dotted
                          keys, arrays abbreviated) and its reproduction with a copy button
``figures.html``          the gallery: each rendered figure with its parameters, whether it is
                          reproduced or a labelled substitute, and the command that regenerates it;
                          then the registered figures this folder lacks (and why, for those that
                          are not reproduced)

Pages are rendered by Jinja2 templates (``templates/*.html``, autoescaping on) from plain page
models built here; the texts come from the ledger and the catalogue (``proofs_check``), never
typed in.  A refuted claim is stated in words (``proofs_check.report.decisive_sentence``).
Mathematics is typeset in the browser by KaTeX, shipped in ``static/katex`` (MIT licence) and
loaded by relative path, so the site still opens from disk: ``$...$``, ``$$...$$``, ``\\(...\\)``
and ``\\[...\\]`` in claim texts, and the dollars of the paper passages that write their
mathematics between dollars (``passages.Passage.math``).  Numbers are shown with
``proofs_check.report``'s formatting; exact values are in
``ledger.json``.

Atomicity: the site is built in a temporary folder beside ``out_dir`` and renamed into place only
when complete; an existing site there (recognised by its ``.yatmath-site`` marker) is replaced,
anything else is refused.  An error or Ctrl-C removes the temporary folder and leaves the previous
site (or none).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path

from yatmath.files import current_umask

MARKER = ".yatmath-site"
TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")


class SiteError(ValueError):
    """A bad argument of :func:`build_site` (a missing ledger, an out folder that cannot be used)."""


# --------------------------------------------------------------------------------------------
# loading


def _read_json(path: Path, arg: str, folder: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SiteError(f"{arg} {str(folder)!r}: {path.name} cannot be read "
                        f"({exc.strerror or exc})") from None
    except ValueError as exc:
        raise SiteError(f"{arg} {str(folder)!r}: {path.name} is not valid JSON ({exc})") from None


def load_ledger(ledger_dir) -> tuple[list[dict], dict]:
    """``(records, meta)`` of a ledger folder; ``meta`` is ``{}`` when ``ledger.meta.json`` is
    absent.  Raises :class:`SiteError` naming ``ledger_dir``, the file and the field when the
    folder or its ledger.json is missing, or a file is not valid JSON, or a field of a record
    (``proofs_check.report.record_problems``) or of the run record
    (``proofs_check.report.meta_problems``) has the wrong type."""
    from proofs_check.report import LEDGER_JSON, LEDGER_META, meta_problems, record_problems

    d = Path(ledger_dir)
    if not d.is_dir():
        raise SiteError(f"ledger_dir {str(d)!r} is not a folder (expected the --out folder of "
                        "`yatmath check`, holding ledger.json)")
    path = d / LEDGER_JSON
    if not path.is_file():
        raise SiteError(f"ledger_dir {str(d)!r} holds no {LEDGER_JSON} (run `yatmath check --out "
                        f"{d}` first)")
    records = _read_json(path, "ledger_dir", d)
    if not isinstance(records, list):
        raise SiteError(f"ledger_dir {str(d)!r}: {LEDGER_JSON} must be a list of records, got a "
                        f"JSON {type(records).__name__}")
    seen: set[str] = set()
    for i, rec in enumerate(records):
        problems = record_problems(rec)
        if problems:
            cid = rec.get("id") if isinstance(rec, dict) else None
            name = f" ({cid})" if isinstance(cid, str) else ""
            raise SiteError(f"ledger_dir {str(d)!r}: {LEDGER_JSON} record {i}{name}: {problems[0]}"
                            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        if rec["id"] in seen:
            raise SiteError(f"ledger_dir {str(d)!r}: {LEDGER_JSON} record {i}: field 'id' "
                            f"{rec['id']!r} appears twice")
        seen.add(rec["id"])
    meta = {}
    if (d / LEDGER_META).exists():
        meta = _read_json(d / LEDGER_META, "ledger_dir", d)
        problems = meta_problems(meta)
        if problems:
            raise SiteError(f"ledger_dir {str(d)!r}: {LEDGER_META}: {problems[0]}")
    return records, meta


_FIGURE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def sidecar_problems(side: dict) -> list[str]:
    """Why ``side`` is not a figure sidecar as ``proofs_check.figures.render.sidecar`` writes it:
    one message per field of the wrong type, naming the field."""
    from proofs_check.report import _kind

    out = []

    def want(key, ok, expected):
        if not ok:
            v = side.get(key)
            out.append(f"field {key!r} must be {expected}, got {_kind(v)}"
                       + (f" {json.dumps(v)[:60]}" if isinstance(v, (str, int, float)) else ""))

    name = side.get("name")
    want("name", isinstance(name, str) and bool(_FIGURE_NAME.match(name)) and ".." not in name,
         "a figure name (letters, digits, _ . -)")
    want("files", isinstance(side.get("files"), list)
         and all(isinstance(f, str) for f in side["files"]), "a list of file names")
    want("params", isinstance(side.get("params"), dict), "an object")
    for key in ("title", "paper", "module"):
        want(key, side.get(key) is None or isinstance(side.get(key), str), "a string")
    want("substitute", side.get("substitute") is None or isinstance(side.get("substitute"), bool),
         "a boolean")
    seed = side.get("seed")
    want("seed", seed is None or (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0),
         "a non-negative integer")
    vers = side.get("versions")
    want("versions", vers is None or isinstance(vers, dict), "an object")
    return out


def load_figures(figures_dir) -> list[dict]:
    """The figure sidecars of ``figures_dir`` (``*.json`` with ``name``, ``files`` and ``params``),
    sorted by name; other JSON files there (e.g. the run record) are ignored.  Raises
    :class:`SiteError` naming ``figures_dir`` when it is not a folder, and naming the sidecar and
    the field when a field has the wrong type (:func:`sidecar_problems`)."""
    d = Path(figures_dir)
    if not d.is_dir():
        raise SiteError(f"figures_dir {str(d)!r} is not a folder (expected the --out folder of "
                        "`yatmath figures`)")
    out = []
    for path in sorted(d.glob("*.json")):
        try:
            side = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(side, dict) and {"name", "files", "params"} <= set(side):
            problems = sidecar_problems(side)
            if problems:
                raise SiteError(f"figures_dir {str(d)!r}: sidecar {path.name}: {problems[0]}")
            out.append(side)
    return sorted(out, key=lambda s: s["name"])


# --------------------------------------------------------------------------------------------
# page models


def _json(v, indent=None) -> str:
    return json.dumps(v, ensure_ascii=False, indent=indent)


def _value(v) -> dict:
    """A number of the evidence: ``short`` (exact for scalars; for a long list or dict as LEDGER.md
    abbreviates it) and ``full`` (its exact JSON, only when ``short`` abbreviates it)."""
    from proofs_check.report import _num

    full = _json(v)
    if isinstance(v, (list, dict)) and len(full) > 60:
        return {"short": _num(v), "full": _json(v, indent=1)}
    return {"short": v if isinstance(v, str) else full, "full": ""}


def _evidence_rows(ev) -> list[dict]:
    from proofs_check.report import _flat

    if not isinstance(ev, dict):
        return [{"key": "", **_value(ev)}] if ev not in (None, {}, []) else []
    return [{"key": k, **_value(v)} for k, v in _flat(ev)]


def _short_number(x) -> str:
    from proofs_check.report import _num

    return _num(x) if isinstance(x, float) else _json(x)


def _abbrev(v) -> dict:
    """A value of a counterexample for one table cell: ``short`` (a scalar exactly; a short list
    in full; a long list or an array as its shape and first entries) and ``full`` (every entry,
    one row of an array per line, only when ``short`` abbreviates)."""
    if not isinstance(v, list):
        return {"short": v if isinstance(v, str) else _json(v), "full": ""}
    if v and all(isinstance(x, list) for x in v):          # an array: rows
        rows = [len(x) for x in v]
        shape = f"{len(v)}×{rows[0]}" if len(set(rows)) == 1 else f"{len(v)} rows"
        first = ", ".join(_short_number(x) for x in v[0][:3] if not isinstance(x, (list, dict)))
        more = ", …" if rows[0] > 3 else ""
        return {"short": f"{shape} array [[{first}{more}], …]",
                "full": "\n".join(_json(x) for x in v)}
    if len(v) <= 6 and all(not isinstance(x, (list, dict)) for x in v):
        return {"short": "[" + ", ".join(x if isinstance(x, str) else _json(x) for x in v) + "]",
                "full": ""}
    head = ", ".join(_short_number(x) for x in v[:3] if not isinstance(x, (list, dict)))
    short = f"[{head}, …] ({len(v)} entries)" if head else f"{len(v)} entries"
    return {"short": short, "full": "\n".join(_json(x) for x in v) if not head else _json(v)}


def counterexample_rows(ce) -> list[dict]:
    """A counterexample as key/value rows: nested objects flattened to dotted keys, scalars
    exact, lists and arrays abbreviated (``full`` holds every entry); ``[]`` for none."""
    from proofs_check.report import _flat

    if ce in (None, {}, []):
        return []
    if not isinstance(ce, dict):
        return [{"key": "", **_abbrev(ce)}]
    return [{"key": k, **_abbrev(v)} for k, v in _flat(ce)]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.") or "claim"


def _reading(r) -> dict | None:
    from .passages import locate_all

    if not r:
        return None
    return {"text": r.get("text", ""), "passage": r.get("passage", ""),
            "located": [p for p in locate_all(r.get("passage", "")) if p.found]}


def _derivation(node: dict) -> str:
    """How a node's verdict follows from its parts, or from its readings."""
    from proofs_check import verdicts as V

    parts = node.get("parts") or {}
    if parts:
        vs = [p.get("verdict") for p in parts.values()]
        if not all(v in V.VERDICTS for v in vs):
            return ""
        want = V.combine_parts(vs)
        deciding = [k for k, p in parts.items() if p.get("verdict") == want]
        rule = ("every part is CONFIRMED" if want == V.CONFIRMED else
                f"the first of {', '.join(V.PART_PRECEDENCE)} present among the parts decides")
        agree = "" if node.get("verdict") == want else (
            f" (the record says {node.get('verdict')}: it does not follow)")
        return (f"{want} by the rule for parts ({rule}): "
                f"{', '.join(deciding)} {'is' if len(deciding) == 1 else 'are'} {want}{agree}.")
    others = node.get("other_readings") or {}
    if node.get("verdict") == V.AMBIGUOUS and others:
        return ("AMBIGUOUS: the papers support these readings equally and they get different "
                "verdicts (" + ", ".join(f"{k}: {o.get('verdict')}" for k, o in others.items()) + ").")
    if others:
        return "The verdict is the operative reading's; the other readings are reported beside it."
    return ""


def _node(rec: dict, node: dict, path: str, name: str, plots: dict, kind: str = "part") -> dict:
    """The page model of a record node (the claim, a part, or another reading), recursively."""
    from proofs_check.report import _num

    ths = [{**t, "value_s": _num(t.get("value")), "measured_s": _num(t.get("measured")),
            "flip_s": _num(t.get("flip"))} for t in node.get("thresholds") or []]
    ce = node.get("counterexample")
    return {
        "path": path, "name": name, "kind": kind, "anchor": _slug(path),
        "verdict": node.get("verdict", ""),
        "reading": _reading(node.get("reading")),
        "evidence": _evidence_rows(node.get("evidence")),
        "thresholds": ths,
        "scope": node.get("scope"),
        "counterexample": counterexample_rows(ce),
        **_repro(node.get("repro")),
        "plot": plots.get(path),
        "plot_missing": bool(node.get("plot")) and path not in plots,
        "notes": node.get("notes") or "",
        "derivation": _derivation(node),
        "parts": [_node(rec, p, f"{path}.{k}", k, plots, "part")
                  for k, p in (node.get("parts") or {}).items()],
        "other_readings": [_node(rec, o, f"{path}.reading[{k}]", k, plots, "reading")
                           for k, o in (node.get("other_readings") or {}).items()],
    }


def repro_refusal(repro: dict) -> str:
    """Why the project's repro validator (``proofs_check.repro.validate``) refuses ``repro``, or
    ``""`` when it accepts it (only then does the site offer it with a Copy button)."""
    from proofs_check import repro as RP

    expr, bindings = repro.get("expr"), repro.get("bindings") or {}
    if not isinstance(expr, str):
        return "expr is not a string"
    if not isinstance(bindings, dict):
        return "bindings is not an object"
    try:
        RP.validate(expr, bindings)
    except ValueError as exc:
        return str(exc)
    for key in ("rtol", "atol"):
        v = repro.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            return f"{key} is not a number"
    return ""


def _repro(repro) -> dict:
    """``repro`` (the Python to paste, with a Copy button) when the validator accepts it, else
    ``repro_refused`` (why) and ``repro_expr`` (the expression, shown to read, not to run)."""
    from proofs_check.cli import format_repro

    if not isinstance(repro, dict):
        return {"repro": "", "repro_refused": "", "repro_expr": ""}
    why = repro_refusal(repro)
    if why:
        return {"repro": "", "repro_refused": why, "repro_expr": str(repro.get("expr", ""))}
    return {"repro": format_repro(repro), "repro_refused": "", "repro_expr": ""}


def _catalogue_blocks(entry) -> dict:
    """The catalogue entry's lines, by field (Claim, Read, Check, Record), indentation kept."""
    out: dict[str, list[str]] = {}
    cur = None
    for line in (entry.text if entry else "").splitlines():
        m = re.match(r"^- (Src|Claims?|Read|Check|Record|Versions)\b[^:]*:\s*(.*)$", line)
        if m:
            cur = m.group(1).rstrip("s") if m.group(1) != "Versions" else "Versions"
            out.setdefault(cur, [])
            if m.group(2).strip():
                out[cur].append(m.group(2).rstrip())
        elif cur is not None and line.strip():
            out[cur].append(re.sub(r"^  ", "", line.rstrip()))
    return {k: "\n".join(v) for k, v in out.items()}


def claim_page(rec: dict, plot_files: set[str]) -> dict:
    """The page model of one claim."""
    from proofs_check import report as R
    from proofs_check.catalogue import entries

    from .passages import NOT_FOUND, locate_all

    entry = entries().get(rec["id"])
    blocks = _catalogue_blocks(entry)
    plots = {}
    for fname, node in R.plot_nodes(rec):
        for path, n in R.walk(rec):
            if n is node and fname in plot_files:
                plots[path] = fname
    statement = rec.get("statement") or R.statement_of(entry)
    err = rec.get("error") or {}
    return {
        "id": rec["id"], "slug": _slug(rec["id"]), "verdict": rec["verdict"],
        "sources": rec.get("sources") or (entry.sources if entry else ""),
        "papers": R.papers_of(rec),
        "statement": statement,
        "claim_text": blocks.get("Claim", ""),
        "catalogue": blocks,
        "passages": locate_all(rec.get("sources") or (entry.sources if entry else "")),
        "not_found": NOT_FOUND,
        "method": rec.get("method", ""),
        "seconds": rec.get("seconds"), "level": rec.get("level"), "seed": rec.get("seed"),
        "warnings": rec.get("warnings") or [],
        "error": err.get("traceback", "") if err else "",
        "root": _node(rec, rec, "claim", rec["id"], plots, "claim"),
        "decisive": R.decisive_sentence(rec) if rec["verdict"] == "REFUTED" else "",
        "key_numbers": R.key_numbers(rec),
        "explain": shlex.join(
            ["yatmath", "check", "--explain", rec["id"]]
            + (["--level", str(rec["level"])] if rec.get("level") not in (None, "quick") else [])
            + (["--seed", str(rec["seed"])] if rec.get("seed") not in (None, 0) else [])),
    }


def _row(rec: dict) -> dict:
    from proofs_check import report as R

    return {"id": rec["id"], "href": f"claims/{_slug(rec['id'])}.html", "verdict": rec["verdict"],
            "papers": R.papers_of(rec), "sources": rec.get("sources", ""),
            "statement": rec.get("statement", ""), "key_numbers": R.key_numbers(rec, limit=3),
            "decisive": R.decisive_sentence(rec) if rec["verdict"] == "REFUTED" else ""}


def index_page(records: list[dict], meta: dict, paper: str | None = None) -> dict:
    """The page model of the index (all claims, or those citing ``paper``)."""
    from proofs_check import report as R

    recs = records if paper is None else [r for r in records if paper in R.papers_of(r)]
    rows = [_row(r) for r in recs]
    refuted = [r for r in rows if r["verdict"] == "REFUTED"]
    by_paper = []
    for pid, title in R.PAPERS.items():
        sub = [r for r in records if pid in R.papers_of(r)]
        if sub:
            c = R.counts(sub)
            by_paper.append({"id": pid, "title": title, "n": len(sub),
                             "counts": {v: n for v, n in c.items() if n}})
    c = R.counts(recs)
    return {
        "paper": paper, "paper_title": R.PAPERS.get(paper, "") if paper else "",
        "n": len(recs), "counts": c, "verdicts": [v for v in R.VERDICT_ORDER if c.get(v)],
        "papers": by_paper, "refuted": refuted,
        "rows": sorted(rows, key=lambda r: (r["verdict"] != "REFUTED",)),
        "unchecked": meta.get("not_yet_checked") or [],
    }


def gallery_page(sidecars: list[dict], figure_files: set[str], figures_dir) -> dict:
    """The page model of the figure gallery; when a figures folder is given, the registry
    (``proofs_check.figures.registry``) adds the figures it lacks."""
    from proofs_check.report import _num

    items = []
    out_args = ["--out", str(figures_dir)] if figures_dir else []

    def command(name, seed=0):
        """The shell line that regenerates figure ``name`` (every argument quoted)."""
        return shlex.join(["yatmath", "figures", "--only", name]
                          + (["--seed", str(seed)] if seed else []) + out_args)

    for s in sidecars:
        png = next((f for f in s.get("files", []) if f.endswith(".png") and f in figure_files), "")
        pdf = next((f for f in s.get("files", []) if f.endswith(".pdf") and f in figure_files), "")
        seed = s.get("seed", 0)
        items.append({
            "name": s["name"], "title": s.get("title", s["name"]), "paper": s.get("paper", ""),
            "status": "substitute" if s.get("substitute") else "reproduced",
            "params": [{"key": k, "value": _num(v), "full": _json(v)} for k, v in s["params"].items()],
            "seed": seed, "versions": s.get("versions") or {}, "png": png, "pdf": pdf,
            "command": command(s["name"], seed),
        })
    rendered = {s["name"] for s in sidecars}
    missing = []
    if figures_dir is None:   # importing every figure module costs seconds: only for a gallery
        return {"figs": items, "missing": missing, "figures_dir": ""}
    from proofs_check.figures import registry
    from proofs_check.figures.cli import status

    for name, fig in sorted(registry.load_all().items()):
        if name not in rendered:
            missing.append({"name": name, "title": fig.title, "paper": fig.paper,
                            "status": status(fig), "reproduced": fig.reproduced,
                            "command": command(name)})
    return {"figs": items, "missing": missing, "figures_dir": str(figures_dir or "")}


# --------------------------------------------------------------------------------------------
# rendering


def _env():
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["vclass"] = lambda v: "v-" + str(v).lower().replace("_", "-")
    return env


def _check_out(out: Path, ledger: Path) -> None:
    shown = f"out_dir (--out) {str(out)!r}"
    try:
        _check_out_path(out, ledger)
    except OSError as exc:          # a name too long, a link loop in a parent, no permission
        raise SiteError(f"{shown} cannot be used: {exc.strerror or exc}; expected a folder this "
                        "process can write") from None
    except RuntimeError as exc:     # pathlib's "Symlink loop from ..."
        raise SiteError(f"{shown} cannot be used: {exc}") from None


def _check_out_path(out: Path, ledger: Path) -> None:
    if os.path.lexists(out) and not out.exists():
        raise SiteError(f"out_dir (--out) {str(out)!r} is a symbolic link to nothing (dangling, or "
                        "a loop of links); expected a folder")
    if out.exists() and not out.is_dir():
        raise SiteError(f"out_dir (--out) {str(out)!r} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"out_dir (--out) {str(out)!r} exists and is not a site built by `yatmath report` "
                        f"(no {MARKER} marker); refusing to replace it -- choose another --out")
    if out.resolve() == ledger.resolve() or ledger.resolve().is_relative_to(out.resolve()):
        raise SiteError(f"out_dir (--out) {str(out)!r} would replace the ledger folder {str(ledger)!r}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # exists, owned by someone else
        return True
    return True


def remove_dead_builds(out: Path) -> list[Path]:
    """Remove the temporary folders ``.OUT.tmp-PID-*`` / ``.OUT.old-PID-*`` that a build of
    ``out`` left beside it when its process was killed (SIGKILL: no ``except`` ran), for PIDs
    that no longer run.  A live build's folders (its PID runs) are never touched; a reused PID
    only means a dead build's folder stays until the next run.  Returns the folders removed."""
    removed = []
    pattern = re.compile(rf"^\.{re.escape(out.name)}\.(?:tmp|old)-(\d+)-[A-Za-z0-9_]+$")
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None or _pid_alive(int(m.group(1))):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def build_site(ledger_dir, out_dir=None, figures_dir=None) -> Path:
    """Build the site (see the module docstring) and return its folder.

    Raises :class:`SiteError` (a ``ValueError``) naming the argument for a missing ledger folder
    or ledger.json, a figures folder that is not a folder, or an ``out_dir`` that is a file, holds
    something other than a site, or cannot be written.
    """
    from proofs_check.report import LEDGER_JSON

    ledger = Path(ledger_dir)
    records, meta = load_ledger(ledger)
    sidecars = load_figures(figures_dir) if figures_dir is not None else []
    out = Path(out_dir) if out_dir is not None else ledger / "site"
    _check_out(out, ledger)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_dead_builds(out)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent))
    except OSError as exc:
        raise SiteError(f"out_dir (--out) {str(out)!r} cannot be written: {exc.strerror or exc}") from None
    old = None
    try:
        _write(tmp, ledger, records, meta, sidecars, figures_dir)
        (tmp / MARKER).write_text(f"built by yatmath report from {ledger / LEDGER_JSON}\n",
                                  encoding="utf-8")
        os.chmod(tmp, 0o777 & ~current_umask())
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
            os.replace(out, old / "site")
        os.replace(tmp, out)
    except BaseException:
        if old is not None and (old / "site").exists() and not out.exists():
            os.replace(old / "site", out)
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out


def _write(dest: Path, ledger: Path, records, meta, sidecars, figures_dir) -> None:
    from proofs_check.report import PAPERS, papers_of

    env = _env()
    (dest / "claims").mkdir()
    shutil.copytree(STATIC, dest / "static")
    plot_files = set()
    if (ledger / "plots").is_dir():
        plot_files = {p.name for p in (ledger / "plots").glob("*.png")}
    used_plots: set[str] = set()
    figure_files = set()
    if sidecars:
        (dest / "figures").mkdir()
        for s in sidecars:
            for f in s.get("files", []):
                src = Path(figures_dir) / f
                if Path(f).name == f and src.is_file():
                    shutil.copy2(src, dest / "figures" / f)
                    figure_files.add(f)
    papers = [pid for pid in PAPERS if any(pid in papers_of(r) for r in records)]
    run = {"level": None, "seed": None, "only": None, "total_seconds": None, "finished_utc": None,
           "versions": {}, **(meta.get("run") or {})}
    common = {"papers_nav": papers, "paper_titles": PAPERS, "run": run,
              "reproduce": reproduce_command(run)}

    def put(name: str, template: str, root: str, **ctx):
        html = env.get_template(template).render(root=root, **common, **ctx)
        (dest / name).write_text(html, encoding="utf-8")

    put("index.html", "index.html", "", page=index_page(records, meta), current="index")
    for pid in papers:
        put(f"paper-{pid}.html", "index.html", "", page=index_page(records, meta, pid),
            current=pid)
    ids = [r["id"] for r in records]
    for i, rec in enumerate(records):
        model = claim_page(rec, plot_files)
        used_plots.update(_plots_of(model["root"]))
        nav = {"prev": f"{_slug(ids[i - 1])}.html" if i else "",
               "next": f"{_slug(ids[i + 1])}.html" if i + 1 < len(ids) else ""}
        put(f"claims/{model['slug']}.html", "claim.html", "../", c=model, nav=nav,
            current="claim")
    if used_plots:
        (dest / "plots").mkdir()
        for f in sorted(used_plots):
            shutil.copy2(ledger / "plots" / f, dest / "plots" / f)
    put("figures.html", "figures.html", "", g=gallery_page(sidecars, figure_files, figures_dir),
        current="figures")


def reproduce_command(run: dict) -> str:
    """The shell line that reruns the ledger's run (every argument quoted)."""
    return shlex.join(["yatmath", "check", "--level", str(run.get("level") or "quick"),
                       "--seed", str(run.get("seed") or 0)]
                      + (["--only", str(run["only"])] if run.get("only") else []))


def _plots_of(node: dict):
    if node.get("plot"):
        yield node["plot"]
    for child in node["parts"] + node["other_readings"]:
        yield from _plots_of(child)
