"""A lexical-only install (no Stanza: docs/install.md): a linguistic metric is one clear line, the
lexical ones work without importing Stanza or PyTorch (tests/test_lazy_imports.py)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT

from mteval.annotate import stanza_adapter
from mteval.errors import ConfigError
from mteval.metrics import registry
from mteval.setup.expected import Expected


def test_a_linguistic_metric_without_stanza_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "stanza" else real(name, *a))
    with pytest.raises(ConfigError, match=r"pip install 'mteval\[syntax\]'"):
        stanza_adapter.require_stanza()
    expected = Expected.__new__(Expected)  # only what signature() uses
    expected._identity, expected._identity_of = None, lambda: stanza_adapter.require_stanza() or ""
    family = registry.create(registry.family_of("DP-HWCM_w-4"))
    with pytest.raises(ConfigError, match=r"^metric 'DP-HWCM_w-4': the linguistic metrics parse with Stanza"):
        expected.signature(family, "DP-HWCM_w-4")


def test_stanza_is_an_extra_not_a_requirement() -> None:
    text = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    requires = text.split("install_requires =")[1].split("\n\n")[0]
    assert "stanza" not in requires and "torch" not in requires
    assert "syntax =\n    stanza" in text


def test_install_script_says_how_to_get_venv(tmp_path: Path) -> None:
    """An interpreter that cannot run: one line, exit 2, nothing created."""
    result = subprocess.run(["bash", str(ROOT / "tools" / "install.sh"), "no-such-python", str(tmp_path / "v"), "test"],
                            capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 2 and "give another interpreter with PYTHON=" in result.stderr
    assert not (tmp_path / "v").exists()
