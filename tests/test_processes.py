"""Worker-process helpers (:mod:`mteval.processes`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
