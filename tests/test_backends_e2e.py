"""A small campaign per language through the installed iqsetup/iqeval, with each language's default
annotation backend (skipped, with the reason, where it is not installed); a language without a
backend stops with one line and writes no score."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mteval.annotate import backends
from tests.helpers import ROOT, run

pytestmark = pytest.mark.models
DATA = ROOT / "tests" / "data" / "multilingual"
METRICS = ["DP-HWCM_w-4", "SP-Op(*)", "EDPM", "NE-Oe(**)"]


def _experiment(tmp: Path, language: str, data: str | None = None) -> Path:
    folder = DATA / (data or language)
    suffix = data or language
    config = {"name": f"ml-{language}", "cache": str(tmp / "cache"), "language": language,
              "references": {"A": str(folder / f"A.{suffix}")},
              "systems": {s: str(folder / f"{s}.{suffix}") for s in ("sys1", "sys2")}, "metrics": METRICS}
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def _scores(experiment: Path) -> dict[tuple[str, str], float]:
    result = run("iqeval", "-doOQ", "-G", "sys", "--tsv", str(experiment))
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    return {(r[0], r[2]): float(r[6]) for r in rows}


SLOW = pytest.mark.slow  # fr ~7 s, es ~4 s, cs ~5 s: in make test-all (the fast tier keeps ru, under 8 minutes)


@pytest.mark.parametrize("language", ["ru", *(pytest.param(language, marks=SLOW) for language in ("fr", "es", "cs"))])
def test_campaign_per_language(tmp_path: Path, language: str) -> None:
    entry = backends.LANGUAGES[language]
    if not backends.installed(entry):
        pytest.skip(f"{entry.backend} model for {language} not installed ({entry.install})")
    experiment = _experiment(tmp_path, language)
    setup = run("iqsetup", "-q", str(experiment))
    assert setup.returncode == 0, setup.stderr
    scores = _scores(experiment)
    for metric in ("DP-HWCM_w-4", "SP-Op(*)"):
        assert scores[("sys1", metric)] > scores[("sys2", metric)], (metric, scores)
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    signature = (tmp_path / "cache" / "sys1" / "A" / "DP-HWCM_w-4.xml").read_text(encoding="utf-8")
    assert f"|annotation:{entry.backend}" in signature and f"|lang:{language}|" in signature
    assert list((tmp_path / "cache" / ".annotation" / "annotation").glob("*.conllu"))
    _warm_run_imports_no_parser(tmp_path / "cache" / ".annotation", language)


def _warm_run_imports_no_parser(cache: Path, language: str) -> None:
    """A fresh process reading the campaign's annotation parses nothing and imports no parser."""
    folder = DATA / language
    code = ("import sys; from pathlib import Path; from mteval.annotate.annotator import Annotator; "
            f"a = Annotator(Path({str(cache)!r}), language={language!r}); "
            f"a.annotate(Path({str(folder / f'A.{language}')!r}).read_text(encoding='utf-8').splitlines()); "
            "print(a.parsed, *(m in sys.modules for m in ('spacy', 'natasha', 'slovnet', 'torch')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "False", "False", "False", "False"]


def test_language_without_backend_stops_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    experiment = _experiment(tmp_path, "de", data="fr")
    result = run("iqsetup", "-q", str(experiment))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no annotation backend for language 'de'" in result.stderr
    assert not list((tmp_path / "cache").rglob("*.xml")) and not (tmp_path / "cache" / ".annotation").exists()
