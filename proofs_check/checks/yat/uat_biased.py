"""yat.uat_biased (claims.md A2; 000 Thm 4, 001 Thm 2.4 = Thm C.14, Cor C.15): for compact X and
fixed eps > 0, span{(x.w + b)^2 / (||x - w||^2 + eps)} is dense in C(X).

Proof checked: the exact identity of yat.uat_bias_identity puts every IMQ translate in F itself
(sympy); the IMQ is universal on compact sets because its Fourier transform is a positive
(Laplace) mixture of Gaussian transforms (sympy: positive integrand), the criterion of 001
Thm C.14 / Micchelli-Xu-Zhang (2006).  The least-squares sweep is a substitute experiment:
recorded and plotted, it does not decide (a finite fit neither proves nor refutes density).
"""
from __future__ import annotations


from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Plot, Reading, Scope, register
from proofs_check.support import yat_kernel_theory as C


@register("yat.uat_biased",
          method="sympy proof chain (exact second difference puts IMQ translates in F; IMQ "
                 "transform = positive Laplace mixture of Gaussians); substitute: least squares "
                 "over random biased atoms, sup error vs N on domains with/without 0")
def check_uat_biased(ctx):
    sym = C.sympy_bias_second_difference()
    pos = C.sympy_imq_ft_integrand_positive()
    proved = all(sym.values()) and pos
    rng = ctx.rng("uat-biased")
    Ns = ctx.pick([8, 16, 32, 64], [8, 16, 32, 64, 128, 256])
    sweeps = {}
    series = {}
    for d in ctx.pick((1,), (1, 2)):
        for name, dom in (("with0", (-1.0, 1.0)), ("without0", (0.5, 1.5))):
            for wc in ctx.pick((False,), (False, True)):
                sw = C.uat_sweep(ctx.level, rng, d, dom, 0.5, Ns, True, wc)
                key = f"d{d}_{name}_{'with_c' if wc else 'no_c'}"
                sweeps[key] = {k: v for k, v in sw.items() if not k.startswith("_")}
                if d == 1 and not wc:
                    for t in ("one", "sin3x_abs"):
                        series[f"{t}, {name}"] = (Ns, sw["rel_sup_error"][t])
    worst_final = max(max(v[-1] for v in s["rel_sup_error"].values()) for s in sweeps.values())
    return Evidence(
        verdict=V.holds(proved),
        reading=Reading("density of span{g(.; w, b)} (and of span + constants, Cor C.15) in "
                        "C(X) under the sup norm, for every compact X and fixed eps > 0",
                        "000 Thm 4 / 001 Thm C.14: 'The class F is dense in C(X) under the "
                        "uniform norm'"),
        numbers={"sympy_bias_identity": sym, "sympy_imq_ft_integrand_positive": pos,
                 "substitute_sweeps": sweeps, "substitute_worst_final_rel_sup_error": worst_final,
                 "N": Ns},
        scope=Scope("symbolic", "sympy: K_IMQ(., w) = [g(b+h) - 2g(b) + g(b-h)]/(2h^2) exactly, "
                    "so span F contains every IMQ translate; the IMQ transform pi^{d/2} int "
                    "t^{-d/2} e^{-eps t - rho^2/4t} dt has a positive integrand, so it is > 0 "
                    "off 0 and locally integrable (yat.imq_fourier), which makes the IMQ "
                    "universal on every compact set (Hahn-Banach criterion of 001 Thm C.14)",
                    universal=True),
        plot=Plot(series=series, xlabel="number of atoms N",
                  ylabel="relative sup error (least squares, d = 1, no constant)",
                  title="substitute: biased Yat atoms, least squares"),
        notes=("Substitute experiment (not deciding): least squares over N random biased atoms "
               "(w ~ U(domain +- 0.5), b ~ N(0,1), eps = 0.5), sup error on a finer grid, "
               "targets 1, |x|, sin(3x)+|x|-0.8, bump, x1 x2, with and without the constant c."),
    )
