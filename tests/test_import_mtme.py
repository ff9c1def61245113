"""mteval import-mtme (issue 14 item 3): mt-metrics-eval's layout (tests/data/mtme, cut from the
bundled samples) as an experiment; iqsetup and iqeval -assessments on it; one-line refusals of bad
layouts and judgement files, with nothing written."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import SHARED, needs_shared
from helpers import ENDE, ROOT, RUEN, run
from test_bad_input import assert_user_error

from mteval.cli.import_mtme import main
from mteval.errors import ConfigError
from mteval.experiment.from_mtme import mteval_name, standard_reference, target_language
from mteval.experiment.loading import load

FIXTURE = ROOT / "tests" / "data" / "mtme"
SET = "wmt21.news"


def importer(*args: str) -> list[str]:
    """The command line of the importer: the installed ``mteval import-mtme``."""
    return ["mteval", "import-mtme", *args]


def tsv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def copy_fixture(tmp: Path) -> Path:
    root = tmp / "mtme"
    shutil.copytree(FIXTURE / SET, root / SET)
    return root


def do_import(root: Path, out: Path, lp: str, *extra: str) -> dict:
    assert main([str(root), "--testset", SET, "--lp", lp, "--out", str(out), *extra]) == 0
    return yaml.safe_load((out / "experiment.yaml").read_text(encoding="utf-8"))


def refused(capsys: pytest.CaptureFixture[str], root: Path, out: Path, lp: str, *extra: str) -> str:
    """The one error line of a refused import; nothing was written."""
    assert main([str(root), "--testset", SET, "--lp", lp, "--out", str(out), *extra]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mteval: error: "), lines
    assert not (out / "experiment.yaml").exists() and not (out / "human").exists()
    return lines[0]


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


# ---- what is imported ----------------------------------------------------------------------------

def test_en_de_standard_reference_and_human_outputs(tmp_path: Path) -> None:
    config = do_import(FIXTURE, tmp_path / "out", "en-de")
    assert list(config["references"]) == ["refC"]  # WMT21 en-de's standard reference
    assert sorted(config["systems"]) == sorted(p.stem for p in (ENDE / "sys").glob("*.de"))
    assert "refA" not in config["systems"] and "refD" not in config["systems"]  # human outputs: left out
    assert config["language"] == "de" and config["format"] == "plain" and "docids" not in config
    assert config["source"] == str((FIXTURE / SET / "sources" / "en-de.txt").resolve())
    experiment = load(tmp_path / "out" / "experiment.yaml")
    assert experiment.metrics == ("BLEU", "chrF", "-TER")
    assert experiment.references[0].path == (FIXTURE / SET / "references" / "en-de.refC.txt").resolve()


def test_segment_scores_are_the_samples_judgements(tmp_path: Path) -> None:
    do_import(FIXTURE, tmp_path / "out", "en-de")
    rows = tsv_rows((tmp_path / "out" / "human" / "mqm.seg.tsv").read_text(encoding="utf-8"))
    got = {(r["system"], int(r["segment"])): float(r["score"]) for r in rows}
    sample = tsv_rows((ENDE / "human" / "mqm.tsv").read_text(encoding="utf-8"))
    want = {(r["system"], int(r["segment"])): float(r["score"]) for r in sample if int(r["segment"]) <= 8}
    assert got == want and len(got) == 6 * 8


def test_system_level_scores_and_missing_segment_scores(tmp_path: Path) -> None:
    do_import(FIXTURE, tmp_path / "out", "ru-en")
    seg = tsv_rows((tmp_path / "out" / "human" / "wmt-z.seg.tsv").read_text(encoding="utf-8"))
    assert len([r for r in seg if r["system"] == "Online-B"]) == 9  # None scores are left out
    assert len(seg) == 4 * 16 + 9
    sys_rows = tsv_rows((tmp_path / "out" / "human" / "wmt-z.sys.tsv").read_text(encoding="utf-8"))
    assert {r["segment"] for r in sys_rows} == {"-"} and len(sys_rows) == 5


def test_documents_become_docids(tmp_path: Path) -> None:
    config = do_import(FIXTURE, tmp_path / "out", "ru-en")
    ids = (tmp_path / "out" / config["docids"]).read_text(encoding="utf-8").splitlines()
    sample = [row["docid"] for row in tsv_rows((RUEN / "docids.tsv").read_text(encoding="utf-8"))][:16]
    assert ids == sample and "sets" not in config  # one domain: no domain sets


def test_all_references_and_human_outputs_as_systems(tmp_path: Path) -> None:
    config = do_import(FIXTURE, tmp_path / "a", "en-de", "--refs", "all", "--include-human-refs")
    assert list(config["references"]) == ["refC", "refA", "refD"]  # standard first
    assert not {"refA", "refC", "refD"} & set(config["systems"])  # a reference is never also a system
    config = do_import(FIXTURE, tmp_path / "b", "en-de", "--include-human-refs", "--ref", "refA")
    assert list(config["references"]) == ["refA"] and "refD" in config["systems"]
    assert "refA" not in config["systems"]


def test_system_and_human_filters(tmp_path: Path) -> None:
    config = do_import(FIXTURE, tmp_path / "out", "ru-en", "--systems", "AFRL,Online-B", "--human", "wmt-z",
                       "--metrics", "BLEU,NIST")
    assert list(config["systems"]) == ["AFRL", "Online-B"] and config["metrics"] == ["BLEU", "NIST"]
    assert do_import(FIXTURE, tmp_path / "neg", "ru-en", "--metrics", "-TER,BLEU")["metrics"] == ["-TER", "BLEU"]
    rows = tsv_rows((tmp_path / "out" / "human" / "wmt-z.seg.tsv").read_text(encoding="utf-8"))
    assert {r["system"] for r in rows} == {"AFRL", "Online-B"}


def test_unsafe_system_name_is_mapped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fixture(tmp_path)
    outputs = root / SET / "system-outputs" / "ru-en"
    (outputs / "Online-W.txt").rename(outputs / "Online(W).txt")
    for level in ("seg", "sys"):
        edit(root / SET / "human-scores" / f"ru-en.wmt-z.{level}.score", "Online-W\t", "Online(W)\t", count=-1)
    out = tmp_path / "out"
    config = do_import(root, out, "ru-en")
    assert "Online_W_" in config["systems"] and "Online(W)" not in config["systems"]
    assert "'Online(W)' -> Online_W_" in (out / "experiment.yaml").read_text(encoding="utf-8")
    rows = tsv_rows((out / "human" / "wmt-z.seg.tsv").read_text(encoding="utf-8"))
    assert len([r for r in rows if r["system"] == "Online_W_"]) == 16
    capsys.readouterr()
    (outputs / "Online_W_.txt").write_bytes((outputs / "AFRL.txt").read_bytes())
    line = refused(capsys, root, tmp_path / "clash", "ru-en")
    assert "systems 'Online_W_' and 'Online(W)' both map to the mteval name 'Online_W_'" in line


def test_missing_translations_are_blank_in_a_copy(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    path = root / SET / "system-outputs" / "ru-en" / "AFRL.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(["[No translation supplied]", *lines[1:]]) + "\n", encoding="utf-8")
    config = do_import(root, tmp_path / "out", "ru-en")
    assert config["systems"]["AFRL"] == "texts/AFRL.txt"
    copy = (tmp_path / "out" / "texts" / "AFRL.txt").read_text(encoding="utf-8").splitlines()
    assert copy == ["", *lines[1:]]


def test_trailing_whitespace_is_stripped_as_mtme_reads_lines(tmp_path: Path) -> None:
    """mt-metrics-eval's EvalSet rstrip()s every line (an audit: 4 lines of WMT21 zh-en's Borderline end in a
    space; -WER counted a trailing U+3000 as a word): such a text, the source too, is read from a stripped copy."""
    root = copy_fixture(tmp_path)
    system = root / SET / "system-outputs" / "ru-en" / "Online-B.txt"
    lines = system.read_text(encoding="utf-8").splitlines()
    system.write_text("\n".join([lines[0] + " \u3000\t", lines[1] + "\xa0", *lines[2:]]) + "\n", encoding="utf-8")
    source = root / SET / "sources" / "ru-en.txt"
    source_lines = source.read_text(encoding="utf-8").splitlines()
    source.write_text("\n".join([source_lines[0] + " ", *source_lines[1:]]) + "\n", encoding="utf-8")
    config = do_import(root, tmp_path / "out", "ru-en")
    assert config["systems"]["Online-B"] == "texts/Online-B.txt" and config["source"] == "source.txt"
    assert (tmp_path / "out" / "texts" / "Online-B.txt").read_text(encoding="utf-8").splitlines() == lines
    assert (tmp_path / "out" / "source.txt").read_text(encoding="utf-8").splitlines() == source_lines
    assert config["systems"]["AFRL"].endswith("AFRL.txt") and not config["systems"]["AFRL"].startswith("texts/")


def test_hidden_files_are_not_systems(tmp_path: Path) -> None:
    """mt-metrics-eval's glob('*.*') skips dotfiles: a '.AFRL.txt' or macOS '._AFRL.txt' is no system."""
    root = copy_fixture(tmp_path)
    folder = root / SET / "system-outputs" / "ru-en"
    shutil.copy(folder / "AFRL.txt", folder / ".Online-A.txt")
    (folder / "._AFRL.txt").write_bytes(b"\x00\x05\x16\x07Mac OS X")
    config = do_import(root, tmp_path / "out", "ru-en")
    assert not any(name.startswith(("s.", ".", "_")) for name in config["systems"]), config["systems"]


def test_domains_that_would_share_a_set_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fixture(tmp_path)
    docs = root / SET / "documents" / "ru-en.docs"
    edit(docs, "news\t", "sport/express\t", count=3)
    edit(docs, "news\taif", "sport_express\taif", count=-1)
    line = refused(capsys, root, tmp_path / "out", "ru-en")
    assert "domains 'sport/express' and 'sport_express' would both be the segment set 'domain_sport_express'" in line


def test_several_domains_give_segment_sets(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    docs = root / SET / "documents" / "ru-en.docs"
    edit(docs, "news\taif", "web\taif", count=-1)
    config = do_import(root, tmp_path / "out", "ru-en")
    assert config["sets"] == {"domain_news": "1-9", "domain_web": "10-16"}


def test_doc_level_scores_are_listed_as_not_imported(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    (root / SET / "human-scores" / "ru-en.wmt-z.doc.score").write_text("AFRL\t0.5\nAFRL\t0.1\n", encoding="utf-8")
    do_import(root, tmp_path / "out", "ru-en")
    text = (tmp_path / "out" / "experiment.yaml").read_text(encoding="utf-8")
    assert "Not imported: ru-en.wmt-z.doc.score (doc level" in text
    assert not (tmp_path / "out" / "human" / "wmt-z.doc.tsv").exists()


def test_standard_reference_rule() -> None:
    assert standard_reference("wmt21.news", "en-de", ["refA", "refC", "refD"], None) == "refC"
    assert standard_reference("wmt20", "de-en", ["ref"], None) == "ref"
    assert standard_reference("wmt22", "en-ru", ["refA", "refB"], None) == "refA"
    assert standard_reference("mine", "xx-yy", ["human2"], None) == "human2"
    assert standard_reference("wmt21.news", "en-de", ["refA", "refC"], "refA") == "refA"
    with pytest.raises(ConfigError, match="--ref NAME"):
        standard_reference("mine", "xx-yy", ["h1", "h2"], None)
    with pytest.raises(ConfigError, match="refC, which is absent"):
        standard_reference("wmt21.news", "en-de", ["refA", "refB"], None)


def test_names_and_languages() -> None:
    assert mteval_name("Online-W") == "Online-W" and mteval_name("zlabs-nlp.1149") == "zlabs-nlp.1149"
    assert mteval_name("a b/c") == "a_b_c" and mteval_name("_x") == "s_x"
    assert target_language("en-de") == "de" and target_language("en-sr_Cyrl_RS") == "sr"


# ---- refusals: one line naming the file and line, nothing written ---------------------------------

@pytest.mark.parametrize(("file", "old", "new", "fragments"), [
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194", "AFRL2\t0.07",
     ["ru-en.wmt-z.seg.score:1:", "unknown system 'AFRL2'"]),
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194", "AFRL\tnan",
     ["ru-en.wmt-z.seg.score:1:", "not a finite number"]),
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194", "AFRL\tgood",
     ["ru-en.wmt-z.seg.score:1:", "not a number"]),
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194", "AFRL\t0.06 x",
     ["ru-en.wmt-z.seg.score:1:", "expected 'SYSTEM SCORE'"]),
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194\n", "AFRL\t0.0698125646324194\nAFRL\t1\n",
     ["ru-en.wmt-z.seg.score:17:", "more than the 16 segment scores"]),
    ("human-scores/ru-en.wmt-z.seg.score", "AFRL\t0.0698125646324194\n", "",
     ["ru-en.wmt-z.seg.score:15:", "ends after 15 segment scores"]),
    ("human-scores/ru-en.wmt-z.seg.score", "Online-Y\t", "AFRL\t",
     ["ru-en.wmt-z.seg.score:", "comes back after other systems"]),
    ("human-scores/ru-en.wmt-z.sys.score", "Online-B\t", "AFRL\t",
     ["ru-en.wmt-z.sys.score:3:", "duplicate score of system 'AFRL' (first at line 1)"]),
    ("human-scores/ru-en.wmt-z.sys.score", "Online-B\t", "Online-Q\t",
     ["ru-en.wmt-z.sys.score:3:", "unknown system 'Online-Q'"]),
    ("documents/ru-en.docs", "news\tkp.235560\n", "news\tkp 235560\n",
     ["ru-en.docs:1:", "expected 'DOMAIN DOCID', got 3 fields"]),
    ("documents/ru-en.docs", "news\tkp.235560\n", "",
     ["ru-en.docs:", "has 15 lines but the source has 16"]),
    ("documents/ru-en.docs", "news\taif.321208\nnews\taif", "news\taif.321208\nnews\tkp.235560\nnews\taif",
     ["ru-en.docs:11:", "document 'kp.235560' comes back after other documents (its lines end at line 9)"]),
    ("system-outputs/ru-en/AFRL.txt", "\n", "\n\n",
     ["AFRL.txt:17:", "has 17 lines but the source has 16"]),
])
def test_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str,
                   fragments: list[str]) -> None:
    root = copy_fixture(tmp_path)
    edit(root / SET / file, old, new)
    line = refused(capsys, root, tmp_path / "out", "ru-en")
    for fragment in fragments:
        assert fragment in line, (fragment, line)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--testset", "wmt99", "--lp", "ru-en"], "no test set 'wmt99'"),
    (["--testset", SET, "--lp", "xx-yy"], "no language pair 'xx-yy'; language pairs here: en-de, ru-en"),
    (["--testset", SET, "--lp", "ru-en", "--human", "mqm"], "no human scores named 'mqm' (available: wmt-z)"),
    (["--testset", SET, "--lp", "ru-en", "--systems", "AFRL,Nobody"], "--systems: unknown 'Nobody'"),
    (["--testset", SET, "--lp", "en-de", "--ref", "refB"], "--ref 'refB': no such reference"),
    (["--testset", SET, "--lp", "ru-en", "--metrics", "BLEU,Nope"], "unknown metric 'Nope'"),
    (["--testset", SET, "--lp", "ru-en", "--language", "Deutsch"], "key 'language'"),
    (["--testset", SET, "--lp", "ru-en", "--systems", "refB"], "no system left to import"),
])
def test_bad_options(tmp_path: Path, args: list[str], fragment: str) -> None:
    out = tmp_path / "out"
    result = run(*importer(str(FIXTURE), *args, "--out", str(out)))
    assert_user_error(result, fragment)
    assert not out.exists()


@pytest.mark.parametrize(("name", "fragment"), [
    ("ru-en..seg.score", "expected a human score file named LP.NAME.LEVEL.score"),
    ("ru-en.wmt-z.para.score", "unknown level 'para' (expected one of seg, sys, doc, domain)"),
])
def test_bad_human_file_names(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, fragment: str) -> None:
    root = copy_fixture(tmp_path)
    (root / SET / "human-scores" / name).write_text("AFRL\t1\n", encoding="utf-8")
    line = refused(capsys, root, tmp_path / "out", "ru-en")
    assert f"{name}: {fragment}" in line


def test_test_set_folder_given_as_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, FIXTURE / SET, tmp_path / "out", "ru-en")
    assert f"{FIXTURE / SET}: is itself a test set folder; give the folder that holds it" in line


def test_existing_experiment_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    do_import(FIXTURE, out, "ru-en")
    before = (out / "experiment.yaml").read_bytes()
    assert main([str(FIXTURE), "--testset", SET, "--lp", "en-de", "--out", str(out)]) == 2
    assert "already exists; give another --out folder, or --force" in capsys.readouterr().err
    assert (out / "experiment.yaml").read_bytes() == before
    assert do_import(FIXTURE, out, "en-de", "--force")["name"] == f"{SET}.en-de"


def test_jsonl_layout_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fixture(tmp_path)
    (root / SET / "sources" / "ru-en.txt").rename(root / SET / "sources" / "ru-en.jsonl")
    assert "JSONL texts are not supported" in refused(capsys, root, tmp_path / "out", "ru-en")


# ---- end to end: the installed commands on the imported experiment ----------------------------------

@pytest.mark.slow
def test_iqsetup_and_iqeval_on_the_import(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run(*importer(str(FIXTURE), "--testset", SET, "--lp", "ru-en", "--out", str(out)))
    assert result.returncode == 0, result.stderr
    config = out / "experiment.yaml"
    setup = run("iqsetup", str(config))
    assert setup.returncode == 0, setup.stderr
    imported = run("iqeval", "-assessments", str(out / "human" / "wmt-z.seg.tsv"), "-G", "seg", "--tsv", str(config))
    assert imported.returncode == 0, imported.stderr
    records = tsv_rows(imported.stdout)
    assert {r["metric"] for r in records} == {"BLEU", "chrF", "-TER"}
    assert {r["n"] for r in records if r["correlation"] == "pearson"} == {str(4 * 16 + 9)}
    # the same correlations from the bundled sample's own judgements of these 16 segments
    sample = [r for r in tsv_rows((RUEN / "human" / "da.tsv").read_text(encoding="utf-8")) if int(r["segment"]) <= 16]
    original = tmp_path / "da16.tsv"
    original.write_text("system\tsegment\tscore\n" + "".join(f"{r['system']}\t{r['segment']}\t{r['score']}\n"
                                                             for r in sample), encoding="utf-8")
    direct = run("iqeval", "-assessments", str(original), "-G", "seg", "--tsv", str(config))
    assert direct.returncode == 0, direct.stderr
    assert direct.stdout == imported.stdout
    system = run("iqeval", "-assessments", str(out / "human" / "wmt-z.sys.tsv"), "-G", "sys", "--tsv", str(config))
    assert system.returncode == 0, system.stderr
    assert {r["n"] for r in tsv_rows(system.stdout)} == {"5"}
    docs = run("iqeval", "-doOQ", "-G", "doc", "--tsv", str(config))
    assert docs.returncode == 0 and {r["doc"] for r in tsv_rows(docs.stdout)} == {"kp.235560", "aif.321208"}


@needs_shared
def test_shared_data_in_mtme_layout(tmp_path: Path) -> None:
    """Any test set in mt-metrics-eval layout under ../shared/data imports (each language pair)."""
    sets = sorted(p.parent for p in (SHARED / "data").glob("**/human-scores") if (p.parent / "sources").is_dir())
    if not sets:
        pytest.skip("../shared/data holds no test set in mt-metrics-eval layout (no TESTSET/sources + human-scores)")
    for folder in sets:
        for source in sorted((folder / "sources").glob("*.txt")):
            out = tmp_path / f"{folder.name}.{source.stem}"
            assert main([str(folder.parent), "--testset", folder.name, "--lp", source.stem, "--out", str(out)]) == 0
            load(out / "experiment.yaml")
