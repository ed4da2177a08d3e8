"""Linear Yat attention with random features vs exact Yat attention: which map, measured.

Part 1 (issue 14): the error of every method of ``yat_features`` and of nmn's random-Maclaurin
map on the same inputs; the defaults of ``yat_features`` (``method="auto"``) are chosen here.
Part 2 (issue 4): the ratio harmonic / maclaurin and series / maclaurin over a range of biases.
Part 3: the sequence length from which linear attention is faster than exact attention.

Benchmark settings (part 1)
---------------------------
* d = 64, L = 512 queries and 512 keys, dv = 64, F = 256 features;
* spherical=True: q, k ~ N(0, I_d) normalised to unit rows (the inputs of the spherical maps);
  spherical=False: q, k ~ N(0, I_d / d), not normalised (the i.i.d.-coordinate inputs of 000
  Cor. 2; norms 1 +- 0.09); v ~ N(0, I_dv);
* eps: the papers leave it free ("eps is not stated in any paper", spec/algorithms.md), so we use
  the median squared distance ||q - k||^2 over the L x L pairs, the convention of nmn's
  linear-attention benchmarks (~2 at d = 64);
* inner bias b: 0 (the kernel of 000 eq. 1) and 1 (nmn's default per-head bias, its
  "deployment regime b > 0"; the inner bias of 000 Thm 4 / the NMN layer is learned and O(1));
* 10 seeds (4 with --quick); per seed the data and every map are drawn afresh.

Errors: attention ||O_lin - O||_F / ||O||_F, with O = exact Yat attention (S = yatmath.yat.gram,
O = S V / rowsum S) and O_lin = yatmath.yat.linear_attention with the map (the same readout for
every map, nmn's included); kernel ||Phi_q Phi_k^T - S||_F / ||S||_F.  Each cell: mean over seeds
and its 95% t-interval (yatmath.estimators.mean_estimate).  Reference row "uniform": O = mean_j
v_j for every query, the error of ignoring the kernel.

Maps: laplace_mc, laplace_quadrature (r2_max = 4 on the sphere, max ||q - k||^2 of the data
otherwise), and on the sphere maclaurin, series, harmonic; "nmn MAY": nmn's random-Maclaurin map
(``nmn.torch.attention.performer_yat.maclaurin_features``, degrees ~ a_n / sum a_n up to
nmax = 40, float64), imported from the installed package, spherical settings only (it
normalises its inputs); the row is left out when nmn or torch is not installed.

Decision rule: per setting the winner is the method with the smallest mean attention error; per
``spherical`` the measured default is the method of ``yat_features`` with the smallest geometric
mean over the biases of its mean attention error.  The script prints it beside
``yat_features``'s ``DEFAULT_METHOD`` and checks, per setting, that the default's mean is no
larger than any other map's upper 95% bound (the assertion of tests/features/test_defaults.py).

Run:  python benchmarks/bench_features.py [--quick]
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist

from yatmath.bench.timing import best_time
from yatmath.estimators import mean_estimate
from yatmath.features import yat_features
from yatmath.features.yat import DEFAULT_METHOD
from yatmath.yat import gram, linear_attention

D, L, F = 64, 512, 256
SPHERICAL_METHODS = ("laplace_mc", "laplace_quadrature", "maclaurin", "series", "harmonic")
GENERAL_METHODS = ("laplace_mc", "laplace_quadrature")
NMN = "nmn MAY"
UNIFORM = "uniform"
BIASES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)      # part 2 (issue 4)
MAIN_BIASES = (0.0, 1.0)                      # part 1: the papers' b = 0 and nmn's b = 1


@dataclass(frozen=True)
class Setting:
    """One benchmark setting; eps is the median squared distance of each seed's data."""
    spherical: bool
    bias: float
    d: int = D
    L: int = L
    F: int = F
    near: float | None = None     # every query gets a key near it (K = permuted Q + near N(0, I))


def data(setting, seed):
    """(Q, K, V) for ``setting``: unit rows when spherical, else N(0, I/d) rows; with ``near``
    every query has a close key (the regime where the biased truncation is worst)."""
    g = np.random.default_rng(seed)
    n, d = setting.L, setting.d
    Q, K, V = (g.standard_normal((n, d)) for _ in range(3))
    if setting.near is not None:
        K = Q[g.permutation(n)] + setting.near * K
    if setting.spherical:
        return (Q / np.linalg.norm(Q, axis=1, keepdims=True),
                K / np.linalg.norm(K, axis=1, keepdims=True), V)
    return Q / np.sqrt(d), K / np.sqrt(d), V


def exact_attention(Q, K, V, eps, b):
    """(O, S): O = S V / rowsum(S), S = gram(Q, K, eps, bias=b), the quadratic reference."""
    S = gram(Q, K, eps=eps, bias=b if b else None)
    return (S @ V) / S.sum(1, keepdims=True), S


def nmn_map(d, F, eps, b, seed):
    """nmn's random-Maclaurin (MAY) map as a callable X -> (n, F) float64, or None without nmn."""
    try:
        import torch
        from nmn.torch.attention.performer_yat import (
            create_maclaurin_projection,
            maclaurin_features,
        )
    except ImportError:
        return None
    p = create_maclaurin_projection(d, F, bias=b, epsilon=eps, seed=seed, dtype=torch.float64)

    def phi(X):
        X = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64))
        return maclaurin_features(X, p, normalize=False).numpy()
    return phi


def feature_maps(setting, eps, r2_max, seed, *, with_nmn=True, with_default=False):
    """{name: map} for ``setting``: every applicable method of ``yat_features`` (seed
    10_000 + seed), nmn's map (same seed) when asked and installed, and with ``with_default``
    the map ``yat_features`` builds when no method is given."""
    s, d, F, b = setting.spherical, setting.d, setting.F, setting.bias
    rng = 10_000 + seed
    maps = {}
    for m in (SPHERICAL_METHODS if s else GENERAL_METHODS):
        opts = {"r2_max": r2_max} if (m == "laplace_quadrature" and not s) else {}
        maps[m] = yat_features(d, F, eps=eps, bias=b, spherical=s, method=m, rng=rng, **opts)
    if with_nmn and s:
        phi = nmn_map(d, F, eps, b, rng)
        if phi is not None:
            maps[NMN] = phi
    if with_default:
        maps["default"] = yat_features(d, F, eps=eps, bias=b, spherical=s, rng=rng)
    return maps


def measure(setting, seeds, **kw):
    """{name: (attention errors, kernel errors)} over ``seeds`` (arrays, one entry per seed),
    plus the "uniform" reference (attention error only; kernel error nan) and "eps" (per seed)."""
    out, eps_used = {}, []
    for seed in seeds:
        Q, K, V = data(setting, seed)
        r2 = cdist(Q, K, "sqeuclidean")
        eps = float(np.median(r2))
        eps_used.append(eps)
        O, S = exact_attention(Q, K, V, eps, setting.bias)
        nO, nS = np.linalg.norm(O), np.linalg.norm(S)
        for name, phi in feature_maps(setting, eps, float(r2.max()), seed, **kw).items():
            att = np.linalg.norm(linear_attention(Q, K, V, phi) - O) / nO
            ker = np.linalg.norm(phi(Q) @ phi(K).T - S) / nS
            out.setdefault(name, []).append((att, ker))
        out.setdefault(UNIFORM, []).append((np.linalg.norm(V.mean(0) - O) / nO, np.nan))
    res = {k: (np.array([a for a, _ in v]), np.array([k_ for _, k_ in v])) for k, v in out.items()}
    res["eps"] = np.array(eps_used)
    return res


def summary(x):
    """(mean, low, high): the mean over seeds and its 95% t-interval."""
    e = mean_estimate(x)
    return float(e.estimate), float(e.ci[0]), float(e.ci[1])


def geo_summary(x):
    """(geometric mean, low, high): exp of the mean of ln(error) and of its 95% t-interval (the
    decision statistic: the errors are heavy-tailed, see the module docstring)."""
    return tuple(float(np.exp(v)) for v in summary(np.log(x)))


def default_holds(res, default):
    """The check of tests/features/test_defaults.py: the default's geometric-mean attention error
    is no larger than the upper 95% bound of every other map's (the uniform reference excluded)."""
    m = geo_summary(res[default][0])[0]
    return all(m <= geo_summary(res[k][0])[2] for k in res
               if k not in ("eps", UNIFORM, default))


def _cell(x, stat=summary):
    if np.isnan(x).all():
        return f"{'-':>28}"
    m, lo, hi = stat(x)
    return f"{m:9.4g} [{lo:8.4g}, {hi:8.4g}]"


def print_setting(setting, res):
    methods = [k for k in res if k not in ("eps", UNIFORM)]
    print(f"\n## spherical={setting.spherical}, b={setting.bias:g}, eps={res['eps'].mean():.4g} "
          f"(median ||q-k||^2, mean over seeds), d={setting.d}, L={setting.L}, F={setting.F}, "
          f"{len(res['eps'])} seeds" + (f", near={setting.near}" if setting.near else ""))
    print(f"{'map':>20} | {'attention: mean [95% CI]':>28} | {'attention: geo-mean [95% CI]':>28}"
          f" | {'kernel: mean [95% CI]':>28}")
    for k in methods + [UNIFORM]:
        print(f"{k:>20} | {_cell(res[k][0])} | {_cell(res[k][0], geo_summary)} | "
              f"{_cell(res[k][1])}")
    att = {k: geo_summary(res[k][0]) for k in methods}
    win = min(att, key=lambda k: att[k][0])
    sig = all(att[win][2] < att[k][1] for k in att if k != win)
    kwin = min(methods, key=lambda k: geo_summary(res[k][1])[0])
    dflt = DEFAULT_METHOD[setting.spherical]
    print(f"winner (attention geo-mean): {win} ("
          f"{'its CI lies below every other' if sig else 'CIs overlap'}); winner (kernel geo-mean):"
          f" {kwin}; default {dflt!r} <= every other's upper bound: "
          f"{'yes' if default_holds(res, dflt) else 'NO'}")
    return win


def choose_defaults(seeds):
    """Part 1: measure every setting, print it, and return the measured default per spherical:
    the method with the smallest geometric mean of the attention error over seeds and biases.
    ``seeds`` = {spherical: seeds}.  Returns (chosen, {(spherical, b): measure result})."""
    chosen, results = {}, {}
    for spherical in (True, False):
        logs = {}
        for b in MAIN_BIASES:
            st = Setting(spherical, b)
            res = results[spherical, b] = measure(st, seeds[spherical])
            print_setting(st, res)
            for k in (SPHERICAL_METHODS if spherical else GENERAL_METHODS):
                logs.setdefault(k, []).append(np.log(res[k][0]).mean())
        chosen[spherical] = min(logs, key=lambda k: np.mean(logs[k]))
        print(f"# spherical={spherical}: geometric mean over seeds and b={MAIN_BIASES} of the "
              "attention error: " + ", ".join(f"{k} {np.exp(np.mean(v)):.4g}"
                                              for k, v in logs.items()))
    return chosen, results


def issue4_table(seeds, biases=BIASES, near=None, known=None):
    """Part 2: mean attention error of harmonic, series, maclaurin and the ratios to maclaurin;
    ``known`` = {b: measure result} already measured on the same seeds (reused)."""
    print(f"\n{'b':>5} | " + " | ".join(f"{m + ' rel err':>18}" for m in ("harmonic", "series",
                                                                            "maclaurin"))
          + " | ratio harmonic | ratio series")
    ok = {"harmonic": True, "series": True}
    for b in biases:
        res = (known or {}).get(b) or measure(Setting(True, b, near=near), seeds, with_nmn=False)
        mean = {m: res[m][0].mean() for m in ("harmonic", "series", "maclaurin")}
        ratio = {m: mean[m] / mean["maclaurin"] for m in ok}
        for m in ok:
            ok[m] &= ratio[m] <= 0.5
        print(f"{b:5.2f} | " + " | ".join(f"{mean[m]:18.4g}" for m in mean)
              + f" | {ratio['harmonic']:14.3f} | {ratio['series']:12.3f}")
    return ok


def crossover(lengths):
    out = []
    for Lc in lengths:
        Q, K, V = data(Setting(True, 1.0, L=Lc), 0)
        eps = float(np.median(cdist(Q[:256], K[:256], "sqeuclidean")))
        phi = yat_features(D, F, eps=eps, bias=1.0, spherical=True, rng=0)     # the default
        t_lin = best_time(lambda: linear_attention(Q, K, V, phi), repeat=3)
        t_ex = best_time(lambda: exact_attention(Q, K, V, eps, 1.0), repeat=3)
        out.append((Lc, t_lin, t_ex))
    return out


def main(quick=False):
    seeds = range(4) if quick else range(10)
    print("# Part 1 (issue 14): relative Frobenius errors against exact Yat attention "
          "(module docstring: settings, maps, decision rule)")
    chosen, results = choose_defaults({True: seeds, False: range(10) if quick else range(40)})
    for s in (True, False):
        agree = chosen[s] == DEFAULT_METHOD[s]
        print(f"measured default (spherical={s}): {chosen[s]}; yat_features DEFAULT_METHOD: "
              f"{DEFAULT_METHOD[s]} -> {'consistent' if agree else 'INCONSISTENT'}")

    print(f"\n# Part 2 (issue 4): spherical, d={D}, L={L}, F={F}, {len(seeds)} seeds; "
          "ratio = mean error of the method / of maclaurin (target <= 0.5 for every b)")
    ok = issue4_table(seeds, known={b: results[True, b] for b in MAIN_BIASES})
    print(f"target: harmonic (biased) {'MET' if ok['harmonic'] else 'NOT MET'}; "
          f"series (unbiased) {'MET' if ok['series'] else 'NOT MET'}")
    print("# robustness (not the target): every query has a near key, K = permuted Q + 0.3 N(0, I)")
    issue4_table(seeds, biases=(0.5, 1.0, 4.0), near=0.3)

    lengths = (128, 256, 512, 1024, 2048) if quick else (128, 256, 512, 1024, 2048, 4096)
    print("\n# Part 3: time, spherical default map, b=1: L, linear (s), exact (s)")
    first = None
    for Lc, tl, te in crossover(lengths):
        print(f"{Lc:6d} {tl:10.5f} {te:10.5f}")
        if first is None and tl < te:
            first = Lc
    print(f"linear attention is faster from L = {first} (first measured length; "
          f"None = not within {lengths[-1]})")
    # memory: exact holds Lq*Lk scores; linear holds 2 L F features + F (dv + 1) state
    Lm = next(x for x in range(1, 10 ** 6) if x * x > 2 * x * F + F * (D + 1))
    print(f"memory (entries): exact L^2 > linear 2 L F + F (dv+1) from L = {Lm}")
    return 0 if all(chosen[s] == DEFAULT_METHOD[s] for s in chosen) else 1


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
