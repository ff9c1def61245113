"""The embedded Stanza models through the Annotator (marked ``models``: loads torch)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import cache_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteval.annotate.annotator import Annotator
from mteval.annotate.layers.entities import entities

pytestmark = pytest.mark.models

UNAMBIGUOUS = "The committee didn't approve the new system."


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("anncache")


@pytest.fixture(scope="module")
def annotator(cache_dir: Path) -> Annotator:
    return Annotator(cache_dir)


def test_unambiguous_sentence_tokens_heads_labels(annotator: Annotator) -> None:
    (s,) = annotator.annotate([UNAMBIGUOUS])
    assert [w.form for w in s] == ["The", "committee", "did", "n't", "approve", "the", "new", "system", "."]
    assert s.heads() == [2, 5, 5, 5, 0, 8, 8, 5, 5]
    assert [w.deprel for w in s] == ["det", "nsubj", "aux", "advmod", "root", "det", "amod", "obj", "punct"]
    assert [w.upos for w in s][:5] == ["DET", "NOUN", "AUX", "PART", "VERB"]
    assert s.word(3).lemma == "do" and s.word(4).lemma == "not"


def test_arc_scores_agree_with_the_tree(annotator: Annotator) -> None:
    (s,) = annotator.annotate_with_scores([UNAMBIGUOUS])
    a = s.scores
    assert a is not None and a.arcs.shape == (10, 10) and a.label_heads.shape == (9, 4)
    assert np.isneginf(a.arcs[:, 0]).all() and np.isneginf(np.diag(a.arcs)).all()
    assert list(a.label_heads[:, 0]) == s.heads()  # the 1-best tree = the best head of each word here
    best = [a.labels[int(np.argmax(a.label_logp[d, 0]))] for d in range(len(s))]
    assert best == [w.deprel for w in s]
    np.testing.assert_allclose(np.exp(a.label_logp.astype(np.float64)).sum(-1), 1.0, atol=0.02)


def test_marks_the_parser_simplifies_keep_their_arc_scores(annotator: Annotator) -> None:
    """Stanza's parser sees ``!!!`` as ``!``; a short segment with two such marks got no arc scores
    until 2026-11-28 (EDPM stopped: "the parser gave no arc scores")."""
    texts = ["Wow!!! Really???", "Help!!! Now!!! Please!!!", "What?!? Are you sure???"]
    for s in annotator.annotate_with_scores(texts):
        assert s.scores is not None and s.scores.arcs.shape == (len(s) + 1, len(s) + 1), s.text
        assert s.scores.label_heads.shape[0] == len(s)


WORDS = ["Wow", "really", "the", "cat", "sat", "Mr.", "U.S.", "don't", "I'm", "e-mail", "...", "--", "—", "«", "»",
         "\"", "'", "(", ")", ":", ";", ",", ".", "!", "?", "😀", "12,000", "3.5", "%", "€", "http://x.org/a?b=c",
         "@user", "#tag", "Москва", "日本", "naïve", "cafe\u0301", "ﬁne", "½", "&", "/", "*", "…", "‼", "⁇"]
MARKS = ["!!!", "???", "?!", "!?", "!!", "??", "?!?", "!!!!!!"]  # runs Stanza's parser sees as one mark


@pytest.mark.slow  # ~10 s
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(WORDS) | st.sampled_from(MARKS), min_size=1, max_size=12),
                min_size=1, max_size=6), st.sampled_from([" ", ""]))
def test_every_segment_gets_arc_scores_over_its_tree(annotator: Annotator, segments: list[list[str]],
                                                      glue: str) -> None:
    """Whatever its words and marks, a segment's arc scores cover its words and its own tree (the
    short path of ``Wow!!! Really???`` had none until 2026-11-28: found by this test's strategy as
    ``!!! !!!``)."""
    texts = [t for t in (glue.join(words) for words in segments) if t.strip()]
    for text, s in zip(texts, annotator.annotate_with_scores(texts), strict=True):
        assert s.scores is not None and s.scores.arcs.shape == (len(s) + 1, len(s) + 1), text
        assert all(np.isfinite(s.scores.arcs[h, d]) for d, h in enumerate(s.heads(), start=1)), text


def test_segments_are_never_split_and_order_is_kept(annotator: Annotator) -> None:
    texts = ["Hello world. This is one segment! Really.", "", UNAMBIGUOUS, "Hello world. This is one segment! Really."]
    out = annotator.annotate(texts)
    assert len(out) == 4 and out[0] == out[3] and len(out[1]) == 0
    assert sum(w.head == 0 for w in out[0]) >= 1 and len(out[0]) == 10
    assert [w.form for w in out[2]][2:4] == ["did", "n't"]


def test_bad_segments_do_not_crash(annotator: Annotator, caplog: pytest.LogCaptureFixture) -> None:
    long = " ".join(["word"] * 1000)
    with caplog.at_level(logging.WARNING):
        out = annotator.annotate(["", "   ", "bad\x00 con\x1btrol chars", long])
    assert len(out[0]) == 0 and len(out[1]) == 0
    assert [w.form for w in out[2]] == ["bad", "control", "chars"]
    assert len(out[3]) == 250
    assert "control characters" in caplog.text and "longer than 250 words or 5000 characters were cut" in caplog.text
    scores = annotator.arc_scores(["", long])
    assert scores[0].arcs.shape == (1, 1) and scores[1].arcs.shape == (251, 251)


def test_warm_rerun_parses_nothing(annotator: Annotator, cache_dir: Path) -> None:
    texts = [UNAMBIGUOUS, "A second, different segment."]
    cold = annotator.annotate(texts)
    warm = Annotator(cache_dir)
    assert warm.annotate(texts) == cold and warm.arc_scores(texts)[0].arcs.shape == (10, 10)
    assert warm.parsed == 0 and warm._parser is None
    assert warm.identity() == annotator.identity() and "embedded" in warm.identity()


def test_lexical_import_does_not_load_torch() -> None:
    import subprocess

    code = "import mteval.annotate.annotator, sys; print('torch' in sys.modules, 'stanza' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_cold_run_keeps_order_with_duplicates_and_empties(tmp_path: Path) -> None:
    texts = ["Dogs bark.", "", "Cats sleep.", "Dogs bark.", " ", "I didn't go."]
    out = Annotator(tmp_path, batch_size=2).annotate(texts)
    assert [" ".join(w.form for w in s) for s in out] == [
        "Dogs bark .", "", "Cats sleep .", "Dogs bark .", "", "I did n't go ."]


@pytest.mark.slow
def test_parallel_workers_give_the_same_annotation(tmp_path: Path) -> None:
    texts = ["Dogs bark.", "", "Cats sleep on mats.", "I didn't go.", "Hello there, friend."]
    one = Annotator(tmp_path / "one").annotate(texts)
    two = Annotator(tmp_path / "two", workers=2)
    assert two.annotate(texts) == one and two.parsed == 5
    # the same shards as one worker's (batches parsed in two processes, committed as one shard);
    # names without the sequence number, which counts the shards this process wrote
    def shards(folder: Path) -> list[tuple[str, bytes]]:
        return sorted((name.split("-")[-1], data) for name, data in cache_tree(folder).items())

    assert shards(tmp_path / "two") == shards(tmp_path / "one")


def test_shipped_ner_model_tags_entities(annotator: Annotator) -> None:
    assert "|proc:tokenize,mwt,pos,lemma,depparse,ner|" in annotator.identity() and "ner=" in annotator.identity()
    (s,) = annotator.annotate(["John Smith visited London yesterday."])
    assert [w.ner for w in s] == ["B-PER", "I-PER", "O", "B-LOC", "O", "O"]
    (s,) = annotator.annotate(["I work for Microsoft in Seattle."])  # (a small model: held-out F1 ~69)
    assert [(e.type, e.start, e.end) for e in entities(s)] == [("ORG", 4, 4), ("LOC", 6, 6)]


def test_ner_can_be_left_out(tmp_path: Path) -> None:
    ann = Annotator(tmp_path, processors="tokenize,mwt,pos,lemma,depparse")
    assert "ner=" not in ann.identity()
    (s,) = ann.annotate(["John Smith visited London yesterday."])
    assert {w.ner for w in s} == {"O"}
