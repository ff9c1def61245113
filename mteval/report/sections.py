"""The report's sections as HTML fragments (every user string escaped; plots from
:mod:`mteval.report.plots`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

import numpy as np

from mteval.metrics.registry import higher_is_better
from mteval.report import plots
from mteval.report.analysis import RANK_ALPHA, SEGMENT_CORRELATIONS, SYSTEM_CORRELATIONS, Significance, ranks_of
from mteval.report.content import Report

Record = dict
SYSTEMS_NOTE = (
    "&plusmn; half of the 95% paired-bootstrap interval of the system score (resampled as <code>iqeval "
    "-compare</code> does: summed sufficient statistics for statistics-based metrics, else the mean segment "
    "score); the badge is the system's significance cluster for that metric (1 = best; a new cluster starts "
    "where a system is significantly worse, p &le; 0.05, than one of the cluster above), from the same test, "
    "correction and resamples as <code>iqeval -compare</code>, which prints the same clusters and p-values: {test}. "
    "&darr;: lower is better.")


def num(value: float | None, digits: int = 4) -> str:
    """A number for a cell (``-`` when undefined)."""
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _badge(cluster: int) -> str:
    colour = plots.PALETTE[(cluster - 1) % len(plots.PALETTE)]
    return f'<span class="cl" style="background:{colour}" title="significance cluster {cluster}">{cluster}</span>'


def systems_table(report: Report) -> str:
    """Systems x metrics: score, 95 % half-width and significance cluster, best system first on the
    first metric; then each metric's interval plot (collapsed)."""
    scores = report.scores
    first = next((m for m in scores.metrics if m in report.significance), None)
    order = list(range(len(scores.systems)))
    if first is not None:
        k = scores.metrics.index(first)
        sign = -1.0 if higher_is_better(first) else 1.0
        order.sort(key=lambda s: (np.isnan(scores.system[k, s]), sign * np.nan_to_num(scores.system[k, s])))
    head = "".join(f"<th>{escape(m)}{'' if higher_is_better(m) else ' &darr;'}</th>" for m in scores.metrics)
    rated = report.correlations.human_system if report.correlations else {}
    human_ranks = ranks_of(rated)
    head = ("<th>human</th><th>human rank</th>" if rated else "") + head
    body = []
    for s in order:
        cells = "".join(_score_cell(report, k, s) for k in range(len(scores.metrics)))
        name = scores.systems[s]
        if rated:
            cells = (f'<td class="num">{num(rated.get(name))}</td><td class="num">{human_ranks.get(name, "-")}</td>'
                     + cells)
        body.append(f"<tr><th>{escape(name)}</th>{cells}</tr>")
    return (f'<section id="systems"><h2>Systems x metrics</h2>\n<p class="note">System scores from the cache '
            f"(against references {escape(scores.refset)}); "
            f"{SYSTEMS_NOTE.format(test=escape(report.options.get('clusters', '')))}</p>\n"
            f'<div style="overflow-x:auto"><table id="systems-table"><tr><th>system</th>{head}</tr>'
            f'{"".join(body)}</table></div>\n{_interval_plots(report)}</section>')


def _score_cell(report: Report, k: int, s: int) -> str:
    """One cell of the systems table."""
    scores = report.scores
    value = scores.system[k, s]
    if np.isnan(value):
        return '<td class="num" title="score file missing">-</td>'
    found = report.significance.get(scores.metrics[k])
    if found is None:
        return f'<td class="num">{num(value)}</td>'
    half = found.comparison.results()[s].half_width
    return (f'<td class="num">{num(value)} <span class="ci">&plusmn;{num(half, 3)}</span>'
            f"{_badge(found.cluster_of(scores.systems[s]))}</td>")


def _interval_plots(report: Report) -> str:
    """Each metric's systems with intervals, coloured by cluster, in a collapsed block."""
    out = []
    for i, (metric, found) in enumerate(report.significance.items()):
        c = found.comparison
        order = [c.systems.index(s) for group in found.clusters for s in group]  # best first
        svg = plots.system_intervals([c.systems[i] for i in order], [float(c.score[i]) for i in order],
                                     [float(c.low[i]) for i in order], [float(c.high[i]) for i in order],
                                     [found.cluster_of(c.systems[i]) for i in order], metric)
        clusters = " &gt; ".join("{" + ", ".join(escape(s) for s in g) + "}" for g in found.clusters)
        out.append(f"<details{' open' if i == 0 else ''}><summary>{escape(metric)} ({found.rule}): clusters "
                   f"{clusters}</summary>"
                   f'<div class="plot">{svg}</div>{_p_values(found, order)}</details>')
    return "\n".join(out)


def _p_values(found: Significance, order: Sequence[int]) -> str:
    """The metric's pairwise p-value matrix (systems best first), collapsed; ``*`` where significant."""
    c, p = found.comparison, found.p_values()
    alpha, correction = found.options.alpha, found.options.correction
    test = "approximate randomisation" if found.test == "ar" else "paired bootstrap"
    head = "".join(f"<th>{k}</th>" for k in range(1, len(order) + 1))
    rows = []
    for k, i in enumerate(order, start=1):
        cells = "".join("<td>-</td>" if i == j else
                        f'<td class="num">{num(float(p[i, j]))}{"*" if p[i, j] <= alpha else ""}</td>' for j in order)
        rows.append(f"<tr><th>{k} {escape(c.systems[i])}</th>{cells}</tr>")
    return (f'<details class="pvalues"><summary>pairwise p-values ({test}, {escape(correction)} correction; '
            f"* p &le; {alpha})</summary><table><tr><th>system</th>{head}</tr>{''.join(rows)}</table></details>")


def _ci_cell(record: Record | None) -> str:
    if record is None:
        return "<td>-</td>"
    return (f'<td class="num">{num(record["score"])} <span class="ci">[{num(record["ci_low"], 3)}, '
            f'{num(record["ci_high"], 3)}]</span></td>')


def human(report: Report) -> str:
    """Correlations with human judgements: bar chart, table, scatter, metric x metric heatmap."""
    corr = report.correlations
    assert corr is not None
    by = {(r["level"], r["correlation"], r["metric"]): r for r in [*corr.system, *corr.segment]
          if r.get("variant") == "plain"}
    metrics = [m for m in report.scores.metrics if ("sys", "pearson", m) in by or ("seg", "pearson", m) in by]
    columns = [*(("sys", c) for c in SYSTEM_CORRELATIONS), *(("seg", c) for c in SEGMENT_CORRELATIONS)]
    ranks = {(r["level"], r["metric"]): r["rank"] for r in corr.ranks}
    levels = [lv for lv in ("sys", "seg") if any(key[0] == lv for key in ranks)]
    rows = "".join(f"<tr><th>{escape(m)}</th>{''.join(_ci_cell(by.get((lv, c, m))) for lv, c in columns)}"
                   f"{''.join(_rank_cell(ranks.get((lv, m))) for lv in levels)}</tr>" for m in metrics)
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in corr.notes)
    parts = [f'<section id="human"><h2>Human judgements</h2>\n<p class="note">Assessments '
             f"<code>{escape(str(report.assessments))}</code>. Correlations of the metric scores (oriented: higher "
             "is better) with the human scores, 95% bootstrap intervals resampling segments (at system level the "
             f"system scores are recomputed in each resample; {report.options.get('bootstrap resamples')} resamples "
             "at system level, a fifth of them at segment level).</p>" + notes]
    sys_rows = [by[("sys", "pearson", m)] for m in metrics if ("sys", "pearson", m) in by]
    if sys_rows:
        svg = plots.correlation_bars([r["metric"] for r in sys_rows], [r["score"] for r in sys_rows],
                                     [r["ci_low"] for r in sys_rows], [r["ci_high"] for r in sys_rows],
                                     "system-level Pearson")
        parts.append(f'<h3>System-level Pearson with 95% CI</h3><div class="plot" id="corr-bars">{svg}</div>')
    head = "".join(f"<th>{lv} {c}</th>" for lv, c in columns) + "".join(f"<th>{lv} rank</th>" for lv in levels)
    parts.append(f'<table id="corr-table"><tr><th>metric</th>{head}</tr>{rows}</table>')
    if levels:
        parts.append('<p class="note">Rank: the metric\'s significance cluster on Pearson (1 = best), as the WMT '
                     "metrics tasks rank metrics (mt-metrics-eval's CompareMetrics and AssignRanks): metrics sorted by "
                     "Pearson, a metric opens a new rank when one of the current rank correlates better with "
                     f"PERM-BOTH p &lt;= {RANK_ALPHA:g} (permutations: as many as the intervals' resamples; "
                     "iqeval -assessments --significance gives every p-value).</p>")
    parts.append(_agreement(report))
    parts.append(_scatter(report, metrics))
    if len(corr.matrix_names) > 1:
        parts.append('<h3>Metric x metric correlation (segment level, Pearson)</h3>'
                     f'<div class="plot" id="heatmap">{plots.heatmap(corr.matrix_names, corr.matrix)}</div>')
    return "\n".join(parts) + "</section>"


def _rank_cell(rank: int | None) -> str:
    """A metric's significance rank (``-``: none, e.g. a NaN correlation)."""
    return f'<td class="num">{"-" if rank is None else rank}</td>'


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _agreement(report: Report) -> str:
    """Each metric's ranking of the judged systems against the humans': pairwise accuracy,
    Kendall tau-b, and the system it misplaces most (called out)."""
    if not report.agreements or report.correlations is None:
        return ""
    human_ranks = ranks_of(report.correlations.human_system)
    rows = []
    for a in report.agreements:
        w = a.worst
        rows.append(f"<tr><th>{escape(a.metric)}</th><td class=\"num\">{num(a.accuracy, 3)}</td>"
                    f'<td class="num">{num(a.kendall, 3)}</td><td>{escape(w)}: {_ordinal(human_ranks[w])} by humans, '
                    f"{_ordinal(a.ranks[w])} by {escape(a.metric)}</td></tr>")
    worst = sorted(report.agreements, key=lambda a: a.accuracy)[:3]
    called = "; ".join(f"{escape(a.metric)} misplaces {escape(a.worst)} most "
                       f"({_ordinal(human_ranks[a.worst])} by humans, {_ordinal(a.ranks[a.worst])} by the metric)"
                       for a in worst)
    return ('<h3>Rank agreement with the humans (system level)</h3><p class="note">Pairwise accuracy: the share '
            "of pairs of judged systems that the metric orders as the humans do (ties agree with ties; Kocmi et "
            f"al. 2021); Kendall tau-b over the same systems. Least agreeing: {called}.</p>"
            '<table id="agreement"><tr><th>metric</th><th>pairwise accuracy</th><th>Kendall tau-b</th>'
            f"<th>system misplaced most</th></tr>{''.join(rows)}</table>")


def _scatter(report: Report, metrics: Sequence[str]) -> str:
    """Metric vs human at system level, for the systems with a human score."""
    corr = report.correlations
    assert corr is not None
    scores = report.scores
    rated = [s for s in scores.systems if s in corr.human_system]
    if not rated or not metrics:
        return ""
    idx = [scores.systems.index(s) for s in rated]
    values = np.stack([scores.system[scores.metrics.index(m), idx] for m in metrics])
    svg = plots.scatter_grid(metrics, [corr.human_system[s] for s in rated], values, rated)
    return f'<h3>Metric vs human, system level</h3><div class="plot" id="scatter">{svg}</div>'
