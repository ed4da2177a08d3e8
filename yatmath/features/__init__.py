"""Random-feature maps: RFF (R1), orthogonal features (R2), FAVOR+ (R3), the positive maps of
004 App. D (R4) and Laplace/Maclaurin features for the Yat kernel (R5, Y8).

Every random constructor takes ``rng`` (a ``numpy.random.Generator`` or an int seed) and returns
a frozen map: ``phi(X)`` of shape (n, num_features), with ``phi.params`` recording every option.
"""
from .fourier import (RandomFourierFeatures, gaussian_frequencies, gaussian_kernel,
                      orthogonal_gaussian, rff)
from .positive import POSITIVE_KINDS, PositiveFeatures, favor_plus, positive_features
from .yat import METHODS, YatFeatures, laplace_nodes, maclaurin_coefficients, yat_features

__all__ = ["rff", "RandomFourierFeatures", "gaussian_frequencies", "gaussian_kernel",
           "orthogonal_gaussian", "favor_plus", "positive_features", "PositiveFeatures",
           "POSITIVE_KINDS", "yat_features", "YatFeatures", "METHODS", "laplace_nodes",
           "maclaurin_coefficients"]
