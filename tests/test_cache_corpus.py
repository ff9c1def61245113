"""The cache corpus: damaged, hostile and odd score files, read by the installed ``iqeval`` and
re-read by ``iqsetup``. Each case either works (and the test checks the numbers) or ends in one
line naming the file (and line), exit 2, nothing written."""

from __future__ import annotations

import gzip
import os
import resource
import shutil
import subprocess
import time
import zlib
from pathlib import Path

import pytest
from helpers import ende_config, run
from test_bad_input import assert_user_error

from mteval.errors import CacheError
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import parse


@pytest.fixture(scope="module")
def computed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A computed cache of the en-de sample (BLEU, NIST, BLEU-2), copied per test."""
    tmp = tmp_path_factory.mktemp("computed")
    config = ende_config(tmp, metrics=["BLEU", "NIST"])
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return tmp


@pytest.fixture()
def experiment(computed: Path, tmp_path: Path) -> Path:
    """A private copy of the computed experiment; returns its config path."""
    shutil.copytree(computed / "cache", tmp_path / "cache")
    return ende_config(tmp_path, metrics=["BLEU", "NIST"])


def bleu_file(config: Path, target: str = "UEdin", refset: str = "A_C_D") -> Path:
    return config.parent / "cache" / target / refset / "BLEU.xml"


def oq(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run("iqeval", "-doOQ", "-G", "seg", "--tsv", *extra, str(config))


def replace_segment(path: Path, number: int, text: str) -> None:
    """Rewrite one ``<S n="number" stats="...">value</S>`` line of a computed file."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if f'<S n="{number}"' in line)
    lines[index] = text + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def test_clean_cache_reads(experiment: Path) -> None:
    result = oq(experiment)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1 + 3 * 2 * 100


def test_truncated_file_is_an_error_then_recomputed(experiment: Path) -> None:
    path = bleu_file(experiment)
    clean = oq(experiment).stdout
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert_user_error(oq(experiment), str(path), "not well-formed")
    rerun = run("iqsetup", str(experiment))
    assert rerun.returncode == 0, rerun.stderr
    assert "damaged score file, computing it again" in rerun.stderr
    assert "1 file(s) computed" in rerun.stderr
    assert oq(experiment).stdout == clean


@pytest.mark.parametrize("line, fragment", [
    ('<S n="7">inf</S>', "segment 7: inf is out of range"),
    ('<S n="7">-inf</S>', "out of range"),
    ('<S n="7">1e308</S>', "out of range"),
    ('<S n="7">high</S>', "'high' is not a number"),
    ('<S>0.5</S>', "<S> needs n="),
    ('<S n="nan">0.5</S>', "got 'nan'"),
    ('<S n="5.7">0.5</S>', "got '5.7'"),
    ('<S n="0">0.5</S>', "got '0'"),
    ('<S n="²">0.5</S>', "got '²'"),  # str.isdigit takes it, int does not (issue 29, F10)
    ('<S n="8">0.5</S>', "segment 8 has two scores"),
    ('<S n="700">0.5</S>', "has segment 700 but the test set has 100"),
])
def test_bad_segment_scores(experiment: Path, line: str, fragment: str) -> None:
    path = bleu_file(experiment)
    replace_segment(path, 7, line)
    number = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text == line)
    if "has segment 700" in fragment:
        expected_where = f"{path}: "
    elif "two scores" in fragment:  # reported where the second score for segment 8 stands
        expected_where = f"{path}:{number + 1}:"
    else:
        expected_where = f"{path}:{number}:"
    assert_user_error(oq(experiment, "-M", "BLEU"), expected_where, fragment)


def test_missing_segment_is_damage_not_a_silent_nan(experiment: Path) -> None:
    path = bleu_file(experiment)
    replace_segment(path, 7, "")
    assert_user_error(oq(experiment, "-M", "BLEU"), str(path), "scores for 99 of 100 segments",
                      "first missing: 7")
    assert run("iqsetup", "-q", str(experiment)).returncode == 0
    assert oq(experiment).returncode == 0


def test_flipped_digit_is_caught_by_the_digest_then_recomputed(experiment: Path) -> None:
    path = bleu_file(experiment)
    clean = oq(experiment).stdout
    text = path.read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if '<S n="7"' in ln)
    digit = next(i for i, c in enumerate(line) if c.isdigit() and i > line.index(">"))
    flipped = line[:digit] + str((int(line[digit]) + 1) % 10) + line[digit + 1:]
    path.write_text(text.replace(line, flipped), encoding="utf-8")
    assert_user_error(oq(experiment), str(path), "do not match the file's digest")
    rerun = run("iqsetup", str(experiment))
    assert rerun.returncode == 0 and "damaged score file" in rerun.stderr, rerun.stderr
    assert oq(experiment).stdout == clean


def test_nan_segment_of_a_user_file_means_no_score(experiment: Path) -> None:
    drop_in(experiment, user_file([0.25] * 6 + ["nan"] + [0.25] * 93))
    result = oq(experiment, "-M", "MINE", "-S", "UEdin", "-T", "6-8")
    assert result.returncode == 0, result.stderr
    scores = [line.split("\t")[-1] for line in result.stdout.splitlines()[1:]]
    assert scores == ["0.25", "nan", "0.25"]


USER_HEADER = '<?xml version="1.0"?>\n'


def drop_in(config: Path, body: str, name: str = "MINE.xml", target: str = "UEdin") -> Path:
    path = config.parent / "cache" / target / "A_C_D" / name
    path.write_text(USER_HEADER + body, encoding="utf-8")
    return path


def user_file(scores: list[float | str]) -> str:
    segs = "".join(f'<S n="{i}">{v}</S>' for i, v in enumerate(scores, 1))
    return f'<IQ metric="MINE" score="0.5"><DOC id="UNKNOWN_DOC">{segs}</DOC></IQ>'


def test_external_entity_refused(experiment: Path) -> None:
    secret = experiment.parent / "secret.txt"
    secret.write_text("42", encoding="utf-8")
    body = (f'<!DOCTYPE IQ [<!ENTITY x SYSTEM "file://{secret}">]>\n'
            '<IQ metric="MINE" score="0.5"><S n="1">&x;</S></IQ>')
    path = drop_in(experiment, body)
    assert_user_error(oq(experiment, "-M", "MINE", "-S", "UEdin"), str(path), "entity declarations")


def test_billion_laughs_refused_fast(experiment: Path) -> None:
    refs = {i: f"&a{i - 1};" * 10 for i in range(1, 10)}
    entities = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{refs[i]}">' for i in range(1, 10))
    path = drop_in(experiment, f'<!DOCTYPE IQ [{entities}]>\n<IQ metric="MINE" score="&a9;"></IQ>')
    started = time.monotonic()
    result = oq(experiment, "-M", "MINE", "-S", "UEdin")
    assert_user_error(result, str(path))
    assert "entity declarations" in result.stderr or "entity amplification" in result.stderr  # ours or libxml2's
    assert time.monotonic() - started < 10


def _limited(limit_bytes: int):  # type: ignore[no-untyped-def]
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return set_limit


@pytest.mark.slow
def test_gzip_bomb_refused_with_bounded_memory(experiment: Path) -> None:
    """500 MB of ``<x/>`` in a 0.5 MB ``.xml.gz``: refused by the element cap, in bounded memory."""
    path = experiment.parent / "cache" / "UEdin" / "A_C_D" / "BOMB.xml.gz"
    chunk = b"<x/>" * (1 << 18)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip container
    with path.open("wb") as f:
        f.write(compressor.compress(b'<?xml version="1.0"?><IQ metric="BOMB">'))
        for _ in range(500):
            f.write(compressor.compress(chunk))
        f.write(compressor.compress(b"</IQ>") + compressor.flush())
    assert path.stat().st_size < 2_000_000
    started = time.monotonic()
    result = subprocess.run(["iqeval", "-doOQ", "-M", "BOMB", "-S", "UEdin", str(experiment)], capture_output=True,
                            text=True, timeout=300, preexec_fn=_limited(1_500_000_000))
    assert_user_error(result, str(path), "more than 5000000 XML elements")
    assert time.monotonic() - started < 60


def test_gzip_garbage_is_one_line(experiment: Path) -> None:
    path = experiment.parent / "cache" / "UEdin" / "A_C_D" / "BAD.xml.gz"
    path.write_bytes(gzip.compress(b"<IQ><S n='1'>0.5</S></IQ>")[:20])
    assert_user_error(oq(experiment, "-M", "BAD", "-S", "UEdin"), str(path), "cannot read score file")


def test_symlink_outside_cache_refused_and_skipped(experiment: Path) -> None:
    outside = experiment.parent / "outside.xml"
    outside.write_text(USER_HEADER + user_file([0.5] * 100), encoding="utf-8")
    for target in ("UEdin", "Facebook-AI", "Online-W"):
        (experiment.parent / "cache" / target / "A_C_D" / "LINKED.xml").symlink_to(outside)
    named = oq(experiment, "-M", "LINKED")
    assert named.returncode == 2 and "Traceback" not in named.stderr
    assert "outside the cache" in named.stderr and "'LINKED'" in named.stderr.splitlines()[-1]
    default = oq(experiment)
    assert default.returncode == 0, default.stderr
    assert "LINKED" not in default.stdout and "outside the cache" in default.stderr


def test_symlinked_target_folder_is_not_written_through(experiment: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    target = experiment.parent / "cache" / "UEdin"
    shutil.move(str(target), str(elsewhere))
    target.symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "A_C_D" / "BLEU.xml").unlink()
    result = run("iqsetup", str(experiment))
    assert_user_error(result, str(target))
    assert "symbolic link" in result.stderr or "outside the cache" in result.stderr
    assert not (elsewhere / "A_C_D" / "BLEU.xml").exists()


def test_stray_user_file_for_one_target_does_not_break_the_default_view(experiment: Path) -> None:
    drop_in(experiment, user_file([0.25] * 100))
    default = oq(experiment)
    assert default.returncode == 0, default.stderr
    assert "metric 'MINE' left out" in default.stderr and "\tMINE\t" not in default.stdout
    assert_user_error(oq(experiment, "-M", "MINE"), "no scores for metric 'MINE'", "Facebook-AI")
    only = oq(experiment, "-M", "MINE", "-S", "UEdin")
    assert only.returncode == 0 and only.stdout.count("\t0.25\n") == 100


def test_metric_file_name_with_a_tab_is_skipped(experiment: Path) -> None:
    for target in ("UEdin", "Facebook-AI", "Online-W"):
        drop_in(experiment, user_file([0.25] * 100), name="MI\tNE.xml", target=target)
    result = oq(experiment)
    assert result.returncode == 0, result.stderr
    assert "control character" in result.stderr
    assert all(len(line.split("\t")) == 7 for line in result.stdout.splitlines())


def test_cache_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("not a folder", encoding="utf-8")
    config = ende_config(tmp_path, metrics=["BLEU"])
    assert_user_error(run("iqsetup", str(config)), str(tmp_path / "cache"), "is a file, not a folder")


def test_cache_path_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    config = ende_config(tmp_path, metrics=["BLEU"], cache=str(tmp_path / "file" / "cache"))
    assert_user_error(run("iqsetup", str(config)), str(tmp_path / "file"), "lies under a file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere: a read-only folder cannot be made here")
def test_cache_path_not_writable(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir(mode=0o555)
    config = ende_config(tmp_path, metrics=["BLEU"], cache=str(tmp_path / "ro" / "cache"))
    assert_user_error(run("iqsetup", str(config)), str(tmp_path / "ro"), "not writable")


def test_metric_name_leaving_the_cache_is_refused(experiment: Path) -> None:
    assert_user_error(oq(experiment, "-M", "BLEU,../../../x"), "unknown metric '../../../x'")
    cache = ScoreCache(experiment.parent / "cache")
    for parts in (("..", "A_C_D", "BLEU"), ("UEdin", "../..", "BLEU"), ("UEdin", "A_C_D", "../../x"),
                  ("UEdin", "A\nB", "BLEU"), ("", "A", "BLEU")):
        with pytest.raises(CacheError, match="cannot be a cache path"):
            cache.find(*parts)
        with pytest.raises(CacheError, match="cannot be a cache path"):
            cache.path(*parts)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_score_files_respect_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    config = ende_config(tmp_path, metrics=["BLEU"])
    result = subprocess.run(["iqsetup", "-q", str(config)], capture_output=True, text=True, timeout=300,
                            preexec_fn=lambda: os.umask(umask) and None)
    assert result.returncode == 0, result.stderr
    files = list((tmp_path / "cache").rglob("*.xml"))
    assert files and {f.stat().st_mode & 0o777 for f in files} == {mode}


def test_written_files_have_every_segment(experiment: Path) -> None:
    parsed = parse(bleu_file(experiment), 100)
    assert parsed.scores.segments.shape == (100,)
    assert bleu_file(experiment).read_text().count("<S n=") == 100


def test_a_file_system_without_locks_warns_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    from mteval import files
    from mteval.store import lock

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(37, "No locks available")

    monkeypatch.setattr(files.fcntl, "flock", no_locks)
    with lock.exclusive(tmp_path / "cache"):
        (tmp_path / "cache" / "inside").write_text("ran", encoding="utf-8")
    assert (tmp_path / "cache" / "inside").exists()
    assert "No locks available" in caplog.text and "not serialised" in caplog.text
