"""Refuse references written in another script than the experiment's ``language:`` before parsing them
(issue 36, bad input): a Russian test set left at the default ``language: en`` would be parsed by the
English model, and every linguistic score would be a number about garbage trees, silently. And warn
when ROUGE's ASCII tokenizer would split or drop most of the references' letters, and when a
word-based metric meets references in a script written without spaces between words (Chinese,
Japanese, Thai...) that nobody segmented: its "words" are then whole phrases (:func:`unsegmented`).

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
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mteval.errors import InputError
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import Text
from mteval.metrics.base import MetricFamily
from mteval.metrics.stemmers import base_language, stemmer_description
from mteval.setup.limits import line_of
from mteval.setup.preparation import letter_codes, letter_count

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
    return InputError(f"reference {text.name}: {share:.0f}% of its letters are {script_name(found)}, but the "
                      f"experiment's language is {language} ({script_name(wanted)} script) and its parser would "
                      "read them: set language: to the references' language", text.where, line_of(text, index))


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
        letters = letter_codes(np.frombuffer("".join(text.segments).encode("utf-32-le"), dtype=np.uint32))
        others, times = np.unique(letters[letters >= 0x80], return_counts=True)
        counts["ascii"] += int(np.count_nonzero(letters < 0x80))
        for code, n in zip(others.tolist(), times.tolist(), strict=True):
            counts[script_of(chr(code))] += n
    total = sum(counts.values())
    outside = total - counts["ascii"]
    if not total or outside <= MAX_DROPPED * total:
        return []
    scripts = ", ".join(script_name(name) for name, _ in (counts - Counter(ascii=counts["ascii"])).most_common(2))
    return [f"{name}: {100 * outside / total:.0f}% of the references' letters are outside a-z ({scripts}); its "
            "tokenizer, as the reference tool's, keeps only a-z and 0-9, splitting or dropping those words, so "
            f"{name} scores what is left (docs/languages.md)" for name in chosen]


def english_only_warnings(variants: Iterable[str], language: str) -> list[str]:
    """One warning line for the METEOR variants among ``variants`` whose scores outside English are
    not Meteor 1.4's ``-l LANG`` ones (Asiya's): in a language the jar has, the variants with a stage
    whose resource mteval lacks (synonyms, WordNet stems, paraphrases; a stemmer the jar lacks or
    that differs from its own, :mod:`mteval.metrics.meteor.languages`); in a language it lacks, every
    variant (English's parameters, no function words). METEOR-ex and METEOR-st in German, say, are the
    jar's numbers: no warning."""
    code, chosen = base_language(language), list(dict.fromkeys(variants))
    if code == "en" or not chosen:
        return []
    from mteval.metrics.meteor import MODULES  # noqa: PLC0415 - imported when METEOR is chosen only
    from mteval.metrics.meteor.languages import JAR_LANGUAGES, not_jar_variants  # noqa: PLC0415

    chosen = [v for v in chosen if v in MODULES]
    if not chosen:
        return []
    if code not in JAR_LANGUAGES:
        stemmer = stemmer_description(code)
        stems = f"stems with {stemmer}" if stemmer else f"has no stemmer for {code} (no stem matches)"
        return [f"METEOR: for language {language} it {stems}; its synonym and paraphrase stages match nothing and "
                f"no word counts as a function word, its parameters are English's: Meteor 1.4 (Asiya's) has no "
                f"-l {code} (docs/languages.md)"]
    names, notes = not_jar_variants(code, chosen, MODULES)
    if not names:
        return []
    are = "is not Meteor 1.4's score" if len(names) == 1 else "are not Meteor 1.4's scores"
    return [f"METEOR: for language {language}, {', '.join(names)} {are} with -l {JAR_LANGUAGES[code].code} (Asiya's): "
            f"{'; '.join(notes)} (docs/languages.md)"]


# Scripts written without spaces between words (first words of their letters' Unicode names).
UNSPACED = frozenset({"CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN"})
# Letters of those scripts in one whitespace token, averaged over the letters (a letter in a token of 40
# weighs as much as one in a token of 2). WMT21 zh-en's Chinese source: 55.8; the same text cut at
# random into words of 1-4 characters: 2.5; segmented Thai or Japanese words are shorter than 8.
MIN_RUN = 8.0
FIRST_UNSPACED = "\u0e00"  # Thai's block; every script of UNSPACED lies at or above it
MIN_SCRIPT_SHARE = 0.02  # of those letters, for a script to be named (and to need a segmenter)


@dataclass(frozen=True)
class Unsegmented:
    """What :func:`unsegmented` found in the references."""

    scripts: frozenset[str]  # the unspaced scripts with at least MIN_SCRIPT_SHARE of their letters
    share: float  # of every letter of the references, the unspaced scripts' share
    run: float  # MIN_RUN's average: letters of those scripts a whitespace token


def unsegmented(texts: LoadedTexts) -> Unsegmented | None:
    """The references' unspaced scripts when they are written as such, without spaces between words:
    at least :data:`MIN_LETTERS` of their letters, :data:`MIN_SHARE` of all, in :data:`UNSPACED`
    scripts, sitting in whitespace tokens of :data:`MIN_RUN` of them on average; else None."""
    counts: Counter[str] = Counter()
    letters = squares = 0
    for text in texts.references.values():
        letters += letter_count(np.frombuffer("".join(text.segments).encode("utf-32-le"), dtype=np.uint32))
        for segment in text.segments:
            if segment.isascii() or max(segment) < FIRST_UNSPACED:
                continue
            for token in segment.split():
                unspaced = [name for char in token if char.isalpha() and (name := script_of(char)) in UNSPACED]
                squares += len(unspaced) ** 2
                counts.update(unspaced)
    total = sum(counts.values())
    if total < max(MIN_LETTERS, MIN_SHARE * letters) or squares < MIN_RUN * total:
        return None
    named = frozenset(name for name, n in counts.items() if n >= MIN_SCRIPT_SHARE * total)
    return Unsegmented(named, total / letters, squares / total)


def unspaced_script_warnings(variants: Iterable[tuple[MetricFamily, str]], texts: LoadedTexts,
                             warned: Iterable[str] = ()) -> list[str]:
    """One warning naming the variants whose words are what lies between spaces, when
    :func:`unsegmented` finds the references unsegmented (``MetricFamily.segmented_scripts``: a
    tokenizer that finds the words of every script found is fine); ``warned``: families already
    warned about their tokenizer."""
    skip = set(warned)
    words = [(variant, handled) for family, variant in variants if family.family not in skip
             and (handled := family.segmented_scripts(variant)) is not None]
    found = unsegmented(texts) if words else None
    if found is None:
        return []
    chosen = list(dict.fromkeys(variant for variant, handled in words if not found.scripts <= handled))
    return [_unspaced_line(chosen, found)] if chosen else []


def script_name(script: str) -> str:
    """A script's name in a message: ``Cyrillic``, ``Han (CJK)``."""
    return "Han (CJK)" if script == "CJK" else script.title()


def _unspaced_line(variants: list[str], found: Unsegmented, shown: int = 6) -> str:
    """The warning: which variants, what was found, why it matters, what to use instead."""
    listed = ", ".join(variants[:shown]) + (f" and {len(variants) - shown} more" if len(variants) > shown else "")
    scripts = " and ".join(script_name(name) for name in sorted(found.scripts))
    if found.scripts <= {"CJK"}:
        instead = "sacreBLEU(tok=zh), TER(normalized=yes,asian_support=yes), chrF"
    elif found.scripts <= {"CJK", "HIRAGANA", "KATAKANA"}:
        instead = "sacreBLEU(tok=ja-mecab) (pip install 'mteval[ja]'), chrF"
    else:  # spBLEU: FLORES' SentencePiece pieces, trained on 200 languages' scripts
        instead = "sacreBLEU(tok=flores200) (spBLEU; pip install 'mteval[spm]'), chrF, CER"
    return (f"{listed}: {100 * found.share:.0f}% of the references' letters are {scripts}, written without spaces "
            f"between words ({found.run:.0f} letters a whitespace token on average), which these metrics' "
            f"tokenizers do not split into words: a word is then a whole phrase and their scores say little; use "
            f"{instead}, or texts segmented into words (docs/languages.md)")
