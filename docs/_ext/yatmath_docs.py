"""Local Sphinx extension of the yatmath documentation.

- ``.. yatmath-figures:: FAMILY``: every registered figure of a family
  (``proofs_check/figures/registry.py``) as one section: title, paper reference, status
  (reproduced, substitute, not reproduced and why), what the generator computes (its module
  docstring, as plain text), the command that renders it, and, for the few figures in
  ``GALLERY_RENDER``, the PNG rendered at build time.
- At ``builder-inited``: the jupytext notebooks (``notebooks/*.py``, percent format) become MyST
  pages in ``docs/notebooks/generated/`` (markdown cells as text, code cells as code; nothing is
  executed), and the figures of ``GALLERY_RENDER`` are rendered into ``docs/gallery/generated/``.
- MathJax is loaded from ``_static/mathjax`` (shipped by sphinx-mathjax-offline) in its SVG
  flavour: SVG output needs no web fonts, which a browser may refuse to load from file://.
- Signatures: the type aliases of ``autodoc_type_aliases`` keep their short names wherever they
  appear, ``npt.NDArray[X]`` reads as such, and a dataclass's signature is its ``__init__``'s,
  evaluated, with ``list()`` for a ``default_factory=list`` (``tidy_annotation``,
  ``process_signature``).

Generated files are rewritten only when their content changes, so incremental builds stay
incremental.
"""
from __future__ import annotations

import dataclasses
import fnmatch
import inspect
import io
import re
import time
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
NOTEBOOKS_OUT = DOCS / "notebooks" / "generated"
GALLERY_OUT = DOCS / "gallery" / "generated"

#: Figure families, one gallery page each: (family, title, name globs).  A figure goes to the first
#: family whose glob matches its name; figures that are not reproduced all go to "not_reproduced".
FAMILIES = [
    ("digits", "Digits (substitutes for MNIST)", ["digit_*"]),
    ("features", "Random features and estimators", ["features_*", "estimators_*"]),
    ("itnet", "ITNet", ["itnet_*"]),
    ("particles", "Particles and the McKean-Vlasov limit", ["particles_*"]),
    ("yat", "The Yat kernel and the NMN papers", ["*"]),
]
NOT_REPRODUCED = "not_reproduced"

#: Figures rendered at every build: the fast ones, about 15 s together on 2 idle cores (the
#: digit figures first train a classifier, most particle figures take 5-35 s each: not these).
#: The others are documented with the command that renders them.
GALLERY_RENDER = ("potential_well", "eps_effect", "squashers", "decision_boundaries",
                  "itnet_special_kernels", "itnet_mc_error", "particles_synthetic_fig2")
GALLERY_DPI = 80


def family_of(fig) -> str:
    if not fig.reproduced:
        return NOT_REPRODUCED
    for family, _title, globs in FAMILIES:
        if any(fnmatch.fnmatchcase(fig.name, g) for g in globs):
            return family
    raise AssertionError("the last family matches every name")


def _figures():
    from proofs_check.figures import registry

    return registry.load_all()


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


# -- notebooks ------------------------------------------------------------------------------------

def notebook_to_myst(path: Path) -> str:
    """The notebook ``path`` (jupytext percent format) as a MyST page, without executing it."""
    import jupytext

    nb = jupytext.read(path)
    rel = path.relative_to(ROOT).as_posix()
    out = []
    for i, cell in enumerate(nb.cells):
        src = cell.source.rstrip()
        if cell.cell_type == "markdown":
            out.append(src)
            if i == 0:   # after the notebook's own title: where it comes from, how to run it
                out.append(
                    f":::{{note}}\nRendered from `{rel}` (jupytext percent format) without "
                    f"executing it: the outputs appear when you run it.  "
                    f"`pip install \".[notebooks]\"`, then `jupytext --to notebook {rel}` and open "
                    f"the `.ipynb` in Jupyter, or run it with papermill.  "
                    f"Source: {{download}}`{path.name} <../../../{rel}>`.\n:::")
        elif cell.cell_type == "code" and src:
            tags = cell.metadata.get("tags", [])
            fence = "````" if "```" in src else "```"
            if "parameters" in tags:
                out.append("Parameters cell (tagged `parameters`: papermill injects values "
                           "after it):")
            out.append(f"{fence}python\n{src}\n{fence}")
    return "\n\n".join(out) + "\n"


def build_notebooks(app) -> None:
    wanted = set()
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        target = NOTEBOOKS_OUT / f"{path.stem}.md"
        wanted.add(target.name)
        _write_if_changed(target, notebook_to_myst(path).encode())
    for stale in NOTEBOOKS_OUT.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()


# -- gallery --------------------------------------------------------------------------------------

def render_gallery(app) -> None:
    """Render the figures of ``GALLERY_RENDER`` (PNG only) into ``docs/gallery/generated``."""
    import matplotlib

    matplotlib.use("Agg")
    from proofs_check.figures import render

    figs = _figures()
    t0 = time.perf_counter()
    took = []
    for name in GALLERY_RENDER:
        t1 = time.perf_counter()
        if name not in figs or not figs[name].reproduced:
            logger.warning("gallery: %r is not a reproduced figure (GALLERY_RENDER in %s)",
                           name, Path(__file__).name)
            continue
        try:
            fig = render.draw(name, render.compute(name, seed=0))
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=GALLERY_DPI, metadata={"Software": None})
        except Exception as exc:   # a broken generator is a documentation error
            logger.warning("gallery: figure %r failed to render: %r", name, exc)
            continue
        _write_if_changed(GALLERY_OUT / f"{name}.png", buf.getvalue())
        took.append((name, time.perf_counter() - t1))
    logger.info("gallery: rendered %d figures in %.1f s (%s)", len(GALLERY_RENDER),
                time.perf_counter() - t0, ", ".join(f"{n} {t:.1f} s" for n, t in took))


def _plain_paragraphs(text: str) -> list[nodes.Node]:
    """Plain text (a figure module's docstring) as paragraphs and bullet lists, unparsed: the
    docstrings hold plain-text math such as ||w||^4/eps that is no reStructuredText."""
    out: list[nodes.Node] = []
    for block in re.split(r"\n\s*\n", inspect.cleandoc(text or "")):
        lines = block.splitlines()
        if not lines:
            continue
        if lines[0].lstrip().startswith(("* ", "- ")):
            items, cur = [], []
            for line in lines:
                if line.lstrip().startswith(("* ", "- ")):
                    if cur:
                        items.append(" ".join(cur))
                    cur = [line.lstrip()[2:].strip()]
                else:
                    cur.append(line.strip())
            items.append(" ".join(cur))
            bl = nodes.bullet_list()
            for item in items:
                bl += nodes.list_item("", nodes.paragraph(text=item))
            out.append(bl)
        else:
            out.append(nodes.paragraph(text=" ".join(line.strip() for line in lines)))
    return out


class FiguresDirective(SphinxDirective):
    """``.. yatmath-figures:: FAMILY``: one section per registered figure of the family."""

    required_arguments = 1
    option_spec = {"level": directives.unchanged}

    def run(self):
        import importlib

        family = self.arguments[0]
        known = [f for f, _t, _g in FAMILIES] + [NOT_REPRODUCED]
        if family not in known:
            raise self.error(f"unknown figure family {family!r} (known: {', '.join(known)})")
        figs = [f for _n, f in sorted(_figures().items()) if family_of(f) == family]
        self.env.note_dependency(str(ROOT / "proofs_check" / "figures" / "registry.py"))
        out: list[nodes.Node] = []
        for fig in figs:
            sec = nodes.section(ids=[nodes.make_id(f"figure-{fig.name}")], names=[fig.name])
            sec += nodes.title(text=fig.name)
            status = ("reproduced" if fig.reproduced and not fig.substitute
                      else "substitute" if fig.reproduced else "not reproduced")
            fl = nodes.field_list()
            for key, value in (("Title", fig.title), ("Paper", fig.paper), ("Status", status)):
                fl += nodes.field("", nodes.field_name(text=key),
                                  nodes.field_body("", nodes.paragraph(text=value)))
            if fig.reproduced:
                cmd = f"yatmath figures --only {fig.name} --out yatmath-figures"
                fl += nodes.field("", nodes.field_name(text="Render"),
                                  nodes.field_body("", nodes.paragraph(
                                      "", "", nodes.literal(text=cmd))))
                module = importlib.import_module(fig.module)
                src = inspect.getsourcefile(module)
                if src:
                    self.env.note_dependency(src)
                    fl += nodes.field("", nodes.field_name(text="Generator"),
                                      nodes.field_body("", nodes.paragraph(
                                          "", "", nodes.literal(
                                              text=Path(src).relative_to(ROOT).as_posix()))))
            else:
                fl += nodes.field("", nodes.field_name(text="Why not"),
                                  nodes.field_body("", nodes.paragraph(text=fig.reason)))
            sec += fl
            if fig.name in GALLERY_RENDER and (GALLERY_OUT / f"{fig.name}.png").exists():
                uri = f"/gallery/generated/{fig.name}.png"
                img = nodes.image(uri=uri, alt=fig.title)
                caption = nodes.caption(text=f"{fig.title} — rendered at documentation build "
                                             "time (seed 0, PNG at reduced resolution).")
                sec += nodes.figure("", img, caption)
            elif fig.reproduced:
                sec += nodes.paragraph(text="Not rendered when this site is built (only a few "
                                            "fast figures are, to keep the build short): run "
                                            "the command above.")
            if fig.reproduced:
                sec += _plain_paragraphs(importlib.import_module(fig.module).__doc__)
            out.append(sec)
        if not figs:
            out.append(nodes.paragraph(text="No figure of this family is registered."))
        return out


# -- docstrings: plain-text math -------------------------------------------------------------------

# The docstrings write math as plain text: ||w - x||^2, |K_hat - K|, (+, -, *, /).  In
# reStructuredText ``|text|`` is a substitution reference and ``*`` opens emphasis, so before
# napoleon reads a docstring, outside inline literals, roles, literal blocks, directives and
# doctests: every ``|`` is escaped, and so is every ``*`` that could open emphasis (``*grid``,
# ``*,``) unless the line closes it (``*as given*``).
_INLINE_CODE = re.compile(r"``.+?``|(?::[\w.+:-]+:)?`[^`]+`_{0,2}")
#: well-formed emphasis or strong on one line: *word ...* or **word ...**
_STAR = re.compile(r"\*(?=\S)")   # a star followed by a space (a bullet, a product) is inert
_EMPHASIS = re.compile(r"(?<![\w\\*])(\*\*|\*)(?![\s*])(.+?)(?<![\s\\*])\1(?![\w*])")


def _escape_segment(text: str) -> str:
    text = text.replace("|", r"\|")
    out, pos = [], 0
    for m in _EMPHASIS.finditer(text):     # keep intended emphasis; escape every other star
        out.append(_STAR.sub(r"\\*", text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_STAR.sub(r"\\*", text[pos:]))
    return "".join(out)


def _escape_line(line: str) -> str:
    out, pos = [], 0
    for m in _INLINE_CODE.finditer(line):
        out.append(_escape_segment(line[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape_segment(line[pos:]))
    return "".join(out)


_BORDER = re.compile(r"^\s*=+( +=+)+\s*$")
#: a row of a two-column plain-text table: a short term, two or more spaces, its text
_ROW = re.compile(r"^(\s*)(\S(?:[^ ]| (?! ))*?)( {2,})(\S.*)$")


def _table_rows(lines, i):
    """The two-column table starting at ``lines[i]``, as (end, [(indent, term, [text...])]), or
    None: at least two rows with the same indent and text column, continuation lines indented to
    the text column."""
    rows, j, col, base = [], i, None, None
    while j < len(lines):
        line = lines[j]
        m = _ROW.match(line)
        indent = len(line) - len(line.lstrip())
        if rows and line.strip() and indent == col:              # continuation of the last row
            rows[-1][2].append(line.strip())
        elif m and len(m.group(2)) <= 24 and not m.group(2).endswith((".", ",", ":")) and \
                (col is None or (len(m.group(1)) == base and
                                 len(m.group(1)) + len(m.group(2)) + len(m.group(3)) == col)):
            base = len(m.group(1))
            col = base + len(m.group(2)) + len(m.group(3))
            rows.append((m.group(1), m.group(2), [m.group(4).strip()]))
        else:
            break
        j += 1
    if len(rows) < 2:
        return None
    return j, rows


def tables_to_definition_lists(lines: list[str]) -> list[str]:
    """Plain-text two-column tables (``name    text`` rows, as the module docstrings list their
    contents) become definition lists, which reStructuredText renders as such."""
    out, i = [], 0
    in_literal = None
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if in_literal is not None:
            if stripped and indent <= in_literal:
                in_literal = None
            else:
                out.append(line)
                i += 1
                continue
        if _BORDER.match(line):       # a reStructuredText simple table: leave it whole
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
                if i < len(lines) and not lines[i].strip() and i + 1 < len(lines) and \
                        _BORDER.match(lines[i - 1]) is None:
                    out.append(lines[i])   # a blank line inside the table
                    i += 1
            continue
        found = None if (stripped.startswith(("..", ">>>", "-", "*", ":")) or
                         (out and out[-1].rstrip().endswith("::"))) else _table_rows(lines, i)
        if found is None:
            if stripped.endswith("::"):
                in_literal = indent
            out.append(line)
            i += 1
            continue
        end, rows = found
        if out and out[-1].strip():
            out.append("")
        for ind, term, text in rows:
            out.append(f"{ind}{term}")
            out.extend(f"{ind}    {t}" for t in text)
        if end < len(lines) and lines[end].strip():
            out.append("")
        i = end
    return out


def escape_plain_math(lines: list[str]) -> list[str]:
    """``lines`` of a docstring with the plain-text math escaped (see above)."""
    out = []
    block_indent = None      # indent of the line that opened a literal block / directive
    pending = None           # a line ended with "::": the next indented block is literal
    doctest = False
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not stripped or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        if pending is not None and stripped:
            if indent > pending:
                block_indent = pending
                pending = None
                out.append(line)
                continue
            pending = None
        if doctest:
            if stripped:
                out.append(line)
                continue
            doctest = False
        if stripped.startswith(">>>"):
            doctest = True
            out.append(line)
            continue
        if stripped.startswith(".. ") and "::" in stripped:   # a directive: its body is raw
            pending = indent
            out.append(line)
            continue
        if stripped.endswith("::"):
            pending = indent
        out.append(_escape_line(line))
    return out


_RAW: dict[str, list[str]] = {}
_PROSE = re.compile(r"^[A-Z][a-z]+[ ,]")          # "Returns an array ...", "Empty X or W give ..."
_PARAM = re.compile(r"^[\w*\\]+(, *[\w*\\]+)* *:")   # "w, x : array_like", "bias : None"


def end_parameter_lists(lines: list[str]) -> list[str]:
    """Many docstrings follow their "Parameters" list with prose at the list's indent ("Returns
    an array of ...").  napoleon would read every such line as one more parameter; give the
    prose a section of its own instead: "Result" when it says what is returned, else "Notes"."""
    out = list(lines)
    i = 0
    while i + 1 < len(out):
        if out[i].strip() == "Parameters" and set(out[i + 1].strip()) == {"-"}:
            base = len(out[i]) - len(out[i].lstrip())
            j = i + 2
            while j < len(out):
                line = out[j]
                if j + 1 < len(out) and line.strip() and set(out[j + 1].strip()) == {"-"}:
                    break                                      # the next section
                if line.strip() and len(line) - len(line.lstrip()) == base and \
                        _PROSE.match(line.strip()) and not _PARAM.match(line.strip()):
                    title = "Result" if line.strip().startswith("Return") else "Notes"
                    pad = " " * base
                    out[j:j] = ["", pad + title, pad + "-" * len(title)]
                    break
                j += 1
            i = j
        i += 1
    return out



def process_docstring(app, what, name, obj, options, lines):
    """Before napoleon: escape the plain-text math, turn column tables into definition lists."""
    if what in ("data", "attribute", "property") and lines and \
            isinstance(type(obj).__doc__, str) and \
            "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__).strip():
        # a constant without a docstring of its own would show its type's (tuple's, dict's)
        lines[:] = [f"A constant of type ``{type(obj).__name__}``."]
    lines[:] = escape_plain_math(tables_to_definition_lists(end_parameter_lists(lines)))
    if what in ("data", "attribute", "property"):
        _RAW[name] = list(lines)


def restore_attribute_docstring(app, what, name, obj, options, lines):
    """After napoleon: a constant's or attribute's docstring is prose, not "type: text" (which
    napoleon reads into a first line with a colon): give it back as written."""
    if what in ("data", "attribute", "property") and name in _RAW:
        lines[:] = _RAW.pop(name)


# -- cross-references written relative to the docstring's own module -----------------------------

_DOCSTRING_OF = re.compile(r"docstring of ([\w.]+)")
#: references to objects that exist but have no page (shown as plain text; see resolve_relative)
UNLINKED: set[tuple[str, str]] = set()


def report_unlinked(app, exc):
    if UNLINKED:
        logger.info("references shown without a link (the object exists, has no page): %s",
                    ", ".join(f"{name} [{owner}]" for name, owner in sorted(UNLINKED)))


def _import_dotted(path: str):
    import importlib

    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj
    return None


def _module_exists(name: str) -> bool:
    """Whether ``name`` is a module that could be imported (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _documented_names(env) -> dict[int, str]:
    """id(object) -> the shortest name it is documented under (functions, classes, modules)."""
    cache = getattr(env, "_yatmath_documented", None)
    if cache is None:
        cache = {}
        for name, entry in env.get_domain("py").objects.items():
            if entry.objtype not in ("function", "class", "method", "module", "exception",
                                     "property"):
                continue
            obj = _import_dotted(name)
            if obj is None:
                continue
            key = id(getattr(obj, "__func__", obj))
            if key not in cache or len(name) < len(cache[key]):
                cache[key] = name
        env._yatmath_documented = cache
    return cache


def resolve_relative(app, env, node, contnode):
    """``:func:`langevin.run_langevin``` in a docstring of ``yatmath.particles.hamiltonian``
    means ``yatmath.particles.langevin.run_langevin``, documented as
    ``yatmath.particles.run_langevin``: resolve such references by importing the target
    relative to the docstring's own module and its parents, then linking the page that
    documents that object (a submodule without a page of its own links to its subpackage's).
    Anything that does not import stays unresolved, and nitpicky mode reports it."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    source, parent = None, node
    while source is None and parent is not None:
        source, parent = parent.source, parent.parent
    m = _DOCSTRING_OF.search(source or "")
    context = (m.group(1) if m else node.get("py:module") or "").split(".")
    candidates = [".".join(context[:i] + [target]) for i in range(len(context), 0, -1)]
    candidates.append(target)
    names = _documented_names(env)
    py = env.get_domain("py")
    for cand in candidates:
        obj = _import_dotted(cand)
        if obj is None:
            if _module_exists(cand):    # a module that needs an optional dependency to import
                UNLINKED.add((cand, "yatmath" if cand.startswith("yatmath") else "other"))
                return contnode
            continue
        documented = names.get(id(getattr(obj, "__func__", obj)))
        reftype = node["reftype"]
        if documented is None and inspect.ismodule(obj):
            # a module re-exported whole by its subpackage: link the subpackage's page
            parent = cand
            while documented is None and "." in parent:
                parent = parent.rsplit(".", 1)[0]
                documented = names.get(id(_import_dotted(parent)))
        if documented is None:
            # it exists, but has no page: another library's object (no intersphinx offline), or
            # a yatmath helper outside the documented API.  Plain text, listed at the end.
            owner = getattr(obj, "__module__", None) or type(obj).__module__
            UNLINKED.add((cand, "yatmath" if owner.startswith("yatmath") else owner.split(".")[0]))
            return contnode
        newnode = node.deepcopy()
        newnode["reftarget"] = documented
        newnode["refspecific"] = False
        for role in (reftype, "obj"):
            found = py.resolve_xref(env, node.get("refdoc", ""), app.builder, role, documented,
                                    newnode, contnode)
            if found is not None:
                return found
        return None
    return None


# -- signatures: type aliases, NDArray, dataclasses ----------------------------------------------

#: how autodoc writes an alias of ``autodoc_type_aliases`` nested in another annotation
#: (``Array | None``, ``Sequence[npt.ArrayLike]``): the repr of its stand-in
_ALIAS_REPR = re.compile(r"TypeAliasForwardRef\('([\w.]+)'\)")
#: an alias written with its module: shown by its own name, as every other annotation is
_ALIAS_NAME = re.compile(r"(?<![\w.~])((?:numpy\.typing|yatmath\._typing)\.\w+)")
#: ``Callable[..., X]`` as autodoc writes it: Callable[[...], X]
_CALLABLE_ANY = re.compile(r"(Callable)\[\[\.\.\.\], ")
#: ``npt.NDArray[X]`` as autodoc evaluates it: ndarray[tuple[Any, ...], dtype[X]]
_NDARRAY = re.compile(r"~numpy\.ndarray\[tuple\[~typing\.Any, \.\.\.\], "
                      r"~numpy\.dtype\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\]")


def tidy_annotation(text: str) -> str:
    """A signature or annotation as autodoc wrote it, with the type aliases by their names
    (``ArrayLike``, ``Array``: conf.py, ``autodoc_type_aliases``), ``NDArray[X]`` for NumPy's
    alias of ``ndarray[tuple[Any, ...], dtype[X]]`` and ``Callable[..., X]`` as written."""
    text = _ALIAS_REPR.sub(r"\1", text)
    text = _CALLABLE_ANY.sub(r"\1[..., ", text)
    text = _NDARRAY.sub(r"~numpy.typing.NDArray[\1]", text)
    return _ALIAS_NAME.sub(r"~\1", text)


class _Factory:
    """A dataclass field's ``default_factory`` as a default value in a signature: ``list()``
    (Python shows ``<factory>``, which the signature parser cannot read, so that the whole
    signature would lose its cross-references)."""

    def __init__(self, factory) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        name = getattr(self.factory, "__qualname__", "")
        return f"{name}()" if re.fullmatch(r"[\w.]+", name) else "..."


def dataclass_signature(app, cls) -> str:
    """The signature of a dataclass: its ``__init__``'s, evaluated as autodoc evaluates any
    other (a dataclass without a docstring would otherwise show the one ``dataclasses`` writes
    as its docstring, whose annotations are unevaluated strings), factories as calls."""
    from sphinx.util.inspect import signature as evaluated_signature
    from sphinx.util.inspect import stringify_signature

    sig = evaluated_signature(cls.__init__, bound_method=True,
                              type_aliases=app.config.autodoc_type_aliases)
    factories = {f.name: f.default_factory for f in dataclasses.fields(cls)
                 if f.default_factory is not dataclasses.MISSING}
    sig = sig.replace(parameters=[
        p.replace(default=_Factory(factories[p.name])) if p.name in factories else p
        for p in sig.parameters.values()])
    return stringify_signature(
        sig, show_return_annotation=False,
        unqualified_typehints=app.config.autodoc_typehints_format == "short")


def process_signature(app, what, name, obj, options, signature, return_annotation):
    """Every signature through ``tidy_annotation``; a dataclass's from ``dataclass_signature``."""
    if what in ("class", "exception") and inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        signature = dataclass_signature(app, obj)
    if signature is None and return_annotation is None:
        return None
    return (None if signature is None else tidy_annotation(signature),
            None if return_annotation is None else tidy_annotation(return_annotation))


# -- MathJax ---------------------------------------------------------------------------------------

def offline_mathjax(app, config) -> None:
    # sphinx-mathjax-offline copies MathJax 3 into _static/mathjax and points at its CHTML
    # bundle, whose web fonts a browser may refuse to load from file://; the SVG bundle carries
    # its glyphs in the script and every TeX package (no lazy loading).
    config.mathjax_path = "mathjax/tex-svg-full.js"


def setup(app):
    app.connect("config-inited", offline_mathjax)
    app.connect("autodoc-process-docstring", process_docstring, priority=400)  # before napoleon
    app.connect("autodoc-process-docstring", restore_attribute_docstring, priority=600)
    app.connect("autodoc-process-signature", process_signature)
    app.connect("missing-reference", resolve_relative)
    app.connect("build-finished", report_unlinked)
    app.connect("builder-inited", build_notebooks)
    app.connect("builder-inited", render_gallery)
    app.add_directive("yatmath-figures", FiguresDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
