"""Unit tests: readers, IQ-XML store, config validation, set parsing."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import ConfigError, InputError
from mteval.experiment.loading import load
from mteval.experiment.sets import parse_segments
from mteval.io.corpus import DocumentIndex
from mteval.io.plain import read_plain
from mteval.io.readers import align_texts, check_aligned, read_text
from mteval.metrics.base import ScoreSet
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import ScoreFile, _to_xml_tree, parse, to_xml


def test_plain_reader_crlf_and_no_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"one\r\ntwo\r\n\r\nlast")
    text = read_plain(path, "x")
    assert text.segments == ("one", "two", "", "last")
    assert text.documents.documents == ("UNKNOWN_DOC",)


def test_sgml_documents_and_sysid() -> None:
    sgml = ROOT / "data" / "wmt21-ruen-sample" / "sgml" / "refs.en.sgm"
    ref_b = read_text(sgml, "B", sysid="B")
    plain_b = read_plain(ROOT / "data" / "wmt21-ruen-sample" / "refs" / "B.en", "B")
    assert ref_b.segments == plain_b.segments
    assert len(ref_b.documents.documents) == 10
    check_aligned([plain_b, ref_b])  # plain text aligns with any documents
    with pytest.raises(InputError, match="no sysid 'C'"):
        read_text(sgml, "C", sysid="C")


def test_documents_must_align(tmp_path: Path) -> None:
    a = tmp_path / "a.sgm"
    b = tmp_path / "b.sgm"
    c = tmp_path / "c.sgm"
    a.write_text('<tstset>\n<doc docid="d1" sysid="a">\n<seg id="1">x</seg>\n<seg id="2">y</seg>\n</doc>\n</tstset>\n')
    b.write_text('<tstset>\n<doc docid="d1" sysid="b">\n<seg id="1">x</seg>\n</doc>\n<doc docid="d2" sysid="b">\n'
                 '<seg id="1">y</seg>\n</doc>\n</tstset>\n')
    c.write_text('<tstset>\n<doc docid="d1" sysid="c">\n<seg id="2">Y</seg>\n<seg id="1">X</seg>\n</doc>\n</tstset>\n')
    with pytest.raises(InputError, match=r"b.sgm:6: document 'd2' is not in .*a.sgm"):
        check_aligned([read_text(a, "a"), read_text(b, "b")])
    c.write_text(c.read_text().replace('id="2"', 'id="3"'))
    with pytest.raises(InputError, match=r"c.sgm: segment id '2' of document 'd1' \(.*a.sgm:4\) is missing"):
        check_aligned([read_text(a, "a"), read_text(c, "c")])
    c.write_text(c.read_text().replace('id="3"', 'id="2"'))
    model, plain, moved = align_texts([read_text(a, "a"), read_plain(_lines(tmp_path, "P", "Q"), "p"),
                                       read_text(c, "c")])
    assert moved.segments == ("X", "Y") and moved.lines == (4, 3) and moved.documents == model.documents
    assert plain.segments == ("P", "Q")  # plain text stays positional


def test_sgml_without_segment_ids_aligns_by_position_in_each_document(tmp_path: Path) -> None:
    ref = tmp_path / "ref.sgm"
    hyp = tmp_path / "hyp.sgm"
    ref.write_text('<refset>\n<doc docid="d1" sysid="r">\n<seg id="1">a</seg>\n<seg id="2">b</seg>\n</doc>\n'
                   '<doc docid="d2" sysid="r">\n<seg id="1">c</seg>\n</doc>\n</refset>\n')
    hyp.write_text('<tstset>\n<doc docid="d2" sysid="h">\n<seg>C</seg>\n</doc>\n<doc docid="d1" sysid="h">\n'
                   '<seg>A</seg>\n<seg>B</seg>\n</doc>\n</tstset>\n')
    _, aligned = align_texts([read_text(ref, "r"), read_text(hyp, "h")])
    assert aligned.segments == ("A", "B", "C") and aligned.documents.doc_ids == ("d1", "d1", "d2")


def _lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "plain.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_store_round_trip_full_precision(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    docs = DocumentIndex(("d1", "d1", "d2"))
    scores = ScoreSet(1 / 3, {"d1": 0.1 + 0.2, "d2": 2.0}, np.array([1 / 7, np.nan, 1e-17]))
    cache.save("S", "A_B", "ROUGE-S*", scores, docs.doc_ids, "sig", "digest")
    back = cache.load("S", "A_B", "ROUGE-S*", 3)
    assert back.system == 1 / 3 and back.documents == {"d1": 0.1 + 0.2, "d2": 2.0}
    assert back.segments[0] == 1 / 7 and np.isnan(back.segments[1]) and back.segments[2] == 1e-17
    assert cache.is_current("S", "A_B", "ROUGE-S*", "sig", "digest")
    assert not cache.is_current("S", "A_B", "ROUGE-S*", "sig2", "digest")
    assert cache.available() == [("S", "A_B", "ROUGE-S*")]


def test_reads_asiya_gzip_report(tmp_path: Path) -> None:
    folder = tmp_path / "google.txt" / "ref.txt"
    folder.mkdir(parents=True)
    xml = ('<?xml version="1.0"?>\n<!DOCTYPE REPORT SYSTEM "asiya.dtd" []>\n<REPORT hyp="google.txt" '
           'metric="BLEU-4" n_docs="1" n_segments="3" ref="ref.txt" score="0.48250000">\n'
           '<DOC id="UNKNOWN_DOC" n="1" n_segments="3" score="0.42813333">\n<S n="1">0.21040000</S>\n'
           '<S n="2">1.00000000</S>\n<S n="3">0.07400000</S>\n</DOC>\n</REPORT>\n')
    (folder / "BLEU-4.xml.gz").write_bytes(gzip.compress(xml.encode()))
    scores = ScoreCache(tmp_path).load("google.txt", "ref.txt", "BLEU-4")
    assert scores.system == 0.4825 and list(scores.segments) == [0.2104, 1.0, 0.074]
    assert parse(folder / "BLEU-4.xml.gz").target == "google.txt"


def test_segment_ranges() -> None:
    assert parse_segments("1-3, 10, 50..52", 100) == [1, 2, 3, 10, 50, 51, 52]
    with pytest.raises(ConfigError, match="outside 1-100"):
        parse_segments("99-101", 100)
    with pytest.raises(ConfigError, match="not a segment number"):
        parse_segments("1-x", 100)


def test_config_family_selection_and_paths(tmp_path: Path) -> None:
    config = tmp_path / "sub" / "e.yaml"
    config.parent.mkdir()
    config.write_text("references: {A: ../a.txt}\nsystems: {S: s.txt}\nmetrics: [BLEU, {NIST: [NIST-2]}, "
                      "{BLEU: all}]\n")
    experiment = load(config)
    assert experiment.references[0].path == tmp_path / "a.txt"
    assert experiment.metrics[:3] == ("BLEU", "NIST-2", "BLEU-1")
    assert experiment.cache == tmp_path / "sub" / "e-cache"


def test_config_accepts_underscore_in_reference_names(tmp_path: Path) -> None:
    """The manual's reference_file.txt.1: reference-set folders escape '_' (mteval.store.refsets)."""
    config = tmp_path / "e.yaml"
    config.write_text("references: {ref_1: a.txt, ref_2: b.txt}\nsystems: {S: s.txt}\nmetrics: [BLEU]\n")
    assert load(config).reference_names == ("ref_1", "ref_2")


def test_legacy_config() -> None:
    experiment = load(ROOT / "configs" / "legacy.config")
    assert experiment.reference_names == ("A.de", "C.de", "D.de")
    assert experiment.metrics == ("BLEU-4", "BLEUi-2", "NIST-5")
    assert experiment.sets["some_segs"] == "1-3, 10, 50-60"


def test_annotation_paths_resolve_against_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "ref.txt").write_text("a\n")
    cfg = tmp_path / "conf" / "exp.yaml"
    cfg.write_text("references: {A: ../ref.txt}\nsystems: {S: ../ref.txt}\nmetrics: [BLEU]\n"
                   "annotation: {cache: ../ann, model_paths: {depparse: models/p.pt}, workers: 2}\n")
    exp = load(cfg)
    assert exp.annotation["cache"] == tmp_path / "ann" and exp.annotation["workers"] == 2
    assert exp.annotation["model_paths"] == {"depparse": str(tmp_path / "conf" / "models" / "p.pt")}
    cfg.write_text("references: {A: ../ref.txt}\nsystems: {S: ../ref.txt}\nmetrics: [BLEU]\nannotation: [x]\n")
    with pytest.raises(ConfigError, match="annotation"):
        load(cfg)


_NAME_CHARS = list('ab<>&"\'\n\r\t é\x7f\x85\u2028\U0001F600;=') + ["\x01"]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_text_score_file_is_what_lxml_writes(data: st.DataObject) -> None:
    # names, document ids and values the escaping, float formatting and document grouping must get right
    name = st.lists(st.sampled_from(_NAME_CHARS), max_size=5).map("".join)
    number = st.sampled_from([0.1, 1.0, -0.0, math.nan, math.inf, -math.inf, 1e300, 3.0, 2.0 ** 60, 1e-310])
    n = data.draw(st.integers(0, 5))
    docs = tuple(data.draw(st.lists(st.one_of(st.sampled_from(["d1", "d2"]), name), min_size=n, max_size=n)))
    stats = data.draw(st.one_of(st.none(), st.lists(number, min_size=3 * n, max_size=3 * n)))
    scores = ScoreSet(data.draw(number), {d: data.draw(number) for d in docs if data.draw(st.booleans())},
                      np.array(data.draw(st.lists(number, min_size=n, max_size=n)), dtype=np.float64),
                      None if stats is None else np.array(stats, dtype=np.float64).reshape(n, 3))
    score_file = ScoreFile(data.draw(name), data.draw(name), data.draw(name), scores, data.draw(name),
                           data.draw(name), data.draw(st.one_of(st.just(""), name)))
    outcomes = []
    for write in (to_xml, _to_xml_tree):
        try:
            outcomes.append(write(score_file, docs))
        except ValueError as exc:  # a name lxml refuses (a control character): the same error
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_statistics_text_reused_only_for_the_same_bits() -> None:
    # the last matrix's text is reused (BLEU and NIST files share one), never for another one (-0.0 is not 0.0)
    zero, negative = np.array([[0.0, 1.5]]), np.array([[-0.0, 1.5]])
    files = [to_xml(ScoreFile("M", "T", "A", ScoreSet(0.5, {"d": 0.5}, np.array([0.5]), stats)), ("d",))
             for stats in (zero, zero.copy(), negative, zero)]
    assert files[0] == files[1] == files[3] != files[2]
    assert b'stats="0 1.5"' in files[0] and b'stats="-0.0 1.5"' in files[2]
