"""Capture the biaffine parser's arc and label scores while Stanza parses (for EDPM).

Stanza's graph parser (Dozat & Manning 2017, "Deep biaffine attention for neural dependency
parsing", eqs. 9-11; ``stanza/models/depparse/model.py``) scores every (dependent, head) pair
with a biaffine unlabeled scorer and every (dependent, head, label) triple with a biaffine
deprel scorer. In eval mode its ``forward`` returns ``preds[0]`` = log-softmax over heads,
shape ``(batch, n+1, n+1)`` indexed ``[dependent, head]``, and ``preds[2]`` = log-softmax over
labels, shape ``(batch, n+1, n+1, L)``. ``decode_graph_predictions`` receives them before the
Chu-Liu/Edmonds decoding; we wrap it (and ``predict``, which sees the word texts) on the model
*instance*, so Stanza itself is untouched and this module needs neither stanza nor torch.

The per-dependent normalisation only shifts each dependent's log-potentials by a constant, which
leaves the distribution over trees (Koo et al. 2007, matrix-tree theorem) unchanged, so the
log-softmax scores serve as :class:`ArcScores.arcs`. Results are keyed by the sentence's word
forms: parsing is deterministic in eval mode, so equal word sequences get equal scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from mteval.annotate.model import ArcScores

TOP_K = 4  # heads per dependent that keep their own label distribution


def arc_scores_from_preds(head_logp: np.ndarray, label_logp: np.ndarray,
                          labels: tuple[str, ...], k: int = TOP_K) -> ArcScores:
    """Build :class:`ArcScores` for one sentence of ``n`` words from the parser's matrices.

    ``head_logp[d, h]`` (``(n+1, n+1)``) and ``label_logp[d, h, l]`` (``(n+1, n+1, L)``), both
    indexed by dependent first, as Stanza's graph parser returns them.
    """
    n = head_logp.shape[0] - 1
    arcs = np.array(head_logp.T, dtype=np.float32)  # -> [head, dependent]
    arcs[:, 0] = -np.inf
    np.fill_diagonal(arcs, -np.inf)
    k = max(1, min(k, n))
    dep_rows = head_logp[1:].copy()
    dep_rows[np.arange(n), np.arange(1, n + 1)] = -np.inf
    top = np.argsort(-dep_rows, axis=1, kind="stable")[:, :k] if n else np.zeros((0, k), int)
    lp = label_logp[np.arange(1, n + 1)[:, None], top] if n else np.zeros((0, k, len(labels)))
    return ArcScores(arcs=arcs, labels=labels, label_heads=top.astype(np.int16),
                     label_logp=lp.astype(np.float16))


class ArcRecorder:
    """Hooks a Stanza graph-parser model instance and records :class:`ArcScores` per sentence."""

    def __init__(self, model: Any, labels: tuple[str, ...]) -> None:
        self.labels = labels
        self.scores: dict[tuple[str, ...], ArcScores] = {}
        self.plus_zero = False  # store -0.0 as +0.0 (parser_float64: bytes equal across devices)
        self._texts: list[Sequence[str]] = []
        self._install(model)

    def _install(self, model: Any) -> None:
        """Wrap ``model.predict`` (to see the batch's words) and ``decode_graph_predictions``."""
        predict: Callable[..., Any] = model.predict
        decode: Callable[..., Any] = model.decode_graph_predictions

        def predict_hook(*args: Any, **kwargs: Any) -> Any:
            self._texts = list(kwargs["text"] if "text" in kwargs else args[14])
            return predict(*args, **kwargs)

        def decode_hook(vocab: Any, batch_size: int, preds: Sequence[np.ndarray],
                        sentlens: Sequence[int], **kwargs: Any) -> Any:
            self._record(preds, sentlens)
            return decode(vocab, batch_size, preds, sentlens, **kwargs)

        model.predict = predict_hook
        model.decode_graph_predictions = decode_hook

    def _record(self, preds: Sequence[np.ndarray], sentlens: Sequence[int]) -> None:
        """Store the scores of every sentence of the batch under its word forms."""
        for i, length in enumerate(sentlens):
            words = tuple(self._texts[i][: length - 1])
            heads, labels = preds[0][i][:length, :length], preds[2][i][:length, :length, :]
            scores = arc_scores_from_preds(heads, labels, self.labels)
            if self.plus_zero:  # x + 0 is +0.0 for x = -0.0 and x otherwise, after the casts: a
                # tiny negative float64 (where another device gave 0) casts to -0.0
                scores = replace(scores, arcs=scores.arcs + np.float32(0),
                                 label_logp=scores.label_logp + np.float16(0))
            self.scores[words] = scores

    def get(self, words: Sequence[str], form: Sequence[str] | None = None) -> ArcScores | None:
        """The recorded scores of the sentence with these word forms (None if never parsed).

        The parser sees some forms simplified (``!!!`` arrives as ``!``): ``form``, the words as
        the parser saw them (``stanza_adapter.parser_forms``, Stanza's own function), is looked up
        next. Failing both (a Stanza that simplifies more), the recorded sentence of the same length
        that agrees on the most words is taken, provided it differs in at most a quarter of them
        (at least one). (Until 2026-11-28 there was no ``form`` step: a short sentence with two
        simplified marks, ``Wow!!! Really???``, got no scores and stopped EDPM.)"""
        for key in (tuple(words), None if form is None else tuple(form)):
            found = self.scores.get(key) if key is not None else None
            if found is not None:
                return found
        best, best_same = None, -1
        for recorded, scores in self.scores.items():
            if len(recorded) == len(words):
                same = sum(a == b for a, b in zip(recorded, words, strict=True))
                if same > best_same:
                    best, best_same = scores, same
        return best if best is not None and len(words) - best_same <= max(1, len(words) // 4) else None

    def clear(self) -> None:
        """Forget what was recorded (call after each batch to bound memory)."""
        self.scores.clear()
