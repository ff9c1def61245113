"""The report's QARLA, drill-down and signature sections as HTML fragments (strings escaped)."""

from __future__ import annotations

from html import escape

from mteval.report import plots
from mteval.report.content import Report
from mteval.report.drilldown import DrillSegment, Tokens
from mteval.report.sections import num


def qarla(report: Report) -> str:
    """QUEEN per system, KING per metric, the greedy KING trace and the optimal set."""
    head = '<section id="qarla"><h2>QARLA: QUEEN, KING and the optimal metric set</h2>'
    q = report.qarla
    if q is None:
        why = ("needs at least 3 references" if len(report.references) < 3
               else "no metric has every single-reference score file")
        return f'{head}<p class="note">Not computed: QARLA {why} (IQMT manual §3).</p></section>'
    queen = "".join(f'<tr><th>{escape(r["target"])}</th><td class="num">{num(r["score"])}</td>'
                    f'<td class="num">{r["hits"]}/{r["trials"]}</td></tr>' for r in q.queen)
    king = "".join(f'<tr><th>{escape(r["metric"])}</th><td class="num">{num(r["score"])}</td>'
                   f'<td class="num">{r["hits"]}/{r["trials"]}</td></tr>' for r in q.king)
    trace = [r for r in q.trace if "step" in r]
    optimal = next((r for r in q.trace if r["metric"] == "OPTIMAL"), None)
    parts = [head, f'<p class="note">Single-reference scores of {len(q.metrics)} metrics. QUEEN per system at '
             "system level (share of trials where the system is at least as close to each reference as the other "
             "references are), KING per metric and the greedy search at segment level.</p>",
             '<div style="display:flex;gap:2em;flex-wrap:wrap">'
             f'<table id="queen"><tr><th>system</th><th>QUEEN</th><th>hits/trials</th></tr>{queen}</table>'
             f'<table id="king"><tr><th>metric</th><th>KING</th><th>hits/trials</th></tr>{king}</table></div>']
    if trace:
        svg = plots.king_trace([r["set_size"] for r in trace], [r["score"] for r in trace],
                               [r["accepted"] == "yes" for r in trace], [r["metric"] for r in trace])
        parts.append(f'<h3>Greedy KING optimisation</h3><div class="plot" id="king-trace">{svg}</div>')
    if optimal is not None:
        names = ", ".join(escape(m) for m in str(optimal.get("metric_set", "")).split(",") if m)
        parts.append(f'<p id="optimal-set"><strong>Optimal set (greedy)</strong>: {{{names}}}, '
                     f"KING {num(optimal['score'])} ({optimal['hits']}/{optimal['trials']}).</p>")
    return "\n".join(parts) + "</section>"


def _tokens(tokens: Tokens) -> str:
    """Words, unmatched ones marked."""
    return " ".join(f'<span class="miss">{escape(w)}</span>' if not hit else escape(w) for w, hit in tokens)


def _segment_row(seg: DrillSegment) -> str:
    """One drill-down row: segment, scores, hypothesis beside reference."""
    source = f'<div class="note">source: {escape(seg.source)}</div>' if seg.source else ""
    notes = "".join(f'<div class="note">{escape(n)}</div>' for n in seg.notes)
    return (f'<tr><td class="num">{seg.segment}<div class="note">{escape(seg.doc)}</div></td>'
            f'<td class="num">{num(seg.score)}<div class="note">others {num(seg.others)}</div></td>'
            f'<td class="text">{_tokens(seg.hypothesis)}{source}{notes}</td>'
            f'<td class="text">{_tokens(seg.reference_tokens)}<div class="note">reference '
            f"{escape(seg.reference)}</div></td></tr>")


def _has_chains(report: Report) -> bool:
    """Whether some drilled segment carries syntactic notes."""
    return any(s.notes for group in report.drill.values() for s in group)


def drilldown(report: Report) -> str:
    """Per system, the segments it loses most on against the other systems."""
    head = '<section id="drilldown"><h2>Segment drill-down</h2>'
    if not report.drill:
        return f'{head}<p class="note">Needs at least two systems and one metric with every file.</p></section>'
    parts = [head, f'<p class="note">For each system, the {report.options.get("segments per system", "")} '
             f"segments where its <strong>{escape(str(report.drill_metric))}</strong> score falls furthest below "
             "the mean of the other systems. Marked words (wavy underline): hypothesis words not found in the "
             "best-matching reference (clipped, case-insensitive), and reference words the hypothesis missed."
             + (" With a dependency (DP) metric, the head-word chains (lengths 2 and 3, word forms) of each side "
                "that the other lacks, from the cached parses." if report.notes or _has_chains(report) else "")
             + "</p>", *(f'<p class="note">{escape(n)}</p>' for n in report.notes)]
    for i, (system, segments) in enumerate(report.drill.items()):
        rows = "".join(_segment_row(s) for s in segments)
        parts.append(f"<details{' open' if i == 0 else ''} class=\"drill\"><summary>{escape(system)}</summary>"
                     '<table class="seg"><tr><th>segment</th><th>score</th><th>hypothesis</th><th>reference</th>'
                     f"</tr>{rows}</table></details>")
    return "\n".join(parts) + "</section>"


def _code(text: str) -> str:
    """A signature (``-`` for a file without one)."""
    return f"<code>{escape(text or '-')}</code>"


def signatures(report: Report) -> str:
    """The experiment's signatures: metric versions and options (and parser models) per metric,
    and the report's own settings."""
    rows = "".join(f"<tr><th>{escape(m)}</th><td>{'<br>'.join(_code(s) for s in sigs)}</td></tr>"
                   for m, sigs in report.signatures.items())
    options = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in report.options.items())
    return (f'<footer id="signatures"><h2>Signatures</h2><table id="signature-table"><tr><th>metric</th>'
            f"<th>signature of its score files (version, options, models)</th></tr>{rows}</table>"
            f'<h3>Report settings</h3><table id="settings">{options}</table></footer>')
