"""IQMT 2.0 manual §4 as an IQMT user runs it, one test per item, through the installed commands:
the Table 1 file names (``reference_file.txt.1``), ``IQsetup IQsetup.config IQeval.config`` and the
IQeval.config it writes, IQeval's -remake, the IQsetup/IQeval command names, ``-M -TER``, and
``source: {path, format}``."""

from __future__ import annotations

import csv
import io
import re
import shutil
import zlib
from pathlib import Path

import pytest
from helpers import ENDE, ROOT, ende_config, run
from test_bad_input import assert_user_error

from mteval.experiment.legacy_eval_config import MARK
from mteval.store import refsets
from mteval.store.iqxml import parse

REFS = ("reference_file.txt.1", "reference_file.txt.2", "reference_file.txt.3")
SYSTEMS = ("system_output_file.txt.1", "system_output_file.txt.2")


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


def manual_setup(folder: Path, extra: str = "") -> Path:
    """The manual's Table 1 file, with its file names, on the en-de sample (first 20 lines)."""
    texts = dict(zip(("source_file.txt", *REFS, *SYSTEMS),
                     ("src.en", "refs/A.de", "refs/C.de", "refs/D.de", "sys/UEdin.de", "sys/Online-W.de"),
                     strict=True))
    for name, source in texts.items():
        lines = (ENDE / source).read_text(encoding="utf-8").splitlines()[:20]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    body = ["# - EXPERIMENT NAME", "NAME=MT_DUMMY_TESTSET", "# - IQMT LOCATION", "IQMT=/home/users/me/IQMT/",
            "# - FILES", "source=source_file.txt", *(f"ref={r}" for r in REFS), *(f"system={s}" for s in SYSTEMS),
            "# - AVAILABLE METRICS", "doBLEU BLEU-4 BLEUi-2", "doNIST NIST-5", extra]
    config = folder / "IQsetup.config"
    config.write_text("\n".join(body) + "\n", encoding="utf-8")
    return config


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``IQsetup IQsetup.config IQeval.config`` run once in a fresh folder (the folder returned)."""
    folder = tmp_path_factory.mktemp("iqmt")
    manual_setup(folder)
    result = run("IQsetup", "IQsetup.config", "IQeval.config", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder


def test_reference_names_from_the_manual(manual: Path) -> None:
    """Table 1: ``ref=reference_file.txt.1``; the names are the file names, '_' included."""
    cache = manual / "IQsetup-cache"
    for system in SYSTEMS:
        for ref in REFS:
            assert (cache / system / refsets.join([ref]) / "BLEU-4.xml").is_file()
        assert (cache / system / refsets.join(REFS) / "NIST-5.xml").is_file()
    result = run("IQeval", "-doOQ", "-R", REFS[1], "-M", "BLEU-4", "--tsv", "IQeval.config", cwd=manual)
    assert result.returncode == 0, result.stderr
    assert {r["refset"] for r in tsv(result.stdout)} == {refsets.join([REFS[1]])}


def test_underscore_names_never_share_a_reference_set_folder(tmp_path: Path) -> None:
    """{a_b, c} and {a, b_c} are different reference sets: their scores must differ."""
    refs = {name: str(ENDE / "refs" / f"{letter}.de") for name, letter in
            (("a_b", "A"), ("c", "C"), ("a", "D"), ("b_c", "A"))}
    config = ende_config(tmp_path, references=refs, systems={"S": str(ENDE / "sys" / "UEdin.de")},
                         metrics=["BLEU"], sets={"one": ["a_b", "c"], "two": ["a", "b_c"]})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    scores = {}
    for chosen in ("one", "two"):
        result = run("iqeval", "-doOQ", "-R", chosen, "--tsv", str(config))
        assert result.returncode == 0, result.stderr
        scores[chosen] = tsv(result.stdout)[0]["score"]
    assert scores["one"] != scores["two"]
    assert (tmp_path / "cache" / "S" / "a%5Fb_c").is_dir() and (tmp_path / "cache" / "S" / "a_b%5Fc").is_dir()


def test_two_file_form_writes_iqeval_config(manual: Path) -> None:
    """§4.1: ``IQsetup IQsetup.config IQeval.config``; §4.2: ``IQeval -doOQ -G sys -O 0 IQeval.config``."""
    text = (manual / "IQeval.config").read_text(encoding="utf-8")
    lines = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert lines["setup"] == "IQsetup.config"
    assert lines["metrics"].split() == ["BLEU-4", "BLEUi-2", "NIST-5"]
    assert lines["metrics_BLEU"].split() == ["BLEU-4", "BLEUi-2"] and lines["metrics_NIST"] == "NIST-5"
    assert lines["all_systems"].split() == list(SYSTEMS) and lines["all_refs"].split() == list(REFS)
    assert lines["all_segs"] == "1-20" and text.rstrip().endswith(MARK)
    result = run("IQeval", "-doOQ", "-G", "sys", "-O", "0", "IQeval.config", cwd=manual)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split() == ["SYS", "BLEU-4", "BLEUi-2", "NIST-5"]
    assert [line.split()[0] for line in result.stdout.splitlines()[2:]] == list(SYSTEMS)


def test_user_sets_in_iqeval_config_are_kept_and_used(tmp_path: Path) -> None:
    """§4.2: sets are defined by editing IQeval.config; iqsetup keeps them and computes their
    reference sets (-doOQ -R some_refs needs the multi-reference files)."""
    manual_setup(tmp_path)
    assert run("IQsetup", "-q", "IQsetup.config", "IQeval.config", cwd=tmp_path).returncode == 0
    eval_config = tmp_path / "IQeval.config"
    sets = "some_metrics= BLEU-4 NIST-5\nsome_systems= system_output_file.txt.1\nsome_refs= " \
           f"{REFS[0]} {REFS[2]}\nsome_segs= 1-3, 10\n"
    eval_config.write_text(eval_config.read_text(encoding="utf-8") + sets, encoding="utf-8")
    assert run("IQsetup", "-q", "IQsetup.config", "IQeval.config", cwd=tmp_path).returncode == 0
    assert eval_config.read_text(encoding="utf-8").endswith(MARK + "\n" + sets)
    result = run("IQeval", "-doOQ", "-G", "seg", "-M", "some_metrics", "-S", "some_systems", "-R", "some_refs",
                 "-T", "some_segs", "--tsv", "IQeval.config", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = tsv(result.stdout)
    assert {(r["metric"], r["segment"]) for r in rows} == {(m, s) for m in ("BLEU-4", "NIST-5")
                                                          for s in ("1", "2", "3", "10")}
    assert {r["refset"] for r in rows} == {refsets.join([REFS[0], REFS[2]])}


def test_iqsetup_never_overwrites_a_file_it_did_not_write(tmp_path: Path) -> None:
    manual_setup(tmp_path)
    mine = tmp_path / "IQeval.config"
    mine.write_text("some_metrics= BLEU-4\n", encoding="utf-8")
    result = run("IQsetup", "IQsetup.config", "IQeval.config", cwd=tmp_path)
    assert_user_error(result, "IQeval.config: exists and was not written by iqsetup")
    assert mine.read_text(encoding="utf-8") == "some_metrics= BLEU-4\n"
    assert not (tmp_path / "IQsetup-cache").exists()  # refused before computing anything


def test_own_metrics_listed_in_iqeval_config(manual: Path, tmp_path: Path) -> None:
    """§4.1.2: a user's metric is listed in metrics= of IQeval.config and read from the cache."""
    folder = tmp_path / "copy"
    shutil.copytree(manual, folder)
    cache = folder / "IQsetup-cache"
    for bleu in cache.rglob("BLEU-4.xml"):  # a user's own file: its name, no signature, inputs or digest
        text = re.sub(r' (signature|inputs|digest)="[^"]*"', "", bleu.read_text(encoding="utf-8"))
        bleu.with_name("NEWMETRIC.xml").write_text(text.replace('metric="BLEU-4"', 'metric="NEWMETRIC"'),
                                                   encoding="utf-8")
    config = folder / "IQeval.config"
    config.write_text(config.read_text(encoding="utf-8").replace("metrics=BLEU-4 ", "metrics=NEWMETRIC BLEU-4 "),
                      encoding="utf-8")
    result = run("IQeval", "-doOQ", "--tsv", "IQeval.config", cwd=folder)
    assert result.returncode == 0, result.stderr
    rows = tsv(result.stdout)
    new = {r["target"]: r["score"] for r in rows if r["metric"] == "NEWMETRIC"}
    assert new == {r["target"]: r["score"] for r in rows if r["metric"] == "BLEU-4"} and len(new) == 2


def test_remake_recomputes_the_selected_metrics(tmp_path: Path) -> None:
    """§4.2 ``-remake``: iqeval recomputes the metric files first (here a missing and a stale one)."""
    config = ende_config(tmp_path, metrics=["BLEU", "NIST"], sets={})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    cache = tmp_path / "cache"
    (cache / "UEdin" / "A_C_D" / "BLEU.xml").unlink()
    stale = cache / "UEdin" / "A" / "BLEU.xml"
    stale.write_text(stale.read_text(encoding="utf-8").replace('score="0.', 'score="0.9', 1), encoding="utf-8")
    missing = run("iqeval", "-doOQ", "-M", "BLEU", str(config))
    assert_user_error(missing, "no scores for metric 'BLEU'", "run iqsetup first")
    nist_before = (cache / "UEdin" / "A" / "NIST.xml").stat().st_mtime_ns
    remade = run("iqeval", "-remake", "-doOQ", "-M", "BLEU", "-R", "A", "--tsv", str(config))
    assert remade.returncode == 0, remade.stderr
    # every BLEU file, whatever -S/-R: 3 systems x (3 refs + A_C_D), 3 refs x (2 others + the other two)
    assert "-remake: 21 file(s) computed" in remade.stderr
    assert (cache / "UEdin" / "A_C_D" / "BLEU.xml").is_file()
    assert parse(stale).scores.system == pytest.approx(float(tsv(remade.stdout)[1]["score"]))
    assert (cache / "UEdin" / "A" / "NIST.xml").stat().st_mtime_ns == nist_before  # -M BLEU only


@pytest.mark.parametrize("command", ["IQsetup", "IQeval"])
def test_manual_command_names(command: str) -> None:
    """The manual's command names are installed beside iqsetup/iqeval and are the same programs."""
    upper, lower = run(command, "--help"), run(command.lower(), "--help")
    assert upper.returncode == 0 and upper.stdout == lower.stdout
    assert "IQMT manual" in upper.stdout


def test_option_values_starting_with_a_dash(tmp_path: Path) -> None:
    """``-M -TER`` (Asiya's negated error rates) is a value, not an option; ``-M=-TER`` too."""
    config = ende_config(tmp_path, metrics=["-TER", "-WER", "-PER", "BLEU"], sets={})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    for args, expected in ((["-M", "-TER"], {"-TER"}), (["-M=-TER"], {"-TER"}),
                           (["-M", "-WER,-PER"], {"-WER", "-PER"}), (["-M", "-TER", "-S", "UEdin"], {"-TER"})):
        result = run("iqeval", "-doOQ", *args, "--tsv", str(config))
        assert result.returncode == 0, (args, result.stderr)
        assert {r["metric"] for r in tsv(result.stdout)} == expected
    assert {r["target"] for r in tsv(run("iqeval", "-doOQ", "-M", "-TER", "-S", "UEdin", "--tsv",
                                         str(config)).stdout)} == {"UEdin"}


def test_source_takes_path_and_format(tmp_path: Path) -> None:
    """``source:`` accepts ``{path, format}`` like references and systems."""
    config = ende_config(tmp_path, source={"path": str(ENDE / "src.en"), "format": "plain"}, metrics=["BLEU"],
                         sets={})
    assert run("iqsetup", "-q", str(config)).returncode == 0
    sgml = ende_config(tmp_path, source={"path": str(ENDE / "src.en"), "format": "sgml"}, metrics=["BLEU"], sets={})
    assert run("iqsetup", "-q", str(sgml)).returncode == 2  # read as SGML: the plain file is refused
    for bad, fragment in (({"path": str(ENDE / "src.en"), "format": "xml"}, "key 'source.format'"),
                          ({"path": str(ENDE / "src.en"), "lang": "en"}, "unknown key 'lang'"),
                          ({"format": "plain"}, "key 'source': expected a path")):
        config = ende_config(tmp_path, source=bad, metrics=["BLEU"], sets={})
        assert_user_error(run("iqsetup", str(config)), "experiment.yaml:", fragment)


def test_sample_config_pair_is_the_manual_example(tmp_path: Path) -> None:
    """configs/IQsetup.config + configs/IQeval.config: the manual's Table 3 run on the bundled sample."""
    for name in ("IQsetup.config", "IQeval.config"):
        text = (ROOT / "configs" / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text.replace("../", str(ROOT) + "/").replace(
            str(ROOT) + "/demo-cache/iqmt", str(tmp_path / "cache")), encoding="utf-8")
    assert run("IQsetup", "-q", "IQsetup.config", "IQeval.config", cwd=tmp_path).returncode == 0
    result = run("IQeval", "-doOQ", "-doQUEEN", "-G", "seg", "-O", "0", "-M", "some_metrics", "-S", "some_systems",
                 "-R", "some_refs", "-T", "some_segs", "IQeval.config", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split() == ["SYS:SEG", "BLEU-4", "NIST-5", "QUEEN"]
    assert result.stdout.splitlines()[2].startswith("Facebook-AI.de:1 ")


@pytest.mark.parametrize(("extra", "fragments"), [
    ("ref=reference_file.txt.1", (":13:", "key 'references' belongs in the experiment file")),
    ("NAME=other", (":13:", "key 'name' belongs in the experiment file")),
    ("doBLEU", ("do<FAMILY> lines belong in the experiment file",)),
    ("metrics=NEWMETRIC a/b", ("key 'metrics'", "'a/b' contains a path separator")),
    ("metrics_X= BLEU-4 a/b", ("set 'metrics_X' (-M) names unknown items a/b",)),
])
def test_iqeval_config_refusals(manual: Path, extra: str, fragments: tuple[str, ...]) -> None:
    """An IQeval.config holds setup=, metrics= and sets; anything else is one line, exit 2."""
    name = f"bad-{zlib.crc32(extra.encode())}.config"
    text = (manual / "IQeval.config").read_text(encoding="utf-8")
    (manual / name).write_text(text + extra + "\n", encoding="utf-8")
    assert_user_error(run("IQeval", "-doOQ", "-M", "metrics_X", name, cwd=manual), name, *fragments)


def test_iqeval_config_never_names_itself_or_another(manual: Path) -> None:
    (manual / "self.config").write_text("setup=self.config\n", encoding="utf-8")
    assert_user_error(run("IQeval", "-doOQ", "self.config", cwd=manual), "self.config:1: setup= names this file")
    (manual / "chain.config").write_text("setup=IQeval.config\n", encoding="utf-8")
    assert_user_error(run("IQeval", "-doOQ", "chain.config", cwd=manual), "chain.config:1:", "itself an IQeval.config")
    result = run("IQsetup", "IQeval.config", "other.config", cwd=manual)
    assert_user_error(result, "IQeval.config: is an IQeval.config; give the experiment file")
