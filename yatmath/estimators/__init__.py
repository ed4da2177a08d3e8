"""Monte Carlo (importance weighting, variance, confidence intervals, QMC) and low-rank
approximation (truncated/randomized SVD, Nystrom) with their errors and bounds (I7, I8)."""
from .lowrank import LowRank, nystrom, randomized_svd, truncated_svd
from .montecarlo import (MCEstimate, density_from_pmf, discrete_variance, integrate_continuous,
                         integrate_discrete, integrate_qmc, mean_estimate, optimal_pmf)

__all__ = ["MCEstimate", "mean_estimate", "integrate_continuous", "integrate_discrete",
           "discrete_variance", "optimal_pmf", "density_from_pmf", "integrate_qmc", "LowRank",
           "truncated_svd", "randomized_svd", "nystrom"]
