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
