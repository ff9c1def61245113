"""Model resolution order and identity (no model is loaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mteval.annotate.stanza_adapter import EMBEDDED, model_identity, resolve_models
from mteval.errors import ConfigError

PROCS = ("tokenize", "mwt", "pos", "lemma", "depparse")


@pytest.fixture()
def no_official(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    return tmp_path


def test_embedded_models_when_nothing_else(no_official: Path) -> None:
    choice = resolve_models("en", PROCS)
    assert choice.source == "embedded" and choice.directory == EMBEDDED["en"]
    ident = model_identity(choice)
    assert ident.startswith("stanza") and ":embedded|lang:en|proc:tokenize,mwt,pos,lemma,depparse|" in ident
    assert all(f"{p}=" in ident for p in PROCS)


def test_official_models_win_over_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "en" / "pos").mkdir(parents=True)
    (tmp_path / "en" / "pos" / "combined.pt").write_bytes(b"x")
    (tmp_path / "resources.json").write_text("{}")
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path))
    choice = resolve_models("en", PROCS)
    assert choice.source == "stanza" and choice.directory == tmp_path
    before = model_identity(choice)
    assert "resources=" in before and ":stanza|" in before
    (tmp_path / "en" / "pos" / "combined.pt").write_bytes(b"xy")
    assert model_identity(choice) != before


def test_explicit_paths_override_and_are_checked(no_official: Path) -> None:
    parser = no_official / "my_parser.pt"
    parser.write_bytes(b"weights")
    choice = resolve_models("en", PROCS, {"depparse": str(parser)})
    assert choice.source == "config" and choice.paths["depparse"] == str(parser)
    assert choice.paths["pos"].endswith("en_ewt/pos.pt")
    assert model_identity(choice) != model_identity(resolve_models("en", PROCS))
    with pytest.raises(ConfigError, match="not found"):
        resolve_models("en", PROCS, {"depparse": str(no_official / "missing.pt")})
    with pytest.raises(ConfigError, match="not one of the processors"):
        resolve_models("en", PROCS, {"sentiment": str(parser)})


def test_unknown_language_without_models_is_a_config_error(no_official: Path) -> None:
    with pytest.raises(ConfigError, match="mteval models download xx"):
        resolve_models("xx", PROCS)
