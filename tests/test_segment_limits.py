"""Segment-length limits (issue 29, F15): iqsetup refuses a segment longer than a requested metric
accepts, with one line naming the file and line, before computing or writing anything; the
families without a limit score it; a segment at exactly the limit is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import RUEN, run
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.annotate.textprep import MAX_WORDS
from mteval.errors import InputError
from mteval.experiment.texts import LoadedTexts
from mteval.io.corpus import DocumentIndex, Text
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily
from mteval.metrics.rouge import RougeFamily, rouge_tokens, unicode_raw_tokens
from mteval.metrics.ter import TER
from mteval.setup.limits import GUARANTEED_WORDS, check_segment_lengths, limited_families

# real words that are one ROUGE token each (so that every family counts them alike)
POOL = [w for w in (RUEN / "refs" / "A.en").read_text(encoding="utf-8").split() if w.isascii() and w.isalnum()]
WAY_OUT = "split it into shorter segments (a sentence or a paragraph a line, in every text alike), or leave"
LIMITED = [cls for cls in registry.families().values() if cls.max_segment_words is not None]


def words(n: int) -> str:
    """``n`` real words, one segment."""
    return " ".join((POOL * (n // len(POOL) + 1))[:n])


def loaded(refs: dict[str, list[str]], systems: dict[str, list[str]], sgml_lines: tuple[int, ...] = ()) -> LoadedTexts:
    """Texts as load_texts makes them (plain unless ``sgml_lines`` gives the systems' file lines)."""
    n = len(next(iter(refs.values())))
    docs = DocumentIndex.single(n)

    def text(name: str, segments: list[str], lines: tuple[int, ...] = ()) -> Text:
        return Text(name, tuple(segments), docs, f"/data/{name}.txt", (), lines)

    return LoadedTexts({k: text(k, v) for k, v in refs.items()},
                       {k: text(k, v, sgml_lines) for k, v in systems.items()}, None, docs)


def refusal(families: list[MetricFamily], texts: LoadedTexts) -> str | None:
    """The refusal's one line (``FILE:LINE: problem``), or None when the texts are accepted."""
    try:
        check_segment_lengths(families, texts)
    except InputError as error:
        return str(error)
    return None


def test_the_superlinear_lexical_families_have_limits_of_at_least_the_guarantee() -> None:
    assert {cls.family for cls in LIMITED} == {"TER", "ROUGE", "GTM", "METEOR"}
    assert all(cls.max_segment_words is not None and cls.max_segment_words >= GUARANTEED_WORDS for cls in LIMITED)
    # the syntactic families need none: the annotation layer cuts every segment to MAX_WORDS words
    assert not any(cls.needs_annotation for cls in LIMITED) and MAX_WORDS <= GUARANTEED_WORDS


@pytest.mark.parametrize("cls", LIMITED, ids=lambda cls: cls.family)
def test_a_segment_at_exactly_the_limit_is_accepted(cls: type[MetricFamily]) -> None:
    limit = cls.max_segment_words
    assert limit is not None
    family = cls()
    assert refusal([family], loaded({"A": ["ok", words(limit)]}, {"S": [words(limit), "ok"]})) is None
    line = refusal([family], loaded({"A": ["ok", "ok"]}, {"S": ["ok", words(limit + 1)]}))
    assert line == (f"/data/S.txt:2: segment of {limit + 1:,} words is too long for {cls.family} (at most "
                    f"{limit:,}): {WAY_OUT} the {cls.family} metrics out")


def test_the_first_long_segment_is_named_with_every_family_that_refuses_it() -> None:
    families = [registry.create(name) for name in ("mteval-v13a", "METEOR", "TER", "chrF", "GTM")]
    meteor, ter = (registry.families()[name].max_segment_words for name in ("METEOR", "TER"))
    assert meteor is not None and ter is not None and meteor < ter
    texts = loaded({"A": ["x", "x", words(meteor + 1)]}, {"S": ["x", words(ter + 1), "x"]}, sgml_lines=(7, 9, 12))
    line = refusal(families, texts)  # the reference's segment first (references, then systems)
    assert line is not None and line.startswith(f"/data/A.txt:3: segment of {meteor + 1:,} words is too long "
                                                f"for METEOR (at most {meteor:,}):")
    texts = loaded({"A": ["x", "x", "x"]}, {"S": ["x", words(ter + 1), "x"]}, sgml_lines=(7, 9, 12))
    line = refusal(families, texts)  # an SGML segment: its own line; TER and METEOR both refuse it
    assert line is not None and line.startswith(f"/data/S.txt:9: segment of {ter + 1:,} words is too long for "
                                                f"METEOR (at most {meteor:,}), TER (at most {ter:,}):")
    assert "leave the METEOR, TER metrics out" in line and "GTM" not in line
    assert refusal([registry.create(n) for n in ("mteval-v13a", "chrF", "WER-PER", "DP")], texts) is None


def test_rouge_counts_its_own_tokens() -> None:
    limit = RougeFamily.max_segment_words
    assert limit is not None
    dotted = ".".join(["a"] * (limit + 1))  # one whitespace-separated word, limit + 1 ROUGE tokens
    line = refusal([RougeFamily(), TER()], loaded({"A": ["x"]}, {"S": [dotted]}))
    assert line == (f"/data/S.txt:1: segment of 1 word is too long for ROUGE ({limit + 1:,} of its tokens, at most "
                    f"{limit:,}): {WAY_OUT} the ROUGE metrics out")
    real = (RUEN / "refs" / "A.en").read_text(encoding="utf-8").splitlines()[:20]
    for text in ["Don't stop-here, naïve U.S. 10,000 -- ok", "-abc- _d_ ÄÖ ab9", *real]:
        assert RougeFamily().segment_words(text) == len(rouge_tokens(text, stem=False)), text
    russian = RougeFamily(language="ru")
    assert russian.segment_words("-abc- _d_ ÄÖ ab9 Дождь") == 5 == len(unicode_raw_tokens("-abc- _d_ ÄÖ ab9 Дождь"))
    assert refusal([RougeFamily()], loaded({"A": ["x"]}, {"S": [" ".join(["a"] * limit)]})) is None


SEGMENT = st.lists(st.sampled_from(["a", "bb", " ", "  ", ".", "-", "\u00a0", "\t", "é"]), max_size=14).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=4), st.integers(1, 4), st.integers(1, 4))
def test_the_character_shortcut_never_skips_a_long_segment(segments: list[str], ter: int, rouge: int) -> None:
    # a segment of c characters has at most (c + 1) // 2 words or ROUGE tokens: only longer ones are counted
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TER, "max_segment_words", ter)
        patch.setattr(RougeFamily, "max_segment_words", rouge)
        line = refusal([TER(), RougeFamily()], loaded({"A": ["x"] * len(segments)}, {"S": segments}))
    over = [i for i, s in enumerate(segments) if len(s.split()) > ter or RougeFamily().segment_words(s) > rouge]
    assert (line is None) == (not over)
    if over:
        assert line is not None and line.startswith(f"/data/S.txt:{over[0] + 1}: ")


def test_limited_families_are_listed_once_in_order() -> None:
    families = [registry.create(n) for n in ("GTM", "mteval-v13a", "TER", "GTM")]
    assert [cls.family for cls in limited_families(families)] == ["GTM", "TER"]


def experiment(tmp_path: Path, metrics: list[str], long_words: int) -> Path:
    """Six lines of the ru-en sample (references A, B; two systems), line 4 of ``S1`` replaced by a
    segment of ``long_words`` words."""
    texts = {"A": RUEN / "refs" / "A.en", "B": RUEN / "refs" / "B.en",
             "S1": RUEN / "sys" / "AFRL.en", "S2": RUEN / "sys" / "Online-B.en"}
    for name, source in texts.items():
        lines = source.read_text(encoding="utf-8").splitlines()[:6]
        if name == "S1":
            lines[3] = words(long_words)
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = {"name": "limits", "cache": str(tmp_path / "cache"),
              "references": {r: str(tmp_path / f"{r}.txt") for r in ("A", "B")},
              "systems": {s: str(tmp_path / f"{s}.txt") for s in ("S1", "S2")}, "metrics": metrics}
    path = tmp_path / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def test_iqsetup_refuses_a_long_segment_before_computing_anything(tmp_path: Path) -> None:
    limit = TER.max_segment_words
    assert limit is not None
    config = experiment(tmp_path, ["BLEU", "TER", "chrF"], 2 * limit)
    result = run("iqsetup", str(config))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"iqsetup: error: {tmp_path / 'S1.txt'}:4: segment of {2 * limit:,} words is too "
                               f"long for TER (at most {limit:,}): "), lines[0]
    assert not list((tmp_path / "cache").rglob("*.xml"))  # no score file, not even BLEU's


def test_iqsetup_scores_the_long_segment_without_the_limited_metrics(tmp_path: Path) -> None:
    limit = TER.max_segment_words
    assert limit is not None
    config = experiment(tmp_path, ["BLEU", "chrF", "WER"], 2 * limit)
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "cache" / "S1" / "A" / "BLEU.xml").is_file()
    assert (tmp_path / "cache" / "S1" / "A_B" / "WER.xml").is_file()
