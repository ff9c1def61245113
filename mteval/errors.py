"""User-facing errors: one line, naming the file, line and problem; the CLIs exit with code 2."""

from __future__ import annotations

import reprlib
from pathlib import Path
from typing import Any

QUOTE_CHARS = 60  # values quoted in error messages are cut to this many characters
_QUOTE = reprlib.Repr()
_QUOTE.maxstring = _QUOTE.maxother = QUOTE_CHARS
_QUOTE.maxlist = _QUOTE.maxdict = _QUOTE.maxtuple = _QUOTE.maxset = 4
_QUOTE.maxlevel = 2


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters, in bounded time for any nesting: how every
    one-line message shows a value it was given."""
    text = _QUOTE.repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class MtevalError(Exception):
    """An error caused by the user's input or configuration (exit code 2, no traceback)."""

    exit_code = 2

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.problem = message
        super().__init__(self.format())

    def format(self) -> str:
        """``FILE:LINE: problem`` (the parts that are known)."""
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.problem}".replace("\n", " ")


class ConfigError(MtevalError):
    """A bad experiment configuration (unknown key, bad value, missing file)."""


class InputError(MtevalError):
    """A bad input text file (encoding, alignment, SGML structure)."""


class CacheError(MtevalError):
    """A bad or hostile file in the score cache."""


class DeviceError(MtevalError):
    """The device parsing on failed (a GPU out of memory for one segment, a GPU lost mid-run)."""
