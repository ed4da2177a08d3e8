"""001 Fig. 10 (substitute): test confusion matrices of the linear and Yat classifiers trained
on UCI handwritten digits (sklearn load_digits, 8×8; proofs_check.figures._digits), a substitute
for MNIST, with its stratified test split.  Rows: true class; columns: predicted.
"""
from __future__ import annotations

import numpy as np

from . import _digits
from ._common import stamp
from .registry import register_figure


def confusion(y, pred, k=10):
    C = np.zeros((k, k), dtype=int)
    np.add.at(C, (y, pred), 1)
    return C


def data(seed=0):
    r = _digits.train(seed)
    y = r["y_test"]
    return {"linear": confusion(y, np.argmax(r["logits_lin_test"], 1)),
            "yat": confusion(y, np.argmax(r["logits_yat_test"], 1)), "params": r["params"]}


@register_figure("digit_confusion", paper="001 Fig. 10",
                 title=f"Confusion matrices ({_digits.LABEL})",
                 data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(12, 5.5)
    axs = fig.subplots(1, 2)
    for ax, m in zip(axs, ("linear", "yat")):
        C = d[m]
        ax.imshow(C, cmap="Blues")
        for i in range(10):
            for j in range(10):
                if C[i, j]:
                    ax.text(j, i, str(C[i, j]), ha="center", va="center", fontsize=7,
                            color="w" if C[i, j] > C.max() / 2 else "k")
        ax.set_xlabel("predicted"), ax.set_ylabel("true")
        ax.set_xticks(range(10)), ax.set_yticks(range(10))
        ax.set_title(f"{m}: accuracy {np.trace(C) / C.sum():.3f}")
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\nconfusion matrices; Yat eps = "
                 f"{p['eps']:g}", fontsize=10)
    stamp(fig, p, keys=["n_train", "n_test", "epochs", "eps", "seed"])
