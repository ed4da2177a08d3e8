"""CuPy's float32 flush-to-zero, emulated on NumPy, so the simulator sees what a device does.

CuPy compiles its own kernels (elementwise, reductions, ``astype``) with ``-ftz=true``.  In PTX
that makes every float32 operation flush: a float32 subnormal *operand* is read as (signed) zero
(``cvt.ftz.f64.f32`` widens it to 0.0, ``setp.ftz`` compares it as 0) and a float32 subnormal
*result* is written as zero (``cvt.rn.ftz.f32.f64``, ``add.ftz.f32``, ...).  Pure data movement
(a copy, a reshape, indexing, a same-dtype ``astype``) moves bits and flushes nothing, and float64
arithmetic never flushes.  numba-cuda's simulator runs yatmath's kernels on NumPy arrays, whose
arithmetic keeps subnormals, so a row that converts or computes float32 values in array code
before or after its kernels passes in CI and fails on a GPU: the first H100 run's float32 matvec
failure was one (``ascontiguousarray(bias, dtype=float64)`` widened a subnormal bias to 0).

:class:`FtzArray` is a NumPy array that behaves like a CuPy array in this respect, and
:class:`FtzNumPy` the module its rows allocate and convert with (what ``cupy`` is to a CuPy
array).  :class:`FtzDevice` copies host arrays to FtzArrays (``use_device`` makes it what
yatmath's ``cupy_module()`` returns), and ``install(monkeypatch, flush=True)`` routes them
through yatmath as CuPy arrays (``caller`` says library "cupy" with FtzNumPy as its module,
``is_foreign``/``is_cupy`` are true); ``flush=False`` gives the same device without
flush-to-zero, the baseline of ``tests/test_gpu_ftz.py``.
Kernels still run in the simulator (an FtzArray is an ndarray) and keep subnormals, as compiled
kernels do (``tests/test_cuda_ptx.py`` checks their PTX has no ``.ftz``).

What it does not know: whether cuBLAS's float32 GEMM flushes.  ``matmul`` here flushes like an
elementwise kernel, the conservative choice for code that must not depend on it.  What it cannot
see: an FtzArray is still an ndarray, so code that tells host from device by
``isinstance(a, np.ndarray)`` or converts with ``np.asarray`` takes it for a host array (CuPy
refuses that conversion); yatmath's own test of it, ``is_foreign``/``is_cupy``, is routed.
"""
from __future__ import annotations

import dataclasses
import sys
from typing import Any

import numpy as np

TINY32 = np.float32(2.0 ** -126)

#: NumPy functions that move or allocate data without arithmetic: they flush only where they
#: convert to or from float32 (a ``dtype=`` other than the source's).
_MOVES = frozenset("""
    array asarray ascontiguousarray asfortranarray copy empty empty_like zeros zeros_like ones
    ones_like full full_like broadcast_to broadcast_arrays reshape ravel transpose moveaxis
    swapaxes expand_dims squeeze concatenate stack hstack vstack atleast_1d atleast_2d take
    take_along_axis where flip tile repeat pad eye identity arange triu tril diagonal split
    array_split copyto shape ndim size result_type promote_types can_cast isscalar
    astype concat permute_dims unstack isdtype finfo iinfo
""".split())


def flush(a: np.ndarray, inplace: bool = False) -> np.ndarray:
    """``a`` with its float32 subnormals set to signed zero (a plain copy unless ``inplace``)."""
    a = a.view(np.ndarray)
    if a.dtype != np.float32:
        return a
    b = a if inplace else a.copy()
    tiny = (b != 0) & (np.abs(b) < TINY32)
    b[tiny] = np.copysign(np.float32(0), b[tiny])
    return b


#: whether the emulated device flushes (``install(flush=False)``: the same device arrays and
#: routing without it, the baseline a flushing run is compared with)
STATE = {"flush": True}


def _ftz(a: np.ndarray, inplace: bool = False) -> np.ndarray:
    """:func:`flush` where the emulated device flushes, else ``a`` as a plain array (a copy
    unless ``inplace``)."""
    if STATE["flush"]:
        return flush(a, inplace)
    a = a.view(np.ndarray)
    return a if inplace else a.copy()


def _plain(v: Any, flushed: bool) -> Any:
    """``v`` with FtzArrays (also inside lists and tuples) as plain arrays, their float32
    subnormals flushed when ``flushed``."""
    if isinstance(v, FtzArray):
        return _ftz(v) if flushed else v.view(np.ndarray)
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x, flushed) for x in v)
    return v


def _wrap(v: Any, flushed: bool) -> Any:
    """Results as FtzArrays, their float32 subnormals flushed when ``flushed``."""
    if isinstance(v, np.ndarray):
        return (_ftz(v) if flushed else v.view(np.ndarray)).view(FtzArray)
    if isinstance(v, tuple):
        return tuple(_wrap(x, flushed) for x in v)
    if isinstance(v, list):
        return [_wrap(x, flushed) for x in v]
    return v


def _dtypes(args: Any) -> set:
    out: set = set()
    for v in args:
        if isinstance(v, np.ndarray):
            out.add(v.dtype)
        elif isinstance(v, (list, tuple)):
            out |= _dtypes(v)
    return out


def _call(func: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """``func(*args, **kwargs)`` as CuPy computes it: arithmetic flushes float32 operands and
    results; a move flushes only where it converts to or from float32."""
    if name not in _MOVES:
        return _wrap(func(*_plain(args, True), **_plain(kwargs, True)), True)
    res = func(*_plain(args, False), **_plain(kwargs, False))
    srcs = {t for t in _dtypes(args) | _dtypes(kwargs.values()) if t.kind in "fc"}
    outs = {t for t in _dtypes([res] if isinstance(res, np.ndarray) else
                                res if isinstance(res, (list, tuple)) else []) if t.kind in "fc"}
    f32 = np.dtype(np.float32)
    if (f32 in srcs and outs - {f32}) or (f32 in outs and srcs - {f32}):   # a conversion
        res = func(*_plain(args, True), **_plain(kwargs, True))
        return _wrap(res, True)
    return _wrap(res, False)


class FtzArray(np.ndarray):
    """A NumPy array whose array code flushes float32 subnormals as CuPy's does (module
    docstring); indexing, copies and reshapes move bits unchanged."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) for o in out)
        res = getattr(ufunc, method)(*_plain(inputs, True), **kwargs)
        if out is not None:
            for o in out:
                _ftz(o, inplace=True)
            return out[0] if len(out) == 1 else out
        return _wrap(res, True)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return _call(func, func.__name__, args, kwargs)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.view(np.ndarray).astype(dtype, *args, **kwargs).view(FtzArray)
        src = _ftz(self) if self.dtype == np.float32 else self.view(np.ndarray)
        return _wrap(src.astype(dtype, *args, **kwargs), True)

    def get(self) -> np.ndarray:
        """The host copy, as CuPy's ``.get()``."""
        return np.array(self.view(np.ndarray))


def _refuse_cpu_numba() -> None:
    """A CuPy array given to a CPU Numba function fails on a device (Numba cannot type it): an
    FtzArray does too, instead of running as the ndarray it is.  What the emulation cannot see:
    ``np.asarray``/``np.ascontiguousarray`` of an FtzArray quietly give its ndarray, where CuPy
    refuses the implicit conversion."""
    try:
        from numba.extending import typeof_impl
    except ImportError:  # pragma: no cover - Numba is a test dependency
        return

    @typeof_impl.register(FtzArray)
    def _typeof_device_array(val: Any, c: Any) -> Any:
        raise TypeError("a device array (tests.cupy_ftz.FtzArray, standing in for CuPy) was "
                        "given to a CPU Numba function")


_refuse_cpu_numba()


class FtzNumPy:
    """A NumPy namespace (``numpy`` itself, or ``array_api_compat.numpy``) as the module of
    :class:`FtzArray`: what it allocates is an FtzArray, what it converts or computes flushes as
    CuPy does.  Types (``float64``, ``ndarray``) and constants pass through."""

    def __init__(self, base: Any, name: str) -> None:
        self._base = base
        self.__name__ = name

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._base, name)
        if isinstance(attr, type) or not callable(attr) or name.startswith("__"):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return _call(attr, name, args, kwargs)

        return call


#: what ``cupy`` is to a CuPy array (``caller(...).module``, ``_cuda.array_module``)
MODULE = FtzNumPy(np, "tests.cupy_ftz")
#: what ``array_api_compat.cupy`` is to a CuPy array (``caller(...).xp``, ``namespace``): the
#: generic references run on it when a row runs them on the device
NAMESPACE = FtzNumPy(__import__("array_api_compat.numpy").numpy, "tests.cupy_ftz.xp")


class FtzDevice:
    """The fake device of ``conftest.fake_cupy`` with CuPy's flushing: its ``asarray`` copies
    to an FtzArray (a copy, counted; a float32 source keeps its bits, as a host-to-device copy
    does)."""

    def __init__(self) -> None:
        self.copies = 0

    def asarray(self, a: Any, dtype: Any = None) -> FtzArray:
        self.copies += 1
        host = np.array(a.view(np.ndarray) if isinstance(a, np.ndarray) else a)
        return (host if dtype is None else MODULE.asarray(host.view(FtzArray), dtype=dtype)
                ).view(FtzArray)

    def __getattr__(self, name: str) -> Any:
        return getattr(MODULE, name)


def install(monkeypatch: Any, flush: bool = True) -> None:
    """Route yatmath's array code for FtzArrays as for CuPy arrays: ``_cuda.array_module``,
    ``caller`` (library "cupy", its ``module`` :data:`MODULE`, its ``xp`` :data:`NAMESPACE`),
    ``namespace``, ``is_foreign``/``is_cupy`` (true for them), CuPy's erfc (SciPy's on them);
    ``flush=False``: the same device without flush-to-zero."""
    from yatmath import _array, _cuda
    from yatmath.itnet import _xp_ops

    monkeypatch.setitem(STATE, "flush", flush)
    monkeypatch.setitem(_xp_ops._ERFC, "cupy", _xp_ops._ERFC["numpy"])

    real_module, real_caller, real_namespace = _cuda.array_module, _array.caller, _array.namespace

    def array_module(like: Any) -> Any:
        return MODULE if isinstance(like, FtzArray) else real_module(like)

    def caller(*args: Any) -> Any:
        c = real_caller(*args)
        if any(isinstance(a, FtzArray) for a in args):   # what a CuPy array's caller is
            return dataclasses.replace(c, library="cupy", module=MODULE, xp=NAMESPACE)
        return c

    def namespace(*args: Any) -> Any:
        ns = real_namespace(*args)
        return NAMESPACE if any(isinstance(a, FtzArray) for a in args) else ns

    real_foreign, real_is_cupy = _array.is_foreign, _array.is_cupy

    def is_foreign(v: object) -> bool:      # a device array, as a CuPy array is
        return isinstance(v, FtzArray) or real_foreign(v)

    def is_cupy(v: object) -> bool:
        return isinstance(v, FtzArray) or real_is_cupy(v)

    monkeypatch.setattr(_cuda, "array_module", array_module)
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("yatmath"):
            for name, real, fake in (("caller", real_caller, caller),
                                     ("namespace", real_namespace, namespace),
                                     ("is_foreign", real_foreign, is_foreign),
                                     ("is_cupy", real_is_cupy, is_cupy)):
                if getattr(mod, name, None) is real:
                    monkeypatch.setattr(mod, name, fake)


def use_device(monkeypatch: Any, fake: Any) -> None:
    """``fake`` as what every yatmath module's ``cupy_module()`` returns (``_array``'s and the
    modules that imported it by name)."""
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("yatmath") and hasattr(mod, "cupy_module"):
            monkeypatch.setattr(mod, "cupy_module", lambda: fake)
