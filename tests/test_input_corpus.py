"""The input-text corpus: every odd text file either scores exactly as its clean twin or is refused.

Through the installed commands: ``iqsetup`` on a small experiment, then ``iqeval -doOQ --tsv``.
Variants that must not change a number (SGML documents and segments in another order, plain text
beside SGML, character references, BOM, CRLF) sit in one experiment beside the clean file and must
give byte-identical TSV rows; empty segments are checked against sacreBLEU in-process; bad files
must give one line naming the file and line, exit 2, and no score file.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest
import sacrebleu
from helpers import ENDE, RUEN, ende_config, run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bad_input import assert_user_error

from mteval.errors import InputError
from mteval.io.readers import read_text
from mteval.io.sgml import parse_sgml

SGML = RUEN / "sgml"
METRICS = ["BLEU", "chrF"]
_SEG_LINE = re.compile(r'^(<seg[^>]*>)(.*)(</seg>)$')


def _config(tmp: Path, references: dict, systems: dict, source: object = None) -> Path:
    return ende_config(tmp, references=references, systems=systems, source=source, metrics=METRICS, sets={})


def _tsv(config: Path, *args: str) -> list[dict[str, str]]:
    result = run("iqeval", "-doOQ", "--tsv", *args, str(config))
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    return [dict(zip(header.split("\t"), row.split("\t"), strict=True)) for row in rows]


def _setup(config: Path) -> None:
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr


def _by_target(rows: list[dict[str, str]]) -> dict[str, list[tuple[str, ...]]]:
    """Each target's rows without the target column, in output order."""
    out: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for row in rows:
        out[row["target"]].append(tuple(v for k, v in row.items() if k != "target"))
    return out


def _write(path: Path, text: str, bom: bool = False, crlf: bool = False) -> Path:
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def _shuffled(sgml: str) -> str:
    """Documents in reverse order, and the segments of every document in reverse order."""
    head, rest = sgml.split("\n", 1)
    docs = re.findall(r"<doc\b.*?</doc>\n", rest, flags=re.S)
    assert len(docs) > 1
    out = []
    for doc in reversed(docs):
        lines = doc.splitlines(keepends=True)
        segs = [line for line in lines if line.startswith("<seg")]
        others = [line for line in lines if not line.startswith("<seg")]
        out.append(others[0] + "".join(reversed(segs)) + "".join(others[1:]))
    return head + "\n" + "".join(out) + rest[rest.rindex("</doc>\n") + len("</doc>\n"):]


_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "e": "&#101;", "a": "&#x61;",
               "é": "&#xE9;"}


def _escape(text: str) -> str:
    """Segment text written with every kind of reference the reader decodes."""
    return "".join(_REFERENCES.get(c, c) for c in text)


def _map_segments(sgml: str, change) -> str:  # type: ignore[no-untyped-def]
    lines = []
    for line in sgml.splitlines(keepends=True):
        m = _SEG_LINE.match(line.rstrip("\n"))
        lines.append(f"{m.group(1)}{change(m.group(2))}{m.group(3)}\n" if m else line)
    return "".join(lines)


def test_sgml_matched_by_id_mixed_with_plain_and_references(tmp_path: Path) -> None:
    """Reordered SGML, plain text, entities, BOM + CRLF: the same rows as the clean SGML; numbers = sacreBLEU."""
    clean = (SGML / "AFRL.en.sgm").read_text(encoding="utf-8")
    plain = (RUEN / "sys" / "AFRL.en").read_text(encoding="utf-8")
    # raw & and <, named HTML entities (kept), XML and numeric references (decoded) vs the plain text
    odd_sgml, odd_plain = " &nbsp;caf&eacute; R&D a < b &amp;&lt; &#233;&#xE9;", " &nbsp;caf&eacute; R&D a < b &< éé"
    first = True

    def append_once(text: str) -> str:
        nonlocal first
        text, first = (text + odd_sgml if first else text), False
        return text

    systems = {
        "clean": str(SGML / "AFRL.en.sgm"),
        "shuffled": str(_write(tmp_path / "shuffled.sgm", _shuffled(clean))),
        "plain": str(RUEN / "sys" / "AFRL.en"),
        "entities": str(_write(tmp_path / "entities.sgm", _map_segments(clean, _escape))),
        "bomcrlf": str(_write(tmp_path / "bomcrlf.sgm", clean, bom=True, crlf=True)),
        "odd-sgml": str(_write(tmp_path / "odd.sgm", _map_segments(clean, append_once))),
        "odd-plain": str(_write(tmp_path / "odd.txt", plain.replace("\n", odd_plain + "\n", 1))),
    }
    source = _write(tmp_path / "src.sgm", _shuffled((SGML / "src.ru.sgm").read_text(encoding="utf-8")))
    config = _config(tmp_path, {"A": {"path": str(SGML / "refs.en.sgm"), "sysid": "A"},
                                "B": str(RUEN / "refs" / "B.en")}, systems, str(source))
    _setup(config)
    seg = _by_target(_tsv(config, "-G", "seg"))
    assert len(seg["clean"]) == 2 * 105 and seg["clean"][0][2:4] == ("seg", "kp.235560")
    for name in ("shuffled", "plain", "entities", "bomcrlf"):
        assert seg[name] == seg["clean"], name
    assert seg["odd-sgml"] == seg["odd-plain"] != seg["clean"]
    system = {(r["target"], r["metric"]): float(r["score"]) for r in _tsv(config, "-G", "sys")}
    hyp = plain.splitlines()
    refs = [read_text(SGML / "refs.en.sgm", "A", sysid="A").segments,
            (RUEN / "refs" / "B.en").read_text(encoding="utf-8").splitlines()]
    assert system["shuffled", "BLEU"] == pytest.approx(sacrebleu.corpus_bleu(hyp, refs).score / 100, rel=1e-9)
    assert system["shuffled", "chrF"] == pytest.approx(sacrebleu.corpus_chrf(hyp, refs).score, rel=1e-9)


def test_plain_references_take_the_order_of_the_sgml_source(tmp_path: Path) -> None:
    """With plain references, a reordered SGML system is put in the SGML source's order."""
    clean = (SGML / "AFRL.en.sgm").read_text(encoding="utf-8")
    systems = {"shuffled": str(_write(tmp_path / "shuffled.sgm", _shuffled(clean))),
               "plain": str(RUEN / "sys" / "AFRL.en")}
    config = _config(tmp_path, {r: str(RUEN / "refs" / f"{r}.en") for r in ("A", "B")}, systems,
                     str(SGML / "src.ru.sgm"))
    _setup(config)
    seg = _by_target(_tsv(config, "-G", "seg"))
    assert len(seg["plain"]) == 2 * 105 and seg["shuffled"] == seg["plain"]


def test_bom_and_crlf_plain_files_score_as_clean(tmp_path: Path) -> None:
    """BOM, CRLF and both, in systems and in a reference: byte-identical rows."""
    uedin = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8")
    ref = (ENDE / "refs" / "A.de").read_text(encoding="utf-8")
    systems = {"clean": str(ENDE / "sys" / "UEdin.de"),
               "bom": str(_write(tmp_path / "bom.de", uedin, bom=True)),
               "crlf": str(_write(tmp_path / "crlf.de", uedin, crlf=True)),
               "both": str(_write(tmp_path / "both.de", uedin, bom=True, crlf=True))}
    config = _config(tmp_path, {"A": str(ENDE / "refs" / "A.de"),
                                "Abomcrlf": str(_write(tmp_path / "A.de", ref, bom=True, crlf=True))}, systems)
    _setup(config)
    clean_ref = _by_target(_tsv(config, "-G", "seg", "-R", "A"))
    other_ref = _by_target(_tsv(config, "-G", "seg", "-R", "Abomcrlf"))
    assert len(clean_ref["clean"]) == 2 * 100
    for name in systems:
        assert clean_ref[name] == clean_ref["clean"], name
        assert [r[1:] for r in other_ref[name]] == [r[1:] for r in clean_ref["clean"]], name


def test_empty_segments_are_scored_not_dropped(tmp_path: Path) -> None:
    """An empty segment in the middle (and C1 characters), a file of blank lines: as mteval-v13a/sacreBLEU."""
    lines = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8").split("\n")[:-1]
    lines[41] = ""
    lines[9] = lines[9].replace(" ", "\u0085", 1) + " \x7f \x92"  # C1 and DEL are kept (U+0085: whitespace)
    systems = {"middle": str(_write(tmp_path / "middle.de", "".join(f"{x}\n" for x in lines))),
               "blank": str(_write(tmp_path / "blank.de", "\n" * 100))}
    refs = {r: str(ENDE / "refs" / f"{r}.de") for r in ("A", "C")}
    config = _config(tmp_path, refs, systems)
    _setup(config)
    seg = [r for r in _tsv(config, "-G", "seg") if r["target"] == "middle"]
    assert [r["segment"] for r in seg if r["metric"] == "BLEU"] == [str(i) for i in range(1, 101)]
    assert {float(r["score"]) for r in seg if r["segment"] == "42"} == {0.0}
    system = {(r["target"], r["metric"]): float(r["score"]) for r in _tsv(config, "-G", "sys")}
    ref_lines = [Path(p).read_text(encoding="utf-8").splitlines() for p in refs.values()]
    assert system["middle", "BLEU"] == pytest.approx(sacrebleu.corpus_bleu(lines, ref_lines).score / 100, rel=1e-9)
    assert system["middle", "chrF"] == pytest.approx(sacrebleu.corpus_chrf(lines, ref_lines).score, rel=1e-9)
    assert system["blank", "BLEU"] == 0.0 and system["blank", "chrF"] == 0.0


def test_unusual_but_valid_docids_work(tmp_path: Path) -> None:
    """Quotes, ``&``, non-ASCII and 200 characters in a docid: kept exactly, in score files and TSV."""
    docid = 'kp "x" & é ' + "d" * 189
    assert len(docid) == 200
    ref = (SGML / "refs.en.sgm").read_text(encoding="utf-8").replace('docid="kp.235560"', f"docid='{docid}'")
    sys = (SGML / "AFRL.en.sgm").read_text(encoding="utf-8").replace('docid="kp.235560"', f"docid='{docid}'")
    config = _config(tmp_path, {"A": {"path": str(_write(tmp_path / "r.sgm", ref)), "sysid": "A"}},
                     {"S": str(_write(tmp_path / "s.sgm", sys))})
    _setup(config)
    docs = [r["doc"] for r in _tsv(config, "-G", "doc", "-M", "BLEU")]
    assert docs[0] == docid and len(docs) == 10


# --- refused: one line naming the file (and line), exit 2, no score file ---------------------------

def _refused(tmp_path: Path, config: Path, *fragments: str, timeout: float = 600) -> None:
    result = subprocess.run(["iqsetup", str(config)], capture_output=True, text=True, timeout=timeout)
    assert_user_error(result, *fragments)
    assert not list((tmp_path / "cache").rglob("*.xml"))


def _plain_system(tmp_path: Path, data: bytes, name: str = "S.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return ende_config(tmp_path, systems={"S": str(path)}, metrics=METRICS, sets={})


UEDIN = (ENDE / "sys" / "UEdin.de").read_bytes()
_LINES = UEDIN.split(b"\n")


def _with_line(number: int, content: bytes) -> bytes:
    lines = list(_LINES)
    lines[number - 1] = content
    return b"\n".join(lines)


@pytest.mark.parametrize(("data", "fragments"), [
    (_with_line(5, b"old\rmac\rline"), ("S.txt:5", "bare carriage return", "column 4")),
    (_with_line(7, b"bin\x00ary"), ("S.txt:7", "NUL")),
    (_with_line(9, b"form\x0cfeed"), ("S.txt:9", "U+000C")),
    (_with_line(11, b"file\x1cseparator"), ("S.txt:11", "U+001C")),
    ("one\ntwo\n".encode("utf-16"), ("S.txt:1", "UTF-16")),
    (b"", ("S.txt", "is empty")),
    (b"\n".join(_LINES[:99]) + b"\n", ("S.txt", "99 segments (lines)", "A.de has 100")),
    (UEDIN + b"one more\n", ("S.txt", "101 segments (lines)", "A.de has 100")),
], ids=["bare-cr", "nul", "form-feed", "c0-fs", "utf16", "empty", "shorter", "longer"])
def test_bad_plain_file(tmp_path: Path, data: bytes, fragments: tuple[str, ...]) -> None:
    _refused(tmp_path, _plain_system(tmp_path, data), *fragments)


def test_not_a_regular_file(tmp_path: Path) -> None:
    """A directory, a FIFO (which must never be opened: it would block) and a device."""
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "is a FIFO"), (tmp_path, "is a directory"), (Path("/dev/null"), "character device")):
        config = ende_config(tmp_path, systems={"S": str(path)}, metrics=METRICS, sets={})
        _refused(tmp_path, config, str(path), kind, timeout=60)


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    from mteval.io.plain import MAX_BYTES

    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: no disk, and nothing read
    config = ende_config(tmp_path, systems={"S": str(huge)}, metrics=METRICS, sets={})
    _refused(tmp_path, config, "huge.txt", "limited to 256 MiB", timeout=60)


def test_sysid_for_plain_text_is_refused(tmp_path: Path) -> None:
    config = ende_config(tmp_path, systems={"S": {"path": str(ENDE / "sys" / "UEdin.de"), "sysid": "UEdin"}},
                         metrics=METRICS, sets={})
    _refused(tmp_path, config, "UEdin.de", "sysid 'UEdin'", "plain text")


def _sgml_doc(body: str, docid: str = "d1", tail: str = "</doc>\n") -> str:
    return f'<tstset setid="x" srclang="ru" trglang="en">\n<doc sysid="S" docid="{docid}">\n{body}{tail}</tstset>\n'


@pytest.mark.parametrize(("text", "fragments"), [
    (_sgml_doc('<seg id="1">a <seg id="2">b</seg></seg>\n'), ("S.sgm:3", "nested <seg>")),
    (_sgml_doc('<seg id="1">a</seg><seg id="2">b</seg>\n'), ("S.sgm:3", "two <seg> on one line")),
    (_sgml_doc('<seg id="1">a</seg>\n', tail=""), ("S.sgm:2", "'d1' has no </doc>")),
    (_sgml_doc('<seg id="1">a</seg>\n<doc sysid="S" docid="d2">\n'), ("S.sgm:4", "<doc> inside document 'd1'")),
    (_sgml_doc('<seg id="1">a &#0; b</seg>\n'), ("S.sgm:3", "&#0;", "U+0000")),
    (_sgml_doc('<seg id="1">a &#x0A; b</seg>\n'), ("S.sgm:3", "&#x0A;", "U+000A")),
    (_sgml_doc('<seg id="1">a</seg>\n', docid="d\x01"), ("S.sgm:2", "docid", "U+0001")),
    (_sgml_doc('<seg id="1">a</seg>\n', docid="d\t1"), ("S.sgm:2", "docid", "U+0009 (tab)")),
    (_sgml_doc('<seg id="1">a</seg>\n', docid="d" * 300), ("S.sgm:2", "300 characters", "at most 200")),
], ids=["nested-seg", "two-segs", "no-end-doc", "doc-in-doc", "nul-reference", "newline-reference",
        "docid-control", "docid-tab", "docid-long"])
def test_bad_sgml_structure(tmp_path: Path, text: str, fragments: tuple[str, ...]) -> None:
    _refused(tmp_path, _plain_system(tmp_path, text.encode(), "S.sgm"), *fragments)


def _ruen_with_system(tmp_path: Path, sgml: str) -> Path:
    path = _write(tmp_path / "S.sgm", sgml)
    return _config(tmp_path, {"A": {"path": str(SGML / "refs.en.sgm"), "sysid": "A"}}, {"S": str(path)})


def test_missing_and_extra_ids_are_named(tmp_path: Path) -> None:
    clean = (SGML / "AFRL.en.sgm").read_text(encoding="utf-8")
    no_doc = re.sub(r'<doc [^>]*docid="aif.321208".*?</doc>\n', "", clean, flags=re.S)
    _refused(tmp_path, _ruen_with_system(tmp_path, no_doc), "S.sgm:", "document 'aif.321208'",
             "(first segment at", "refs.en.sgm:14) is missing")
    first_doc = re.search(r"<doc .*?</doc>\n", clean, flags=re.S)
    assert first_doc is not None
    assert clean.endswith("</tstset>\n")
    extra = clean.replace("</tstset>", first_doc.group(0).replace('docid="kp.235560"', 'docid="other"') + "</tstset>")
    line = clean.count("\n") + 1  # the first <seg> of the added document
    _refused(tmp_path, _ruen_with_system(tmp_path, extra), f"S.sgm:{line}", "document 'other' is not in",
             "refs.en.sgm")
    renumbered = clean.replace('<seg id="3">', '<seg id="99">', 1)
    _refused(tmp_path, _ruen_with_system(tmp_path, renumbered), "S.sgm:", "segment id '3' of document 'kp.235560'",
             "refs.en.sgm:5) is missing")


# --- the readers on their own ------------------------------------------------------------------------

def test_long_segment_is_read_in_linear_time(tmp_path: Path) -> None:
    """A 5,000-token segment (with entities and raw ``&``/``<``), and a hostile line of open tags."""
    tokens = " ".join(f"w{i} &amp; x &#233; < & y" if i % 50 == 0 else f"w{i}" for i in range(5000))
    path = _write(tmp_path / "long.sgm", _sgml_doc(f'<seg id="1">{tokens}</seg>\n'))
    started = time.perf_counter()
    text = read_text(path, "S")
    assert time.perf_counter() - started < 1.0
    assert len(text.segments[0].split()) == 5000 + 100 * 6 and "& x é < & y" in text.segments[0]
    hostile = "<seg <doc </seg <p " * 20000  # no tag closes: text, scanned once
    path = _write(tmp_path / "hostile.sgm", _sgml_doc(f'<seg id="1">{hostile}</seg>\n'))
    started = time.perf_counter()
    assert read_text(path, "S").segments == (hostile.strip(),)
    assert time.perf_counter() - started < 1.0
    unclosed = _write(tmp_path / "unclosed.sgm", "<tstset " * 20000 + "\n")  # no set tag ever closes
    started = time.perf_counter()
    with pytest.raises(InputError, match="not NIST/WMT SGML"):
        read_text(unclosed, "S", "sgml")
    assert time.perf_counter() - started < 1.0


_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="".join(
    chr(c) for c in range(32) if c != 9)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.lists(st.integers(0, 3), min_size=40, max_size=40))
def test_sgml_escaping_round_trips(text: str, ways: list[int]) -> None:
    """Any text, each character written raw, as an XML entity or as a decimal or hex reference, reads back."""
    named = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
    out = []
    for char, way in zip(text, ways, strict=False):
        if way == 0 and char not in "&<":
            out.append(char)
        elif way == 1 and char in named:
            out.append(named[char])
        elif way == 3:
            out.append(f"&#x{ord(char):X};")
        else:
            out.append(f"&#{ord(char)};")
    segment = "".join(out)
    texts = parse_sgml(_sgml_doc(f'<seg id="1">{segment}</seg>\n').split("\n"), "x.sgm")  # not splitlines: U+0085
    assert texts[0].segments == (text.strip(),)
