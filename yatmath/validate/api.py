"""``validate(target, kind=..., framework=..., dtypes=...) -> Report``: certify a Yat implementation.

The suites (``suites``) per kind:

product, gram, layer   accuracy (every harness block inside the condition-aware bound, with the
                       layer's width scale and bias placement), gram (symmetry, PSD),
                       gradients (autograd / jax.grad against the closed form; torch and jax)
attention              parity with ``yatmath.yat.attention`` at the target's settings
linear_attention       readout parity with the quadratic form of the same features, and the
                       attention error against the budget
features               unbiasedness with confidence intervals, attention error against budget
"""
from __future__ import annotations

import sys

from ..testing.generators import dtype_name
from . import suites
from .adapters import KINDS, Framework, KernelAdapter, _yat_features_factory, preset, resolve
from .report import Report, versions

DEFAULT_DTYPES = ("float32", "float64")


def _line_progress(stream):
    def report(msg):
        stream.write(msg + "\n")
        stream.flush()
    return report


def validate(target, kind=None, framework=None, dtypes=DEFAULT_DTYPES, *, quick=False,
             progress=None, **options) -> Report:
    """Run the suites of ``kind`` on ``target`` and return a ``Report``.

    Parameters
    ----------
    target : "package.module:callable" or the object itself (callable, layer object or class)
    kind : one of ``adapters.KINDS``; taken from the target's preset when known
    framework : "numpy", "torch" or "jax" (arrays are handed over through DLPack)
    dtypes : dtype names among "float32", "float64", "bfloat16" (torch/jax only)
    quick : a third of the harness blocks and fewer replicates
    progress : None (silent), True (lines on stderr) or a callable(str)
    options : adapter settings (bias="inner"|"outer"|"none", scale=..., layout=..., eps_arg=...,
        mask_arg=..., score_scale=..., normalize=..., factory=..., budget=..., ...); they
        override the target's preset.
    """
    opts = preset(target)
    opts.update({k: v for k, v in options.items() if v is not None})
    kind = kind or opts.pop("kind", None)
    opts.pop("kind", None)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} (not known for target {target!r}), "
                         f"got {kind!r}")
    framework = framework or opts.pop("framework", None) or "numpy"
    opts.pop("framework", None)
    if isinstance(dtypes, str):
        dtypes = (dtypes,)
    dtypes = tuple(dtype_name(d) for d in dtypes)
    if not dtypes:
        raise ValueError("dtypes must name at least one dtype, got ()")
    fw = Framework(framework)
    for dt in dtypes:
        if not fw.has_dtype(dt):
            raise ValueError(f"dtype {dt!r} is not available in framework {framework!r}")
    obj = resolve(target)
    say = (None if not progress else _line_progress(sys.stderr) if progress is True else progress)
    name = target if isinstance(target, str) else getattr(target, "__name__", repr(target))
    report = Report(name, kind, framework, dict(opts, quick=quick), versions=versions(framework))
    jobs = _jobs(kind, obj, fw, opts, quick)
    total = len(jobs) * len(dtypes)
    step = 0
    for dt in dtypes:
        for label, job in jobs:
            step += 1
            if say:
                say(f"[{step}/{total}] {label} {dt} ...")
            res = job(dt)
            report.results.append(res)
            if say:
                verdict = "n/a" if res.passed is None else ("pass" if res.passed else "FAIL")
                say(f"[{step}/{total}] {label} {dt}: {verdict} ({res.seconds:.1f} s) {res.note}")
    return report


def _jobs(kind, obj, fw, opts, quick):
    if kind in ("product", "gram", "layer"):
        ad = KernelAdapter(obj, kind, fw, bias=opts.get("bias", "inner"),
                           scale=opts.get("scale", 1.0), alpha_factor=opts.get("alpha_factor", 1.0),
                           init=opts.get("init"))
        return [("accuracy", lambda dt: suites.accuracy(ad, dt, quick=quick)),
                ("gram", lambda dt: suites.gram_properties(ad, dt, quick=quick)),
                ("gradients", lambda dt: suites.gradients(ad, dt, quick=quick))]
    if kind == "attention":
        o = dict(opts, _target=obj)
        return [("attention", lambda dt: suites.attention(obj, fw, o, dt, quick=quick))]
    factory = opts.get("factory") or _yat_features_factory(opts.get("method", "series"))
    if isinstance(factory, str):
        factory = resolve(factory)
    if kind == "linear_attention":
        return [("linear", lambda dt: suites.linear_readout(obj, factory, fw, opts, dt,
                                                            quick=quick)),
                ("budget", lambda dt: suites.budget(factory, fw, opts, dt, quick=quick,
                                                    linear=obj))]
    factory = opts.get("factory") or obj
    if isinstance(factory, str):
        factory = resolve(factory)
    return [("unbiased", lambda dt: suites.unbiased(factory, fw, opts, dt, quick=quick)),
            ("budget", lambda dt: suites.budget(factory, fw, opts, dt, quick=quick))]
