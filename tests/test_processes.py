"""Worker-process helpers (:mod:`mteval.processes`), and Ctrl-C: an interrupted ``iqsetup -j 2`` (or a
test running it through ``helpers.run``) ends at once and leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ENDE, ROOT, ctrl_c_reaches, ende_config

LEAVES = """
import atexit
atexit.register(lambda: print("teardown handler ran", flush=True))
from mteval.processes import exit_without_teardown
exit_without_teardown()
print("work done", end="")  # unflushed: the exit must flush it
"""


def test_exit_without_teardown_flushes_output_and_skips_the_teardown() -> None:
    done = subprocess.run([sys.executable, "-c", LEAVES], capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "work done"  # the handlers registered before it did not run


ORPHAN = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import time; from mteval.processes import exit_with_parent; exit_with_parent(%d, every=0.05); time.sleep(30)"
    % os.getpid()])
print(child.pid, flush=True)
"""


def test_a_worker_leaves_when_its_parent_is_gone() -> None:
    import os
    import time

    done = subprocess.run([sys.executable, "-c", ORPHAN], capture_output=True, text=True, check=True, timeout=60)
    pid = int(done.stdout)
    status = Path(f"/proc/{pid}/status")
    for _ in range(200):
        try:  # gone, or a zombie nobody reaps (a container's init may not)
            if "\tZ" in status.read_text():
                return
        except FileNotFoundError:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    raise AssertionError("the orphaned worker was still running 10 s after its parent ended")


# ---- Ctrl-C ----------------------------------------------------------------------------------------

def _group(pgid: int) -> list[int]:
    """The live processes of a process group (zombies, which a container's init may never reap, aside)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _running(fragment: str) -> list[int]:
    """Processes whose command line holds ``fragment``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if fragment in cmdline.read_text(errors="replace"):
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def _wait_for(condition, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _long_lexical_run(tmp_path: Path, copies: int = 20) -> Path:
    """The en-de sample grown to ``copies`` x 100 distinct segments (each line joined to another one,
    another in each copy), scored with METEOR: units of seconds each."""
    texts = {}
    for name in ("refs/A.de", "refs/C.de", "refs/D.de", "sys/Facebook-AI.de", "sys/UEdin.de", "sys/Online-W.de"):
        lines = (ENDE / name).read_text(encoding="utf-8").splitlines()
        grown = [f"{line} {lines[(i + k + 1) % len(lines)]}\n" for k in range(copies) for i, line in enumerate(lines)]
        texts[name] = tmp_path / name.replace("/", "-")
        texts[name].write_text("".join(grown), encoding="utf-8")
    return ende_config(tmp_path, source=None, metrics=["METEOR-ex"], sets={},
                       references={r: str(texts[f"refs/{r}.de"]) for r in "ACD"},
                       systems={s: str(texts[f"sys/{s}.de"]) for s in ("Facebook-AI", "UEdin", "Online-W")})


RUN_IN_A_TEST = """
import sys
sys.path.insert(0, sys.argv[1])
from helpers import run
run("iqsetup", "-j", "2", sys.argv[2])
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("who", ["terminal", "iqsetup alone", "the test"])
def test_ctrl_c_ends_iqsetup_and_its_workers_at_once(tmp_path: Path, who: str) -> None:
    """SIGINT while the pool's workers compute: to iqsetup's process group (a terminal's Ctrl-C), to
    iqsetup alone, or to a test running it through ``helpers.run`` (Ctrl-C of pytest). The run ends
    within seconds (it does not wait for the units being computed) and no process of its group is
    left, nor a temporary file in the cache."""
    config = _long_lexical_run(tmp_path)
    env = {**os.environ, "MTEVAL_POOL_MIN_WORK": "0"}
    argv = ([sys.executable, "-c", RUN_IN_A_TEST, str(ROOT / "tests"), str(config)] if who == "the test"
            else ["iqsetup", "-j", "2", str(config)])
    with open(tmp_path / "stderr", "w+", encoding="utf-8") as stderr:
        started = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                                   preexec_fn=ctrl_c_reaches)
    setup = started.pid  # iqsetup, which leads its process group

    def commands() -> list[int]:  # the iqsetup that helpers.run started (not the test itself)
        return [pid for pid in _running(str(config)) if pid != started.pid]

    try:
        if who == "the test":
            assert _wait_for(lambda: commands() != [] or started.poll() is not None, 60), "iqsetup never started"
            setup = commands()[0] if commands() else setup
        assert _wait_for(lambda: len(_group(setup)) >= 3 or started.poll() is not None, 60), "no pool started"
        assert started.poll() is None, (tmp_path / "stderr").read_text(encoding="utf-8")
        time.sleep(1.5)  # the workers are computing their first units (each takes seconds)
        interrupted = time.monotonic()
        if who == "terminal":
            os.killpg(setup, signal.SIGINT)
        else:
            started.send_signal(signal.SIGINT)
        started.wait(timeout=60)
        took = time.monotonic() - interrupted
        assert _wait_for(lambda: _group(setup) == [], 10), f"left behind: {_group(setup)}"
    finally:  # nothing of a failed case stays either
        for pgid in {started.pid, setup}:
            if _group(pgid):
                os.killpg(pgid, signal.SIGKILL)
        started.wait(timeout=60)
    shown = (tmp_path / "stderr").read_text(encoding="utf-8")
    assert took < 5, f"{took:.1f} s from Ctrl-C to the end of the run:\n{shown}"  # not the units' ~20 s
    if who != "the test":
        assert started.returncode == 130, shown
        assert shown.rstrip().endswith("iqsetup: interrupted (finished files are kept; re-run to resume)"), shown
    assert not list((tmp_path / "cache").rglob("*.tmp"))


FORWARDS = """
import logging, multiprocessing, os
from concurrent.futures import ProcessPoolExecutor
from mteval.cli.common import run_command
from mteval.processes import LogForwarding, log_to

def body():
    context = multiprocessing.get_context("spawn")
    with LogForwarding(context) as logs, ProcessPoolExecutor(2, mp_context=context, initializer=log_to,
                                                             initargs=(logs.queue,)) as pool:
        worker = logging.getLogger("mteval.metrics.probe")
        pids = {pool.submit(worker.warning, "from a worker %d", k).result() for k in range(3)}
        pool.submit(worker.info, "not shown").result()
    return 0

raise SystemExit(run_command("probe", body))
"""


def test_worker_warnings_are_lines_of_the_parent() -> None:
    """A worker's warning reaches the parent's ``mteval`` handler (``probe: warning: ...``, written
    above any progress bar), not the worker's own standard error, and below-warning records stay out."""
    done = subprocess.run([sys.executable, "-c", FORWARDS], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert sorted(lines) == [f"probe: warning: from a worker {k}" for k in range(3)], done.stderr
