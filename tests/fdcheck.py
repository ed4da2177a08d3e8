"""Central finite differences shared by the gradient tests.

With h = 1e-6 in float64 the truncation error is O(h^2 f''') ~ 1e-12 and the rounding error
O(u f / h) ~ 1e-10 relative, so agreement to FD_RTOL = 1e-7 (relative, in the 2-norm) leaves a
margin of about 1000 for the moderately conditioned test problems used here.
"""
import numpy as np

H = 1e-6
FD_RTOL = 1e-7
U64 = np.finfo(np.float64).eps / 2


def fd(f, a, h=H):
    """Central differences of the scalar-valued f with respect to every entry of a."""
    a = np.array(a, dtype=np.float64)
    out = np.empty_like(a)
    for k in np.ndindex(*a.shape):
        ap, am = a.copy(), a.copy()
        ap[k] += h
        am[k] -= h
        out[k] = (f(ap) - f(am)) / (2 * h)
    return out


def assert_fd_close(num, ana, rtol=FD_RTOL):
    num, ana = np.asarray(num, float), np.asarray(ana, float)
    err = np.linalg.norm((num - ana).ravel())
    assert err <= rtol * max(np.linalg.norm(ana.ravel()), 1e-300), (err, num, ana)
