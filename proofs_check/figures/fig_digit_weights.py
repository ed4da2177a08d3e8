"""001 Fig. 11 (substitute): distribution of the learned weights (histogram of all 10 x 64 = 640
values per model, with the excess kurtosis from scipy.stats.kurtosis) and the prototype norms at
the start and end of training.  UCI handwritten digits (sklearn load_digits, 8×8;
proofs_check.figures._digits), a substitute for MNIST (the papers' prototypes have 10 x 784
weights).
"""
from __future__ import annotations

from scipy.stats import kurtosis

from . import _digits
from ._common import stamp
from .registry import register_figure


def data(seed=0):
    r = _digits.train(seed)
    out = {"weights_lin": r["W_lin"].ravel(), "weights_yat": r["W_yat"].ravel(),
           "norms_lin": r["norm_lin"], "norms_yat": r["norm_yat"], "params": r["params"]}
    out["excess_kurtosis"] = {"linear": float(kurtosis(out["weights_lin"])),
                              "yat": float(kurtosis(out["weights_yat"]))}
    out["mean_norm_change"] = {m: float(out[f"norms_{k}"][-1].mean() / out[f"norms_{k}"][0].mean() - 1)
                               for m, k in (("linear", "lin"), ("yat", "yat"))}
    return out


@register_figure("digit_weight_distribution", paper="001 Fig. 11",
                 title=f"Weight distributions ({_digits.LABEL})",
                 data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(13, 5)
    a, b = fig.subplots(1, 2)
    for m, k in (("linear", "lin"), ("yat", "yat")):
        a.hist(d[f"weights_{k}"], bins=80, alpha=0.55, density=True,
               label=f"{m}: excess kurtosis {d['excess_kurtosis'][m]:.2f}")
    a.set_xlabel("weight value"), a.set_ylabel("density"), a.legend(fontsize=8)
    a.set_title("all prototype weights")
    data_b = [d["norms_lin"][0], d["norms_lin"][-1], d["norms_yat"][0], d["norms_yat"][-1]]
    b.boxplot(data_b)
    b.set_xticks([1, 2, 3, 4], ["linear init", "linear final", "Yat init", "Yat final"])
    b.set_ylabel("||w_i||")
    b.set_title("prototype norms; mean change: linear {:+.0%}, Yat {:+.0%}".format(
        d["mean_norm_change"]["linear"], d["mean_norm_change"]["yat"]), fontsize=9)
    fig.suptitle(f"SUBSTITUTE: {_digits.LABEL}\nweights; Yat eps = {p['eps']:g}",
                 fontsize=10)
    stamp(fig, p, keys=["n_train", "epochs", "eps", "init", "seed"])
