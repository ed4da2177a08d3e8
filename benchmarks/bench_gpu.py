"""GPU benchmarks (every CuPy path against CuPy's own primitive of the same shape); same as
``yatmath bench gpu``.  Pass --quick for a smoke run.  Without a CUDA device it says why on
stderr and exits 3 (nothing was measured)."""
import sys

from yatmath.bench.gpu import main

if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
