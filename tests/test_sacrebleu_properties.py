"""Side by side with the installed sacreBLEU 2.6.0: sacreBLEU(...), chrF(...), TER(...) and the tokenisers.

Random texts (hypothesis: words of the bundled WMT samples, punctuation, digits, CJK and any Unicode)
and every segment of the bundled samples (``data/``), every option drawn: the scores must be the
floats sacreBLEU computes (BLEU and TER equal; chrF within 1e-9, its sums of orders being ordered
differently), and the tokenisers' strings equal. Skipped when sacreBLEU is not installed.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry, sacre_tokenizers
from mteval.metrics.base import ScoreSet, Side

sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed: the side-by-side checks need it")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402
from sacrebleu.metrics.bleu import _get_tokenizer  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer  # noqa: E402
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data").glob("wmt21-*-sample/*/*.??")) + sorted((ROOT / "data").glob("wmt21-*-sample/src.??"))
REAL = [line for path in SAMPLES for line in path.read_text(encoding="utf-8").split("\n")[:-1]]
WORDS = sorted({w for line in REAL[::7] for w in line.split()})[:3000]
SYMBOLS = [".", ",", "!", "?", "(", ")", "-", "--", "'s", "3.5", "1,000", "2019.", "&amp;", "&quot;", "<skipped>",
           "€", "$5", "«", "»", "“", "”", "中国", "我们", "北京。", "カタカナ", "ひらがな", "。", "，", "한국어", "a-b"]
TOKEN = st.one_of(st.sampled_from(WORDS), st.sampled_from(SYMBOLS), st.text(min_size=1, max_size=4))
SENTENCE = st.one_of(st.lists(TOKEN, min_size=0, max_size=12).map(" ".join), st.sampled_from(REAL))
ANY_TEXT = st.text(max_size=40)
PROPERTIES = settings(max_examples=150, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BUILTIN = ("13a", "none", "intl", "char", "zh")


def _available(tok: str) -> bool:
    try:
        sacre_tokenizers.bleu_tokenizer(tok)
        _get_tokenizer(tok)()
    except Exception:  # noqa: BLE001 - any failure to load MeCab (either side's): not checked here
        return False
    return True


MECAB = tuple(t for t in ("ja-mecab", "ko-mecab") if _available(t))  # checked where installed (mteval[ja], [ko])


def ours(metric: str, hyps: list[str], refs: list[list[str]], case_sensitive: bool | None = None) -> ScoreSet:
    name = registry.canonical(metric)
    family = registry.create(registry.family_of(name), case_sensitive)
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex(("d",) * len(hyps)), [name])[name]


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def bleu_options(draw: Any) -> tuple[str, dict[str, Any]]:
    """A drawn sacreBLEU BLEU configuration: mteval's name and sacreBLEU's keyword arguments."""
    tok = draw(st.sampled_from(BUILTIN + MECAB))
    smooth = draw(st.sampled_from(("exp", "floor", "add-k", "none")))
    value = draw(st.sampled_from((None, 0.0, 0.05, 0.5, 2.0))) if smooth in ("floor", "add-k") else None
    order, eff, lc = draw(st.integers(1, 6)), draw(st.booleans()), draw(st.booleans())
    name = f"sacreBLEU(tok={tok},smooth={smooth},order={order},eff={yes(eff)},lc={yes(lc)}" + (
        f",smooth_value={value})" if value is not None else ")")
    return name, {"tokenize": tok, "smooth_method": smooth, "smooth_value": value, "max_ngram_order": order,
                  "effective_order": eff, "lowercase": lc}


def corpus(draw: Any, sentence: st.SearchStrategy[str] = SENTENCE) -> tuple[list[str], list[list[str]]]:
    n = draw(st.integers(1, 4))
    texts = st.lists(sentence, min_size=n, max_size=n)
    return draw(texts), draw(st.lists(texts, min_size=1, max_size=3))


def check(metric: str, peer: Any, hyps: list[str], refs: list[list[str]], tol: float = 0.0) -> None:
    """System score = the peer's corpus_score, each segment's = its sentence_score."""
    scores = ours(metric, hyps, refs)
    assert abs(scores.system - peer.corpus_score(hyps, refs).score) <= tol, metric
    for i, hyp in enumerate(hyps):
        assert abs(scores.segments[i] - peer.sentence_score(hyp, [r[i] for r in refs]).score) <= tol, (metric, i)


@PROPERTIES
@given(data=st.data())
def test_bleu_equals_sacrebleus(data: st.DataObject) -> None:
    name, kwargs = bleu_options(data.draw)
    hyps, refs = corpus(data.draw)
    check(name, BLEU(**kwargs), hyps, refs)


@PROPERTIES
@given(data=st.data())
def test_chrf_equals_sacrebleus(data: st.DataObject) -> None:
    words, beta = data.draw(st.booleans()), data.draw(st.integers(1, 4))
    eps, space = data.draw(st.booleans()), data.draw(st.booleans())
    name = f"chrF{'++' if words else ''}(beta={beta},eps_smoothing={yes(eps)},whitespace={yes(space)})"
    hyps, refs = corpus(data.draw)
    check(name, CHRF(word_order=2 if words else 0, beta=beta, eps_smoothing=eps, whitespace=space), hyps, refs, 1e-9)


@PROPERTIES
@given(data=st.data())
def test_ter_equals_sacrebleus(data: st.DataObject) -> None:
    flags = [data.draw(st.booleans()) for _ in range(4)]
    keys = ("normalized", "no_punct", "asian_support", "case_sensitive")
    name = f"TER({','.join(f'{k}={yes(f)}' for k, f in zip(keys, flags, strict=True))})"
    hyps, refs = corpus(data.draw)
    options: dict[str, Any] = dict(zip(keys, flags, strict=True))
    check(name, TER(**options), hyps, refs)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=st.one_of(ANY_TEXT, SENTENCE), more=st.lists(st.one_of(ANY_TEXT, SENTENCE), max_size=3))
def test_tokenizers_equal_sacrebleus(text: str, more: list[str]) -> None:
    for tok in [*BUILTIN, *MECAB]:
        theirs = _get_tokenizer(tok)()
        assert sacre_tokenizers.bleu_tokenizer(tok)(text) == theirs(text), tok
        batch = [text, *more]  # what the family calls: several lines at once
        assert sacre_tokenizers.bleu_tokens(tok, batch) == [theirs(line).split() for line in batch], tok
    for flags in ((True, False, False), (False, True, False), (True, True, True), (True, False, True)):
        for case in (False, True):
            expected = TercomTokenizer(*flags, case_sensitive=case)(text)
            assert sacre_tokenizers.tercom(text, *flags, case_sensitive=case) == expected, (flags, case)


def test_every_bundled_line_tokenises_as_sacrebleu() -> None:
    for tok in [*BUILTIN, *MECAB]:
        theirs = _get_tokenizer(tok)()
        mine = sacre_tokenizers.bleu_tokenizer(tok)
        assert [mine(line) for line in REAL] == [theirs(line) for line in REAL], tok
        assert sacre_tokenizers.bleu_tokens(tok, REAL) == [theirs(line).split() for line in REAL], tok
    tercom = TercomTokenizer(normalized=True, no_punct=True, asian_support=True)
    assert [sacre_tokenizers.tercom(line, True, True, True) for line in REAL] == [tercom(line) for line in REAL]


def test_zh_characters_are_sacrebleus_over_the_whole_bmp_and_planes_1_2() -> None:
    for code in range(0x30000):
        char = chr(code)
        if unicodedata.category(char) == "Cs":
            continue
        expected = TokenizerZh._is_chinese_char(char)
        assert bool(sacre_tokenizers._ZH_CHAR.fullmatch(char)) == expected, hex(code)


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["wmt21-ruen-sample", "wmt21-ende-sample"])
def test_bundled_systems_every_option(sample: str) -> None:
    """Every system of a bundled sample, with one and all its references, under each option."""
    folder = ROOT / "data" / sample
    refs = [p.read_text(encoding="utf-8").split("\n")[:-1] for p in sorted((folder / "refs").glob("*"))]
    bleu: list[tuple[str, dict[str, Any]]] = [(f"sacreBLEU(tok={t})", {"tokenize": t}) for t in BUILTIN] + [
        ("sacreBLEU(smooth=floor,eff=yes)", {"smooth_method": "floor", "effective_order": True}),
        ("sacreBLEU(smooth=add-k,order=6,lc=yes)", {"smooth_method": "add-k", "max_ngram_order": 6, "lowercase": True}),
        ("sacreBLEU(smooth=none,order=2)", {"smooth_method": "none", "max_ngram_order": 2})]
    chrf: list[tuple[str, dict[str, Any]]] = [
        ("chrF(beta=3)", {"beta": 3}), ("chrF(whitespace=yes)", {"whitespace": True}),
        ("chrF++(beta=1,eps_smoothing=yes)", {"word_order": 2, "beta": 1, "eps_smoothing": True})]
    ter: list[tuple[str, dict[str, Any]]] = [
        ("TER(normalized=yes)", {"normalized": True}),
        ("TER(no_punct=yes,case_sensitive=yes)", {"no_punct": True, "case_sensitive": True})]
    for path in sorted((folder / "sys").glob("*"))[:3]:
        hyps = path.read_text(encoding="utf-8").split("\n")[:-1]
        for streams in (refs[:1], refs):
            for name, kwargs in bleu:
                check(name, BLEU(**kwargs), hyps, streams)
            for name, kwargs in chrf:
                check(name, CHRF(**kwargs), hyps, streams, 1e-9)
            for name, kwargs in ter:
                assert ours(name, hyps, streams).system == TER(**kwargs).corpus_score(hyps, streams).score, name
