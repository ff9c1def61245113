"""End to end: the installed iqsetup/iqeval with jiwer's and rouge-score's metrics (parametric names too).

The bundled ru-en sample with its documents: every score file is written under the name as spelled,
and iqeval's system, document and segment-subset scores are the families' (jiwer's pooled counts,
rouge-score's segment means); the jiwer numbers are checked against the committed jiwer values
(``tests/data/jiwer/expected.tsv``), which need no jiwer installed.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from helpers import RUEN, run

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side

METRICS = ["MER", "WIL", "WIP", "CER", "WER(tok=jiwer,empty=jiwer)", "rouge1", "rougeL(stem=yes)", "ROUGE-Lsum"]
EXPECTED = Path(__file__).resolve().parent / "data" / "jiwer" / "expected.tsv"


def lines(name: str) -> list[str]:
    return (RUEN / name).read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("peers")
    config = {"name": "peers", "cache": str(tmp / "cache"), "language": "en",
              "docids": {"path": str(RUEN / "docids.tsv"), "column": "docid"},
              "references": {r: str(RUEN / "refs" / f"{r}.en") for r in ("A", "B")},
              "systems": {s: str(RUEN / "sys" / f"{s}.en") for s in ("AFRL", "Online-Y")},
              "metrics": METRICS}
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    done = run("iqsetup", "-q", str(path))
    assert done.returncode == 0, done.stderr
    return path


def records(experiment: Path, *options: str) -> list[dict[str, str]]:
    done = run("iqeval", "-doOQ", "--tsv", *options, str(experiment))
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))


def ours(metric: str, system: str, refs: tuple[str, ...], rows: slice = slice(None)) -> tuple[float, dict[str, float]]:
    """The family's system and document scores of a system's lines ``rows``, computed in process."""
    variant = registry.canonical(metric)
    family = registry.create(registry.family_of(metric))
    docids = [line.split("\t")[1] for line in lines("docids.tsv")[1:]][rows]
    prepared = family.prepare([Side(r, lines(f"refs/{r}.en")[rows]) for r in refs])
    hypothesis = Side(system, lines(f"sys/{system}.en")[rows])
    found = family.score(hypothesis, prepared, DocumentIndex(tuple(docids)), [variant])
    return found[variant].system, dict(found[variant].documents)


def test_files_are_written_under_the_names_as_spelled(experiment: Path) -> None:
    cache = experiment.parent / "cache"
    for metric in METRICS:
        for refset in ("A", "B", "A_B"):
            assert (cache / "AFRL" / refset / f"{metric}.xml").is_file(), (metric, refset)


def test_system_scores_are_jiwers_and_the_families(experiment: Path) -> None:
    found = {(r["target"], r["refset"], r["metric"]): float(r["score"])
             for refs in ("A", "B", "A,B") for r in records(experiment, "-G", "sys", "-R", refs)}
    with open(EXPECTED, encoding="utf-8") as f:
        rows = list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))
    pooled = next(r for r in rows if (r["system"], r["reference"], r["segment"]) == ("AFRL.en", "A.en", "-"))
    for name, metric in (("wer", "WER(tok=jiwer,empty=jiwer)"), ("mer", "MER"), ("wil", "WIL"), ("wip", "WIP"),
                         ("cer", "CER")):
        assert found[("AFRL", "A", metric)] == pytest.approx(float(pooled[name]), abs=1e-12), metric
    for metric in METRICS:
        for refset, refs in (("B", ("B",)), ("A_B", ("A", "B"))):
            assert found[("Online-Y", refset, metric)] == pytest.approx(ours(metric, "Online-Y", refs)[0], abs=1e-12)
    assert found[("AFRL", "A_B", "MER")] == min(found[("AFRL", "A", "MER")], found[("AFRL", "B", "MER")])


def test_document_and_subset_scores_follow_the_families_rules(experiment: Path) -> None:
    docs = records(experiment, "-G", "doc", "-S", "AFRL", "-R", "A")
    for metric in ("MER", "CER", "ROUGE-Lsum"):
        expected = ours(metric, "AFRL", ("A",))[1]
        found = {r["doc"]: float(r["score"]) for r in docs if r["metric"] == metric}
        assert found == pytest.approx(expected, abs=1e-12), metric
    subset = records(experiment, "-G", "sys", "-T", "1-12", "-S", "AFRL", "-R", "A")
    for metric in ("WIP", "rouge1"):
        score = next(float(r["score"]) for r in subset if r["metric"] == metric)
        assert score == pytest.approx(ours(metric, "AFRL", ("A",), slice(0, 12))[0], abs=1e-12), metric
