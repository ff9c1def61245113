"""Bound the length of what the parser sees: split over-long tokenized sentences into chunks.

Stanza's POS tagger and biaffine parser are run on whole sentences, and the parser's label scores
are an ``(n+1) x (n+1) x L`` tensor per sentence (O(n^2) memory and time). Whitespace truncation
(:mod:`mteval.annotate.textprep`, ``max_words``) does not bound the number of *tokens*: a text with
no spaces (``a,b,c,...``, or a script written without spaces) is one whitespace word but can
tokenize into thousands of words. So after tokenization, a sentence of more than ``max_words``
syntactic words is split into ``k = ceil(n / max_words)`` consecutive chunks of near-equal size
(never inside a multi-word token), which are tagged and parsed as separate sentences and joined
again by :func:`mteval.annotate.convert.to_sentence` (sister trees under the virtual root,
block-diagonal arc scores). Sentences within the bound (every ordinary one) are left untouched.

The joined segment still has dense ``(n+1) x (n+1)`` arc scores (and EDPM's matrix-tree step is
cubic in ``n``), so a segment is also cut after ``MAX_SEGMENT_WORDS`` syntactic words (at a token
boundary); the CoNLL-U then carries a ``# words_cut = <dropped>`` comment and the annotator warns.

This module works on Stanza's ``Document.to_dict()`` form (one list of token/word dicts per
sentence, multi-word tokens as an entry with a ``(first, last)`` id followed by their words), so it
needs neither stanza nor torch.
"""

from __future__ import annotations

import math
from typing import Any

Entry = dict[str, Any]
MAX_PARSE_WORDS = 400  # syntactic words per parsed sentence (chunk size bound)
MAX_SEGMENT_WORDS = 1000  # syntactic words per segment (the rest is cut)


def _tokens(entries: list[Entry]) -> list[list[Entry]]:
    """Group a sentence's entries into tokens: a multi-word token's entry plus its words."""
    groups: list[list[Entry]] = []
    pending = 0  # words still to attach to the current multi-word token
    for entry in entries:
        if pending:
            groups[-1].append(entry)
            pending -= 1
        else:
            groups.append([entry])
            ident = entry["id"]
            if isinstance(ident, (tuple, list)):
                pending = int(ident[1]) - int(ident[0]) + 1
    return groups


def _word_count(group: list[Entry]) -> int:
    """Syntactic words of one token group."""
    return len(group) - 1 if isinstance(group[0]["id"], (tuple, list)) else 1


def _renumber(entries: list[Entry], offset: int) -> list[Entry]:
    """The entries with every id shifted down by ``offset`` words."""
    out = []
    for entry in entries:
        ident = entry["id"]
        new = (int(ident[0]) - offset, int(ident[1]) - offset) if isinstance(ident, (tuple, list)) \
            else int(ident) - offset
        out.append({**entry, "id": new})
    return out


def split_sentence(entries: list[Entry], max_words: int = MAX_PARSE_WORDS) -> list[list[Entry]]:
    """One sentence as ``ceil(n / max_words)`` consecutive chunks of near-equal word counts."""
    groups = _tokens(entries)
    total = sum(_word_count(g) for g in groups)
    if total <= max_words:
        return [entries]
    target = math.ceil(total / math.ceil(total / max_words))
    chunks: list[list[Entry]] = []
    current: list[Entry] = []
    size = offset = 0
    for group in groups:
        words = _word_count(group)
        if current and size + words > target:
            chunks.append(_renumber(current, offset))
            offset += size
            current, size = [], 0
        current.extend(group)
        size += words
    chunks.append(_renumber(current, offset))
    return chunks


def _cut(sentences: list[list[Entry]], max_total: int) -> tuple[list[list[Entry]], int]:
    """The sentences' first ``max_total`` words (whole tokens) and how many words were dropped."""
    kept: list[list[Entry]] = []
    total = dropped = 0
    for entries in sentences:
        current: list[Entry] = []
        for group in _tokens(entries):
            words = _word_count(group)
            if dropped or total + words > max_total:
                dropped += words
            else:
                current.extend(group)
                total += words
        if current:
            kept.append(current)
    return kept, dropped


def bound(sentences: list[list[Entry]], max_words: int = MAX_PARSE_WORDS,
          max_total: int = MAX_SEGMENT_WORDS) -> tuple[list[list[Entry]] | None, int]:
    """A segment's tokenized sentences cut after ``max_total`` words, every sentence then split by
    :func:`split_sentence`; ``(None, 0)`` when nothing is over a bound, else ``(sentences,
    words dropped)``."""
    sizes = [sum(_word_count(g) for g in _tokens(s)) for s in sentences]
    if sum(sizes) <= max_total and all(n <= max_words for n in sizes):
        return None, 0
    kept, dropped = _cut(sentences, max_total)
    return [chunk for s in kept for chunk in split_sentence(s, max_words)], dropped
