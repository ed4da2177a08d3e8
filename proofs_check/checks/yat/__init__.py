"""Checks of claims.md ids yat.* (an id leads to its file: see registry.module_for)."""
