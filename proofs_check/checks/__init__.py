"""Claim checks, one module per group of claims; importing a module registers its checks."""
