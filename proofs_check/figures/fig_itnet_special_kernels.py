"""Kernel heat maps of the ITNet special cases (003 Thms 1-3; algorithms.md I5).

Each special case is an ITNet layer ``O_i = sum_j omega_j m_ij K_ij u_j + W u_i`` (003 Def. 1)
with a particular kernel.  The panels show, for one channel, the n x n matrix that multiplies
the key features in that form,

    A_ij = omega_j m_ij K_ij[0, 0]        (so that  O[:, 0] = A @ U[:, 0]  for one channel),

built with the library's constructors (``yatmath.itnet.special``):

* **convolution** (003 Thm 1): ``conv_kernel`` of a 1-channel filter f (cross-correlation,
  PyTorch convention, boundary "same" = zero extension), omega_j = 1/n_keys, so
  K_ij = f_{j-i} / omega_j and A = f_{j-i}: a banded Toeplitz matrix (the zero-padding key
  columns are dropped: they multiply zeros);
* **causal softmax attention** (003 Thm 2): ``attention_weights`` with the causal mask, omega = 1/n:
  A_ij = omega_j m_ij alpha_ij, lower triangular with unit row sums (the value map W_V = I);
* **linear ODE / S4** (003 Thm 3): h' = A h + B u discretised by zero-order hold with step dt,
  ``linear_kernel`` in convention C2 (h_t = Abar h_{t-1} + Bbar u_t, y_t = C h_t): A_ts = C Abar^(t-s)
  Bbar for s <= t (omega = 1), lower-triangular Toeplitz;
* **Mamba** (003 Thm 3(d)): ``mamba_kernel`` (main-text index) of a selective scan on a random
  sequence U, channel 0: lower triangular but not Toeplitz (the kernel depends on the content).

The matrices are exact (no discretisation error beyond float64 rounding); the tests rebuild each
one from an independent direct computation (np.correlate, a masked softmax, the recurrences).
"""
from __future__ import annotations

import numpy as np

from yatmath.itnet.measures import causal_mask
from yatmath.itnet.special import attention, conv, recurrent

from ._common import rng_for, stamp
from .registry import register_figure

PANELS = ("conv", "attention", "ssm", "mamba")
TITLES = {"conv": "convolution (Thm 1), boundary 'same'",
          "attention": "causal softmax attention (Thm 2)",
          "ssm": "linear ODE / S4, ZOH (Thm 3)",
          "mamba": "Mamba selective scan (Thm 3(d)), channel 0"}


def conv_matrix(f, n, boundary="same"):
    """A (n, n) for a 1-channel filter f: omega_j K_ij[0, 0] on the grid keys (padding keys dropped)."""
    ck = conv.conv_kernel(np.asarray(f, float)[None, None, :], (n,), boundary=boundary)
    A = ck.omega[None, :] * ck.K[:, :, 0, 0]
    p = ck.pad[0]
    return A[:, p:p + n] if p else A


def attention_matrix(U, Wq, Wk):
    """A_ij = omega_j m_ij alpha_ij for causal softmax attention with omega = 1/n (diag weight 1)."""
    n = U.shape[0]
    omega = np.full(n, 1.0 / n)
    alpha = attention.attention_weights(U, Wq, Wk, omega, causal=True)
    return omega[None, :] * causal_mask(n, n, 1.0) * alpha


def ssm_system(N, rng, rate=(0.05, 0.3), freq=(0.2, 1.5)):
    """A stable real N x N (N even) block-diagonal system of damped oscillators, B, C random."""
    blocks = []
    for _ in range(N // 2):
        a, w = -rng.uniform(*rate), rng.uniform(*freq)
        blocks.append(np.array([[a, w], [-w, a]]))
    A = np.zeros((N, N))
    for k, blk in enumerate(blocks):
        A[2 * k:2 * k + 2, 2 * k:2 * k + 2] = blk
    return A, rng.normal(size=(N, 1)), rng.normal(size=(1, N))


def ssm_matrix(A, B, C, n, dt):
    """A_ts = C Abar^(t-s) Bbar (s <= t), ZOH with step dt, convention C2, omega = 1."""
    Ab, Bb = recurrent.discretise(A, B, dt, "zoh")
    return recurrent.linear_kernel(Ab, Bb, C, n, convention="C2")[:, :, 0, 0]


def mamba_params(d, N, rng):
    """Selective-scan parameters: A (d, N) negative, W_Delta, b_Delta, W_B, W_C."""
    return {"A": -np.exp(rng.normal(-0.5, 0.5, (d, N))),
            "WD": rng.normal(0, 0.5 / np.sqrt(d), (d, d)), "bD": np.full(d, -1.0),
            "WB": rng.normal(0, 1 / np.sqrt(d), (N, d)), "WC": rng.normal(0, 1 / np.sqrt(d), (N, d))}


def mamba_matrix(p, U):
    """Channel-0 slice of the Mamba kernel (omega = 1)."""
    return recurrent.mamba_kernel(p, U, index="main")[:, :, 0, 0]


def smooth_sequence(n, d, rng, cycles=(0.5, 3.0), noise=0.1):
    """U (n, d): per channel a sinusoid with a random number of cycles over the n steps and a
    random phase, plus N(0, noise^2) noise (a slowly varying input, so the maps show structure)."""
    t = np.arange(n)[:, None] / n
    k = rng.uniform(*cycles, size=d)
    ph = rng.uniform(0, 2 * np.pi, size=d)
    return np.sin(2 * np.pi * k * t + ph) + noise * rng.normal(size=(n, d))


def data(seed=0, n=48, filt=(0.25, -0.5, 1.0, 0.5, -0.25), d_att=4, qk_scale=1.5, ssm_N=4, dt=0.5,
         mamba_d=3, mamba_N=4):
    rng = rng_for(seed, 501)
    f = np.asarray(filt, float)
    U_att = smooth_sequence(n, d_att, rng)
    Wq, Wk = qk_scale * rng.normal(size=(2, d_att, d_att)) / np.sqrt(d_att)
    A, B, C = ssm_system(ssm_N, rng)
    U_m = smooth_sequence(n, mamba_d, rng)
    pm = mamba_params(mamba_d, mamba_N, rng)
    mats = {"conv": conv_matrix(f, n), "attention": attention_matrix(U_att, Wq, Wk),
            "ssm": ssm_matrix(A, B, C, n, dt), "mamba": mamba_matrix(pm, U_m)}
    return {
        "mats": mats, "filter": f, "U_att": U_att, "Wq": Wq, "Wk": Wk,
        "ssm_A": A, "ssm_B": B, "ssm_C": C, "U_mamba": U_m, "mamba": pm,
        "params": {"n": int(n), "filter": f.tolist(), "conv_boundary": "same",
                   "conv_convention": "cross-correlation (PyTorch)", "d_attention": int(d_att),
                   "W_Q, W_K": f"{qk_scale:g} N(0, 1/d) entries", "W_V": "I",
                   "U": "sinusoids (0.5-3 cycles) + N(0, 0.01) noise",
                   "attention_omega": "1/n, causal, diag_weight 1", "ssm_N": int(ssm_N),
                   "ssm_dt": float(dt), "ssm_discretisation": "ZOH, convention C2",
                   "mamba_d": int(mamba_d), "mamba_N": int(mamba_N), "mamba_index": "main",
                   "shown": "A_ij = omega_j m_ij K_ij[0,0]", "seed": int(seed)},
    }


def room_for_stamp(fig):
    """Keep the bottom 3% of the figure free for the parameter line of ``stamp``."""
    eng = fig.get_layout_engine()
    if eng is not None and hasattr(eng, "set"):
        eng.set(rect=(0, 0.03, 1, 0.97))


@register_figure("itnet_special_kernels", paper="003 Thms 1-3 (no paper figure)",
                 title="ITNet kernels of the special cases", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(11, 9.5)
    room_for_stamp(fig)
    axs = fig.subplots(2, 2)
    for ax, name in zip(axs.ravel(), PANELS):
        A = d["mats"][name]
        if A.min() >= 0:            # attention: a few early rows are ~1; clip at the 99th percentile
            v = float(np.quantile(A[A > 0], 0.99))
            im = ax.imshow(A, cmap="viridis", vmin=0, vmax=v, interpolation="nearest")
            fig.colorbar(im, ax=ax, shrink=0.8, extend="max")
        else:
            v = float(np.max(np.abs(A))) or 1.0
            im = ax.imshow(A, cmap="RdBu_r", vmin=-v, vmax=v, interpolation="nearest")
            fig.colorbar(im, ax=ax, shrink=0.8)
        ax.set_title(TITLES[name], fontsize=10)
        ax.set_xlabel("key j (s)"), ax.set_ylabel("query i (t)")
    fig.suptitle(f"ITNet form O_i = sum_j omega_j m_ij K_ij u_j: heat maps of "
                 f"A_ij = omega_j m_ij K_ij[0,0], n = {p['n']}\n"
                 f"filter {tuple(p['filter'])}; attention d = {p['d_attention']}, omega = 1/n; "
                 f"S4: N = {p['ssm_N']}, dt = {p['ssm_dt']:g}, ZOH; Mamba: d = {p['mamba_d']}, "
                 f"N = {p['mamba_N']}", fontsize=10)
    stamp(fig, p, keys=["n", "conv_boundary", "attention_omega", "ssm_discretisation",
                        "mamba_index", "seed"])
