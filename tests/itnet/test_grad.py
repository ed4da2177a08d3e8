"""Gradients of a loss through the ITNet operator (003 App I; algorithms.md I4) vs central
finite differences, and the tiled recompute backward vs the dense reference."""
import numpy as np
import pytest

from yatmath import itnet as it


def _problem(rng, heads=1, causal=False, gelu="exact"):
    n, d, s = 9, 4 if heads == 2 else 3, 2
    mu = it.Measure(rng.uniform(size=(n, s)), rng.uniform(0.5, 1.5, n) / n)
    if heads == 1:
        op = it.ITNetOperator(it.random_kernel_mlp(d, s, width=6, L=2, gelu=gelu, rng=rng),
                              rng.normal(size=(d, d)), causal, 0.5)
    else:
        op = it.MultiHeadOperator([it.random_kernel_mlp(2, s, width=5, L=2, gelu=gelu, rng=rng)
                                   for _ in range(2)], rng.normal(size=(d, d)), rng.normal(size=(d, d)),
                                  causal, 0.5)
    return op, mu, rng.normal(size=(n, d)), rng.normal(size=(n, d))


def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        g[idx] = (f(xp) - f(xm)) / (2 * h)
    return g


# central differences with h = 1e-6 on O(1) smooth functions: truncation ~h^2 ~ 1e-12,
# rounding ~ u/h ~ 1e-10; 1e-7 relative (to the largest entry) leaves a wide margin.
TOL = 1e-7


def _rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.mark.parametrize("heads,causal,gelu", [(1, False, "exact"), (1, True, "tanh"), (2, False, "exact")])
def test_dense_grad_matches_finite_differences(rng, heads, causal, gelu):
    op, mu, U, G = _problem(rng, heads, causal, gelu)
    gr = it.grad(op, U, mu, G)

    def loss_op(o):
        return float((it.apply(o, U, mu) * G).sum())

    assert _rel(gr["U"], _fd(lambda V: float((it.apply(op, V, mu) * G).sum()), U)) < TOL
    W0 = op.W.copy()

    def with_W(W):
        op.W = W
        v = loss_op(op)
        op.W = W0
        return v

    assert _rel(gr["W"], _fd(with_W, W0)) < TOL
    for h, net in enumerate(op.heads):
        for name in ("W1", "b1", "W2", "b2"):
            P0 = net.params()[name]

            def f(P, h=h, name=name):
                new = op.heads[h].with_params(**{name: P})
                if heads == 1:
                    o = it.ITNetOperator(new, op.W, op.causal, op.diag_weight)
                else:
                    hs = list(op.heads)
                    hs[h] = new
                    o = it.MultiHeadOperator(hs, op.W_O, op.W, op.causal, op.diag_weight)
                return loss_op(o)

            assert _rel(gr["heads"][h][name], _fd(f, P0)) < TOL, (h, name)
    if heads == 2:
        WO0 = op.W_O.copy()
        fo = lambda WO: loss_op(it.MultiHeadOperator(op.heads, WO, op.W, op.causal, op.diag_weight))  # noqa: E731
        assert _rel(gr["W_O"], _fd(fo, WO0)) < TOL


def test_grad_separate_query_set(rng):
    op, mu, U, _ = _problem(rng)
    Xq, Uq = rng.uniform(size=(5, 2)), rng.normal(size=(5, 3))
    G = rng.normal(size=(5, 3))
    gr = it.grad(op, U, mu, G, Xq=Xq, Uq=Uq)
    f_k = lambda V: float((it.apply(op, V, mu, Xq=Xq, Uq=Uq) * G).sum())  # noqa: E731
    f_q = lambda V: float((it.apply(op, U, mu, Xq=Xq, Uq=V) * G).sum())  # noqa: E731
    assert _rel(gr["U"], _fd(f_k, U)) < TOL and _rel(gr["Uq"], _fd(f_q, Uq)) < TOL


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("tile", [(1, 1), (2, 3), (4, 4), (9, 9), (8, 5)])
def test_tiled_backward_equals_dense(rng, backend, tile):
    for heads, causal in ((1, False), (1, True), (2, True)):
        op, mu, U, G = _problem(rng, heads, causal)
        gd = it.grad(op, U, mu, G)
        gt = it.grad(op, U, mu, G, mode="tiled", tile=tile, backend=backend)
        assert _rel(gt["U"], gd["U"]) < 1e-12 and _rel(gt["W"], gd["W"]) < 1e-12
        for h in range(len(op.heads)):
            for k in ("W1", "b1", "W2", "b2"):
                assert _rel(gt["heads"][h][k], gd["heads"][h][k]) < 1e-12, (h, k)


def test_grad_rejects_bad_G(rng):
    op, mu, U, G = _problem(rng)
    with pytest.raises(ValueError, match="G must have shape"):
        it.grad(op, U, mu, G[:3])
    with pytest.raises(ValueError, match="mode"):
        it.grad(op, U, mu, G, mode="mc")
