"""Check the internal links of the built HTML documentation, offline.

    python docs/check_links.py docs/_build/html

Every local ``href`` and ``src`` of every page (links to pages, anchors ``#id``, images, scripts,
stylesheets, downloads) must name a file of the build, and every anchor an ``id`` (or ``name``)
on its target page.  Resources that a page *loads* (scripts, stylesheets, images, frames) must be
local too, so that the site opens from disk (file://) without a network.  Links to other sites
(``<a href="https://...">``) are not fetched.  Exit status 0 when everything resolves, 1 otherwise
(each failure printed as ``page: attribute -> target (why)``), 2 for a usage error.
"""
from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: (tag, attribute) pairs whose URL the browser loads when it shows the page.
LOADED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
          ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src")}
#: ``<link rel=...>`` kinds that name another page rather than a resource.
LINK_REL_PAGES = {"index", "search", "next", "prev", "canonical", "alternate", "author", "help",
                  "license", "top", "up", "copyright"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str, bool]] = []   # (tag, attr, url, loaded)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag in ("a", "map") else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for attr in ("href", "src"):
            url = a.get(attr)
            if url is None:
                continue
            loaded = (tag, attr) in LOADED
            if tag == "link":
                rels = set((a.get("rel") or "").lower().split())
                loaded = not (rels & LINK_REL_PAGES)
            self.links.append((tag, attr, url, loaded))

    handle_startendtag = handle_starttag


def _pages(root: Path) -> list[Path]:
    """The built pages: every .html file outside ``_static`` (which holds theme templates)."""
    return [p for p in sorted(root.rglob("*.html"))
            if "_static" not in p.relative_to(root).parts]


def check(root: Path) -> tuple[int, list[str]]:
    pages: dict[Path, _Page] = {}

    def parse(path: Path) -> _Page:
        if path not in pages:
            p = _Page()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            pages[path] = p
        return pages[path]

    errors: list[str] = []
    checked = 0
    for page in _pages(root):
        rel = page.relative_to(root).as_posix()
        for tag, attr, url, loaded in parse(page).links:
            parts = urlsplit(url)
            if parts.scheme in ("data", "javascript", "mailto", "tel"):
                continue
            if parts.scheme or parts.netloc:
                if loaded:
                    errors.append(f"{rel}: <{tag} {attr}> -> {url} (loads from the network)")
                continue
            checked += 1
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                errors.append(f"{rel}: <{tag} {attr}> -> {url} (no such file)")
                continue
            if not target.is_relative_to(root.resolve()) and not target.is_relative_to(root):
                errors.append(f"{rel}: <{tag} {attr}> -> {url} (outside the build)")
                continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html" and frag not in parse(target).ids:
                errors.append(f"{rel}: <{tag} {attr}> -> {url} (no id {frag!r} on that page)")
    return checked, errors


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("usage: python docs/check_links.py BUILD_DIR (an existing folder)", file=sys.stderr)
        return 2
    root = Path(argv[0]).resolve()
    checked, errors = check(root)
    n_pages = len(_pages(root))
    for e in errors:
        print(e)
    print(f"{n_pages} pages, {checked} internal links and resources checked: "
          f"{len(errors)} broken" + ("" if errors else " (every one resolves)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
