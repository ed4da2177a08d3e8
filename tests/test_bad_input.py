"""Runs the bad-input table (tests/badinput.py): every row raises its error, naming the argument,
within the time limit; every public callable has a row or a stated reason for having none."""
from __future__ import annotations

import re
import signal

import pytest

from tests.badinput import TIMEOUT_S, load_table, public_callables

ROWS, NOT_VALIDATED = load_table()


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang(f"no answer within {TIMEOUT_S} s")


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_bad_input_is_refused_clearly(case):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        with pytest.raises(case.exc) as info:
            case.call(case.bad)
    except _Hang as exc:
        pytest.fail(f"{case.func} hangs on {case.arg}={case.bad!r}: {exc}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    msg = str(info.value).lower()
    for word in (case.arg, *case.words):
        assert word.lower() in msg, (
            f"{case.func}: the message for {case.arg}={case.bad!r} lacks {word!r}: {info.value}")


def test_every_public_callable_has_a_row():
    covered = {c.func for c in ROWS}
    public = public_callables()
    missing = sorted(set(public) - covered - set(NOT_VALIDATED))
    assert not missing, f"{len(missing)} public callables have no bad-input row: {missing}"


def test_rows_name_real_public_callables_and_arguments():
    import inspect

    public = public_callables()
    for case in ROWS:
        assert case.func in public, f"row for unknown public name {case.func}"
        obj = public[case.func]
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            continue
        has_var = any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params.values())
        assert case.arg in params or has_var, (
            f"{case.func} has no argument {case.arg!r} (arguments: {list(params)})")


def test_exemptions_are_explained_result_records():
    public = public_callables()
    for name, reason in NOT_VALIDATED.items():
        assert name in public, f"NOT_VALIDATED names unknown {name}"
        assert len(reason) > 20, f"{name}: say why it needs no row"
        assert re.search(r"result|record|returned", reason, re.I), (
            f"{name}: only records the library returns may go without a row ({reason})")
