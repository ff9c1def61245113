"""What every command shares: warnings as ``prog: warning: ...`` lines, user errors (and
failures of the machine: disk full, permissions) turned into one line and exit code 2, and option
values that start with ``-`` (IQMT's ``-M -TER``)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence

from mteval.errors import MtevalError

SET_OPTIONS = ("-M", "-S", "-R", "-T")  # iqeval's set options (manual §4.2): their value is taken as is


def verbatim_values(argv: Sequence[str], options: Sequence[str] = SET_OPTIONS) -> list[str]:
    """``argv`` with the word after each of ``options`` glued to it (``-M -TER`` -> ``-M=-TER``), so
    that argparse takes a value starting with ``-`` (Asiya's negated error rates ``-TER``, ``-WER``,
    ``-PER``) as the option's value rather than as another option. Words after ``--`` are left alone."""
    out: list[str] = []
    words = iter(argv)
    for word in words:
        out.append(word)
        if word == "--":
            out.extend(words)
            break
        if word in options:
            value = next(words, None)
            if value is not None:
                out[-1] = f"{word}={value}"
    return out


def _configure_warnings(prog: str) -> None:
    """Library warnings (``logging``) go to stderr as one line each, prefixed with the command."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prog}: warning: %(message)s"))
    handler.setLevel(logging.WARNING)
    root = logging.getLogger("mteval")
    root.handlers = [handler]
    root.propagate = False


def run_command(prog: str, body: Callable[[], int]) -> int:
    """Run a command body; a user error prints ``prog: error: ...`` on one line and returns 2.
    The ``mteval`` logger's set-up is restored afterwards (for callers that run commands in-process)."""
    logger = logging.getLogger("mteval")
    saved = (list(logger.handlers), logger.propagate)
    _configure_warnings(prog)
    try:
        return _run_body(prog, body)
    finally:
        logger.handlers, logger.propagate = saved


def _run_body(prog: str, body: Callable[[], int]) -> int:
    """The body, with user errors, interruptions and system errors as one line and an exit code."""
    try:
        return body()
    except MtevalError as exc:
        print(f"{prog}: error: {exc.format()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted (finished files are kept; re-run to resume)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine, not the input: disk full, permissions, a vanished file
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prog}: error: {where}{exc.strerror or exc}".replace("\n", " "), file=sys.stderr)
        return 2
