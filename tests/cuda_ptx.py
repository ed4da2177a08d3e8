"""Compile every yatmath GPU kernel to PTX without a GPU and print the launches as JSON.

    python tests/cuda_ptx.py            one JSON list: an entry per compiled kernel launch
    YATMATH_PTX_SELFTEST=1 python ...   plus two planted kernels the check must report

Each entry also carries ptxas's ``resources`` (registers, spills, occupancy) where ptxas (the
``nvidia-cuda-nvcc`` wheel of the test extra) is installed.

The work is :func:`yatmath.bench.kernels.compile_launches`; this script runs it in a process of
its own because the test suite's process uses numba-cuda's simulator.  Where NVVM is missing it
prints ``{"unavailable": reason}``.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from yatmath.bench import kernels

    res = kernels.compile_launches(
        kernels.drivers(selftest=os.environ.get("YATMATH_PTX_SELFTEST") == "1"), keep_ptx=True)
    if isinstance(res, str):
        print(json.dumps({"unavailable": res}))
        return 0
    exe = kernels.ptxas()
    for r in res:    # ptxas's registers, spills and occupancy where ptxas is installed
        ptx = r.pop("ptx", None)
        if exe is not None and ptx is not None:
            r["resources"] = kernels.resource_rows([dict(r, ptx=ptx)], exe)[0]
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
