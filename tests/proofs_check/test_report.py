"""``yatmath report`` (proofs_check.site): the ledger and figures as a static site.

The site is built from a small ledger written here by ``proofs_check.report.write_ledger`` from
``Evidence`` records (real catalogue ids, so sources and passages are the catalogue's), so the
tests know every value they look for without running a check.
"""
from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from proofs_check import verdicts as V
from proofs_check.catalogue import entries
from proofs_check.papers import paper_text
from proofs_check.registry import Evidence, Plot, Reading, Repro, Scope, Threshold
from proofs_check.report import run_metadata, write_ledger
from yatmath.cli import main
from proofs_check.site import SiteError, build_site
from proofs_check.site import passages as P
from proofs_check.site import site as S

NASTY = "a < b & c <script>alert(1)</script>"


def _record(cid: str, ev: Evidence, **extra) -> dict:
    e = entries().get(cid)
    rec = {"id": cid, "sources": e.sources if e else "", "statement": e.statement if e else ""}
    rec.update(ev.to_dict())
    rec.update({"method": "test method", "seconds": 0.01, "seed": 0, "level": "quick",
                "warnings": [], "error": None, "versions": {"yatmath": "test"}})
    rec.update(extra)
    return rec


def fixture_records() -> list[dict]:
    """Four records: a plain CONFIRMED, a REFUTED claim of parts (thresholds, counterexample,
    reproduction, plot), one with another reading, and one outside the catalogue whose
    statement needs escaping."""
    scope = Scope("search", "20 restarts over the unit ball", universal=True)
    basic = Evidence(verdict=V.CONFIRMED, numbers={"max_asym": 0.0, "min_K": 0.0}, scope=scope,
                     thresholds=[Threshold("max asymmetry <= 1e-15", 1e-15, "precision",
                                           "float64 rounding of one product", 0.0, 0.0)])
    bad = Evidence(verdict=V.REFUTED, numbers={"ratio": 2.0},
                   counterexample={"w": [1.0, 0.0], "x": [1.0, 0.0], "eps": 0.5},
                   repro=Repro("float(np.dot(w, x))", {"w": [1.0, 0.0], "x": [1.0, 0.0]}, 1.0),
                   thresholds=[Threshold("sup K eps/||w||^4 <= value", 1.0, "paper",
                                         "000 Prop 11(1)", 2.0, 2.0)])
    good = Evidence(verdict=V.CONFIRMED, numbers={"series_n": list(range(40))}, scope=scope,
                    plot=Plot({"measured": ([1, 2, 4], [1.0, 0.5, 0.25])}, "n", "error"))
    parts = Evidence.of_parts({"sup_bound": bad, "attained": good}, notes="two parts")
    other = Evidence(verdict=V.REFUTED, numbers={"k": 1}, counterexample={"k": 1},
                     repro=Repro("1", {}, 1), reading=Reading("the other one", "001 Prop C.6"))
    read = Evidence(verdict=V.CONFIRMED, numbers={"n": 3}, scope=scope,
                    reading=Reading(NASTY, '002 App G.6 part 2: "strictly positive everywhere"'),
                    other_readings={"R2": other}, notes="<b>not bold</b>")
    odd = Evidence(verdict=V.NOT_CHECKABLE, notes="needs training")
    return [
        _record("yat.def.basic", basic),
        _record("yat.bound.global_upper", parts),
        _record("yat.imq_fourier", read),
        _record("test.not_in_catalogue", odd, statement=NASTY, sources="000 Thm 1; 004 eq.99"),
    ]


def make_ledger(folder: Path) -> list[dict]:
    recs = fixture_records()
    meta = run_metadata(recs, level="quick", seed=0, only=None, seconds=1.0, versions={"yatmath": "t"})
    write_ledger(folder, recs, meta)
    return recs


def make_figures(folder: Path) -> None:
    """One rendered-looking figure (a PNG drawn by matplotlib, a PDF, a sidecar) and the run
    record a figures folder also holds."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    folder.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(2, 1.5))
    fig.add_subplot().plot([0, 1], [0, 1])
    fig.savefig(folder / "toy_fig.png")
    fig.savefig(folder / "toy_fig.pdf")
    side = {"name": "toy_fig", "title": "Toy (substitute: synthetic data)", "paper": "000 Fig. 9",
            "substitute": True, "module": "x", "params": {"eps": 0.25, "n & m": 3}, "seed": 7,
            "versions": {"numpy": "2"}, "files": ["toy_fig.png", "toy_fig.pdf"]}
    (folder / "toy_fig.json").write_text(json.dumps(side), encoding="utf-8")
    (folder / "figures.meta.json").write_text(json.dumps({"seed": 7, "written": ["toy_fig"]}))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    recs = make_ledger(root / "ledger")
    make_figures(root / "figs")
    out = build_site(root / "ledger", root / "site", root / "figs")
    return recs, out, root


def _page(out: Path, cid: str) -> str:
    return (out / "claims" / f"{cid}.html").read_text(encoding="utf-8")


def _text(page: str) -> str:
    """The page's text (tags removed, entities decoded, whitespace collapsed)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


# --------------------------------------------------------------------------------------------
# content


def test_every_claim_gets_a_page_linked_from_the_index(built):
    recs, out, _ = built
    pages = sorted(p.stem for p in (out / "claims").glob("*.html"))
    assert pages == sorted(r["id"] for r in recs)
    index = (out / "index.html").read_text(encoding="utf-8")
    for r in recs:
        assert f'href="claims/{r["id"]}.html"' in index
        page = _page(out, r["id"])
        assert f"<code>{r['id']}</code>" in page and r["verdict"] in page
    # the refuted claim is listed first, with its decisive number
    rows = re.findall(r'<tr data-verdict="(\w+)"', index)
    assert rows[0] == V.REFUTED and rows.count(V.REFUTED) == 1
    assert "measured 2 against 1" in _text(index)
    # per-paper pages hold only the claims citing that paper
    p4 = (out / "paper-004.html").read_text(encoding="utf-8")
    assert "test.not_in_catalogue" in p4 and "yat.def.basic" not in p4


def test_claim_page_statement_passages_and_thresholds(built):
    _, out, _ = built
    text = _text(_page(out, "yat.def.basic"))
    # the statement as the catalogue prints it
    assert entries()["yat.def.basic"].statement in text
    # the threshold with its value, source, measured value and flip point
    assert "max asymmetry <= 1e-15" in text and "float64 rounding of one product" in text
    # "000 §3.1" is quoted from the shipped text: the excerpt is the paper's own words
    assert "000 §3.1" in text and "3.1 XOR Separability with a Single Unit" in text
    assert "XOR Separability with a Single Unit" in paper_text("000")
    # "000 eq.1" cannot be located (equations carry no number in the text): said, not invented
    assert "eq.1" in text and P.NOT_FOUND in text


def test_claim_of_parts_shows_how_the_verdict_follows(built):
    _, out, root = built
    page = _page(out, "yat.bound.global_upper")
    text = _text(page)
    assert "REFUTED by the rule for parts" in text and "sup_bound is REFUTED" in text
    assert "Part sup_bound REFUTED" in text and "Part attained CONFIRMED" in text
    # the threshold of the refuted part with its flip point, and the reproduction with a copy button
    assert "sup K eps/||w||^4 <= value" in text and "paper: 000 Prop 11(1)" in text
    assert 'class="copy" data-copy="claim.sup_bound-repro"' in page
    assert 'id="claim.sup_bound-repro"' in page and "float(np.dot(w, x))" in text
    # the counterexample: a small key/value table of exact values, not JSON
    ce = re.search(r'<table class="kv ce">(.*?)</table>', page, flags=re.S).group(1)
    assert re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", ce) == [
        ("w", "[1.0, 0.0]"), ("x", "[1.0, 0.0]"), ("eps", "0.5")]
    assert '<pre class="ce">' not in page and '"eps": 0.5' not in html.unescape(page)
    # the evidence plot of the confirmed part, copied next to the page
    assert 'src="../plots/yat.bound.global_upper.attained.png"' in page
    assert (out / "plots" / "yat.bound.global_upper.attained.png").read_bytes() == \
        (root / "ledger" / "plots" / "yat.bound.global_upper.attained.png").read_bytes()


def test_readings_are_shown_and_text_is_escaped(built):
    _, out, _ = built
    page = _page(out, "yat.imq_fourier")
    assert "a &lt; b &amp; c &lt;script&gt;" in page and "<script>alert" not in page
    assert "&lt;b&gt;not bold&lt;/b&gt;" in page
    text = _text(page)
    assert "Operative reading: " + NASTY in text
    assert "Other reading R2 REFUTED" in text and "never combined" in text
    # the reading's quoted words found in 002
    assert "The integral of a strictly positive function is strictly positive" in text
    odd = _page(out, "test.not_in_catalogue")
    assert "a &lt; b &amp; c" in odd and "<script>alert" not in odd


def test_gallery_lists_figures_with_parameters_status_and_command(built):
    _, out, root = built
    page = (out / "figures.html").read_text(encoding="utf-8")
    text = _text(page)
    assert "Toy (substitute: synthetic data)" in text and "substitute" in text
    assert "n &amp; m" in page and "0.25" in text and "seed 7" in text
    assert f"yatmath figures --only toy_fig --seed 7 --out {root / 'figs'}" in text
    assert (out / "figures" / "toy_fig.png").read_bytes() == (root / "figs" / "toy_fig.png").read_bytes()
    assert "figures.meta" not in page   # the run record is not a figure
    # registered figures this folder lacks, with why the unreproducible ones are absent
    assert "arch_mha" in text and "not reproduced: schematic drawing" in text


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append(a[key])


def site_links(out: Path) -> list[tuple[Path, str, Path | None]]:
    """(page, reference, target file or None for an external/data/anchor-only link) of every
    href and src of every page of the site."""
    rows = []
    for page in sorted(out.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for ref in parser.refs:
            u = urlsplit(ref)
            if u.scheme or not u.path:
                rows.append((page, ref, None))
            else:
                rows.append((page, ref, (page.parent / unquote(u.path)).resolve()))
    return rows


def test_every_link_and_image_resolves(built):
    _, out, _ = built
    rows = site_links(out)
    assert len(rows) > 50
    missing = [(str(p.relative_to(out)), ref) for p, ref, t in rows if t is not None and not t.is_file()]
    assert missing == []
    external = {ref for _, ref, t in rows if t is None}
    assert external <= {"data:,", "#claims"}   # nothing reaches outside the folder


def test_counterexample_rows_flatten_and_abbreviate():
    rows = S.counterexample_rows({
        "w": [1.0, 0.0], "eps": 0.5, "f": "f(x) = 1", "ok": False,
        "big": {"W": [[0.123456, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], "n": 64},
        "xs": [float(i) / 3 for i in range(64)], "pairs": [{"a": 1}, {"a": 2}]})
    by = {r["key"]: r for r in rows}
    assert list(by) == ["w", "eps", "f", "ok", "big.W", "big.n", "xs", "pairs"]
    assert by["w"]["short"] == "[1.0, 0.0]" and by["eps"]["short"] == "0.5" and not by["w"]["full"]
    assert by["f"]["short"] == "f(x) = 1" and by["ok"]["short"] == "false"
    assert by["big.W"]["short"] == "2×4 array [[0.1235, 2, 3, …], …]"
    assert by["big.W"]["full"].splitlines() == ["[0.123456, 2.0, 3.0, 4.0]", "[5.0, 6.0, 7.0, 8.0]"]
    assert by["xs"]["short"] == "[0, 0.3333, 0.6667, …] (64 entries)"
    assert json.loads(by["xs"]["full"]) == [float(i) / 3 for i in range(64)]   # every entry, exact
    assert by["pairs"]["short"] == "2 entries"
    assert S.counterexample_rows(None) == [] and S.counterexample_rows([1, 2]) == [
        {"key": "", "short": "[1, 2]", "full": ""}]


def test_refuted_summary_on_the_site_has_no_escapes(built):
    _, out, _ = built
    index = _text((out / "index.html").read_text(encoding="utf-8"))
    assert "sup K eps/||w||^4 <= value (sup_bound): measured 2 against 1" in index
    decisive = re.search(r'<p class="decisive math">(.*?)</p>', _page(out, "yat.bound.global_upper"),
                         flags=re.S).group(1)
    assert "||w||^4" in html.unescape(decisive)
    assert "\\|" not in index and "\\|" not in html.unescape(decisive)


# --------------------------------------------------------------------------------------------
# mathematics: KaTeX shipped with the package, loaded by relative path


KATEX = Path(S.STATIC) / "katex"


def test_katex_is_shipped_with_its_licence_and_fonts():
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js", "LICENSE"):
        assert (KATEX / name).is_file(), name
    assert "MIT License" in (KATEX / "LICENSE").read_text(encoding="utf-8")
    css = (KATEX / "katex.min.css").read_text(encoding="utf-8")
    woff2 = set(re.findall(r"url\((fonts/[\w-]+\.woff2)\)", css))
    assert len(woff2) >= 19 and all((KATEX / f).is_file() for f in woff2)   # every face, first choice
    assert sorted(p.name for p in (KATEX / "fonts").iterdir()) == sorted(Path(f).name for f in woff2)


def test_pages_load_katex_and_mark_their_mathematics(built):
    _, out, _ = built
    assert (out / "static" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").is_file()
    for page, root in ((out / "index.html", ""), (out / "claims" / "yat.imq_fourier.html", "../")):
        text = page.read_text(encoding="utf-8")
        for ref in ("static/katex/katex.min.css", "static/katex/katex.min.js",
                    "static/katex/contrib/auto-render.min.js"):
            assert f'"{root}{ref}"' in text, (page.name, ref)
        assert text.index("katex.min.js") < text.index("auto-render.min.js") < text.index("site.js")
    page = _page(out, "yat.imq_fourier")
    # the claim text is typeset with every delimiter; passages with dollars only (the shipped texts
    # write \( for a parenthesis), and only those whose excerpt does not open inside a formula
    assert '<p class="statement math">' in page
    excerpts = re.findall(r'<blockquote class="excerpt( math)?"( data-math="dollars")?>(.*?)</blockquote>',
                          page, flags=re.S)
    assert any(m and d and "$" in body for m, d, body in excerpts)
    assert all(bool(m) == bool(d) for m, d, _ in excerpts)


def test_passage_math_only_outside_formulas():
    p001 = P.paper("001")
    start = p001.text.index("$$\\mathbf{E}(\\mathbf{w}, \\mathbf{x}) :=")
    assert p001.math_at(start) and not p001.math_at(start + 5)
    assert p001.math_at(p001.text.index("Consider the ubiquitous ReLU"))
    assert not P.paper("003").math_at(0) and not P.paper("000").math_at(0)   # no dollar delimiters
    (q,) = P.locate_all('002 App G.6 part 2 ("strictly positive everywhere")')
    assert isinstance(q.math, bool)


# --------------------------------------------------------------------------------------------
# passages


def test_locate_quote_label_and_missing():
    (q,) = P.locate_all('002 App G.6 part 2 ("strictly positive everywhere")')
    assert q.found and q.how == "quote"
    line = paper_text("002").split("\n")[q.line - 1]
    assert "strictly positive everywhere" in line
    (t,) = P.locate_all("000 Thm 1 (App C.15)")
    assert t.found and t.how == "label" and t.target == "Theorem 1"
    assert paper_text("000").split("\n")[t.line - 1].startswith("Theorem 1 (Mercer")
    (s,) = P.locate_all("003 §3.2")
    assert s.found and "Monte Carlo Stochastic Integration" in s.excerpt
    # words that are not in the paper: not found, and no text invented
    (m,) = P.locate_all('004 App Z.9 ("the moon is made of green cheese")')
    assert not m.found and m.excerpt == "" and "not found verbatim" in m.note
    # a quote of the wrong words beside a real label: the label is shown, and the miss said
    (f,) = P.locate_all('000 Thm 1 ("no such words appear here at all")')
    assert f.found and f.how == "label" and "not found verbatim" in f.note
    # two-token quotes are too short to search
    assert P.paper("000").find_quote("the kernel") is None


def test_cite_splits_sources_by_paper_and_item():
    got = [(c.paper, c.text, c.quotes) for c in P.cite(
        '000 eq.1, §3.1, Cor 5 ("K=0 iff w ⊥ x"); 001 eq.1, App E.5; 002 eq.1.')]
    assert got == [("000", "eq.1", ()), ("000", "§3.1", ()), ("000", 'Cor 5 ("K=0 iff w ⊥ x")',
                   ("K=0 iff w ⊥ x",)), ("001", "eq.1", ()), ("001", "App E.5", ()),
                   ("002", "eq.1", ())]


# --------------------------------------------------------------------------------------------
# bad arguments (library and CLI) and atomic output


def test_missing_ledger_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SiteError, match=r"ledger_dir .*nowhere.* is not a folder"):
        build_site(tmp_path / "nowhere")
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "holds no ledger.json" in capsys.readouterr().err
    assert not (tmp_path / "empty" / "site").exists()


def test_unusable_out_folder_is_refused(tmp_path, capsys):
    make_ledger(tmp_path / "ledger")
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["report", str(tmp_path / "ledger"), "--out", str(afile)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    # not writable: its parent is a file (a folder cannot be made there, even as root)
    assert main(["report", str(tmp_path / "ledger"), "--out", str(afile / "site")]) == 2
    err = capsys.readouterr().err
    assert "cannot be written" in err and str(afile / "site") in err
    # a folder of other files is never replaced
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    assert main(["report", str(tmp_path / "ledger"), "--out", str(tmp_path / "mine")]) == 2
    assert "not a site built by `yatmath report`" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    assert main(["report", str(tmp_path / "ledger"), "--figures", str(afile)]) == 2
    assert "figures_dir" in capsys.readouterr().err


def test_default_out_and_rebuild_replaces_the_whole_site(tmp_path, capsys):
    make_ledger(tmp_path / "ledger")
    assert main(["report", str(tmp_path / "ledger")]) == 0
    site = tmp_path / "ledger" / "site"
    assert (site / "index.html").is_file() and (site / S.MARKER).is_file()
    (site / "stale.html").write_text("old")
    assert main(["report", str(tmp_path / "ledger")]) == 0
    assert not (site / "stale.html").exists() and (site / "index.html").is_file()
    assert sorted(p.name for p in (tmp_path / "ledger").iterdir() if p.name.startswith(".")) == []


def test_a_failed_build_leaves_the_previous_site_and_no_temporary_folder(tmp_path, monkeypatch):
    make_ledger(tmp_path / "ledger")
    out = build_site(tmp_path / "ledger", tmp_path / "site")
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    calls = []

    def boom(rec, plot_files):
        calls.append(rec["id"])
        if len(calls) == 3:            # half-way through the claim pages
            raise KeyboardInterrupt
        return real(rec, plot_files)

    real = S.claim_page
    monkeypatch.setattr(S, "claim_page", boom)
    with pytest.raises(KeyboardInterrupt):
        build_site(tmp_path / "ledger", tmp_path / "site")
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "site"]
    # and a first build that fails leaves no site at all
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        build_site(tmp_path / "ledger", tmp_path / "site2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "site"]


def test_check_html_builds_the_site_after_the_ledger(tmp_path, capsys):
    assert main(["check", "--only", "yat.def.basic", "--out", str(tmp_path / "l"), "--html"]) == 0
    assert "wrote " + str(tmp_path / "l" / "site" / "index.html") in capsys.readouterr().out
    page = (tmp_path / "l" / "site" / "claims" / "yat.def.basic.html").read_text(encoding="utf-8")
    rec = json.loads((tmp_path / "l" / "ledger.json").read_text())[0]
    assert rec["verdict"] in page and rec["method"] in html.unescape(page)


# --------------------------------------------------------------------------------------------
# commands a reader copies are shell-safe; a refused reproduction gets no Copy button; wrongly
# typed input is a usage error naming the file and field (run as a user meets it: `yatmath report`
# in a child process)
import subprocess
import sys

HOSTILE_ID = "yat.def.basic;touch PWNED #"


def report_cli(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "yatmath.cli", "report", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _copied(page: str, element_id: str) -> str:
    """The text a Copy button copies: the content of the element it names, unescaped."""
    m = re.search(rf'<pre id="{re.escape(element_id)}"[^>]*>(.*?)</pre>', page, flags=re.S)
    assert m, element_id
    return html.unescape(m.group(1))


def _run_in_a_shell(line: str, cwd: Path) -> list[str]:
    """Paste ``line`` into bash with ``yatmath`` a function that prints its arguments."""
    res = subprocess.run(["bash", "-c", 'yatmath() { printf "%s\\n" "$@"; }\n' + line], cwd=cwd,
                         capture_output=True, text=True, check=True)
    return res.stdout.splitlines()


def test_copied_commands_are_shell_quoted(tmp_path):
    recs = fixture_records()
    recs[0]["id"] = HOSTILE_ID
    recs[0]["seed"] = 3
    meta = run_metadata(recs, level="quick", seed=3, only="yat.*; touch PWNED2 '", seconds=1.0,
                        versions={"yatmath": "t"})
    write_ledger(tmp_path / "ledger", recs, meta)
    figs = tmp_path / "figs; touch PWNED3 #"
    make_figures(figs)
    res = report_cli(tmp_path / "ledger", "--figures", figs, "--out", tmp_path / "site", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    site = tmp_path / "site"
    claim = next(p for p in (site / "claims").glob("*.html") if "PWNED" in p.name)
    m = re.search(r"explain: <code>(.*?)</code>", claim.read_text(encoding="utf-8"))
    explain = html.unescape(m.group(1))
    assert _run_in_a_shell(explain, tmp_path) == ["check", "--explain", HOSTILE_ID, "--seed", "3"]
    gallery = (site / "figures.html").read_text(encoding="utf-8")
    assert _run_in_a_shell(_copied(gallery, "cmd-toy_fig"), tmp_path) == [
        "figures", "--only", "toy_fig", "--seed", "7", "--out", str(figs)]
    missing = html.unescape(re.search(r"<code>(yatmath figures --only angle_radius_response[^<]*)</code>",
                                      gallery).group(1))
    assert _run_in_a_shell(missing, tmp_path)[-2:] == ["--out", str(figs)]
    index = (site / "index.html").read_text(encoding="utf-8")
    rerun = html.unescape(re.search(r"Reproduce: <code>(.*?)</code>", index).group(1))
    assert _run_in_a_shell(rerun, tmp_path) == ["check", "--level", "quick", "--seed", "3",
                                                "--only", "yat.*; touch PWNED2 '"]
    md = (tmp_path / "ledger" / "LEDGER.md").read_text(encoding="utf-8")
    rerun_md = re.search(r"Reproduce: `(.*?)`;", md).group(1)
    assert _run_in_a_shell(rerun_md, tmp_path)[-2:] == ["--only", "yat.*; touch PWNED2 '"]
    assert not list(tmp_path.glob("PWNED*"))


@pytest.mark.parametrize("repro, why", [
    ({"expr": "__import__('os').system('touch PWNED')", "bindings": {}, "expected": 0},
     "private name"),
    ({"expr": "x", "bindings": {"x = 1\nimport os; os.system('touch PWNED')\ny": 1},
      "expected": 1}, "not a public Python identifier"),
    ({"expr": "open('/etc/passwd').read()", "bindings": {}, "expected": ""}, "free name 'open'"),
])
def test_a_refused_reproduction_gets_no_copy_button(repro, why, tmp_path):
    recs = fixture_records()
    part = recs[1]["parts"]["sup_bound"]
    part["repro"] = {**part["repro"], **repro}
    meta = run_metadata(recs, level="quick", seed=0, only=None, seconds=1.0, versions={})
    write_ledger(tmp_path / "ledger", recs, meta)
    res = report_cli(tmp_path / "ledger", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    page = _page(tmp_path / "ledger" / "site", "yat.bound.global_upper")
    assert 'data-copy="claim.sup_bound-repro"' not in page and 'id="claim.sup_bound-repro"' not in page
    assert "Reproduction (refused)" in page and why in html.unescape(page)
    assert repro["expr"] in html.unescape(page)                 # shown to read (escaped)
    # an accepted reproduction keeps its button
    other = _page(tmp_path / "ledger" / "site", "yat.imq_fourier")
    assert 'class="copy" data-copy="claim.reading_R2-repro"' in other


def _set(obj, path: str, value):
    *head, last = path.split(".")
    for key in head:
        obj = obj[int(key)] if isinstance(obj, list) else obj[key]
    obj[last] = value


@pytest.mark.parametrize("target, path, value, says", [
    ("ledger.json", "0.evidence", [1, 2], "record 0 (yat.def.basic): field 'evidence'"),
    ("ledger.json", "0.seconds", "fast", "field 'seconds' must be a number"),
    ("ledger.json", "1.parts", "two parts", "field 'parts' must be an object"),
    ("ledger.json", "1.parts.sup_bound.verdict", 3, "field 'parts.sup_bound.verdict'"),
    ("ledger.json", "0.thresholds.0.source", None, "field 'thresholds[0].source' must be a string"),
    ("ledger.json", "1.parts.sup_bound.repro.rtol", "1\nimport os", "field 'parts.sup_bound.repro.rtol'"),
    ("ledger.json", "0.warnings", "one", "field 'warnings'"),
    ("ledger.json", "2.id", 7, "field 'id'"),
    ("ledger.json", "3.id", "yat.def.basic", "'yat.def.basic' appears twice"),
    ("ledger.meta.json", "run.seed", "zero", "ledger.meta.json: field 'run.seed'"),
    ("ledger.meta.json", "run.total_seconds", "1 s", "field 'run.total_seconds'"),
    ("ledger.meta.json", "run.versions", ["numpy"], "field 'run.versions'"),
    ("ledger.meta.json", "run", "quick", "field 'run' must be an object"),
    ("ledger.meta.json", "not_yet_checked", "yat.x", "field 'not_yet_checked'"),
    ("toy_fig.json", "params", [0.25], "sidecar toy_fig.json: field 'params'"),
    ("toy_fig.json", "seed", "7", "field 'seed' must be a non-negative integer"),
    ("toy_fig.json", "files", "toy_fig.png", "field 'files'"),
    ("toy_fig.json", "name", "../x;rm -rf ~", "field 'name' must be a figure name"),
    ("toy_fig.json", "versions", "2", "field 'versions'"),
])
def test_wrongly_typed_input_is_a_usage_error_naming_file_and_field(target, path, value, says,
                                                                      tmp_path):
    make_ledger(tmp_path / "ledger")
    make_figures(tmp_path / "figs")
    file = (tmp_path / "figs" if target.startswith("toy") else tmp_path / "ledger") / target
    doc = json.loads(file.read_text(encoding="utf-8"))
    _set(doc, path, value)
    file.write_text(json.dumps(doc), encoding="utf-8")
    res = report_cli(tmp_path / "ledger", "--figures", tmp_path / "figs", cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and target in res.stderr and says in res.stderr, res.stderr
    assert not (tmp_path / "ledger" / "site").exists()


@pytest.mark.parametrize("kind", ["dangling", "loop", "under_loop", "too_long", "proc"])
def test_report_out_that_cannot_be_used_is_a_usage_error(kind, tmp_path):
    make_ledger(tmp_path / "ledger")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    out = {"dangling": tmp_path / "dangling", "loop": tmp_path / "loop_a",
           "under_loop": tmp_path / "loop_a" / "site", "too_long": tmp_path / ("x" * 300),
           "proc": Path("/proc/yatmath-site")}[kind]
    res = report_cli(tmp_path / "ledger", "--out", out, cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "(--out)" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "ledger", "loop_a", "loop_b"]


def test_a_killed_build_leaves_a_temporary_folder_the_next_build_removes(tmp_path):
    """SIGKILL half-way through a build (no ``except`` runs) leaves ``.site.tmp-PID-*`` beside the
    site; the next build removes it because that PID no longer runs, and leaves alone a folder
    whose PID is alive (a build running now) and anything not named like a build's temporary."""
    import os
    import signal
    import subprocess
    import sys

    make_ledger(tmp_path / "ledger")
    child = ("import os, signal, sys\n"
             "import proofs_check.site.site as S\n"
             "real = S.claim_page\n"
             "calls = []\n"
             "def boom(rec, plot_files):\n"
             "    calls.append(1)\n"
             "    if len(calls) == 2:\n"
             "        os.kill(os.getpid(), signal.SIGKILL)\n"
             "    return real(rec, plot_files)\n"
             "S.claim_page = boom\n"
             f"S.build_site({str(tmp_path / 'ledger')!r}, {str(tmp_path / 'site')!r})\n")
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert p.returncode == -signal.SIGKILL, p.stderr
    left = [q.name for q in tmp_path.iterdir() if q.name.startswith(".site.tmp-")]
    assert len(left) == 1, left                              # the killed build's folder
    live = tmp_path / f".site.tmp-{os.getpid()}-abc123"      # this process runs: a live build
    live.mkdir()
    other = tmp_path / ".site.tmp-notapid"                  # not a build's name: never touched
    other.mkdir()
    out = build_site(tmp_path / "ledger", tmp_path / "site")
    assert (out / "index.html").is_file()
    names = sorted(q.name for q in tmp_path.iterdir())
    assert names == sorted(["ledger", "site", live.name, other.name]), names
