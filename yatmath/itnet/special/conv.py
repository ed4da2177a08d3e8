"""Convolution as an ITNet kernel (003 Thm 1, Thm C.1, App C.6-C.12; algorithms.md I5).

On a grid, ``y(x_i) = sum_m f_m u(x_i + m h)`` (cross-correlation, PyTorch convention) is the ITNet
integral with the kernel ``K_ij = f_{j - i} / omega_j`` (the I1 rescaling rule: a discrete conv with
unit weights under ``omega_j`` is divided by ``omega_j``), and the true convolution uses
``f_{i - j}`` (the flipped filter).  Everything is built as an explicit kernel tensor
``K`` (nq, nk, C_out, C_in) together with the key weights, so the dense reference
:func:`~yatmath.itnet.dense.apply_kernel_tensor` evaluates it.

Filters use the PyTorch layout ``f[o, c, k_1, ..., k_s]`` (c: input channel within the group);
``groups = C_in`` with ``C_out = C_in`` is depthwise.  Boundaries: ``"valid"`` (queries with full
support), ``"same"`` (zero-valued extension key points, pad = dilation (k - 1) // 2 per side,
odd k), ``"wrap"`` (periodic key index).  ``stride`` subsamples queries (separate query set);
:func:`conv_transpose_kernel` places queries on the finer grid, ``K_qj = f_{q - S j} / omega_j``.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._validate import as_float_array, check_choice

BOUNDARIES = ("valid", "same", "wrap")


@dataclass
class ConvKernel:
    """A convolution written as an ITNet kernel tensor.

    K: (nq, nk, C_out, C_in); omega: (nk,) key weights; key_shape/query_shape: grid shapes;
    pad: zero extension per side (boundary "same").
    """

    K: np.ndarray
    omega: np.ndarray
    key_shape: tuple
    query_shape: tuple
    pad: tuple

    def keys(self, x: npt.ArrayLike) -> npt.NDArray[Any]:
        """Key features (nk, C_in) from an input grid x (C_in, *grid): zero-padded for "same"."""
        x = np.asarray(x, float)
        xp = np.pad(x, [(0, 0)] + [(p, p) for p in self.pad])
        return xp.reshape(x.shape[0], -1).T

    def apply(self, x: npt.ArrayLike) -> npt.NDArray[Any]:
        """sum_j omega_j K_ij u_j reshaped to (C_out, *query_shape)."""
        from ..dense import apply_kernel_tensor

        O = apply_kernel_tensor(self.K, self.keys(x), self.omega)
        return O.T.reshape((self.K.shape[2],) + tuple(self.query_shape))

    def padded(self, d: int | None = None) -> npt.NDArray[Any]:
        """K embedded in square d x d blocks, d = max(C_out, C_in) (zero padding)."""
        nq, nk, a, b = self.K.shape
        d = max(a, b) if d is None else d
        out = np.zeros((nq, nk, d, d))
        out[:, :, :a, :b] = self.K
        return out


def _check_int(v: int | Sequence[int], name: str, minimum: int = 1) -> tuple[Any, ...]:
    vals = (v,) if np.ndim(v) == 0 else tuple(v)  # type: ignore[arg-type]
    for x in vals:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum} (or a tuple of them), got {v!r}")
    return vals


def conv_kernel(f: npt.ArrayLike, grid_shape: int | Sequence[int], *, convention: str = "corr",
                stride: int | Sequence[int] = 1, dilation: int | Sequence[int] = 1,
                groups: int = 1, boundary: str = "same",
                weight: float | None = None) -> ConvKernel:
    """The ITNet kernel of a (multi-channel, grouped, dilated, strided) convolution.

    ``weight``: the key weight omega_j (default ``1 / nk``, the discrete uniform measure; pass 1
    for the unit-weight reference measure or ``h**s`` for the lattice measure).
    """
    check_choice(convention, "convention", ("corr", "conv"))
    check_choice(boundary, "boundary", BOUNDARIES)
    f = as_float_array(f, "f")
    grid_shape = _check_int(grid_shape, "grid_shape")
    s = len(grid_shape)
    if f.ndim != s + 2:
        raise ValueError(f"f must have shape (C_out, C_in/groups, k_1..k_{s}) for a {s}-D grid, got {f.shape}")
    (groups,) = _check_int(groups, "groups")
    C_out, cpg = f.shape[:2]
    ks = f.shape[2:]
    if C_out % groups:
        raise ValueError(f"C_out={C_out} must be divisible by groups={groups}")
    C_in = cpg * groups
    stride = _check_int(stride, "stride") * (s if np.ndim(stride) == 0 else 1)
    dilation = _check_int(dilation, "dilation") * (s if np.ndim(dilation) == 0 else 1)
    if convention == "conv":
        f = f[(slice(None), slice(None)) + (slice(None, None, -1),) * s]
    if boundary == "same" and any(k % 2 == 0 for k in ks):
        raise ValueError(f"boundary='same' needs odd filter sizes, got {ks}")
    span = [dilation[a] * (ks[a] - 1) for a in range(s)]
    pad = tuple(span[a] // 2 for a in range(s)) if boundary in ("same", "wrap") else (0,) * s
    if boundary == "same":
        key_shape = tuple(grid_shape[a] + 2 * pad[a] for a in range(s))
        out_len = [(key_shape[a] - span[a] - 1) // stride[a] + 1 for a in range(s)]
    elif boundary == "valid":
        key_shape = tuple(grid_shape)
        out_len = [(grid_shape[a] - span[a] - 1) // stride[a] + 1 for a in range(s)]
        if min(out_len) < 1:
            raise ValueError(f"filter span {span} exceeds the grid {grid_shape} for boundary='valid'")
    else:
        key_shape = tuple(grid_shape)
        out_len = [-(-grid_shape[a] // stride[a]) for a in range(s)]
    nk = int(np.prod(key_shape))
    nq = int(np.prod(out_len))
    w0 = 1.0 / nk if weight is None else float(weight)
    if not w0 > 0:
        raise ValueError(f"weight must be > 0, got {weight!r}")
    K = np.zeros((nq, nk, C_out, C_in))
    opg = C_out // groups
    for qi, p in enumerate(itertools.product(*[range(L) for L in out_len])):
        for m in itertools.product(*[range(k) for k in ks]):
            if boundary == "wrap":
                key = tuple((p[a] * stride[a] + m[a] * dilation[a] - pad[a]) % key_shape[a] for a in range(s))
            else:
                key = tuple(p[a] * stride[a] + m[a] * dilation[a] for a in range(s))
            j = int(np.ravel_multi_index(key, key_shape))
            for g in range(groups):
                K[qi, j, g * opg:(g + 1) * opg, g * cpg:(g + 1) * cpg] += f[(slice(g * opg, (g + 1) * opg), slice(None)) + m]
    K /= w0
    return ConvKernel(K, np.full(nk, w0), key_shape, tuple(out_len), pad if boundary == "same" else (0,) * s)


def conv_transpose_kernel(f: npt.ArrayLike, grid_shape: int | Sequence[int], *,
                          stride: int | Sequence[int] = 1,
                          weight: float | None = None) -> ConvKernel:
    """Transposed convolution (PyTorch layout f[c_in, c_out, k...], no padding, groups = 1):
    ``y[o, q] = sum_j sum_c f[c, o, q - S j] x[c, j]``; queries on the fine grid of length
    ``(N - 1) S + k`` per axis, ``K_qj = f_{q - S j} / omega_j``."""
    f = as_float_array(f, "f")
    grid_shape = _check_int(grid_shape, "grid_shape")
    s = len(grid_shape)
    if f.ndim != s + 2:
        raise ValueError(f"f must have shape (C_in, C_out, k_1..k_{s}), got {f.shape}")
    stride = _check_int(stride, "stride") * (s if np.ndim(stride) == 0 else 1)
    C_in, C_out = f.shape[:2]
    ks = f.shape[2:]
    out_len = tuple((grid_shape[a] - 1) * stride[a] + ks[a] for a in range(s))
    nk = int(np.prod(grid_shape))
    w0 = 1.0 / nk if weight is None else float(weight)
    K = np.zeros((int(np.prod(out_len)), nk, C_out, C_in))
    for j, jj in enumerate(itertools.product(*[range(N) for N in grid_shape])):
        for m in itertools.product(*[range(k) for k in ks]):
            q = tuple(jj[a] * stride[a] + m[a] for a in range(s))
            K[int(np.ravel_multi_index(q, out_len)), j] += f[(slice(None), slice(None)) + m].T
    return ConvKernel(K / w0, np.full(nk, w0), tuple(grid_shape), out_len, (0,) * s)
