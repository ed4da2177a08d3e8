"""The GPU benchmark (yatmath.bench.gpu) on the CPU: the no-device exit, the ratio table, and
the baselines' arithmetic (each builder takes the array module, so NumPy runs them here)."""
from __future__ import annotations

import runpy
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import signal, special

from yatmath import _array
from yatmath import itnet as it
from yatmath.bench import gpu
from yatmath.cli import main as cli_main
from yatmath.yat import linear_attention

U64 = 2.0 ** -53
ROOT = Path(__file__).resolve().parents[1]

#: Tiny sizes so that every case builds and runs on the CPU in well under a second.
TINY = dict(gram_n=32, gram_d=(5,), mv_n=50, mv_d=(3, 7), mv_tile=(16, 24), att=(2, 6, 4),
            conv=(1, 2, 6, 3), feat=(10, 4, 8), la=(12, 4, 8, 2), itnet=(10, 3),
            itnet_dense=(12, 3), force_n=20, force_chunk=7)


@pytest.fixture
def no_device(monkeypatch):
    """Behave as on a machine without CuPy or without a CUDA device (whatever this one has)."""
    monkeypatch.setattr(_array, "cupy_module", lambda: None)


# ---------------------------------------------------------------- without a device
@pytest.mark.parametrize("quick", [False, True])
def test_main_without_device_says_why_and_exits_nonzero(no_device, capsys, quick):
    from yatmath.cli_args import EXIT_UNAVAILABLE

    assert gpu.main(quick=quick) == EXIT_UNAVAILABLE != 0
    out = capsys.readouterr()
    assert out.out == ""  # nothing measured, no table
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "no CuPy device found" in lines[0]


def test_cli_bench_gpu_without_device(no_device, capsys):
    assert cli_main(["bench", "gpu", "--quick"]) == gpu.EXIT_UNAVAILABLE
    assert "no CuPy device found" in capsys.readouterr().err


def test_script_without_device_exits_nonzero(no_device, capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench_gpu.py", "--quick"])
    with pytest.raises(SystemExit) as exc:
        runpy.run_path(str(ROOT / "benchmarks" / "bench_gpu.py"), run_name="__main__")
    assert exc.value.code == gpu.EXIT_UNAVAILABLE
    assert capsys.readouterr().err.strip().splitlines() == [gpu.NO_DEVICE]


# ---------------------------------------------------------------- the ratio table (pure)
def test_ratio_rows_divide_path_time_by_baseline_time():
    # binary fractions, so every quotient and product below is exact
    timings = [dict(path="a", baseline="A", size="s1", t_path=0.375, t_base=0.125),
               dict(path="b", baseline="B", size="s2", t_path=0.0625, t_base=0.25),
               dict(path="c", baseline="C", size="s3", t_path=0.5, t_base=0.5)]
    rows = gpu.ratio_rows(timings)
    assert [r["ratio"] for r in rows] == [3.0, 0.25, 1.0]
    assert [r["path_ms"] for r in rows] == [375.0, 62.5, 500.0]
    assert [r["base_ms"] for r in rows] == [125.0, 250.0, 500.0]
    for r, t in zip(rows, timings):
        assert {k: r[k] for k in t} == t          # the measured entries are carried unchanged
    table = gpu.format_table(rows).splitlines()
    assert len(table) == 1 + len(rows) and table[0].split()[-3:] == ["ratio", "target", "verdict"]
    # paths without a pace target: the ratio is the last column
    assert [line.split()[-1] for line in table[1:]] == ["3.00", "0.25", "1.00"]
    assert gpu.ratio_rows([]) == []


@pytest.mark.parametrize("bad,key", [(dict(t_base=0.0), "t_base"), (dict(t_path=-1e-3), "t_path"),
                                     (dict(t_path=float("nan")), "t_path"),
                                     (dict(t_base=float("inf")), "t_base"),
                                     (dict(t_path=True), "t_path"), (dict(t_base="1"), "t_base")])
def test_ratio_rows_reject_bad_times_naming_the_entry(bad, key):
    good = dict(path="a", baseline="A", size="s", t_path=1e-3, t_base=2e-3)
    with pytest.raises(ValueError, match=rf"timings\[1\]\['{key}'\]"):
        gpu.ratio_rows([good, dict(good, **bad)])
    missing = {k: v for k, v in good.items() if k != "baseline"}
    with pytest.raises(ValueError, match=r"timings\[0\] has no 'baseline'"):
        gpu.ratio_rows([missing])


# ---------------------------------------------------------------- the baselines compute their rows
def test_tiled_matmul_is_the_matvec_without_the_kernel(rng):
    """Ragged tiles (16 x 24 over 50 x 41): equal to (X Y^T) v up to summation order, i.e. within
    2 gamma_(d + m) (|X| |Y|^T) |v| (float64)."""
    X, Y = rng.standard_normal((50, 4)), rng.standard_normal((41, 4))
    for v in (rng.standard_normal(41), rng.standard_normal((41, 2))):
        got = gpu.tiled_matmul(X, Y, v, (16, 24), np)
        ref = (X @ Y.T) @ v
        assert got.shape == ref.shape
        bound = 2 * (4 + 41) * U64 * ((np.abs(X) @ np.abs(Y).T) @ np.abs(v))
        assert np.all(np.abs(got - ref) <= bound)


def test_softmax_attention_is_softmax_of_scaled_scores(rng):
    """Rows are convex combinations of V; the weights agree with scipy's softmax to ~(d + L) u |Z|
    relative (|Z| < 10 here), so outputs agree within 1e-12 max |V|."""
    Q, K = rng.standard_normal((2, 7, 5)), rng.standard_normal((2, 9, 5))
    V = rng.standard_normal((2, 9, 3))
    ref = special.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(5), axis=-1) @ V
    got = gpu.softmax_attention(Q, K, V, np)
    assert got.shape == ref.shape
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.max(np.abs(V))


def test_im2col_matmul_is_the_plain_correlation(rng):
    """P @ F.reshape(O, -1).T, reshaped, is sum_c correlate(image_c, F_oc) with zero padding 1
    (scipy.signal.correlate2d, mode 'same' for a 3x3 filter); C kh kw = 18 float64 terms:
    within 2 gamma_18 of the correlation of |image| with |F|."""
    N, C, H, O = 2, 2, 6, 3
    img, F = rng.standard_normal((N, C, H, H)), rng.standard_normal((O, C, 3, 3))
    P = gpu.im2col(img, 3, 3, 1, np)
    assert P.shape == (N * H * H, C * 9)
    got = (P @ F.reshape(O, -1).T).reshape(N, H, H, O)
    for n in range(N):
        for o in range(O):
            ref = sum(signal.correlate2d(img[n, c], F[o, c], mode="same") for c in range(C))
            absref = sum(signal.correlate2d(np.abs(img[n, c]), np.abs(F[o, c]), mode="same")
                         for c in range(C))
            assert np.all(np.abs(got[n, :, :, o] - ref) <= 2 * 18 * U64 * absref * 1.01)


def test_itnet_dense_einsum_is_the_dense_forward():
    """Same einsum as the dense reference with omega folded into U: <= 1e-12 relative, the
    tolerance of the tiled-vs-dense tests (summation order only)."""
    op, mu, U = gpu.itnet_problem(12, 3)
    Kt = it.kernel_tensor(op, mu.nodes, mu.nodes, U, U)
    got = gpu.itnet_dense_einsum(Kt, mu.weights[:, None] * U, U, op.W.T, np)
    ref = it.apply(op, U, mu)
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.max(np.abs(ref))


def test_linear_attention_matmuls_are_its_unnormalised_numerator(rng):
    """With V extended by a column of ones, the two matmuls give numerator and normaliser;
    their ratio is linear_attention (positive FAVOR+ weights: agreement ~ (F + L) u)."""
    phi = gpu.feature_map("favor+", 4, 16)
    Q, K = 0.3 * rng.standard_normal((9, 4)), 0.3 * rng.standard_normal((9, 4))
    V = rng.standard_normal((9, 2))
    M = gpu.linear_attention_matmuls(phi(Q), phi(K), np.concatenate([V, np.ones((9, 1))], axis=1))
    np.testing.assert_allclose(M[:, :2] / M[:, 2:], linear_attention(Q, K, V, phi),
                               rtol=0, atol=1e-13 * np.max(np.abs(V)))


class _CountingXP:
    """numpy, with matmul recording the (rows, cols) of every product it forms."""

    def __init__(self):
        self.shapes = []

    def matmul(self, a, b, out=None):
        self.shapes.append((a.shape[0], b.shape[1]))
        return np.matmul(a, b, out=out)


@pytest.mark.parametrize("N,chunk", [(20, 7), (21, 7), (5, 9)])
def test_pair_matmul_forms_every_pair_once(rng, N, chunk):
    X = rng.standard_normal((N, 3))
    xp = _CountingXP()
    buf = np.empty((min(chunk, N), N))
    out = gpu.pair_matmul(X, np.ascontiguousarray(X.T), buf, chunk, xp)
    assert sum(r * c for r, c in xp.shapes) == N * N and all(c == N for _, c in xp.shapes)
    last = N - xp.shapes[-1][0]
    np.testing.assert_array_equal(out[:N - last], X[last:] @ X.T)


def test_every_case_runs_on_numpy_and_measures_positive_times():
    """The whole pipeline on the CPU at tiny sizes: every case builds, its path and baseline
    return finite arrays of matching size (particle forces: (N, d) against the N x chunk pair
    buffer), and the measured times make a table."""
    cs = gpu.cases(np, TINY)
    names = {c.path for c in cs}
    assert {"yat gram", "yat matvec", "yat attention", "yat conv2d 3x3 pad 1",
            "linear attention FAVOR+", "linear attention FAVOR+ causal",
            "linear attention FAVOR+ causal vs non-causal", "itnet tiled 64x64",
            "itnet tiled vs dense", "particle forces (plummer)"} <= names
    assert {f"features {m}" for m in gpu.FEATURE_MAPS} <= names
    timings = []
    for c in cs:
        run_path, run_base = c.setup()
        p, b = run_path(), run_base()
        assert np.all(np.isfinite(p)) and np.all(np.isfinite(b)), c
        if c.path.startswith("particle"):
            assert p.shape == (TINY["force_n"], 3)
            assert b.shape == (TINY["force_chunk"], TINY["force_n"])
        elif c.path.startswith("features"):
            n, F = TINY["feat"][0], TINY["feat"][2]
            width = gpu.PROJECTIONS.get(c.path.removeprefix("features "), 1)
            assert p.shape == (n, F) and b.shape == (n, width * F)
        else:
            assert p.size == b.size, c
        timings.append(gpu.measure(c, repeat=1))
    rows = gpu.ratio_rows(timings)
    assert all(r["ratio"] == r["t_path"] / r["t_base"] > 0 for r in rows)


def test_device_check_without_device_exits_3_and_writes_its_report(tmp_path):
    """benchmarks/device_check.py on a machine without a CUDA device: exit 3 (nothing was
    checked), the report written once with the environment section saying why."""
    import os
    import subprocess
    import sys

    if _array.has_cupy():
        pytest.skip("a CUDA device is present: the script would run the whole device check")
    out = tmp_path / "report.txt"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "device_check.py"), "--out",
                        str(out)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env=dict(os.environ))
    assert p.returncode == 3, p.stdout + p.stderr
    assert "nothing was checked" in p.stderr
    text = out.read_text()
    assert text.startswith("yatmath device check") and "== environment (FAILED)" in text
    assert "cupy sees a device: False" in text
    assert not [f for f in tmp_path.iterdir() if f.name != "report.txt"]   # no temp files left


def _device_check():
    import importlib.util

    spec = importlib.util.spec_from_file_location("device_check",
                                                  ROOT / "benchmarks" / "device_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_device_check_budget_gives_each_section_its_limit_or_what_is_left():
    dc = _device_check()
    now = [100.0]
    b = dc.Budget(300.0, clock=lambda: now[0])
    assert b.seconds("gpu tests") == dc.LIMITS["gpu tests"]          # 300 left: its own limit
    now[0] += 250.0                                                  # 50 left
    assert b.seconds("gpu tests") == 50.0
    now[0] += 50.0 - dc.MIN_SECONDS + 1                              # under MIN_SECONDS left
    assert b.seconds("kernel resources") == 0
    assert sum(dc.LIMITS.values()) <= 480                            # the default budget


def test_device_check_keeps_the_tracebacks_of_a_run_cut_off_by_its_limit(tmp_path):
    """A pytest run killed at its time limit (xdist workers included, which would otherwise hold
    the pipe open) still reports the traceback of the failure that came before the limit."""
    dc = _device_check()
    f = tmp_path / "test_cut.py"
    f.write_text("import time\n\n"
                 "def test_fails():\n    assert 1 + 1 == 3, 'planted failure 7f3a'\n\n"
                 "def test_hangs():\n    time.sleep(120)\n")
    t0 = time.monotonic()
    text, ok = dc.pytest_run([str(f)], timeout=25)
    assert time.monotonic() - t0 < 60                 # killed at its limit, not after 120 s
    assert not ok
    assert "[timed out after 25 s]" in text
    failures = text.split("-- failures, as they happened --", 1)[1]
    assert "test_fails" in failures and "planted failure 7f3a" in failures
    assert "test_hangs" not in failures


def test_device_run_script_without_device_exits_3_with_report_and_log(tmp_path):
    """benchmarks/device_run.sh (the one device call) on a machine without a device: device_check's
    exit status 3 passes through, and the report and the log land in $OUT; no wheels to install
    (an empty $WHEELS) leaves $SITE unmade."""
    import os
    import subprocess

    if _array.has_cupy():
        pytest.skip("a CUDA device is present: the script would run the whole device check")
    out, wheels, site = tmp_path / "out", tmp_path / "wheels", tmp_path / "site"
    out.mkdir()
    wheels.mkdir()
    env = dict(os.environ, OUT=str(out), WHEELS=str(wheels), SITE=str(site))
    p = subprocess.run(["bash", str(ROOT / "benchmarks" / "device_run.sh")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "== environment (FAILED)" in (out / "device-report.txt").read_text()
    assert "cupy sees a device: False" in (out / "device-log.txt").read_text()
    assert not site.exists()
