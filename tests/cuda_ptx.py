"""Compile every yatmath GPU kernel to PTX on a machine without a GPU (run as a script).

    python tests/cuda_ptx.py   ->  one JSON list on stdout, an entry per kernel compilation

numba-cuda's simulator (how CI executes the kernels' logic) runs kernel source as Python, so it
cannot see what only the compiler sees: a NumPy function that numba-cuda cannot lower (on the
H100 run of 2026-11-27, 20 of 21 kernel-test failures were ``np.sqrt`` failing to lower on NumPy
2.5), a type that does not unify, an array created with a size that is not a compile-time
constant.  This script runs each kernel driver of yatmath once per dtype on small NumPy arrays
with the launch replaced by a compilation: NVVM (the ``nvidia-nvvm`` wheel, no driver or
device needed) compiles the kernel for the argument types of the launch, for compute capability
9.0 (H100), and the PTX is inspected for what ``yatmath._cuda`` promises about floating point:
no float32 flush-to-zero and no approximate division or square root (:func:`forbidden`).  Nothing is computed: the
drivers' outputs are uninitialised arrays.

Where ``numba.cuda`` cannot compile (no NVVM), the script prints ``{"unavailable": reason}``.
It must run in a process of its own: the test suite's process uses the simulator.
"""
from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

CC = (9, 0)


def forbidden(mnemonic: str) -> bool:
    """Whether a PTX instruction breaks ``yatmath._cuda``'s floating-point promise (compiled
    without fastmath): float32 flush-to-zero (``*.ftz*.f32``), approximate or "full-range"
    division, approximate square root, an approximate float32 reciprocal.  libdevice's float64
    routines (``pow``, ``log``) seed a Newton iteration with ``rcp.approx.ftz.f64`` and are
    accurate to their documented ulps: that one is allowed."""
    m = mnemonic
    return (m.endswith(".f32") and (".ftz" in m or m.startswith("rcp.approx"))) or \
        m.startswith(("div.approx", "div.full", "sqrt.approx"))


def forbidden_instructions(ptx: str) -> list[str]:
    """The distinct forbidden mnemonics of a PTX text (predicates like ``@%p1`` skipped)."""
    out = set()
    for line in ptx.splitlines():
        words = line.split()
        while words and words[0].startswith("@"):
            words = words[1:]
        if words and forbidden(words[0].rstrip(";")):
            out.add(words[0].rstrip(";"))
    return sorted(out)


def _drivers():
    """(name, call) of every kernel driver, each called on small float32 and float64 arrays."""
    import numpy as np

    from yatmath.particles import _cuda_kernels as pk
    from yatmath.yat import _cuda_attention as ca
    from yatmath.yat import _cuda_kernels as ck

    out = []
    for dt in (np.float32, np.float64):
        r = np.random.default_rng(0)

        def a(*shape, dt=dt, r=r):
            return np.ascontiguousarray(r.standard_normal(shape).astype(dt))

        n = dt.__name__
        X, W, G = a(5, 3), a(7, 3), a(5, 7)
        b = a(7)
        out += [
            (f"yat gram {n}", lambda X=X, W=W, b=b: ck.gram(X, W, 1.0, b, 1, 1e-3)),
            (f"yat backward_pass {n}",
             lambda X=X, W=W, G=G, b=b: ck.backward_pass(X, W, G, 1.0, b, 2, 1e-3, 0.5)),
            (f"yat matvec tiled d=3 k=1 {n}",
             lambda X=X, W=W, b=b, V=a(7, 1): ck.matvec(X, W, V, 1.0, b, 1, 1e-3, 4, 4)),
            (f"yat matvec tiled d=64 k=2 {n}",
             lambda b=b, X=a(5, 64), W=a(7, 64), V=a(7, 2): ck.matvec(X, W, V, 1.0, b, 0, 1e-3,
                                                                       4, 4)),
            (f"yat attention softmax causal {n}",
             lambda Q=a(2, 5, 3), K=a(2, 6, 3), V=a(2, 6, 2): ca.attention(
                 Q, K, V, 1.0, 0.5, "softmax", True)),
            (f"yat attention softermax {n}",
             lambda Q=a(2, 5, 3), K=a(2, 6, 3), V=a(2, 6, 2): ca.attention(
                 Q, K, V, 1.0, 0.5, "softermax", False, 2.0, 0.1)),
        ]
    x64 = np.random.default_rng(1).standard_normal((9, 3))
    out += [
        ("yat round_to float64->float32", lambda: ck.round_to(x64, np.float32)),
        ("yat finish", lambda: ck.finish(x64[:, 0].copy(), x64[:, 1] ** 2 + 1, x64[:, 2].copy(),
                                         2)),
        ("yat needs_repair", lambda: ck.needs_repair(x64[:, 0].copy(), x64[:, 1] ** 2, 1e-3)),
        ("particles force_sum", lambda: pk.force_sum(x64, 0, 1.0, 1.0, 0.01, -1.0)),
        ("particles potential_sum", lambda: pk.potential_sum(x64, 1.0, 0.01, -1.0)),
        ("particles random_batch",
         lambda: pk.random_batch(x64, np.arange(9, dtype=np.int64), 3, 0, 1.0, 1.0, 0.01, -1.0)),
        ("particles cfac_values", lambda: pk.cfac_values(x64[:, 0] ** 2 + 0.1, 0, 1.0, 1.0)),
    ]
    return out


def _broken_drivers():
    """Two kernels that must be reported (``YATMATH_PTX_SELFTEST=1``): one that numba-cuda
    cannot lower on NumPy 2.5 (``np.sqrt``, what failed on the H100), one compiled with
    fastmath (approximate division, float32 flush-to-zero)."""
    import numpy as np

    from yatmath import _cuda

    cu = _cuda.cuda()

    def np_sqrt(x, out):
        i = cu.grid(1)
        if i < x.shape[0]:
            out[i] = np.sqrt(x[i])

    def fast_div(x, out):
        i = cu.grid(1)
        if i < x.shape[0]:
            out[i] = 1.0 / x[i] + x[i] * x[i]

    x = np.ones(4, dtype=np.float32)
    lowering, fast = cu.jit(np_sqrt), cu.jit(fastmath=True)(fast_div)
    return [("selftest np.sqrt", lambda: lowering[1, 4](x, np.empty_like(x))),
            ("selftest fastmath", lambda: fast[1, 4](x, np.empty_like(x)))]


def main() -> int:
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from yatmath import _cuda

    try:
        nc = _cuda.cuda()
        nc.compile_ptx(lambda: None, (), cc=CC)
    except Exception as exc:  # no NVVM here: say so, the test skips naming why
        print(json.dumps({"unavailable": f"{type(exc).__name__}: {exc}"[:400]}))
        return 0
    import numba.cuda.dispatcher as D

    # device functions are compiled for the current device's compute capability: there is no
    # device, so name the one the kernels are compiled for
    D.get_current_device = lambda: types.SimpleNamespace(compute_capability=CC)
    results: list[dict] = []
    current = {"driver": ""}

    def compile_instead_of_launch(self, args, launch_config):
        argtypes = tuple(self.typeof_pyval(x) for x in args)
        entry = dict(driver=current["driver"], kernel=self.py_func.__qualname__,
                     module=self.py_func.__module__, signature=str(argtypes))
        try:
            ptx, _ = nc.compile_ptx(self.py_func, argtypes, cc=CC,
                                    fastmath=bool(self.targetoptions.get("fastmath")))
        except Exception as exc:
            entry.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:1500])
        else:
            bad = forbidden_instructions(ptx)
            entry.update(ok=not bad, forbidden=bad, instructions=len(ptx.splitlines()))
        results.append(entry)

    D.CUDADispatcher.call = compile_instead_of_launch
    drivers = _drivers()
    if os.environ.get("YATMATH_PTX_SELFTEST") == "1":
        drivers += _broken_drivers()
    for name, call in drivers:
        current["driver"] = name
        try:
            call()
        except Exception as exc:  # the driver itself broke before or after its launches
            results.append(dict(driver=name, kernel="", module="", signature="", ok=False,
                                error=f"driver: {type(exc).__name__}: {exc}"[:1500]))
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
