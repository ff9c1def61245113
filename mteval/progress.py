"""Progress bars for the long stages (parsing, metric families, resampling loops), on tqdm.

A bar shows items done / total, the rate and the time left, on standard error, and only when
standard error is a terminal (tqdm's ``disable=None``): logs, pipes and CI stay clean. ``-q`` on
the command line turns every bar off (:func:`set_quiet`); so does ``MTEVAL_PROGRESS=0``, and
``MTEVAL_PROGRESS=1`` forces bars on (to see them through ``tee``). Bars are created with a
minimum interval of half a second and leave no line behind, so a short stage shows nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

_quiet = False


class Bar(Protocol):
    """What a stage may call on its bar."""

    def update(self, n: int = 1) -> Any: ...

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> Any: ...


class _Silent:
    """A bar that shows nothing (quiet mode, or tqdm unavailable)."""

    def update(self, n: int = 1) -> None:
        return None

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        return None


def set_quiet(quiet: bool) -> None:
    """Turn every bar of this process off (``-q``) or back to the default."""
    global _quiet
    _quiet = quiet


def _disable() -> bool | None:
    """tqdm's ``disable``: True = off, None = on only when stderr is a terminal, False = on."""
    forced = os.environ.get("MTEVAL_PROGRESS", "").strip()
    if _quiet or forced == "0":
        return True
    return False if forced == "1" else None


@contextmanager
def bar(total: int, description: str, unit: str = "it") -> Iterator[Bar]:
    """A progress bar for ``total`` items of one stage; use as ``with bar(n, "parsing") as b: b.update(k)``."""
    disable = _disable()
    if disable is True or total <= 0:
        yield _Silent()
        return
    try:
        from tqdm import tqdm  # noqa: PLC0415 (imported only when a bar may show)
    except ImportError:  # pragma: no cover - tqdm is a dependency; stay quiet without it
        yield _Silent()
        return
    with tqdm(total=total, desc=description, unit=unit, disable=disable, leave=False, mininterval=0.5,
              dynamic_ncols=True, smoothing=0.1) as shown:
        yield shown
