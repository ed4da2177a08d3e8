"""Bad-input rows for ``yatmath.itnet`` (area "itnet").

One row per (public callable, argument, bad value); the main entry points (``apply``, ``grad``,
``Measure``, the rules, the constructors and initialisers, ``svd_factors``, the diagnostic) have a
row per argument class: shape, dtype/finiteness, range, option string, size, seed, and the
overflow and memory refusals.  Run by ``tests/test_bad_input.py``.
"""
from __future__ import annotations

import numpy as np

import yatmath.itnet as it
from tests.badinput import Case

N, D, S = 5, 2, 1
_rng = np.random.default_rng(7)
NET = it.random_kernel_mlp(D, S, width=4, L=2, rng=_rng)
OP = it.ITNetOperator(NET, np.eye(D))
NODES = np.linspace(0.05, 0.95, N)[:, None]
MU = it.Measure(NODES, np.full(N, 1.0 / N))
U = _rng.normal(size=(N, D))
G = _rng.normal(size=(N, D))
MH = it.MultiHeadOperator([NET, NET], np.eye(2 * D), np.eye(2 * D))
K4 = _rng.normal(size=(3, 3, 2, 2))
PHI = _rng.normal(size=(N, 2, D))
LR = it.LowRankOperator(PHI, PHI, np.eye(D), 2, D)
FAC = it.init_factor_mlp(D, S, 2, width=4, L=2, rng=0)
BIG = 10 ** 6   # dense (BIG, BIG, ...) pair tensors: ~10^14 bytes and more, refused up front
NAN_U = np.where(np.arange(N * D).reshape(N, D) == 3, np.nan, U)


def _apply(**kw):
    a = dict(op=OP, U=U, measure=MU)
    a.update(kw)
    return it.apply(a.pop("op"), a.pop("U"), a.pop("measure"), **a)


def _grad(**kw):
    a = dict(op=OP, U=U, measure=MU, G=G)
    a.update(kw)
    return it.grad(a.pop("op"), a.pop("U"), a.pop("measure"), a.pop("G"), **a)


def _big_apply(mode):
    X = np.linspace(0.0, 1.0, BIG)
    return it.apply(OP, np.zeros((BIG, D)), it.discrete_uniform(X), mode=mode)


def _net(**kw):
    a = dict(W1=NET.W1, b1=NET.b1, W2=NET.W2, b2=NET.b2, B=NET.B, d=D)
    a.update(kw)
    return it.KernelMLP(**a)


def _init(**kw):
    a = dict(d=4, s=1, n_keys=N, width=4, L=2)
    a.update(kw)
    return it.init_itnet(a.pop("d"), a.pop("s"), **a)


def _ikm(**kw):
    a = dict(d=2, s=1, n_keys=N, width=4, L=2)
    a.update(kw)
    return it.init_kernel_mlp(a.pop("d"), a.pop("s"), **a)


def _mmd(**kw):
    a = dict(F=lambda V: V, U=U, i=0, j=1, k=2, starts=1, maxiter=5)
    a.update(kw)
    return it.max_mixed_difference(a.pop("F"), a.pop("U"), a.pop("i"), a.pop("j"), a.pop("k"), **a)


def _md(**kw):
    a = dict(F=lambda V: V, U=U, i=0, j=1, k=2, a=U[0], a2=U[1], b=U[2], b2=U[3])
    a.update(kw)
    return it.mixed_difference(*a.values())


def _lr(**kw):
    a = dict(phi=PHI, psi=PHI, W=np.eye(D), r=2, d=D)
    a.update(kw)
    return it.LowRankOperator(**a)


def _fac(**kw):
    a = dict(W1=FAC.W1, b1=FAC.b1, W2=FAC.W2, b2=FAC.b2, B=FAC.B, r=2, d=D)
    a.update(kw)
    return it.FactorMLP(**a)


ROWS = [
    # ---- apply: the main entry point --------------------------------------------------------
    Case("yatmath.itnet.apply", "U", U[:, :1], lambda v: _apply(U=v), ValueError, ("shape",)),
    Case("yatmath.itnet.apply", "U", NAN_U, lambda v: _apply(U=v), ValueError, ("nan",)),
    Case("yatmath.itnet.apply", "U", U.astype(complex), lambda v: _apply(U=v), TypeError, ("dtype",)),
    Case("yatmath.itnet.apply", "U", U * 1e150, lambda v: _apply(U=v), OverflowError,
         ("overflows", "max|U|"), "K ~ |U|^2 ~ 1e300, K u ~ 1e450: the output overflows"),
    Case("yatmath.itnet.apply", "U", U * 1e150, lambda v: _apply(U=v, mode="tiled"), OverflowError,
         ("overflows",), "tiled mode: same overflow, raised instead of NaN"),
    Case("yatmath.itnet.apply", "measure", NODES, lambda v: _apply(measure=v), TypeError, ("Measure",)),
    Case("yatmath.itnet.apply", "op", "net", lambda v: _apply(op=v), TypeError, ("ITNetOperator",)),
    Case("yatmath.itnet.apply", "mode", "nope", lambda v: _apply(mode=v), ValueError, ("one of",)),
    Case("yatmath.itnet.apply", "mode", "lowrank", lambda v: _apply(mode=v), ValueError,
         ("LowRankOperator",)),
    Case("yatmath.itnet.apply", "backend", "nope", lambda v: _apply(backend=v), ValueError, ("one of",)),
    Case("yatmath.itnet.apply", "backend", "numba", lambda v: _apply(backend=v), ValueError,
         ("mode='tiled'", "dense"), "was accepted and ignored outside the tiled mode"),
    Case("yatmath.itnet.apply", "backend", "numba", lambda v: _apply(backend=v, mode="mc", M=2),
         ValueError, ("mode='tiled'",)),
    Case("yatmath.itnet.apply", "tile", 0, lambda v: _apply(tile=v, mode="tiled"), ValueError, (">= 1",)),
    Case("yatmath.itnet.apply", "tile", 2.5, lambda v: _apply(tile=v, mode="tiled"), TypeError,
         ("integer",), "non-integer sizes are refused, not rounded"),
    Case("yatmath.itnet.apply", "tile", (4, 4, 4), lambda v: _apply(tile=v, mode="tiled"), TypeError,
         ("pair",)),
    Case("yatmath.itnet.apply", "factorised", "yes", lambda v: _apply(factorised=v, mode="tiled"),
         TypeError, ("True or False",)),
    Case("yatmath.itnet.apply", "M", None, lambda v: _apply(M=v, mode="mc"), ValueError, ("needs",)),
    Case("yatmath.itnet.apply", "M", 0, lambda v: _apply(M=v, mode="mc"), ValueError, (">= 1",)),
    Case("yatmath.itnet.apply", "M", 2.0, lambda v: _apply(M=v, mode="mc"), TypeError, ("integer",)),
    Case("yatmath.itnet.apply", "M", 4, lambda v: _apply(M=v), ValueError, ("mode='mc' only",),
         "M was silently ignored in the dense mode"),
    Case("yatmath.itnet.apply", "M", 6, lambda v: _apply(M=v, mode="mc", replace=False), ValueError,
         ("replace=False", "<= 5")),
    Case("yatmath.itnet.apply", "proposal", "nope", lambda v: _apply(proposal=v, mode="mc", M=2),
         ValueError, ("one of",)),
    Case("yatmath.itnet.apply", "proposal", "optimal", lambda v: _apply(proposal=v, mode="mc", M=2),
         ValueError, ("dense integrands",)),
    Case("yatmath.itnet.apply", "proposal", np.full((N, N), 0.3),
         lambda v: _apply(proposal=v, mode="mc", M=2), ValueError, ("sum to 1",)),
    Case("yatmath.itnet.apply", "proposal", np.full((N, N - 1), 0.25),
         lambda v: _apply(proposal=v, mode="mc", M=2), ValueError, ("shape",)),
    Case("yatmath.itnet.apply", "proposal", np.eye(N)[::-1] * 2 - np.full((N, N), 1.0 / N),
         lambda v: _apply(proposal=v, mode="mc", M=2), ValueError, (">= 0",)),
    Case("yatmath.itnet.apply", "proposal_scale", 0.0,
         lambda v: _apply(proposal="gaussian", proposal_scale=v, mode="mc", M=2), ValueError, ("> 0",)),
    Case("yatmath.itnet.apply", "eps_mix", 1.5, lambda v: _apply(eps_mix=v, mode="mc", M=2),
         ValueError, ("<= 1",)),
    Case("yatmath.itnet.apply", "eps_mix", np.nan, lambda v: _apply(eps_mix=v, mode="mc", M=2),
         ValueError, ("finite",)),
    Case("yatmath.itnet.apply", "rng", -1, lambda v: _apply(rng=v, mode="mc", M=2), ValueError,
         ("non-negative",)),
    Case("yatmath.itnet.apply", "rng", 1.5, lambda v: _apply(rng=v, mode="mc", M=2), TypeError,
         ("seed",)),
    Case("yatmath.itnet.apply", "replace", "no", lambda v: _apply(replace=v, mode="mc", M=2),
         TypeError, ("True or False",)),
    Case("yatmath.itnet.apply", "Xq", NODES[:3], lambda v: _apply(Xq=v), ValueError, ("Uq",)),
    Case("yatmath.itnet.apply", "Xq", np.zeros((3, 2)), lambda v: _apply(Xq=v, Uq=U[:3]), ValueError,
         ("columns",)),
    Case("yatmath.itnet.apply", "Uq", U[:2], lambda v: _apply(Xq=NODES[:3], Uq=v), ValueError,
         ("shape",)),
    Case("yatmath.itnet.apply", "check_finite", "no", lambda v: _apply(check_finite=v), TypeError,
         ("True or False",)),
    Case("yatmath.itnet.apply", "measure", BIG, lambda v: _big_apply("dense"), MemoryError,
         ("needs", "tiled", "lowrank", "mc"),
         "a dense 10^6 x 10^6 pair tensor: refused up front, naming the memory-free modes"),
    # ---- grad ------------------------------------------------------------------------------------
    Case("yatmath.itnet.grad", "G", G[:, :1], lambda v: _grad(G=v), ValueError, ("shape",)),
    Case("yatmath.itnet.grad", "G", np.full((N, D), np.inf), lambda v: _grad(G=v), ValueError,
         ("infinity",)),
    Case("yatmath.itnet.grad", "mode", "mc", lambda v: _grad(mode=v), ValueError, ("one of",)),
    Case("yatmath.itnet.grad", "backend", "cupy", lambda v: _grad(backend=v), ValueError,
         ("mode='tiled'",)),
    Case("yatmath.itnet.grad", "tile", -3, lambda v: _grad(tile=v, mode="tiled"), ValueError, (">= 1",)),
    Case("yatmath.itnet.grad", "op", LR, lambda v: _grad(op=v), TypeError, ("MultiHeadOperator",)),
    Case("yatmath.itnet.grad", "U", U * 1e150, lambda v: _grad(U=v), OverflowError, ("overflows",)),
    # ---- measures ---------------------------------------------------------------------------------
    Case("yatmath.itnet.Measure", "nodes", np.zeros((0, 1)), lambda v: it.Measure(v, np.zeros(0)),
         ValueError, ("at least one",), "an empty measure gave ZeroDivisionError in mode='mc'"),
    Case("yatmath.itnet.Measure", "nodes", np.array([[np.nan]]), lambda v: it.Measure(v, [1.0]),
         ValueError, ("nan",)),
    Case("yatmath.itnet.Measure", "weights", -np.ones(N), lambda v: it.Measure(NODES, v), ValueError,
         (">= 0",)),
    Case("yatmath.itnet.Measure", "weights", np.ones(N - 1), lambda v: it.Measure(NODES, v),
         ValueError, ("one entry per node",)),
    Case("yatmath.itnet.Measure", "weights", np.ones((N, 2)), lambda v: it.Measure(NODES, v),
         ValueError, ("1-D",)),
    Case("yatmath.itnet.Measure", "rule", 3, lambda v: it.Measure(NODES, np.ones(N), v), TypeError,
         ("string",)),
    Case("yatmath.itnet.Measure.integrate", "f_values", np.ones(N + 1), lambda v: MU.integrate(v),
         ValueError, ("rows",)),
    Case("yatmath.itnet.Measure.integrate", "f_values", np.array(["a"] * N),
         lambda v: MU.integrate(v), TypeError, ("dtype",)),
    Case("yatmath.itnet.discrete_uniform", "points", np.zeros((0, 2)), it.discrete_uniform,
         ValueError, ("at least one",)),
    Case("yatmath.itnet.discrete_uniform", "points", np.ones((2, 2, 2)), it.discrete_uniform,
         ValueError, ("1-D or 2-D",)),
    Case("yatmath.itnet.interval_rule", "rule", "simpson", lambda v: it.interval_rule(v, 4),
         ValueError, ("one of",)),
    Case("yatmath.itnet.interval_rule", "n", 2.5, lambda v: it.interval_rule("left", v), TypeError,
         ("integer",), "non-integer sizes are refused, not rounded"),
    Case("yatmath.itnet.interval_rule", "n", 0, lambda v: it.interval_rule("left", v), ValueError,
         (">= 1",)),
    Case("yatmath.itnet.interval_rule", "a", np.inf, lambda v: it.interval_rule("left", 4, v),
         ValueError, ("finite",)),
    Case("yatmath.itnet.interval_rule", "b", -1.0, lambda v: it.interval_rule("left", 4, 0.0, v),
         ValueError, ("a < b",)),
    Case("yatmath.itnet.interval_rule", "b", 1e308, lambda v: it.interval_rule("left", 4, -1e308, v),
         OverflowError, ("b - a",)),
    Case("yatmath.itnet.grid_rule", "shape", (3, 2.5), lambda v: it.grid_rule("left", v), TypeError,
         ("integer",)),
    Case("yatmath.itnet.grid_rule", "shape", (), lambda v: it.grid_rule("left", v), ValueError,
         ("non-empty",)),
    Case("yatmath.itnet.grid_rule", "rule", "nope", lambda v: it.grid_rule(v, 3), ValueError,
         ("one of",)),
    Case("yatmath.itnet.grid_rule", "lo", [0.0, 0.0, 0.0], lambda v: it.grid_rule("left", (2, 2), v),
         ValueError, ("length 2",)),
    Case("yatmath.itnet.grid_rule", "hi", 0.0, lambda v: it.grid_rule("left", (2, 2), 0.0, v),
         ValueError, ("> lo",)),
    Case("yatmath.itnet.grid_rule", "shape", (10 ** 8,) * 3, lambda v: it.grid_rule("left", v),
         MemoryError, ("needs",)),
    Case("yatmath.itnet.tensor_rule", "factors", (), lambda v: it.tensor_rule(*v), ValueError,
         ("at least one",)),
    Case("yatmath.itnet.tensor_rule", "factors", "x", lambda v: it.tensor_rule(MU, v), TypeError,
         ("Measure",)),
    Case("yatmath.itnet.tensor_rule", "factors", it.Measure(np.ones((2, 2)), np.ones(2)),
         lambda v: it.tensor_rule(v), ValueError, ("1-D",)),
    Case("yatmath.itnet.causal_mask", "n_q", 0, it.causal_mask, ValueError, (">= 1",)),
    Case("yatmath.itnet.causal_mask", "n_q", 3.0, it.causal_mask, TypeError, ("integer",)),
    Case("yatmath.itnet.causal_mask", "n_k", -2, lambda v: it.causal_mask(3, v), ValueError, (">= 1",)),
    Case("yatmath.itnet.causal_mask", "diag_weight", 0.3, lambda v: it.causal_mask(3, diag_weight=v),
         ValueError, ("one of",)),
    Case("yatmath.itnet.causal_mask", "q0", -1, lambda v: it.causal_mask(3, q0=v), ValueError, (">= 0",)),
    # ---- the kernel network -----------------------------------------------------------------------
    Case("yatmath.itnet.KernelMLP", "d", 2.0, lambda v: _net(d=v), TypeError, ("integer",)),
    Case("yatmath.itnet.KernelMLP", "W1", NET.W1[:, :-1], lambda v: _net(W1=v), ValueError, ("shape",)),
    Case("yatmath.itnet.KernelMLP", "W2", np.full_like(NET.W2, np.nan), lambda v: _net(W2=v),
         ValueError, ("nan",)),
    Case("yatmath.itnet.KernelMLP", "gelu", "relu", lambda v: _net(gelu=v), ValueError, ("one of",)),
    Case("yatmath.itnet.KernelMLP", "groups", ("gx", "nope"), lambda v: _net(groups=v), ValueError,
         ("one of",)),
    Case("yatmath.itnet.KernelMLP", "groups", "gx", lambda v: _net(groups=v), TypeError, ("string",)),
    Case("yatmath.itnet.KernelMLP.with_params", "p", {"W3": 1}, lambda v: NET.with_params(**v),
         TypeError, ("W3",), "an unknown parameter name"),
    Case("yatmath.itnet.KernelMLP.with_params", "p", {"b1": np.zeros(3)},
         lambda v: NET.with_params(**v), ValueError, ("b1", "shape")),
    Case("yatmath.itnet.KernelMLP.inputs", "Xq", np.zeros((3, 2)),
         lambda v: NET.inputs(v, NODES, U[:3], U), ValueError, ("s = 1",)),
    Case("yatmath.itnet.KernelMLP.inputs", "Uk", U[:, :1], lambda v: NET.inputs(NODES, NODES, U, v),
         ValueError, ("shape",)),
    Case("yatmath.itnet.KernelMLP.inputs", "Xq", np.zeros(BIG),
         lambda v: NET.inputs(v, v, np.zeros((BIG, D)), np.zeros((BIG, D))), MemoryError,
         ("needs", "tiled")),
    Case("yatmath.itnet.KernelMLP.pair_inputs", "Xk", NODES[:3],
         lambda v: NET.pair_inputs(NODES, v, U, U[:3]), ValueError, ("as many rows",)),
    Case("yatmath.itnet.KernelMLP.kernel_pairs", "Uq", NAN_U,
         lambda v: NET.kernel_pairs(NODES, NODES, v, U), ValueError, ("nan",)),
    Case("yatmath.itnet.KernelMLP.preactivation", "Uq", U[:2],
         lambda v: NET.preactivation(NODES, NODES, v, U), ValueError, ("shape",)),
    Case("yatmath.itnet.KernelMLP.hidden", "Xk", NODES.astype(complex),
         lambda v: NET.hidden(NODES, v, U, U), TypeError, ("dtype",)),
    Case("yatmath.itnet.KernelMLP.kernel", "Uk", U[:, :1], lambda v: NET.kernel(NODES, NODES, U, v),
         ValueError, ("shape",)),
    Case("yatmath.itnet.KernelMLP.query_part", "Uq", U[:2], lambda v: NET.query_part(NODES, v),
         ValueError, ("shape",)),
    Case("yatmath.itnet.KernelMLP.query_part", "sw", "split", lambda v: NET.query_part(NODES, U, v),
         TypeError, ("SplitWeights",)),
    Case("yatmath.itnet.KernelMLP.key_part", "Xk", np.zeros((N, 3)), lambda v: NET.key_part(v, U),
         ValueError, ("s = 1",)),
    Case("yatmath.itnet.KernelMLP.trig", "X", np.zeros((N, 2)), NET.trig, ValueError, ("s = 1",)),
    Case("yatmath.itnet.init_kernel_mlp", "d", 2.5, lambda v: _ikm(d=v), TypeError, ("integer",)),
    Case("yatmath.itnet.init_kernel_mlp", "n_keys", 0, lambda v: _ikm(n_keys=v), ValueError, (">= 1",)),
    Case("yatmath.itnet.init_kernel_mlp", "sigma", -1.0, lambda v: _ikm(sigma=v), ValueError, (">= 0",)),
    Case("yatmath.itnet.init_kernel_mlp", "eps_init", np.inf, lambda v: _ikm(eps_init=v), ValueError,
         ("finite",)),
    Case("yatmath.itnet.init_kernel_mlp", "eps_init", -1e-3, lambda v: _ikm(eps_init=v),
         ValueError, (">= 0",), "the scale epsilon of W2 = epsilon W~2 (003 H.3.1): a magnitude"),
    Case("yatmath.itnet.init_kernel_mlp", "L", 0, lambda v: _ikm(L=v), ValueError,
         (">= 1", "fourier groups"), "L = 0 leaves the Fourier groups gx, gy, gd empty"),
    Case("yatmath.itnet.init_kernel_mlp", "B", np.ones((0, 1)), lambda v: _ikm(B=v), ValueError,
         ("L must be >= 1",), "a B of 0 rows is L = 0"),
    Case("yatmath.itnet.init_kernel_mlp", "B", np.ones((3, 2)), lambda v: _ikm(B=v), ValueError,
         ("(L, 1)",)),
    Case("yatmath.itnet.init_kernel_mlp", "gelu", "relu", lambda v: _ikm(gelu=v), ValueError, ("one of",)),
    Case("yatmath.itnet.init_kernel_mlp", "rng", "seed", lambda v: _ikm(rng=v), TypeError, ("seed",)),
    Case("yatmath.itnet.random_kernel_mlp", "scale", -1.0,
         lambda v: it.random_kernel_mlp(2, scale=v), ValueError, (">= 0",)),
    Case("yatmath.itnet.random_kernel_mlp", "rng", -5, lambda v: it.random_kernel_mlp(2, rng=v),
         ValueError, ("non-negative",)),
    Case("yatmath.itnet.random_kernel_mlp", "width", 0, lambda v: it.random_kernel_mlp(2, width=v),
         ValueError, (">= 1",)),
    Case("yatmath.itnet.random_kernel_mlp", "L", 0, lambda v: it.random_kernel_mlp(2, L=v),
         ValueError, (">= 1", "fourier"), "no frequencies with the default groups (all seven)"),
    Case("yatmath.itnet.random_kernel_mlp", "L", -1, lambda v: it.random_kernel_mlp(2, L=v),
         ValueError, (">= 0",)),
    Case("yatmath.itnet.gelu", "kind", "nope", lambda v: it.gelu(1.0, v), ValueError, ("one of",)),
    Case("yatmath.itnet.gelu", "a", "x", it.gelu, TypeError, ("dtype",)),
    Case("yatmath.itnet.gelu_prime", "kind", "relu", lambda v: it.gelu_prime(1.0, v), ValueError,
         ("one of",)),
    Case("yatmath.itnet.gelu_prime", "a", np.array([1j]), it.gelu_prime, TypeError, ("dtype",)),
    Case("yatmath.itnet.fourier_lift", "X", np.zeros((3, 2)), lambda v: it.fourier_lift(v, NET.B),
         ValueError, ("columns",)),
    Case("yatmath.itnet.fourier_lift", "B", np.ones(3), lambda v: it.fourier_lift(NODES, v),
         ValueError, ("2-D",)),
    Case("yatmath.itnet.fourier_lift", "X", np.array([[1e308]]),
         lambda v: it.fourier_lift(v, np.array([[10.0]])), OverflowError, ("overflows",)),
    # ---- operators -----------------------------------------------------------------------------------
    Case("yatmath.itnet.ITNetOperator", "W", np.eye(3), lambda v: it.ITNetOperator(NET, v), ValueError,
         ("shape",)),
    Case("yatmath.itnet.ITNetOperator", "kernel", "net", lambda v: it.ITNetOperator(v, np.eye(D)),
         TypeError, ("KernelMLP",)),
    Case("yatmath.itnet.ITNetOperator", "causal", "yes", lambda v: it.ITNetOperator(NET, np.eye(D), v),
         TypeError, ("True or False",)),
    Case("yatmath.itnet.ITNetOperator", "diag_weight", 0.7,
         lambda v: it.ITNetOperator(NET, np.eye(D), True, v), ValueError, ("one of",)),
    Case("yatmath.itnet.MultiHeadOperator", "W_O", np.eye(3),
         lambda v: it.MultiHeadOperator([NET, NET], v, np.eye(4)), ValueError, ("shape",)),
    Case("yatmath.itnet.MultiHeadOperator", "heads", [],
         lambda v: it.MultiHeadOperator(v, np.eye(4), np.eye(4)), TypeError, ("non-empty",)),
    Case("yatmath.itnet.MultiHeadOperator", "heads", NET,
         lambda v: it.MultiHeadOperator(v, np.eye(2), np.eye(2)), TypeError, ("list",)),
    Case("yatmath.itnet.MultiHeadOperator.head_slice", "h", 2, MH.head_slice, ValueError, ("<= 1",)),
    Case("yatmath.itnet.MultiHeadOperator.head_slice", "h", 1.0, MH.head_slice, TypeError,
         ("integer",)),
    Case("yatmath.itnet.init_itnet", "d", 4.0, lambda v: _init(d=v), TypeError, ("integer",)),
    Case("yatmath.itnet.init_itnet", "heads", 3, lambda v: _init(heads=v), ValueError, ("divide",)),
    Case("yatmath.itnet.init_itnet", "heads", 0, lambda v: _init(heads=v), ValueError, (">= 1",)),
    Case("yatmath.itnet.init_itnet", "eps_init", -1, lambda v: _init(eps_init=v), ValueError,
         (">= 0",), "the scale epsilon of W2 (10^-3 in 003 H.3.1): a magnitude"),
    Case("yatmath.itnet.init_itnet", "eps_init", np.nan, lambda v: _init(eps_init=v), ValueError,
         ("finite",)),
    Case("yatmath.itnet.init_itnet", "L", 0, lambda v: _init(L=v), ValueError, (">= 1",)),
    Case("yatmath.itnet.init_itnet", "n_layers", 0, lambda v: _init(n_layers=v, heads=2), ValueError,
         (">= 1",)),
    Case("yatmath.itnet.init_itnet", "diag_weight", 2.0, lambda v: _init(diag_weight=v), ValueError,
         ("one of",)),
    Case("yatmath.itnet.init_itnet", "groups", ("nope",), lambda v: _init(groups=v), ValueError,
         ("one of",)),
    Case("yatmath.itnet.init_itnet", "rng", np.random.RandomState(0), lambda v: _init(rng=v),
         TypeError, ("Generator",)),
    Case("yatmath.itnet.init_itnet", "share_B", "yes", lambda v: _init(share_B=v), TypeError,
         ("True or False",)),
    # ---- low rank -------------------------------------------------------------------------------------
    Case("yatmath.itnet.LowRankOperator", "phi", np.ones((N, 3, D)), lambda v: _lr(phi=v), ValueError,
         ("shape",)),
    Case("yatmath.itnet.LowRankOperator", "r", 2.0, lambda v: _lr(r=v), TypeError, ("integer",)),
    Case("yatmath.itnet.LowRankOperator", "heads", 3, lambda v: _lr(heads=v), ValueError, ("divide",)),
    Case("yatmath.itnet.LowRankOperator", "W", np.eye(3), lambda v: _lr(W=v), ValueError, ("shape",)),
    Case("yatmath.itnet.LowRankOperator.factors", "Uk", U[:, :1],
         lambda v: LR.factors(NODES, NODES, U, v), ValueError, ("shape",)),
    Case("yatmath.itnet.LowRankOperator.factors", "Xq", NODES[:3],
         lambda v: LR.factors(v, NODES, U[:3], U), ValueError, ("phi", "shape"),
         "the fixed table phi has N rows, the 3 queries need 3"),
    Case("yatmath.itnet.LowRankOperator.kernel_tensor", "Uq", NAN_U,
         lambda v: LR.kernel_tensor(NODES, NODES, v, U), ValueError, ("nan",)),
    Case("yatmath.itnet.FactorMLP", "W2", np.ones((3, 4)), lambda v: _fac(W2=v), ValueError,
         ("shape",)),
    Case("yatmath.itnet.FactorMLP", "r", 0, lambda v: _fac(r=v), ValueError, (">= 1",)),
    Case("yatmath.itnet.init_factor_mlp", "r", 1.5, lambda v: it.init_factor_mlp(2, 1, v), TypeError,
         ("integer",)),
    Case("yatmath.itnet.init_factor_mlp", "rng", -1, lambda v: it.init_factor_mlp(2, 1, 2, rng=v),
         ValueError, ("non-negative",)),
    Case("yatmath.itnet.svd_factors", "r", 0, lambda v: it.svd_factors(K4, v), ValueError, (">= 1",),
         "rank=0 must be refused"),
    Case("yatmath.itnet.svd_factors", "r", 7, lambda v: it.svd_factors(K4, v), ValueError, ("<= 6",),
         "the (3*2) x (3*2) block matrix has rank <= 6"),
    Case("yatmath.itnet.svd_factors", "r", 2.0, lambda v: it.svd_factors(K4, v), TypeError, ("integer",)),
    Case("yatmath.itnet.svd_factors", "K", K4[0], lambda v: it.svd_factors(v, 1), ValueError, ("4-D",)),
    Case("yatmath.itnet.svd_factors", "K", np.full((2, 2, 1, 1), np.inf),
         lambda v: it.svd_factors(v, 1), ValueError, ("infinity",)),
    # ---- dense references -----------------------------------------------------------------------------
    Case("yatmath.itnet.kernel_tensor", "op", NET, lambda v: it.kernel_tensor(v, NODES, NODES, U, U),
         TypeError, ("ITNetOperator",)),
    Case("yatmath.itnet.kernel_tensor", "Uk", U[:3], lambda v: it.kernel_tensor(OP, NODES, NODES, U, v),
         ValueError, ("shape",)),
    Case("yatmath.itnet.kernel_tensor", "Uq", np.ones((N, 3)),
         lambda v: it.kernel_tensor(MH, NODES, NODES, v, np.ones((N, 4))), ValueError, ("shape",)),
    Case("yatmath.itnet.apply_kernel_tensor", "K", K4[0], lambda v: it.apply_kernel_tensor(v, U, MU.weights),
         ValueError, ("4-D",)),
    Case("yatmath.itnet.apply_kernel_tensor", "Uk", U, lambda v: it.apply_kernel_tensor(K4, v, np.ones(3)),
         ValueError, ("shape",)),
    Case("yatmath.itnet.apply_kernel_tensor", "omega", np.ones(2),
         lambda v: it.apply_kernel_tensor(K4, U[:3], v), ValueError, ("one weight per key",)),
    Case("yatmath.itnet.apply_kernel_tensor", "mask", np.ones((2, 3)),
         lambda v: it.apply_kernel_tensor(K4, U[:3], np.ones(3), mask=v), ValueError, ("shape",)),
    Case("yatmath.itnet.apply_kernel_tensor", "W", np.eye(3),
         lambda v: it.apply_kernel_tensor(K4, U[:3], np.ones(3), W=v), ValueError, ("shape",)),
    # ---- the Def.-1 diagnostic ---------------------------------------------------------------------------
    Case("yatmath.itnet.mixed_difference", "j", 99, lambda v: _md(j=v), ValueError, ("<= 4",),
         "an out-of-range slot gave an IndexError"),
    Case("yatmath.itnet.mixed_difference", "k", 0, lambda v: _md(k=v), ValueError, ("distinct",)),
    Case("yatmath.itnet.mixed_difference", "F", "f", lambda v: _md(F=v), TypeError, ("callable",)),
    Case("yatmath.itnet.mixed_difference", "a", np.ones(3), lambda v: _md(a=v), ValueError, ("length",)),
    Case("yatmath.itnet.mixed_difference", "U", U[:2], lambda v: _md(U=v), ValueError, ("3 rows",)),
    Case("yatmath.itnet.max_mixed_difference", "starts", 0, lambda v: _mmd(starts=v), ValueError,
         (">= 1",), "starts=0 gave an AttributeError"),
    Case("yatmath.itnet.max_mixed_difference", "starts", 2.0, lambda v: _mmd(starts=v), TypeError,
         ("integer",)),
    Case("yatmath.itnet.max_mixed_difference", "scale", 0.0, lambda v: _mmd(scale=v), ValueError,
         ("> 0",)),
    Case("yatmath.itnet.max_mixed_difference", "box", -1.0, lambda v: _mmd(box=v), ValueError, ("> 0",)),
    Case("yatmath.itnet.max_mixed_difference", "maxiter", 0, lambda v: _mmd(maxiter=v), ValueError,
         (">= 1",)),
    Case("yatmath.itnet.max_mixed_difference", "rng", -1, lambda v: _mmd(rng=v), ValueError,
         ("non-negative",)),
    Case("yatmath.itnet.max_mixed_difference", "i", -1, lambda v: _mmd(i=v), ValueError, (">= 0",)),
]
