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
"""
from __future__ import annotations

import importlib
import inspect
import math

import numpy as np

from ..testing.generators import dtype_name
from ..yat.layer import width_scale

FRAMEWORKS = ("numpy", "torch", "jax")
KINDS = ("product", "gram", "layer", "attention", "linear_attention", "features")


# ---------------------------------------------------------------- framework conversion

class Framework:
    """Conversion to and from one array library, and its autodiff (None for NumPy)."""

    def __init__(self, name):
        if name not in FRAMEWORKS:
            raise ValueError(f"framework must be one of {FRAMEWORKS}, got {name!r}")
        self.name = name
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

    @property
    def differentiable(self):
        return self.name in ("torch", "jax")

    def has_dtype(self, dtype):
        return dtype_name(dtype) != "bfloat16" or self.name in ("torch", "jax")

    def asarray(self, a, dtype):
        """``a`` (NumPy) as this framework's array of ``dtype`` (a dtype name)."""
        name = dtype_name(dtype)
        if a is None:
            return None
        carrier = np.ascontiguousarray(np.asarray(a, dtype=np.float64 if name == "float64"
                                                  else np.float32))
        if self.name == "numpy":
            if name == "bfloat16":
                raise ValueError("NumPy has no bfloat16; use --framework torch or jax for bfloat16")
            return carrier
        if self.name == "torch":
            t = self.mod.from_dlpack(carrier)
            return t.to(self.mod.bfloat16) if name == "bfloat16" else t
        x = self.mod.from_dlpack(carrier)
        return x.astype(self.mod.bfloat16) if name == "bfloat16" else x

    def to_numpy(self, a):
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

    def dtype_of(self, a):
        """The dtype name of a framework result."""
        return str(getattr(a, "dtype", "?")).replace("torch.", "")


# ---------------------------------------------------------------- targets

def resolve(target):
    """``package.module:callable`` (or ``package.module.callable``) -> the object; objects pass."""
    if not isinstance(target, str):
        return target
    if ":" in target:
        mod, _, attr = target.partition(":")
    else:
        mod, _, attr = target.rpartition(".")
    if not mod or not attr:
        raise ValueError(f"target must be 'package.module:callable', got {target!r}")
    try:
        obj = importlib.import_module(mod)
    except ImportError as exc:
        raise ValueError(f"target {target!r}: cannot import module {mod!r} ({exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"target {target!r}: module {mod!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


class KernelAdapter:
    """A product, gram or layer target as ``gram_fn(Z, eps, bias, mode) -> (m, m)`` (NumPy in,
    framework call, float64 NumPy out), plus ``call_fw`` for the gradient suite."""

    def __init__(self, obj, kind, fw, *, bias="inner", scale=1.0, alpha_factor=1.0, init=None):
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
        self.dtype_seen = set()

    # the width scale s of a layer with n units
    def scale(self, n, module=None):
        if self.kind != "layer":
            return None
        rule = self.scale_rule
        if rule in ("n", "sqrt_n"):
            alpha = 1.0 if module is None else self._alpha(module)
            return width_scale(n, alpha, scale_num=rule)[0]
        if rule == "alpha":
            return (1.0 if module is None else self._alpha(module)) * self.alpha_factor
        return float(rule)

    def _alpha(self, module):
        a = getattr(module, "alpha", None)
        if a is None:
            return 1.0
        return float(self.fw.to_numpy(a).reshape(-1)[0])

    def module_for(self, d, n):
        if not self.is_class:
            return self.obj
        return self.obj(d, n, **self.init)

    def call_fw(self, X, W, eps, b, module=None):
        """Framework arrays in, framework result out: (B, n) (product: (n,) paired rows)."""
        if self.is_module:
            return self._call_module(module, X, W, eps, b)
        if b is None:
            return self.obj(X, W, eps)
        return self.obj(X, W, eps, b)

    def _call_module(self, module, X, W, eps, b):
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

    def gram_fn(self, dtype):
        """The harness function for ``dtype`` (a dtype name)."""
        fw = self.fw

        def run(Z, eps, bias, mode):
            m = Z.shape[0]
            if self.kind == "product":
                X = np.repeat(Z, m, axis=0)
                W = np.tile(Z, (m, 1))
                b = None if bias is None else np.tile(np.asarray(bias), m)
            else:
                X = W = Z
                b = bias
            module = self.module_for(Z.shape[1], W.shape[0]) if self.is_module else None
            out = self.call_fw(fw.asarray(X, dtype), fw.asarray(W, dtype), float(eps),
                               fw.asarray(b, dtype), module)
            self.dtype_seen.add(fw.dtype_of(out))
            return fw.to_numpy(out).reshape(m, m)
        return run


# ---------------------------------------------------------------- presets

def _yat_layer(X, W, eps, bias=None):
    from ..yat.layer import layer_forward

    return layer_forward(X, W, eps, bias, alpha=1.0)


def _yat_features_factory(method="laplace_mc"):
    def make(d, F, *, eps, bias, seed, spherical=True):
        from ..features import yat_features

        return yat_features(d, F, eps=eps, bias=bias, rng=seed, method=method,
                            spherical=spherical and method != "laplace_mc")
    return make


def nmn_maclaurin_factory(d, F, *, eps, bias, seed, spherical=True):
    """nmn's MAY features (``create_maclaurin_projection`` + ``maclaurin_features``, float64)."""
    import torch
    from nmn.torch.attention import create_maclaurin_projection, maclaurin_features

    params = create_maclaurin_projection(d, F, bias=bias, epsilon=eps, seed=seed,
                                         dtype=torch.float64)
    return lambda X: maclaurin_features(X, params)


#: Settings of known targets: the conventions read from their source (kind, bias placement,
#: scale, layout, argument names).  Options given to ``validate`` override these.
PRESETS = {
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


def preset(target):
    """The preset settings for a target string (``{}`` if unknown)."""
    if isinstance(target, str):
        key = target if ":" in target else ":".join(target.rsplit(".", 1))
        return dict(PRESETS.get(key, {}))
    return {}


def score_scale(rule, d):
    if rule == "rsqrt_d":
        return 1.0 / math.sqrt(d)
    return float(rule)
