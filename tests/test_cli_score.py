"""``mteval score`` (issue 30, deliverable 3): sacreBLEU-style one-line scoring through the installed
command -- files, standard input, text/TSV/JSON, two references, two systems, --segments, --cache
reuse -- with the numbers iqeval gives for an experiment of the same texts (and sacreBLEU's for
BLEU, chrF and TER), and bad input as iqsetup's one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CHINESE, ENDE, JAPANESE, run

REF_A, REF_C = ENDE / "refs" / "A.de", ENDE / "refs" / "C.de"
UEDIN, ONLINE_W = ENDE / "sys" / "UEdin.de", ENDE / "sys" / "Online-W.de"


def score(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mteval score ARGS`` (standard input: ``stdin``, else nothing), never raising on failure."""
    done = subprocess.run(["mteval", "score", *args], input=stdin if stdin is not None else b"",
                          capture_output=True, cwd=cwd, timeout=600, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def records(*args: str, stdin: bytes | None = None) -> list[dict[str, Any]]:
    done = score("-f", "json", *args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_one_system_text_output_is_sacrebleus_numbers() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    done = score("-r", str(REF_A), "-i", str(UEDIN))
    assert done.returncode == 0 and done.stderr == ""
    out = done.stdout.splitlines()
    assert [line.split()[0] for line in out[:3]] == ["BLEU", "chrF", "TER"]
    hyps, refs = lines(UEDIN), [lines(REF_A)]
    expected = [sacrebleu.corpus_bleu(hyps, refs).score / 100, sacrebleu.corpus_chrf(hyps, refs).score,
                sacrebleu.corpus_ter(hyps, refs).score]
    assert [float(line.split()[1]) for line in out[:3]] == [float(f"{v:.4f}") for v in expected]
    assert out[3].startswith("BLEU|nrefs:1|metric:BLEU-4|") and out[4].startswith("chrF|nrefs:1|")
    assert out[5].startswith("TER|nrefs:1|metric:TER|") and "|case:ci|" in out[5] and len(out) == 6


@pytest.fixture(scope="module")
def iqeval_scores(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], float]:
    """iqeval -doOQ of UEdin and Online-W against A and C (sys scores by system and metric)."""
    folder = tmp_path_factory.mktemp("experiment")
    config = {"name": "score", "cache": str(folder / "cache"), "references": {"A": str(REF_A), "C": str(REF_C)},
              "systems": {"UEdin": str(UEDIN), "Online-W": str(ONLINE_W)}, "metrics": ["BLEU", "chrF", "TER", "-TER"]}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    assert run("iqsetup", "-q", str(path)).returncode == 0
    done = run("iqeval", "-doOQ", "--json", str(path))
    assert done.returncode == 0, done.stderr
    return {(r["target"], r["metric"]): r["score"] for r in json.loads(done.stdout)}


def test_two_references_two_systems_equal_iqeval(iqeval_scores: dict[tuple[str, str], float]) -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    found = records("-r", str(REF_A), "-r", str(REF_C), "-i", str(UEDIN), str(ONLINE_W), "-m", "BLEU,chrF,TER,-TER")
    assert [(r["target"], r["metric"]) for r in found] == [(str(s), m) for s in (UEDIN, ONLINE_W)
                                                           for m in ("BLEU", "chrF", "TER", "-TER")]
    for r in found:
        assert r["score"] == iqeval_scores[Path(r["target"]).stem, r["metric"]]
        assert r["refset"] == f"{REF_A}+{REF_C}" and r["signature"].startswith("nrefs:2|")
    bleu = sacrebleu.corpus_bleu(lines(UEDIN), [lines(REF_A), lines(REF_C)]).score / 100
    assert found[0]["score"] == pytest.approx(bleu, rel=0, abs=1e-12)


def test_the_text_view_of_two_systems_names_them() -> None:
    done = score("-r", str(REF_A), "-i", str(UEDIN), str(ONLINE_W), "-m", "BLEU")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert [line.split()[:2] for line in out[:2]] == [[str(UEDIN), "BLEU"], [str(ONLINE_W), "BLEU"]]
    assert out[2].startswith("BLEU|nrefs:1|") and len(out) == 3


def test_standard_input_tsv_and_segments(iqeval_scores: dict[tuple[str, str], float]) -> None:
    piped = UEDIN.read_bytes()
    assert records("-r", str(REF_A), "-r", str(REF_C), "-m", "chrF", stdin=piped)[0]["score"] == \
        iqeval_scores["UEdin", "chrF"]
    done = score("-r", str(REF_A), "-m", "BLEU", "-f", "tsv", "--segments", "-i", "-", stdin=piped)
    assert done.returncode == 0, done.stderr
    header, *rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert header[:7] == ["target", "refset", "metric", "level", "doc", "segment", "score"]
    assert "signature" in header and len(rows) == 101
    assert rows[0][:4] == ["<stdin>", str(REF_A), "BLEU", "sys"]
    assert [row[5] for row in rows[1:]] == [str(n) for n in range(1, 101)] and rows[1][4] == "UNKNOWN_DOC"
    text = score("-r", str(REF_A), "-m", "BLEU", "--segments", stdin=piped).stdout.splitlines()
    assert text[0].split()[:2] == ["BLEU", "corpus"] and text[1].split()[:2] == ["BLEU", "1"] and len(text) == 102


def test_a_value_starting_with_a_dash_and_a_family_name() -> None:
    found = records("-r", str(REF_A), "-i", str(UEDIN), "-m", "-TER")
    assert [r["metric"] for r in found] == ["-TER"] and found[0]["score"] < 0
    assert [r["metric"] for r in records("-r", str(REF_A), "-i", str(UEDIN), "-m", "GTM")] == ["GTM-1", "GTM-2",
                                                                                               "GTM-3"]


def test_files_named_alike_in_two_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "sys.txt").write_bytes(UEDIN.read_bytes())
    (tmp_path / "b" / "sys.txt").write_bytes(ONLINE_W.read_bytes())
    found = records("-r", str(REF_A), "-i", str(tmp_path / "a" / "sys.txt"), str(tmp_path / "b" / "sys.txt"),
                    "-m", "BLEU", "--cache", str(tmp_path / "cache"))
    assert [r["target"] for r in found] == [str(tmp_path / "a" / "sys.txt"), str(tmp_path / "b" / "sys.txt")]
    assert found[0]["score"] != found[1]["score"]
    assert {p.parent.parent.name for p in (tmp_path / "cache").rglob("BLEU.xml")} == {"sys", "sys2"}


def test_a_kept_cache_is_iqsetups_layout_and_is_reused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ("-r", str(REF_A), "-i", str(UEDIN), "-m", "BLEU,chrF", "--cache", str(cache))
    first = score(*args)
    assert first.returncode == 0, first.stderr
    files = {p.relative_to(cache).as_posix(): p.stat().st_mtime_ns for p in cache.rglob("*.xml")}
    assert set(files) == {"UEdin/A/BLEU.xml", "UEdin/A/chrF.xml"}
    again = score(*args)
    assert again.stdout == first.stdout
    assert {p.relative_to(cache).as_posix(): p.stat().st_mtime_ns for p in cache.rglob("*.xml")} == files
    edited = tmp_path / "UEdin.de"
    edited.write_text("\n".join(["x"] + lines(UEDIN)[1:]) + "\n", encoding="utf-8")
    changed = score("-r", str(REF_A), "-i", str(edited), "-m", "BLEU,chrF", "--cache", str(cache))
    assert changed.returncode == 0 and changed.stdout != first.stdout  # the stale files computed again
    assert (cache / "UEdin" / "A" / "BLEU.xml").stat().st_mtime_ns != files["UEdin/A/BLEU.xml"]


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (("-i", "SHORT", "-r", str(REF_A)), None, f"SHORT: has 5 segments (lines) but {REF_A} has 100"),
    (("-r", "no-such-ref.txt", "-i", str(UEDIN)), None, "no-such-ref.txt: file not found"),
    (("-r", str(REF_A), "-i", str(UEDIN), "-m", "BLUE"), None, "unknown metric 'BLUE'; did you mean 'BLEU'?"),
    (("-r", str(REF_A)), b"", "<stdin>: is empty: no segments"),
    (("-r", str(REF_A), "-i", "-", "-"), b"x\n", "-i: '-' (standard input) can be given once"),
    (("-r", str(REF_A)), b"a\x01b\n", "<stdin>:1: control character U+0001 at column 2"),
    (("-r", str(REF_A)), b"\xff\n", "<stdin>:1: invalid UTF-8 at byte 1 of the line"),
    (("-r", str(REF_A), "-i", str(UEDIN), "-l", "../x"), None, "language: expected a language code"),
    (("-r", str(REF_A), "-i", str(UEDIN), "--cache", str(REF_A)), None, "cache path is a file, not a folder"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: tuple[str, ...], stdin: bytes | None, message: str) -> None:
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines(UEDIN)[:5]) + "\n", encoding="utf-8")
    done = score(*[str(short) if a == "SHORT" else a for a in args], stdin=stdin)
    expected = message.replace("SHORT", str(short))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("mteval: error: "), done.stderr
    assert expected in done.stderr


ZH_SYSTEM = ["今天上午市政府召开发布会，介绍今年城市交通建设的进展。",
             "专家说，这项技术将提高农业生产效率，并减少环境影响。",
             "因为天气原因，明天的足球比赛推迟到下周末。"]


def test_chinese_defaults_are_sacrebleus_for_chinese(tmp_path: Path) -> None:
    """``-l zh`` without ``-m``: BLEU with sacreBLEU's zh tokenizer (as ``sacrebleu -l en-zh``), chrF, and
    TER with tercom's Asian support, equal to sacreBLEU's; no warning. The same texts scored with the
    plain defaults: one warning line naming BLEU and TER (a whole line is one of their words)."""
    sacrebleu = pytest.importorskip("sacrebleu")
    (tmp_path / "ref.zh").write_text("\n".join(CHINESE) + "\n", encoding="utf-8")
    (tmp_path / "sys.zh").write_text("\n".join(ZH_SYSTEM) + "\n", encoding="utf-8")
    done = score("-r", str(tmp_path / "ref.zh"), "-i", str(tmp_path / "sys.zh"), "-l", "zh")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout.splitlines()
    names = [line.split()[0] for line in out[:3]]
    assert names == ["sacreBLEU(tok=zh)", "chrF", "TER(normalized=yes,asian_support=yes)"]
    ter = sacrebleu.metrics.TER(normalized=True, asian_support=True)
    expected = [sacrebleu.corpus_bleu(ZH_SYSTEM, [CHINESE], tokenize="zh").score,
                sacrebleu.corpus_chrf(ZH_SYSTEM, [CHINESE]).score, ter.corpus_score(ZH_SYSTEM, [CHINESE]).score]
    assert [float(line.split()[1]) for line in out[:3]] == [float(f"{v:.4f}") for v in expected]
    assert "|tok:zh|" in out[3]
    plain = score("-r", str(tmp_path / "ref.zh"), "-i", str(tmp_path / "sys.zh"))
    assert plain.returncode == 0
    assert [line.split()[0] for line in plain.stdout.splitlines()[:3]] == ["BLEU", "chrF", "TER"]
    assert plain.stderr.startswith("mteval: warning: BLEU, TER: 100% of the references' letters are Han (CJK), ")
    assert plain.stderr.count("\n") == 1


def test_japanese_defaults_need_mecab(tmp_path: Path) -> None:
    """``-l ja`` without ``-m`` is BLEU with ja-mecab (as ``sacrebleu -l en-ja``): without MeCab, one line
    naming the extra and the way around it, exit 2."""
    from importlib.util import find_spec

    if find_spec("MeCab") is not None and find_spec("ipadic") is not None:
        pytest.skip("MeCab is installed here: the defaults run (sacreBLEU(tok=ja-mecab)'s parity tests cover it)")
    (tmp_path / "ref.ja").write_text("\n".join(JAPANESE) + "\n", encoding="utf-8")
    done = score("-r", str(tmp_path / "ref.ja"), "-i", str(tmp_path / "ref.ja"), "-l", "ja")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("mteval: error: -l ja: the default metrics score BLEU with sacreBLEU's ja-mecab tokenizer "
                           "(as sacrebleu -l en-ja), which needs MeCab: pip install 'mteval[ja]', or choose the "
                           "metrics with -m (chrF needs nothing)\n")
    chosen = score("-r", str(tmp_path / "ref.ja"), "-i", str(tmp_path / "ref.ja"), "-l", "ja", "-m", "chrF")
    assert chosen.returncode == 0


def test_score_only_and_width() -> None:
    """-b prints the numbers alone, a line each (sacreBLEU's -b); -w sets the decimals of the text view."""
    full = score("-r", str(REF_A), "-i", str(UEDIN), str(ONLINE_W), "-m", "BLEU,chrF", "-w", "6")
    assert full.returncode == 0, full.stderr
    values = [line.split()[-1] for line in full.stdout.splitlines()[:4]]
    assert all(len(v.split(".")[1]) == 6 for v in values)
    only = score("-r", str(REF_A), "-i", str(UEDIN), str(ONLINE_W), "-m", "BLEU,chrF", "-w", "6", "-b")
    assert only.returncode == 0 and only.stdout.splitlines() == values  # UEdin's BLEU, chrF, then Online-W's
    for bad, message in ((("-b", "-f", "tsv"), "-b prints text; it cannot be combined with -f tsv"),
                         (("-w", "17"), "-w 17: the number of decimals is 0 to 16")):
        done = score("-r", str(REF_A), "-i", str(UEDIN), *bad)
        assert done.returncode == 2 and done.stderr == f"mteval: error: {message}\n"
