"""What every command shares: warnings as ``prog: warning: ...`` lines, user errors (and
failures of the machine: disk full, permissions) turned into one line and exit code 2, and option
values that start with ``-`` (IQMT's ``-M -TER``)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

from mteval import __version__, progress
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


class _WarningLines(logging.Handler):
    """A record as one line on the standard error of the moment, through
    :func:`mteval.progress.write`: while a progress bar shows, the bars are cleared, the line is
    written on its own line and the bars are drawn again below it (``tqdm.write``)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            progress.write(self.format(record))
        except RecursionError:  # pragma: no cover - as logging.StreamHandler
            raise
        except Exception:  # noqa: BLE001 - logging's rule: a failing handler reports, never raises
            self.handleError(record)


def _configure_warnings(prog: str) -> None:
    """Library warnings (``logging``) go to stderr as one line each, prefixed with the command
    (above any progress bar showing at the time: :class:`_WarningLines`)."""
    handler = _WarningLines()
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
        progress.close_all()  # a bar the interruption caught before its code could close it
        print(f"{prog}: interrupted (finished files are kept; re-run to resume)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine, not the input: disk full, permissions, a vanished file
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prog}: error: {where}{exc.strerror or exc}".replace("\n", " "), file=sys.stderr)
        return 2


def finish_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The command line every command shares (issue 30): ``--version``, the ``--name`` spelling of
    each IQMT single-dash long option (:func:`add_long_spellings`), and a description for every
    subcommand (its help line when it has none); the subcommands' parsers get the same."""
    add_version(parser)
    add_long_spellings(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if not sub.description:
                    sub.description = helps.get(name)
                finish_parser(sub)
    return parser


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: print ``mteval X.Y.Z`` and exit 0 (once per parser)."""
    if "--version" not in parser._option_string_actions:
        parser.add_argument("--version", action="version", version=f"mteval {__version__}",
                            help="print mteval's version and exit")


def add_long_spellings(parser: argparse.ArgumentParser) -> None:
    """Give every single-dash option longer than one letter (IQMT's ``-assessments``, ``-doOQ``)
    its ``--`` spelling too (``--assessments``, ``--doOQ``), as the same option; both are shown
    in ``--help``. An existing ``--`` option of that name for something else is a bug here."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            if not is_single_dash_long(option):
                continue
            spelling = "-" + option
            owner = parser._option_string_actions.get(spelling)
            if owner is None:
                action.option_strings = [*action.option_strings, spelling]
                parser._option_string_actions[spelling] = action
            elif owner is not action:
                raise ValueError(f"{parser.prog}: {option} and {spelling} are different options")


def is_single_dash_long(option: str) -> bool:
    """Whether an option string is an IQMT-style single-dash long option (``-doOQ``, not ``-M``)."""
    return option.startswith("-") and not option.startswith("--") and len(option) > 2


DEVICE_HELP = ("where Stanza parses: auto (a GPU if the CUDA build of torch sees one), cpu, cuda or cuda:N "
               "(default: the experiment's annotation: {device: ...}, else cpu); a GPU's parses are cached apart "
               "from the CPU's (docs/annotation.md)")


def device_option(value: str | None) -> str | None:
    """A --device value, checked (one line and exit 2 otherwise); None when not given."""
    if value is None:
        return None
    from mteval.annotate.stanza_adapter import check_device

    return check_device(value, "option --device")


def add_judgement_options(parser: argparse.ArgumentParser) -> None:
    """How -assessments reads its file (iqeval, mteval report): ``--unknown-systems`` and
    ``--human-lower-better`` (:func:`mteval.evaluate.correlate.read_human`)."""
    from mteval.io.assessments import UNKNOWN_SYSTEMS

    parser.add_argument("--unknown-systems", default="refuse", choices=UNKNOWN_SYSTEMS,
                        help="judgements of systems the experiment lacks (a published file rating more systems "
                             "than you score): refuse (default: a misspelt name is an error) or skip them, "
                             "naming them in one warning")
    parser.add_argument("--human-lower-better", action="store_true",
                        help="the judgements are lower-is-better (error counts, MQM penalties, HTER, ranks): "
                             "negate them, so that a good metric correlates positively")
