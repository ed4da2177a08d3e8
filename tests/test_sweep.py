"""yatmath.sweep and ``yatmath check --workers/--scheduler``: in-process vs Dask give the same
results; a worker killed mid-sweep costs no result; an interrupted distributed ledger run leaves
no files.

Every Dask cluster here is a ``LocalCluster`` of 2 worker processes with one thread each, closed
in a fixture or ``finally``; every wait has a timeout (``RESULT_TIMEOUT``), so a stuck cluster
fails the test instead of hanging it.
"""
from __future__ import annotations

import json
import os
import signal
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")   # in the `test` extra; see pyproject.toml
psutil = pytest.importorskip("psutil")             # a dependency of distributed

from yatmath import sweep  # noqa: E402
from yatmath.cli import main as yatmath_main  # noqa: E402
from yatmath.yat import gram  # noqa: E402

RESULT_TIMEOUT = 90  # seconds; a healthy run of any sweep here takes a few


# --------------------------------------------------------------------------------------------
# jobs (module level, so worker processes import them by reference)


def _gram_job(seed, N, d):
    """A small seeded computation whose result is a float64 array (compared bit for bit)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, d))
    G = gram(X, None, 0.1, backend="numpy")
    return G @ rng.normal(size=N)


def _slow_job(seed, delay, marker_dir):
    """Leave a marker naming this attempt's process, sleep, then return a seeded value."""
    Path(marker_dir, f"{seed}.{os.getpid()}").touch()
    time.sleep(delay)
    return float(np.random.default_rng(seed).standard_normal(5).sum())


def _fail_job(x):
    raise ArithmeticError(f"job {x} failed on purpose")


@pytest.fixture(scope="module")
def cluster():
    """2 worker processes, 1 thread each, with this process's environment; always closed."""
    with sweep.local_cluster(2, silence_logs=50) as c:
        yield c


def _spawned_children():
    """Live child processes started by multiprocessing spawn (Dask nannies/workers)."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            cmd = " ".join(p.cmdline())
        except psutil.Error:
            continue
        if "spawn_main" in cmd and "resource_tracker" not in cmd:
            out.append(p)
    return out


# --------------------------------------------------------------------------------------------
# in-process


def test_in_process_results_in_order_with_progress_callbacks():
    starts, dones = [], []
    jobs = [sweep.Job(pow, (i, 2), label=f"sq{i}") for i in range(5)] + [lambda: "last"]
    out = sweep.run(jobs, on_start=starts.append, on_done=lambda c, i, r: dones.append((c, i, r)))
    assert out == [0, 1, 4, 9, 16, "last"]
    assert starts == list(range(6))
    assert dones == [(k + 1, k, r) for k, r in enumerate(out)]


def test_progress_true_prints_one_line_per_job(capsys):
    sweep.run(sweep.grid(pow, base=[2, 3], exp=[1, 2]), progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    assert [ln.split(" done")[0] for ln in lines] == [
        "[1/4] base=2,exp=1", "[2/4] base=2,exp=2", "[3/4] base=3,exp=1", "[4/4] base=3,exp=2"]


def test_grid_is_the_cartesian_product_last_axis_fastest():
    jobs = sweep.grid(_gram_job, seed=[1, 2], N=[3], d=[4, 5])
    assert [j.kwargs for j in jobs] == [dict(seed=s, N=3, d=d) for s in (1, 2) for d in (4, 5)]
    assert jobs[1].label == "seed=1,N=3,d=5"


def test_spawn_seeds_deterministic_distinct_and_prefix_stable():
    a, b = sweep.spawn_seeds(7, 6), sweep.spawn_seeds(7, 6)
    assert a == b and len(set(a)) == 6
    assert sweep.spawn_seeds(7, 3) == a[:3]
    assert sweep.spawn_seeds(8, 3) != a[:3]
    assert all(isinstance(s, int) and 0 <= s < 2 ** 64 for s in a)


@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(jobs=[1]), TypeError, "jobs[0]"),
    (dict(jobs=5), TypeError, "jobs"),
    (dict(jobs=[], workers=0), ValueError, "workers"),
    (dict(jobs=[], workers=1.5), TypeError, "workers"),
    (dict(jobs=[], workers=True), TypeError, "workers"),
    (dict(jobs=[], scheduler=8786), TypeError, "scheduler"),
    (dict(jobs=[], scheduler="tcp://x:1", workers=2), ValueError, "workers"),
    (dict(jobs=[], retries=-1), ValueError, "retries"),
    (dict(jobs=[], timeout=0), ValueError, "timeout"),
    (dict(jobs=[], on_done=3), TypeError, "on_done"),
])
def test_bad_arguments_raise_naming_the_argument(kwargs, exc, name):
    jobs = kwargs.pop("jobs")
    with pytest.raises(exc, match=name.replace("[", r"\[").replace("]", r"\]")):
        sweep.run(jobs, **kwargs)


def test_bad_job_and_grid_arguments():
    with pytest.raises(TypeError, match="func"):
        sweep.Job(3)
    with pytest.raises(TypeError, match="args"):
        sweep.Job(pow, [1, 2])
    with pytest.raises(TypeError, match="axis 'N'"):
        sweep.grid(pow, N=5)
    with pytest.raises(ValueError, match="seed"):
        sweep.spawn_seeds(-1, 2)


# --------------------------------------------------------------------------------------------
# Dask


def test_dask_results_identical_to_in_process(cluster):
    """Same jobs and seeds: every result array is bit-for-bit the in-process one, in order;
    the cluster is reached through its scheduler address, as ``--scheduler`` does."""
    jobs = sweep.grid(_gram_job, seed=sweep.spawn_seeds(3, 3), N=[5, 40], d=[2, 7])
    local = sweep.run(jobs)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # same environment: no warning
        remote = sweep.run(jobs, scheduler=cluster.scheduler_address, timeout=RESULT_TIMEOUT,
                           on_done=lambda c, i, r: seen.append((c, i)))
    assert len(remote) == len(local) == 12
    for a, b in zip(local, remote):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert [c for c, _ in seen] == list(range(1, 13))        # progress for every job
    assert sorted(i for _, i in seen) == list(range(12))


def test_workers_share_the_callers_numerical_environment(cluster):
    """Dask's nannies would set OPENBLAS/OMP/MKL_NUM_THREADS=1 on the workers (and in this
    process); ``local_cluster`` does not, so the workers' thread settings are ours, and
    ``os.environ`` here is untouched (checked at the end of the module's cluster tests)."""
    mine = sweep.numeric_environment()
    theirs = sweep.run([sweep.numeric_environment] * 2, scheduler=cluster.scheduler_address,
                       timeout=RESULT_TIMEOUT)
    assert theirs == [mine, mine]


def test_mismatched_worker_environment_warns():
    """A cluster whose workers run under other thread settings is still used, with a warning
    naming the difference."""
    with sweep.local_cluster(1, env={"OPENBLAS_NUM_THREADS": "7"}, silence_logs=50) as c:
        with pytest.warns(RuntimeWarning, match=r"OPENBLAS_NUM_THREADS: here .*, worker '7'"):
            out = sweep.run([sweep.Job(pow, (3, 2))], scheduler=c.scheduler_address,
                            timeout=RESULT_TIMEOUT)
    assert out == [9]


def test_dask_job_error_propagates(cluster):
    with distributed.Client(cluster) as client:
        with pytest.raises(ArithmeticError, match="job 1 failed"):
            sweep.run([sweep.Job(_fail_job, (1,))], scheduler=client, retries=0,
                      timeout=RESULT_TIMEOUT)
        # the caller's client is not closed by run()
        assert client.status == "running"


def _markers(marker_dir):
    """{(seed, pid)} of every job attempt started so far."""
    return {tuple(int(v) for v in f.name.split(".")) for f in Path(marker_dir).iterdir()}


@pytest.mark.slow
def test_sweep_survives_a_killed_worker(tmp_path):
    """SIGKILL one worker process while it runs a job: the sweep still returns every result,
    equal to the in-process ones and in order, and the job the killed worker was running is
    re-run by another process (the markers name the process of every attempt).

    The first job takes 0.2 s and the others 1.5 s, so when the first result arrives the other
    worker is well inside a job; the callback waits (up to 30 s, for a loaded machine) until
    that job's marker exists, then kills its process."""
    n = 6
    marker_dir = tmp_path / "markers"
    marker_dir.mkdir()
    seeds = list(range(100, 100 + n))
    expected = [float(np.random.default_rng(s).standard_normal(5).sum()) for s in seeds]
    jobs = [sweep.Job(_slow_job, (s, 0.2 if k == 0 else 1.5, str(marker_dir)), label=str(s))
            for k, s in enumerate(seeds)]
    environ = dict(os.environ)
    killed, completed = {}, set()
    with sweep.local_cluster(2, silence_logs=50) as cl:
        with distributed.Client(cl) as client:
            client.wait_for_workers(2, timeout=RESULT_TIMEOUT)

            def kill_running_worker(count, index, result):
                completed.add(seeds[index])
                if killed:
                    return
                done_pid = {p for s, p in _markers(marker_dir) if s == seeds[index]}
                deadline = time.monotonic() + 30
                while True:
                    live = set(client.run(os.getpid).values()) - done_pid
                    running = sorted((s, p) for s, p in _markers(marker_dir)
                                     if p in live and s not in completed)
                    if running or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                assert running, "no job in progress on another worker to kill"
                seed, pid = running[0]
                os.kill(pid, signal.SIGKILL)
                killed.update(seed=seed, pid=pid, at_count=count)

            out = sweep.run(jobs, scheduler=client, retries=3, on_done=kill_running_worker,
                            timeout=RESULT_TIMEOUT)
    assert dict(os.environ) == environ                 # local_cluster restored our environment
    assert killed and killed["at_count"] == 1          # the kill happened mid-sweep
    assert out == expected                             # every result, correct, in order
    assert not psutil.pid_exists(killed["pid"]) or \
        psutil.Process(killed["pid"]).status() == psutil.STATUS_ZOMBIE
    attempts = {}
    for seed, pid in _markers(marker_dir):
        attempts.setdefault(seed, set()).add(pid)
    assert sorted(attempts) == seeds
    # the interrupted job was started again by a process other than the killed one
    assert killed["pid"] in attempts[killed["seed"]] and len(attempts[killed["seed"]]) >= 2


# --------------------------------------------------------------------------------------------
# the ledger on a cluster


def _ledger(out: Path):
    recs = json.loads((out / "ledger.json").read_text())
    for r in recs:
        r.pop("seconds")
    meta = json.loads((out / "ledger.meta.json").read_text())
    for k in ("total_seconds", "finished_utc", "executor"):
        meta["run"].pop(k)
    return recs, meta


@pytest.mark.slow
def test_ledger_on_two_workers_equals_in_process_ledger(tmp_path, capsys):
    """``--workers 2`` writes the in-process ledger (records and run metadata) apart from
    timings.  yat.simplex.self_similarity_eps is included because its SLSQP argmax differs in
    the last bits when the workers' BLAS runs single-threaded (Dask's default) and the caller's
    does not: it checks the thread pinning of ``yatmath.sweep`` on machines with > 1 core."""
    only = "yat.def.*,yat.simplex.self_similarity_eps"
    args = ["check", "--only", only, "--seed", "0"]
    assert yatmath_main(args + ["--out", str(tmp_path / "local")]) == 0
    assert yatmath_main(args + ["--out", str(tmp_path / "dask"), "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert "LocalCluster (2 worker processes)" in err
    assert err.count("[3/3] yat.") == 2                # progress lines from both runs
    local, dask = _ledger(tmp_path / "local"), _ledger(tmp_path / "dask")
    assert [r["id"] for r in local[0]] == ["yat.def.basic", "yat.def.expanded_form",
                                           "yat.simplex.self_similarity_eps"]
    assert dask == local
    meta = json.loads((tmp_path / "dask" / "ledger.meta.json").read_text())
    assert meta["run"]["executor"].startswith("dask LocalCluster")


@pytest.mark.slow
def test_interrupted_distributed_run_leaves_no_files(tmp_path, monkeypatch, capsys):
    """Ctrl-C as the first result comes back: exit 130, no ledger (nor temp file) written, and
    the LocalCluster started for the run is closed (no worker process left).  The check that
    finished is kept in the cache (DIR/.cache) so that a re-run resumes from it."""
    from proofs_check import runner

    def interrupt(self, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner.Progress, "done", interrupt)
    before = {p.pid for p in _spawned_children()}
    out = tmp_path / "ledger"
    rc = yatmath_main(["check", "--only", "yat.def.*", "--out", str(out), "--workers", "2"])
    assert rc == 130
    assert "no ledger written" in capsys.readouterr().err
    assert not out.exists() or [p.name for p in out.iterdir()] in ([], [".cache"])
    assert not list(out.rglob("*.tmp"))
    left = [p for p in _spawned_children() if p.pid not in before]
    _, alive = psutil.wait_procs(left, timeout=20)
    assert alive == []


def test_unreachable_scheduler_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sweep, "CONNECT_TIMEOUT", 2)
    out = tmp_path / "ledger"
    rc = yatmath_main(["check", "--only", "yat.def.basic", "--out", str(out),
                       "--scheduler", "tcp://127.0.0.1:9"])
    assert rc == 2
    assert "cannot run on dask cluster at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert not out.exists()


def test_workers_must_be_positive(capsys):
    with pytest.raises(SystemExit) as e:
        yatmath_main(["check", "--workers", "0"])
    assert e.value.code == 2
    assert "--workers must be an integer >= 1" in capsys.readouterr().err
