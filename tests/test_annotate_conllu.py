"""CoNLL-U round trip of the annotation data model, and the cache's shard files (no models)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mteval.annotate.conllu_cache import AnnotationCache, cache_key
from mteval.annotate.model import ArcScores, Sentence, Word, parse_conllu, to_conllu

HAND = """# sent_id = s1
# text = The cat didn't sleep.
1	The	the	DET	DT	Definite=Def|PronType=Art	2	det	_	_
2	cat	cat	NOUN	NN	Number=Sing	5	nsubj	_	NER=S-PER
3-4	didn't	_	_	_	_	_	_	_	_
3	did	do	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	5	aux	_	_
4	n't	not	PART	RB	_	5	advmod	_	_
5	sleep	sleep	VERB	VB	VerbForm=Inf	0	root	_	_
6	.	.	PUNCT	.	_	5	punct	_	_

# text =

"""


def test_hand_written_conllu_round_trip() -> None:
    sents = parse_conllu(HAND)
    assert len(sents) == 2
    s = sents[0]
    assert [w.form for w in s] == ["The", "cat", "did", "n't", "sleep", "."]
    assert s.heads() == [2, 5, 5, 5, 0, 5]
    assert s.word(2) == Word(2, "cat", "cat", "NOUN", "NN", "Number=Sing", 5, "nsubj", "S-PER")
    assert s.text == "The cat didn't sleep."
    assert len(sents[1]) == 0 and sents[1].text == ""
    assert parse_conllu(to_conllu(sents)) == sents


def _arcs(n: int, labels: tuple[str, ...]) -> ArcScores:
    rng = np.random.default_rng(n)
    arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
    arcs[:, 0] = -np.inf
    return ArcScores(arcs, labels, rng.integers(0, n + 1, size=(n, 2)).astype(np.int16),
                     rng.normal(size=(n, 2, len(labels))).astype(np.float16))


def test_cache_shards_round_trip_and_commit_marker(tmp_path: Path) -> None:
    sents = parse_conllu(HAND)
    keys = [cache_key(s.text, "en", "id", "tokenize") for s in sents]
    scores = [_arcs(6, ("det", "nsubj", "root")), None]
    AnnotationCache(tmp_path).add(keys, sents, scores)
    warm = AnnotationCache(tmp_path)
    assert len(warm) == 2
    assert [warm.sentences(keys)[k] for k in keys] == sents
    got = warm.arc_scores(keys)
    assert list(got) == [keys[0]]
    np.testing.assert_array_equal(got[keys[0]].arcs, scores[0].arcs)
    np.testing.assert_array_equal(got[keys[0]].label_logp, scores[0].label_logp)
    assert got[keys[0]].labels == ("det", "nsubj", "root")


def test_cache_ignores_uncommitted_and_damaged_shards(tmp_path: Path) -> None:
    sents = [Sentence((Word(1, "Hi", head=0, deprel="root"),), "Hi")]
    cache = AnnotationCache(tmp_path)
    cache.add(["k1"], sents, [None])
    root = tmp_path / "annotation"
    (root / "zz-interrupted.conllu").write_text(to_conllu(sents))  # no .keys: never committed
    (root / "zz-bad.keys").write_text("{not json")
    (root / "zz-orphan.keys").write_text(json.dumps(["k9"]))  # .conllu missing
    warm = AnnotationCache(tmp_path)
    assert set(warm.index) == {"k1"}


def test_cache_key_depends_on_every_part() -> None:
    base = cache_key("a", "en", "m", "p")
    assert len({base, cache_key("b", "en", "m", "p"), cache_key("a", "de", "m", "p"),
                cache_key("a", "en", "n", "p"), cache_key("a", "en", "m", "q")}) == 5


def test_unwritable_cache_is_a_cache_error(tmp_path: Path) -> None:
    import pytest

    from mteval.errors import CacheError

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(CacheError, match="annotation cache"):
        AnnotationCache(blocker)
