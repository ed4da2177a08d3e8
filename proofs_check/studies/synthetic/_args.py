"""Argument checks shared by the modules of the synthetic study."""
from __future__ import annotations

import numpy as np


def posint(v, name, minimum=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)
