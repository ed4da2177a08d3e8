"""Benchmarks that measure their baseline in the same run and print ratios (``yatmath bench``)."""
