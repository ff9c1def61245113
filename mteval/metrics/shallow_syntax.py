"""SP: shallow-syntactic similarity (IQMT manual §5.3) over UD PoS tags, lemmas and base chunks.

The manual's annotators (SVMTool PoS/lemmas, Phreco chunks) become Stanza's XPOS (Penn Treebank
tags for English), UPOS and lemmas, and the chunks of :mod:`mteval.annotate.layers.chunks`
(CoNLL-2000 types derived from the dependency tree). Variants (Asiya's names):

============================  ===============================================================
variant                       measure (:mod:`mteval.metrics.overlap`)
============================  ===============================================================
``SP-Op(t)``, ``SP-Op(*)``    Overlapping of word forms by XPOS tag ``t`` (PTB tags)
``SP-Opu(t)``, ``SP-Opu(*)``  the same by UPOS tag ``t`` (``NOUN``, ``VERB``, ...)
``SP-Oc(t)``, ``SP-Oc(*)``    Overlapping of word forms by chunk type ``t`` (``O`` = outside)
``SP-Oiob(t)``, ``(*)``       Overlapping of word forms by IOB label ``t`` (``B-NP``, ``I-NP``,
                              ..., ``O``): the manual's ``SP-Oiob-*`` ("lexical overlapping over
                              chunk IOB labels", §5.3), (*) over every label, ``O`` included
``SP-xNIST[-n]``, ``i-n``     NIST (Doddington 2002), cumulative up to n / individual order n,
                              over the sequence of lemmas (x = ``l``), XPOS tags (``p``), chunk
                              types, one per chunk (``c``) or IOB labels, one per word (``iob``);
                              ``SP-xNIST`` = ``SP-xNIST-5``
============================  ===============================================================

The manual's spellings (``SP-Op-NN``, ``SP-NIST_l-5``, ``SP-Oiob-*`` ...) are aliases of these names
(:mod:`mteval.metrics.aliases`). NIST uses the mteval-v13a statistics of :mod:`mteval.metrics.ngram_stats`
(the code BLEU/NIST use) with the layer's symbols as tokens: information weights from all references of
the set, clipping by the maximum count over references, segment/document/system scores from summed
statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mteval.annotate.layers.chunks import CHUNK_TYPES, chunks, iob_labels
from mteval.annotate.layers.labels import UPOS_TAGS, XPOS_TAGS
from mteval.annotate.model import Sentence
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import MetricInfo, ScoreSet, Side
from mteval.metrics.bleu_nist import nist_scores
from mteval.metrics.ngram_stats import ngram_statistics, prepare_ngrams
from mteval.metrics.overlap import Features, OverlapFamily, Selector, annotated, per_type
from mteval.metrics.registry import register

NIST_LAYERS = ("l", "p", "c", "iob")
NIST_ORDER = 5


def _nist_variants() -> dict[str, tuple[str, int, bool]]:
    """``SP-xNIST``, ``SP-xNIST-n`` (n = 1..5), ``SP-xNISTi-n`` (n = 2..5) -> (layer, order, individual)."""
    out = {}
    for layer in NIST_LAYERS:
        out[f"SP-{layer}NIST"] = (layer, NIST_ORDER, False)
        out.update({f"SP-{layer}NIST-{n}": (layer, n, False) for n in range(1, NIST_ORDER + 1)})
        out.update({f"SP-{layer}NISTi-{n}": (layer, n, True) for n in range(2, NIST_ORDER + 1)})
    return out


IOB_LABELS = tuple(f"{p}-{t}" for t in CHUNK_TYPES if t != "O" for p in "BI") + ("O",)
SELECTORS = {"SP-Op(*)": Selector("Op"), **per_type("SP-Op", "Op", XPOS_TAGS),
             "SP-Opu(*)": Selector("Opu"), **per_type("SP-Opu", "Opu", UPOS_TAGS),
             "SP-Oc(*)": Selector("Oc"), **per_type("SP-Oc", "Oc", CHUNK_TYPES),
             "SP-Oiob(*)": Selector("Oiob"), **per_type("SP-Oiob", "Oiob", IOB_LABELS)}
NIST_VARIANTS = _nist_variants()


@register
class ShallowSyntax(OverlapFamily):
    """SP-* (manual §5.3): Overlapping by PoS and chunk type, and NIST over shallow layers."""

    family = "SP"
    # 2: chunks take aux's subtypes (French aux:tense) and negations marked Polarity=Neg (n’t, ne/pas, не)
    # into the verb group (annotate/layers/chunks.py)
    version = "2"
    selectors = SELECTORS
    open_labels = {"SP-Op": "Op"}  # any XPOS tag of the parser
    variants = tuple(SELECTORS) + tuple(NIST_VARIANTS)

    def info(self, variant: str) -> MetricInfo:
        """Higher is better; Overlapping/Matching in [0, 1] (NIST: [0, inf))."""
        if variant in NIST_VARIANTS:
            return MetricInfo(variant, self.family, True, 0.0, None, "NIST over a shallow-syntactic layer")
        return MetricInfo(variant, self.family, description="Overlapping (IQMT §5.3)")

    def features(self, sentence: Sentence) -> Features:
        """Word forms typed by XPOS (``Op``), UPOS (``Opu``), chunk type (``Oc``) and IOB label (``Oiob``)."""
        forms = [self.norm(w.form) for w in sentence.words]
        by_chunk = [(c.type, forms[i - 1]) for c in chunks(sentence) for i in c.words]
        return {"Op": self.bags((w.xpos, f) for w, f in zip(sentence.words, forms, strict=True)),
                "Opu": self.bags((w.upos, f) for w, f in zip(sentence.words, forms, strict=True)),
                "Oc": self.bags(by_chunk),
                "Oiob": self.bags(zip(self.sequences(sentence)["iob"], forms, strict=True))}

    def sequences(self, sentence: Sentence) -> dict[str, tuple[str, ...]]:
        """The token sequence of every NIST layer (lemmas, XPOS, chunk types, IOB labels), once per sentence."""
        cache = self.__dict__.setdefault("_sequences", {})
        found = cache.get(sentence)
        if found is None:
            found = cache[sentence] = self._sequences_of(sentence)
        return found

    def _sequences_of(self, sentence: Sentence) -> dict[str, tuple[str, ...]]:
        """:meth:`sequences` without the cache."""
        lemmas = tuple(self.norm(w.lemma if w.lemma not in ("_", "") else w.form) for w in sentence.words)
        return {"l": lemmas, "p": tuple(w.xpos for w in sentence.words),
                "c": tuple(c.type for c in chunks(sentence)), "iob": tuple(iob_labels(sentence))}

    def prepare(self, references: Sequence[Side]) -> Any:
        """Overlap features and, per NIST layer, the prepared reference n-grams."""
        overlap = self.prepare_features(references)
        seqs = [[self.sequences(s) for s in annotated(ref, self.family)] for ref in references]
        return overlap, {layer: prepare_ngrams([[q[layer] for q in ref] for ref in seqs])
                         for layer in NIST_LAYERS}

    def score(self, hypothesis: Side, prepared: Any, documents: DocumentIndex,
              variants: Sequence[str]) -> dict[str, ScoreSet]:
        """Overlap variants as in :class:`OverlapFamily`; NIST variants from summed statistics."""
        overlap, nist = prepared
        result = self.score_features(hypothesis, overlap, documents, variants)
        wanted = [v for v in variants if v in NIST_VARIANTS]
        seqs = [self.sequences(s) for s in annotated(hypothesis, self.family)]
        stats = {layer: ngram_statistics([q[layer] for q in seqs], nist[layer])
                 for layer in {NIST_VARIANTS[v][0] for v in wanted}}
        for v in wanted:
            layer, order, individual = NIST_VARIANTS[v]
            result[v] = nist_score_set(stats[layer], documents, order, individual)
        return result


def nist_score_set(stats: np.ndarray, documents: DocumentIndex, order: int, individual: bool) -> ScoreSet:
    """Segment, document and system NIST scores from one statistics matrix (summed per level)."""
    docs = {d: float(nist_scores(stats[documents.rows(d)].sum(axis=0, keepdims=True), order, individual)[0])
            for d in documents.documents}
    system = float(nist_scores(stats.sum(axis=0, keepdims=True), order, individual)[0]) if len(stats) else 0.0
    return ScoreSet(system, docs, nist_scores(stats, order, individual).astype(np.float64))
