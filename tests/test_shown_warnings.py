"""Where the scores are shown (iqeval, the report, ``Campaign.warnings``), the warnings iqsetup gave
about the texts are given again (``mteval.setup.text_warnings``): a cached campaign shown later, in
a Makefile whose iqsetup log nobody read, is not shown silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import mteval
from mteval.evaluate.selection import warnings_of
from tests.helpers import ENDE, ende_config, run, setup_with_system

UEDIN = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8").splitlines()
ESCAPED = [line.replace("'", "&#39;").replace('"', "&quot;") + " &quot;" for line in UEDIN]  # as WMT12's online-B


@pytest.fixture(scope="module")
def escaped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """iqsetup of UEdin beside ``T``, UEdin with HTML escapes: (T's file, the experiment, the warning)."""
    system, config, done = setup_with_system(tmp_path_factory.mktemp("escaped"), ESCAPED, "BLEU")
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()
    assert len(first) == 1 and first[0].startswith(f"iqsetup: warning: system T ({system}): 100 of its 100 lines "
                                                   "hold HTML/XML escapes")
    return system, config, first[0].removeprefix("iqsetup: warning: ")


def test_iqeval_says_it_again(escaped: tuple[Path, Path, str]) -> None:
    """The installed command: iqsetup with nothing to compute says nothing, iqeval the same line as
    iqsetup did, for the systems it shows only."""
    _, config, warning = escaped
    assert run("iqsetup", "-q", str(config)).stderr == ""
    shown = run("iqeval", "-doOQ", "-G", "sys", str(config))
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == f"iqeval: warning: {warning}\n"
    assert "T " in shown.stdout and "UEdin" in shown.stdout  # the scores are shown as asked
    alone = run("iqeval", "-doOQ", "-G", "seg", "-S", "UEdin", str(config))
    assert alone.returncode == 0 and alone.stderr == ""


def test_report_shows_it(escaped: tuple[Path, Path, str], tmp_path: Path) -> None:
    """The page says it above the numbers, escaped; the JSON export carries it; the command logs it."""
    _, config, warning = escaped
    page, data = tmp_path / "report.html", tmp_path / "report.json"
    done = run("mteval", "report", str(config), "-o", str(page), "--json", str(data), "--resamples", "50",
               "--trials", "50", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"mteval: warning: {warning}"
    html = page.read_text(encoding="utf-8")
    assert html.index('id="warnings"') < html.index('id="systems-table"')
    assert "hold HTML/XML escapes (&amp;quot;, &amp;#39;)" in html  # the escapes named, escaped themselves
    assert json.loads(data.read_text(encoding="utf-8"))["warnings"] == [warning]


def test_campaign_warnings(escaped: tuple[Path, Path, str]) -> None:
    """The Python API: the same lines on request, for a selection."""
    _, config, warning = escaped
    campaign = mteval.load(config)
    assert campaign.warnings() == [warning]
    assert campaign.warnings(systems="UEdin") == []


def test_family_warnings_for_the_metrics_shown(tmp_path: Path) -> None:
    """The families' warnings follow the metrics shown (-M): METEOR's English resources in German (its
    synonym stage), none for METEOR-ex (Meteor 1.4's -l de number)."""
    campaign = mteval.load(ende_config(tmp_path, language="de", metrics=["BLEU", "METEOR"], sets={}))
    sel = campaign.selection("sys", metrics="METEOR-sy")
    found = warnings_of(campaign.experiment, campaign.texts, sel)
    assert len(found) == 1 and found[0].startswith("METEOR: for language de, METEOR-sy is not Meteor 1.4's score ")
    assert warnings_of(campaign.experiment, campaign.texts, campaign.selection("sys", metrics="METEOR-ex")) == []
    assert warnings_of(campaign.experiment, campaign.texts, campaign.selection("sys", metrics="BLEU")) == []


def test_shifted_reference_only_when_shown(tmp_path: Path) -> None:
    """A reference shifted against the others is named where it is shown, not under -R without it."""
    ref_a = (ENDE / "refs" / "A.de").read_text(encoding="utf-8").splitlines()
    shifted = tmp_path / "B.de"
    shifted.write_text("\n".join(["Ein Satz, der nicht hierher gehört."] + ref_a[:-1]) + "\n", encoding="utf-8")
    config = ende_config(tmp_path, references={"A": str(ENDE / "refs" / "A.de"), "B": str(shifted)}, sets={})
    campaign = mteval.load(config)
    both = campaign.warnings()
    assert len(both) == 1 and both[0].startswith(f"reference B ({shifted}): lines 2-")
    assert campaign.warnings(references="A") == []


def test_warnings_are_remembered_under_what_they_read(escaped: tuple[Path, Path, str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The second time, the user cache answers (no check runs); another text, file name, setting or
    selection is another key, computed afresh."""
    from mteval.setup import text_warnings

    monkeypatch.setenv("MTEVAL_CACHE_DIR", str(tmp_path / "user-cache"))
    _, config, warning = escaped
    campaign = mteval.load(config)
    assert campaign.warnings() == [warning]
    calls = []
    real = text_warnings.text_warnings
    monkeypatch.setattr(text_warnings, "text_warnings", lambda *args: calls.append(args) or real(*args))
    assert campaign.warnings() == [warning] and calls == []  # remembered
    assert campaign.warnings(systems="UEdin") == [] and len(calls) == 1  # another selection
    unescaped = tmp_path / "T.de"
    unescaped.write_text("\n".join(UEDIN) + "\n", encoding="utf-8")
    moved = yaml.safe_load(config.read_text(encoding="utf-8"))
    moved["systems"]["T"] = str(unescaped)
    (tmp_path / "moved.yaml").write_text(yaml.safe_dump(moved), encoding="utf-8")
    assert mteval.load(tmp_path / "moved.yaml").warnings() == [] and len(calls) == 2  # another text
    moved["systems"]["T"] = str(config.parent / "T.de")
    moved["case"] = "ci"
    (tmp_path / "moved.yaml").write_text(yaml.safe_dump(moved), encoding="utf-8")
    assert mteval.load(tmp_path / "moved.yaml").warnings() == [warning] and len(calls) == 3  # another setting
