"""Check of claims.md B10 itnet.triton_profile (003 App H.7, Table 12)."""
from __future__ import annotations

from proofs_check import verdicts as V
from proofs_check.registry import Evidence, register
from yatmath.itnet import iomodel

of_parts = Evidence.of_parts   # a claim of parts: verdict by verdicts.combine_parts


@register("itnet.triton_profile",
          method="the Triton/H200 measurements are NOT_CHECKABLE; 604/989 and the FLOP rate implied by 1480 img/s "
                 "(Table 17) under the per-pair MAC model recorded as consistency")
def check_triton(ctx):
    util = 604 / 989
    dense = 10 * 197 * 768 ** 2                          # W_θ, W^O and the 4x FFN per layer (MACs)
    macs_img = 12 * (dense + iomodel.forward_macs(197, 64, 128, 64, 12))
    implied = 2 * macs_img * 1480 / 1e12
    return of_parts({"h200_measurements": Evidence(
        V.NOT_CHECKABLE, {"utilisation_604_over_989": util},
        notes="61% / 88% / 84% of bf16 peak and B* = 64 are H200 Triton profiles (hardware and kernels not "
              "available); 604/989 = 0.611 is consistent with '61%' (printed arithmetic, not a replication).")},
        numbers={"utilisation": util, "implied_TFLOPS_forward_from_1480_img_s": implied,
                 "macs_per_image_exact_mode": macs_img},
        notes="Recorded, not deciding: 1480 img/s (Table 17, n = 197) under the per-pair kernel-MLP MAC model "
              "(App H.8) implies implied_TFLOPS_forward; this concerns Table 17's throughput, a different "
              "quantity from the n = 512 profile of Table 12.")
