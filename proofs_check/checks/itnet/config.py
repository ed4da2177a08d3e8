"""Checks of claims.md B10 itnet.config.* (003 §4, Tables 10-11, App H.2, H.2.1, App M Table 23)."""
from __future__ import annotations

import math

import numpy as np

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Threshold, Tried, register
from proofs_check.support import itnet_io_model as iomodel
from yatmath.itnet.network import fourier_lift, gelu

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts

CONFIGS = {"S": (12, 384, 6, 64, 22e6), "B": (12, 768, 12, 64, 86e6), "L": (24, 1024, 16, 64, 307e6),
           "PC": (6, 128, 4, 32, 3.1e6)}                       # 003 §4, Table 10, Table 3 caption
#: the totals as 003 prints them, in millions (§4: "22M", "86M", "307M"; Table 3's ITNet-PC: "3.1M")
PRINTED_TOTALS = {"S": ("22", "003 §4 'ITNet-S: 22M parameters'"), "B": ("86", "003 §4 'ITNet-B: 86M'"),
                  "L": ("307", "003 §4 'ITNet-L: 307M'"),
                  "PC": ("3.1", "003 Table 3 'ITNet-PC: parameter-matched variant (L=6, d=128, H=4, 3.1M)'")}


def _printed_half_unit(millions: str) -> float:
    """Half a unit of the last printed digit of a total printed in millions ("307" -> 0.5e6, "3.1" -> 0.05e6)."""
    from decimal import Decimal

    return 0.5 * 10.0 ** Decimal(millions).as_tuple().exponent * 1e6


@register("itnet.config.param_counts",
          method="exact parameter count of each stated configuration (proofs_check.support.itnet_io_model.itnet_param_count) "
                 "and a lower bound from the kernel W2 matrices and the FFNs alone")
def check_param_counts(ctx):
    parts = {}
    for k, (Ly, d, H, dh, claimed) in CONFIGS.items():
        kw = {"patch_in": 3, "classes": 40} if k == "PC" else {}
        c = iomodel.itnet_param_count(Ly, d, H, dh, **kw)
        lower = c["kernel_W2"] + c["ffn"]                 # robust to embedding / LN / bias details
        digits, src = PRINTED_TOTALS[k]
        if float(digits) * 1e6 != claimed:
            raise ValueError(f"CONFIGS[{k!r}] total {claimed:g} differs from the printed {digits}M")
        half = _printed_half_unit(digits)                  # half a unit of the last printed digit
        ok = lower <= claimed + half
        expr = (f"proofs_check.support.itnet_io_model.itnet_param_count({Ly}, {d}, {H}, {dh}"
                + (", patch_in=3, classes=40" if k == "PC" else "") + ")['kernel_W2'] + "
                f"proofs_check.support.itnet_io_model.itnet_param_count({Ly}, {d}, {H}, {dh}"
                + (", patch_in=3, classes=40" if k == "PC" else "") + ")['ffn']")
        parts[k] = Evidence(
            V.holds(ok), {"computed_total": c["total"], "kernel_W2": c["kernel_W2"], "ffn": c["ffn"],
                          "lower_bound_W2_plus_ffn": lower, "claimed": claimed},
            counterexample=None if ok else {"config": k, "layers": Ly, "d": d, "heads": H, "d_h": dh,
                                            "W2_plus_FFN": lower, "claimed": claimed},
            repro=None if ok else Repro(expr, {}, expected=lower, rtol=0.0),
            thresholds=[Threshold("W2 + FFN parameters <= printed total (+ half a unit of its last digit)",
                                  claimed + half, "paper", f"{src}: {digits}M, i.e. a total below "
                                  f"{(claimed + half) / 1e6:g}M (half a unit of the last printed digit, "
                                  f"{half / 1e6:g}M)",
                                  lower, lower)],
            scope=Scope("exhaustive", "exact integer count of the stated architecture"))
    B = iomodel.itnet_param_count(12, 768, 12, 64)
    arith = {"W1_cols": 6 * 64 + 1 + 3 * 64, "W2_total_B": B["kernel_W2"], "QKV_per_layer": 3 * 768 ** 2,
             "QKV_total": 12 * 3 * 768 ** 2}
    return of_parts(parts, reading=Reading(
        "the totals count the stated architecture: per-head kernel MLPs with W1 128 x 577 and W2 4096 x 128, "
        "W_θ, W^O, a 4x FFN, LayerNorms, patch embedding, CLS, head",
        '003 App H.2 / Table 11: "The dominant parameter cost is the kernel MLP output layer W2 (~75.5M across 12 '
        'layers)" and §2.1 "a two-layer FFN with GELU activation and expansion factor 4"'),
        numbers={"printed_arithmetic": arith},
        notes="The paper's own breakdown (W2 ≈ 75.5M for ITNet-B) plus its 4x FFN (56.6M) already exceeds the "
              "86M total; W1 = 128 x 577 and 3 x 768^2 = 1.77M, x12 = 21.2M check.")


@register("itnet.config.fourier_ablation",
          method="Table 23 needs ImageNet training (NOT_CHECKABLE); learnable B: a written universal-approximation "
                 "proof (gamma_B a.s. injective on compact Omega) with the sampled B's injectivity on grids; "
                 "substitute: random-feature GELU fits through γ(r) for σ in {1,10,100}, L in {8,16,64,128}")
def check_fourier_ablation(ctx):
    rng = ctx.rng("fourier")
    target = lambda r: np.cos(2 * np.pi * 6 * r) * np.exp(-r ** 2 / 0.08)  # noqa: E731
    R = rng.uniform(-1, 1, (ctx.pick(600, 4000), 1))
    Rt = rng.uniform(-1, 1, (2000, 1))
    grid = {}
    for sigma in (1, 10, 100):
        for Lf in (8, 16, 64, 128):
            B = rng.normal(0, sigma, (Lf, 1))
            W1 = rng.normal(0, 1 / math.sqrt(2 * Lf), (128, 2 * Lf)) * 3
            b1 = rng.uniform(-1, 1, 128)
            F = lambda Z: np.concatenate([gelu(fourier_lift(Z, B) @ W1.T + b1), np.ones((len(Z), 1))], 1)  # noqa
            coef = np.linalg.lstsq(F(R), target(R[:, 0]), rcond=1e-10)[0]
            grid[f"sigma{sigma}_L{Lf}"] = float(np.sqrt(np.mean((F(Rt) @ coef - target(Rt[:, 0])) ** 2)))
    # learnable B: gamma_B is a.s. injective on the compact Omega, so the frozen-B MLP has the closure of every
    # continuous kernel (written proof); numerically, the modulus of injectivity of the sampled B on grids
    inj = {}
    for s_dim, m in ((1, 400), (2, 24), (3, 9)):
        Bs = rng.normal(0, 10.0, (64, s_dim))
        axes = np.meshgrid(*[np.linspace(0, 1, m)] * s_dim, indexing="ij")
        Xg = np.stack([a.ravel() for a in axes], 1)
        G = fourier_lift(Xg, Bs)
        sq = (G ** 2).sum(1)
        dg = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * G @ G.T, 0.0))
        dx = np.sqrt(((Xg[:, None, :] - Xg[None, :, :]) ** 2).sum(-1))
        off = dx > 0
        inj[str(s_dim)] = {"grid_points": int(len(Xg)), "min_||gamma(x)-gamma(x')||": float(dg[off].min()),
                           "min_ratio_to_||x-x'||": float((dg[off] / dx[off]).min())}
    injective = all(v["min_||gamma(x)-gamma(x')||"] > 1e-6 for v in inj.values())
    learn_b = Evidence(
        V.holds(injective),
        {"sampled_B_injectivity_on_grids": inj},
        reading=Reading("a learnable B adds no expressiveness in the sense of universal approximation: the uniform "
                        "closure over widths of the kernels a frozen-B MLP computes already contains every continuous "
                        "kernel on the compact domain (almost surely over the sampled B)",
                        '003 App H.2.1: "The kernel MLP is already a universal approximator over the lifted '
                        'positional space, so learnable B provides no additional expressiveness in theory"'),
        scope=Scope("proof", "written argument (notes), for B with iid Gaussian entries (probability 1); the "
                    "sampled B's injectivity checked on grids of [0,1]^s for s = 1, 2, 3", universal=True),
        notes="Proof (line by line). (1) gamma_B(x) = [sin 2 pi Bx; cos 2 pi Bx] is continuous, and gamma_B(x) = "
              "gamma_B(x') iff B(x - x') in Z^L. For B with iid N(0, sigma^2) entries and L = 64 > s this forces "
              "x = x' with probability 1: B v = 0 needs rank B < s (probability 0), and for each fixed nonzero "
              "k in Z^L the event 'k in the column space of B' has probability 0 when L > s (a random s-dim "
              "subspace of R^L); a countable union over k is still probability 0. (2) A continuous injective map "
              "of a compact set is a homeomorphism onto its image, so every continuous kernel kappa(x, y, a, b) on D "
              "is G(gamma(x), gamma(y), a, b) with G continuous on the compact image (extend it to all of R^p by "
              "Tietze). (3) By Lemma 4 (one hidden layer, non-polynomial activation) G is a uniform limit of MLPs, "
              "so the frozen-B kernel MLPs approximate kappa uniformly on D. (4) A learnable-B network computes a "
              "continuous kernel, hence lies in that closure: learning B enlarges the class at a fixed width but "
              "not its closure, which is what 'in theory' with 'universal approximator' refers to. Grids: the "
              "smallest distance between the images of distinct grid points is positive for every s (recorded).")
    table23 = Evidence(
        V.NOT_CHECKABLE, {"substitute_rmse_grid": grid},
        notes="Table 23 (L = 64 saturates; σ = 1, 100 underperform σ = 10; learnable B ±0.0%) needs ImageNet "
              "training; the table's body is absent from the text",
        tried=Tried(
            printed="003 prints for this ablation (ITNet-S, ImageNet-1K): sigma = 1 at -1.3% and sigma = 100 at "
                    "-0.6% relative to sigma = 10 (App H.2.1), 'performance saturates beyond L = 64', learnable B "
                    "'±0.0%', and App M's text ('too small (sigma=1) or too large (sigma=100) values degrade "
                    "performance', 'accuracy increases ... up to L=64, after which gains saturate'); the two "
                    "passages agree in sign and order (sigma = 10 best, sigma = 1 worst); Table 23's values are "
                    "absent, so nothing more can be compared",
            search="sigma and L are the free settings: the substitute (random GELU features of gamma(r), L in {8, "
                   "16, 64, 128}, sigma in {1, 10, 100}, a 6-cycle target) gives RMSE " + ", ".join(
                       f"{k}: {v:.3g}" for k, v in grid.items()) + "; it depends on the target's frequency, not on "
                   "ImageNet, and decides nothing about the printed deltas",
            budget="the substitute costs < 1 s; the printed numbers need ITNet-S trained on ImageNet-1K at each "
                   "setting (several full trainings, not available)"))
    return of_parts({"table23_values": table23, "learnable_B_no_expressiveness": learn_b},
        numbers={"substitute_rmse_grid": grid},
        notes="Substitute (does not decide): RMSE of fitting cos(12πr)exp(-r^2/0.08) with frozen random GELU "
              "features of γ(r).")
