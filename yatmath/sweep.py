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

Numerical environment: floating-point results can depend on how many threads a BLAS call uses
(OpenBLAS splits some reductions by thread), and Dask's nannies by default start workers with
``OMP/OPENBLAS/MKL_NUM_THREADS=1`` -- and leave those variables set in the process that started
them, so that a BLAS library loaded there later (SciPy's, say) runs single-threaded too.  So:

- ``workers=N`` (and :func:`local_cluster`) start the workers with the caller's own environment
  (the thread variables are not forced to 1) and restore the caller's ``os.environ`` afterwards;
  the workers then compute exactly what the caller computes.  N workers x T BLAS threads may
  oversubscribe the cores: that costs time, never results.
- ``scheduler=...`` (a cluster started by someone else): :func:`run` compares each worker's
  :func:`numeric_environment` (thread variables, CPU count, library versions) with the caller's
  and warns (``RuntimeWarning``) where they differ, since results may then differ in the last
  bits.  Start such workers with the caller's environment, e.g. ``dask worker ADDRESS
  --nworkers 4 --nthreads 1`` under the same ``OPENBLAS_NUM_THREADS`` as the in-process run.
- :func:`single_threaded_blas` (a context manager) holds every loaded BLAS to one thread inside
  a job, so that its summation orders, hence its results, are the same on any machine and in
  any worker (the ledger runs each check inside it).

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
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Sequence

import numpy as np

from ._threads import THREAD_VARIABLES, single_threaded_blas
from ._validate import check_callable, check_int, check_positive

__all__ = ["Job", "grid", "spawn_seeds", "run", "executor_description", "local_cluster",
           "numeric_environment", "single_threaded_blas", "THREAD_VARIABLES"]

#: Seconds to wait for a connection to an existing scheduler.
CONNECT_TIMEOUT = 30


@dataclass(frozen=True)
class Job:
    """One unit of work: ``func(*args, **kwargs)``; ``label`` names it in progress lines."""

    func: Callable
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if not callable(self.func):
            raise TypeError(f"Job func must be callable, got {type(self.func).__name__}")
        if not isinstance(self.args, tuple):
            raise TypeError(f"Job args must be a tuple, got {type(self.args).__name__}")
        if not isinstance(self.kwargs, dict):
            raise TypeError(f"Job kwargs must be a dict, got {type(self.kwargs).__name__}")

    def __call__(self) -> Any:
        return self.func(*self.args, **self.kwargs)

    @property
    def name(self) -> str:
        return self.label or getattr(self.func, "__name__", "job")


def spawn_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent 64-bit integer seeds derived from ``seed`` (``numpy.random.SeedSequence``).

    The same (seed, n) always gives the same list, and the first k seeds do not depend on n.
    """
    seed = check_int(seed, "seed", minimum=0)  # the seed rule of yatmath._validate.as_rng
    n = check_int(n, "n", minimum=0)
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


def _as_jobs(jobs: Iterable[Job | Callable[[], Any]]) -> list[Job]:
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
    return check_int(workers, "workers", minimum=1)


def _check_scheduler(scheduler):
    if scheduler is None or isinstance(scheduler, str) and scheduler.strip():
        return scheduler
    if type(scheduler).__name__ == "Client" and hasattr(scheduler, "submit"):
        return scheduler
    raise TypeError("scheduler must be a Dask scheduler address such as 'tcp://host:8786' "
                    f"or a distributed.Client, got {scheduler!r}")


def executor_description(scheduler: Any = None, workers: int | None = None) -> str:
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


def run(jobs: Iterable[Job | Callable[[], Any]], *, scheduler: Any = None,
        workers: int | None = None, retries: int = 3,
        on_start: Callable[[int], Any] | None = None,
        on_done: Callable[[int, int, Any], Any] | None = None,
        progress: bool = False, timeout: float | None = None) -> list[Any]:
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
    retries = check_int(retries, "retries", minimum=0)
    if timeout is not None:
        timeout = check_positive(timeout, "timeout")
    for name, cb in (("on_start", on_start), ("on_done", on_done)):
        if cb is not None:
            check_callable(cb, name)
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


def _run_local(jobs: list[Job], on_start: Callable[[int], Any] | None,
               on_done: Callable[[int, int, Any], Any] | None) -> list[Any]:
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
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("running on Dask needs dask.distributed: "
                          "pip install 'yatmath[distributed]'") from exc
    return distributed


def numeric_environment() -> dict[str, Any]:
    """What, besides a job's arguments, can change its floating-point results in this process:
    the thread variables (None when unset), ``os.cpu_count()`` (the default thread count) and the
    versions of numpy, scipy and numba."""
    import importlib.metadata
    import os

    env: dict = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    env["cpu_count"] = os.cpu_count()
    for pkg in ("numpy", "scipy", "numba"):
        try:
            env[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            env[pkg] = None
    return env


class local_cluster:
    """A Dask ``LocalCluster`` of ``workers`` single-threaded worker processes whose environment
    is the caller's (module docstring), as a context manager that closes it and restores
    ``os.environ``::

        with sweep.local_cluster(4) as cluster:
            results = sweep.run(jobs, scheduler=cluster.scheduler_address)

    ``**kwargs`` go to ``LocalCluster`` (e.g. ``env=`` to set worker variables on purpose).
    """

    def __init__(self, workers: int, **kwargs: Any) -> None:
        self.workers = check_int(workers, "workers", minimum=1)
        self.kwargs = kwargs
        self.cluster = None

    def __enter__(self) -> Any:
        import logging
        import os

        import dask

        distributed = _import_distributed()
        self._environ = dict(os.environ)
        spawn_env = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ",
                                                      {}).items() if k not in THREAD_VARIABLES}
        kw = dict(n_workers=self.workers, threads_per_worker=1, processes=True,
                  dashboard_address=":0", silence_logs=logging.ERROR)
        kw.update(self.kwargs)
        try:
            # pre-spawn-environ is read by each Nanny when it is created (restarts reuse it)
            with dask.config.set({"distributed.nanny.pre-spawn-environ": spawn_env}):
                self.cluster = distributed.LocalCluster(**kw)
        except BaseException:
            self._restore()
            raise
        return self.cluster

    def _restore(self) -> None:
        import os

        os.environ.clear()
        os.environ.update(self._environ)

    def __exit__(self, *exc: object) -> Literal[False]:
        try:
            if self.cluster is not None:
                self.cluster.close()
        finally:
            self._restore()
        return False


def _run_dask(jobs: list[Job], scheduler: Any, workers: int | None, retries: int,
              on_done: Callable[[int, int, Any], Any] | None,
              timeout: float | None) -> list[Any]:
    import contextlib

    distributed = _import_distributed()
    with contextlib.ExitStack() as stack:
        if workers is not None:
            cluster = stack.enter_context(local_cluster(workers))
            client = stack.enter_context(distributed.Client(cluster))
        elif isinstance(scheduler, distributed.Client):
            client = scheduler   # the caller's: not closed here
            _warn_on_environment_mismatch(client)
        else:
            client = stack.enter_context(distributed.Client(scheduler, timeout=CONNECT_TIMEOUT))
            _warn_on_environment_mismatch(client)
        return _gather_in_order(client, jobs, retries, on_done, timeout, distributed)


def _warn_on_environment_mismatch(client):
    import warnings

    mine = numeric_environment()
    theirs = client.run(numeric_environment)
    diffs = sorted({f"{k}: here {mine[k]!r}, worker {env.get(k)!r}" for env in theirs.values()
                    for k in mine if env.get(k) != mine[k]})
    if diffs:
        warnings.warn("the Dask workers' numerical environment differs from this process's, so "
                      "results may differ from an in-process run in the last bits: "
                      + "; ".join(diffs), RuntimeWarning, stacklevel=4)


def _call(job: Job) -> Any:
    """What a worker runs (a module-level function, so it pickles by reference)."""
    return job()


def _gather_in_order(client: Any, jobs: list[Job], retries: int,
                     on_done: Callable[[int, int, Any], Any] | None, timeout: float | None,
                     distributed: Any) -> list[Any]:
    futures = [client.submit(_call, job, pure=False, retries=retries) for job in jobs]
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
