"""The Yat kernel K(w, x) = (w . x)^2 / (||w - x||^2 + eps) and the layers built on it."""
from .kernel import gram, matvec, product

__all__ = ["product", "gram", "matvec"]
