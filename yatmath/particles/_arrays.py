"""Array-library plumbing of :mod:`yatmath.particles`: registry rows and the host boundary.

Two kinds of public operation live in this subpackage:

* **generic** ones, written once against the array API standard (``be.namespace``): they run on
  NumPy, CuPy, PyTorch, JAX or ``array_api_strict`` arrays and return the caller's array type
  on the caller's device (the interaction kernels, forces, potentials, random batches, the box
  domains);
* **host** ones, whose reference needs NumPy-only or SciPy pieces (``numpy.random.Generator``
  draws, ``scipy.stats``/``scipy.spatial.distance``/``scipy.sparse``/FFT convolution, sorting
  with ``searchsorted``, Python-level fixed-point loops).  :func:`host_op` registers their
  reference row with a note saying so and wraps the function: array arguments of another
  library are copied to NumPy (:func:`to_host`), the NumPy float64 reference runs, and every
  array in the result is copied back to the caller's library and device (:func:`to_caller`).
  NumPy input takes a fast path (one type check per argument, no copies).

Results of the NumPy float64 reference are the oracle either way.
"""
from __future__ import annotations

import dataclasses
import functools
import numbers

import numpy as np

from .. import _backend as be
from .._registry import register

HOST_NOTE = ("NumPy/SciPy reference on the host; arrays of other libraries are converted at "
             "the boundary and the result returned in the caller's library and device")
_PLAIN = (np.ndarray, np.generic, numbers.Number, str, bytes, list, tuple, dict, type(None))


def _foreign(v) -> bool:
    """True for an array of an array library other than NumPy."""
    if isinstance(v, _PLAIN):
        return False
    import array_api_compat

    return array_api_compat.is_array_api_obj(v)


def to_host(a):
    """A NumPy array with the values of ``a`` (NumPy arrays and scalars pass through; lists
    and tuples have their foreign arrays converted)."""
    if isinstance(a, (list, tuple)):
        return type(a)(to_host(v) for v in a) if any(_foreign(v) for v in a) else a
    if not _foreign(a):
        return a
    if be.is_cupy_array(a):
        return a.get()
    if type(a).__module__.startswith("torch"):
        return a.detach().cpu().numpy()
    try:
        return np.from_dlpack(a)
    except (TypeError, RuntimeError, BufferError, AttributeError):
        return np.asarray(a)


def to_caller(result, xp, device):
    """``result`` with every NumPy array in it (also inside tuples, lists, dicts and
    dataclasses) converted to the namespace ``xp`` on ``device``; scalars stay scalars."""
    if isinstance(result, np.ndarray):
        return xp.asarray(result, device=device)
    if isinstance(result, tuple):
        return type(result)(to_caller(r, xp, device) for r in result)
    if isinstance(result, list):
        return [to_caller(r, xp, device) for r in result]
    if isinstance(result, dict):
        return {k: to_caller(v, xp, device) for k, v in result.items()}
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.replace(result, **{
            f.name: to_caller(getattr(result, f.name), xp, device)
            for f in dataclasses.fields(result) if f.init})
    return result


def caller_of(values):
    """(namespace, device) of the first foreign array among ``values``, or None."""
    for v in values:
        if isinstance(v, (list, tuple)) and not isinstance(v, str):
            found = caller_of(v)
            if found is not None:
                return found
        elif _foreign(v):
            import array_api_compat

            return be.namespace(v), array_api_compat.device(v)
    return None


def host_op(op: str, *, note: str = ""):
    """Decorator: register ``func`` as the host reference of ``op`` and accept any array
    library at the boundary (see the module docstring)."""
    def deco(func):
        register(op, "reference", dtypes=("float64",),
                 note=HOST_NOTE + (f"; {note}" if note else ""))(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            where = caller_of(list(args) + list(kwargs.values()))
            if where is None:
                return func(*args, **kwargs)
            args = [to_host(a) for a in args]
            kwargs = {k: to_host(v) for k, v in kwargs.items()}
            return to_caller(func(*args, **kwargs), *where)
        wrapper.__wrapped_op__ = op
        return wrapper
    return deco


def generic_op(op: str, *, note: str = ""):
    """Decorator: register ``func`` as the generic (any array API library) reference of
    ``op``; the function itself is written against the array API standard."""
    def deco(func):
        register(op, "reference", note=note)(func)
        func.__wrapped_op__ = op
        return func
    return deco
