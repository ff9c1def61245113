"""A segment's annotation never depends on how the work was batched (issue 16).

The same sentence must get byte-identical CoNLL-U and arc scores whatever else was parsed with
it, whatever the batch size and the number of workers. Before the fix, Stanza's batching
(padding to the batch's longest sentence, head scores normalised over the padded positions,
float reductions that depend on the batch shape and the torch thread count) changed the arc
scores of most segments; these tests fail on that code.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import numpy as np
import pytest

from mteval.annotate.annotator import Annotator
from mteval.annotate.chunking import MAX_PARSE_WORDS, MAX_SEGMENT_WORDS, split_sentence
from mteval.annotate.model import ArcScores, Sentence, to_conllu

pytestmark = pytest.mark.models

RUEN = Path(__file__).resolve().parents[1] / "data" / "wmt21-ruen-sample"


def texts() -> list[str]:
    """Two dozen real segments of varied lengths (references and a system), plus an empty one."""
    lines = (RUEN / "refs" / "A.en").read_text(encoding="utf-8").splitlines()[:16]
    system = sorted((RUEN / "sys").glob("*.en"))[0].read_text(encoding="utf-8").splitlines()[:8]
    return [*lines, *system, ""]


def fingerprint(sentence: Sentence, scores: ArcScores) -> tuple[str, bytes, bytes, bytes, tuple[str, ...]]:
    """Everything the cache stores for one segment, as bytes."""
    return (to_conllu([sentence]), scores.arcs.tobytes(), scores.label_heads.tobytes(),
            scores.label_logp.tobytes(), scores.labels)


def annotate(ann: Annotator, groups: list[list[str]]) -> dict[str, tuple]:
    """Annotate the groups in separate calls; the fingerprint of every text."""
    out = {}
    for group in groups:
        for text, sentence, scores in zip(group, ann.annotate(group), ann.arc_scores(group), strict=True):
            out[text] = fingerprint(sentence, scores)
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """All segments in one call and one batch."""
    return annotate(Annotator(tmp_path_factory.mktemp("one-batch")), [texts()])


def test_batch_composition_and_size_do_not_matter(reference: dict[str, tuple], tmp_path: Path) -> None:
    shuffled = texts()
    random.Random(7).shuffle(shuffled)
    ann = Annotator(tmp_path, batch_size=3)  # other neighbours, other order, other batch sizes
    got = annotate(ann, [shuffled[:5], shuffled[5:6], shuffled[6:]])
    assert ann.parsed == len(set(texts()))
    assert [t for t in texts() if got[t] != reference[t]] == []
    assert any(len(np.frombuffer(reference[t][1], np.float32)) > 400 for t in texts())  # real sentences


@pytest.mark.slow
def test_two_workers_give_the_same_bytes(reference: dict[str, tuple], tmp_path: Path) -> None:
    ann = Annotator(tmp_path, workers=2, batch_size=4)
    got = annotate(ann, [texts()[::-1]])
    assert len(list((tmp_path / "annotation").glob("*.keys"))) > 2  # really spread over batches
    assert [t for t in texts() if got[t] != reference[t]] == []


def test_over_long_sentences_are_parsed_in_chunks(tmp_path: Path) -> None:
    """A text without spaces is one whitespace word but thousands of tokens: parsed in chunks."""
    words = 2 * MAX_PARSE_WORDS + 50
    text = ",".join(["word"] * (words // 2 + 1))  # word,word,... -> about `words` tokens
    ann = Annotator(tmp_path)
    (sentence,) = ann.annotate([text])
    (scores,) = ann.arc_scores([text])
    n = len(sentence)
    assert n > 2 * MAX_PARSE_WORDS and scores.arcs.shape == (n + 1, n + 1)
    roots = [w.id for w in sentence if w.head == 0]
    assert len(roots) == 3  # ceil(n / MAX_PARSE_WORDS) chunks, one tree each under the root
    entries = [{"id": i, "text": w.form} for i, w in enumerate(sentence, start=1)]
    chunk_starts = np.cumsum([0] + [len(c) for c in split_sentence(entries)])[:-1] + 1
    for start, end in zip(chunk_starts, [*chunk_starts[1:], n + 1], strict=True):
        block = [w for w in sentence if start <= w.id < end]
        assert all(w.head == 0 or start <= w.head < end for w in block)  # no arc leaves its chunk
        assert np.isneginf(scores.arcs[1:start, start:end]).all()  # block-diagonal arc scores


def test_a_segment_is_cut_after_the_word_cap(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    text = "word," * 3000  # 15,000 characters, no space: cut to 5,000 characters, then 1,000 words
    with caplog.at_level(logging.WARNING, logger="mteval"):
        ann = Annotator(tmp_path)
        (sentence,) = ann.annotate([text])
        (scores,) = ann.arc_scores([text])
    assert len(sentence) == MAX_SEGMENT_WORDS and scores.arcs.shape == (MAX_SEGMENT_WORDS + 1,) * 2
    assert ("words_cut", str(2 * 5000 // 5 - MAX_SEGMENT_WORDS)) in sentence.meta
    assert "5000 characters" in caplog.text and f"more than {MAX_SEGMENT_WORDS} words after tokenization" in caplog.text
    assert Annotator(tmp_path).annotate([text]) == [sentence]  # the comment survives the cache
