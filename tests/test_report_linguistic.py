"""Linguistic error analysis from parses (mteval/report/linguistic.py) and its HTML
(pair_html.render_linguistic): hand-made trees with hand-computed recalls, the bootstrap's direction,
real UD trees (the bundled EWT parses), and the ru-en sample parsed with the embedded models."""

from __future__ import annotations

import dataclasses
import json
import lzma
import math
import re
from itertools import islice
from pathlib import Path

import pytest

from mteval.annotate.model import Sentence, Word, parse_conllu
from mteval.errors import ConfigError, InputError
from mteval.report import linguistic, pair_html
from mteval.report.linguistic import pair_differences, system_recalls

ROOT = Path(__file__).resolve().parents[1]
EWT = ROOT / "research" / "models" / "data" / "en_ewt.train.jackknifed.conllu.xz"


def tree(words: str, ner: str = "") -> Sentence:
    """'the/DET/det/2 cat/NOUN/nsubj/3 sat/VERB/root/0' (form/upos/deprel/head) with optional NER tags."""
    tags = ner.split() or ["O"] * len(words.split())
    out = []
    for i, (item, tag) in enumerate(zip(words.split(), tags, strict=True), start=1):
        form, upos, deprel, head = item.split("/")
        out.append(Word(i, form, form.lower().rstrip("s"), upos, head=int(head), deprel=deprel, ner=tag))
    return Sentence(tuple(out), " ".join(w.form for w in out))


THE_CAT = tree("the/DET/det/2 cat/NOUN/nsubj/3 sat/VERB/root/0")
A_CAT = tree("a/DET/det/2 cat/NOUN/nsubj/3 sat/VERB/root/0")


def recalls(result: linguistic.SystemRecalls) -> dict[tuple[str, str], tuple[int, int]]:
    return {(r.kind, r.label): (r.recalled, r.total) for r in result.recalls}


def test_recall_by_label_hand_case() -> None:
    """Reference 'the cat sat', hypothesis 'a cat sat': the det arc (cat, the) and DET 'the' are
    missed, nsubj, root, NOUN, VERB found; chains: (cat, the) missed, (sat, cat) found, (sat, cat, the)
    missed."""
    got = recalls(system_recalls([A_CAT], [[THE_CAT]]))
    assert got == {("relation", "det"): (0, 1), ("relation", "nsubj"): (1, 1), ("relation", "root"): (1, 1),
                   ("pos", "DET"): (0, 1), ("pos", "NOUN"): (1, 1), ("pos", "VERB"): (1, 1),
                   ("chain", "2 words"): (1, 2), ("chain", "3 words"): (0, 1)}
    assert all(r.recall == 1.0 for r in system_recalls([THE_CAT], [[THE_CAT]]).recalls)


def test_references_pooled_counts_clipped_and_skips() -> None:
    """Two references pool their items; a hypothesis parse or all reference parses missing: the
    segment is skipped; one reference missing: that reference only is left out."""
    pooled = system_recalls([A_CAT], [[THE_CAT], [A_CAT]])
    assert recalls(pooled)[("relation", "det")] == (1, 2) and recalls(pooled)[("chain", "3 words")] == (1, 2)
    two_dets = tree("the/DET/det/3 the/DET/det/3 cat/NOUN/root/0")
    one_det = tree("the/DET/det/2 cat/NOUN/root/0")
    assert recalls(system_recalls([one_det], [[two_dets]]))[("relation", "det")] == (1, 2)  # clipped
    assert recalls(system_recalls([two_dets], [[one_det]]))[("relation", "det")] == (1, 1)
    result = system_recalls([A_CAT, None, A_CAT, A_CAT], [[THE_CAT, THE_CAT, None, None], [None, A_CAT, None, A_CAT]])
    assert (result.segments, result.skipped, result.references_missing) == (2, 2, 2)
    assert recalls(result)[("relation", "det")] == (1, 2)  # segment 1: THE_CAT only; segment 4: A_CAT only


def test_entities_lemmas_and_case() -> None:
    ref = tree("John/PROPN/nsubj/3 Smith/PROPN/flat/1 left/VERB/root/0", "B-PER E-PER O")
    short = tree("John/PROPN/nsubj/2 left/VERB/root/0", "S-PER O")
    full = tree("john/PROPN/nsubj/3 smith/PROPN/flat/1 left/VERB/root/0", "B-PER E-PER O")
    assert recalls(system_recalls([short], [[ref]]))[("entity", "PER")] == (0, 1)
    assert recalls(system_recalls([full], [[ref]]))[("entity", "PER")] == (1, 1)  # lower-cased by default
    assert recalls(system_recalls([full], [[ref]], lowercase=False))[("entity", "PER")] == (0, 1)
    assert system_recalls([full], [[ref]]).has_entities and not system_recalls([A_CAT], [[THE_CAT]]).has_entities
    cats = tree("the/DET/det/2 cats/NOUN/nsubj/3 sat/VERB/root/0")
    assert recalls(system_recalls([cats], [[THE_CAT]]))[("relation", "nsubj")] == (0, 1)
    assert recalls(system_recalls([cats], [[THE_CAT]], items="lemma"))[("relation", "nsubj")] == (1, 1)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="segment count"):
        system_recalls([A_CAT, A_CAT], [[THE_CAT]])
    with pytest.raises(InputError, match="at least one reference"):
        system_recalls([A_CAT], [])
    with pytest.raises(ConfigError, match="item"):
        system_recalls([A_CAT], [[THE_CAT]], items="stem")


def _differing(n_a: int, n_b: int, n: int = 40) -> tuple[list[Sentence], list[Sentence], list[Sentence]]:
    """``n`` segments 'the cat sat'; A gets the det right on the first ``n_a``, B on the last ``n_b``."""
    a = [THE_CAT if i < n_a else A_CAT for i in range(n)]
    b = [THE_CAT if i >= n - n_b else A_CAT for i in range(n)]
    return a, b, [THE_CAT] * n


def test_bootstrap_direction_and_significance() -> None:
    a, b, refs = _differing(30, 5)
    result = pair_differences("A", "B", a, b, [refs], examples=2)
    by = {(d.kind, d.label): d for d in result.differences}
    det = by[("relation", "det")]
    assert (det.recalled_a, det.recalled_b, det.total) == (30, 5, 40)
    assert det.diff == pytest.approx(25 / 40) and det.low > 0 and det.significant and det.p_value < 0.01
    assert det.p_holm >= det.p_value
    assert [(e.segment, e.recovered_by, e.items) for e in det.examples] == [(1, "A", ("cat -det-> the",)),
                                                                           (2, "A", ("cat -det-> the",))]
    assert det.examples[0].reference == "the cat sat" and det.examples[0].hypothesis_b == "a cat sat"
    same = by[("relation", "nsubj")]
    assert same.diff == 0.0 and math.isnan(same.p_value) and not same.significant and not same.examples
    flipped = {(d.kind, d.label): d for d in pair_differences("B", "A", b, a, [refs]).differences}
    assert flipped[("relation", "det")].diff == pytest.approx(-25 / 40) and flipped[("relation", "det")].significant
    assert flipped[("relation", "det")].examples[0].recovered_by == "A"
    assert (result.resamples, result.seed, result.segments, result.skipped) == (1000, 12345, 40, 0)


def test_a_label_differing_in_few_segments_is_not_tested() -> None:
    """One segment where A recovers the det and B does not: the bootstrap alone gave p = 1/1001 (an
    audit); fewer than MIN_DIFFERING differing segments are not tested. Six, all one way, are."""
    from mteval.report.linguistic import MIN_DIFFERING

    assert MIN_DIFFERING == 6
    for n_a, tested in ((1, False), (5, False), (6, True)):
        a, b, refs = _differing(n_a, 0, n=50)
        det = next(d for d in pair_differences("A", "B", a, b, [refs]).differences if d.label == "det")
        assert math.isnan(det.p_value) != tested and math.isnan(det.p_holm) != tested, n_a
        assert det.significant == (tested and det.p_value <= 0.05), n_a
    assert not det.significant or det.p_value <= 0.05


def test_small_difference_is_not_significant() -> None:
    a, b, refs = _differing(6, 5)
    det = next(d for d in pair_differences("A", "B", a, b, [refs]).differences if d.label == "det")
    assert det.diff == pytest.approx(1 / 40) and not det.significant and det.p_value > 0.2
    assert det.examples  # no label is significant: the largest differences get examples


def test_pair_matches_system_recalls_and_renders() -> None:
    a, b, full = _differing(30, 5)
    refs: list[Sentence | None] = [None if i == 3 else s for i, s in enumerate(full)]
    per_system = {"A": system_recalls(a, [refs]), "B<i>": system_recalls(b, [refs])}
    result = pair_differences("A", "B<i>", a, b, [refs], segment_numbers=list(range(101, 141)))
    for d in result.differences:
        mine = recalls(per_system["A"])[(d.kind, d.label)]
        assert (d.recalled_a, d.total) == mine and d.recall_a == pytest.approx(mine[0] / mine[1])
    assert result.skipped == 1 and result.differences[0].examples[0].segment == 101
    html = pair_html.render_linguistic(per_system, result)
    assert "B<i>" not in html and "B&lt;i&gt;" in html and html.count("<svg") == 3  # relation, pos, chain
    assert "cat -det-&gt; the" in html and "1 skipped" in html and "No named entity" in html
    assert min(float(s) for s in re.findall(r"font-size: ([0-9.]+)px", html)) >= 10
    assert "<svg" not in pair_html.render_linguistic(per_system, None)
    json.dumps(dataclasses.asdict(result))
    json.dumps(dataclasses.asdict(per_system["A"]))


def _ewt(count: int) -> list[Sentence]:
    """The first ``count`` sentences of the bundled EWT training parses (real UD trees)."""
    with lzma.open(EWT, "rt", encoding="utf-8") as f:
        text = "".join(islice(f, 4000))
    return parse_conllu(text.rsplit("\n\n", 1)[0])[:count]


def test_real_ud_trees() -> None:
    """Real UD trees: a side against itself recalls everything; against other sentences little;
    every relation label is a UD one."""
    from mteval.annotate.layers.labels import RELATIONS, UPOS_TAGS

    sentences = _ewt(60)
    assert len(sentences) == 60
    itself = system_recalls(sentences, [sentences])
    assert itself.segments == 60 and all(r.recall == 1.0 for r in itself.recalls)
    kinds = {r.kind for r in itself.recalls}
    assert {"relation", "pos", "chain"} <= kinds
    assert {r.label for r in itself.recalls if r.kind == "relation"} <= set(RELATIONS)
    assert {r.label for r in itself.recalls if r.kind == "pos"} <= set(UPOS_TAGS)
    shifted = sentences[1:] + sentences[:1]
    other = system_recalls(shifted, [sentences])
    assert recalls(other)[("relation", "nsubj")][0] < recalls(itself)[("relation", "nsubj")][0] / 2
    result = pair_differences("same", "other", sentences, shifted, [sentences])
    by = {(d.kind, d.label): d for d in result.differences}
    assert by[("relation", "nsubj")].significant and by[("relation", "nsubj")].diff > 0.5


@pytest.mark.slow
@pytest.mark.models
def test_sample_campaign_parsed(tmp_path: Path) -> None:
    """The ru-en sample's first 12 segments (references A and B, two systems) parsed with the
    embedded English models into an annotation cache, then analysed from the cached parses."""
    from mteval.annotate.annotator import Annotator

    data = ROOT / "data" / "wmt21-ruen-sample"
    texts = {name: (data / path).read_text(encoding="utf-8").splitlines()[:12]
             for name, path in (("A", "refs/A.en"), ("B", "refs/B.en"), ("Online-W", "sys/Online-W.en"),
                                ("AFRL", "sys/AFRL.en"))}
    annotator = Annotator(tmp_path / "annotation")
    parses = {name: annotator.annotate(t) for name, t in texts.items()}
    refs = [parses["A"], parses["B"]]
    per_system = {s: system_recalls(parses[s], refs) for s in ("Online-W", "AFRL")}
    for r in per_system.values():
        assert r.segments == 12 and r.skipped == 0 and all(0.0 <= x.recall <= 1.0 for x in r.recalls)
        assert 0.2 < recalls(r)[("pos", "NOUN")][0] / recalls(r)[("pos", "NOUN")][1] < 1.0
    assert all(x.recall == 1.0 for x in system_recalls(parses["A"], [parses["A"]]).recalls)
    result = pair_differences("Online-W", "AFRL", parses["Online-W"], parses["AFRL"], refs)
    for d in result.differences:
        assert d.diff == pytest.approx(d.recall_a - d.recall_b) and d.low <= d.high
    html = pair_html.render_linguistic(per_system, result)
    assert "Online-W vs AFRL" in html and "<table" in html
