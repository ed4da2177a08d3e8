"""The backend registry: each operation's implementations and what each supports.

In the manner of SciPy's metric table in ``scipy.spatial.distance`` and POT's backend registration:
one row per (operation, backend).  A public function validates its arguments once, then asks
:func:`choose` for the implementation to run and calls it; ``yatmath info`` prints :func:`table`.

Backends
--------
``"reference"``  the readable float64 reference, written once against the array API standard
                 (``array_api_compat.array_namespace``): it runs on NumPy, CuPy, PyTorch, JAX or
                 ``array_api_strict`` arrays and returns the caller's array type on the caller's
                 device.  Its NumPy float64 result is the oracle.  ``"numpy"`` is accepted as an
                 alias (the name the reference had before it was generic).
``"numba"``      compiled CPU kernels (NumPy arrays only).
``"cupy"``       CuPy kernels on a CUDA device (CuPy arrays; NumPy inputs are copied to the device
                 and the result copied back).
``"auto"``       ``"cupy"`` for CuPy arrays where a CuPy kernel exists, ``"numba"`` for NumPy arrays
                 at or above the implementation's ``min_size`` where a Numba kernel exists, else the
                 reference.

An explicit backend that the operation does not have, or that does not accept the inputs' array
library, is refused with an error naming the operation, the backend and what it supports -- never
silently replaced.  Registration happens when a module that defines the implementation imports, so
a backend whose library is missing simply has no rows (``libraries_available``).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

from . import _array
from ._typing import FuncT

BACKENDS = ("auto", "reference", "numba", "cupy")
ALIASES = {"numpy": "reference"}
ANY = "*"   # libraries=(ANY,): any array API library


@dataclasses.dataclass(frozen=True)
class Implementation:
    """One row of the table.

    op         the public operation, e.g. ``"yat.gram"``
    backend    ``"reference"`` | ``"numba"`` | ``"cupy"``
    func       the callable that runs it (validated arguments in, result out)
    libraries  array libraries it accepts: ``("*",)`` for any array API library, else names from
               ``_array.library_name`` (``"numpy"``, ``"cupy"``, ``"torch"``, ...)
    dtypes     dtypes it computes in (inputs of other float dtypes are promoted by the caller)
    device     ``"cpu"``, ``"gpu"`` or ``"any"``
    min_size   ``auto`` picks it only when the problem size is at least this (0: always)
    note       what a reader of ``yatmath info`` should know (e.g. accumulates in float64)
    host_input a device row that also takes host (NumPy) arrays when named explicitly: calling the
               row copies them to the device, runs there and copies the result back
               (``_array.device_round_trip``; NumPy in, NumPy out)
    finish     steps every result of this row goes through, in order, each called as
               ``step(result, *args, **kwargs)`` with the row's own arguments and returning the
               result (e.g. the reference repair of entries beyond a compiled kernel's range, or
               making a symmetric result exact)

    Calling the row (``impl(*args, **kwargs)``) runs ``func`` with these properties applied; a
    public function validates once, chooses once and calls the row once.
    """

    op: str
    backend: str
    func: Callable
    libraries: tuple[str, ...] = (ANY,)
    dtypes: tuple[str, ...] = ("float32", "float64")
    device: str = "any"
    min_size: int = 0
    note: str = ""
    host_input: bool = False
    finish: tuple[Callable, ...] = ()

    def accepts(self, library: str) -> bool:
        return ANY in self.libraries or library in self.libraries or (
            self.host_input and library == "numpy")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.host_input:
            return _array.device_round_trip(self._run, args, kwargs)
        return self._run(*args, **kwargs)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        out = self.func(*args, **kwargs)
        for step in self.finish:
            out = step(out, *args, **kwargs)
        return out


_TABLE: dict[str, dict[str, Implementation]] = {}


def register(op: str, backend: str, *, libraries: tuple[str, ...] | list[str] = (ANY,),
             dtypes: tuple[str, ...] | list[str] = ("float32", "float64"),
             device: str = "any", min_size: int = 0, note: str = "",
             host_input: bool = False,
             finish: tuple[Callable, ...] | list[Callable] = ()) -> Callable[[FuncT], FuncT]:
    """Decorator registering ``func`` as the ``backend`` implementation of ``op`` (the fields are
    those of :class:`Implementation`)."""
    if backend not in BACKENDS[1:]:
        raise ValueError(f"backend must be one of {BACKENDS[1:]}, got {backend!r}")

    def deco(func: FuncT) -> FuncT:
        _TABLE.setdefault(op, {})[backend] = Implementation(
            op, backend, func, tuple(libraries), tuple(dtypes), device, int(min_size), note,
            bool(host_input), tuple(finish))
        return func
    return deco


def canonical(backend: object) -> str:
    """``backend`` checked against the allowed names (aliases resolved), or ValueError."""
    if not isinstance(backend, str) or (backend not in BACKENDS and backend not in ALIASES):
        raise ValueError(f"backend must be one of {BACKENDS + tuple(ALIASES)}, got {backend!r}")
    return ALIASES.get(backend, backend)


def implementations(op: str | None = None) -> list[Implementation]:
    """The registered rows (of one operation, or all), in registration order."""
    ops = [op] if op is not None else list(_TABLE)
    return [impl for o in ops for impl in _TABLE.get(o, {}).values()]


def choose(op: str, backend: object, library: str, *, size: int = 0) -> Implementation:
    """The implementation of ``op`` that runs for ``backend`` on arrays of ``library``.

    ``size`` is the problem size (e.g. the number of pairs) against the rows' ``min_size``.
    Raises ValueError for a backend the operation lacks or that refuses the library, and
    RuntimeError when the backend's own library (Numba, CuPy with a device) is missing.
    """
    backend = canonical(backend)
    rows = _TABLE.get(op)
    if not rows:
        raise KeyError(f"no implementation is registered for {op!r}")
    if backend == "auto":
        if library == "cupy" and "cupy" in rows and libraries_available()["cupy"]:
            return rows["cupy"]
        numba_row = rows.get("numba")
        if (library == "numpy" and numba_row is not None and size >= numba_row.min_size
                and libraries_available()["numba"]):
            return numba_row
        return rows["reference"]
    impl = rows.get(backend)
    if impl is None:
        raise ValueError(f"backend={backend!r}: {op} has no {backend!r} implementation; it has "
                         f"{', '.join(repr(b) for b in rows)} (or 'auto')")
    if backend in ("numba", "cupy") and not libraries_available()[backend]:
        raise RuntimeError(f"backend={backend!r} needs "
                           + ("Numba, which is not installed" if backend == "numba"
                              else "CuPy and a CUDA device; none was found"))
    if not impl.accepts(library):
        raise ValueError(f"backend={backend!r} for {op} takes {'/'.join(impl.libraries)} arrays, "
                         f"got {library} arrays; use backend='auto' or 'reference'")
    return impl


def libraries_available() -> dict[str, bool]:
    """Whether the compiled backends' libraries can run here (both answers are cached)."""
    return {"numba": _array.has_numba(), "cupy": _array.has_cupy()}


def table() -> list[dict[str, Any]]:
    """One dict per registered row, for ``yatmath info``: the rows of the subpackages imported so
    far (a subpackage registers its rows when it is imported; the registry never imports one).
    A row with ``host_input`` lists NumPy among its arrays as "(numpy: copied)"."""
    avail = libraries_available()
    return [dict(op=i.op, backend=i.backend,
                 libraries=("any array API" if ANY in i.libraries else ", ".join(i.libraries))
                 + (" (numpy: copied)" if i.host_input else ""),
                 dtypes=", ".join(i.dtypes), device=i.device, min_size=i.min_size,
                 available=avail.get(i.backend, True), note=i.note)
            for i in sorted(implementations(), key=lambda i: (i.op, BACKENDS.index(i.backend)))]
