"""Render a :class:`~mteval.report.content.Report` as one self-contained HTML page: inline CSS,
inline SVG plots, no script and no external resource; every user string escaped."""

from __future__ import annotations

from html import escape

from mteval.report import details, pair_html, sections
from mteval.report.content import Report

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em 2em;color:#222;max-width:1600px}
h1{margin-bottom:.2em} h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em} th,td{border:1px solid #ddd;padding:.25em .5em}
th{background:#f3f3f3;text-align:left;position:sticky;top:0} td.num{text-align:right;font-variant-numeric:tabular-nums}
.ci{color:#777;font-size:.85em} .cl{display:inline-block;min-width:1.1em;border-radius:3px;font-size:.75em;
text-align:center;color:#fff;margin-left:.3em} .banner{background:#fff3cd;border:1px solid #e0b000;padding:.8em 1em}
.note{color:#555;font-size:.9em} .miss{background:#fde2e2;text-decoration:underline wavy #c00}
.hit{background:#dff5df} .seg td{vertical-align:top} .seg td.text{max-width:38em;line-height:1.5}
details{margin:.4em 0} summary{cursor:pointer;font-weight:600} code{font-size:.85em;word-break:break-all}
nav a{margin-right:1em} .plot svg{max-width:100%;height:auto}
#systems-table tr>th:first-child{position:sticky;left:0;z-index:1}
"""


def render(report: Report) -> str:
    """The whole page."""
    parts = [_head(report), _banner(report), _warnings(report), _nav(report), sections.systems_table(report)]
    if report.assessments is not None:
        parts.append(sections.human(report))
    found = report.analyses
    if found.pair is not None:
        parts.append(pair_html.render_pair(found.pair))
    if found.recalls:
        parts.append(pair_html.render_linguistic(found.recalls, found.linguistic_pair))
    parts += [details.qarla(report), details.drilldown(report), details.signatures(report)]
    return "\n".join(parts) + "\n</body>\n</html>\n"


def _head(report: Report) -> str:
    """Document head and title block."""
    scores = report.scores
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>mteval report: {escape(report.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"<h1>mteval report: {escape(report.title)}</h1>\n"
            f'<p class="note">{len(scores.systems)} systems, {len(scores.metrics)} metrics, references '
            f"{escape(', '.join(report.references))}, {report.n_segments} segments. "
            f"Experiment <code>{escape(report.config)}</code>, cache <code>{escape(report.cache)}</code>.</p>")


def _banner(report: Report) -> str:
    """The partial-report banner naming the unreadable files."""
    if not report.partial:
        return ""
    items = "".join(f"<li><code>{escape(line)}</code></li>" for line in report.missing)
    more = report.missing_total - len(report.missing)
    rest = f"<li>... and {more} more</li>" if more > 0 else ""
    return (f'<div class="banner" id="partial"><strong>Partial report</strong>: {report.missing_total} score '
            f"file(s) of the selection could not be read; the cells, correlations and QARLA results that need "
            f"them are left out (run <code>iqsetup</code> to complete the cache).<ul>{items}{rest}</ul></div>")


def _warnings(report: Report) -> str:
    """What iqsetup warned about the texts (:mod:`mteval.setup.text_warnings`), and judgements that look
    lower-is-better (:func:`mteval.evaluate.correlate.reversed_warning`), above every number."""
    if not report.warnings:
        return ""
    items = "".join(f"<li>{escape(line)}</li>" for line in report.warnings)
    return (f'<div class="banner" id="warnings"><strong>Inputs the scores may misread</strong>: the scores below are '
            f"computed as asked, but these texts or judgements make some of them wrong (docs/usage.md).<ul>{items}"
            "</ul></div>")


def _nav(report: Report) -> str:
    """Links to the sections."""
    links = [("systems", "Systems x metrics")]
    if report.assessments is not None:
        links.append(("human", "Human judgements"))
    if report.analyses.pair is not None:
        links.append(("pair", "Two systems"))
    if report.analyses.recalls:
        links.append(("linguistic", "Linguistic errors"))
    links += [("qarla", "QARLA"), ("drilldown", "Segment drill-down"), ("signatures", "Signatures")]
    return "<nav>" + "".join(f'<a href="#{k}">{escape(v)}</a>' for k, v in links) + "</nav>"

