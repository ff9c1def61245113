"""Annotated sides travel to workers once (mteval.setup.shipping): one key per side object,
plain-text sides left in the units, spill files that round-trip and are removed, and a worker
store that keeps its reference sets and only the last few targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.annotate.model import Sentence, Word
from mteval.metrics.base import Side
from mteval.setup import shipping
from mteval.setup.shipping import Shipment, SideStore, SpillFolder, shipped_keys
from mteval.setup.units import Part, Shipped, Unit


def annotated(name: str, *texts: str) -> Side:
    return Side(name, list(texts), [Sentence(tuple(Word(i + 1, w) for i, w in enumerate(t.split())), t)
                                    for t in texts])


def unit(references: tuple[Side, ...], *targets: Side) -> Unit:
    return Unit("DP", None, (Part(references, targets, tuple(("DP-Or(*)",) for _ in targets)),))


def test_a_side_used_by_several_units_is_shipped_once_under_one_key() -> None:
    ref, hyp1, hyp2 = annotated("A", "a b"), annotated("s1", "a c"), annotated("s2", "b")
    spilled: list[str] = []
    shipment = Shipment(lambda key, side: spilled.append(key) or f"/x/{key}")
    first, second = shipment.light(unit((ref,), hyp1)), shipment.light(unit((ref,), hyp2))
    assert spilled == ["A#0", "s1#1", "s2#2"]
    assert first.parts[0].references == second.parts[0].references == (Shipped("A#0", "/x/A#0", 1),)
    assert first.work == unit((ref,), hyp1).work  # counted in segment-pairs either way
    assert shipped_keys(second) == ["A#0", "s2#2"]
    assert shipment.sides["s1#1"] is hyp1


def test_plain_text_sides_stay_in_the_unit() -> None:
    ref, hyp = Side("A", ["a b"]), Side("s1", ["a c"])
    light = Shipment().light(unit((ref,), hyp))
    assert light == unit((ref,), hyp) and shipped_keys(light) == []


def test_spilled_sides_round_trip_and_the_folder_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    spill = SpillFolder()
    side = annotated("A", "the cat sat", "")
    placeholder = Shipment(spill.write).placeholder(side)
    loaded = SideStore().resolve(placeholder, {}, reference=True)
    assert loaded == side and loaded is not side
    spill.close()
    assert list(tmp_path.iterdir()) == []


def test_an_empty_side_given_with_the_task_is_used() -> None:
    """A side of no segments is falsy (``len`` 0): it must still be found, not looked up elsewhere."""
    empty = Side("A", [], [])
    assert SideStore().resolve(Shipped("A#0"), {"A#0": empty}, reference=True) is empty


def test_a_side_neither_given_nor_spilled_is_a_clear_error() -> None:
    with pytest.raises(LookupError, match="side A#0 was neither given"):
        SideStore().resolve(Shipped("A#0"), {}, reference=False)


def test_the_store_keeps_references_and_only_the_last_targets() -> None:
    store = SideStore()
    given = {f"s{k}": annotated(f"s{k}", "x") for k in range(10)}
    store.resolve(Shipped("s0"), given, reference=True)
    for k in range(1, 10):
        store.resolve(Shipped(f"s{k}"), given, reference=False)
    assert list(store.references) == ["s0"]
    assert list(store.targets) == [f"s{k}" for k in range(10 - shipping.KEPT_TARGETS, 10)]
    assert store.resolve(Shipped("s0"), {}, reference=False) is given["s0"]  # kept: no file needed


def test_a_spill_folder_goes_in_the_cache_and_a_killed_runs_is_removed_next_time(tmp_path: Path) -> None:
    from mteval.store.cache import ScoreCache

    spill = SpillFolder(tmp_path / "cache")
    Shipment(spill.write).placeholder(annotated("A", "a b"))
    assert spill.path.parent == tmp_path / "cache" and spill.path.name.startswith(".spill-")
    assert len(list(spill.path.iterdir())) == 1
    # the run is killed here (no close); the next run, holding the lock, removes what it left
    assert ScoreCache(tmp_path / "cache").remove_temporaries() == 1
    assert not spill.path.exists()


def test_a_loaded_side_is_frozen_out_of_the_collectors_reach(tmp_path: Path) -> None:
    """Full collections in a worker would walk every parse it holds again and again (shipping._load)."""
    import gc

    spill = SpillFolder(tmp_path)
    placeholder = Shipment(spill.write).placeholder(annotated("A", "the cat sat", "on the mat"))
    try:
        loaded = SideStore().resolve(placeholder, {}, reference=True)
        tracked = {id(o) for o in gc.get_objects()}
        assert loaded.sentences and not {id(loaded), id(loaded.sentences), id(loaded.sentences[0])} & tracked
    finally:
        gc.unfreeze()
        spill.close()


def test_a_packed_side_given_with_the_task_is_unpickled_once_with_the_collector_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask hands a side over pickled (PackedSide): the worker unpickles it with the collector off, once,
    keeps it, and an empty side packed is still found (not looked up elsewhere)."""
    import gc

    side, empty = annotated("A", "the cat sat", ""), Side("B", [], [])
    packed = {"A#0": shipping.PackedSide.of(side), "B#1": shipping.PackedSide.of(empty)}
    states: list[bool] = []
    real = shipping.pickle.loads
    monkeypatch.setattr(shipping.pickle, "loads", lambda data: states.append(gc.isenabled()) or real(data))
    store = SideStore()
    try:
        first = store.resolve(Shipped("A#0"), packed, reference=True)
        again = store.resolve(Shipped("A#0"), packed, reference=True)
        assert first == side and first is again and states == [False] and gc.isenabled()
        assert store.resolve(Shipped("B#1"), packed, reference=False) == empty
    finally:
        gc.unfreeze()
