"""``iqsetup -j N`` (issue 12 item 1): the same cache byte for byte as ``-j 1`` for every lexical
family and a syntactic one, ``engine: {jobs: N}``, bad values refused in one line, a progress bar
per metric family, and a killed worker reported in one line with the written files intact."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import cache_tree as tree
from helpers import ende_config, run, small_experiment

from mteval.store.iqxml import parse

SEGMENTS = 20
# every lexical family (BLEU/NIST, chrF, TER, WER/PER, GTM, ROUGE, METEOR) and one syntactic one
METRICS = ["BLEU", "NIST", "chrF", "chrF++", "TER", "WER", "PER", "GTM-2", "ROUGE-L", "ROUGE-SU*", "METEOR-ex",
           "SP-Op(*)"]
POOL = re.compile(r"computing \d+ unit\(s\) of work in (\d+) worker processes")


@pytest.fixture(autouse=True)
def small_work_in_a_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """These experiments are small: make -j N use its pool anyway (the installed commands inherit it)."""
    monkeypatch.setenv("MTEVAL_POOL_MIN_WORK", "0")


def experiment(folder: Path, **overrides: object) -> Path:
    """The first SEGMENTS lines of the ru-en sample (2 references, 5 systems) with its own caches."""
    return small_experiment(folder, METRICS, SEGMENTS, **overrides)


def pool_workers(stderr: str) -> str | None:
    """How many worker processes iqsetup said it started (None: it computed in one process)."""
    found = POOL.search(stderr)
    return found.group(1) if found else None


def summary(stderr: str) -> str:
    """iqsetup's last line without its timing."""
    return re.sub(r"in [\d.]+s", "in Xs", stderr.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    config = experiment(tmp_path_factory.mktemp("serial") / "x")
    result = run("iqsetup", "-j", "1", str(config))
    assert result.returncode == 0, result.stderr
    assert pool_workers(result.stderr) is None
    return config, result


@pytest.mark.models
@pytest.mark.slow
def test_two_jobs_write_the_same_cache_byte_for_byte(serial: tuple[Path, subprocess.CompletedProcess[str]],
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """... and the parses, handed to the workers through spill files in the cache, leave no file
    behind there nor in the temporary folder (torch may leave its own there)."""
    config, first = serial
    parallel = experiment(tmp_path / "x")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    result = run("iqsetup", "-j", "2", str(parallel))
    assert [p for p in (tmp_path / "tmp").iterdir() if not p.name.startswith("torch")] == []
    assert not list((parallel.parent / "cache").glob(".spill-*"))
    assert result.returncode == 0, result.stderr
    assert pool_workers(result.stderr) == "2", result.stderr
    expected, found = tree(config.parent / "cache"), tree(parallel.parent / "cache")
    assert any(name.startswith("annotation") for name in found)  # the syntactic family's parses
    assert len([n for n in found if n.endswith(".xml")]) == 17 * len(METRICS)
    assert found == expected
    assert summary(result.stderr) == summary(first.stderr).replace(str(config.parent), str(parallel.parent))


@pytest.mark.models
@pytest.mark.slow
def test_engine_jobs_in_the_experiment_file(serial: tuple[Path, subprocess.CompletedProcess[str]],
                                            tmp_path: Path) -> None:
    """``engine: {jobs: 3}`` without -j (the parses copied over: they are compared above)."""
    config, _ = serial
    parallel = experiment(tmp_path / "x", engine={"jobs": 3})
    shutil.copytree(config.parent / "cache" / "annotation", parallel.parent / "cache" / "annotation")
    result = run("iqsetup", str(parallel))
    assert result.returncode == 0, result.stderr
    assert pool_workers(result.stderr) == "3", result.stderr
    assert tree(parallel.parent / "cache") == tree(config.parent / "cache")
    again = run("iqsetup", "-j", "2", str(parallel))  # warm: nothing computed, no pool started
    assert "0 file(s) computed" in again.stderr and pool_workers(again.stderr) is None


@pytest.mark.parametrize(("option", "engine", "problem"), [
    ("0", None, "option -j: expected an integer from 1 to 256, got '0'"),
    ("x", None, "option -j: expected an integer from 1 to 256, got 'x'"),
    ("257", None, "option -j: expected an integer from 1 to 256, got '257'"),
    (None, {"jobs": "x"}, "key 'engine.jobs': expected an integer from 1 to 256, got 'x'"),
    (None, {"jobs": 0}, "key 'engine.jobs': expected an integer from 1 to 256, got 0"),
    (None, {"workers": 2}, "key 'engine': unknown key 'workers'; allowed: jobs, dask"),
    (None, 4, "key 'engine': expected a mapping with keys jobs, dask, got 4"),
    (None, {"dask": 8786}, "key 'engine.dask': expected 'local', a scheduler address such as tcp://host:8786"),
    (None, {"dask": "tcp://a b"}, "key 'engine.dask': expected 'local', a scheduler address"),
])
def test_bad_jobs_are_one_line_errors(tmp_path: Path, option: str | None, engine: object, problem: str) -> None:
    config = ende_config(tmp_path, **({} if engine is None else {"engine": engine}))
    result = run("iqsetup", *(["-j", option] if option else []), str(config))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("iqsetup: error: ")
    assert problem in result.stderr
    assert engine is None or f"{config}:" in result.stderr
    assert not (tmp_path / "cache").exists()


def ende_in(folder: Path, **overrides: object) -> Path:
    """The en-de sample's experiment in a folder of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    return ende_config(folder, **overrides)


def bars(config: Path, *options: str) -> str:
    env = {**os.environ, "MTEVAL_PROGRESS": "1"}
    result = subprocess.run(["iqsetup", *options, str(config)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stderr


@pytest.mark.slow  # ~5 s each: in make test-all (the fast tier stays under 8 minutes)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_progress_bars_of_the_metric_stage(tmp_path: Path, jobs: str) -> None:
    """In one process a bar per family; with worker processes one ``metrics`` bar over the units,
    weighted by cost (issue 30: per-family bars waited behind each other); each ends at 100 %."""
    metrics = ["BLEU", "NIST", "chrF", "TER", "GTM-1"]
    shown = bars(ende_in(tmp_path / "on", metrics=metrics), "-j", jobs)
    for family in ("mteval-v13a", "chrF", "TER", "GTM") if jobs == "1" else ("metrics",):
        assert re.search(rf"{family}:\s+100%\|.*pair", shown), (family, shown)
    assert bars(ende_in(tmp_path / "off", metrics=metrics), "-j", jobs, "-q") == ""


def workers_of(pid: int) -> list[int]:
    """The spawned worker processes of a process (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        for child in (task / "children").read_text().split() if (task / "children").exists() else []:
            if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text(errors="replace"):
                found.append(int(child))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_worker_is_one_line_and_the_next_run_resumes(tmp_path: Path) -> None:
    metrics = ["BLEU", "chrF", "TER", "GTM-1", "ROUGE-L", "METEOR-ex"]
    config = ende_config(tmp_path, metrics=metrics)
    process = subprocess.Popen(["iqsetup", "-q", "-j", "2", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and process.poll() is None and not workers:
        workers = workers_of(process.pid)
        time.sleep(0.05)
    assert workers, "no worker process was seen"
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    errors = [line for line in stderr.splitlines() if not line.startswith("iqsetup: warning: ")]  # the texts' warnings
    assert len(errors) == 1 and errors[0].startswith("iqsetup: error: a worker process died"), stderr
    for path in (tmp_path / "cache").rglob("*.xml"):
        parse(path)  # every file written reads whole
    assert not list((tmp_path / "cache").rglob("*.tmp"))
    resumed = run("iqsetup", "-j", "2", str(config))
    assert resumed.returncode == 0, resumed.stderr
    clean = ende_in(tmp_path / "clean", metrics=metrics)
    assert run("iqsetup", "-q", "-j", "1", str(clean)).returncode == 0
    assert tree(tmp_path / "cache") == tree(tmp_path / "clean" / "cache")


@pytest.mark.models
def test_units_are_built_when_handed_out_so_lexical_work_starts_before_the_parses_load(tmp_path: Path) -> None:
    """The pool rule counts the work without building a unit; the lexical units are built (and go
    to the workers) without touching the parses; the first syntactic unit loads them."""
    from mteval.experiment.loading import load
    from mteval.experiment.texts import load_texts
    from mteval.metrics import registry
    from mteval.setup.run import SetupRun, _UnitList, chunked, plan_pairs

    experiment = load(small_experiment(tmp_path / "x", ["BLEU", "SP-Op(*)"], 5))
    run = SetupRun(experiment, load_texts(experiment))
    pairs = plan_pairs(experiment)
    planned = [plan for name, variants in registry.group_by_family(experiment.metrics).items()
               for plan in run.plan_family(registry.create(name, None), variants, pairs)]
    units = _UnitList(run, chunked(planned, 2))
    assert run.annotations._sentences == {}  # planning and counting parse nothing
    lexical = [index for index in range(len(units)) if units.pieces[index][0][0].family.family == "mteval-v13a"]
    assert lexical == list(range(len(lexical))) and len(lexical) < len(units)  # handed out first
    built = [units[index] for index in lexical]
    assert run.annotations._sentences == {}
    built += [units[index] for index in range(len(lexical), len(units))]
    assert run.annotations._sentences != {}
    assert units.work == sum(unit.work for unit in built)
    assert [unit.family for unit in built] == [units.pieces[i][0][0].family.family for i in range(len(units))]
