"""One command that checks yatmath on a CUDA device and writes one report.

    python benchmarks/device_check.py [--out device-report.txt] [--quick] [--tests-only]
                                      [--budget SECONDS]

On a machine with CuPy and a GPU, from the repository root (yatmath importable: installed, or
the source tree on PYTHONPATH), it runs, in order, each with its own time limit:

1. the environment: device, driver, Python and package versions, and which of the packages
   yatmath needs are missing (a bare CUDA image often lacks the pure-Python ones listed in
   ``PURE_PYTHON``; bring them as wheels: ``pip download --no-deps --only-binary=:all: NAME``);
2. the kernel tests, every ``tests/*/test_cuda_*.py`` (every custom kernel compiled and run on
   the device against the reference), then the GPU tests, ``pytest -m gpu`` over the suite;
3. ``yatmath bench gpu``: each CuPy path beside CuPy's own primitive of the same shape;
4. pairs per second of the pair-sum kernels (``yatmath.bench.pairs``), n = 131072: the O(n^2)
   kernels beside a plain tiled CUDA C kernel, and the potential and random-batch kernels beside
   the generic reference run by CuPy (what their "cupy" rows ran before), each measured in the
   same run as its baseline;
5. the kernels' static resources (``python -m yatmath.bench.kernels``): registers, spills, shared
   memory and occupancy of every kernel launch, from ptxas.

Sections 3 and 4 print each of issue 22's pace targets beside its measurement
(``yatmath.bench.targets``).

Time: the whole check keeps within ``--budget`` seconds (default 480, so that it fits one
10-minute device call with the machine's start-up to spare).  Each section has its own limit
(``LIMITS``) and gets no more than what is left; a section that the budget no longer reaches is
reported as not run.  Every test failure's traceback is logged the moment it fails
(``benchmarks/failure_log.py``) and goes into the report even when its run hits its time limit.

The report (``--out``) is rewritten atomically after every section, so a check cut off from
outside still leaves the sections it finished; each section's output is also printed as it
finishes.  Exit status: 0 when every section passed, 1 when a test failed, a section broke or
did not run, 3 without CuPy or a device (nothing was checked).
"""
from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What yatmath imports, by distribution name; the pure-Python ones are what a CUDA image may
#: lack and what can travel as wheels.
NEEDED = ("numpy", "scipy", "sympy", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x",
          "mpmath", "matplotlib", "scikit-learn", "threadpoolctl", "jinja2", "pytest",
          "hypothesis", "pytest-xdist", "array-api-compat", "array-api-strict")
PURE_PYTHON = ("array-api-compat", "array-api-strict", "hypothesis", "mpmath", "sympy",
               "threadpoolctl", "jinja2", "pytest-xdist", "execnet")


def _version(dist):
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def environment() -> tuple[str, bool]:
    lines = [f"date      {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
             f"python    {platform.python_version()} ({sys.executable})",
             f"machine   {platform.machine()}, {os.cpu_count()} CPUs"]
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        smi = f"nvidia-smi failed: {exc}"
    lines.append(f"gpu       {smi}")
    for dist in NEEDED:
        v = _version(dist)
        lines.append(f"  {dist:<18} {v or 'MISSING'}")
    missing = [d for d in PURE_PYTHON if _version(d) is None]
    lines.append("pure-Python packages missing here (bring as wheels): "
                 + (", ".join(missing) if missing else "none"))
    ok = True
    try:
        from yatmath import _array, _cuda

        cp = _array.cupy_module()
        lines.append(f"cupy sees a device: {cp is not None}")
        nc = _cuda.cuda()
        lines.append(f"numba.cuda: simulator={_cuda.simulated(nc)} available={nc.is_available()}")
        ok = cp is not None and not _cuda.simulated(nc)
    except Exception as exc:  # report it; the sections below say what else breaks
        lines.append(f"yatmath/numba-cuda import failed: {type(exc).__name__}: {exc}")
        ok = False
    return "\n".join(lines), ok


#: seconds each section may take at most (the budget may give it less)
LIMITS = {"gpu tests": 170, "kernel tests": 110, "yatmath bench gpu": 100,
          "pairs per second": 60, "kernel resources": 40}
#: a section is not started with less than this left
MIN_SECONDS = 10


class Budget:
    """The check's deadline: ``seconds(name)`` is the section's limit or what is left, whichever
    is less (0: not enough left to start it)."""

    def __init__(self, total: float, clock=time.monotonic) -> None:
        self.clock = clock
        self.deadline = clock() + total

    def seconds(self, name: str) -> float:
        left = self.deadline - self.clock()
        t = min(LIMITS[name], left)
        return t if t >= MIN_SECONDS else 0


def _run(cmd, timeout, extra_env=None):
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(extra_env or {}))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    # JAX (present on CUDA images) would take most of the GPU in every pytest worker
    env.update(JAX_PLATFORMS="cpu", XLA_PYTHON_CLIENT_PREALLOCATE="false")
    # its own process group: on timeout the whole group goes (pytest-xdist's workers too, which
    # would otherwise hold the output pipe open until they finished)
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        out, rc = (out or "") + f"\n[timed out after {timeout:.0f} s]", 124
    return out, rc, time.perf_counter() - t0


def pytest_run(args, timeout) -> tuple[str, bool]:
    """``pytest args`` (xdist workers, short tracebacks) within ``timeout`` seconds: its summary,
    then the traceback of every failure, logged as it happened (so also those of a run that hit
    its limit, whose own summary never came)."""
    import tempfile

    workers = min(8, os.cpu_count() or 1)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
           "benchmarks.failure_log", "-n", str(workers), "--tb=short"] + list(args)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "failures.txt"
        out, rc, t = _run(cmd, timeout, {"YATMATH_FAILURE_LOG": str(log)})
        failures = log.read_text(encoding="utf-8") if log.exists() else ""
    text = f"$ {' '.join(cmd[2:])}\n{_tail(out)}\nrc {rc} in {t:.0f} s"
    if failures:
        text += "\n\n-- failures, as they happened --\n" + failures.rstrip()
    return text, rc == 0


def gpu_tests(quick, timeout) -> tuple[str, bool]:
    return pytest_run(["--ignore=tests/test_notebooks.py", "-m", "gpu", "tests"], timeout)


def kernel_tests(quick, timeout) -> tuple[str, bool]:
    return pytest_run(kernel_test_files(), timeout)


def kernel_test_files() -> list[str]:
    """Every kernel test module (``tests/<subpackage>/test_cuda_*.py``: the simulator tests, which
    on a device launch the compiled kernels), relative to the repository root."""
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/*/test_cuda_*.py"))


def kernel_resources(quick, timeout) -> tuple[str, bool]:
    """``python -m yatmath.bench.kernels``: registers, spills, shared memory and occupancy of
    every kernel launch from ptxas (static; needs NVVM and ptxas: exit 3 without them, which is
    reported, not failed)."""
    out, rc, t = _run([sys.executable, "-W", "ignore", "-m", "yatmath.bench.kernels"], timeout)
    return f"{out.rstrip()}\nrc {rc} in {t:.0f} s", rc in (0, 3)


def _tail(out, keep=400):
    """The summary of a pytest run: its FAILED/ERROR lines and last lines."""
    lines = out.splitlines()
    fails = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    tail = lines[-keep:]
    return "\n".join([ln for ln in fails if ln not in tail] + tail)


def bench_gpu(quick, timeout) -> tuple[str, bool]:
    cmd = [sys.executable, "-c", "import sys; from yatmath.bench.gpu import main; "
           f"sys.exit(main(quick={bool(quick)}))"]
    out, rc, t = _run(cmd, timeout)
    return f"{out.rstrip()}\nrc {rc} in {t:.0f} s", rc == 0


def pairs(quick, timeout) -> tuple[str, bool]:
    n, repeat = (32768, 3) if quick else (131072, 5)
    cmd = [sys.executable, "-c", "from yatmath import _array; from yatmath.bench import pairs "
           f"as pb; print(pb.format_rows(pb.run(_array.cupy_module(), n={n}, repeat={repeat})))"]
    out, rc, t = _run(cmd, timeout)
    return f"{out.rstrip()}\nrc {rc} in {t:.0f} s", rc == 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="device-report.txt", help="the report file (written once)")
    ap.add_argument("--quick", action="store_true", help="smaller benchmark sizes")
    ap.add_argument("--tests-only", action="store_true", help="environment and tests only")
    ap.add_argument("--budget", type=float, default=480.0,
                    help="seconds the whole check may take (default 480)")
    args = ap.parse_args(argv)
    if not args.budget > 0:
        ap.error(f"--budget must be a number of seconds > 0, got {args.budget}")
    budget = Budget(args.budget)
    sys.path.insert(0, str(ROOT))
    env_text, env_ok = environment()
    print("== environment\n" + env_text, flush=True)
    if not env_ok:
        print("no CuPy device or numba-cuda: nothing was checked", file=sys.stderr)
        _write(args.out, [("environment", env_text, False)])
        return 3
    done = [("environment", env_text, True)]
    sections = [("kernel tests", kernel_tests), ("gpu tests", gpu_tests)]
    if not args.tests_only:
        sections += [("yatmath bench gpu", bench_gpu), ("pairs per second", pairs),
                     ("kernel resources", kernel_resources)]
    for name, fn in sections:
        t0 = time.perf_counter()
        timeout = budget.seconds(name)
        if not timeout:
            text, ok = f"not run: the --budget of {args.budget:.0f} s was spent", False
        else:
            try:
                text, ok = fn(args.quick, timeout)
            except Exception as exc:  # a broken section is reported, the others still run
                import traceback

                text, ok = traceback.format_exc() + f"\n{type(exc).__name__}: {exc}", False
        text += f"\n[{name}: {time.perf_counter() - t0:.0f} s of at most {timeout:.0f} s]"
        print(f"== {name}\n{text}", flush=True)
        done.append((name, text, ok))
        _write(args.out, done)
    return 0 if all(ok for _, _, ok in done) else 1


def _write(path, done):
    from yatmath.files import atomic_write

    body = "\n\n".join(f"== {name} ({'ok' if ok else 'FAILED'})\n{text}" for name, text, ok in done)
    atomic_write({Path(path): "yatmath device check\n\n" + body + "\n"})


if __name__ == "__main__":
    sys.exit(main())
