"""Refuse references written in another script than the experiment's ``language:`` before parsing them
(issue 36, bad input): a Russian test set left at the default ``language: en`` would be parsed by the
English model, and every linguistic score would be a number about garbage trees, silently. And warn
when ROUGE's ASCII tokenizer would split or drop most of the references' letters.

Only the references are checked (they define the language; a system may leave a segment
untranslated, which its scores should show, not the run refuse), and only when iqsetup is about to
parse (the annotation stage calls :func:`check_reference_scripts` before it loads a parser; lexical
families compare strings in any script). A reference is refused when at least
:data:`MIN_LETTERS` of its letters are read and fewer than :data:`MIN_SHARE` of them are in the
language's script (Unicode character names: ``LATIN SMALL LETTER A``, ``CYRILLIC ...``). Languages
this table does not know are not checked.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from mteval.errors import InputError
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import Text
from mteval.metrics.stemmers import base_language, stemmer_description
from mteval.setup.limits import line_of

MIN_LETTERS = 50  # fewer letters say too little (a test set of numbers, names)
MIN_SHARE = 0.5  # of a reference's letters, in the language's script
SCRIPTS = {  # ISO 639-1 code -> the script of its letters (the first word of their Unicode names)
    **dict.fromkeys(("en", "de", "fr", "es", "cs", "it", "pt", "nl", "pl", "ro", "fi", "et", "lv", "lt", "sk",
                     "sl", "hr", "hu", "sv", "da", "no", "nb", "tr", "ca", "eu", "gl", "is", "ga", "mt", "id",
                     "ms", "vi", "sw"), "LATIN"),
    **dict.fromkeys(("ru", "uk", "be", "bg", "mk", "sr", "kk", "ky"), "CYRILLIC"),
    "el": "GREEK", "ar": "ARABIC", "fa": "ARABIC", "ur": "ARABIC", "he": "HEBREW", "hi": "DEVANAGARI",
    "mr": "DEVANAGARI", "ne": "DEVANAGARI", "bn": "BENGALI", "ta": "TAMIL", "te": "TELUGU", "gu": "GUJARATI",
    "ka": "GEORGIAN", "hy": "ARMENIAN", "th": "THAI", "km": "KHMER", "ko": "HANGUL",
}


@lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    """The script of a letter: the first word of its Unicode name (CJK ideographs: ``CJK``)."""
    if char.isascii():
        return "LATIN"
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def letter_scripts(segments: Iterable[str]) -> Counter[str]:
    """How many letters of ``segments`` each script has."""
    counts: Counter[str] = Counter()
    for segment in segments:
        counts.update(script_of(char) for char in segment if char.isalpha())
    return counts


def check_reference_scripts(texts: LoadedTexts, language: str) -> None:
    """Raise one InputError naming the first reference whose letters are mostly in another script than
    ``language``'s (called before anything is parsed)."""
    wanted = SCRIPTS.get(language.split("-")[0].split("_")[0])
    if wanted is None:
        return
    for text in texts.references.values():
        counts = letter_scripts(text.segments)
        total = sum(counts.values())
        if total >= MIN_LETTERS and counts[wanted] < MIN_SHARE * total:
            raise _wrong_script(text, language, wanted, counts)


def _wrong_script(text: Text, language: str, wanted: str, counts: Counter[str]) -> InputError:
    """The one-line refusal, at the first segment whose letters are mostly in another script."""
    found, number = counts.most_common(1)[0]
    share = 100 * number / sum(counts.values())
    index = next((i for i, segment in enumerate(text.segments)
                  if (seen := letter_scripts([segment])) and seen[wanted] < MIN_SHARE * sum(seen.values())), 0)
    return InputError(f"reference {text.name}: {share:.0f}% of its letters are {found.title()}, but the experiment's "
                      f"language is {language} ({wanted.title()} script) and its parser would read them: set "
                      "language: to the references' language", text.where, line_of(text, index))


ASCII_TOKENIZERS = ("ROUGE", "rouge-score")  # ROUGE-1.5.5 and rouge-score keep only [a-z0-9] runs
MAX_DROPPED = 0.2  # share of a reference's letters outside a-z above which ROUGE is warned about


def ascii_tokenizer_warnings(families: Iterable[str], texts: LoadedTexts, language: str = "en") -> list[str]:
    """One warning per ASCII-tokenizing family (:data:`ASCII_TOKENIZERS`) when more than
    :data:`MAX_DROPPED` of the references' letters are outside ``a-z``: the reference tools split
    words there (``différent`` -> ``diff rent``) or drop them whole (Cyrillic, Greek...), and so
    does mteval to match them; the scores are then about what is left."""
    chosen = [name for name in dict.fromkeys(families) if name in ASCII_TOKENIZERS
              and not (name == "ROUGE" and base_language(language) != "en")]  # then ROUGE reads any script
    if not chosen:
        return []
    counts: Counter[str] = Counter()
    for text in texts.references.values():
        counts.update("ascii" if char.isascii() else script_of(char) for segment in text.segments
                      for char in segment if char.isalpha())
    total = sum(counts.values())
    outside = total - counts["ascii"]
    if not total or outside <= MAX_DROPPED * total:
        return []
    scripts = ", ".join(name.title() for name, _ in (counts - Counter(ascii=counts["ascii"])).most_common(2))
    return [f"{name}: {100 * outside / total:.0f}% of the references' letters are outside a-z ({scripts}); its "
            "tokenizer, as the reference tool's, keeps only a-z and 0-9, splitting or dropping those words, so "
            f"{name} scores what is left (docs/languages.md)" for name in chosen]


def english_only_warnings(families: Iterable[str], language: str) -> list[str]:
    """A warning for METEOR outside English: its stem stage uses the language's Snowball stemmer
    (if there is one), but METEOR 1.5's other resources that mteval carries are English (WordNet
    synonyms, paraphrases, function words, tuned parameters), so its scores are not METEOR 1.5's
    ``-l LANG`` ones."""
    code = base_language(language)
    if code == "en" or "METEOR" not in families:
        return []
    stemmer = stemmer_description(code)
    stems = f"stems with {stemmer}" if stemmer else f"has no stemmer for {code} (no stem matches)"
    return [f"METEOR: for language {language} it {stems}; its synonym and paraphrase stages match nothing and no "
            f"word counts as a function word (METEOR 1.5's are English), its parameters are English's: its "
            f"scores are not METEOR 1.5's -l {language} ones (docs/languages.md)"]
