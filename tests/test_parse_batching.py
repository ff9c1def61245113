"""Batched tokenizing and tagging (issue 32) give the bytes of per-segment parsing, and the cache
is the same whatever the number of parse workers.

``StanzaParser(batch=N)`` tokenizes up to N segments per call and sends up to N one-sentence
segments through one call of the taggers while the parser still takes one sentence per batch;
these tests fail if the tokenizer's or a tagger's batch changed a label or if the parser's arc
scores were matched to the wrong segment."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("stanza", reason="needs Stanza and torch: pip install -e '.[syntax]'")
from stanza.models.common.doc import Document  # noqa: E402

from mteval.annotate.annotator import Annotator  # noqa: E402
from mteval.annotate.chunking import MAX_PARSE_WORDS  # noqa: E402
from mteval.annotate.model import ArcScores, Sentence, to_conllu  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    StanzaParser,
    available_processors,
    parser_forms,
    resolve_models,
)
from mteval.annotate.textprep import prepare_text  # noqa: E402

pytestmark = pytest.mark.models

DATA = Path(__file__).resolve().parents[1] / "data"


def texts() -> list[str]:
    """About 120 distinct real segments of both samples, plus awkward ones: an over-long segment
    (parsed in chunks), forms the parser simplifies (``Yes !!!`` and ``Yes !`` both as ``Yes !``),
    and texts with the same tokens."""
    files = [DATA / "wmt21-ruen-sample" / "refs" / "A.en", DATA / "wmt21-ruen-sample" / "sys" / "AFRL.en",
             DATA / "wmt21-ende-sample" / "src.en"]
    real = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()[:40]]
    odd = [",".join(["word"] * (MAX_PARSE_WORDS // 2 + 20)), "Wow!!! Really???", "Yes !!!", "Yes!!!", "Yes !",
           "It is 5 p.m.", "It is 5 p.m .", "OK."]
    return list(dict.fromkeys(prepare_text(t).text for t in [*real, *odd] if t.strip()))


def fingerprint(parsed: tuple[Sentence, ArcScores | None]) -> tuple[str, bytes, bytes, bytes]:
    sentence, scores = parsed
    assert scores is not None, sentence.text  # every segment, simplified marks too (before 2026-11-28
    # ``Wow!!! Really???`` had none and stopped EDPM)
    assert scores.arcs.shape == (len(sentence) + 1, len(sentence) + 1)
    return to_conllu([sentence]), scores.arcs.tobytes(), scores.label_heads.tobytes(), scores.label_logp.tobytes()


@pytest.mark.slow
def test_batched_tagging_gives_the_bytes_of_per_segment_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = StanzaParser(resolve_models("en", available_processors("en")), batch=1)
    segments = texts()
    alone = [fingerprint(parser.parse_one(t)) for t in segments]
    parser.batch = 16
    tokenized = [parser.pipeline(Document([], text=t), processors=parser._first).to_dict() for t in segments]
    assert parser._tokenize(segments) == tokenized  # paragraphs of one call: the same dicts, offsets too
    calls: list[str] = []
    one = parser.parse_one

    def alone_counted(text: str) -> tuple[Sentence, ArcScores | None]:
        calls.append(text)
        return one(text)

    monkeypatch.setattr(parser, "parse_one", alone_counted)
    batched = [fingerprint(p) for half in (segments[::2], segments[1::2]) for p in parser.parse(half)]
    batched = [batched[i // 2] if i % 2 == 0 else batched[(len(segments) + 1) // 2 + i // 2]
               for i in range(len(segments))]
    assert [t for t, a, b in zip(segments, alone, batched, strict=True) if a != b] == []
    assert len(segments) > 100 and len(calls) < 10  # nearly all went through the batches
    assert {"Yes !!!", "Yes!!!", "Wow!!! Really???"} <= set(calls)  # forms the parser simplified: alone
    assert "Yes !" in calls  # its own words, but the parser forms of "Yes !!!": alone too
    assert segments[0] not in calls and any(t.count(",") > MAX_PARSE_WORDS // 2 for t in calls)  # chunked


def cache_digest(folder: Path) -> dict[str, str]:
    """SHA-256 of every shard file of an annotation cache, by name without the writer's process id and
    running number (``<pid>-<number>-<digest>.<suffix>``)."""
    return {p.name.rsplit("-", 1)[1]: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.suffix in (".keys", ".conllu", ".npz")}


@pytest.mark.slow  # ~5 s: in make test-all (the fast tier stays under 8 minutes)
def test_one_and_two_parse_workers_write_the_same_cache(tmp_path: Path) -> None:
    segments = texts()[:80]
    for workers in (1, 2):
        ann = Annotator(tmp_path / f"j{workers}", workers=workers, batch_size=32)
        ann.arc_scores(segments)
        assert ann.parsed == len(segments)
    one, two = cache_digest(tmp_path / "j1"), cache_digest(tmp_path / "j2")
    assert len([k for k in one if k.endswith(".keys")]) == 3 and one == two


def test_parser_forms_are_stanzas_and_the_words_without_its_simplification(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parser_forms([("Yes", "!!!"), ("Why", "?!"), ("OK", ".")]) == [("Yes", "!"), ("Why", "?"), ("OK", ".")]
    monkeypatch.setitem(sys.modules, "stanza.models.common.utils", types.ModuleType("utils"))  # Stanza 1.9/1.10
    assert parser_forms([("Yes", "!!!")]) == [("Yes", "!!!")]
