"""Threads of the numerical libraries: the variables that set them and one way to hold BLAS to a
single thread.  Foundation module (imports nothing of yatmath).

yatmath never writes os.environ; it controls threads through the libraries' APIs.
Two costs appear on small machines when Numba's threads and OpenBLAS's take turns:
- OpenBLAS's idle pool threads busy-wait for 2^OPENBLAS_THREAD_TIMEOUT TSC cycles (default 2^28,
  ~0.1 s) after every threaded BLAS call, so a Numba pass started within that window shares the
  cores with them (measured up to 2.5-4x slower on 2 cores after a 2048 x 2048 GEMM);
- Numba's OpenMP workers spin for a while after a parallel region and slow a threaded GEMM
  started at once.
So the GEMMs of gram() run on Numba's own threads, one single-threaded BLAS call per thread
(gemm_rows, gram_tiles, inside single_threaded_blas), and matvec's T @ v between its Gram tiles
runs on one BLAS thread: OpenBLAS's pool is never woken there, and the GEMM and the pass that
follows use the same threads (bench_blas_spin.py: gram, matvec and force timings as fast as with
the variables set).  What is left is the caller's own
alternation: a threaded BLAS call made just before a yatmath call leaves OpenBLAS's pool spinning
beside it, and Numba's workers spin into the caller's next threaded GEMM; the user removes both
by exporting OPENBLAS_THREAD_TIMEOUT=4 and OMP_WAIT_POLICY=PASSIVE before Python starts (no
runtime API sets either spin; benchmarks/bench_blas_spin.py measures both cases).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from typing import Any

#: Environment variables that set thread counts of numerical libraries.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

#: Environment variables that decide how idle threads of OpenMP, OpenBLAS and Numba wait and
#: which threading layer Numba uses (read by :func:`thread_settings`; yatmath never sets them).
WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "OPENBLAS_THREAD_TIMEOUT",
                  "NUMBA_THREADING_LAYER")

_BLAS_STATE: dict = {"controller": None, "limiter": None, "users": 0}
_BLAS_LOCK = threading.Lock()


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Inside the block every loaded BLAS runs single-threaded (threadpoolctl), so that
    gemm_rows' and gram_tiles' threads can each call it; the previous limits come back when the
    last of any concurrent callers leaves, also on an exception.  Other Python threads' BLAS calls
    meanwhile run on one thread."""
    with _BLAS_LOCK:
        if _BLAS_STATE["users"] == 0:
            if _BLAS_STATE["controller"] is None:
                # imported here, not with this module: threadpoolctl's import sets
                # KMP_DUPLICATE_LIB_OK=True in os.environ when unset (its own setdefault, for
                # processes with two Intel OpenMP runtimes), so importing yatmath writes nothing
                from threadpoolctl import ThreadpoolController

                _BLAS_STATE["controller"] = ThreadpoolController()
            _BLAS_STATE["limiter"] = _BLAS_STATE["controller"].limit(limits=1, user_api="blas")
        _BLAS_STATE["users"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["users"] -= 1
            if _BLAS_STATE["users"] == 0:
                _BLAS_STATE["limiter"].restore_original_limits()
                _BLAS_STATE["limiter"] = None


def thread_settings() -> dict[str, Any]:
    """The thread settings of this process, read and never written.

    ``env``: the thread-count and idle-wait environment variables (:data:`THREAD_VARIABLES` and
    :data:`WAIT_VARIABLES`), None where unset -- the libraries read them when they load, so a
    value set after that has no effect; ``numba_threading_layer``: the layer Numba chose (None
    before its first parallel call) and ``numba_threading_layer_config`` the one asked for;
    ``pools``: per loaded BLAS/OpenMP library (threadpoolctl), its prefix, API, version and
    current thread count.
    """
    out: dict[str, Any] = {
        "env": {k: os.environ.get(k) for k in THREAD_VARIABLES + WAIT_VARIABLES},
        "numba_threading_layer": None, "numba_threading_layer_config": None, "pools": []}
    if importlib.util.find_spec("numba") is not None:
        import numba

        out["numba_threading_layer_config"] = numba.config.THREADING_LAYER
        try:
            out["numba_threading_layer"] = numba.threading_layer()
        except ValueError:  # no parallel function has run yet
            pass
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return out
    out["pools"] = [{k: lib.get(k) for k in ("prefix", "user_api", "version", "num_threads")}
                    for lib in threadpool_info()]
    return out
