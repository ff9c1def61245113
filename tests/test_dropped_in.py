"""Users' own score files as the IQMT 2.0 manual prints them (§4.1.1 "IQ XML", §4.1.2 "Playing
with your own metrics"; issue 13, items 3 and 7), dropped into a cache that ``iqsetup`` computed
from the bundled en-de sample and read by the installed ``iqeval``.

The manual's sample deviates from well-formed XML and from what mteval writes: ``<S n="1">0.3033``
has no end tag, there is no XML declaration, no ``<DOC>``, only the root attributes ``metric ref
score target`` (no ``n_segments``, ``signature`` or ``digest``), four decimals, and a ``...`` line
for the segments it leaves out. Each deviation is tested alone, then hostile and malformed
variants, then the mode of written score files.
"""

from __future__ import annotations

import gzip
import io
import os
import resource
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import ende_config, run
from lxml import etree
from test_bad_input import assert_user_error

from mteval.errors import CacheError
from mteval.store import iqxml
from mteval.store.iqxml import parse

SYSTEMS = ("Facebook-AI", "UEdin", "Online-W")
VALUES = [((i * 37) % 1000) / 1000 for i in range(1, 101)]  # 0.037, 0.074, ... (100 segments)
SYSTEM_SCORES = {"Facebook-AI": 0.3945, "UEdin": 0.4125, "Online-W": 0.2501}


@pytest.fixture(scope="module")
def computed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cache computed by ``iqsetup`` (BLEU) under umask 022, and the name of the folder of the
    multi-reference set (``iqeval``'s refset column, so the test follows how names are joined)."""
    tmp = tmp_path_factory.mktemp("computed")
    config = ende_config(tmp, metrics=["BLEU"])
    result = subprocess.run(["iqsetup", "-q", str(config)], capture_output=True, text=True, timeout=300,
                            preexec_fn=lambda: os.umask(0o022) and None)
    assert result.returncode == 0, result.stderr
    listing = run("iqeval", "-doOQ", "-M", "BLEU", "-S", "UEdin", "--tsv", str(config))
    assert listing.returncode == 0, listing.stderr
    return tmp, listing.stdout.splitlines()[1].split("\t")[1]


class Experiment:
    """A private copy of the computed experiment."""

    def __init__(self, computed: tuple[Path, str], tmp: Path) -> None:
        shutil.copytree(computed[0] / "cache", tmp / "cache")
        self.config = ende_config(tmp, metrics=["BLEU"], sets={"own": ["MINE", "OTHER"]})
        self.refset, self.cache = computed[1], tmp / "cache"

    def drop_in(self, text: str | bytes, target: str = "UEdin", metric: str = "MINE", suffix: str = ".xml") -> Path:
        path = self.cache / target / self.refset / f"{metric}{suffix}"
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        return path

    def iqeval(self, *args: str, preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["iqeval", "-doOQ", "--tsv", *args, str(self.config)], capture_output=True, text=True,
                              timeout=300, preexec_fn=preexec_fn)


@pytest.fixture()
def experiment(computed: tuple[Path, str], tmp_path: Path) -> Experiment:
    return Experiment(computed, tmp_path)


def manual_sample(target: str, refset: str, values: list[float] = VALUES, metric: str = "MINE") -> str:
    """The manual's §4.1.1 sample, line for line, for this target, reference set and segments."""
    lines = [f'<IQ metric="{metric}" ref="{refset}" score="{SYSTEM_SCORES[target]}" target="{target}">']
    lines += [f'<S n="{n}">{value:.4f}' for n, value in enumerate(values, 1)]
    return "\n".join([*lines, "</IQ>"]) + "\n"


def rows(result: subprocess.CompletedProcess[str], metric: str = "MINE") -> list[list[str]]:
    assert result.returncode == 0, result.stderr
    return [line.split("\t") for line in result.stdout.splitlines()[1:] if line.split("\t")[2] == metric]


def test_the_manual_sample_as_printed(experiment: Experiment) -> None:
    """The sample of §4.1.1 for every system: not XML, yet read at every level, without a word."""
    for target in SYSTEMS:
        path = experiment.drop_in(manual_sample(target, experiment.refset), target)
    with pytest.raises(etree.XMLSyntaxError):
        etree.parse(str(path))
    seg = experiment.iqeval("-G", "seg")
    assert seg.stderr == ""
    got = rows(seg)
    assert len(got) == 300 and {r[0] for r in got} == set(SYSTEMS)
    assert [float(r[6]) for r in got if r[0] == "UEdin"] == [float(f"{v:.4f}") for v in VALUES]
    assert [int(r[5]) for r in got if r[0] == "UEdin"] == list(range(1, 101))
    assert {r[0]: float(r[6]) for r in rows(experiment.iqeval("-G", "sys"))} == SYSTEM_SCORES
    doc = rows(experiment.iqeval("-G", "doc", "-S", "UEdin"))  # no <DOC> scores: the mean of the segments
    assert len(doc) == 1 and float(doc[0][6]) == pytest.approx(sum(VALUES) / 100)
    assert len(rows(seg, "BLEU")) == 300  # the computed metric is still there


OURS = {  # the layout mteval writes; each case below changes one thing, as the manual's sample does
    "declaration": '<?xml version="1.0" encoding="UTF-8"?>\n',
    "root": '<IQ metric="MINE" target="UEdin" ref="{refset}" score="0.4125" n_docs="1" n_segments="100">',
    "doc": '<DOC id="UNKNOWN_DOC" n="1" n_segments="100" score="0.5">', "doc_end": "</DOC>",
    "segment": '<S n="{n}">{value!r}</S>', "end": "</IQ>", "newline": "\n",
}
DEVIATIONS = {
    "ours": {},
    "manual: <S> without end tags": {"segment": '<S n="{n}">{value!r}'},
    "manual: no XML declaration": {"declaration": ""},
    "manual: no <DOC>": {"doc": "", "doc_end": ""},
    "manual: root attributes metric ref score target only": {
        "root": '<IQ metric="MINE" ref="{refset}" score="0.4125" target="UEdin">'},
    "manual: four decimals": {"segment": '<S n="{n}">{value:.4f}</S>'},
    "manual: all of them": {"declaration": "", "doc": "", "doc_end": "", "segment": '<S n="{n}">{value:.4f}',
                            "root": '<IQ metric="MINE" ref="{refset}" score="0.4125" target="UEdin">'},
    "<DOC> without end tag": {"doc_end": ""},
    "single quotes": {"segment": "<S n='{n}'>{value!r}"},
    "no quotes": {"segment": "<S n={n}>{value!r}", "root": "<IQ metric=MINE ref={refset} score=0.4125>"},
    "typographic quotes (copied from the PDF)": {"segment": "<S n=“{n}”>{value!r}",
                                                 "root": "<IQ metric=“MINE” score=“0.4125”>"},
    "Windows line ends and a BOM": {"declaration": "\ufeff", "newline": "\r\n", "segment": '<S n="{n}">{value!r}'},
    "comments and processing instructions": {"segment": '<!-- seg {n} --><?pi x?><S n="{n}">{value!r}'},
    "character references": {"segment": '<S n="{n}">{value!r}'},  # "0.037" as "&#48;&#x2E;037" (below)
}


def variant(refset: str, **changes: str) -> str:
    parts = {**OURS, **changes}
    newline = parts["newline"]
    segments = newline.join(parts["segment"].format(n=n, value=v) for n, v in enumerate(VALUES, 1))
    body = [parts["root"].format(refset=refset), parts["doc"], segments, parts["doc_end"], parts["end"]]
    return parts["declaration"] + newline.join(b for b in body if b) + newline


@pytest.mark.parametrize("name", DEVIATIONS)
def test_each_deviation_alone(experiment: Experiment, name: str) -> None:
    changes = DEVIATIONS[name]
    text = variant(experiment.refset, **changes)
    if name == "character references":
        text = text.replace('">0.', '">&#48;&#x2E;')
    path = experiment.drop_in(text)
    result = experiment.iqeval("-G", "seg", "-M", "MINE", "-S", "UEdin")
    assert result.stderr == ""
    assert [float(r[6]) for r in rows(result)] == VALUES
    assert parse(path, 100).scores.system == 0.4125


def test_gzipped_manual_sample(experiment: Experiment) -> None:
    """Asiya's ``.xml.gz`` in the manual's layout."""
    experiment.drop_in(gzip.compress(manual_sample("UEdin", experiment.refset).encode()), suffix=".xml.gz")
    result = experiment.iqeval("-G", "seg", "-M", "MINE", "-S", "UEdin")
    assert [float(r[6]) for r in rows(result)] == [float(f"{v:.4f}") for v in VALUES]


MALFORMED = [  # (what, file text from the manual's sample, expected line, message)
    ("the manual's '...' line copied", lambda t: t.replace('<S n="3">', '...\n<S n="3">'), 4, "'...' stands for"),
    ("a score that is no number", lambda t: t.replace('<S n="5">0.1850', '<S n="5">high'), 6, "'high' is not a number"),
    ("a segment twice", lambda t: t.replace('<S n="5">', '<S n="4">'), 6, "segment 4 has two scores"),
    ("a segment missing", lambda t: t.replace('<S n="5">0.1850\n', ""), None, "scores for 99 of 100 segments"),
    ("no </IQ> (truncated)", lambda t: t.replace("</IQ>\n", ""), None, "ends before </IQ>"),
    ("a tag cut short", lambda t: t.replace('<S n="7">', '<S n="7"'), 8, "cannot read the attributes of <S>"),
    ("a wrong root", lambda t: t.replace("<IQ ", "<SCORES ").replace("</IQ>", "</SCORES>"), 1,
     "root element is <SCORES>"),
    ("content after the root", lambda t: t + "<S n='101'>0.5\n", 103, "after </IQ>"),
    ("an unknown encoding", lambda t: '<?xml version="1.0" encoding="x-nothing"?>\n' + t, 1, "unknown encoding"),
    ("a stray </S>", lambda t: t.replace('<S n="9">0.3330', '<S n="9">0.3330</S></S>'), 10,
     "</S> without an open <S>"),
]


@pytest.mark.parametrize("what, change, line, message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_file_is_an_error_when_named(experiment: Experiment, what: str, change: Callable[[str], str],
                                               line: int | None, message: str) -> None:
    path = experiment.drop_in(change(manual_sample("UEdin", experiment.refset)))
    where = f"{path}:{line}:" if line is not None else f"{path}:"
    assert_user_error(experiment.iqeval("-M", "MINE", "-S", "UEdin"), where, message)


def test_malformed_file_is_skipped_with_one_warning_in_the_default_view(experiment: Experiment) -> None:
    """One bad user file no longer stops the report: its metric is left out, naming the file; another
    user metric and the computed one are still shown. Named with -M, it is the error, exit 2."""
    for target in SYSTEMS:
        experiment.drop_in(manual_sample(target, experiment.refset), target)
        experiment.drop_in(manual_sample(target, experiment.refset, metric="OTHER"), target, metric="OTHER")
    bad = experiment.drop_in(manual_sample("Online-W", experiment.refset).replace(">0.1850", ">high"), "Online-W")
    result = experiment.iqeval("-G", "sys")
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("iqeval: warning: metric 'MINE' left out: ")
    assert f"{bad}:6: segment 5: 'high' is not a number" in warnings[0] and "-M" in warnings[0]
    assert rows(result, "MINE") == [] and len(rows(result, "OTHER")) == 3 and len(rows(result, "BLEU")) == 3
    assert_user_error(experiment.iqeval("-G", "sys", "-M", "MINE"), f"{bad}:6:", "'high' is not a number")
    assert_user_error(experiment.iqeval("-G", "sys", "-M", "MINE,OTHER,BLEU"), f"{bad}:6:")
    assert_user_error(experiment.iqeval("-G", "sys", "-M", "own"), f"{bad}:6:")  # a set naming it


def test_a_damaged_file_of_our_own_is_not_read_tolerantly(experiment: Experiment) -> None:
    """A computed file (it carries a digest) with its end tags gone is damage, not the manual's
    layout: iqeval refuses it, even in the default view, and iqsetup computes it again."""
    clean = experiment.iqeval("-G", "seg").stdout
    path = experiment.cache / "UEdin" / experiment.refset / "BLEU.xml"
    path.write_text(path.read_text(encoding="utf-8").replace("</S>", ""), encoding="utf-8")
    assert_user_error(experiment.iqeval("-G", "seg"), str(path), "not well-formed XML")
    rerun = run("iqsetup", str(experiment.config))
    assert rerun.returncode == 0 and "damaged score file, computing it again" in rerun.stderr, rerun.stderr
    assert experiment.iqeval("-G", "seg").stdout == clean


def _hostile(refset: str, secret: Path) -> dict[str, tuple[str, str]]:
    """Hostile files in the manual's layout (so the tolerant reader meets them), and what refuses them."""
    sample = manual_sample("UEdin", refset)
    laughs = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    return {
        "internal entity": (f'<!DOCTYPE IQ [<!ENTITY x "0.5">]>\n{sample.replace(">0.0370", ">&x;")}',
                            "entity declarations are not allowed"),
        "external entity": (f'<!DOCTYPE IQ [<!ENTITY x SYSTEM "file://{secret}">]>\n'
                            + sample.replace(">0.0370", ">&x;"), "entity declarations are not allowed"),
        "billion laughs": (f"<!DOCTYPE IQ [{laughs}]>\n" + sample.replace('score="0.4125"', 'score="&a9;"'),
                           "entity"),
        "a declaration without DOCTYPE": ('<!ENTITY x "0.5">\n' + sample, "entity declarations are not allowed"),
        "an undeclared entity": (sample.replace(">0.0370", ">&x;"), "entity &x; is not allowed"),
        "an external DTD": ('<!DOCTYPE IQ SYSTEM "http://127.0.0.1:9/iq.dtd">\n' + sample,
                            "entity declarations are not allowed"),
        "CDATA": (sample.replace(">0.0370", "><![CDATA[0.0370]]>"), "is not allowed in score files"),
    }


@pytest.mark.parametrize("case", ["internal entity", "external entity", "billion laughs",
                                  "a declaration without DOCTYPE", "an undeclared entity", "an external DTD", "CDATA"])
def test_hostile_variants_are_refused(experiment: Experiment, case: str) -> None:
    secret = experiment.cache.parent / "secret.txt"
    secret.write_text("0.99", encoding="utf-8")
    text, message = _hostile(experiment.refset, secret)[case]
    path = experiment.drop_in(text)
    started = time.monotonic()
    result = experiment.iqeval("-M", "MINE", "-S", "UEdin")
    assert_user_error(result, str(path), message)
    assert "0.99" not in result.stdout + result.stderr and time.monotonic() - started < 10
    for target in ("Facebook-AI", "Online-W"):
        experiment.drop_in(manual_sample(target, experiment.refset), target)
    default = experiment.iqeval("-G", "sys")  # the default view leaves the metric out, naming the file
    assert default.returncode == 0 and rows(default, "MINE") == [] and len(rows(default, "BLEU")) == 3
    assert len(default.stderr.splitlines()) == 1 and str(path) in default.stderr and message in default.stderr


def _address_space(limit: int) -> Callable[[], None]:
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_huge_file_is_refused_in_bounded_memory_and_time(experiment: Experiment) -> None:
    """300 MB of spaces inside the manual's layout, packed into a small ``.xml.gz``."""
    head, tail = manual_sample("UEdin", experiment.refset).split('<S n="50">')
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as f:
        f.write(head.encode())
        for _ in range(300):
            f.write(b" " * 1_000_000)
        f.write(b'<S n="50">' + tail.encode())
    path = experiment.drop_in(buffer.getvalue(), suffix=".xml.gz")
    assert path.stat().st_size < 1_000_000
    started = time.monotonic()
    result = experiment.iqeval("-M", "MINE", "-S", "UEdin", preexec_fn=_address_space(1_500_000_000))
    assert_user_error(result, str(path), "characters in one tag, comment or text")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("limit, value, message", [("MAX_BYTES", 100_000, "larger than 100000 bytes"),
                                                   ("MAX_ELEMENTS", 50, "more than 50 XML elements")])
def test_the_tolerant_reader_keeps_the_strict_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str,
                                                     value: int, message: str) -> None:
    """The size and element caps apply to the manual's layout too (small caps here, in process). The
    root's unquoted attributes stop the strict parser at line 1, before either cap."""
    path = tmp_path / "MINE.xml"
    padding = ("<!--" + "x" * 1000 + "-->\n") * 200
    path.write_text(manual_sample("UEdin", "R").replace('metric="MINE"', "metric=MINE") + padding, encoding="utf-8")
    assert parse(path, 100).scores.system == 0.4125
    monkeypatch.setattr(iqxml, limit, value)
    with pytest.raises(CacheError, match=message):
        parse(path, 100)


@pytest.mark.parametrize("score", ["1e13", "inf", "-inf", "nan"])
def test_the_tolerant_reader_keeps_the_value_checks(tmp_path: Path, score: str) -> None:
    path = tmp_path / "MINE.xml"
    path.write_text(manual_sample("UEdin", "R").replace(">0.0370", f">{score}"), encoding="utf-8")
    if score == "nan":
        assert str(parse(path, 100).scores.segments[0]) == "nan"
    else:
        with pytest.raises(CacheError, match="out of range"):
            parse(path, 100)


def test_score_files_are_world_readable(computed: tuple[Path, str]) -> None:
    """Issue 13 item 7: under the usual umask 022 every score file is 0644, like the annotation cache."""
    files = list((computed[0] / "cache").rglob("*.xml"))
    assert len(files) >= 3 * 4 and {f.stat().st_mode & 0o777 for f in files} == {0o644}
