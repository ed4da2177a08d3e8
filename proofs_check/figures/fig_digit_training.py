"""001 Fig. 7 (substitute): training dynamics of the linear and Yat 10-prototype classifiers on
UCI handwritten digits (sklearn load_digits, 8×8; proofs_check.figures._digits), a substitute for
MNIST: accuracy curves, the width-scale exponent alpha of the Yat logits s = (n/ln(1+n))^alpha, the
test-accuracy comparison, the learning-rate schedule and the per-epoch change of alpha.
"""
from __future__ import annotations

import numpy as np

from . import _digits
from ._common import stamp
from .registry import register_figure


def data(seed=0):
    r = _digits.train(seed)
    keys = ("acc_lin_train", "acc_lin_test", "acc_yat_train", "acc_yat_test", "alpha_steps",
            "alpha_epoch", "lr_steps", "loss_lin", "loss_yat")
    out = {k: r[k] for k in keys}
    out["alpha_change_per_epoch"] = np.diff(r["alpha_epoch"])
    out["params"] = r["params"]
    return out


@register_figure("digit_training_dynamics", paper="001 Fig. 7",
                 title=f"Training dynamics, linear vs Yat ({_digits.LABEL})", data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(15, 8.4)
    axs = fig.subplots(2, 3)
    ep = np.arange(d["acc_lin_test"].size)
    for ax, m, lab in ((axs[0, 0], "lin", "linear"), (axs[0, 1], "yat", "Yat")):
        ax.plot(ep, d[f"acc_{m}_train"], "o-", ms=2, label="train")
        ax.plot(ep, d[f"acc_{m}_test"], "s--", ms=2, label="test")
        ax.set_title(f"{lab} accuracy"), ax.set_xlabel("epoch"), ax.legend(fontsize=8)
    axs[0, 2].plot(d["alpha_steps"])
    axs[0, 2].set_title(f"Yat alpha: 1 -> {d['alpha_steps'][-1]:.3f}"), axs[0, 2].set_xlabel("step")
    axs[1, 0].plot(ep, d["acc_lin_test"], "o-", ms=2, label="linear")
    axs[1, 0].plot(ep, d["acc_yat_test"], "s-", ms=2, label="Yat")
    axs[1, 0].set_title("test accuracy"), axs[1, 0].legend(fontsize=8), axs[1, 0].set_xlabel("epoch")
    axs[1, 1].plot(d["lr_steps"]), axs[1, 1].set_title(f"learning rate ({p['lr_schedule']})")
    axs[1, 1].set_xlabel("step")
    axs[1, 2].bar(np.arange(1, ep.size), d["alpha_change_per_epoch"])
    axs[1, 2].set_title("per-epoch change of alpha"), axs[1, 2].set_xlabel("epoch")
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\ntraining dynamics; Yat eps = "
                 f"{p['eps']:g}, Adam lr {p['lr']:g}, batch {p['batch']}", fontsize=10)
    stamp(fig, p, keys=["n_train", "n_test", "epochs", "eps", "init", "yat_logits", "seed"])
