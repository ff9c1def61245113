"""Annotated texts travel to workers once, not once per work unit (``docs/scaling.md``).

A unit of a syntactic family carries its reference set and its targets with their parses
(EDPM: the parser's arc-score tensors as well); pickled with every unit, the parent spent more
CPU pickling than the workers spent scoring (issue 12). Instead, :func:`ship` swaps every
annotated :class:`~mteval.metrics.base.Side` of a unit for a :class:`Shipped` placeholder (its
key); the side itself is handed over once:

* local pool: the parent pickles it once into a spill file (:class:`SpillFolder`, a hidden
  folder in the score cache, removed at the end of the run); a worker reads a file the first
  time a unit needs it;
* Dask: the client scatters it once (a future), pickled (:class:`PackedSide`: bytes, which Dask
  moves without looking inside; a worker unpickles it as a spilled side, with the collector off);
  Dask copies it to the other workers that need it
  and keeps it there until the last unit needing it is done; if the worker holding it dies, the
  client scatters it again and resubmits the tasks that lost it (``mteval.setup.dask_engine``).

A worker keeps the sides it has loaded in a :class:`SideStore`: every reference set it has
used (units of a family reuse them) and the last few targets, so its memory is bounded by the
reference sets, as the single-process run's is. Plain-text sides (lexical families) stay in
the units: they are small, and pickling them costs little.
"""

from __future__ import annotations

import gc
import pickle
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Union

from mteval.metrics.base import Side
from mteval.setup.units import AnySide, Part, Shipped, Unit
from mteval.store.cache import SPILL_PREFIX

KEPT_TARGETS = 4  # targets a worker keeps loaded besides its reference sets (a target serves several units)


@dataclass(frozen=True)
class PackedSide:
    """A side pickled once by the client (Dask): left to Dask, a side of some 100,000 small objects is
    unpickled on the worker with the collector on, about three times slower (0.13 against 0.04 s a
    1,000-segment WMT21 side) and its objects then walked by every full collection."""

    data: bytes

    @classmethod
    def of(cls, side: Side) -> PackedSide:
        return cls(pickle.dumps(side, protocol=pickle.HIGHEST_PROTOCOL))

    def unpack(self) -> Side:
        return _unpickle(lambda: pickle.loads(self.data))


Given = Mapping[str, Union[Side, PackedSide]]  # a task's own sides, by key


class Shipment:
    """The annotated sides of a run's units, each under one key (the same side object, the same
    key: a side is shipped once whatever number of units use it)."""

    def __init__(self, locate: Callable[[str, Side], str | None] = lambda key, side: None) -> None:
        self.locate = locate  # called once per new side (e.g. writes its spill file)
        self.sides: dict[str, Side] = {}
        self._keys: dict[int, Shipped] = {}  # id(side) -> its placeholder

    def placeholder(self, side: Side) -> Shipped:
        """The side's :class:`Shipped` (shipped now if it is new to this shipment)."""
        found = self._keys.get(id(side))
        if found is None:
            key = f"{side.name}#{len(self._keys)}"
            found = self._keys[id(side)] = Shipped(key, self.locate(key, side), len(side))
            self.sides[key] = side
        return found

    def light(self, unit: Unit) -> Unit:
        """The unit with its annotated sides replaced by placeholders (plain texts stay)."""
        def swap(sides: tuple[AnySide, ...]) -> tuple[AnySide, ...]:
            return tuple(self.placeholder(s) if isinstance(s, Side) and s.sentences is not None else s
                         for s in sides)

        parts = tuple(replace(part, references=swap(part.references), targets=swap(part.targets))
                      for part in unit.parts)
        return replace(unit, parts=parts)


def shipped_keys(unit: Unit) -> list[str]:
    """The keys of the sides a (light) unit refers to, in order of first use."""
    keys = (s.key for part in unit.parts for s in (*part.references, *part.targets) if isinstance(s, Shipped))
    return list(dict.fromkeys(keys))


class SpillFolder:
    """A temporary folder holding one pickle per shipped side (local pool); removed on close.
    It goes under ``parent`` -- iqsetup gives the score cache, whose disk is the one meant for the
    run's data (a campaign's parses can take gigabytes: too much for a small ``/tmp``) and whose
    next run removes the folder a killed run left (``ScoreCache.remove_temporaries``); without a
    parent, under the system's temporary folder."""

    def __init__(self, parent: Path | None = None) -> None:
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=SPILL_PREFIX, dir=parent))
        self._count = 0

    def write(self, key: str, side: Side) -> str:
        self._count += 1
        path = self.path / f"{self._count}.pickle"
        with path.open("wb") as handle:
            pickle.dump(side, handle, protocol=pickle.HIGHEST_PROTOCOL)
        return str(path)

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class SideStore:
    """A worker's loaded sides: every reference set it was given, and the last
    :data:`KEPT_TARGETS` targets."""

    def __init__(self) -> None:
        self.references: dict[str, Side] = {}
        self.targets: OrderedDict[str, Side] = OrderedDict()

    def resolve(self, side: AnySide, given: Given, reference: bool) -> Side:
        """The side itself: as given, from the task's own sides (``given``), kept, or loaded."""
        if isinstance(side, Side):
            return side
        key = side.key
        found = next((kept[key] for kept in (self.references, self.targets) if key in kept), None)
        if found is None:
            own = given.get(key)
            found = _load(side) if own is None else own.unpack() if isinstance(own, PackedSide) else own
            gc.freeze()  # out of the collector's reach: see _load
        if reference:
            self.references[key] = found
        else:
            self.targets[key] = found
            self.targets.move_to_end(key)
            while len(self.targets) > KEPT_TARGETS:
                self.targets.popitem(last=False)
        return found

    def part(self, part: Part, given: Given) -> tuple[list[Side], list[Side]]:
        """A part's reference sides and its target sides, resolved."""
        return ([self.resolve(s, given, True) for s in part.references],
                [self.resolve(s, given, False) for s in part.targets])


def _load(side: Shipped) -> Side:
    """A spilled side, unpickled with the collector off (some 100,000 small objects: it would walk
    them all repeatedly). :meth:`SideStore.resolve` then freezes a new side out of the collector's
    reach (``gc.freeze``): a worker's heap is mostly the sides it holds, and every full collection
    walked them again; freezing cut the workers' CPU by 5.5 % (500-segment WMT21 run, 29 metrics,
    ``-j 2``). Parses hold no reference cycles, so a frozen side dropped from the store is still
    freed (by reference counting)."""
    if side.location is None:
        raise LookupError(f"side {side.key} was neither given with the task nor spilled to a file")
    location = side.location

    def read() -> Side:
        with open(location, "rb") as handle:
            loaded: Side = pickle.load(handle)
        return loaded

    return _unpickle(read)


def _unpickle(load: Callable[[], Side]) -> Side:
    """``load()`` with the collector off (see :func:`_load`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return load()
    finally:
        if enabled:
            gc.enable()
