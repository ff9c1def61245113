"""Faults a real machine has: ``kill -9`` at random moments, two runs on one cache, a full disk,
another locale and hash seed. Every case runs the installed ``iqsetup``/``iqeval`` on a small
lexical + syntactic experiment (the embedded English parser runs too) and compares with a clean run
byte for byte."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from helpers import ENDE, RUEN, ende_config, run

from mteval.store.iqxml import parse

SEGMENTS = 20
METRICS = ["BLEU", "NIST", "chrF", "TER", "SP-Op(*)", "DP-HWCM_w-4", "EDPM"]
KILLS = 20


def make_experiment(folder: Path) -> Path:
    """The first SEGMENTS lines of the ru-en sample (2 references, 3 systems), its own caches."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = {"A": RUEN / "refs" / "A.en", "B": RUEN / "refs" / "B.en", "AFRL": RUEN / "sys" / "AFRL.en",
             "Online-B": RUEN / "sys" / "Online-B.en", "Online-Y": RUEN / "sys" / "Online-Y.en"}
    paths = {}
    for name, source in texts.items():
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)[:SEGMENTS]
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("".join(lines), encoding="utf-8")
    config = {"name": "faults", "cache": str(folder / "cache"), "language": "en",
              "references": {r: str(paths[r]) for r in ("A", "B")},
              "systems": {s: str(paths[s]) for s in ("AFRL", "Online-B", "Online-Y")},
              "annotation": {"cache": str(folder / "annotation")}, "metrics": METRICS}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def score_files(config: Path) -> dict[str, bytes]:
    """Every score file of an experiment's cache, by path relative to the cache."""
    cache = config.parent / "cache"
    return {str(p.relative_to(cache)): p.read_bytes() for p in sorted(cache.rglob("*.xml"))}


def segment_tsv(config: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(["iqeval", "-doOQ", "-G", "seg", "--tsv", str(config)], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def environment(seed: str, locale: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    return {**env, "PYTHONHASHSEED": seed, "LC_ALL": locale, "LANG": locale}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    """A clean, uninterrupted run (hash seed 0, C locale) and how long it took."""
    config = make_experiment(tmp_path_factory.mktemp("clean"))
    started = time.monotonic()
    result = subprocess.run(["iqsetup", "-q", str(config)], capture_output=True, text=True, timeout=600,
                            env=environment("0", "C"))
    assert result.returncode == 0, result.stderr
    return config, time.monotonic() - started


@pytest.mark.models
@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume(clean: tuple[Path, float], tmp_path: Path) -> None:
    """At least KILLS kills during start-up, parsing, scoring and file writes; every completed
    run, and the final one, equals the clean run byte for byte."""
    clean_config, duration = clean
    expected_files, expected_tsv = score_files(clean_config), segment_tsv(clean_config)
    config = make_experiment(tmp_path / "killed")
    rng = random.Random(16)
    kills = completed = 0
    while kills < KILLS:
        process = subprocess.Popen(["iqsetup", "-q", str(config)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.2, 0.6 * duration))  # start-up, parsing, scoring and writes
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            kills += 1
            continue
        assert process.returncode == 0, process.stderr.read() if process.stderr else ""
        assert score_files(config) == expected_files and segment_tsv(config) == expected_tsv
        completed += 1
        for cache in ("cache", "annotation"):  # start over, so later kills land in every stage again
            subprocess.run(["rm", "-rf", str(config.parent / cache)], check=True)
    final = run("iqsetup", "-q", str(config))
    assert final.returncode == 0, final.stderr
    assert score_files(config) == expected_files
    assert segment_tsv(config) == expected_tsv
    assert not [p for p in (config.parent / "cache").rglob(".*.tmp")], "a killed run's temporary file stayed"


@pytest.mark.models
@pytest.mark.slow
def test_two_runs_on_one_cache(clean: tuple[Path, float], tmp_path: Path) -> None:
    """Started a second apart on one cache: one waits for the other, both finish, nothing is
    computed twice, and the files equal the clean run's."""
    clean_config, _ = clean
    config = make_experiment(tmp_path / "twice")
    first = subprocess.Popen(["iqsetup", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    second = subprocess.Popen(["iqsetup", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    errors = [p.communicate(timeout=600)[1] for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, errors
    assert any("waiting: another run" in e for e in errors), errors
    computed = sorted(int(e.split(" file(s) computed")[0].rsplit(" ", 1)[-1]) for e in errors)
    assert computed[0] == 0 and computed[1] == len(score_files(clean_config))
    assert score_files(config) == score_files(clean_config)


@pytest.mark.models
@pytest.mark.slow
def test_other_locale_and_hash_seed_give_identical_files(clean: tuple[Path, float], tmp_path: Path) -> None:
    clean_config, _ = clean
    config = make_experiment(tmp_path / "locale")
    env = environment("4242", "C.UTF-8")
    result = subprocess.run(["iqsetup", "-q", str(config)], capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    assert score_files(config) == score_files(clean_config)
    assert segment_tsv(config, env) == segment_tsv(clean_config)


def assert_disk_full_handled(result: subprocess.CompletedProcess[str], cache: Path, problem: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and problem in lines[0], lines
    assert not [p for p in cache.rglob("*.tmp")], "a partial temporary file stayed"
    for path in cache.rglob("*.xml"):
        parse(path, 100)  # every file there is whole


def test_disk_full_on_a_small_tmpfs(tmp_path: Path) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mount)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()}); "
                    "the file-size limit test below simulates ENOSPC instead")
    try:
        config = ende_config(tmp_path, cache=str(mount / "cache"), metrics=["BLEU", "NIST", "BLEU-2", "chrF"])
        assert_disk_full_handled(run("iqsetup", "-q", str(config)), mount / "cache", "No space left on device")
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_write_failure_at_the_write_layer(tmp_path: Path) -> None:
    """A file-size limit makes every write past 4 KB fail (EFBIG), as a full disk would."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    config = ende_config(tmp_path, metrics=["BLEU"])
    result = subprocess.run(["iqsetup", "-q", str(config)], capture_output=True, text=True, timeout=300,
                            preexec_fn=limit)
    assert_disk_full_handled(result, tmp_path / "cache", "File too large")
    assert not list((tmp_path / "cache").rglob("*.xml"))
    assert (ENDE / "refs" / "A.de").exists()


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    for task in tasks.iterdir() if tasks.exists() else []:
        children = (task / "children").read_text().split() if (task / "children").exists() else []
        found += [int(c) for c in children]
    return found


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


@pytest.mark.models
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_parse_workers_stop_when_iqsetup_is_killed(tmp_path: Path) -> None:
    """``kill -9`` of iqsetup while its parse workers run: they leave within seconds instead of
    parsing their batches to the end for nobody."""
    config = make_experiment(tmp_path / "workers")
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["annotation"]["workers"] = 2
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    process = subprocess.Popen(["iqsetup", "-q", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while time.monotonic() < deadline and process.poll() is None:
        workers = [c for c in _children(process.pid)
                   if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")]
        if len(workers) >= 2:
            break
        time.sleep(0.2)
    assert len(workers) >= 2, "the parse workers never started"
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "a parse worker outlived iqsetup"
