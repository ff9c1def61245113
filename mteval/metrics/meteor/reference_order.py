"""The order in which the Meteor jar tries a segment's references (it keeps the first best one).

With several references, Meteor scores a segment against each and keeps the statistics of the first
one with the highest score (``MeteorScorer.getMeteorStats``: ``if (stats.score > best.score)``).
Equal scores from different statistics (e.g. 3 of 4 words matched in either reference, with other
lengths or chunks) are common, and the system score sums the kept statistics, so the order decides
the system and document scores. In ``-sgml`` mode (Asiya's invocation) the jar gathers a segment's
references by iterating a ``java.util.Hashtable`` keyed by reference id (``SGMData.refData``), and
Asiya's reference id is the reference's name: the order is that Hashtable's, not the file's.

:func:`meteor_reference_order` reproduces it: Java's ``String.hashCode`` over UTF-16 code units,
a table of 11 buckets that grows to ``2n + 1`` when it holds 8 (load factor 0.75), a new entry at
the head of its bucket, iteration from the last bucket to the first (OpenJDK ``Hashtable``:
``addEntry``, ``rehash``, ``Enumerator``). Checked against Java's own ``Hashtable`` on random
names and against the jar on generated segments (``tests/test_meteor_reference_order.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

_INITIAL_CAPACITY = 11
_LOAD_FACTOR = 0.75


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as a 32-bit int."""
    value = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        value = (31 * value + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _bucket(key: str, capacity: int) -> int:
    return (java_string_hash(key) & 0x7FFFFFFF) % capacity


def java_hashtable_order(keys: Sequence[str]) -> list[str]:
    """The keys of a ``java.util.Hashtable()`` filled with ``keys`` (in this order, no duplicates),
    in its ``keySet()`` iteration order."""
    capacity, threshold = _INITIAL_CAPACITY, int(_INITIAL_CAPACITY * _LOAD_FACTOR)
    table: list[list[str]] = [[] for _ in range(capacity)]  # each bucket's chain, head first
    for count, key in enumerate(keys):
        if count >= threshold:  # rehash: old buckets from the last, each chain from its head
            capacity = 2 * capacity + 1
            threshold = int(capacity * _LOAD_FACTOR)
            grown: list[list[str]] = [[] for _ in range(capacity)]
            for chain in reversed(table):
                for old in chain:
                    grown[_bucket(old, capacity)].insert(0, old)
            table = grown
        table[_bucket(key, capacity)].insert(0, key)
    return [key for chain in reversed(table) for key in chain]


def meteor_reference_order(names: Sequence[str]) -> list[int]:
    """Indices of the references ``names`` in the order the Meteor jar tries them."""
    position = {name: i for i, name in enumerate(names)}
    if len(position) != len(names):
        return list(range(len(names)))  # unnamed/duplicate names: the given order
    return [position[name] for name in java_hashtable_order(names)]
