"""Convert Stanza's output objects to :mod:`mteval.annotate.model` (no stanza import needed).

A segment is parsed as one Stanza *document*; with ``tokenize_no_ssplit`` and whitespace-flattened
text it gives one sentence. Should it ever give several, they are joined into one
:class:`Sentence`: word ids are renumbered consecutively and the root of each part keeps head 0,
so the parts hang from the virtual root as sister trees (their arc scores are block-diagonal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mteval.annotate.model import ArcScores, Sentence, Word


def _word_ner(tag: str | None, index: int, count: int) -> str:
    """NER tag of the ``index``-th of ``count`` words of one token tagged ``tag`` (BIOES)."""
    if not tag or tag == "O" or count == 1:
        return tag or "O"
    prefix, _, label = tag.partition("-")
    first = prefix in ("B", "S")
    last = prefix in ("E", "S")
    if index == 0:
        return f"{'B' if first else 'I'}-{label}"
    if index == count - 1:
        return f"{'E' if last else 'I'}-{label}"
    return f"I-{label}"


def words_of(stanza_sentences: Sequence[Any]) -> list[Word]:
    """All syntactic words of Stanza sentences, renumbered 1..n, heads shifted per part."""
    words: list[Word] = []
    for sent in stanza_sentences:
        offset = len(words)
        for token in sent.tokens:
            parts = token.words
            for j, w in enumerate(parts):
                head = 0 if not w.head else w.head + offset
                words.append(Word(len(words) + 1, w.text, w.lemma or "_", w.upos or "_",
                                  w.xpos or "_", w.feats or "_", head, w.deprel or "_",
                                  _word_ner(getattr(token, "ner", None), j, len(parts))))
    return words


def join_arc_scores(parts: Sequence[ArcScores]) -> ArcScores:
    """One :class:`ArcScores` for several sentences joined under one root (block-diagonal)."""
    if len(parts) == 1:
        return parts[0]
    n = sum(p.arcs.shape[0] - 1 for p in parts)
    k = max(p.label_heads.shape[1] for p in parts)
    arcs = np.full((n + 1, n + 1), -np.inf, dtype=np.float32)
    heads = np.zeros((n, k), dtype=np.int16)
    logp = np.full((n, k, len(parts[0].labels)), -np.inf, dtype=np.float16)
    off = 0
    for p in parts:
        m = p.arcs.shape[0] - 1
        arcs[0, off + 1: off + m + 1] = p.arcs[0, 1:]
        arcs[off + 1: off + m + 1, off + 1: off + m + 1] = p.arcs[1:, 1:]
        pk = p.label_heads.shape[1]
        shifted = np.where(p.label_heads > 0, p.label_heads + off, 0)
        heads[off: off + m, :pk] = shifted
        heads[off: off + m, pk:] = shifted[:, :1]
        logp[off: off + m, :pk] = p.label_logp
        logp[off: off + m, pk:] = p.label_logp[:, :1]
        off += m
    return ArcScores(arcs, parts[0].labels, heads, logp)


def to_sentence(text: str, stanza_sentences: Sequence[Any]) -> Sentence:
    """The :class:`Sentence` for one segment (empty when Stanza found no token)."""
    return Sentence(tuple(words_of(stanza_sentences)), text)
