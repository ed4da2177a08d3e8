"""Every GPU kernel of yatmath compiled without a GPU: its PTX, its floating-point promise, and its
static resource budget on an H100.

    python -m yatmath.bench.kernels            the resource table (needs NVVM and ptxas)

numba-cuda's simulator (how CI executes the kernels' logic) runs kernel source as Python, so it
cannot see what only the compiler sees: a NumPy function numba-cuda cannot lower (on the H100
run of 2026-11-27, 20 of 21 kernel-test failures were ``np.sqrt`` failing to lower on NumPy
2.5), a type that does not unify, a flush-to-zero in the compiled code, or a kernel whose
registers spill.  :func:`compile_launches` runs each kernel driver of :func:`drivers` on small
NumPy arrays with the launch replaced by a compilation: NVVM (the ``nvidia-nvvm`` wheel; no
driver, no device) compiles the kernel for the argument types of that launch, for compute
capability 9.0 (H100).  Nothing is computed: the drivers' outputs are uninitialised arrays.

From the PTX:

* :func:`forbidden_instructions` lists what breaks ``yatmath._cuda``'s promise (compiled without
  fastmath): float32 flush-to-zero, approximate division or square root
  (``tests/test_cuda_ptx.py`` asserts there is none);
* :func:`ptxas_resources` runs ``ptxas -v`` (the ``nvidia-cuda-nvcc`` wheel) for the registers per
  thread, spill bytes and static shared memory, and :func:`occupancy` the resident threads per
  SM they allow (H100 limits, :data:`SM90`).  These are static facts of the compiled code, not
  timings: a kernel at 255 registers with spills, or at a few percent occupancy, will not reach
  its pace target whatever the device says; the timings themselves are
  ``benchmarks/device_check.py``'s.

This module patches two numba-cuda internals while :func:`compile_launches` runs (the launch,
and the compute capability device functions are compiled for, which is otherwise asked of the
driver) and restores them afterwards.  It must run in a process whose ``numba.cuda`` is not the
simulator.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

#: Compute capability the kernels are compiled for (H100).
CC = (9, 0)
#: Per-SM limits of compute capability 9.0 (CUDA programming guide, "Compute capabilities").
SM90 = dict(registers=65536, shared=228 * 1024, threads=2048, blocks=32, shared_per_block=227 * 1024,
            register_unit=256, shared_unit=128)

Driver = tuple[str, Callable[[], Any]]
#: PTX instructions libdevice's accurate routines use internally (:func:`forbidden`).
LIBDEVICE_OWN = frozenset({"rcp.approx.ftz.f64", "ex2.approx.ftz.f32"})


def forbidden(mnemonic: str) -> bool:
    """Whether a PTX instruction breaks ``yatmath._cuda``'s floating-point promise: float32
    flush-to-zero (``*.ftz*.f32``), approximate or "full-range" division, approximate square
    root, an approximate float32 reciprocal.  Two instructions are libdevice's own and allowed:
    its float64 ``pow`` and ``log`` seed a Newton iteration with ``rcp.approx.ftz.f64``, and its
    float64 ``exp``/``expm1``/``tanh`` form 2^k for an integer k with ``ex2.approx.ftz.f32``
    (exact there); both routines are accurate to their documented ulps.  A kernel compiled with
    fastmath still shows itself by its float32 arithmetic (``mul.ftz.f32`` and the like)."""
    if mnemonic in LIBDEVICE_OWN:
        return False
    parts = mnemonic.split(".")
    f32 = "f32" in parts
    return (f32 and ("ftz" in parts or mnemonic.startswith("rcp.approx"))) or \
        mnemonic.startswith(("div.approx", "div.full", "sqrt.approx"))


def forbidden_instructions(ptx: str) -> list[str]:
    """The distinct forbidden mnemonics of a PTX text (guard predicates such as ``@%p1`` skipped).
    Inline assembly blocks are libdevice's own (its ``powf`` seeds a refined logarithm with
    ``rcp.approx.ftz.f32``; the routine is accurate to its documented ulps) and are not read."""
    out = set()
    inline = False
    for line in ptx.splitlines():
        if "begin inline asm" in line or "end inline asm" in line:
            inline = "begin" in line
            continue
        if inline:
            continue
        words = line.split()
        while words and words[0].startswith("@"):
            words = words[1:]
        if words and forbidden(words[0].rstrip(";")):
            out.add(words[0].rstrip(";"))
    return sorted(out)


def drivers(selftest: bool = False) -> list[Driver]:
    """(name, call) of every kernel driver of yatmath, each on small arrays of both float dtypes,
    with the feature widths of the benchmarks (kernels are specialised on them).  ``selftest``
    adds two kernels that must be reported (:func:`_planted`)."""
    from .._cuda_cast import cast
    from ..particles import _cuda_kernels as pk
    from ..yat import _cuda_attention as ca
    from ..yat import _cuda_kernels as ck

    out: list[Driver] = []
    for dt in (np.float32, np.float64):
        r = np.random.default_rng(0)

        def a(*shape: int, dt: Any = dt, r: np.random.Generator = r) -> Any:
            return np.ascontiguousarray(r.standard_normal(shape).astype(dt))

        n = np.dtype(dt).name
        X, W, G = a(5, 3), a(7, 3), a(5, 7)
        b = a(7)
        out += [
            (f"yat gram {n}", partial(ck.gram, X, W, 1.0, b, 1, 1e-3)),
            (f"yat backward_pass {n}", partial(ck.backward_pass, X, W, G, 1.0, b, 2, 1e-3, 0.5)),
            (f"yat matvec d=3 k=1 {n}", partial(ck.matvec, X, W, a(7, 1), 1.0, b, 1, 1e-3, 4, 4)),
            (f"yat matvec d=64 k=1 {n}",
             partial(ck.matvec, a(5, 64), a(7, 64), a(7, 1), 1.0, b, 0, 1e-3, 4, 4)),
            (f"yat attention softmax d=dv=64 {n}",
             partial(ca.attention, a(2, 5, 64), a(2, 6, 64), a(2, 6, 64), 1.0, 0.125, "softmax",
                     False)),
            (f"yat attention softmax causal d=dv=8 {n}",
             partial(ca.attention, a(2, 5, 8), a(2, 6, 8), a(2, 6, 8), 1.0, 0.5, "softmax",
                     True)),
            (f"yat attention softermax d=3 dv=2 {n}",
             partial(ca.attention, a(2, 5, 3), a(2, 6, 3), a(2, 6, 2), 1.0, 0.5, "softermax",
                     False, 2.0, 0.1)),
        ]
    out += _more_drivers()
    x64 = np.random.default_rng(1).standard_normal((9, 3))
    out += [
        ("cast float64->float32", lambda: cast(x64, np.float32)),
        ("cast float32->float64", lambda: cast(x64.astype(np.float32), np.float64)),
        ("yat finish", lambda: ck.finish(x64[:, 0].copy(), x64[:, 1] ** 2 + 1, x64[:, 2].copy(),
                                         2)),
        ("yat needs_repair", lambda: ck.needs_repair(x64[:, 0].copy(), x64[:, 1] ** 2, 1e-3)),
        ("particles force_sum d=3", lambda: pk.force_sum(x64, 0, 1.0, 1.0, 0.01, -1.0)),
        ("particles force_sum d=3 float32 (plummer: float32 computation)",
         partial(pk.force_sum, x64.astype(np.float32), *_plummer())),
        ("particles potential_sum d=3", lambda: pk.potential_sum(x64, 1.0, 0.01, -1.0)),
        ("particles random_batch d=3",
         lambda: pk.random_batch(x64, np.arange(9, dtype=np.int64), 3, 0, 1.0, 1.0, 0.01, -1.0)),
        ("particles cfac_values", lambda: pk.cfac_values(x64[:, 0] ** 2 + 0.1, 0, 1.0, 1.0)),
        ("particles cfac_values float32",
         lambda: pk.cfac_values((x64[:, 0] ** 2 + 0.1).astype(np.float32), 0, 1.0, 1.0)),
    ]
    return out + (_planted() if selftest else [])


def _more_drivers() -> list[Driver]:
    """The fused Gram, conv2d, feature-map and ITNet kernels' drivers (both dtypes; the
    feature widths of the benchmarks where kernels are specialised on them)."""
    from ..features import POSITIVE_KINDS, positive_features, rff, yat_features
    from ..features import _cuda_features as cf
    from ..itnet import random_kernel_mlp
    from ..itnet.tiled import _Prep
    from ..yat import _cuda_conv as cc
    from ..yat import _cuda_gram as cg
    from ..yat._reference import REPAIR_TAU

    out: list[Driver] = []
    r = np.random.default_rng(2)
    d, F = 5, 12
    X64 = r.standard_normal((4, d))
    for dt in (np.float32, np.float64):
        n = np.dtype(dt).name

        def a(*shape: int, dt: Any = dt) -> Any:
            return np.ascontiguousarray(r.standard_normal(shape).astype(dt))

        net = random_kernel_mlp(8, 1, width=16, L=3, rng=r)      # the benchmark's network
        prep = _Prep(net, r.uniform(size=(5, 1)), r.uniform(size=(6, 1)), r.normal(size=(5, 8)),
                     r.normal(size=(6, 8)), dt)
        itnet_args: tuple[Any, ...] = (*prep.numba_args(), prep.cast(r.uniform(size=6)),
                                       prep.W2r, prep.B2)
        out += [
            (f"yat gram fused d=64 {n}", partial(cg.gram, a(5, 64), a(7, 64), 1.0, a(7), 1,
                                                 REPAIR_TAU)),
            (f"yat gram fused direct {n}", partial(cg.gram, a(5, 3), a(7, 3), 1.0, a(7), 2,
                                                   np.inf)),
            (f"yat conv2d 3x3 C=4 {n}", partial(cc.conv2d, a(2, 4, 9, 11), a(5, 4, 3, 3), 1.0,
                                                REPAIR_TAU, (1, 1), (1, 1), (1, 1))),
            (f"itnet tiled w=16 d=8 {n}", partial(_itnet, itnet_args, False, 1.0, 0)),
            (f"itnet tiled tanh-GELU causal, key splits {n}",
             partial(_itnet, itnet_args, True, 0.5, 1, tile=2, splits=2)),
            (f"features positive favor+ out {n}",
             partial(_positive, positive_features(d, F, "favor", rng=3), X64, dt)),
        ]
        phi = rff(d, F, gamma=0.7, rng=2)
        out += [(f"features rff phase out {n}",
                 partial(cf.phase_map, X64 @ phi.omega.T, phi.phase, 0.5, dt)),
                (f"features rff sincos out {n}", partial(cf.sincos_map, X64 @ phi.omega.T, 2.0,
                                                         dt))]
        yf = yat_features(d, F, eps=0.5, bias=0.3, rng=8)
        _, _, omega, beta, scale, R, S = yf._groups[0]
        W = np.concatenate([omega.T, R[:, :d].T, S[:, :d].T], axis=1)
        ye = yat_features(d, 2 * (d + 1) ** 2, eps=0.5, bias=0.4, poly="exact", rng=9)
        _, _, omega_e, beta_e, scale_e = ye._groups[0]
        out += [(f"features yat sketch out {n}",
                 partial(cf.sketch_map, X64 @ W, beta, scale, R[:, d].copy(), S[:, d].copy(), dt)),
                (f"features yat exact out {n}",
                 partial(cf.exact_map, X64 @ omega_e.T, X64, beta_e, scale_e, 0.6, dt))]
    for kind in POSITIVE_KINDS:    # the kind is a compile-time constant of the row kernel
        out.append((f"features positive {kind}",
                    partial(_positive, positive_features(d, F, kind, rng=3), X64, np.float64)))
    return out


def _itnet(args: tuple[Any, ...], causal: bool, diag_weight: float, gelu_kind: int,
           **launch: Any) -> Any:
    from ..itnet import _cuda_tiled as ict

    integral: Any = ict.integral
    return integral(*args, causal, diag_weight, gelu_kind, True, **launch)


def _positive(phi: Any, X: Any, dtype: Any) -> Any:
    from ..features import _cuda_features as cf

    return cf.positive_map(X @ phi.omega, X, phi.bias, phi.kind, phi.tau, phi.floor, phi.renorm,
                           phi.floor_sigmoid, phi.n_scale_order, dtype)


def _plummer() -> tuple[Any, ...]:
    """The force kernels' arguments (family, a, p, e2, cut2) of the Plummer interaction."""
    from ..particles import make_interaction

    inter = make_interaction("plummer", 1.0, 0.1)
    return inter.family, inter.a, inter.p, inter.soft2, inter.cut2


def _planted() -> list[Driver]:
    """Two kernels the check must report: one numba-cuda cannot lower on NumPy 2.5
    (``np.sqrt``, what failed on the H100), one compiled with fastmath (float32 flush-to-zero)."""
    from .. import _cuda

    cu = _cuda.cuda()

    def np_sqrt(x: Any, out: Any) -> None:
        i = cu.grid(1)
        if i < x.shape[0]:
            out[i] = np.sqrt(x[i])

    def fast(x: Any, out: Any) -> None:
        i = cu.grid(1)
        if i < x.shape[0]:
            out[i] = x[i] / (x[i] * x[i] + np.float32(1.0))

    x = np.ones(4, dtype=np.float32)
    lowering, fastmath = cu.jit(np_sqrt), cu.jit(fastmath=True)(fast)
    return [("selftest np.sqrt", lambda: lowering[1, 4](x, np.empty_like(x))),
            ("selftest fastmath", lambda: fastmath[1, 4](x, np.empty_like(x)))]


def compile_launches(calls: Sequence[Driver], cc: tuple[int, int] = CC,
                     keep_ptx: bool = False) -> list[dict[str, Any]] | str:
    """Run each driver with every kernel launch compiled instead: one dict per launch with
    ``driver``, ``module``, ``kernel`` (qualified name), ``signature``, ``threads`` (per block),
    ``dynamic_shared`` (bytes), ``ok``, and ``forbidden`` (instructions) or ``error``; ``ptx``
    with ``keep_ptx``.  A driver that breaks outside its launches gives an entry with an empty
    ``kernel``.  Returns a string saying why when numba.cuda cannot compile here."""
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    from .. import _cuda

    try:
        nc = _cuda.cuda()
        if _cuda.simulated(nc):
            return "numba.cuda is the simulator in this process (NUMBA_ENABLE_CUDASIM)"
        nc.compile_ptx(lambda: None, (), cc=cc)
    except Exception as exc:  # no NVVM: say so
        return f"{type(exc).__name__}: {exc}"[:400]
    import numba.cuda.dispatcher as D

    results: list[dict[str, Any]] = []
    current = {"driver": ""}

    def compile_instead_of_launch(self: Any, args: Any, launch_config: Any) -> None:
        argtypes = tuple(self.typeof_pyval(x) for x in args)
        block = launch_config.blockdim
        threads = math.prod(block) if isinstance(block, tuple) else int(block)
        entry: dict[str, Any] = dict(
            driver=current["driver"], kernel=self.py_func.__qualname__,
            module=self.py_func.__module__, signature=str(argtypes), threads=threads,
            dynamic_shared=int(launch_config.sharedmem or 0))
        try:
            ptx, _ = nc.compile_ptx(self.py_func, argtypes, cc=cc,
                                    fastmath=bool(self.targetoptions.get("fastmath")))
        except Exception as exc:
            entry.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:1500])
        else:
            bad = forbidden_instructions(ptx)
            entry.update(ok=not bad, forbidden=bad)
            if keep_ptx:
                entry["ptx"] = ptx
        results.append(entry)

    saved = D.CUDADispatcher.call, D.get_current_device
    D.CUDADispatcher.call = compile_instead_of_launch
    D.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    try:
        for name, call in calls:
            current["driver"] = name
            try:
                call()
            except Exception as exc:  # the driver broke outside its launches
                results.append(dict(driver=name, kernel="", module="", signature="", ok=False,
                                    error=f"driver: {type(exc).__name__}: {exc}"[:1500]))
    finally:
        D.CUDADispatcher.call, D.get_current_device = saved
    return results


def ptxas() -> str | None:
    """The ``ptxas`` of the ``nvidia-cuda-nvcc`` wheel, or one on PATH, or None."""
    try:
        import nvidia  # type: ignore[import-untyped]

        for root in nvidia.__path__:
            for cand in sorted(Path(root).glob("cu*/bin/ptxas")):
                return str(cand)
    except ImportError:
        pass
    return shutil.which("ptxas")


_PTXAS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
                    r"|Used (\d+) registers|(\d+) bytes smem")


def ptxas_resources(ptx: str, exe: str, cc: tuple[int, int] = CC) -> dict[str, int]:
    """``ptxas -v`` of one kernel's PTX: ``registers`` per thread, ``spill_stores``,
    ``spill_loads``, ``stack`` (bytes per thread) and ``static_shared`` (bytes per block)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "k.ptx"
        src.write_text(ptx)
        p = subprocess.run([exe, f"-arch=sm_{cc[0]}{cc[1]}", "-v", str(src), "-o",
                            str(Path(tmp) / "k.cubin")], capture_output=True, text=True,
                           timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"ptxas failed: {p.stderr[-800:]}")
    out = dict(registers=0, spill_stores=0, spill_loads=0, stack=0, static_shared=0)
    for m in _PTXAS.finditer(p.stderr):
        if m.group(1) is not None:
            out.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                       spill_loads=int(m.group(3)))
        elif m.group(4) is not None:
            out["registers"] = int(m.group(4))
        elif m.group(5) is not None:
            out["static_shared"] = int(m.group(5))
    return out


def occupancy(registers: int, threads: int, shared: int, sm: dict[str, int] = SM90) -> float:
    """Resident threads per SM over the SM's maximum, from the per-SM limits (registers
    allocated per warp in units of ``register_unit``, shared memory in units of
    ``shared_unit``, blocks, threads): the fraction of the SM's warp slots a launch can fill.
    0 when one block does not fit."""
    warps = -(-threads // 32)
    regs_per_warp = -(-max(registers, 1) * 32 // sm["register_unit"]) * sm["register_unit"]
    by_regs = sm["registers"] // (regs_per_warp * warps)
    shared_block = -(-shared // sm["shared_unit"]) * sm["shared_unit"]
    if shared_block > sm["shared_per_block"]:
        return 0.0
    by_shared = sm["shared"] // shared_block if shared_block else sm["blocks"]
    by_threads = sm["threads"] // (warps * 32)
    blocks = min(by_regs, by_shared, by_threads, sm["blocks"])
    return blocks * warps * 32 / sm["threads"]


def resource_rows(results: Sequence[dict[str, Any]], exe: str) -> list[dict[str, Any]]:
    """Each compiled launch of ``results`` (with its PTX) with ptxas's resources and the
    occupancy they allow."""
    rows = []
    launches: dict[str, int] = {}
    for r in results:
        launches[r["driver"]] = launches.get(r["driver"], 0) + 1
    for r in results:
        if not r.get("kernel") or "ptx" not in r:
            continue
        res = ptxas_resources(r["ptx"], exe)
        shared = res["static_shared"] + r["dynamic_shared"]
        label = r["driver"]
        if launches[label] > 1:     # a driver launching several kernels: name each
            label += f" [{r['kernel'].split('.')[0]}]"
        rows.append(dict(driver=label, threads=r["threads"], shared=shared,
                         occupancy=occupancy(res["registers"], r["threads"], shared), **res))
    return rows


def format_resources(rows: Sequence[dict[str, Any]]) -> str:
    w = max([len("kernel launch")] + [len(r["driver"]) for r in rows])
    lines = [f"{'kernel launch':<{w}}  {'threads':>7}  {'regs':>4}  {'spill B':>7}  "
             f"{'smem KiB':>8}  {'occupancy':>9}"]
    for r in rows:
        lines.append(f"{r['driver']:<{w}}  {r['threads']:>7}  {r['registers']:>4}  "
                     f"{r['spill_stores'] + r['spill_loads']:>7}  {r['shared'] / 1024:>8.1f}  "
                     f"{r['occupancy']:>9.0%}")
    return "\n".join(lines)


def main() -> int:
    exe = ptxas()
    results = compile_launches(drivers(), keep_ptx=True)
    if isinstance(results, str) or exe is None:
        why = results if isinstance(results, str) else "no ptxas (pip install nvidia-cuda-nvcc)"
        print(f"yatmath.bench.kernels: cannot compile here: {why}", file=sys.stderr)
        return 3
    broken = [r for r in results if not r["ok"]]
    print(f"GPU kernels compiled for sm_{CC[0]}{CC[1]} without a device (ptxas {exe}); "
          "registers per thread, spill bytes, shared memory per block and the occupancy they "
          "allow on an H100 (static facts of the compiled code, not timings)")
    print(format_resources(resource_rows(results, exe)))
    for r in broken:
        print(f"NOT OK {r['driver']} {r['kernel']}: {r.get('error') or r.get('forbidden')}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
