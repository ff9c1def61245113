r"""Warn when the references' words are not the experiment's language (a German test set left at the
default ``language: en``): the check of :func:`mteval.setup.scripts.check_reference_scripts`, for
languages that share a script.

The parser, METEOR's stemmer and ROUGE's tokenizer follow ``language:``; on a German text an
English parser gives trees about nothing, silently (the script check only sees Cyrillic, Greek...).
A language's most frequent function words (:data:`FUNCTION_WORDS`, 32-46 each) make 20-40 % of
the words (``\w+``, lower-cased) of any real text in it. Measured (2026-11-28) on every reference,
system and source of ../shared's WMT data and the UD test sets of ../shared/ud (texts of 200 words
or more): a text's own language's share is at least 0.300 (en), 0.298 (de), 0.327 (fr), 0.386 (es)
and 0.219 (cs, whose function words are short and many); in another language's text, English
function words make at most 0.058 (a Czech system), German 0.019, Czech 0.088 (an English source),
Spanish 0.165 and French 0.209 (each in the other's text: a Spanish text declared French passes
:data:`MAX_SHARE`).

So a second test compares languages: in a text of its own language, no other profiled language's
share reached 0.674 of the own one's (Polish in a 335-word piece of Czech UD; Spanish 0.60 of
French and French 0.60 of Spanish), measured on the texts above and on every 20-sentence piece of
the UD sets' first 4,000 sentences (200 words or more). A text whose words give another language
:data:`RIVAL` times the declared language's share is therefore not in the declared language: this
tells Spanish declared French (Spanish 1.66 times French or more) and every other confusion of the
five, on every text and piece measured, with no false alarm.

When the references (together, at least :data:`MIN_WORDS` words) have less than :data:`MAX_SHARE`
of the declared language's function words, or another language has :data:`RIVAL` times its share,
one warning line says so, naming the language their
words look like when one of :data:`FUNCTION_WORDS` has :data:`MIN_BEST` of them and three times the
declared one's. A warning, not an error: a test set of product names or tables can be poor in
function words. Checked only for languages measured above (:data:`CHECKED`); the others only name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from mteval.experiment.texts import LoadedTexts
from mteval.metrics.stemmers import base_language

FUNCTION_WORDS = {language: frozenset(words.split()) for language, words in {
    "en": "the of and to in is that for it with was on as are be this by at from have not but an has he they which "
          "you his their or were been will had would its who more can said one we all also about",
    "de": "der die und das den von zu mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat "
          "dass sie nach wird bei einer um noch wie einem über so zum war haben nur oder",
    "fr": "de la le et les des en un du une que est pour qui dans par plus pas au sur ne se ce il sont avec ont son "
          "elle nous vous mais ou leur été aux cette comme tout peut ses",
    "es": "de la que el en y los del se las por un para con no una su al es lo como más pero sus le ha me si sin sobre "
          "este ya entre cuando también fue muy hay desde",
    "cs": "a v se na je že s z o k do to i by jako ve pro ale jsou tak za po jak už který která které jeho od jsem byl "
          "bylo také jsme jen když podle než",
    "it": "di e il la che in per un è del non della le si con una i da al sono come anche più ma nel alla gli lo ha "
          "dei delle questo ci essere",
    "pt": "de a o que e do da em um para é com não uma os no se na por mais as dos como mas foi ao ele das tem à seu "
          "sua ou ser quando muito",
    "nl": "de het een van en in is dat op te zijn voor met die niet aan er om ook als bij dan maar door wordt nog naar "
          "uit ze heeft hij was",
    "pl": "w i na z się do że nie to jest o a jak po co od za dla przez ale jego tak są jako być już tylko może ich "
          "jej tym był była",
}.items()}
CHECKED = frozenset({"en", "de", "fr", "es", "cs"})  # measured on real text (module docstring)
NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "cs": "Czech", "it": "Italian",
         "pt": "Portuguese", "nl": "Dutch", "pl": "Polish"}
MIN_WORDS = 200
MAX_SHARE = 0.1
MIN_BEST = 0.15
RIVAL = 1.25  # another language's share over the declared one's that tells a confusion (docstring)
WORD = re.compile(r"\w+")


def shares(segments: Iterable[str]) -> tuple[dict[str, float], int]:
    """Each profiled language's share of the words of ``segments``, and their number of words."""
    counts = Counter(word for segment in segments for word in WORD.findall(segment.lower()))
    total = sum(counts.values())
    found = {language: sum(counts[word] for word in words) / max(total, 1)
             for language, words in FUNCTION_WORDS.items()}
    return found, total


def language_warnings(families: Iterable[str], texts: LoadedTexts, language: str) -> list[str]:
    """One line when ``families`` (those whose work follows ``language:``, by name) are computed on
    references whose words are not ``language``'s (module docstring)."""
    code = base_language(language)
    chosen = list(dict.fromkeys(families))
    if code not in CHECKED or not chosen:
        return []
    found, total = shares(segment for text in texts.references.values() for segment in text.segments)
    best = max(found, key=lambda other: found[other])
    if total < MIN_WORDS:
        return []
    reading = (f"but the experiment's language is {language}, so these metrics' parser, stemmer or tokenizer read "
               f"them as {NAMES[code]}")
    if found[code] >= MAX_SHARE:
        if best == code or found[best] < RIVAL * found[code]:
            return []
        return [f"{', '.join(chosen)}: the references' words look {NAMES[best]} ({100 * found[best]:.0f}% are "
                f"{NAMES[best]} function words, {100 * found[code]:.0f}% {NAMES[code]} ones), {reading}; set "
                f"language: {best} (docs/languages.md)"]
    looks = (f"they look {NAMES[best]} ({100 * found[best]:.0f}% {NAMES[best]} ones): set language: {best}"
             if found[best] >= MIN_BEST and found[best] >= 3 * found[code] else "set language: to theirs")
    return [f"{', '.join(chosen)}: only {100 * found[code]:.0f}% of the references' words are {NAMES[code]} function "
            f"words ({NAMES[code]} text has 20-40%), {reading}; {looks} (docs/languages.md)"]
