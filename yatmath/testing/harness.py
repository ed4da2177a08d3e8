"""One accuracy harness per function: evaluate an implementation of the Yat kernel over the
generators' blocks and judge every entry against the exact reference and its bound.

In the manner of SciPy's ``MpmathData`` (``scipy/special/_mptestutils.py``): a
``KernelAccuracy`` object names an implementation ``fn(Z, eps, bias, mode) -> (m, m)`` (the Gram
matrix K(Z_i, Z_j) of a block, bias per column, mode None/"inner"/"outer") and its conventions;
``run(dtype)`` returns an ``AccuracyResult`` that says, entry by entry, whether the result lies in
the accepted interval of ``oracle.Exact``, and summarises per input class the worst relative
error in units of the dtype's unit roundoff u and the worst error as a fraction of the bound.
A new backend is tested against the oracle by adding one harness object, with no new test code.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import mpmath as mp
import numpy as np
import numpy.typing as npt

from .generators import ENTRY_CLASSES, Block, blocks, dtype_name
from .oracle import LARGEST, TINY, UNIT_ROUNDOFF, Exact, adapt_mode, exact


def _as_float64(a: Any) -> npt.NDArray[np.float64]:
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        a = a.get()
    return np.asarray(a).astype(np.float64)


def entry_errors(K_hat: npt.NDArray[np.floating[Any]], ex: Exact
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                            npt.NDArray[np.float64]]:
    """(err, rel_u, ratio) of float64 results ``K_hat`` against ``ex`` (an ``oracle.Exact``).

    err = |K_hat - K| (K as the unevaluated sum K_hi + K_lo, so a float64 result's error is not
    swamped by the rounding of K); rel_u = err / (u |K|) (0 where both are 0, inf where K = 0 and
    the result is not); ratio = err / bound.  Infinite results where the exact K overflows the
    dtype count as error 0 (the interval check decides whether inf was allowed).
    """
    u = UNIT_ROUNDOFF[ex.dtype]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs((K_hat - ex.K_hi) - ex.K_lo)
        both_inf = np.isinf(K_hat) & (np.isinf(ex.hi) | ~np.isfinite(ex.K_hi))
        err = np.where(both_inf, 0.0, err)
        err = np.where(np.isnan(err), np.inf, err)
        K = np.abs(ex.K_hi)
        rel_u = np.where(K > 0, err / (u * K), np.where(err == 0, 0.0, np.inf))
        ratio = np.where(ex.bound64 > 0, err / ex.bound64, np.where(err == 0, 0.0, np.inf))
    return err, rel_u, ratio


@dataclass
class AccuracyResult:
    """Entry-by-entry verdicts of one implementation on one dtype (flattened over blocks)."""

    name: str
    dtype: str
    ok: np.ndarray
    rel_u: np.ndarray
    ratio: np.ndarray
    cond: np.ndarray
    classes: np.ndarray
    nonzero: np.ndarray               # |exact| is a normal number of the dtype (rel_u reported)
    where: list                       # (block index, i, j) of each entry
    blocks: list = field(repr=False)
    exact: list = field(repr=False)
    results: list = field(repr=False)  # the float64 result of each block
    wrong_dtype: list = field(default_factory=list)  # (block index, result dtype) != input dtype

    @property
    def passed(self) -> bool:
        return bool(self.ok.all())

    @property
    def checked(self) -> int:
        return int(self.ok.size)

    def by_class(self) -> list[dict[str, Any]]:
        """Rows {class, entries, fails, worst_rel_u, worst_ratio} per input class; worst_rel_u is
        taken over the entries whose exact value is a normal number of the dtype (below it,
        gradual underflow makes any relative error possible)."""
        rows = []
        for cls in ENTRY_CLASSES:
            sel = self.classes == cls
            if not sel.any():
                continue
            rel = self.rel_u[sel & self.nonzero]
            rel = np.where(np.isnan(rel), np.inf, rel)
            rows.append(dict(cls=cls, entries=int(sel.sum()), fails=int((~self.ok[sel]).sum()),
                             worst_rel_u=float(rel.max()) if rel.size else 0.0,
                             worst_ratio=float(self.ratio[sel].max())))
        return rows

    def worst(self, cls: str | None = None) -> dict[str, Any] | None:
        """The worst entry (a failing one first, then by error/bound), as ``describe`` gives it."""
        sel = np.ones(self.ok.shape, bool) if cls is None else self.classes == cls
        if not sel.any():
            return None
        key = np.where(sel, np.where(self.ok, 0.0, 1.0) * 1e300 + np.nan_to_num(self.ratio,
                                                                                  posinf=1e299), -1)
        return self.describe(int(np.argmax(key)))

    def failures(self, limit: int = 12) -> list[dict[str, Any]]:
        return [self.describe(k) for k in np.flatnonzero(~self.ok)[:limit]]

    def describe(self, k: int) -> dict[str, Any]:
        """Everything a reader needs to re-run entry ``k``: inputs as exact floats, the result."""
        b, i, j = self.where[k]
        blk, ex = self.blocks[b], self.exact[b]
        bias = None if blk.bias is None else float(blk.bias[j])
        return dict(block=repr(blk), cls=str(self.classes[k]), dtype=self.dtype,
                    w=[float(v) for v in blk.Z[i]], x=[float(v) for v in blk.Z[j]],
                    eps=float(blk.eps), bias=bias, bias_mode=blk.mode,
                    got=float(self.results[b][i, j]), exact=mp.nstr(ex.K[i][j], 17),
                    bound=mp.nstr(ex.bound[i][j], 3), cond=float(self.cond[k]),
                    rel_err_u=float(self.rel_u[k]), err_over_bound=float(self.ratio[k]),
                    passed=bool(self.ok[k]))

    def message(self, limit: int = 12) -> str:
        lines = [f"{d['block']} ({d['cls']}): got {d['got']!r}, exact {d['exact']}, bound "
                 f"{d['bound']}; w={d['w']} x={d['x']} bias={d['bias']}"
                 for d in self.failures(limit)]
        return f"{self.name}: {int((~self.ok).sum())} entries outside the bound:\n" + "\n".join(lines)


class KernelAccuracy:
    """The accuracy harness for one implementation of the Yat kernel.

    Parameters
    ----------
    name : str
    fn : callable (Z, eps, bias, mode) -> (m, m) array, the Gram matrix of the block rows
    modes : the bias modes fn supports; blocks of another mode use the first supported one or none
    scale : fn returns ``scale * K`` (a layer's width scale); None for K itself
    nan_beside_overflow : judge only rows whose exact values are all finite (K @ I puts
        inf * 0 = NaN beside an overflowing entry)
    """

    def __init__(self, name: str, fn: Callable[..., Any], *,
                 modes: tuple[str, ...] = ("inner", "outer"), scale: float | None = None,
                 nan_beside_overflow: bool = False) -> None:
        self.name, self.fn, self.modes = name, fn, tuple(modes)
        self.scale, self.nan_beside_overflow = scale, nan_beside_overflow

    def __repr__(self) -> str:
        return f"KernelAccuracy({self.name!r})"

    def run(self, dtype: Any, *, quick: bool = False,
            cases: Sequence[tuple[Block, Exact]] | None = None,
            progress: Callable[..., Any] | None = None) -> AccuracyResult:
        """Evaluate on every block of ``dtype`` (``cases``: explicit (block, Exact) pairs)."""
        name = dtype_name(dtype)
        if cases is None:
            blks = [adapt_mode(b, self.modes) for b in blocks(name, quick=quick)]
            exs = exact(name, modes=self.modes, quick=quick, scale=self.scale)
            cases = list(zip(blks, exs))
        oks, rels, ratios, conds, classes, nzs, where, results = [], [], [], [], [], [], [], []
        wrong = []
        for bi, (blk, ex) in enumerate(cases):
            with np.errstate(all="ignore"):
                out = self.fn(blk.Z, blk.eps, blk.bias, blk.mode)
            got = getattr(out, "dtype", None)
            if got is not None and str(got) != str(blk.Z.dtype):
                wrong.append((bi, str(got)))
            K_hat = _as_float64(out)
            if K_hat.shape != ex.lo.shape:
                raise ValueError(f"{self.name} returned shape {K_hat.shape} for a block of "
                                 f"{ex.lo.shape[0]} rows; expected {ex.lo.shape}")
            ok = (K_hat >= ex.lo) & (K_hat <= ex.hi)
            if blk.mode != "outer":
                ok &= K_hat >= 0
            if self.nan_beside_overflow:
                ok |= ~np.isfinite(ex.hi).all(axis=1, keepdims=True)
            _, rel_u, ratio = entry_errors(K_hat, ex)
            m = ok.shape[0]
            oks.append(ok.ravel())
            rels.append(rel_u.ravel())
            ratios.append(ratio.ravel())
            conds.append(ex.cond.ravel())
            mag = np.abs(ex.K_hi)
            nzs.append(((mag >= TINY[name]) & (mag <= LARGEST[name])).ravel())
            classes.append(blk.entry_classes().ravel())
            where += [(bi, i, j) for i in range(m) for j in range(m)]
            results.append(K_hat)
            if progress is not None:
                progress(bi + 1, len(cases))
        cat = np.concatenate
        return AccuracyResult(self.name, name, cat(oks), cat(rels), cat(ratios), cat(conds),
                              cat(classes), cat(nzs), where, [c[0] for c in cases], [c[1] for c in cases],
                              results, wrong)
