"""Similarity metrics: one module per family, a common interface (``base``) and a registry."""
