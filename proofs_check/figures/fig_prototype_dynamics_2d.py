"""002 Fig. 7 (substitute): decision boundaries and prototype norms after training a linear and
a Yat prototype classifier on synthetic 2-D data.

The paper trains on "a synthetic dataset" it does not specify; this figure uses k Gaussian
blobs (centres on a circle of radius ``r_centres``, std ``blob_std``), softmax cross-entropy,
full-batch Adam.  Linear logits w_i.x (no bias); Yat logits s K(w_i, x) with
s = (n/ln(1+n))^alpha, alpha learnable (yatmath.yat.layer_forward/backward).  Both start from
the same W.  The data record the prototype trajectories and norms at every ``record_every``
steps, so the reader sees whether linear norms keep growing and Yat norms settle.
"""
from __future__ import annotations

import numpy as np

from yatmath.yat import layer_backward, layer_forward

from ._common import grid2d, rng_for, stamp, yat
from ._digits import _Adam, _softmax_xent_grad
from .registry import register_figure


def data(seed=0, k=4, n_per_class=100, r_centres=2.0, blob_std=0.6, eps=0.5, steps=1500,
         lr=0.02, init_scale=1.5, record_every=25, lim=5.0, n_grid=200):
    rng = rng_for(seed, 21)
    ang = 2 * np.pi * np.arange(k) / k + 0.3
    C = r_centres * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    y = np.repeat(np.arange(k), n_per_class)
    X = C[y] + blob_std * rng.standard_normal((len(y), 2))
    W0 = init_scale * rng.standard_normal((k, 2))
    Wl, Wy, alpha = W0.copy(), W0.copy(), np.array(1.0)
    ol, oy = _Adam([Wl]), _Adam([Wy, alpha])
    traj_l, traj_y, rec = [W0.copy()], [W0.copy()], [0]
    for t in range(1, steps + 1):
        _, G = _softmax_xent_grad(X @ Wl.T, y)
        ol.step([Wl], [G.T @ X], lr)
        Z, cache = layer_forward(X, Wy, eps, alpha=float(alpha), backend="numpy", return_cache=True)
        _, G = _softmax_xent_grad(Z, y)
        g = layer_backward(G, cache)
        oy.step([Wy, alpha], [g.W, np.array(g.alpha)], lr)
        if t % record_every == 0:
            traj_l.append(Wl.copy()), traj_y.append(Wy.copy()), rec.append(t)
    xs, ys, P = grid2d(lim, n_grid)
    lab_l = np.argmax(P @ Wl.T, axis=-1)
    lab_y = np.argmax(yat(Wy, P[..., None, :], eps), axis=-1)
    acc_l = float(np.mean(np.argmax(X @ Wl.T, 1) == y))
    acc_y = float(np.mean(np.argmax(yat(Wy, X[:, None, :], eps), 1) == y))
    traj_l, traj_y = np.array(traj_l), np.array(traj_y)
    return {"X": X, "y": y, "centres": C, "xs": xs, "ys": ys, "labels_linear": lab_l,
            "labels_yat": lab_y, "traj_linear": traj_l, "traj_yat": traj_y,
            "norms_linear": np.linalg.norm(traj_l, axis=2), "norms_yat": np.linalg.norm(traj_y, axis=2),
            "steps": np.array(rec), "alpha": float(alpha), "acc": {"linear": acc_l, "yat": acc_y},
            "params": {"k": int(k), "n_per_class": int(n_per_class), "r_centres": float(r_centres),
                       "blob_std": float(blob_std), "eps": float(eps), "steps": int(steps),
                       "lr": float(lr), "optimizer": "Adam, full batch", "init": f"W ~ N(0, {init_scale:g}^2), same for both",
                       "lim": float(lim), "grid": f"{n_grid}x{n_grid}", "seed": int(seed), "d": 2}}


@register_figure("prototype_dynamics_2d", paper="002 Fig. 7",
                 title="Decision boundaries and prototype growth, linear vs Yat (substitute: our "
                       "synthetic 2-D blobs)", data=data, substitute=True)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(17, 5.4)
    axs = fig.subplots(1, 3)
    from matplotlib.colors import ListedColormap
    k = p["k"]
    cmap = ListedColormap([f"C{i}" for i in range(k)])
    xs, ys = d["xs"], d["ys"]
    for ax, m in zip(axs[:2], ("linear", "yat")):
        ax.imshow(d[f"labels_{m}"], origin="lower", extent=(xs[0], xs[-1], ys[0], ys[-1]),
                  cmap=cmap, vmin=-0.5, vmax=k - 0.5, alpha=0.35, interpolation="nearest")
        ax.scatter(d["X"][:, 0], d["X"][:, 1], c=d["y"], cmap=cmap, s=6, vmin=-0.5, vmax=k - 0.5)
        T = d[f"traj_{m}"]
        for i in range(k):
            ax.plot(T[:, i, 0], T[:, i, 1], color="k", lw=0.7)
            ax.plot(*T[-1, i], "*", ms=16, color=f"C{i}", mec="k")
        ax.set_xlim(xs[0], xs[-1]), ax.set_ylim(ys[0], ys[-1]), ax.set_aspect("equal")
        ax.set_title(f"{m}: train accuracy {d['acc'][m]:.3f}; prototype paths (black)", fontsize=9)
    ax = axs[2]
    for m, ls in (("linear", "-"), ("yat", "--")):
        for i in range(k):
            ax.plot(d["steps"], d[f"norms_{m}"][:, i], ls, color=f"C{i}",
                    label=m if i == 0 else None)
    ax.set_xlabel("step"), ax.set_ylabel("||w_i||"), ax.legend()
    ax.set_title(f"prototype norms (solid linear, dashed Yat); final alpha {d['alpha']:.3g}",
                 fontsize=9)
    fig.suptitle(f"SUBSTITUTE (our synthetic blobs; the paper's synthetic set is unstated): "
                 f"{k} classes, Yat eps = {p['eps']:g}, Adam lr {p['lr']:g}, {p['steps']} steps",
                 fontsize=10)
    stamp(fig, p)
