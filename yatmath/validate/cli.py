"""``yatmath validate TARGET``: the command-line front of ``yatmath.validate``.

Exit codes: 0 every applicable check passed, 1 the target fails its bound, 2 bad arguments
(argparse's convention).  Progress lines go to stderr; the table goes to stdout; the reports
(report.json, report.md, error_vs_condition.png) to ``--out``.
"""
from __future__ import annotations

import argparse
import json
import sys

from .adapters import FRAMEWORKS, KINDS

#: Named groups of targets: yatmath's own implementations, and nmn's PyTorch layer and attention.
GROUPS = {
    "yatmath": [("yatmath.yat:product", {}), ("yatmath.yat:gram", {}),
                ("yatmath.yat.layer:layer_forward", {}),
                ("yatmath.yat.attention:attention", {}),
                ("yatmath.yat.linear_attention:linear_attention", {}),
                ("yatmath.features:yat_features", {})],
    "nmn": [("nmn.torch.nmn:YatNMN", {}), ("nmn.torch.attention:yat_attention", {}),
            ("nmn.torch.attention:maclaurin_features", {})],
}


def _option(text):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set needs key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def add_parser(sub):
    p = sub.add_parser(
        "validate", help="certify a Yat implementation (product, Gram, layer, attention, "
                         "features) against yatmath's accuracy harness",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", help="package.module:callable, or a group: "
                                  + ", ".join(GROUPS) + " (all of its targets)")
    p.add_argument("--kind", choices=KINDS, help="what the target is (known targets: preset)")
    p.add_argument("--framework", choices=FRAMEWORKS,
                   help="array library fed to the target (default: the preset, else numpy)")
    p.add_argument("--dtype", action="append", choices=("float32", "float64", "bfloat16"),
                   help="repeatable; default float32 and float64")
    p.add_argument("--out", default=None, help="folder for report.json, report.md and the plot")
    p.add_argument("--quick", action="store_true", help="a third of the inputs (a smoke run)")
    p.add_argument("--bias", choices=("inner", "outer", "none"),
                   help="where the target puts the bias (inside the square or added to K)")
    p.add_argument("--set", dest="options", action="append", type=_option, default=[],
                   metavar="KEY=VALUE", help="adapter setting (JSON value), e.g. scale=1.0, "
                   "layout=bqhd, eps_arg=epsilon, score_scale=rsqrt_d, budget=0.1")
    p.set_defaults(func=run)
    return p


def run(args) -> int:

    opts = dict(args.options)
    if args.bias:
        opts["bias"] = args.bias
    dtypes = tuple(args.dtype) if args.dtype else ("float32", "float64")
    targets = GROUPS.get(args.target, [(args.target, {})])
    if args.out is not None:  # before any work: a report that cannot be written is a usage error
        from ..cli_args import UsageError, writable_dir

        try:
            writable_dir(args.out, "--out")
        except UsageError as exc:
            print(f"yatmath validate: error: {exc}", file=sys.stderr)
            return 2
    try:
        return _run_targets(args, targets, opts, dtypes)
    except KeyboardInterrupt:
        print("yatmath validate: interrupted; reports written so far are complete", file=sys.stderr)
        return 130


def _run_targets(args, targets, opts, dtypes) -> int:
    from .api import validate

    failed = False
    for i, (target, extra) in enumerate(targets):
        try:
            rep = validate(target, kind=args.kind if len(targets) == 1 else None,
                           framework=args.framework if len(targets) == 1 else None,
                           dtypes=dtypes, quick=args.quick, progress=True, **extra, **opts)
        except (ValueError, TypeError) as exc:
            print(f"yatmath validate: error: {exc}", file=sys.stderr)
            return 2
        print(f"\n## {target} ({rep.kind}, {rep.framework}): {'PASS' if rep.passed else 'FAIL'}\n")
        print(rep.table())
        if args.out:
            from pathlib import Path

            folder = Path(args.out) / (target.replace(":", ".") if len(targets) > 1 else "")
            for path in rep.write(folder):
                print(f"wrote {path}", file=sys.stderr)
        failed |= not rep.passed
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="yatmath")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)
