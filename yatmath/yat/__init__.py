"""The Yat kernel K(w, x) = (w . x)^2 / (||w - x||^2 + eps) and the layers built on it."""
from .attention import (attention, attention_backward, multihead_attention,
                        multihead_attention_backward)
from .conv import conv2d
from .grad import YatGrad, grad
from .kernel import gram, matvec, product
from .linear_attention import linear_attention
from .layer import layer_backward, layer_forward, width_scale
from .squash import soft_sigmoid, soft_tanh, softermax

__all__ = ["product", "gram", "matvec", "grad", "YatGrad", "layer_forward", "layer_backward",
           "width_scale", "attention", "attention_backward", "multihead_attention",
           "multihead_attention_backward", "linear_attention", "conv2d", "softermax",
           "soft_sigmoid", "soft_tanh"]

from . import simplex  # noqa: E402,F401  (simplex_product, kl_divergence, cross_entropy, entropy)


def _register_array_code_rows():
    """The registry row of ``width_scale`` (Python floats, no arrays); every other operation of
    ``yatmath.yat`` registers its rows where it is defined."""
    from .._registry import register

    # yat.layer_forward / yat.layer_backward register in layer.py (array API generic)
    register("yat.width_scale", "reference", note="Python floats (no arrays)")(width_scale)


_register_array_code_rows()
