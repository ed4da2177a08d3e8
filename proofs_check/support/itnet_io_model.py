"""Analytic IO / FLOP / memory model of the tiled ITNet algorithm (algorithms.md I9).

**HBM element reads of one forward (Alg. 1)** are counted by walking the tile loops (so ragged
tiles and any tile sizes are exact, not asymptotic):

* query tiles: each query row loads ``U`` (d) and ``X`` (s) once: ``n (d + s)``;
* key tiles: for every query tile, every key row loads ``U``, ``X`` and ``omega``:
  ``ceil(n / Bq) * n * (d + s + 1)`` -- proportional to ``n^2 d / Bq`` and independent of ``Bk``;
* MLP weights: once per query tile (``weights_resident=True``) or once per tile pair;
* writes: ``n d``.

**Multiply-adds per (query, key) pair and head** (one hidden layer of width ``w``, Fourier size
``L``, head width ``d_h``)::

    layer 1   w (6L + 1 + 3 d_h)        (split-W1 form: w (2L + 1 + d_h) per pair)
    layer 2   w d_h^2
    mat-vec   d_h^2
    factorised last layer (I3): layer 2 and mat-vec replaced by the outer product w d_h per pair

**Backward with recompute**: forward MACs + MLP backward (2x the MLP forward: the input-gradient
and the weight-gradient products) + the accumulations ``dK = omega g u^T`` (d_h^2) and the value
term ``K^T g`` (d_h^2) per pair.

These are exact counts of the stated loop structure (no constants hidden); bytes use
``bytes_per_element`` (2 for bf16).
"""
from __future__ import annotations

import math
from typing import Any

from yatmath.arguments import check_int


def _pos_int(v: Any, name: str) -> int:
    return check_int(v, name, minimum=1)


def alg1_reads(n: int, d: int, s: int, bq: int, bk: int, *, mlp_weight_elems: int = 0,
               weights_resident: bool = True) -> dict[str, Any]:
    """Element reads/writes of Alg. 1 by walking its tile loops (ragged last tiles included)."""
    for name, v in (("n", n), ("d", d), ("s", s), ("bq", bq), ("bk", bk)):
        _pos_int(v, name)
    q_reads = k_reads = w_reads = 0
    n_qt = n_pairs = 0
    for i0 in range(0, n, bq):
        rows_q = min(bq, n - i0)
        q_reads += rows_q * (d + s)
        n_qt += 1
        if weights_resident:
            w_reads += mlp_weight_elems
        for j0 in range(0, n, bk):
            rows_k = min(bk, n - j0)
            k_reads += rows_k * (d + s + 1)
            n_pairs += 1
            if not weights_resident:
                w_reads += mlp_weight_elems
    return {"query_reads": q_reads, "key_reads": k_reads, "weight_reads": w_reads,
            "reads": q_reads + k_reads + w_reads, "writes": n * d, "query_tiles": n_qt,
            "tile_pairs": n_pairs}


def pair_macs(d_h: int, w: int, L: int, *, split: bool = False,
              factorised: bool = False) -> dict[str, Any]:
    """Multiply-adds per (query, key) pair for one head (see the module docstring)."""
    for name, v in (("d_h", d_h), ("w", w), ("L", L)):
        _pos_int(v, name)
    layer1 = w * (2 * L + 1 + d_h) if split else w * (6 * L + 1 + 3 * d_h)
    if factorised:
        layer2, matvec, outer = 0, 0, w * d_h
    else:
        layer2, matvec, outer = w * d_h * d_h, d_h * d_h, 0
    return {"layer1": layer1, "layer2": layer2, "matvec": matvec, "outer": outer,
            "total": layer1 + layer2 + matvec + outer}


def forward_macs(n: int, d_h: int, w: int, L: int, heads: int = 1, *, split: bool = False,
                 factorised: bool = False, n_keys: int | None = None) -> int:
    """Operator forward MACs: pairs x heads x per-pair MACs (+ per-point terms of the split and
    factorised forms: w (2L + d_h) per point for the split parts, w d_h^2 per query for the
    contraction of the factorised form)."""
    nk = n if n_keys is None else n_keys
    per = pair_macs(d_h, w, L, split=split, factorised=factorised)["total"]
    extra = 0
    if split:
        extra += (n + nk) * w * (2 * L + d_h)
    if factorised:
        extra += n * w * d_h * d_h + n * d_h * d_h
    return heads * (n * nk * per + extra)


def backward_macs_recompute(n: int, d_h: int, w: int, L: int, heads: int = 1) -> dict[str, Any]:
    """MACs of the recompute backward (naive per-pair kernel) and its ratio to the forward."""
    pm = pair_macs(d_h, w, L)
    mlp = pm["layer1"] + pm["layer2"]
    fwd = pm["total"]
    bwd = fwd + 2 * mlp + 2 * d_h * d_h
    return {"forward_per_pair": fwd, "backward_per_pair": bwd, "ratio": bwd / fwd,
            "forward": heads * n * n * fwd, "backward": heads * n * n * bwd}


def kernel_tile_bytes(bq: int, bk: int, d_h: int, bytes_per_element: int = 2) -> int:
    """Bytes of one tile of kernel values: Bq Bk d_h^2 elements."""
    return bq * bk * d_h * d_h * bytes_per_element


def mlp_weight_elems(d_h: int, w: int, L: int) -> int:
    """Parameters of one head's kernel MLP: W1 (w x (6L+1+3d_h)), b1, W2 (d_h^2 x w), b2."""
    return w * (6 * L + 1 + 3 * d_h) + w + d_h * d_h * w + d_h * d_h


def ceil_div(a: int, b: int) -> int | float:
    return -(-a // b) if b > 0 else math.inf


def itnet_param_count(layers: int, d: int, heads: int, d_h: int, *, w: int = 128, L: int = 64,
                      ffn: int = 4, patch_in: int = 16 * 16 * 3,
                      classes: int = 1000) -> dict[str, Any]:
    """Exact trainable-parameter count of an ITNet classifier as 003 §2.1 / App H.2 describe it.

    Per layer: ``heads`` kernel MLPs (:func:`mlp_weight_elems`: W1 w x (6L+1+3d_h), b1,
    W2 d_h^2 x w, b2), the residual W_theta (d x d), the output projection W^O (d x d, only when
    heads > 1), the 4x GELU FFN (two matrices and biases) and two LayerNorms (4 d).  Outside the
    layers: the patch embedding (``patch_in`` x d + d), the CLS token and a position vector
    (2 d), the final LayerNorm (2 d) and the linear head (d x classes + classes).  The frozen
    Fourier matrix B is not counted.  Returns the total and its main pieces (``kernel_W2`` is the
    W2 matrices of all layers and heads, the quantity 003 Table 11 prints as ~75.5M for ITNet-B).
    """
    for name, v in (("layers", layers), ("d", d), ("heads", heads), ("d_h", d_h), ("w", w), ("L", L)):
        _pos_int(v, name)
    mlp = mlp_weight_elems(d_h, w, L)
    ffn_p = 2 * ffn * d * d + ffn * d + d
    per_layer = heads * mlp + d * d + (d * d if heads > 1 else 0) + ffn_p + 4 * d
    outside = patch_in * d + d + 2 * d + 2 * d + d * classes + classes
    return {"total": layers * per_layer + outside, "per_layer": per_layer,
            "kernel_mlps": layers * heads * mlp, "kernel_W2": layers * heads * d_h * d_h * w,
            "ffn": layers * ffn_p, "outside_layers": outside}


__all__ = ["alg1_reads", "pair_macs", "forward_macs", "backward_macs_recompute",
           "kernel_tile_bytes", "mlp_weight_elems", "itnet_param_count"]
