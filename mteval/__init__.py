"""mteval: machine-translation evaluation and meta-evaluation beyond the lexical surface.

Layers, imported one way: ``cli`` -> ``pipeline`` -> ``metrics``/``meta`` -> ``annotate``/``io``/``store``.
"""

__version__ = "0.1.0"
