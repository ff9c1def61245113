"""The annotation cache never serves damaged bytes, writes shareable durable files, and two runs
sharing it do not both parse (issue 16).

Most tests use a stand-in parser (no torch); the last one corrupts a cache of real parses.
"""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from mteval.annotate.annotator import Annotator
from mteval.annotate.conllu_cache import AnnotationCache
from mteval.annotate.model import ArcScores, Sentence, Word, to_conllu
from mteval.errors import MtevalError

TEXTS = [f"Segment number {i} has {'some ' * (i % 4)}words ." for i in range(10)]


class FakeParser:
    """Deterministic stand-in for StanzaParser: a chain of words, arc scores from the text."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls: list[str] = []

    def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores]]:
        time.sleep(self.delay)
        self.calls.extend(texts)
        return [self._one(t) for t in texts]

    @staticmethod
    def _one(text: str) -> tuple[Sentence, ArcScores]:
        forms = text.split()
        words = tuple(Word(i, f, head=i - 1, deprel="dep") for i, f in enumerate(forms, start=1))
        n = len(forms)
        rng = np.random.default_rng(sum(map(ord, text)))
        arcs = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        return Sentence(words, text), ArcScores(arcs, ("dep", "root"), np.zeros((n, 1), np.int16),
                                                rng.normal(size=(n, 1, 2)).astype(np.float16))


def annotator(cache: Path, parser: FakeParser, **options: int) -> Annotator:
    ann = Annotator(cache, processors="tokenize,mwt,pos,lemma,depparse", **options)
    ann._parser = parser  # type: ignore[assignment]
    return ann


def fingerprints(ann: Annotator, texts: Sequence[str]) -> list[tuple[str, bytes, bytes]]:
    return [(to_conllu([s]), a.arcs.tobytes(), a.label_logp.tobytes())
            for s, a in zip(ann.annotate(texts), ann.arc_scores(texts), strict=True)]


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def empty(path: Path) -> None:
    path.write_bytes(b"")


def garbage_npz(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a0.npy", b"not an array")


DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated conllu": ("conllu", truncate), "flipped byte in conllu": ("conllu", flip_byte),
    "empty conllu": ("conllu", empty), "truncated npz": ("npz", truncate),
    "flipped byte in npz": ("npz", flip_byte), "empty npz": ("npz", empty),
    "garbage npz": ("npz", garbage_npz), "flipped byte in keys": ("keys", flip_byte),
    "empty keys": ("keys", empty), "missing conllu": ("conllu", lambda p: p.unlink()),
}


def shards(cache: Path) -> list[Path]:
    return sorted((cache / "annotation").glob("*.keys"))


@pytest.mark.models
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_shard_is_detected_dropped_and_reparsed(damage: str, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    first = FakeParser()
    before = fingerprints(annotator(tmp_path, first, batch_size=4), TEXTS)
    assert len(shards(tmp_path)) == 3
    suffix, corrupt = DAMAGE[damage]
    victim = shards(tmp_path)[1]
    corrupt(victim.with_suffix(f".{suffix}"))
    again = FakeParser()
    with caplog.at_level(logging.WARNING, logger="mteval"):
        after = fingerprints(annotator(tmp_path, again, batch_size=4), TEXTS)
    assert after == before
    assert len(again.calls) == 4  # that shard's segments, parsed once more; nothing else
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and victim.stem in warnings[0]
    assert not victim.exists() and len(shards(tmp_path)) == 3  # dropped, replaced by a sound one
    caplog.clear()
    third = FakeParser()
    assert fingerprints(annotator(tmp_path, third), TEXTS) == before and third.calls == []
    assert not caplog.records


@pytest.mark.models
@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_files_get_the_umask_mode(umask: int, tmp_path: Path) -> None:
    old = os.umask(umask)
    try:
        fingerprints(annotator(tmp_path, FakeParser()), TEXTS[:2])
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "annotation").iterdir() if p.name != ".lock"]
    assert {p.suffix for p in files} == {".keys", ".conllu", ".npz"}
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o666 & ~umask}
    assert not list((tmp_path / "annotation").glob("*.tmp")) and not list((tmp_path / "annotation").glob(".*.tmp"))


@pytest.mark.models
def test_a_killed_runs_temporary_files_are_removed_by_the_next_writer(tmp_path: Path) -> None:
    fingerprints(annotator(tmp_path, FakeParser()), TEXTS[:2])
    stale = [tmp_path / "annotation" / n for n in (".1-000001-abc.conllu.99999.3.tmp", "1-0-abc.npz.99999.tmp.npz")]
    for path in stale:
        path.write_bytes(b"half a shard")
    fingerprints(annotator(tmp_path, FakeParser()), TEXTS[:2])  # nothing to parse: nothing written
    assert all(p.exists() for p in stale)
    fingerprints(annotator(tmp_path, FakeParser()), TEXTS[2:4])
    assert not any(p.exists() for p in stale)


@pytest.mark.models
def test_concurrent_runs_parse_each_segment_once(tmp_path: Path) -> None:
    """Two annotators on one cache (separate lock descriptions, as two processes would have)."""
    parsers = [FakeParser(delay=0.3), FakeParser(delay=0.3)]
    results: list[list[tuple[str, bytes, bytes]]] = [[], []]

    def work(i: int) -> None:
        results[i] = fingerprints(annotator(tmp_path, parsers[i], batch_size=4), TEXTS)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0] == results[1] and results[0]
    assert sorted(len(p.calls) for p in parsers) == [0, len(TEXTS)]
    assert len(shards(tmp_path)) == 3  # no duplicate shards


def test_a_waiting_run_says_whom_it_waits_for(tmp_path: Path) -> None:
    code = ("import logging, sys; from pathlib import Path; logging.basicConfig(stream=sys.stderr); "
            "from mteval.annotate.conllu_cache import AnnotationCache; c = AnnotationCache(Path(sys.argv[1]))\n"
            "with c.locked(): print('got it')")
    with AnnotationCache(tmp_path).locked():
        proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert proc.poll() is None  # still waiting
    out, err = proc.communicate(timeout=60)
    assert out.strip() == "got it"
    assert err.count("waiting for the annotation cache") == 1 and f"pid {os.getpid()}" in err


@pytest.fixture(scope="module")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Annotator]]:
    cache = tmp_path_factory.mktemp("real")
    yield cache, Annotator(cache, batch_size=3)


@pytest.mark.models
@pytest.mark.parametrize("damage", ["truncated conllu", "flipped byte in npz", "empty npz", "garbage npz"])
def test_real_parses_come_back_identical(damage: str, real_cache: tuple[Path, Annotator]) -> None:
    cache, first = real_cache
    texts = ["The committee didn't approve it.", "Cats sleep on mats.", "Dogs bark at night.",
             "I saw her yesterday.", "", "It rains."]
    before = fingerprints(first, texts)
    suffix, corrupt = DAMAGE[damage]
    victim = next(p for p in shards(cache) if p.with_suffix(".npz").exists())
    corrupt(victim.with_suffix(f".{suffix}"))
    again = Annotator(cache, batch_size=3)
    again._parser = first._get_parser()  # the same loaded models, to keep the test fast
    assert fingerprints(again, texts) == before and 0 < again.parsed <= 3


@pytest.mark.models  # the Annotator needs Stanza installed, though the parser is a stand-in
def test_a_cache_without_some_arc_scores_is_repaired_once(tmp_path: Path) -> None:
    """A cache written before 2026-11-28 has no arc scores for some short segments (``Wow!!!
    Really???``): they are parsed again once, into a repair shard that later reads prefer."""
    parser = FakeParser()
    first = annotator(tmp_path, parser)
    expected = fingerprints(first, TEXTS)
    keys = [first._keys[t] for t in TEXTS[:3]]
    old = first.cache.sentences(set(keys))
    first.cache.add(keys, [old[k] for k in keys], [None, None, None])  # what the old code cached
    stale = annotator(tmp_path, FakeParser())
    assert len(stale.cache.arc_scores(set(keys))) == 0
    repaired = annotator(tmp_path, FakeParser())
    assert fingerprints(repaired, TEXTS) == expected
    assert repaired._parser.calls == TEXTS[:3]  # type: ignore[union-attr]
    assert len([s for s in shards(tmp_path) if s.name.startswith("r-")]) == 1
    later = annotator(tmp_path, FakeParser())
    assert fingerprints(later, TEXTS) == expected
    assert later._parser.calls == []  # type: ignore[union-attr]


@pytest.mark.models  # the Annotator needs Stanza installed, though the parser is a stand-in
def test_a_parser_without_arc_scores_is_one_line(tmp_path: Path) -> None:
    class NoScores(FakeParser):
        def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores]]:
            return [(s, None) for s, _ in super().parse(texts)]  # type: ignore[misc]

    ann = annotator(tmp_path, NoScores())
    with pytest.raises(MtevalError, match="gave no arc scores .* needs the biaffine graph parser"):
        ann.arc_scores(TEXTS[:2])
    assert [s for s in shards(tmp_path) if s.name.startswith("r-")] == []


@pytest.mark.models  # the Annotator needs Stanza installed, though the parser is a stand-in
def test_no_graph_parser_fails_before_parsing_again(tmp_path: Path) -> None:
    """Without ``depparse`` among the processors there is nothing to ask for arc scores: the one
    line comes at once, with no parse and no repair shard."""
    class NoScores(FakeParser):
        def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores]]:
            return [(s, None) for s, _ in super().parse(texts)]  # type: ignore[misc]

    ann = Annotator(tmp_path, processors="tokenize,pos,lemma")
    ann._parser = parser = NoScores()  # type: ignore[assignment]
    ann.annotate(TEXTS[:2])
    assert sorted(parser.calls) == sorted(TEXTS[:2])
    with pytest.raises(MtevalError, match="gave no arc scores .* needs the biaffine graph parser"):
        ann.arc_scores(TEXTS[:2])
    assert sorted(parser.calls) == sorted(TEXTS[:2])
    assert [s for s in shards(tmp_path) if s.name.startswith("r-")] == []
