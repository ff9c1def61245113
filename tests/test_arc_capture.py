"""ArcRecorder lookup: the parser sees some word forms normalised (``!!!`` -> ``!``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from mteval.annotate.arc_capture import ArcRecorder
from mteval.annotate.model import ArcScores


def scores(tag: float) -> ArcScores:
    return ArcScores(np.full((2, 2), tag, np.float32), ("root",), np.zeros((1, 1), np.int16),
                     np.zeros((1, 1, 1), np.float16))


def recorder() -> ArcRecorder:
    model = SimpleNamespace(predict=lambda *a, **k: None, decode_graph_predictions=lambda *a, **k: None)
    rec = ArcRecorder(model, ("root",))
    rec.scores = {("Look", "what", "you", "buy", "!", "-", "Nadezhda", "shared", "."): scores(1.0),
                  ("A", "different", "sentence", "of", "the", "same", "length", "here", "."): scores(2.0)}
    return rec


def test_exact_and_normalised_forms() -> None:
    rec = recorder()
    words = ["Look", "what", "you", "buy", "!!!", "-", "Nadezhda", "shared", "."]
    assert rec.get(words) is not None and rec.get(words).arcs[0, 0] == 1.0  # type: ignore[union-attr]
    assert rec.get(["A", "different", "sentence", "of", "the", "same", "length", "here", "."]).arcs[0, 0] == 2.0  # type: ignore[union-attr]


def test_no_match_for_other_sentences() -> None:
    rec = recorder()
    assert rec.get(["Completely", "other", "words", "in", "a", "sentence", "of", "nine", "!"]) is None
    assert rec.get(["Look", "what", "you", "buy"]) is None  # other length


def test_the_parser_forms_find_a_short_sentence_with_several_simplified_marks() -> None:
    rec = recorder()
    rec.scores[("Wow", "!", "Really", "?")] = scores(3.0)
    words = ["Wow", "!!!", "Really", "???"]
    assert rec.get(words) is None  # two of four words differ: too far for the nearest-match step
    assert rec.get(words, ("Wow", "!", "Really", "?")).arcs[0, 0] == 3.0  # type: ignore[union-attr]
    assert rec.get(words, ("Wow", "!", "Really", ".")) is None
