"""Yat kernel benchmarks; same as ``yatmath bench yat``.  Pass --quick for a smoke run."""
import sys

from yatmath.bench.yat import main

if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
