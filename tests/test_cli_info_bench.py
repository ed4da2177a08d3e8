"""The `yatmath info` and `yatmath bench` commands report what they measured."""
import json
import os

import numpy as np
import pytest

from yatmath import _array, _platform
from yatmath.bench import yat as bench_yat
from yatmath.cli import main


def test_info_json_names_backends_and_threads(capsys):
    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["numpy"] == np.__version__
    assert info["numba"] is not None and info["numba_threads"] >= 1
    assert (info["cuda_device"] is not None) == _array.has_cupy()


def test_info_text_lists_available_backends(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "backends available: reference, numba" in out


def _check_columns_aligned(lines, rows):
    """Every row's cells start where the header's column names start, whatever their length."""
    header = lines[0]
    heads = ["operation", "backend", "arrays", "dtypes", "device"]
    starts = [header.index(h) for h in heads]
    auto_end = header.index("auto from") + len("auto from")
    assert starts == sorted(starts) and starts[0] == 0
    assert len(lines) == len(rows) + 1
    for line, r in zip(lines[1:], rows):
        values = [r["op"], r["backend"], r["libraries"], r["dtypes"], r["device"]]
        for start, nxt, v in zip(starts, starts[1:] + [None], values):
            assert line[start:start + len(v)] == v, (line, v)
            # the cell is padded up to the next column, with at least one space between
            if nxt is not None:
                assert line[start + len(v):nxt].strip() == "" and start + len(v) < nxt, (line, v)
        # 'auto from' is right-aligned: the value ends under the header's last letter
        assert line[:auto_end].endswith(" " + str(r["min_size"])), line
        flag = "" if r.get("available", True) else " (not available here)"
        assert line[auto_end:] == ("  " + r["note"] + flag).rstrip(), line


def test_info_backends_columns_fit_the_longest_names(capsys):
    from yatmath._registry import table

    assert main(["info", "--backends"]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = out[out.index("") + 1:]
    rows = table()
    assert max(len(r["op"]) for r in rows) > 34     # the old fixed width: these names overran it
    _check_columns_aligned(lines, rows)


def test_backend_table_widths_come_from_the_data():
    from yatmath.cli import _backend_table_lines

    long_name = "itnet.a_very_long_operation_name_that_no_fixed_width_would_hold.__call__"
    rows = [dict(op="yat.gram", backend="reference", libraries="any array API",
                 dtypes="float32, float64", device="any", min_size=0, note="generic", available=True),
            dict(op=long_name, backend="a-long-backend-name", libraries="numpy", dtypes="float64",
                 device="cuda", min_size=123456789012, note="n", available=False)]
    lines = _backend_table_lines(rows)
    _check_columns_aligned(lines, rows)
    assert lines[2].endswith("  n (not available here)")
    assert lines[0].index("backend") == len(long_name) + 1


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
    out = subprocess.run([sys.executable, "-c", code + "; import os; from yatmath import _platform; "
                          "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), "
                          "_platform.info()['openblas_thread_timeout'])"],
                         env=e, capture_output=True, text=True, check=True).stdout.split()
    assert " ".join(out) == expect


# --------------------------------------------------------------------------- exit status and Ctrl-C
def _fake_measurements(monkeypatch, *, gram_ok: bool, matvec_ok: bool):
    row = dict(n=8, d=64, dtype="float64", gemm_ms=1.0, gram_ms=1.0, plain_ms=3.0,
               gram_over_gemm=1.0, plain_over_gram=3.0, gemm_target=1.5, ok=gram_ok)
    mv = dict(n=8, seconds=0.1, pairs_per_s=640.0, rel_err_first_rows=0.0, peak_rss_mb=100.0,
              rss_before_mb=90.0, ok=matvec_ok)
    monkeypatch.setattr(bench_yat, "gram", lambda *a, **k: None)           # no compile warm-up
    monkeypatch.setattr(bench_yat, "bench_gram", lambda *a, **k: [dict(row)])
    monkeypatch.setattr(bench_yat, "bench_matvec", lambda n: dict(mv))


@pytest.mark.parametrize("gram_ok, matvec_ok, status", [
    (True, True, 0), (False, True, 1), (True, False, 1)])
def test_bench_yat_exits_one_when_a_cpu_target_is_missed(gram_ok, matvec_ok, status, monkeypatch,
                                                        capsys):
    """README: exit status 1 is 'a target that fails its bound' -- printing NO and exiting 0
    let a script or CI step miss it."""
    _fake_measurements(monkeypatch, gram_ok=gram_ok, matvec_ok=matvec_ok)
    assert main(["bench", "yat", "--quick"]) == status
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("all CPU targets met: " + ("yes" if status == 0 else "NO"))
    if not gram_ok:
        assert "missed: gram n=8 d=64 float64" in last
    if not matvec_ok:
        assert "missed: matvec peak RSS 100 MB" in last


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return f.read().split()
    except OSError:
        return []


def _bench(**kw):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "yatmath.cli", "bench", "yat", "--quick"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_ctrl_c_during_bench_exits_130_without_a_traceback():
    import signal

    proc = _bench()
    try:
        assert proc.stdout.readline().startswith("yatmath bench yat")   # it is measuring
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
def test_ctrl_c_while_the_bench_child_runs_exits_130_without_a_traceback():
    """Ctrl-C in a terminal reaches the whole foreground process group: the bench and the child
    process that measures matvec's memory."""
    import signal
    import time

    proc = _bench(start_new_session=True)        # its own process group, as a terminal job
    try:
        t0 = time.monotonic()
        while not _children(proc.pid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - t0 < 300, "the matvec child never started"
            time.sleep(0.02)
        child = int(_children(proc.pid)[0])
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z"


def test_version_module_entry_and_bare_command_in_subprocesses():
    """`yatmath --version` and `python -m yatmath --version` print the installed distribution's
    version (one source: the package metadata); bare `yatmath` prints the help, exit 0."""
    import importlib.metadata
    import subprocess
    import sys

    want = f"yatmath {importlib.metadata.version('yatmath')}"
    for cmd in ([sys.executable, "-m", "yatmath", "--version"],
                [sys.executable, "-c", "import sys; from yatmath.cli import main; "
                 "sys.exit(main(['--version']))"]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout.strip() == want, (p.stdout, p.stderr)
    p = subprocess.run([sys.executable, "-m", "yatmath"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage: yatmath") and "validate" in p.stdout and not p.stderr


def test_info_names_python_and_scipy(capsys):
    import platform

    import scipy

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"python  {platform.python_version()}" in out and f"scipy   {scipy.__version__}" in out


def test_a_closed_pipe_exits_141_without_a_traceback():
    """`yatmath check --list | head -1`: the reader closes the pipe; the command stops with 141
    (128 + SIGPIPE, what a shell reports) and prints no traceback.  (The test closes the pipe
    before the first write, so the outcome does not depend on how much the pipe buffers.)"""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-m", "yatmath", "check", "--list"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()       # the reader is gone before the first line: every write meets EPIPE
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
