"""itnet.special_case.conv_variants: 003 Thm C.1(d) (App C.5), App C.6-C.11."""
from __future__ import annotations

import numpy as np
import scipy.signal as ss

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, Reading, Repro, Scope, register
from proofs_check.support.itnet_operators import exact_identity_evidence, rel
from yatmath.itnet.dense import apply_kernel_tensor
from yatmath.itnet.special import conv as cv

PASS_C9 = ('003 App C.9 (strided): "Omega_query = S h Z^s, Omega_key = h Z^s"; App C.11 (transposed): a finer '
           'grid (h/r) Z^s for the queries')
PASS_DEF1 = '003 Def 1 / Def 4: K_theta: C(Omega, R^d) -> C(Omega, R^d), one domain Omega for x and y'


def corr_ref(x, f, mode="same", dil=1, stride=1, groups=1):
    """Multi-channel grouped cross-correlation by scipy.signal (dilation by zero insertion)."""
    s = x.ndim - 1
    if dil > 1:
        shp = f.shape[:2] + tuple((k - 1) * dil + 1 for k in f.shape[2:])
        fd = np.zeros(shp)
        fd[(slice(None), slice(None)) + (slice(None, None, dil),) * s] = f
        f = fd
    C_out, cpg = f.shape[:2]
    opg = C_out // groups
    y = np.array([sum(ss.correlate(x[(o // opg) * cpg + c], f[o, c], mode=mode) for c in range(cpg))
                  for o in range(C_out)])
    return y[(slice(None),) + (slice(None, None, stride),) * s]


def transpose_ref(x, f, S):
    C_in, C_out, k = f.shape
    y = np.zeros((C_out, (x.shape[1] - 1) * S + k))
    for j in range(x.shape[1]):
        for m in range(k):
            y[:, j * S + m] += f[:, :, m].T @ x[:, j]
    return y


def variant_errors(rng):
    G = (7, 6)
    x = rng.normal(size=(4,) + G)
    errs, shapes = {}, {}

    def run(name, f, **kw):
        g = kw.get("groups", 1)
        xx = x[:f.shape[1] * g]
        ck = cv.conv_kernel(f, G, boundary="same", **kw)
        errs[name] = rel(ck.apply(xx), corr_ref(xx, f, "same", kw.get("dilation", 1), kw.get("stride", 1), g))
        shapes[name] = [int(ck.K.shape[0]), int(ck.K.shape[1])]
        return ck

    run("multichannel_4to4", rng.normal(size=(4, 4, 3, 3)))
    f32 = rng.normal(size=(2, 3, 3, 3))
    ck = run("multichannel_3to2", f32)
    Kp = ck.padded()
    keys = ck.keys(x[:3])
    Op = apply_kernel_tensor(Kp, np.pad(keys, ((0, 0), (0, Kp.shape[3] - keys.shape[1]))), ck.omega)
    errs["padded_square_d3"] = rel(Op[:, :2].T.reshape((2,) + G), corr_ref(x[:3], f32, "same"))
    run("depthwise", rng.normal(size=(4, 1, 3, 3)), groups=4)
    run("dilated_r2", rng.normal(size=(4, 4, 3, 3)), dilation=2)
    run("strided_S2", rng.normal(size=(4, 4, 3, 3)), stride=2)
    run("grouped_G2", rng.normal(size=(4, 2, 3, 3)), groups=2)
    f = rng.normal(size=(4, 4, 3, 3))
    Wr = rng.normal(size=(4, 4))
    ck = cv.conv_kernel(f, G, boundary="same")
    O = apply_kernel_tensor(ck.K, ck.keys(x), ck.omega, Uq=x.reshape(4, -1).T, W=Wr).T.reshape((4,) + G)
    errs["d_with_residual_W"] = rel(O, corr_ref(x, f) + np.einsum("oc,c...->o...", Wr, x))
    xt = rng.normal(size=(3, 6))
    ft = rng.normal(size=(3, 2, 4))
    ckt = cv.conv_transpose_kernel(ft, (6,), stride=2)
    errs["transposed_S2"] = rel(ckt.apply(xt), transpose_ref(xt, ft, 2))
    shapes["transposed_S2"] = [int(ckt.K.shape[0]), int(ckt.K.shape[1])]
    return errs, shapes


@register("itnet.special_case.conv_variants",
          method="conv_kernel / conv_transpose_kernel (multi-channel, C_in != C_out padded, depthwise, dilated, "
                 "strided, grouped, transposed, + W) vs scipy.signal loops over >= 20 random draws; query/key set "
                 "sizes per variant")
def check_conv_variants(ctx):
    last = {}

    def draw(rng):
        errs, shapes = variant_errors(rng)
        last["errs"], last["shapes"] = errs, shapes
        worst = max(errs, key=errs.get)
        return errs[worst], {"variant": worst, "errors": errs}

    ev = exact_identity_evidence(
        ctx, "v", draw, what="every variant (C.5-C.11, C_in != C_out by zero padding to d = max) vs scipy references",
        reading=Reading("ITNet layers whose query set may differ from the key set, as the paper's constructions "
                        "state (strided: Omega_query = S h Z^s; transposed: a finer query grid)", PASS_C9),
        numbers={})
    shapes = last["shapes"]
    separate = sorted(k for k, v in shapes.items() if v[0] != v[1])
    ev.numbers.update({"query_key_sizes": shapes, "variants_with_separate_query_set": separate})
    expr = "list(yatmath.itnet.special.conv.conv_kernel(np.ones((1, 1, 3, 3)), (7, 6), stride=2).K.shape[:2])"
    shp = [int(v) for v in cv.conv_kernel(np.ones((1, 1, 3, 3)), (7, 6), stride=2).K.shape[:2]]
    strict = V.holds(not separate)
    ev.other_readings["single_domain_def1"] = Evidence(
        strict, numbers={"variants_with_n_query_ne_n_key": separate},
        counterexample=None if strict == V.CONFIRMED else {"variant": "strided_S2", "grid": [7, 6],
                                                            "n_query_n_key": shp},
        repro=None if strict == V.CONFIRMED else Repro(expr, {}, shp, rtol=0,
                                                        tol_reason="integer shape"),
        scope=Scope("exhaustive", "every variant of C.6-C.11"),
        reading=Reading("one Def.-1 layer maps u on Omega to a function on the same Omega", PASS_DEF1),
        notes="strided and transposed convolutions need a query set different from the key set (or a subsampling "
              "/ zero-insertion outside the layer)")
    ev.other_readings["C_in_eq_C_out_only"] = Evidence(
        V.holds(last["errs"]["multichannel_4to4"] <= 1e-12),
        numbers={"multichannel_4to4_err": last["errs"]["multichannel_4to4"]},
        scope=Scope("instance", "the last random draw; same identity as the operative reading"),
        reading=Reading("C_in = C_out (square d x d kernel blocks without padding)",
                        "003 App C.6: [kappa]_{ic} = h^{-s} f^{(i)}_{.,c} 1_N with kappa in R^{d x d}"),
        notes="both channel readings get the same verdict (padding to d = max(C_in, C_out) is exact)")
    return ev
