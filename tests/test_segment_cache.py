"""The bounded per-segment caches of the lexical families (issue 35: no cache grows with every segment)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.metrics.segment_cache import SegmentCache


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 40), max_size=30), max_size=12), st.integers(1, 60))
def test_values_are_computed_values_and_the_bound_holds(batches: list[list[int]], limit: int) -> None:
    cache: SegmentCache[int, int] = SegmentCache(limit)
    computed: list[int] = []

    def square(keys: list[int]) -> list[int]:
        computed.extend(keys)
        return [k * k for k in keys]

    for batch in batches:
        assert cache.many(batch, square) == [k * k for k in batch]
        assert len(cache) <= limit
        cache[-1] = 1
        assert len(cache) <= limit and cache[-1] == 1
    assert len(computed) == len(set(computed)) or limit < 42  # each key once while all fit (41 + one)


def test_oldest_keys_go_first() -> None:
    cache: SegmentCache[str, int] = SegmentCache(4)
    for k, key in enumerate("abcde"):
        cache[key] = k
    assert list(cache) == ["c", "d", "e"]  # past the bound: down to three quarters, oldest first
    assert cache.many(["e", "f"], lambda new: [len(new)] * len(new)) == [4, 1]
