"""The stamp index (mteval.store.stamps): a stamped file is judged without being parsed, and the
index never makes a stale, damaged or replaced file count as current."""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import run, small_experiment

from mteval.scores import ScoreSet
from mteval.store import cache as cache_module
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import parse
from mteval.store.stamps import INDEX, Facts, read_index

DOCS = ("d1", "d1", "d2")
SIG, INPUTS = "metric:M|v:1", "aaaa+bbbb"


def _scores(stats: bool = True) -> ScoreSet:
    matrix = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, 0.25], [5.0, 6.0, 1 / 3]]) if stats else None
    return ScoreSet(0.375, {"d1": 0.25, "d2": 0.5}, np.array([0.125, np.nan, 0.5]), matrix)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files ``is_current`` reads whole (parses), in order."""
    seen: list[Path] = []

    def counted(path: Path, n_segments: int | None = None):  # type: ignore[no-untyped-def]
        seen.append(path)
        return parse(path, n_segments)

    monkeypatch.setattr(cache_module, "parse", counted)
    return seen


def _written(root: Path, metrics: tuple[str, ...] = ("M",)) -> Path:
    """A cache with one file per metric in S/A, its stamps written; the first file's path."""
    cache = ScoreCache(root)
    paths = [cache.save("S", "A", m, _scores(), DOCS, SIG, INPUTS, "sys:stats doc:stats") for m in metrics]
    cache.write_stamps()
    return paths[0]


def _current(root: Path, metric: str = "M", signature: str = SIG, needs_stats: bool = True) -> bool:
    """is_current in a fresh cache object (as the next run sees it), stamps written afterwards."""
    cache = ScoreCache(root)
    current = cache.is_current("S", "A", metric, signature, INPUTS, len(DOCS), needs_stats)
    cache.write_stamps()
    return current


def test_a_written_file_is_current_without_being_parsed(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path, ("M", "N"))
    assert set(read_index(path.parent)) == {"M.xml", "N.xml"}
    assert _current(tmp_path) and _current(tmp_path, "N")
    assert not _current(tmp_path, signature="metric:M|v:2") and not _current(tmp_path, "absent")
    assert parses == []
    assert not ScoreCache(tmp_path).is_current("S", "A", "M", SIG, INPUTS, 4, True)  # another test set
    assert not ScoreCache(tmp_path).is_current("S", "A", "M", SIG, "cccc+bbbb", 3, True)  # other texts
    assert parses == []


def test_facts_recorded_when_written_are_those_a_full_read_finds(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    for name, scores in {"stats": _scores(), "plain": _scores(stats=False),
                         "nan": ScoreSet(np.nan, {}, np.array([np.nan, np.inf, -0.0]))}.items():
        path = cache.save("S", "A", name, scores, DOCS, SIG, INPUTS)
        assert cache.stamps.facts(path) == Facts.of(parse(path, 3)), name


def test_a_file_the_reader_would_refuse_gets_no_stamp(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = ScoreCache(tmp_path)
    huge = ScoreSet(1e13, {}, np.array([0.5, 0.5, 0.5]))  # beyond iqxml.MAX_ABS: read back as damaged
    path = cache.save("S", "A", "M", huge, DOCS, SIG, INPUTS)
    cache.write_stamps()
    assert cache.stamps.facts(path) is None and not (path.parent / INDEX).exists()
    with caplog.at_level(logging.WARNING):
        assert not _current(tmp_path, needs_stats=False)
    assert "damaged score file" in caplog.text


def _flip_a_digit(path: Path) -> None:
    """Change one score digit in place: same size (a segment's 0.125 becomes 0.126)."""
    data = path.read_bytes()
    assert data.count(b">0.125<") == 1
    path.write_bytes(data.replace(b">0.125<", b">0.126<"))


def test_an_edit_keeping_the_size_is_noticed(tmp_path: Path, parses: list[Path],
                                             caplog: pytest.LogCaptureFixture) -> None:
    path = _written(tmp_path)
    size = path.stat().st_size
    _flip_a_digit(path)
    assert path.stat().st_size == size
    with caplog.at_level(logging.WARNING):
        assert not _current(tmp_path)
    assert parses == [path] and "do not match the file's digest" in caplog.text


def test_an_edit_with_the_old_size_and_times_is_noticed(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path)
    before = path.stat()
    _flip_a_digit(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as cp -p or rsync -t leave it
    assert not _current(tmp_path) and parses == [path]


def test_a_truncated_file_is_not_current(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path)
    path.write_bytes(path.read_bytes()[:-40])
    assert not _current(tmp_path) and parses == [path]


def test_a_users_file_with_another_signature_is_not_current(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path)
    theirs = _written(tmp_path / "elsewhere")
    ScoreCache(tmp_path / "elsewhere").save("S", "A", "M", _scores(), DOCS, "metric:M|theirs", INPUTS)
    os.replace(theirs, path)
    assert not _current(tmp_path) and parses == [path]
    assert _current(tmp_path, signature="metric:M|theirs")  # read whole once, stamped: the user's file
    assert parses == [path]


def test_a_link_in_place_of_a_stamped_file_is_not_trusted(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path)
    copy = path.with_name("copy.xml")
    os.replace(path, copy)
    path.symlink_to(copy.name)
    assert not _current(tmp_path) and parses == [path]  # read whole: the reader refuses links


@pytest.mark.parametrize("damage", ["garbage", "edited entry", "truncated", "empty", "other format"])
def test_a_damaged_index_falls_back_to_reading_whole(tmp_path: Path, parses: list[Path], damage: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    path = _written(tmp_path)
    index = path.parent / INDEX
    text = index.read_text(encoding="ascii")
    document = json.loads(text)
    if damage == "garbage":
        index.write_bytes(os.urandom(300))
    elif damage == "edited entry":  # a signature changed, checksum not: refused whole
        document["files"]["M.xml"]["signature"] = "metric:M|v:2"
        index.write_text(json.dumps(document), encoding="ascii")
    elif damage == "truncated":
        index.write_text(text[: len(text) // 2], encoding="ascii")
    elif damage == "empty":
        index.write_bytes(b"")
    else:
        document["format"] = "mteval-stamps/0"
        index.write_text(json.dumps(document), encoding="ascii")
    with caplog.at_level(logging.WARNING):
        assert _current(tmp_path)
    assert parses == [path] and "stamp index" in caplog.text
    assert read_index(path.parent)["M.xml"].facts.signature == SIG  # rewritten whole
    assert _current(tmp_path) and parses == [path]


def test_a_deleted_index_is_rebuilt(tmp_path: Path, parses: list[Path]) -> None:
    path = _written(tmp_path)
    (path.parent / INDEX).unlink()
    assert _current(tmp_path) and parses == [path]
    assert (path.parent / INDEX).exists()
    assert _current(tmp_path) and parses == [path]


def test_the_index_depends_on_the_files_only(tmp_path: Path) -> None:
    first = _written(tmp_path / "one", ("M", "N", "O"))
    second = _written(tmp_path / "two", ("O", "M", "N"))
    assert (first.parent / INDEX).read_bytes() == (second.parent / INDEX).read_bytes()
    (first.parent / "N.xml").unlink()
    cache = ScoreCache(tmp_path / "one")
    cache.save("S", "A", "P", _scores(), DOCS, SIG, INPUTS, "sys:stats doc:stats")
    cache.write_stamps()  # the folder's index is written again: the deleted file's entry goes
    assert set(read_index(first.parent)) == {"M.xml", "O.xml", "P.xml"}


def test_iqsetup_stamps_files_and_recomputes_an_edited_one(tmp_path: Path) -> None:
    config = small_experiment(tmp_path / "exp", ["BLEU", "chrF"], segments=5)
    first = run("iqsetup", "-j", "1", str(config))
    assert first.returncode == 0, first.stderr
    cache = tmp_path / "exp" / "cache"
    indexes = sorted(cache.rglob(INDEX))
    folders = {p.parent for p in cache.rglob("*.xml")}
    assert {p.parent for p in indexes} == folders
    victim = next(iter(sorted(cache.rglob("chrF.xml"))))
    data = victim.read_bytes()
    edited = re.sub(rb'(<S n="1"[^>]*>)[^<]*', rb"\g<1>0.123", data, count=1)  # the digest no longer matches
    assert edited != data
    victim.write_bytes(edited)
    again = run("iqsetup", "-j", "1", str(config))
    assert again.returncode == 0, again.stderr
    assert "damaged score file" in again.stderr and " 1 file(s) computed" in again.stderr
    assert victim.read_bytes() == data
    warm = run("iqsetup", "-j", "1", str(config))
    assert " 0 file(s) computed" in warm.stderr and "damaged" not in warm.stderr
