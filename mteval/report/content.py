"""Everything one report shows, computed (by :mod:`mteval.report.build`) before it is rendered
(by :mod:`mteval.report.html`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mteval.report.analysis import Agreement, Correlations, Qarla, Significance
from mteval.report.comparing import Analyses
from mteval.report.data import SystemScores
from mteval.report.drilldown import DrillSegment


@dataclass
class Report:
    """A campaign report: what was selected, what was computed, and what could not be read."""

    title: str
    config: str
    cache: str
    references: tuple[str, ...]
    n_segments: int  # selected segments
    scores: SystemScores
    significance: dict[str, Significance]
    correlations: Correlations | None
    assessments: str | None
    qarla: Qarla | None
    drill_metric: str | None
    drill: dict[str, list[DrillSegment]]
    signatures: dict[str, list[str]]
    options: dict[str, str]
    missing: list[str] = field(default_factory=list)  # the first unreadable files (bounded)
    missing_total: int = 0
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # texts the metrics would read wrongly (iqsetup's warnings)
    agreements: list[Agreement] = field(default_factory=list)  # metric vs human ranks of the judged systems
    analyses: Analyses = field(default_factory=Analyses)  # two systems (compare-mt), linguistic recalls

    @property
    def partial(self) -> bool:
        """Whether some file could not be read."""
        return self.missing_total > 0
