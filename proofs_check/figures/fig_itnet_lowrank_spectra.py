"""Singular-value spectra of ITNet kernel matrices and the low-rank error against rank with the
Prop. 12 bound (003 §3.3, Prop. 12, eq. 211; algorithms.md I8).

For a kernel tensor K (n, n, d_out, d_in) the block matrix [K_ij] (n d_out x n d_in,
``lowrank.kernel_matrix``) has singular values sigma_1 >= sigma_2 >= ...; its best rank-r
approximation K_r (Eckart-Young, ``lowrank.svd_factors``) has

    ||K - K_r||_F = sqrt(sum_{k > r} sigma_k^2)   <=   ||K||_* / sqrt(r)      (Prop. 12),

both from ``lowrank.spectrum_report``.  The right panel plots the relative error
||K - K_r||_F / ||K||_F, the bound divided by ||K||_F (dashed), and, as markers, the error of the
factors returned by ``svd_factors`` (K_r rebuilt as sum_r Phi_i^T Psi_j and subtracted).

Kernels (n = 64 positions):

* convolution, 1 channel, boundary "wrap" (a circulant: its singular values are the moduli of the
  DFT of the wrapped filter, times 1/omega = n);
* causal softmax attention m_ij alpha_ij W_V (d = 4, omega = 1/n; the causal indicator is part of
  the kernel);
* linear ODE / S4 (ZOH, C2, SISO, N = 4 states): every block strictly below the diagonal has rank
  <= N, but the causal cut makes the matrix lower-triangular Toeplitz with a nonzero diagonal, hence
  nonsingular, though with a few tiny singular values;
* Mamba selective scan (d = 3, diagonal across channels);
* a random kernel MLP (``random_kernel_mlp``, d = 4, midpoint grid on [0, 1]);
* an ITNet at the printed initialisation (``init_itnet``, 003 App H.3.1, d = 4): K ≈ (1/n) I_d for
  every pair, so [K_ij] is close to rank d.

The kernels of the special cases come from :mod:`proofs_check.figures.fig_itnet_special_kernels`.
"""
from __future__ import annotations

import numpy as np

from yatmath.itnet import init_itnet, interval_rule, kernel_tensor, lowrank, random_kernel_mlp
from yatmath.itnet.measures import causal_mask
from yatmath.itnet.special import attention, conv, recurrent

from . import fig_itnet_special_kernels as sk
from .fig_itnet_special_kernels import room_for_stamp
from ._common import rng_for, stamp
from .registry import register_figure

KERNELS = ("conv", "attention", "ssm", "mamba", "mlp_random", "itnet_init")
LABELS = {"conv": "conv (wrap), d=1", "attention": "causal attention, d=4", "ssm": "S4 ZOH, d=1",
          "mamba": "Mamba, d=3", "mlp_random": "random kernel MLP, d=4",
          "itnet_init": "ITNet printed init, d=4"}


def kernels(seed=0, n=64, filt=(0.25, -0.5, 1.0, 0.5, -0.25), d=4, mamba_d=3, ssm_N=4, dt=0.5):
    """The kernel tensors (n, n, a, b) of the six cases (see the module docstring)."""
    rng = rng_for(seed, 511)
    f = np.asarray(filt, float)
    ck = conv.conv_kernel(f[None, None, :], (n,), boundary="wrap")
    U = rng.normal(size=(n, d))
    Wq, Wk, Wv = rng.normal(size=(3, d, d))
    omega = np.full(n, 1.0 / n)
    Katt = attention.attention_kernel(U, Wq, Wk, Wv, omega, causal=True)
    Katt = Katt * causal_mask(n, n, 1.0)[:, :, None, None]
    A, B, C = sk.ssm_system(ssm_N, rng)
    Ab, Bb = recurrent.discretise(A, B, dt, "zoh")
    Kssm = recurrent.linear_kernel(Ab, Bb, C, n, convention="C2")
    pm = sk.mamba_params(mamba_d, 4, rng)
    Km = recurrent.mamba_kernel(pm, rng.normal(size=(n, mamba_d)))
    meas = interval_rule("midpoint", n, 0.0, 1.0)
    Ur = rng.normal(size=(n, d))
    net = random_kernel_mlp(d, 1, width=32, L=8, sigma=2.0, rng=rng)
    Kr = net.kernel(meas.nodes, meas.nodes, Ur, Ur)
    op0 = init_itnet(d, 1, n_keys=n, rng=rng)
    K0 = kernel_tensor(op0, meas.nodes, meas.nodes, Ur, Ur)
    return {"conv": ck.K, "attention": Katt, "ssm": Kssm, "mamba": Km, "mlp_random": Kr,
            "itnet_init": K0}


def factor_error(K, r):
    """||K - sum_r Phi^T Psi||_F with the factors of ``svd_factors`` (rebuilt, not from the tail)."""
    Phi, Psi = lowrank.svd_factors(K, r)
    return float(np.linalg.norm(K - np.einsum("ira,jrb->ijab", Phi, Psi)))


def data(seed=0, n=64, filt=(0.25, -0.5, 1.0, 0.5, -0.25), d=4, ranks=(2, 8, 32)):
    Ks = kernels(seed, n, filt, d)
    out = {"sigma": {}, "rel_err": {}, "rel_bound": {}, "fro": {}, "nuclear": {},
           "ranks": np.asarray(ranks), "rel_err_factors": {}, "matrix": {}}
    for name, K in Ks.items():
        rep = lowrank.spectrum_report(K)
        fro = rep["fro"]
        out["matrix"][name] = lowrank.kernel_matrix(K)
        out["sigma"][name] = rep["sigma"]
        out["fro"][name], out["nuclear"][name] = fro, rep["nuclear"]
        out["rel_err"][name] = rep["rel_err_fro"]
        out["rel_bound"][name] = rep["prop12_bound"] / fro
        rs = [r for r in ranks if r <= rep["sigma"].size]
        out["rel_err_factors"][name] = np.array([factor_error(K, int(r)) / fro for r in rs])
    out["params"] = {"n": int(n), "filter": list(map(float, filt)), "d": int(d), "mamba_d": 3,
                     "ssm_N": 4, "ssm_dt": 0.5, "attention_omega": "1/n, causal",
                     "mlp": "random_kernel_mlp(width=32, L=8, sigma=2), midpoint nodes on [0,1]",
                     "init": "init_itnet (003 H.3.1: width 128, L 64, sigma 10)",
                     "ranks_factors": [int(r) for r in ranks], "norm": "Frobenius, relative", "seed": int(seed)}
    return out


@register_figure("itnet_lowrank_spectra", paper="003 §3.3, Prop. 12 (no paper figure)",
                 title="ITNet kernel spectra and low-rank error with the Prop. 12 bound", data=data)
def draw(d, fig):
    p = d["params"]
    fig.set_size_inches(14, 5.8)
    room_for_stamp(fig)
    ax1, ax2 = fig.subplots(1, 2)
    for name in KERNELS:
        s = d["sigma"][name]
        k = np.arange(1, s.size + 1)
        (ln,) = ax1.semilogy(k, np.maximum(s / s[0], 1e-17), lw=1.3, label=LABELS[name])
        c = ln.get_color()
        e = d["rel_err"][name]
        ax2.loglog(k[:-1], e[:-1], color=c, lw=1.3, label=LABELS[name])
        ax2.loglog(k, d["rel_bound"][name], color=c, ls="--", lw=0.9)
        rs = d["ranks"][:d["rel_err_factors"][name].size]
        ax2.loglog(rs, np.maximum(d["rel_err_factors"][name], 1e-17), "o", color=c, ms=4, mfc="none")
    ax1.set_xlabel("k"), ax1.set_ylabel("sigma_k / sigma_1 of [K_ij]")
    ax1.set_ylim(1e-17, 2), ax1.grid(True, alpha=0.3)
    ax1.set_title("singular values of the n d x n d kernel matrix", fontsize=10)
    ax1.legend(fontsize=8)
    ax2.plot([], [], "k--", lw=0.9, label="Prop. 12: ||K||_* / (sqrt(r) ||K||_F)")
    ax2.plot([], [], "ko", mfc="none", ms=4, label="svd_factors, rebuilt")
    ax2.set_ylim(1e-6, 30), ax2.grid(True, which="both", alpha=0.3)
    ax2.set_xlabel("rank r"), ax2.set_ylabel("||K - K_r||_F / ||K||_F")
    ax2.set_title("best rank-r error (Eckart-Young tail) and the Prop. 12 bound", fontsize=10)
    ax2.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"ITNet kernel matrices, n = {p['n']} positions: spectra and low-rank error "
                 f"(conv filter {tuple(p['filter'])}; attention omega = 1/n)", fontsize=10)
    stamp(fig, p, keys=["n", "d", "mamba_d", "ssm_N", "ssm_dt", "mlp", "init", "seed"])
