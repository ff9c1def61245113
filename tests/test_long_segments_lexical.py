"""Long and many segments: TER and chrF give sacreBLEU's numbers with bounded memory.

TER's beam edit distance keeps only beam cells, a bounded prefix cache, and stops a candidate
shift's distance early only when it is exact (``BeamEditDistance.distance``); chrF's n-gram ids
are per reference set. Memory is measured in a child process (its address space capped, so a
regression fails instead of exhausting the machine).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import RUEN
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics import chrf
from mteval.metrics.base import Side
from mteval.metrics.chrf import ChrF, ngram_counters
from mteval.metrics.ter import BeamEditDistance, _beam, _shift, ter_edits

sacrebleu = pytest.importorskip("sacrebleu")
TESTS = Path(__file__).resolve().parent
POOL = (RUEN / "refs" / "A.en").read_text(encoding="utf-8").split()


def long_pair(n: int, kind: str, seed: int = 1) -> tuple[list[str], list[str]]:
    """A reference of ``n`` words drawn from real sentences and a hypothesis: ``random`` other
    words, or ``shuffled``, the reference with neighbouring 7-word blocks swapped (many shifts)."""
    rng = random.Random(seed)
    ref = [rng.choice(POOL) for _ in range(n)]
    if kind == "random":
        return [rng.choice(POOL) for _ in range(n)], ref
    blocks = [ref[i:i + 7] for i in range(0, n, 7)]
    for k in range(0, len(blocks) - 1, 2):
        if rng.random() < 0.5:
            blocks[k], blocks[k + 1] = blocks[k + 1], blocks[k]
    return [w for b in blocks for w in b], ref


def word_ids(*sides: list[str]) -> list[tuple[int, ...]]:
    """Lower-cased word ids shared by the sides (TER's default tokenisation)."""
    ids: dict[str, int] = {}
    return [tuple(ids.setdefault(w.lower(), len(ids)) for w in side) for side in sides]


@pytest.mark.parametrize("kind", [pytest.param("random", marks=pytest.mark.slow), "shuffled"])  # random ~3 s
def test_long_pair_matches_sacrebleu(kind: str) -> None:
    # sacreBLEU's TER needs ~5 s for 150 words (~80 s for 1,000), so the in-process check stays short;
    # 130 words are well past the beam (50 cells), so the beam rows and the early stop are exercised
    hyp, ref = long_pair(130, kind)
    h, r = word_ids(hyp, ref)
    expected = sacrebleu.sentence_ter(" ".join(hyp), [" ".join(ref)]).score
    assert 100 * ter_edits(h, r) / len(r) == pytest.approx(expected, abs=1e-9)


def full_distance(hyp: tuple[int, ...], ref: tuple[int, ...]) -> int:
    """The beam distance with a fresh object (nothing cached, no early stop)."""
    return BeamEditDistance(ref)(hyp)[0]


@pytest.mark.parametrize("kind", ["random", "shuffled"])
def test_candidate_distance_is_exact_on_long_segments(kind: str) -> None:
    hyp, ref = word_ids(*long_pair(1200, kind, seed=7))
    dist = BeamEditDistance(ref)
    score, _ = dist(hyp, keep=True)
    assert score == full_distance(hyp, ref)
    rng = random.Random(3)
    for _ in range(40):
        sh, length = rng.randrange(len(hyp) - 10), rng.randint(1, 10)
        idx = min(len(hyp), max(0, sh + rng.randint(-50, 50)))
        shifted = _shift(hyp, sh, length, idx)
        exact = full_distance(shifted, ref)
        assert dist.distance(shifted, max(sh, idx) + length, 10 ** 9) == exact
        cap = score - 1  # a candidate must gain at least one edit
        found = dist.distance(shifted, max(sh, idx) + length, cap)
        assert found == exact if exact <= cap else found > cap


def test_beam_rows_hold_only_beam_cells() -> None:
    hyp, ref = word_ids(*long_pair(2000, "random"))
    _, beam = _beam(len(hyp), len(ref))
    dist = BeamEditDistance(ref)
    dist(hyp, keep=True)
    assert max(len(row[1]) for row in dist.base[1:]) <= 2 * beam + 1
    assert dist.cells <= len(hyp) * (2 * beam + 1)


TER_CHILD = textwrap.dedent("""
    from test_long_segments_lexical import long_pair, word_ids
    from mteval.metrics.ter import ter_edits
    for kind in ("random", "shuffled"):
        h, r = word_ids(*long_pair(ARGS["n"], kind))
        OUT[kind] = ter_edits(h, r)
""")
PRELUDE = textwrap.dedent("""
    import json, resource, sys
    ARGS = json.loads(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (ARGS["limit"], ARGS["limit"]))
    sys.path.insert(0, ARGS["tests"])
    OUT = {}
""")
# VmHWM, not getrusage's ru_maxrss: Linux carries the forking parent's peak (pytest's, over 1 GB
# late in the suite) into the child's ru_maxrss across exec; VmHWM belongs to the new image only.
EPILOGUE = textwrap.dedent("""
    with open("/proc/self/status") as status:
        OUT["maxrss_kb"] = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
    print(json.dumps(OUT))
""")
CAP = 3 << 30  # address-space cap of a child (bytes)


def run_child(code: str, **args: object) -> dict:
    """Run ``code`` in a fresh interpreter with ``ARGS`` and its address space capped; its ``OUT``
    and its peak resident memory (``maxrss_kb``)."""
    payload = json.dumps({"limit": CAP, "tests": str(TESTS), **args})
    done = subprocess.run([sys.executable, "-c", PRELUDE + code + EPILOGUE, payload],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_ter_memory_is_bounded_on_a_3000_word_pair() -> None:
    # before the beam rows, these two pairs peaked at 0.7 and 2.0 GB (5,000 words: > 23 GB)
    out = run_child(TER_CHILD, n=3000)
    assert out["maxrss_kb"] < 250 * 1024, out
    assert out["random"] > 0 and out["shuffled"] > 0


def counter_stats(hyp: str, ref: str) -> list[int]:
    """``[hyp, ref, match]`` per order from sacreBLEU-style string counters (the definition)."""
    out = []
    for h, r in zip(ngram_counters(hyp), ngram_counters(ref), strict=True):
        ref_total = sum(r.values())
        out += [sum(h.values()) if ref_total else 0, ref_total, sum((h & r).values())]
    return out


CHARS = st.sampled_from(list("aab. ,") + ["é", "e\u0301", "猫", "😀", "\u00a0", "\t", "(x", "x)"])
SEGMENTS = st.lists(CHARS, max_size=16).map("".join)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(SEGMENTS, SEGMENTS), min_size=1, max_size=7), st.integers(1, 3), st.integers(1, 40))
def test_chrf_statistics_equal_the_string_counters(rows: list[tuple[str, str]], chunk: int, chars: int) -> None:
    hyps, refs = (list(x) for x in zip(*rows, strict=True))
    with pytest.MonkeyPatch.context() as patch:  # chunk boundaries must not change anything
        patch.setattr(chrf, "CHUNK", chunk)
        patch.setattr(chrf, "CHUNK_CHARS", chars)
        stats = chrf.pair_stats(hyps, refs)
    assert stats.tolist() == [counter_stats(h, r) for h, r in rows]


def test_chrf_long_segment_matches_sacrebleu() -> None:
    hyp, ref = long_pair(3000, "shuffled")
    family = ChrF()
    scores = family.score(Side("h", [" ".join(hyp)]), family.prepare([Side("r", [" ".join(ref)])]),
                          DocumentIndex.single(1), family.variants)
    assert scores["chrF"].system == pytest.approx(
        sacrebleu.sentence_chrf(" ".join(hyp), [" ".join(ref)]).score, abs=1e-9)
    assert scores["chrF++"].system == pytest.approx(
        sacrebleu.sentence_chrf(" ".join(hyp), [" ".join(ref)], word_order=2).score, abs=1e-9)


CHRF_CHILD = textwrap.dedent("""
    import random
    from test_long_segments_lexical import POOL
    from mteval.io.corpus import DocumentIndex
    from mteval.metrics.base import Side
    from mteval.metrics.chrf import ChrF
    rng = random.Random(5)
    n = ARGS["n"]
    def text():
        return [" ".join(rng.choice(POOL) for _ in range(25)) for _ in range(n)]
    family = ChrF()
    prepared = family.prepare([Side("A", text())])
    for name in ("S1", "S2"):
        OUT[name] = family.score(Side(name, text()), prepared, DocumentIndex.single(n), ["chrF"])["chrF"].system
""")


def test_chrf_memory_does_not_grow_with_distinct_segments() -> None:
    # before the per-chunk ids, 16,000 distinct segments x 3 systems peaked at ~730 MB, 20,000 at 2.3 GB
    out = run_child(CHRF_CHILD, n=12000)
    assert out["maxrss_kb"] < 250 * 1024, out
    assert 0 < out["S1"] < 100 and 0 < out["S2"] < 100


def test_chrf_chunks_are_bounded_in_segments_and_characters() -> None:
    rng = random.Random(2)
    texts = ["x" * rng.choice([0, 5, 300, 2000]) for _ in range(400)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chrf, "CHUNK", 50)
        patch.setattr(chrf, "CHUNK_CHARS", 3000)
        parts = list(chrf._chunks(texts, texts))
    assert [i for p in parts for i in range(p.start, p.stop)] == list(range(400))
    for p in parts:
        size = 2 * sum(map(len, texts[p]))
        assert p.stop - p.start <= 50
        assert size <= 3000 or p.stop - p.start == 1
