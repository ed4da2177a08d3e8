"""itnet.special_case.conv_boundary: 003 App C.12 (valid queries, extension points, boundary fraction)."""
from __future__ import annotations

import numpy as np
import scipy.ndimage as nd
import scipy.signal as ss
import sympy as sp

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Scope, register
from proofs_check.support.itnet_operators import exact_identity_evidence, rel
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import conv as cv


@register("itnet.special_case.conv_boundary",
          method="(i),(ii): valid queries and zero / reflect / replicate / periodic extension points vs scipy 'valid', "
                 "'same' and scipy.ndimage modes over >= 20 random draws; (iii) sympy: 1 - (H-k+1)(W-k+1)/(HW) <= "
                 "(k-1)(H+W)/(HW)")
def check_conv_boundary(ctx):
    def draw_valid(rng):
        H, W, k = int(rng.integers(5, 14)), int(rng.integers(5, 14)), 3
        x, f = rng.normal(size=(H, W)), rng.normal(size=(k, k))
        ov = cv.conv_kernel(f[None, None], (H, W), boundary="valid").apply(x[None])[0]
        ok = tuple(ov.shape) == (H - k + 1, W - k + 1)
        return (rel(ov, ss.correlate(x, f, mode="valid")) if ok else np.inf), {"H": H, "W": W, "shape": list(ov.shape)}

    def draw_ext(rng):
        H, W, k = int(rng.integers(5, 14)), int(rng.integers(5, 14)), 3
        x, f = rng.normal(size=(H, W)), rng.normal(size=(k, k))
        errs = {"same_zero": rel(cv.conv_kernel(f[None, None], (H, W), boundary="same").apply(x[None])[0],
                                 ss.correlate(x, f, mode="same")),
                "wrap": rel(cv.conv_kernel(f[None, None], (H, W), boundary="wrap").apply(x[None])[0],
                            nd.correlate(x, f, mode="wrap"))}
        cks = cv.conv_kernel(f[None, None], (H, W), boundary="same")
        for name, npmode, ndmode in (("reflect", "reflect", "mirror"), ("replicate", "edge", "nearest"),
                                     ("periodic_by_extension", "wrap", "wrap")):
            o = apply_kernel_tensor(cks.K, np.pad(x, 1, mode=npmode).reshape(-1, 1), cks.omega)[:, 0].reshape(H, W)
            errs[name] = rel(o, nd.correlate(x, f, mode=ndmode))
        return max(errs.values()), {"H": H, "W": W, "errors": errs}

    p_i = exact_identity_evidence(ctx, "valid", draw_valid, what="(i) valid queries: (H-k+1)x(W-k+1) output = scipy 'valid'")
    p_ii = exact_identity_evidence(ctx, "ext", draw_ext, what="(ii) zero/reflect/replicate/periodic extension points")
    H, W, k = sp.symbols("H W k", positive=True)
    frac = 1 - (H - k + 1) * (W - k + 1) / (H * W)
    excess = sp.simplify((k - 1) * (H + W) / (H * W) - frac)       # = (k-1)^2/(HW) >= 0
    ok = sp.simplify(excess - (k - 1) ** 2 / (H * W)) == 0
    p_iii = Evidence(V.holds(bool(ok)), numbers={"fraction": str(sp.simplify(frac)), "bound_minus_fraction": str(excess)},
                     scope=Scope("symbolic", "sympy for symbolic H, W, k: fraction = (k-1)(H+W)/(HW) - (k-1)^2/(HW) "
                                             "<= (k-1)(H+W)/(HW), i.e. O((H+W)/(HW)) for fixed k", universal=True))
    return Evidence.of_parts({"i_valid": p_i, "ii_extension": p_ii, "iii_fraction": p_iii})
