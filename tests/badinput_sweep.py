"""Bad-input rows for ``yatmath.sweep`` (see tests/badinput.py)."""
from __future__ import annotations

from yatmath import sweep

from tests.badinput import Case


def _ok():
    return 1


ROWS = [
    Case("yatmath.sweep.Job", "func", 3, lambda v: sweep.Job(v), TypeError, ("callable",)),
    Case("yatmath.sweep.Job", "args", [1], lambda v: sweep.Job(_ok, v), TypeError, ("tuple",)),
    Case("yatmath.sweep.Job", "kwargs", (1,), lambda v: sweep.Job(_ok, (), v), TypeError,
         ("dict",)),
    Case("yatmath.sweep.grid", "func", None, lambda v: sweep.grid(v, N=[1]), TypeError,
         ("callable",)),
    Case("yatmath.sweep.grid", "N", 5, lambda v: sweep.grid(_ok, N=v), TypeError,
         ("sequence",), note="an axis must be a sequence of values"),
    Case("yatmath.sweep.spawn_seeds", "seed", -1, lambda v: sweep.spawn_seeds(v, 2), ValueError,
         (">= 0",)),
    Case("yatmath.sweep.spawn_seeds", "seed", 1.5, lambda v: sweep.spawn_seeds(v, 2), TypeError,
         ("integer",)),
    Case("yatmath.sweep.spawn_seeds", "n", -2, lambda v: sweep.spawn_seeds(0, v), ValueError,
         (">= 0",)),
    Case("yatmath.sweep.spawn_seeds", "n", True, lambda v: sweep.spawn_seeds(0, v), TypeError,
         ("integer",)),
    Case("yatmath.sweep.run", "jobs", 5, lambda v: sweep.run(v), TypeError, ("iterable",)),
    Case("yatmath.sweep.run", "workers", 0, lambda v: sweep.run([], workers=v), ValueError,
         (">= 1",)),
    Case("yatmath.sweep.run", "workers", 2.0, lambda v: sweep.run([], workers=v), TypeError,
         ("integer",)),
    Case("yatmath.sweep.run", "scheduler", 8786, lambda v: sweep.run([], scheduler=v), TypeError,
         ("tcp://",)),
    Case("yatmath.sweep.run", "retries", -1, lambda v: sweep.run([], retries=v), ValueError,
         (">= 0",)),
    Case("yatmath.sweep.run", "timeout", 0, lambda v: sweep.run([], timeout=v), ValueError,
         ("> 0",)),
    Case("yatmath.sweep.run", "on_done", 3, lambda v: sweep.run([], on_done=v), TypeError,
         ("callable",)),
    Case("yatmath.sweep.executor_description", "workers", -3,
         lambda v: sweep.executor_description(workers=v), ValueError, (">= 1",)),
    Case("yatmath.sweep.executor_description", "scheduler", "",
         lambda v: sweep.executor_description(scheduler=v), TypeError, ("address",)),
    Case("yatmath.sweep.local_cluster", "workers", 0, lambda v: sweep.local_cluster(v),
         ValueError, (">= 1",)),
    Case("yatmath.sweep.local_cluster", "workers", None, lambda v: sweep.local_cluster(v),
         TypeError, ("integer",)),
]
