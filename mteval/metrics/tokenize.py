"""Tokenisers, cached per unique string.

``tokenize_13a`` is the tokenisation of NIST's mteval-v13a.pl (sub ``tokenization``), also sacreBLEU's
``13a``. Differences from sacreBLEU, on purpose: the SGML entity un-escaping (``&quot;`` ...) is done by
our SGML reader, not here, because mteval un-escapes the SGML that Asiya writes from raw text — so a
raw ``&amp;`` in a plain-text file stays ``&amp;`` (as it does through Asiya + mteval).
Lower-casing for case-insensitive runs is ASCII-only, as mteval's ``tr/[A-Z]/[a-z]/``.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PUNCT = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_PERIOD_COMMA_AFTER_NONDIGIT = re.compile(r"([^0-9])([\.,])")
_PERIOD_COMMA_BEFORE_NONDIGIT = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@lru_cache(maxsize=1 << 18)
def tokenize_13a(text: str, case_sensitive: bool = True) -> tuple[str, ...]:
    """mteval-v13a tokens of one segment (language-independent + Western-language rules)."""
    norm = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    norm = f" {norm} "
    if not case_sensitive:
        norm = norm.translate(_ASCII_LOWER)
    norm = _PUNCT.sub(r" \1 ", norm)
    norm = _PERIOD_COMMA_AFTER_NONDIGIT.sub(r"\1 \2 ", norm)
    norm = _PERIOD_COMMA_BEFORE_NONDIGIT.sub(r" \1 \2", norm)
    norm = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", norm)
    return tuple(norm.split())
