"""Judged segments for learning metric combinations, and their folds by document.

One point is one system's translation of one source line with a human score. Folds are drawn
over *documents* (Kahn et al. 2009 §6 split "the documents" in halves): all lines of a document,
and all systems' translations of a line, sit in one fold, so a test fold shares no source text
with its training folds. Nested cross-validation splits again, inside each outer training fold,
the training documents into inner folds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mteval.errors import InputError

MIN_DOCUMENTS_PER_FOLD = 2


@dataclass(frozen=True)
class Judged:
    """Feature matrix and human scores of judged points, with their grouping.

    ``items``: source line (the WMT "item", the group of segment-level τb); ``systems``: system
    index; ``documents``: document label; ``weights``: reference length (§6's weights);
    ``signs``: +1 for a feature whose higher values are better, -1 otherwise."""

    x: np.ndarray
    names: tuple[str, ...]
    human: np.ndarray
    items: np.ndarray
    systems: np.ndarray
    documents: np.ndarray
    weights: np.ndarray
    signs: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.human)
        if self.x.ndim != 2 or self.x.shape != (n, len(self.names)):
            raise InputError(f"features have shape {self.x.shape}, expected ({n}, {len(self.names)})")
        if not self.names:
            raise InputError("learning a combination needs at least one feature")

    def subset(self, mask: np.ndarray) -> Judged:
        """The points where ``mask`` is true (a boolean or index array)."""
        return Judged(self.x[mask], self.names, self.human[mask], self.items[mask], self.systems[mask],
                      self.documents[mask], self.weights[mask], self.signs)

    def column(self, name: str) -> np.ndarray:
        """One feature's values."""
        return self.x[:, self.names.index(name)]


def kfold_documents(documents: Sequence[object] | np.ndarray, k: int, seed: int = 0,
                    what: str = "outer") -> np.ndarray:
    """Fold (0..k-1) of every point: the shuffled documents dealt round-robin into ``k`` folds.
    Fewer than two documents in a fold is an :class:`InputError` (one line)."""
    labels = np.asarray([str(d) for d in documents])
    unique, codes = np.unique(labels, return_inverse=True)
    if k < 2:
        raise InputError(f"{what} cross-validation needs at least 2 folds, got {k}")
    if len(unique) < MIN_DOCUMENTS_PER_FOLD * k:
        raise InputError(f"{what} cross-validation in {k} folds needs at least {MIN_DOCUMENTS_PER_FOLD} documents "
                         f"per fold ({MIN_DOCUMENTS_PER_FOLD * k}), the judged segments have {len(unique)}; "
                         "give fewer folds or more documents")
    order = np.random.default_rng(seed).permutation(len(unique))
    fold_of_doc = np.empty(len(unique), dtype=np.int64)
    fold_of_doc[order] = np.arange(len(unique)) % k
    return fold_of_doc[codes]


def inner_folds(documents: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Inner folds of a training fold: ``k`` folds, fewer when the training documents are few
    (never below 2 folds of 2 documents: else the :class:`InputError` of :func:`kfold_documents`)."""
    n_docs = len(np.unique(np.asarray([str(d) for d in documents])))
    return kfold_documents(documents, max(2, min(k, n_docs // MIN_DOCUMENTS_PER_FOLD)), seed + 1, "inner")
