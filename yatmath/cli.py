"""The ``yatmath`` command: info, bench, check, figures, report, validate.

Exit codes are those of :mod:`yatmath.cli_args`."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _backend_table_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The text of ``yatmath info --backends``: one line per registry row, every column as wide
    as its longest entry (header included), so that long operation names stay aligned."""
    cols = [("operation", "op", "<"), ("backend", "backend", "<"), ("arrays", "libraries", "<"),
            ("dtypes", "dtypes", "<"), ("device", "device", "<"), ("auto from", "min_size", ">")]
    cells = [[str(r[key]) for _, key, _ in cols] for r in rows]
    widths = [max([len(head)] + [len(c[i]) for c in cells]) for i, (head, _, _) in enumerate(cols)]

    def line(values, note):
        return " ".join(f"{v:{align}{w}}" for v, w, (_, _, align) in zip(values, widths, cols)) + "  " + note

    out = [line([head for head, _, _ in cols], "note").rstrip()]
    for r, c in zip(rows, cells):
        flag = "" if r["available"] else " (not available here)"
        out.append(line(c, f"{r['note']}{flag}").rstrip())
    return out


def _cmd_info(args: argparse.Namespace) -> int:
    from . import __version__, _platform
    # every subpackage registers its backend rows when imported (the registry imports none)
    from . import estimators, features, itnet, particles, yat  # noqa: F401

    info = _platform.info()
    info["yatmath"] = __version__
    if args.json and getattr(args, "backends", False):
        from ._registry import table

        info["registry"] = table()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    import platform

    import scipy

    print(f"yatmath {__version__}")
    print(f"python  {platform.python_version()}")
    print(f"numpy   {info['numpy']}")
    print(f"scipy   {scipy.__version__}")
    print(f"numba   {info['numba'] or 'not installed'}"
          + (f" ({info['numba_threads']} threads)" if info["numba"] else ""))
    print(f"cupy    {info['cupy'] or 'not installed'}")
    print(f"device  {info['cuda_device'] or 'no CUDA device'}")
    env = info["threads"]["env"]   # read, never set by yatmath
    print("threads " + ", ".join(f"{k}={env[k] or 'unset'}" for k in
                                 ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT", "OMP_NUM_THREADS",
                                  "NUMBA_NUM_THREADS")))
    backends = ["reference"] + (["numba"] if info["numba"] else []) + (["cupy"] if info["cuda_device"] else [])
    print(f"backends available: {', '.join(backends)}")
    if args.backends:
        from ._registry import table

        rows = table()
        print()
        for line in _backend_table_lines(rows):
            print(line)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    """``yatmath bench yat|gpu``: 0 when every target is met, 1 when one is missed (the table
    says which), 3 without the device ``gpu`` needs, 130 on Ctrl-C (the child processes that
    measure memory included: they are stopped, and no traceback is printed)."""
    from .cli_args import EXIT_INTERRUPTED

    #: what a shell reports for a writer killed by SIGPIPE (128 + 13); nothing is printed
    EXIT_BROKEN_PIPE = 141

    try:
        if args.what == "yat":
            from .bench import yat as bench_yat

            return bench_yat.main(quick=args.quick)
        from .bench import gpu as bench_gpu

        return bench_gpu.main(quick=args.quick)
    except KeyboardInterrupt:
        sys.stdout.flush()
        print(f"\nyatmath bench: interrupted; the {args.what} benchmark did not finish",
              file=sys.stderr)
        return EXIT_INTERRUPTED


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = argparse.ArgumentParser(prog="yatmath", description=__doc__)
    p.add_argument("--version", action="version", version=f"yatmath {__version__}")
    sub = p.add_subparsers(dest="command")

    pi = sub.add_parser("info", help="version, backends, threads, CUDA device")
    pi.add_argument("--json", action="store_true", help="print as JSON")
    pi.add_argument("--backends", action="store_true",
                    help="also print the backend registry: every operation's implementations")
    pi.set_defaults(func=_cmd_info)

    pb = sub.add_parser("bench", help="benchmarks that print ratios against baselines")
    pb.add_argument("what", choices=["yat", "gpu"])
    pb.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    pb.set_defaults(func=_cmd_bench)

    from proofs_check.cli import add_parser as add_check
    from proofs_check.figures.cli import add_parser as add_figures
    from proofs_check.site.cli import add_parser as add_report

    from .validate.cli import add_parser as add_validate

    add_check(sub)
    add_figures(sub)
    add_report(sub)
    add_validate(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    from .cli_args import EXIT_INTERRUPTED

    #: what a shell reports for a writer killed by SIGPIPE (128 + 13); nothing is printed
    EXIT_BROKEN_PIPE = 141

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:   # bare ``yatmath``: what it can do, not an error
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:   # a command that does not say more itself: no traceback
        print(f"yatmath {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:     # the reader went away (``yatmath check --list | head``)
        # Python would print another error flushing stdout at exit: point it at /dev/null
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
