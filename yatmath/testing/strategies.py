"""Hypothesis strategies for the property checks (:mod:`yatmath.testing.properties`).

They span magnitudes and shapes: the Yat strategies build their points from the accuracy
harness's generators (:mod:`yatmath.testing.generators`: the hard pair classes -- coincident,
scaled, perturbed, orthogonal, near-orthogonal, antiparallel, straddling the repair threshold,
zero -- at the norms and eps of ``generators.SPACE``, scaled by powers of two so that every
construction is exact), limited only where a property's own hypothesis needs it (a finite Gram
matrix, a step float64 can resolve, the unit ball).  Every strategy draws a seed and builds its
arrays with NumPy's Generator, so shrinking works on a few integers and each example is
reproducible from them.

Needs ``hypothesis`` (the ``test`` extra).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import assume
from hypothesis import strategies as st

from .generators import D_LIST, PAIR_KINDS, SAME_KINDS, SPACE, make_block, pair, pow2, unit

__all__ = ["dtypes", "seeds", "yat_point_sets", "yat_rays", "yat_gradient_cases",
           "unit_ball_cases", "nonnegative_arrays", "squash_powers", "attention_cases",
           "lowrank_matrices", "psd_matrices", "feature_inputs", "itnet_problems",
           "particle_configurations", "interactions", "fv_problems", "yat_init_cases",
           "importance_problems", "itnet_linear_cases", "conv_problems", "ssm_problems",
           "attention_problems", "projection_cases", "ldp_cases", "sanov_cases"]

FLOAT_DTYPES = (np.float64, np.float32)
#: log10 of the largest K scale (||x||^4 / eps) kept finite, with margin, per dtype
_K_RANGE = {"float64": 280, "float32": 30}


def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, 2 ** 32 - 1)


def dtypes() -> st.SearchStrategy[type[np.floating[Any]]]:
    return st.sampled_from(FLOAT_DTYPES)


def _log10(x: float) -> float:
    return math.log10(x)


@st.composite
def yat_point_sets(draw: st.DrawFn, dtype: npt.DTypeLike | None = None, min_n: int = 1,
                   max_n: int = 12, max_d: int = 40) -> tuple[npt.NDArray[Any], float]:
    """(X (n, d) of ``dtype``, eps): rows of a harness block (six hard pairs at norms from
    ``generators.SPACE``, same or crossed magnitudes) in a random order, with eps from
    ``SPACE`` such that the Gram matrix is finite (||x||^4 / eps within the dtype's range)."""
    dt = draw(dtypes()) if dtype is None else dtype
    name = np.dtype(dt).name
    sp = SPACE[name]
    mw = draw(st.sampled_from(sp["mags"]))
    mx = draw(st.one_of(st.just(mw), st.sampled_from(sp["cross"])))
    top = max(mw, mx)
    ok_eps = [e for e in sp["eps"] if abs(4 * _log10(top) - _log10(e)) <= _K_RANGE[name]
              and 4 * _log10(min(mw, mx)) - _log10(e) > -_K_RANGE[name]]
    assume(ok_eps)
    eps = draw(st.sampled_from(ok_eps))
    d = draw(st.sampled_from([v for v in D_LIST if v <= max_d]))
    rng = np.random.default_rng(draw(seeds()))
    blk = make_block(rng, dt, SAME_KINDS, draw(st.integers(0, len(SAME_KINDS) - 1)), mw, mx,
                     eps, d, None, "strategy")
    n = draw(st.integers(min_n, min(max_n, blk.Z.shape[0])))
    X = blk.Z[rng.permutation(blk.Z.shape[0])[:n]]
    return X, float(eps)


@st.composite
def yat_rays(draw: st.DrawFn, dtype: npt.DTypeLike | None = None
             ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], float, npt.DTypeLike]:
    """(w, u, eps, dtype): a weight at any norm of ``SPACE``, a direction (unit, or a pair class
    relative to w: parallel, orthogonal, near-orthogonal ...), eps from ``SPACE``."""
    dt = draw(dtypes()) if dtype is None else dtype
    name = np.dtype(dt).name
    sp = SPACE[name]
    d = draw(st.sampled_from(D_LIST))
    rng = np.random.default_rng(draw(seeds()))
    kind = draw(st.sampled_from(PAIR_KINDS))
    w, x = pair(kind, rng, d, 10.0 ** -draw(st.integers(1, 12)), 0.54)
    if not np.any(x):
        x = unit(rng, d)
    mag = draw(st.sampled_from(sp["mags"][1:-1]))
    # sqrt(eps) well inside the dtype's range: rays out to many times ||w|| + sqrt(eps) keep
    # ||x||^2 finite (the kernel docstring's stated domain)
    room = math.sqrt(float(np.finfo(dt).max)) * 1e-6
    eps = draw(st.sampled_from([e for e in sp["eps"] if math.sqrt(e) < room]))
    return (w * pow2(mag)).astype(dt), x.astype(dt), float(eps), dt


@st.composite
def yat_gradient_cases(draw: st.DrawFn
                      ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """(w, x, eps) in float64: hard pair classes at norms 1e-3..1e3, eps = ||w||^2 10^k with
    k in [-8, 2] (so sqrt(D) >= 1e-4 ||w||: a step float64 can resolve)."""
    d = draw(st.sampled_from([v for v in D_LIST if v <= 17]))
    rng = np.random.default_rng(draw(seeds()))
    kind = draw(st.sampled_from(PAIR_KINDS))
    w, x = pair(kind, rng, d, 10.0 ** -draw(st.integers(1, 8)), 0.54)
    mag = pow2(10.0 ** draw(st.integers(-3, 3)))
    w, x = w * mag, x * mag
    scale2 = max(float(w @ w), float(x @ x), 1e-300)
    eps = scale2 * 10.0 ** draw(st.integers(-8, 2))
    return w, x, float(eps)


@st.composite
def unit_ball_cases(draw: st.DrawFn, m: int = 4
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """(w, X, Y, eps): ||w|| <= 1 and m pairs of points of the unit ball; X near w (the
    gradient's largest region), on the sphere, or generic; Y = X + small steps, pulled back
    into the ball; eps on the grid of the Lipschitz claims (1e-4..10)."""
    d = draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(seeds()))
    # 1 - 2^-40 for the unit sphere itself: unit() has norm 1 to rounding, possibly 1 + ulp
    w = unit(rng, d) * draw(st.sampled_from([1.0 - 2.0 ** -40, 0.999, 0.7, 0.3, 0.01]))
    where = draw(st.sampled_from(["near_w", "sphere", "generic"]))
    if where == "near_w":
        X = w[None, :] * (1 + rng.uniform(-0.1, 0.0, (m, 1))) + 1e-3 * rng.standard_normal((m, d))
    elif where == "sphere":
        X = rng.standard_normal((m, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    else:
        X = rng.uniform(-1, 1, (m, d))
    Y = X + 10.0 ** draw(st.integers(-8, -1)) * rng.standard_normal((m, d))
    for A in (X, Y):
        nr = np.linalg.norm(A, axis=1, keepdims=True)
        A /= np.maximum(nr / (1 - 2 ** -40), 1.0)
    eps = draw(st.sampled_from([1e-4, 1e-3, 1e-2, 0.1, 0.3, 1.0, 3.0, 10.0]))
    return w, X, Y, float(eps)


@st.composite
def nonnegative_arrays(draw: st.DrawFn, dtype: npt.DTypeLike | None = None,
                       max_len: int = 8) -> npt.NDArray[Any]:
    """Arrays x >= 0 of shape (rows, L) with entries 0, subnormal-adjacent, ~1 (1 exactly
    included) and huge, at a common random scale; ``dtype`` float64 or float32."""
    dt = draw(dtypes()) if dtype is None else dtype
    big = 30 if dt == np.float32 else 300
    rows = draw(st.integers(1, 3))
    L = draw(st.integers(1, max_len))
    rng = np.random.default_rng(draw(seeds()))
    e = rng.integers(-big, big + 1, (rows, L)).astype(float)
    x = 10.0 ** (e * draw(st.sampled_from([0.0, 0.01, 0.1, 1.0])))
    x = np.where(rng.random((rows, L)) < 0.15, 0.0, x)
    x = np.where(rng.random((rows, L)) < 0.1, 1.0, x)
    return x.astype(dt)


def squash_powers() -> st.SearchStrategy[float]:
    return st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0, 7.5, 50.0, 300.0])


@st.composite
def attention_cases(draw: st.DrawFn, dtype: npt.DTypeLike | None = None
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], float, bool, npt.NDArray[np.bool_] | None]:
    """(Q, K, eps, causal, mask): Lq, Lk in 1..12, d in 1..16, magnitudes 1e-3..1e3 (scores
    up to ~1e12: the softmax must subtract its row maximum), random padding masks (some rows
    fully masked)."""
    dt = draw(dtypes()) if dtype is None else dtype
    Lq, Lk = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    d = draw(st.integers(1, 16))
    rng = np.random.default_rng(draw(seeds()))
    mag = 10.0 ** draw(st.integers(-3, 3))
    Q = (rng.standard_normal((Lq, d)) * mag).astype(dt)
    K = (rng.standard_normal((Lk, d)) * mag).astype(dt)
    if draw(st.booleans()) and Lq > 1 and Lk > 1:
        K[0] = Q[0]
    eps = float(mag ** 2 * 10.0 ** draw(st.integers(-6, 2)))
    causal = draw(st.booleans())
    mask = None
    if draw(st.booleans()):
        mask = rng.random((Lq, Lk)) < draw(st.sampled_from([0.3, 0.7, 1.0]))
    return Q, K, eps, causal, mask


@st.composite
def lowrank_matrices(draw: st.DrawFn, max_dim: int = 30) -> tuple[npt.NDArray[np.float64], int]:
    """(A, rank): shapes m, n in 2..max_dim; singular values geometric (decay 10^-0.1 ..
    10^-2 per index), flat, or with a repeated value at the cut; overall scale 10^[-100, 100];
    rank in 1..min(m, n) - 1."""
    m, n = draw(st.integers(2, max_dim)), draw(st.integers(2, max_dim))
    k = min(m, n)
    rng = np.random.default_rng(draw(seeds()))
    kind = draw(st.sampled_from(["geometric", "flat", "repeated", "gap"]))
    rank = draw(st.integers(1, k - 1))
    idx = np.arange(k)
    if kind == "geometric":
        s = 10.0 ** (-idx * draw(st.sampled_from([0.1, 0.5, 1.0, 2.0])))
    elif kind == "flat":
        s = np.ones(k)
    elif kind == "repeated":
        s = 10.0 ** (-0.3 * idx)
        s[rank] = s[rank - 1]
    else:
        s = np.where(idx < rank, 1.0, 1e-6) * 10.0 ** (-0.05 * idx)
    Ua, _ = np.linalg.qr(rng.standard_normal((m, k)))
    Va, _ = np.linalg.qr(rng.standard_normal((n, k)))
    A = (Ua * s) @ Va.T * pow2(10.0 ** draw(st.integers(-100, 100)))
    return A, rank


@st.composite
def psd_matrices(draw: st.DrawFn, max_n: int = 40) -> tuple[npt.NDArray[np.float64], int]:
    """(K, m): Gaussian kernel matrices of random point clouds (d = 1..4, bandwidths from
    nearly diagonal to nearly rank one) at scales 10^[-50, 50], m landmarks in 1..n - 1."""
    from ..features import gaussian_kernel

    n = draw(st.integers(3, max_n))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(seeds()))
    Z = rng.standard_normal((n, d))
    K = gaussian_kernel(Z, Z, 10.0 ** draw(st.sampled_from([-2.0, -1.0, 0.0, 1.0])))
    K = (K + K.T) / 2 * pow2(10.0 ** draw(st.integers(-50, 50)))
    return K, draw(st.integers(1, n - 1))


@st.composite
def feature_inputs(draw: st.DrawFn, max_n: int = 4,
                   max_d: int = 4) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(X, Y): a few points in d = 1..4 dimensions with norms 10^[-2, 0] (the statistical
    tests need variances the replicates can resolve), Y sharing a row with X at times."""
    d = draw(st.integers(1, max_d))
    rng = np.random.default_rng(draw(seeds()))
    n, m = draw(st.integers(1, max_n)), draw(st.integers(1, max_n))
    X = rng.standard_normal((n, d)) * 10.0 ** draw(st.sampled_from([-2.0, -1.0, -0.5, 0.0]))
    Y = rng.standard_normal((m, d)) * 10.0 ** draw(st.sampled_from([-2.0, -1.0, -0.5, 0.0]))
    if draw(st.booleans()):
        Y[0] = X[0]
    return X, Y


@st.composite
def itnet_problems(draw: st.DrawFn, max_n: int = 24, separate_queries: bool = True,
                   u_free: bool = False
    ) -> tuple[Any, npt.NDArray[np.float64], Any, tuple[int, int], npt.NDArray[np.float64] | None,
               npt.NDArray[np.float64] | None]:
    """(op, U, measure, tile, Xq, Uq): a random single-head ITNet operator (d = 1..3, s = 1..2,
    width 1..10, L = 1..4, a subset of the input groups, exact or tanh GELU, causal or not with
    a diagonal weight, weights scale 10^[-1, 1]), n in 1..max_n nodes with non-uniform weights,
    feature magnitudes 10^[-2, 2], any tile (1..n + 3 each way), separate queries at times.
    ``u_free``: groups from the positional ones only (gx, gy, gd, dist: K ignores u)."""
    from .. import itnet as it

    rng = np.random.default_rng(draw(seeds()))
    n = draw(st.integers(1, max_n))
    d, s = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    pool = [g for g in it.GROUPS if g not in ("ux", "uy", "uxuy")] if u_free else it.GROUPS
    groups = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
    net = it.random_kernel_mlp(d, s, width=draw(st.integers(1, 10)), L=draw(st.integers(1, 4)),
                               scale=10.0 ** draw(st.sampled_from([-1.0, 0.0, 1.0])),
                               groups=groups, gelu=draw(st.sampled_from(["exact", "tanh"])),
                               rng=rng)
    causal = draw(st.booleans())
    dw = draw(st.sampled_from([1.0, 0.5, 0.0])) if causal else 1.0
    op = it.ITNetOperator(net, rng.normal(size=(d, d)), causal, dw)
    X = rng.uniform(size=(n, s))
    mu = it.Measure(X, rng.uniform(0.1, 2.0, n) / n)
    U = rng.normal(size=(n, d)) * 10.0 ** draw(st.sampled_from([-2.0, 0.0, 2.0]))
    tile = (draw(st.integers(1, n + 3)), draw(st.integers(1, n + 3)))
    Xq = Uq = None
    if separate_queries and not causal and draw(st.booleans()):
        nq = draw(st.integers(1, max_n))
        Xq, Uq = rng.uniform(size=(nq, s)), rng.normal(size=(nq, d))
    return op, U, mu, tile, Xq, Uq


@st.composite
def interactions(draw: st.DrawFn, d: int = 2, bare: bool = True) -> tuple[str, float, float]:
    """(kind, s, delta) of 004: Riesz s in (-2, 3], logarithmic s = 0, Coulomb s = d - 2; bare,
    Plummer-softened or hard-truncated, delta relative to unit particle spacing."""
    kinds = ["none", "plummer", "hard"] if bare else ["plummer", "hard"]
    kind = draw(st.sampled_from(kinds))
    s = draw(st.sampled_from([-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, "coulomb"]))
    if s == "coulomb":
        s = float(d - 2)
        if s <= -2:
            s = -1.0
    delta = 0.0 if kind == "none" else 10.0 ** draw(st.sampled_from([-3.0, -2.0, -1.0, 0.0]))
    return kind, float(s), delta


@st.composite
def particle_configurations(draw: st.DrawFn, max_n: int = 16, fd: bool = False
                            ) -> tuple[npt.NDArray[np.float64], tuple[str, float, float]]:
    """(omega (N, d), (kind, s, delta)): N in 2..max_n, d in 1..3, positions at scale
    10^[-3, 3] (delta scaled with them), clustered or spread.  Bare kernels keep particles
    apart (minimum distance >= 1e-3 x the scale); with ``fd`` hard truncations keep every
    distance away from delta (the kink)."""
    N = draw(st.integers(2, max_n))
    d = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(seeds()))
    scale = pow2(10.0 ** draw(st.integers(-3, 3)))
    om = rng.standard_normal((N, d))
    if draw(st.booleans()):
        om[: N // 2] *= 1e-2                       # a tight cluster beside spread particles
    kind, s, delta = draw(interactions(d=d))
    om *= scale
    delta *= scale
    dist = np.sqrt(((om[:, None] - om[None]) ** 2).sum(-1))[~np.eye(N, dtype=bool)]
    assume(dist.min() > 1e-4 * scale)
    if fd and kind == "hard":
        assume(np.all(np.abs(dist - delta) > 1e-2 * delta))
    return om, (kind, s, delta)


@st.composite
def fv_problems(draw: st.DrawFn, fluxes: Sequence[str] = ("sg", "upwind"),
                betas: Sequence[float] = (0.5, 1.0, 4.0, math.inf)
               ) -> tuple[Any, npt.NDArray[np.float64]]:
    """(solver, rho): 1-D or 2-D grids (8..80 / 6..16 cells a side), potentials quadratic,
    double-well, tilted or a tent -a|x| (steep drift at a peak), beta in ``betas``,
    ``fluxes`` (upwind or Scharfetter-Gummel), an optional Plummer interaction, and a
    non-negative density (smooth bump, random, or one occupied cell)."""
    from ..particles import FVGrid, McKeanVlasovFV

    dim = draw(st.integers(1, 2))
    M = draw(st.integers(8, 80)) if dim == 1 else draw(st.integers(6, 16))
    g = FVGrid(-1.0, 1.0, M, dim=dim)
    a = 10.0 ** draw(st.sampled_from([-1.0, 0.0, 1.0, 2.0]))
    pot = draw(st.sampled_from(["quadratic", "double_well", "tilted", "tent"]))
    V = {"quadratic": lambda X: a * (X ** 2).sum(1),
         "double_well": lambda X: a * ((X ** 2).sum(1) - 0.25) ** 2,
         "tilted": lambda X: a * X[:, 0],
         "tent": lambda X: -a * np.abs(X).sum(1)}[pot]
    beta = draw(st.sampled_from(list(betas)))
    flux = draw(st.sampled_from(list(fluxes)))
    lam = draw(st.sampled_from([0.0, 0.0, 0.5]))
    fv = McKeanVlasovFV(g, V, lam=lam, interaction=("plummer", 1.0, 0.2) if lam else None,
                        beta=beta, flux=flux)
    rng = np.random.default_rng(draw(seeds()))
    n = g.centres.shape[0]
    shape = draw(st.sampled_from(["bump", "random", "cell"]))
    if shape == "bump":
        c = rng.uniform(-0.5, 0.5, dim)
        rho = np.exp(-((g.centres - c) ** 2).sum(1) / 0.05)
    elif shape == "random":
        rho = rng.random(n)
    else:
        rho = np.zeros(n)
        rho[rng.integers(n)] = 1.0
    return fv, rho * 10.0 ** draw(st.integers(-3, 3))



# ---------------------------------------------------------------------------------------------
def yat_init_cases() -> st.SearchStrategy[tuple[float, float, int]]:
    """(sigma, eps, seed): the initialisation scale sigma in {0.5, 1, 2} (coordinates
    N(0, sigma^2), constant in d) and eps in {1e-3, 1, 10} (the grid of claim yat.dim_scaling)."""
    return st.tuples(st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from([1e-3, 1.0, 10.0]),
                     st.integers(0, 2 ** 16))


@st.composite
def importance_problems(draw: st.DrawFn, replicates: int = 300
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int]:
    """(g (n, k), omega (n,), q (n,), M): values at magnitudes 10^[-3, 3] (a one-signed scalar
    integrand at times: the optimal proposal then has zero variance), weights >= 0 with some
    zeros, and a proposal mixed with the uniform pmf so that R M min q >= 20 for R =
    ``replicates`` (the statistical properties' condition)."""
    rng = np.random.default_rng(draw(seeds()))
    n, k = draw(st.integers(1, 15)), draw(st.integers(1, 3))
    M = draw(st.integers(2, 8))
    g = rng.standard_normal((n, k)) * 10.0 ** rng.integers(-3, 4, (n, 1))
    if draw(st.booleans()):
        g = np.abs(g[:, :1]) * draw(st.sampled_from([1.0, -1.0]))
    omega = rng.uniform(0, 2, n) * (rng.random(n) > 0.2)
    assume(np.any(omega[:, None] * g != 0))
    mix = min(1.0, 20 * n / (replicates * M))
    q = (1 - mix) * rng.dirichlet(np.ones(n)) + mix / n
    return g, omega, q / q.sum(), M


@st.composite
def itnet_linear_cases(draw: st.DrawFn, max_n: int = 16
    ) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.float64], float, float, Any]:
    """(op, U, V, a, b, measure): an operator whose kernel ignores u (itnet_problems with
    ``u_free``), two feature sets at independent magnitudes 10^[-2, 2] and scalars a, b of
    magnitude 10^[-3, 3] and either sign."""
    op, U, mu, _, _, _ = draw(itnet_problems(max_n=max_n, separate_queries=False, u_free=True))
    rng = np.random.default_rng(draw(seeds()))
    V = rng.normal(size=U.shape) * 10.0 ** draw(st.sampled_from([-2.0, 0.0, 2.0]))
    a = draw(st.sampled_from([1.0, -1.0])) * 10.0 ** draw(st.integers(-3, 3))
    b = draw(st.sampled_from([1.0, -1.0])) * 10.0 ** draw(st.integers(-3, 3))
    return op, U, V, a, b, mu


@st.composite
def conv_problems(draw: st.DrawFn
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], dict[str, Any]]:
    """(f, x, options): 1-D or 2-D grids (5..16 / 4..7 a side), C_in/groups and C_out/groups in
    1..2 with groups 1..2, filters 1..5 taps (odd for boundary "same"), dilation 1..2, stride
    1..2, corr or conv, values at magnitudes 10^[-3, 3]; the filter span fits the grid."""
    s = draw(st.integers(1, 2))
    boundary = draw(st.sampled_from(["same", "valid", "wrap"]))
    groups, cpg, opg = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    taps = st.sampled_from([1, 3, 5]) if boundary == "same" else st.integers(1, 5)
    k = tuple(draw(taps) for _ in range(s))
    dil, stride = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    grid = tuple(draw(st.integers(5, 16) if s == 1 else st.integers(4, 7)) for _ in range(s))
    assume(all(dil * (kk - 1) < n for kk, n in zip(k, grid)))
    rng = np.random.default_rng(draw(seeds()))
    f = rng.standard_normal((opg * groups, cpg) + k) * 10.0 ** draw(st.integers(-3, 3))
    x = rng.standard_normal((cpg * groups,) + grid) * 10.0 ** draw(st.integers(-3, 3))
    opts = dict(convention=draw(st.sampled_from(["corr", "conv"])), stride=stride, dilation=dil,
                groups=groups, boundary=boundary)
    return f, x, opts


@st.composite
def ssm_problems(draw: st.DrawFn
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
               npt.NDArray[np.float64], npt.NDArray[np.float64] | None, str]:
    """(A, B, C, U, D, convention): a discrete linear system (state N = 1..5, input m = 1..3,
    output p = 1..3, n = 1..30 steps) with A contracting, near the unit circle or mildly
    expanding (spectral scale 0.3..1.2), or the ZOH / Euler discretisation of a stable
    continuous system; inputs at magnitudes 10^[-3, 3]; D or no feed-through; C1 or C2."""
    from ..itnet.special.recurrent import discretise

    rng = np.random.default_rng(draw(seeds()))
    N, m, p = draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n = draw(st.integers(1, 30))
    B, C = rng.standard_normal((N, m)), rng.standard_normal((p, N))
    kind = draw(st.sampled_from(["discrete", "zoh", "euler"]))
    if kind == "discrete":
        A = rng.standard_normal((N, N)) * draw(st.sampled_from([0.3, 1.0, 1.2])) / math.sqrt(N)
    else:
        Ac = rng.standard_normal((N, N)) - 2 * np.eye(N)
        A, B = discretise(Ac, B, draw(st.sampled_from([0.01, 0.1])), kind)
    U = rng.standard_normal((n, m)) * 10.0 ** draw(st.integers(-3, 3))
    D = rng.standard_normal((p, m)) if draw(st.booleans()) else None
    return A, B, C, U, D, draw(st.sampled_from(["C1", "C2"]))


@st.composite
def attention_problems(draw: st.DrawFn
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
               npt.NDArray[np.float64], npt.NDArray[np.float64], bool, float]:
    """(U, Wq, Wk, Wv, omega, causal, diag_weight): n = 1..12 tokens of width d = 1..4, d_k,
    d_v in 1..4, features at magnitudes 10^[-2, 1] (scores up to ~1e2: softmax rows from flat
    to one-hot), non-uniform weights omega (or the uniform 1/n), causal or not with diagonal
    weight 1 or 1/2."""
    rng = np.random.default_rng(draw(seeds()))
    n, d = draw(st.integers(1, 12)), draw(st.integers(1, 4))
    dk, dv = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    U = rng.standard_normal((n, d)) * 10.0 ** draw(st.sampled_from([-2.0, -1.0, 0.0, 1.0]))
    Wq, Wk, Wv = (rng.standard_normal((r, d)) for r in (dk, dk, dv))
    omega = (rng.uniform(0.1, 2.0, n) if draw(st.booleans()) else np.ones(n)) / n
    causal = draw(st.booleans())
    dw = draw(st.sampled_from([1.0, 0.5])) if causal else 1.0
    return U, Wq, Wk, Wv, omega, causal, dw


@st.composite
def projection_cases(draw: st.DrawFn,
                     m: int = 24) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(domain, A, B): an interval, a box (d = 1..4, sides at scales 10^[-3, 3]) or a ball
    (radius 10^[-3, 3], centred at 0 or elsewhere); m pairs of points spread over the domain
    times 0.5 (inside), 1.2, 3 (outside near faces and corners) or 100 (far away), B = A + a
    step of relative size 10^[-8, 0] or an independent point."""
    from ..particles.domains import Ball, Box, Interval

    rng = np.random.default_rng(draw(seeds()))
    kind = draw(st.sampled_from(["interval", "box", "ball"]))
    scale = 10.0 ** draw(st.integers(-3, 3))
    dom: Any    # an Interval, a Box or a Ball: the attributes read below depend on ``kind``
    if kind == "interval":
        lo = rng.uniform(-2, 1) * scale
        dom = Interval(lo, lo + rng.uniform(0.5, 3) * scale)
    elif kind == "box":
        d = draw(st.integers(1, 4))
        lo = rng.uniform(-2, 1, d) * scale
        dom = Box(lo, lo + rng.uniform(0.5, 3, d) * scale)
    else:
        d = draw(st.integers(1, 4))
        centre = rng.uniform(-5, 5, d) * scale if draw(st.booleans()) else None
        dom = Ball(scale, d, center=centre)
    d = dom.d
    c = (dom.lo + dom.hi) / 2 if kind != "ball" else dom.center
    hw = (dom.hi - dom.lo) / 2 if kind != "ball" else np.full(d, dom.radius)
    spread = draw(st.sampled_from([0.5, 1.2, 3.0, 100.0]))
    A = c + hw * spread * rng.uniform(-1, 1, (m, d))
    if draw(st.booleans()):
        B = A + hw * 10.0 ** rng.integers(-8, 1, (m, 1)) * rng.standard_normal((m, d))
    else:
        B = c + hw * spread * rng.uniform(-1, 1, (m, d))
    if kind == "interval":
        A, B = A[:, 0], B[:, 0]
    return dom, A, B


@st.composite
def ldp_cases(draw: st.DrawFn) -> tuple[Any, Callable[[npt.ArrayLike], npt.NDArray[Any]], float]:
    """(domain, indicator, p): a uniform law on an interval, a box or a ball (d = 1..3) and a
    set A of known probability p under it: a slab {x_0 <= lo_0 + t (hi_0 - lo_0)} (p = t) or
    an inner ball of radius rho R (p = rho^d), p in (0.05, 0.6)."""
    from ..particles.domains import Ball, Box, Interval

    kind = draw(st.sampled_from(["interval", "box", "ball"]))
    if kind == "ball":
        d = draw(st.integers(1, 3))
        dom = Ball(draw(st.sampled_from([1e-3, 1.0, 1e3])), d)
        p = draw(st.sampled_from([0.1, 0.25, 0.5]))
        rad = dom.radius * p ** (1.0 / d)
        return dom, (lambda X, r=rad: np.sqrt((np.asarray(X).reshape(len(X), -1) ** 2).sum(1))
                     <= r), p
    if kind == "interval":
        dom = Interval(-1.0, 2.0)
    else:
        d = draw(st.integers(1, 3))
        dom = Box(np.zeros(d), np.full(d, 10.0))
    t = draw(st.sampled_from([0.1, 0.3, 0.5]))
    cut = float(dom.lo[0] + t * (dom.hi[0] - dom.lo[0]))
    return dom, (lambda X, c=cut: np.asarray(X).reshape(len(X), -1)[:, 0] <= c), t


def sanov_cases() -> st.SearchStrategy[tuple[int, float, float]]:
    """(N, p, a): N in 1..10^4, p in (0, 1) from 10^-3 to 0.999, a in (p, 1): just above p, a
    lattice point k/N, midway to 1, or just below 1."""
    @st.composite
    def draw_case(draw: st.DrawFn) -> tuple[int, float, float]:
        N = draw(st.sampled_from([1, 2, 3, 5, 10, 31, 100, 1000, 10000]))
        p = draw(st.sampled_from([1e-3, 0.01, 0.2, 0.5, 0.8, 0.999]))
        where = draw(st.sampled_from(["above", "lattice", "mid", "top"]))
        a = {"above": p * (1 + 1e-9), "lattice": (math.floor(p * N) + 1) / N,
             "mid": (p + 1) / 2, "top": 1 - 1e-9}[where]
        assume(p < a < 1)
        return N, p, a
    return draw_case()
