"""Plain-text reader: one segment a line, UTF-8; ``\\r\\n`` line ends accepted."""

from __future__ import annotations

from pathlib import Path

from mteval.errors import InputError
from mteval.io.corpus import DocumentIndex, Text


def decode_lines(data: bytes, path: str | Path) -> list[str]:
    """Split bytes into lines and decode them as UTF-8, naming the first bad line."""
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines = []
    for number, raw in enumerate(raw_lines, start=1):
        try:
            lines.append(raw.decode("utf-8").removesuffix("\r"))
        except UnicodeDecodeError as exc:
            raise InputError(f"invalid UTF-8 at byte {exc.start + 1} of the line", path, number) from None
    return lines


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, with a one-line error when it cannot be read."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a text file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None


def read_plain(path: str | Path, name: str) -> Text:
    """One segment a line; all segments in Asiya's single document ``UNKNOWN_DOC``."""
    segments = tuple(decode_lines(read_bytes(path), path))
    return Text(name, segments, DocumentIndex.single(len(segments)), str(path))
