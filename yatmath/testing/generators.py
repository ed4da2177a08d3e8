"""Argument generators for the Yat kernel accuracy harness: inputs chosen to be hard.

In the manner of SciPy's ``_mptestutils`` argument generators, every input class and magnitude
of the working dtype is reached by seeded, deterministic blocks.  A block holds rows
Z = [w_1..w_6; x_1..x_6] that an implementation evaluates as the full 12 x 12 Gram matrix
K(Z_i, Z_j), so each block tests its 6 constructed pairs (w_i, x_i), their mirror images, the 12
self-pairs and the 120 cross pairs.

Pair classes (``PAIR_KINDS``): generic (norm ratio 0.1..10), coincident, x = w (1 + delta)
("scaled"), x = w + delta v ("perturbed"), exactly orthogonal (integer vectors), near-orthogonal
(w.x = delta ||w|| ||x||), antiparallel, straddling the cancellation-repair threshold
tau = 1/8 ("threshold"), zero; delta from 1e-1 to 1e-15 (below the float32 and at the float64
resolution).  Norms: float64 1e-150..1e150, float32 (and bfloat16, which has float32's exponent
range) 1e-15..1e15, with w and x at the same and at different magnitudes.  eps: float64
1e-300..1e300, float32 1e-37..1e37.  Bias: none, inner (random, and cancelling w.x to 1e-8),
outer.  d from 1 to 40 (direct and GEMM paths).  Scaling by powers of two keeps every
construction exact.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

K_PAIRS = 6                       # pairs per block; Z has 2 * K_PAIRS rows
D_LIST = (1, 2, 3, 5, 8, 13, 16, 17, 24, 33, 40)
DELTAS = (1e-1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14, 1e-15)
THRESHOLD_C = (0.50, 0.53, math.sqrt(2.0 / 7.0), 0.54, 0.57)   # c^2/(2+c^2) = 1/8 at sqrt(2/7)
MODES = (None, "inner", "outer")
SAME_KINDS = ("generic", "coincident", "scaled", "perturbed", "orthogonal", "near_orthogonal",
              "antiparallel", "threshold", "zero")
CROSS_KINDS = ("generic", "orthogonal", "near_orthogonal", "zero", "generic", "antiparallel")
PAIR_KINDS = SAME_KINDS
#: Entry classes of a block's Gram matrix: the pair kinds, plus "self" (K(z, z)) and "cross".
ENTRY_CLASSES = PAIR_KINDS + ("self", "cross")
_F32_SPACE = dict(mags=(1e-15, 1e-10, 1e-5, 1.0, 1e5, 1e10, 1e15),
                  cross=(1e-15, 1e-5, 1.0, 1e5, 1e15),
                  eps=(1e-37, 1e-25, 1e-12, 1e-4, 1.0, 1e4, 1e12, 1e25, 1e37))
#: Magnitudes of the norms (same and crossed) and of eps, per dtype name.
SPACE = {
    "float64": dict(mags=(1e-150, 1e-100, 1e-50, 1e-20, 1e-5, 1.0, 1e5, 1e20, 1e50, 1e100, 1e150),
                    cross=(1e-150, 1e-50, 1.0, 1e50, 1e150),
                    eps=(1e-300, 1e-200, 1e-100, 1e-30, 1e-10, 1.0, 1e10, 1e30, 1e100, 1e200,
                         1e300)),
    "float32": _F32_SPACE,
    "bfloat16": _F32_SPACE,
}
_SEEDS = {"float64": 20240611, "float32": 20240612, "bfloat16": 20240613}


def dtype_name(dtype: Any) -> str:
    """'float64', 'float32' or 'bfloat16' for a NumPy/ml_dtypes dtype or one of those names."""
    name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if name not in SPACE:
        raise ValueError(f"dtype must be one of {tuple(SPACE)}, got {dtype!r}")
    return name


def numpy_dtype(dtype: Any) -> np.dtype[Any]:
    """The NumPy dtype for a dtype name (bfloat16 from ``ml_dtypes``, which JAX installs)."""
    name = dtype_name(dtype)
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def pow2(mag: float) -> float:
    """The power of two nearest to ``mag``: scaling by it is exact."""
    return 2.0 ** round(math.log2(mag))


def unit(rng: np.random.Generator, d: int) -> npt.NDArray[np.float64]:
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def perp(rng: np.random.Generator, w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """A unit vector orthogonal to w (to rounding)."""
    v = rng.standard_normal(w.size)
    for _ in range(2):
        v -= (v @ w) / (w @ w) * w
    return v / np.linalg.norm(v)


def int_orthogonal(rng: np.random.Generator, d: int
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Integer vectors with w.x = 0 exactly, scaled by powers of two to norm ~1 (exact)."""
    w = rng.integers(-4, 5, d).astype(float)
    w[rng.integers(d)] = 3.0
    x = rng.integers(-4, 5, d).astype(float)
    x = (w @ w) * x - (w @ x) * w       # integers below 2^13: every product and sum is exact
    if not x.any():
        x = np.zeros(d)
        x[0], x[1] = w[1], -w[0]
        if not x.any():
            x[0] = 1.0 if w[0] == 0 else 0.0
            x[1] = 1.0 if w[0] != 0 else 0.0
    return (w / 2.0 ** math.ceil(math.log2(np.linalg.norm(w))),
            x / 2.0 ** math.ceil(math.log2(np.linalg.norm(x))))


def pair(kind: str, rng: np.random.Generator, d: int, delta: float,
         c: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(w, x) of class ``kind`` with ||w|| ~ 1 (d = 1 turns the orthogonal kinds into "zero")."""
    if d == 1 and kind in ("orthogonal", "near_orthogonal", "threshold"):
        kind = "zero"
    w = unit(rng, d)
    if kind == "generic":
        return w, unit(rng, d) * 10.0 ** rng.uniform(-1, 1)
    if kind == "coincident":
        return w, w.copy()
    if kind == "scaled":
        return w, w * (1.0 + delta)
    if kind == "perturbed":
        return w, w + delta * unit(rng, d)
    if kind == "antiparallel":
        return w, -w * (1.0 + delta)
    if kind == "orthogonal":
        return int_orthogonal(rng, d)
    if kind == "near_orthogonal":
        return w, perp(rng, w) + delta * w
    if kind == "threshold":
        return w, w + c * perp(rng, w)
    if kind == "zero":
        return (w, np.zeros(d)) if rng.random() < 0.5 else (np.zeros(d), w)
    raise ValueError(f"kind must be one of {PAIR_KINDS}, got {kind!r}")


class Block:
    """Rows Z = [w_1..w_k; x_1..x_k] (dtype), eps, per-column bias and its mode.

    ``kinds[i]`` is the class of the constructed pair (Z[i], Z[i + k]) (after the d = 1 rule).
    """

    def __init__(self, tag: str, Z: npt.NDArray[Any], eps: float, bias: npt.NDArray[Any] | None,
                 mode: str | None, kinds: Sequence[str] | None = None) -> None:
        self.tag, self.Z, self.eps, self.bias, self.mode = tag, Z, eps, bias, mode
        self.kinds = tuple(kinds) if kinds is not None else ("generic",) * (Z.shape[0] // 2)

    def __repr__(self) -> str:
        return f"Block({self.tag}, d={self.Z.shape[1]}, eps={self.eps:g}, bias={self.mode})"

    def with_mode(self, mode: str | None) -> Block:
        """The same rows and bias values under another bias mode (None drops the bias)."""
        if mode == self.mode:
            return self
        bias = None if mode is None else self.bias
        if mode is not None and bias is None:
            return Block(self.tag, self.Z, self.eps, None, None, self.kinds)
        return Block(self.tag, self.Z, self.eps, bias, mode, self.kinds)

    def entry_classes(self) -> npt.NDArray[Any]:
        """(m, m) array of class names of the Gram entries K(Z_i, Z_j) (``ENTRY_CLASSES``)."""
        m = self.Z.shape[0]
        k = m // 2
        out = np.full((m, m), "cross", dtype=object)
        for i, kind in enumerate(self.kinds):
            out[i, i + k] = out[i + k, i] = kind
        out[np.arange(m), np.arange(m)] = "self"
        return out


def make_block(rng: np.random.Generator, dtype: Any, kinds: Sequence[str], start: int,
               mag_w: float, mag_x: float, eps: float, d: int, mode: str | None,
               tag: str) -> Block:
    """One block: pair kinds taken cyclically from ``kinds`` from ``start``, norms ~mag_w, mag_x."""
    ws, xs, used = [], [], []
    for i in range(K_PAIRS):
        kind = kinds[(start + i) % len(kinds)]
        delta = DELTAS[rng.integers(len(DELTAS))]
        w, x = pair(kind, rng, d, delta, THRESHOLD_C[rng.integers(len(THRESHOLD_C))])
        used.append("zero" if d == 1 and kind in ("orthogonal", "near_orthogonal", "threshold")
                    else kind)
        ws.append(w * pow2(mag_w))
        xs.append(x * pow2(mag_x))
    Z = np.array(ws + xs, dtype=dtype)
    bias = None
    if mode is not None:
        Z64 = Z.astype(np.float64)
        m = Z.shape[0]
        typical = mag_w * mag_x
        bias = np.empty(m)
        for j in range(m):
            partner = (j + K_PAIRS) % m
            choice = (j + start) % 4
            if choice == 0:
                bias[j] = rng.standard_normal() * typical
            elif choice == 1:       # cancels w.x of the pair (partner, j) to about 1e-8
                bias[j] = -(Z64[partner] @ Z64[j]) * (1.0 + 1e-8)
            elif choice == 2:
                bias[j] = 0.0
            else:
                bias[j] = 1e3 * rng.standard_normal() * typical
        bias = bias.astype(dtype)
    return Block(tag, Z, eps, bias, mode, used)


@functools.lru_cache(maxsize=None)
def _blocks(name: str) -> tuple[Block, ...]:
    dtype = numpy_dtype(name)
    rng = np.random.default_rng(_SEEDS[name])
    sp = SPACE[name]
    out = []
    for a, mag in enumerate(sp["mags"]):
        for b, eps in enumerate(sp["eps"]):
            d = D_LIST[(a + 3 * b) % len(D_LIST)]
            mode = MODES[(a + b) % 3]
            out.append(make_block(rng, dtype, SAME_KINDS, a + b, mag, mag, eps, d, mode,
                                  f"|w|~|x|~{mag:g}"))
    for a, mw in enumerate(sp["cross"]):
        for b, mx in enumerate(sp["cross"]):
            if a == b:
                continue
            eps = sp["eps"][(3 * a + 5 * b) % len(sp["eps"])]
            d = D_LIST[(2 * a + b) % len(D_LIST)]
            out.append(make_block(rng, dtype, CROSS_KINDS, a * b, mw, mx, eps, d,
                                  MODES[(a + 2 * b) % 3], f"|w|~{mw:g},|x|~{mx:g}"))
    return tuple(out)


def blocks(dtype: Any, *, quick: bool = False) -> list[Block]:
    """Every block for one dtype (seeded, so the same on every run); ``quick``: every third."""
    out = _blocks(dtype_name(dtype))
    return list(out[::3] if quick else out)


def huge_float32_blocks() -> list[Block]:
    """float32 rows whose squared norms overflow float32 (norms 2e19..1e30) although K often
    does not: outside the kernel docstring's stated domain (no bias: a bias ~ |w.x| is not
    float32)."""
    rng = np.random.default_rng(99)
    out = []
    for a, mag in enumerate((2e19, 1e22, 1e26, 1e30)):
        for b, eps in enumerate((1e-30, 1.0, 1e30)):
            out.append(make_block(rng, np.float32, SAME_KINDS, a + b, mag, mag, eps,
                                  D_LIST[(a + 2 * b) % len(D_LIST)] + 1, None, f"|w|~|x|~{mag:g}"))
    return out
