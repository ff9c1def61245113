"""HTML fragments of the pair analyses (compare-mt's, Neubig et al. 2019, "compare-mt: A Tool for
Holistic Comparison of Language Generation Systems", NAACL demo: :mod:`mteval.report.pair`) and of
the linguistic error analysis (:mod:`mteval.report.linguistic`), in the style of the report's
sections: tables, collapsible ``<details>``, titled and labelled plots as inline SVG (matplotlib
as :mod:`mteval.report.plots`, value labels of 10 px). Every user string is HTML-escaped."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

import numpy as np

from mteval.report.linguistic import (
    KINDS,
    MIN_DIFFERING,
    LabelDifference,
    LinguisticPair,
    StructureExample,
    SystemRecalls,
)
from mteval.report.pair import Example, NgramDiff, PairAnalysis
from mteval.report.plots import PALETTE, to_svg

VALUE_SIZE = 10.0  # points = SVG px: value labels
TEXT_SIZE = 10.0  # tick labels
PLOTTED_LABELS = 15  # linguistic labels plotted per kind (the most frequent; the tables have all)
KIND_TITLES = {"relation": "Dependency relations (head, label, dependent)", "pos": "POS categories (UPOS)",
               "entity": "Named entities by type", "chain": "Head-word chains"}

SHORT_TITLES = {"relation": "Dependency relations", "pos": "POS categories", "entity": "Named entities",
                "chain": "Head-word chains"}

Series = Sequence[tuple[str, Sequence[float | None]]]


def num(value: float | None, digits: int = 4) -> str:
    """A number for a cell (``-`` when undefined)."""
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def bar_chart(categories: Sequence[str], series: Series, xlabel: str, title: str, digits: int = 2) -> str:
    """Horizontal grouped bars, one group per category (top to bottom), one bar per series, each bar
    labelled with its value; an undefined value has no bar and the label ``-``."""
    from matplotlib.figure import Figure

    k = len(series)
    fig = Figure(figsize=(7.5, 0.26 * k * len(categories) + 1.3), layout="constrained")
    ax = fig.add_subplot()
    height = 0.8 / max(k, 1)
    y = np.arange(len(categories))[::-1].astype(float)
    known = [v for _, values in series for v in values if v is not None and not math.isnan(v)]
    span = max([abs(v) for v in known] + [1e-9])
    for j, (name, values) in enumerate(series):
        pos = y + 0.4 - height * (j + 0.5)
        vals = [np.nan if v is None else float(v) for v in values]
        ax.barh(pos, np.nan_to_num(vals), height=height * 0.92, color=PALETTE[j % len(PALETTE)], label=name)
        for p, v in zip(pos, vals, strict=True):
            ax.text((0.0 if math.isnan(v) else v) + 0.01 * span, p, "-" if math.isnan(v) else f"{v:.{digits}f}",
                    va="center", ha="left", fontsize=VALUE_SIZE)
    ax.set_yticks(y, list(categories), fontsize=TEXT_SIZE)
    ax.tick_params(axis="x", labelsize=TEXT_SIZE)
    ax.set_xlim(min(0.0, min(known, default=0.0)), span * 1.18)
    ax.set_xlabel(xlabel, fontsize=TEXT_SIZE)
    ax.set_title(title, fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=max(k, 1), fontsize=TEXT_SIZE)
    return to_svg(fig)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """A table from escaped cells (the caller escapes)."""
    cells = "".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    return f'<table{f" class={css!r}" if css else ""}><tr>{"".join(f"<th>{h}</th>" for h in head)}</tr>{cells}</table>'


def _n(value: float | None, digits: int = 4) -> str:
    """A numeric cell."""
    return f'<td class="num">{num(value, digits)}</td>'


def _i(value: int) -> str:
    """A count cell."""
    return f'<td class="num">{value}</td>'


def _lengths(analysis: PairAnalysis) -> str:
    """Length ratio and brevity penalty per system."""
    rows = [[f"<th>{escape(s.system)}</th>", _i(s.hyp_words), _i(s.ref_words), _n(s.ratio), _n(s.brevity_penalty)]
            for s in analysis.lengths]
    return ("<h3>Length</h3>" + _table(["system", "hypothesis words", "closest reference words", "length ratio",
                                        "brevity penalty"], rows))


def _word_accuracy(analysis: PairAnalysis) -> str:
    """F-measure by frequency bucket: plot and table."""
    a, b = analysis.word_accuracy
    labels = [w.bucket for w in a.buckets]
    series = [(s.system, [w.f_measure for w in s.buckets]) for s in (a, b)]
    svg = bar_chart(labels, series, "word F-measure", "Word accuracy by reference frequency", 3)
    head = ["frequency", "reference words", *(f"{escape(s.system)} {c}" for s in (a, b)
                                              for c in ("words", "recall", "precision", "F"))]
    rows = [[f"<th>{escape(wa.bucket)}</th>", _i(wa.ref_words),
             *_word_cells(wa.hyp_words, wa.recall, wa.precision, wa.f_measure),
             *_word_cells(wb.hyp_words, wb.recall, wb.precision, wb.f_measure)]
            for wa, wb in zip(a.buckets, b.buckets, strict=True)]
    return (f"<details open><summary>Word accuracy by frequency (in {escape(analysis.frequency_source)})</summary>"
            '<p class="note">Each reference word in the bucket of its frequency, each hypothesis word in its own; '
            "matches clipped per segment; recall = matches / reference words, precision = matches / hypothesis "
            f'words, F their harmonic mean (compare-mt).</p><div class="plot">{svg}</div>'
            f"{_table(head, rows)}</details>")


def _word_cells(words: int, recall: float, precision: float, f: float) -> list[str]:
    """One system's cells of a frequency bucket."""
    return [_i(words), _n(recall), _n(precision), _n(f)]


def _length_buckets(analysis: PairAnalysis) -> str:
    """Mean segment score by reference length: plot and table."""
    buckets = analysis.length_buckets
    labels = [f"{x.bucket} ({x.segments})" for x in buckets]
    metric = escape(analysis.metric)
    svg = bar_chart(labels, [(analysis.name_a, [x.score_a for x in buckets]),
                             (analysis.name_b, [x.score_b for x in buckets])],
                    f"mean segment {analysis.metric}", "Mean segment score by reference length (segments)", 3)
    rows = [[f"<th>{escape(x.bucket)}</th>", _i(x.segments), _n(x.score_a), _n(x.score_b), _i(x.skipped)]
            for x in buckets]
    head = ["reference words", "segments", f"{escape(analysis.name_a)} {metric}", f"{escape(analysis.name_b)} {metric}",
            "without a score"]
    return (f"<details open><summary>{metric} by reference length</summary>"
            '<p class="note">Segments bucketed by the length of their reference (the mean over references), '
            f"mean segment {metric} of each system over the bucket (compare-mt's length buckets).</p>"
            f'<div class="plot">{svg}</div>{_table(head, rows)}</details>')


def _ngram_table(analysis: PairAnalysis, winner: str, rows: Sequence[NgramDiff]) -> str:
    """One direction of the n-gram difference analysis."""
    body = [[f"<td>{escape(r.ngram)}</td>", _i(r.matches_a), _i(r.matches_b), _n(r.salience_a, 3)] for r in rows]
    head = ["n-gram", f"{escape(analysis.name_a)} matches", f"{escape(analysis.name_b)} matches",
            f"share of {escape(analysis.name_a)}"]
    return (f"<div><strong>{len(rows)} n-grams {escape(winner)} matches more often</strong>"
            f"{_table(head, body) if rows else '<p class=note>none</p>'}</div>")


def _ngrams(analysis: PairAnalysis) -> str:
    """Both directions side by side."""
    return ("<details><summary>N-gram differences</summary><p class=\"note\">Clipped matches of every 1- to 4-gram "
            "in the references (several references: the largest count in any), ranked by compare-mt's smoothed share "
            f"(m<sub>A</sub> + 1) / (m<sub>A</sub> + m<sub>B</sub> + 2), A = {escape(analysis.name_a)}.</p>"
            '<div style="display:flex;gap:2em;flex-wrap:wrap">'
            f"{_ngram_table(analysis, analysis.name_a, analysis.ngrams_a)}"
            f"{_ngram_table(analysis, analysis.name_b, analysis.ngrams_b)}</div></details>")


def _example_rows(analysis: PairAnalysis, rows: Sequence[Example]) -> str:
    """Side-by-side segments."""
    def texts(e: Example) -> str:
        refs = "".join(f'<div class="note">reference {k}: {escape(r)}</div>' for k, r in enumerate(e.references, 1))
        source = f'<div class="note">source: {escape(e.source)}</div>' if e.source else ""
        return source + refs
    body = [[f'<td class="num">{e.segment}</td>', _n(e.score_a), _n(e.score_b),
             f'<td class="text">{escape(e.hypothesis_a)}</td>', f'<td class="text">{escape(e.hypothesis_b)}</td>',
             f'<td class="text">{texts(e)}</td>'] for e in rows]
    head = ["segment", escape(analysis.name_a), escape(analysis.name_b), escape(analysis.name_a),
            escape(analysis.name_b), "source and references"]
    return _table(head, body, "seg") if rows else '<p class="note">none</p>'


def _examples(analysis: PairAnalysis) -> str:
    """The segments where each system beats the other most."""
    metric = escape(analysis.metric)
    return (f"<details><summary>Segments where they differ most ({metric})</summary>"
            f"<h4>{escape(analysis.name_a)} better</h4>{_example_rows(analysis, analysis.examples_a)}"
            f"<h4>{escape(analysis.name_b)} better</h4>{_example_rows(analysis, analysis.examples_b)}</details>")


def render_pair(analysis: PairAnalysis, anchor: str = "pair") -> str:
    """The compare-mt analyses of one pair of systems as a ``<section>`` (``anchor``: its id)."""
    a, b = escape(analysis.name_a), escape(analysis.name_b)
    tok = "mteval-v13a tokens" if analysis.tokenizer == "13a" else "whitespace words"
    note = (f'<p class="note">compare-mt\'s analyses (Neubig et al. 2019) of {a} against {b} on '
            f"{analysis.n_segments} segments and {analysis.n_references} reference side(s); {tok}, "
            f"{'case-sensitive' if analysis.case_sensitive else 'lower-cased'}; segment metric "
            f"{escape(analysis.metric)}{'' if analysis.higher_is_better else ' (lower is better)'}.</p>")
    return (f'<section id="{escape(anchor)}" class="pair"><h2>{a} vs {b}: compare-mt analyses</h2>{note}'
            f"{_lengths(analysis)}{_word_accuracy(analysis)}{_length_buckets(analysis)}{_ngrams(analysis)}"
            f"{_examples(analysis)}</section>")


def _recall_cell(recalls: SystemRecalls, key: tuple[str, str]) -> str:
    """A system's recall of a label, with its counts."""
    found = next((r for r in recalls.recalls if (r.kind, r.label) == key), None)
    if found is None:
        return "<td>-</td>"
    return f'<td class="num">{num(found.recall, 3)} <span class="ci">{found.recalled}/{found.total}</span></td>'


def _recall_tables(per_system: Mapping[str, SystemRecalls]) -> str:
    """Per kind, every label's recall by every system (a folded table each, the first open)."""
    systems = list(per_system)
    totals: dict[tuple[str, str], int] = {}
    for recalls in per_system.values():
        for r in recalls.recalls:
            totals[(r.kind, r.label)] = max(totals.get((r.kind, r.label), 0), r.total)
    parts: list[str] = []
    for kind in KINDS:
        keys = sorted((k for k in totals if k[0] == kind), key=lambda k: (-totals[k], k[1]))
        if not keys:
            continue
        rows = [[f"<th>{escape(k[1])}</th>", *(_recall_cell(per_system[s], k) for s in systems)] for k in keys]
        table = _table(["label", *(escape(s) for s in systems)], rows)
        parts.append(f"<details{' open' if not parts else ''}><summary>{escape(KIND_TITLES[kind])}: recall by "
                     f"label ({len(keys)} labels)</summary>{table}</details>")
    return "".join(parts)


def _skipped(per_system: Mapping[str, SystemRecalls]) -> str:
    """A note on the segments and reference parses left out."""
    parts = [f"{escape(s)}: {r.segments} segments" + (f", {r.skipped} skipped" if r.skipped else "")
             + (f", {r.references_missing} reference parses missing" if r.references_missing else "")
             for s, r in per_system.items()]
    return "; ".join(parts) + "." if parts else ""


def _difference_row(d: LabelDifference) -> list[str]:
    """One label of the pair table."""
    flag = '<td title="p &le; alpha"><strong>yes</strong></td>' if d.significant else "<td>no</td>"
    return [f"<th>{escape(d.label)}</th>", _i(d.total), _n(d.recall_a, 3), _n(d.recall_b, 3),
            f'<td class="num">{d.diff:+.3f} <span class="ci">[{d.low:+.3f}, {d.high:+.3f}]</span></td>',
            _n(d.p_value, 4), _n(d.p_holm, 4), flag]


def _structure_examples(pair: LinguisticPair, d: LabelDifference) -> str:
    """Segments where the better system recovers items of the label that the other misses."""
    def row(e: StructureExample) -> list[str]:
        items = "; ".join(escape(i) for i in e.items)
        return [f'<td class="num">{e.segment}</td>', f"<td>{escape(e.recovered_by)}: {items}</td>",
                f'<td class="text">{escape(e.reference)}</td>', f'<td class="text">{escape(e.hypothesis_a)}</td>',
                f'<td class="text">{escape(e.hypothesis_b)}</td>']
    head = ["segment", "recovered only by", "reference", escape(pair.name_a), escape(pair.name_b)]
    return (f"<details><summary>Examples: {escape(d.label)}</summary>"
            f"{_table(head, [row(e) for e in d.examples], 'seg')}</details>")


def _pair_kind(pair: LinguisticPair, kind: str, rows: Sequence[LabelDifference]) -> str:
    """One kind of the pair: plot of the most frequent labels, table of all, examples."""
    plotted = sorted(rows, key=lambda d: -d.total)[:PLOTTED_LABELS]
    labels = [f"{d.label}{' *' if d.significant else ''} ({d.total})" for d in plotted]
    series = [(pair.name_a, [d.recall_a for d in plotted]), (pair.name_b, [d.recall_b for d in plotted])]
    svg = bar_chart(labels, series, "recall of the reference items (*: p <= alpha; reference items in parentheses)",
                    f"{SHORT_TITLES[kind]}: recall by label", 2)
    head = ["label", "reference items", f"{escape(pair.name_a)} recall", f"{escape(pair.name_b)} recall",
            f"difference {escape(pair.name_a)} - {escape(pair.name_b)} [95% CI]", "p", "p (Holm)", "p &le; alpha"]
    table = _table(head, [_difference_row(d) for d in rows])
    examples = "".join(_structure_examples(pair, d) for d in rows if d.examples)
    return (f"<details{' open' if kind == 'relation' else ''}><summary>{escape(KIND_TITLES[kind])}: "
            f"{sum(d.significant for d in rows)} of {len(rows)} labels differ significantly</summary>"
            f'<div class="plot">{svg}</div>{table}{examples}</details>')


def _pair_section(pair: LinguisticPair) -> str:
    """The recall differences of one pair of systems, kind by kind."""
    a, b = escape(pair.name_a), escape(pair.name_b)
    note = (f'<p class="note">Recall of {a} minus recall of {b} per label over the {pair.segments} segments both '
            f"have parses of ({pair.skipped} skipped); 95% interval and two-sided p-value of a paired bootstrap over "
            f"segments ({pair.resamples} resamples, seed {pair.seed}, sacreBLEU's p-value with ties counted as "
            f"extreme); flagged at p &le; {pair.alpha:g} without correction (the Holm-adjusted p-value over the "
            f"tested labels beside it). A label on which the two differ in fewer than {MIN_DIFFERING} segments is "
            f"not tested (p -): too few to reach p &le; 0.05 under a sign test.</p>")
    kinds = [_pair_kind(pair, k, [d for d in pair.differences if d.kind == k]) for k in KINDS
             if any(d.kind == k for d in pair.differences)]
    return f"<h3>{a} vs {b}</h3>{note}{''.join(kinds) or '<p class=note>No reference item to compare.</p>'}"


def render_linguistic(per_system: Mapping[str, SystemRecalls], pair: LinguisticPair | None,
                      anchor: str = "linguistic") -> str:
    """The linguistic error analysis as a ``<section>``: every system's recall by label and, for a
    pair, the differences with their significance and examples."""
    first = next(iter(per_system.values()), None)
    items = first.items if first is not None else (pair.items if pair is not None else "form")
    entities = "" if any(r.has_entities for r in per_system.values()) else " No named entity in the parses."
    note = (f'<p class="note">From the cached parses (never parsed here): the share of the references\' dependency '
            f"arcs (head, label, dependent), words by UPOS category, named entities by type and head-word chains "
            f"(2 and 3 words) that each hypothesis has too ({escape(items)}s, lower-cased; counts clipped per "
            f"segment; several references pooled). {_skipped(per_system)}{entities}</p>")
    return (f'<section id="{escape(anchor)}"><h2>Linguistic error analysis</h2>{note}{_recall_tables(per_system)}'
            f"{_pair_section(pair) if pair is not None else ''}</section>")
