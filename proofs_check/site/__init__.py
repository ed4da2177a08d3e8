"""The ledger and the figures as a static site (``yatmath report``; ``yatmath check --html``).

``build_site(ledger_dir, out_dir=None, figures_dir=None)`` writes the site (see
:mod:`proofs_check.site.site`); :mod:`proofs_check.site.passages` finds the passages a claim cites in
the shipped paper texts.
"""
from .site import SiteError, build_site

__all__ = ["SiteError", "build_site"]
