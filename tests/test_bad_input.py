"""Bad input: one-line error naming the file and problem, exit 2, no traceback, nothing half-written."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ENDE, RUEN, ende_config, run

from mteval.errors import CacheError
from mteval.store import cache as cache_module


def assert_user_error(result, *fragments: str) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def setup_error(tmp_path: Path, *fragments: str, **overrides: object) -> None:
    config = ende_config(tmp_path, **overrides)
    assert_user_error(run("iqsetup", str(config)), *fragments)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("*.xml"))


def test_missing_file(tmp_path: Path) -> None:
    setup_error(tmp_path, "nope.txt", "file not found", systems={"S": str(tmp_path / "nope.txt")})


def test_line_count_mismatch(tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("".join(f"line {i}\n" for i in range(99)), encoding="utf-8")
    setup_error(tmp_path, "short.txt", "99 segments (lines)", "has 100", systems={"S": str(short)})


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    lines = (ENDE / "sys" / "UEdin.de").read_bytes().split(b"\n")
    lines[41] = b"caf\xe9 au lait"
    bad.write_bytes(b"\n".join(lines))
    setup_error(tmp_path, "bad.txt:42", "invalid UTF-8", systems={"S": str(bad)})


def _sgml(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "sys.sgm"
    path.write_text(f'<tstset setid="x" srclang="ru" trglang="en">\n<doc sysid="S" docid="d1">\n{body}'
                    "</doc>\n</tstset>\n", encoding="utf-8")
    return path


def test_sgml_missing_end_tag(tmp_path: Path) -> None:
    path = _sgml(tmp_path, '<seg id="1">one</seg>\n<seg id="2">two\n')
    setup_error(tmp_path, "sys.sgm:4", "without </seg>", systems={"S": str(path)})


def test_sgml_duplicate_segment_id(tmp_path: Path) -> None:
    path = _sgml(tmp_path, '<seg id="1">one</seg>\n<seg id="1">two</seg>\n')
    setup_error(tmp_path, "sys.sgm:4", "duplicate segment id '1'", systems={"S": str(path)})


def test_sgml_tolerates_raw_ampersand(tmp_path: Path) -> None:
    from mteval.io.sgml import read_sgml

    text = read_sgml(_sgml(tmp_path, '<seg id="1">Sons & Daughters &amp; co &lt;3</seg>\n'))[0]
    assert text.segments == ("Sons & Daughters & co <3",)


def test_unknown_metric(tmp_path: Path) -> None:
    setup_error(tmp_path, "experiment.yaml", "key 'metrics'", "unknown metric 'BLUE'", metrics=["BLUE"])


def test_bad_yaml_names_the_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\nreferences:\n  A: [unclosed\nsystems: {}\n", encoding="utf-8")
    assert_user_error(run("iqsetup", str(config)), "bad.yaml:", "bad YAML")


def test_unknown_key_lists_allowed(tmp_path: Path) -> None:
    setup_error(tmp_path, "key 'refrences'", "allowed keys", refrences={})


def test_bad_case_value(tmp_path: Path) -> None:
    setup_error(tmp_path, "key 'case'", "'upper' is not one of cs, ci", case="upper")


def test_unknown_set_name(tmp_path: Path) -> None:
    config = ende_config(tmp_path)
    assert run("iqsetup", "-q", str(config)).returncode == 0
    assert_user_error(run("iqeval", "-doOQ", "-S", "nosuchset", str(config)), "-S 'nosuchset'", "unknown set name")
    assert_user_error(run("iqeval", "-doOQ", "-T", "1-500", str(config)), "outside 1-100")


def test_missing_cache_file_says_run_iqsetup(tmp_path: Path) -> None:
    config = ende_config(tmp_path)
    assert_user_error(run("iqeval", "-doOQ", str(config)), "run iqsetup first")


HOSTILE = {
    "billion_laughs": """<?xml version="1.0"?>
<!DOCTYPE IQ [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<IQ metric="EVIL" ref="A_C_D" target="UEdin" score="1"><S n="1">&c;</S></IQ>""",
    "external_entity": """<?xml version="1.0"?>
<!DOCTYPE IQ [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<IQ metric="EVIL" ref="A_C_D" target="UEdin" score="1"><S n="1">&x;</S></IQ>""",
    "not_xml": "<IQ metric='EVIL' score='1'><S n='1'>0.5</S>",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_xml_in_cache(tmp_path: Path, kind: str) -> None:
    config = ende_config(tmp_path, metrics=["BLEU"], systems={"UEdin": str(ENDE / "sys" / "UEdin.de")})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    evil = tmp_path / "cache" / "UEdin" / "A_C_D" / "EVIL.xml"
    evil.write_text(HOSTILE[kind], encoding="utf-8")
    result = run("iqeval", "-doOQ", "-M", "EVIL", str(config))
    assert_user_error(result, "EVIL.xml")
    assert "root:" not in result.stdout


def test_atomic_write_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "x" / "BLEU.xml"
    target.parent.mkdir()
    target.write_bytes(b"old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(cache_module.os, "replace", broken_replace)
    with pytest.raises(CacheError, match="disk full"):
        cache_module.atomic_write(target, b"new content")
    assert target.read_bytes() == b"old"
    assert [p.name for p in target.parent.iterdir()] == ["BLEU.xml"]


def test_sgml_with_two_systems_needs_sysid(tmp_path: Path) -> None:
    setup_error(tmp_path, "refs.en.sgm", "say which with 'sysid'",
                references={"A": str(RUEN / "sgml" / "refs.en.sgm"), "B": str(RUEN / "refs" / "B.en"),
                            "C": str(RUEN / "refs" / "A.en")},
                systems={"S": str(RUEN / "sys" / "AFRL.en")}, source=None)
