"""Named-entity tagging of parsed sentences with a feature-rich linear-chain model.

The embedded English NER model (``mteval/resources/models/en_ewt/ner.npz``) is an averaged
structured perceptron (Collins 2002, "Discriminative training methods for hidden Markov models")
over BIO tags, decoded with Viterbi under the BIO constraint (``I-T`` only after ``B-T``/``I-T``).
It reads what the parser already produced - form, UPOS, XPOS, relation and head of every word,
in a window of two words either side - plus a lexicon of word statistics from UD English-EWT
train (how often a lower-cased form occurs, is a proper noun, is capitalised mid-sentence).
With only ~1,650 training entities (Universal NER on EWT, no pretrained vectors available
offline) this beats a neural Stanza NER model trained on the same data; see docs/annotation.md
for the measurements. Training lives in :mod:`mteval.annotate.entity_training`.

The model file is a plain ``.npz`` (no pickle): ``labels``, ``features`` (the feature strings,
UTF-8, newline-separated, as uint8), ``weights`` ``(F, L)``, ``transitions`` ``(L + 1, L)``
(last row: sentence start), the lexicon (``lexicon_words``, ``lexicon_stats``), the gazetteer
(``entry<TAB>categories`` lines) and ``meta`` (JSON: how the model was trained and scored).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from mteval.annotate.model import Sentence, Word

WINDOW = 2  # context words either side
OFFSETS = tuple(k for k in range(-WINDOW, WINDOW + 1) if k)  # -2, -1, 1, 2


def _char_class(char: str) -> str:
    return "X" if char.isupper() else "x" if char.isalpha() else "d" if char.isdigit() else "-"


@lru_cache(maxsize=1 << 16)
def word_shape(form: str) -> str:
    """``McDonald`` -> ``XxXx`` (runs of character classes collapsed), ``2009`` -> ``d``."""
    shape = [_char_class(c) for c in form]
    return "".join(c for i, c in enumerate(shape) if i == 0 or c != shape[i - 1])[:6]


def _bucket(ratio: float) -> str:
    """Coarse bucket of a ratio in [0, 1]: ``0``, ``lo``, ``mid``, ``hi``, ``1``."""
    if ratio <= 0.0:
        return "0"
    if ratio >= 1.0:
        return "1"
    return "lo" if ratio < 0.3 else "mid" if ratio < 0.7 else "hi"


@dataclass(frozen=True)
class Lexicon:
    """Per lower-cased form: ``(count, proper-noun count, mid-sentence capitalised count)``."""

    stats: Mapping[str, tuple[int, int, int]]

    def features(self, form: str) -> list[str]:
        """Frequency and proper-noun/capitalisation ratio buckets of ``form``."""
        entry = self.stats.get(form.lower())
        if entry is None:
            return ["lex=unseen"]
        count, propn, caps = entry
        freq = "rare" if count < 3 else "some" if count < 30 else "freq"
        return [f"lex={freq}", f"lexP={_bucket(propn / count)}", f"lexC={_bucket(caps / count)}"]


GAZETTEER_SPAN = 4  # longest gazetteer entry, in words


@dataclass(frozen=True)
class Gazetteer:
    """Lower-cased name lists: entry (words joined by one space) -> categories (``city``, ...)."""

    entries: Mapping[str, tuple[str, ...]]

    def word_features(self, words: Sequence[Word]) -> list[list[str]]:
        """Per word ``gz=<category>|B`` / ``|I`` from the longest entry covering it, per category."""
        low = [w.form.lower() for w in words]
        marks: list[dict[str, str]] = [{} for _ in words]
        for i in range(len(low)):
            for size in range(min(GAZETTEER_SPAN, len(low) - i), 0, -1):
                for cat in self.entries.get(" ".join(low[i:i + size]), ()):
                    if cat not in marks[i]:
                        for j in range(i, i + size):
                            marks[j].setdefault(cat, "B" if j == i else "I")
        return [[f"gz={c}|{m}" for c, m in sorted(mk.items())] for mk in marks]


NO_GAZETTEER = Gazetteer({})


class FeatureExtractor:
    """The feature strings of the words of a sentence, with the word-local parts memoised."""

    CACHE_LIMIT = 200_000  # entries per memo (cleared when exceeded)

    def __init__(self, lexicon: Lexicon, gazetteer: Gazetteer = NO_GAZETTEER) -> None:
        self.lexicon = lexicon
        self.gazetteer = gazetteer
        self._local: dict[tuple[str, str, str], list[str]] = {}
        self._context: dict[tuple[str, str, str, int], list[str]] = {}

    def _own(self, form: str, upos: str, xpos: str) -> list[str]:
        """A word's features on its own (used, prefixed, for its neighbours too)."""
        shape = word_shape(form)
        return [f"w={form.lower()}", f"sh={shape}", f"p={upos}", f"x={xpos}", f"x|sh={xpos}|{shape}",
                *self.lexicon.features(form)]

    def local(self, word: Word) -> list[str]:
        """Affixes and own features of ``word`` (memoised by form and tags)."""
        key = (word.form, word.upos, word.xpos)
        found = self._local.get(key)
        if found is None:
            if len(self._local) > self.CACHE_LIMIT:
                self._local.clear()
            low = word.form.lower()
            found = self._local[key] = [*(f"pre={low[:k]}" for k in (1, 2, 3)),
                                        *(f"suf={low[-k:]}" for k in (1, 2, 3, 4)), *self._own(*key)]
        return found

    def context(self, word: Word, offset: int) -> list[str]:
        """``word``'s first four own features as seen from ``offset`` words away (memoised)."""
        key = (word.form, word.upos, word.xpos, offset)
        found = self._context.get(key)
        if found is None:
            if len(self._context) > self.CACHE_LIMIT:
                self._context.clear()
            found = self._context[key] = [f"{offset}:{f}" for f in self._own(*key[:3])[:4]]
        return found

    def sentence(self, words: Sequence[Word]) -> list[list[str]]:
        """The feature strings of every word (window of ``WINDOW`` words either side)."""
        gaz = self.gazetteer.word_features(words)
        n = len(words)
        out: list[list[str]] = []
        for i, word in enumerate(words):
            low = word.form.lower()
            head = words[word.head - 1] if 0 < word.head <= n else None
            feats = ["bias", f"W={word.form}", f"d={word.deprel}", f"first={i == 0}|{word_shape(word.form)[:1]}",
                     f"hd={word.deprel}|{head.upos if head else 'ROOT'}",
                     f"hw={head.form.lower() if head else 'ROOT'}", *self.local(word), *gaz[i]]
            for off in OFFSETS:
                j = i + off
                if 0 <= j < n:
                    feats += self.context(words[j], off)
                    feats += [f"{off}:{g}" for g in gaz[j]]
                else:
                    feats.append(f"{off}:pad")
            prev = words[i - 1].form.lower() if i else "<s>"
            nxt = words[i + 1].form.lower() if i + 1 < n else "</s>"
            feats += [f"bi-={prev}|{low}", f"bi+={low}|{nxt}"]
            out.append(list(dict.fromkeys(feats)))  # each feature once (short words repeat prefixes)
        return out


def sentence_features(words: Sequence[Word], lexicon: Lexicon,
                      gazetteer: Gazetteer = NO_GAZETTEER) -> list[list[str]]:
    """The feature strings of every word of a sentence (see :class:`FeatureExtractor`)."""
    return FeatureExtractor(lexicon, gazetteer).sentence(words)


def bio_allowed(labels: Sequence[str]) -> np.ndarray:
    """``allowed[a, b]``: may tag ``b`` follow tag ``a``; row ``len(labels)`` is the start."""
    size = len(labels)
    allowed = np.ones((size + 1, size), dtype=bool)
    for b, tag in enumerate(labels):
        if tag.startswith("I-"):
            allowed[:, b] = False
            for a, prev in enumerate(labels):
                allowed[a, b] = prev[2:] == tag[2:] and prev[:2] in ("B-", "I-")
    return allowed


def viterbi(emissions: np.ndarray, transitions: np.ndarray, allowed: np.ndarray) -> list[int]:
    """Best label sequence for ``emissions`` ``(n, L)`` under ``transitions`` ``(L + 1, L)``."""
    n, size = emissions.shape
    if n == 0:
        return []
    trans = np.where(allowed, transitions, -np.inf)
    score = trans[size] + emissions[0]
    back = np.zeros((n, size), dtype=np.int64)
    for i in range(1, n):
        cand = score[:, None] + trans[:size]
        back[i] = cand.argmax(axis=0)
        score = cand[back[i], np.arange(size)] + emissions[i]
    best = [int(score.argmax())]
    for i in range(n - 1, 0, -1):
        best.append(int(back[i, best[-1]]))
    return best[::-1]


class EntityTagger:
    """A trained model: feature index, weights, transitions, lexicon (see the module docstring)."""

    def __init__(self, labels: Sequence[str], features: Mapping[str, int], weights: np.ndarray,
                 transitions: np.ndarray, lexicon: Lexicon, gazetteer: Gazetteer = NO_GAZETTEER,
                 meta: Mapping[str, object] | None = None) -> None:
        self.labels = tuple(labels)
        self.features = dict(features)
        self.weights = weights
        self.transitions = transitions
        self.lexicon = lexicon
        self.gazetteer = gazetteer
        self.meta = dict(meta or {})  # how it was trained (data, passes, held-out scores)
        self.extractor = FeatureExtractor(lexicon, gazetteer)
        # for tagging: the weights plus a zero row that every unknown feature maps to (the trainer
        # updates ``weights`` in place and scores through :meth:`emissions` instead)
        self._tagging_weights = np.vstack([weights, np.zeros((1, weights.shape[1]))])
        self.allowed = bio_allowed(self.labels)

    def emissions(self, ids: Sequence[np.ndarray]) -> np.ndarray:
        """``(n, L)`` label scores of the words whose (known) feature ids are ``ids`` (training)."""
        ends = np.cumsum([len(row) for row in ids], dtype=np.int64)
        if not len(ids) or not ends[-1]:
            return np.zeros((len(ids), len(self.labels)))
        totals = np.zeros((int(ends[-1]) + 1, len(self.labels)))
        np.cumsum(self.weights[np.concatenate(ids)], axis=0, out=totals[1:])
        return totals[ends] - totals[np.concatenate(([0], ends[:-1]))]

    def _tagging_emissions(self, words: Sequence[Word]) -> np.ndarray:
        """:meth:`emissions` of ``words``, with one dictionary pass over all their features."""
        feats = self.extractor.sentence(words)
        get, unknown = self.features.get, len(self.features)
        ids = np.fromiter((get(f, unknown) for word in feats for f in word), dtype=np.int64)
        ends = np.cumsum([len(word) for word in feats], dtype=np.int64)
        totals = np.zeros((len(ids) + 1, len(self.labels)))
        np.cumsum(self._tagging_weights[ids], axis=0, out=totals[1:])
        return totals[ends] - totals[np.concatenate(([0], ends[:-1]))]

    def tag_words(self, words: Sequence[Word]) -> list[str]:
        """The BIO tag of every word."""
        if not words:
            return []
        path = viterbi(self._tagging_emissions(words), self.transitions, self.allowed)
        return [self.labels[k] for k in path]

    def tag(self, sentence: Sentence) -> Sentence:
        """``sentence`` with every word's ``ner`` set."""
        tags = self.tag_words(sentence.words)
        return replace(sentence, words=tuple(replace(w, ner=t) for w, t in zip(sentence.words, tags, strict=True)))

    def save(self, path: Path) -> None:
        """Write the model as an ``.npz`` (no pickled objects); the caller renames it into place."""
        names = sorted(self.features, key=self.features.__getitem__)
        lex_words = sorted(self.lexicon.stats)
        gazetteer = [f"{e}\t{','.join(c)}" for e, c in sorted(self.gazetteer.entries.items())]
        with open(path, "wb") as fh:
            np.savez_compressed(
                fh, labels=_blob(self.labels), features=_blob(names), gazetteer=_blob(gazetteer),
                meta=_blob([json.dumps(self.meta, sort_keys=True)]),
                weights=self.weights.astype(np.float32), transitions=self.transitions.astype(np.float32),
                lexicon_words=_blob(lex_words),
                lexicon_stats=np.array([self.lexicon.stats[w] for w in lex_words], dtype=np.int32).reshape(-1, 3))

    @staticmethod
    def label_names(path: Path) -> tuple[str, ...]:
        """The BIO tags of a model written by :meth:`save`, read without the rest of it."""
        with np.load(path, allow_pickle=False) as data:
            raw = data["labels"].tobytes().decode()
        return tuple(raw.split("\n")) if raw else ()

    @classmethod
    def load(cls, path: Path) -> EntityTagger:
        """Read a model written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as data:
            def strings(key: str) -> list[str]:
                raw = data[key].tobytes().decode()
                return raw.split("\n") if raw else []

            names = strings("features")
            stats = {w: (int(a), int(b), int(c)) for w, (a, b, c) in zip(strings("lexicon_words"),
                                                                        data["lexicon_stats"], strict=True)}
            gazetteer = dict(line.split("\t") for line in strings("gazetteer"))
            return cls(strings("labels"), {f: i for i, f in enumerate(names)}, data["weights"].astype(np.float64),
                       data["transitions"].astype(np.float64), Lexicon(stats),
                       Gazetteer({e: tuple(c.split(",")) for e, c in gazetteer.items()}),
                       json.loads(strings("meta")[0]) if "meta" in data else {})


def _blob(lines: Sequence[str]) -> np.ndarray:
    """Strings as one newline-joined UTF-8 byte array (``.npz`` without pickled objects)."""
    return np.frombuffer("\n".join(lines).encode(), dtype=np.uint8)
