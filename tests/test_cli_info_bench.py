"""The `yatmath info` and `yatmath bench` commands report what they measured."""
import json

import numpy as np
import pytest

from yatmath import _backend
from yatmath.bench import yat as bench_yat
from yatmath.cli import main


def test_info_json_names_backends_and_threads(capsys):
    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["numpy"] == np.__version__
    assert info["numba"] is not None and info["numba_threads"] >= 1
    assert (info["cuda_device"] is not None) == _backend.has_cupy()


def test_info_text_lists_available_backends(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "backends available: reference, numba" in out


def test_bench_gram_rows_hold_consistent_ratios():
    rows = bench_yat.bench_gram([64], [8, 20], [np.float64, np.float32], repeat=1)
    assert len(rows) == 4
    for r in rows:
        assert r["gram_over_gemm"] == r["gram_ms"] / r["gemm_ms"]
        assert r["plain_over_gram"] == r["plain_ms"] / r["gram_ms"]
        assert r["ok"] == (r["gram_over_gemm"] <= r["gemm_target"]
                           and r["plain_over_gram"] >= bench_yat.PLAIN_TARGET)


def test_bench_matvec_child_reports_memory_and_accuracy():
    r = bench_yat.bench_matvec(2000)
    assert r["n"] == 2000 and r["pairs_per_s"] > 0
    assert 0 < r["peak_rss_mb"] < 2000
    assert r["rel_err_first_rows"] < 1e-12   # float64 sums of 2000 positive-weighted terms


@pytest.mark.parametrize("code, env, expect", [
    ("import yatmath", None, "None None"),                    # read, never set
    ("import numpy; import yatmath", "10", "10 10"),          # the user's own value, reported
])
def test_openblas_thread_timeout_is_read_and_reported(code, env, expect):
    import os
    import subprocess
    import sys

    e = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if env is not None:
        e["OPENBLAS_THREAD_TIMEOUT"] = env
    out = subprocess.run([sys.executable, "-c", code + "; import os; from yatmath import _backend; "
                          "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), "
                          "_backend.info()['openblas_thread_timeout'])"],
                         env=e, capture_output=True, text=True, check=True).stdout.split()
    assert " ".join(out) == expect
