"""ITNet: the integral-transform operator of 003 and its evaluation modes.

    (K[u])(x) = int kappa_theta(x, y, u(x), u(y)) u(y) dmu(y) + W u(x)

Public API
----------
measures    :class:`Measure`, :func:`discrete_uniform`, :func:`interval_rule`, :func:`grid_rule`,
            :func:`tensor_rule`, :func:`causal_mask`
network     :class:`KernelMLP`, :func:`init_kernel_mlp`, :func:`random_kernel_mlp`, :func:`gelu`,
            :func:`gelu_prime`, :func:`fourier_lift`
operators   :class:`ITNetOperator`, :class:`MultiHeadOperator`, :func:`init_itnet`,
            :class:`LowRankOperator`, :class:`FactorMLP`, :func:`init_factor_mlp`
evaluation  :func:`apply` (mode = "dense" | "tiled" | "mc" | "lowrank"), :func:`grad`
references  :func:`kernel_tensor`, :func:`apply_kernel_tensor`, :mod:`.dense`, :mod:`.tiled`
Monte Carlo :mod:`.mc` (estimator, proposals, exact variance, optimal pmf, proposal losses, anchors)
low rank    :mod:`.lowrank` (global Z, SVD factors, ALS, spectra and the Prop. 12 bound)
special     :mod:`.special.conv`, :mod:`.special.attention`, :mod:`.special.recurrent`
diagnostic  :func:`mixed_difference`, :func:`max_mixed_difference` (Def.-1 representability)
"""
from . import dense, diagnostic, lowrank, mc, measures, network, special, tiled  # noqa: F401
from .dense import apply_kernel_tensor, kernel_tensor
from .diagnostic import max_mixed_difference, mixed_difference
from .evaluate import MODES, apply, grad
from .lowrank import FactorMLP, LowRankOperator, init_factor_mlp, svd_factors
from .measures import (Measure, causal_mask, discrete_uniform, grid_rule, interval_rule,
                       tensor_rule)
from .network import (GROUPS, KernelMLP, fourier_lift, gelu, gelu_prime, init_kernel_mlp,
                      random_kernel_mlp)
from .operator import ITNetOperator, MultiHeadOperator, init_itnet

__all__ = [
    "Measure", "discrete_uniform", "interval_rule", "grid_rule", "tensor_rule", "causal_mask",
    "KernelMLP", "init_kernel_mlp", "random_kernel_mlp", "gelu", "gelu_prime", "fourier_lift",
    "GROUPS", "ITNetOperator", "MultiHeadOperator", "init_itnet", "LowRankOperator", "FactorMLP",
    "init_factor_mlp", "svd_factors", "apply", "grad", "MODES", "kernel_tensor",
    "apply_kernel_tensor", "mixed_difference", "max_mixed_difference",
]

