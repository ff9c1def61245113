"""The report's plots as inline SVG (matplotlib's SVG backend; imported only here, so that the
other commands do not pay for matplotlib). Each figure is drawn on its own ``Figure`` (no pyplot
state), its text kept as text, its element ids prefixed so that several can share one page."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

_COUNTER = itertools.count(1)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


def _figure(width: float, height: float, layout: Any = "constrained") -> Any:
    """A fresh figure (no global pyplot state); ``layout=None`` for the many small figures, whose
    margins are set from their labels (constrained layout costs a draw)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout)


def _margins(figure: Any, left: float = 0.5, bottom: float = 0.5, top: float = 0.15, right: float = 0.2) -> None:
    """Fixed margins, in inches."""
    width, height = figure.get_size_inches()
    figure.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height)


def _label_inches(labels: Sequence[str], size: float = 10.0) -> float:
    """About the width of the longest label, in inches (0.6 em a character)."""
    return 0.6 * size / 72 * max((len(label) for label in labels), default=0)


def to_svg(figure: Any) -> str:
    """The figure as an ``<svg>`` element for inlining: no XML prolog, ids made unique on the page."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "mteval-report"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)  # RDF boilerplate
    prefix = f"f{next(_COUNTER)}-"
    text = re.sub(r'id="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = text.replace("url(#", f"url(#{prefix}").replace('href="#', f'href="#{prefix}')
    return text


def system_intervals(systems: Sequence[str], scores: Sequence[float], low: Sequence[float],
                     high: Sequence[float], cluster: Sequence[int], metric: str) -> str:
    """Systems (best on top) with their 95 % intervals, coloured by significance cluster."""
    fig = _figure(6.5, 0.3 * len(systems) + 1.1, layout=None)
    _margins(fig, left=_label_inches(systems) + 0.2, bottom=0.55, top=0.35)
    ax = fig.add_subplot()
    y = np.arange(len(systems))[::-1]
    for k in range(len(systems)):
        colour = PALETTE[(cluster[k] - 1) % len(PALETTE)]
        ax.errorbar(scores[k], y[k], xerr=[[max(0.0, scores[k] - low[k])], [max(0.0, high[k] - scores[k])]], fmt="o",
                    color=colour, capsize=3)
    ax.set_yticks(y, list(systems))
    ax.set_title(f"{metric}: systems, best first", fontsize=9)
    ax.set_xlabel(f"{metric}: system score, 95% paired-bootstrap interval; colour = cluster")
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig)


def correlation_bars(metrics: Sequence[str], values: Sequence[float], low: Sequence[float],
                     high: Sequence[float], label: str) -> str:
    """One bar per metric with its confidence interval."""
    bottom = 0.87 * _label_inches(metrics, 8) + 0.3  # labels turned 60 degrees
    fig = _figure(max(6.0, 0.32 * len(metrics) + 1.5), 2.6 + bottom, layout=None)
    _margins(fig, left=0.8, bottom=bottom, top=0.35)
    ax = fig.add_subplot()
    x = np.arange(len(metrics))
    v, lo, hi = (np.asarray(a, dtype=float) for a in (values, low, high))
    ax.bar(x, v, color=PALETTE[0], alpha=0.8)
    yerr = [np.maximum(0.0, np.nan_to_num(v - lo)), np.maximum(0.0, np.nan_to_num(hi - v))]
    ax.errorbar(x, v, yerr=yerr, fmt="none", ecolor="black", capsize=3)
    ax.set_xticks(x, list(metrics), rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(label)
    ax.set_title(f"{label} of every metric with the human scores, 95% interval", fontsize=9)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.grid(axis="y", alpha=0.3)
    return to_svg(fig)


def scatter_grid(metrics: Sequence[str], human: Sequence[float], values: np.ndarray,
                 systems: Sequence[str]) -> str:
    """Small multiples: each metric's system scores against the human system scores, every point
    labelled with its system's name."""
    cols = min(4, len(metrics))
    rows = -(-len(metrics) // cols)
    fig = _figure(3.3 * cols, 2.9 * rows)
    for k, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, k + 1)
        for s in range(len(systems)):
            ax.plot(values[k, s], human[s], "o", color=PALETTE[s % len(PALETTE)], markersize=4)
            ax.annotate(systems[s], (values[k, s], human[s]), fontsize=7.5, xytext=(3, 2),
                        textcoords="offset points", color="#333333")
        ax.set_title(f"{metric} vs human", fontsize=9)
        ax.set_xlabel(f"{metric} (system score)", fontsize=8)
        ax.tick_params(labelsize=7.5)
    fig.supylabel("human system score", fontsize=9)
    return to_svg(fig)


HEATMAP_VALUES_UP_TO = 20  # metrics (+ human) whose cell values are written: beyond, the page would shrink them


def heatmap(names: Sequence[str], matrix: np.ndarray) -> str:
    """The correlation matrix, values written in the cells (8 pt, white on dark cells): legible
    (>= 10 px) on a 1400 px page up to :data:`HEATMAP_VALUES_UP_TO` names."""
    cell = 0.5
    size = cell * len(names) + _label_inches(names, 8) + 0.8
    fig = _figure(size + 1.2, size)
    ax = fig.add_subplot()
    image = ax.imshow(matrix, vmin=-1, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(names)), list(names), rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), list(names), fontsize=8)
    ax.set_title("Pearson between segment scores (oriented: higher is better)", fontsize=9)
    if len(names) <= HEATMAP_VALUES_UP_TO:
        for i, j in itertools.product(range(len(names)), repeat=2):
            value = matrix[i, j]
            if not np.isnan(value):
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if abs(value) > 0.55 else "black")
    fig.colorbar(image, ax=ax, shrink=0.6, label="Pearson")
    return to_svg(fig)


def king_trace(sizes: Sequence[int], kings: Sequence[float], accepted: Sequence[bool],
               metrics: Sequence[str]) -> str:
    """The greedy KING search: each step's candidate set size and KING (filled: accepted)."""
    bottom = 0.87 * _label_inches([f"{m} (00)" for m in metrics], 7) + 0.5
    fig = _figure(max(7.0, 0.3 * len(metrics) + 1.5), 2.6 + bottom, layout=None)
    _margins(fig, left=0.8, bottom=bottom, top=0.35)
    ax = fig.add_subplot()
    steps = np.arange(1, len(kings) + 1)
    ax.plot(steps, kings, color="#999999", linewidth=0.8)
    for k in range(len(kings)):
        ax.plot(steps[k], kings[k], "o", color=PALETTE[2] if accepted[k] else "white",
                markeredgecolor=PALETTE[2] if accepted[k] else PALETTE[3], markersize=6)
    labels = [f"{m} ({n})" for m, n in zip(metrics, sizes, strict=True)]
    ax.set_xticks(steps, labels, rotation=60, ha="right", fontsize=7)
    ax.set_title("Greedy KING optimisation: each metric tried", fontsize=9)
    ax.set_xlabel("metric tried (candidate set size)")
    ax.set_ylabel("KING of the candidate set")
    ax.grid(alpha=0.3)
    return to_svg(fig)
