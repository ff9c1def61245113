"""Test helpers: write experiment configs in a temporary folder, run the installed commands."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ENDE = ROOT / "data" / "wmt21-ende-sample"
RUEN = ROOT / "data" / "wmt21-ruen-sample"


def ende_config(tmp: Path, **overrides: Any) -> Path:
    """The bundled en-de sample as a YAML experiment in ``tmp`` (cache inside ``tmp``)."""
    config: dict[str, Any] = {
        "name": "test", "cache": str(tmp / "cache"), "source": str(ENDE / "src.en"),
        "references": {r: str(ENDE / "refs" / f"{r}.de") for r in ("A", "C", "D")},
        "systems": {s: str(ENDE / "sys" / f"{s}.de") for s in ("Facebook-AI", "UEdin", "Online-W")},
        "metrics": ["BLEU", "NIST", "BLEU-2"],
        "sets": {"two": ["Facebook-AI", "UEdin"], "m": ["BLEU", "NIST"], "segs": "1-3, 10", "refs2": ["A", "C"]},
    }
    config.update(overrides)
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run an installed command; never raises on a non-zero exit."""
    return subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, timeout=600)
