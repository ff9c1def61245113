"""Progress bars (issue 11 item 4): shown on a terminal or when forced, never in pipes, never with -q."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import RUEN

from mteval import progress


def small_syntactic_config(tmp: Path, lines: int = 4) -> Path:
    """Two systems and one reference of the ru-en sample, first ``lines`` lines, one SP metric."""
    texts = {}
    for kind, name in (("refs", "A"), ("sys", "AFRL"), ("sys", "Online-B")):
        path = tmp / f"{name}.en"
        path.write_text("\n".join((RUEN / kind / f"{name}.en").read_text(encoding="utf-8").splitlines()[:lines]) + "\n",
                        encoding="utf-8")
        texts[name] = str(path)
    config = {"name": "p", "cache": str(tmp / "cache"), "language": "en", "references": {"A": texts["A"]},
              "systems": {"AFRL": texts["AFRL"], "Online-B": texts["Online-B"]}, "metrics": ["SP-Op(*)"]}
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.mark.parametrize(("env", "quiet", "expected"), [("", False, None), ("0", False, True), ("1", False, False),
                                                         ("1", True, True)])
def test_disable_rule(monkeypatch: pytest.MonkeyPatch, env: str, quiet: bool, expected: bool | None) -> None:
    monkeypatch.setenv("MTEVAL_PROGRESS", env)
    progress.set_quiet(quiet)  # reset after the test (tests/conftest.py)
    assert progress._disable() is expected


def test_silent_bar_accepts_updates() -> None:
    progress.set_quiet(True)
    try:
        with progress.bar(10, "x") as shown:
            shown.update(3)
            shown.set_postfix_str("y")
    finally:
        progress.set_quiet(False)


def iqsetup(config: Path, progress_env: str, *options: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MTEVAL_PROGRESS": progress_env}
    return subprocess.run(["iqsetup", *options, str(config)], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.models
@pytest.mark.slow
def test_parsing_shows_a_bar_when_forced_and_none_in_a_pipe(tmp_path: Path) -> None:
    (tmp_path / "forced").mkdir()
    (tmp_path / "piped").mkdir()
    forced = iqsetup(small_syntactic_config(tmp_path / "forced"), "1")
    assert forced.returncode == 0, forced.stderr
    assert "parsing" in forced.stderr and "sent" in forced.stderr, forced.stderr
    piped = iqsetup(small_syntactic_config(tmp_path / "piped"), "")
    assert piped.returncode == 0, piped.stderr
    assert "sent/s" not in piped.stderr and "\r" not in piped.stderr, piped.stderr


@pytest.mark.models
@pytest.mark.slow  # ~4 s: in make test-all (the fast tier stays near 8 minutes)
def test_quiet_turns_a_forced_bar_off(tmp_path: Path) -> None:
    quiet = iqsetup(small_syntactic_config(tmp_path), "1", "-q")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "", quiet.stderr
