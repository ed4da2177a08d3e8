"""000 Fig. 6 / 001 Fig. 6 / 002 Fig. 8 (substitute): learned prototypes, linear (top) vs Yat
(bottom), as weight images with one shared diverging colour map and robust limits (the 99th
percentile of |w| over both models), as 000 describes.  Trained on UCI handwritten digits
(sklearn load_digits, 8×8; proofs_check.figures._digits), a substitute for MNIST, so the
prototypes are 8x8 and are shown at that resolution (nearest-neighbour pixels, not upsampled);
the papers' are 28x28.
"""
from __future__ import annotations

import numpy as np

from . import _digits
from ._common import stamp
from .registry import register_figure


def data(seed=0, robust_pct=99.0):
    r = _digits.train(seed)
    lim = float(np.percentile(np.abs(np.concatenate([r["W_lin"], r["W_yat"]])), robust_pct))
    return {"W_lin": r["W_lin"], "W_yat": r["W_yat"], "limit": lim,
            "norm_lin": np.linalg.norm(r["W_lin"], axis=1),
            "norm_yat": np.linalg.norm(r["W_yat"], axis=1),
            "params": {**r["params"], "robust_pct": float(robust_pct)}}


@register_figure("digit_prototypes", paper="000 Fig. 6; 001 Fig. 6; 002 Fig. 8",
                 title=f"Learned prototypes, linear vs Yat ({_digits.LABEL})", data=data, substitute=True)
def draw(d, fig):
    fig.set_size_inches(15, 4.4)
    axs = fig.subplots(2, 10)
    lim = d["limit"]
    side = _digits.SIDE
    for row, key, lab in ((0, "W_lin", "linear"), (1, "W_yat", "Yat")):
        for c in range(10):
            ax = axs[row, c]
            im = ax.imshow(d[key][c].reshape(side, side), cmap="RdBu_r", vmin=-lim, vmax=lim,
                           interpolation="nearest")
            ax.set_xticks([]), ax.set_yticks([])
            ax.set_title(f"{lab} {c}\n||w||={d['norm_' + key[2:]][c]:.2f}", fontsize=7)
    fig.colorbar(im, ax=axs, shrink=0.8, label=f"weight (shared limits +-{lim:.3g})")
    p = d["params"]
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\nprototypes after {p['epochs']} "
                 f"epochs, shown as {side}x{side} images (the data's resolution); Yat eps = {p['eps']:g}",
                 fontsize=10)
    stamp(fig, p, keys=["n_train", "n_test", "epochs", "batch", "lr", "eps", "init", "seed"])
