"""Names that become folder names in the score cache: systems, references, trial systems.

A target or reference name is a path component of ``CACHE/TARGET/REFSET/METRIC.xml``, so it must
never leave the cache folder, never be hidden (the cache skips dot folders), and never collide
with another name on a case-insensitive or Unicode-normalising file system (macOS, Windows).
The rule, chosen to keep every name safe in a path, a shell command, a Makefile and a TSV cell:

- Unicode letters and digits, ``_`` ``-`` ``.`` ``+`` ``@`` ``=`` only (no space, ``/``, ``\\``,
  quote, shell metacharacter or control character);
- it starts with a letter or digit (so not ``.``, ``..``, ``.hidden``, ``-flag``);
- at most 100 characters;
- names are compared after NFC normalisation and case folding: two names that differ only there
  are refused.

Metric names come from the registry or from files found in the cache; they are checked as path
components only (:func:`check_component`), since registry names carry ``(``, ``*`` and ``,``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from mteval.errors import quote

MAX_LENGTH = 100
_SAFE = re.compile(r"[^\W_][\w.+@=-]*")  # used with fullmatch: "$" would accept a final newline
RULE = ("letters, digits and _ - . + @ = only, starting with a letter or digit, "
        f"at most {MAX_LENGTH} characters")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a system or reference name, or None when it can."""
    if not isinstance(name, str) or not name:
        return "empty name"
    if unicodedata.normalize("NFC", name) != name:
        return f"name {quote(name)} is not in Unicode NFC form"
    if len(name) > MAX_LENGTH or not _SAFE.fullmatch(name):
        return f"name {quote(name)} is not allowed ({RULE})"
    return None


def collision_key(name: str) -> str:
    """The form under which two names count as the same folder (NFC, case-folded)."""
    return unicodedata.normalize("NFC", name).casefold()


def collisions(names: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of distinct names that would share a folder on a case-insensitive file system."""
    seen: dict[str, str] = {}
    clashes = []
    for name in names:
        key = collision_key(name)
        if key in seen and seen[key] != name:
            clashes.append((seen[key], name))
        seen.setdefault(key, name)
    return clashes


def check_component(component: str) -> str | None:
    """Why ``component`` cannot be one path component under the cache root, or None."""
    if not component or component in (".", ".."):
        return f"{quote(component)} is not a valid file name"
    if any(c in component for c in "/\\\0") or any(unicodedata.category(c) == "Cc" for c in component):
        return f"{quote(component)} contains a path separator or a control character"
    if len(component.encode("utf-8")) > 200:
        return f"{quote(component)} is longer than 200 bytes"
    return None
