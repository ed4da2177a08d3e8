"""The pace targets of the GPU tables (yatmath.bench.targets): which row each target judges, and
the verdict printed beside the measurement."""
from __future__ import annotations

import pytest

from yatmath.bench import gpu, pairs, targets


def _gpu_row(path, size, ratio):
    return dict(path=path, baseline="b", size=size, t_path=ratio * 0.5, t_base=0.5)


@pytest.mark.parametrize("ratio,verdict", [(1.25, "met"), (1.3, "met"), (2.6, "missed x2.00")])
def test_gram_target_is_judged_at_its_size_only(ratio, verdict):
    at = gpu.ratio_rows([_gpu_row("yat gram", "n=8192 d=64 float32", ratio)])[0]
    assert targets.judge(at) == ("<= 1.3x", verdict)
    # the same path at another size or d has no target (issue 22 sets it at n = 8192)
    for size in ("n=4096 d=64 float32", "n=8192 d=128 float32", "n=81920 d=64 float32"):
        assert targets.judge(gpu.ratio_rows([_gpu_row("yat gram", size, ratio)])[0]) == ("", "")


def test_every_ratio_target_names_a_benchmarked_path():
    """A target whose path no case produces would never be judged: each names a case path."""
    import numpy as np

    from tests.test_bench_gpu import TINY

    names = {c.path for c in gpu.cases(np, TINY)}
    assert {t.path for t in targets.RATIO_TARGETS} <= names


def test_every_rate_target_names_a_pairs_row():
    rows = {(p, dt, d) for p, dt, d in pairs.ROWS}
    assert {(t.path, t.dtype, t.d) for t in targets.RATE_TARGETS} <= rows


@pytest.mark.parametrize("rate,verdict", [(1.1e12, "met"), (1.0e12, "met"),
                                          (2.0e10, "missed x50.00"), (0.0, "missed xinf")])
def test_rate_target_verdict(rate, verdict):
    row = dict(path="yat matvec", dtype="float32", d=3, n=131072, baseline="plain", ours=rate,
               base=1.0e12, ratio=1.0)
    assert targets.judge(row) == (">= 1e+12/s", verdict)
    assert targets.judge(dict(row, dtype="float64", d=7)) == ("", "")


def test_tables_print_the_verdict_beside_the_measurement():
    g = gpu.format_table(gpu.ratio_rows([_gpu_row("yat attention", "L=8 float32", 4.5)]))
    assert g.splitlines()[1].endswith("4.50     <= 3x  missed x1.50")
    p = pairs.format_rows([dict(path="plummer force", dtype="float64", d=3, n=8, baseline="plain",
                                ours=7.0e11, base=7.0e11, ratio=1.0)])
    assert p.splitlines()[1].endswith(">= 6.7e+11/s  met")
