"""Write the ledger: ``DIR/ledger.json``, ``DIR/ledger.meta.json`` and ``DIR/LEDGER.md``.

``ledger.json``       a JSON list with one object per checked claim (the runner's records, in
                      catalogue order)
``ledger.meta.json``  the run: versions, platform, seed, level, selection, total seconds, verdict
                      counts, the ids not yet checked and any check module that failed to import
``LEDGER.md``         what a person reads first: verdict counts, then one row per claim (claim,
                      sources, verdict, key numbers, counterexample), then the counterexamples with
                      their one-line reproductions, the crashes, and the claims not yet checked

All three files are written atomically: each is written to a temporary file in DIR, and only when
all three are complete are they renamed over their targets (``os.replace``); an interruption
leaves the previous ledger (or none) and no temporary files.
"""
from __future__ import annotations

import datetime as _dt
import json
import platform
import re
import shlex
from pathlib import Path

from yatmath.files import atomic_write  # noqa: F401  (re-exported: the one atomic writer)

from . import registry
from . import verdicts as V

LEDGER_JSON = "ledger.json"
LEDGER_META = "ledger.meta.json"
LEDGER_MD = "LEDGER.md"
PLOTS = "plots"

# the order of the summary table
VERDICT_ORDER = V.VERDICTS + (V.CRASHED,)

# Issue that builds each pending family (for the "not yet checked" note).
_PENDING_ISSUE = {"itnet": "issue 5", "particles": "issue 6"}


# --------------------------------------------------------------------------------------------
# catalogue text


def statement_of(entry) -> str:
    """The statement of a catalogue entry.

    ``entry.statement`` when the catalogue parser found a ``- Claim:`` block; otherwise (entries
    whose claim line carries a qualifier, such as ``- Claims, for T = ...:``, or that state the
    claim only in ``Read``/``Src``) the entry's text without its Src/Check/Record bullets.
    """
    if entry is None:
        return ""
    if entry.statement:
        return entry.statement
    keep, skipping = [], False
    for line in entry.text.splitlines():
        top = re.match(r"^- (\w+)", line)
        if top:
            skipping = top.group(1) in ("Src", "Check", "Record", "Versions")
        if not skipping:
            keep.append(line.strip())
    text = " ".join(" ".join(keep).split())
    text = re.sub(r"^- ", "", text)
    return text or entry.sources


# --------------------------------------------------------------------------------------------
# short renderings for the table


def _num(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    if v is None:
        return "null"
    if isinstance(v, str):
        return v if len(v) <= 32 else v[:31] + "…"
    if isinstance(v, (list, tuple)):
        if len(v) <= 3 and all(not isinstance(x, (list, tuple, dict)) for x in v):
            return "[" + ", ".join(_num(x) for x in v) + "]"
        head = ", ".join(_num(x) for x in v[:2] if not isinstance(x, (list, tuple, dict)))
        return f"[{head}{', ' if head else ''}…] (n={len(v)})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_num(x)}" for k, x in list(v.items())[:2]) + (
            ", …}" if len(v) > 2 else "}")
    return str(v)


def _flat(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _flat(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def key_numbers(rec: dict, limit: int = 4) -> str:
    """A few numbers of a record's evidence (the first ``limit``, in the check's order), then parts."""
    if rec.get("verdict") == V.CRASHED:
        err = rec.get("error") or {}
        return f"crash: {err.get('type', '')}: {err.get('message', '')}"[:160]
    items = list(_flat(rec.get("evidence") or {}))
    out = [f"{k}={_num(v)}" for k, v in items[:limit]]
    if len(items) > limit:
        out.append(f"+{len(items) - limit} more")
    parts = rec.get("parts") or {}
    if parts:
        out.append("parts: " + ", ".join(f"{k} {p.get('verdict')}" for k, p in parts.items()))
    return "; ".join(out)


def short_counterexample(ce, limit: int = 140) -> str:
    """A one-line rendering of a counterexample (long arrays abbreviated)."""
    if ce is None or ce == {} or ce == []:
        return ""
    if isinstance(ce, dict):
        text = ", ".join(f"{k}={_num(v)}" for k, v in ce.items())
    else:
        text = _num(ce)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line(text: str, limit: int | None = None) -> str:
    """``text`` on one line (whitespace collapsed), cut at ``limit`` characters with ``…``.
    Nothing is escaped: for Markdown outside a table, and for HTML (which escapes on its own)."""
    text = " ".join(str(text).split())
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _cell(text: str, limit: int | None = None) -> str:
    """``text`` as a cell of a Markdown table: one line, ``|`` escaped (only there)."""
    return _line(text, limit).replace("|", "\\|")


# --------------------------------------------------------------------------------------------
# the run record and the files


def counts(records: list[dict]) -> dict[str, int]:
    """Number of records per verdict, every verdict of ``VERDICT_ORDER`` present."""
    c = {v: 0 for v in VERDICT_ORDER}
    for r in records:
        c[r["verdict"]] = c.get(r["verdict"], 0) + 1
    return c


def run_metadata(records, *, level, seed, only, seconds, unchecked=(), import_errors=None,
                 versions=None) -> dict:
    """The run record of ``ledger.meta.json``."""
    from .runner import versions as _versions

    return {
        "run": {
            "versions": versions if versions is not None else _versions(),
            "platform": platform.platform(),
            "machine": platform.machine(),
            "seed": seed,
            "level": level,
            "only": only,
            "total_seconds": round(float(seconds), 3),
            "n_checked": len(records),
            "finished_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        },
        "counts": counts(records),
        "not_yet_checked": list(unchecked),
        "pending_families": list(registry.PENDING_FAMILIES),
        "import_errors": dict(import_errors or {}),
    }


def render_markdown(records: list[dict], meta: dict, unchecked=()) -> str:
    """The text of LEDGER.md."""
    from .catalogue import entries

    run = meta["run"]
    vers = run["versions"]
    c = meta["counts"]
    only = f" --only {shlex.quote(str(run['only']))}" if run.get("only") else ""
    L = ["# Claim ledger", ""]
    L.append(f"{len(records)} claims checked at level `{run['level']}`, seed {run['seed']}, in "
             f"{run['total_seconds']:.1f} s (python {vers.get('python')}, numpy {vers.get('numpy')}, "
             f"scipy {vers.get('scipy')}, sympy {vers.get('sympy')}, yatmath {vers.get('yatmath')}; "
             f"{run['platform']}).")
    L.append(f"Reproduce: `yatmath check --level {run['level']} --seed {run['seed']}{only}`; "
             "`yatmath check --explain ID` explains one claim.")
    L += ["", "| verdict | count |", "|---|---:|"]
    for v in VERDICT_ORDER:
        L.append(f"| {v} | {c.get(v, 0)} |")
    L.append(f"| not yet checked | {len(unchecked)} |")
    if meta.get("import_errors"):
        L += ["", "**Check modules that failed to import** (their claims count as not yet checked): "
              + ", ".join(f"`{m}`" for m in meta["import_errors"])]

    L += paper_summaries(records)

    L += ["", "## Claims", "",
          "| claim | sources | verdict | operative reading | key numbers | evidence plot |",
          "|---|---|---|---|---|---|"]
    for r in records:
        reading = (r.get("reading") or {}).get("text", "")
        plots = " ".join(f"[plot](plots/{name})" for name, _ in plot_nodes(r))
        L.append(f"| `{r['id']}` | {_cell(r.get('sources', ''), 90)} | {r['verdict']} | "
                 f"{_cell(reading, 160)} | {_cell(key_numbers(r), 200)} | {plots} |")

    decided = [r for r in records if r["verdict"] not in (V.CRASHED,)]
    th_rows = [(r["id"], path, t) for r in decided for path, node in walk(r)
               for t in node.get("thresholds") or []]
    if th_rows:
        L += ["", "## Thresholds that decide verdicts", "",
              "Each comes from the paper, a statistical level or the precision of the arithmetic; "
              "the flip point is the threshold value at which the verdict would change.", "",
              "| claim | where | threshold | value | kind: source | measured | flips at |",
              "|---|---|---|---:|---|---:|---:|"]
        for cid, path, t in th_rows:
            L.append(f"| `{cid}` | {_cell(path, 60)} | {_cell(t['name'], 80)} | {_num(t['value'])} | "
                     f"{t['kind']}: {_cell(t['source'], 120)} | {_num(t['measured'])} | {_num(t['flip'])} |")

    refuted = [r for r in records if any(n.get("counterexample") not in (None, {}, [])
                                         for _, n in walk(r))]
    if refuted:
        L += ["", "## Counterexamples", "",
              "Abbreviated here; the exact values are in ledger.json, and "
              "`yatmath check --explain ID` prints them with the reproduction to paste.", ""]
        for r in refuted:
            for path, n in walk(r):
                if n.get("counterexample") in (None, {}, []):
                    continue
                L.append(f"- `{r['id']}` {path} ({n['verdict']}): "
                         f"{_line(short_counterexample(n['counterexample'], 600))}")
                rep = n.get("repro")
                if rep:
                    binds = ", ".join(f"{k}={_num(v)}" for k, v in (rep.get("bindings") or {}).items())
                    L.append(f"  - reproduce: `{' '.join(rep['expr'].split())}` with {_line(binds, 300)} "
                             f"gives {_num(rep['expected'])}")
    crashed = [r for r in records if r["verdict"] == V.CRASHED]
    if crashed:
        L += ["", "## Crashes", ""]
        for r in crashed:
            tb = (r.get("error") or {}).get("traceback", "").rstrip().splitlines()
            L += [f"### `{r['id']}`", "", "```", *tb[-8:], "```", ""]

    if unchecked:
        cat = entries()
        fams = ", ".join(f"{f} ({_PENDING_ISSUE.get(f, 'a later issue')})" for f in registry.PENDING_FAMILIES)
        L += ["", "## Not yet checked", "",
              f"No check is registered for these {len(unchecked)} claims. The families {fams} are "
              "built by later issues; a claim marked *missing* belongs to no pending family and "
              "lacks its check.", "", "| claim | sources | status |", "|---|---|---|"]
        for cid in unchecked:
            e = cat.get(cid)
            status = "pending" if registry.is_pending(cid) else "**missing**"
            L.append(f"| `{cid}` | {_cell(e.sources if e else '', 90)} | {status} |")
    return "\n".join(L) + "\n"


def plot_names(records: list[dict]) -> list[str]:
    """The evidence plot files (in ``plots/``) that ``write_ledger`` writes for ``records``."""
    return [name for r in records for name, _ in plot_nodes(r)]


def write_ledger(out_dir, records: list[dict], meta: dict, unchecked=()) -> list[Path]:
    """Write ledger.json, ledger.meta.json, LEDGER.md and the evidence plots (``plots/``) into
    ``out_dir`` atomically, as one group.  ``ledger.meta.json`` records the files written
    (``files``: ``ledger``, the three names; ``plots``, the plot names in ``plots/``): what a
    later run with ``--force`` may remove, and nothing else."""
    out = Path(out_dir)
    meta = {**meta, "files": {"ledger": [LEDGER_JSON, LEDGER_META, LEDGER_MD],
                              "plots": plot_names(records)}}
    files = {
        out / LEDGER_JSON: json.dumps(records, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        out / LEDGER_META: json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        out / LEDGER_MD: render_markdown(records, meta, unchecked),
    }
    for r in records:
        for name, node in plot_nodes(r):
            files[out / PLOTS / name] = _plot_writer(r["id"], node)
    return atomic_write(files)


# --------------------------------------------------------------------------------------------
# record walking, paper summaries, evidence plots


def walk(rec: dict, path: str = "claim", *, readings: bool = True):
    """(path, node) for a record and, depth first, its parts and (with ``readings``) the other
    readings, which are reported beside the verdict and never decide it."""
    yield path, rec
    for k, p in (rec.get("parts") or {}).items():
        yield from walk(p, f"{path}.{k}", readings=readings)
    if readings:
        for k, o in (rec.get("other_readings") or {}).items():
            yield from walk(o, f"{path}.reading[{k}]", readings=readings)


def plot_nodes(rec: dict):
    """(file name, node) for every node of a record that carries an evidence plot."""
    out = []
    for path, node in walk(rec):
        if node.get("plot"):
            tail = re.sub(r"[^A-Za-z0-9_.-]+", "_", path[len("claim"):]).strip("_.")
            out.append((f"{rec['id']}{'.' + tail if tail else ''}.png", node))
    return out


def _plot_writer(claim_id: str, node: dict):
    def write(fh):
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        pl = node["plot"]
        fig, ax = plt.subplots(figsize=(4.2, 3.2), dpi=100)
        try:
            for label, (x, y) in pl["series"].items():
                ax.plot(x, y, "o", ms=3, label=label)
            for label, (x, y) in pl.get("reference", {}).items():
                ax.plot(x, y, "-", lw=1, label=label)
            if pl.get("logx"):
                ax.set_xscale("log")
            if pl.get("logy"):
                ax.set_yscale("log")
            ax.set_xlabel(pl["xlabel"])
            ax.set_ylabel(pl["ylabel"])
            ax.set_title(f"{claim_id}: {node['verdict']}" + (f"\n{pl['title']}" if pl.get("title") else ""),
                         fontsize=8)
            ax.legend(fontsize=6)
            fig.tight_layout()
            fig.savefig(fh, format="png")
        finally:
            plt.close(fig)
    return write


PAPERS = {"000": "Yat-product paper (later version)", "001": "E-product paper (earlier version)",
          "002": "Deep Learning 2.0.1 (Yat)", "003": "ITNet", "004": "Coulomb particles / McKean-Vlasov"}


def papers_of(rec: dict) -> list[str]:
    """The papers a record's sources cite (000 ... 004)."""
    return sorted(set(re.findall(r"\b(00[0-4])\b", rec.get("sources", ""))))


def decisive_sentence(rec: dict) -> str:
    """The refuted claim in words: what the paper says, what holds instead, the decisive number.

    The sentence of the first refuted leaf (depth first, operative reading only) that
    :mod:`proofs_check.site.sentences` has one for; else, for the first refuted leaf, its deciding
    threshold in words (measured against its value, with the threshold's source), or failing that
    its reproduction's number.  The other refuted leaves are named after it.  Plain text: nothing
    is escaped (``_cell`` escapes for a Markdown table, the site's templates for HTML)."""
    from .site.sentences import for_leaf

    leaves = [(path, node) for path, node in walk(rec, readings=False)
              if node.get("verdict") == V.REFUTED and not node.get("parts")]
    if not leaves:
        return ""
    chosen, text = None, ""
    for path, node in leaves:
        said = for_leaf(rec, path, node)
        if said:
            chosen, text = path, said
            break
    if chosen is None:
        chosen, node = leaves[0]
        text = _fallback_sentence(chosen, node)
    others = [p[len("claim."):] for p, _ in leaves if p != chosen]
    if others:
        text += f" Also refuted: {', '.join(others)}."
    return text


def _fallback_sentence(path: str, node: dict) -> str:
    """A refuted leaf without a registered sentence: its deciding threshold, or its reproduction's
    number (never the expression: that is the reproduction, shown beside the counterexample)."""
    where = "" if path == "claim" else f" ({path[len('claim.'):]})"
    ths = node.get("thresholds") or []
    if ths:
        t = ths[0]
        return _line(f"{t['name']}{where}: measured {_num(t['measured'])} against "
                     f"{_num(t['value'])} ({t['kind']}: {_line(t['source'], 100)})")
    rep = node.get("repro")
    if rep:
        return f"Refuted{where}: the reproduction of the counterexample gives {_num(rep['expected'])}."
    return f"Refuted{where}."


def paper_summaries(records: list[dict]) -> list[str]:
    """LEDGER.md's opening: per paper, verdict counts and each refuted claim in one sentence."""
    L = ["", "## Summary by paper", ""]
    for pid, title in PAPERS.items():
        recs = [r for r in records if pid in papers_of(r)]
        if not recs:
            continue
        c = counts(recs)
        L.append(f"### {pid}: {title}")
        L.append("")
        L.append(f"{len(recs)} claims: " + ", ".join(f"{n} {v}" for v, n in c.items() if n) + ".")
        ref = [r for r in recs if r["verdict"] == V.REFUTED]
        if ref:
            L.append("")
            for r in ref:
                L.append(f"- `{r['id']}`: {_line(decisive_sentence(r), 700)}")
        L.append("")
    return L


# --------------------------------------------------------------------------------------------
# reading a ledger back: the types every field must have (the cache and `yatmath report`)


def _kind(v) -> str:
    return "null" if v is None else {bool: "boolean", int: "integer", float: "number", str: "string",
                                     list: "list", dict: "object"}.get(type(v), type(v).__name__)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _want(where: str, v, ok: bool, expected: str, out: list) -> bool:
    if not ok:
        got = "null" if v is None else f"{_kind(v)} {_short_json(v)}"
        out.append(f"field {where!r} must be {expected}, got {got}")
    return ok


def _short_json(v) -> str:
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 60 else text[:59] + "…"


_STR_OR_NULL = "a string or null"


def _node_problems(node, where: str, out: list, depth: int = 0) -> None:
    """The problems of one record node (the claim, a part, another reading), recursively."""
    if not _want(where or "record", node, isinstance(node, dict), "an object", out):
        return
    p = f"{where}." if where else ""
    v = node.get("verdict")
    _want(f"{p}verdict", v, isinstance(v, str) and v in VERDICT_ORDER,
          f"one of {', '.join(VERDICT_ORDER)}", out)
    for key in ("notes",):
        _want(p + key, node.get(key), node.get(key) is None or isinstance(node.get(key), str),
              _STR_OR_NULL, out)
    ev = node.get("evidence")
    _want(f"{p}evidence", ev, ev is None or isinstance(ev, dict), "an object or null", out)
    r = node.get("reading")
    if _want(f"{p}reading", r, r is None or isinstance(r, dict),
             "an object {text, passage} or null", out) and r:
        for key in ("text", "passage"):
            _want(f"{p}reading.{key}", r.get(key), isinstance(r.get(key), str), "a string", out)
    sc = node.get("scope")
    if _want(f"{p}scope", sc, sc is None or isinstance(sc, dict),
             "an object {kind, covered, universal} or null", out) and sc:
        _want(f"{p}scope.kind", sc.get("kind"), isinstance(sc.get("kind"), str), "a string", out)
        _want(f"{p}scope.covered", sc.get("covered"),
              not isinstance(sc.get("covered"), (dict, list)), "a string", out)
        _want(f"{p}scope.universal", sc.get("universal"),
              sc.get("universal") is None or isinstance(sc.get("universal"), bool), "a boolean", out)
    ths = node.get("thresholds")
    if _want(f"{p}thresholds", ths, ths is None or isinstance(ths, list), "a list or null", out):
        for i, t in enumerate(ths or []):
            tw = f"{p}thresholds[{i}]"
            if not _want(tw, t, isinstance(t, dict), "an object", out):
                continue
            for key in ("name", "kind", "source"):
                _want(f"{tw}.{key}", t.get(key), isinstance(t.get(key), str), "a string", out)
            for key in ("value", "measured", "flip"):     # printed only: any JSON value
                if key not in t:
                    out.append(f"field {f'{tw}.{key}'!r} is missing")
    rp = node.get("repro")
    if _want(f"{p}repro", rp, rp is None or rp == "" or isinstance(rp, dict),
             "an object {expr, bindings, expected, rtol, atol} or null", out) and isinstance(rp, dict):
        _want(f"{p}repro.expr", rp.get("expr"), isinstance(rp.get("expr"), str), "a string", out)
        b = rp.get("bindings")
        _want(f"{p}repro.bindings", b, b is None or isinstance(b, dict), "an object or null", out)
        for key in ("rtol", "atol"):
            x = rp.get(key)
            _want(f"{p}repro.{key}", x, x is None or _is_num(x), "a number", out)
        _want(f"{p}repro.tol_reason", rp.get("tol_reason"),
              rp.get("tol_reason") is None or isinstance(rp.get("tol_reason"), str), _STR_OR_NULL, out)
    pl = node.get("plot")
    _want(f"{p}plot", pl, pl is None or isinstance(pl, dict), "an object or null", out)
    for key in ("parts", "other_readings"):
        sub = node.get(key)
        if not _want(p + key, sub, sub is None or isinstance(sub, dict), "an object or null", out):
            continue
        if depth > 50:
            out.append(f"field {p + key!r} nests too deep")
            continue
        for name, child in (sub or {}).items():
            _node_problems(child, f"{p}{key}.{name}", out, depth + 1)


def record_problems(rec) -> list[str]:
    """Why ``rec`` is not a ledger record as ``runner.run_one`` writes it: one message per field
    of the wrong type, naming the field (``[]`` when every field is as expected)."""
    out: list[str] = []
    if not isinstance(rec, dict):
        return [f"the record must be an object, got {_kind(rec)}"]
    _want("id", rec.get("id"), isinstance(rec.get("id"), str) and rec.get("id") != "",
          "a non-empty string", out)
    _node_problems(rec, "", out)
    for key in ("sources", "statement", "method", "level"):
        _want(key, rec.get(key), rec.get(key) is None or isinstance(rec.get(key), str), _STR_OR_NULL, out)
    sec = rec.get("seconds")
    _want("seconds", sec, sec is None or _is_num(sec), "a number or null", out)
    seed = rec.get("seed")
    _want("seed", seed, seed is None or (isinstance(seed, int) and not isinstance(seed, bool)),
          "an integer or null", out)
    w = rec.get("warnings")
    _want("warnings", w, w is None or (isinstance(w, list) and all(isinstance(x, str) for x in w)),
          "a list of strings or null", out)
    err = rec.get("error")
    if _want("error", err, err is None or isinstance(err, dict),
             "an object {type, message, traceback} or null", out) and err:
        for key in ("type", "message", "traceback"):
            _want(f"error.{key}", err.get(key), err.get(key) is None or isinstance(err.get(key), str),
                  _STR_OR_NULL, out)
    vers = rec.get("versions")
    _want("versions", vers, vers is None or isinstance(vers, dict), "an object or null", out)
    return out


def meta_problems(meta) -> list[str]:
    """Why ``meta`` is not a ``ledger.meta.json`` as ``run_metadata`` and ``write_ledger`` write
    it: one message per field of the wrong type, naming the field."""
    out: list[str] = []
    if not _want("(the file)", meta, isinstance(meta, dict), "an object", out):
        return out
    run = meta.get("run")
    if _want("run", run, run is None or isinstance(run, dict), "an object or null", out) and run:
        for key in ("level", "only", "finished_utc", "platform", "executor"):
            _want(f"run.{key}", run.get(key), run.get(key) is None or isinstance(run.get(key), str),
                  _STR_OR_NULL, out)
        seed = run.get("seed")
        _want("run.seed", seed, seed is None or (isinstance(seed, int) and not isinstance(seed, bool)),
              "an integer or null", out)
        for key in ("total_seconds",):
            _want(f"run.{key}", run.get(key), run.get(key) is None or _is_num(run.get(key)),
                  "a number or null", out)
        vers = run.get("versions")
        _want("run.versions", vers, vers is None or (isinstance(vers, dict) and all(
            x is None or isinstance(x, str) for x in vers.values())),
            "an object of version strings or null", out)
    nyc = meta.get("not_yet_checked")
    _want("not_yet_checked", nyc, nyc is None or (isinstance(nyc, list) and all(
        isinstance(x, str) for x in nyc)), "a list of claim ids (strings) or null", out)
    for key in ("counts", "import_errors", "files"):
        _want(key, meta.get(key), meta.get(key) is None or isinstance(meta.get(key), dict),
              "an object or null", out)
    files = meta.get("files")
    if isinstance(files, dict):
        for key in ("ledger", "plots"):
            x = files.get(key)
            _want(f"files.{key}", x, x is None or (isinstance(x, list) and all(
                isinstance(n, str) for n in x)), "a list of file names or null", out)
    return out
