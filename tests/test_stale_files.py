"""iqeval shows no number from a score file that the current experiment did not produce (issue 29,
findings F01-F05, F16, F23; docs/reliability.md, "What iqeval verifies"). Every case runs the
installed commands on the bundled en-de sample."""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import ENDE, ende_config, run

from mteval.store import stamps
from mteval.store.iqxml import parse

METRICS = ["BLEU", "NIST", "chrF", "-TER"]


def _setup(config: Path, *extra: str) -> None:
    result = run("iqsetup", "-q", *extra, str(config))
    assert result.returncode == 0, result.stderr


def _refused(result, *fragments: str, prog: str = "iqeval") -> str:  # type: ignore[no-untyped-def]
    """One error line, exit 2, no output; the line."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.startswith(f"{prog}: error:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _edit(config: Path, **changes: object) -> None:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data.update(changes)
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


@pytest.fixture()
def experiment(tmp_path: Path) -> Path:
    """The sample with its UEdin output copied (so that a test can edit it) and computed."""
    (tmp_path / "UEdin.de").write_bytes((ENDE / "sys" / "UEdin.de").read_bytes())
    config = ende_config(tmp_path, metrics=METRICS)
    _edit(config, systems={**yaml.safe_load(config.read_text())["systems"], "UEdin": str(tmp_path / "UEdin.de")})
    _setup(config)
    return config


def _tsv(config: Path, *options: str) -> str:
    result = run("iqeval", "-doOQ", "--tsv", *options, str(config))
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow  # ~5 s: in make test-all (the fast tier stays under 8 minutes)
def test_a_changed_system_text_is_refused_then_recomputed(experiment: Path, tmp_path: Path) -> None:
    """F01: the old numbers are never shown, on the whole test set or on -T (where NIST is computed
    again from the new text: the mix of stale and fresh numbers the sweep found)."""
    text = tmp_path / "UEdin.de"
    lines = text.read_text(encoding="utf-8").splitlines(keepends=True)
    text.write_text("".join(["Ganz anders.\n", *lines[1:]]), encoding="utf-8")
    for options in ((), ("-T", "1-30"), ("-G", "seg", "-M", "BLEU")):
        line = _refused(run("iqeval", "-doOQ", *options, str(experiment)), "UEdin", "run iqsetup", str(experiment))
        assert "computed from other texts: UEdin changed" in line
    page = tmp_path / "report.html"
    _refused(run("mteval", "report", str(experiment), "-o", str(page)), "score files do not match", prog="mteval")
    assert not page.exists()
    whole = _refused(run("iqeval", "-doOQ", str(experiment)))
    assert re.search(r"\b[0-9]+ score files do not match", whole), whole  # every stale file counted in one line
    _setup(experiment)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    config = ende_config(fresh, metrics=METRICS, systems=yaml.safe_load(experiment.read_text())["systems"])
    _setup(config)
    assert _tsv(experiment, "-T", "1-30") == _tsv(config, "-T", "1-30")


def test_a_changed_setting_or_reference_path_is_refused(experiment: Path, tmp_path: Path) -> None:
    """F01: ``case:`` and a reference pointing to another file."""
    _edit(experiment, case="ci")
    _refused(run("iqeval", "-doOQ", "-M", "BLEU", str(experiment)), "computed with other settings",
             "case:cs in the file, case:ci now")
    _edit(experiment, case="cs")
    assert _tsv(experiment, "-M", "BLEU")
    references = yaml.safe_load(experiment.read_text())["references"]
    _edit(experiment, references={**references, "C": references["D"]})
    _refused(run("iqeval", "-doOQ", "-M", "chrF", "-R", "C", str(experiment)), "C changed")


def test_two_experiments_sharing_a_cache_do_not_overwrite_each_other(experiment: Path, tmp_path: Path) -> None:
    """F02: the second experiment's iqsetup refuses, naming the first; --take-over replaces; the
    first then refuses to show the second's numbers."""
    other = tmp_path / "other.yaml"
    other.write_text(experiment.read_text(encoding="utf-8").replace("name: test", "name: test\ncase: ci"),
                     encoding="utf-8")
    before = (tmp_path / "cache" / "UEdin" / "A" / "BLEU.xml").read_bytes()
    result = run("iqsetup", "-q", str(other))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert f"written by experiment {experiment}" in result.stderr and "--take-over" in result.stderr
    assert (tmp_path / "cache" / "UEdin" / "A" / "BLEU.xml").read_bytes() == before  # nothing written
    _setup(other, "--take-over")
    _refused(run("iqeval", "-doOQ", "-M", "BLEU", str(experiment)), "case:ci in the file, case:cs now")
    _setup(experiment, "--take-over")
    assert _tsv(experiment, "-M", "BLEU")


def test_same_settings_share_a_cache(experiment: Path, tmp_path: Path) -> None:
    """Two experiment files with the same texts and settings share files: nothing to refuse."""
    twin = tmp_path / "twin.yaml"
    shutil.copy(experiment, twin)
    result = run("iqsetup", str(twin))
    assert result.returncode == 0 and " 0 file(s) computed" in result.stderr, result.stderr
    assert _tsv(twin) == _tsv(experiment)


def test_a_file_copied_to_another_folder_or_name_is_refused(experiment: Path, tmp_path: Path) -> None:
    """F03: the file's own target and metric are checked."""
    cache = tmp_path / "cache"
    shutil.copy(cache / "Online-W" / "A" / "BLEU.xml", cache / "UEdin" / "A" / "BLEU.xml")
    _refused(run("iqeval", "-doOQ", "-M", "BLEU", "-R", "A", str(experiment)), "UEdin/A/BLEU.xml",
             "the file is target 'Online-W', not 'UEdin'")
    shutil.copy(cache / "Online-W" / "A" / "-TER.xml", cache / "Online-W" / "A" / "chrF.xml")
    _refused(run("iqeval", "-doOQ", "-M", "chrF", "-R", "A", "-S", "Online-W", str(experiment)),
             "the file is metric '-TER', not 'chrF'")
    shutil.copy(cache / "Online-W" / "C" / "chrF.xml", cache / "Online-W" / "D" / "chrF.xml")
    _refused(run("iqeval", "-doOQ", "-M", "chrF", "-R", "D", "-S", "Online-W", str(experiment)),
             "the file is ref 'C', not 'D'")


def test_changed_docids_are_refused(tmp_path: Path) -> None:
    """F04: after the docids file changes, -G doc does not fall back to other numbers."""
    docids = tmp_path / "docids.txt"
    docids.write_text("".join(f"d{i // 10}\n" for i in range(100)), encoding="utf-8")
    config = ende_config(tmp_path, metrics=["BLEU", "chrF"], docids=str(docids))
    _setup(config)
    assert _tsv(config, "-G", "doc")
    docids.write_text("".join(f"d{i // 20}\n" for i in range(100)), encoding="utf-8")
    _refused(run("iqeval", "-doOQ", "-G", "doc", str(config)), "the docids file", "run iqsetup")


def test_a_computed_file_without_its_digest_is_refused(experiment: Path, tmp_path: Path) -> None:
    """F05: a hand-edited score with the digest removed is not taken for a user's file; iqsetup
    computes it again; a file with every mteval attribute removed is not iqsetup's either."""
    path = tmp_path / "cache" / "UEdin" / "A" / "BLEU.xml"
    true = parse(path).scores.system
    text = path.read_text(encoding="utf-8")
    edited = re.sub(r' digest="[^"]*"', "", text).replace(f'score="{true!r}"', 'score="0.9356"', 1)
    path.write_text(edited, encoding="utf-8")
    _refused(run("iqeval", "-doOQ", "-M", "BLEU", "-R", "A", str(experiment)), "its digest was removed")
    _setup(experiment)
    assert parse(path).scores.system == true
    path.write_text(re.sub(r' (digest|signature|inputs)="[^"]*"', "", text), encoding="utf-8")
    _refused(run("iqeval", "-doOQ", "-M", "BLEU", "-R", "A", str(experiment)), "not written by iqsetup")


def test_users_own_files_and_other_metrics(experiment: Path, tmp_path: Path) -> None:
    """A user's own file (no signature) is read as it is; a computed file of a metric no longer in
    the experiment is shown while current, and left out with a warning (an error with -M) when not."""
    cache = tmp_path / "cache"
    for target in ("Facebook-AI", "UEdin", "Online-W"):
        folder = cache / target / "A_C_D"
        text = re.sub(r' (digest|signature|inputs)="[^"]*"', "", (folder / "BLEU.xml").read_text(encoding="utf-8"))
        (folder / "MINE.xml").write_text(text.replace('metric="BLEU"', 'metric="MINE"'), encoding="utf-8")
    shown = _tsv(experiment, "-M", "MINE,BLEU")
    assert {r.split("\t")[2] for r in shown.splitlines()[1:]} == {"MINE", "BLEU"}
    _edit(experiment, metrics=["BLEU", "NIST", "-TER"])  # chrF no longer configured: still current
    assert "\tchrF\t" in _tsv(experiment)
    _edit(experiment, case="ci", metrics=["BLEU"])
    _setup(experiment)  # BLEU again, case-insensitive; chrF's files stay case-sensitive
    result = run("iqeval", "-doOQ", "--tsv", str(experiment))
    assert result.returncode == 0, result.stderr
    assert "\tchrF\t" not in result.stdout and "metric 'chrF' left out" in result.stderr
    _refused(run("iqeval", "-doOQ", "-M", "chrF", str(experiment)), "computed with other settings")


@pytest.mark.slow  # ~3 s: in make test-all (the fast tier stays near 8 minutes)
def test_a_learned_metric_follows_its_features(experiment: Path, tmp_path: Path) -> None:
    """A tuned metric (mteval tune) is shown while its feature files are those it was computed
    from; after a feature is computed again from a changed text, it is refused."""
    result = run("mteval", "tune", str(experiment), "--assessments", str(ENDE / "human" / "mqm.tsv"),
                 "-M", "BLEU,chrF", "--name", "LEARNED", "--folds-by-line", "--unknown-systems", "skip")
    assert result.returncode == 0, result.stderr
    assert "\tLEARNED\t" in _tsv(experiment, "-M", "LEARNED")
    text = tmp_path / "UEdin.de"
    text.write_text("Ganz anders.\n" + "".join(text.read_text(encoding="utf-8").splitlines(True)[1:]),
                    encoding="utf-8")
    _refused(run("iqeval", "-doOQ", "-M", "LEARNED", "-S", "UEdin", str(experiment)), "feature BLEU")
    _setup(experiment)
    _refused(run("iqeval", "-doOQ", "-M", "LEARNED", "-S", "UEdin", str(experiment)),
             "computed from other feature scores")
    assert _tsv(experiment, "-M", "LEARNED", "-S", "Online-W")


def test_a_huge_damaged_file_is_not_hashed(experiment: Path, tmp_path: Path) -> None:
    """F16: a 1 TiB sparse file where a score file was is recomputed by its size, unread."""
    path = tmp_path / "cache" / "UEdin" / "A" / "BLEU.xml"
    with open(path, "r+b") as f:
        f.truncate(1 << 40)
    result = run("iqsetup", "-q", str(experiment))  # run()'s timeout bounds it; it takes a second
    assert result.returncode == 0 and "larger than a score file can be" in result.stderr, result.stderr
    assert path.stat().st_size < 1 << 20 and parse(path).scores.system > 0


def test_unwritable_stamp_indexes_warn_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            caplog: pytest.LogCaptureFixture) -> None:
    """F23: a full disk fails every folder's index: one warning, not one per folder."""
    index = stamps.Stamps()
    facts = stamps.Facts("s", "i", True, False, 1)
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "M.xml").write_bytes(b"x")
        index.record_bytes(tmp_path / name / "M.xml", b"x", facts, "/e.yaml")

    def full(folder: Path, entries: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stamps, "_write_index", full)
    with caplog.at_level(logging.WARNING, logger="mteval"):
        index.write()
    assert len(caplog.records) == 1 and "and 2 other folder(s)" in caplog.records[0].getMessage()


def test_stamps_name_their_writer_and_read_old_indexes(experiment: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "UEdin" / "A"
    entries = stamps.read_index(folder)
    assert {s.writer for s in entries.values()} == {str(experiment.resolve())}
    assert stamps.Stamps().writer(folder / "BLEU.xml") == str(experiment.resolve())
    old = {name: stamps.Stamp(s.size, s.sha256, s.facts) for name, s in entries.items()}
    stamps._write_index(folder, old)  # as a /1 index would hold them: no writer
    text = (folder / stamps.INDEX).read_text(encoding="utf-8")
    files = json.loads(text)["files"]
    for entry in files.values():
        del entry["writer"]
    document = {"format": "mteval-stamps/1", "files": files, "check": stamps._check(files)}
    (folder / stamps.INDEX).write_text(json.dumps(document), encoding="utf-8")
    assert {s.writer for s in stamps.read_index(folder).values()} == {""}


def test_renamed_sgml_documents_are_refused_until_remade(tmp_path: Path) -> None:
    """Docids of SGML texts are not in the texts' digests: a document renamed in every file (the
    segments the same) is caught by the files' own document list, and -remake recomputes."""
    sgml = tmp_path / "sgml"
    shutil.copytree(ENDE.parent / "wmt21-ruen-sample" / "sgml", sgml)
    config = tmp_path / "sgml.yaml"
    text = (ENDE.parents[1] / "configs" / "example-sgml.yaml").read_text(encoding="utf-8")
    text = text.replace("../data/wmt21-ruen-sample/sgml", str(sgml)).replace("../demo-cache/", f"{tmp_path}/")
    config.write_text(text, encoding="utf-8")
    _setup(config)
    before = _tsv(config, "-G", "doc", "-M", "BLEU")
    for path in sgml.glob("*.sgm"):
        path.write_text(path.read_text(encoding="utf-8").replace('"kp.235560"', '"kp.renamed"'), encoding="utf-8")
    _refused(run("iqeval", "-doOQ", "-G", "doc", "-M", "BLEU", str(config)), "document ids changed",
             "run iqsetup -remake")
    _setup(config, "-remake")
    after = _tsv(config, "-G", "doc", "-M", "BLEU")
    assert after == before.replace("\tkp.235560\t", "\tkp.renamed\t") and after != before
