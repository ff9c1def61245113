"""The natasha backend (Russian): razdel tokens, slovnet's news morphology tagger (UPOS and UD
features), pymorphy2 lemmas, slovnet's news biaffine dependency parser, slovnet's news NER (PER,
LOC, ORG), all with navec news embeddings; numpy only, no torch.

Natasha decodes the parser's head scores by a per-word argmax, which can give loops, cycles and
several roots; here the same biaffine head scores are decoded into the best tree with one root
word (:mod:`mteval.annotate.backends.mst`), and the relations are then labelled for those heads.
The head scores also give EDPM real arc scores: ``arcs[h, d]`` = log-softmax over heads (as for
Stanza), with the label distributions of each word's four best heads. A segment is one sentence
(no sentence splitting) and is cut after ``MAX_SEGMENT_WORDS`` tokens. Parsing uses one BLAS
thread (``threadpoolctl``), as the Stanza path uses one torch thread; ``workers`` parallelise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mteval.annotate.arc_capture import TOP_K
from mteval.annotate.backends import package_version, require
from mteval.annotate.backends.common import (
    PARSE_SCHEME,
    Labels,
    bio_tags,
    cut_words,
    files_digest,
    make_word,
    tree_digest,
    with_cut,
)
from mteval.annotate.backends.mst import mst_heads
from mteval.annotate.layers.labels import UPOS_TAGS
from mteval.annotate.model import ArcScores, Sentence
from mteval.errors import ConfigError

PROCESSORS = "tokenize,pos,lemma,depparse,ner"
MODELS = ("news",)  # natasha ships one model set
EXTRA = "ru"
# what natasha 1.6.0's news models produce (tests/test_label_inventory.py checks them against the loaded
# models): slovnet's syntax relations (its rels vocabulary, without <pad>), its NER types; no XPOS tagset
RELATIONS = frozenset((
    "acl", "acl:relcl", "advcl", "advmod", "amod", "appos", "aux", "aux:pass", "case", "cc", "ccomp", "compound",
    "conj", "cop", "csubj", "csubj:pass", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat",
    "flat:foreign", "flat:name", "goeswith", "iobj", "list", "mark", "nmod", "nsubj", "nsubj:pass", "nummod",
    "nummod:entity", "nummod:gov", "obj", "obl", "obl:agent", "orphan", "parataxis", "punct", "root", "vocative",
    "xcomp"))
ENTITIES = frozenset(("PER", "LOC", "ORG"))


@dataclass(frozen=True)
class NatashaBackend:
    """Natasha's news models (picklable: workers load them themselves)."""

    language: str = "ru"
    model: str = "news"

    name = "natasha"
    processors = PROCESSORS

    def __post_init__(self) -> None:
        if self.language != "ru":
            raise ConfigError(f"the natasha backend parses Russian only, not '{self.language}'")
        if self.model not in MODELS:
            raise ConfigError(f"annotation.model: natasha has the models {', '.join(MODELS)}, not '{self.model}'")

    def identity(self) -> str:
        """``natasha<ver>:news|slovnet..,navec..,pymorphy2..|lang:ru|files=<sha16>,dicts=<sha16>|parse:..``."""
        natasha = package_version("natasha", EXTRA)  # named first when nothing is installed
        versions = ",".join(f"{p}{package_version(p, EXTRA)}" for p in ("slovnet", "navec", "pymorphy2",
                                                                       "pymorphy2-dicts-ru"))
        files, dicts = _model_files()
        return f"natasha{natasha}:{self.model}|{versions}|lang:ru|proc:{PROCESSORS}|" \
            f"files={files_digest(files)},dicts={tree_digest(dicts)}|parse:{PARSE_SCHEME},mst"

    def load(self) -> NatashaParser:
        """Load the models (imports natasha)."""
        return NatashaParser()

    def labels(self) -> Labels:
        """What the models can produce (nothing loaded): XPOS is UPOS (:func:`~.common.make_word`)."""
        return Labels(xpos=frozenset(UPOS_TAGS), relations=RELATIONS, entities=ENTITIES)


def _model_files() -> tuple[list[Path], Path]:
    """Natasha's embedding and model archives, and pymorphy2's dictionary folder."""
    from importlib.util import find_spec  # noqa: PLC0415

    require("natasha", "natasha", EXTRA)
    require("pymorphy2_dicts_ru", "pymorphy2-dicts-ru", EXTRA)  # natasha's dependencies
    require("threadpoolctl", "threadpoolctl", EXTRA)
    natasha, dicts = find_spec("natasha"), find_spec("pymorphy2_dicts_ru")
    assert natasha is not None and natasha.origin and dicts is not None and dicts.origin
    data = Path(natasha.origin).parent / "data"
    return sorted([*data.glob("emb/*.tar"), *data.glob("model/*.tar")]), Path(dicts.origin).parent / "data"


def _morph_vocab(cls: Any) -> Any:
    """natasha's ``MorphVocab`` on pymorphy2-dicts-ru's folder, given by path: pymorphy2 would
    otherwise look for it through ``pkg_resources``, which recent setuptools no longer has."""
    from natasha.morph.vocab import MorphForm  # noqa: PLC0415
    from pymorphy2 import MorphAnalyzer  # noqa: PLC0415

    vocab = cls.__new__(cls)
    MorphAnalyzer.__init__(vocab, path=str(_model_files()[1]), result_type=MorphForm)
    return vocab


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(np.where(np.isfinite(x), x, -np.inf), axis=axis, keepdims=True)
    shifted = x - top
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


class NatashaParser:
    """Loaded natasha models parsing each text as one sentence."""

    def __init__(self) -> None:
        from natasha import (  # noqa: PLC0415 - heavy, only when parsing is needed
            MorphVocab,
            NewsEmbedding,
            NewsMorphTagger,
            NewsNERTagger,
            NewsSyntaxParser,
            Segmenter,
        )
        from threadpoolctl import threadpool_limits  # noqa: PLC0415

        # one BLAS thread, as Stanza parses with one torch thread: slovnet's small numpy matrices gain
        # nothing from more, and on a busy 2-core machine OpenBLAS threads made parsing 27x slower
        threadpool_limits(limits=1, user_api="blas")
        emb = NewsEmbedding()
        self.segmenter = Segmenter()
        self.morph = NewsMorphTagger(emb)
        self.syntax = NewsSyntaxParser(emb)
        self.ner = NewsNERTagger(emb)
        self.vocab = _morph_vocab(MorphVocab)
        self.labels = tuple(self.syntax.infer.decoder.rels_vocab.items)

    def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """One (sentence, arc scores) per non-empty text."""
        return [self.parse_one(t) for t in texts]

    def parse_one(self, text: str) -> tuple[Sentence, ArcScores | None]:
        """Tokenize (razdel), cut, then annotate one text."""
        tokens = list(self.segmenter.tokenize(text))
        kept, dropped = cut_words(len(tokens))
        sentence, scores = self._annotate([t.text for t in tokens[:kept]],
                                          [(t.start, t.stop) for t in tokens[:kept]], text)
        return with_cut(sentence, dropped), scores

    def parse_words(self, forms: Sequence[str]) -> tuple[Sentence, ArcScores | None]:
        """Tag and parse given words (gold tokenization, for :mod:`mteval.annotate.ud_eval`)."""
        offsets, start = [], 0
        for form in forms:
            offsets.append((start, start + len(form)))
            start += len(form) + 1
        return self._annotate(list(forms), offsets, " ".join(forms))

    def _annotate(self, forms: list[str], offsets: list[tuple[int, int]],
                  text: str) -> tuple[Sentence, ArcScores | None]:
        """Morphology, lemmas, the tree and entities of one sentence's words."""
        if not forms:
            return Sentence((), text), None
        morph = next(iter(self.morph.map([forms]))).tokens
        heads, rels, scores = self._parse(forms)
        ner = bio_tags(offsets, [(s.start, s.stop, s.type) for s in self.ner(text).spans])
        words = [make_word(i + 1, f, self._lemma(f, m.pos, m.feats), m.pos, "_", _feats(m.feats), heads[i],
                           "root" if heads[i] == 0 else rels[i], ner[i])
                 for i, (f, m) in enumerate(zip(forms, morph, strict=True))]
        return Sentence(tuple(words), text), scores

    def _lemma(self, form: str, pos: str, feats: dict[str, str]) -> str:
        """pymorphy2's lemma for the tagged form (the form itself when it has none); pymorphy2
        lower-cases every lemma, so a capitalised proper noun's lemma is capitalised again (as UD)."""
        lemma = str(self.vocab.lemmatize(form, pos, feats or {}) or form)
        return lemma[:1].upper() + lemma[1:] if pos == "PROPN" and form[:1].isupper() else lemma

    def _parse(self, forms: list[str]) -> tuple[list[int], list[str], ArcScores]:
        """Heads (best one-root tree), relations and arc scores from slovnet's biaffine scores."""
        infer = self.syntax.infer
        batch = next(iter(infer.encoder([forms])))
        model = infer.model
        x = model.encoder(model.emb(batch.word_id, batch.shape_id), batch.pad_mask)
        n = len(forms)
        head_scores = np.asarray(model.head(x))[0, :n, : n + 1]  # [dependent-1, head]
        arcs = np.full((n + 1, n + 1), -np.inf)
        arcs[:, 1:] = _log_softmax(head_scores, axis=1).T
        np.fill_diagonal(arcs, -np.inf)
        heads = mst_heads(arcs)
        rel_logp = self._rel_logp(model, x, np.array(heads))
        rels = [self.labels[int(k)] for k in rel_logp.argmax(axis=1)]
        return heads, rels, self._arc_scores(model, x, arcs, rel_logp, heads)

    def _rel_logp(self, model: Any, x: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Log-probabilities of the relations of every word given the heads ``heads`` (n, L)."""
        n = len(heads)
        padded = np.zeros((1, x.shape[1]), dtype=np.int_)
        padded[0, :n] = heads
        return _log_softmax(np.asarray(model.rel(x, padded))[0, :n], axis=1)

    def _arc_scores(self, model: Any, x: np.ndarray, arcs: np.ndarray, best_logp: np.ndarray,
                    heads: list[int]) -> ArcScores:
        """:class:`ArcScores` with the label distributions of each word's TOP_K best heads (the
        tree's head first)."""
        n = len(heads)
        k = max(1, min(TOP_K, n))
        order = np.argsort(-arcs[:, 1:].T, axis=1, kind="stable")  # per dependent, heads best first
        top = np.zeros((n, k), np.int16)
        for d in range(n):
            rest = [int(h) for h in order[d] if h != heads[d] and h != d + 1][: k - 1]
            top[d] = [heads[d], *rest, *[heads[d]] * (k - 1 - len(rest))]
        logp = np.stack([best_logp if j == 0 else self._rel_logp(model, x, top[:, j]) for j in range(k)], axis=1)
        return ArcScores(arcs.astype(np.float32), self.labels, top, logp.astype(np.float16))


def _feats(feats: dict[str, str] | None) -> str:
    """UD features as CoNLL-U's ``A=b|C=d`` (sorted by name), ``_`` when none."""
    return "|".join(f"{k}={v}" for k, v in sorted((feats or {}).items(), key=lambda kv: kv[0].lower())) or "_"
