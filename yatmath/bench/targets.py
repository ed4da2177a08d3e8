"""The GPU pace targets, one table, and how a measured row is judged against them.

The targets are issue 22's ("the GPU at the device's pace"), set from what a plain tiled kernel
and CuPy's own primitives reached on an NVIDIA H100 on 2026-11-27
(``shared/device-runs/2026-11-27-h100``).  They are stated for an H100; on another device the
judgement still prints, but only an H100 run can say that a target was met.

Two kinds, matching the two GPU tables:

``RatioTarget``  ``yatmath bench gpu`` (:mod:`yatmath.bench.gpu`): time of the path divided by
                 time of its baseline measured in the same run, at most ``max_ratio``.
``RateTarget``   ``yatmath.bench.pairs``: pairs per second of the path, at least ``min_rate``.

A row is matched by its ``path`` and, for ratio targets, by the ``key=value`` and dtype words of
its ``size`` column (every word of ``at`` must be among them); a row no target matches gets no
judgement.  :func:`judge` says ``met`` or ``missed`` with the factor by which it missed, so the
device report carries each target beside its measurement.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class RatioTarget(NamedTuple):
    """``t_path / t_base <= max_ratio`` for the ``bench gpu`` rows matching ``path`` and ``at``."""

    path: str
    at: str
    max_ratio: float


class RateTarget(NamedTuple):
    """``pairs per second >= min_rate`` for the ``bench.pairs`` row (path, dtype, d)."""

    path: str
    dtype: str
    d: int
    min_rate: float


#: Issue 22's targets for ``yatmath bench gpu`` (full sizes).
RATIO_TARGETS: tuple[RatioTarget, ...] = (
    RatioTarget("yat gram", "n=8192 d=64 float32", 1.3),
    RatioTarget("yat gram", "n=8192 d=64 float64", 1.3),
    RatioTarget("yat gram", "n=8192 d=256 float32", 1.3),
    RatioTarget("yat gram", "n=8192 d=256 float64", 1.3),
    RatioTarget("yat attention", "", 3.0),
    RatioTarget("yat conv2d 3x3 pad 1", "", 3.0),
    RatioTarget("features rff", "", 3.0),
    RatioTarget("features favor+", "", 3.0),
    RatioTarget("features softplus", "", 3.0),
    RatioTarget("features yat laplace_mc", "", 3.0),
    RatioTarget("linear attention FAVOR+ causal vs non-causal", "", 3.0),
    RatioTarget("itnet tiled 64x64", "n=256", 5.0),
    RatioTarget("itnet tiled vs dense", "n=4096", 1.0),
)

#: Issue 22's targets for ``yatmath.bench.pairs`` (n = 131072).
RATE_TARGETS: tuple[RateTarget, ...] = (
    RateTarget("yat matvec", "float32", 3, 1.0e12),
    RateTarget("yat matvec", "float64", 3, 5.0e11),
    RateTarget("yat matvec", "float64", 64, 5.0e10),
    RateTarget("plummer force", "float64", 3, 6.7e11),
    RateTarget("plummer force", "float32", 3, 1.6e12),
)


def _words(size: str) -> set[str]:
    return set(size.split())


def ratio_target(row: Mapping[str, Any]) -> RatioTarget | None:
    """The target of a ``bench gpu`` row (keys ``path``, ``size``), or None."""
    for t in RATIO_TARGETS:
        if t.path == row["path"] and _words(t.at) <= _words(str(row["size"])):
            return t
    return None


def rate_target(row: Mapping[str, Any]) -> RateTarget | None:
    """The target of a ``bench.pairs`` row (keys ``path``, ``dtype``, ``d``), or None."""
    for t in RATE_TARGETS:
        if (t.path, t.dtype, t.d) == (row["path"], row["dtype"], int(row["d"])):
            return t
    return None


def judge(row: Mapping[str, Any]) -> tuple[str, str]:
    """(target, verdict) columns of a measured row: a ``bench gpu`` row (with ``ratio``) or a
    ``bench.pairs`` row (with ``ours``, pairs per second).  The verdict is ``met``,
    ``missed xF`` (F: how many times slower than the target) or empty without a target."""
    if "ours" in row:
        rt = rate_target(row)
        if rt is None:
            return "", ""
        rate = float(row["ours"])
        gap = rt.min_rate / rate if rate > 0 else float("inf")
        return f">= {rt.min_rate:.2g}/s", "met" if rate >= rt.min_rate else f"missed x{gap:.2f}"
    t = ratio_target(row)
    if t is None:
        return "", ""
    ratio = float(row["ratio"])
    return (f"<= {t.max_ratio:g}x",
            "met" if ratio <= t.max_ratio else f"missed x{ratio / t.max_ratio:.2f}")
