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
    return perl_split(_spaced_13a(norm))


def _spaced_13a(norm: str) -> str:
    """mteval-v13a's language-dependent rules: punctuation and symbols spaced, periods and commas
    split off unless next to a digit, a dash after a digit split off."""
    norm = norm.translate(_PUNCT_SPACED)
    if "." in norm or "," in norm:
        norm = _PERIOD_COMMA_AFTER_NONDIGIT.sub(r"\1 \2 ", norm)
        norm = _PERIOD_COMMA_BEFORE_NONDIGIT.sub(r" \1 \2", norm)
    if "-" in norm:
        norm = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", norm)
    return norm


_SEPARATOR = "\n"  # between the segments of a batch (a batch with a segment that holds one is tokenised singly)
# _PUNCT without the space: a space padded with spaces separates the same tokens
_PUNCT_BUT_SPACE = re.compile(r"([\{-\~\[-\`!-\&\(-\+\:-\@\/])")
_PERIOD_COMMA = re.compile(r"([.,])")
_DIGIT_DASH = re.compile(r"-(?<=[0-9]-)")  # _DASH_AFTER_DIGIT's matches, found from the dash
_DIGITS = frozenset("0123456789")


def tokenize_13a_many(texts: Sequence[str], case_sensitive: bool = True) -> list[tuple[str, ...]]:
    """:func:`tokenize_13a` of every segment, each rule applied once to the joined segments (each
    padded with a space on both sides, so no match spans two); the period/comma rules decided at
    each period or comma (:func:`_space_periods_commas`) instead of a regex tried at every character."""
    if not texts:
        return []
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        return [tokenize_13a(text, case_sensitive) for text in texts]
    norm = f" {joined.replace('&lt;', '<').replace('&gt;', '>')} ".replace(_SEPARATOR, f" {_SEPARATOR} ")
    if not case_sensitive:
        norm = norm.translate(_ASCII_LOWER)
    norm = " ".join(_PUNCT_BUT_SPACE.split(norm))  # " \1 ": the split's pieces joined by spaces
    norm = _DIGIT_DASH.sub(" - ", _space_periods_commas(norm))  # "\1 \2 " for a digit and its dash
    segments = norm.split(_SEPARATOR)
    if _PYTHON_ONLY_SPACE.search(norm) is not None:
        return [perl_split(segment) for segment in segments]
    return [tuple(segment.split()) for segment in segments]


def _space_periods_commas(text: str) -> str:
    r"""The two period/comma rules (``s/([^0-9])([\.,])/$1 $2 /g``, then ``s/([\.,])([^0-9])/ $1 $2/g``):
    a period or comma gets a space on both sides where either substitution matches it. Each scans
    from the left without overlapping matches, so whether one matches depends on the one before in
    a run of periods and commas: the first rule's ``[^0-9]`` may be the previous mark unless that was
    its own match's mark; the second rule sees the first rule's spaces, and its ``[^0-9]`` may be the
    next mark, which then cannot start a match."""
    parts = _PERIOD_COMMA.split(text)  # text, mark, text, mark, ..., text
    last = len(parts) - 2
    first_rule = second_rule = False  # for the previous mark
    for k in range(1, len(parts), 2):
        before, after = parts[k - 1], parts[k + 1]
        was_first = first_rule
        first_rule = before[-1] not in _DIGITS if before else k > 1 and not was_first
        follows = first_rule or (after[0] not in _DIGITS if after else k < last)  # a [^0-9] after the mark
        taken = second_rule and not before and not was_first and not first_rule  # the previous match's [^0-9]
        second_rule = follows and not taken
        if first_rule or second_rule:
            parts[k] = f" {parts[k]} "
    return "".join(parts)


def regexp_13a(text: str) -> str:
    r"""The language-dependent rules of mteval-v13a's ``tokenization`` (punctuation and symbols
    spaced, periods and commas split off unless next to a digit, a dash after a digit split off),
    then one space between words, as sacreBLEU 2.6.0's ``TokenizerRegexp`` applies them to a line
    (``tokenizers/tokenizer_re.py``; the rules of :func:`tokenize_13a`, but Python's
    ``str.split`` and nothing done to escapes or case: callers do that first)."""
    return " ".join(_spaced_13a(text).split())


def regexp_13a_many(lines: Sequence[str]) -> list[list[str]]:
    """The tokens of :func:`regexp_13a` of every line padded with a space on both sides (sacreBLEU's
    ``13a`` after its unescaping), each rule applied once to the joined lines, as in
    :func:`tokenize_13a_many` (Python's ``str.split`` here)."""
    if not lines:
        return []
    joined = _SEPARATOR.join(lines)
    if joined.count(_SEPARATOR) != len(lines) - 1:
        return [regexp_13a(f" {line} ").split() for line in lines]
    norm = f" {joined} ".replace(_SEPARATOR, f" {_SEPARATOR} ")
    norm = " ".join(_PUNCT_BUT_SPACE.split(norm))  # " \1 ": the split's pieces joined by spaces
    norm = _DIGIT_DASH.sub(" - ", _space_periods_commas(norm))
    return [segment.split() for segment in norm.split(_SEPARATOR)]
