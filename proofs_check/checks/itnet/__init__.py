"""Checks of claims.md ids itnet.* (an id leads to its file: see registry.module_for)."""
