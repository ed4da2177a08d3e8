"""Checks of claims.md ids particles.* (an id leads to its file: see registry.module_for)."""
