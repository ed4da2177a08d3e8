"""The ``yatmath report`` site in a real browser: headless Chromium driven over the DevTools
protocol on a pipe (``--remote-debugging-pipe``: JSON messages ending in NUL on fds 3 and 4; the
standard library only).

Every page is opened from ``file://``; the test fails on an uncaught exception, a console error or
warning, a log entry of level error (a resource that failed to load), a failed network load or an
image that did not decode.  It also checks that the filters and the copy button work, and saves
screenshots under pytest's tmp_path and in /tmp/h1/shots/ for a person to look at.

The site is built from the small ledger of tests/proofs_check/test_report.py.  To check a real ledger as well,
set ``YATMATH_REPORT_LEDGER=DIR`` (and optionally ``YATMATH_REPORT_FIGURES=DIR``): every page of
its site is opened the same way.  Skipped where Chromium is absent.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from tests.proofs_check.test_report import fixture_records, make_figures, make_ledger, site_links

from proofs_check.report import run_metadata, write_ledger
from proofs_check.site import build_site

pytestmark = pytest.mark.browser

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), "/usr/bin/chromium",
                             shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p and os.path.isfile(p) and os.access(p, os.X_OK)), None)
SHOTS = Path("/tmp/h1/shots")
TIMEOUT = 60.0


class Browser:
    """Headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, profile: Path):
        cmd_r, self._cmd_w = os.pipe()
        self._res_r, res_w = os.pipe()

        def fds():  # the child reads commands on fd 3 and writes replies on fd 4
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--window-size=1280,1000",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))  # noqa: PLW1509 - no threads here; fds 3/4 need it
        os.close(cmd_r)
        os.close(res_w)
        self._buf, self._id, self.events = b"", 0, []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self._res_r, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed the pipe (exit {self.proc.poll()})")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, session: bool = False, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        while True:
            ev = self._read(deadline)
            if ev.get("method") == method:
                return ev
            self.events.append(ev)

    def open(self, url: str) -> list[str]:
        """Load ``url``; return the problems seen while loading it."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")
        broken = self.eval("Array.from(document.images).filter(i => !i.complete || "
                           "i.naturalWidth === 0).map(i => i.getAttribute('src'))")
        self.call("Runtime.evaluate", session=True, expression="1")  # flush pending events
        return [f"image did not load: {src}" for src in broken] + self.problems()

    def problems(self) -> list[str]:
        out = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(f"uncaught: {d.get('exception', {}).get('description') or d.get('text')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                out.append(f"load failed: {p.get('errorText')}")
        return out

    def eval(self, expr: str):
        res = self.call("Runtime.evaluate", session=True, expression=expr, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: Path, max_height: int = 4000) -> None:
        import base64

        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": 1280, "height": min(max_height, int(size["height"]) + 1),
                "scale": 1}
        data = self.call("Page.captureScreenshot", session=True, format="png", clip=clip,
                         captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self):
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # it may be gone already
            self.call("Browser.close")
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._res_r)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


def _save(shot: Path, name: str) -> None:
    """Copy a screenshot to /tmp/h1/shots/ (best effort: the test's own copy is in tmp_path)."""
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy2(shot, SHOTS / name)
    except OSError:
        pass


def _check_site(browser, out: Path, tmp_path: Path, shots: dict[str, str]) -> None:
    missing = [(str(p.relative_to(out)), ref) for p, ref, t in site_links(out)
               if t is not None and not t.is_file()]
    assert missing == [], "links or images that resolve to no file"
    bad = {}
    for page in sorted(out.rglob("*.html")):
        problems = browser.open(page.as_uri())
        if problems:
            bad[str(page.relative_to(out))] = problems
        # the page rendered: it has its heading and the stylesheet applied (dark header)
        assert browser.eval("document.querySelector('h1') !== null"), page
        assert browser.eval("getComputedStyle(document.querySelector('header.top'))"
                            ".backgroundColor") == "rgb(23, 32, 46)", page
        rel = str(page.relative_to(out))
        if rel in shots:
            _save(_shot(browser, tmp_path / shots[rel]), shots[rel])
    assert bad == {}


def _shot(browser, path: Path) -> Path:
    browser.screenshot(path)
    assert path.stat().st_size > 10_000   # a rendered page, not a blank one
    return path


def test_the_harness_sees_errors(browser, tmp_path):
    """The checks below can fail: a broken image, a console error and an uncaught exception are
    all reported."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><h1>x</h1><img src="nope.png">'
                    '<script>console.error("boom"); null.f();</script></body></html>')
    problems = " | ".join(browser.open(page.as_uri()))
    assert "image did not load: nope.png" in problems
    assert "console.error: ['boom']" in problems
    assert "uncaught: TypeError" in problems
    assert "ERR_FILE_NOT_FOUND" in problems


def test_fixture_site_in_chromium(browser, tmp_path):
    make_ledger(tmp_path / "ledger")
    make_figures(tmp_path / "figs")
    out = build_site(tmp_path / "ledger", tmp_path / "site", tmp_path / "figs")
    _check_site(browser, out, tmp_path, {"index.html": "fixture_index.png",
                                         "claims/yat.bound.global_upper.html": "fixture_claim.png",
                                         "figures.html": "fixture_figures.png"})

    # filters: REFUTED only, then paper 004 only
    browser.open((out / "index.html").as_uri())
    visible = ("Array.from(document.querySelectorAll('#claim-table tbody tr'))"
               ".filter(r => !r.classList.contains('hidden')).map(r => r.dataset.verdict)")
    assert sorted(browser.eval(visible)) == ["CONFIRMED", "CONFIRMED", "NOT_CHECKABLE", "REFUTED"]
    browser.eval("document.querySelector('[data-verdict-link=REFUTED]').click()")
    assert browser.eval(visible) == ["REFUTED"]
    browser.eval("document.querySelectorAll('input[name=verdict]').forEach(b => b.checked = true);"
                 "const s = document.querySelector('select[name=paper]'); s.value = '004';"
                 "s.dispatchEvent(new Event('change', {bubbles: true}))")
    assert browser.eval(visible) == ["NOT_CHECKABLE"]
    assert browser.eval("document.querySelector('.shown').textContent") == "1 of 4 shown"

    # the copy button copies the reproduction (or, where the clipboard is refused, selects it)
    browser.open((out / "claims" / "yat.bound.global_upper.html").as_uri())
    browser.eval("document.querySelector('button.copy').click()")
    time.sleep(0.3)
    label = browser.eval("document.querySelector('button.copy').textContent")
    assert label in ("Copied", "Select and copy")
    if label == "Select and copy":
        assert "float(np.dot(w, x))" in browser.eval("String(window.getSelection())")
    assert browser.problems() == []


KATEX_FONTS_LOADED = ("document.fonts.ready.then(() => Array.from(document.fonts)"
                      ".filter(f => f.family.startsWith('KaTeX') && f.status === 'loaded').length)")


def test_mathematics_is_typeset_from_disk(browser, tmp_path):
    """KaTeX (shipped in static/katex) typesets $...$, $$...$$ and \\(...\\) in a claim's text and
    the dollars of a paper passage, with its fonts loaded from the site folder; nothing fails."""
    recs = fixture_records()
    recs[3]["statement"] = (r"a bound $\|w\|^4/\varepsilon$, a square \(x^2 + y^2\) and a sum "
                            r"$$\sum_i c_i K(w_i, x)$$ beside 5 < 6 & plain text")
    meta = run_metadata(recs, level="quick", seed=0, only=None, seconds=1.0, versions={})
    write_ledger(tmp_path / "ledger", recs, meta)
    out = build_site(tmp_path / "ledger", tmp_path / "site")
    assert browser.open((out / "claims" / "test.not_in_catalogue.html").as_uri()) == []
    assert browser.eval("document.querySelectorAll('.statement .katex').length") == 3
    assert browser.eval("document.querySelectorAll('.statement .katex-display').length") == 1
    assert browser.eval("document.querySelectorAll('.katex-error').length") == 0
    assert "5 < 6 & plain text" in browser.eval("document.querySelector('.statement').textContent")
    assert browser.eval(KATEX_FONTS_LOADED) > 0
    # a passage of paper 001 (which writes its mathematics between dollars) is typeset
    assert browser.open((out / "claims" / "yat.imq_fourier.html").as_uri()) == []
    assert browser.eval("document.querySelectorAll('blockquote.excerpt .katex').length") > 0
    assert browser.eval("document.querySelectorAll('.katex-error').length") == 0
    assert browser.problems() == []
    _save(_shot(browser, tmp_path / "math_claim.png"), "math_claim.png")


@pytest.mark.slow
def test_real_ledger_site_in_chromium(browser, tmp_path):
    """A site from real checks and figures: YATMATH_REPORT_LEDGER / _FIGURES name a full ledger
    and figure folder; without them a few real claims (refuted, confirmed, parts and readings,
    evidence plots) and one figure are computed here."""
    ledger, figs = os.environ.get("YATMATH_REPORT_LEDGER"), os.environ.get("YATMATH_REPORT_FIGURES")
    if not ledger:
        from yatmath.cli import main

        ledger, figs = tmp_path / "ledger", tmp_path / "figs"
        assert main(["check", "--only", "yat.imq_fourier,yat.def.*,yat.rkhs_relu_comparison,"
                     "particles.thm2_ldp", "--out", str(ledger)]) == 0
        assert main(["figures", "--only", "squashers", "--out", str(figs)]) == 0
    out = build_site(ledger, tmp_path / "site", figs)
    _check_site(browser, out, tmp_path, {"index.html": "real_index.png",
                                         "claims/yat.imq_fourier.html": "real_claim.png",
                                         "figures.html": "real_figures.png"})
