"""``python -m yatmath``: the ``yatmath`` command (``yatmath.cli.main``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
