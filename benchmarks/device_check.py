"""One command that checks yatmath on a CUDA device and writes one report.

    python benchmarks/device_check.py [--out device-report.txt] [--quick] [--tests-only]

On a machine with CuPy and a GPU, from the repository root (yatmath importable: installed, or
the source tree on PYTHONPATH), it runs, in order, each with its own time limit:

1. the environment: device, driver, Python and package versions, and which of the packages
   yatmath needs are missing (a bare CUDA image often lacks the pure-Python ones listed in
   ``PURE_PYTHON``; bring them as wheels: ``pip download --no-deps --only-binary=:all: NAME``);
2. the GPU tests: ``pytest -m gpu`` over the suite plus every ``tests/*/test_cuda_*.py`` (every
   custom kernel compiled and run on the device against the reference);
3. ``yatmath bench gpu``: each CuPy path beside CuPy's own primitive of the same shape;
4. pairs per second of the pair-sum kernels (``yatmath.bench.pairs``), n = 131072: the O(n^2)
   kernels beside a plain tiled CUDA C kernel, and the potential and random-batch kernels beside
   the generic reference run by CuPy (what their "cupy" rows ran before), each measured in the
   same run as its baseline;
5. the kernels' static resources (``python -m yatmath.bench.kernels``): registers, spills, shared
   memory and occupancy of every kernel launch, from ptxas.

Sections 3 and 4 print each of issue 22's pace targets beside its measurement
(``yatmath.bench.targets``).

The report (``--out``) is written once, atomically, at the end; each section's output is also
printed as it finishes.  Exit status: 0 when every section passed, 1 when a test failed or a
section broke, 3 without CuPy or a device (nothing was checked).  About 3-4 minutes on one H100.
"""
from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import platform
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


def _run(cmd, timeout):
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    # JAX (present on CUDA images) would take most of the GPU in every pytest worker
    env.update(JAX_PLATFORMS="cpu", XLA_PYTHON_CLIENT_PREALLOCATE="false")
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        out, rc = out + f"\n[timed out after {timeout} s]", 124
    return out, rc, time.perf_counter() - t0


def gpu_tests(quick) -> tuple[str, bool]:
    workers = min(8, os.cpu_count() or 1)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers),
           "--ignore=tests/test_notebooks.py", "--tb=short", "-m", "gpu", "tests"]
    out1, rc1, t1 = _run(cmd, 300)
    cmd2 = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers),
            "--tb=short"] + kernel_test_files()
    out2, rc2, t2 = _run(cmd2, 200)
    text = (f"$ {' '.join(cmd[2:])}\n{_tail(out1)}\nrc {rc1} in {t1:.0f} s\n\n"
            f"$ {' '.join(cmd2[2:])}\n{_tail(out2)}\nrc {rc2} in {t2:.0f} s")
    return text, rc1 == 0 and rc2 == 0


def kernel_test_files() -> list[str]:
    """Every kernel test module (``tests/<subpackage>/test_cuda_*.py``: the simulator tests, which
    on a device launch the compiled kernels), relative to the repository root."""
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/*/test_cuda_*.py"))


def kernel_resources(quick) -> tuple[str, bool]:
    """``python -m yatmath.bench.kernels``: registers, spills, shared memory and occupancy of
    every kernel launch from ptxas (static; needs NVVM and ptxas: exit 3 without them, which is
    reported, not failed)."""
    out, rc, t = _run([sys.executable, "-W", "ignore", "-m", "yatmath.bench.kernels"], 180)
    return f"{out.rstrip()}\nrc {rc} in {t:.0f} s", rc in (0, 3)


def _tail(out, keep=400):
    """The summary of a pytest run: its FAILED/ERROR lines and last lines."""
    lines = out.splitlines()
    fails = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    tail = lines[-keep:]
    return "\n".join([ln for ln in fails if ln not in tail] + tail)


def bench_gpu(quick) -> tuple[str, bool]:
    cmd = [sys.executable, "-c", "import sys; from yatmath.bench.gpu import main; "
           f"sys.exit(main(quick={bool(quick)}))"]
    out, rc, t = _run(cmd, 240)
    return f"{out.rstrip()}\nrc {rc} in {t:.0f} s", rc == 0


def pairs(quick) -> tuple[str, bool]:
    from yatmath import _array
    from yatmath.bench import pairs as pb

    rows = pb.run(_array.cupy_module(), n=32768 if quick else 131072, repeat=3 if quick else 5)
    return pb.format_rows(rows), True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="device-report.txt", help="the report file (written once)")
    ap.add_argument("--quick", action="store_true", help="smaller benchmark sizes")
    ap.add_argument("--tests-only", action="store_true", help="environment and tests only")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    env_text, env_ok = environment()
    print("== environment\n" + env_text, flush=True)
    if not env_ok:
        print("no CuPy device or numba-cuda: nothing was checked", file=sys.stderr)
        _write(args.out, [("environment", env_text, False)])
        return 3
    done = [("environment", env_text, True)]
    sections = [("gpu tests", gpu_tests)]
    if not args.tests_only:
        sections += [("yatmath bench gpu", bench_gpu), ("pairs per second", pairs),
                     ("kernel resources", kernel_resources)]
    for name, fn in sections:
        t0 = time.perf_counter()
        try:
            text, ok = fn(args.quick)
        except Exception as exc:  # a broken section is reported, the others still run
            import traceback

            text, ok = traceback.format_exc() + f"\n{type(exc).__name__}: {exc}", False
        text += f"\n[{name}: {time.perf_counter() - t0:.0f} s]"
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
