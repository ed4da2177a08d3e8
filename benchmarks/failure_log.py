"""A pytest plugin: every failure's traceback appended to a file the moment the test fails.

    YATMATH_FAILURE_LOG=failures.txt python -m pytest -p benchmarks.failure_log ...

pytest prints tracebacks only at the end of a run, so a run killed by its time limit leaves only
the names of its failures (the first H100 run kept nothing else of its float32 matvec failure).
``benchmarks/device_check.py`` loads this plugin and puts the file into its report.  With
pytest-xdist the hook runs in the controller, once per failed test phase.
"""
from __future__ import annotations

import os
from typing import Any


def pytest_runtest_logreport(report: Any) -> None:
    path = os.environ.get("YATMATH_FAILURE_LOG")
    if path and report.failed:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"__ {report.nodeid} ({report.when}) __\n{report.longreprtext}\n\n")
            fh.flush()
