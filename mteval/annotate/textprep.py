"""Prepare segment text for the parser: one segment = one sentence, bounded length.

* Control characters (Unicode category ``Cc``: NUL, ESC, ...) are removed; line breaks and tabs
  become spaces, so Stanza (run with ``tokenize_no_ssplit``) never splits a segment.
* Segments longer than ``max_words`` whitespace-separated words are cut there (the parser's
  cost grows quadratically with length and its accuracy collapses on such inputs), and then
  longer than ``max_chars(max_words)`` = 20 characters a word (5,000 for 250 words) at the
  last space before that (or there, for text without spaces): this bounds the tokenizer's work
  and the number of tokens (a text without spaces is one "word"; the parser's bounds on tokens
  are in :mod:`mteval.annotate.chunking`).

Both are reported as warnings naming how many segments were affected.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_SPACE = re.compile(r"\s+")
MAX_WORDS = 250
CHARS_PER_WORD = 20


def max_chars(max_words: int) -> int:
    """The character cap that goes with a word cap."""
    return CHARS_PER_WORD * max_words


@dataclass(frozen=True)
class Prepared:
    """A cleaned segment, with what was done to it."""

    text: str
    had_control: bool = False
    truncated: bool = False


def _is_control(ch: str) -> bool:
    """A control character other than whitespace (which becomes a space)."""
    return unicodedata.category(ch) == "Cc" and not ch.isspace()


def prepare_text(text: str, max_words: int = MAX_WORDS) -> Prepared:
    """Strip control characters, flatten whitespace, cap at ``max_words`` words and
    ``max_chars(max_words)`` characters."""
    had_control = any(_is_control(ch) for ch in text)
    if had_control:
        text = "".join(ch for ch in text if not _is_control(ch))
    text = _SPACE.sub(" ", text).strip()
    words = text.split(" ")
    truncated = len(words) > max_words
    if truncated:
        text = " ".join(words[:max_words])
    limit = max_chars(max_words)
    if len(text) > limit:
        truncated = True
        space = text.rfind(" ", 0, limit + 1)
        text = text[:space] if space > 0 else text[:limit]
    return Prepared(text, had_control, truncated)
