"""The registry front door of :mod:`yatmath.itnet`: :func:`operation` and the rows' notes.

Every public ITNet operation is a row of :mod:`yatmath._registry` (op ``"itnet.<name>"``; the
evaluation modes ``"itnet.apply.<mode>"`` and ``"itnet.grad.<mode>"``, whose rows live with their
code in :mod:`.evaluate` and :mod:`.tiled`).  Two kinds of reference:

* **generic** (written once against the array API standard; ``xp`` is NumPy itself for NumPy
  arrays, else the ``array_api_compat`` namespace of the inputs, :func:`._xp_ops.xp_of`): GELU,
  the Fourier lift, ``Measure.integrate``, the kernel network
  (:class:`~yatmath.itnet.network.KernelMLP`'s methods), ``kernel_tensor``,
  ``apply_kernel_tensor``, the low-rank factors and operator, and every evaluation mode of
  ``apply`` (dense, tiled reference, Monte Carlo, low rank) and ``grad`` (dense, tiled
  reference).  The arithmetic runs in the caller's library and on its device (NumPy, CuPy,
  PyTorch, JAX, ``array_api_strict``); the NumPy float64 parameters of the operators are moved
  there at evaluation (:func:`yatmath._array.parameter`).  Two pieces stay on the host by design:
  the Monte Carlo index draw (NumPy's Generator, so one seed gives the same keys on every
  library; the (nq, nk) pmf table is copied to the host for it) and ``erfc`` on libraries that
  have none (``array_api_strict``: SciPy at the boundary, :func:`._xp_ops.erfc`).  Contractions
  are :func:`._xp_ops.einsum`: ``numpy.einsum`` itself for NumPy (the results are bit for bit
  those of the NumPy code before the rewrite), pairwise ``matmul`` of permuted, reshaped
  operands for every other library.
* **NumPy at the boundary** (LAPACK and fit-time tools: ``svd_factors``; the constructors, which
  build NumPy float64 parameters): arrays of another library are copied to NumPy, the NumPy
  reference runs, and the results are copied back into the caller's library on the caller's
  device (:func:`yatmath._array.at_host_boundary`).  The registry row's note says so.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _array
from .._registry import choose, register
from .._typing import FuncT
from ._xp_ops import caller

#: the note of every row whose reference is NumPy inside
BOUNDARY_NOTE = ("NumPy reference: arrays of other libraries are converted to NumPy at the "
                 "boundary and the result returned in the caller's library and device")
#: the note of every row written against the array API standard
GENERIC_NOTE = "array API generic: runs in the caller's library and on its device"
#: ... for the rows that evaluate GELU (erfc: see itnet.gelu; SciPy at the boundary only for a
#: library without erfc, e.g. array_api_strict)
GELU_NOTE = GENERIC_NOTE + " (erfc as for itnet.gelu)"


def operation(op: str, *, note: str = BOUNDARY_NOTE, libraries: tuple[str, ...] = ("*",),
              boundary: bool = True) -> Callable[[FuncT], FuncT]:
    """Register ``func`` as the ``reference`` of ``op`` and return the dispatched entry point.

    The entry point reads the array library of its array arguments, asks
    :func:`yatmath._registry.choose` for the implementation (``auto``: the reference is the only
    row of these operations) and calls it -- at the NumPy boundary when ``boundary``
    (:func:`yatmath._array.at_host_boundary`: NumPy arrays go straight through).
    """
    def deco(func: FuncT) -> FuncT:
        register(op, "reference", libraries=libraries, note=note)(func)

        @functools.wraps(func)
        def entry(*args: Any, **kwargs: Any) -> Any:
            impl = choose(op, "auto", caller(*args, *kwargs.values()).library)
            if boundary:
                return _array.at_host_boundary(impl, args, kwargs)
            return impl(*args, **kwargs)
        return entry  # type: ignore[return-value]  # func's signature, dispatched
    return deco
