"""Checks of claims.md B11 itnet.exp.* (003 §4 Tables 1-5, App J-M)."""
from __future__ import annotations

import numpy as np

import yatmath.itnet as I
from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Scope, Threshold, Tried, register
from yatmath.itnet.special.attention import softmax_attention

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts
F64 = float(np.finfo(float).eps)


@register("itnet.exp.benchmarks",
          method="NOT_CHECKABLE at scale; substitutes: least-squares fit of position-only kernels to conv and "
                 "attention targets; the 980-point arithmetic recorded")
def check_benchmarks(ctx):
    rng = ctx.rng("bench")
    n = 8
    f = np.array([0.3, 0.5, 0.2])
    Wc = sum(f[m + 1] * np.roll(np.eye(n), m, axis=0) for m in (-1, 0, 1))
    Us = rng.normal(size=(200, n))
    Wq, Wk, Wv = rng.normal(size=(3, 1, 1))
    tgt = {"conv": Us @ Wc.T,
           "attention": np.stack([softmax_attention(u[:, None], Wq, Wk, Wv)[:, 0] for u in Us])}
    res = {}
    for k, T in tgt.items():
        Kfit = np.linalg.lstsq(Us, T, rcond=None)[0]
        res[k] = float(np.sqrt(np.mean((Us @ Kfit - T) ** 2)) / np.sqrt(np.mean(T ** 2)))
    return of_parts({"benchmark_results": Evidence(
        V.NOT_CHECKABLE, notes="ImageNet, GLUE, ModelNet40, VQA results need training and data; Tables 1-5 "
                               "values are absent from the text.",
        tried=Tried(
            printed="the values present in the text were compared with each other: 81.4% (2-layer kernel MLP, w = "
                    "128) vs 81.5% (3 layers) and '+0.1%' from w = 128 to 256 are all ITNet-S (Table 20's caption), "
                    "so they do not meet ITNet-B's 83.9% (Table 17); -1.3% (sigma = 1) and -0.6% (sigma = 100) agree "
                    "in sign and order between App H.2.1 and App M; '+3.6 to +6.9' over efficient attention (Table "
                    "18 caption) and memory '7x' (MC) and '14x' (LR) (Table 19 caption) have no second printing to "
                    "compare with; 28^2 + 14^2 = 980 holds exactly. No two printed numbers contradict each other",
            search="nothing free in a reported experiment; the substitute (labelled): least-squares fits of a "
                   "content-independent linear kernel to a convolution target (relative residual "
                   f"{res['conv']:.2g}) and to softmax attention ({res['attention']:.2g}) on n = 8 points, "
                   "showing only that attention needs content dependence",
            budget="the substitute costs < 0.1 s; the tables need training ITNet-S/B/L/PC on ImageNet-1K, GLUE, "
                   "ModelNet40 and VQA v2 (data and compute not available); no budget here decides"))},
        numbers={"quoted_values": ["81.4 vs 81.5", "-1.3, -0.6", "+3.6 to +6.9", "memory 7x, 14x"],
                 "784_plus_196": 28 ** 2 + 14 ** 2, "substitute_rel_residual": res},
        notes="Substitute (labelled, not deciding): a content-independent kernel fits the conv target exactly and "
              "leaves a residual on softmax attention. 28^2 + 14^2 = 980 (printed arithmetic).")


@register("itnet.exp.graph_kernel",
          method="exhaustive over all graphs on 4 vertices: the λ = 0 operator vs edge-restricted message passing "
                 "with the same kernel, GCN normalisation reproduced by a node-dependent kernel; λ > 0 weights; "
                 "Laplacian-eigenvector sign/order sensitivity recorded")
def check_graph(ctx):
    rng = ctx.rng("graph")
    nv, d = 4, 2
    pairs = [(a, b) for a in range(nv) for b in range(a + 1, nv)]
    U = rng.normal(size=(nv, d))
    Kf = rng.normal(size=(nv, nv, d, d))                 # an arbitrary kernel value per ordered pair
    W = rng.normal(size=(d, d))
    dev_mp, dev_gcn, glob_ok = 0.0, 0.0, True
    for mask in range(2 ** len(pairs)):
        A = np.zeros((nv, nv))
        for b, (i, j) in enumerate(pairs):
            if mask >> b & 1:
                A[i, j] = A[j, i] = 1
        for lam in (0.0, 0.7):
            wts = (A + lam) / nv                         # (1_E + λ) κ with μ = (1/|V|) Σ δ
            O = np.einsum("vu,vuab,ub->va", wts, Kf, U) + U @ W.T
            if lam == 0.0:
                mp = np.stack([sum((Kf[v, u] @ U[u] for u in range(nv) if A[v, u]), np.zeros(d)) / nv
                               for v in range(nv)]) + U @ W.T
                dev_mp = max(dev_mp, float(np.abs(O - mp).max()))
                deg = A.sum(1) + 1                       # GCN: D^-1/2 (A + I) D^-1/2 via κ = nv/sqrt(deg_v deg_u) I
                Kg = (nv / np.sqrt(np.outer(deg, deg)))[:, :, None, None] * np.eye(d)
                Og = np.einsum("vu,vuab,ub->va", A / nv, Kg, U) + U / deg[:, None]
                ref = (np.diag(deg ** -0.5) @ (A + np.eye(nv)) @ np.diag(deg ** -0.5)) @ U
                dev_gcn = max(dev_gcn, float(np.abs(Og - ref).max()))
            else:
                glob_ok &= bool((wts > 0).all())
    tol = 64 * F64 * float(np.abs(Kf).max() * np.abs(U).max() + 1)
    lam0 = Evidence(V.holds(max(dev_mp, dev_gcn) <= tol), {"max_dev_edge_message_passing": dev_mp,
                                                            "max_dev_gcn_normalised": dev_gcn},
                    reading=Reading("at λ = 0 the operator aggregates κ-weighted messages over the edge set only "
                                    "(a graph convolution / message passing with a learned kernel)",
                                    '003 App J.1 eq.263: "κ^graph = (1_{(v,u)∈E} + λ)·κ_θ ... At λ=0, ITNet reduces '
                                    'to graph convolution over the edge set"'),
                    thresholds=[Threshold("max deviation <= precision", tol, "precision", "float64, 64 eps x scale",
                                          max(dev_mp, dev_gcn), max(dev_mp, dev_gcn))],
                    scope=Scope("exhaustive", "all 64 graphs on 4 vertices, an arbitrary kernel value per pair",
                                universal=True),
                    notes="GCN's symmetric normalisation is reproduced with κ = |V|/sqrt(deg_v deg_u) I and "
                          "W_θ = diag(1/deg) (a function of the node, representable from distinct positions).")
    glob = Evidence(V.holds(glob_ok), {"all_pairs_weighted_at_lambda_0.7": glob_ok},
                    scope=Scope("exhaustive", "all 64 graphs on 4 vertices, λ = 0.7: every pair has weight "
                                "(1_E + λ) >= λ > 0", universal=True))
    # eigenvector sign / order sensitivity (recorded)
    n = 10
    A = np.triu((rng.random((n, n)) < 0.35).astype(float), 1)
    A = A + A.T
    for v in range(n - 1):
        A[v, v + 1] = A[v + 1, v] = 1
    Dm = np.diag(1 / np.sqrt(A.sum(1)))
    _, vecs = np.linalg.eigh(np.eye(n) - Dm @ A @ Dm)
    Xp = vecs[:, :8]
    Un = rng.normal(size=(n, 3))
    op = I.ITNetOperator(I.random_kernel_mlp(3, 8, width=16, L=4, rng=rng), np.eye(3))
    O0 = I.apply(op, Un, I.discrete_uniform(Xp))
    Xs = Xp.copy()
    Xs[:, 1] *= -1
    sens = float(np.linalg.norm(I.apply(op, Un, I.discrete_uniform(Xs)) - O0) / np.linalg.norm(O0))
    return of_parts({"lambda0_graph_convolution": lam0, "lambda_positive_global": glob},
                    numbers={"eigvec_sign_flip_rel_change": sens},
                    notes="8 Laplacian eigenvectors with μ = 1/|V| is a definition; eigenvector signs are arbitrary "
                          "and a kernel MLP's output changes with them (recorded).")
