"""Display width of text on a terminal, for the aligned tables of the text views.

``len()`` counts code points, a terminal draws cells: an East Asian Wide or Fullwidth character
(``系``, ``Ａ``) takes two cells, a combining mark (the accent of a decomposed ``é``) and a zero-width
format character (U+200B, U+200D, a soft hyphen) none. Tables padded with ``len()`` shift every
column after such a name; :func:`ljust` and :func:`rjust` pad to a number of cells instead.
"""

from __future__ import annotations

import unicodedata


def char_width(char: str) -> int:
    """Cells one character takes: 0 (combining, format Cf), 2 (East Asian W or F), else 1."""
    if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def width(text: str) -> int:
    """Cells ``text`` takes on a terminal (its characters' :func:`char_width`)."""
    if text.isascii():
        return len(text)
    return sum(char_width(c) for c in text)


def ljust(text: str, cells: int) -> str:
    """``text`` padded with spaces on the right to ``cells`` display cells (as ``str.ljust``)."""
    return text + " " * max(0, cells - width(text))


def rjust(text: str, cells: int) -> str:
    """``text`` padded with spaces on the left to ``cells`` display cells (as ``str.rjust``)."""
    return " " * max(0, cells - width(text)) + text
