"""Run many independent jobs: in-process by default, on a Dask cluster when asked.

A *job* is a callable with its arguments (:class:`Job`).  :func:`run` evaluates a list of jobs and
returns their results **in submission order**, whichever executor ran them:

``run(jobs)``                            in this process, one after the other (the default)
``run(jobs, workers=4)``                 on a Dask ``LocalCluster`` of 4 worker processes (one
                                         thread each) started for this run and closed after it
``run(jobs, scheduler="tcp://h:8786")``  on an existing Dask cluster (a ``distributed.Client``
                                         may be passed instead of an address; it is not closed)

Determinism: a job's result may depend only on its arguments.  Randomness enters through an
explicit seed argument (:func:`spawn_seeds` derives independent integer seeds from one run seed,
:func:`grid` builds seed/N/d sweeps), never through a global generator, so the distributed run
returns exactly the in-process results for the same seeds -- bit for bit wherever the job itself
is deterministic on one machine (CPU code on the same versions of the libraries).

Thread settings: floating-point results can depend on how many threads a BLAS call or a
parallel Numba loop uses (OpenBLAS splits some reductions by thread), and Dask's nannies start
workers with ``OMP/OPENBLAS/MKL_NUM_THREADS=1``.  So every job sent to Dask runs under the
caller's thread counts, captured when :func:`run` is called: BLAS threads pinned with
``threadpoolctl`` and Numba threads with ``numba.set_num_threads`` (capped at what the worker
has).  The worker may then run more threads than its share of cores, which costs time, never
results.  Bit-identity across *different* machines also needs the same library versions and CPU
kernels (OpenBLAS picks its kernels by CPU).

Fault tolerance (Dask): a job whose worker dies is re-run elsewhere by the scheduler, and each
job is submitted with ``retries=retries`` (``dask.distributed``'s own retry mechanism), so the
loss of a worker costs time, not results.  A job that raises on every attempt raises from
:func:`run` (the remaining jobs are cancelled), as it would in-process.

Progress: ``on_start(index)`` is called before a job runs in-process; ``on_done(count, index,
result)`` after each job completes, in completion order (``distributed.as_completed`` on Dask),
``count`` being the number completed so far.  ``progress=True`` prints one plain line per job to
stderr.  Ctrl-C (``KeyboardInterrupt``) cancels the outstanding jobs, closes a cluster started
for the run, and propagates; nothing is returned, so callers that write only after ``run``
returns (the ledger) leave no partial output.
"""
from __future__ import annotations

import itertools
import numbers
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

__all__ = ["Job", "grid", "spawn_seeds", "run", "executor_description", "thread_settings"]

#: Seconds to wait for a connection to an existing scheduler.
CONNECT_TIMEOUT = 30


@dataclass(frozen=True)
class Job:
    """One unit of work: ``func(*args, **kwargs)``; ``label`` names it in progress lines."""

    func: Callable
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""

    def __post_init__(self):
        if not callable(self.func):
            raise TypeError(f"Job func must be callable, got {type(self.func).__name__}")
        if not isinstance(self.args, tuple):
            raise TypeError(f"Job args must be a tuple, got {type(self.args).__name__}")
        if not isinstance(self.kwargs, dict):
            raise TypeError(f"Job kwargs must be a dict, got {type(self.kwargs).__name__}")

    def __call__(self):
        return self.func(*self.args, **self.kwargs)

    @property
    def name(self) -> str:
        return self.label or getattr(self.func, "__name__", "job")


def spawn_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent 64-bit integer seeds derived from ``seed`` (``numpy.random.SeedSequence``).

    The same (seed, n) always gives the same list, and the first k seeds do not depend on n.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative int, got {seed!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise TypeError(f"n must be a non-negative int, got {n!r}")
    children = np.random.SeedSequence(int(seed)).spawn(int(n))
    return [int(c.generate_state(1, np.uint64)[0]) for c in children]


def grid(func: Callable, /, **axes: Sequence) -> list[Job]:
    """One job ``func(**point)`` per point of the Cartesian product of ``axes`` (a sweep).

    ``grid(f, seed=spawn_seeds(0, 5), N=[100, 1000], d=[2, 3])`` gives 20 jobs, the last axis
    varying fastest (``itertools.product`` order); each job's label is ``"seed=..,N=..,d=.."``.
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}")
    names, values = list(axes), []
    for name in names:
        v = axes[name]
        if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
            raise TypeError(f"axis {name!r} must be a sequence of values, got {type(v).__name__}")
        values.append(list(v))
    jobs = []
    for point in itertools.product(*values):
        kw = dict(zip(names, point))
        jobs.append(Job(func, (), kw, ",".join(f"{k}={v}" for k, v in kw.items())))
    return jobs


def _as_jobs(jobs) -> list[Job]:
    if isinstance(jobs, (str, bytes)) or not isinstance(jobs, Iterable):
        raise TypeError(f"jobs must be an iterable of Job or callables, got {type(jobs).__name__}")
    out = []
    for i, j in enumerate(jobs):
        if isinstance(j, Job):
            out.append(j)
        elif callable(j):
            out.append(Job(j))
        else:
            raise TypeError(f"jobs[{i}] must be a Job or a callable, got {type(j).__name__}")
    return out


def _check_workers(workers):
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral):
        raise TypeError(f"workers must be a positive int (worker processes), got {workers!r}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    return int(workers)


def _check_scheduler(scheduler):
    if scheduler is None or isinstance(scheduler, str) and scheduler.strip():
        return scheduler
    if type(scheduler).__name__ == "Client" and hasattr(scheduler, "submit"):
        return scheduler
    raise TypeError("scheduler must be a Dask scheduler address such as 'tcp://host:8786' "
                    f"or a distributed.Client, got {scheduler!r}")


def executor_description(scheduler=None, workers=None) -> str:
    """A short text naming where :func:`run` executes (for logs and ledger metadata)."""
    scheduler, workers = _check_scheduler(scheduler), _check_workers(workers)
    if scheduler is not None and workers is not None:
        raise ValueError("give either scheduler or workers, not both")
    if workers is not None:
        return f"dask LocalCluster ({workers} worker process{'es' if workers != 1 else ''})"
    if scheduler is not None:
        addr = scheduler if isinstance(scheduler, str) else scheduler.scheduler.address
        return f"dask cluster at {addr}"
    return "in-process"


class _LinePrinter:
    """``progress=True``: ``[3/20] seed=1,N=100 done (1.2 s since start)`` lines on stderr."""

    def __init__(self, jobs, stream=None):
        self.jobs, self.stream, self.t0 = jobs, stream or sys.stderr, time.perf_counter()
        self.width = len(str(len(jobs)))

    def __call__(self, count, index, result):
        self.stream.write(f"[{count:>{self.width}}/{len(self.jobs)}] {self.jobs[index].name} done "
                          f"({time.perf_counter() - self.t0:.1f} s since start)\n")
        self.stream.flush()


def run(jobs, *, scheduler=None, workers: int | None = None, retries: int = 3,
        on_start: Callable[[int], Any] | None = None,
        on_done: Callable[[int, int, Any], Any] | None = None,
        progress: bool = False, timeout: float | None = None) -> list:
    """Evaluate ``jobs`` and return their results in submission order.

    Parameters
    ----------
    jobs : iterable of :class:`Job` or zero-argument callables
    scheduler : None, a Dask scheduler address (str) or a ``distributed.Client``
    workers : None or int >= 1: start a ``LocalCluster`` with this many single-threaded worker
        processes for this run (closed afterwards).  At most one of scheduler/workers.
    retries : int >= 0, passed to ``Client.submit``: extra attempts per job on Dask.
    on_start, on_done, progress : progress reporting (module docstring).
    timeout : seconds to wait for all Dask results (None: no limit); raises TimeoutError.
    """
    jobs = _as_jobs(jobs)
    scheduler, workers = _check_scheduler(scheduler), _check_workers(workers)
    if scheduler is not None and workers is not None:
        raise ValueError("give either scheduler or workers, not both")
    if isinstance(retries, bool) or not isinstance(retries, numbers.Integral) or retries < 0:
        raise TypeError(f"retries must be a non-negative int, got {retries!r}")
    if timeout is not None and not (isinstance(timeout, numbers.Real) and timeout > 0):
        raise ValueError(f"timeout must be None or a positive number of seconds, got {timeout!r}")
    for name, cb in (("on_start", on_start), ("on_done", on_done)):
        if cb is not None and not callable(cb):
            raise TypeError(f"{name} must be callable or None, got {type(cb).__name__}")
    if progress:
        printer = _LinePrinter(jobs)
        user_done = on_done

        def on_done(count, index, result):  # noqa: F811 - chain the printer and the caller's hook
            printer(count, index, result)
            if user_done is not None:
                user_done(count, index, result)

    if scheduler is None and workers is None:
        return _run_local(jobs, on_start, on_done)
    return _run_dask(jobs, scheduler, workers, int(retries), on_done, timeout)


def _run_local(jobs, on_start, on_done) -> list:
    results = []
    for i, job in enumerate(jobs):
        if on_start is not None:
            on_start(i)
        results.append(job())
        if on_done is not None:
            on_done(i + 1, i, results[-1])
    return results


def _import_distributed():
    try:
        import distributed
        import threadpoolctl  # noqa: F401 - pins the workers' BLAS threads
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("running on Dask needs dask.distributed and threadpoolctl: "
                          f"pip install 'yatmath[distributed]' ({exc})") from exc
    return distributed


def _run_dask(jobs, scheduler, workers, retries, on_done, timeout) -> list:
    distributed = _import_distributed()
    cluster = client = None
    own_client = not isinstance(scheduler, distributed.Client)
    try:
        if workers is not None:
            import logging

            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=":0",
                                               silence_logs=logging.ERROR)
            client = distributed.Client(cluster)
        elif own_client:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
        else:
            client = scheduler
        return _gather_in_order(client, jobs, retries, on_done, timeout, distributed)
    finally:
        if own_client and client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def thread_settings() -> dict:
    """This process's thread counts that can change floating-point results.

    ``{"blas": n or None, "numba": n or None}``: the BLAS thread count (``threadpoolctl``; None
    when no BLAS is loaded) and Numba's (None when Numba is not imported here).
    """
    from threadpoolctl import threadpool_info

    blas = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    numba = sys.modules.get("numba")
    return {"blas": max(blas) if blas else None,
            "numba": numba.get_num_threads() if numba is not None else None}


def _call(job: Job, threads: dict):
    """What a worker runs: ``job()`` under the caller's thread settings (module docstring).

    A module-level function, so it pickles by reference.
    """
    import contextlib

    from threadpoolctl import threadpool_limits

    with contextlib.ExitStack() as stack:
        if threads.get("blas"):
            stack.enter_context(threadpool_limits(limits=threads["blas"], user_api="blas"))
        if threads.get("numba"):
            import numba

            before = numba.get_num_threads()
            numba.set_num_threads(min(threads["numba"], numba.config.NUMBA_NUM_THREADS))
            stack.callback(numba.set_num_threads, before)
        return job()


def _gather_in_order(client, jobs, retries, on_done, timeout, distributed) -> list:
    threads = thread_settings()
    futures = [client.submit(_call, job, threads, pure=False, retries=retries) for job in jobs]
    index = {f.key: i for i, f in enumerate(futures)}
    results: list = [None] * len(jobs)
    ok = False
    try:
        for count, fut in enumerate(distributed.as_completed(futures, timeout=timeout), 1):
            i = index[fut.key]
            results[i] = fut.result()   # re-raises the job's exception after its retries
            fut.release()
            if on_done is not None:
                on_done(count, i, results[i])
        ok = True
    finally:
        if not ok:  # error, timeout or Ctrl-C: do not leave work running on the cluster
            try:
                client.cancel([f for f in futures if not f.done()])
            except Exception:  # noqa: BLE001 - best effort while already failing
                pass
    return results
