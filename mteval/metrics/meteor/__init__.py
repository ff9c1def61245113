"""METEOR (Banerjee & Lavie 2005; Meteor 1.5: Denkowski & Lavie 2011) at Meteor-jar parity.

Asiya's invocation (``METEOR.pm``): ``meteor-1.4.jar tst ref -sgml -l en -m "<modules>"
[-a paraphrase-en.gz]``: English parameters alpha beta gamma delta = 0.85 0.2 0.6 0.75, module
weights taken **positionally** from 1.0 0.6 0.8 0.6, case-sensitive, no normalisation, whitespace
tokenisation; with several references the best-scoring one per segment (on ties the first in the
jar's own order of reference names: :mod:`.reference_order`); system and document
scores from summed statistics (:mod:`.scoring`).

Variants (IQMT name / Asiya name: modules, weights):

* ``MTR-exact`` / ``METEOR-ex``: exact, 1.0
* ``MTR-stem`` / ``METEOR-st``: exact stem, 1.0 0.6
* ``MTR-wnsyn`` / ``METEOR-sy``: exact stem synonym, 1.0 0.6 0.8
* ``METEOR-pa`` (Asiya): exact stem **paraphrase** (no synonyms), 1.0 0.6 0.8 (the paraphrase
  module sits in the synonym slot)
* ``MTR-para`` / ``METEOR-stsypa``: Meteor 1.5's full English set exact stem synonym paraphrase,
  1.0 0.6 0.8 0.6. IQMT (METEOR 0.6) had no paraphrase module; ``MTR-para`` is defined as this.
* ``MTR-wnstm`` (IQMT manual §5.1; no Asiya name): exact stem **WordNet stem** (METEOR 0.4.3's
  ``wn_stem``: different words with a common WordNet base form, :func:`.matchers.wnstem`),
  1.0 0.6 0.8 (the module sits in the synonym slot, as ``METEOR-pa``'s paraphrase module does).

Outside English (``language:`` other than ``en``): Asiya passes the target language (``-l de``,
``-l cz`` ...), and so does mteval (:mod:`.languages`): that language's parameters and module weights,
Meteor 1.4's function words for it (Czech, French, German, Spanish; the jar's other lists are empty)
and its stems (:mod:`.jar_stemmers`: snowballstemmer's, corrected to the jar's). METEOR-ex and
METEOR-st are then the jar's ``-l LANG`` numbers (checked on German, French, Spanish, Czech (METEOR-ex)
and Russian data: ``tests/test_meteor_languages.py``), except METEOR-st in Finnish and Portuguese (the
stemmers differ) and in Czech and Arabic, where the jar has no stemmer and mteval's extension stems with
the Czech light stemmer of Dolamic & Savoy 2009 (``stemmer:czech-light`` in the signature) or Snowball's
Arabic one. The synonym, WordNet-stem and paraphrase stages match nothing (their resources are English;
the jar's synonym stage refuses other languages, its paraphrase tables are not here). Signatures name the
language and the jar's language (``|language:de|meteor:1.4-de|``); a language Meteor 1.4 lacks keeps
English's parameters, no function words and snowballstemmer's stemmer, if any (``|language:pl|``).
``setup.scripts.english_only_warnings`` names the variants whose numbers are not the jar's.

The Asiya names are the registered variants; the IQMT names (``MTR-exact`` ...) are aliases of
them (:mod:`mteval.metrics.aliases`), which :data:`MODULES` also accepts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics.aliases import DUPLICATES
from mteval.metrics.base import MetricInfo, ScoreSet, Side, StatsFamily, scores_from_stats_matrix
from mteval.metrics.meteor import matchers
from mteval.metrics.meteor.alignment import Matcher, align
from mteval.metrics.meteor.jar_stemmers import jar_stemmer
from mteval.metrics.meteor.languages import JAR_LANGUAGES
from mteval.metrics.meteor.reference_order import java_string_hash, meteor_reference_order
from mteval.metrics.meteor.resources import function_words
from mteval.metrics.meteor.scoring import MODULE_WEIGHTS, N_STATS, PARAMETERS, alignment_stats, meteor_scores
from mteval.metrics.registry import canonical, register
from mteval.metrics.segment_cache import PAIR_CACHE_LIMIT, SegmentCache
from mteval.metrics.stemmers import base_language, language_stemmer, stemmer_option

MODULES: dict[str, tuple[str, ...]] = {
    "MTR-exact": ("exact",), "METEOR-ex": ("exact",),
    "MTR-stem": ("exact", "stem"), "METEOR-st": ("exact", "stem"),
    "MTR-wnsyn": ("exact", "stem", "synonym"), "METEOR-sy": ("exact", "stem", "synonym"),
    "METEOR-pa": ("exact", "stem", "paraphrase"),
    "MTR-para": ("exact", "stem", "synonym", "paraphrase"),
    "METEOR-stsypa": ("exact", "stem", "synonym", "paraphrase"),
    "MTR-wnstm": ("exact", "stem", "wnstem"),
}
EMPTY_ITEM = "***EMPTY***"
_WS = re.compile(r"[ \t\n\r\f]+")  # java.util.StringTokenizer's default delimiters


def meteor_tokens(text: str) -> tuple[str, ...]:
    """Meteor's words of one segment as Asiya writes it (trailing spaces stripped, empty -> ***EMPTY***)."""
    line = text.rstrip(" \t\n\r\f\v")
    if line.strip(" \t\n\r\f\v") == "":
        line = EMPTY_ITEM
    return tuple(t for t in _WS.split(line) if t)


@cache
def _matcher(name: str, language: str = "en") -> Matcher:
    """The matcher function of a module name (the paraphrase table is loaded lazily). Outside
    English: ``stem`` with Meteor 1.4's stemmer of the language (:func:`.jar_stemmers.jar_stemmer`),
    else mteval's (``stemmers.language_stemmer``: Snowball's or Czech's light one; none: no stem
    matches); no synonym, WordNet-stem or paraphrase matches (Meteor's resources for them are English)."""
    if language != "en":
        jar = JAR_LANGUAGES.get(language)
        stemmer = jar_stemmer(language) if jar is not None and jar.stemmer else language_stemmer(language)
        if name == "exact":
            return matchers.exact
        return matchers.stem_with(stemmer) if name == "stem" and stemmer is not None else matchers.nothing
    if name == "paraphrase":
        from mteval.metrics.meteor.paraphrase import paraphrase

        return paraphrase
    return getattr(matchers, name)


@lru_cache(maxsize=1 << 20)
def java_word_key(word: str) -> int:
    """Java's ``String.hashCode()`` of a word: what Meteor 1.4 compares words and stems by
    (:class:`.alignment.Stage`)."""
    return java_string_hash(word)


@register
class MeteorFamily(StatsFamily):
    """METEOR 1.5 variants (exact, stem, synonym, paraphrase stages) with Meteor's numbers."""

    family = "METEOR"
    variants = tuple(v for v in MODULES if v not in DUPLICATES)
    version = "2"  # 2: ties between references as the jar breaks them (reference_order)
    by_language = True
    # Every variant is computed together (segment_stats); one pair of real words (issue 29,
    # docs/reliability.md) took 25-29 s at 5,000 words, 52 s at 10,000 and over 60 s at 20,000 on
    # the shared 2-core machine. The limit is the 5,000 words every family is guaranteed to score.
    max_segment_words = 5_000

    def __init__(self, case_sensitive: bool = True, language: str = "en", **options: Any) -> None:
        self.language = base_language(language)
        jar = JAR_LANGUAGES.get(self.language)
        if self.language != "en":  # in the signature outside English only: English files stay valid
            options.update(language=self.language, **stemmer_option(self.language))
            if jar is not None:  # Meteor 1.4's -l LANG (before, English's settings: other numbers)
                options.update(meteor=f"1.4-{jar.code}")
        super().__init__(case_sensitive, **options)
        # Meteor 1.4's settings of the language (a language it lacks: English's, and no function words)
        self.alpha_beta_gamma_delta = jar.parameters if jar is not None else PARAMETERS
        self.module_weights = jar.weights if jar is not None else MODULE_WEIGHTS
        self._function_words = function_words(jar.name) if jar is not None else frozenset()
        # words compared by their Java hash, as the jar does (English: as strings, its numbers unchanged)
        self._key = java_word_key if jar is not None and self.language != "en" else None
        # bounded (segment_cache): large enough for a multi-reference set's pairs met again (A, B, then A_B)
        self._cache: SegmentCache[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], np.ndarray] = \
            SegmentCache(4 * PAIR_CACHE_LIMIT)

    def info(self, variant: str) -> MetricInfo:
        """Similarity in [0, 1]."""
        return MetricInfo(variant, self.family, description="Meteor 1.5 " + " ".join(MODULES[variant]))

    def _words(self, text: str) -> tuple[str, ...]:
        return meteor_tokens(text if self.case_sensitive else text.lower())

    def prepare(self, references: Sequence[Side]) -> list[list[tuple[str, ...]]]:
        """Per segment, the words of every reference, in the order the Meteor jar tries them
        (:mod:`.reference_order`: the first best one is kept, which decides ties)."""
        ordered = [references[i] for i in meteor_reference_order([r.name for r in references])]
        per_ref = [[self._words(t) for t in ref.texts] for ref in ordered]
        if len({len(r) for r in per_ref}) > 1:
            sizes = ", ".join(f"{ref.name}: {len(ref.texts)}" for ref in references)
            raise InputError(f"references differ in segment count ({sizes})")
        return [list(seg) for seg in zip(*per_ref, strict=True)]

    def pair_stats(self, hyp: tuple[str, ...], ref: tuple[str, ...], modules: tuple[str, ...]) -> np.ndarray:
        """Statistics row of one hypothesis/reference pair (cached per unique pair). Identical
        sentences are aligned by the exact stage alone (:func:`align`), so every variant shares
        their row."""
        if hyp == ref:
            modules = modules[:1]
        key = (hyp, ref, modules)
        row = self._cache.get(key)
        if row is None:
            matched = align(hyp, ref, [_matcher(m, self.language) for m in modules], self._key)
            row = alignment_stats(hyp, ref, matched, self._function_words)
            self._cache[key] = row
        return row

    def variant_stats(self, hypothesis: Side, prepared: list[list[tuple[str, ...]]], variant: str) -> np.ndarray:
        """Per segment, the statistics of the best-scoring reference (the first in :meth:`prepare`'s order on ties)."""
        if len(hypothesis.texts) != len(prepared):
            raise InputError(f"{hypothesis.name}: {len(hypothesis.texts)} segments, but the "
                             f"references have {len(prepared)}")
        modules = MODULES[variant]
        weights = self.module_weights[:len(modules)]
        out = np.zeros((len(prepared), N_STATS))
        for i, (text, refs) in enumerate(zip(hypothesis.texts, prepared, strict=True)):
            hyp = self._words(text)
            rows = np.stack([self.pair_stats(hyp, ref, modules) for ref in refs])
            out[i] = rows[int(np.argmax(meteor_scores(rows, weights, self.alpha_beta_gamma_delta)))]
        return out

    def segment_stats(self, hypothesis: Side, prepared: Any) -> np.ndarray:
        """All variants' statistics side by side, one block of ``N_STATS`` columns per variant."""
        return np.hstack([self.variant_stats(hypothesis, prepared, v) for v in self.variants])

    def scores_from_stats(self, stats: np.ndarray, variant: str) -> np.ndarray:
        """METEOR scores of statistics rows: a variant's own block, or the full side-by-side matrix."""
        s = np.atleast_2d(stats)
        if s.shape[1] != N_STATS:
            k = self.variants.index(canonical(variant))
            s = s[:, k * N_STATS:(k + 1) * N_STATS]
        return meteor_scores(s, self.module_weights[:len(MODULES[variant])], self.alpha_beta_gamma_delta)

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        out: dict[str, ScoreSet] = {}
        for v in variants:
            stats = self.variant_stats(hypothesis, prepared, v)
            out.update(scores_from_stats_matrix(self, stats, documents, [v]))
        return out
