"""ITNet operators (003 Def. 1, eq. 4): single-head, multi-head, causal.

Discrete form (algorithms.md I1)::

    O_i = sum_j omega_j m_ij K_ij u_j + W u_i,      K_ij = kappa_theta(x_i, y_j, u_i, u_j) in R^{d x d}

with ``m_ij = 1`` (non-causal) or the causal mask (1 for j < i, ``diag_weight`` for j = i, 0 for
j > i; queries and keys then share one node set).

Multi-head (eq. 4): ``u`` is split into H slices ``u^(h)`` of width ``d_h = d / H``; head h has its
own kernel MLP fed ``(x, y, u^(h)(x), u^(h)(y))``; ``O_i = W_O concat_h(I_i^(h)) + W u_i``.  As a
d x d kernel this is ``K_ij = W_O blockdiag(K^(1)_ij, ..., K^(H)_ij)``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._typing import RNGLike
from .._validate import as_float_array, as_rng, check_int, check_real
from .._registry import register
from .measures import check_diag_weight
from .network import GROUPS, KernelMLP, init_kernel_mlp


def _check_square(W: Any, d: int, name: str) -> Any:
    W = as_float_array(W, name, ndim=2)
    if W.shape != (d, d):
        raise ValueError(f"{name} must have shape ({d}, {d}), got {W.shape}")
    return W


def check_flag(value: Any, name: str) -> bool:
    """A yes/no option: ``True``/``False`` (or NumPy booleans, or the integers 0 and 1)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


@register("itnet.ITNetOperator", "reference", libraries=("numpy",),
          note="NumPy parameters; evaluated by itnet.apply / itnet.grad (any library)")
@dataclass
class ITNetOperator:
    """Single-head ITNet operator: kernel MLP ``kernel``, residual ``W`` (d x d), causal flag."""

    kernel: KernelMLP
    W: np.ndarray
    causal: bool = False
    diag_weight: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.kernel, KernelMLP):
            raise TypeError(f"kernel must be a KernelMLP, got {type(self.kernel).__name__}")
        self.W = _check_square(self.W, self.kernel.d, "W")
        self.diag_weight = check_diag_weight(self.diag_weight)
        self.causal = check_flag(self.causal, "causal")

    @property
    def d(self) -> int:
        return self.kernel.d

    @property
    def heads(self) -> list[KernelMLP]:
        return [self.kernel]

    def n_params(self) -> int:
        return self.kernel.n_params() + self.W.size


@register("itnet.MultiHeadOperator", "reference", libraries=("numpy",),
          note="NumPy parameters; evaluated by itnet.apply / itnet.grad (any library)")
@dataclass
class MultiHeadOperator:
    """Multi-head ITNet operator (003 eq. 4): one kernel MLP per slice, output projection ``W_O``."""

    heads: list
    W_O: np.ndarray
    W: np.ndarray
    causal: bool = False
    diag_weight: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.heads, KernelMLP) or not isinstance(self.heads, (list, tuple)):
            raise TypeError(f"heads must be a non-empty list of KernelMLP, got "
                            f"{type(self.heads).__name__}")
        if not self.heads or not all(isinstance(h, KernelMLP) for h in self.heads):
            raise TypeError(f"heads must be a non-empty list of KernelMLP, got "
                            f"{[type(h).__name__ for h in self.heads]}")
        self.heads = list(self.heads)
        dh = self.heads[0].d
        if any(h.d != dh for h in self.heads):
            raise ValueError(f"all heads must have the same d_h, got {[h.d for h in self.heads]}")
        d = dh * len(self.heads)
        self.W_O = _check_square(self.W_O, d, "W_O")
        self.W = _check_square(self.W, d, "W")
        self.diag_weight = check_diag_weight(self.diag_weight)
        self.causal = check_flag(self.causal, "causal")

    @property
    def d(self) -> int:
        return self.heads[0].d * len(self.heads)

    @property
    def d_head(self) -> int:
        return self.heads[0].d

    def head_slice(self, h: int) -> slice:
        """The feature columns of head ``h`` (0 <= h < number of heads)."""
        h = check_int(h, "h", minimum=0, maximum=len(self.heads) - 1)
        return slice(h * self.d_head, (h + 1) * self.d_head)

    def n_params(self) -> int:
        return sum(h.n_params() for h in self.heads) + self.W_O.size + self.W.size


@register("itnet.init_itnet", "reference", libraries=("numpy",), note="builds NumPy float64 parameters/nodes from Python numbers and a NumPy Generator")
def init_itnet(d: int, s: int = 1, *, n_keys: int, heads: int = 1, width: int = 128, L: int = 64,
               sigma: float = 10.0, eps_init: float = 1e-3, groups: Sequence[str] = GROUPS,
               gelu: str = "exact", causal: bool = False, diag_weight: float = 1.0,
               n_layers: int = 1, share_B: bool = True,
               rng: RNGLike = None) -> ITNetOperator | MultiHeadOperator:
    """An ITNet operator initialised as printed in 003 App H.3.1.

    Kernel MLPs: see :func:`~yatmath.itnet.network.init_kernel_mlp` (one per head, one shared
    frozen ``B`` when ``share_B``).  ``W_theta = I``.  With ``heads > 1``: ``W_O`` Xavier-uniform
    scaled by ``1/sqrt(2 n_layers)``.
    """
    d = check_int(d, "d", minimum=1)
    heads = check_int(heads, "heads", minimum=1)
    n_layers = check_int(n_layers, "n_layers", minimum=1)
    share_B = check_flag(share_B, "share_B")
    causal = check_flag(causal, "causal")
    s = check_int(s, "s", minimum=1)
    L = check_int(L, "L", minimum=0)
    sigma = check_real(sigma, "sigma", ge=0.0)
    if d % heads:
        raise ValueError(f"heads={heads} must divide d={d} (each head gets d / heads features)")
    rng = as_rng(rng)
    dh = d // heads
    B = rng.normal(0.0, sigma, size=(L, s)) if share_B else None
    nets = [init_kernel_mlp(dh, s, n_keys=n_keys, width=width, L=L, sigma=sigma, eps_init=eps_init,
                            groups=groups, gelu=gelu, rng=rng, B=B) for _ in range(heads)]
    if heads == 1:
        return ITNetOperator(nets[0], np.eye(d), causal, diag_weight)
    lim = math.sqrt(6.0 / (2 * d))
    W_O = rng.uniform(-lim, lim, size=(d, d)) / math.sqrt(2 * n_layers)
    return MultiHeadOperator(nets, W_O, np.eye(d), causal, diag_weight)


def check_operator(op: Any) -> ITNetOperator | MultiHeadOperator:
    if not isinstance(op, (ITNetOperator, MultiHeadOperator)):
        raise TypeError(f"op must be an ITNetOperator or MultiHeadOperator, got {type(op).__name__}")
    return op
