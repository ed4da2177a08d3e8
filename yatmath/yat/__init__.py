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
    """Registry rows of the operations whose reference is still NumPy/CuPy array code (they
    take NumPy or CuPy arrays; their ``backend=``, where they have one, is honoured by the
    ``yat.gram`` call inside), and of ``width_scale`` (Python floats, no arrays)."""
    from .._registry import register
    from ._dispatch import NUMPY_CUPY_NOTE
    from .simplex import cross_entropy, entropy, kl_divergence, simplex_product

    for op, fn, note in (
            ("layer_forward", layer_forward, "; H from yat.gram (its backend=)"),
            ("layer_backward", layer_backward, "; fused Numba/CuPy passes inside"),
            ("attention", attention, "; scores from yat.gram (its backend=)"),
            ("attention_backward", attention_backward, ""),
            ("multihead_attention", multihead_attention, "; scores from yat.gram (its backend=)"),
            ("multihead_attention_backward", multihead_attention_backward, ""),
            ("linear_attention", linear_attention, "; feature maps from yatmath.features")):
        register(f"yat.{op}", "reference", libraries=("numpy", "cupy"),
                 note=NUMPY_CUPY_NOTE + note)(fn)
    for op, fn in (("simplex_product", simplex_product), ("kl_divergence", kl_divergence),
                   ("cross_entropy", cross_entropy), ("entropy", entropy)):
        register(f"yat.simplex.{op}", "reference", libraries=("numpy",), device="cpu",
                 note="float64 NumPy (scipy.special rel_entr/xlogy)")(fn)
    register("yat.width_scale", "reference", note="Python floats (no arrays)")(width_scale)


_register_array_code_rows()
