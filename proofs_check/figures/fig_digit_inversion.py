"""001 Fig. 8 (substitute): prototype inversion.  Both classifiers are trained normally, then every
prototype is replaced by -w at test time.  Linear logits flip sign exactly; the Yat numerator
(w.x)^2 is unchanged but the denominator becomes ||w + x||^2 + eps, so the Yat accuracy after
inversion is measured, not assumed.  UCI handwritten digits (sklearn load_digits, 8×8;
proofs_check.figures._digits), a substitute for MNIST.
"""
from __future__ import annotations

import numpy as np

from . import _digits
from ._common import stamp
from .registry import register_figure


def _acc(Z, y):
    return float(np.mean(np.argmax(Z, axis=1) == y))


def data(seed=0):
    r = _digits.train(seed)
    y = r["y_test"]
    return {"acc": {"linear": (_acc(r["logits_lin_test"], y), _acc(r["logits_lin_inverted"], y)),
                    "yat": (_acc(r["logits_yat_test"], y), _acc(r["logits_yat_inverted"], y))},
            "params": r["params"]}


@register_figure("digit_prototype_inversion", paper="001 Fig. 8",
                 title=f"Prototype inversion w -> -w ({_digits.LABEL})",
                 data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(7, 4.8)
    ax = fig.subplots()
    x = np.arange(2)
    for i, (lab, col) in enumerate((("original", "C0"), ("inverted (-w)", "C3"))):
        vals = [100 * d["acc"][m][i] for m in ("linear", "yat")]
        bars = ax.bar(x + 0.38 * i, vals, 0.36, label=lab, color=col)
        ax.bar_label(bars, fmt="%.1f%%", fontsize=8)
    ax.set_xticks(x + 0.19, ["linear", "Yat"]), ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(0, 105), ax.legend()
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\nprototype inversion; "
                 f"Yat eps = {p['eps']:g}", fontsize=9)
    stamp(fig, p, keys=["n_train", "n_test", "epochs", "eps", "seed"])
