"""Pairwise sums at the device's pace: yatmath's GPU kernels against a baseline of the same work.

Each row times one yatmath path on CuPy input and, in the same process and interleaved with it,
a baseline.  Two kinds of baseline:

``plain``      a plain CUDA C kernel compiled here by CuPy: one thread per target row, the source
               rows staged in shared memory in tiles of 128, the sum in a register, the
               arithmetic in the input dtype.  That plain kernel is what an H100 reached on
               2026-11-27 (``shared/device-runs/2026-11-27-h100``); it is the yardstick, not a
               competitor: yatmath's kernels compute every pair in float64 (the accuracy bound
               of ``yat.kernel``), so in float32 the plain kernel does cheaper arithmetic.
``reference``  the generic array-API reference run by CuPy on the device (what the "cupy" row
               of the potential and of the random batch force ran before they had kernels:
               N x N row chunks resp. per-batch arrays); both sides are the registry rows
               (``choose(op, "cupy" | "reference", "cupy")``), finish steps included,
               argument validation not.

==========================  =============  ========================================================
path                        baseline       work
==========================  =============  ========================================================
``yat.matvec(X, Y, v)``     plain          sum_j (x_i . y_j)^2 / (||x_i - y_j||^2 + eps) v_j
``interaction_force``       plain          Plummer (s = 1, delta): sum_l -a (x_k - x_l) / q^{3/2}
potential row               reference      Plummer (s = 1, delta): sum_{l != k} q^{-1/2}, n / 4
                                           particles (the reference's chunks take seconds at n)
random batch row            reference      Plummer (s = 1, delta), batches of ``BATCH``: n *
                                           ``BATCH`` pairs
==========================  =============  ========================================================

Reported: pairs per second (pairs / time, median of ``repeat`` interleaved runs after a warm-up
that also compiles) and the time ratio yatmath / baseline.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

_SRC = r"""
template <typename T, int D, int TILE>
__global__ void plain_yat_matvec(const T* __restrict__ X, const T* __restrict__ Y,
                                 const T* __restrict__ v, const T eps, const int n, const int m,
                                 T* __restrict__ out) {
    __shared__ T ys[TILE * D];
    __shared__ T vs[TILE];
    const int i = blockIdx.x * TILE + threadIdx.x;
    T xi[D];
    for (int k = 0; k < D; ++k) xi[k] = (i < n) ? X[(long long)i * D + k] : T(0);
    T acc = 0;
    for (int j0 = 0; j0 < m; j0 += TILE) {
        const int j = j0 + threadIdx.x;
        if (j < m) {
            for (int k = 0; k < D; ++k) ys[threadIdx.x * D + k] = Y[(long long)j * D + k];
            vs[threadIdx.x] = v[j];
        }
        __syncthreads();
        const int l1 = min(TILE, m - j0);
        for (int l = 0; l < l1; ++l) {
            T s = 0, q = 0;
            for (int k = 0; k < D; ++k) {
                const T y = ys[l * D + k];
                s += xi[k] * y;
                const T df = xi[k] - y;
                q += df * df;
            }
            acc += s * (s / (q + eps)) * vs[l];
        }
        __syncthreads();
    }
    if (i < n) out[i] = acc;
}

template <typename T>
__global__ void plain_plummer_force(const T* __restrict__ X, const int n, const T a, const T e2,
                                    T* __restrict__ out) {
    __shared__ T xs[128 * 3];
    const int i = blockIdx.x * 128 + threadIdx.x;
    T x0 = 0, x1 = 0, x2 = 0;
    if (i < n) { x0 = X[3 * i]; x1 = X[3 * i + 1]; x2 = X[3 * i + 2]; }
    T f0 = 0, f1 = 0, f2 = 0;
    for (int j0 = 0; j0 < n; j0 += 128) {
        const int j = j0 + threadIdx.x;
        if (j < n) for (int k = 0; k < 3; ++k) xs[3 * threadIdx.x + k] = X[3 * j + k];
        __syncthreads();
        const int l1 = min(128, n - j0);
        for (int l = 0; l < l1; ++l) {
            const T d0 = x0 - xs[3 * l], d1 = x1 - xs[3 * l + 1], d2 = x2 - xs[3 * l + 2];
            const T q = d0 * d0 + d1 * d1 + d2 * d2 + e2;
            const T c = (j0 + l == i) ? T(0) : a / (q * sqrt(q));
            f0 -= c * d0; f1 -= c * d1; f2 -= c * d2;
        }
        __syncthreads();
    }
    if (i < n) { out[3 * i] = f0; out[3 * i + 1] = f1; out[3 * i + 2] = f2; }
}
"""

#: (path, dtype, d) of the rows against the plain kernel; n = m = N pairs of rows each.
ROWS = (("yat matvec", "float32", 3), ("yat matvec", "float64", 3), ("yat matvec", "float64", 64),
        ("plummer force", "float64", 3), ("plummer force", "float32", 3))
#: (path, op, d) of the rows against the reference on CuPy (float64: the rows' dtype).
REFERENCE_ROWS = (("potential", "particles.interaction_potential", 3),
                  ("random batch", "particles.random_batch_force", 3))
#: Batch size of the random-batch row.
BATCH = 16


def _tile(d, itemsize):
    """Rows per shared tile (= threads per block) of the plain matvec: 128, halved until the
    tile's (d + 1) values per row fit in 32 KiB of static shared memory (48 KiB is the limit)."""
    t = 128
    while t * (d + 1) * itemsize > 32 * 1024:
        t //= 2
    return t


def _module(cp):
    names = [f"plain_yat_matvec<{t},{d},{_tile(d, 4 if t == 'float' else 8)}>"
             for t in ("float", "double") for d in (3, 64)]
    names += ["plain_plummer_force<float>", "plain_plummer_force<double>"]
    return cp.RawModule(code=_SRC, options=("-std=c++14",), name_expressions=names), names


def _median_pair(a, b, sync, repeat):
    """Median seconds of a() and b(), interleaved, after one warm-up each."""
    ta, tb = [], []
    for fn in (a, b):
        fn()
        sync()
    for _ in range(repeat):
        for fn, acc in ((a, ta), (b, tb)):
            t0 = time.perf_counter()
            fn()
            sync()
            acc.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb)


def run(cp: Any, n: int = 131072, repeat: int = 5, eps: float = 1.0,
        delta: float = 0.1) -> list[dict[str, Any]]:
    """One dict per row of ``ROWS`` and ``REFERENCE_ROWS``: sizes, the baseline's name,
    yatmath and baseline pairs/s, time ratio."""
    from ..particles import interaction_force, make_interaction
    from ..yat import matvec

    mod, _ = _module(cp)
    sync = cp.cuda.get_current_stream().synchronize
    rng = np.random.default_rng(0)
    blocks = (n + 127) // 128
    out = []
    for path, dt, d in ROWS:
        T = np.dtype(dt).type
        ctype = "float" if dt == "float32" else "double"
        X = cp.asarray(rng.standard_normal((n, d)).astype(dt))
        if path == "yat matvec":
            Y = cp.asarray(rng.standard_normal((n, d)).astype(dt))
            v = cp.asarray(rng.standard_normal(n).astype(dt))
            res = cp.empty(n, dtype=dt)
            tile = _tile(d, np.dtype(dt).itemsize)
            kern = mod.get_function(f"plain_yat_matvec<{ctype},{d},{tile}>")

            def ours(X=X, Y=Y, v=v):
                return matvec(X, Y, v, eps=eps)

            def plain(X=X, Y=Y, v=v, res=res, kern=kern, T=T, tile=tile):
                kern(((n + tile - 1) // tile,), (tile,),
                     (X, Y, v, T(eps), np.int32(n), np.int32(n), res))
        else:
            inter = make_interaction("plummer", 1.0, delta)
            res = cp.empty((n, 3), dtype=dt)
            kern = mod.get_function(f"plain_plummer_force<{ctype}>")
            a = inter.a

            def ours(X=X, inter=inter):  # type: ignore[misc]  # one variant per row kind
                return interaction_force(X, inter)

            def plain(X=X, res=res, kern=kern, T=T, a=a):  # type: ignore[misc]
                kern((blocks,), (128,), (X, np.int32(n), T(a), T(delta * delta), res))
        t_ours, t_plain = _median_pair(ours, plain, sync, repeat)
        out.append(dict(path=path, dtype=dt, d=d, n=n, baseline="plain", ours=n * n / t_ours,
                        base=n * n / t_plain, ratio=t_ours / t_plain))
        del X
    out += _against_reference(cp, n, repeat, delta, sync, rng)
    return out


def _against_reference(cp: Any, n: int, repeat: int, delta: float, sync: Callable[[], Any],
                       rng: np.random.Generator) -> list[dict[str, Any]]:
    """The rows of ``REFERENCE_ROWS``: the "cupy" row beside the "reference" row on the same
    CuPy array (float64), interleaved."""
    from .._registry import choose
    from ..particles import make_interaction
    from ..particles.forces import _Batches

    inter = make_interaction("plummer", 1.0, delta)
    out = []
    for path, op, d in REFERENCE_ROWS:
        m = max(2 * BATCH, n // 4) if path == "potential" else n
        X = cp.asarray(rng.standard_normal((m, d)))
        if path == "potential":
            args: tuple[Any, ...] = (X, inter, None, "raise")
            pairs = m * m
        else:
            args = (X, _Batches(rng.permutation(m).astype(np.int64), BATCH), inter, "raise")
            pairs = m * BATCH
        ours_row, ref_row = (choose(op, b, "cupy") for b in ("cupy", "reference"))
        t_ours, t_ref = _median_pair(lambda r=ours_row, a=args: r(*a),
                                     lambda r=ref_row, a=args: r(*a), sync, repeat)
        out.append(dict(path=path, dtype="float64", d=d, n=m, baseline="reference",
                        ours=pairs / t_ours, base=pairs / t_ref, ratio=t_ours / t_ref))
        del X, args
    return out


def format_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a fixed-width table, each row's pace target (pairs/s) and whether it was met
    beside it (:func:`yatmath.bench.targets.judge`)."""
    from .targets import judge

    lines = [f"{'path':<14}  {'dtype':<7}  {'d':>3}  {'n':>7}  {'yatmath pairs/s':>15}  "
             f"{'baseline':<9}  {'pairs/s':>9}  {'time ratio':>10}  {'target':>11}  verdict"]
    for r in rows:
        target, verdict = judge(r)
        lines.append(f"{r['path']:<14}  {r['dtype']:<7}  {r['d']:>3}  {r['n']:>7}  "
                     f"{r['ours']:>15.3g}  {r['baseline']:<9}  {r['base']:>9.3g}  "
                     f"{r['ratio']:>10.2f}  {target:>11}  {verdict}".rstrip())
    return "\n".join(lines)
