"""Text view of ``iqeval -compare`` records (``mteval.evaluate.compare``), one block per metric.

With a baseline, as sacreBLEU's paired output: the baseline first, then every other system best
first, each with its score ``(μ ± 95% CI)`` (bootstrap mean and half the interval), its difference
from the baseline with the interval, the p-values and a ``*`` where the difference is significant
(after the correction), plus its cluster and the rank range of that cluster. Without a baseline:
the systems best first with their clusters, then the matrix of pairwise p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TextIO

from mteval.cli.output import table

Record = dict[str, Any]
TESTS = {"bs": "paired bootstrap", "ar": "approximate randomisation"}
RULES = {"stats": "from summed statistics",
         "mean": "as iqeval -G sys reports them; resampled as the mean of segment scores"}
TIE_RULES = {  # the records' ``ties`` (iqeval -compare --ties)
    "sacrebleu": "ties: p counts resampled differences beyond the observed one, as sacreBLEU "
                 "(--ties sacrebleu: identical systems get p = 1/(n+1)); --ties count counts ties too\n",
    "count": "ties: p counts resampled differences at least as large as the observed one, ties included "
             "(--ties count: identical systems get p = 1)\n"}


def _num(value: Any, sign: bool = False) -> str:
    """A number to 4 decimals (``+`` shown with ``sign``); ``-`` where there is none."""
    if not isinstance(value, float | int) or isinstance(value, bool) or math.isnan(value):
        return "-"
    return f"{value:+.4f}" if sign else f"{value:.4f}"


def _score(r: Record) -> str:
    """``score (μ ± half interval)``, the score alone without the bootstrap."""
    if not isinstance(r.get("ci_low"), float):
        return _num(r["score"])
    return f"{_num(r['score'])} ({_num(r['mean'])} ± {0.5 * (r['ci_high'] - r['ci_low']):.4f})"


def _delta(r: Record) -> str:
    """``+diff [low, high]`` (no interval without the bootstrap)."""
    if "delta" not in r:
        return "-"
    if not isinstance(r.get("delta_low"), float):
        return _num(r["delta"], sign=True)
    return f"{_num(r['delta'], sign=True)} [{_num(r['delta_low'], sign=True)}, {_num(r['delta_high'], sign=True)}]"


def _score_header(first: Record) -> str:
    """``Score (μ ± 95% CI)`` with the bootstrap, else ``Score``."""
    return "Score (μ ± 95% CI)" if first["test"] in ("bs", "both") else "Score"


def _delta_header(first: Record) -> str:
    """``Δ vs baseline (95% CI)`` with the bootstrap, else ``Δ vs baseline``."""
    return "Δ vs baseline (95% CI)" if first["test"] in ("bs", "both") else "Δ vs baseline"


def _decisive(first: Record) -> str:
    """The p-value field that decides significance: randomisation's when it ran."""
    return "p_ar" if first["test"] in ("ar", "both") else "p_bs"


def _p_columns(first: Record) -> list[str]:
    """The p-value columns shown: the tests run, then the corrected one."""
    shown = [f for f, test in (("p_bs", "bs"), ("p_ar", "ar")) if first["test"] in (test, "both")]
    return shown + (["p_adj"] if first["correction"] != "none" else [])


def _starred(r: Record, field: str, last: bool) -> str:
    """A p-value; in the last column shown, ``*`` when the difference is significant (else a space,
    so that the digits align)."""
    if field not in r:
        return "- " if last else "-"
    return _num(r[field]) + (("*" if r.get("significant") == "yes" else " ") if last else "")


def _caption(rows: list[Record]) -> str:
    """``BLEU: 6 systems, 100 segments, references A_C_D; scores from summed statistics`` and the tests."""
    first = rows[0]
    tests = []
    if first["test"] in ("bs", "both"):
        tests.append(f"{TESTS['bs']} ({first['resamples']} resamples)")
    if first["test"] in ("ar", "both"):
        tests.append(f"{TESTS['ar']} ({first['trials']} trials)")
    systems = sum(1 for r in rows if r["kind"] == "system")
    return (f"{first['metric']}: {systems} systems, {first['segments']} segments, references {first['refset']}; "
            f"scores {RULES.get(first['aggregate'], first['aggregate'])}\n"
            f"{' and '.join(tests)}, seed {first['seed']}\n")


def _legend(first: Record, family: str) -> str:
    """What ``*``, p and the clusters mean for this block."""
    how = "" if first["correction"] == "none" else f" after {first['correction'].capitalize()} correction"
    test = TESTS["ar" if _decisive(first) == "p_ar" else "bs"]
    return (f"*: significant at alpha = {first['alpha']}{how} over {family} ({test} p-values)\n"
            f"{TIE_RULES.get(first.get('ties', 'sacrebleu'), '')}"
            "clusters: no system of a cluster is significantly better than another of it (WMT ranking clusters)\n")


def _write_versus(rows: list[Record], out: TextIO) -> None:
    """The block of a metric with a baseline."""
    systems = [r for r in rows if r["kind"] == "system"]
    first, baseline = systems[0], systems[0]["baseline"]
    ordered = [r for r in systems if r["target"] == baseline] + [r for r in systems if r["target"] != baseline]
    columns = _p_columns(first)
    header = ["Rank", "Cluster", "System", _score_header(first), _delta_header(first), *columns]
    body = [[str(r["rank_range"]), str(r["cluster"]), ("Baseline: " if r["target"] == baseline else "") + r["target"],
             _score(r), _delta(r), *(_starred(r, c, c == columns[-1]) for c in columns)] for r in ordered]
    out.write(_caption(rows))
    table(header, body, out, left=3)
    count = len(systems) - 1
    out.write(_legend(first, f"the {count} comparison{'s' if count != 1 else ''} with the baseline"))


def _write_matrix(rows: list[Record], out: TextIO) -> None:
    """The block of a metric without a baseline: ranking with clusters, then pairwise p-values."""
    systems = [r for r in rows if r["kind"] == "system"]
    pairs = {(r["target"], r["baseline"]): r for r in rows if r["kind"] == "pair"}
    pairs.update({(b, a): r for (a, b), r in list(pairs.items())})
    out.write(_caption(rows))
    table(["#", "Rank", "Cluster", "System", _score_header(systems[0])],
           [[str(i), str(r["rank_range"]), str(r["cluster"]), r["target"], _score(r)]
            for i, r in enumerate(systems, start=1)], out, left=4)
    field, names = _decisive(systems[0]), [r["target"] for r in systems]
    matrix = [[str(i), a] + ["-" if a == b else _starred(pairs[a, b], field, True) for b in names]
              for i, a in enumerate(names, start=1)]
    out.write(f"pairwise p-values ({field})\n")
    table(["#", "System", *map(str, range(1, len(names) + 1))], matrix, out, left=2)
    count = len(pairs) // 2
    out.write(_legend(systems[0], f"the {count} pair{'s' if count != 1 else ''}"))


def write_comparisons(records: Sequence[Record], out: TextIO) -> None:
    """Every metric's block, separated by blank lines."""
    metrics: dict[str, list[Record]] = {}
    for r in records:
        metrics.setdefault(r["metric"], []).append(r)
    for i, rows in enumerate(metrics.values()):
        if i:
            out.write("\n")
        if "baseline" in rows[0]:
            _write_versus(rows, out)
        else:
            _write_matrix(rows, out)
