"""Checks of claims.md ids yat.grad.* (an id leads to its file: see registry.module_for)."""
