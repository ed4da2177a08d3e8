"""Particle kernel learning and its McKean-Vlasov limit (004; algorithms.md §P1-P5).

Public API
----------
interactions  make_interaction, Interaction, KINDS                      (§P2)
forces        interaction_force, interaction_potential, interaction_energy,
              random_batch_force, random_batches                         (§P2)
featuremaps   features, features_vjp, orthogonal_init, MAPS             (§P1, App D)
hamiltonian   Hamiltonian, FieldHamiltonian, ParticleEnergy, alignment,
              label_factor, OBJECTIVES                                   (§P1)
domains       Interval, Box, Ball                                        (§P3)
langevin      langevin_step, run_langevin, LangevinResult, reweight, resample   (§P3)
pde           FVGrid, McKeanVlasovFV, FVResult                           (§P4)
diagnostics   w1_1d, w1_density, sliced_w2, mmd2, mmd2_test, energy_distance,
              n_var, fit_rate, histogram_entropy, median_bandwidth       (§P5)
ldp           tilted_langevin, lambda_n_curve, log_partition, mean_field_lambda,
              sanov_two_bin, ...                                         (§P5 large deviations)

The 004 App F.1 synthetic study (algorithms.md §P6-P8: data, classifiers, metrics, drivers) is
study code of the ledger and the figures: ``proofs_check.studies.synthetic`` (needs scikit-learn).
"""
from .diagnostics import (energy_distance, fit_rate, histogram_entropy, median_bandwidth, mmd2,
                          mmd2_test, n_var, sliced_w2, w1_1d, w1_density)
from .domains import Ball, Box, Interval
from .featuremaps import MAPS, features, features_vjp, orthogonal_init
from .forces import (interaction_energy, interaction_force, interaction_potential,
                     random_batch_force, random_batches)
from .hamiltonian import (OBJECTIVES, FieldHamiltonian, Hamiltonian, ParticleEnergy, alignment,
                          label_factor)
from .interactions import KINDS, Interaction, as_interaction, make_interaction
from .ldp import (PairGibbs, TiltedResult, bernoulli_kl, beta_n, cumulative_integral,
                  lambda_n_curve, log_partition, mean_field_lambda, mean_field_tilted,
                  sanov_two_bin, simplex_ground_state, tilted_langevin,
                  truncated_riesz_energy_uniform)
from .langevin import LangevinResult, langevin_step, reweight, resample, run_langevin
from .pde import FVGrid, FVResult, McKeanVlasovFV

__all__ = [
    "KINDS", "Interaction", "make_interaction", "as_interaction",
    "interaction_force", "interaction_potential", "interaction_energy", "random_batch_force",
    "random_batches",
    "MAPS", "features", "features_vjp", "orthogonal_init",
    "OBJECTIVES", "Hamiltonian", "FieldHamiltonian", "ParticleEnergy", "alignment", "label_factor",
    "Interval", "Box", "Ball",
    "langevin_step", "run_langevin", "LangevinResult", "reweight", "resample",
    "FVGrid", "McKeanVlasovFV", "FVResult",
    "w1_1d", "w1_density", "sliced_w2", "mmd2", "mmd2_test", "energy_distance", "n_var",
    "fit_rate", "histogram_entropy", "median_bandwidth",
    "PairGibbs", "TiltedResult", "tilted_langevin", "lambda_n_curve", "log_partition",
    "mean_field_lambda", "mean_field_tilted", "sanov_two_bin", "bernoulli_kl", "beta_n",
    "cumulative_integral", "simplex_ground_state", "truncated_riesz_energy_uniform",
]
