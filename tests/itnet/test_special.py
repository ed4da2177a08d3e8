"""Special-case kernels of 003 (algorithms.md I5) vs direct implementations, and the Def.-1
mixed-difference diagnostic (I6).  Exact constructions are compared at 1e-12 (float64 sums of
O(1) terms over <= a few hundred keys)."""
import numpy as np
import pytest
import scipy.signal as ss

from yatmath import itnet as it
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import attention as at
from yatmath.itnet.special import conv as cv
from yatmath.itnet.special import recurrent as rc

TOL = 1e-12


def _corr_ref(x, f, mode, dil=1, stride=1, groups=1):
    """Multi-channel grouped cross-correlation from scipy.signal (dilation by zero insertion)."""
    s = x.ndim - 1
    if dil > 1:
        shp = f.shape[:2] + tuple((k - 1) * dil + 1 for k in f.shape[2:])
        fd = np.zeros(shp)
        fd[(slice(None), slice(None)) + (slice(None, None, dil),) * s] = f
        f = fd
    C_out, cpg = f.shape[:2]
    opg = C_out // groups
    out = []
    for o in range(C_out):
        g = o // opg
        out.append(sum(ss.correlate(x[g * cpg + c], f[o, c], mode=mode) for c in range(cpg)))
    y = np.array(out)
    return y[(slice(None),) + (slice(None, None, stride),) * s]


@pytest.mark.parametrize("boundary", ["same", "valid"])
@pytest.mark.parametrize("grid", [(13,), (6, 5)])
def test_conv_variants_vs_scipy(rng, boundary, grid):
    s = len(grid)
    x = rng.normal(size=(4,) + grid)
    cases = [dict(), dict(dilation=2), dict(stride=2), dict(groups=2), dict(groups=4)]
    for kw in cases:
        g = kw.get("groups", 1)
        C_out = 4 if g == 4 else 6
        f = rng.normal(size=(C_out, 4 // g) + (3,) * s)
        if boundary == "valid" and kw.get("dilation", 1) * 2 >= min(grid):
            continue
        ck = cv.conv_kernel(f, grid, boundary=boundary, **kw)
        ref = _corr_ref(x, f, boundary, kw.get("dilation", 1), kw.get("stride", 1), g)
        assert ck.apply(x).shape == ref.shape
        assert np.abs(ck.apply(x) - ref).max() < TOL * max(1, np.abs(ref).max()), kw
    # true convolution under the unit (lattice, h = 1) measure vs scipy.signal.convolve
    f = rng.normal(size=(1, 1) + (3,) * s)
    ck = cv.conv_kernel(f, grid, convention="conv", boundary=boundary, weight=1.0)
    assert np.allclose(ck.omega, 1.0)
    assert np.abs(ck.apply(x[:1])[0] - ss.convolve(x[0], f[0, 0], mode=boundary)).max() < TOL


def test_conv_depthwise_is_diagonal_and_wrap_is_circular(rng):
    x = rng.normal(size=(3, 10))
    f = rng.normal(size=(3, 1, 3))
    ck = cv.conv_kernel(f, (10,), groups=3, boundary="wrap")
    K = ck.K
    off = K - np.einsum("ijaa->ija", K)[..., None] * np.eye(3)
    assert np.all(off == 0)
    # circular cross-correlation by FFT-free roll sum
    ref = np.stack([sum(f[c, 0, m] * np.roll(x[c], -(m - 1)) for m in range(3)) for c in range(3)])
    assert np.abs(ck.apply(x) - ref).max() < TOL
    # d = max(C_in, C_out) embedding keeps the values
    assert cv.conv_kernel(rng.normal(size=(2, 3, 3)), (10,)).padded().shape[2:] == (3, 3)


def test_conv_transpose_vs_scatter(rng):
    x = rng.normal(size=(2, 7))
    f = rng.normal(size=(2, 3, 4))  # (C_in, C_out, k)
    ck = cv.conv_transpose_kernel(f, (7,), stride=2)
    ref = np.zeros((3, (7 - 1) * 2 + 4))
    for j in range(7):
        for m in range(4):
            ref[:, 2 * j + m] += f[:, :, m].T @ x[:, j]
    assert np.abs(ck.apply(x) - ref).max() < TOL


@pytest.mark.parametrize("causal", [False, True])
def test_attention_kernels_vs_numpy(rng, causal):
    n, d, dk = 12, 4, 3
    U = rng.normal(size=(n, d))
    Wq, Wk, Wv = rng.normal(size=(dk, d)), rng.normal(size=(dk, d)), rng.normal(size=(d, d))
    om = np.full(n, 1.0 / n)
    mask = it.causal_mask(n) if causal else None
    O = apply_kernel_tensor(at.attention_kernel(U, Wq, Wk, Wv, om, causal=causal), U, om, mask=mask)
    assert np.abs(O - at.softmax_attention(U, Wq, Wk, Wv, causal=causal)).max() < TOL
    Ol = apply_kernel_tensor(at.linear_attention_kernel(U, Wq, Wk, Wv, om, causal=causal), U, om, mask=mask)
    assert np.abs(Ol - at.linear_attention_reference(U, Wq, Wk, Wv, causal=causal)).max() < TOL
    H, dv = 2, 3
    Wqs, Wks = rng.normal(size=(H, dk, d)), rng.normal(size=(H, dk, d))
    Wvs, Wo = rng.normal(size=(H, dv, d)), rng.normal(size=(d, H * dv))
    Om = apply_kernel_tensor(at.mha_kernel(U, Wqs, Wks, Wvs, Wo, om, causal=causal), U, om, mask=mask)
    assert np.abs(Om - at.mha_reference(U, Wqs, Wks, Wvs, Wo, causal=causal)).max() < TOL
    shp = at.mha_printed_shapes(d, H, dv)
    assert shp["BlockDiag"] == (H * dv, H * d) and not shp["acts_on_u_in_R^d"]


def test_numden_construction_is_exact(rng):
    n, d = 10, 3
    U = rng.normal(size=(n, d))
    Wq, Wk, Wv = rng.normal(size=(2, d)), rng.normal(size=(2, d)), rng.normal(size=(d, d))
    Kt, Ut = at.numden_kernel(U, Wq, Wk, Wv)
    Ot = apply_kernel_tensor(Kt, Ut, np.full(n, 1.0 / n))
    assert np.abs(at.attention_from_numden(Ot) - at.softmax_attention(U, Wq, Wk, Wv)).max() < TOL


@pytest.mark.parametrize("method", ["zoh", "euler"])
def test_linear_ssm_kernels_vs_scan(rng, method):
    N, m, p, n = 4, 2, 3, 15
    A = rng.normal(size=(N, N)) - 2 * np.eye(N)
    B, C, D = rng.normal(size=(N, m)), rng.normal(size=(p, N)), rng.normal(size=(p, m))
    Ab, Bb = rc.discretise(A, B, 0.1, method)
    U = rng.normal(size=(n, m))
    for conv in ("C1", "C2"):
        K = rc.linear_kernel(Ab, Bb, C, n, convention=conv)
        O = apply_kernel_tensor(K, U, np.ones(n), W=D)
        assert np.abs(O - rc.linear_scan(Ab, Bb, C, U, convention=conv, D=D)).max() < TOL * 10
    # the printed kernel C A^{t-s} B (s < t) differs from both conventions
    Kp = rc.linear_kernel(Ab, Bb, C, n, convention="printed")
    Op = apply_kernel_tensor(Kp, U, np.ones(n))
    assert np.abs(Op - rc.linear_scan(Ab, Bb, C, U, convention="C1")).max() > 1e-6
    if method == "zoh":  # ZOH == exact solution for piecewise-constant input (C1: y at step start)
        from scipy.linalg import expm
        h = np.zeros(N)
        for t in range(n):
            h = expm(A * 0.1) @ h + np.linalg.solve(A, (expm(A * 0.1) - np.eye(N)) @ B @ U[t])
        assert np.abs(C @ h - (C @ (Ab @ rc.linear_scan(Ab, Bb, np.eye(N), U, convention="C2")[-2] + Bb @ U[-1]))).max() < 1e-12


def test_continuous_ssm_kernel_matches_discrete_zoh(rng):
    # K(t_i, t_j) = C e^{A(t_i - t_j)} B on nodes t = k dt equals C Abar^{i-j} B (Abar = e^{A dt})
    N, dt, n = 3, 0.2, 8
    A, B, C = rng.normal(size=(N, N)) - np.eye(N), rng.normal(size=(N, 1)), rng.normal(size=(1, N))
    Kc = rc.ssm_kernel(A, B, C, dt * np.arange(n))
    Kd = rc.linear_kernel(rc.discretise(A, B, dt)[0], B, C, n, convention="C2")
    assert np.abs(Kc - Kd).max() < 1e-12


def _scale_errs(ref_fn, ker_fn, U, scales):
    errs = []
    for s in scales:
        Y = ref_fn(s * U)
        O = apply_kernel_tensor(ker_fn(s * U), s * U, np.ones(U.shape[0]))
        errs.append(np.abs(O - Y).max() / np.abs(Y).max())
    return errs


def test_rnn_lstm_gru_printed_kernels_first_order(rng):
    """The printed nonlinear kernels linearise the recurrences: with zero hidden-to-candidate
    weights and biases their relative error vanishes as the input scale -> 0, quadratically."""
    n, m, N, p = 10, 2, 3, 2
    U = rng.normal(size=(n, m))
    sc = [1e-3, 1e-4]  # quadratic decay: the error ratio between the two scales is ~100
    Wh, Wu, C = 0.5 * rng.normal(size=(N, N)), rng.normal(size=(N, m)), rng.normal(size=(p, N))
    e = _scale_errs(lambda V: rc.rnn_reference(Wh, Wu, np.zeros(N), C, V)[0],
                    lambda V: rc.rnn_printed_kernel(Wh, Wu, np.zeros(N), C, V), U, sc)
    assert e[1] < 1e-4 and 50 < e[0] / e[1] < 200
    P = {k: rng.normal(size=(N, N + m)) for k in ("Wf", "Wi", "Wo", "Wc")}
    P["Wc"][:, :N] = 0
    P.update(bf=rng.normal(size=N), bi=rng.normal(size=N), bo=rng.normal(size=N), bc=np.zeros(N),
             Wy=rng.normal(size=(p, N)))
    r = rc.lstm_reference(P, U)
    # unrolling c_t = sum_s prod_{tau=s+1}^t f_tau * i_s * ct_s (exact)
    c_un = np.array([sum(np.prod(r["f"][s + 1:t + 1], axis=0) * r["i"][s] * r["ct"][s] for s in range(t + 1))
                     for t in range(n)])
    assert np.abs(c_un - r["c"]).max() < TOL
    e = _scale_errs(lambda V: rc.lstm_reference(P, V)["Y"], lambda V: rc.lstm_printed_kernel(P, V), U, sc)
    assert e[1] < 1e-4 and 50 < e[0] / e[1] < 200
    G = {"Wz": rng.normal(size=(N, N + m)), "Wr": rng.normal(size=(N, N + m)), "Wh": rng.normal(size=(N, N + m)),
         "bz": rng.normal(size=N), "br": rng.normal(size=N), "bh": np.zeros(N), "Wy": rng.normal(size=(p, N))}
    G["Wh"][:, :N] = 0
    g = rc.gru_reference(G, U)
    h_un = np.array([sum(np.prod(1 - g["z"][s + 1:t + 1], axis=0) * g["z"][s] * g["ht"][s] for s in range(t + 1))
                     for t in range(n)])
    assert np.abs(h_un - g["h"]).max() < TOL
    e = _scale_errs(lambda V: rc.gru_reference(G, V)["Y"], lambda V: rc.gru_printed_kernel(G, V), U, sc)
    assert e[1] < 1e-4 and 50 < e[0] / e[1] < 200


def test_mamba_kernel_main_index_exact_eq107_not(rng):
    n, d, N = 9, 3, 4
    P = {"A": -np.abs(rng.normal(size=(d, N))), "WD": rng.normal(size=(d, d)), "bD": rng.normal(size=d),
         "WB": rng.normal(size=(N, d)), "WC": rng.normal(size=(N, d))}
    U = rng.normal(size=(n, d))
    Y = rc.mamba_reference(P, U)
    O = apply_kernel_tensor(rc.mamba_kernel(P, U), U, np.ones(n))
    assert np.abs(O - Y).max() < TOL * np.abs(Y).max() * 10
    O107 = apply_kernel_tensor(rc.mamba_kernel(P, U, index="eq107"), U, np.ones(n))
    assert np.abs(O107 - Y).max() > 1e-3 * np.abs(Y).max()


def test_mixed_difference_zero_for_def1_nonzero_for_softmax(rng):
    n, d = 6, 2
    mu = it.discrete_uniform(np.linspace(0, 1, n))
    op = it.ITNetOperator(it.random_kernel_mlp(d, 1, width=8, L=2, rng=rng), np.eye(d))
    U = rng.normal(size=(n, d))
    vals = [rng.normal(size=d) for _ in range(4)]
    D = it.mixed_difference(lambda V: it.apply(op, V, mu), U, 0, 2, 4, *vals)
    assert np.abs(D).max() < 1e-13
    Wq, Wk, Wv = rng.normal(size=(3, d, d))
    D2 = it.max_mixed_difference(lambda V: at.softmax_attention(V, Wq, Wk, Wv), U, 0, 2, 4, starts=3,
                                 rng=0)
    assert D2["norm"] > 1e-2 and D2["sup_error_lower_bound"] == pytest.approx(D2["norm"] / 4)
    with pytest.raises(ValueError, match="distinct"):
        it.mixed_difference(lambda V: V, U, 0, 0, 1, *vals)


def test_special_bad_input(rng):
    with pytest.raises(ValueError, match="boundary"):
        cv.conv_kernel(np.ones((1, 1, 3)), (5,), boundary="reflect101")
    with pytest.raises(ValueError, match="f must have shape"):
        cv.conv_kernel(np.ones((1, 3)), (5,))
    with pytest.raises(ValueError, match="method"):
        rc.discretise(np.eye(2), np.ones((2, 1)), 0.1, "rk4")
    with pytest.raises(ValueError, match="index"):
        rc.mamba_kernel({}, np.ones((2, 2)), index="other")
