"""Special-case kernels of 003: convolution, attention, recurrences (algorithms.md I5)."""
from . import attention, conv, recurrent  # noqa: F401
