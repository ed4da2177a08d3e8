"""Valid but unusual forms of an array argument, for "same answer as the plain case" tests.

``variant(kind, a)`` returns the float64 C-contiguous array ``a`` in another valid form; a public
function must give the same result (bit for bit for layout and ownership variants, which change no
arithmetic) for each.  ``KINDS`` is what hypothesis draws from in the area tests
(``tests/test_unusual_inputs_<area>.py``).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

#: layout and container variants: the values are the same float64 numbers
SAME_VALUES = ("fortran", "strided", "readonly", "list", "float64_view")
#: variants whose values are exactly representable after conversion (ints, bools)
KINDS = SAME_VALUES


def variant(kind: str, a):
    a = np.ascontiguousarray(a, dtype=np.float64)
    if kind == "fortran":
        return np.asfortranarray(a)
    if kind == "strided":  # a non-contiguous view with the same values
        big = np.repeat(a[..., None], 2, axis=-1) if a.ndim else a
        return big[..., 0] if a.ndim else a
    if kind == "readonly":
        b = a.copy()
        b.flags.writeable = False
        return b
    if kind == "list":
        return a.tolist()
    if kind == "float64_view":  # a view of a larger buffer
        buf = np.zeros(a.size + 3)
        buf[1:1 + a.size] = a.ravel()
        return buf[1:1 + a.size].reshape(a.shape)
    raise ValueError(f"unknown variant {kind!r}")


def integral(a, *, kind="int"):
    """``a`` rounded to integers (int64 or bool 0/1) and the same values as float64."""
    r = np.rint(np.asarray(a, dtype=np.float64))
    if kind == "bool":
        r = (r > 0)
        return r, r.astype(np.float64)
    return r.astype(np.int64), r


variant_kinds = st.sampled_from(KINDS)


def assert_layout_variants_match(name, fn, args, kind):
    """``fn`` gives the plain-case result bit for bit with each argument, then all of them, in the
    unusual form ``kind`` (layout variants change no arithmetic)."""
    want = np.asarray(fn(*(np.ascontiguousarray(a, dtype=np.float64) for a in args)))
    for i in range(len(args)):
        got = fn(*(variant(kind, a) if j == i else a for j, a in enumerate(args)))
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name}: argument {i}")
    got = fn(*(variant(kind, a) for a in args))
    np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name}: all arguments")
