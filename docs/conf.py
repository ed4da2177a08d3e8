"""Sphinx configuration of the yatmath documentation.

Build (from the repository root; zero warnings allowed, cross-references checked with -n):

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html
    python docs/check_links.py docs/_build/html

The site opens from disk (file://): MathJax is shipped with the pages (sphinx-mathjax-offline,
SVG output so that no web font has to load), and the theme bundles its own assets.
What is generated at build time (never committed; see .gitignore):

- ``docs/api/generated/``: one autosummary page per public module, function and class, from each
  subpackage's ``__all__``;
- ``docs/notebooks/generated/``: the jupytext notebooks (``notebooks/*.py``) as MyST pages,
  not executed;
- ``docs/gallery/generated/``: the PNGs of a few fast figures (``yatmath_docs.GALLERY_RENDER``).
"""
from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# ``proofs_check`` (its figures too) is importable from the repository root (and installed too);
# the local extension lives in docs/_ext.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

# Read-only environment hygiene: figures render with the Agg backend, without a display.
os.environ.setdefault("MPLBACKEND", "Agg")

project = "yatmath"
author = "yatmath developers"
copyright = "yatmath developers (MIT licence)"
release = metadata.version("yatmath")
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
    "sphinx_copybutton",        # a copy button on every command and code block
    "sphinx-mathjax-offline",   # ships MathJax 3 into _static/mathjax (no CDN)
    "yatmath_docs",             # docs/_ext: gallery, notebooks, API lists, offline MathJax path
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
default_role = "literal"          # `x` in a docstring is code, never a broken reference

# -- autodoc / autosummary ------------------------------------------------------------------------
autosummary_generate = True
autosummary_ignore_module_all = False     # members of a subpackage page = its __all__
autosummary_imported_members = False   # modules without __all__: what they define
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
add_module_names = False
python_use_unqualified_type_names = True

# -- type aliases in signatures -------------------------------------------------------------------
# The annotations are strings (``from __future__ import annotations``) that autodoc evaluates;
# an alias would be shown as what it stands for: ``Array`` as ``Any``, ``npt.ArrayLike`` as a
# union of seven private NumPy protocols.  These keep their names (keys: as the source writes
# them) and link to their definitions: yatmath's aliases are documented in api/conventions.rst,
# NumPy's have no page offline.  ``npt.NDArray[X]`` cannot be an alias here (autodoc's stand-in
# cannot be subscripted): docs/_ext/yatmath_docs.py (tidy_annotation) writes its evaluated form
# ``ndarray[tuple[Any, ...], dtype[X]]`` back as ``NDArray[X]``.
autodoc_type_aliases = {
    "Array": "yatmath._typing.Array",
    "Namespace": "yatmath._typing.Namespace",
    "RNGLike": "yatmath._typing.RNGLike",
    "npt.ArrayLike": "numpy.typing.ArrayLike",
    "npt.DTypeLike": "numpy.typing.DTypeLike",
}
# With "npt.ArrayLike" among the aliases, autodoc evaluates every ``npt.<name>`` by importing a
# module named ``npt``: the conventional alias of numpy.typing, registered under that name for
# the build (else every signature that also names ``npt.NDArray`` would fall back to its
# unevaluated strings).
import numpy.typing  # noqa: E402

sys.modules.setdefault("npt", numpy.typing)

# -- napoleon: the code's numpy-style "Parameters / Returns" sections -----------------------------
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_param = False
napoleon_use_ivar = True
napoleon_preprocess_types = False
# "Result": prose after a Parameters list that says what is returned (docs/_ext/yatmath_docs.py,
# end_parameter_lists), rendered as written under that heading
napoleon_custom_sections = ["Result"]

# -- copy buttons: leave prompts and output out of what is copied ----------------------------------
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_exclude = ".linenos, .gp, .go"

# -- MyST (README sections, guides, notebooks) ----------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True   # $$...$$ inside a paragraph, as Jupyter renders the notebooks

# -- math: MathJax 3 from _static (SVG output: no web fonts, so it works from file://) -----------
mathjax3_config = {"tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]}}

# -- HTML -----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"yatmath {release}"
html_static_path = ["_static"]
html_css_files = ["yatmath.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_show_sourcelink = True
html_last_updated_fmt = None

# -- cross-references: nitpicky (-n) checks every internal reference --------------------------------
# There is no network at build time, so no intersphinx: names of other libraries that appear in
# signatures (numpy, typing, ...) cannot resolve and are ignored by name.  Every yatmath reference
# must resolve.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|typing|collections|matplotlib|mpmath|sympy|torch|jax|cupy|dask"
               r"|array_api_compat|pathlib|os|concurrent|fractions)(\..*)?"),
    (r"py:class", r"(Callable|Iterable|Iterator|Sequence|Mapping|Any|Path|ArrayLike|NDArray)"),
]

# -- the API pages: one per public subpackage, members from __all__ --------------------------------
#: (module, what it is) in the order of the API reference.
API_MODULES = [
    ("yatmath.yat", "the Yat kernel and its layers"),
    ("yatmath.features", "random-feature maps"),
    ("yatmath.estimators", "Monte Carlo, QMC and low-rank estimators"),
    ("yatmath.itnet", "the ITNet integral-transform operator"),
    ("yatmath.particles", "particles and the McKean-Vlasov limit"),
    ("yatmath.testing", "the accuracy harness"),
    ("yatmath.validate", "certify a Yat implementation"),
]


#: Public submodules that a subpackage's docstring names as part of its API, documented on the
#: subpackage's page (their members: ``__all__``, else the public names they define).
SUBMODULES = {
    "yatmath.yat": ["yatmath.yat.simplex"],
    "yatmath.itnet": ["yatmath.itnet.dense", "yatmath.itnet.tiled", "yatmath.itnet.mc",
                      "yatmath.itnet.lowrank", "yatmath.itnet.special.conv",
                      "yatmath.itnet.special.attention", "yatmath.itnet.special.recurrent"],
}



def _add_exported_submodules() -> None:
    """A submodule that a subpackage exports in its ``__all__`` is documented like the others."""
    import importlib
    import inspect

    for name, _what in API_MODULES:
        mod = importlib.import_module(name)
        for n in getattr(mod, "__all__", []):
            sub = getattr(mod, n, None)
            if inspect.ismodule(sub) and sub.__name__ not in SUBMODULES.setdefault(name, []):
                SUBMODULES[name].append(sub.__name__)


_add_exported_submodules()


def _return_types() -> dict[str, list[str]]:
    """Per API module, the yatmath classes that its public functions and methods name in their
    signatures (``-> LayerGrads``) without any API module exporting them: documented on the
    module's page, so that every name in a signature links somewhere."""
    import importlib
    import inspect
    import re

    modules = [m for m, _w in API_MODULES] + [m for ms in SUBMODULES.values() for m in ms]
    public = set()
    for name in modules:
        mod = importlib.import_module(name)
        public |= {id(getattr(mod, n)) for n in getattr(mod, "__all__", dir(mod))
                   if hasattr(mod, n)}
    out: dict[str, list[str]] = {}
    for name in modules:
        mod = importlib.import_module(name)
        found = []
        for n in getattr(mod, "__all__", [k for k in vars(mod) if not k.startswith("_")]):
            obj = getattr(mod, n, None)
            funcs = [obj] if inspect.isroutine(obj) else (
                [v for k, v in vars(obj).items() if inspect.isfunction(v) and
                 (not k.startswith("_") or k == "__init__")] if inspect.isclass(obj) else [])
            for f in funcs:
                try:
                    sig = inspect.signature(f)
                except (TypeError, ValueError):
                    continue
                texts = [str(p.annotation) for p in sig.parameters.values()]
                texts.append(str(sig.return_annotation))
                for ident in re.findall(r"[A-Za-z_][\w.]*", " ".join(texts)):
                    cls = getattr(f, "__globals__", {}).get(ident)
                    if inspect.isclass(cls) and cls.__module__.startswith("yatmath.") and \
                            id(cls) not in public:
                        full = f"{cls.__module__}.{cls.__qualname__}"
                        if full.startswith(name + ".") and full not in found:
                            found.append(full)
        if found:
            out[name] = sorted(found)
    return out


RETURN_TYPES = _return_types()


def _public_data() -> dict[str, list[str]]:
    """Per API module, the names in its ``__all__`` that are neither functions nor classes."""
    import ast
    import importlib
    import inspect

    out = {}
    for name in [m for m, _w in API_MODULES] + [m for ms in SUBMODULES.values() for m in ms]:
        mod = importlib.import_module(name)
        names = getattr(mod, "__all__", None)
        if names is None:   # no __all__: the public constants the module assigns itself
            tree = ast.parse(Path(inspect.getsourcefile(mod)).read_text(encoding="utf-8"))
            names = [t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                     for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(t, ast.Name) and t.id.isupper() and not t.id.startswith("_")]
        out[name] = [n for n in names
                     if not (inspect.isroutine(getattr(mod, n)) or inspect.isclass(getattr(mod, n))
                             or inspect.ismodule(getattr(mod, n)))]
    return out


def _long_values(public_data: dict[str, list[str]], limit: int = 300) -> list[str]:
    """Constants whose repr is too long for a signature line (their pages omit the value)."""
    import importlib

    return [f"{m}.{n}" for m, names in public_data.items() for n in names
            if len(repr(getattr(importlib.import_module(m), n))) > limit]


_PUBLIC_DATA = _public_data()
autosummary_context = {"public_data": _PUBLIC_DATA, "submodules": SUBMODULES,
                       "return_types": RETURN_TYPES, "long_values": _long_values(_PUBLIC_DATA)}
# Names that differ only in case (yatmath.testing.Exact and yatmath.testing.exact) would share a
# file on case-insensitive file systems.
autosummary_filename_map = {"yatmath.testing.Exact": "yatmath.testing.Exact-class"}
