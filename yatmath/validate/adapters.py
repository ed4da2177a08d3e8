"""Adapters: feed someone's Yat implementation NumPy, PyTorch or JAX arrays and read its results.

Arrays cross between frameworks through DLPack (``torch.from_dlpack``, ``jax.numpy.from_dlpack``,
``numpy.from_dlpack``), copy-free where the framework allows it.  bfloat16 (PyTorch, JAX) is
reached by converting the float32 carrier of bfloat16-representable values on the framework
side, which is exact.

Calling conventions (``kind``) that a target must follow:

``product``  ``f(X, W, eps[, bias]) -> (n,)``: K(X_i, W_i) for paired rows, bias per pair.
``gram``     ``f(X, W, eps[, bias]) -> (B, n)``: K(X_i, W_j), bias per column j.
``layer``    an NMN layer: a callable ``f(X, W, eps, bias) -> s K`` or an object (e.g. a
             ``torch.nn.Module``) with ``weight`` (n, d), optional ``bias`` (n,), ``epsilon`` or
             ``eps``; a class is instantiated per block as ``cls(d, n, **init)``.  ``scale`` (the
             factor s the layer applies) is a number, "alpha" (the module's ``alpha`` times
             ``alpha_factor``) or "n"/"sqrt_n" (yatmath's width scale (n/ln(1+n))^alpha).
``attention`` ``f(Q, K, V, <eps_arg>=eps, <mask_arg>=mask) -> O`` in ``layout`` "ld" (L, d) or
             "bqhd" (1, L, 1, d); scores are ``score_scale * K(q, k)`` ("rsqrt_d": 1/sqrt(d)).
``linear_attention`` ``f(Q, K, V, feature_map) -> O`` (``yatmath.yat.linear_attention``'s form).
``features`` a factory ``f(d, F, eps=, bias=, seed=) -> phi`` with ``phi(X) -> (n, F)`` and
             E[phi(q).phi(k)] = (q.k + bias)^2 / (||q - k||^2 + eps).

Before any work (``resolve``, ``check_signature``, ``probe_signature``) a target that cannot
work is one line naming the fix: a module that is not there or a missing attribute (with the
closest names, ``difflib``), a signature that cannot take the calls of its kind (the blocks with
a bias call ``f(X, W, eps, bias)``: "--bias none" if it has none).  A signature that cannot
tell (``*args``, none at all) is probed with one call; only an error of Python's call machinery
about those arguments (``arity_error``) is a usage error, anything else is left to the suites.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from .._typing import Array, RNGLike
from .._validate import check_choice, check_int, check_real
from ..testing.generators import dtype_name
from ..yat.layer import width_scale

if TYPE_CHECKING:   # annotations only: the features are imported where they are used
    from ..features.yat import YatFeatures

FRAMEWORKS = ("numpy", "torch", "jax")
KINDS = ("product", "gram", "layer", "attention", "linear_attention", "features")
KERNEL_KINDS = ("product", "gram", "layer")
_PACKAGES = {"torch": ("torch", "PyTorch", "pip install torch"),
             "jax": ("jax", "JAX", 'pip install "jax[cpu]"')}


# ---------------------------------------------------------------- errors

class FrameworkUnavailable(ImportError):
    """The array library a run needs is not installed here (the command's exit status 3)."""


class TargetFailure(Exception):
    """The target misbehaved in a call: it raised, called ``sys.exit``, returned something that is
    not a real floating-point array of the expected shape, or modified an input in place.  The
    suite in which it happened fails with this message; the run goes on with the next suite."""


class TargetImportExit(Exception):
    """The target's module called ``sys.exit`` while being imported: a FAIL of that target."""


class NotApplicable(Exception):
    """A suite cannot judge this target, through no fault of the target (a PyTorch callable
    whose output does not track gradients cannot be differentiated; the gradient suite is then
    "not applicable" with this reason, neither a PASS nor a FAIL).  ``Calls.run`` lets it
    through unchanged."""


class Clock(Protocol):
    """What times the calls of target code: ``start(what)`` before one, ``stop()`` after it
    (``NullClock``, or the child process's clock of a run with a time limit)."""

    def start(self, what: str) -> None: ...

    def stop(self) -> None: ...


class NullClock:
    """The per-call clock of an unlimited run (in-process): records nothing."""

    def start(self, what: str) -> None:
        pass

    def stop(self) -> None:
        pass


# ---------------------------------------------------------------- framework conversion

def require_framework(name: str) -> None:
    """Raise ``FrameworkUnavailable`` (before any work) when ``name`` is not installed."""
    if name not in _PACKAGES:
        return
    mod, label, pip = _PACKAGES[name]
    if importlib.util.find_spec(mod) is None:
        raise FrameworkUnavailable(f"framework {name!r} needs {label} (the {mod!r} package), "
                                   f"which is not installed here ({pip})")


class Framework:
    """Conversion to and from one array library, and its autodiff (None for NumPy)."""

    def __init__(self, name: str) -> None:
        if name not in FRAMEWORKS:
            raise ValueError(f"framework must be one of {FRAMEWORKS}, got {name!r}")
        self.name = name
        try:
            if name == "torch":
                import torch

                self.mod = torch
            elif name == "jax":
                import jax

                jax.config.update("jax_enable_x64", True)
                import jax.numpy as jnp

                self.mod = jnp
            else:
                self.mod = np
        except ImportError as exc:
            mod, label, pip = _PACKAGES[name]
            raise FrameworkUnavailable(f"framework {name!r} needs {label}, which cannot be "
                                       f"imported here ({exc}; {pip})") from None

    @property
    def differentiable(self) -> bool:
        return self.name in ("torch", "jax")

    def has_dtype(self, dtype: npt.DTypeLike) -> bool:
        return dtype_name(dtype) != "bfloat16" or self.name in ("torch", "jax")

    def asarray(self, a: npt.ArrayLike | None, dtype: npt.DTypeLike) -> Array:
        """``a`` (NumPy) as a fresh array of this framework, of ``dtype`` (a dtype name): always
        a copy, so a target that writes into its inputs cannot change the harness's data."""
        name = dtype_name(dtype)
        if a is None:
            return None
        carrier = np.array(a, dtype=np.float64 if name == "float64" else np.float32,
                           order="C", copy=True)
        if self.name == "numpy":
            if name == "bfloat16":
                raise ValueError("NumPy has no bfloat16; use --framework torch or jax for bfloat16")
            return carrier
        if self.name == "torch":
            t = self.mod.from_dlpack(carrier)
            return t.to(self.mod.bfloat16) if name == "bfloat16" else t
        x = self.mod.from_dlpack(carrier)
        return x.astype(self.mod.bfloat16) if name == "bfloat16" else x

    def to_numpy(self, a: Array) -> npt.NDArray[np.float64]:
        """A float64 NumPy copy of a result of this framework (or of a NumPy/CuPy array)."""
        if type(a).__module__.startswith("cupy"):
            a = a.get()
        if self.name == "torch" and isinstance(a, self.mod.Tensor):
            a = a.detach()
            if a.dtype in (self.mod.bfloat16, self.mod.float16):
                a = a.float()
            return np.from_dlpack(a.cpu().contiguous()).astype(np.float64)
        if self.name == "jax" and hasattr(a, "__dlpack__") and not isinstance(a, np.ndarray):
            if str(a.dtype) in ("bfloat16", "float16"):
                a = a.astype(self.mod.float32)
            return np.from_dlpack(a).astype(np.float64)
        return np.asarray(a).astype(np.float64)

    def dtype_of(self, a: Array) -> str:
        """The dtype name of a framework result."""
        return str(getattr(a, "dtype", "?")).replace("torch.", "")

    def is_array(self, a: object) -> bool:
        """Whether ``a`` is an array a target may return: one of this framework's arrays, a NumPy
        array or a CuPy array (not a list, a scalar, None, ...)."""
        if isinstance(a, np.ndarray) or type(a).__module__.startswith("cupy"):
            return hasattr(a, "shape") and hasattr(a, "dtype")
        if self.name == "torch":
            return isinstance(a, self.mod.Tensor)
        if self.name == "jax":
            import jax

            return isinstance(a, jax.Array) or type(a).__module__.startswith("jax")
        return False


# ---------------------------------------------------------------- calling the target

def _short(exc: object, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()
    text = text[0] if text else ""
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Calls:
    """Every call of target code goes through here (``run``) and every result it returns is read
    through ``array``.

    * the per-call clock is started and stopped around the call (a run with ``--timeout`` kills
      a call that outlives it);
    * an exception or ``sys.exit`` of the target becomes a ``TargetFailure`` naming it;
    * inputs are fresh copies, and each is compared after the call with its value before: a
      target that writes into an input is a ``TargetFailure``;
    * a result must be an array of a real floating dtype and of the expected shape
      (``TargetFailure`` otherwise); NaN entries, and infinite ones where ``inf_ok`` is off,
      are counted and fail the suite (``problems``).
    """

    _nan: dict[str, list[Any]]
    _inf: dict[str, list[Any]]
    _seen: dict[str, int]
    _depth: int
    _pending: TargetFailure | None
    inf_ok: bool

    def __init__(self, fw: Framework, clock: Clock | None = None) -> None:
        self.fw = fw
        self.clock = clock or NullClock()
        self.reset()

    def reset(self) -> None:
        self._nan, self._inf, self._seen, self._depth, self._pending = {}, {}, {}, 0, None
        #: an infinite result may be right (the accuracy suite, where the exact value overflows
        #: the dtype; it judges those entries itself); elsewhere it is a failure
        self.inf_ok = False

    def _fail(self, msg: str) -> TargetFailure:
        """A TargetFailure of a check; inside a call of the target (a feature map the target
        calls returned the wrong thing) it is also kept, so that a target that swallows it still
        fails when it returns."""
        exc = TargetFailure(msg)
        if self._depth > 0:
            self._pending = exc
        return exc

    def problems(self) -> list[str]:
        """What went wrong in this suite short of a ``TargetFailure`` (NaN results)."""
        out = [f"{who} returned NaN in {count} of {self._seen[who]} result entries (finite "
               f"inputs; first in its {where})" for who, (count, where) in self._nan.items()]
        if not self.inf_ok:
            out += [f"{who} returned inf in {count} of {self._seen[who]} result entries (finite "
                    f"inputs, finite exact values; first in its {where})"
                    for who, (count, where) in self._inf.items()]
        return out

    def run(self, who: str, where: str, fn: Callable[..., Any], *args: Any,
            inputs: Iterable[tuple[str, Any]] = (), hint: str = "", **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``, target code, judged as the class docstring says; ``hint`` is
        appended to the message of a TypeError about the arguments of a call ("f() takes 3
        positional arguments but 4 were given": a calling convention to check)."""
        snaps = [(name, x, self.fw.to_numpy(x)) for name, x in inputs if x is not None]
        self.clock.start(f"{who}'s {where}")
        self._depth += 1
        error = None
        try:
            out = fn(*args, **kwargs)
        except (TargetFailure, NotApplicable) as exc:
            error = exc
        except SystemExit as exc:
            error = TargetFailure(f"{who} called sys.exit({exc.code!r}) (in its {where})")
        except Exception as exc:
            arity = isinstance(exc, TypeError) and _ARITY.match(str(exc)) is not None
            error = TargetFailure(f"{who} raised {type(exc).__name__}: {_short(exc)} "
                                  f"(in its {where})" + (hint if arity else ""))
        finally:
            self._depth -= 1
            self.clock.stop()
        if error is not None:     # raised (a target may catch what code it calls raises)
            if self._depth == 0:
                self._pending = None
            raise error from None
        if self._pending is not None and self._depth == 0:
            error, self._pending = self._pending, None
            raise error
        for name, x, before in snaps:
            after = self.fw.to_numpy(x)
            if after.shape != before.shape or not np.array_equal(after, before, equal_nan=True):
                raise self._fail(f"{who} modified its input {name} in place (in its {where}); "
                                 "a target must not write into its arguments")
        return out

    def array(self, who: str, where: str, out: Any, shape: Sequence[int | None] | None = None,
              *, values: bool = True) -> Any:
        """``out`` checked (an array, real floating dtype, ``shape`` with None for any length)
        and, with ``values``, returned as float64 NumPy with its NaN entries counted."""
        if not self.fw.is_array(out):
            raise self._fail(f"{who} returned {type(out).__name__}, not an array "
                             f"(in its {where})")
        dt = self.fw.dtype_of(out)
        if dt.startswith("complex"):
            raise self._fail(f"{who} returned complex output (dtype {dt}); a real "
                             f"floating-point array was expected (in its {where})")
        if not dt.startswith(("float", "bfloat")):
            raise self._fail(f"{who} returned dtype {dt}; a real floating-point array was "
                             f"expected (in its {where})")
        got = tuple(int(s) for s in out.shape)
        if shape is not None and (len(got) != len(shape) or
                                  any(s is not None and s != g for s, g in zip(shape, got))):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) \
                + ("," if len(shape) == 1 else "") + ")"
            raise self._fail(f"{who} returned shape {got}, expected {want} (in its {where})")
        if not values:
            return out
        a = self.fw.to_numpy(out)
        nan = int(np.isnan(a).sum())
        inf = int(np.isinf(a).sum())
        self._seen[who] = self._seen.get(who, 0) + a.size
        if nan:
            self._nan.setdefault(who, [0, where])[0] += nan
        if inf:
            self._inf.setdefault(who, [0, where])[0] += inf
        return a


def call_where(**facts: object) -> str:
    """'call on X of shape (12, 4), eps=1e-30': the inputs of one call, for messages."""
    parts = []
    for k, v in facts.items():
        if isinstance(v, tuple):
            parts.append(f"{k} of shape {v}")
        elif isinstance(v, float):
            parts.append(f"{k}={v:g}")
        else:
            parts.append(f"{k}={v}")
    return "call on " + ", ".join(parts)


# ---------------------------------------------------------------- targets

def split_target(target: str) -> tuple[str, str]:
    """``package.module:callable`` (or ``package.module.callable``) -> (module, attribute)."""
    if not isinstance(target, str) or not target.strip():
        raise ValueError(f"target must be 'package.module:callable', got {target!r}")
    if ":" in target:
        mod, _, attr = target.partition(":")
    else:
        mod, _, attr = target.rpartition(".")
    ident = r"[A-Za-z_][A-Za-z0-9_]*"
    if not re.fullmatch(rf"{ident}(\.{ident})*", mod or "") or \
            not re.fullmatch(rf"{ident}(\.{ident})*", attr or ""):
        raise ValueError(f"target must be 'package.module:callable', got {target!r}")
    return mod, attr


def resolve(target: object, clock: Clock | None = None, *, what: str = "target") -> Any:
    """``package.module:callable`` (or ``package.module.callable``) -> the object; objects pass.

    A module that is not there, or that raises while being imported, is a ``ValueError`` naming
    it (nothing could be checked); a module that calls ``sys.exit`` while being imported is a
    ``TargetImportExit`` (a FAIL of the target)."""
    if not isinstance(target, str):
        return target
    mod, attr = split_target(target)
    clock = clock or NullClock()
    clock.start(f"importing module {mod!r}")
    try:
        obj = importlib.import_module(mod)
    except SystemExit as exc:
        raise TargetImportExit(f"module {mod!r} called sys.exit({exc.code!r}) while being "
                               f"imported") from None
    except ModuleNotFoundError as exc:
        if exc.name and (mod == exc.name or mod.startswith(exc.name + ".")):
            raise ValueError(f"{what} {target!r}: cannot import module {mod!r}: no module named "
                             f"{exc.name!r}{_module_hint(exc.name)}") from None
        raise ValueError(f"{what} {target!r}: importing module {mod!r} failed: "
                         f"ModuleNotFoundError: {_short(exc)}") from None
    except Exception as exc:
        raise ValueError(f"{what} {target!r}: importing module {mod!r} raised "
                         f"{type(exc).__name__}: {_short(exc)}") from None
    finally:
        clock.stop()
    owner = mod
    for part in attr.split("."):
        try:
            has = hasattr(obj, part)
        except Exception:
            has = False
        if not has:
            kind = "module" if inspect.ismodule(obj) else "object"
            names = [n for n in _public_names(obj) if part.startswith("_") or
                     not n.startswith("_")]
            raise ValueError(f"{what} {target!r}: {kind} {owner!r} has no attribute {part!r}"
                             f"{_did_you_mean(part, names)}") from None
        obj = getattr(obj, part)
        owner = f"{owner}.{part}"
    return obj


def _public_names(obj: object) -> list[str]:
    try:
        return [n for n in dir(obj) if not n.startswith("__")]
    except Exception:
        return []


def _did_you_mean(name: str, candidates: Iterable[str], prefix: str = "") -> str:
    """' (did you mean 'gram'?)' for the closest names, '' when none is close."""
    import difflib

    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.75)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(prefix + c) for c in close) + "?)"


def _module_hint(missing: str) -> str:
    """Why a module was not found: a close name among its parent package's modules, else where
    Python looked."""
    parent, _, leaf = missing.rpartition(".")
    if parent:
        try:
            import pkgutil

            pkg = importlib.import_module(parent)
            names = [m.name for m in pkgutil.iter_modules(getattr(pkg, "__path__", []))]
            names += [n for n in _public_names(pkg) if inspect.ismodule(getattr(pkg, n, None))]
            hint = _did_you_mean(leaf, sorted(set(names)), prefix=parent + ".")
            if hint:
                return hint
        except Exception:
            pass
    return " (is it installed, or its folder on PYTHONPATH?)"


def module_allowed(name: str, target_module: str | None, allow: Iterable[str]) -> bool:
    """Whether a callable of module ``name`` may be named in settings: the target's own module,
    or a module of ``allow`` (or one of its submodules)."""
    if target_module is not None and name == target_module:
        return True
    return any(name == a or name.startswith(a + ".") for a in allow)


def target_module(target: object) -> str | None:
    """The module a target lives in (its string's module part, or the object's __module__)."""
    if isinstance(target, str):
        return split_target(target)[0]
    return getattr(target, "__module__", None)


# ---------------------------------------------------------------- signatures

def _signature_of(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):      # builtins without a signature: found out by calling
        return None


def _bind(fn: Callable[..., Any], name: str, convention: str, args: tuple[Any, ...],
          kwargs: Mapping[str, Any], hint: str = "") -> None:
    sig = _signature_of(fn)
    if sig is None:
        return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"target {name!r} cannot be called as {convention}: {exc}{hint}") from None


def _params(fn: Callable[..., Any]) -> str:
    """'(w, x, eps)': the parameters of ``fn`` as its signature names them ('' if unknown)."""
    sig = _signature_of(fn)
    return "" if sig is None else str(sig).split(" ->")[0]


def inconclusive(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s signature cannot tell which calls it takes: no signature (a builtin, an
    extension type), or ``*args`` (a decorator's wrapper that passes its arguments on)."""
    sig = _signature_of(fn)
    return sig is None or any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())


def _names_of(fn: Any) -> set[str]:
    """The names a TypeError of Python's call machinery may give ``fn`` ('f', 'C.__call__',
    and those of what it wraps)."""
    out, seen = set(), 0
    while fn is not None and seen < 8:
        for attr in ("__name__", "__qualname__"):
            v = getattr(fn, attr, None)
            if isinstance(v, str):
                out.add(v)
        call = getattr(type(fn), "__call__", None)
        if not inspect.isfunction(fn) and not inspect.isclass(fn) and call is not None:
            for attr in ("__name__", "__qualname__"):
                v = getattr(call, attr, None)
                if isinstance(v, str):
                    out.add(v)
        fn, seen = getattr(fn, "__wrapped__", None), seen + 1
    return out


_ARITY = re.compile(r"^([\w.<>]+)\(\) (takes (\d+|from|at most|at least|exactly|no) |missing \d+ "
                    r"required|got an unexpected keyword argument|got multiple values)")


def arity_error(exc: BaseException, fn: object) -> bool:
    """Whether ``exc`` is Python saying that ``fn`` (or what it wraps) was called with the wrong
    arguments -- a calling convention that does not fit -- rather than an error of its body."""
    if not isinstance(exc, TypeError):
        return False
    m = _ARITY.match(str(exc))
    if m is None:
        return False
    frames = []
    tb = exc.__traceback__
    tb = tb.tb_next if tb is not None else None    # the first frame is the caller's
    while tb is not None:
        frames.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    # raised by the call itself, or by a call that wrappers passing on *args made: either way
    # the arguments given are the ones that do not fit
    if all(code.co_flags & inspect.CO_VARARGS for code in frames):
        return True
    called = m.group(1)
    names = _names_of(fn)
    return called in names or called.rsplit(".", 1)[-1] in names


def check_signature(obj: Any, kind: str, opts: Mapping[str, Any], name: str, *,
                    bias_fix: str = "--bias none") -> None:
    """TypeError (before any work) when ``obj`` cannot take the calls of ``kind``: one line that
    says which call does not fit, what the target takes and the fix (``bias_fix``: how the
    caller spells 'no bias argument')."""
    if kind in KERNEL_KINDS:
        is_class = inspect.isclass(obj)
        if kind == "layer" and (is_class or hasattr(obj, "weight")):
            if is_class:
                _bind(obj, name, "a layer class cls(d, n, **init)", (2, 3),
                      dict(opts.get("init") or {}))
            else:
                if not callable(obj):
                    raise TypeError(f"target {name!r}: a layer object must be callable as "
                                    f"layer(X), got {type(obj).__name__}")
                _bind(getattr(obj, "forward", obj), name, "a layer layer(X)", (1,), {})
            return
        if not callable(obj):
            raise TypeError(f"target {name!r}: a {kind} target must be callable (or a layer "
                            f"object with a weight), got {type(obj).__name__}")
        takes = _params(obj)
        _bind(obj, name, f"{_a(kind)} target f(X, W, eps[, bias])", (1, 2, 3), {},
              f" (it takes {takes}; {_a(kind)} target takes X, W, eps and, unless "
              f"{bias_fix}, a bias: check --kind)")
        if opts.get("bias", "inner") != "none":
            sig = _signature_of(obj)
            if sig is not None:
                try:
                    sig.bind(1, 2, 3, 4)
                except TypeError:
                    raise TypeError(bias_message(name, kind, takes, bias_fix)) from None
        return
    if kind == "attention":
        if not callable(obj):
            raise TypeError(f"target {name!r}: an attention target must be callable, got "
                            f"{type(obj).__name__}")
        kw = attention_keywords(opts)
        conv = "an attention target f(Q, K, V, " + ", ".join(f"{k}=..." for k in kw) + ")"
        _bind(obj, name, conv, (1, 2, 3), kw, f" (it takes {_params(obj)}; see --set eps_arg=, "
                                               "mask_arg=, call=)")
        return
    if kind == "linear_attention":
        if not callable(obj):
            raise TypeError(f"target {name!r}: a linear_attention target must be callable, got "
                            f"{type(obj).__name__}")
        _bind(obj, name, "a linear_attention target f(Q, K, V, feature_map)", (1, 2, 3, 4), {},
              f" (it takes {_params(obj)})")


def bias_message(name: str, kind: str, takes: str, bias_fix: str, detail: str = "") -> str:
    """The one line for a kernel target that takes no bias argument."""
    takes = f"it takes {takes}" if takes else "it takes no fourth argument"
    return (f"target {name!r} cannot be called as {_a(kind)} target f(X, W, eps, bias) "
            f"({takes}{detail}); the blocks with a bias pass it as a fourth argument: pass "
            f"{bias_fix} if the target has no bias")


def attention_keywords(opts: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments every call of an attention target gets (values are stand-ins)."""
    kw = dict(opts.get("call") or {})
    kw[opts.get("eps_arg", "eps")] = 1.0
    kw[opts.get("mask_arg", "mask")] = None
    if opts.get("normalize_arg") and opts.get("normalize"):
        kw[opts["normalize_arg"]] = opts["normalize"]
    return kw


def probe_signature(obj: Any, kind: str, opts: Mapping[str, Any], name: str, fw: Framework,
                    clock: Clock | None = None, *, bias_fix: str = "--bias none") -> None:
    """Where ``obj``'s signature cannot tell (``inconclusive``: no signature, or ``*args``),
    call it once on a 2 x 2 input as its kind will, before any suite: a call that Python refuses
    for its arguments (``arity_error``) is the TypeError of ``check_signature``.  Anything else
    the target does here is left to the suites, which judge it (so this raises nothing else)."""
    clock = clock or NullClock()
    if kind in KERNEL_KINDS:
        if inspect.isclass(obj) or hasattr(obj, "weight") or not inconclusive(obj):
            return
        Z = np.array([[0.5, 0.25], [0.25, 0.5]])
        X, W = fw.asarray(Z, "float64"), fw.asarray(Z, "float64")
        tries: list[tuple[tuple[Any, ...], str | None]] = [((X, W, 1.0), None)]
        if opts.get("bias", "inner") != "none":
            tries.append(((X, W, 1.0, fw.asarray(np.array([0.5, 0.5]), "float64")), "bias"))
        for args, what in tries:
            exc = _try_call(obj, args, {}, clock, "the target's signature check (call on "
                                                  "X of shape (2, 2))")
            if exc is None or not arity_error(exc, obj):
                continue
            if what == "bias":
                raise TypeError(bias_message(name, kind, "", bias_fix,
                                             f": f(X, W, eps, bias) raised TypeError: "
                                             f"{_short(exc)}"))
            raise TypeError(f"target {name!r} cannot be called as {_a(kind)} target "
                            f"f(X, W, eps[, bias]): f(X, W, eps) raised TypeError: {_short(exc)} "
                            f"(check --kind)")
    elif kind == "attention" and callable(obj) and inconclusive(obj):
        kw = attention_keywords(opts)
        kw[opts.get("eps_arg", "eps")] = 1.0
        Q = fw.asarray(np.array([[0.5, 0.25], [0.25, 0.5]]), "float64")
        if opts.get("layout", "ld") == "bqhd":
            Q = Q[None, :, None, :]
        exc = _try_call(obj, (Q, Q, Q), kw, clock, "the target's signature check (call on "
                                                   "Q of shape (2, 2))")
        if exc is not None and arity_error(exc, obj):
            conv = "f(Q, K, V, " + ", ".join(f"{k}=..." for k in kw) + ")"
            raise TypeError(f"target {name!r} cannot be called as an attention target {conv}: "
                            f"it raised TypeError: {_short(exc)} (see --set eps_arg=, "
                            f"mask_arg=, call=)")


def _try_call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any],
              clock: Clock, what: str) -> BaseException | None:
    clock.start(what)
    try:
        with np.errstate(all="ignore"):
            fn(*args, **kwargs)
    except (Exception, SystemExit) as exc:      # the suites judge everything but the arity
        return exc
    finally:
        clock.stop()
    return None


def check_factory(factory: object, name: str) -> None:
    """TypeError when a feature factory cannot be called as f(d, F, eps=, bias=, seed=)."""
    if not callable(factory):
        raise TypeError(f"feature factory {name!r} must be callable, got "
                        f"{type(factory).__name__}")
    sig = _signature_of(factory)
    if sig is None:
        return
    try:
        sig.bind(8, 64, eps=1.0, bias=1.0, seed=0)
    except TypeError as exc:
        raise TypeError(f"feature factory {name!r} cannot be called as "
                        f"f(d, F, eps=..., bias=..., seed=...) -> phi: {exc}") from None


# ---------------------------------------------------------------- settings

def _kwargs_object(value: object, name: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and k.isidentifier()
                                              for k in value):
        raise TypeError(f"{name} must be an object of keyword arguments (JSON such as "
                        f'{{"training": false}}), got {value!r}')
    return dict(value)


def _identifier(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.isidentifier():
        raise TypeError(f"{name} must be an argument name, got {value!r}")
    return value


def _scale_rule(value: object, name: str) -> str | float:
    if isinstance(value, str):
        return check_choice(value, name, ("alpha", "n", "sqrt_n"))
    return check_real(value, name, gt=0.0)


def _score_scale(value: object, name: str) -> str | float:
    if isinstance(value, str):
        return check_choice(value, name, ("rsqrt_d",))
    return check_real(value, name, gt=0.0)


def _factory(value: object, name: str) -> str | Callable[..., Any]:
    if isinstance(value, str):
        split_target(value)
        return value
    if not callable(value):
        raise TypeError(f"{name} must be 'package.module:callable' or a callable, got {value!r}")
    return value


def _method(value: object, name: str) -> str:
    from ..features.yat import METHODS

    return check_choice(value, name, METHODS)


def _normalize(value: object, name: str) -> str:
    from ..yat.attention import NORMALIZERS

    return check_choice(value, name, NORMALIZERS)


_LA, _FE = "linear_attention", "features"
#: every adapter setting: the kinds that read it and its check (value, name) -> value.
SETTINGS: dict[str, tuple[tuple[str, ...], Callable[[Any, str], Any]]] = {
    "bias": (KERNEL_KINDS, lambda v, n: check_choice(v, n, ("inner", "outer", "none"))),
    "scale": (("layer",), _scale_rule),
    "alpha_factor": (("layer",), lambda v, n: check_real(v, n)),
    "init": (("layer",), _kwargs_object),
    "layout": (("attention",), lambda v, n: check_choice(v, n, ("ld", "bqhd"))),
    "eps_arg": (("attention",), _identifier),
    "mask_arg": (("attention",), _identifier),
    "normalize_arg": (("attention",), _identifier),
    "normalize": (("attention",), _normalize),
    "delta": (("attention",), lambda v, n: check_real(v, n, ge=0.0)),
    "score_scale": (("attention",), _score_scale),
    "call": (("attention",), _kwargs_object),
    "factory": ((_LA, _FE), _factory),
    "method": ((_LA,), _method),
    "eps": ((_LA, _FE), lambda v, n: check_real(v, n, gt=0.0)),
    "bias_value": ((_LA, _FE), lambda v, n: check_real(v, n, ge=0.0)),
    "budget": ((_LA, _FE), lambda v, n: check_real(v, n, gt=0.0)),
    "budget_features": ((_LA, _FE), lambda v, n: check_int(v, n, minimum=1)),
    "d": ((_FE,), lambda v, n: check_int(v, n, minimum=1)),
    "num_features": ((_FE,), lambda v, n: check_int(v, n, minimum=1)),
    "replicates": ((_FE,), lambda v, n: check_int(v, n, minimum=2)),
}
#: arguments of ``validate`` itself (and command options): never adapter settings.
API_OPTIONS: dict[str, str | None] = {
    "kind": "--kind", "framework": "--framework", "dtype": "--dtype", "dtypes": "--dtype",
    "quick": "--quick", "progress": None, "timeout": "--timeout", "allow": "--allow",
    "target": "TARGET", "out": "--out"}


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def settings_for(kind: str) -> tuple[str, ...]:
    """The names of the settings a target of ``kind`` reads."""
    return tuple(k for k, (kinds, _) in SETTINGS.items() if kind in kinds)


def check_settings(kind: str, options: Mapping[str, Any], *, prefix: str = "option ",
                   names: Mapping[str, str] | None = None, factory_module: str | None = None,
                   allow: Iterable[str] = ()) -> dict[str, Any]:
    """``options`` checked against the settings of ``kind``: unknown names, ``validate``'s own
    arguments and values of the wrong type are refused (ValueError/TypeError naming them);
    a factory named by a string must come from ``factory_module`` or a module of ``allow``."""
    names = names or {}
    label = {key: names.get(key, f"{prefix}{key}") for key in options}

    def listed(keys: Iterable[str]) -> str:
        return ", ".join(label[k] for k in keys)

    mine = ", ".join(settings_for(kind)) or "(none)"
    api = [k for k in options if k in API_OPTIONS]
    if api:
        what = "; ".join(f"{k!r} is " + (f"the command option {API_OPTIONS[k]}" if API_OPTIONS[k]
                                           else "an argument of validate()") for k in api)
        verb = "is not an adapter setting" if len(api) == 1 else "are not adapter settings"
        raise ValueError(f"{listed(api)} {verb}: {what}")
    unknown = [k for k in options if k not in SETTINGS]
    if unknown:
        verb = "is not a setting" if len(unknown) == 1 else "are not settings"
        raise ValueError(f"{listed(unknown)} {verb} of {_a(kind)} target; its settings are: "
                         f"{mine}")
    other = [k for k in options if kind not in SETTINGS[k][0]]
    if other:
        if len(other) == 1:
            verb, read = "does", f"it is read for {', '.join(SETTINGS[other[0]][0])} targets"
        else:
            verb = "do"
            read = "; ".join(f"{k} is read for {', '.join(SETTINGS[k][0])} targets"
                             for k in other)
        raise ValueError(f"{listed(other)} {verb} not apply to {_a(kind)} target ({read}); "
                         f"{_a(kind)} target's settings are: {mine}")
    out = {}
    for key, value in options.items():
        check = SETTINGS[key][1]
        label_ = label[key]
        if value is None:           # None: the preset's or the default value
            continue
        value = check(value, label_)
        if key == "factory" and isinstance(value, str):
            mod = split_target(value)[0]
            if not module_allowed(mod, factory_module, allow):
                home = f"the target's module {factory_module!r}" if factory_module else \
                    "the target's module"
                raise ValueError(f"{label_}={value!r}: a factory must come from {home} or a "
                                 f"module named with --allow (allow=...); {mod!r} is neither")
        out[key] = value
    call = out.get("call") or {}
    for key in ("eps_arg", "mask_arg", "normalize_arg"):
        if out.get(key) in call:
            raise ValueError(f"{prefix}call sets {out[key]!r}, the argument {prefix}{key} names")
    return out


class KernelAdapter:
    """A product, gram or layer target as ``gram_fn(Z, eps, bias, mode) -> (m, m)`` (NumPy in,
    framework call, float64 NumPy out), plus ``call_fw`` for the gradient suite.  Every call goes
    through ``calls`` (a ``Calls``)."""

    def __init__(self, obj: Any, kind: str, fw: Framework, *, bias: str = "inner",
                 scale: str | float = 1.0, alpha_factor: float = 1.0,
                 init: Mapping[str, Any] | None = None, calls: Calls | None = None) -> None:
        self.obj, self.kind, self.fw = obj, kind, fw
        if bias not in ("inner", "outer", "none"):
            raise ValueError(f"bias must be 'inner', 'outer' or 'none', got {bias!r}")
        self.bias = bias
        self.modes = () if bias == "none" else (bias,)
        self.scale_rule, self.alpha_factor, self.init = scale, alpha_factor, dict(init or {})
        self.is_class = inspect.isclass(obj)
        self.is_module = self.is_class or hasattr(obj, "weight")
        if not self.is_module and not callable(obj):
            raise TypeError(f"a {kind} target must be callable (or a layer object with a weight), "
                            f"got {type(obj).__name__}")
        self.calls = calls or Calls(fw)
        self.dtype_seen: set[str] = set()
        #: how the caller spells "the target has no bias argument" (messages)
        self.bias_fix = "--bias none"

    # the width scale s of a layer with n units
    def scale(self, n: int, module: Any = None) -> float | None:
        if self.kind != "layer":
            return None
        rule = self.scale_rule
        if rule in ("n", "sqrt_n"):
            alpha = 1.0 if module is None else self._alpha(module)
            return width_scale(n, alpha, scale_num=rule)[0]
        if rule == "alpha":
            return (1.0 if module is None else self._alpha(module)) * self.alpha_factor
        return float(rule)

    def _alpha(self, module: Any) -> float:
        a = getattr(module, "alpha", None)
        if a is None:
            return 1.0
        if isinstance(a, numbers.Real):
            return float(a)
        return float(self.fw.to_numpy(a).reshape(-1)[0])

    def module_for(self, d: int, n: int) -> Any:
        if not self.is_class:
            return self.obj
        return self.calls.run("the target", f"construction {self.obj.__name__}({d}, {n}"
                              + "".join(f", {k}={v!r}" for k, v in self.init.items()) + ")",
                              self.obj, d, n, **self.init)

    def call_fw(self, X: Array, W: Array, eps: float, b: Array | None,
                module: Any = None) -> Array:
        """Framework arrays in, framework result out: (B, n) (product: (n,) paired rows)."""
        if self.is_module:
            return self._call_module(module, X, W, eps, b)
        if b is None:
            return self.obj(X, W, eps)
        return self.obj(X, W, eps, b)

    def _call_module(self, module: Any, X: Array, W: Array, eps: float,
                     b: Array | None) -> Array:
        for name in ("epsilon", "eps"):
            if hasattr(module, name) and not callable(getattr(module, name)):
                setattr(module, name, float(eps))
                break
        if self.fw.name == "torch":
            import torch

            params = {"weight": W}
            if getattr(module, "bias", None) is not None:
                params["bias"] = b if b is not None else torch.zeros(W.shape[0], dtype=W.dtype)
            return torch.func.functional_call(module, params, (X,))
        module.weight = W
        if getattr(module, "bias", None) is not None:
            module.bias = b if b is not None else self.fw.mod.zeros(W.shape[0], dtype=W.dtype)
        return module(X)

    def out_shape(self, B: int, n: int) -> tuple[int, ...]:
        return (n,) if self.kind == "product" else (B, n)

    def kernel_matrix(self, X: npt.ArrayLike, W: npt.ArrayLike, eps: float,
                      dtype: npt.DTypeLike) -> npt.NDArray[np.float64]:
        """K(X_i, W_j) as a (B, n) float64 NumPy array from one call of the target on ``dtype``
        inputs, without bias (a product target gets the pairs as paired rows; a layer's output
        is divided by its width scale s).  Every call goes through ``calls``."""
        fw, name = self.fw, dtype_name(dtype)
        X = np.asarray(X, np.float64)
        W = np.asarray(W, np.float64)
        B, n = X.shape[0], W.shape[0]
        if self.kind == "product":
            X, W = np.repeat(X, n, axis=0), np.tile(W, (B, 1))
        module = self.module_for(X.shape[1], W.shape[0]) if self.is_module else None
        Xf, Wf = fw.asarray(X, name), fw.asarray(W, name)
        where = call_where(X=tuple(X.shape), W=tuple(W.shape), eps=float(eps))
        out = self.calls.run("the target", where, self.call_fw, Xf, Wf, float(eps), None, module,
                             inputs=(("X", Xf), ("W", Wf)))
        got = self.calls.array("the target", where, out, self.out_shape(X.shape[0], W.shape[0]))
        got = got.reshape(B, n)
        if self.kind == "layer":
            got = got / self.scale(n, module)
        return got

    def gram_fn(self, dtype: str) -> Callable[[npt.NDArray[Any], float, npt.NDArray[Any] | None,
                                               str | None], npt.NDArray[np.float64]]:
        """The harness function for ``dtype`` (a dtype name)."""
        fw = self.fw

        def run(Z: npt.NDArray[Any], eps: float, bias: npt.NDArray[Any] | None,
                mode: str | None) -> npt.NDArray[np.float64]:
            m = Z.shape[0]
            if self.kind == "product":
                X = np.repeat(Z, m, axis=0)
                W = np.tile(Z, (m, 1))
                b = None if bias is None else np.tile(np.asarray(bias), m)
            else:
                X = W = Z
                b = bias
            module = self.module_for(Z.shape[1], W.shape[0]) if self.is_module else None
            Xf, Wf, bf = fw.asarray(X, dtype), fw.asarray(W, dtype), fw.asarray(b, dtype)
            facts = dict(X=tuple(X.shape), W=tuple(W.shape), eps=float(eps))
            if b is not None:
                facts["bias"] = f"{mode} (shape {tuple(b.shape)})"
            where = call_where(**facts)
            hint = "" if b is None or self.is_module else (
                f" (the blocks with a bias call f(X, W, eps, bias): {self.bias_fix} if the "
                f"target has no bias)")
            out = self.calls.run("the target", where, self.call_fw, Xf, Wf, float(eps), bf,
                                 module, inputs=(("X", Xf), ("W", Wf), ("bias", bf)), hint=hint)
            got = self.calls.array("the target", where, out, self.out_shape(X.shape[0],
                                                                            W.shape[0]))
            self.dtype_seen.add(fw.dtype_of(out))
            return got.reshape(m, m)
        return run


# ---------------------------------------------------------------- presets

def _yat_layer(X: Array, W: Array, eps: float, bias: Array | None = None) -> Array:
    from ..yat.layer import layer_forward

    return layer_forward(X, W, eps, bias, alpha=1.0)


def _yat_features_factory(method: str = "laplace_mc") -> Callable[..., Any]:
    def make(d: int, F: int, *, eps: float, bias: float, seed: RNGLike,
             spherical: bool = True) -> YatFeatures:
        from ..features import yat_features

        return yat_features(d, F, eps=eps, bias=bias, rng=seed, method=method,
                            spherical=spherical and method != "laplace_mc")
    return make


def nmn_maclaurin_factory(d: int, F: int, *, eps: float, bias: float, seed: int,
                          spherical: bool = True) -> Callable[[Array], Array]:
    """nmn's MAY features (``create_maclaurin_projection`` + ``maclaurin_features``, float64)."""
    import torch
    from nmn.torch.attention import create_maclaurin_projection, maclaurin_features

    params = create_maclaurin_projection(d, F, bias=bias, epsilon=eps, seed=seed,
                                         dtype=torch.float64)
    return lambda X: maclaurin_features(X, params)


#: Settings of known targets: the conventions read from their source (kind, bias placement,
#: scale, layout, argument names).  Options given to ``validate`` override these.
PRESETS: dict[str, dict[str, Any]] = {
    "yatmath.yat:product": dict(kind="product", bias="inner"),
    "yatmath.yat:gram": dict(kind="gram", bias="inner"),
    "yatmath.yat.layer:layer_forward": dict(kind="layer", bias="inner", scale="n"),
    "yatmath.validate.adapters:_yat_layer": dict(kind="layer", bias="inner", scale="n"),
    "yatmath.yat:attention": dict(kind="attention", eps_arg="eps", mask_arg="mask", layout="ld",
                                  score_scale=1.0),
    "yatmath.yat.attention:attention": dict(kind="attention", eps_arg="eps", mask_arg="mask",
                                            layout="ld", score_scale=1.0),
    "yatmath.yat.linear_attention:linear_attention": dict(kind="linear_attention"),
    "yatmath.yat:linear_attention": dict(kind="linear_attention"),
    "yatmath.features:yat_features": dict(kind="features", factory=_yat_features_factory("series")),
    # nmn (PyTorch): YatNMN is y = alpha (x.W + b)^2 / (clamp(||x||^2 + ||W||^2 - 2 x.W, 0) + eps),
    # alpha a learnable plain multiplier (init 1), bias inside the square, epsilon an attribute.
    "nmn.torch.nmn:YatNMN": dict(kind="layer", framework="torch", bias="inner", scale="alpha"),
    # nmn yat_attention: softmax(K(q, k) / sqrt(d) * alpha) V, (batch, seq, heads, dim) layout,
    # ``epsilon`` and ``mask`` (True = attend) keywords; fully masked rows give 0.
    "nmn.torch.attention:yat_attention": dict(kind="attention", framework="torch", layout="bqhd",
                                              eps_arg="epsilon", mask_arg="mask",
                                              score_scale="rsqrt_d",
                                              call=dict(dropout_p=0.0, training=False)),
    "nmn.torch.attention:maclaurin_features": dict(kind="features", framework="torch",
                                                   factory=nmn_maclaurin_factory),
}


def preset(target: object) -> dict[str, Any]:
    """The preset settings for a target string (``{}`` if unknown)."""
    if isinstance(target, str):
        key = target if ":" in target else ":".join(target.rsplit(".", 1))
        return dict(PRESETS.get(key, {}))
    return {}


def score_scale(rule: str | float, d: int) -> float:
    if rule == "rsqrt_d":
        return 1.0 / math.sqrt(d)
    return float(rule)
