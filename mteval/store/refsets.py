"""Folder names of reference sets: ``CACHE/TARGET/REFSET/METRIC.xml`` (IQMT manual §4.1.2).

The manual names a multi-reference folder ``REF0_..._REFN``: names joined with ``_``. A name may
itself contain ``_`` (the manual's ``reference_file.txt.1``), so inside a name ``_`` is written
``%5F`` and ``%`` (which names cannot contain, :mod:`mteval.names`) ``%25``: :func:`join` is then
injective and :func:`split` inverts it. Names without ``_`` keep the manual's folder names
(``A_C_D``), so caches written before stay valid; a single name with ``_`` becomes ``ref%5F1``.
Every character used is allowed in a cache path component (:func:`mteval.names.check_component`).
"""

from __future__ import annotations

from collections.abc import Iterable

from mteval.errors import CacheError, quote

SEPARATOR = "_"
_ESCAPES = (("%", "%25"), ("_", "%5F"))  # '%' first when escaping, last when unescaping


def escape(name: str) -> str:
    """One name as it appears inside a reference-set folder name."""
    for plain, coded in _ESCAPES:
        name = name.replace(plain, coded)
    return name


def unescape(part: str) -> str:
    """The name of one escaped part; a ``%`` that starts no known escape is an error."""
    pieces = part.split("%")
    out = [pieces[0]]
    for piece in pieces[1:]:
        code = piece[:2]
        if code not in ("25", "5F"):
            raise CacheError(f"reference-set folder part {quote(part)} has '%' not followed by 25 or 5F")
        out.append(("%" if code == "25" else "_") + piece[2:])
    return "".join(out)


def join(names: Iterable[str]) -> str:
    """Folder name of a reference set, names in the given order (``A_C_D``; ``a_b`` -> ``a%5Fb``)."""
    parts = [escape(name) for name in names]
    if not parts:
        raise ValueError("a reference set has at least one reference")
    return SEPARATOR.join(parts)


def split(folder: str) -> tuple[str, ...]:
    """The names of a reference-set folder: ``split(join(names)) == tuple(names)``."""
    return tuple(unescape(part) for part in folder.split(SEPARATOR))
