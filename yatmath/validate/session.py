"""How a validation runs: plans checked before any work, the target's calls in a child process.

``make_plan`` checks everything that needs no target code (kind, framework and whether it is
installed, dtypes, the settings and their types, where a factory may come from; a named target
whose kind is not known is left to ``prepare``, so that a typo in its name is said first).
``prepare`` imports the target and checks its signature against the kind (where the signature
cannot tell, with one call on a 2 x 2 input: ``adapters.probe_signature``); ``run_session``
prepares every target first (so a bad target is refused before any suite runs), then runs the
suites, one ``SuiteResult`` per (suite, dtype), sending events to ``emit``.  Once they have
begun nothing is a usage error: an error that escapes them fails the suite in progress.

Time limit (``timeout``, seconds per call of target code; the command's ``--timeout``): the
session runs in a child process that tells the parent, through the pipe that carries its results,
when a call of target code (its import included) starts and ends; the parent times the call.  A
call that outlives the limit gets the child killed (with its process group: whatever the target
started goes too), the suite in progress fails naming the call, and that target's later suites
are recorded as not run; later targets of a group run in a fresh child.  A child that ends
without a verdict (``os._exit``, a crash, a signal) fails the same way.  Why a child process and
not a watchdog thread or ``signal.alarm``: Python cannot stop a thread, an alarm only interrupts
Python bytecode of the main thread (not a BLAS call or a loop in C) and a target can catch the
exception it raises; a process can always be killed, and its death cannot take with it the
verdicts already sent.  A named target (``package.module:callable``) runs in a fresh interpreter
(``python -c``, its own session; the parent's ``sys.path`` is passed on), so its module's
import-time code never runs in the caller.  A target object (Python API) cannot be named in a
fresh interpreter, so it is inherited by ``fork`` (POSIX only; forking a process that has started
threads -- JAX's, a parallel Numba layer's -- is at your own risk: name the target instead).  Without ``timeout`` (the Python API's default) everything
runs in the calling process, with every check but the time limit.

Exit statuses of the command map onto what is raised here: ``PreflightError`` wrapping a
``ValueError``/``TypeError`` (2) or a ``FrameworkUnavailable`` (3); a report that did not pass (1).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import numpy.typing as npt

from ..testing.generators import dtype_name
from . import suites
from .adapters import (FRAMEWORKS, KERNEL_KINDS, KINDS, Calls, Clock, Framework,
                       FrameworkUnavailable,
                       KernelAdapter, NotApplicable, NullClock, TargetFailure, TargetImportExit,
                       _yat_features_factory, check_factory, check_settings, check_signature,
                       preset, probe_signature, require_framework, resolve, split_target,
                       target_module)
from .report import Report, versions
from .suites import SuiteResult

if TYPE_CHECKING:   # annotations only: subprocess is imported where a child is started
    import subprocess

DEFAULT_DTYPES = ("float32", "float64")


class PreflightError(Exception):
    """A usage problem found before any work: ``error`` is the ValueError/TypeError (exit status
    2) or FrameworkUnavailable (exit status 3) to report."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class Plan:
    """One target's run, checked without running any of its code."""

    target: object            # "package.module:callable" or the object
    name: str
    kind: str | None          # None: a named target of unknown kind (said by ``prepare``)
    framework: str
    dtypes: tuple[str, ...]
    quick: bool
    options: dict[str, Any]   # the caller's settings, checked
    opts: dict[str, Any]      # the preset's settings with the caller's over them
    allow: tuple[str, ...] = ()
    # the arguments, to re-plan in a child
    spec: dict[str, Any] = field(default_factory=dict, repr=False)


def _module_names(allow: str | Iterable[str] | None, label: str) -> tuple[str, ...]:
    if isinstance(allow, str):
        allow = (allow,)
    out = []
    for a in allow or ():
        if not isinstance(a, str) or not all(p.isidentifier() for p in a.split(".")):
            raise ValueError(f"{label} must name a module (package.module), got {a!r}")
        out.append(a)
    return tuple(out)


def make_plan(target: object, kind: str | None = None, framework: str | None = None,
              dtypes: str | Iterable[npt.DTypeLike] = DEFAULT_DTYPES, *,
              quick: bool = False, allow: str | Iterable[str] = (),
              options: Mapping[str, Any] | None = None, prefix: str = "option ",
              names: Mapping[str, str] | None = None) -> Plan:
    """A ``Plan`` for ``target``, or ValueError/TypeError naming the argument that cannot work,
    or FrameworkUnavailable.  ``prefix``/``names``: how messages name a setting (the command
    says ``--set key``)."""
    options = dict(options or {})
    spec = dict(target=target, kind=kind, framework=framework, dtypes=dtypes, quick=quick,
                allow=allow, options=dict(options), prefix=prefix, names=names)
    if isinstance(target, str):
        split_target(target)
    elif target is None:
        raise TypeError("target must be 'package.module:callable' or a callable, got None")
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    allow = _module_names(allow, "--allow" if prefix.startswith("--") else "allow")
    pre = preset(target)
    kind = kind or pre.pop("kind", None)
    pre.pop("kind", None)
    cli = prefix.startswith("--")
    # a named target of unknown kind: said by ``prepare`` once the target is imported, so that
    # a typo in the target ('yatmath.yat:gramm') is reported as such and not as a missing kind
    deferred = kind is None and isinstance(target, str)
    if not deferred and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} (not known for target {target!r}; "
                         f"pass {'--kind' if cli else 'kind='}), got {kind!r}")
    framework = framework or pre.pop("framework", None) or "numpy"
    pre.pop("framework", None)
    if framework not in FRAMEWORKS:
        raise ValueError(f"framework must be one of {FRAMEWORKS}, got {framework!r}")
    if isinstance(dtypes, str):
        dtypes = (dtypes,)
    dtypes = tuple(dtype_name(d) for d in dtypes)
    if not dtypes:
        raise ValueError("dtypes must name at least one dtype, got ()")
    for dt in dtypes:
        if dt == "bfloat16" and framework == "numpy":
            raise ValueError(f"dtype {dt!r} is not available in framework {framework!r}; use "
                             f"--framework torch or jax")
    if deferred:
        require_framework(framework)
        return Plan(target, target, None, framework, dtypes, quick,  # type: ignore[arg-type]
                    dict(options), dict(options),
                    allow, spec)
    checked = check_settings(kind, options,
                             prefix=prefix, names=names, factory_module=target_module(target),
                             allow=allow)
    require_framework(framework)
    name = target if isinstance(target, str) else getattr(target, "__name__", repr(target))
    return Plan(target, name, kind, framework, dtypes, quick, checked, {**pre, **checked}, allow,
                spec)


# ---------------------------------------------------------------- preparing and running (child)

@dataclass
class Prepared:
    plan: Plan
    fw: Framework
    calls: Calls
    steps: list[tuple[str, str, Callable[[str], SuiteResult]]]   # (label, dtype, job(dtype))


def prepare(plan: Plan, clock: Clock | None = None) -> Prepared:
    """Import the target, check it against its kind, build its steps.  ValueError/TypeError for
    a target that cannot be checked; TargetImportExit for a module that exits while imported."""
    clock = clock or NullClock()
    obj = resolve(plan.target, clock)       # first: a typo in the target is said as such
    cli = plan.spec.get("prefix", "option ").startswith("--")
    if plan.kind is None:
        raise ValueError(f"target {plan.name!r} is found, but its kind is not known (it is none "
                         f"of yatmath's or nmn's presets): pass {'--kind' if cli else 'kind=...'}"
                         f", one of {', '.join(KINDS)}")
    fw = Framework(plan.framework)
    calls = Calls(fw, clock)
    opts = plan.opts
    bias_fix = "--bias none" if cli else "bias='none'"
    check_signature(obj, plan.kind, opts, plan.name, bias_fix=bias_fix)
    probe_signature(obj, plan.kind, opts, plan.name, fw, clock, bias_fix=bias_fix)
    quick = plan.quick
    kind = plan.kind
    if kind in KERNEL_KINDS:
        ad = KernelAdapter(obj, kind, fw, bias=opts.get("bias", "inner"),
                           scale=opts.get("scale", 1.0), alpha_factor=opts.get("alpha_factor", 1.0),
                           init=opts.get("init"), calls=calls)
        ad.bias_fix = bias_fix
        jobs = [("accuracy", lambda dt: suites.accuracy(ad, dt, quick=quick)),
                ("gram", lambda dt: suites.gram_properties(ad, dt, quick=quick)),
                ("gradients", lambda dt: suites.gradients(ad, dt, quick=quick)),
                ("properties", lambda dt: suites.kernel_properties(ad, dt, quick=quick))]
    elif kind == "attention":
        o = dict(opts, _target=obj)
        jobs = [("attention", lambda dt: suites.attention(obj, fw, o, dt, quick=quick,
                                                          calls=calls)),
                ("properties", lambda dt: suites.attention_properties(obj, fw, o, dt,
                                                                      quick=quick,
                                                                      calls=calls))]
    else:
        factory = opts.get("factory")
        if factory is None:
            factory = (_yat_features_factory(opts.get("method", "series"))
                       if kind == "linear_attention" else obj)
        fname = factory if isinstance(factory, str) else getattr(factory, "__name__",
                                                                   repr(factory))
        if isinstance(factory, str):
            factory = resolve(factory, clock, what="factory")
        check_factory(factory, fname)
        if kind == "linear_attention":
            jobs = [("linear", lambda dt: suites.linear_readout(obj, factory, fw, opts, dt,
                                                                quick=quick, calls=calls)),
                    ("budget", lambda dt: suites.budget(factory, fw, opts, dt, quick=quick,
                                                        linear=obj, calls=calls))]
        else:
            jobs = [("unbiased", lambda dt: suites.unbiased(factory, fw, opts, dt, quick=quick,
                                                            calls=calls)),
                    ("budget", lambda dt: suites.budget(factory, fw, opts, dt, quick=quick,
                                                        calls=calls))]
    steps = [(label, dt, job) for dt in plan.dtypes for label, job in jobs]
    return Prepared(plan, fw, calls, steps)


def run_step(prep: Prepared, label: str, dt: str,
             job: Callable[[str], SuiteResult]) -> SuiteResult:
    """One suite on one dtype: a ``SuiteResult`` whatever the target does."""
    calls = prep.calls
    calls.reset()
    t = time.perf_counter()
    try:
        res = job(dt)
    except TargetFailure as exc:
        res = SuiteResult(label, dt, False, note=str(exc), problems=[str(exc)])
    except NotApplicable as exc:
        res = suites.not_applicable(label, dt, str(exc))
    except Exception as exc:     # the suite could not judge what the target returned
        msg = (f"the suite could not judge the target's results: {type(exc).__name__}: "
               f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}")
        res = SuiteResult(label, dt, False, note=msg, problems=[msg])
    res.seconds = time.perf_counter() - t
    extra = calls.problems()
    if extra:
        res.passed = False
        res.problems = list(res.problems) + extra
        res.note = "; ".join(extra) + (f"; {res.note}" if res.note else "")
    calls.reset()
    return res


def run_session(items: Sequence[tuple[int, Plan]], emit: Callable[[tuple[Any, ...]], object],
                clock: Clock | None = None) -> None:
    """Prepare every (index, plan) of ``items`` (usage errors raise before any step), then run
    the steps, emitting ("preparing", i), ("ready", {i: (versions, [(label, dtype), ...])}),
    ("start", i, s), ("result", i, s, SuiteResult), ("problem", i, text), ("target_done", i)."""
    clock = clock or NullClock()
    prepared: dict[int, Prepared | TargetImportExit] = {}
    for i, plan in items:
        emit(("preparing", i))
        try:
            prepared[i] = prepare(plan, clock)
        except TargetImportExit as exc:
            prepared[i] = exc
    emit(("ready", {i: (versions(plan.framework),
                        [] if isinstance(prepared[i], TargetImportExit)
                        else [(lb, dt)
                              for lb, dt, _ in prepared[i].steps])  # type: ignore[union-attr]
                    for i, plan in items}))
    for i, _plan in items:
        prep = prepared[i]
        if isinstance(prep, TargetImportExit):
            emit(("problem", i, str(prep)))
        else:
            for s, (label, dt, job) in enumerate(prep.steps):
                emit(("start", i, s))
                emit(("result", i, s, run_step(prep, label, dt, job)))
        emit(("target_done", i))


# ---------------------------------------------------------------- the parent

def _say(progress: bool | Callable[[str], object] | None) -> Callable[[str], object] | None:
    if not progress:
        return None
    if progress is True:
        def report(msg: str) -> None:
            sys.stderr.write(msg + "\n")
            sys.stderr.flush()
        return report
    return progress


class _Collector:
    """Builds the reports from the events of one or several sessions."""

    reports: dict[int, Report]
    steps: dict[int, list[tuple[str, str]]]
    done: set[int]
    preparing: int | None
    current: tuple[int, int] | None

    def __init__(self, plans: Sequence[Plan], progress: bool | Callable[[str], object] | None,
                 on_report: Callable[[int, Report], object] | None,
                 timeout: float | None) -> None:
        self.plans = plans
        self.say = _say(progress)
        self.on_report = on_report
        self.reports = {}
        for i, p in enumerate(plans):
            settings = dict(p.opts, quick=p.quick)
            if timeout is not None:
                settings["timeout"] = timeout
            self.reports[i] = Report(p.name, p.kind, p.framework,  # type: ignore[arg-type]
                                     settings)
        self.steps = {}
        self.done = set()
        self.preparing = None
        self.current = None        # (i, s) of the step in progress
        self.ready = False

    def handle(self, msg: tuple[Any, ...]) -> None:
        tag = msg[0]
        if tag == "preparing":
            self.preparing = msg[1]
        elif tag == "ready":
            self.ready = True
            self.preparing = None
            for i, (vers, steps) in msg[1].items():
                self.reports[i].versions = vers
                self.steps[i] = steps
        elif tag == "start":
            i, s = msg[1], msg[2]
            self.current = (i, s)
            if self.say:
                label, dt = self.steps[i][s]
                self.say(f"[{s + 1}/{len(self.steps[i])}] {label} {dt} ...")
        elif tag == "result":
            i, s, res = msg[1], msg[2], msg[3]
            self.reports[i].results.append(res)
            self.current = None
            if self.say:
                self.say(f"[{s + 1}/{len(self.steps[i])}] {res.suite} {res.dtype}: "
                         f"{res.verdict.lower() if res.passed is not False else 'FAIL'} "
                         f"({res.seconds:.1f} s) {res.reason if res.passed is None else res.note}")
        elif tag == "problem":
            self.reports[msg[1]].problem = msg[2]
            if self.say:
                self.say(f"FAIL {self.plans[msg[1]].name}: {msg[2]}")
        elif tag == "target_done":
            self._finish(msg[1])

    def _finish(self, i: int) -> None:
        if i in self.done:
            return
        self.done.add(i)
        if self.on_report is not None:
            self.on_report(i, self.reports[i])

    def stopped(self, why: str) -> list[int]:
        """The child is gone (killed after ``why`` or died): fail what was in progress; return
        the indices of the targets still to run."""
        if self.current is not None:
            i, s = self.current
            label, dt = self.steps[i][s]
            self.reports[i].results.append(SuiteResult(label, dt, False, note=why,
                                                       problems=[why]))
            if self.say:
                self.say(f"[{s + 1}/{len(self.steps[i])}] {label} {dt}: FAIL {why}")
            for label2, dt2 in self.steps[i][s + 1:]:
                self.reports[i].results.append(SuiteResult(
                    label2, dt2, None, note=f"not run: the target was stopped in {label} {dt}"))
            self.current = None
            self._finish(i)
        elif self.preparing is not None and not self.ready:
            i = self.preparing
            self.reports[i].problem = why
            if self.say:
                self.say(f"FAIL {self.plans[i].name}: {why}")
            self._finish(i)
        elif self.ready:   # between steps: the target that was running is the one to blame
            pending = [i for i in range(len(self.plans)) if i not in self.done and i in self.steps]
            if pending:
                i = pending[0]
                self.reports[i].problem = why
                self._finish(i)
        self.preparing = None
        return [i for i in range(len(self.plans)) if i not in self.done]


def run_plans(plans: Sequence[Plan], *, timeout: float | None = None,
              progress: bool | Callable[[str], object] | None = None,
              on_report: Callable[[int, Report], object] | None = None,
              timeout_name: str = "timeout") -> list[Report]:
    """Run every plan; return their reports (in order).  ``on_report(i, report)`` is called as
    each target's report is complete.  Raises PreflightError before any work.  ``timeout_name``:
    how messages name the time limit (the command: --timeout)."""
    col = _Collector(plans, progress, on_report, timeout)
    if timeout is None:
        try:
            run_session(list(enumerate(plans)), col.handle)
        except (ValueError, TypeError, FrameworkUnavailable) as exc:
            if col.ready:
                raise
            raise PreflightError(exc) from exc
        return [col.reports[i] for i in range(len(plans))]
    pending = list(range(len(plans)))
    while pending:
        left = _run_child(plans, pending, col, timeout, timeout_name)
        if set(left) >= set(pending):     # no target got further: do not start it again
            raise RuntimeError("the process that runs the targets ended before it could start "
                               "them (see its error output above)")
        pending = left
    return [col.reports[i] for i in range(len(plans))]


class _PipeClock:
    """The child's side of the per-call clock: ("call", what) when a call of target code
    starts, ("end",) when it ends (nested calls keep the outer one); the parent times them."""

    def __init__(self, conn: Connection) -> None:
        self.conn, self.depth = conn, 0

    def start(self, what: str) -> None:
        if self.depth == 0:
            self.conn.send(("call", what))
        self.depth += 1

    def stop(self) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth == 0:
            self.conn.send(("end",))


def _child(conn: Connection, items: list[tuple[int, Any]], from_specs: bool) -> None:
    """The child's session: re-plan from the specs (a fresh interpreter) or use the inherited
    plans (fork), run, report usage errors as messages."""
    ready = []

    def send(msg: tuple[Any, ...]) -> None:
        if msg[0] == "ready":
            ready.append(True)
        conn.send(msg)

    try:
        if from_specs:
            items = [(i, make_plan(**spec)) for i, spec in items]
        run_session(items, send, _PipeClock(conn))
    except (ValueError, TypeError, FrameworkUnavailable) as exc:
        if ready:       # after the work began nothing is a usage error: the suite in progress
            conn.send(("internal", f"{type(exc).__name__}: {exc}"))      # fails, naming it
        elif isinstance(exc, FrameworkUnavailable):
            conn.send(("unavailable", str(exc)))
        else:
            conn.send(("usage", type(exc).__name__, str(exc)))
    conn.send(("done",))
    conn.close()


def _child_main(rfd: int, wfd: int) -> None:
    """Entry point of a fresh-interpreter child (``python -c``): the parent's sys.path and the
    specs come on ``rfd``, events go to ``wfd``."""
    from multiprocessing.connection import Connection

    inbox = Connection(rfd, writable=False)
    path, items = inbox.recv()
    inbox.close()
    sys.path[:] = path
    _child(Connection(wfd, readable=False), items, True)


def _forked(conn: Connection, items: list[tuple[int, Plan]]) -> None:
    try:
        os.setpgrp()        # its own process group: killing it takes what the target started
    except OSError:
        pass
    _child(conn, items, False)


class _Process:
    """The child running the targets: a fresh interpreter (``subprocess``, its own session) for
    named targets whose settings pickle, else a ``fork`` (target objects of the Python API)."""

    popen: subprocess.Popen[bytes] | None
    proc: Any                  # a multiprocessing Process of the "fork" context, or None
    conn: Connection

    def __init__(self, plans: Sequence[Plan], pending: Sequence[int]) -> None:
        specs = [(i, plans[i].spec) for i in pending]
        named = all(isinstance(plans[i].target, str) for i in pending)
        payload = None
        if named:
            try:
                payload = pickle.dumps((list(sys.path), specs))
            except Exception:
                payload = None
        if payload is not None:
            import subprocess
            from multiprocessing.connection import Connection

            r_in, w_in = os.pipe()       # parent -> child: sys.path and specs
            r_out, w_out = os.pipe()     # child -> parent: events
            # the folder yatmath is imported from goes first, so the child finds this yatmath
            # before it receives the parent's whole sys.path
            home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            code = ("import sys; sys.path.insert(0, sys.argv[3]); "
                    "from yatmath.validate.session import _child_main; "
                    "_child_main(int(sys.argv[1]), int(sys.argv[2]))")
            try:
                self.popen = subprocess.Popen([sys.executable, "-c", code, str(r_in), str(w_out),
                                               home], pass_fds=(r_in, w_out),
                                              start_new_session=True)
            finally:
                os.close(r_in)
                os.close(w_out)
            self.proc = None
            self.conn = Connection(r_out, writable=False)
            with Connection(w_in, readable=False) as inbox:
                inbox.send_bytes(payload)
            return
        if "fork" not in multiprocessing.get_all_start_methods():
            raise PreflightError(ValueError(
                "timeout needs a named target ('package.module:callable') on this platform"))
        ctx = multiprocessing.get_context("fork")
        self.conn, send = ctx.Pipe(duplex=False)
        self.popen = None
        self.proc = ctx.Process(target=_forked, args=(send, [(i, plans[i]) for i in pending]),
                                name="yatmath-validate-target")
        self.proc.start()
        send.close()

    def alive(self) -> bool:
        return self.popen.poll() is None if self.popen is not None else self.proc.is_alive()

    def exitcode(self) -> int | None:
        return self.popen.returncode if self.popen is not None else self.proc.exitcode

    def join(self, seconds: float) -> None:
        if self.popen is not None:
            import subprocess

            try:
                self.popen.wait(seconds)
            except subprocess.TimeoutExpired:
                pass
        else:
            self.proc.join(seconds)

    def kill(self) -> None:
        pid = self.popen.pid if self.popen is not None else self.proc.pid
        try:
            os.killpg(pid, signal.SIGKILL)       # the child and whatever it started
        except (OSError, AttributeError):
            pass
        try:
            (self.popen or self.proc).kill()
        except Exception:
            pass
        self.join(5)


def _run_child(plans: Sequence[Plan], pending: Sequence[int], col: _Collector, timeout: float,
               timeout_name: str = "timeout") -> list[int]:
    """Run the targets ``pending`` in one child; return those left to run when it stops."""
    child = _Process(plans, pending)
    conn = child.conn
    # call: (start time, what) of target code running
    state: dict[str, Any] = {"call": None, "done": False}

    def drain() -> None:
        while not state["done"]:
            try:
                if not conn.poll():
                    return
                msg = conn.recv()
            except (EOFError, OSError):
                return
            tag = msg[0]
            if tag == "call":
                state["call"] = (time.monotonic(), msg[1])
            elif tag == "end":
                state["call"] = None
            elif tag == "done":
                state["done"] = True
            elif tag == "usage":
                raise PreflightError(TypeError(msg[2]) if msg[1] == "TypeError"
                                     else ValueError(msg[2]))
            elif tag == "unavailable":
                raise PreflightError(FrameworkUnavailable(msg[1]))
            elif tag == "internal":
                state["internal"] = msg[1]
            else:
                col.handle(msg)

    try:
        while True:
            multiprocessing.connection.wait([conn], timeout=0.1)
            drain()
            if state["done"]:
                child.join(10)
                if state.get("internal"):
                    return col.stopped(f"yatmath validate could not go on: {state['internal']}")
                return [i for i in range(len(plans)) if i not in col.done]
            call = state["call"]
            if call is not None and time.monotonic() - call[0] > timeout:
                child.kill()
                return col.stopped(f"{call[1]} did not finish within the per-call time limit "
                                   f"of {timeout:g} s ({timeout_name}); the target was stopped")
            if not child.alive():
                drain()          # what it sent before it went
                if state["done"]:
                    if state.get("internal"):
                        return col.stopped(f"yatmath validate could not go on: "
                                           f"{state['internal']}")
                    return [i for i in range(len(plans)) if i not in col.done]
                code = child.exitcode()
                how = (f"killed by signal {-code}" if code is not None and code < 0
                       else f"exit status {code}")
                call = state["call"]
                what = call[1] if call is not None else "a step between calls"
                return col.stopped(f"the process running the target ended without a verdict "
                                   f"({how}) during {what}: os._exit, a crash or a signal")
    finally:
        if child.alive():
            child.kill()
        conn.close()
