"""Every GPU kernel of yatmath compiles to PTX, without a GPU, and keeps its floating-point promise.

The simulator tests (``tests/*/test_cuda_*.py``) execute the kernels' logic as Python; they cannot
see a lowering failure (on the H100 run of 2026-11-27, 20 of 21 kernel-test failures were
``np.sqrt`` that numba-cuda could not lower on NumPy 2.5) or a flush-to-zero in the compiled
code.  ``tests/cuda_ptx.py`` compiles each kernel with NVVM (the ``nvidia-nvvm`` wheel of the
test extra; no driver, no device) for the argument types its driver launches it with, and
inspects the PTX.  It runs in a subprocess: this process uses the simulator.
"""
from __future__ import annotations

import ast
import importlib.metadata as md
import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "cuda_ptx.py"

pytestmark = pytest.mark.slow


def _nvvm_installed() -> bool:
    try:
        md.version("nvidia-nvvm")
    except md.PackageNotFoundError:
        return False
    return True


@lru_cache(maxsize=None)
def _compile(selftest: bool = False):
    if not _nvvm_installed():
        pytest.skip("nvidia-nvvm is not installed (pip install -e '.[test]' brings it)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    if selftest:
        env["YATMATH_PTX_SELFTEST"] = "1"
    p = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                       timeout=600, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)
    assert not isinstance(out, dict), out   # NVVM installed but unusable: say why
    return out


def _kernels_in_source() -> set[tuple[str, str]]:
    """(module, qualname) of every numba-cuda kernel in yatmath's ``_cuda_*`` modules: functions
    decorated with ``<cuda>.jit`` (or returned from a factory decorated so) without
    ``device=True``."""
    found = set()
    for path in sorted((ROOT / "yatmath").rglob("_cuda_*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        tree = ast.parse(path.read_text())

        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef):
                    qual = f"{prefix}{child.name}"
                    if any(_is_kernel_decorator(d) for d in child.decorator_list):
                        found.add((module, qual))
                    visit(child, f"{qual}.<locals>.")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")
        visit(tree, "")
    return found


def _is_kernel_decorator(dec: ast.expr) -> bool:
    call = dec if isinstance(dec, ast.Call) else None
    func = call.func if call is not None else dec
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name != "jit":
        return False
    return not any(k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value
                   for k in (call.keywords if call is not None else []))


def test_every_kernel_compiles_for_the_types_it_is_launched_with():
    res = _compile()
    broken = [r for r in res if not r.get("ok") and "error" in r]
    assert not broken, "\n\n".join(f"{r['driver']}: {r['kernel']} {r['signature']}\n{r['error']}"
                                   for r in broken)


def test_no_kernel_flushes_float32_subnormals_or_divides_approximately():
    res = _compile()
    bad = [(r["driver"], r["kernel"], r["forbidden"]) for r in res if r.get("forbidden")]
    assert not bad, bad


def test_every_kernel_in_the_source_is_compiled():
    """A new kernel without a driver in ``yatmath.bench.kernels.drivers`` would go unchecked."""
    compiled = {(r["module"], r["kernel"]) for r in _compile() if r.get("kernel")}
    missing = _kernels_in_source() - compiled
    assert not missing, sorted(missing)
    assert len(_kernels_in_source()) >= 10      # the scan finds the kernels it should


def test_the_check_reports_a_lowering_failure_and_fastmath():
    """The two failure kinds the check exists for, planted: ``np.sqrt`` in a kernel (a lowering
    error) and a kernel compiled with fastmath (float32 flush-to-zero in its PTX)."""
    res = {r["driver"]: r for r in _compile(selftest=True)}
    assert not res["selftest np.sqrt"]["ok"]
    assert "sqrt" in res["selftest np.sqrt"]["error"]
    assert not res["selftest fastmath"]["ok"]
    assert any(m.endswith(".f32") and ".ftz" in m for m in res["selftest fastmath"]["forbidden"])


def test_no_kernel_spills_registers_or_cannot_be_resident():
    """ptxas's report for sm_90 (H100) of every launch of the census: no register spills (a
    spilling kernel does its arithmetic through local memory: the fused attention at d = dv = 64
    spilled ~350 bytes a thread before its tiled form) and every block fits an SM."""
    res = [r for r in _compile() if "resources" in r]
    if not res:
        pytest.skip("ptxas is not installed (pip install -e '.[test]' brings nvidia-cuda-nvcc)")
    assert len(res) == len([r for r in _compile() if r.get("kernel")])
    spills = [(r["driver"], r["resources"]["spill_stores"], r["resources"]["spill_loads"])
              for r in res if r["resources"]["spill_stores"] or r["resources"]["spill_loads"]]
    assert not spills, spills
    assert all(0 < r["resources"]["occupancy"] <= 1 and 0 < r["resources"]["registers"] <= 255
               for r in res), [(r["driver"], r["resources"]) for r in res]


def test_ptxas_report_of_a_planted_spill():
    """The resource reader sees what ptxas says: a kernel indexing a large local array at run
    time keeps it in local memory (a stack frame), a trivial one needs a few registers."""
    from yatmath.bench import kernels

    exe = kernels.ptxas()
    if exe is None or not _nvvm_installed():
        pytest.skip("ptxas or NVVM is not installed")
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "from yatmath.bench import kernels\n"
        "from yatmath import _cuda\n"
        "cu = _cuda.cuda()\n"
        "def stack(x, k, out):\n"
        "    a = cu.local.array(512, dtype=np.float64)\n"
        "    for i in range(512):\n"
        "        a[i] = x[i]\n"
        "    out[0] = a[k[0]]\n"
        "def tiny(x, out):\n"
        "    out[0] = x[0] + 1.0\n"
        "x = np.ones(512); k = np.zeros(1, dtype=np.int64); o = np.zeros(1)\n"
        "s, t = cu.jit(stack), cu.jit(tiny)\n"
        "res = kernels.compile_launches([('stack', lambda: s[1, 32](x, k, o)),\n"
        "                                ('tiny', lambda: t[1, 128](x, o))], keep_ptx=True)\n"
        "print(json.dumps(kernels.resource_rows(res, kernels.ptxas())))\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    rows = {r["driver"]: r for r in json.loads(p.stdout.splitlines()[-1])}
    assert rows["stack"]["stack"] >= 512 * 8
    assert rows["tiny"]["stack"] == 0 and 0 < rows["tiny"]["registers"] <= 16
    assert rows["tiny"]["occupancy"] == 1.0


# ---------------------------------------------------------------- the static resource budget
@pytest.mark.parametrize("regs,threads,shared,want", [
    (32, 256, 0, 1.0),            # 1024 registers a warp, 8 warps: 8 blocks = 2048 threads
    (38, 256, 0, 0.75),           # 1216 -> 1280 a warp (units of 256): 6 blocks
    (255, 128, 0, 0.125),         # 8160 -> 8192 a warp, 4 warps: 2 blocks
    (16, 128, 100 * 1024, 0.125),  # shared memory: 2 blocks of 100 KiB in 228 KiB
    (16, 32, 0, 0.5),             # 32 blocks an SM at most: 1024 threads
    (16, 128, 228 * 1024, 0.0),   # one block does not fit (227 KiB a block at most)
])
def test_occupancy_from_the_sm90_limits(regs, threads, shared, want):
    from yatmath.bench.kernels import occupancy

    assert occupancy(regs, threads, shared) == want


@pytest.mark.parametrize("mnemonic,bad", [
    ("mul.ftz.f32", True), ("cvt.rn.ftz.f32.f64", True), ("div.approx.f32", True),
    ("div.full.f32", True), ("sqrt.approx.f64", True), ("rcp.approx.f32", True),
    ("rcp.approx.ftz.f64", False), ("ex2.approx.ftz.f32", False), ("div.rn.f64", False), ("fma.rn.f32", False),
    ("sqrt.rn.f32", False), ("cvt.rn.f32.f64", False)])
def test_forbidden_instructions(mnemonic, bad):
    from yatmath.bench.kernels import forbidden, forbidden_instructions

    assert forbidden(mnemonic) is bad
    ptx = f"\t@%p1 {mnemonic} \t%f1, %f2;\n\tadd.rn.f64 %fd1, %fd2, %fd3;\n"
    assert forbidden_instructions(ptx) == ([mnemonic] if bad else [])
    # inside an inline-assembly block (libdevice's own seeds) nothing is read
    asm = f"\t// begin inline asm\n\t{mnemonic} %f1, %f2;\n\t// end inline asm\n"
    assert forbidden_instructions(asm + "\tmul.rn.f32 %f3, %f1, %f1;\n") == []
