"""Per-label variants whose label the language's parser never produces (mteval/setup/label_inventory.py):
one warning line through the installed commands, the backends' label sets against their loaded models."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mteval.annotate import backends
from mteval.annotate.backends.common import Labels
from mteval.annotate.layers.labels import UPOS_TAGS
from mteval.setup import label_inventory
from mteval.setup.label_inventory import label_warnings, unproduced
from tests.helpers import ROOT, run

FRENCH_LIKE = Labels(xpos=frozenset(UPOS_TAGS),
                     relations=frozenset({"root", "obl:mod", "obl:arg", "aux:tense", "nsubj"}),
                     entities=frozenset({"PER", "LOC", "ORG", "MISC"}))


def test_unproduced_labels_by_kind() -> None:
    names = ["SP-Op(NN)", "SP-Op(*)", "SP-Opu(NOUN)", "CP-Op(VBZ)", "DP-Or(obl)", "DP-Or(nsubj)", "NE-Oe(PERSON)",
             "NE-Oe(PER)", "NE-Oe(O)", "NE-Oe(**)", "NE-Me(GPE)", "BLEU", "user-metric"]
    assert unproduced(names, FRENCH_LIKE) == {"xpos": ["SP-Op(NN)", "CP-Op(VBZ)"], "relations": ["DP-Or(obl)"],
                                              "entities": ["NE-Oe(PERSON)", "NE-Me(GPE)"]}


def test_one_line_names_them_and_what_the_parser_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(label_inventory, "backend_labels", lambda language, annotation=None: ("spacy x", FRENCH_LIKE))
    [line] = label_warnings(["DP-Or(obl)", "SP-Op(NN)", "NE-Oe(PERSON)", "SP-Opu(NOUN)"], "fr")
    assert line.startswith("SP-Op(NN), DP-Or(obl), NE-Oe(PERSON): 0 on every segment, since the fr parser (spacy x)")
    assert "its XPOS tags are its UPOS tags" in line and "its entity types: LOC, MISC, ORG, PER" in line
    assert "its relations of those kinds: obl:arg, obl:mod;" in line and "name the parser's own labels instead" in line
    many = label_warnings([f"SP-Op({t})" for t in ("NN", "NNS", "VB", "VBD", "VBZ", "JJ", "RB", "IN")], "fr")
    assert many[0].startswith("SP-Op(NN), SP-Op(NNS), SP-Op(VB), SP-Op(VBD), SP-Op(VBZ), SP-Op(JJ) and 2 more: ")
    assert label_warnings(["SP-Opu(NOUN)", "NE-Oe(PER)", "DP-Or(nsubj)"], "fr") == []


def test_english_embedded_models_are_checked() -> None:
    """English (the embedded models): EWT's tags and relations, the entity tagger's PER/LOC/ORG; Stanza's own
    models or model_paths: not checked."""
    assert label_warnings(["SP-Op(NN)", "NE-Oe(PER)", "DP-Or(obl)"], "en") == []
    [line] = label_warnings(["NE-Oe(PER)", "NE-Oe(PERSON)", "NE-Me(GPE)"], "en")
    assert line.startswith("NE-Oe(PERSON), NE-Me(GPE): 0 on every segment, since the en parser (stanza, embedded "
                           "models) never produces their label (its entity types: LOC, ORG, PER;")
    assert label_warnings(["NE-Oe(PERSON)"], "en", {"model_paths": {"ner": str(ROOT / "setup.cfg")}}) == []


def _installed(language: str) -> None:
    entry = backends.LANGUAGES[language]
    if not backends.installed(entry):
        pytest.skip(f"{entry.backend} model for {language} not installed ({entry.install})")


@pytest.mark.models
def test_natasha_table_is_its_models() -> None:
    _installed("ru")
    from mteval.annotate.backends.natasha_backend import ENTITIES, RELATIONS, NatashaParser

    parser = NatashaParser()
    assert RELATIONS == set(parser.labels) - {"<pad>"}
    assert ENTITIES == {tag.split("-", 1)[1] for tag in parser.ner.infer.decoder.tags_vocab.items if "-" in tag}


@pytest.mark.models
@pytest.mark.slow  # loads the spaCy pipeline (~3 s)
def test_spacy_labels_are_its_pipeline() -> None:
    _installed("fr")
    backend = backends.select("fr")
    assert backend is not None
    labels, nlp = backend.labels(), backend.load().nlp
    assert labels.relations == {"root" if x == "ROOT" else x for x in nlp.get_pipe("parser").labels} | {"root"}
    assert labels.entities == set(nlp.get_pipe("ner").labels) and labels.xpos == set(UPOS_TAGS)


@pytest.mark.models
def test_iqsetup_and_iqeval_say_it_once(tmp_path: Path) -> None:
    """Russian (natasha): SP-Op(NN) and NE-Oe(PERSON) are 0 for every system, and both commands say why."""
    _installed("ru")
    folder = ROOT / "tests" / "data" / "multilingual" / "ru"
    config = {"name": "labels-ru", "cache": str(tmp_path / "cache"), "language": "ru",
              "references": {"A": str(folder / "A.ru")},
              "systems": {s: str(folder / f"{s}.ru") for s in ("sys1", "sys2")},
              "metrics": ["SP-Op(NN)", "NE-Oe(PERSON)", "NE-Oe(PER)", "SP-Opu(NOUN)"]}
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    setup = run("iqsetup", str(experiment))
    assert setup.returncode == 0, setup.stderr
    for result in (setup, shown := run("iqeval", "-doOQ", "-G", "sys", "--tsv", str(experiment))):
        lines = [ln for ln in result.stderr.splitlines() if "0 on every segment" in ln]
        assert len(lines) == 1
        assert "SP-Op(NN), NE-Oe(PERSON): 0 on every segment, since the ru parser (natasha" in lines[0]
        assert "its entity types: LOC, ORG, PER" in lines[0]
    rows = [line.split("\t") for line in shown.stdout.splitlines()[1:]]
    scores = {(r[0], r[2]): float(r[6]) for r in rows}
    assert scores[("sys1", "SP-Op(NN)")] == scores[("sys2", "NE-Oe(PERSON)")] == 0.0
    assert scores[("sys1", "SP-Opu(NOUN)")] > 0


def test_remembered_warnings_follow_the_parsers_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key of the remembered warnings holds the labels read (a model upgraded in place with other labels
    gets its warning again), and nothing of the parser when no per-label variant is named."""
    names = ["DP-Or(obl)", "BLEU"]
    monkeypatch.setattr(label_inventory, "backend_labels", lambda language, annotation=None: ("spacy x", FRENCH_LIKE))
    before = label_inventory.labels_key(names, "fr")
    upgraded = Labels(FRENCH_LIKE.xpos, FRENCH_LIKE.relations | {"obl"}, FRENCH_LIKE.entities)
    monkeypatch.setattr(label_inventory, "backend_labels", lambda language, annotation=None: ("spacy x", upgraded))
    assert label_inventory.labels_key(names, "fr") != before and label_warnings(names, "fr") == []
    assert label_inventory.labels_key(["BLEU", "DP-Or(*)", "chrF"], "fr") == ""
