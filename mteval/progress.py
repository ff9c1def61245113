"""Progress bars for the long stages (parsing, metric families, resampling loops), on tqdm.

A bar shows items done / total, the rate and the time left, on standard error, and only when
standard error is a terminal (tqdm's ``disable=None``): logs, pipes and CI stay clean. ``-q`` on
the command line turns every bar off (:func:`set_quiet`); so does ``MTEVAL_PROGRESS=0``, and
``MTEVAL_PROGRESS=1`` forces bars on (to see them through ``tee``). Bars are created with a
minimum interval of half a second and leave no line behind, so a short stage shows nothing.

A bar that completes is drawn once more at 100 % before it is cleared; one left early (an error,
Ctrl-C) is cleared as it stands, and a command interrupted calls :func:`close_all` before its last
line (a Ctrl-C may land inside tqdm's own drawing): no bar text stays where the shell's next output
goes. While a bar shows, ``sys.stderr`` is replaced so that every line written to it (progress
messages, the commands' ``prog: warning: ...`` lines through :func:`write`) goes out through
tqdm: the bars are cleared, the line is written on a line of its own, and the bars are drawn
again below it, so messages and bars never share a line (what a worker process writes reaches
the terminal directly, outside this routing).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Protocol, TextIO

_quiet = False
_shown = 0  # bars on the terminal now (this process)
_drawn = False  # whether a bar was drawn since the last close_all


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


class _Routed:
    """``sys.stderr`` while a bar shows: whole lines go out through ``tqdm.write`` (the bars are
    cleared, the line written, the bars drawn again); a write with a carriage return or an escape
    sequence (another library's own progress display) goes straight to the terminal. A line not
    finished yet waits for its newline, or for the last bar to close."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal = terminal
        self.pending = ""

    def write(self, text: str) -> int:
        if "\r" in text or "\x1b" in text:
            self._send()
            self.terminal.write(text)
            return len(text)
        if "\n" not in text:
            self.pending += text
            return len(text)
        from tqdm import tqdm  # noqa: PLC0415 (loaded: a bar is showing)

        whole = self.pending + text
        cut = whole.rindex("\n") + 1
        with tqdm.external_write_mode(file=self.terminal):  # the bars cleared, then drawn again
            self.terminal.write(whole[:cut])  # one write: a Ctrl-C keeps the line whole or pending
            self.pending = whole[cut:]
            self.terminal.flush()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.terminal.flush()

    def _send(self, end: str = "") -> None:
        """Write out an unfinished line (the last bar is closing, or a raw write comes), ended
        with ``end`` (a newline when the command is interrupted: its last line comes next)."""
        if self.pending:
            text, self.pending = self.pending, ""
            self.terminal.write(text + end)
            self.terminal.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer...: the terminal's
        return getattr(self.terminal, name)


def _terminal() -> TextIO:
    """The real standard error (under the routing of an open bar, if any)."""
    stream = sys.stderr
    return stream.terminal if isinstance(stream, _Routed) else stream


def write(line: str) -> None:
    """Write one line to standard error; while a bar shows, above the bars (tqdm.write), which
    are then drawn again: what the commands' warnings go through."""
    stream = sys.stderr  # looked up now: under a bar, the routing (:class:`_Routed`)
    stream.write(line + "\n")
    stream.flush()


def _route() -> None:
    """A bar is showing: send ``sys.stderr``'s lines through tqdm (the first bar installs it)."""
    global _shown, _drawn
    _shown += 1
    _drawn = True
    if _shown == 1 and not isinstance(sys.stderr, _Routed):
        sys.stderr = _Routed(sys.stderr)  # type: ignore[assignment]


def _unroute() -> None:
    """A bar closed: the last one puts ``sys.stderr`` back (unless someone replaced it since)."""
    global _shown
    _shown = max(0, _shown - 1)
    stream = sys.stderr
    if _shown == 0 and isinstance(stream, _Routed):
        stream._send()
        sys.stderr = stream.terminal  # type: ignore[assignment]


@contextmanager
def bar(total: int, description: str, unit: str = "it", *, smoothing: float = 0.1,
        bar_format: str | None = None, postfix: str | None = None) -> Iterator[Bar]:
    """A progress bar for ``total`` items of one stage; use as ``with bar(n, "parsing") as b: b.update(k)``.

    ``smoothing``: tqdm's (0 = the average rate since the start, for items of uneven cost);
    ``bar_format``: tqdm's (None = the default ``desc: pct%|bar| n/total [elapsed<left, rate]``);
    ``postfix``: the text shown after the rate at first (``set_postfix_str`` changes it)."""
    disable = _disable()
    if disable is True or total <= 0:
        yield _Silent()
        return
    try:
        from tqdm import tqdm  # noqa: PLC0415 (imported only when a bar may show)
    except ImportError:  # pragma: no cover - tqdm is a dependency; stay quiet without it
        yield _Silent()
        return
    shown, routed = None, False
    before = set(tqdm._instances) if hasattr(tqdm, "_instances") else set()
    _may_draw(disable)
    try:  # from the bar's first draw (in tqdm's constructor) on, a Ctrl-C still clears it
        shown = tqdm(total=total, desc=description, unit=unit, disable=disable, leave=False, mininterval=0.5,
                     dynamic_ncols=True, smoothing=smoothing, bar_format=bar_format, postfix=postfix,
                     file=_terminal())
        if not shown.disable:  # disabled: not a terminal
            routed = True
            _route()
        yield shown
        if shown.n >= total:
            shown.refresh()  # its last state on the terminal: 100 %, not whatever the last draw showed
    finally:
        if shown is None:  # interrupted in tqdm's constructor, maybe after its first draw
            _close(set(getattr(tqdm, "_instances", ())) - before)
        else:
            shown.close()  # cleared (leave=False): nothing stays where the next output goes
        if routed:
            _unroute()


def _may_draw(disable: bool | None) -> None:
    """A bar is about to be made that will draw (forced on, or standard error is a terminal): note it
    before tqdm's constructor draws, so that a Ctrl-C landing inside that first draw still has
    :func:`close_all` erase the line (tqdm's own bookkeeping of what it drew may be a step behind)."""
    global _drawn
    if disable is False:
        _drawn = True
        return
    with suppress(Exception):
        _drawn = _drawn or bool(_terminal().isatty())


def _close(shown: Iterable[Any]) -> None:
    """Clear and close bars, also one caught in tqdm's constructor between its first draw and the
    setting of its clock (tqdm's close would skip it as never drawn)."""
    for one in list(shown):
        with suppress(Exception):  # a bar half made: closed as far as it can be
            if not hasattr(one, "last_print_t") and hasattr(one, "sp"):
                one.last_print_t = one.start_t = one._time()
            one.leave = False
            one.close()


def close_all() -> None:
    """Clear every bar still showing and give ``sys.stderr`` back, its unfinished line ended: what
    a command does on Ctrl-C before its last line, as the interruption may have come before the
    code that closes a bar could run."""
    global _shown, _drawn
    module = sys.modules.get("tqdm.std")
    _close(getattr(getattr(module, "tqdm", None), "_instances", ()))
    _shown = 0
    stream = sys.stderr
    if isinstance(stream, _Routed):
        stream._send("\n")
        sys.stderr = stream = stream.terminal  # type: ignore[assignment]
    if _drawn:  # the interruption may have come inside tqdm's drawing, its bookkeeping a step behind:
        _drawn = False  # erase from the start of the line to the end of the screen, where bars are
        with suppress(Exception):
            stream.write("\r\x1b[J")
            stream.flush()
