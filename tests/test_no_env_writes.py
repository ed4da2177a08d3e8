"""The environment is read, never written; threads are controlled through the libraries' APIs.

1. Importing yatmath and every one of its modules, in a fresh interpreter with a clean
   environment, leaves ``os.environ`` exactly as it was, and so does running the Numba paths
   that mix BLAS and Numba threads (gram in both GEMM paths, matvec's tile path) -- but for
   threadpoolctl's own KMP_DUPLICATE_LIB_OK, set by its import, which yatmath defers to the
   first call that limits BLAS threads.  A user's own thread variables are kept and reported by
   ``yatmath info`` as read.
2. gram's GEMMs run with BLAS limited to one thread (so no OpenBLAS pool thread is woken to spin
   beside the Numba pass), and the limits the caller had (threadpoolctl) come back afterwards,
   also when the call raises.
3. gemm_rows (the row-block GEMM on Numba's threads) meets the GEMM error bound at any split.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tests.yat.test_kernel_gram_tiles import _reference_and_bound
from threadpoolctl import threadpool_info, threadpool_limits

from yatmath._threads import single_threaded_blas
from yatmath.yat import _numba_blas as nb
from yatmath.yat import _numba_kernels as nk
from yatmath.yat import gram, matvec

# Imports every module of yatmath (modules that need an absent optional library, e.g. CuPy, are
# listed as unimportable), runs the mixed BLAS/Numba paths, and reports every change of
# os.environ after each step.
CHILD = r"""
import json, os, sys
before = dict(os.environ)
changes = []

def check(step):
    now = dict(os.environ)
    if now != before:
        changes.append({"step": step,
                        "set": {k: now[k] for k in now if before.get(k) != now[k]},
                        "removed": sorted(set(before) - set(now))})
        before.clear(); before.update(now)

import yatmath
check("import yatmath")
import pkgutil, importlib
modules, unimportable = [], {}
for m in pkgutil.walk_packages(yatmath.__path__, "yatmath."):
    try:
        importlib.import_module(m.name)
        modules.append(m.name)
    except ImportError as exc:
        unimportable[m.name] = str(exc)
    check("import " + m.name)
threadpoolctl_at_import = "threadpoolctl" in sys.modules
import numpy as np
from yatmath.yat import _numba_kernels as nk, gram, matvec
rng = np.random.default_rng(0)
X = rng.standard_normal((300, 40)); W = rng.standard_normal((200, 40))
gram(X, W, eps=1.0, method="expanded", backend="numba")             # gemm_rows + pass
nk.TILED_MIN_BYTES = dict.fromkeys(nk.TILED_MIN_BYTES, 0)
gram(X, W, eps=1.0, method="expanded", backend="numba")             # gram_tiles
matvec(X, W, rng.standard_normal(200), eps=1.0, tile=(64, 64))       # tiles + GEMV
check("gram and matvec")
from yatmath import _platform
info = _platform.info()
check("info")
print(json.dumps({"changes": changes, "modules": modules, "unimportable": unimportable,
                  "threadpoolctl_at_import": threadpoolctl_at_import,
                  "info_env": info["threads"]["env"],
                  "openblas_thread_timeout": info["openblas_thread_timeout"]}))
"""

# A clean environment: nothing but what finds executables and a home directory.
CLEAN = {k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ}


def _run_child(env):
    res = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=False,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _yatmath_changes(out):
    """The changes of os.environ, less the one of threadpoolctl's own import: it sets
    KMP_DUPLICATE_LIB_OK=True when unset (a module-level setdefault), imported by yatmath only
    when a call first limits BLAS threads, never by importing yatmath."""
    assert not out["threadpoolctl_at_import"]
    tpc = {"step": "gram and matvec", "set": {"KMP_DUPLICATE_LIB_OK": "True"}, "removed": []}
    return [c for c in out["changes"] if c != tpc]


def test_imports_and_mixed_thread_paths_leave_a_clean_environment_unchanged():
    out = _run_child(dict(CLEAN))
    assert _yatmath_changes(out) == []
    # the walk really covered the package: every subpackage and the modules that set threads
    for name in ("yatmath.yat", "yatmath.itnet", "yatmath.particles", "yatmath.features",
                 "yatmath.estimators", "yatmath.bench", "yatmath.testing", "yatmath.validate",
                 "yatmath._array", "yatmath._platform", "yatmath.yat._numba_kernels", "yatmath.cli",
                 "yatmath.sweep"):
        assert name in out["modules"], (name, out["unimportable"].get(name))
    assert all("cupy" in v.lower() or "cuda" in v.lower() for v in out["unimportable"].values()), \
        out["unimportable"]
    # nothing set, nothing reported as set
    assert set(out["info_env"].values()) == {None}
    assert out["openblas_thread_timeout"] is None


def test_user_thread_variables_are_kept_and_reported_as_read():
    user = {"OMP_WAIT_POLICY": "ACTIVE", "OPENBLAS_THREAD_TIMEOUT": "10", "OMP_NUM_THREADS": "2"}
    out = _run_child(dict(CLEAN, **user))
    assert _yatmath_changes(out) == []
    assert {k: out["info_env"][k] for k in user} == user
    assert out["openblas_thread_timeout"] == "10"


def _blas_limits():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


@pytest.mark.parametrize("tiled, B", [(False, 96), (True, 96), (False, 8)])
def test_gram_gemm_runs_on_one_blas_thread_and_limits_come_back(tiled, B, monkeypatch):
    """B = 96: 96 x 80 x 40 > SERIAL_GEMM_MAX multiply-adds, BLAS limited to one thread inside;
    B = 8: below it, where OpenBLAS stays on the calling thread by itself, no limit is set."""
    if tiled:
        monkeypatch.setattr(nk, "TILED_MIN_BYTES", dict.fromkeys(nk.TILED_MIN_BYTES, 0))
    name = "gram_tiles" if tiled else "gemm_rows"
    seen = []
    inner = getattr(nk, name)

    def spy(*args):
        seen.append(_blas_limits())
        return inner(*args)

    monkeypatch.setattr(nk, name, spy)
    rng = np.random.default_rng(1)
    X, W = rng.standard_normal((B, 40)), rng.standard_normal((80, 40))
    assert (B * 80 * 40 > nb.SERIAL_GEMM_MAX) == (B == 96)
    before = _blas_limits()
    assert before and max(before.values()) > 1 or os.cpu_count() == 1   # numpy's BLAS at least
    G = gram(X, W, 1.0, method="expanded", backend="numba")
    assert _blas_limits() == before
    assert len(seen) == 1
    assert seen[0] == ({k: 1 for k in before} if B == 96 else before)
    K, bound = _reference_and_bound(X, W, 1.0, np.float64)    # kernel.py's error bound
    assert np.all(np.abs(G - K) <= bound)


def test_caller_limits_survive_gram_matvec_and_errors():
    rng = np.random.default_rng(2)
    X, W = rng.standard_normal((50, 40)), rng.standard_normal((30, 40))
    with threadpool_limits(limits=1, user_api="blas"):
        caller = _blas_limits()
        gram(X, W, 1.0, method="expanded", backend="numba")
        matvec(X, W, rng.standard_normal(30), 1.0, tile=(16, 8))
        assert _blas_limits() == caller
    default = _blas_limits()
    matvec(X, W, rng.standard_normal(30), 1.0, tile=(16, 8))
    assert _blas_limits() == default
    with pytest.raises(RuntimeError, match="inside"), single_threaded_blas():
        assert set(_blas_limits().values()) == {1}
        raise RuntimeError("inside")
    assert _blas_limits() == default


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("B, n, d, threads", [(1, 5, 3, 4), (7, 13, 5, 2), (257, 301, 64, 2),
                                              (100, 37, 200, 3), (5, 3, 0, 2)])
def test_gemm_rows_meets_the_gemm_error_bound(dtype, B, n, d, threads):
    rng = np.random.default_rng(B + n + d)
    X = rng.standard_normal((B, d)).astype(dtype)
    W = rng.standard_normal((n, d)).astype(dtype)
    out = np.full((B, n), np.nan, dtype)
    with single_threaded_blas():
        nk.gemm_rows(nb.GEMM[np.dtype(dtype)], X, W, threads, out)
    ref = X.astype(np.float64) @ W.astype(np.float64).T
    # any order of summation, with or without FMA: |error| <= gamma_d sum_k |x_k w_k| with
    # gamma_d = d u / (1 - d u); the float64 reference carries its own gamma_d (u = 2^-53)
    gamma = [d * u / (1 - d * u) for u in (np.finfo(dtype).eps / 2, 2.0 ** -53)]
    bound = sum(gamma) * (np.abs(X.astype(np.float64)) @ np.abs(W.astype(np.float64)).T)
    assert np.all(np.abs(out - ref) <= bound)
    if d == 0:
        assert np.all(out == 0)        # beta = 0: BLAS overwrites the NaNs
