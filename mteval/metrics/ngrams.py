"""N-gram counting shared by the n-gram metrics, cached per unique token sequence."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

Ngram = tuple[str, ...]


@lru_cache(maxsize=1 << 17)
def ngram_counts(tokens: tuple[str, ...], max_order: int) -> Counter[Ngram]:
    """Counts of every n-gram of orders 1..max_order (mteval's ``Words2Ngrams``). Do not mutate."""
    counts: Counter[Ngram] = Counter()
    n_tokens = len(tokens)
    for n in range(1, max_order + 1):
        counts.update(tokens[i:i + n] for i in range(n_tokens - n + 1))
    return counts


def max_counts(profiles: list[Counter[Ngram]]) -> Counter[Ngram] | dict[Ngram, int]:
    """Per n-gram, the maximum count over several references (clipping counts)."""
    if len(profiles) == 1:
        return profiles[0]
    merged: dict[Ngram, int] = {}
    for profile in profiles:
        for ngram, count in profile.items():
            if count > merged.get(ngram, 0):
                merged[ngram] = count
    return merged
