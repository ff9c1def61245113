"""Per-run caches of per-segment (or per-pair) values with a bound (issue 35: no cache that grows with
every distinct segment of a run).

A family that meets the same segment again (a hypothesis scored against several reference sets, a
reference scored as a target, a pair met again in a multi-reference set) computes its value once
while it is among the last ``limit`` distinct keys it saw; older ones are dropped, first in, first
out, a quarter of the bound at a time, so memory stays bounded on a campaign of any size and a key
met again after that is computed again (the same value: a cache never changes a number).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import islice
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

SEGMENT_CACHE_LIMIT = 1 << 16  # distinct segments kept (a WMT test set with its systems and references)
PAIR_CACHE_LIMIT = 1 << 17  # distinct (hypothesis, reference) pairs kept (METEOR: 4 times as many)


class SegmentCache(dict[K, V]):
    """A dict of at most about ``limit`` keys: setting one past the bound drops the oldest quarter
    (lookups are plain dict lookups; only ``cache[key] = value`` and :meth:`many` add keys)."""

    def __init__(self, limit: int = SEGMENT_CACHE_LIMIT) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        if len(self) > self.limit:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest keys down to three quarters of the bound (one pass over the front; the
        newest key stays)."""
        for key in list(islice(self, len(self) - max(self.limit * 3 // 4, 1))):
            del self[key]

    def many(self, keys: Sequence[K], compute: Callable[[list[K]], Iterable[V]]) -> list[V]:
        """The value of every key, ``compute`` called once on the distinct keys not kept."""
        new = [key for key in dict.fromkeys(keys) if key not in self]
        if new:
            self.update(zip(new, compute(new), strict=True))
        values = list(map(self.__getitem__, keys))
        if len(self) > self.limit:
            self._trim()
        return values
