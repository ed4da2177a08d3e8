"""The argument checks of yatmath's public functions, public for code built on the library (the
ledger, the figures, users' own wrappers), so a bad argument there is refused with the same kind
of message: the argument's name, what it was, and what was expected.

These are the names of the private module ``yatmath._validate`` (one definition; see its
docstring for the dtype rule), listed here as the public interface.
"""
from __future__ import annotations

from ._validate import (as_float_array, as_rng, check_bool, check_choice, check_int,
                        check_memory, check_positive, check_real, check_shape)

__all__ = ["as_float_array", "as_rng", "check_bool", "check_choice", "check_int", "check_memory",
           "check_positive", "check_real", "check_shape"]
