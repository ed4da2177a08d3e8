"""The checks ``yatmath validate`` runs.  Each returns a ``SuiteResult``.

``accuracy``    every entry of the harness blocks (``yatmath.testing``) inside the exact
                interval of the condition-aware bound (layers: of s K, the scaled bound).
``gram``        symmetry |G_ij - G_ji| <= bound_ij + bound_ji on the blocks without bias, and
                positive semidefiniteness: lambda_min(G) >= -(||bound||_F + 10 n u64 ||G||_2)
                on 40 points of moderate norm (the Yat kernel is PSD: a product of the PSD
                kernels (w.x)^2 and 1/(||w-x||^2 + eps)).
``gradients``   autograd (torch) / jax.grad of L = sum G * f against the closed form
                (``yatmath.yat.grad``) with, per pair component, the bound
                16 [(d+4) u (A/D + 9|r|)(|w_k| + |r||x_k - w_k|) + u r^2 (|x_k| + |w_k|)]
                (r = N/D: the error of r propagated through 2 r w - 2 r^2 (x - w), plus the
                rounding of the separately computed 2 r^2 x and 2 r^2 w), summed with |G| and a
                (n+4) u summation term.
``attention``   parity with ``yatmath.yat.attention`` (float64) at the target's settings:
                |O_hat - O|_ik <= 2 [2 max_j dZ_ij + (Lk+4) u] max_j |V_jk| (softmax; dZ the
                score error s_att (bound_ij + 2 u S_ij)), or, for softermax (p = 1),
                2 [(sum_j dZ_ij |V_jk| + max_k|V| sum_j dZ_ij) / (delta + sum_j Z_ij) + (Lk+4) u max|V|].
``linear``      the readout against the quadratic form of the same features (float64):
                |O_hat - O| <= 2 (F + Lk + 4) u (sum_j M_ij |v_j| + |O_i| sum_j M_ij) / |den_i|,
                M_ij = sum_f |phi_f(q_i) phi_f(k_j)|; and the attention error against budget.
``unbiased``    E[phi(q).phi(k)] = K(q, k): over R independent maps, every pair's mean within
                z sd/sqrt(R) (z Bonferroni-corrected for a family-wise level 1e-3).
``budget``      RMS error of normalised kernel smoothing with the features against the exact
                Yat kernel smoothing, relative to the RMS of V, <= ``budget`` (default 0.1).
``properties``  the Yat-kernel properties of ``yatmath.testing.properties`` that apply to the
                target (its public functions, each at its own stated tolerance): product, gram
                and layer targets: ``yat_symmetric``, ``yat_gram_psd``, ``yat_self_regulation``
                (K(w, r u) -> (w.u)^2 at rate O(1/r)), ``yat_lipschitz_unit_ball``; attention
                targets (softmax, or softermax with delta = 0): ``yat_attention_rows_sum_to_one``.

What the table's numbers mean (``SuiteResult.rows``; the report's legend says the same):

``worst_ratio``  "worst err / bound": the largest error of the row divided by what the suite
                 allows there (dimensionless).  It *is* the verdict: a row has fails == 0
                 exactly when worst_ratio <= 1.  (Accuracy: an entry that fails a rule other than
                 the bound -- a negative kernel value, a finite result where the exact value
                 overflows the dtype -- counts as inf; an entry inside its interval counts at most
                 1, so the float64 evaluation of err/bound cannot contradict the exact check.)
``worst_rel_u``  "worst rel. err [u]": max |got - exact| / (u max(|exact|, floor)) with u the
                 dtype's unit roundoff, reported for the suites that compare with an exact value
                 (accuracy, attention, linear; NaN elsewhere).  The floor says from which
                 magnitude down an error is judged absolutely rather than relatively:
                 accuracy: the dtype's smallest normal number ``tiny``.  Below it, gradual
                 underflow spaces the representable numbers evenly (spacing eta = 2 u tiny), so a
                 correctly rounded subnormal result is off by up to eta / 2 = u tiny: measured
                 this way a correctly rounded result scores <= 1 everywhere, subnormal exact
                 values (and exact zeros) included, where |got - K| / (u |K|) is unbounded
                 (a correctly rounded float64 result 0 for K = 2^-1076 scores 1/u = 9.0e15
                 of them, here 0.5).  Every entry the verdict judges is
                 measured (only exact values beyond the dtype's largest finite number, judged by
                 the overflow rule, are not).
                 attention, linear: max_j |V_jk| of the output column k.  The outputs are
                 weighted averages of V's rows and the bound is a multiple of u max|V_k|, so an
                 output near 0 (softmax weights that cancel, an underflowed weight) is measured
                 on the scale its error is bounded on, not against its own tiny value.
                 The number describes, the bound decides: it grows with the condition number
                 cond = (|w||x| + |b|) / |w.x + b| (the accuracy bound allows about
                 4 (d+4) (cond+8) u), so an ill-conditioned class passes with a large value; the
                 accuracy rows carry ``worst_rel_cond``, the cond of the entry that has it.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._typing import Array
from ..testing.generators import ENTRY_CLASSES, blocks, dtype_name, numpy_dtype, unit
from ..testing.harness import AccuracyResult, KernelAccuracy, entry_errors
from ..testing.oracle import (LARGEST, SUBNORMAL, TINY, UNIT_ROUNDOFF, adapt_mode, exact,
                              kernel_bound)
from .adapters import (Calls, Framework, KernelAdapter, NotApplicable, TargetFailure,
                       call_where)

U64 = 2.0 ** -53


@dataclass
class SuiteResult:
    suite: str
    dtype: str
    passed: bool | None
    rows: list[dict[str, Any]] = field(default_factory=list)     # per input class
    worst: dict[str, Any] = field(default_factory=dict)    # the worst input, re-runnable
    note: str = ""
    points: dict[str, Any] = field(default_factory=dict, repr=False)  # cond, rel_u, ok (the plot)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # what the target did wrong (a FAIL each)

    @property
    def verdict(self) -> str:
        """PASS, FAIL, "not run" (the target was stopped before this suite) or "not applicable"
        (the suite cannot judge this target: ``reason`` says why)."""
        if self.passed is None:
            return "not run" if self.note.startswith("not run") else "not applicable"
        return "PASS" if self.passed else "FAIL"

    @property
    def reason(self) -> str:
        """Why the suite did not apply or did not run ('' for a verdict)."""
        if self.passed is not None:
            return ""
        return self.note.removeprefix("not applicable: ")

    def to_dict(self) -> dict[str, Any]:
        return dict(suite=self.suite, dtype=self.dtype, passed=self.passed,
                    verdict=self.verdict, reason=self.reason, rows=self.rows, worst=self.worst,
                    note=self.note, problems=list(self.problems), seconds=round(self.seconds, 2))


def not_applicable(suite: str, dtype: str, reason: str) -> SuiteResult:
    """The result of a suite that cannot judge this target (neither PASS nor FAIL)."""
    return SuiteResult(suite, dtype, None, note=f"not applicable: {reason}")


def _timed(fn: Callable[..., SuiteResult]) -> Callable[..., SuiteResult]:
    def run(*a: Any, **kw: Any) -> SuiteResult:
        t = time.perf_counter()
        res = fn(*a, **kw)
        res.seconds = time.perf_counter() - t
        return res
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def _rerun_line(adapter_kind: str, w: Mapping[str, Any]) -> str:
    dt = w["dtype"]
    b = "" if w.get("bias") is None else f", {w['bias']!r}, bias_mode={w['bias_mode']!r}"
    return (f"yatmath.yat.product(np.array({w['w']}, '{dt}'), np.array({w['x']}, '{dt}'), "
            f"{w['eps']!r}{b})  # exact {w['exact']}, got {w['got']!r}")


# ---------------------------------------------------------------- kernel accuracy

@_timed
def accuracy(adapter: KernelAdapter, dtype: str, *, quick: bool = False,
             progress: Callable[..., Any] | None = None) -> SuiteResult:
    name = dtype_name(dtype)
    scale = None
    if adapter.kind == "layer":
        module = adapter.module_for(2, 12) if adapter.is_module else None
        scale = adapter.scale(12, module)
    harness = KernelAccuracy(adapter.kind, adapter.gram_fn(name), modes=adapter.modes,
                             scale=scale)
    adapter.calls.inf_ok = True          # inf is right where the exact value overflows: below
    res = harness.run(name, quick=quick, progress=progress)
    problems = []
    n_inf = sum(int((np.isinf(K) & np.isfinite(ex.hi)).sum())
                for K, ex in zip(res.results, res.exact))
    if n_inf:
        problems.append(f"the target returned inf in {n_inf} of {res.checked} entries whose exact "
                        f"value is finite in {name}")
    rel, ratio = accuracy_measures(res)
    worst: dict[str, Any] = res.worst()  # type: ignore[assignment]   # every run has entries
    k = int(np.argmax(np.where(res.ok, 0.0, 1.0) * 1e300
                      + np.nan_to_num(res.ratio, posinf=1e299)))     # the entry res.worst() is
    worst["rel_err_u"] = float(rel[k])
    worst["err_over_bound"] = float(ratio[k])
    worst["rerun"] = _rerun_line(adapter.kind, worst)
    if scale is not None:
        worst["scale"] = scale
    note = f"{res.checked} entries"
    if scale is not None:
        note += f"; layer output s K with s = {scale:.17g}"
    return SuiteResult("accuracy", name, res.passed and not problems,
                       accuracy_rows(res, rel, ratio), worst, "; ".join(problems + [note]),
                       dict(cond=res.cond, rel_u=rel, ok=res.ok, classes=res.classes),
                       problems=problems)


def accuracy_measures(res: AccuracyResult
                     ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(rel, ratio) per entry of an ``AccuracyResult`` (module docstring): rel = |got - K| /
    (u max(|K|, tiny)) (NaN where K overflows the dtype), ratio = |got - K| / bound made to
    agree with the interval check (<= 1 on an accepted entry, > 1 -- inf if need be -- on a
    rejected one)."""
    name = res.dtype
    u, tiny, big = UNIT_ROUNDOFF[name], TINY[name], LARGEST[name]
    err = np.concatenate([entry_errors(K, ex)[0].ravel() for K, ex in zip(res.results, res.exact)])
    mag = np.concatenate([np.abs(ex.K_hi).ravel() for ex in res.exact])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        # divided by the floor first: u * tiny underflows to 0 in float64 (2^-1075)
        rel = np.where(mag <= big, err / np.maximum(mag, tiny) / u, np.nan)
    ratio = np.where(np.isnan(res.ratio), np.inf, res.ratio)
    ratio = np.where(res.ok, np.minimum(ratio, 1.0), np.where(ratio > 1.0, ratio, np.inf))
    return rel, ratio


def accuracy_rows(res: AccuracyResult, rel: npt.NDArray[np.float64],
                  ratio: npt.NDArray[np.float64]) -> list[dict[str, Any]]:
    """Rows {cls, entries, fails, worst_rel_u, worst_rel_cond, worst_ratio} per input class."""
    rows = []
    for cls in ENTRY_CLASSES:
        sel = res.classes == cls
        if not sel.any():
            continue
        r = np.where(sel & ~np.isnan(rel), rel, -1.0)
        k = int(np.argmax(r))
        measured = bool(r[k] >= 0)
        rows.append(dict(cls=cls, entries=int(sel.sum()), fails=int((~res.ok[sel]).sum()),
                         worst_rel_u=float(rel[k]) if measured else float("nan"),
                         worst_rel_cond=float(res.cond[k]) if measured else float("nan"),
                         worst_ratio=float(ratio[sel].max())))
    return rows


# ---------------------------------------------------------------- gram properties

def _bound64(X: npt.NDArray[np.float64], W: npt.NDArray[np.float64], eps: float, d: int, u: float,
             bias: npt.NDArray[np.float64] | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
               npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """kernel_bound evaluated in float64 for the Gram of X, W (moderate magnitudes)."""
    S = X @ W.T
    N = S if bias is None else S + bias[None, :]
    P = np.linalg.norm(X, axis=1)[:, None] * np.linalg.norm(W, axis=1)[None, :]
    A = P + (0 if bias is None else np.abs(bias)[None, :])
    D = ((X[:, None, :] - W[None, :, :]) ** 2).sum(-1) + eps
    K = N * N / D
    return K, kernel_bound(N, A, P, K, D, d, u), N, A, D


@_timed
def gram_properties(adapter: KernelAdapter, dtype: str, *, quick: bool = False,
                    progress: Callable[..., Any] | None = None) -> SuiteResult:
    name = dtype_name(dtype)
    u = UNIT_ROUNDOFF[name]
    fn = adapter.gram_fn(name)
    scale: float = 1.0
    if adapter.kind == "layer":   # a layer's scale is a number
        scale = adapter.scale(  # type: ignore[assignment]
            12, adapter.module_for(2, 12) if adapter.is_module else None)
    worst_sym, fails = 0.0, 0
    exs = exact(name, modes=(), quick=True)
    for blk, ex in zip(blocks(name, quick=True), exs):
        blk = adapt_mode(blk, ())
        if not np.isfinite(ex.hi).all():
            continue
        with np.errstate(all="ignore"):
            G = fn(blk.Z, blk.eps, None, None)
        allowed = ex.bound64 + ex.bound64.T
        with np.errstate(invalid="ignore"):
            asym = np.abs(G - G.T)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(allowed > 0, asym / allowed, np.where(asym == 0, 0.0, np.inf))
        worst_sym = max(worst_sym, float(np.nanmax(np.where(np.isnan(r), np.inf, r))))
        fails += int((~(r <= 1)).sum())
    rng = np.random.default_rng(5)
    n, d, eps = 40, 8, 1.0
    X = rng.standard_normal((n, d)) / math.sqrt(d)
    X[1] = X[0] * (1 + 1e-3)                      # a near-coincident pair: a near-zero eigenvalue
    X = X.astype(numpy_dtype(name)).astype(np.float64)
    G = fn(X, eps, None, None)
    K, bnd, *_ = _bound64(X, X, eps, d, u)
    problems = []
    nonfinite = int((~np.isfinite(G)).sum())
    if nonfinite:       # no eigenvalues of a matrix with NaN/inf: the PSD check fails as such
        problems.append(f"the target returned NaN or inf in {nonfinite} of {G.size} entries of "
                        f"the {n}-point Gram matrix (moderate inputs, every K finite): not PSD")
        tol, lam = float("nan"), float("nan")
        psd_fail, psd_ratio = True, float("inf")
    else:
        tol = scale * (float(np.linalg.norm(bnd)) + 2 * u * float(np.abs(K).max()) * n) \
            + 10 * n * U64 * float(np.linalg.norm(G, 2))
        lam = float(np.linalg.eigvalsh((G + G.T) / 2).min())
        psd_fail, psd_ratio = lam < -tol, max(0.0, -lam / tol)
    passed = fails == 0 and not psd_fail
    rows = [dict(cls="symmetry (blocks)", entries=int(sum(e.lo.size for e in exs)), fails=fails,
                 worst_rel_u=float("nan"), worst_ratio=worst_sym),
            dict(cls=f"PSD ({n} points)", entries=n, fails=int(psd_fail),
                 worst_rel_u=float("nan"), worst_ratio=psd_ratio)]
    note = (f"lambda_min = {lam:.3g} (allowed >= {-tol:.3g})" if not nonfinite else problems[0]) \
        + f"; worst asymmetry / allowed = {worst_sym:.3g}"
    return SuiteResult("gram", name, passed, rows,
                       dict(lambda_min=lam, tolerance=tol, X=X.tolist(), eps=eps), note,
                       problems=problems)


# ---------------------------------------------------------------- gradients

def _autograd(adapter: KernelAdapter, X: npt.NDArray[np.float64], W: npt.NDArray[np.float64],
              eps: float, b: npt.NDArray[np.float64] | None, G: npt.NDArray[np.float64],
              dtype: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(dL/dX, dL/dW) of L = sum(G * f(X, W)) in the adapter's framework, as float64 NumPy;
    the target's calls (forward and backward) go through ``adapter.calls``."""
    where = call_where(X=tuple(X.shape), W=tuple(W.shape), eps=float(eps)) + " under autodiff"
    return adapter.calls.run("the target", where, _autograd_raw, adapter, X, W, eps, b, G,
                             dtype, where)


def _autograd_raw(adapter: KernelAdapter, X: npt.NDArray[np.float64], W: npt.NDArray[np.float64],
                  eps: float, b: npt.NDArray[np.float64] | None, G: npt.NDArray[np.float64],
                  dtype: str,
                  where: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    fw = adapter.fw
    module = adapter.module_for(X.shape[1], W.shape[0]) if adapter.is_module else None
    shape = adapter.out_shape(X.shape[0], W.shape[0])

    def forward(Xa: Array, Wa: Array, ba: Array | None) -> Array:
        try:
            out = adapter.call_fw(Xa, Wa, eps, ba, module)
        except Exception as exc:
            reason = _autodiff_refused(fw, exc)
            if reason:
                raise NotApplicable(reason) from None
            raise
        out = adapter.calls.array("the target", where, out, shape, values=False)
        _check_traced(fw, out)
        return out

    if fw.name == "torch":
        import torch

        Xt = fw.asarray(X, dtype).requires_grad_(True)
        Wt = fw.asarray(W, dtype).requires_grad_(True)
        bt = fw.asarray(b, dtype)
        out = forward(Xt, Wt, bt)
        L = (out.to(torch.float64) * torch.from_dlpack(np.ascontiguousarray(G))).sum()
        gX, gW = torch.autograd.grad(L, (Xt, Wt), allow_unused=True)
        z = np.zeros_like
        return (z(X) if gX is None else fw.to_numpy(gX), z(W) if gW is None else fw.to_numpy(gW))
    import jax
    import jax.numpy as jnp

    Gj = jnp.asarray(G)
    bt = fw.asarray(b, dtype)

    def loss(Xj: Array, Wj: Array) -> Array:
        return (forward(Xj, Wj, bt).astype(jnp.float64) * Gj).sum()

    gX, gW = jax.grad(loss, argnums=(0, 1))(fw.asarray(X, dtype), fw.asarray(W, dtype))
    return fw.to_numpy(gX), fw.to_numpy(gW)


def _autodiff_refused(fw: Framework, exc: BaseException) -> str | None:
    """Why the framework's autodiff cannot follow the target, read from what a call of the
    target on inputs that require gradients (torch) or on tracers (JAX) raised; None when the
    exception says something else (then it is the target's failure)."""
    text = _first_line(exc)
    if fw.name == "torch" and isinstance(exc, RuntimeError) and "requires grad" in text:
        return (f"the target cannot run on tensors that require gradients ({text}): autograd "
                f"cannot differentiate it")
    if fw.name == "jax":
        import jax

        kinds = tuple(getattr(jax.errors, n) for n in (
            "TracerArrayConversionError", "ConcretizationTypeError",
            "TracerIntegerConversionError", "TracerBoolConversionError")
            if hasattr(jax.errors, n))
        if kinds and isinstance(exc, kinds):
            return (f"the target cannot be traced by JAX ({type(exc).__name__}: it converts "
                    f"traced arrays to NumPy or branches on their values): jax.grad cannot "
                    f"differentiate it")
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    text = text[0] if text else type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _check_traced(fw: Framework, out: Array) -> None:
    """NotApplicable when the target's result (on inputs that require gradients) carries no
    autodiff record: a torch tensor with requires_grad False, an array of another library."""
    if fw.name == "torch":
        import torch

        if not isinstance(out, torch.Tensor):
            raise NotApplicable(f"the target returned a {type(out).__module__.split('.')[0]} "
                                f"{type(out).__name__}, not a torch.Tensor, for inputs that "
                                f"require gradients: autograd cannot follow it")
        if not out.requires_grad:
            raise NotApplicable("the target's output does not track gradients (requires_grad "
                                "is False for inputs that require them: computed under "
                                "torch.no_grad(), detached, or through NumPy), so autograd "
                                "cannot differentiate it")
    elif fw.name == "jax":
        import jax

        tracer = getattr(jax.core, "Tracer", None)
        if tracer is not None and not isinstance(out, tracer):
            raise NotApplicable(f"the target returned a {type(out).__module__.split('.')[0]} "
                                f"{type(out).__name__} computed outside JAX's tracing: "
                                f"jax.grad cannot follow it")


@_timed
def gradients(adapter: KernelAdapter, dtype: str, *, quick: bool = False,
              progress: Callable[..., Any] | None = None) -> SuiteResult:
    name = dtype_name(dtype)
    if not adapter.fw.differentiable:
        return not_applicable("gradients", name, f"framework {adapter.fw.name} has no automatic "
                              f"differentiation (--framework torch or jax checks the gradients "
                              f"of a target written for them)")
    try:
        return _gradients(adapter, name, quick)
    except NotApplicable as exc:
        return not_applicable("gradients", name, str(exc))


def _gradients(adapter: KernelAdapter, name: str, quick: bool) -> SuiteResult:
    from ..yat.grad import grad as closed_form

    u = UNIT_ROUNDOFF[name]
    hi = 1e30 if name == "float64" else 1e4
    lo_ = 1e-30 if name == "float64" else 1e-4
    e_lo, e_hi = (1e-30, 1e30) if name == "float64" else (1e-12, 1e12)
    rng = np.random.default_rng(11)
    rows = {c: [0, 0, 0.0] for c in ENTRY_CLASSES}
    worst, worst_ratio, checked = {}, -1.0, 0
    for blk in blocks(name, quick=quick):
        blk = adapt_mode(blk, adapter.modes)
        Z = blk.Z.astype(np.float64)
        nz = np.linalg.norm(Z, axis=1)
        if nz.max() > hi or nz[nz > 0].min() < lo_ or not e_lo <= blk.eps <= e_hi:
            continue
        if blk.bias is not None and np.abs(blk.bias.astype(np.float64)).max() > 1e3 * hi ** 2:
            continue
        m, d = Z.shape
        if adapter.kind == "product":
            X, W = np.repeat(Z, m, axis=0), np.tile(Z, (m, 1))
            b = None if blk.bias is None else np.tile(blk.bias.astype(np.float64), m)
            G = rng.standard_normal(m * m)
            g = closed_form(W, X, blk.eps, b, bias_mode=blk.mode or "inner")
            Gw = G[:, None]
            ref_x, ref_w = Gw * g.x, Gw * g.w
            parts = (X[:, None, :], W[:, None, :], None if b is None else b[:, None], Gw[:, :, None])
            s: float = 1.0
        else:
            X = W = Z
            b = None if blk.bias is None else blk.bias.astype(np.float64)
            G = rng.standard_normal((m, m))
            g = closed_form(W[None, :, :], X[:, None, :], blk.eps,
                            None if b is None else b[None, :], bias_mode=blk.mode or "inner")
            s = 1.0 if adapter.kind != "layer" else adapter.scale(  # type: ignore[assignment]
                m, adapter.module_for(d, m) if adapter.is_module else None)
            ref_x = s * np.einsum("ij,ijk->ik", G, g.x)
            ref_w = s * np.einsum("ij,ijk->jk", G, g.w)
            parts = (X[:, None, :], W[None, :, :], None if b is None else b[None, :],
                     s * G[:, :, None])
        Xp, Wp, bp, Gp = parts
        N = (Xp * Wp).sum(-1) + (0 if (bp is None or blk.mode != "inner") else bp)
        P = np.linalg.norm(Xp, axis=-1) * np.linalg.norm(Wp, axis=-1)
        A = P + (np.abs(bp) if (bp is not None and blk.mode == "inner") else 0)
        D = ((Xp - Wp) ** 2).sum(-1) + blk.eps
        r = (N / D)[..., None]
        er = (d + 4) * u * (A / D)[..., None] + 9 * (d + 4) * u * np.abs(r)
        diff = np.abs(Xp - Wp)
        gbx = 16 * (er * (np.abs(Wp) + np.abs(r) * diff) + u * r * r * (np.abs(Xp) + np.abs(Wp)))
        gbw = 16 * (er * (np.abs(Xp) + np.abs(r) * diff) + u * r * r * (np.abs(Xp) + np.abs(Wp)))
        magx = np.abs(2 * r * Wp) + 2 * r * r * (np.abs(Xp) + np.abs(Wp))
        magw = np.abs(2 * r * Xp) + 2 * r * r * (np.abs(Xp) + np.abs(Wp))
        n_sum = m + 4
        if adapter.kind == "product":
            bx = (np.abs(Gp) * (gbx + n_sum * u * magx))[:, 0, :]
            bw = (np.abs(Gp) * (gbw + n_sum * u * magw))[:, 0, :]
        else:
            bx = (np.abs(Gp) * (gbx + n_sum * u * magx)).sum(1)
            bw = (np.abs(Gp) * (gbw + n_sum * u * magw)).sum(0)
        bx += 4 * n_sum * SUBNORMAL[name] * (1 + np.abs(ref_x))
        bw += 4 * n_sum * SUBNORMAL[name] * (1 + np.abs(ref_w))
        with np.errstate(all="ignore"):
            got_x, got_w = _autograd(adapter, X, W, blk.eps, b, G, name)
            rx = np.abs(got_x - ref_x) / bx
            rw = np.abs(got_w - ref_w) / bw
        rx, rw = np.where(np.isnan(rx), np.inf, rx), np.where(np.isnan(rw), np.inf, rw)
        if not (np.isfinite(ref_x).all() and np.isfinite(ref_w).all()):
            continue
        checked += rx.size + rw.size
        # class of a row: the kind of its constructed pair (rows of product: the Gram entry)
        cls_rows = (blk.entry_classes().ravel() if adapter.kind == "product"
                    else np.array([blk.kinds[i % (m // 2)] for i in range(m)]))
        for arr, which, ref, got in ((rx, "X", ref_x, got_x), (rw, "W", ref_w, got_w)):
            per_row = arr.max(axis=1)
            for i, c in enumerate(cls_rows):
                row = rows[c]
                row[0] += 1
                row[1] += int(per_row[i] > 1)
                row[2] = max(row[2], float(per_row[i]))
            k = int(np.argmax(per_row))
            if per_row[k] > worst_ratio:
                worst_ratio = float(per_row[k])
                kk = int(np.argmax(arr[k]))
                worst = dict(block=repr(blk), wrt=which, row=k, component=kk, dtype=name,
                             got=float(got[k, kk]), closed_form=float(ref[k, kk]),
                             bound=float((bx if which == "X" else bw)[k, kk]),
                             Z=Z.tolist(), eps=blk.eps,
                             bias=None if b is None else b.tolist(), bias_mode=blk.mode)
    out_rows = [dict(cls=c, entries=v[0], fails=v[1], worst_rel_u=float("nan"), worst_ratio=v[2])
                for c, v in rows.items() if v[0]]
    passed = all(r["fails"] == 0 for r in out_rows) and checked > 0
    return SuiteResult("gradients", name, passed, out_rows, worst,
                       f"{checked} gradient components (autodiff of {adapter.fw.name})")


# ---------------------------------------------------------------- attention

def attention_cases(dtype: str, quick: bool = False) -> list[dict[str, Any]]:
    """Seeded (Q, K, V, eps, mask, cls) cases: generic at three magnitudes, keys near-coincident
    with queries (delta 1e-2..1e-6), keys orthogonal to the queries, a random mask with one fully
    masked row, causal; eps from 1e-5 to 1e2."""
    rng = np.random.default_rng(17)
    dt = numpy_dtype(dtype)
    L, d = 8, 16
    out: list[tuple[str, Any, Any, float, Any]] = []
    eps_list = (1e-5, 1e-2, 1.0) if quick else (1e-5, 1e-2, 1.0, 1e2)
    for eps in eps_list:
        for mag in (0.3, 1.0, 3.0):
            Q = rng.standard_normal((L, d)) * mag / math.sqrt(d) * 2
            K = rng.standard_normal((L, d)) * mag / math.sqrt(d) * 2
            out.append(("generic", Q, K, eps, None))
        Q = np.array([unit(rng, d) for _ in range(L)])
        for delta in (1e-2, 1e-4, 1e-6):
            K = Q[rng.permutation(L)] * (1 + delta * rng.standard_normal((L, 1)))
            out.append(("near_coincident", Q, K, eps, None))
        Kort = np.zeros((L, d))
        Qh, Kort[:, d // 2:] = np.zeros((L, d)), rng.standard_normal((L, d // 2))
        Qh[:, : d // 2] = rng.standard_normal((L, d // 2))
        out.append(("orthogonal", Qh, Kort, eps, None))
        mask = rng.random((L, L)) < 0.6
        mask[2] = False
        out.append(("masked", rng.standard_normal((L, d)), rng.standard_normal((L, d)), eps, mask))
        out.append(("causal", rng.standard_normal((L, d)), rng.standard_normal((L, d)), eps,
                    np.tril(np.ones((L, L), bool))))
    cases = []
    for cls, Q, K, eps, mask in out:
        V = rng.standard_normal((L, 4))
        cases.append(dict(cls=cls, Q=Q.astype(dt).astype(np.float64),
                          K=K.astype(dt).astype(np.float64), V=V.astype(dt).astype(np.float64),
                          eps=eps, mask=mask))
    return cases


def _call_attention(target: Callable[..., Any], fw: Framework, opts: Mapping[str, Any],
                    Q: npt.NDArray[np.float64], K: npt.NDArray[np.float64],
                    V: npt.NDArray[np.float64], eps: float, mask: npt.ArrayLike | None, dtype: str,
                    calls: Calls | None = None) -> npt.NDArray[np.float64]:
    calls = calls or Calls(fw)
    layout = opts.get("layout", "ld")
    args = [fw.asarray(a, dtype) for a in (Q, K, V)]
    m = None if mask is None else np.array(mask, copy=True)
    if layout == "bqhd":
        args = [a[None, :, None, :] for a in args]
        m = None if m is None else m[None, None]
    elif layout != "ld":
        raise ValueError(f"layout must be 'ld' or 'bqhd', got {layout!r}")
    kw = dict(opts.get("call", {}))
    kw[opts.get("eps_arg", "eps")] = float(eps)
    inputs = list(zip("QKV", args))
    if m is not None:
        if fw.name == "numpy":
            inputs.append(("mask", m))
        else:
            m = fw.mod.asarray(m)
        kw[opts.get("mask_arg", "mask")] = m
    if opts.get("normalize_arg") and opts.get("normalize"):
        kw[opts["normalize_arg"]] = opts["normalize"]
    facts = dict(Q=tuple(args[0].shape), K=tuple(args[1].shape), V=tuple(args[2].shape),
                 eps=float(eps))
    if m is not None:
        facts["mask"] = f"of shape {tuple(m.shape)}"
    where = call_where(**facts)
    out = calls.run("the target", where, target, *args, inputs=inputs, **kw)
    L, dv = Q.shape[0], V.shape[1]
    got = calls.array("the target", where, out, (1, L, 1, dv) if layout == "bqhd" else (L, dv))
    return got[0, :, 0, :] if layout == "bqhd" else got


@_timed
def attention(target: Callable[..., Any], fw: Framework, opts: Mapping[str, Any], dtype: str, *,
              quick: bool = False, progress: Callable[..., Any] | None = None,
              calls: Calls | None = None) -> SuiteResult:
    from ..yat.attention import attention as reference
    from .adapters import score_scale

    name = dtype_name(dtype)
    u = UNIT_ROUNDOFF[name]
    normalize = opts.get("normalize", "softmax")
    delta = float(opts.get("delta", 0.0))
    rows: dict[str, list[Any]]
    rows, worst, worst_ratio = {}, {}, -1.0
    cases = attention_cases(name, quick)
    for ci, c in enumerate(cases):
        Q, K, V, eps, mask = c["Q"], c["K"], c["V"], c["eps"], c["mask"]
        d, Lk = Q.shape[1], K.shape[0]
        s_att = score_scale(opts.get("score_scale", 1.0), d)
        O_ref: Array = reference(Q, K, V, eps, normalize=normalize, scale=s_att, mask=mask,
                                 delta=delta, backend="numpy")
        with np.errstate(all="ignore"):
            got = _call_attention(fw_target(opts), fw, opts, Q, K, V, eps, mask, name, calls)
        S, bnd, *_ = _bound64(Q, K, eps, d, u)
        dZ = s_att * (bnd + 2 * u * S)
        allowed = np.ones(S.shape, bool) if mask is None else mask
        dZ = np.where(allowed, dZ, 0.0)
        vmax = np.abs(V).max(axis=0)[None, :]
        if normalize == "softmax":
            bound = 2 * (2 * dZ.max(axis=1, keepdims=True) + (Lk + 4) * u) * vmax
        else:
            Zs = np.where(allowed, s_att * S, 0.0)
            den = delta + Zs.sum(1, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                bound = 2 * ((dZ @ np.abs(V) + vmax * dZ.sum(1, keepdims=True)) / den
                             + (Lk + 4) * u * vmax)
            bound = np.where(np.isfinite(bound), bound, np.inf)
        bound = bound + 1e-300
        with np.errstate(invalid="ignore"):
            ratio = np.abs(got - O_ref) / bound
        ratio = np.where(np.isnan(ratio), np.inf, ratio)
        row = rows.setdefault(c["cls"], [0, 0, 0.0, 0.0])
        row[0] += ratio.size
        row[1] += int((ratio > 1).sum())
        row[2] = max(row[2], float(ratio.max()))
        rel = _rel_to_v(got, O_ref, V, u)
        row[3] = max(row[3], float(np.where(np.isnan(rel), np.inf, rel).max()))
        if ratio.max() > worst_ratio:
            worst_ratio = float(ratio.max())
            i, k = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            worst = dict(cls=c["cls"], dtype=name, eps=eps, query=int(i), column=int(k),
                         got=float(got[i, k]), reference=float(O_ref[i, k]),
                         bound=float(bound[i, k]), Q=Q.tolist(), K=K.tolist(), V=V.tolist(),
                         mask=None if mask is None else mask.tolist(), score_scale=s_att)
        if progress is not None:
            progress(ci + 1, len(cases))
    out_rows = [dict(cls=k, entries=v[0], fails=v[1], worst_rel_u=v[3], worst_ratio=v[2])
                for k, v in rows.items()]
    passed = all(r["fails"] == 0 for r in out_rows)
    return SuiteResult("attention", name, passed, out_rows, worst,
                       f"parity with yatmath.yat.attention (float64), normalize={normalize}")


def fw_target(opts: Mapping[str, Any]) -> Any:
    return opts["_target"]


def _rel_to_v(got: npt.NDArray[np.float64], ref: npt.NDArray[np.float64],
              V: npt.NDArray[np.float64], u: float) -> npt.NDArray[np.float64]:
    """|got - ref| / (u max(|ref|, max_j |V_jk|)) per output entry (column k): the error on the
    scale of the output column (module docstring)."""
    vmax = np.abs(V).max(axis=0)[None, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scale = np.maximum(np.abs(ref), vmax)
        return np.where(scale > 0, np.abs(got - ref) / scale / u,
                        np.where(got == ref, 0.0, np.inf))


# ---------------------------------------------------------------- feature maps

def _sphere_pairs(rng: np.random.Generator,
                  d: int) -> list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """(cls, q, k) unit pairs: generic, coincident, near-coincident, orthogonal, antiparallel."""
    out = []
    for _ in range(3):
        out.append(("generic", unit(rng, d), unit(rng, d)))
    q = unit(rng, d)
    out.append(("coincident", q, q.copy()))
    k = q + 1e-3 * unit(rng, d)
    out.append(("near_coincident", q, k / np.linalg.norm(k)))
    from ..testing.generators import perp

    out.append(("orthogonal", q, perp(rng, q)))
    out.append(("antiparallel", q, -q))
    return out


def _make_phi(factory: Callable[..., Any], calls: Calls, d: int, F: int, eps: float, bias: float,
              seed: int) -> Callable[..., Any]:
    """phi = factory(d, F, eps=, bias=, seed=), through ``calls``; it must be callable."""
    where = call_where(d=d, F=F, eps=float(eps), bias=float(bias), seed=seed)
    phi = calls.run("the feature factory", where, factory, d, F, eps=eps, bias=bias, seed=seed)
    if not callable(phi):
        raise TargetFailure(f"the feature factory returned {type(phi).__name__}, not a feature "
                            f"map phi(X) -> (n, F) (in its {where})")
    return phi


def _phi_numpy(phi: Callable[..., Any], fw: Framework, X: npt.NDArray[np.float64], dtype: str,
               calls: Calls | None = None) -> npt.NDArray[np.float64]:
    calls = calls or Calls(fw)
    Xf = fw.asarray(X, dtype)
    where = call_where(X=tuple(X.shape))
    out = calls.run("the feature map", where, phi, Xf, inputs=(("X", Xf),))
    return calls.array("the feature map", where, out, (X.shape[0], None))


def _feature_pair(phi: Callable[..., Any], fw: Framework, A: npt.NDArray[np.float64],
                  B: npt.NDArray[np.float64], dtype: str,
                  calls: Calls) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    Pa, Pb = _phi_numpy(phi, fw, A, dtype, calls), _phi_numpy(phi, fw, B, dtype, calls)
    if Pa.shape[1] != Pb.shape[1]:
        raise TargetFailure(f"the feature map returned {Pa.shape[1]} features for one input and "
                            f"{Pb.shape[1]} for another (shapes {Pa.shape} and {Pb.shape})")
    return Pa, Pb


@_timed
def unbiased(factory: Callable[..., Any], fw: Framework, opts: Mapping[str, Any], dtype: str, *,
             quick: bool = False, progress: Callable[..., Any] | None = None,
             calls: Calls | None = None) -> SuiteResult:
    from scipy.stats import norm

    from ..yat.kernel import product

    name = dtype_name(dtype)
    d, F = int(opts.get("d", 8)), int(opts.get("num_features", 64))
    eps, bias = float(opts.get("eps", 1.0)), float(opts.get("bias_value", 1.0))
    R = int(opts.get("replicates", 100 if quick else 300))
    rng = np.random.default_rng(23)
    pairs = _sphere_pairs(rng, d)
    Qm = np.array([p[1] for p in pairs])
    Km = np.array([p[2] for p in pairs])
    Kex = product(Qm, Km, eps, bias, backend="numpy")
    calls = calls or Calls(fw)
    est = np.empty((R, len(pairs)))
    for r in range(R):
        phi = _make_phi(factory, calls, d, F, eps, bias, 1000 + r)
        Pq, Pk = _feature_pair(phi, fw, Qm, Km, name, calls)
        with np.errstate(all="ignore"):
            est[r] = (Pq * Pk).sum(1)
        if progress is not None and (r + 1) % 25 == 0:
            progress(r + 1, R)
    z = float(norm.ppf(1 - 1e-3 / (2 * len(pairs))))
    with np.errstate(all="ignore"):
        mean, sd = est.mean(0), est.std(0, ddof=1)
    half = z * sd / math.sqrt(R) + 64 * UNIT_ROUNDOFF[name] * F * (np.abs(Kex) + 1)
    tstat = (mean - Kex) / np.maximum(half / z, 1e-300)
    ok = np.abs(mean - Kex) <= half
    with np.errstate(all="ignore"):
        ratio = np.where(ok, np.abs(mean - Kex) / half, np.inf)
    rows = [dict(cls=c, entries=R, fails=int(not ok[i]), worst_rel_u=float("nan"),
                 worst_ratio=float(ratio[i]),
                 mean=float(mean[i]), exact=float(Kex[i]), ci=float(half[i]))
            for i, (c, _, _) in enumerate(pairs)]
    k = int(np.argmax(np.where(np.isnan(tstat), np.inf, np.abs(tstat))))
    worst = dict(cls=pairs[k][0], q=Qm[k].tolist(), k=Km[k].tolist(), eps=eps, bias=bias,
                 mean=float(mean[k]), exact=float(Kex[k]), halfwidth=float(half[k]),
                 t=float(tstat[k]), replicates=R, num_features=F)
    return SuiteResult("unbiased", name, bool(ok.all()), rows, worst,
                       f"{R} maps of {F} features; CI half-width z sd/sqrt(R), z = {z:.2f} "
                       f"(family-wise 1e-3)")


def _smoothing_inputs(dtype: str, L: int = 64, d: int = 8
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    rng = np.random.default_rng(29)
    dt = numpy_dtype(dtype)
    Q = np.array([unit(rng, d) for _ in range(L)]).astype(dt).astype(np.float64)
    K = np.array([unit(rng, d) for _ in range(L)]).astype(dt).astype(np.float64)
    V = rng.standard_normal((L, 4)).astype(dt).astype(np.float64)
    return Q, K, V


@_timed
def budget(factory: Callable[..., Any], fw: Framework, opts: Mapping[str, Any], dtype: str, *,
           quick: bool = False, progress: Callable[..., Any] | None = None,
           linear: Callable[..., Any] | None = None, calls: Calls | None = None) -> SuiteResult:
    """Relative RMS error of normalised kernel smoothing with the features (or ``linear``, a
    linear-attention target) against the exact Yat kernel smoothing."""
    from ..yat.kernel import gram

    name = dtype_name(dtype)
    Q, K, V = _smoothing_inputs(name)
    d = Q.shape[1]
    eps, bias = float(opts.get("eps", 1.0)), float(opts.get("bias_value", 1.0))
    F = int(opts.get("budget_features", 256))
    limit = float(opts.get("budget", 0.1))
    Kx = gram(Q, K, eps, bias, backend="numpy")
    O_ex = (Kx @ V) / Kx.sum(1, keepdims=True)
    calls = calls or Calls(fw)
    errs = []
    for seed in range(3 if quick else 5):
        phi = _make_phi(factory, calls, d, F, eps, bias, seed)
        with np.errstate(all="ignore"):
            if linear is not None:
                O = _call_linear(linear, fw, Q, K, V, _fw_phi(phi, fw, name, calls), name, calls)
            else:
                Pq, Pk = _feature_pair(phi, fw, Q, K, name, calls)
                Kh = Pq @ Pk.T
                O = (Kh @ V) / Kh.sum(1, keepdims=True)
            e = float(np.sqrt(np.mean((O - O_ex) ** 2)) / np.sqrt(np.mean(V ** 2)))
        errs.append(e if not math.isnan(e) else math.inf)
    err = float(np.median(errs))
    row = dict(cls=f"L={Q.shape[0]}, d={d}, F={F}", entries=len(errs), fails=int(err > limit),
               worst_rel_u=float("nan"), worst_ratio=err / limit, median_error=err,
               budget=limit, errors=errs)
    return SuiteResult("budget", name, err <= limit, [row],
                       dict(eps=eps, bias=bias, num_features=F, errors=errs),
                       f"median RMS attention error / RMS(V) {err:.3g} (budget {limit:g})")


def _call_linear(target: Callable[..., Any], fw: Framework, Q: npt.NDArray[np.float64],
                 K: npt.NDArray[np.float64], V: npt.NDArray[np.float64],
                 phi_fw: Callable[[Array], Array], dtype: str,
                 calls: Calls) -> npt.NDArray[np.float64]:
    """O = target(Q, K, V, phi) through ``calls``: (L, dv) float64 NumPy."""
    args = [fw.asarray(a, dtype) for a in (Q, K, V)]
    where = call_where(Q=tuple(Q.shape), K=tuple(K.shape), V=tuple(V.shape))
    out = calls.run("the target", where, target, *args, phi_fw, inputs=list(zip("QKV", args)))
    return calls.array("the target", where, out, (Q.shape[0], V.shape[1]))


def _fw_phi(phi: Callable[..., Any], fw: Framework, dtype: str,
            calls: Calls | None = None) -> Callable[[Array], Array]:
    """phi taking and returning framework arrays (feature maps built on NumPy convert); its
    calls (by the target) go through ``calls``."""
    calls = calls or Calls(fw)

    def run(X: Array) -> Array:
        where = call_where(X=tuple(int(s) for s in X.shape))
        if fw.name != "numpy" and not hasattr(phi, "d"):
            out = calls.run("the feature map", where, phi, X)
            calls.array("the feature map", where, out, (X.shape[0], None))
            return out
        out = calls.run("the feature map", where, phi, fw.to_numpy(X))
        return fw.asarray(calls.array("the feature map", where, out, (X.shape[0], None)), dtype)
    return run


@_timed
def linear_readout(target: Callable[..., Any], factory: Callable[..., Any], fw: Framework,
                   opts: Mapping[str, Any], dtype: str, *, quick: bool = False,
                   progress: Callable[..., Any] | None = None,
                   calls: Calls | None = None) -> SuiteResult:
    """The readout of a linear-attention target against the quadratic form of the same phi."""
    name = dtype_name(dtype)
    u = UNIT_ROUNDOFF[name]
    Q, K, V = _smoothing_inputs(name)
    d = Q.shape[1]
    eps, bias = float(opts.get("eps", 1.0)), float(opts.get("bias_value", 1.0))
    F = int(opts.get("budget_features", 256))
    calls = calls or Calls(fw)
    phi = _make_phi(factory, calls, d, F, eps, bias, 0)
    phi_fw = _fw_phi(phi, fw, name, calls)
    Pq = fw.to_numpy(phi_fw(fw.asarray(Q, name)))
    Pk = fw.to_numpy(phi_fw(fw.asarray(K, name)))
    if Pq.shape[1] != Pk.shape[1]:
        raise TargetFailure(f"the feature map returned {Pq.shape[1]} features for the queries "
                            f"and {Pk.shape[1]} for the keys")
    with np.errstate(all="ignore"):
        Kh = Pq @ Pk.T
        den = Kh.sum(1, keepdims=True)
        O_ref = (Kh @ V) / den
    got = _call_linear(target, fw, Q, K, V, phi_fw, name, calls)
    M = np.abs(Pq) @ np.abs(Pk).T
    Lk = K.shape[0]
    with np.errstate(all="ignore"):
        bound = 2 * (F + Lk + 4) * u * (M @ np.abs(V) + np.abs(O_ref) * M.sum(1, keepdims=True)) \
            / np.abs(den)
        ratio = np.abs(got - O_ref) / bound
        ratio = np.where(np.isnan(ratio), np.inf, ratio)
    rel = _rel_to_v(got, O_ref, V, u)
    i, k = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    row = dict(cls="readout", entries=int(ratio.size), fails=int((ratio > 1).sum()),
               worst_rel_u=float(np.where(np.isnan(rel), np.inf, rel).max()),
               worst_ratio=float(ratio.max()))
    return SuiteResult("linear", name, bool((ratio <= 1).all()), [row],
                       dict(query=int(i), column=int(k), got=float(got[i, k]),
                            reference=float(O_ref[i, k]), bound=float(bound[i, k]),
                            num_features=F, eps=eps, bias=bias),
                       "readout against the quadratic form of the same features (float64)")


# ---------------------------------------------------------------- properties

_NUMPY_DTYPES = ("float32", "float64")


def _property_line(exc: BaseException) -> str:
    """A property's AssertionError ('[name] detail\\n  source: ...\\n  tolerance: ... = t') as
    one line: its first line and the tolerance value it was judged at."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    tol = [ln.strip() for ln in lines[1:] if ln.strip().startswith("tolerance:")]
    value = tol[0].rpartition(" = ")[2] if tol and " = " in tol[0] else ""
    return lines[0] + (f" (allowed {value})" if value else "")


def _run_properties(name: str, cases: Sequence[tuple[str, str, Callable[..., object]]],
                    progress: Callable[..., Any] | None = None) -> SuiteResult:
    """Run ``cases`` [(property, description, thunk)]: one row per property; a property's
    AssertionError is a failure of the target (a FAIL line naming the property); a
    TargetFailure (the target raised, returned the wrong shape, ...) too, and it ends the
    suite (the cases after it would say the same)."""
    rows: dict[str, dict[str, Any]]
    rows, problems, details = {}, [], []
    stopped = ""
    for i, (prop_name, what, thunk) in enumerate(cases):
        row = rows.setdefault(prop_name, dict(cls=prop_name, entries=0, fails=0,
                                              worst_rel_u=float("nan"),
                                              worst_ratio=float("nan")))
        row["entries"] += 1
        try:
            with np.errstate(all="ignore"):
                thunk()
        except AssertionError as exc:
            row["fails"] += 1
            problems.append(f"{_property_line(exc)} [{what}]")
            details.append(dict(property=prop_name, case=what, message=str(exc)))
        except TargetFailure as exc:
            row["fails"] += 1
            problems.append(f"[{prop_name}] {exc} [{what}]")
            details.append(dict(property=prop_name, case=what, message=str(exc)))
            stopped = (f"; stopped after {i + 1} of {len(cases)} checks: the target failed "
                       f"in {prop_name}")
            break
        if progress is not None:
            progress(i + 1, len(cases))
    out = list(rows.values())
    worst = dict(failed=details) if details else {}
    checks = sum(r["entries"] for r in out)
    note = (f"{checks} checks of {len(out)} properties of yatmath.testing.properties, each at "
            f"its own tolerance{stopped}")
    return SuiteResult("properties", name, not problems, out, worst, note, problems=problems)


@_timed
def kernel_properties(adapter: KernelAdapter, dtype: str, *, quick: bool = False,
                      progress: Callable[..., Any] | None = None) -> SuiteResult:
    """The Yat-kernel properties of ``yatmath.testing.properties`` on a product, gram or layer
    target (without bias: the properties are stated for K itself)."""
    from ..testing.properties import (yat_gram_psd, yat_lipschitz_unit_ball,
                                      yat_self_regulation, yat_symmetric)

    name = dtype_name(dtype)
    if name not in _NUMPY_DTYPES:
        return not_applicable("properties", name, "the property checks judge float32 and "
                              "float64 results (their tolerances take a NumPy dtype)")
    npdt = numpy_dtype(name)

    # the properties' gram(X, eps) -> (n, n)
    def gram(X: npt.NDArray[Any], eps: float) -> npt.NDArray[Any]:
        return adapter.kernel_matrix(X, X, eps, name).astype(npdt)

    # product(w, X, eps) -> (m,): K(w, X_i)
    def product(w: npt.ArrayLike, X: npt.ArrayLike, eps: float) -> npt.NDArray[Any]:
        X2 = np.atleast_2d(np.asarray(X, np.float64))
        w2 = np.atleast_2d(np.asarray(w, np.float64))
        return adapter.kernel_matrix(X2, w2, eps, name)[:, 0].astype(npdt)

    rng = np.random.default_rng(31)
    d = 8
    sets = []
    X = rng.standard_normal((16, d)) / math.sqrt(d)
    sets.append(("16 points of norm ~1, eps=1", X, 1.0))
    Y = X[:12] * (10.0 ** np.repeat(np.arange(-2, 4), 2))[:, None]
    Y[1] = Y[0] * (1 + 1e-3)
    sets.append(("12 points of norms 1e-2..1e3 with a near-coincident pair, eps=1e-2", Y, 1e-2))
    cases: list[tuple[str, str, Callable[..., object]]] = []
    for what, P, eps in sets:
        P = P.astype(npdt)
        cases.append(("yat.symmetric", what, lambda P=P, eps=eps: yat_symmetric(gram, P, eps)))
        cases.append(("yat.gram_psd", what, lambda P=P, eps=eps: yat_gram_psd(gram, P, eps)))
    for k, eps in enumerate((1.0, 1e-3) if quick else (1.0, 1e-3, 1e2)):
        w = (rng.standard_normal(d) / math.sqrt(d)).astype(npdt)
        u = unit(rng, d).astype(npdt)
        cases.append(("yat.self_regulation", f"w of norm {np.linalg.norm(w):.2g}, eps={eps:g}",
                      lambda w=w, u=u, eps=eps: yat_self_regulation(product, w, u, eps,
                                                                    dtype=npdt)))
    for eps in (1.0, 0.25):
        w = unit(rng, d) * 0.9
        x = np.array([unit(rng, d) * r for r in np.linspace(0.1, 0.95, 8)])
        y = x + 1e-3 * rng.standard_normal(x.shape)
        y /= np.maximum(1.0, np.linalg.norm(y, axis=1, keepdims=True) / 0.999)
        cases.append(("yat.lipschitz_unit_ball", f"8 pairs in the unit ball, eps={eps:g}",
                      lambda w=w.astype(npdt), x=x.astype(npdt), y=y.astype(npdt), eps=eps:
                      yat_lipschitz_unit_ball(product, w, x, y, eps, dtype=npdt)))
    return _run_properties(name, cases, progress)


@_timed
def attention_properties(target: Callable[..., Any], fw: Framework, opts: Mapping[str, Any],
                         dtype: str, *, quick: bool = False,
                         progress: Callable[..., Any] | None = None,
                         calls: Calls | None = None) -> SuiteResult:
    """``yat_attention_rows_sum_to_one`` on an attention target: with V = I its output is the
    attention matrix, whose rows are probability vectors over the allowed keys."""
    from ..testing.properties import yat_attention_rows_sum_to_one

    name = dtype_name(dtype)
    normalize = opts.get("normalize", "softmax")
    delta = float(opts.get("delta", 0.0))
    if name not in _NUMPY_DTYPES:
        return not_applicable("properties", name, "the property checks judge float32 and "
                              "float64 results (their tolerances take a NumPy dtype)")
    if normalize != "softmax" and delta != 0:
        return not_applicable("properties", name, f"rows sum to 1 only for softmax or softermax "
                              f"with delta = 0 (normalize={normalize}, delta={delta:g})")
    npdt = numpy_dtype(name)
    calls = calls or Calls(fw)

    def attention(Q: npt.NDArray[Any], K: npt.NDArray[Any], V: npt.NDArray[Any], eps: float,
                  causal: bool = False, mask: npt.ArrayLike | None = None) -> npt.NDArray[Any]:
        Lq, Lk = Q.shape[-2], K.shape[-2]
        m = None if mask is None else np.broadcast_to(np.asarray(mask, bool), (Lq, Lk)).copy()
        if causal:
            tri = np.tril(np.ones((Lq, Lk), bool))
            m = tri if m is None else m & tri
        out = _call_attention(target, fw, opts, np.asarray(Q, np.float64),
                              np.asarray(K, np.float64), np.asarray(V, np.float64), eps, m, name,
                              calls)
        return out.astype(npdt)

    rng = np.random.default_rng(37)
    L, d = 8, 16
    cases = []
    for eps in (1.0, 1e-2):
        Q = (rng.standard_normal((L, d)) / 2).astype(npdt)
        K = (rng.standard_normal((L, d)) / 2).astype(npdt)
        mask = rng.random((L, L)) < 0.6
        mask[3] = False                      # a row with no allowed key: all zero
        for what, kw in ((f"no mask, eps={eps:g}", {}),
                         (f"causal, eps={eps:g}", dict(causal=True)),
                         (f"random mask with a fully masked row, eps={eps:g}", dict(mask=mask))):
            cases.append(("yat.attention_rows_sum_to_one", what,
                          lambda Q=Q, K=K, eps=eps, kw=kw:
                          yat_attention_rows_sum_to_one(attention, Q, K, eps, **kw)))
    return _run_properties(name, cases, progress)
