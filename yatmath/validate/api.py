"""``validate(target, kind=..., framework=..., dtypes=...) -> Report``: certify a Yat implementation.

The suites (``suites``) per kind:

product, gram, layer   accuracy (every harness block inside the condition-aware bound, with the
                       layer's width scale and bias placement), gram (symmetry, PSD),
                       gradients (autograd / jax.grad against the closed form; torch and jax)
attention              parity with ``yatmath.yat.attention`` at the target's settings
linear_attention       readout parity with the quadratic form of the same features, and the
                       attention error against the budget
features               unbiasedness with confidence intervals, attention error against budget
product, gram, layer,  properties: the Yat-kernel properties of ``yatmath.testing.properties``
attention              that apply (symmetry, PSD, self-regulation limit, Lipschitz bound;
                       attention rows summing to 1), each at its own tolerance

A suite that cannot judge the target (the gradients of a NumPy target, or of a PyTorch/JAX
target whose output autodiff cannot follow) is "not applicable" with its reason: neither a PASS
nor a FAIL.  ``Report.legend()`` / ``Report.columns()`` define the table's columns.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy.typing as npt

from .report import Report
from .session import DEFAULT_DTYPES, PreflightError, make_plan, run_plans

__all__ = ["DEFAULT_DTYPES", "validate"]


def validate(target: object, kind: str | None = None, framework: str | None = None,
             dtypes: str | Iterable[npt.DTypeLike] = DEFAULT_DTYPES, *,
             quick: bool = False, progress: bool | Callable[[str], object] | None = None,
             timeout: float | None = None, allow: str | Iterable[str] = (),
             **options: Any) -> Report:
    """Run the suites of ``kind`` on ``target`` and return a ``Report``.

    Parameters
    ----------
    target : "package.module:callable" or the object itself (callable, layer object or class)
    kind : one of ``adapters.KINDS``; taken from the target's preset when known
    framework : "numpy", "torch" or "jax" (arrays are handed over through DLPack)
    dtypes : dtype names among "float32", "float64", "bfloat16" (torch/jax only)
    quick : a third of the harness blocks and fewer replicates
    progress : None (silent), True (lines on stderr) or a callable(str)
    timeout : None (no limit: everything runs in this process), or seconds > 0 that each call
        of the target (its import included) may take: the target then runs in a child process
        that is killed when a call outlives the limit (``session``'s docstring)
    allow : modules (besides the target's own) whose callables a string ``factory`` may name
    options : adapter settings (``adapters.SETTINGS``; those of ``kind`` only: bias=
        "inner"|"outer"|"none", scale=..., layout=..., eps_arg=..., mask_arg=..., score_scale=...,
        normalize=..., factory=..., budget=..., ...); they override the target's preset.

    Whatever the target does (raise, call ``sys.exit``, return the wrong shape or type, complex
    or NaN results, write into its inputs, hang past ``timeout``) is a failed suite of the
    report, naming it (``Report.failures()``); suites already run keep their verdicts.  A bad
    argument, setting or target raises ValueError/TypeError naming it, and the fix, before any
    suite runs: a module that is not there, a missing attribute (with the closest names), a
    kind that is not known (said once the target is found), a signature that cannot take the
    calls of ``kind`` (e.g. no bias argument: ``bias='none'``; where the signature cannot tell,
    one call on a 2 x 2 input finds out); a framework that is not installed raises
    ``adapters.FrameworkUnavailable`` (an ImportError).
    """
    if timeout is not None:
        from .._validate import check_real

        timeout = check_real(timeout, "timeout", gt=0.0)
    plan = make_plan(target, kind, framework, dtypes, quick=quick, allow=allow, options=options)
    try:
        return run_plans([plan], timeout=timeout, progress=progress)[0]
    except PreflightError as exc:
        raise exc.error from None
