"""mteval: machine-translation evaluation and meta-evaluation beyond the lexical surface.

Layers, imported one way: ``cli`` -> ``pipeline`` -> ``metrics``/``meta`` -> ``annotate``/``io``/``store``.

The Python API (docs/api.md, :mod:`mteval.api`) is re-exported here lazily: ``import mteval`` imports
nothing else, and the first use of one of its names imports it::

    import mteval
    mteval.score("BLEU", ["the cat sat"], [["the cat sat down"]]).score
    mteval.load("configs/example.yaml").scores()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Campaign", "MissingDependency", "Score", "__version__", "global_accuracy", "load", "score",
           "score_systems", "scored", "split_metrics", "to_dataframe", "wmt_ranking"]
_API = frozenset(__all__) - {"__version__"}  # mteval.api's names

if TYPE_CHECKING:  # what type checkers see; at run time :func:`__getattr__` imports them on first use
    from mteval.api import (
        Campaign,
        MissingDependency,
        Score,
        global_accuracy,
        load,
        score,
        score_systems,
        scored,
        split_metrics,
        to_dataframe,
        wmt_ranking,
    )


def __getattr__(name: str) -> Any:
    """The API's names, imported from :mod:`mteval.api` when first asked for (PEP 562)."""
    if name in _API:
        from mteval import api

        value = getattr(api, name)
        globals()[name] = value  # asked once
        return value
    raise AttributeError(f"module 'mteval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
