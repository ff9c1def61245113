"""Worker processes shared by the parse workers and iqsetup's metric workers."""

from __future__ import annotations

import os
import threading
import time


def exit_with_parent(parent: int, every: float = 0.5) -> None:
    """Stop this worker at once when its parent is gone (``kill -9`` of iqsetup) instead of working
    for nobody (a parse worker would hold ~700 MB and a core for minutes): a daemon thread checks
    the parent's pid every ``every`` seconds."""
    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
