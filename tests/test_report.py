"""mteval report: the HTML campaign report (content, a real headless browser, partial caches,
bad input). Through ``python -m mteval.cli.report`` (``mteval report`` once registered)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import ENDE, ende_config, run

from mteval.report.drilldown import match

REPORT = ("mteval", "report")
MQM = ENDE / "human" / "mqm.tsv"
HOSTILE = "<script>alert('x')</script> & <b>bold</b>"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample (3 references, 4 systems) scored by iqsetup; one system's first segments
    replaced by markup, so the drill-down has to show (escaped) user text."""
    tmp = tmp_path_factory.mktemp("campaign")
    lines = (ENDE / "sys" / "UEdin.de").read_text(encoding="utf-8").split("\n")
    lines[:5] = [HOSTILE] * 5
    (tmp / "Hostile.de").write_text("\n".join(lines), encoding="utf-8")
    config = ende_config(tmp, name="Camp <&> 1", metrics=["BLEU", "chrF", "-TER"])
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["systems"]["Hostile"] = str(tmp / "Hostile.de")
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    rows = MQM.read_text(encoding="utf-8").splitlines()
    kept = [rows[0], *(r for r in rows[1:] if r.split("\t")[0] in data["systems"])]
    (tmp / "human.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")  # the judged systems only
    done = run("iqsetup", str(config))
    assert done.returncode == 0, done.stderr
    return config


def report(config: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run the report command."""
    return run(*REPORT, str(config), "-o", str(out), "--resamples", "200", *extra)


@pytest.fixture(scope="module")
def page(campaign: Path) -> Path:
    """The report with human judgements."""
    out = campaign.parent / "report.html"
    done = report(campaign, out, "-assessments", str(campaign.parent / "human.tsv"))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    return out


def test_sections_and_plots(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    for anchor in ("systems-table", "corr-bars", "corr-table", "scatter", "heatmap", "queen", "king",
                   "king-trace", "optimal-set", "drilldown", "signature-table", "settings"):
        assert f'id="{anchor}"' in html, anchor
    # one interval plot per metric, bars, scatter, heatmap, KING trace
    assert html.count("<svg") == 3 + 4 + 2  # + the pair analyses: word accuracy and length buckets
    assert 'id="partial"' not in html
    table = html[html.index('id="systems-table"'):html.index("</table>", html.index('id="systems-table"'))]
    assert table.count("<tr>") == 1 + 4 and table.count('class="cl"') == 4 * 3  # every cell has a cluster
    assert "Optimal set (greedy)</strong>: {" in html
    assert "metric:BLEU-4|family:mteval-v13a" in html  # the score files' signatures at the foot


def test_self_contained_and_escaped(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", html, re.I)
    assert "<script" not in html.lower() and "<b>bold" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html and "&amp;" in html
    assert "<title>mteval report: Camp &lt;&amp;&gt; 1</title>" in html
    hostile = html[html.index("<summary>Hostile</summary>"):]
    assert "&lt;b&gt;bold&lt;/b&gt;" in hostile.split("</details>")[0]  # its worst segments are the markup


def test_drilldown_marks_matches() -> None:
    hyp, ref, hits = match("the cat sat on the the mat", "The cat is on the mat")
    assert hits == 5
    assert [h for _, h in hyp] == [True, True, False, True, True, False, True]  # clipped: two "the" in the ref
    assert [w for w, h in ref if not h] == ["is"]


def _chromium() -> str:
    """Chromium on PATH; the browser tests skip without it (``.ci/run`` installs it; no test installs
    system packages)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not found: install Debian's chromium (apt-get install chromium) or run .ci/run")
    return found


def browse(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on a local file, console messages logged to stderr."""
    args = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
            *flags, path.resolve().as_uri()]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def console(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The page's console messages (Chromium logs them as ``...:CONSOLE...``)."""
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.browser
def test_console_check_sees_errors(tmp_path: Path) -> None:
    """The console check itself: a page with a script error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction();</script></body></html>", encoding="utf-8")
    assert any("Uncaught" in line for line in console(browse(bad, "--dump-dom")))


@pytest.mark.browser
def test_in_browser(page: Path, tmp_path: Path) -> None:
    dom = browse(page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console(dom) == []
    rendered = dom.stdout
    assert rendered.count("<svg") == 9 and rendered.count("<table") >= 6
    assert 'id="heatmap"' in rendered and 'id="king-trace"' in rendered
    shot = tmp_path / "shot.png"
    done = browse(page, f"--screenshot={shot}", "--window-size=1400,3000")
    assert done.returncode == 0 and console(done) == []
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[:2] == (3000, 1400)
    flat = pixels.reshape(-1, pixels.shape[-1])
    assert len(np.unique(flat[::97], axis=0)) > 50  # text, tables and plots, not a blank page
    assert (flat[:, :3].min(axis=1) < 0.3).mean() > 0.005  # some dark ink


def test_partial_cache(campaign: Path, tmp_path: Path) -> None:
    config = tmp_path / "experiment.yaml"
    shutil.copytree(campaign.parent / "cache", tmp_path / "cache")
    data = yaml.safe_load(campaign.read_text(encoding="utf-8"))
    data["cache"] = str(tmp_path / "cache")
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (tmp_path / "cache" / "UEdin" / "A_C_D" / "chrF.xml").unlink()
    (tmp_path / "cache" / "Online-W" / "A" / "BLEU.xml").unlink()
    out = tmp_path / "partial.html"
    done = report(config, out)
    assert done.returncode == 0, done.stderr
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and "partial report: 2 score file(s)" in warning[0]
    html = out.read_text(encoding="utf-8")
    banner = html[html.index('id="partial"'):html.index("</div>", html.index('id="partial"'))]
    assert "UEdin/A_C_D/chrF.xml: missing" in banner and "Online-W/A/BLEU.xml: missing" in banner
    assert 'title="score file missing">-</td>' in html  # UEdin's chrF cell
    assert 'id="systems-table"' in html and 'id="queen"' in html  # the rest is still there
    king = html[html.index('id="king"'):html.index("</table>", html.index('id="king"'))]
    assert "chrF" in king and "BLEU" not in king  # BLEU lacks a single-reference file


def test_no_cache(tmp_path: Path) -> None:
    config = ende_config(tmp_path)
    done = report(config, tmp_path / "r.html")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no score files: run iqsetup" in done.stderr
    assert str(tmp_path / "cache") in done.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("extra, expected", [
    (("--drill-metric", "METEOR"), "--drill-metric 'METEOR' is not among the report's metrics"),
    (("--resamples", "0"), "--resamples must be a positive integer"),
    (("-S", "NoSuchSystem"), "NoSuchSystem"),
])
def test_bad_options(campaign: Path, tmp_path: Path, extra: tuple[str, ...], expected: str) -> None:
    done = report(campaign, tmp_path / "r.html", *extra)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and expected in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_bad_assessments(campaign: Path, tmp_path: Path) -> None:
    bad = tmp_path / "human.tsv"
    bad.write_text("system\tsegment\tscore\nUEdin\t1\tgood\n", encoding="utf-8")
    done = report(campaign, tmp_path / "r.html", "-assessments", str(bad))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert str(bad) in done.stderr and ":2" in done.stderr


def test_dependency_chains_unit() -> None:
    from mteval.annotate.model import Sentence, Word
    from mteval.report.syntax import unmatched

    def sentence(det: str) -> Sentence:
        return Sentence((Word(1, det, head=2, deprel="det"), Word(2, "cat", head=3, deprel="nsubj"),
                         Word(3, "sat", head=0, deprel="root")))

    assert unmatched(sentence("the"), sentence("a")) == (["cat > the", "sat > cat > the"], ["cat > a", "sat > cat > a"])
    assert unmatched(sentence("the"), sentence("the")) == ([], [])


@pytest.mark.models
@pytest.mark.slow
def test_dependency_chains_from_cached_parses(tmp_path: Path) -> None:
    """With a DP metric the drill-down lists unmatched head-word chains from the annotation cache;
    without the parses it says so and still writes the report."""
    from helpers import RUEN

    paths = {}
    for name in ("refs/A", "refs/B", "sys/AFRL", "sys/Online-W", "sys/Online-Y"):
        paths[name] = tmp_path / f"{name.replace('/', '-')}.en"
        lines = (RUEN / f"{name}.en").read_text(encoding="utf-8").split("\n")[:6]
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = tmp_path / "dp.yaml"
    config.write_text(yaml.safe_dump({
        "name": "dp", "cache": str(tmp_path / "cache"), "language": "en",
        "references": {r: str(paths[f"refs/{r}"]) for r in ("A", "B")},
        "systems": {s: str(paths[f"sys/{s}"]) for s in ("AFRL", "Online-W", "Online-Y")},
        "metrics": ["BLEU", "DP-HWCM_w-2"]}), encoding="utf-8")
    assert run("iqsetup", str(config)).returncode == 0
    done = report(config, tmp_path / "dp.html")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "dp.html").read_text(encoding="utf-8")
    assert html.count("head-word chains not in the reference: ") == 3 * 5
    assert "&gt;" in html.split("head-word chains not in the reference: ")[1].split("</div>")[0]
    shutil.rmtree(tmp_path / "cache" / ".annotation")
    done = report(config, tmp_path / "dp2.html")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "dp2.html").read_text(encoding="utf-8")
    assert "head-word chains not in the reference" not in html
    assert html.count("parse not in the annotation cache") == 3 * 5


def test_subset_scores_as_iqeval(campaign: Path, tmp_path: Path) -> None:
    """With -T the table's system scores are iqeval -doOQ's (BLEU from summed statistics)."""
    out = tmp_path / "subset.html"
    done = report(campaign, out, "-T", "1-20", "-M", "BLEU,chrF")
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "20 segments" in html
    tsv = run("iqeval", "-doOQ", "-G", "sys", "-T", "1-20", "-M", "BLEU,chrF", "--tsv", str(campaign))
    rows = [line.split("\t") for line in tsv.stdout.splitlines()]
    head = rows[0]
    cells = re.findall(r'<tr><th>([^<]+)</th><td class="num">([-0-9.]+) ', html)
    shown = {system: float(value) for system, value in cells}  # the first metric's column: BLEU
    expected = {r[head.index("target")]: float(r[head.index("score")]) for r in rows[1:]
                if r[head.index("metric")] == "BLEU"}
    assert set(shown) == set(expected) == {"Facebook-AI", "UEdin", "Online-W", "Hostile"}
    for system, value in expected.items():
        assert shown[system] == pytest.approx(value, abs=5e-5)


@pytest.mark.parametrize("correction", ["holm", "none"])
def test_clusters_are_those_of_iqeval_compare(campaign: Path, correction: str) -> None:
    """The report's significance clusters and ``iqeval -compare --test bs``'s, same resamples,
    seed and correction (Holm by default in both), are the same groups of systems."""
    import json

    from mteval.report.build import Options, build

    built = build(campaign, Options(metrics="BLEU", resamples=200, correction=correction, test="bs"))
    compared = run("iqeval", "-compare", "--test", "bs", "--resamples", "200", "--correction", correction,
                   "-M", "BLEU", "--json", str(campaign))
    assert compared.returncode == 0, compared.stderr
    clusters: dict[int, list[str]] = {}
    for record in json.loads(compared.stdout):
        if record["kind"] == "system" and record["target"] not in clusters.get(record["cluster"], []):
            clusters.setdefault(record["cluster"], []).append(record["target"])
    expected = [sorted(clusters[k]) for k in sorted(clusters)]
    assert [sorted(group) for group in built.significance["BLEU"].clusters] == expected
    assert f"{correction} correction" in built.options["clusters"] or correction == "none"
