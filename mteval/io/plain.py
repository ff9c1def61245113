"""Plain-text reader: one segment a line, UTF-8. What every text file goes through (SGML too).

Byte-level rules, the same for plain text and SGML (each refusal names the file and line):

- only a regular file is read: a directory, FIFO, socket or device is refused after ``os.stat``,
  before anything opens it (a FIFO would block forever), and the opened file is checked again;
- UTF-8 only (a UTF-16 byte-order mark gets its own message); a UTF-8 BOM at the start of the file
  is dropped, as ``utf-8-sig`` does (elsewhere U+FEFF is an ordinary character);
- ``\\r\\n`` line ends are accepted and give the same segments as ``\\n``; a bare ``\\r`` (not
  before ``\\n``) is refused: an old-Mac file would otherwise be read as one segment;
- NUL and the other C0/C1 control characters (U+0000-U+001F except TAB, U+007F-U+009F) are refused
  with the code point. Evidence: none occurs in the real WMT/NIST data of ``../shared/data`` (25 MB,
  9 test sets) nor in ``data/``; they mark a binary, UTF-16 or mis-decoded (cp1252) file, and
  several of them (form feed, vertical tab, U+001C-U+001E, U+0085) are line breaks to Python's
  ``str.splitlines`` and to XML, so they would make line-oriented tools disagree on the segments.
  TAB and the Unicode separators U+2028/U+2029 (not control characters) are kept;
- an empty file (0 segments) is refused; a blank line is an empty segment (scored, never dropped).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex, Text

BOM = "\ufeff"
# a bare CR, NUL, and every C0/C1 control character but TAB (LF separates lines; CR before LF is a line end)
_BAD_CHARACTER = re.compile(r"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | Path) -> bytes:
    """A regular file's bytes, with a one-line error when it is not one or cannot be read.

    ``os.stat`` comes first so that a FIFO is never opened; the file is then opened non-blocking and
    checked again with ``fstat`` (a FIFO swapped in between cannot block either).
    """
    try:
        kind = _not_regular(os.stat(path).st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, expected a regular text file", path)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    with os.fdopen(fd, "rb") as handle:
        kind = _not_regular(os.fstat(handle.fileno()).st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, expected a regular text file", path)
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path) from None


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text of a file, without a leading BOM; the first invalid byte is named by line."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("is UTF-16 (byte-order mark); convert it to UTF-8", path, 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise InputError(f"invalid UTF-8 at byte {exc.start - line_start + 1} of the line", path,
                         data.count(b"\n", 0, exc.start) + 1) from None
    return text.removeprefix(BOM)


def describe(character: str) -> str:
    """``U+000C`` and, for the usual suspects, a name."""
    names = {"\x00": " (NUL)", "\t": " (tab)", "\x0b": " (vertical tab)", "\x0c": " (form feed)",
             "\x1b": " (escape)", "\x7f": " (delete)", "\x85": " (next line)"}
    return f"U+{ord(character):04X}{names.get(character, '')}"


def check_characters(text: str, path: str | Path) -> None:
    """Refuse a bare ``\\r``, NUL or another control character, naming the line and column."""
    m = _BAD_CHARACTER.search(text)
    if m is None:
        return
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    found = m.group(0)
    if found == "\r":
        problem = "bare carriage return (\\r not followed by \\n; old Mac line ends?)"
    elif found == "\x00":
        problem = "NUL byte (a binary or UTF-16 file?)"
    else:
        problem = f"control character {describe(found)}"
    raise InputError(f"{problem} at column {column}", path, line)


def split_lines(text: str) -> list[str]:
    """Lines of checked text: ``\\n`` separates, a final ``\\n`` ends the last line, ``\\r\\n`` = ``\\n``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def decode_lines(data: bytes, path: str | Path) -> list[str]:
    """Decode and check a file's bytes and split them into lines (see the module docstring)."""
    text = decode(data, path)
    check_characters(text, path)
    return split_lines(text)


def read_lines(path: str | Path) -> list[str]:
    """The checked lines of a file."""
    return decode_lines(read_bytes(path), path)


def plain_text(lines: list[str], path: str | Path, name: str) -> Text:
    """A plain text from its lines; all segments in Asiya's single document ``UNKNOWN_DOC``."""
    if not lines:
        raise InputError("is empty: no segments (a blank line is an empty segment; an empty file has none)",
                         path)
    return Text(name, tuple(lines), DocumentIndex.single(len(lines)), str(path))


def read_plain(path: str | Path, name: str) -> Text:
    """One segment a line; all segments in Asiya's single document ``UNKNOWN_DOC``."""
    return plain_text(read_lines(path), path, name)
