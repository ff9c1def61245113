"""Progress bars on the resampling loops (issue 11 item 4): ``iqeval -compare`` (paired bootstrap and
randomisation, one bar per test advanced per chunk), ``mteval report`` (one bar over its sections)
and the correlation loops of ``mteval.meta``. A bar shows when forced (``MTEVAL_PROGRESS=1``), never
in a pipe, never with ``-q``; standard output and every number stay the same."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers import ende_config, run

from mteval.meta.stats import significance, wmt_stats

FAST = ("--resamples", "200", "--trials", "500")


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = ende_config(tmp_path_factory.mktemp("loops"), metrics=["BLEU", "chrF"])
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def command(progress_env: str, *args: str) -> subprocess.CompletedProcess[str]:
    """An installed command with ``MTEVAL_PROGRESS`` set ("" = the default: bars only on a terminal)."""
    env = {**os.environ, "MTEVAL_PROGRESS": progress_env}
    done = subprocess.run(list(args), capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def test_compare_shows_its_bars_and_the_same_stdout(experiment: Path) -> None:
    forced = command("1", "iqeval", "-compare", *FAST, str(experiment))
    assert "paired bootstrap BLEU, chrF" in forced.stderr and "/200 [" in forced.stderr, forced.stderr
    assert "resample" in forced.stderr and "paired randomisation" in forced.stderr and "trial" in forced.stderr
    off = command("0", "iqeval", "-compare", *FAST, str(experiment))
    piped = command("", "iqeval", "-compare", *FAST, str(experiment))
    assert forced.stdout == off.stdout == piped.stdout
    assert forced.stdout.strip()
    for quiet in (off, piped):
        assert "resample" not in quiet.stderr and "\r" not in quiet.stderr, quiet.stderr


def test_quiet_turns_a_forced_bar_off(experiment: Path) -> None:
    forced = command("1", "iqeval", "-compare", *FAST, "--tsv", str(experiment))
    quiet = command("1", "iqeval", "-compare", *FAST, "--tsv", "-q", str(experiment))
    assert "resample" in forced.stderr
    assert "resample" not in quiet.stderr and "\r" not in quiet.stderr, quiet.stderr
    assert quiet.stdout == forced.stdout


def test_report_shows_one_bar_over_its_sections(experiment: Path, tmp_path: Path) -> None:
    forced = command("1", "mteval", "report", str(experiment), "--resamples", "50", "-o", str(tmp_path / "a.html"))
    assert "report" in forced.stderr and "section" in forced.stderr, forced.stderr
    quiet = command("1", "mteval", "report", str(experiment), "--resamples", "50", "-q", "-o",
                    str(tmp_path / "b.html"))
    assert "section" not in quiet.stderr and "\r" not in quiet.stderr, quiet.stderr
    assert quiet.stderr.startswith("wrote ")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes().replace(b"b.html", b"a.html")


def _correlation_loops() -> list[object]:
    """Every barred loop of mteval.meta on small random data (each result, for comparison)."""
    rng = np.random.default_rng(3)
    human = rng.normal(size=(4, 30))
    metric = human + rng.normal(size=(4, 30))
    other = human + 2 * rng.normal(size=(4, 30))
    units = np.tile(np.arange(30), 4)
    h, m, o = human.ravel(), metric.ravel(), other.ravel()
    return [significance.bootstrap_ci("kendall", h, m, units, n=40),
            significance.paired_bootstrap("kendall", h, m, o, units, n=40),
            significance.perm_both("kendall", h, m, o, n=40),
            wmt_stats.spa_draws(human, np.stack([metric, other]), n=10).tolist(),
            wmt_stats.tie_calibration_ci(human, metric, average_by="sys", n=10),
            wmt_stats.tie_calibration_ci(human, metric, average_by="item", n=10)]


def test_correlation_loops_show_bars_and_give_the_same_numbers(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MTEVAL_PROGRESS", "1")
    shown = _correlation_loops()
    stderr = capsys.readouterr().err
    for label in ("bootstrap CI kendall", "paired bootstrap kendall", "PERM-BOTH kendall", "SPA bootstrap",
                  "tie calibration bootstrap"):
        assert label in stderr, label
    monkeypatch.setenv("MTEVAL_PROGRESS", "0")
    assert repr(_correlation_loops()) == repr(shown)
    assert capsys.readouterr().err == ""
