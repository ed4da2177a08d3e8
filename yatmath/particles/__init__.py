"""Particle kernel learning (004): interactions, Hamiltonian, projected Langevin, PDE, diagnostics."""
from .forces import (interaction_energy, interaction_force, interaction_potential,
                     random_batch_force, random_batches)
from .interactions import KINDS, Interaction, as_interaction, make_interaction
