"""Bounds on what the parser sees: chunks of over-long sentences, the per-segment word cap."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mteval.annotate.chunking import bound, split_sentence
from mteval.annotate.textprep import max_chars, prepare_text


def sentence(token_sizes: list[int]) -> list[dict[str, Any]]:
    """Stanza's to_dict form: single-word tokens (size 1) and multi-word tokens (size > 1)."""
    entries: list[dict[str, Any]] = []
    word = 1
    for t, size in enumerate(token_sizes):
        if size > 1:
            entries.append({"id": (word, word + size - 1), "text": f"t{t}"})
        entries.extend({"id": word + j, "text": f"t{t}w{j}"} for j in range(size))
        word += size
    return entries


def words(entries: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in entries if isinstance(e["id"], int)]


@given(st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=1, max_size=300), st.integers(2, 60))
def test_chunks_are_bounded_consecutive_and_renumbered(sizes: list[int], max_words: int) -> None:
    entries = sentence(sizes)
    chunks = split_sentence(entries, max_words)
    assert [w for c in chunks for w in words(c)] == words(entries)  # nothing lost, order kept
    for chunk in chunks:
        ids = [e["id"] for e in chunk if isinstance(e["id"], int)]
        assert ids == list(range(1, len(ids) + 1)) and len(ids) <= max(max_words, *sizes)
        for i, e in enumerate(chunk):  # a multi-word token is never split from its words
            if isinstance(e["id"], tuple):
                first, last = e["id"]
                assert [x["id"] for x in chunk[i + 1: i + 2 + last - first]] == list(range(first, last + 1))
    total = len(words(entries))
    assert len(chunks) == 1 if total <= max_words else len(chunks) >= -(-total // max(max_words, *sizes))


def test_ordinary_sentences_are_untouched() -> None:
    assert bound([sentence([1, 2, 1] * 30)], max_words=400, max_total=1000) == (None, 0)


def test_even_chunks_and_a_cut_segment() -> None:
    chunks, dropped = bound([sentence([1] * 1000)], max_words=400, max_total=10_000)
    assert [len(c) for c in chunks or []] == [334, 334, 332] and dropped == 0
    chunks, dropped = bound([sentence([1] * 30), sentence([1] * 30)], max_words=400, max_total=40)
    assert [len(words(c)) for c in chunks or []] == [30, 10] and dropped == 20


def test_text_without_spaces_is_capped_in_characters() -> None:
    p = prepare_text("word," * 3000, max_words=250)
    assert p.truncated and len(p.text) == max_chars(250)
    p = prepare_text("abcd " * 1100, max_words=1000)
    assert p.truncated and len(p.text) <= max_chars(1000) and p.text.endswith("abcd")
    assert not prepare_text("a normal sentence .").truncated
