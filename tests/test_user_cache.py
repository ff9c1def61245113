"""mteval.user_cache: derived resources kept between runs, rebuilt when damaged, never required."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mteval import user_cache


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def source(tmp_path: Path, text: str = "a\\tb\\n") -> Path:
    path = tmp_path / "table.txt"
    path.write_text(text, encoding="utf-8")
    return path


class Builds:
    def __init__(self, value: dict[str, str]) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> dict[str, str]:
        self.calls += 1
        return dict(self.value)


def test_a_derived_object_is_built_once_then_loaded(folder: Path, tmp_path: Path) -> None:
    build = Builds({"a": "b"})
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"}
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"}
    assert build.calls == 1 and len(list(folder.glob("t-*.marshal"))) == 1
    assert not list(folder.glob(".*.tmp"))


def test_a_damaged_file_is_rebuilt_and_rewritten(folder: Path, tmp_path: Path) -> None:
    build = Builds({"a": "b"})
    user_cache.derived("t", source(tmp_path), build)
    (stored,) = folder.glob("t-*.marshal")
    for damage in (stored.read_bytes()[:5], b"\xff\x00garbage", b"N"):  # truncated, not marshal, None
        stored.write_bytes(damage)
        assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"}
    assert build.calls == 4
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"} and build.calls == 4


def test_a_new_resource_replaces_the_old_file(folder: Path, tmp_path: Path) -> None:
    user_cache.derived("t", source(tmp_path, "old"), Builds({"v": "1"}))
    build = Builds({"v": "2"})
    assert user_cache.derived("t", source(tmp_path, "new"), build) == {"v": "2"} and build.calls == 1
    assert len(list(folder.glob("t-*.marshal"))) == 1


def test_an_unwritable_or_disabled_cache_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("MTEVAL_CACHE_DIR", str(blocker / "cache"))
    build = Builds({"a": "b"})
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"}
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"} and build.calls == 2
    monkeypatch.setenv("MTEVAL_CACHE_DIR", "off")
    assert user_cache.cache_dir() is None
    assert user_cache.derived("t", source(tmp_path), build) == {"a": "b"} and build.calls == 3


def test_the_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MTEVAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache.cache_dir() == tmp_path / "mteval"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache.cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "mteval"


def test_remembered_results_keep_the_most_recently_used(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``remembered``: one file per key, read back instead of built; the ``keep`` most recently used
    stay; a damaged one is built again; disabled: built every time."""
    builds = {key: Builds({"k": key}) for key in "abcd"}

    def recall(key: str) -> object:
        return user_cache.remembered("memo", key, builds[key], kind=dict, keep=2)

    for key in "abc":
        assert recall(key) == {"k": key}
    assert sorted(p.name.split("-")[0] for p in (folder / "memo").glob("*.marshal")) == ["b", "c"]
    os.utime(folder / "memo" / next(p.name for p in (folder / "memo").glob("b-*")), (1, 1))  # b: long unused
    assert recall("c") == {"k": "c"} and builds["c"].calls == 1  # read back, and now the most recent
    assert recall("d") == {"k": "d"}
    assert sorted(p.name.split("-")[0] for p in (folder / "memo").glob("*.marshal")) == ["c", "d"]
    (stored,) = (folder / "memo").glob("d-*.marshal")
    stored.write_bytes(b"\xff\x00garbage")
    assert recall("d") == {"k": "d"} and builds["d"].calls == 2
    monkeypatch.setenv("MTEVAL_CACHE_DIR", "off")
    assert recall("d") == {"k": "d"} and builds["d"].calls == 3
