"""Accuracy of yatmath.yat.product / gram / matvec against mpmath at 50 digits.

The harness lives in ``yatmath.testing`` (the generators, the exact reference and the
condition-aware bound, with its derivation, in ``yatmath/testing/oracle.py``): every backend of
``yatmath.testing.backends`` must put every entry of every block inside the accepted interval
[K - bound, K + bound] (rounded outwards), finite wherever the exact K is, never negative
without an outer bias,

    |K_hat - K| <= 4 (d+4) u K (cond + 8) + ((d+4) u ||w|| ||x||)^2 / D  (+ underflow terms),

the bound of the module docstring of ``yatmath/yat/kernel.py``.  A new backend added to
``yatmath.testing.backends`` is tested here with no new test code.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from yatmath.testing import Block, Exact, KernelAccuracy, blocks, exact, huge_float32_blocks
from yatmath.testing.backends import cpu_harnesses, gemm_tiles_everywhere, gpu_harnesses
from yatmath.testing.generators import unit
from yatmath.testing.oracle import DPS
from yatmath.yat import gram, matvec

CPU = cpu_harnesses()
GPU = gpu_harnesses()
ALL = [pytest.param(k, id=k) for k in CPU] + [
    pytest.param(k, id=k, marks=pytest.mark.gpu) for k in GPU]
DTYPES = [pytest.param(np.float64, id="float64"), pytest.param(np.float32, id="float32")]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ALL)
def test_error_bound_all_magnitudes(name, dtype):
    """Every entry within the docstring bound; finite wherever the exact K is; never negative."""
    harness = CPU.get(name) or GPU[name]
    res = harness.run(dtype)
    assert not res.wrong_dtype, f"{name}: results not in {np.dtype(dtype)}: {res.wrong_dtype[:4]}"
    assert res.passed, res.message()
    assert res.checked > (1000 if dtype is np.float32 else 3000)


def test_every_cpu_backend_has_a_harness():
    """The registry covers product, gram (direct, expanded, W=None) and matvec on each backend."""
    from yatmath import _array

    want = {"product/numpy", "gram/numpy", "gram/numpy/W=None", "matvec/numpy"}
    if _array.has_numba():
        want |= {"product/numba", "gram/numba/direct", "gram/numba/expanded",
                 "gram/numba/direct/W=None", "gram/numba/expanded/W=None", "matvec/numba",
                 "matvec/numba/tiles"}
    assert want <= set(CPU)


@pytest.mark.parametrize("dtype", DTYPES)
def test_exact_reference_spans_the_hard_regimes(dtype):
    """The inputs really reach overflow, underflow-size K, exact zeros and huge conditioning."""
    big = np.finfo(dtype).max
    overflow = sum(int((ex.lo == np.inf).sum()) for ex in exact(dtype))
    finite_big = sum(int(((ex.hi > 1e-3 * big) & np.isfinite(ex.hi)).sum()) for ex in exact(dtype))
    zeros = sum(1 for ex in exact(dtype) for row in ex.K for v in row if v == 0)
    tiny = sum(int(((ex.hi > 0) & (ex.hi < np.finfo(dtype).tiny)).sum()) for ex in exact(dtype))
    assert overflow > 10 and finite_big > 0 and zeros > 10 and tiny > 10
    huge_cond = sum(int((ex.cond > 1e6).sum()) for ex in exact(dtype))
    assert huge_cond > 100


def _naive_expanded(X, W, eps):
    """The textbook GEMM form s^2 / (||x||^2 + ||w||^2 - 2 s + eps), no repair."""
    S = X @ W.T
    D = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", W, W)[None, :] - 2 * S + eps
    return S * S / D


@pytest.mark.parametrize("dtype", DTYPES)
def test_expanded_form_repairs_cancellation(dtype, rng):
    """x = w (1 + delta) and x = w + delta v with tiny delta: the naive GEMM form is wrong by
    orders of magnitude (often a negative denominator); gram(method="expanded") meets the bound."""
    d, n = 40, 24
    u = np.finfo(dtype).eps / 2
    lo_delta = -15 if dtype is np.float64 else -6
    W = np.array([unit(rng, d) for _ in range(n)])
    deltas = 10.0 ** rng.uniform(lo_delta, -3, n)
    X = np.where(np.arange(n)[:, None] % 2 == 0, W * (1 + deltas[:, None]),
                 W + deltas[:, None] * np.array([unit(rng, d) for _ in range(n)]))
    X, W = X.astype(dtype), W.astype(dtype)
    eps = 1e-30       # far below delta^2 ||w||^2: D is the (cancelling) distance term
    block = Block("near-coincident", np.vstack([X, W]), eps, None, None)
    ex = Exact(block)
    pair = (np.arange(n), n + np.arange(n))     # (x_i, w_i): the near-coincident pairs
    K_exact = np.array([float(ex.K[i][j]) for i, j in zip(*pair)])
    naive = _naive_expanded(X, W, dtype(eps))[np.arange(n), np.arange(n)]
    naive_rel = np.abs(naive.astype(np.float64) - K_exact) / K_exact
    # The bound allows a relative error of about 32 (d+4) u here (cond = 1); the naive form
    # misses it by a factor > 1e3 on most pairs.
    allowed = 4 * (d + 4) * u * 9
    assert np.median(naive_rel) > 1e3 * allowed
    assert (naive_rel > 1e3 * allowed).mean() > 0.5
    G = gram(X, W, eps, method="expanded", backend="numba")[np.arange(n), np.arange(n)]
    lo, hi = ex.lo[pair], ex.hi[pair]
    assert np.all((G >= lo) & (G <= hi) & (G > 0))
    assert np.all(np.abs(G - K_exact) / K_exact <= allowed)
    # The harness judges the naive form the same way: it fails the bound on the repaired pairs.
    naive_h = KernelAccuracy("naive", lambda Z, e, b, m: _naive_expanded(Z, Z, Z.dtype.type(e)),
                             modes=())
    assert not naive_h.run(dtype, cases=[(block, ex)]).passed


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_matvec_random_weights(dtype, backend):
    """matvec(X, Y, v) with random v: |y_hat - y| <= sum_j bound_ij |v_j| + float64 summation
    error gamma_m sum_j (|K_ij| + bound_ij)|v_j| + one rounding to the output dtype."""
    rng = np.random.default_rng(7)
    u_out = np.finfo(dtype).eps / 2
    u64 = 2.0 ** -53
    eta = float(np.finfo(dtype).smallest_subnormal)   # products K_ij v_j may be subnormal
    tiles = [None] if backend == "numpy" else [None, (5, 7)]
    for tile in tiles:
        for block, ex in list(zip(blocks(dtype), exact(dtype)))[::3]:
            if not np.isfinite(ex.hi).all():
                continue
            m = block.Z.shape[0]
            gm = m * u64 / (1 - m * u64)
            v = rng.standard_normal((m, 2)).astype(dtype)
            kw = {} if tile is None else {"tile": tile}
            with gemm_tiles_everywhere() if tile is not None else _nullcontext():
                y = matvec(block.Z, block.Z, v, block.eps, block.bias,
                           bias_mode=block.mode or "inner", backend=backend, **kw).astype(np.float64)
            with mp.workdps(DPS):
                for i in range(m):
                    for c in range(2):
                        vj = [mp.mpf(float(v[j, c])) for j in range(m)]
                        yex = mp.fsum(ex.K[i][j] * vj[j] for j in range(m))
                        err = mp.fsum(ex.bound[i][j] * abs(vj[j]) for j in range(m))
                        err += gm * mp.fsum((abs(ex.K[i][j]) + ex.bound[i][j]) * abs(vj[j])
                                            for j in range(m))
                        err += u_out * (abs(yex) + err) + (m + 1) * eta
                        assert abs(mp.mpf(y[i, c]) - yex) <= err, (block, tile, i, c)


def _nullcontext():
    import contextlib

    return contextlib.nullcontext()


@pytest.fixture(scope="module")
def huge_float32():
    """float32 rows whose squared norms overflow float32 (norms 2e19..1e30) although K often
    does not: outside the docstring's stated domain, covered because every float32 path falls
    back to the float64 direct form (regression: the expanded form returned 0 for K ~ 2e32)."""
    return [(blk, Exact(blk)) for blk in huge_float32_blocks()]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("name", [k for k in CPU if k != "matvec/numba/tiles"])
def test_float32_beyond_squared_norm_range(name, huge_float32):
    res = CPU[name].run(np.float32, cases=huge_float32)
    assert res.passed, res.message()
    finite_checked = sum(int((np.isfinite(ex.hi) & (ex.hi > 0)).sum()) for _, ex in huge_float32)
    assert finite_checked > 50      # the finite, nonzero K that the overflow fallback must keep
