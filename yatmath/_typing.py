"""Type aliases of yatmath's public API (one definition, imported by the modules that use them).

Most operations of yatmath are written against the array API standard: they take arrays of any
array library (NumPy, CuPy, PyTorch, JAX, ``array_api_strict``, ...) and return their result in
the caller's library, on the caller's device.  No static type describes "an array of whichever
library the caller used" (CuPy ships no type information at all), so those functions are
annotated with :data:`Array`, which is ``typing.Any``: the hint documents the contract, and mypy
does not pretend to know the concrete class.  Functions that accept only NumPy (or anything NumPy
converts) take ``numpy.typing.ArrayLike``, and those that always return NumPy arrays say so with
``numpy.typing.NDArray[...]``.  A NumPy reference behind the host boundary (``host_op``,
``operation``: other libraries' arrays are converted in and the result converted back) returns
the caller's library, so it is annotated with :data:`Array` too.

The aliases are plain runtime names (not ``TYPE_CHECKING``-only), so that
``typing.get_type_hints`` and the documentation build resolve every annotation of the public API.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

import numpy as np

#: An array of the caller's array library (NumPy, CuPy, PyTorch, JAX, ...), or anything that
#: library converts (array-API-generic inputs and results).  ``typing.Any`` by design.
Array: TypeAlias = Any

#: An array API namespace (``numpy``, ``cupy``, ``array_api_compat.torch``, ...): a module-like
#: object with the standard's functions.  ``typing.Any`` by design.
Namespace: TypeAlias = Any

#: Anything :func:`yatmath._validate.as_rng` accepts: None (fresh entropy), a non-negative integer
#: seed, a ``numpy.random.SeedSequence`` or a ``numpy.random.Generator``.
RNGLike: TypeAlias = (int | np.integer[Any] | np.random.SeedSequence | np.random.Generator
                       | None)

#: A function type kept through a decorator (``register(...)(func)`` is ``func``).
FuncT = TypeVar("FuncT", bound=Callable[..., Any])

__all__ = ["Array", "Namespace", "RNGLike", "FuncT"]
