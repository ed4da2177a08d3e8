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

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from .generators import D_LIST, PAIR_KINDS, SAME_KINDS, SPACE, make_block, pair, pow2, unit

__all__ = ["dtypes", "seeds", "yat_point_sets", "yat_rays", "yat_gradient_cases",
           "unit_ball_cases", "nonnegative_arrays", "squash_powers", "attention_cases",
           "lowrank_matrices", "psd_matrices", "feature_inputs", "itnet_problems",
           "particle_configurations", "interactions", "fv_problems"]

FLOAT_DTYPES = (np.float64, np.float32)
#: log10 of the largest K scale (||x||^4 / eps) kept finite, with margin, per dtype
_K_RANGE = {"float64": 280, "float32": 30}


def seeds():
    return st.integers(0, 2 ** 32 - 1)


def dtypes():
    return st.sampled_from(FLOAT_DTYPES)


def _log10(x):
    return math.log10(x)


@st.composite
def yat_point_sets(draw, dtype=None, min_n=1, max_n=12, max_d=40):
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
def yat_rays(draw, dtype=None):
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
def yat_gradient_cases(draw):
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
def unit_ball_cases(draw, m=4):
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
def nonnegative_arrays(draw, dtype=None, max_len=8):
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


def squash_powers():
    return st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0, 7.5, 50.0, 300.0])


@st.composite
def attention_cases(draw, dtype=None):
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
def lowrank_matrices(draw, max_dim=30):
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
def psd_matrices(draw, max_n=40):
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
def feature_inputs(draw, max_n=4, max_d=4):
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
def itnet_problems(draw, max_n=24, separate_queries=True):
    """(op, U, measure, tile, Xq, Uq): a random single-head ITNet operator (d = 1..3, s = 1..2,
    width 1..10, L = 1..4, a subset of the input groups, exact or tanh GELU, causal or not with
    a diagonal weight, weights scale 10^[-1, 1]), n in 1..max_n nodes with non-uniform weights,
    feature magnitudes 10^[-2, 2], any tile (1..n + 3 each way), separate queries at times."""
    from .. import itnet as it

    rng = np.random.default_rng(draw(seeds()))
    n = draw(st.integers(1, max_n))
    d, s = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    groups = draw(st.lists(st.sampled_from(it.GROUPS), min_size=1, max_size=7, unique=True))
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
def interactions(draw, d=2, bare=True):
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
def particle_configurations(draw, max_n=16, fd=False):
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
def fv_problems(draw):
    """(solver, rho): 1-D or 2-D grids (8..80 / 6..16 cells a side), potentials quadratic,
    double-well, tilted or a tent -a|x| (steep drift at a peak), beta in {0.5, 1, 4, inf},
    upwind or Scharfetter-Gummel fluxes, an optional Plummer interaction, and a non-negative
    density (smooth bump, random, or one occupied cell)."""
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
    beta = draw(st.sampled_from([0.5, 1.0, 4.0, math.inf]))
    flux = draw(st.sampled_from(["sg", "upwind"]))
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
