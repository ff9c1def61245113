"""Annotated segments, independent of Stanza: what every syntactic metric reads.

One segment = one :class:`Sentence` (a segment the tokenizer splits is kept as one tree: the
roots of its parts all hang from the virtual root 0). Words are 1-based as in CoNLL-U; ``head``
0 is the root. Named entities are carried per word as BIOES/BIO tags in ``ner`` (``O`` outside).

CoNLL-U round trip: :func:`parse_conllu` / :func:`to_conllu`. Multi-word tokens are not kept
(only syntactic words), since every metric works on words.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


@dataclass(frozen=True)
class Word:
    """One syntactic word (CoNLL-U columns; ``ner`` from MISC ``NER=`` when present)."""

    id: int
    form: str
    lemma: str = "_"
    upos: str = "_"
    xpos: str = "_"
    feats: str = "_"
    head: int = 0
    deprel: str = "_"
    ner: str = "O"


@dataclass(frozen=True)
class ArcScores:
    """The parser's scores for one sentence, for expected dependency counts (EDPM).

    ``arcs[h, d]``: unnormalised log-potential of head ``h`` (0 = root) for dependent ``d``
    (1..n), shape ``(n+1, n+1)``; column 0 and the diagonal are unused (``-inf``).
    ``label_heads[d-1, k]``: the ``k``-th best head of dependent ``d`` (``K`` kept per word);
    ``label_logp[d-1, k, l]``: log P(label ``labels[l]`` | arc ``label_heads[d-1, k]`` -> ``d``).
    Arcs outside the top ``K`` heads use the label distribution of the best head.
    """

    arcs: np.ndarray
    labels: tuple[str, ...]
    label_heads: np.ndarray
    label_logp: np.ndarray


@dataclass(frozen=True)
class Sentence:
    """An annotated segment: words in order, plus metadata comments (``sent_id``, ``text``).

    ``scores`` holds the parser's :class:`ArcScores` when the pipeline loaded them; ``language``
    the code of the language it was parsed as, set by the annotator (not in the CoNLL-U cache;
    '' where unknown: the layers then read it as English).
    """

    words: tuple[Word, ...]
    text: str = ""
    meta: tuple[tuple[str, str], ...] = field(default=())
    scores: ArcScores | None = field(default=None, compare=False, repr=False)
    language: str = field(default="", compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[Word]:
        return iter(self.words)

    def word(self, i: int) -> Word:
        """The word with 1-based id ``i``."""
        return self.words[i - 1]

    def children(self) -> list[list[int]]:
        """``children()[h]`` = ids of the dependents of word ``h`` (index 0 = virtual root), in order."""
        kids: list[list[int]] = [[] for _ in range(len(self.words) + 1)]
        for w in self.words:
            kids[w.head].append(w.id)
        return kids

    def heads(self) -> list[int]:
        """Head id of every word, in word order."""
        return [w.head for w in self.words]


@dataclass(frozen=True)
class Tree:
    """A phrase-structure tree node: an inner node has a label (NP, VP, ...) and children; a leaf
    is a preterminal with the word's tag as label and its 1-based ``word`` id."""

    label: str
    children: tuple[Tree, ...] = ()
    word: int | None = None

    @property
    def is_leaf(self) -> bool:
        return self.word is not None

    def leaves(self) -> list[int]:
        """Word ids under this node, left to right."""
        if self.word is not None:
            return [self.word]
        return [i for c in self.children for i in c.leaves()]


def _parse_word(line: str, path: str, lineno: int) -> Word | None:
    cols = line.split("\t")
    if len(cols) != 10:
        raise ValueError(f"{path}:{lineno}: CoNLL-U line has {len(cols)} columns, expected 10")
    if "-" in cols[0] or "." in cols[0]:
        return None  # multi-word token range or empty node
    ner = "O"
    for item in cols[9].split("|"):
        if item.startswith("NER="):
            ner = item[4:]
    head = int(cols[6]) if cols[6] != "_" else 0
    return Word(int(cols[0]), cols[1], cols[2], cols[3], cols[4], cols[5], head, cols[7], ner)


def parse_conllu(text: str, path: str = "<string>") -> list[Sentence]:
    """Parse CoNLL-U text into sentences (blank line = sentence end)."""
    sentences: list[Sentence] = []
    words: list[Word] = []
    meta: list[tuple[str, str]] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            if words or meta:
                sentences.append(_sentence(words, meta))
                words, meta = [], []
        elif line.startswith("#"):
            key, _, value = line[1:].partition("=")
            meta.append((key.strip(), value.strip()))
        else:
            word = _parse_word(line, path, lineno)
            if word is not None:
                words.append(word)
    if words or meta:
        sentences.append(_sentence(words, meta))
    return sentences


def _sentence(words: list[Word], meta: list[tuple[str, str]]) -> Sentence:
    text = next((v for k, v in meta if k == "text"), " ".join(w.form for w in words))
    return Sentence(tuple(words), text, tuple(meta))


def to_conllu(sentences: Sequence[Sentence]) -> str:
    """Write sentences as CoNLL-U (NER tags in MISC as ``NER=``)."""
    out: list[str] = []
    for s in sentences:
        keys = {k for k, _ in s.meta}
        for k, v in s.meta:
            out.append(f"# {k} = {v}")
        if "text" not in keys:
            out.append(f"# text = {s.text}")
        for w in s.words:
            misc = "_" if w.ner == "O" else f"NER={w.ner}"
            out.append("\t".join([str(w.id), w.form, w.lemma, w.upos, w.xpos, w.feats,
                                  str(w.head), w.deprel, "_", misc]))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
