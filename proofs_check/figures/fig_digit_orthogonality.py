"""001 Fig. 9 (substitute): pairwise similarity of the learned prototypes.

For each model's prototypes, two matrices over pairs i != j (diagonal masked): the cosine
|w_i.w_j|/(||w_i|| ||w_j||) and the "log-Yat similarity" log(1 + K(w_i, w_j)) with the training
eps (001 does not define its log-Yat similarity precisely; log1p is our reading).  UCI
handwritten digits (sklearn load_digits, 8×8; proofs_check.figures._digits), a substitute for
MNIST.
"""
from __future__ import annotations

import numpy as np

from . import _digits
from ._common import stamp, yat
from .registry import register_figure


def similarity_matrices(W, eps):
    nw = np.linalg.norm(W, axis=1)
    cos = np.abs(W @ W.T) / np.outer(nw, nw)
    logyat = np.log1p(yat(W[:, None, :], W[None, :, :], eps))
    off = ~np.eye(len(W), dtype=bool)
    return {"cos": np.where(off, cos, np.nan), "logyat": np.where(off, logyat, np.nan)}


def data(seed=0):
    r = _digits.train(seed)
    eps = r["params"]["eps"]
    out = {"linear": similarity_matrices(r["W_lin"], eps),
           "yat": similarity_matrices(r["W_yat"], eps), "params": r["params"]}
    out["summary"] = {f"{m}_{k}_{s}": float(getattr(np, "nan" + s)(out[m][k]))
                      for m in ("linear", "yat") for k in ("cos", "logyat") for s in ("mean", "max")}
    return out


@register_figure("digit_prototype_orthogonality", paper="001 Fig. 9",
                 title=f"Pairwise prototype similarity ({_digits.LABEL})", data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(11, 9)
    axs = fig.subplots(2, 2)
    for i, m in enumerate(("linear", "yat")):
        for j, (k, lab) in enumerate((("cos", "|cosine|"), ("logyat", "log(1 + K(w_i, w_j))"))):
            ax = axs[i, j]
            M = d[m][k]
            im = ax.imshow(M, cmap="viridis")
            fig.colorbar(im, ax=ax, shrink=0.8)
            ax.set_title(f"{m} prototypes: {lab}\nmean {np.nanmean(M):.3g}, max {np.nanmax(M):.3g}",
                         fontsize=9)
            ax.set_xticks(range(10)), ax.set_yticks(range(10))
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\nprototype similarity; "
                 f"eps = {p['eps']:g}", fontsize=10)
    stamp(fig, p, keys=["n_train", "epochs", "eps", "seed"])
