"""yat.simplex.*: the Yat product on the probability simplex and the information quantities."""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

import yatmath.yat as yat

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, Tried, register
from proofs_check.repro import evaluate
from proofs_check.support.yat_simplex_info import (cross_entropy, dirichlet_on, entropy, kl_divergence,
                                                    maximize_on_simplex, random_sparse_pairs,
                                                    simplex_product, simplex_starts, supp_disjoint,
                                                    support_patterns)

SYM = "symbolic"


def _repro(expr, bindings, **kw):
    return Repro(expr, bindings, expected=evaluate(expr, bindings), **kw)


@register("yat.simplex.min_similarity",
          method="proof: p.q = sum p_i q_i with non-negative terms is 0 iff supports are disjoint; "
                 "exhaustive support patterns (n<=6) + random sparse pairs; KL/H via rel_entr/xlogy, "
                 "per eps in {0, 1e-3, 1}")
def check_min_similarity(ctx):
    rng = ctx.rng("pairs")
    n_max = 6
    P, Q = [], []
    for n in range(2, n_max + 1):
        masks = support_patterns(n)
        ia, ib = np.meshgrid(np.arange(len(masks)), np.arange(len(masks)), indexing="ij")
        ma, mb = masks[ia.ravel()], masks[ib.ravel()]
        pad = np.zeros((len(ma), 10 - n))
        P.append(np.hstack([dirichlet_on(ma, rng), pad]))
        Q.append(np.hstack([dirichlet_on(mb, rng), pad]))
    n_exh = sum(len(a) for a in P)
    p_r, q_r = random_sparse_pairs(rng, ctx.pick(100_000, 1_000_000), 10)
    P, Q = np.vstack(P + [p_r]), np.vstack(Q + [q_r])
    keep = np.any(P != Q, axis=1)
    P, Q = P[keep], Q[keep]
    disj = supp_disjoint(P, Q)
    kl_pq, kl_qp, h_pq = kl_divergence(P, Q), kl_divergence(Q, P), cross_entropy(P, Q)
    info_bad = disj & ~(np.isinf(kl_pq) & np.isinf(kl_qp) & np.isinf(h_pq))
    parts = {}
    for eps in (0.0, 1e-3, 1.0):
        zero = simplex_product(P, Q, eps) == 0.0
        bad = (zero != disj) | info_bad
        parts[f"eps={eps:g}"] = Evidence(
            verdict=V.holds(not bad.any()),
            numbers={"contingency": {"zero_and_disjoint": int(np.sum(zero & disj)),
                                     "zero_and_overlap": int(np.sum(zero & ~disj)),
                                     "positive_and_disjoint": int(np.sum(~zero & disj)),
                                     "positive_and_overlap": int(np.sum(~zero & ~disj))},
                     "violations": int(bad.sum())},
            scope=Scope("exhaustive", "every pair of support patterns for n = 2..6 (whether Yat = 0 and "
                        "KL = inf depends only on the supports: p.q = sum p_i q_i has non-negative terms, "
                        "and KL = inf iff some p_i > 0 has q_i = 0), plus random sparse pairs in n = 10",
                        universal=True))
    return Evidence.of_parts(
        parts,
        numbers={"pairs": int(len(P)), "pairs_exhaustive_patterns": n_exh, "disjoint_pairs": int(disj.sum()),
                 "disjoint_pairs_with_finite_KL_or_H": int(info_bad.sum())},
        notes="Proof (001 C.15.2): p.q = 0 iff p_i q_i = 0 for all i iff disjoint supports, and for distinct "
              "p, q the denominator is > 0, so Yat = 0 iff disjoint; then some p_i > 0 has q_i = 0 (and "
              "vice versa), so KL(p||q) = KL(q||p) = H(p,q) = inf. The exhaustive pattern search and "
              "random pairs agree with no exception, for eps = 0 (001/002) and eps > 0 (000).")


@register("yat.simplex.self_similarity_eps",
          method="sympy (self value, eps -> 0 and joint limits q = p + t v, eps = t^a); other reading "
                 "(q = p maximises) by multi-start SLSQP over the simplex and an exact counterexample")
def check_self_similarity_eps(ctx):
    rng = ctx.rng("r1")
    pv = sp.Matrix(sp.symbols("p1:4", positive=True))
    eps, t = sp.symbols("epsilon t", positive=True)
    Ks = lambda u, v, e: (u.dot(v)) ** 2 / ((u - v).dot(u - v) + e)  # noqa: E731
    self_res = sp.simplify(Ks(pv, pv, eps) - (pv.dot(pv)) ** 2 / eps)
    lim_eps = sp.limit(Ks(pv, pv, eps), eps, 0, "+")
    Pn, Vn = sp.symbols("P V", positive=True)
    c = sp.symbols("c", real=True)
    joint = {str(a): str(sp.limit((Pn + t * c) ** 2 / (t ** 2 * Vn + t ** a), t, 0, "+"))
             for a in (sp.Rational(1, 2), 1, 2, 3)}
    m = ctx.pick(20_000, 200_000)
    P, Q = random_sparse_pairs(rng, m, 6)
    Q[: m // 10] = P[: m // 10]
    max_y_eps = max(float(np.max(simplex_product(P, Q, e) * e)) for e in (1e-3, 0.1, 1.0, 10.0))
    scope = Scope(SYM, "every n, p, q in the simplex, eps > 0", universal=True)
    part_a = Evidence(verdict=V.holds(True), scope=scope,
                      numbers={"proof": "(p.q)^2 <= 1 (p.q <= sum p_i = 1) and D >= eps, so Yat_eps <= 1/eps",
                               "sampled_max_Yat*eps": max_y_eps})
    part_b = Evidence(verdict=V.holds(self_res == 0 and lim_eps == sp.oo), scope=scope,
                      numbers={"sympy_residual": str(self_res), "sympy_limit_eps_to_0": str(lim_eps)})
    part_c = Evidence(verdict=V.holds(all(j == "oo" for j in joint.values())), scope=scope,
                      numbers={"proof": "(p.q_k)^2 -> ||p||^4 >= 1/n^2 > 0 while ||p-q_k||^2 + eps_k -> 0+",
                               "sympy_limits_q=p+tv_eps=t^a": joint})
    # other reading: q = p maximises Yat_eps(p, .) over the simplex
    rng2 = ctx.rng("r2")
    rows = []
    for name, p in {"nonuniform_n3": np.array([0.5, 0.3, 0.2]), "dirichlet_n5": rng2.dirichlet(np.ones(5))}.items():
        for e in (1e-3, 1.0, 10.0):
            starts = simplex_starts(rng2, len(p), ctx.pick(20, 40), extra=[p] + list(np.eye(len(p))))
            vmax, qmax, _ = maximize_on_simplex(lambda q, p=p, e=e: float(simplex_product(p, q, e)), len(p), starts,
                                                 jac=lambda q, p=p, e=e: np.asarray(yat.grad(p, q, e).x))
            rows.append({"p": name, "eps": e, "max/self": vmax / float(simplex_product(p, p, e)),
                         "argmax": np.round(qmax, 6).tolist()})
    b = {"p": [0.5, 0.3, 0.2], "q": [1.0, 0.0, 0.0], "eps": 1.0}
    rep = _repro("float(yatmath.yat.simplex.simplex_product(np.array(p), np.array(q), eps) "
                 "- yatmath.yat.simplex.simplex_product(np.array(p), np.array(p), eps))", b)
    r2 = Evidence(
        verdict=V.holds(rep.expected <= 0),
        reading=Reading("q = p maximises Yat_eps(p, .) over the simplex for eps > 0",
                        '001 Remark C.16: "... reflecting maximal self-similarity"'),
        numbers={"Yat(p,q)-Yat(p,p)": rep.expected, "search": rows},
        scope=Scope("search", "SLSQP, >= 20 restarts per (p, eps)", universal=True),
        counterexample=b | {"Yat(p,q)-Yat(p,p)": rep.expected}, repro=rep)
    return Evidence.of_parts(
        {"a_finite": part_a, "b_self_value": part_b, "c_joint_limit": part_c},
        reading=Reading("the three value statements: Yat_eps finite on the simplex; Yat_eps(p,p) = "
                        "||p||^4/eps -> inf as eps -> 0+; the joint singular limit",
                        '000 Thm 3 states exactly these and its proof (App C.5) proves them; "maximal '
                        'self-similarity" (001 Remark C.16) is said of the eps = 0 convention Yat(p,p) := inf'),
        other_readings={"R2_q=p_maximises": r2},
        notes="R1 (operative) holds symbolically. The other reading, q = p maximises Yat_eps(p, .) on the "
              "simplex, fails for every non-uniform interior p: e.g. p = (.5,.3,.2), eps = 1: "
              "Yat(p, e1) = 0.181 > Yat(p, p) = 0.144.")


@register("yat.simplex.max_similarity_eps0",
          method="R1 (eps = 0 with Yat(p,p) := inf): symbolic argument, sympy limit along q = p + t v, "
                 "||p||^2 >= 1/n (Cauchy-Schwarz, SLSQP check), KL/H identities; other reading (eps > 0) "
                 "by an exact counterexample")
def check_max_similarity_eps0(ctx):
    rng = ctx.rng("pairs")
    t = sp.symbols("t", positive=True)
    Pn, Vn = sp.symbols("P V", positive=True)
    c = sp.symbols("c", real=True)
    lim = sp.limit((Pn + t * c) ** 2 / (t ** 2 * Vn), t, 0, "+")
    n = sp.symbols("n", positive=True, integer=True)
    m = ctx.pick(50_000, 500_000)
    Pp, Qq = random_sparse_pairs(rng, m, 8)
    base = rng.dirichlet(np.ones(8), size=m // 10)
    v = rng.normal(size=base.shape)
    v -= v.mean(1, keepdims=True)
    near = base + 10.0 ** rng.uniform(-8, -3, (m // 10, 1)) * v * base.min(1, keepdims=True) / np.abs(v).max(1, keepdims=True)
    Pp, Qq = np.vstack([Pp, base]), np.vstack([Qq, near])
    dist = np.any(Pp != Qq, axis=1)
    finite = bool(np.all(np.isfinite(simplex_product(Pp[dist], Qq[dist], 0.0))))
    inf_eq = bool(np.all(np.isinf(simplex_product(base, base, 0.0))))
    kl_res = float(np.max(np.abs(kl_divergence(base, base))))
    h_res = float(np.max(np.abs(cross_entropy(base, base) - entropy(base))))
    starts = simplex_starts(rng, 6, 20, extra=list(np.eye(6)))
    vmin, pmin, _ = maximize_on_simplex(lambda q: -float(np.sum(q * q)), 6, starts)
    scope = Scope(SYM, "every n, p, q in the simplex", universal=True)
    iff = Evidence(verdict=V.holds(lim == sp.oo), scope=scope,
                   numbers={"proof": "p != q => ||p-q||^2 > 0 and (p.q)^2 <= 1, so Yat finite; p = q => inf "
                                     "by the convention, the limit along q -> p being +inf since p.q -> ||p||^2 >= 1/n",
                            "sympy_limit_q=p+tv": str(lim), "distinct_pairs_all_finite": finite,
                            "Yat(p,p)_all_inf": inf_eq, "distinct_pairs": int(dist.sum())})
    ident = Evidence(verdict=V.holds(True), scope=scope,
                     numbers={"proof": "p = q: every log(p_i/q_i) = 0 on supp p, so KL = 0 and H(p,p) = H(p)",
                              "max_|KL(p||p)|": kl_res, "max_|H(p,p)-H(p)|": h_res})
    cs = Evidence(verdict=V.holds(True), scope=scope,
                  numbers={"proof": "1 = (sum p_i)^2 <= n sum p_i^2 (Cauchy-Schwarz)",
                           "min_n||p||^2_SLSQP_n6": -vmin * 6, "argmin": np.round(pmin, 6).tolist()})
    b = {"p": [1 / 3] * 3, "eps": 0.1}
    rep = _repro("float(yatmath.yat.simplex.simplex_product(np.array(p), np.array(p), eps))", b)
    r2 = Evidence(
        verdict=V.holds(np.isinf(rep.expected)),
        reading=Reading("the network kernel with eps > 0: Yat_eps(p,q) = inf iff p = q",
                        '000 §3.6 / eq.1 use eps > 0 throughout ("K = (w.x)^2/(||w-x||^2+eps)")'),
        numbers={"Yat_0.1(uniform,uniform)": rep.expected, "bound": "Yat_eps <= 1/eps on the simplex"},
        scope=Scope(SYM, "every p: Yat_eps(p,p) = ||p||^4/eps < inf", universal=True),
        counterexample=b | {"Yat(p,p)": rep.expected}, repro=rep)
    return Evidence.of_parts(
        {"inf_iff_equal": iff, "KL_and_H_identities": ident, "norm_bound_1/n": cs},
        reading=Reading("eps = 0 with the convention Yat(p,p) := inf",
                        '001 Def C.1 / Remark C.16 and 002 Def A1 / Remark A1: "When p = q, we define '
                        'Yat(p,q) := inf via the limit"; 001 Thm 2.3 / 002 Thm A8 are stated in that setting'),
        other_readings={"R2_network_eps_positive": r2},
        notes="Under its own convention (eps = 0, Yat(p,p) := inf) the theorem holds: distinct pairs are "
              "finite (even at relative separation 1e-8), the limit q -> p is +inf because ||p||^2 >= 1/n, "
              "KL(p||p) = 0 and H(p,p) = H(p). For the network kernel (eps > 0) Yat(p,p) = ||p||^4/eps "
              "is finite, so 'Yat = inf iff p = q' fails at every p = q.")


@register("yat.simplex.kl_identity",
          method="sympy proof of Gibbs' inequality via ln y <= y - 1 (equality iff y = 1); random, sparse, "
                 "nested-support and near-equal pairs with the Pinsker ratio (illustration)")
def check_kl_identity(ctx):
    rng = ctx.rng("pairs")
    y = sp.symbols("y", positive=True)
    f = y - 1 - sp.log(y)
    crit = sp.solve(sp.diff(f, y), y)
    sym_ok = crit == [1] and f.subs(y, 1) == 0 and sp.simplify(sp.diff(f, y, 2) - 1 / y ** 2) == 0
    m = ctx.pick(50_000, 500_000)
    n = 8
    P = rng.dirichlet(np.ones(n), size=m)
    Q = rng.dirichlet(np.ones(n), size=m)
    z = rng.uniform(-1, 1, (m, n))
    z -= np.sum(P * z, 1, keepdims=True)
    z /= np.abs(z).max(1, keepdims=True)
    Q3 = P * (1 + 10.0 ** rng.uniform(-4, -1, (m, 1)) * z)
    Q3 /= Q3.sum(1, keepdims=True)
    AP, AQ = np.vstack([P, P]), np.vstack([Q, Q3])
    keep = np.any(AP != AQ, axis=1)
    Kl = kl_divergence(AP[keep], AQ[keep])
    l1 = np.abs(AP[keep] - AQ[keep]).sum(1)
    E = np.eye(n)
    Pid = np.vstack([P, E])
    return Evidence(
        verdict=V.holds(bool(sym_ok)),
        numbers={"proof": "KL(p||q) = -sum_{p_i>0} p_i ln(q_i/p_i) >= -sum p_i (q_i/p_i - 1) = 1 - sum_{supp p} q_i "
                          ">= 0, equality iff q_i = p_i on supp p and sum_{supp p} q_i = 1, i.e. p = q",
                 "sympy_ln_y<=y-1": {"critical_points": str(crit), "f(1)": 0, "f''": "1/y^2 > 0"},
                 "distinct_pairs": int(keep.sum()), "min_KL_distinct": float(Kl.min()),
                 "min_KL/(l1^2/2)_(Pinsker>=1)": float(np.min(Kl / (0.5 * l1 ** 2))),
                 "max_|KL(p||p)|": float(np.max(np.abs(kl_divergence(Pid, Pid)))),
                 "max_|H(p,p)-H(p)|": float(np.max(np.abs(cross_entropy(Pid, Pid) - entropy(Pid))))},
        scope=Scope(SYM, "every n and p, q in the simplex (Gibbs' inequality)", universal=True),
        notes="Gibbs' inequality from ln y <= y - 1 (sympy: unique critical point y = 1, f'' = 1/y^2 > 0). "
              "Sampled distinct pairs all have KL > 0 and satisfy Pinsker; H(p,p) = H(p) to rounding.")


@register("yat.simplex.remarks",
          method="sympy symmetry and permutation invariance; exhaustive support-pattern search (n<=5) for "
                 "each implication between the three orthogonality notions of (c); (d) no text")
def check_remarks(ctx):
    rng = ctx.rng("remarks")
    p = sp.Matrix(sp.symbols("p1:4", nonnegative=True))
    q = sp.Matrix(sp.symbols("q1:4", nonnegative=True))
    e = sp.symbols("epsilon", nonnegative=True)
    Y = lambda u, v: u.dot(v) ** 2 / ((u - v).dot(u - v) + e)  # noqa: E731
    sym_res = sp.simplify(Y(p, q) - Y(q, p))
    perm = [2, 0, 1]
    perm_res = sp.simplify(Y(p, q) - Y(sp.Matrix([p[i] for i in perm]), sp.Matrix([q[i] for i in perm])))
    scope = Scope(SYM, "every n (sums are invariant under reordering), eps >= 0", universal=True)
    part_a = Evidence(verdict=V.holds(sym_res == 0), numbers={"sympy_residual": str(sym_res)}, scope=scope)
    c = sp.symbols("c", positive=True)
    scale = sp.simplify(Y(c * p, c * q).subs(e, 0) / Y(p, q).subs(e, 0))
    b2 = {"p": [0.7, 0.3], "q": [0.2, 0.8], "c": 2.0}
    rep2 = _repro("float(yatmath.yat.simplex.simplex_product(c * np.array(p), c * np.array(q), 0.0) "
                  "/ yatmath.yat.simplex.simplex_product(np.array(p), np.array(q), 0.0))", b2)
    part_b = Evidence(
        verdict=V.holds(perm_res == 0),
        reading=Reading("Yat(p_sigma, q_sigma) = Yat(p, q) for every index permutation sigma",
                        '001 Remark C.16 / 002 Remark A1 item 2: "Scale Invariance: Invariant under index '
                        'permutation" (the property is defined by these words)'),
        other_readings={"R2_scaling_Y(cp,cq)=Y(p,q)": Evidence(
            verdict=V.holds(abs(rep2.expected - 1) <= 1e-12),
            reading=Reading("Yat(cp, cq) = Yat(p, q) for c > 0", 'the heading "Scale Invariance" alone'),
            numbers={"sympy_Y(cp,cq)/Y(p,q)_eps0": str(scale)},
            scope=Scope(SYM, "eps = 0, c > 0", universal=True),
            counterexample=b2 | {"ratio": rep2.expected}, repro=rep2)},
        numbers={"sympy_permutation_residual": str(perm_res)}, scope=scope)
    names = ("euclidean", "combinatorial", "information")
    Ps, Qs = [], []
    for n in range(2, 6):
        masks = support_patterns(n)
        ia, ib = np.meshgrid(np.arange(len(masks)), np.arange(len(masks)), indexing="ij")
        pad = np.zeros((ia.size, 5 - n))
        Ps.append(np.hstack([dirichlet_on(masks[ia.ravel()], rng), pad]))
        Qs.append(np.hstack([dirichlet_on(masks[ib.ravel()], rng), pad]))
    Ps, Qs = np.vstack(Ps), np.vstack(Qs)
    notions = (np.sum(Ps * Qs, -1) == 0.0, supp_disjoint(Ps, Qs), np.isinf(kl_divergence(Ps, Qs)))
    directions = {}
    for (i, a), (j, bb) in itertools.permutations(list(enumerate(names)), 2):
        directions[f"{a}=>{bb}"] = int(np.sum(notions[i] & ~notions[j]))
    b3 = {"p": [0.5, 0.5], "q": [1.0, 0.0]}
    rep3 = _repro("float(np.dot(p, q)) if bool(np.isinf(yatmath.yat.simplex.kl_divergence(np.array(p), "
                  "np.array(q)))) else -1.0", b3)
    part_c = Evidence(
        verdict=V.holds(all(v == 0 for v in directions.values())),
        numbers={"pairs_searched": int(len(Ps)), "violations_per_direction": directions},
        scope=Scope("exhaustive", "every pair of support patterns, n = 2..5", universal=True),
        counterexample=b3 | {"KL(p||q)": "inf", "p.q": rep3.expected,
                             "note": "KL(p||q) = inf needs only supp p not inside supp q"},
        repro=rep3)
    part_d = Evidence(verdict=V.NOT_CHECKABLE,
                      tried=Tried(
                          printed="001 Remark C.18 (l.1504) and 002 Remark A3 (l.903) consist of one heading "
                                  "sentence ending in a colon, 'The product creates a bridge between geometric and "
                                  "probabilistic perspectives:', followed directly by App D (001) and App G.8 "
                                  "(002); neither prints a number, formula or list item, so nothing can be "
                                  "compared. The three orthogonality notions printed just before it are part (c).",
                          search="No statement, hence no free parameter or hypothesis to search. The nearest "
                                 "testable content, the equivalence of the three orthogonality notions through "
                                 "Yat = 0 that the preceding paragraph attributes to Thm 2.2 / A7, is decided in "
                                 "part (c) by the exhaustive support-pattern search (n <= 5).",
                          budget="Nothing was run for (d): a missing text is not decided by any budget; 'creates a "
                                 "bridge' alone is a figure of speech with no criterion."),
                      notes="001 Remark C.18 and 002 Remark A3 end after their heading sentence ('...bridge "
                            "between geometric and probabilistic perspectives:'); there is no statement.")
    return Evidence.of_parts(
        {"a_symmetry": part_a, "b_scale_invariance": part_b, "c_orthogonality_equivalence": part_c,
         "d_remark_C18_A3": part_d},
        counterexample=part_c.counterexample, repro=part_c.repro,
        notes="(a) holds. (b) as defined by its words (permutation invariance) holds; read as "
              "Y(cp,cq) = Y(p,q) it fails (c^2 factor at eps = 0). (c) Euclidean and combinatorial "
              "orthogonality are equivalent on the simplex and imply KL(p||q) = inf, but p = (.5,.5), "
              "q = (1,0) has KL(p||q) = inf with p.q = 0.5: the information notion implies neither "
              "other. (d) no text.")
