"""Array-library plumbing of :mod:`yatmath.particles`: registry rows and the host boundary.

Two kinds of public operation live in this subpackage:

* **generic** ones, written once against the array API standard (``_array.namespace``): they run on
  NumPy, CuPy, PyTorch, JAX or ``array_api_strict`` arrays and return the caller's array type
  on the caller's device (the interaction kernels, forces, potentials, random batches, the box
  domains);
* **host** ones, whose reference needs NumPy-only or SciPy pieces (``numpy.random.Generator``
  draws, ``scipy.stats``/``scipy.spatial.distance``/``scipy.sparse``/FFT convolution, sorting
  with ``searchsorted``, Python-level fixed-point loops).  :func:`host_op` registers their
  reference row with a note saying so and wraps the function: array arguments of another
  library are copied to NumPy, the NumPy float64 reference runs, and every array in the result
  is copied back to the caller's library and device (``yatmath._array.at_host_boundary``).
  NumPy input takes a fast path (one type check per argument, no copies).

Results of the NumPy float64 reference are the oracle either way.  Host parameters of objects
(a domain's bounds, a Hamiltonian's data, a solver's tables) reach the caller's device through
``yatmath._array.parameter`` (stored read-only, so the device copy is made once and cached).
"""
from __future__ import annotations

import functools
from typing import Any, Callable


from .._array import at_host_boundary
from .._registry import register
from .._typing import FuncT

HOST_NOTE = ("NumPy/SciPy reference on the host; arrays of other libraries are converted at "
             "the boundary and the result returned in the caller's library and device")


def host_op(op: str, *, note: str = "") -> Callable[[FuncT], FuncT]:
    """Decorator: register ``func`` as the host reference of ``op`` and accept any array
    library at the boundary (see the module docstring)."""
    def deco(func: FuncT) -> FuncT:
        register(op, "reference", dtypes=("float64",),
                 note=HOST_NOTE + (f"; {note}" if note else ""))(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return at_host_boundary(func, args, kwargs)
        wrapper.__wrapped_op__ = op  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]  # func's signature, at the boundary
    return deco


def generic_op(op: str, *, note: str = "",
               dtypes: tuple[str, ...] = ("float32", "float64")) -> Callable[[FuncT], FuncT]:
    """Decorator: register ``func`` as the generic (any array API library) reference of
    ``op``; the function itself is written against the array API standard.  ``dtypes``: the
    dtypes it computes in (e.g. ``("float64",)`` when float32 input is promoted)."""
    def deco(func: FuncT) -> FuncT:
        register(op, "reference", dtypes=dtypes, note=note)(func)
        func.__wrapped_op__ = op  # type: ignore[attr-defined]
        return func
    return deco

