"""Plain-text reader: one segment a line, UTF-8. What every text file goes through (SGML too).

Byte-level rules, the same for plain text and SGML (each refusal names the file and line):

- only a regular file is read: a directory, FIFO, socket or device is refused after ``os.stat``,
  before anything opens it (a FIFO would block forever), and the opened file is checked again;
  at most ``MAX_BYTES`` (256 MiB) are read: a bigger file is refused rather than exhausting memory
  (decoded and split, a text takes several times its size);
- UTF-8 only (a UTF-16 byte-order mark gets its own message); a UTF-8 BOM at the start of the file
  is dropped, as ``utf-8-sig`` does (elsewhere U+FEFF is an ordinary character);
- ``\\r\\n`` line ends are accepted and give the same segments as ``\\n``; a bare ``\\r`` (not
  before ``\\n``) is refused: an old-Mac file would otherwise be read as one segment;
- NUL and the other C0 control characters (U+0001-U+001F but TAB) are refused with the code point;
  DEL and the C1 controls (U+007F-U+009F) are kept. Evidence: no C0 or C1 control character occurs
  in the real WMT/NIST data of ``../shared/data`` (25 MB, 6 data sets) nor in ``data/``. A C0
  control marks a binary, UTF-16 or otherwise broken file, and U+001C-U+001F would silently change
  BLEU/NIST: they are whitespace to Python's ``str.split`` (our 13a tokenizer, sacreBLEU) but not to
  Perl's ``\\s`` (mteval-v13a), so the token counts would differ from the reference implementation.
  DEL and C1 (U+0085 included) are handled alike by both (U+0085 is whitespace to both, the others
  to neither), so they score as mteval-v13a/sacreBLEU score them. TAB and the Unicode separators
  U+2028/U+2029 are kept;
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
MAX_BYTES = 256 << 20  # one input text; a real test set is a few MB (../shared/data/wmt21-ruen, all of it: 4 MB)
# NUL and every C0 control character but TAB, LF (separates lines) and CR (a line end before LF)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BARE_CR = re.compile(r"\r(?!\n)")
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def not_regular(path: str | Path) -> str | None:
    """What a path is when it is not a regular file (``a FIFO (named pipe)``...), by ``os.stat``:
    never opened (a FIFO would block). OSError (FileNotFoundError) as ``os.stat`` raises it."""
    return _not_regular(os.stat(path).st_mode)


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
        info = os.fstat(handle.fileno())
        kind = _not_regular(info.st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, expected a regular text file", path)
        if info.st_size > MAX_BYTES:
            raise _too_big(path, info.st_size)
        try:
            data = handle.read(MAX_BYTES + 1)  # bounded even if the file grows while it is read
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path) from None
    if len(data) > MAX_BYTES:
        raise _too_big(path, len(data))
    return data


def _too_big(path: str | Path, size: int) -> InputError:
    return InputError(f"is {size / 2**20:.0f} MiB; an input text is limited to {MAX_BYTES >> 20} MiB "
                      "(a test set is a few MB)", path)


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
    matches = [m for m in (_CONTROL.search(text), _bare_cr(text)) if m is not None]
    if not matches:
        return
    m = min(matches, key=lambda m: m.start())
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


def _bare_cr(text: str) -> re.Match[str] | None:
    """The first ``\\r`` not before ``\\n`` (counted first: one linear scan on a clean CRLF file)."""
    if "\r" not in text or text.count("\r") == text.count("\r\n"):
        return None
    return _BARE_CR.search(text)


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
