"""Find the passages a claim cites in the shipped paper texts (``proofs_check/papers/*.txt``).

A citation is what ``claims.md`` writes in a ``Src`` line, or what a reading's ``passage`` names:
a paper id (``000`` .. ``004``) followed by items such as ``Thm 1 (App C.15)``, ``§3.1``,
``Cor 5 ("K=0 iff w ⊥ x")``, ``App G.6 part 2 ("strictly positive everywhere")`` or ``abstract``.
:func:`cite` splits such a text into :class:`Citation` items and :func:`locate` finds each one:

1. **quoted words** (``"..."``, ``“...”``, or ``'...'`` not part of a word): the words are searched
   in the paper after both are reduced to lower-case alphanumeric tokens (so LaTeX markup, OCR
   spacing and punctuation do not matter); a quote with ``...`` is found when its fragments occur
   in order within ``_SPAN`` characters.  Quotes shorter than three tokens are not searched (they
   would match by chance).
2. **a numbered statement** (Theorem, Lemma, Proposition, Corollary, Definition, Remark,
   Assumption, Example, Algorithm; Figure and Table captions): the first line of the paper that
   *opens* that statement (``Theorem 1 (`` ..., ``Theorem A2.`` ..., ``###### Proposition 1\\(``).
3. **a section** (``§3.1``, ``App C.15``, ``Appendix E``, ``abstract``): the heading line.

The excerpt is copied verbatim from the shipped text (at most ``EXCERPT_CHARS`` characters, cut at
a line end where possible and marked ``…`` where cut); nothing is paraphrased.  When none of these
finds the item, the result says so (``found=False``) and carries no text: the page then prints
"passage not found in the shipped text".  Each result also names the enclosing section (the last
heading before the match) and its line number in the file.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

EXCERPT_CHARS = 700
_SPAN = 1500          # fragments of a quote with "..." must all fall within this many characters
_MIN_TOKENS = 3       # shorter quotes are not searched

NOT_FOUND = "passage not found in the shipped text"

_PAPER = re.compile(r"(?<![\w.])(00[0-4])(?![\w.])")
_QUOTES = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![A-Za-z0-9])'([^']{6,}?)'(?![A-Za-z])")

# abbreviation -> the word the papers print
_KINDS = {
    "thm": "Theorem", "thms": "Theorem", "theorem": "Theorem", "theorems": "Theorem",
    "lemma": "Lemma", "lemmas": "Lemma", "lem": "Lemma",
    "prop": "Proposition", "props": "Proposition", "proposition": "Proposition",
    "cor": "Corollary", "cors": "Corollary", "corollary": "Corollary",
    "def": "Definition", "defs": "Definition", "definition": "Definition",
    "remark": "Remark", "remarks": "Remark", "rem": "Remark",
    "assumption": "Assumption", "assumptions": "Assumption", "ass": "Assumption",
    "example": "Example", "alg": "Algorithm", "algorithm": "Algorithm",
    "fig": "Figure", "figs": "Figure", "figure": "Figure", "table": "Table", "tab": "Table",
}
_NUM = r"([A-Z]?\.?\d+(?:\.\d+)*)"
_ITEM = re.compile(r"\b(" + "|".join(sorted(_KINDS, key=len, reverse=True)) + r")\.?\s*" + _NUM,
                   re.IGNORECASE)
_SECTION = re.compile(r"(?:§|\bApp(?:endix)?\.?\s+|\bSec(?:tion)?\.?\s+)\s*([A-Z](?:\.\d+)*|\d+(?:\.\d+)*)")
_ABSTRACT = re.compile(r"\babstract\b", re.IGNORECASE)


@dataclass(frozen=True)
class Citation:
    """One cited item: the paper id, the item as written, and its quoted words."""

    paper: str
    text: str
    quotes: tuple[str, ...] = ()


@dataclass
class Passage:
    """Where a citation was found (``found``) and the verbatim ``excerpt``; ``how`` is
    ``"quote"``, ``"label"`` or ``""``; ``note`` explains a fallback (quoted words not found
    verbatim, label located instead)."""

    paper: str
    cited: str
    found: bool = False
    how: str = ""
    target: str = ""      # what was located: the quote or e.g. "Theorem 1"
    excerpt: str = ""
    section: str = ""     # the heading of the enclosing section
    line: int = 0         # 1-based line number of the match in the shipped file
    file: str = ""
    note: str = ""
    quotes: list[str] = field(default_factory=list)
    math: bool = False    # the excerpt's $...$ / $$...$$ may be typeset (see Paper.math_at)


# --------------------------------------------------------------------------------------------
# the papers, indexed once


def _clean_line(line: str) -> str:
    """A line without markdown heading and bold marks and backslash escapes (``\\.`` -> ``.``)."""
    line = re.sub(r"^[#*\s]+", "", line.replace("**", ""))
    return re.sub(r"\\([^A-Za-z0-9\s])", r"\1", line)


def _key(num: str) -> str:
    """Number key: ``A.1`` and ``A1`` agree, trailing dots dropped."""
    return re.sub(r"(?<=[A-Z])\.(?=\d)", "", num.strip(".")).upper()


_ITEM_HEAD = re.compile(r"^(?:\d{1,4}\s+)?(Theorem|Lemma|Proposition|Corollary|Definition|Remark|"
                        r"Assumption|Example|Algorithm)\s+" + _NUM + r"(?=\s*[(.:*]|\s*$|[A-Z])")
_CAPTION = re.compile(r"^(Figure|Table)\s+(\d+)\s*[:.]")
_HEAD = re.compile(r"^(?:\d{1,4}\s+)?(Appendix\s+)?([A-Z](?:\.\d+)+|[A-Z]|\d{1,2}(?:\.\d+)*)\.?\s*(?=[A-Z(])")


class Paper:
    """A shipped paper text with its line offsets, headings, numbered statements and a token
    index for quote search."""

    def __init__(self, pid: str, text: str, file: str = ""):
        self.pid, self.text, self.file = pid, text, file
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.headings: list[tuple[int, str]] = []      # (offset, heading text), in order
        self.sections: dict[str, int] = {}             # section number -> offset (first one)
        self.items: dict[tuple[str, str], int] = {}    # (kind, number) -> offset (first one)
        for start, raw in zip(self.line_starts, text.split("\n")):
            line = _clean_line(raw)
            if not line:
                continue
            m = _ITEM_HEAD.match(line)   # statements and captions open long lines too
            if m:
                self.items.setdefault((m.group(1), _key(m.group(2))), start)
                continue
            m = _CAPTION.match(line)
            if m:
                self.items.setdefault((m.group(1), m.group(2)), start)
                continue
            if len(line) > 150:
                continue
            if line.lower() == "abstract":
                self.sections.setdefault("ABSTRACT", start)
                self.headings.append((start, line))
                continue
            m = _HEAD.match(line)
            if m and not line.endswith((",", ";")):
                num, rest = m.group(2), line[m.end():]
                if len(num) == 1 and num.isalpha() and not (m.group(1) or rest.isupper()):
                    continue   # "A Coulomb ..." is a sentence, "Appendix A ..." or "C SQUASHING" a heading
                self.sections.setdefault(_key(num), start)
                self.headings.append((start, line[m.start(1 if m.group(1) else 2):]))
        self._heading_offsets = [o for o, _ in self.headings]
        toks = list(re.finditer(r"[a-z0-9]+", text.lower()))
        self.norm = " ".join(t.group() for t in toks)
        self._tok_norm_starts, self._tok_orig, pos = [], [], 0
        for t in toks:
            self._tok_norm_starts.append(pos)
            self._tok_orig.append((t.start(), t.end()))
            pos += len(t.group()) + 1

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def section_of(self, offset: int) -> str:
        i = bisect.bisect_right(self._heading_offsets, offset) - 1
        return self.headings[i][1] if i >= 0 else ""

    @functools.cached_property
    def _math_spans(self) -> list[tuple[int, int]]:
        """The (start, end) offsets of the ``$$...$$`` and ``$...$`` spans of the text, paired
        left to right as the site's renderer (KaTeX auto-render) pairs them; none for a text
        converted from HTML with Markdown escapes (``inception\\.``), whose few dollars sit
        inside escaped alt text and are not delimiters."""
        spans, i, text = [], 0, self.text
        if re.search(r"\w\\\.(?:\s|$)", text, flags=re.M):
            return spans
        while True:
            i = text.find("$", i)
            if i < 0:
                return spans
            if i and text[i - 1] == "\\":          # an escaped dollar
                i += 1
                continue
            delim = "$$" if text.startswith("$$", i) else "$"
            j = text.find(delim, i + len(delim))
            if j < 0:
                return spans
            spans.append((i, j + len(delim)))
            i = j + len(delim)

    def math_at(self, start: int) -> bool:
        """Whether an excerpt starting at ``start`` can be typeset: the paper writes its
        mathematics between dollars and ``start`` is not inside such a span (an excerpt that
        opened inside a formula would pair its dollars the wrong way round)."""
        spans = self._math_spans
        if not spans:
            return False
        k = bisect.bisect_right(spans, (start, float("inf"))) - 1
        return k < 0 or not spans[k][0] < start < spans[k][1]

    def excerpt(self, start: int, end: int | None = None, limit: int = EXCERPT_CHARS) -> str:
        """Verbatim text from ``start`` (to ``end`` extended to its line end, or a paragraph), at
        most ``limit`` characters, cut at a line or word end and marked with ``…``."""
        return self._excerpt(start, end, limit)[0]

    def _excerpt(self, start: int, end: int | None = None,
                 limit: int = EXCERPT_CHARS) -> tuple[str, int]:
        """:meth:`excerpt` and the offset in the text where it starts."""
        text = self.text
        if end is None:  # a heading or statement: its line and what follows, to the next heading
            i = bisect.bisect_right(self._heading_offsets, start)
            nxt = self._heading_offsets[i] if i < len(self._heading_offsets) else len(text)
            end = min(nxt, start + 2 * limit)
        else:            # a quote: its sentence(s), from the line start to the line end
            ls = text.rfind("\n", 0, start) + 1
            start = max(ls, start - limit // 3)
            if start > ls:
                start = text.find(" ", start) + 1 or start
            le = text.find("\n", end)
            end = len(text) if le < 0 else le
        chunk = re.sub(r"\n\s*\n+", "\n", text[start:end]).strip()
        if len(chunk) > limit:
            cut = chunk.rfind(" ", 0, limit)
            chunk = chunk[: cut if cut > limit // 2 else limit].rstrip() + " …"
        lead = "… " if start > 0 and text[start - 1] not in "\n" else ""
        return lead + chunk, start

    def find_quote(self, quote: str) -> tuple[int, int] | None:
        """(start, end) offsets in the text of the quote's words, or None."""
        frags = [f for f in re.split(r"\.\.\.|…", quote)]
        frags = [" ".join(re.findall(r"[a-z0-9]+", f.lower())) for f in frags]
        frags = [f for f in frags if f]
        if not frags or sum(len(f.split()) for f in frags) < _MIN_TOKENS:
            return None
        pos = 0
        while True:
            i = self._find_token_run(frags[0], pos)
            if i is None:
                return None
            start, end, ok = self._orig(i, frags[0]), None, True
            end = start[1]
            npos = i + len(frags[0])
            for f in frags[1:]:
                j = self._find_token_run(f, npos)
                if j is None or self._orig(j, f)[0] - start[0] > _SPAN:
                    ok = False
                    break
                end, npos = self._orig(j, f)[1], j + len(f)
            if ok:
                return start[0], end
            pos = i + 1

    def _find_token_run(self, frag: str, pos: int) -> int | None:
        """Position in ``norm`` of ``frag`` starting on a token boundary, at or after ``pos``."""
        while True:
            i = self.norm.find(frag, pos)
            if i < 0:
                return None
            j = i + len(frag)
            if (i == 0 or self.norm[i - 1] == " ") and (j == len(self.norm) or self.norm[j] == " "):
                return i
            pos = i + 1

    def _orig(self, i: int, frag: str) -> tuple[int, int]:
        a = bisect.bisect_right(self._tok_norm_starts, i) - 1
        b = bisect.bisect_right(self._tok_norm_starts, i + len(frag) - 1) - 1
        return self._tok_orig[a][0], self._tok_orig[b][1]


@functools.cache
def paper(pid: str) -> Paper | None:
    """The indexed shipped text of paper ``pid``, or None when it is not shipped."""
    from proofs_check.papers import DIR, paper_text

    try:
        text = paper_text(pid)
    except FileNotFoundError:
        return None
    files = sorted(DIR.glob(f"{pid}_*.txt"))
    return Paper(pid, text, files[0].name if files else "")


# --------------------------------------------------------------------------------------------
# citations


def _split_top(text: str) -> list[str]:
    """``text`` split at commas and semicolons outside brackets and quotes."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"“":
            quote = "”" if ch == "“" else '"'
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch in ",;" and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [s.strip(" .") for s in out if s.strip(" .")]


def quotes_in(text: str) -> tuple[str, ...]:
    """The quoted words of ``text`` (double, curly, or single quotes not inside a word)."""
    return tuple(next(g for g in m.groups() if g is not None).strip() for m in _QUOTES.finditer(text))


def cite(text: str) -> list[Citation]:
    """The citations of a ``Src`` line or a reading's passage: one per item, each with the paper
    id that precedes it (items before any paper id are dropped)."""
    out: list[Citation] = []
    marks = list(_PAPER.finditer(text or ""))
    for k, m in enumerate(marks):
        seg = text[m.end(): marks[k + 1].start() if k + 1 < len(marks) else len(text)]
        if k + 1 < len(marks):   # "... in 000 Prop 12": the words before the next id belong to it
            seg = re.sub(r"\b(?:in|and|of|see|cf\.?)\s*$", "", seg.rstrip())
        seg = seg.lstrip(" :")
        for item in _split_top(seg):
            if not re.search(r"[A-Za-z§]", item):
                continue
            out.append(Citation(m.group(1), item, quotes_in(item)))
    return out


_BARE = re.compile(r"^([A-Z]\.\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*)\b")


def _label_targets(item: str) -> list[tuple[str, str]]:
    """What an item names, in the order written: ``(kind, number)`` of a numbered statement or
    caption, ``("section", number)`` of a section (``§3.1``, ``App C.15``, a bare ``A.4.3``), or
    ``("section", "ABSTRACT")``."""
    scrub = _QUOTES.sub(lambda m: " " * len(m.group()), item)
    found = [(m.start(), _KINDS[m.group(1).lower()], m.group(2)) for m in _ITEM.finditer(scrub)]
    found += [(m.start(), "section", m.group(1)) for m in _SECTION.finditer(scrub)]
    found += [(m.start(), "section", "ABSTRACT") for m in _ABSTRACT.finditer(scrub)]
    m = _BARE.match(scrub)
    if m:
        found.append((m.start(), "section", m.group(1)))
    return [(k, n) for _, k, n in sorted(found)]


def locate(c: Citation) -> Passage:
    """Find citation ``c`` in its paper's shipped text (quotes first, then its label)."""
    p = paper(c.paper)
    res = Passage(paper=c.paper, cited=c.text, quotes=list(c.quotes))
    if p is None:
        res.note = f"paper {c.paper} is not shipped"
        return res
    res.file = p.file
    missed = []
    for q in c.quotes:
        span = p.find_quote(q)
        if span is None:
            missed.append(q)
            continue
        res.found, res.how, res.target = True, "quote", q
        (res.excerpt, at), res.line, res.section = (p._excerpt(*span), p.line_of(span[0]),
                                                    p.section_of(span[0]))
        res.math = p.math_at(at)
        return res
    for kind, num in _label_targets(c.text):
        key = _key(num) if kind not in ("Figure", "Table") else num
        off = p.sections.get(key) if kind == "section" else p.items.get((kind, key))
        if off is None:
            continue
        res.found, res.how = True, "label"
        res.target = (("Abstract" if num == "ABSTRACT" else f"§{num}") if kind == "section"
                      else f"{kind} {num}")
        (res.excerpt, at), res.line, res.section = p._excerpt(off), p.line_of(off), p.section_of(off)
        res.math = p.math_at(at)
        break
    if missed:
        res.note = ("quoted words not found verbatim in the shipped text"
                    + (f"; showing {res.target} instead" if res.found else ""))
    return res


def locate_all(text: str) -> list[Passage]:
    """:func:`locate` of every citation in ``text``."""
    return [_locate_cached(c) for c in cite(text)]


@functools.lru_cache(maxsize=4096)
def _locate_cached(c: Citation) -> Passage:
    return locate(c)
