"""NE: similarity over named entities (IQMT manual §5.5.1).

The manual's BIOS entities become the typed spans of :mod:`mteval.annotate.layers.entities`
(read from the annotation's per-word NER tags; types as the annotator gives them, e.g. Stanza's
OntoNotes ``PERSON``, ``GPE``, ... or CoNLL ``PER``, ``LOC``, ...). Words outside entities have type
``O``. Items are lower-cased word forms unless ``case_sensitive``. Variants:

====================  ====================================================================
variant               measure (:mod:`mteval.metrics.overlap`)
====================  ====================================================================
``NE-Oe(t)``          Overlapping of the words of entities of type t (``NE-Oe(O)``: words outside)
``NE-Oe(*)``          (*) over the actual entity types (``O`` excluded)
``NE-Oe(**)``         (*) over every type, ``O`` included
``NE-Me(t)``          Matching of whole entities (their word sequence) of type t
``NE-Me(*)``          (*) over the entity types (``O`` has no elements)
====================  ====================================================================

``(*)`` and ``(**)`` follow Asiya, not the IQMT manual (which has them the other way round):
Asiya's cached sample (``oracles/asiya-sample``, google, segment 1) gives ``NE-Oe(*) = 0`` for a
hypothesis sharing most of its words with the reference and only differing in its one entity
(``Barca``/``Barça``), which is impossible with ``O`` words counted. The manual's spellings map by
meaning (:mod:`mteval.metrics.aliases`): ``NE-Oe-*`` (``O`` included) is ``NE-Oe(**)`` and
``NE-Oe-**`` (actual entities only) is ``NE-Oe(*)``; ``NE-Oe-t``/``NE-Me-t`` are ``NE-Oe(t)``/``NE-Me(t)``.

Without an NER model in the annotation every word is ``O``: ``NE-Oe(**)`` is then the plain lexical
overlap and the other variants score 0 on every segment (a segment without items scores 0, as in
Asiya: :meth:`mteval.metrics.overlap.Selector.score`).
"""

from __future__ import annotations

from mteval.annotate.layers.entities import entities, entity_of_word
from mteval.annotate.layers.labels import NE_TYPES
from mteval.annotate.model import Sentence
from mteval.metrics.base import MetricInfo
from mteval.metrics.overlap import Features, OverlapFamily, Selector, per_type
from mteval.metrics.registry import register

SELECTORS = {"NE-Oe(*)": Selector("Oe", exclude=frozenset({"O"})), "NE-Oe(**)": Selector("Oe"),
             **per_type("NE-Oe", "Oe", NE_TYPES + ("O",)),
             "NE-Me(*)": Selector("Me"), **per_type("NE-Me", "Me", NE_TYPES)}


@register
class NamedEntities(OverlapFamily):
    """NE-* (manual §5.5.1): lexical overlapping and matching of named entities by type."""

    family = "NE"
    selectors = SELECTORS
    open_labels = {"NE-Oe": "Oe", "NE-Me": "Me"}  # any entity type of the tagger
    variants = tuple(SELECTORS)

    def info(self, variant: str) -> MetricInfo:
        """Higher is better; Overlapping/Matching in [0, 1] (NIST: [0, inf))."""
        return MetricInfo(variant, self.family, description="IQMT §5.5.1")

    def features(self, sentence: Sentence) -> Features:
        """Typed bags: words by entity type (``Oe``), entity word sequences by type (``Me``)."""
        forms = [self.norm(w.form) for w in sentence.words]
        spans = ((e.type, tuple(forms[i - 1] for i in e.word_ids())) for e in entities(sentence))
        return {"Oe": self.bags(zip(entity_of_word(sentence), forms, strict=True)), "Me": self.bags(spans)}
