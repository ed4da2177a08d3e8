"""``yatmath validate TARGET``: the command-line front of ``yatmath.validate``.

Exit statuses: 0 every applicable check passed; 1 the work ran and the target failed (a bound
not met, or the target raised, called sys.exit, hung past --timeout, returned the wrong shape or
type, complex or NaN results, or wrote into its inputs: a line "FAIL suite dtype: ..." names
it); 2 a usage error found before any work, one line naming the fix (bad options or --set
settings, a target that cannot be imported or has no such attribute -- with the closest names --,
a kind not known for the target, a target that does not take the calls of its kind -- e.g.
"pass --bias none if the target has no bias" --, a factory from a module not allowed); 3 the
machine lacks what the command needs (--framework torch/jax not installed).  A suite that
cannot judge the target (gradients of a NumPy target, or of one autodiff cannot follow) is "not
applicable" with its reason and changes no exit status.  Progress lines go to stderr; the
table, its legend (what each column means, with units) and the FAIL lines go to stdout; the
reports (report.json, strict JSON; report.md; error_vs_condition.png) to ``--out``, always, also
when a suite failed.

Every call of the target runs in a child process under a per-call time limit (--timeout, default
60 s): a call that outlives it is killed and its suite fails.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .adapters import FRAMEWORKS, KINDS, FrameworkUnavailable

if TYPE_CHECKING:   # annotations only: the session is imported when a command runs
    from .report import Report
    from .session import Plan

#: Named groups of targets: yatmath's own implementations, and nmn's PyTorch layer and attention.
GROUPS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "yatmath": [("yatmath.yat:product", {}), ("yatmath.yat:gram", {}),
                ("yatmath.yat.layer:layer_forward", {}),
                ("yatmath.yat.attention:attention", {}),
                ("yatmath.yat.linear_attention:linear_attention", {}),
                ("yatmath.features:yat_features", {})],
    "nmn": [("nmn.torch.nmn:YatNMN", {}), ("nmn.torch.attention:yat_attention", {}),
            ("nmn.torch.attention:maclaurin_features", {})],
}


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set needs key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:   # a bare word: the string itself (layout=bqhd)
        return key, value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--timeout must be a number of seconds > 0, got "
                                         f"{text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"--timeout must be a number of seconds > 0, got "
                                         f"{text!r}")
    return value


def _module(text: str) -> str:
    if not all(p.isidentifier() for p in text.split(".")):
        raise argparse.ArgumentTypeError(f"--allow must name a module (package.module), got "
                                         f"{text!r}")
    return text


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
                   metavar="KEY=VALUE", help="adapter setting of the target's kind (JSON value), "
                   "e.g. scale=1.0, layout=bqhd, eps_arg=epsilon, score_scale=rsqrt_d, "
                   "budget=0.1; unknown keys are refused")
    p.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS",
                   help="time limit of each call of the target (default 60): a call that "
                        "outlives it is stopped and its suite fails")
    p.add_argument("--allow", action="append", type=_module, default=[], metavar="MODULE",
                   help="repeatable: a module (and its submodules) whose callables --set "
                        "factory= may name, besides the target's own module")
    p.set_defaults(func=run)
    return p


def _error(msg: object, status: int) -> int:
    print(f"yatmath validate: error: {msg}", file=sys.stderr)
    return status


def run(args: argparse.Namespace) -> int:
    from .session import PreflightError, make_plan

    opts, names = {}, {}
    for key, value in args.options:
        if key in opts:
            return _error(f"--set {key} is given twice", 2)
        opts[key] = value
    if args.bias:
        if "bias" in opts:
            return _error("--bias and --set bias are both given", 2)
        opts["bias"] = args.bias
        names["bias"] = "--bias"
    dtypes = tuple(args.dtype) if args.dtype else ("float32", "float64")
    group = args.target in GROUPS
    if group:
        for flag, value in (("--kind", args.kind), ("--framework", args.framework)):
            if value is not None:
                return _error(f"{flag} does not apply to the group {args.target!r}: each of its "
                              f"targets has its own (name one target to set it)", 2)
    targets = GROUPS.get(args.target, [(args.target, {})])
    if args.out is not None:  # before any work: a report that cannot be written is a usage error
        from ..cli_args import UsageError, writable_dir

        try:
            writable_dir(args.out, "--out")
        except UsageError as exc:
            return _error(exc, 2)
    try:
        plans = []
        for target, extra in targets:
            mine = opts
            if group:   # a group's settings go to the targets whose kind reads them
                from .adapters import SETTINGS, preset

                kind = preset(target).get("kind")
                mine = {k: v for k, v in opts.items()
                        if k not in SETTINGS or kind in SETTINGS[k][0]}
            plans.append(make_plan(target, kind=None if group else args.kind,
                                   framework=None if group else args.framework, dtypes=dtypes,
                                   quick=args.quick, allow=tuple(args.allow),
                                   options={**extra, **mine}, prefix="--set ", names=names))
        if group:
            used = {k for p in plans for k in p.options}
            unused = sorted(set(opts) - used)
            if unused:
                return _error(f"--set {unused[0]} is a setting of none of the targets of group "
                              f"{args.target!r}", 2)
    except FrameworkUnavailable as exc:
        return _error(exc, 3)
    except (ValueError, TypeError) as exc:
        return _error(exc, 2)
    try:
        return _run_plans(args, plans, group)
    except PreflightError as exc:
        return _error(exc.error, 3 if isinstance(exc.error, FrameworkUnavailable) else 2)
    except KeyboardInterrupt:
        print("yatmath validate: interrupted; reports written so far are complete", file=sys.stderr)
        return 130


def _run_plans(args: argparse.Namespace, plans: list[Plan], group: bool) -> int:
    from .session import run_plans

    failed = []

    def emit(i: int, rep: Report) -> None:
        target = plans[i].name
        print(f"\n## {target} ({rep.kind}, {rep.framework}): {'PASS' if rep.passed else 'FAIL'}\n")
        print(rep.table())
        if rep.results:
            print("\nColumns:")
            for line in rep.legend():
                print(line)
        lines = rep.failures()
        if lines:
            print()
            for line in lines:
                print(line)
        sys.stdout.flush()
        if args.out:
            from pathlib import Path

            folder = Path(args.out) / (target.replace(":", ".") if group else "")
            for path in rep.write(folder):
                print(f"wrote {path}", file=sys.stderr)
        if not rep.passed:
            failed.append(target)

    run_plans(plans, timeout=args.timeout, progress=True, on_report=emit,
              timeout_name="--timeout")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="yatmath")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)
