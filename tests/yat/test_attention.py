"""Yat attention (Y5): forward against an explicit per-row computation, backward against
central finite differences (float64, h = 1e-6: truncation ~1e-12, rounding ~u|L|/h ~ 1e-9,
so 1e-7 normwise relative agreement; a wrong term is off by O(1))."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax

import yatmath._array as be
from yatmath.yat import (attention, attention_backward, multihead_attention,
                         multihead_attention_backward, product, width_scale)

from tests.fdcheck import FD_RTOL, U64  # noqa: F401
from tests.fdcheck import assert_fd_close
from tests.fdcheck import fd as _fd


def _explicit(Q, K, V, eps, causal, normalize, s_att, power=1.0, delta=0.0, mask=None):
    """Row by row: scores from product(), then scipy softmax or x^p / (delta + sum x^p)."""
    Lq, Lk = Q.shape[0], K.shape[0]
    O = np.zeros((Lq, V.shape[1]))
    for i in range(Lq):
        keep = np.ones(Lk, bool) if mask is None else mask[i].copy()
        if causal:
            keep &= np.arange(Lk) <= i
        if not keep.any():
            continue
        z = s_att * product(K[keep], Q[i][None, :], eps, backend="numpy")
        if normalize == "softmax":
            a = softmax(z)
        else:
            a = z**power / (delta + np.sum(z**power))
        O[i] = a @ V[keep]
    return O


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("normalize,power,delta", [("softmax", 1, 0), ("softermax", 2.0, 0.5),
                                                   ("softermax", 1.0, 0.0)])
def test_forward_matches_explicit_rows(causal, normalize, power, delta):
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    O = attention(Q, K, V, 0.5, causal, normalize, 1.7, power=power, delta=delta,
                  backend="numpy")
    ref = _explicit(Q, K, V, 0.5, causal, normalize, 1.7, power, delta)
    # O(1) well-conditioned data, a few float64 operations per entry: 1e-13 normwise
    assert_fd_close(O, ref, rtol=1e-13)


def test_padding_mask_and_fully_masked_row():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(5, 3)), rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    mask = rng.random((5, 7)) < 0.6
    mask[3] = False  # query 3 may attend to nothing
    O, cache = attention(Q, K, V, 0.2, mask=mask, return_cache=True)
    assert_fd_close(O, _explicit(Q, K, V, 0.2, False, "softmax", 1.0, mask=mask), rtol=1e-13)
    np.testing.assert_array_equal(O[3], 0.0)
    np.testing.assert_array_equal(cache.A[~mask], 0.0)
    g = attention_backward(rng.normal(size=O.shape), cache)
    np.testing.assert_array_equal(g.Q[3], 0.0)
    assert all(np.all(np.isfinite(t)) for t in (g.Q, g.K, g.V))


def test_large_logits_do_not_overflow():
    """Scores up to ~1e4 times scale 1e3: exp(Z) overflows without the row-max shift."""
    rng = np.random.default_rng(2)
    Q = rng.normal(size=(4, 3)) * 30
    K, V = Q + rng.normal(size=(4, 3)) * 1e-3, rng.normal(size=(4, 2))
    O = attention(Q, K, V, 1e-2, scale=1e3, backend="numpy")
    assert np.all(np.isfinite(O))
    # reference: scipy's softmax subtracts the max too
    assert_fd_close(O, _explicit(Q, K, V, 1e-2, False, "softmax", 1e3), rtol=1e-12)


CASES = [("softmax", False, 1.0, 0.0, 1.3), ("softmax", True, 1.0, 0.0, "d"),
         ("softermax", False, 2.0, 0.3, 1.0), ("softermax", True, 1.0, 0.2, 0.8),
         ("softermax", True, 1.5, 0.1, "L")]


@pytest.mark.parametrize("normalize,causal,power,delta,scale", CASES)
def test_backward_matches_finite_differences(normalize, causal, power, delta, scale):
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(5, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    eps = 0.6
    kw = dict(causal=causal, normalize=normalize, power=power, delta=delta, backend="numpy")
    O, cache = attention(Q, K, V, eps, scale=scale, return_cache=True, **kw)
    G = rng.normal(size=O.shape)
    g = attention_backward(G, cache)

    def loss(Q_=Q, K_=K, V_=V, e_=eps, s_=scale):
        return float(np.sum(G * attention(Q_, K_, V_, e_, scale=s_, **kw)))

    assert_fd_close(_fd(lambda a: loss(Q_=a), Q), g.Q)
    assert_fd_close(_fd(lambda a: loss(K_=a), K), g.K)
    assert_fd_close(_fd(lambda a: loss(V_=a), V), g.V)
    assert_fd_close(_fd(lambda a: loss(e_=float(a)), np.array(eps)), g.eps)
    if isinstance(scale, str):
        n = Q.shape[1] if scale == "d" else K.shape[0]
        s_att, _ = width_scale(n)
        assert_fd_close(_fd(lambda a: loss(s_=float(a)), np.array(s_att)),
               g.scale, rtol=FD_RTOL)  # numeric scale with the same value
        assert_fd_close(_fd(lambda a: float(np.sum(G * attention(Q, K, V, eps, scale=scale,
                                                         scale_alpha=float(a), **kw))),
                   np.array(1.0)), g.scale_alpha)
    else:
        assert g.scale_alpha is None
        assert_fd_close(_fd(lambda a: loss(s_=float(a)), np.array(scale)), g.scale)


@pytest.mark.parametrize("causal", [False, True])
def test_softermax_without_delta_backward_and_scale_invariance(causal):
    """delta = 0: softermax(s Z) does not depend on s, so dL/dscale = 0 up to rounding
    (relative to the size of the terms summed, ||dZ|| ||S||); the other gradients still match
    finite differences."""
    rng = np.random.default_rng(9)
    Q, K, V = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    kw = dict(causal=causal, normalize="softermax", power=1.0, delta=0.0, backend="numpy")
    O, cache = attention(Q, K, V, 0.3, scale=0.8, return_cache=True, **kw)
    G = rng.normal(size=O.shape)
    g = attention_backward(G, cache)
    assert abs(g.scale) <= 1e-13 * np.linalg.norm(G) * np.linalg.norm(cache.S)
    assert_fd_close(_fd(lambda a: float(np.sum(G * attention(a, K, V, 0.3, scale=0.8, **kw))), Q), g.Q)
    assert_fd_close(_fd(lambda a: float(np.sum(G * attention(Q, a, V, 0.3, scale=0.8, **kw))), K), g.K)


def test_batched_and_broadcast_inputs():
    """Q (2, L, d) against shared K, V (L, d): per-batch results equal unbatched calls and the
    K, V gradients are summed over the broadcast batch axis."""
    rng = np.random.default_rng(4)
    Q = rng.normal(size=(2, 5, 3))
    K, V = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    O, cache = attention(Q, K, V, 0.4, causal=True, return_cache=True)
    for b in range(2):
        np.testing.assert_array_equal(O[b], attention(Q[b], K, V, 0.4, causal=True))
    G = rng.normal(size=O.shape)
    g = attention_backward(G, cache)
    assert g.K.shape == K.shape and g.V.shape == V.shape and g.Q.shape == Q.shape
    gs = [attention_backward(G[b], attention(Q[b], K, V, 0.4, causal=True,
                                             return_cache=True)[1]) for b in range(2)]
    assert_fd_close(g.K, gs[0].K + gs[1].K, rtol=1e-14)
    assert_fd_close(g.V, gs[0].V + gs[1].V, rtol=1e-14)


def _mh_explicit(X, Wq, Wk, Wv, Wo, H, eps, causal):
    dh, dv = Wq.shape[1] // H, Wv.shape[1] // H
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = [_explicit(Q[:, h * dh:(h + 1) * dh], K[:, h * dh:(h + 1) * dh],
                       V[:, h * dv:(h + 1) * dv], eps, causal, "softmax", 1.0) for h in range(H)]
    out = np.concatenate(heads, axis=1)
    return out if Wo is None else out @ Wo


@pytest.mark.parametrize("with_wo", [True, False])
def test_multihead_forward_and_backward(with_wo):
    rng = np.random.default_rng(5)
    L, dm, Hh, dh, dv = 4, 5, 2, 3, 2
    X = rng.normal(size=(L, dm))
    Wq, Wk = rng.normal(size=(dm, Hh * dh)) / 2, rng.normal(size=(dm, Hh * dh)) / 2
    Wv = rng.normal(size=(dm, Hh * dv))
    Wo = rng.normal(size=(Hh * dv, 3)) if with_wo else None
    eps = 0.5
    Y, cache = multihead_attention(X, Wq, Wk, Wv, Wo, num_heads=Hh, eps=eps, causal=True,
                                   backend="numpy", return_cache=True)
    assert_fd_close(Y, _mh_explicit(X, Wq, Wk, Wv, Wo, Hh, eps, True), rtol=1e-13)
    G = rng.normal(size=Y.shape)
    g = multihead_attention_backward(G, cache)
    args = dict(X=X, Wq=Wq, Wk=Wk, Wv=Wv, Wo=Wo)

    def loss(**over):
        a = {**args, **over}
        return float(np.sum(G * multihead_attention(a["X"], a["Wq"], a["Wk"], a["Wv"], a["Wo"],
                                                    num_heads=Hh, eps=eps, causal=True,
                                                    backend="numpy")))

    for name in ("X", "Wq", "Wk", "Wv") + (("Wo",) if with_wo else ()):
        assert_fd_close(_fd(lambda a, name=name: loss(**{name: a}), args[name]), getattr(g, name))
    if not with_wo:
        assert g.Wo is None


@pytest.mark.skipif(not be.has_numba(), reason="Numba not installed")
def test_numba_backend_equals_numpy_backend():
    """d = 32 > DIRECT_MAX_D: numba's gram uses the GEMM form; kernel bound 4(d+4)u(cond+8)
    per score, normwise well below 1e-12 for Gaussian data."""
    rng = np.random.default_rng(6)
    Q, K, V = rng.normal(size=(20, 32)), rng.normal(size=(30, 32)), rng.normal(size=(30, 4))
    K[4] = Q[2]
    out = {}
    for backend in ("numpy", "numba"):
        O, c = attention(Q, K, V, 1e-2, causal=True, scale=0.01, backend=backend,
                         return_cache=True)
        out[backend] = (O, attention_backward(np.ones_like(O), c))
    assert_fd_close(out["numba"][0], out["numpy"][0], rtol=1e-12)
    assert_fd_close(out["numba"][1].Q, out["numpy"][1].Q, rtol=1e-12)
    assert_fd_close(out["numba"][1].K, out["numpy"][1].K, rtol=1e-12)


def test_float32_attention():
    rng = np.random.default_rng(7)
    Q, K, V = (rng.normal(size=(6, 4)) for _ in range(3))
    O64 = attention(Q, K, V, 0.5, normalize="softermax", power=2.0)
    O32 = attention(Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32), 0.5,
                    normalize="softermax", power=2.0)
    assert O32.dtype == np.float32
    # a few dozen float32 roundings per entry (d = 4, L = 6), O(1) conditioning
    assert_fd_close(O32, O64, rtol=500 * np.finfo(np.float32).eps)


@pytest.mark.parametrize("call,exc,word", [
    (lambda: attention(np.ones((3, 2)), np.ones((3, 4)), np.ones((3, 1)), 1.0), ValueError, "K"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 1)), 1.0), ValueError, "V"),
    (lambda: attention(np.ones(2), np.ones((3, 2)), np.ones((3, 1)), 1.0), ValueError, "Q"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 0.0), ValueError, "eps"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, normalize="relu"),
     ValueError, "normalize"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, scale=-1.0),
     ValueError, "scale"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, scale="x"),
     ValueError, "scale"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, power=0.0),
     ValueError, "power"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, delta=-1.0),
     ValueError, "delta"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0,
                       mask=np.ones((3, 3))), TypeError, "mask"),
    (lambda: attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0,
                       mask=np.ones((2, 3), bool)), ValueError, "mask"),
    (lambda: attention_backward(np.ones((3, 1)), None), TypeError, "cache"),
    (lambda: attention_backward(np.ones((3, 2)), attention(np.ones((3, 2)), np.ones((3, 2)),
                                                           np.ones((3, 1)), 1.0,
                                                           return_cache=True)[1]),
     ValueError, "dO"),
    (lambda: multihead_attention(np.ones((3, 4)), np.ones((4, 3)), np.ones((4, 3)),
                                 np.ones((4, 3)), num_heads=2, eps=1.0), ValueError, "Wq"),
    (lambda: multihead_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((4, 4)),
                                 np.ones((4, 4)), num_heads=2, eps=1.0), ValueError, "Wq"),
    (lambda: multihead_attention(np.ones((3, 4)), np.ones((4, 4)), np.ones((4, 4)),
                                 np.ones((4, 4)), num_heads=0, eps=1.0), ValueError, "num_heads"),
    (lambda: multihead_attention(np.ones((3, 4)), np.ones((4, 4)), np.ones((4, 4)),
                                 np.ones((4, 4)), np.ones((3, 2)), num_heads=2, eps=1.0),
     ValueError, "Wo"),
])
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


@pytest.mark.gpu
@pytest.mark.skipif(not be.has_cupy(), reason="needs CuPy and a CUDA device")
@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
def test_cupy_attention_matches_numpy(normalize):
    import cupy as cp

    rng = np.random.default_rng(8)
    Q, K, V = rng.normal(size=(2, 16, 24)), rng.normal(size=(2, 16, 24)), rng.normal(size=(2, 16, 5))
    O, c = attention(Q, K, V, 0.1, causal=True, normalize=normalize, power=2.0, scale=0.1,
                     backend="numpy", return_cache=True)
    Oc, cc = attention(cp.asarray(Q), cp.asarray(K), cp.asarray(V), 0.1, causal=True,
                       normalize=normalize, power=2.0, scale=0.1, return_cache=True)
    assert isinstance(Oc, cp.ndarray)
    G = rng.normal(size=O.shape)
    g, gc = attention_backward(G, c), attention_backward(cp.asarray(G), cc)
    assert_fd_close(cp.asnumpy(Oc), O, rtol=1e-12)
    assert_fd_close(cp.asnumpy(gc.Q), g.Q, rtol=1e-11)
    assert_fd_close(cp.asnumpy(gc.K), g.K, rtol=1e-11)
    assert_fd_close(cp.asnumpy(gc.V), g.V, rtol=1e-11)


@pytest.mark.parametrize("normalize", ["softmax", "softermax"])
def test_empty_inputs(normalize):
    """No keys: every row is fully masked, so O = 0 (documented); no queries: empty output."""
    O, c = attention(np.ones((3, 2)), np.ones((0, 2)), np.ones((0, 4)), 1.0,
                     normalize=normalize, return_cache=True)
    assert O.shape == (3, 4)
    np.testing.assert_array_equal(O, 0.0)
    g = attention_backward(np.ones((3, 4)), c)
    np.testing.assert_array_equal(g.Q, 0.0)
    assert g.K.shape == (0, 2) and g.V.shape == (0, 4)
    O, c = attention(np.ones((0, 2)), np.ones((3, 2)), np.ones((3, 4)), 1.0,
                     normalize=normalize, return_cache=True)
    assert O.shape == (0, 4)
    np.testing.assert_array_equal(attention_backward(np.ones((0, 4)), c).K, 0.0)
