"""Tokenisers, cached per unique string.

``tokenize_13a`` is the tokenisation of NIST's mteval-v13a.pl (sub ``tokenization``, the default, also
sacreBLEU's ``13a``) applied to a raw segment the way Asiya and our oracles feed it: the line is written
into SGML with ``&``, ``<``, ``>`` escaped, and mteval un-escapes it again inside ``tokenization``
(``docs/bleu-nist.md``). Net effect on the raw text, reproduced here:

* ``<skipped>`` is never stripped (the strip runs before the un-escaping, on ``&lt;skipped&gt;``), and
  a line break is a plain space (mteval's SGML reader collapses whitespace before ``tokenization``, so
  its ``-\n`` hyphen-joining rule never fires);
* ``&amp;`` and ``&quot;`` stay as they are, but ``&lt;`` and ``&gt;`` become ``<`` and ``>`` (mteval
  un-escapes ``&amp;`` before ``&lt;``/``&gt;``, so the escaped ``&amp;lt;`` is decoded twice);
* words are split on Perl's Unicode ``\\s`` (the script reads its input as UTF-8), which unlike Python's
  ``str.split`` does not include the separators U+001C..U+001F.

Lower-casing for case-insensitive runs is ASCII-only, as mteval's ``tr/[A-Z]/[a-z]/``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_PUNCT = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
# the same class as a str.translate table (one pass in C instead of a Python template per match)
_PUNCT_SPACED = str.maketrans({chr(c): f" {chr(c)} " for c in range(128) if _PUNCT.fullmatch(chr(c))})
_PERIOD_COMMA_AFTER_NONDIGIT = re.compile(r"([^0-9])([\.,])")
_PERIOD_COMMA_BEFORE_NONDIGIT = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# Perl's \s on UTF-8 strings (perl 5.36); str.split() also splits on \x1c-\x1f
PERL_SPACE = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_PYTHON_ONLY_SPACE = re.compile("[\x1c-\x1f]")


def perl_split(text: str) -> tuple[str, ...]:
    """Perl's ``split /\\s+/`` after trimming: the words between runs of Perl whitespace."""
    if _PYTHON_ONLY_SPACE.search(text) is None:
        return tuple(text.split())
    return tuple(word for word in PERL_SPACE.split(text) if word)


@lru_cache(maxsize=1 << 18)
def tokenize_13a(text: str, case_sensitive: bool = True) -> tuple[str, ...]:
    """mteval-v13a tokens of one raw segment (language-independent + Western-language rules)."""
    norm = text.replace("&lt;", "<").replace("&gt;", ">") if "&" in text else text
    norm = f" {norm} "
    if not case_sensitive:
        norm = norm.translate(_ASCII_LOWER)
    norm = norm.translate(_PUNCT_SPACED)
    if "." in norm or "," in norm:
        norm = _PERIOD_COMMA_AFTER_NONDIGIT.sub(r"\1 \2 ", norm)
        norm = _PERIOD_COMMA_BEFORE_NONDIGIT.sub(r" \1 \2", norm)
    if "-" in norm:
        norm = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", norm)
    return perl_split(norm)


_SEPARATOR = "\n"  # between the segments of a batch (a batch with a segment that holds one is tokenised singly)
_SPACED_PERIOD_COMMA = {".": " . ", ",": " , "}


def tokenize_13a_many(texts: Sequence[str], case_sensitive: bool = True) -> list[tuple[str, ...]]:
    """:func:`tokenize_13a` of every segment, as one string through each rule: the same
    substitutions (``re.split`` scans as ``re.sub`` does, non-overlapping from the left), with the
    replacement built in C instead of a Python template per match. Each segment is padded with a
    space on both sides, so no match spans two segments."""
    if not texts:
        return []
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        return [tokenize_13a(text, case_sensitive) for text in texts]
    norm = f" {joined.replace('&lt;', '<').replace('&gt;', '>')} ".replace(_SEPARATOR, f" {_SEPARATOR} ")
    if not case_sensitive:
        norm = norm.translate(_ASCII_LOWER)
    norm = " ".join(_PUNCT.split(norm))  # " \1 ": the split's pieces joined by spaces
    parts = _PERIOD_COMMA_AFTER_NONDIGIT.split(norm)  # [text, X, P, text, ...] -> text X " P " text
    parts[2::3] = map(_SPACED_PERIOD_COMMA.__getitem__, parts[2::3])
    parts = _PERIOD_COMMA_BEFORE_NONDIGIT.split("".join(parts))  # [text, P, Y, ...] -> text " P " Y
    parts[1::3] = map(_SPACED_PERIOD_COMMA.__getitem__, parts[1::3])
    parts = _DASH_AFTER_DIGIT.split("".join(parts))  # [text, D, "-", ...] -> text D " - "
    parts[2::3] = [" - "] * (len(parts) // 3)
    segments = "".join(parts).split(_SEPARATOR)
    if _PYTHON_ONLY_SPACE.search(norm) is not None:
        return [perl_split(segment) for segment in segments]
    return [tuple(segment.split()) for segment in segments]
