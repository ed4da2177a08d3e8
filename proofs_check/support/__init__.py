"""Helpers shared by several check modules (check modules never import each other)."""
