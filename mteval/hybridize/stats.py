"""Statistics of a hybridization: the paper's Table 5 and its length distributions (Wang et al.
2009, Sec. 4, Table 5 and Figures 2-5).

* average length of reference: words per reference sentence;
* total tree nodes / total equivalent nodes: over all reference trees (every node of the
  phrase-structure tree, preterminals included; a node is *equivalent* when it is in at least one
  equivalent pair with another reference of its segment);
* average tree nodes / average equivalent nodes: per reference sentence;
* length distribution: for each node length (words covered) the count of equivalent nodes, of
  tree nodes, and their proportion (Figures 2-5).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from mteval.hybridize.generate import HybridResult


@dataclass(frozen=True)
class Table5:
    """The rows of the paper's Table 5 for one reference set, plus the reference counts."""

    references: int
    average_length: float
    total_nodes: int
    total_equivalent: int
    average_nodes: float
    average_equivalent: float
    segments: int
    average_generated: float  # new references per segment (after de-duplication and cap)
    truncated: int  # segments where the cap cut the generation
    originals: int = 0  # distinct original references over all segments (identical ones count once)

    def rows(self) -> list[tuple[str, str]]:
        """(row name, value) in the paper's order, for printing."""
        return [("Average length of reference", f"{self.average_length:.2f}"),
                ("Total tree nodes", str(self.total_nodes)),
                ("Total equivalent nodes", str(self.total_equivalent)),
                ("Average tree nodes", f"{self.average_nodes:.2f}"),
                ("Average equivalent nodes", f"{self.average_equivalent:.2f}"),
                ("Average references per segment", f"{self.average_generated + self._originals():.2f}"),
                ("Segments cut by the cap", str(self.truncated))]

    def _originals(self) -> float:
        """Distinct original references per segment (the extended set keeps one of identical ones)."""
        return self.originals / self.segments if self.segments else 0.0


def table5(result: HybridResult) -> Table5:
    """Table 5 of Wang et al. (2009) for a hybridized reference set."""
    words = [w for s in result.segments for w in s.words]
    nodes = [len(n) for s in result.segments for n in s.node_lengths]
    equ = [len(e) for s in result.segments for e in s.equivalent_lengths]
    refs = len(nodes)
    segs = len(result.segments)
    return Table5(refs, sum(words) / refs if refs else 0.0, sum(nodes), sum(equ),
                  sum(nodes) / refs if refs else 0.0, sum(equ) / refs if refs else 0.0, segs,
                  sum(s.n_generated for s in result.segments) / segs if segs else 0.0,
                  sum(s.truncated for s in result.segments), sum(s.n_original for s in result.segments))


def length_distribution(result: HybridResult, max_length: int = 50) -> dict[int, tuple[int, int, float]]:
    """For node lengths 1..max_length: (equivalent nodes, tree nodes, proportion equivalent)."""
    equ: Counter = Counter(n for s in result.segments for e in s.equivalent_lengths for n in e)
    nodes: Counter = Counter(n for s in result.segments for t in s.node_lengths for n in t)
    return {k: (equ[k], nodes[k], equ[k] / nodes[k] if nodes[k] else 0.0) for k in range(1, max_length + 1)}
