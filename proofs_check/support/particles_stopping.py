"""The Gaussian small-ball bound behind 004 App F.2's Phase-A early stop ("maximum change in Omega_N
falls below 1e-6"), shared by particles.alg.stopping_rules and particles.nlp.significance_and_protocol.

One SGLD step moves each particle by its drift plus sigma xi with sigma = sqrt(2 eta/beta) per
coordinate and xi ~ N(0, I_d).  :func:`small_ball_log10` is log10 of an upper bound on
P(||sigma xi_k|| < tol) for xi_k ~ N(0, I_k): the Gaussian density is at most (2 pi sigma^2)^(-k/2)
and the ball's volume is pi^(k/2) tol^k / Gamma(k/2 + 1).  By Anderson's inequality a drift can only
lower the probability; a projection onto the norm ball can cancel at most one (radial) direction,
so k = d - 1 covers it.  ``SMALL_BALL_EXPR`` is the same closed form as a reproduction expression.
"""
from __future__ import annotations

import math

SMALL_BALL_EXPR = ("k * math.log10(tol / math.sqrt(2 * eta / beta)) - (k / 2) * math.log10(2) "
                   "- math.lgamma(k / 2 + 1) / math.log(10)")

#: the number of Phase-A steps the union bound covers (any count below 10^200 gives the same verdicts)
STEPS_BOUND = 1e5


def small_ball_log10(k, tol, eta, beta):
    """log10 of an upper bound on the probability that one particle moves less than ``tol`` in one step
    (k free directions, step size ``eta``, inverse temperature ``beta``); see the module docstring."""
    return (k * math.log10(tol / math.sqrt(2 * eta / beta)) - (k / 2) * math.log10(2)
            - math.lgamma(k / 2 + 1) / math.log(10))
