"""Checks of claims.md ids itnet.special_case.* (an id leads to its file: see registry.module_for)."""
