"""jiwer 4.0 parity: MER, WIL, WIP, CER and ``WER(tok=jiwer,empty=jiwer)`` give jiwer's numbers.

Three kinds of check: jiwer's own test cases (jitsi/jiwer v4.0.0 ``tests/``, expected values
copied with their source), jiwer's numbers on the bundled samples (``tests/data/jiwer/expected.tsv``)
-- both without jiwer installed -- and property tests against the installed jiwer (random and real
sentences, multi-document inputs), skipped when it is absent.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from helpers import ENDE, RUEN
from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.errors import ConfigError, InputError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.alignment import edit_counts, jiwer_words
from mteval.metrics.base import ScoreSet, Side

EXPECTED = Path(__file__).resolve().parent / "data" / "jiwer" / "expected.tsv"
JIWER_WER = "WER(tok=jiwer,empty=jiwer)"
MEASURES = {"wer": JIWER_WER, "mer": "MER", "wil": "WIL", "wip": "WIP", "cer": "CER"}


def score(names: list[str], hyps: list[str], refs: list[list[str]], docs: DocumentIndex | None = None,
          case_sensitive: bool | None = None) -> dict[str, ScoreSet]:
    """Each named metric of ``hyps`` against the references (computed by its family)."""
    out = {}
    for family, variants in registry.group_by_family([registry.canonical(n) for n in names]).items():
        metric = registry.create(family, case_sensitive)
        prepared = metric.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
        out.update(metric.score(Side("h", hyps), prepared, docs or DocumentIndex.single(len(hyps)), variants))
    return out


def pooled(refs: list[str], hyps: list[str]) -> dict[str, float]:
    """jiwer's measures of sentence lists (``process_words(refs, hyps)``), as mteval's system scores."""
    found = score(list(MEASURES.values()), hyps, [refs])
    return {k: found[registry.canonical(v)].system for k, v in MEASURES.items()}


def all_m(wer: float, mer: float, wil: float) -> dict[str, float]:
    """jiwer's ``tests/test_measures.py`` helper: WIP = 1 - WIL."""
    return {"wer": wer, "mer": mer, "wil": wil, "wip": 1 - wil}


# jiwer v4.0.0 tests/test_measures.py, TestMeasuresDefaultTransform (input_gt_*, known_values from
# Morris et al. 2004, permutations_invariance): (reference, hypothesis, wer, mer, wil)
MEASURE_CASES = [
    (["This is a test"], ["This is a test"], all_m(0, 0, 0)),
    (["This is a test"], [""], all_m(1, 1, 1)),
    (["This is a test"], ["This test"], all_m(0.5, 0.5, 0.5)),
    (["X"], ["X"], all_m(0, 0, 0)),
    (["X"], ["X X Y Y"], all_m(3, 0.75, 0.75)),
    (["X Y X"], ["X Z"], all_m(2 / 3, 2 / 3, 5 / 6)),
    (["X"], ["Y"], all_m(1, 1, 1)),
    (["X"], ["Y Z"], all_m(2, 1, 1)),
    (["i", "am i good"], ["i am", "i good"], all_m(0.5, 0.4, 7 / 16)),
    (["am i good", "i"], ["i good", "i am"], all_m(0.5, 0.4, 7 / 16)),
]
# jiwer v4.0.0 tests/test_cer.py (input methods, known values, permutations_invariance)
CER_CASES = [
    (["This is a test"], ["This is a test"], 0 / 14), (["This is a test"], [""], 14 / 14),
    (["This is a test"], ["This test"], 5 / 14), (["X"], ["X"], 0), (["X"], ["X X Y Y"], 6),
    (["X Y X"], ["X Z"], 3 / 5), (["X"], ["Y"], 1), (["X"], ["Y Z"], 3),
    (["i", "am i good"], ["i am", "i good"], 0.6), (["am i good", "i"], ["i good", "i am"], 0.6),
]
# jiwer v4.0.0 tests/test_empty_ref.py: (references, hypotheses, expected measures)
EMPTY_CASES = [
    *[([""] * i, [""] * i, {"wer": 0, "mer": 0, "wip": 1, "wil": 0}) for i in range(1, 10)],
    ([""], ["hello"], {"wer": 1, "mer": 1, "wip": 0, "wil": 1}),
    *[([""], [" ".join(str(j) for j in range(i))], {"wer": i, "mer": 1, "wip": 0, "wil": 1}) for i in range(2, 11)],
    (["hello"], [""], {"wer": 1, "mer": 1, "wip": 0, "wil": 1}),
    (["hello world", ""], ["hello world", "done"], {"wer": 1 / 2, "mer": 1 / 3, "wil": 1 / 3, "wip": 2 / 3}),
    ([""], ["a"], {}), ([""], ["abd"], {}), (["a"], [""], {}), (["abc"], [""], {}),
]
EMPTY_CER = {("", ""): 0, ("", "a"): 1, ("", "abd"): 3, ("a", ""): 1, ("abc", ""): 1}  # test_cer_empty_ref


@pytest.mark.parametrize(("refs", "hyps", "expected"), MEASURE_CASES)
def test_jiwer_measure_cases(refs: list[str], hyps: list[str], expected: dict[str, float]) -> None:
    found = pooled(refs, hyps)
    for name, value in expected.items():
        assert found[name] == pytest.approx(value, abs=1e-15), name


@pytest.mark.parametrize(("refs", "hyps", "expected"), CER_CASES)
def test_jiwer_cer_cases(refs: list[str], hyps: list[str], expected: float) -> None:
    assert pooled(refs, hyps)["cer"] == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(("refs", "hyps", "expected"), EMPTY_CASES)
def test_jiwer_empty_reference_cases(refs: list[str], hyps: list[str], expected: dict[str, float]) -> None:
    found = pooled(refs, hyps)
    for name, value in expected.items():
        assert found[name] == pytest.approx(value, abs=1e-15), name
    if len(refs) == 1 and (refs[0], hyps[0]) in EMPTY_CER:
        assert found["cer"] == EMPTY_CER[(refs[0], hyps[0])]


def test_one_empty_pair_changes_nothing() -> None:
    # jiwer v4.0.0 tests/test_empty_ref.py::test_one_empty_ref_and_hyp
    assert pooled(["hello world", ""], ["hello world", ""]) == pooled(["hello world"], ["hello world"])


def test_different_lengths_are_an_input_error() -> None:
    # jiwer v4.0.0 test_fail_on_different_sentence_length: a ValueError there
    for name in ("MER", "CER", JIWER_WER):
        with pytest.raises(InputError):
            score([name], ["this sentence"], [["hello", "this", "sentence", "is fractured"]])


def _expected_rows() -> list[dict[str, str]]:
    with open(EXPECTED, encoding="utf-8") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))


def test_the_samples_give_jiwer_numbers_exactly() -> None:
    rows = _expected_rows()
    checked = 0
    for key in dict.fromkeys((r["sample"], r["system"], r["reference"]) for r in rows):
        sample, system, reference = key
        root = Path(RUEN if sample == RUEN.name else ENDE)
        hyps = (root / "sys" / system).read_text(encoding="utf-8").split("\n")[:-1]
        refs = (root / "refs" / reference).read_text(encoding="utf-8").split("\n")[:-1]
        found = score(list(MEASURES.values()), hyps, [refs])
        for row in (r for r in rows if (r["sample"], r["system"], r["reference"]) == key):
            for name, metric in MEASURES.items():
                scores = found[registry.canonical(metric)]
                ours = scores.system if row["segment"] == "-" else scores.segments[int(row["segment"]) - 1]
                assert ours == float(row[name]), (key, row["segment"], name)
                checked += 1
    assert checked == 5 * (len(rows))


def test_documents_pool_and_several_references_take_the_best() -> None:
    docs = DocumentIndex(("d1", "d1", "d2"))
    hyps, good, bad = ["a b c", "d e", "f"], ["a b c", "d x", "g"], ["x y z", "d e", "f"]
    one = score(["MER", "WIP", "CER"], hyps, [good], docs)
    assert one["MER"].documents["d1"] == pytest.approx(pooled(good[:2], hyps[:2])["mer"], abs=0)
    assert one["MER"].documents["d2"] == 1.0 and one["CER"].documents["d2"] == 1.0
    two = score(["MER", "WIP"], hyps, [good, bad], docs)
    assert two["MER"].segments.tolist() == [0.0, 0.0, 0.0]  # the best reference of each segment
    assert two["WIP"].documents["d1"] == max(pooled(good[:2], hyps[:2])["wip"], pooled(bad[:2], hyps[:2])["wip"])
    assert two["MER"].system == min(pooled(good, hyps)["mer"], pooled(bad, hyps)["mer"])


def test_directions_and_parameters() -> None:
    infos = {v: registry.create(registry.family_of(v)).info(v) for v in ("MER", "WIL", "WIP", "CER")}
    assert [infos[v].higher_is_better for v in infos] == [False, False, True, False]
    assert infos["WIP"].upper_bound == 1.0 and infos["CER"].upper_bound is None
    assert registry.canonical("WER(empty=jiwer, tok=jiwer)") == JIWER_WER
    assert registry.canonical("WER(tok=asiya,empty=one)") == "WER"
    assert registry.expand(["WER(tok=jiwer)", "MER"]) == ["WER(tok=jiwer)", "MER"]
    for bad in ("MER(tok=jiwer)", "-WER(tok=jiwer)", "WER(tok=nltk)"):
        with pytest.raises(ConfigError):
            registry.expand([bad])


def test_where_wer_and_jiwer_wer_differ() -> None:
    # WER.pl splits on a single tab; jiwer only on spaces (and on runs of any whitespace)
    assert jiwer_words("a\tb  c\u00a0\u00a0d \u00a0e") == ["a\tb", "c", "d", "e"]
    found = score(["WER", "WER(tok=jiwer)", "WER(empty=jiwer)", JIWER_WER], ["a\tb", "x y z"], [["a b", ""]])
    assert found["WER"].segments.tolist() == [0.0, 1.0]
    assert found["WER(tok=jiwer)"].segments.tolist() == [1.0, 1.0]
    assert found["WER(empty=jiwer)"].segments.tolist() == [0.0, 3.0]
    assert found[JIWER_WER].segments.tolist() == [1.0, 3.0]
    assert found[JIWER_WER].system == 2.5  # (2 + 3) edits over 2 reference words
    assert score([JIWER_WER, "WER"], ["x y"], [[""]])[JIWER_WER].system == 2.0  # jiwer: num_insertions


def test_edit_counts_add_up() -> None:
    assert edit_counts((1, 2, 3), (2, 3, 4)) == (2, 0, 1, 1)
    assert edit_counts("abc", "") == (0, 0, 3, 0) and edit_counts("", "ab") == (0, 0, 0, 2)


# ---- side by side with the installed jiwer -------------------------------------------------

TEXT = st.text(alphabet="ab c\tD\u00a0\u3000é", max_size=12)
SAMPLES = ((RUEN, "refs/A.en"), (RUEN, "sys/AFRL.en"), (ENDE, "refs/A.de"), (ENDE, "sys/UEdin.de"))
REAL = [line for root, name in SAMPLES for line in (root / name).read_text(encoding="utf-8").split("\n")[:-1]]
SENTENCE = st.one_of(TEXT, st.sampled_from(REAL))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=6), st.integers(1, 3))
def test_property_equal_to_installed_jiwer(rows: list[tuple[str, str]], n_docs: int) -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is not installed: the side-by-side check needs it")
    refs, hyps = [r for r, _ in rows], [h for _, h in rows]
    docs = DocumentIndex(tuple(f"d{min(k * n_docs // len(rows), n_docs - 1)}" for k in range(len(rows))))
    found = score(list(MEASURES.values()), hyps, [refs], docs)

    def theirs(r: list[str], h: list[str]) -> dict[str, float]:
        words = jiwer.process_words(r, h)
        return {"wer": words.wer, "mer": words.mer, "wil": words.wil, "wip": words.wip, "cer": jiwer.cer(r, h)}

    expected = {"sys": theirs(refs, hyps)}
    for d in docs.documents:
        expected[d] = theirs([refs[i] for i in docs.rows(d)], [hyps[i] for i in docs.rows(d)])
    segments = [theirs([r], [h]) for r, h in rows]
    for name, metric in MEASURES.items():
        scores = found[registry.canonical(metric)]
        assert scores.system == expected["sys"][name], name
        assert scores.segments.tolist() == [s[name] for s in segments], name
        for d in docs.documents:  # WER's documents stay Asiya's segment means
            pooled_doc = expected[d][name] if name != "wer" else np.mean(scores.segments[docs.rows(d)])
            assert scores.documents[d] == pooled_doc, (name, d)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=4), st.booleans(), st.booleans(),
       st.booleans(), st.one_of(st.none(), st.integers(5, 60)))
def test_property_alignment_text_equals_jiwer(rows: list[tuple[str, str]], chars: bool, show: bool,
                                              skip: bool, width: int | None) -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is not installed: the side-by-side check needs it")
    from mteval.metrics.alignment import process, visualize

    refs, hyps = [r for r, _ in rows], [h for _, h in rows]
    output = (jiwer.process_characters if chars else jiwer.process_words)(refs, hyps)
    ours = process(refs, hyps, chars=chars)
    assert ours.counts() == (output.hits, output.substitutions, output.deletions, output.insertions)
    assert visualize(ours, show, skip, width) == jiwer.visualize_alignment(output, show, skip, width)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=4))
def test_property_case_insensitive_is_jiwer_with_to_lower_case(rows: list[tuple[str, str]]) -> None:
    jiwer = pytest.importorskip("jiwer", reason="jiwer is not installed: the side-by-side check needs it")
    refs, hyps = [r for r, _ in rows], [h for _, h in rows]
    lower = jiwer.Compose([jiwer.ToLowerCase(), jiwer.wer_default])
    expected = jiwer.process_words(refs, hyps, lower, lower).mer
    assert score(["MER"], hyps, [refs], case_sensitive=False)["MER"].system == expected


def test_real_sample_segments_many_references_stay_within_bounds() -> None:
    refs = [(RUEN / "refs" / f"{r}.en").read_text(encoding="utf-8").split("\n")[:-1] for r in ("A", "B")]
    hyps = (RUEN / "sys" / "AFRL.en").read_text(encoding="utf-8").split("\n")[:-1]
    found = score(["MER", "WIL", "WIP", "CER"], hyps, refs)
    for name in ("MER", "WIL", "WIP"):
        assert np.all((found[name].segments >= 0) & (found[name].segments <= 1)), name
    single = [score(["CER"], hyps, [r])["CER"] for r in refs]
    assert found["CER"].system == min(s.system for s in single)
    np.testing.assert_array_equal(found["CER"].segments, np.minimum(*(s.segments for s in single)))
