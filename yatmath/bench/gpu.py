"""GPU benchmarks: ``yatmath bench gpu`` (also ``python benchmarks/bench_gpu.py``).

Every CuPy path of yatmath is timed against CuPy's own primitive doing work of the same shape,
both measured in this run on the same device, with a CUDA synchronisation before each clock
stop (``best_time(..., sync=...)``; minimum over repeats, after a warm-up run that also
compiles the kernels).  The printed ratio is ``t_path / t_baseline`` (> 1: slower than the
primitive).

=====================================  ==========================================================
path (CuPy input, backend "auto")      baseline (plain CuPy, same shapes and dtype)
=====================================  ==========================================================
``yat.gram(X, W)``                     ``X @ W.T``
``yat.matvec(X, Y, v)``, d = 3, 64     the same (rows x cols) tiles: ``(X_t @ Y_t.T) @ v_t``
                                       summed in float64 (the GEMMs without the kernel)
``yat.attention(Q, K, V)`` (the fused  ``softmax(Q K^T / sqrt(d)) V`` (row max subtracted)
'cupy' row: ``yat/_cuda_attention``)
``yat.conv2d(image, filters)``         the im2col GEMM ``P @ F.reshape(O, -1).T`` (P, the
                                       patch matrix, built outside the timing)
feature map ``phi(X)`` (RFF, FAVOR+,   ``X @ Omega``, Omega (d, F); for the Yat map (d, 3F),
softplus, Yat laplace_mc)              its own three projections (``PROJECTIONS``)
``yat.linear_attention`` (FAVOR+)      its two matmuls ``phi(Q) @ (phi(K)^T V)``, features
                                       precomputed (the path also evaluates phi and the
                                       normaliser)
``itnet.apply(mode="tiled")``          the dense einsum ``sum_j omega_j K_ij u_j + W u_i`` with
                                       the (n, n, d, d) kernel tensor precomputed (small n)
``itnet.apply(mode="tiled")``, n=4096  ``itnet.apply(mode="dense")``: tensor and contraction
                                       on the device (where dense still fits)
causal ``yat.linear_attention``        the non-causal ``yat.linear_attention`` (same inputs)
``particles.interaction_force``        ``X_c @ X.T`` over row chunks c: a GEMM of the same pair
                                       count N^2 and the same d
=====================================  ==========================================================

Each row whose path has one of issue 22's pace targets (:mod:`yatmath.bench.targets`) prints
the target beside its ratio and whether it was met.

Feature maps, linear attention, ITNet and particle forces compute in float64 whatever the input
dtype, so they are timed in float64; the Yat kernel paths in float32 and float64.

Without CuPy or a CUDA device the command says so in one line on stderr and exits 3 (nothing
was measured, so a script relying on the numbers notices).
The case builders take the array module ``xp``, so the CPU tests run them with NumPy at tiny
sizes to check that each baseline computes what its row says.
"""
from __future__ import annotations

import sys

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .. import _array, _platform
from .._typing import Array, Namespace
from .targets import judge
from .timing import best_time

#: Problem sizes.  "full" for a real GPU run, "quick" for a smoke run.  conv = (N, C, H = W, O);
#: att = (heads, L, d); feat = (n, d, F); la = (L, d, F, dv); itnet = (n, d) against the einsum,
#: itnet_dense = (n, d) against the dense mode.
SIZES = {
    "full": dict(gram_n=8192, gram_d=(64, 256), mv_n=32768, mv_d=(3, 64), mv_tile=(1024, 4096),
                 att=(8, 1024, 64), conv=(8, 32, 64, 64), feat=(16384, 64, 256),
                 la=(16384, 64, 256, 64), itnet=(256, 8), itnet_dense=(4096, 8), force_n=16384,
                 force_chunk=1024),
    "quick": dict(gram_n=1024, gram_d=(64,), mv_n=4096, mv_d=(3, 64), mv_tile=(1024, 4096),
                  att=(4, 256, 64), conv=(2, 16, 32, 32), feat=(4096, 64, 256),
                  la=(4096, 64, 256, 64), itnet=(64, 8), itnet_dense=(512, 8), force_n=4096,
                  force_chunk=1024),
}
EPS = 1.0


class Case(NamedTuple):
    """One row of the table: ``setup()`` allocates the inputs and returns (run_path, run_base)."""

    path: str
    baseline: str
    size: str
    setup: Callable[[], tuple]


def _dtype_name(dt: Any) -> str:
    return np.dtype(dt).name


def _gram_cases(xp, S, dtypes):
    from ..yat import gram

    out = []
    n = S["gram_n"]
    for d in S["gram_d"]:
        for dt in dtypes:
            def setup(d=d, dt=dt):
                rng = np.random.default_rng(0)
                X = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                W = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                return (lambda: gram(X, W, eps=EPS)), (lambda: X @ W.T)
            out.append(Case("yat gram", "matmul X @ W.T", f"n={n} d={d} {_dtype_name(dt)}",
                            setup))
    return out


def tiled_matmul(X: Array, Y: Array, v: Array, tile: tuple[int, int], xp: Namespace) -> Array:
    """``sum_j (X Y^T)_ij v_j`` by the (rows x cols) tiles of ``yat.matvec``: the same GEMMs and
    float64 accumulation, without the kernel transform (the matvec baseline)."""
    rows, cols = tile
    V = v[:, None] if v.ndim == 1 else v
    out = xp.zeros((X.shape[0], V.shape[1]), dtype=xp.float64)
    for j0 in range(0, Y.shape[0], cols):
        Yt, Vt = Y[j0:j0 + cols], V[j0:j0 + cols].astype(xp.float64)
        for i0 in range(0, X.shape[0], rows):
            out[i0:i0 + rows] += (X[i0:i0 + rows] @ Yt.T).astype(xp.float64) @ Vt
    return out[:, 0] if v.ndim == 1 else out


def _matvec_cases(xp, S, dtypes):
    from ..yat import matvec

    out = []
    n, tile = S["mv_n"], S["mv_tile"]
    for d in S["mv_d"]:
        for dt in dtypes:
            def setup(d=d, dt=dt):
                rng = np.random.default_rng(1)
                X = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                Y = xp.asarray(rng.standard_normal((n, d)).astype(dt))
                v = xp.asarray(rng.standard_normal(n).astype(dt))
                return (lambda: matvec(X, Y, v, eps=EPS, tile=tile),
                        lambda: tiled_matmul(X, Y, v, tile, xp))
            out.append(Case("yat matvec", f"tiled matmul {tile[0]}x{tile[1]}",
                            f"n=m={n} d={d} {_dtype_name(dt)}", setup))
    return out


def softmax_attention(Q: Array, K: Array, V: Array, xp: Namespace) -> Array:
    """``softmax(Q K^T / sqrt(d)) V`` over the last axis, row maximum subtracted."""
    Z = (Q @ xp.swapaxes(K, -1, -2)) * (1.0 / math.sqrt(Q.shape[-1]))
    Z = Z - Z.max(axis=-1, keepdims=True)
    E = xp.exp(Z)
    return (E / E.sum(axis=-1, keepdims=True)) @ V


def _fused_attention(d: int, dv: int) -> bool:
    """Whether the fused 'cupy' attention row (``yat/_cuda_attention.py``) takes these widths
    (False without numba-cuda); beyond them the row runs the reference on the device."""
    try:
        from ..yat._cuda_attention import supported
    except ImportError:
        return False
    return supported(d, dv)


def _attention_cases(xp, S, dtypes):
    from ..yat import attention

    H, L, d = S["att"]
    fused = "" if _fused_attention(d, d) else " (reference: not the fused kernel)"
    out = []
    for dt in dtypes:
        def setup(dt=dt):
            rng = np.random.default_rng(2)
            Q, K, V = (xp.asarray(rng.standard_normal((H, L, d)).astype(dt)) for _ in range(3))
            # on the device the 'cupy' row, named (a missing row is an error, not a silent
            # reference); NumPy (the CPU tests of the builders) the default row
            backend = "cupy" if _array.is_cupy(Q) else "auto"
            return (lambda: attention(Q, K, V, EPS, backend=backend)), \
                (lambda: softmax_attention(Q, K, V, xp))
        out.append(Case("yat attention", "softmax(QK^T/sqrt d) V",
                        f"heads={H} L={L} d={d} {_dtype_name(dt)}{fused}", setup))
    return out


def im2col(image: Array, kh: int, kw: int, padding: int, xp: Namespace) -> Array:
    """(N Ho Wo, C kh kw) patch matrix of a stride-1 correlation with zero padding; rows ordered
    (n, y, x), columns (c, i, j) like ``filters.reshape(O, -1)``."""
    N, C = image.shape[:2]
    pad = xp.pad(image, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    win = xp.lib.stride_tricks.sliding_window_view(pad, (kh, kw), axis=(2, 3))  # N C Ho Wo kh kw
    Ho, Wo = win.shape[2], win.shape[3]
    return xp.ascontiguousarray(xp.transpose(win, (0, 2, 3, 1, 4, 5)).reshape(N * Ho * Wo,
                                                                              C * kh * kw))


def _conv_cases(xp, S, dtypes):
    from ..yat import conv2d

    N, C, H, O = S["conv"]
    out = []
    for dt in dtypes:
        def setup(dt=dt):
            rng = np.random.default_rng(3)
            img = xp.asarray(rng.standard_normal((N, C, H, H)).astype(dt))
            F = xp.asarray(rng.standard_normal((O, C, 3, 3)).astype(dt))
            P = im2col(img, 3, 3, 1, xp)
            Fm = xp.ascontiguousarray(F.reshape(O, -1).T)
            return (lambda: conv2d(img, F, EPS, padding=1)), (lambda: P @ Fm)
        out.append(Case("yat conv2d 3x3 pad 1", "im2col matmul",
                        f"N={N} C={C} {H}x{H} O={O} {_dtype_name(dt)}", setup))
    return out


FEATURE_MAPS = ("rff", "favor+", "softplus", "yat laplace_mc")
#: Projections a map needs per feature: the Yat laplace map multiplies each of its F frequency
#: features by two random-feature factors of x (``features/yat.py``), so its own projection is
#: X [Omega | R | S] with 3F columns; its baseline is that matmul, not one of F columns.
PROJECTIONS = {"yat laplace_mc": 3}


def feature_map(name: str, d: int, F: int) -> Any:
    """The benchmarked map ``name`` of :data:`FEATURE_MAPS` (fixed seeds)."""
    from ..features import favor_plus, positive_features, rff, yat_features

    make = {"rff": lambda: rff(d, F, gamma=0.5, rng=4), "favor+": lambda: favor_plus(d, F, rng=5),
            "softplus": lambda: positive_features(d, F, "softplus", rng=6),
            "yat laplace_mc": lambda: yat_features(d, F, eps=EPS, rng=7)}
    return make[name]()


def _feature_cases(xp, S):
    n, d, F = S["feat"]
    out = []
    for name in FEATURE_MAPS:
        def setup(name=name):
            rng = np.random.default_rng(8)
            phi = feature_map(name, d, F)
            X = xp.asarray(0.3 * rng.standard_normal((n, d)))
            Om = xp.asarray(rng.standard_normal((d, PROJECTIONS.get(name, 1) * F)))
            return (lambda: phi(X)), (lambda: X @ Om)
        width = PROJECTIONS.get(name, 1)
        out.append(Case(f"features {name}", "matmul X @ Omega" + (f" ({width}F columns)"
                                                                  if width > 1 else ""),
                        f"n={n} d={d} F={F} float64", setup))
    return out


def linear_attention_matmuls(Pq: Array, Pk: Array, V: Array) -> Array:
    """The two matmuls of non-causal linear attention: ``Pq @ (Pk^T V)``."""
    return Pq @ (Pk.T @ V)


def _linear_attention_cases(xp, S):
    from ..features import favor_plus
    from ..yat import linear_attention

    L, d, F, dv = S["la"]
    out = []
    for causal in (False, True):
        def setup(causal=causal):
            rng = np.random.default_rng(9)
            phi = favor_plus(d, F, rng=10)
            Q, K = (xp.asarray(0.3 * rng.standard_normal((L, d))) for _ in range(2))
            V = xp.asarray(rng.standard_normal((L, dv)))
            Pq, Pk = phi(Q), phi(K)
            return (lambda: linear_attention(Q, K, V, phi, causal)), \
                (lambda: linear_attention_matmuls(Pq, Pk, V))
        out.append(Case(f"linear attention FAVOR+{' causal' if causal else ''}",
                        "two matmuls", f"L={L} d={d} F={F} dv={dv} float64", setup))

    def setup_causal():
        rng = np.random.default_rng(9)
        phi = favor_plus(d, F, rng=10)
        Q, K = (xp.asarray(0.3 * rng.standard_normal((L, d))) for _ in range(2))
        V = xp.asarray(rng.standard_normal((L, dv)))
        return (lambda: linear_attention(Q, K, V, phi, True)), \
            (lambda: linear_attention(Q, K, V, phi, False))
    out.append(Case("linear attention FAVOR+ causal vs non-causal", "the non-causal form",
                    f"L={L} d={d} F={F} dv={dv} float64", setup_causal))
    return out


def itnet_problem(n: int, d: int, seed: int = 11) -> tuple[Any, Any, npt.NDArray[np.float64]]:
    """A random single-head ITNet operator on n nodes of [0, 1] (the benchmark's small size)."""
    from .. import itnet as it

    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(size=(n, 1)), axis=0)
    mu = it.Measure(X, rng.uniform(0.5, 1.5, n) / n)
    net = it.random_kernel_mlp(d, 1, width=16, L=3, rng=rng)
    op = it.ITNetOperator(net, rng.normal(size=(d, d)) / d, False, 1.0)
    return op, mu, rng.normal(size=(n, d))


def itnet_dense_einsum(Kt: Array, cU: Array, U: Array, WT: Array, xp: Namespace) -> Array:
    """``sum_j K_ij (omega_j u_j) + U W^T`` with the kernel tensor given."""
    return xp.einsum("ijab,jb->ia", Kt, cU) + U @ WT


def _itnet_cases(xp, S):
    from .. import itnet as it

    n, d = S["itnet"]

    def setup():
        op, mu, U = itnet_problem(n, d)
        Kt = xp.asarray(it.kernel_tensor(op, mu.nodes, mu.nodes, U, U))
        Ud = xp.asarray(U)
        cU = xp.asarray(mu.weights[:, None] * U)
        WT = xp.asarray(op.W.T)
        return (lambda: it.apply(op, Ud, mu, mode="tiled", tile=(64, 64))), \
            (lambda: itnet_dense_einsum(Kt, cU, Ud, WT, xp))
    nb, db = S["itnet_dense"]

    def setup_dense():
        op, mu, U = itnet_problem(nb, db)
        mud = it.Measure(xp.asarray(mu.nodes), xp.asarray(mu.weights))
        Ud = xp.asarray(U)
        return (lambda: it.apply(op, Ud, mud, mode="tiled", tile=(64, 64))), \
            (lambda: it.apply(op, Ud, mud, mode="dense"))
    return [Case("itnet tiled 64x64", "dense einsum (tensor given)",
                 f"n={n} d={d} width=16 float64", setup),
            Case("itnet tiled vs dense", "apply(mode='dense')",
                 f"n={nb} d={db} width=16 float64", setup_dense)]


def pair_matmul(X: Array, XT: Array, buf: Array, chunk: int, xp: Namespace) -> Array:
    """``X[c] @ X.T`` for every row chunk c into one reused buffer: N^2 pair dot products."""
    N = X.shape[0]
    for i0 in range(0, N, chunk):
        i1 = min(i0 + chunk, N)
        xp.matmul(X[i0:i1], XT, out=buf[:i1 - i0])
    return buf


def _force_cases(xp, S):
    from ..particles import interaction_force

    N, chunk = S["force_n"], S["force_chunk"]

    def setup():
        X = xp.asarray(np.random.default_rng(12).standard_normal((N, 3)))
        XT = xp.ascontiguousarray(X.T)
        buf = xp.empty((min(chunk, N), N))
        return (lambda: interaction_force(X, "plummer", 1.0, 0.1)), \
            (lambda: pair_matmul(X, XT, buf, chunk, xp))
    return [Case("particle forces (plummer)", "pair-count matmul", f"N={N} d=3 float64", setup)]


def cases(xp: Namespace, sizes: Mapping[str, Any],
          dtypes: Sequence[Any] = (np.float32, np.float64)) -> list[Case]:
    """Every benchmark case, built on the array module ``xp`` with the given sizes."""
    return (_gram_cases(xp, sizes, dtypes) + _matvec_cases(xp, sizes, dtypes)
            + _attention_cases(xp, sizes, dtypes) + _conv_cases(xp, sizes, dtypes)
            + _feature_cases(xp, sizes) + _linear_attention_cases(xp, sizes)
            + _itnet_cases(xp, sizes) + _force_cases(xp, sizes))


def measure(case: Case, *, sync: Callable[[], Any] | None = None,
            repeat: int = 10) -> dict[str, Any]:
    """Time one case (min of ``repeat`` runs after one warm-up, ``sync`` before each stop)."""
    run_path, run_base = case.setup()
    t_path = best_time(run_path, repeat=repeat, sync=sync)
    t_base = best_time(run_base, repeat=repeat, sync=sync)
    return dict(path=case.path, baseline=case.baseline, size=case.size, t_path=t_path,
                t_base=t_base)


def ratio_rows(timings: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Table rows from measured timings.

    Each timing is a mapping with ``path``, ``baseline``, ``size`` and the times ``t_path`` and
    ``t_base`` in seconds (finite, > 0).  Each row adds ``path_ms``, ``base_ms`` (milliseconds)
    and ``ratio = t_path / t_base``.
    """
    rows = []
    for k, t in enumerate(timings):
        for key in ("path", "baseline", "size", "t_path", "t_base"):
            if key not in t:
                raise ValueError(f"timings[{k}] has no {key!r} entry")
        for key in ("t_path", "t_base"):
            v = t[key]
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (
                    math.isfinite(v) and v > 0):  # type: ignore[operator]
                raise ValueError(f"timings[{k}][{key!r}] must be a finite time > 0 seconds, "
                                 f"got {v!r}")
        rows.append(dict(t, path_ms=1e3 * t["t_path"], base_ms=1e3 * t["t_base"],
                         ratio=t["t_path"] / t["t_base"]))
    return rows


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a fixed-width text table (ratio = path / baseline), each row's pace target
    and whether it was met beside it (:func:`yatmath.bench.targets.judge`)."""
    wp = max([len("path")] + [len(r["path"]) for r in rows])
    wb = max([len("baseline")] + [len(r["baseline"]) for r in rows])
    ws = max([len("size")] + [len(r["size"]) for r in rows])
    header = (f"{'path':<{wp}}  {'baseline':<{wb}}  {'size':<{ws}}  {'path ms':>9}  "
              f"{'base ms':>9}  {'ratio':>7}  {'target':>8}  verdict")
    lines = [header]
    for r in rows:
        target, verdict = judge(r)
        lines.append(f"{r['path']:<{wp}}  {r['baseline']:<{wb}}  {r['size']:<{ws}}  "
                     f"{r['path_ms']:>9.3f}  {r['base_ms']:>9.3f}  {r['ratio']:>7.2f}  "
                     f"{target:>8}  {verdict}".rstrip())
    return "\n".join(lines)


from ..cli_args import EXIT_UNAVAILABLE  # noqa: E402  (the exit status without a device)

NO_DEVICE = "yatmath bench gpu: no CuPy device found (CuPy is not installed or sees no CUDA " \
    "device); nothing measured"


def main(quick: bool = False) -> int:
    cp = _array.cupy_module()
    if cp is None:  # nothing was measured: a script or CI step relying on it must notice
        print(NO_DEVICE, file=sys.stderr)
        return EXIT_UNAVAILABLE
    info = _platform.info()
    repeat = 3 if quick else 10
    print(f"yatmath bench gpu  cupy {info['cupy']}  device: {info['cuda_device']}  "
          f"({'quick' if quick else 'full'} sizes; min of {repeat} runs after a warm-up, "
          "CUDA-synchronised; ratio = path / CuPy baseline)")
    sync = cp.cuda.get_current_stream().synchronize
    timings = []
    for case in cases(cp, SIZES["quick" if quick else "full"]):
        timings.append(measure(case, sync=sync, repeat=repeat))
        cp.get_default_memory_pool().free_all_blocks()
    print(format_table(ratio_rows(timings)))
    return 0
