"""Warn when a system's output was prepared otherwise than the references: tokenized, escaped, lower-cased.

Scoring Moses-tokenized output (``word .``, ``don 't``, ``&apos;``) against detokenized references
lowers every word- and character-based score, silently: the metrics tokenize both sides alike only
where their own tokenizer undoes the difference. sacreBLEU warns when 100 of a system's lines end in a
tokenized period ("It looks like you forgot to detokenize your test data"); mteval compares shares
instead, so that a short test set is checked too and a test set whose references are tokenized as
well (old IWSLT, pre-tokenized corpora) is not warned about:

- a text *looks tokenized* when at least :data:`TOKENIZED` of its lines that end in a period end in
  ``" ."``, and *detokenized* when at most :data:`DETOKENIZED` do (French spaces ``?`` ``!`` ``:``,
  never ``.``), each counted over :data:`MIN_ENDINGS` such lines or more;
- a system *holds escapes* when :data:`ESCAPED` of its lines or more hold an HTML/XML escape
  (``&#39;`` ``&quot;`` ``&apos;`` ``&amp;``...: a web API's output, Moses's tokenizer) and no
  reference line does. mteval-v13a's tokenizer (and sacreBLEU's 13a) decodes ``&quot; &amp; &lt;
  &gt;`` only; the other metrics none. Real cases: WMT12's online-B in en-fr (2,067 of 3,003 lines,
  ``l&#39;amendement``), en-es and en-cs, WMT24's ONLINE-B en-cs (169 of 998).

- a system is *decomposed* when :data:`ESCAPED` of its lines or more are not in Unicode's composed
  form (NFC: ``é`` as ``e`` + U+0301, as macOS file names and some tools write it) and every
  reference line is: no metric normalizes (nor do sacreBLEU and the reference tools), so every such
  letter is a miss. No WMT text of ../shared is (one line of WMT24's IKUN-C en-cs is).

- a system is *lower-cased* when at most :data:`LOWER_CASED` of the references' share of its
  letters are capitals, the references' share being at least :data:`MIN_CAPITALS` (over
  :data:`MIN_LETTERS` letters or more; a script without case has no capitals): the case-sensitive
  metrics (BLEU, chrF, METEOR...) count every capital as a miss. Not checked when the experiment's ``case`` is ``ci``.

One line per system (the first :data:`SHOWN` named, then how many more); the scores are computed as
asked. (Added 2026-11-28; no check changes a number.)
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass
from functools import cache

import numpy as np

from mteval.io.corpus import Text

TOKENIZED = 0.5
DETOKENIZED = 0.1
MIN_ENDINGS = 10
ESCAPED = 0.01
SHOWN = 5
LOWER_CASED = 0.1
MIN_CAPITALS = 0.01
MIN_LETTERS = 200
_ESCAPE = re.compile(r"&(?:apos|quot|amp|lt|gt|#\d{1,4});")


@dataclass(frozen=True)
class Look:
    """What a text's lines show of its tokenization."""

    endings: int  # lines that end in a period
    spaced: int  # of those, lines that end in " ."
    escaped: int  # lines holding an XML escape
    lines: int
    letters: int = 0
    capitals: int = 0
    decomposed: int = 0  # lines not in Unicode NFC

    @classmethod
    def of(cls, segments: Sequence[str]) -> Look:
        """Count a text's lines."""
        endings = spaced = escaped = 0
        for segment in segments:
            line = segment.rstrip()
            if line.endswith("."):
                endings += 1
                spaced += line.endswith(" .")
            escaped += "&" in line and _ESCAPE.search(line) is not None
        text = "\n".join(segments)
        decomposed = 0 if unicodedata.is_normalized("NFC", text) else sum(
            not unicodedata.is_normalized("NFC", segment) for segment in segments)
        return cls(endings, spaced, escaped, len(segments), *case_counts(text), decomposed)

    def __add__(self, other: Look) -> Look:
        return Look(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def lower_cased(self, refs: Look) -> bool:
        """Whether this text has far fewer capitals than ``refs`` (module docstring)."""
        if self.letters < MIN_LETTERS or refs.letters < MIN_LETTERS or refs.capitals < MIN_CAPITALS * refs.letters:
            return False
        return self.capitals / self.letters <= LOWER_CASED * refs.capitals / refs.letters

    def tokenized(self) -> bool | None:
        """True: looks tokenized; False: detokenized; None: cannot tell (few period-final lines, or between)."""
        if self.endings < MIN_ENDINGS:
            return None
        share = self.spaced / self.endings
        return True if share >= TOKENIZED else False if share <= DETOKENIZED else None


def preparation_warnings(systems: Sequence[Text], references: Iterable[Text], case_sensitive: bool | None = None
                         ) -> list[str]:
    """The warnings about ``systems`` prepared otherwise than the references (module docstring);
    ``case_sensitive``: the experiment's ``case`` (False: ``ci``, case is not checked)."""
    refs = sum((Look.of(text.segments) for text in references), Look(0, 0, 0, 0))
    problems = [(text, problem) for text in systems if (problem := _problem(text, refs, case_sensitive is not False))]
    lines = [f"system {text.name} ({text.where}): {problem}" for text, problem in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"and {len(problems) - SHOWN} more systems prepared otherwise than the references")
    return lines


def _problem(text: Text, refs: Look, case: bool) -> str | None:
    """Why a system looks prepared otherwise than the references (the first reason found), or None."""
    system = Look.of(text.segments)
    share = f"{100 * system.spaced / max(system.endings, 1):.0f}% of its lines that end in a period end in ' .', " \
            f"the references' {100 * refs.spaced / max(refs.endings, 1):.0f}%"
    looks, ref_looks = system.tokenized(), refs.tokenized()
    if looks is not None and ref_looks is not None and looks != ref_looks:
        which = "it looks tokenized and they do not" if looks else "they look tokenized and it does not"
        return (f"{share}: {which}, which lowers its scores (sacreBLEU's 'forgot to detokenize' check); score "
                "texts tokenized alike (sacremoses detokenizes)")
    if refs.escaped == 0 and system.escaped >= max(1, ESCAPED * system.lines):
        examples = ", ".join(_escapes(text.segments))
        return (f"{system.escaped} of its {system.lines} lines hold HTML/XML escapes ({examples}) and no "
                "reference line does: escaped text (a web API's, Moses's tokenizer's) scores lower; unescape it "
                "(Python's html.unescape)")
    if refs.decomposed == 0 and system.decomposed >= max(1, ESCAPED * system.lines):
        return (f"{system.decomposed} of its {system.lines} lines are not in Unicode's composed form (NFC: 'é' "
                "written as 'e' and a combining accent) and every reference line is: no metric normalizes, so each "
                "such letter is a miss; normalize it (Python's unicodedata.normalize('NFC', line))")
    if case and system.lower_cased(refs):
        return (f"{100 * system.capitals / system.letters:.1f}% of its letters are capitals, the references' "
                f"{100 * refs.capitals / refs.letters:.1f}%: it looks lower-cased, and case-sensitive metrics (BLEU, "
                "chrF, METEOR...) count each capital as a miss; recase it, or score case-insensitively (case: ci, "
                "mteval score --case ci)")
    return None


def _escapes(segments: Iterable[str], shown: int = 3) -> list[str]:
    """The most frequent escapes of a text."""
    found = Counter(m.group() for segment in segments if "&" in segment for m in _ESCAPE.finditer(segment))
    return [escape for escape, _ in found.most_common(shown)]


def case_counts(text: str) -> tuple[int, int]:
    """``(letters, capitals)`` of a text: its letters (``str.isalpha``), and the characters that
    lower-casing changes; counted on code-point arrays (one by one in the rare text whose length
    lower-casing changes, as ``İ``)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    letters = letter_count(codes)
    lower = text.lower()
    if len(lower) != len(text):
        return letters, sum(char.lower() != char for char in text)
    return letters, int(np.count_nonzero(codes != np.frombuffer(lower.encode("utf-32-le"), dtype=np.uint32)))


def letter_count(codes: np.ndarray) -> int:
    """How many of these code points (``uint32``) are letters (``str.isalpha``)."""
    plane = codes < 0x10000
    return int(_letters_table()[codes[plane]].sum()) + sum(chr(c).isalpha() for c in codes[~plane])


def letter_codes(codes: np.ndarray) -> np.ndarray:
    """The code points (``uint32``) among these that are letters (``str.isalpha``), in order."""
    plane = codes < 0x10000
    letter = np.zeros(len(codes), dtype=bool)
    letter[plane] = _letters_table()[codes[plane]]
    letter[~plane] = [chr(c).isalpha() for c in codes[~plane]]
    return codes[letter]


@cache
def _letters_table() -> np.ndarray:
    """Whether each code point of the Basic Multilingual Plane is a letter."""
    return np.array([chr(c).isalpha() for c in range(0x10000)], dtype=bool)
