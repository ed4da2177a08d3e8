"""``yatmath report``: the ledger (and the figures) as a static site that opens from disk.

    yatmath report LEDGER_DIR [--figures DIR] [--out DIR]

LEDGER_DIR is the ``--out`` folder of ``yatmath check`` (ledger.json, ledger.meta.json, plots/);
``--figures`` the ``--out`` folder of ``yatmath figures`` (PNG, PDF and JSON sidecar per figure);
``--out`` the site folder (default LEDGER_DIR/site), replaced as a whole when the new site is
complete.  Open OUT/index.html in a browser.  ``yatmath check --html`` builds OUT/site after
writing the ledger.

Exit status: 0 when the site was written; 2 for a usage error (a missing ledger folder or
ledger.json, a ledger record, ledger.meta.json or figure sidecar with a field of the wrong type --
the message names the file and the field --, a figures folder that is not a folder, an --out that
is a file, holds something other than a site, or cannot be written); 130 when interrupted (the
previous site, or none, is left).

Commands the site offers to copy are shell-quoted (``shlex``); a reproduction the repro validator
(``proofs_check.repro.validate``) refuses is shown to read, without a Copy button.
"""
from __future__ import annotations

import argparse
import sys
import time

from yatmath.cli_args import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``report`` subcommand to an ``argparse`` subparsers object."""
    p = sub.add_parser("report", help="the ledger and figures as a static site (HTML, opens from disk)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ledger_dir", metavar="LEDGER_DIR",
                   help="the folder `yatmath check --out` wrote (holds ledger.json)")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="the folder `yatmath figures --out` wrote, for the gallery")
    p.add_argument("--out", metavar="DIR", default=None, help="site folder (default LEDGER_DIR/site)")
    p.set_defaults(func=cmd_report)
    return p


def _err(msg: str):
    print(f"yatmath report: {msg}", file=sys.stderr)


def cmd_report(args) -> int:
    from .site import SiteError, build_site

    t0 = time.perf_counter()
    try:
        out = build_site(args.ledger_dir, args.out, args.figures)
    except SiteError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted; the previous site (or none) is left as it was")
        return EXIT_INTERRUPTED
    print(f"wrote {out}/index.html ({time.perf_counter() - t0:.1f} s)")
    return EXIT_OK


def site_after_check(ledger_dir) -> bool:
    """``yatmath check --html``: build LEDGER_DIR/site; True when written (errors are printed)."""
    from .site import SiteError, build_site

    try:
        out = build_site(ledger_dir)
    except (SiteError, OSError) as exc:
        print(f"yatmath check: --html: {exc}", file=sys.stderr)
        return False
    print(f"wrote {out}/index.html")
    return True
