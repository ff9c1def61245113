"""What the non-Stanza backends share: model-file digests, the 1-best tree as arc scores, the
segment cut, BIO tags from character spans, and the labels a backend can produce."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mteval.annotate.chunking import MAX_SEGMENT_WORDS
from mteval.annotate.model import ArcScores, Sentence, Word
from mteval.files import content_digest

WORDS_CUT = "words_cut"  # the CoNLL-U comment the Stanza path writes too
# every segment is one pipeline call and one sentence (no sentence splitting), cut after
# MAX_SEGMENT_WORDS words: the annotation of a text never depends on what is parsed with it
PARSE_SCHEME = f"one-segment-per-call,one-sentence,max={MAX_SEGMENT_WORDS},xpos=upos-if-none"


def files_digest(paths: Iterable[Path]) -> str:
    """First 16 hex digits of a SHA-256 over the sorted (name, content digest) of regular files."""
    h = hashlib.sha256()
    for path in sorted(p for p in paths if p.is_file()):
        st = path.stat()
        h.update(f"{path.name}:{content_digest(str(path), st.st_size, st.st_mtime)}\n".encode())
    return h.hexdigest()[:16]


def tree_digest(folder: Path) -> str:
    """:func:`files_digest` of every file under ``folder`` (names relative to it)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        st = path.stat()
        h.update(f"{path.relative_to(folder)}:{content_digest(str(path), st.st_size, st.st_mtime)}\n".encode())
    return h.hexdigest()[:16]


def one_best_scores(sentence: Sentence, labels: tuple[str, ...]) -> ArcScores:
    """The 1-best tree as a degenerate distribution: potential 0 on its arcs, ``-inf`` elsewhere,
    its label with probability 1 (for parsers that give no arc scores; EDPM then counts the tree)."""
    n = len(sentence)
    arcs = np.full((n + 1, n + 1), -np.inf, np.float32)
    heads = np.zeros((n, 1), np.int16)
    logp = np.full((n, 1, len(labels)), -np.inf, np.float16)
    index = {label: i for i, label in enumerate(labels)}
    for w in sentence.words:
        arcs[w.head, w.id] = 0.0
        heads[w.id - 1, 0] = w.head
        logp[w.id - 1, 0, index.get(w.deprel, index.get("dep", 0))] = 0.0
    return ArcScores(arcs, labels, heads, logp)


def cut_words(count: int) -> tuple[int, int]:
    """(words kept, words dropped) of a segment of ``count`` tokens."""
    kept = min(count, MAX_SEGMENT_WORDS)
    return kept, count - kept


def with_cut(sentence: Sentence, dropped: int) -> Sentence:
    """The sentence with a ``words_cut`` comment when words were dropped."""
    if not dropped:
        return sentence
    return Sentence(sentence.words, sentence.text, (*sentence.meta, (WORDS_CUT, str(dropped))))


@dataclass(frozen=True)
class Labels:
    """The labels a backend's models can produce, for the per-label metric variants (SP-Op(t),
    DP-Or(t), NE-Oe(t)...): XPOS tags, dependency relations (UD spelling) and entity types."""

    xpos: frozenset[str]
    relations: frozenset[str]
    entities: frozenset[str]


def bio_tags(offsets: Sequence[tuple[int, int]], spans: Iterable[tuple[int, int, str]]) -> list[str]:
    """BIO tags of tokens at character ``offsets`` for entity ``spans`` (start, stop, type)."""
    tags = ["O"] * len(offsets)
    for start, stop, label in spans:
        inside = [i for i, (a, b) in enumerate(offsets) if a < stop and b > start]
        for j, i in enumerate(inside):
            tags[i] = f"{'B' if j == 0 else 'I'}-{label}"
    return tags


def ud_relation(label: str) -> str:
    """A parser's relation label in UD spelling (spaCy writes the root ``ROOT``)."""
    return "root" if label == "ROOT" else label


def make_word(index: int, form: str, lemma: str, upos: str, xpos: str, feats: str, head: int,
              deprel: str, ner: str) -> Word:
    """A :class:`Word` with empty strings written as CoNLL-U's ``_``; a model without a
    language-specific tagset (XPOS empty) gets its UPOS as XPOS, as spaCy's fr/es models do
    themselves, so the XPOS-based measures (SP-Op, SP-pNIST) compare UPOS there."""
    xpos = xpos if xpos not in ("", "_") else upos
    return Word(index, form, lemma or "_", upos or "_", xpos or "_", feats or "_", head, deprel or "_",
                ner or "O")
