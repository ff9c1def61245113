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


@pytest.mark.models
def test_embedded_models_when_nothing_else(no_official: Path) -> None:
    choice = resolve_models("en", PROCS)
    assert choice.source == "embedded" and choice.directory == EMBEDDED["en"]
    ident = model_identity(choice)
    assert ident.startswith("stanza") and ":embedded|lang:en|proc:tokenize,mwt,pos,lemma,depparse|" in ident
    assert all(f"{p}=" in ident for p in PROCS)


@pytest.mark.models
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


@pytest.mark.models
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


@pytest.mark.models
def test_ner_is_on_by_default_and_done_by_the_embedded_tagger(no_official: Path) -> None:
    from mteval.annotate.stanza_adapter import (
        DEFAULT_PROCESSORS,
        available_processors,
        stanza_processors,
        uses_entity_tagger,
    )

    procs = available_processors("en")
    assert procs == tuple(DEFAULT_PROCESSORS.split(",")) and "ner" in procs
    choice = resolve_models("en", procs)
    assert choice.paths["ner"].endswith("en_ewt/ner.npz") and uses_entity_tagger(choice)
    assert stanza_processors(choice) == PROCS  # Stanza itself never sees the npz
    assert "ner=" in model_identity(choice)


def test_a_stanza_ner_model_path_goes_to_stanza(no_official: Path) -> None:
    from mteval.annotate.stanza_adapter import available_processors, stanza_processors, uses_entity_tagger

    stanza_ner = no_official / "ontonotes_ner.pt"
    stanza_ner.write_bytes(b"weights")
    choice = resolve_models("en", available_processors("en"), {"ner": str(stanza_ner)})
    assert not uses_entity_tagger(choice) and stanza_processors(choice)[-1] == "ner"


def test_ner_is_dropped_with_a_warning_where_no_model_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    from mteval.annotate.stanza_adapter import available_processors

    (tmp_path / "de" / "pos").mkdir(parents=True)  # official German models without NER
    (tmp_path / "resources.json").write_text("{}")
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path))
    assert "ner" not in available_processors("de")
    assert "no NER model for 'de'" in caplog.text
