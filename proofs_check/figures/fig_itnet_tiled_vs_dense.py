"""Tiled against dense evaluation of the ITNet operator, by dtype and tile shape (003 §3.1, Alg. 1;
algorithms.md I3).

One operator with a random kernel network (``random_kernel_mlp``, all seven input groups, d = 4)
on n keys (midpoint nodes on [0, 1], omega = 1/n), non-causal and causal (diag_weight 1).  The
residual is W = 0: both modes add W u with the same matrix product, so it would only dilute the
error of the integral, which is the part tiling changes.  For each tile shape (bq, bk) --
including 1 x 1 and ragged shapes that do not divide n -- and each CPU backend of
``apply(mode="tiled")`` (``numba``; ``numpy``, the array-module path that CuPy also runs), the
output is compared with the float64 dense reference ``apply(mode="dense")``:

    rel. error = max_ia |O_tiled - O_dense| / max_ia |O_dense|.

float32: the features U are rounded to float32 and passed as float32 (the tiled mode then works
in float32); the dense reference is evaluated in float64 *on the same rounded U*, so the error is
the float32 arithmetic alone.  Expected sizes: float64 ~ a few u_64 = 1.1e-16 times a modest
factor (summation order, the angle-difference evaluation of gamma(x - y)); float32 ~ a few
u_32 = 6e-8 times sqrt(n)-ish growth.  Targets (issue 5): <= 1e-12 (float64), <= 1e-4 (float32).
(Measured with seed 0: float64 <= 1e-15, float32 ~ 1e-7.  The Numba kernel visits the keys of a
query in order, so its result does not depend on the tile shape at all.)
"""
from __future__ import annotations

import numpy as np

from yatmath import info
from yatmath.itnet import ITNetOperator, apply, interval_rule, random_kernel_mlp

from .fig_itnet_special_kernels import room_for_stamp
from ._common import rng_for, stamp
from .registry import register_figure

DTYPES = ("float64", "float32")
TARGET = {"float64": 1e-12, "float32": 1e-4}
UNIT_ROUNDOFF = {"float64": 2.0 ** -53, "float32": 2.0 ** -24}


def backends():
    return ("numba", "numpy") if info()["numba"] is not None else ("numpy",)


def operators(seed, d=4, width=16, L=4, sigma=1.5):
    rng = rng_for(seed, 505)
    net = random_kernel_mlp(d, 1, width=width, L=L, sigma=sigma, rng=rng)
    W = np.zeros((d, d))
    return {"non-causal": ITNetOperator(net, W), "causal": ITNetOperator(net, W, causal=True)}


def rel_error(O, ref):
    return float(np.max(np.abs(np.asarray(O, float) - ref)) / np.max(np.abs(ref)))


def data(seed=0, n=200, d=4, tiles=((1, 1), (7, 13), (16, 16), (32, 64), (64, 32), (200, 200),
                                    (256, 256))):
    ops = operators(seed, d)
    meas = interval_rule("midpoint", n, 0.0, 1.0, normalised=True)
    U64 = rng_for(seed, 506).normal(size=(n, d))
    U32 = U64.astype(np.float32)
    inputs = {"float64": U64, "float32": U32}
    err = {}
    for case, op in ops.items():
        for dt in DTYPES:
            U = inputs[dt]
            ref = apply(op, U.astype(np.float64), meas, mode="dense")
            for be in backends():
                for t in tiles:
                    if be == "numpy" and t[0] * t[1] < 8:
                        continue                # the array-module loop is too slow per 1x1 tile
                    O = apply(op, U, meas, mode="tiled", tile=t, backend=be)
                    if O.dtype != np.dtype(dt):
                        raise RuntimeError(f"tiled mode returned {O.dtype} for {dt} input")
                    err[(case, dt, be, tuple(t))] = rel_error(O, ref)
    return {"err": err, "tiles": [tuple(t) for t in tiles], "backends": list(backends()),
            "cases": list(ops), "target": dict(TARGET),
            "params": {"n": int(n), "d": int(d), "width": 16, "L": 4, "sigma": 1.5,
                       "measure": "midpoint on [0,1], normalised (omega = 1/n)",
                       "tiles": [f"{a}x{b}" for a, b in tiles], "backends": list(backends()),
                       "factorised": True, "causal_diag_weight": 1.0, "W": "0",
                       "error": "max|O_tiled - O_dense| / max|O_dense|", "seed": int(seed)}}


@register_figure("itnet_tiled_vs_dense", paper="003 §3.1, Alg. 1 (no paper figure)",
                 title="ITNet tiled vs dense: relative error by dtype and tile shape", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 5.6)
    room_for_stamp(fig)
    axs = fig.subplots(1, len(d["cases"]), sharey=True)
    tiles = d["tiles"]
    x = np.arange(len(tiles))
    markers = {"numba": "o", "numpy": "s"}
    colors = {"float64": "C0", "float32": "C3"}
    for ax, case in zip(np.atleast_1d(axs), d["cases"]):
        for k, dt in enumerate(DTYPES):
            for m, be in enumerate(d["backends"]):
                xs, ys = [], []
                for i, t in enumerate(tiles):
                    e = d["err"].get((case, dt, be, t))
                    if e is not None:
                        xs.append(i + 0.12 * (2 * m - 1))
                        ys.append(max(e, 1e-18))
                ax.semilogy(xs, ys, markers[be], color=colors[dt], mfc="none" if be == "numpy" else None,
                            label=f"{dt}, {be}")
            ax.axhline(d["target"][dt], color=colors[dt], ls="--", lw=0.8,
                       label=f"target {d['target'][dt]:g} ({dt})")
            ax.axhline(UNIT_ROUNDOFF[dt], color=colors[dt], ls=":", lw=0.8, label=f"u ({dt})")
        ax.set_xticks(x, [f"{a}x{b}" for a, b in tiles], rotation=30)
        ax.set_xlabel("tile (bq x bk)")
        ax.set_title(f"{case} operator", fontsize=10)
        ax.grid(True, which="both", axis="y", alpha=0.3)
    np.atleast_1d(axs)[0].set_ylabel("max|O_tiled - O_dense| / max|O_dense|")
    np.atleast_1d(axs)[0].legend(fontsize=7, loc="center left")
    fig.suptitle(f"Tiled vs dense ITNet forward, n = {p['n']} keys, d = {p['d']}, random kernel "
                 f"MLP (width {p['width']}, L = {p['L']}); dense reference in float64 on the same "
                 f"(rounded) inputs", fontsize=10)
    stamp(fig, p, keys=["measure", "backends", "factorised", "causal_diag_weight", "seed"])
