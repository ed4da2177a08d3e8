#!/usr/bin/env bash
# The whole device check as one command, for a bare CUDA machine (the device tool's: CuPy,
# numba-cuda and pytest there; array-api-compat and array-api-strict carried as wheels).
#
#   bash benchmarks/device_run.sh [device_check.py options, e.g. --budget 420]
#
# From the repository root.  Wheels in $WHEELS (default .whl; fetch them where pip works with
# README's command) are installed into $SITE (default /tmp/site) without touching the image;
# yatmath runs from the source tree.  The report and the full log go to $OUT (default the current
# folder): device-report.txt (benchmarks/device_check.py's, rewritten after each section) and
# device-log.txt.  Exit status: device_check.py's (0 all passed, 1 something failed, 3 no device),
# 2 when the wheels did not install.
set -uo pipefail
wheels=${WHEELS:-.whl}
site=${SITE:-/tmp/site}
out=${OUT:-.}
path=$PWD
if compgen -G "$wheels/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "$wheels"/*.whl || exit 2
    path=$site:$PWD
fi
export PYTHONPATH=$path${PYTHONPATH:+:$PYTHONPATH}
# JAX (on CUDA images) would take most of the GPU in each pytest worker
export PYTHONUNBUFFERED=1 JAX_PLATFORMS=cpu XLA_PYTHON_CLIENT_PREALLOCATE=false
python3 benchmarks/device_check.py --out "$out/device-report.txt" "$@" 2>&1 | tee "$out/device-log.txt"
exit "${PIPESTATUS[0]}"
