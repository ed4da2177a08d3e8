"""Synthetic font digits and the two 10-prototype classifiers trained on them (substitute data).

The MNIST figures of 000/001/002 need MNIST, which the toolkit may not download at run time.
The stand-in is a synthetic digit set built only from what is installed: the digits 0-9 drawn
with the TrueType fonts that matplotlib ships (DejaVu, STIX, Computer Modern), rasterised by
Pillow (a matplotlib dependency) into 20x20 boxes centred by centre of mass in 28x28 images, as
MNIST is, then randomly rotated, scaled, sheared and shifted (scipy.ndimage.affine_transform),
with additive Gaussian pixel noise, clipped to [0, 1].  It is NOT MNIST: strokes are uniform,
styles are few, and accuracies are not comparable with the papers'.

Two classifiers, as in 000 §3.3 / 001 App E.8: 10 prototypes w_i in R^784, softmax cross-entropy,
Adam, minibatches.
* linear: logits z_i = w_i.x (no bias);
* Yat: logits z_i = s K(w_i, x) with s = (n/ln(1+n))^alpha, alpha learnable from 1
  (yatmath.yat.layer_forward / layer_backward, algorithms.md Y3-Y4).
Both start from the same W ~ N(0, init_scale^2/784).  Training is deterministic given the seed
and is cached per process (every digit figure reuses one run).
"""
from __future__ import annotations

import functools
import os

import numpy as np
from scipy import ndimage

from yatmath.yat import layer_backward, layer_forward

from ._common import rng_for

FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
              "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf",
              "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "STIXGeneral.ttf",
              "STIXGeneralBol.ttf", "STIXGeneralItalic.ttf", "cmr10.ttf", "cmss10.ttf",
              "cmtt10.ttf", "cmb10.ttf")


def _font_dir():
    import matplotlib
    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf")


@functools.lru_cache(maxsize=1)
def base_glyphs():
    """(n_fonts, 10, 28, 28) float64 in [0, 1]: each digit in a 20x20 box, centred by mass."""
    from PIL import Image, ImageDraw, ImageFont

    out = []
    for fname in FONT_FILES:
        font = ImageFont.truetype(os.path.join(_font_dir(), fname), 80)
        row = []
        for digit in "0123456789":
            img = Image.new("L", (120, 120), 0)
            ImageDraw.Draw(img).text((20, 0), digit, fill=255, font=font)
            a = np.asarray(img, float) / 255.0
            ys, xs = np.nonzero(a > 0.05)
            a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            h, w = a.shape
            f = 20.0 / max(h, w)
            box = np.asarray(Image.fromarray((a * 255).astype(np.uint8)).resize(
                (max(1, round(w * f)), max(1, round(h * f))), Image.LANCZOS), float) / 255.0
            canvas = np.zeros((28, 28))
            cy, cx = ndimage.center_of_mass(box)
            oy, ox = int(round(14 - cy)), int(round(14 - cx))
            oy = min(max(oy, 0), 28 - box.shape[0])
            ox = min(max(ox, 0), 28 - box.shape[1])
            canvas[oy:oy + box.shape[0], ox:ox + box.shape[1]] = box
            row.append(np.clip(canvas, 0.0, 1.0))
        out.append(row)
    return np.array(out)


def make_digits(n_per_class, seed, tag, rot_deg=12.0, scale=(0.85, 1.1), shear=0.2, shift=1.5,
                noise=0.05):
    """(X (10 n, 784), y (10 n,)) of augmented font digits; deterministic in (seed, tag)."""
    G = base_glyphs()
    rng = rng_for(seed, tag)
    n = 10 * n_per_class
    y = np.repeat(np.arange(10), n_per_class)
    fonts = rng.integers(0, G.shape[0], n)
    X = np.empty((n, 28, 28))
    c = np.array([13.5, 13.5])
    for i in range(n):
        t = np.deg2rad(rng.uniform(-rot_deg, rot_deg))
        s = rng.uniform(*scale)
        sh = rng.uniform(-shear, shear)
        R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) @ np.array([[1, sh], [0, 1]]) * s
        M = np.linalg.inv(R)
        off = c - M @ (c + rng.uniform(-shift, shift, 2))
        X[i] = ndimage.affine_transform(G[fonts[i], y[i]], M, offset=off, order=1)
    X = np.clip(X + noise * rng.standard_normal(X.shape), 0.0, 1.0)
    perm = rng.permutation(n)
    return X.reshape(n, -1)[perm], y[perm]


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
def train(seed=0, n_train_per_class=250, n_test_per_class=100, epochs=8, batch=100, lr=3e-3,
          eps=1.0, init_scale=1.0, n_train_eval=1000):
    """Train both classifiers; returns a dict of plain arrays (see module docstring)."""
    Xtr, ytr = make_digits(n_train_per_class, seed, 1)
    Xte, yte = make_digits(n_test_per_class, seed, 2)
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
            hist[f"acc_{name}_train"].append(
                float(np.mean(np.argmax(f(Xtr[:n_train_eval]), 1) == ytr[:n_train_eval])))
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
    out["params"] = {"dataset": "synthetic font digits (matplotlib fonts), NOT MNIST",
                     "n_fonts": len(FONT_FILES), "n_train": int(n), "n_test": int(len(yte)),
                     "train_accuracy_on_first": int(min(n_train_eval, n)),
                     "image": "28x28", "epochs": int(epochs), "batch": int(batch),
                     "optimizer": "Adam", "lr": float(lr), "lr_schedule": "cosine to 0",
                     "eps": float(eps), "init": f"W ~ N(0, {init_scale:g}^2/784), same for both",
                     "yat_logits": "s K(w_i, x), s = (n/ln(1+n))^alpha, alpha learnable from 1",
                     "linear_logits": "w_i.x, no bias", "seed": int(seed)}
    return out
