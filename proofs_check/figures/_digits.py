"""Real handwritten digits for the MNIST figures (a labelled substitute) and the two 10-prototype
classifiers trained on them.

Data: the UCI "Optical Recognition of Handwritten Digits" set as shipped inside scikit-learn
(``sklearn.datasets.load_digits``: the file ``sklearn/datasets/data/digits.csv.gz`` of the installed
package; nothing is downloaded).  1,797 digits written by 43 people (NIST forms), each 32x32
bitmap reduced to 8x8 by counting the "on" pixels in 4x4 blocks, so pixels are integers 0..16;
178-183 images per class.  It is NOT MNIST (28x28 grey levels, 70,000 images): the images are
coarser, the set is 39x smaller, and accuracies are not comparable with the papers'.  sklearn's
copy does not record writers, so the train/test split cannot keep writers apart: test accuracy
is that of seen writers.

* :func:`load_uci_digits` -- scaling x = pixel / 16, exact in binary floating point, so every
  pixel is a multiple of 1/16 in [0, 1] (as MNIST's pixel / 255 is in [0, 1]); images flattened
  row-major to R^64.  Deterministic stratified split (``sklearn.model_selection.train_test_split``
  with ``stratify=y`` and ``random_state=seed``): each class contributes its share of the test
  set up to rounding (at most one image per class).
* :func:`train` -- the two classifiers of 000 §3.3 / 001 App E.8: 10 prototypes w_i in R^64,
  softmax cross-entropy, Adam, minibatches.
  linear: logits z_i = w_i.x (no bias);
  Yat: logits z_i = s K(w_i, x) with s = (n/ln(1+n))^alpha, alpha learnable from 1
  (yatmath.yat.layer_forward / layer_backward, algorithms.md Y3-Y4).
  Both start from the same W ~ N(0, init_scale^2/64).  Adam lr 3e-3 with a cosine schedule to 0,
  batch 50, 120 epochs (3,000 steps): the linear model (no bias) learns slowly on 64 inputs; with
  30 epochs its final training loss is 3x the 120-epoch one (0.44 vs 0.15 at seed 0).  Training
  is deterministic given the seed (float64 NumPy) and is cached per process (every digit figure
  reuses one run).

The earlier stand-in (digits drawn with matplotlib's fonts at 28x28) is gone: no digit figure
needs 28x28 inputs.  The prototype figure shows the 8x8 prototypes at their own resolution
(not upsampled), and the other five plot accuracies, similarities and weight statistics, which
exist at any input size.
"""
from __future__ import annotations

import functools

import numpy as np

from yatmath.yat import layer_backward, layer_forward

from ._common import rng_for

from proofs_check.support.digits import (LABEL, PIXEL_MAX, SIDE, TEST_FRACTION,  # noqa: F401
                                         load_uci_digits)


def _softmax_xent_grad(Z, y):
    Z = Z - Z.max(axis=1, keepdims=True)
    P = np.exp(Z)
    P /= P.sum(axis=1, keepdims=True)
    loss = -np.mean(np.log(P[np.arange(len(y)), y] + 1e-300))
    G = P.copy()
    G[np.arange(len(y)), y] -= 1.0
    return loss, G / len(y)


class _Adam:
    """Adam (Kingma & Ba) on a list of arrays; standard constants."""

    def __init__(self, params, b1=0.9, b2=0.999, tiny=1e-8):
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.b1, self.b2, self.tiny, self.t = b1, b2, tiny, 0

    def step(self, params, grads, lr):
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            mh = m / (1 - self.b1 ** self.t)
            vh = v / (1 - self.b2 ** self.t)
            p -= lr * mh / (np.sqrt(vh) + self.tiny)


def yat_logits(X, W, alpha, eps):
    return layer_forward(X, W, eps, alpha=alpha, backend="numpy")


@functools.lru_cache(maxsize=4)
def train(seed=0, epochs=120, batch=50, lr=3e-3, eps=1.0, init_scale=1.0):
    """Train both classifiers; returns a dict of plain arrays (see module docstring)."""
    Xtr, ytr, Xte, yte = load_uci_digits(seed)
    d = Xtr.shape[1]
    rng = rng_for(seed, 3)
    W0 = init_scale * rng.standard_normal((10, d)) / np.sqrt(d)
    Wl, Wy = W0.copy(), W0.copy()
    alpha = np.array(1.0)
    opt_l, opt_y = _Adam([Wl]), _Adam([Wy, alpha])
    n = len(ytr)
    steps_per_epoch = n // batch
    total = epochs * steps_per_epoch
    hist = {k: [] for k in ("acc_lin_train", "acc_lin_test", "acc_yat_train", "acc_yat_test",
                            "norm_lin", "norm_yat", "alpha_epoch", "loss_lin", "loss_yat")}
    alpha_steps, lr_steps = [1.0], []

    def record():
        for name, f in (("lin", lambda X: X @ Wl.T), ("yat", lambda X: yat_logits(X, Wy, float(alpha), eps))):
            hist[f"acc_{name}_train"].append(float(np.mean(np.argmax(f(Xtr), 1) == ytr)))
            hist[f"acc_{name}_test"].append(float(np.mean(np.argmax(f(Xte), 1) == yte)))
        hist["norm_lin"].append(np.linalg.norm(Wl, axis=1).copy())
        hist["norm_yat"].append(np.linalg.norm(Wy, axis=1).copy())
        hist["alpha_epoch"].append(float(alpha))

    record()
    order_rng = rng_for(seed, 4)
    step = 0
    for ep in range(epochs):
        perm = order_rng.permutation(n)
        ll, ly = [], []
        for b in range(steps_per_epoch):
            idx = perm[b * batch:(b + 1) * batch]
            X, y = Xtr[idx], ytr[idx]
            lr_t = lr * 0.5 * (1 + np.cos(np.pi * step / total))      # cosine schedule
            lr_steps.append(lr_t)
            loss, G = _softmax_xent_grad(X @ Wl.T, y)
            opt_l.step([Wl], [G.T @ X], lr_t)
            ll.append(loss)
            Z, cache = layer_forward(X, Wy, eps, alpha=float(alpha), backend="numpy",
                                     return_cache=True)
            loss, G = _softmax_xent_grad(Z, y)
            g = layer_backward(G, cache)
            opt_y.step([Wy, alpha], [g.W, np.array(g.alpha)], lr_t)
            ly.append(loss)
            alpha_steps.append(float(alpha))
            step += 1
        hist["loss_lin"].append(float(np.mean(ll)))
        hist["loss_yat"].append(float(np.mean(ly)))
        record()
    out = {k: np.array(v) for k, v in hist.items()}
    out.update(W_lin=Wl, W_yat=Wy, W0=W0, alpha=float(alpha), alpha_steps=np.array(alpha_steps),
               lr_steps=np.array(lr_steps), X_test=Xte, y_test=yte,
               logits_lin_test=Xte @ Wl.T, logits_yat_test=yat_logits(Xte, Wy, float(alpha), eps),
               logits_lin_inverted=Xte @ (-Wl).T,
               logits_yat_inverted=yat_logits(Xte, -Wy, float(alpha), eps))
    out["params"] = {"dataset": LABEL, "scaling": f"pixel / {PIXEL_MAX} in [0, 1]",
                     "split": f"stratified, test fraction {TEST_FRACTION:g}, random_state = seed",
                     "n_train": int(n), "n_test": int(len(yte)), "image": f"{SIDE}x{SIDE}",
                     "epochs": int(epochs), "batch": int(batch),
                     "optimizer": "Adam", "lr": float(lr), "lr_schedule": "cosine to 0",
                     "eps": float(eps), "init": f"W ~ N(0, {init_scale:g}^2/{d}), same for both",
                     "yat_logits": "s K(w_i, x), s = (n/ln(1+n))^alpha, alpha learnable from 1",
                     "linear_logits": "w_i.x, no bias", "seed": int(seed)}
    return out
