"""End to end with the embedded Stanza models: parse, CESM, project, hybridize."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side

pytestmark = pytest.mark.models

REFS = (["Machine translation develops constantly.", "The cat sat on the mat."],
        ["MT progresses persistently.", "A cat was sitting on the mat."])
HYP = ["Machine translation progresses constantly.", "The cat sat on a mat."]


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    annotator = pytest.importorskip("mteval.annotate.annotator")
    ann = annotator.Annotator(Path(tmp_path_factory.mktemp("annotation")))
    return {"A": ann.annotate(REFS[0]), "B": ann.annotate(REFS[1]), "hyp": ann.annotate(HYP)}


def test_cesm_on_stanza_parses(parsed: dict[str, list]) -> None:
    from mteval.metrics.cesm import CesmFamily

    family = CesmFamily()
    refs = [Side(k, t, parsed[k]) for k, t in zip("AB", REFS, strict=True)]
    prepared = family.prepare(refs)
    scores = family.score(Side("hyp", HYP, parsed["hyp"]), prepared, DocumentIndex.single(2), family.variants)
    for v, s in scores.items():
        assert ((s.segments >= 0) & (s.segments <= (1 if v in ("CESM", "CESM-anyroot") else 10))).all(), v
    same = family.score(refs[0], prepared, DocumentIndex.single(2), ["CESM"])["CESM"]
    assert same.segments.tolist() == [1.0, 1.0] and same.system == 1.0
    assert 0 < scores["CESM-anyroot"].segments[0] < 1


def test_hybridize_on_projected_parses(parsed: dict[str, list], tmp_path: Path) -> None:
    from mteval.annotate.layers.phrase import project
    from mteval.hybridize import hybridize, write_extended_references
    from mteval.hybridize.stats import table5

    result = hybridize([parsed["A"], parsed["B"]], project, cap=50)
    first = result.segments[0]
    assert first.references[:2] == (REFS[0][0], REFS[1][0])
    assert len(set(first.references)) == len(first.references)
    assert first.pairs >= 1 and not first.truncated
    files = write_extended_references(result, tmp_path)
    assert all(len(p.read_text().splitlines()) == 2 for p in files)
    assert table5(result).references == 4
