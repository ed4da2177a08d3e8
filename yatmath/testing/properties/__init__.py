"""Property-based checks of the five families, as a library to run against any implementation.

Each property is a function ``prop(impl, inputs..., **options)`` that returns ``None`` when the
property holds and raises ``AssertionError`` naming the property (``[name]``), its source (the
paper and section, or the docstring that states it) and the tolerance it was judged at.  Every
property carries ``prop.spec`` (a :class:`Property`: name, family, source, tolerance) and is
listed in :data:`PROPERTIES`.  Hypothesis strategies that generate inputs over magnitudes and
shapes are in :mod:`yatmath.testing.strategies` (needs ``hypothesis``).

    from yatmath.testing.properties import yat_gram_psd
    yat_gram_psd(lambda X, eps: my_gram(X, X, eps), X, 1e-3)    # AssertionError if not PSD

Families: :mod:`.yat` (the kernel, its gradients against finite differences and autodiff,
attention, squashers, E[K] = O(1) in d at initialisation), :mod:`.features` (random features,
unbiasedness, variance, truncated/randomized SVD, Nystrom, importance sampling: the optimal
proposal and the estimator's variance), :mod:`.itnet` (tiled = dense, low rank, Monte Carlo,
linearity in u, the convolution / recurrence / attention special cases against direct
implementations), :mod:`.particles` (momentum, force = -grad energy, projected Langevin, the
projection is non-expansive, finite volumes: mass, positivity, free energy; the empirical
measure's large deviations).
"""
from ._core import PROPERTIES, Property, central_difference, mean_test, unit_roundoff
from .features import (as_matrix, check_unbiased, eckart_young_check, feature_kernel_unbiased,
                       feature_variance_one_over_F, importance_optimal_proposal,
                       importance_variance, importance_variance_matches, nystrom_bounds,
                       nystrom_exact_at_low_rank, randomized_svd_near_optimal,
                       truncated_svd_optimal)
from .itnet import (attention_direct, conv_direct, itnet_attention_matches_direct,
                    itnet_conv_matches_direct, itnet_linear_in_u, itnet_lowrank_optimal,
                    itnet_mc_unbiased, itnet_output_tolerance, itnet_ssm_matches_recurrence,
                    itnet_tiled_matches_dense, ssm_direct)
from .particles import (empirical_measure_ldp, force_is_minus_energy_gradient, forces_sum_to_zero,
                        fv_free_energy_decreases, fv_free_energy_error, fv_mass_conserved,
                        fv_nonnegative_under_cfl, fv_positivity_dt, interaction_energy_error,
                        langevin_step_stays_in_domain, projection_error, projection_nonexpansive,
                        sanov_tail_sandwich)
from .yat import (AUTODIFF_LIBRARIES, autodiff_libraries, gaussian_init_bounds,
                  kernel_error_bound, soft_sigmoid_range_and_limits, soft_tanh_range_and_limits,
                  softermax_hard_limit, softermax_simplex, yat_attention_rows_sum_to_one,
                  yat_dim_scaling, yat_gradient_autodiff, yat_gradient_fd, yat_gram_psd,
                  yat_lipschitz_unit_ball, yat_self_regulation, yat_symmetric)

__all__ = [
    "PROPERTIES", "Property", "central_difference", "mean_test", "unit_roundoff",
    # yat
    "kernel_error_bound", "yat_self_regulation", "yat_symmetric", "yat_gram_psd",
    "yat_gradient_fd", "yat_attention_rows_sum_to_one", "softermax_simplex",
    "softermax_hard_limit", "soft_sigmoid_range_and_limits", "soft_tanh_range_and_limits",
    "yat_lipschitz_unit_ball", "yat_dim_scaling", "gaussian_init_bounds",
    "yat_gradient_autodiff", "autodiff_libraries", "AUTODIFF_LIBRARIES",
    # features / estimators
    "check_unbiased", "feature_kernel_unbiased", "feature_variance_one_over_F",
    "truncated_svd_optimal", "randomized_svd_near_optimal", "nystrom_bounds",
    "nystrom_exact_at_low_rank", "eckart_young_check", "as_matrix",
    "importance_optimal_proposal", "importance_variance_matches", "importance_variance",
    # itnet
    "itnet_tiled_matches_dense", "itnet_lowrank_optimal", "itnet_mc_unbiased",
    "itnet_output_tolerance", "itnet_linear_in_u", "itnet_conv_matches_direct", "conv_direct",
    "itnet_ssm_matches_recurrence", "ssm_direct", "itnet_attention_matches_direct",
    "attention_direct",
    # particles
    "forces_sum_to_zero", "force_is_minus_energy_gradient", "interaction_energy_error",
    "langevin_step_stays_in_domain", "fv_mass_conserved", "fv_nonnegative_under_cfl",
    "fv_positivity_dt", "projection_nonexpansive", "projection_error",
    "fv_free_energy_decreases", "fv_free_energy_error", "empirical_measure_ldp",
    "sanov_tail_sandwich",
]
