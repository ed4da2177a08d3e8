"""Are the NumPy results of this working tree bit for bit those of a base revision?

    python benchmarks/identical_before_after.py --base 8dd3fcd          # prints one line per call
    python benchmarks/identical_before_after.py --base REV --json out.json

"before" is ``yatmath`` at ``--base``, materialised with ``git archive REV yatmath | tar -x`` into a
temporary folder (no git command that changes state); "after" is the working tree's ``yatmath``.
Each runs :data:`BATTERY` in a fresh interpreter whose ``PYTHONPATH`` is that tree (and
``NUMBA_CACHE_DIR`` its own temporary folder), on NumPy inputs from ``numpy.random.default_rng``
with fixed seeds, and writes every result array (float results and integer ones alike) to an
``.npz``.  The two files are compared entry by entry: same shape, same dtype and the same bytes
(``numpy.array_equal`` with ``equal_nan=True`` and a byte comparison), and the script exits 1 when
any entry differs or is missing on one side.  The battery calls only public functions whose
signatures both trees share; a call that raises is recorded as its exception type and message,
which must also agree.

Run on one machine the comparison says nothing about other CPUs (NumPy picks SIMD paths by CPU):
it checks that a change moved code without changing its arithmetic.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r'''
import sys, traceback
import numpy as np
out = {}

def rec(name, fn):
    try:
        r = fn()
    except Exception as exc:                      # recorded, compared as text
        out[name + ":raised"] = np.array(f"{type(exc).__name__}: {exc}")
        return
    def put(key, v):
        if isinstance(v, (tuple, list)):
            for i, e in enumerate(v):
                put(f"{key}[{i}]", e)
        elif isinstance(v, dict):
            for k in sorted(v):
                put(f"{key}.{k}", v[k])
        elif hasattr(v, "__dataclass_fields__"):
            for k in v.__dataclass_fields__:
                put(f"{key}.{k}", getattr(v, k))
        elif hasattr(v, "_fields"):
            for k in v._fields:
                put(f"{key}.{k}", getattr(v, k))
        elif isinstance(v, (np.ndarray, np.generic, float, int, bool)):
            out[key] = np.asarray(v)
    put(name, r)

import yatmath.yat as yat, yatmath.itnet as itnet, yatmath.particles as P
import yatmath.features as F, yatmath.estimators as E

rng = np.random.default_rng(0)
for dt in (np.float64, np.float32):
    t = np.dtype(dt).name
    X = rng.standard_normal((300, 5)).astype(dt); W = rng.standard_normal((200, 5)).astype(dt)
    Xh = rng.standard_normal((700, 64)).astype(dt); Wh = rng.standard_normal((900, 64)).astype(dt)
    b = rng.standard_normal(200).astype(dt)
    v = rng.standard_normal((200, 3)).astype(dt); vh = rng.standard_normal(900).astype(dt)
    near = (Xh[:50] * (1 + 1e-6)).astype(dt)
    for be in ("reference", "numba"):
        rec(f"product/{t}/{be}", lambda: yat.product(X[:200], W, 1e-3, backend=be))
        rec(f"product_big/{t}/{be}", lambda: yat.product(Xh[:700], Wh[:700], 1e-3, b[:1], backend=be))
        rec(f"gram/{t}/{be}", lambda: yat.gram(X, W, 1e-3, b, backend=be))
        rec(f"gram_outer/{t}/{be}", lambda: yat.gram(X, W, 1e-3, b, bias_mode="outer", backend=be))
        rec(f"gram_sym/{t}/{be}", lambda: yat.gram(Xh, None, 1e-3, backend=be))
        rec(f"gram_exp/{t}/{be}", lambda: yat.gram(Xh, Wh, 1e-3, backend=be))
        rec(f"gram_near/{t}/{be}", lambda: yat.gram(near, Xh[:50], 1e-6, method="expanded", backend=be))
        rec(f"matvec/{t}/{be}", lambda: yat.matvec(X, W, v, 1e-3, b, backend=be))
        rec(f"matvec_hi/{t}/{be}", lambda: yat.matvec(Xh, Wh, vh, 1e-3, backend=be, tile=(256, 512)))
    Gbig = rng.standard_normal((1500, 64)).astype(dt)
    rec(f"gram_tiles/{t}", lambda: yat.gram(Gbig, Gbig[:1400] * 0.5, 1e-2))
    for bm, red in ((None, None), ("inner", "sum"), ("outer", None)):
        bias = None if bm is None else b[:40]
        def lay(bm=bm, red=red, bias=bias):
            y, cache = yat.layer_forward(X[:64, :5], W[:40], 1e-3, bias,
                                         bias_mode=bm or "inner", reduce=red, return_cache=True)
            G = np.ones_like(y)
            return y, yat.layer_backward(G, cache)
        rec(f"layer/{t}/{bm}/{red}", lay)
    img = rng.standard_normal((2, 3, 12, 12)).astype(dt); flt = rng.standard_normal((4, 3, 3, 3)).astype(dt)
    rec(f"conv2d/{t}", lambda: yat.conv2d(img, flt, 1e-3, stride=1, padding=1))
    Q = rng.standard_normal((2, 16, 8)).astype(dt); K = rng.standard_normal((2, 16, 8)).astype(dt)
    V = rng.standard_normal((2, 16, 4)).astype(dt)
    for causal in (False, True):
        rec(f"attention/{t}/{causal}", lambda: yat.attention(Q, K, V, 1e-3, causal=causal))
        rec(f"linattn/{t}/{causal}", lambda: yat.linear_attention(
            Q[0], K[0], V[0], lambda a: np.maximum(a, 0) + 1e-3, causal=causal, chunk=4))
    rec(f"grad/{t}", lambda: yat.grad(X[:20], W[:20], 1e-3, b[:20]))
    Xa = np.abs(X)
    rec(f"squash/{t}", lambda: (yat.soft_sigmoid(Xa), yat.soft_tanh(Xa), yat.softermax(Xa)))

rng = np.random.default_rng(1)
op = itnet.init_itnet(2, 2, n_keys=36, width=16, L=8, rng=0)
meas = itnet.tensor_rule(itnet.interval_rule("gauss", 6), itnet.interval_rule("gauss", 6))
U = rng.standard_normal((meas.nodes.shape[0], 2))
for mode, kw in (("dense", {}), ("tiled", {"backend": "reference", "tile": (8, 16)}),
                 ("tiled", {"backend": "numba", "tile": (8, 16)}), ("mc", {"M": 16, "rng": 0})):
    rec(f"itnet.apply/{mode}/{kw.get('backend', '')}",
        lambda mode=mode, kw=kw: itnet.apply(op, U, meas, mode=mode, **kw))
G = rng.standard_normal(U.shape)
for mode, kw in (("dense", {}), ("tiled", {"backend": "reference", "tile": (8, 16)}),
                 ("tiled", {"backend": "numba", "tile": (8, 16)})):
    rec(f"itnet.grad/{mode}/{kw.get('backend', '')}",
        lambda mode=mode, kw=kw: itnet.grad(op, U, meas, G, mode=mode, **kw))
rec("itnet.kernel_tensor", lambda: itnet.kernel_tensor(op, meas.nodes, meas.nodes, U, U))
rec("itnet.svd_factors", lambda: itnet.svd_factors(
    itnet.kernel_tensor(op, meas.nodes, meas.nodes, U, U), 3))

rng = np.random.default_rng(2)
Om = rng.standard_normal((300, 3))
for be in ("reference", "numba"):
    for kind, s, dl in (("none", 1.0, 0.0), ("plummer", 1.0, 0.1), ("none", "coulomb", 0.0), ("none", -1.5, 0.0)):
        rec(f"force/{kind}/{s}/{be}", lambda: P.interaction_force(Om, kind, s, dl, backend=be))
        rec(f"potential/{kind}/{s}/{be}",
            lambda: P.interaction_potential(Om, kind, s, dl, backend=be))
    rec(f"rbforce/{be}", lambda: P.random_batch_force(Om, "none", 1.0, 0.0, batch_size=4, rng=3,
                                                      backend=be))
rec("energy_distance", lambda: P.energy_distance(Om[:100], Om[100:200]))
rec("mmd2", lambda: P.mmd2(Om[:100], Om[100:200], 1.0) if True else None)
rec("sliced_w2", lambda: P.sliced_w2(Om[:100], Om[100:200], rng=0))

rng = np.random.default_rng(3)
Xf = rng.standard_normal((50, 4))
for name, mk in (("rff", lambda: F.rff(4, 64, rng=0)), ("rff_orth", lambda: F.rff(4, 64, orthogonal=True, rng=0)),
                 ("favor", lambda: F.favor_plus(4, 64, rng=0)),
                 ("yat", lambda: F.yat_features(4, 64, eps=0.1, rng=0))):
    rec(f"features/{name}", lambda mk=mk: mk()(Xf))
    rec(f"features32/{name}", lambda mk=mk: mk()(Xf.astype(np.float32)))
A = rng.standard_normal((60, 40)); Kp = A @ A.T
rec("nystrom", lambda: E.nystrom(Kp, 10, rng=0))
rec("rsvd", lambda: E.randomized_svd(A, 5, rng=0))
rec("tsvd", lambda: E.truncated_svd(A, 5))
rec("integrate_discrete", lambda: E.integrate_discrete(
    rng.standard_normal(30), np.linspace(0, 1, 30), 100, pmf=np.full(30, 1 / 30), rng=0))

np.savez(sys.argv[1], **out)
print(len(out), "entries")
'''


def run_tree(tree: Path, out: Path, cache: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
    subprocess.run([sys.executable, "-c", CHILD, str(out)], env=env, check=True, cwd=cache)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the base revision (e.g. 8dd3fcd)")
    ap.add_argument("--repo", default=str(REPO), help="the repository (default: this one)")
    ap.add_argument("--json", help="write the per-entry comparison here")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="yatmath-identical-") as tmp:
        t = Path(tmp)
        before = t / "before"
        before.mkdir()
        arch = subprocess.run(["git", "-C", a.repo, "archive", a.base, "yatmath"],
                              check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=arch, check=True)
        for name in ("before_cache", "after_cache"):
            (t / name).mkdir()
        run_tree(before, t / "before.npz", t / "before_cache")
        run_tree(Path(a.repo), t / "after.npz", t / "after_cache")
        import numpy as np

        B, A = np.load(t / "before.npz"), np.load(t / "after.npz")
        rows, bad = [], 0
        for k in sorted(set(B.files) | set(A.files)):
            if k not in B.files or k not in A.files:
                verdict = "only " + ("after" if k in A.files else "before")
            else:
                b, c = B[k], A[k]
                same = (b.shape == c.shape and b.dtype == c.dtype
                        and np.array_equal(b, c, equal_nan=b.dtype.kind in "fc")
                        and b.tobytes() == c.tobytes())
                verdict = "identical" if same else "DIFFERS"
            bad += verdict != "identical"
            rows.append((k, verdict))
            print(f"{verdict:10s} {k}")
        print(f"{len(rows) - bad} of {len(rows)} entries identical (base {a.base}, tree {a.repo})")
        if a.json:
            Path(a.json).write_text(json.dumps(dict(base=a.base, rows=rows), indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
