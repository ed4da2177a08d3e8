"""The installed distribution carries what the code reads at run time.

``python -m pytest`` puts the repository on sys.path, so the other tests import the source tree;
this test looks at what ``pip install .`` actually installed.
"""
from importlib import metadata
from pathlib import Path

import proofs_check.catalogue as catalogue

from proofs_check.papers import DIR as PAPERS

DATA_FILES = ["proofs_check/claims.md"] + [f"proofs_check/papers/{p.name}" for p in sorted(PAPERS.glob("*.txt"))]


def test_installed_distribution_includes_data_files():
    dist = metadata.distribution("yatmath")
    installed = {str(f).replace("\\", "/") for f in dist.files or []}
    if "proofs_check/catalogue.py" in installed:       # a regular install: files were copied
        missing = [f for f in DATA_FILES if f not in installed]
    else:                                              # an editable install serves the source tree
        root = Path(catalogue.__file__).resolve().parents[1]
        missing = [f for f in DATA_FILES if not (root / f).is_file()]
    assert not missing, f"not installed: {missing} (add them to [tool.setuptools.package-data])"


def test_five_papers_are_shipped():
    assert len(DATA_FILES) == 1 + 5


def test_catalogue_reads_the_shipped_copy():
    assert catalogue.CATALOGUE.is_file()
    assert len(catalogue.entries()) > 100


def test_figures_are_installed_inside_the_ledger_package():
    """The figure generators are ``proofs_check.figures`` (a namespace the project owns): the
    distribution installs no top-level ``figures`` package."""
    import importlib.util

    import proofs_check.figures.registry as figreg

    dist = metadata.distribution("yatmath")
    installed = {str(f).replace("\\", "/") for f in dist.files or []}
    if "proofs_check/catalogue.py" in installed:       # a regular install: files were copied
        assert {"proofs_check/figures/__init__.py", "proofs_check/figures/registry.py",
                "proofs_check/figures/render.py", "proofs_check/figures/cli.py"} <= installed
        assert not [f for f in installed if f.split("/")[0] == "figures"]
        top_level = (dist.read_text("top_level.txt") or "").split()
        assert "figures" not in top_level
    else:                                              # an editable install serves the source tree
        root = Path(catalogue.__file__).resolve().parents[1]
        assert (root / "proofs_check" / "figures" / "__init__.py").is_file()
        assert not (root / "figures").exists()
    assert importlib.util.find_spec("figures") is None
    assert figreg.load_all()                           # every generator imports from its new home
