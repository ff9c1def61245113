"""Reader of relative-ranking judgements (WMT08-WMT16 "RNK" style, e.g. WMT12's 5-way rankings).

One row per ranked output, tab-separated, with a header line naming at least these columns (in
any order; extra columns are ignored)::

    event  pair  line  judge  slot  system  rank

``event`` identifies one ranking (an annotator saw one source sentence and up to five outputs and
ranked them), ``pair`` the language pair (``en-fr``), ``line`` the 1-based source line, ``judge``
the annotator, ``slot`` the output's position on screen, ``system`` its name and ``rank`` 1 (best)
to 5; equal ranks are ties. This is ``../shared/data/wmt12-enxx/human/rankings.tsv``'s layout, a
tidy form of ``wmt12.RNK_results.csv`` (Callison-Burch et al. 2012). Blank ranks (``-1``) must be
dropped before: a rank is a positive integer.

The file is read through :func:`mteval.io.plain.read_lines` (a regular UTF-8 file, control
characters refused). Bad input is one :class:`~mteval.errors.InputError` naming the file and line:
a missing column, a row with too few fields, a non-integer line, slot or rank, a line beyond the
test set, an event whose rows disagree on pair, line or judge, one system or one slot twice in an
event, and (when ``systems`` is given) an unknown system.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from mteval.errors import InputError, quote
from mteval.io.plain import read_lines

COLUMNS = ("event", "pair", "line", "judge", "slot", "system", "rank")
_POSITIVE = re.compile(r"[1-9][0-9]{0,8}")


@dataclass(frozen=True)
class RankingEvent:
    """One relative ranking: the ranks given to the outputs of several systems for one line."""

    event: str
    pair: str
    line: int  # 1-based source line
    judge: str
    ranks: tuple[tuple[str, int], ...]  # (system, rank) in slot order; rank 1 = best

    def pairs(self) -> list[tuple[str, str, int]]:
        """Every unordered pair of outputs as (system a, system b, sign): sign +1 when the humans
        preferred a (lower rank), -1 when they preferred b, 0 for a human tie."""
        out = []
        for i, (a, ra) in enumerate(self.ranks):
            for b, rb in self.ranks[i + 1:]:
                out.append((a, b, (rb > ra) - (rb < ra)))
        return out


def _positive(text: str, what: str, path: Path, number: int) -> int:
    """A positive integer in ASCII digits, or an InputError naming file and line."""
    if not _POSITIVE.fullmatch(text):
        raise InputError(f"{what} {quote(text)} is not a positive integer", path, number)
    return int(text)


def _header(line: str, path: Path) -> dict[str, int]:
    """Column name -> index; every column of :data:`COLUMNS` must be present."""
    names = [c.strip() for c in line.split("\t")]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise InputError(f"rankings header lacks column(s) {', '.join(missing)} "
                         f"(need {' '.join(COLUMNS)}, tab-separated)", path, 1)
    return {c: names.index(c) for c in COLUMNS}


class _Events:
    """Collects rows into events, checking that each event is consistent."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.head: dict[str, tuple[str, int, str]] = {}
        self.rows: dict[str, list[tuple[int, str, int]]] = {}

    def add(self, event: str, pair: str, line: int, judge: str, slot: int, system: str, rank: int,
            number: int) -> None:
        """One row (read at file line ``number``)."""
        head = self.head.setdefault(event, (pair, line, judge))
        if head != (pair, line, judge):
            raise InputError(f"event {quote(event)} has pair/line/judge {pair}/{line}/{quote(judge)} here but "
                             f"{head[0]}/{head[1]}/{quote(head[2])} before", self.path, number)
        rows = self.rows.setdefault(event, [])
        if any(s == slot for s, _, _ in rows):
            raise InputError(f"event {quote(event)} has slot {slot} twice", self.path, number)
        if any(name == system for _, name, _ in rows):
            raise InputError(f"event {quote(event)} ranks system {quote(system)} twice", self.path, number)
        rows.append((slot, system, rank))

    def events(self) -> list[RankingEvent]:
        """The events in file order, outputs in slot order."""
        return [RankingEvent(e, *self.head[e], tuple((s, r) for _, s, r in sorted(rows)))
                for e, rows in self.rows.items()]


def read_rankings(path: str | Path, n_segments: int | None = None, pair: str | None = None,
                  systems: Collection[str] | None = None) -> list[RankingEvent]:
    """The ranking events of ``path`` (those of language pair ``pair`` when given), checked: lines
    within ``n_segments``, systems among ``systems`` (after the pair filter)."""
    path = Path(path)
    lines = read_lines(path)
    if not lines:
        raise InputError("is empty: no rankings header", path)
    col = _header(lines[0], path)
    known = None if systems is None else frozenset(systems)
    events = _Events(path)
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        fields = [f.strip() for f in text.split("\t")]
        if len(fields) <= max(col.values()):
            raise InputError(f"{len(fields)} tab-separated fields, need {max(col.values()) + 1}", path, number)
        value = {c: fields[i] for c, i in col.items()}
        if pair is not None and value["pair"] != pair:
            continue
        line = _positive(value["line"], "line", path, number)
        if n_segments is not None and line > n_segments:
            raise InputError(f"line {line} is beyond the {n_segments} segments of the test set", path, number)
        if known is not None and value["system"] not in known:
            raise InputError(f"unknown system {quote(value['system'])} (not in the experiment)", path, number)
        events.add(value["event"], value["pair"], line, value["judge"],
                   _positive(value["slot"], "slot", path, number), value["system"],
                   _positive(value["rank"], "rank", path, number), number)
    return events.events()


def pairs_in(path: str | Path) -> list[str]:
    """The language pairs named in a rankings file, sorted (to pick one for an experiment)."""
    path = Path(path)
    lines = read_lines(path)
    if not lines:
        raise InputError("is empty: no rankings header", path)
    at = _header(lines[0], path)["pair"]
    return sorted({f.split("\t")[at].strip() for f in lines[1:] if f.strip() and len(f.split("\t")) > at})


def is_rankings_file(path: str | Path) -> bool:
    """Whether the first line of ``path`` is a rankings header (all of :data:`COLUMNS`)."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return False
    return all(c in [n.strip() for n in first.split("\t")] for c in COLUMNS)
