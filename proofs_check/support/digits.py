"""The UCI handwritten digits shipped inside scikit-learn (``sklearn.datasets.load_digits``: 1,797
images of 8 x 8), the labelled substitute for MNIST used by the digit figures and by the
replication parts of the MNIST claims.  No download: the data file is part of the installed
scikit-learn.  Never MNIST: every use carries ``LABEL``.
"""
from __future__ import annotations

import functools

import numpy as np

from yatmath.arguments import check_int, check_real

LABEL = "UCI handwritten digits (sklearn load_digits, 8×8), a substitute for MNIST"
SIDE = 8                      # images are SIDE x SIDE
PIXEL_MAX = 16                # UCI pixels are counts of "on" pixels in a 4x4 block: 0..16
TEST_FRACTION = 0.3


@functools.lru_cache(maxsize=1)
def _scaled():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / PIXEL_MAX
    X.setflags(write=False)
    y = y.astype(np.int64)
    y.setflags(write=False)
    return X, y


def load_uci_digits(seed=0, test_fraction=TEST_FRACTION):
    """The UCI digits, scaled to [0, 1], split into train and test, stratified by class.

    Returns ``(X_train, y_train, X_test, y_test)``: X float64 (n, 64), pixel / 16 (exact);
    y int64 in 0..9.  The split is ``train_test_split(..., test_size=test_fraction,
    stratify=y, random_state=seed)``: same seed, same split (and order), bit for bit.
    """
    seed = check_int(seed, "seed", minimum=0, maximum=2 ** 32 - 1)
    test_fraction = check_real(test_fraction, "test_fraction", gt=0.0, lt=1.0)
    from sklearn.model_selection import train_test_split

    X, y = _scaled()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=float(test_fraction), stratify=y,
                                          random_state=int(seed))
    return Xtr, ytr, Xte, yte
