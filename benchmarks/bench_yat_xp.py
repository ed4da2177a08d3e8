"""Issue 12: NumPy speed of yat.attention / attention_backward / conv2d before and after the
array-API rewrite, interleaved in one process.

    python benchmarks/bench_yat_xp.py               # 5 rounds (about 2-3 minutes)
    python benchmarks/bench_yat_xp.py --quick       # tiny sizes, 2 rounds (smoke run)
    python benchmarks/bench_yat_xp.py --base REV --rounds 7

"before" is ``yatmath/yat/attention.py`` and ``conv.py`` of ``--base`` (default 75eae98, the
last commit before the rewrite; read with ``git show``, no git command that changes state), executed as modules of the installed
``yatmath.yat`` package, so both sides share every dependency (``yat.gram`` and its Numba path,
``layer.pair_backward``, the squashers): the difference is the code of those two files only.
The old conv module's registry calls are neutralised (it must not replace the current rows) and
its ``choose`` returns its own implementation.

Per round every measure runs before then after (ABAB...), each the minimum over ``--repeat``
calls after one untimed warm-up call of the same shape.  The table gives the median over rounds
of each side and of the per-round ratio after/before (min-max of the ratios): < 1 is faster.
conv2d's NumPy results are compared to rounding (rtol 1e-12 float64, 1e-5 float32): since
conv2d is one array-API code for every library, ||patch||^2 is summed in another order.
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import timeit
import types
from pathlib import Path

import numpy as np

from yatmath import _registry as registry
from yatmath import yat
from yatmath.yat import conv as conv_new

REPO = Path(__file__).resolve().parents[1]


def load_old(name: str, rev: str):
    """``yatmath/yat/<name>.py`` at ``rev`` as module ``yatmath.yat._old_<name>``."""
    src = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:yatmath/yat/{name}.py"],
                         check=True, capture_output=True, text=True).stdout
    modname = f"yatmath.yat._old_{name}"   # a submodule name: its relative imports resolve
    real_register = registry.register
    registry.register = lambda *a, **k: (lambda f: f)      # the old rows must not replace ours
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"_old_{name}.py"
            path.write_text(src)
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
    finally:
        registry.register = real_register
    if hasattr(mod, "_conv2d_arrays"):
        own = types.SimpleNamespace(func=mod._conv2d_arrays)
        mod.choose = lambda *a, **k: own
    return mod


def best(fn, repeat):
    fn()                                              # warm-up: compilation, caches
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def measures(quick):
    rng = np.random.default_rng(0)
    out = []
    att_shapes = [(2, 64, 16)] if quick else [(4, 256, 64), (1, 1024, 32)]
    for dt in (np.float64, np.float32):
        for lead, L, d in att_shapes:
            Q, K, V = (rng.standard_normal((lead, L, d)).astype(dt) for _ in range(3))
            dO = rng.standard_normal((lead, L, d)).astype(dt)
            tag = f"({lead},{L},{d}) {np.dtype(dt).name}"
            out.append((f"attention causal {tag}",
                        lambda m, Q=Q, K=K, V=V: m.attention(Q, K, V, 0.5, True)))
            out.append((f"attention softermax {tag}",
                        lambda m, Q=Q, K=K, V=V: m.attention(Q, K, V, 0.5, normalize="softermax",
                                                             power=2.0)))
            out.append((f"attention_backward {tag}",
                        lambda m, Q=Q, K=K, V=V, dO=dO: m.attention_backward(
                            dO, m.attention(Q, K, V, 0.5, True, return_cache=True)[1])))
        conv_shapes = ([((2, 3, 12, 12), (4, 3, 3, 3), 1, 1)] if quick else
                       [((8, 16, 32, 32), (32, 16, 3, 3), 1, 1),
                        ((1, 3, 128, 128), (16, 3, 5, 5), 2, 2)])
        for ishape, fshape, s, p in conv_shapes:
            img = rng.standard_normal(ishape).astype(dt)
            F = rng.standard_normal(fshape).astype(dt)
            F[0] = img[0, :, :fshape[2], :fshape[3]]          # one exact match: the repair runs
            tag = (f"{ishape[0]}x{ishape[1]}x{ishape[2]}x{ishape[3]} * {fshape[0]}x{fshape[1]}"
                   f"x{fshape[2]}x{fshape[3]} s{s}p{p} {np.dtype(dt).name}")
            out.append((f"conv2d {tag}",
                        lambda m, img=img, F=F, s=s, p=p: m.conv2d(img, F, 1e-3, s, p)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="75eae98")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    old_att, old_conv = load_old("attention", args.base), load_old("conv", args.base)
    old = types.SimpleNamespace(attention=old_att.attention,
                                attention_backward=old_att.attention_backward,
                                conv2d=old_conv.conv2d)
    ms = measures(args.quick)
    times = {name: ([], []) for name, _ in ms}
    for name, fn in ms:       # attention: equal bit for bit; conv2d: ||patch||^2 summed in
        a, b = fn(old), fn(yat)   # another order since it is one code for every library
        a = a if isinstance(a, tuple) else (a,)
        b = b if isinstance(b, tuple) else (b,)
        for x, y in zip(a, b):
            if isinstance(x, np.ndarray):
                if name.startswith("conv2d"):
                    np.testing.assert_allclose(y, x, rtol=1e-5 if x.dtype == np.float32
                                               else 1e-12, err_msg=name)
                else:
                    assert np.array_equal(x, y), name
    for _ in range(rounds):
        for name, fn in ms:
            pair = (lambda fn=fn: fn(old), lambda fn=fn: fn(yat))
            for k, f in enumerate(pair):
                times[name][k].append(best(f, args.repeat))
    print(f"NumPy {np.__version__}; before = {args.base}:yatmath/yat/{{attention,conv}}.py, "
          f"after = working tree; {rounds} rounds x min of {args.repeat}")
    print("ms: median over rounds [min over rounds]; ratio: median of per-round after/before "
          "(min-max)")
    print(f"{'measure':52s} {'before ms':>17s} {'after ms':>17s} {'after/before':>20s}")
    for name, (b, a) in times.items():
        ratios = [y / x for x, y in zip(b, a)]
        print(f"{name:52s} {1e3 * statistics.median(b):8.2f} [{1e3 * min(b):6.2f}] "
              f"{1e3 * statistics.median(a):8.2f} [{1e3 * min(a):6.2f}] "
              f"{statistics.median(ratios):6.3f} ({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
