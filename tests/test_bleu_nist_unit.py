"""BLEU/NIST edge cases and properties (mteval-v13a conventions, written out)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.bleu_nist import BleuNist, nist_information
from mteval.metrics.ngram_stats import COUNT, MATCH, MAX_ORDER, PreparedNgrams, ngram_statistics, prepare_ngrams
from mteval.metrics.ngrams import max_counts, ngram_counts
from mteval.metrics.tokenize import tokenize_13a, tokenize_13a_many

WORDS = st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", ".", "dog"]), min_size=0, max_size=12)


def score(hyps: list[str], *refs: list[str], variants: tuple[str, ...] = ("BLEU", "NIST")) -> dict:
    family = BleuNist()
    prepared = family.prepare([Side(f"r{i}", r) for i, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex.single(len(hyps)), variants)


def test_hand_computed_smoothing_against_empty_reference() -> None:
    # hyp 3 words, no reference n-grams: p1 = 1/(2*3), p2 = 1/(4*2), p3 = 1/(8*1), no 4-grams (log term 0),
    # BP = exp(min(0, 1 - 0/3)) = 1 -> BLEU = exp((ln 1/6 + ln 1/8 + ln 1/8 + 0) / 4)
    result = score(["a b c", ""], ["", ""])
    expected = math.exp((math.log(1 / 6) + 2 * math.log(1 / 8)) / 4)
    assert math.isclose(result["BLEU"].segments[0], expected, rel_tol=1e-12)
    assert result["BLEU"].segments[1] == 0.0 and result["NIST"].segments[0] == 0.0


def test_individual_order_without_ngrams_is_one() -> None:
    result = score(["cat sat"], ["the cat sat"], variants=("BLEUi-3", "BLEU-2"))
    assert result["BLEUi-3"].segments[0] == 1.0  # no 3-grams in the hypothesis: printed as 1
    assert math.isclose(result["BLEU-2"].segments[0], math.exp(1 - 3 / 2), rel_tol=1e-12)  # p1 = p2 = 1


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=4), st.lists(WORDS, min_size=1, max_size=4))
def test_properties(refs_a: list[list[str]], hyps: list[list[str]]) -> None:
    n = min(len(refs_a), len(hyps))
    ref = [" ".join(w) for w in refs_a[:n]]
    hyp = [" ".join(w) for w in hyps[:n]]
    other = list(reversed(ref))
    one = score(hyp, ref, other)
    swapped = score(hyp, other, ref)
    for v in ("BLEU", "NIST"):
        assert one[v].system == swapped[v].system  # order of references does not matter
        assert all(0 <= s for s in one[v].segments)
    assert 0 <= one["BLEU"].system <= 1
    identical = score(ref, ref)
    if all(len(r.split()) >= 4 for r in ref):
        assert math.isclose(identical["BLEU"].system, 1.0)


def _by_ngram(prepared: PreparedNgrams) -> dict[tuple[str, ...], float]:
    """The information weights of a prepared reference set keyed by n-gram strings (each code decoded
    through its order's table: ``prefix code * V + token``, order 1 ``segment * V + token``)."""
    names = {tid: token for token, tid in prepared.tokens.items()}
    size = max(len(names), 1)
    out: dict[tuple[str, ...], float] = {}
    previous: list[tuple[str, ...]] = []
    for order in range(MAX_ORDER):
        current = []
        for key, info in zip(prepared.tables[order].tolist(), prepared.info[order].tolist(), strict=True):
            prefix, tid = divmod(key, size)
            ngram = (previous[prefix] if order else ()) + (names[tid],)
            assert out.get(ngram, info) == info  # the same n-gram has one weight in every segment
            out[ngram] = info
            current.append(ngram)
        previous = current
    return out


def test_zero_prefix_quirk_hand_computed() -> None:
    # reference "x 0 a 0 b": 5 words, count("0") = 2, count("0 a") = 1. mteval-v13a.pl reads the prefix
    # string "0" as false, so info("0 a") = -log2(1/5) (total words), not -log2(1/2) = 1.
    result = score(["0 a"], ["x 0 a 0 b"], variants=("NIST", "NISTi-2"))
    penalty = math.exp(-(-math.log(0.5) / math.log(1.5) ** 2) * math.log(2 / 5) ** 2)
    info_1 = (-math.log2(2 / 5) - math.log2(1 / 5)) / 2
    assert math.isclose(result["NISTi-2"].segments[0], math.log2(5) * penalty, rel_tol=1e-12)
    assert math.isclose(result["NIST"].segments[0], (info_1 + math.log2(5)) * penalty, rel_tol=1e-12)


def test_zero_prefix_quirk_only_for_the_string_zero() -> None:
    # "00", "0.0" and the trigram prefix "0 a" are true in Perl: ordinary conditional information
    counts = [ngram_counts(tuple("x 0 a b 00 a 0.0 a 0 a b".split()), 5)]
    info = nist_information(counts, 11)
    assert info[("0", "a")] == -math.log2(2 / 11)
    assert info[("00", "a")] == -math.log2(1 / 1) and info[("0.0", "a")] == -math.log2(1 / 1)
    assert info[("0", "a", "b")] == -math.log2(2 / 2) and info[("a", "0")] == -math.log2(1 / 4)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["0", "00", "a", "b", "0.0", "."]), max_size=9), min_size=1, max_size=5))
def test_vectorised_information_equals_dict_form(segments: list[list[str]]) -> None:
    # the segments as one reference of a one-segment-each set, then as two references of one set
    vectorised = _by_ngram(prepare_ngrams([[tuple(words)] for words in segments]))
    half = len(segments) // 2
    if half and len(segments) == 2 * half:
        assert _by_ngram(prepare_ngrams([[tuple(w) for w in segments[:half]], [tuple(w) for w in segments[half:]]])) \
            == vectorised
    counters = [ngram_counts(tuple(words), 5) for words in segments]
    expected = nist_information(counters, sum(len(words) for words in segments))
    assert vectorised.keys() == expected.keys()
    for ngram, value in expected.items():
        assert math.isclose(vectorised[ngram], value, rel_tol=1e-12, abs_tol=1e-12), ngram


def test_tokenizer_entities_and_skipped_as_mteval_sees_a_raw_line() -> None:
    # checked with mteval-v13a.pl on SGML written from the raw line (& < > escaped): &lt;/&gt; are decoded
    # twice, &amp;/&quot; once (so they stay), and <skipped> is not stripped (it was escaped then)
    assert tokenize_13a("AT&T &lt;b&gt; &amp; &quot;q&quot; <skipped> done") == (
        "AT", "&", "T", "<", "b", ">", "&", "amp", ";", "&", "quot", ";", "q", "&", "quot", ";",
        "<", "skipped", ">", "done")


def test_tokenizer_splits_on_perl_whitespace() -> None:
    assert tokenize_13a("a\x1cb c\x1fd") == ("a\x1cb", "c\x1fd")  # not whitespace for Perl
    assert tokenize_13a("x\xa0y\u3000z\x85w\u2009v") == ("x", "y", "z", "w", "v")
    assert tokenize_13a("e-\nf") == ("e-", "f")  # a line break is a space in mteval's SGML reader


TOKEN_TEXT = st.lists(st.sampled_from(list("a1.,-&;lgt< >9Z/0") + ["&lt;", "&gt;", "&amp;", "\x1c", "\u2009", "\xa0",
                                                                      "\n"]), max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKEN_TEXT, max_size=6), st.booleans())
def test_batch_tokenizer_equals_tokenize_13a(texts: list[str], case_sensitive: bool) -> None:
    # periods/commas/dashes next to digits and to each other, entities, Perl-only and Python-only spaces
    expected = [tokenize_13a.__wrapped__(text, case_sensitive) for text in texts]  # type: ignore[attr-defined]
    assert tokenize_13a_many(texts, case_sensitive) == expected
    assert tokenize_13a_many([t.replace("\n", " ") for t in texts], case_sensitive) == [
        tokenize_13a.__wrapped__(t.replace("\n", " "), case_sensitive) for t in texts]  # type: ignore[attr-defined]


def test_batch_tokenizer_runs_of_periods_and_commas() -> None:
    # non-overlapping matches: "a..5" keeps ".5" (the first rule's [^0-9] was the previous match's mark)
    texts = ["a..5", "1.,.a", ".,", "5.-3", "x ,.,. 9", "3,5.", "a.b,c", "...", "1..2..3", "a,.,,5", ",,1"]
    assert tokenize_13a_many(texts) == [tokenize_13a(t) for t in texts]
    assert tokenize_13a_many(["a..5"]) == [("a", ".", ".5")]


def test_hypotheses_leave_nothing_behind() -> None:
    # a hypothesis' n-grams are looked up in the reference set's tables, never added: scoring leaves the
    # prepared set as it was, and the family keeps only a bounded cache of tokenised segments
    family = BleuNist()
    prepared = family.prepare([Side("r", ["the cat sat on the mat", "a dog"])])
    tables = [t.copy() for t in prepared.tables]
    vocabulary = dict(prepared.tokens)
    family.score(Side("h", ["the cat ran off the mat", "one dog barked"]), prepared, DocumentIndex.single(2), ("BLEU",))
    assert prepared.tokens == vocabulary and all((a == b).all() for a, b in zip(tables, prepared.tables, strict=True))
    family._tokens_of.limit = 3
    family.score(Side("h", ["x y", "y z"]), prepared, DocumentIndex.single(2), ("BLEU",))
    assert len(family._tokens_of) <= 3 and "y z" in family._tokens_of  # the oldest dropped


@settings(max_examples=80, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=4), st.lists(WORDS, min_size=1, max_size=4), st.integers(1, 3))
def test_statistics_equal_counted_ngrams(refs: list[list[str]], hyps: list[list[str]], n_refs: int) -> None:
    # MATCH/COUNT written out: clipped counts against the maximum over references (ngram_counts)
    n = min(len(refs), len(hyps))
    references = [[tuple(refs[(i + r) % len(refs)]) for i in range(n)] for r in range(n_refs)]
    stats = ngram_statistics([tuple(h) for h in hyps[:n]], prepare_ngrams(references))
    for i in range(n):
        hyp = ngram_counts(tuple(hyps[i]), MAX_ORDER)
        clip = max_counts([ngram_counts(ref[i], MAX_ORDER) for ref in references])
        for order in range(1, MAX_ORDER + 1):
            expected = sum(min(c, clip.get(g, 0)) for g, c in hyp.items() if len(g) == order)
            assert stats[i, MATCH][order - 1] == expected
            assert stats[i, COUNT][order - 1] == max(len(hyps[i]) - order + 1, 0)
