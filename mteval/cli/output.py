"""Render iqeval records: an aligned score matrix (-O 0), ranking lists (-O 1), TSV or JSON.

Machine formats print tidy records with the columns ``target, refset, metric, level, doc,
segment, score`` (plus any extra keys a measure adds, e.g. ``hits``/``trials``, or -doOQ's
``aggregate``), ``-`` where a column does not apply, scores at full precision. Keys starting with
``_`` are for the text views only (``_subset``: a score iqeval computed for part of the test set
or of a document; the views name the rule used in a note under the table; ``_against``: the other
references a -doref row's reference was scored against, shown in its row name as ``A (ref. vs B,C)``).
Text tables are padded to display cells (:mod:`mteval.cli.text_width`: CJK names take two cells each).

Text views follow the IQMT 2.0 manual (§4.2, §6.3): records without a ``table`` key form the
score matrix (QUEEN a column next to the metrics, Tables 2, 3 and 12) or the ranking lists;
records with one (``KING``, ``JACK``, ``optimizeKING``, see ``mteval.evaluate.qarla``)
follow as their own tables: KING as Table 11 (metrics as rows), JACK per segment/document/test
set, the -optimizeKING trace and its optimal set; -assessments --significance's records (a
``test`` and a ``p_value``) form one table of metric pairs with each test's p-value, and its ranks
records (table ``metric-ranks``) one of the metrics with their significance ranks. A QARLA value
that prints as ``0.0000`` (or ``nan``) is followed by its ``(hits/trials)``; a KING resting on too
few trials is replaced by a note saying so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from mteval.cli.text_width import ljust, rjust, width

COLUMNS = ("target", "refset", "metric", "level", "doc", "segment", "score")
Record = dict[str, Any]


def _fmt(value: Any, digits: int = 4) -> str:
    """A value as the text views print it: floats with ``digits`` decimals, rounding the exact binary
    value half to even as printf does (``0.28125`` -> ``0.2812``), -0.0 as 0.0."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value + 0.0:.{digits}f}"
    return str(value)


def _columns(records: Sequence[Record]) -> list[str]:
    extra = [k for r in records for k in r if k not in COLUMNS and not k.startswith("_")]
    return list(COLUMNS) + list(dict.fromkeys(extra))


def write_tsv(records: Sequence[Record], out: TextIO) -> None:
    """Tab-separated tidy rows with a header."""
    columns = _columns(records)
    out.write("\t".join(columns) + "\n")
    for r in records:
        out.write("\t".join(_plain(r.get(c, "-")) for c in columns) + "\n")


def _plain(value: Any) -> str:
    return repr(value + 0.0) if isinstance(value, float) else str(value)  # -0.0 (a perfect -TER) as 0.0


def write_json(records: Sequence[Record], out: TextIO) -> None:
    """A JSON list of objects with the record keys (NaN written as null)."""
    clean = [{k: _json_value(v) for k, v in r.items() if not k.startswith("_")} for r in records]
    json.dump(clean, out, indent=1, ensure_ascii=False)
    out.write("\n")


RULES = {"stats": "from summed statistics", "bootstrap": "as ROUGE's bootstrap average of segment scores",
         "mean": "as the mean of segment scores", "file": "as read from the score file",
         "weighted": "as SEPIA's means weighted by segment length, then by document size",
         "recompute": "computed again on those lines (mteval-v13a's NIST weights of their references)"}
_PART = {"sys": "sys scores of part of the test set", "doc": "doc scores computed for part of the test set"}


def aggregation_note(records: Sequence[Record]) -> str | None:
    """One line naming the rule behind each score computed for a subset, e.g. ``note: sys scores
    of part of the test set: BLEU, chrF from summed statistics; METEOR-ex as the mean of segment
    scores`` (None when no score was)."""
    by_level: dict[str, dict[str, dict[str, None]]] = {}
    for r in records:
        if r.get("_subset") and "aggregate" in r:
            by_level.setdefault(r["level"], {}).setdefault(r["aggregate"], {})[r["metric"]] = None
    parts = [f"{_PART.get(level, level)}: " + "; ".join(f"{', '.join(metrics)} {RULES.get(rule, rule)}"
                                                         for rule, metrics in rules.items())
             for level, rules in by_level.items()]
    return "note: " + " | ".join(parts) if parts else None


def _note(records: Sequence[Record], out: TextIO) -> None:
    note = aggregation_note(records)
    if note:
        out.write(note + "\n")


def row_label(record: Record) -> str:
    """IQMT's row names: ``S0`` (sys), ``S0:doc`` (doc), ``S0:12`` (seg); a -doref row (a reference
    scored against the other selected references, ``_against``) followed by ``(ref. vs B,C)``."""
    if record["level"] == "seg" and record.get("segment", "-") != "-":
        label = f"{record['target']}:{record['segment']}"
    elif record["level"] == "doc" and record.get("doc", "-") != "-":
        label = f"{record['target']}:{record['doc']}"
    else:
        label = str(record["target"])
    against = record.get("_against")
    return f"{label} (ref. vs {','.join(against)})" if against else label


def table(header: Sequence[str], rows: Sequence[Sequence[str]], out: TextIO, left: int = 1) -> None:
    """Aligned columns: the first ``left`` columns left-aligned, the others right-aligned (padded to
    display cells: :mod:`mteval.cli.text_width`)."""
    widths = [max(width(h), *(width(r[i]) for r in rows)) if rows else width(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(ljust(c, w) if i < left else rjust(c, w) for i, (c, w) in pairs)

    top = line(header)
    out.write(top + "\n" + "-" * width(top) + "\n")
    for r in rows:
        out.write(line(r) + "\n")


def cell(record: Record, key: str = "score", hits: str = "hits", trials: str = "trials") -> str:
    """A value; one that prints as zero (or nan) is followed by ``(hits/trials)`` when the record
    has them, so a real QARLA zero is told from a missing one."""
    value, text = record[key], _fmt(record[key])
    if hits in record and trials in record and isinstance(value, float) and (math.isnan(value) or abs(value) < 5e-5):
        text += f" ({record[hits]}/{record[trials]})"
    return text


SIGNIFICANCE_TESTS = ("perm-both", "perm-pairs", "bootstrap", "williams")  # -assessments --significance (correlate)


def _table_of(record: Record) -> str | None:
    """The table a record is shown in: its ``table`` key, ``significance`` for a metric-vs-metric
    test, None for the score matrix."""
    if "table" in record:
        return str(record["table"])
    return "significance" if record.get("test") in SIGNIFICANCE_TESTS and "p_value" in record else None


def _split(records: Sequence[Record]) -> tuple[list[Record], dict[str, list[Record]]]:
    """Matrix records and the other tables' records (QARLA's, the significance tests'), by table."""
    tables: dict[str, list[Record]] = {}
    for r in records:
        name = _table_of(r)
        if name is not None:
            tables.setdefault(name, []).append(r)
    return [r for r in records if _table_of(r) is None], tables


def write_matrix(records: Sequence[Record], out: TextIO, label: str = "SYS") -> None:
    """-O 0: rows = targets (or target:segment / target:doc), columns = metrics; then the QARLA
    tables."""
    plain, tables = _split(records)
    if plain:
        metrics = list(dict.fromkeys(r["metric"] for r in plain))
        cells: dict[str, dict[str, str]] = {}
        for r in plain:
            cells.setdefault(row_label(r), {})[r["metric"]] = cell(r)
        rows = [[name] + [values.get(m, "-") for m in metrics] for name, values in cells.items()]
        table([label] + metrics, rows, out)
        _note(plain, out)
    _write_tables(tables, out, ranked=False, gap=bool(plain))


def _json_value(value: Any) -> Any:
    """NaN as null, -0.0 as 0.0."""
    if isinstance(value, float):
        return None if math.isnan(value) else value + 0.0
    return value


def tie_key(score: float) -> float:
    """The score to 12 significant digits: scores that differ only by float rounding (12/29 summed in
    two orders: 0.4137931034482759 and 0.41379310344827586) are tied, ranked alike and kept in the
    given order."""
    return float(f"{score:.12g}")


def write_rankings(records: Sequence[Record], out: TextIO, higher_is_better: Callable[[str], bool]) -> None:
    """-O 1: one ranking list per metric, best first; then the QARLA tables, ranked."""
    plain, tables = _split(records)
    for metric in dict.fromkeys(r["metric"] for r in plain):
        rows = [r for r in plain if r["metric"] == metric]
        best_first = higher_is_better(metric)
        rows.sort(key=lambda r: (math.isnan(r["score"]), -tie_key(r["score"]) if best_first else tie_key(r["score"])))
        out.write(f"{metric}\n")
        ranks = competition_ranks([r["score"] for r in rows])
        table(["#", "target", "score"], [[rank, row_label(r), cell(r)] for rank, r in zip(ranks, rows, strict=True)],
               out)
        out.write("\n")
    if plain:
        _note(plain, out)
    _write_tables(tables, out, ranked=True, gap=False)


def _write_tables(tables: dict[str, list[Record]], out: TextIO, ranked: bool, gap: bool) -> None:
    """The QARLA tables, separated by blank lines (``ranked``: -O 1, best first)."""
    for i, (name, rows) in enumerate(tables.items()):
        if gap or i:
            out.write("\n")
        TABLES[name](rows, out, ranked)


def _best_first(rows: list[Record]) -> list[Record]:
    """QARLA rows by value, highest first (NaN last, ties in the given order)."""
    return sorted(rows, key=lambda r: (math.isnan(r["score"]), -tie_key(r["score"])))


def competition_ranks(scores: Sequence[float]) -> list[str]:
    """Ranks of scores listed best first, equal scores sharing the best of their places (standard
    competition ranking, ``1 1 3``; a rank must not tell tied systems apart); NaN: ``-``."""
    ranks: list[str] = []
    for i, score in enumerate(scores):
        if math.isnan(score):
            ranks.append("-")
        else:
            ranks.append(ranks[-1] if i and tie_key(score) == tie_key(scores[i - 1]) else str(i + 1))
    return ranks


def _ranked(header: list[str], rows: list[list[str]], ranked: bool,
            scores: Sequence[float] | None = None) -> tuple[list[str], list[list[str]]]:
    """With ``ranked``, a leading ``#`` column (:func:`competition_ranks` of ``scores``, listed best first)."""
    if not ranked:
        return header, rows
    ranks = competition_ranks(scores) if scores is not None else [str(i) for i in range(1, len(rows) + 1)]
    return ["#"] + header, [[rank] + r for rank, r in zip(ranks, rows, strict=True)]


def named_set(record: Record) -> str:
    """``{A, B, C}`` from a record's comma-joined ``metric_set``."""
    return "{" + ", ".join(record["metric_set"].split(",")) + "}"


def _context(rows: list[Record], unit: str) -> str:
    """``-G sys, references A_C_D, 300 trials per metric`` (a range when trials differ; no
    ``per`` without ``unit``)."""
    trials = sorted({int(r["trials"]) for r in rows})
    count = str(trials[0]) if len(trials) == 1 else f"{trials[0]}-{trials[-1]}"
    per = f" per {unit}" if unit else ""
    return f"-G {rows[0]['level']}, references {rows[0]['refset']}, {count} trials{per}"


def _too_few(rows: list[Record]) -> str:
    """The note that replaces a KING table resting on fewer than ``min_trials`` trials."""
    first, fewest = rows[0], min(int(r["trials"]) for r in rows)
    why, hint = {"sys": (" (one per held-out reference)", "use -G seg or -G doc"),
                 "doc": (" (one per held-out reference and document)", "use -G seg")}.get(
                     first["level"], ("", "select more segments"))
    return (f"too few trials for KING at -G {first['level']}: {fewest}{why}, at least {first['min_trials']} "
            f"are needed to read KING to two decimals (manual Table 11); {hint}. "
            "--tsv or --json list the counts.\n")


def write_king(rows: list[Record], out: TextIO, ranked: bool) -> None:
    """-doKING as manual Table 11: ``Evaluation metric | KING``, then the whole set (``SET``)."""
    out.write(f"KING: discriminative power of each metric (manual §3.1.2, Table 11); {_context(rows, 'metric')}\n")
    if not all(r["enough_trials"] for r in rows):
        out.write(_too_few(rows))
        return
    singles = [r for r in rows if r["metric"] != "SET"]
    if ranked:
        singles = _best_first(singles)
    header, body = _ranked(["Evaluation metric", "KING"], [[r["metric"], cell(r)] for r in singles], ranked,
                           [r["score"] for r in singles])
    whole = [r for r in rows if r["metric"] == "SET"]
    body += [([""] if ranked else []) + ["SET", cell(r)] for r in whole]
    table(header, body, out, left=2 if ranked else 1)
    for r in whole:
        out.write(f"SET = {named_set(r)}\n")


def write_jack(rows: list[Record], out: TextIO, ranked: bool) -> None:
    """-doJACK: ``SEG|DOC|Test set | JACK`` with the metric set in the caption."""
    level = rows[0]["level"]
    unit = {"seg": "segment", "doc": "document"}.get(level, "")
    out.write(f"JACK: reliability of the test set (manual §3.1.3); {_context(rows, unit)}, "
              f"metric set {named_set(rows[0])}\n")
    label = {"seg": "SEG", "doc": "DOC"}.get(level, "Test set")
    key = {"seg": "segment", "doc": "doc"}.get(level)
    ordered = _best_first(rows) if ranked else rows
    header, body = _ranked([label, "JACK"], [[str(r[key]) if key else "all", cell(r)] for r in ordered], ranked,
                           [r["score"] for r in ordered])
    table(header, body, out, left=2 if ranked else 1)


def write_optimization(rows: list[Record], out: TextIO, ranked: bool) -> None:
    """-optimizeKING (manual §3.3): the greedy trace, labelled, and the optimal set by name."""
    trace = [r for r in rows if "step" in r]
    out.write(f"-optimizeKING: greedy metric-set search (manual §3.3); KING at {_context(rows, 'set')}\n")
    if all(r["enough_trials"] for r in rows):
        table(["Step", "Metric tried", "KING alone", "Set size", "KING of set", "Added"],
               [[str(r["step"]), r["metric"], cell(r, "single", "single_hits", "single_trials"),
                 str(r["set_size"]), cell(r), r["accepted"]] for r in trace], out, left=2)
    else:
        out.write(_too_few(rows))
    for r in rows:
        if r["metric"] in ("OPTIMAL", "EXHAUSTIVE"):
            how = "greedy" if r["metric"] == "OPTIMAL" else f"exhaustive, {r['evaluated']} subsets"
            meaning = "" if r["enough_trials"] else "; not meaningful with so few trials"
            out.write(f"Optimal set ({how}): {named_set(r)}, KING {_fmt(r['score'])} "
                      f"({r['hits']}/{r['trials']}){meaning}\n")


def write_significance(rows: list[Record], out: TextIO, ranked: bool) -> None:
    """-assessments --significance: one row per ordered metric pair ``A>B``: the difference of their
    correlations, each test's one-sided p-value (H1: A correlates better than B) and the paired
    bootstrap's interval of the difference (``ranked``: the largest difference first)."""
    first = rows[0]
    tests = [t for t in SIGNIFICANCE_TESTS if any(r["test"] == t for r in rows)]
    by_pair: dict[str, dict[str, Record]] = {}
    for r in rows:
        by_pair.setdefault(str(r["metric"]), {})[r["test"]] = r
    pairs = list(by_pair.items())
    if ranked:
        pairs.sort(key=lambda item: -next(iter(item[1].values()))["score"])
    out.write(f"significance: does metric A correlate better than B? {first.get('correlation', '')} at "
              f"-G {first['level']}, one-sided p-values (H1: A > B)\n")
    boot = "bootstrap" in tests
    body = []
    for pair, found in pairs:
        line = [pair, _fmt(next(iter(found.values()))["score"])]
        line += [_fmt(found[t]["p_value"]) if t in found else "-" for t in tests]
        if boot:
            b = found.get("bootstrap", {})
            line.append(f"{_fmt(b['ci_low'])} .. {_fmt(b['ci_high'])}" if "ci_low" in b else "-")
        body.append(line)
    header = ["A>B", "difference"] + [f"p {t}" for t in tests] + (["95% CI (bootstrap)"] if boot else [])
    table(*_ranked(header, body, ranked), out, left=2 if ranked else 1)


def write_metric_ranks(rows: list[Record], out: TextIO, ranked: bool) -> None:
    """-assessments --significance: the metrics best first with their significance rank
    (mt-metrics-eval's ``AssignRanks``; :mod:`mteval.evaluate.metric_ranks`)."""
    first = rows[0]
    out.write(f"metric ranks: {first['correlation']} at -G {first['level']}; a metric opens a new rank when one of the "
              f"current rank correlates better with {first['ranked_by']} p <= {first['alpha']:g}\n")
    body = [["-" if r["rank"] is None else str(r["rank"]), str(r["metric"]), _fmt(r["score"])] for r in rows]
    table(["rank", "metric", str(first["correlation"])], body, out, left=2)


def write_global_accuracy(records: list[Record], out: TextIO) -> None:
    """mteval global-accuracy: the metrics best first (rank, metric, global accuracy, agreeing/pairs,
    each set's accuracy), then the p-values of the tested pairs (row better than column;
    :mod:`mteval.evaluate.global_accuracy`)."""
    ranks = [r for r in records if "rank" in r]
    tests = {str(r["metric"]): r for r in records if "test" in r}
    sets = str(ranks[0]["sets"]).split(",")
    first = ranks[0]
    out.write(f"global accuracy over {len(sets)} set(s) ({', '.join(sets)}); a metric opens a new rank when one of "
              f"the current rank is better with {first['ranked_by']} p <= {first['alpha']:g}\n")
    body = [[str(r["rank"]), str(r["metric"]), _fmt(r["score"]), f"{r['agreeing']}/{r['pairs']}",
             *(_fmt(r[f"accuracy:{s}"]) for s in sets)] for r in ranks]
    table(["rank", "metric", "accuracy", "pairs", *sets], body, out, left=2)
    if tests:
        names = [str(r["metric"]) for r in ranks]
        trials = max(int(r["trials"]) for r in tests.values())
        out.write(f"\np-values of 'row is better than column' ({first['ranked_by']}, up to {trials} permutations)\n")
        rows = [[a, *("" if j <= i else _fmt(tests[f"{a}>{b}"]["p_value"]) for j, b in enumerate(names[1:], 1))]
                for i, a in enumerate(names[:-1])]
        table(["", *names[1:]], rows, out)


def write_wmt_ranking(records: list[Record], out: TextIO) -> None:
    """mteval wmt-ranking: the tasks, the metrics best first (rank, metric, average, each task's value
    with its rank in brackets, as WMT's tables), then the p-values of the averages (row better than
    column; :mod:`mteval.evaluate.wmt_ranking`)."""
    ranks = [r for r in records if r.get("table") == "metric-ranks"]
    tasks = [r for r in records if r.get("table") == "wmt-tasks"]
    tests = {str(r["metric"]): r for r in records if "test" in r}
    first = ranks[0]
    out.write(f"{str(first['correlation']).upper()} ranking over {len(first['sets'].split(','))} set(s) "
              f"({first['sets'].replace(',', ', ')}): weighted average of the task values normalised to [0, 1]; "
              f"a metric opens a new rank when one of the current rank is better with p <= {first['alpha']:g} "
              "(the tasks' permutation draws, averaged)\n")
    table(["task", "level", "statistic", "sets", "weight", "range", "test"],
          [[str(t["target"]), str(t["level"]), str(t["statistic"]), str(t["sets"]), _fmt(t["score"]),
            f"[{t['low']:g}, {t['high']:g}]", f"{t['ranked_by']} ({t['trials']})"] for t in tasks], out, left=5)
    out.write("\n")
    keys = [str(t["target"]) for t in tasks]
    body = [[str(r["rank"]), str(r["metric"]), _fmt(r["score"]),
             *(f"{_fmt(r[k])} ({r[f'rank:{k}']})" for k in keys)] for r in ranks]
    table(["rank", "metric", "average", *keys], body, out, left=2)
    if tests:
        names = [str(r["metric"]) for r in ranks]
        out.write(f"\np-values of 'row is better than column' ({first['ranked_by']})\n")
        rows = [[a, *("" if j <= i else _fmt(tests[f"{a}>{b}"]["p_value"]) for j, b in enumerate(names[1:], 1))]
                for i, a in enumerate(names[:-1])]
        table(["", *names[1:]], rows, out)


TABLES: dict[str, Callable[[list[Record], TextIO, bool], None]] = {
    "KING": write_king, "JACK": write_jack, "optimizeKING": write_optimization, "significance": write_significance,
    "metric-ranks": write_metric_ranks}
"""Text renderers of the tables after the score matrix: QARLA's, by the records' ``table`` key, and
the significance tests' (:func:`_table_of`)."""
