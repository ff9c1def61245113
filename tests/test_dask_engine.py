"""``iqsetup --scheduler`` / ``engine: {dask: ...}`` (issue 12 item 2-3): a small syntactic + lexical
experiment computed through real ``dask scheduler`` and ``dask worker`` processes on localhost
writes the same cache byte for byte as a local ``-j 1`` run -- also when a worker is killed
mid-run; a lost scheduler, an unreachable one and unfit workers end the run with one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from dask_cluster import cluster, free_port, wait_until
from helpers import cache_tree, run, small_experiment

pytest.importorskip("distributed", reason="the Dask engine needs the optional 'dask' extra (pip install mteval[dask])")

METRICS = ["BLEU", "NIST", "chrF", "TER", "ROUGE-L", "SP-Op(*)", "DP-HWCM_w-4", "EDPM"]
SEGMENTS = 12
XML_FILES = 17 * len(METRICS)  # 5 systems x (A, B, A_B) + A/B and B/A


def experiment(folder: Path, **overrides: object) -> Path:
    return small_experiment(folder, METRICS, SEGMENTS, **overrides)


def xml_files(config: Path) -> list[Path]:
    return sorted((config.parent / "cache").rglob("*.xml"))


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("iqsetup: error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The cache of a local one-process run: what every Dask run must write."""
    config = experiment(tmp_path_factory.mktemp("local") / "x")
    result = run("iqsetup", "-j", "1", str(config))
    assert result.returncode == 0, result.stderr
    found = cache_tree(config.parent / "cache")
    assert len([n for n in found if n.endswith(".xml")]) == XML_FILES
    return found


@pytest.mark.dask
def test_a_cluster_of_two_workers_writes_the_local_cache(local: dict[str, bytes], tmp_path: Path) -> None:
    config = experiment(tmp_path / "x")
    with cluster(tmp_path / "logs") as running:
        result = run("iqsetup", "--scheduler", running.address, str(config))
        assert result.returncode == 0, result.stderr
        assert f"dask: 2 worker(s), 2 thread(s) at {running.address}" in result.stderr
        assert cache_tree(config.parent / "cache") == local
        again = run("iqsetup", "--scheduler", running.address, str(config))  # warm: never connects
    assert again.returncode == 0 and "0 file(s) computed" in again.stderr and "dask:" not in again.stderr


@pytest.mark.dask
def test_engine_dask_local_starts_a_local_cluster(local: dict[str, bytes], tmp_path: Path) -> None:
    config = experiment(tmp_path / "x", engine={"dask": "local", "jobs": 2})
    result = run("iqsetup", str(config))
    assert result.returncode == 0, result.stderr
    assert "dask: started a local cluster of 2 worker(s)" in result.stderr
    assert "MALLOC_TRIM_THRESHOLD_" not in result.stderr  # its workers are started without it
    assert cache_tree(config.parent / "cache") == local


@pytest.mark.dask
def test_workers_whose_malloc_trims_at_64_kib_are_named(local: dict[str, bytes], tmp_path: Path) -> None:
    """Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536 (every numpy array over 128 KiB is
    then mmapped and unmapped): the run still completes, and says how to start them instead."""
    config = experiment(tmp_path / "x")
    prelude = "import os\nos.environ['MALLOC_TRIM_THRESHOLD_'] = '65536'"
    with cluster(tmp_path / "logs", workers=1, prelude=prelude) as running:
        result = run("iqsetup", "--scheduler", running.address, str(config))
    assert result.returncode == 0, result.stderr
    assert ("dask: 1 worker(s) run with MALLOC_TRIM_THRESHOLD_=65536 (Dask's nanny sets it)" in result.stderr
            and "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_: null" in result.stderr)
    assert cache_tree(config.parent / "cache") == local


@pytest.mark.dask
def test_a_worker_killed_mid_run_costs_only_its_tasks(local: dict[str, bytes], tmp_path: Path) -> None:
    """kill -9 of a worker while it parses: Dask runs its tasks again on the other one."""
    from distributed import Client

    config = experiment(tmp_path / "x")
    with cluster(tmp_path / "logs") as running, Client(running.address) as client:
        pids = client.run(os.getpid)
        setup = subprocess.Popen(["iqsetup", "--scheduler", running.address, str(config)],
                                 stderr=subprocess.PIPE, text=True)
        wait_until(lambda: any(client.processing().values()) or setup.poll() is not None)
        busy = next(worker for worker, tasks in client.processing().items() if tasks)
        os.kill(pids[busy], signal.SIGKILL)
        _, stderr = setup.communicate(timeout=300)
    assert setup.returncode == 0, stderr
    assert cache_tree(config.parent / "cache") == local


@pytest.mark.dask
def test_a_worker_killed_holding_scattered_parses_costs_only_its_tasks(local: dict[str, bytes],
                                                                      tmp_path: Path) -> None:
    """kill -9 of the only worker holding a scattered annotated text, as the syntactic units start:
    the client scatters it again (to a worker that joins) and resubmits the tasks that lost it."""
    from distributed import Client

    config = experiment(tmp_path / "x")
    parsed = run("iqsetup", "-q", "-j", "1", str(config))  # parses cached: the cluster only scores
    assert parsed.returncode == 0, parsed.stderr
    for path in xml_files(config):
        path.unlink()
    with cluster(tmp_path / "logs", workers=1) as running, Client(running.address) as client:
        pid = next(iter(client.run(os.getpid).values()))
        setup = subprocess.Popen(["iqsetup", "--scheduler", running.address, str(config)],
                                 stderr=subprocess.PIPE, text=True)
        scattered = lambda: any(str(key).startswith("PackedSide-") for key in client.who_has())  # noqa: E731
        wait_until(lambda: scattered() or setup.poll() is not None, every=0.01)
        running.add_worker()
        os.kill(pid, signal.SIGKILL)
        _, stderr = setup.communicate(timeout=300)
    assert setup.returncode == 0, stderr
    assert "sending them again and resubmitting those tasks" in stderr
    assert cache_tree(config.parent / "cache") == local


@pytest.mark.dask
def test_a_lost_scheduler_ends_the_run_and_a_rerun_resumes(local: dict[str, bytes], tmp_path: Path) -> None:
    from distributed import Client

    config = experiment(tmp_path / "x")
    with cluster(tmp_path / "logs") as running, Client(running.address) as client:
        setup = subprocess.Popen(["iqsetup", "--scheduler", running.address, str(config)],
                                 stderr=subprocess.PIPE, text=True)
        wait_until(lambda: any(client.processing().values()) or setup.poll() is not None)
        assert running.scheduler is not None
        os.killpg(running.scheduler.pid, signal.SIGKILL)
        _, stderr = setup.communicate(timeout=300)
    lost = subprocess.CompletedProcess(setup.args, setup.returncode, "", stderr)
    assert f"lost the Dask scheduler at {running.address}" in one_line_error(lost)
    assert not list((config.parent / "cache").rglob("*.tmp"))  # nothing half-written
    resumed = run("iqsetup", "-j", "1", str(config))
    assert resumed.returncode == 0, resumed.stderr
    assert cache_tree(config.parent / "cache") == local


@pytest.mark.slow  # ~10 s: the connection attempt times out
def test_an_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    config = experiment(tmp_path / "x")
    address = f"tcp://127.0.0.1:{free_port()}"
    error = one_line_error(run("iqsetup", "--scheduler", address, str(config)))
    assert f"cannot reach the Dask scheduler at '{address}'" in error
    assert not xml_files(config)


@pytest.mark.dask
@pytest.mark.parametrize(("prelude", "problem"), [
    ("sys.modules['mteval'] = None", "cannot import mteval"),
    ("import mteval\nmteval.__version__ = '0.0.1'", "runs mteval 0.0.1, this machine"),
    ("import pathlib, mteval.annotate.stanza_adapter as adapter\n"
     "adapter.EMBEDDED['en'] = pathlib.Path('/nonexistent/en_ewt')", "the embedded en models have no"),
], ids=["no-mteval", "other-version", "no-models"])
def test_an_unfit_worker_is_one_line_and_nothing_is_half_written(tmp_path: Path, prelude: str, problem: str) -> None:
    """A worker without mteval or with another version is refused before any unit runs: nothing
    is written. Without models, the lexical units (handed out before the first syntactic unit
    needs parses) have run: their files are complete, a re-run keeps them; no parse, no syntactic
    file, no temporary file is left."""
    config = experiment(tmp_path / "x")
    with cluster(tmp_path / "logs", workers=1, prelude=prelude) as running:
        error = one_line_error(run("iqsetup", "--scheduler", running.address, str(config)))
    assert problem in error and "Dask worker" in error
    cache = config.parent / "cache"
    assert not list(cache.rglob("*.conllu")) and not list(cache.rglob("*.tmp"))
    written = xml_files(config)
    if "models" not in problem:
        assert not written
        return
    assert {p.stem for p in written} <= {"BLEU", "NIST", "chrF", "TER", "ROUGE-L"}
    rerun = run("iqsetup", "-j", "1", str(config))
    assert rerun.returncode == 0, rerun.stderr
    assert len(written) + int(re.search(r"(\d+) file\(s\) computed", rerun.stderr).group(1)) == XML_FILES


def test_a_missing_scheduler_file_is_one_line(tmp_path: Path) -> None:
    config = experiment(tmp_path / "x", engine={"dask": "scheduler.json"})
    error = one_line_error(run("iqsetup", str(config)))
    assert f"Dask scheduler file not found: {config.parent / 'scheduler.json'}" in error


def test_a_task_raising_oserror_is_that_error_not_a_lost_scheduler(tmp_path: Path) -> None:
    """An error raised by a task (here ``FileNotFoundError``, an ``OSError``) is the task's, with
    its own message; only a failed talk with the cluster means the scheduler is lost."""
    from mteval.setup.dask_engine import DaskEngine

    missing = str(tmp_path / "no such file")
    with DaskEngine("local", jobs=1) as engine, pytest.raises(FileNotFoundError, match="no such file"):
        list(engine._stream(lambda index: engine.client.submit(os.stat, missing, pure=False), 1))
