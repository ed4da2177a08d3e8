"""itnet.special_case.conv_discrete: 003 Thm C.1(b) (App C.3), Def 3."""
from __future__ import annotations

import numpy as np
import scipy.signal as ss
import sympy as sp

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Scope, register
from proofs_check.support.itnet_operators import exact_identity_evidence, rel
from yatmath.itnet.dense import apply_kernel_tensor


def printed_lattice_kernel(f, grid_shape, h):
    """003 Thm C.1(b): K(x, y) = h^{-s} f_{(x-y)/h} 1{(x-y)/h in N} on a box of hZ^s; (n, n) matrix."""
    s = len(grid_shape)
    r = f.shape[0] // 2
    idx = np.array(np.unravel_index(np.arange(int(np.prod(grid_shape))), grid_shape)).T
    M = idx[:, None, :] - idx[None, :, :]
    inside = (np.abs(M) <= r).all(-1)
    K = np.zeros(M.shape[:2], dtype=object if f.dtype == object else float)
    K[inside] = f[tuple((M[inside] + r).T)]
    return K / h ** s


def symbolic_case(s, k, G):
    """sum_y h^s K(x,y) u(y) - sum_m f_m u(x - m h) for symbolic f, u, h on a box (u zero near the edge)."""
    h = sp.Symbol("h", positive=True)
    f = np.array(sp.symbols(f"f0:{k ** s}"), dtype=object).reshape((k,) * s)
    r = k // 2
    u = np.zeros(G, dtype=object)
    inner = tuple(slice(r, g - r) for g in G)
    n_in = int(np.prod([g - 2 * r for g in G]))
    u[inner] = np.array(sp.symbols(f"u0:{n_in}"), dtype=object).reshape(u[inner].shape)
    K = printed_lattice_kernel(f, G, h)
    out = (K * h ** s).dot(u.reshape(-1)).reshape(G)
    bad = 0
    for x in np.ndindex(*G):
        ref = 0
        for m in np.ndindex(*(k,) * s):
            mm = np.array(m) - r
            y = np.array(x) - mm
            if np.all(y >= 0) and np.all(y < np.array(G)):
                ref += f[m] * u[tuple(y)]
        bad += sp.expand(out[x] - ref) != 0
    return int(bad)


@register("itnet.special_case.conv_discrete",
          method="sympy: sum_y h^s K(x,y) u(y) = sum_m f_m u(x - m h) with the printed kernel for symbolic f, u, h "
                 "(s = 1, k in {3, 5}; s = 2, k = 3); random-draw search vs scipy.signal.convolve, correlate with "
                 "the flipped / unflipped filter, and mu = 1/n with the kernel scaled by n h^s")
def check_conv_discrete(ctx):
    sym = {"s=1,k=3": symbolic_case(1, 3, (9,)), "s=1,k=5": symbolic_case(1, 5, (11,)),
           "s=2,k=3": symbolic_case(2, 3, (5, 5))}
    proof = Evidence(
        V.holds(sum(sym.values()) == 0), numbers={"nonzero_differences": sym},
        scope=Scope("symbolic", "sympy, symbolic f_m, u and h on a box of hZ^s with u supported floor(k/2) "
                                "inside (so the box equals hZ^s for the sum): s=1 k=3,5; s=2 k=3; the general "
                                "case is the substitution m = (x-y)/h", universal=True))

    def draw(rng):
        s, G, k = (1, (24,), 5) if rng.random() < 0.5 else (2, (10, 9), 3)
        h = float(rng.uniform(0.1, 2.0))
        f = rng.normal(size=(k,) * s)
        r = k // 2
        u = np.zeros(G)
        u[tuple(slice(r, g - r) for g in G)] = rng.normal(size=tuple(g - 2 * r for g in G))
        K = printed_lattice_kernel(f, G, h)
        nk = K.shape[0]
        out = apply_kernel_tensor(K[:, :, None, None], u.reshape(-1, 1), np.full(nk, h ** s))[:, 0].reshape(G)
        ref = ss.convolve(u, f, mode="same")
        e = max(rel(out, ref),
                rel(out, ss.correlate(u, f[(slice(None, None, -1),) * s], mode="same")),
                rel(apply_kernel_tensor(K[:, :, None, None] * nk * h ** s, u.reshape(-1, 1),
                                        np.full(nk, 1.0 / nk))[:, 0].reshape(G), ref))
        return e, {"s": s, "k": k, "h": h, "f": f.tolist(), "u": u.tolist()}

    num = exact_identity_evidence(ctx, "draw", draw, what="printed lattice kernel vs convolve / flipped correlate / "
                                                          "mu = 1/n with kernel * n h^s")
    rng = ctx.rng("pytorch")
    f = rng.normal(size=5)
    u = np.r_[0, 0, rng.normal(size=20), 0, 0]
    K = printed_lattice_kernel(f, (24,), 1.0)
    unflipped = rel(apply_kernel_tensor(K[:, :, None, None], u[:, None], np.ones(24))[:, 0], ss.correlate(u, f, "same"))
    return Evidence.of_parts({"symbolic": proof, "numeric_search": num},
                             numbers={"vs_unflipped_correlate(PyTorch convention)": unflipped},
                             notes="the printed kernel is the true convolution (flipped relative to PyTorch's "
                                   "cross-correlation, difference recorded); under mu = 1/n it must be rescaled by n h^s")
