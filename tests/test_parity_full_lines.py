"""Parity on every line of ``../shared/data/wmt21-ruen`` (1000 lines), where the shared oracles stop at 500.

1. BLEU/NIST (and the per-order individual scores) against the committed mteval-v13a.pl oracle
   ``tests/data/oracles/mteval-v13a-wmt21ruen-1000.tsv.xz`` (its README: provenance, commands), every
   system, segment and reference set; the oracle itself reproduces the shared oracle's lines 1-500.
2. The "0"-prefix quirk of v13a's information weights (``docs/bleu-nist.md``): the lines it touches are
   exactly those the quirk-free computation gets wrong.
3. mteval-v13a.pl run live on crafted lines and the quirk's neighbourhood, when perl, XML::Twig and the
   script (``$MTEVAL_V13A``) are available.
4. chrF/chrF++/TER against sacreBLEU 2.6.0 in-process, and WER/PER against their definition, on lines
   501-1000 (the part the shared oracles leave out).
5. Live, when environment variables name the tools (``tools/reference_runs.py``; skipped otherwise):
   ROUGE-1.5.5.pl (``$ROUGE_155``), the Meteor 1.4 jar (``$METEOR_JAR``, ``$METEOR_PARAPHRASE``) on lines
   501-1000, and Asiya's WER.pl / PER.pl (``$WER_PL``, ``$PER_PL``) on all 1000 lines.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import ROOT, SHARED, needs_shared
from oracles import N_FULL_SEGMENTS, read_full_mteval_oracle, read_oracle, ruen_lines

import mteval.metrics.ngram_stats as ngram_stats
from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import ScoreSet, Side
from mteval.metrics.bleu_nist import BleuNist
from mteval.metrics.chrf import ChrF
from mteval.metrics.error_rates import ErrorRates
from mteval.metrics.meteor import MeteorFamily
from mteval.metrics.rouge import RougeFamily
from mteval.metrics.ter import TER
from mteval.metrics.tokenize import tokenize_13a

pytestmark = [needs_shared, pytest.mark.shared]
SHARED_MTEVAL = SHARED / "oracles" / "wmt21-ruen" / "mteval.tsv"
REFSETS = ("A", "B", "A+B")
SECOND_HALF = slice(500, N_FULL_SEGMENTS)
Scores = dict[tuple[str, str, str], ScoreSet]


def _lines(path: str) -> list[str]:
    return ruen_lines(path, N_FULL_SEGMENTS)


def _systems() -> list[str]:
    return sorted({target for (_, target, _) in read_full_mteval_oracle()})


def _references(family: Any, names: tuple[str, ...] = REFSETS) -> dict[str, Any]:
    """A metric family's prepared reference sets ``A``, ``B``, ``A+B`` (lines 1-1000)."""
    sides = {r: Side(r, _lines(f"refs/{r}.en")) for r in ("A", "B")}
    return {name: family.prepare([sides[r] for r in name.split("+")]) for name in names}


def _mteval_scores() -> Scores:
    family = BleuNist()
    prepared = _references(family)
    docs = DocumentIndex.single(N_FULL_SEGMENTS)
    out: Scores = {}
    for system in _systems():
        hyp = Side(system, _lines(f"sys/{system}.en"))
        for refset, prep in prepared.items():
            for variant, scores in family.score(hyp, prep, docs, family.variants).items():
                out[(variant, system, refset)] = scores
    return out


computed = cache(_mteval_scores)


def _value(scores: ScoreSet, segment: str) -> float:
    return scores.system if segment == "-" else float(scores.segments[int(segment) - 1])


def _mismatches(scores: Scores, metric: str) -> list[tuple[str, str, str, str]]:
    """Oracle rows of ``metric`` that ``scores`` does not reproduce at the oracle's printed precision."""
    bad = []
    for key, printed in read_full_mteval_oracle().items():
        if key[0] != metric:
            continue
        for segment, text in printed.items():
            ours, expected = _value(scores[key], segment), float(text)
            if metric in ("BLEU", "NIST"):
                ok = math.isclose(ours, expected, rel_tol=1e-12, abs_tol=1e-13)
            else:  # 4 decimals; a tie at the 5th decimal may round either way
                ok = abs(ours - expected) <= 5.0001e-5 + 1e-12
            if not ok:
                bad.append((*key, segment))
    return bad


@pytest.mark.parametrize("metric", ["BLEU", "NIST"] + [f"NISTi-{n}" for n in range(1, 6)]
                         + [f"BLEUi-{n}" for n in range(1, 5)])
def test_mteval_every_line(metric: str) -> None:
    rows = sum(len(v) for k, v in read_full_mteval_oracle().items() if k[0] == metric)
    assert rows == (len(REFSETS) * 10 * (N_FULL_SEGMENTS + 1) if metric in ("BLEU", "NIST") else 10 * N_FULL_SEGMENTS)
    assert _mismatches(computed(), metric) == []


def test_committed_oracle_reproduces_the_shared_one() -> None:
    """Same script, flags and hash seed: on lines 1-500 the committed oracle prints the shared oracle's
    segment BLEU digits (NIST differs: its information weights count all 1000 reference lines)."""
    full = read_full_mteval_oracle()
    metrics = {k[0] for k in full if k[0].startswith("BLEU")}
    compared = 0
    for key, printed in read_oracle(SHARED_MTEVAL, metrics).items():
        if key not in full:
            continue
        for segment, text in printed.items():
            if segment != "-":
                assert full[key][segment] == text, (key, segment)
                compared += 1
    assert compared == 3 * 10 * 500 + 10 * 500 * 4


def test_zero_prefix_quirk_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the quirk, exactly the lines whose references have a bigram starting with the token ``0``
    (their information weights change) and the system rows go wrong; with it, none (test above)."""
    quirk_lines = {str(i + 1) for r in ("A", "B") for i, text in enumerate(_lines(f"refs/{r}.en"))
                   if "0" in tokenize_13a(text)[:-1]}
    assert quirk_lines == {"659", "894", "942"}
    monkeypatch.setattr(ngram_stats, "PERL_FALSE_PREFIX", " ")  # no token is " ": the quirk is off
    wrong = _mismatches(_mteval_scores(), "NIST")
    assert {segment for (*_, segment) in wrong} == quirk_lines | {"-"}
    assert len(wrong) == 100  # 70 segment rows and all 30 system rows


# ---- live mteval-v13a.pl -----------------------------------------------------------------------------

CRAFTED = ["x 0 a 0 b", "the score was 1:0 and 0 0 0", "a\x1cb c\x1fd 0 a", "00 a 0.0 a 0, a 0 a",
           "AT&T &lt;b&gt; &amp; &quot;q&quot; <skipped> done", "nbsp\xa0here 0 b and\u2009thin"]


def _tool_module(name: str) -> ModuleType:
    """A script of ``tools/`` (not a package) as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _live_tool(variable: str, perl_modules: tuple[str, ...] = (), program: str = "perl") -> Path:
    """The file ``$variable`` names, or skip (also without ``program`` or the Perl modules)."""
    path = os.environ.get(variable, "")
    if not path or not Path(path).is_file():
        pytest.skip(f"set {variable} to run the reference tool live (tests/data/oracles/README.md)")
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    modules = [f"-M{m}" for m in perl_modules]
    if modules and subprocess.run(["perl", *modules, "-e", "1"], capture_output=True).returncode != 0:
        pytest.skip(f"perl lacks {', '.join(perl_modules)}")
    return Path(path)


def test_live_mteval_v13a() -> None:
    script = _live_tool("MTEVAL_V13A", ("XML::Twig",))
    rows = [i for i in range(640, 700)] + [i for i in range(880, 950)]
    refs = {r: [_lines(f"refs/{r}.en")[i] for i in rows] + [c.replace("0", "0 x") for c in CRAFTED]
            for r in ("A", "B")}
    systems = {s: [_lines(f"sys/{s}.en")[i] for i in rows] + CRAFTED for s in ("AFRL", "Online-W")}
    family = BleuNist()
    docs = DocumentIndex.single(len(rows) + len(CRAFTED))
    for names in (("A",), ("A", "B")):
        printed = _tool_module("mteval_v13a_oracle").run_mteval(script, systems["AFRL"],
                                                                {n: refs[n] for n in names}, systems)
        prepared = family.prepare([Side(n, refs[n]) for n in names])
        ours = {s: family.score(Side(s, hyp), prepared, docs, ("BLEU", "NIST")) for s, hyp in systems.items()}
        assert len(printed) == 2 * (len(rows) + len(CRAFTED) + 1)
        for row in printed:
            for metric in ("BLEU", "NIST"):
                assert _value(ours[row["target"]][metric], row["segment"]) == pytest.approx(
                    float(row[metric]), rel=1e-12, abs=1e-13), (names, row["target"], row["segment"], metric)


# ---- chrF, TER, WER, PER on lines 501-1000 ------------------------------------------------------------

def _second_half(scores: ScoreSet) -> np.ndarray:
    return np.asarray(scores.segments)[SECOND_HALF]


@pytest.mark.slow
def test_chrf_lines_501_1000_equal_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    family = ChrF()
    prepared = _references(family, ("A+B",))["A+B"]
    refs = [_lines("refs/A.en"), _lines("refs/B.en")]
    for system in _systems():
        hyp = _lines(f"sys/{system}.en")
        ours = family.score(Side(system, hyp), prepared, DocumentIndex.single(N_FULL_SEGMENTS), family.variants)
        for variant, word_order in (("chrF", 0), ("chrF++", 2)):
            theirs = [sacrebleu.sentence_chrf(hyp[i], [r[i] for r in refs], word_order=word_order).score
                      for i in range(*SECOND_HALF.indices(N_FULL_SEGMENTS))]
            assert _second_half(ours[variant]).tolist() == theirs, (system, variant)  # equal floats
            whole = sacrebleu.metrics.CHRF(word_order=word_order).corpus_score(hyp, refs).score
            assert ours[variant].system == whole, (system, variant)


@pytest.mark.slow
def test_ter_lines_501_1000_equal_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    family = TER()
    prepared = _references(family, ("A+B",))["A+B"]
    refs = [_lines("refs/A.en"), _lines("refs/B.en")]
    for system in ("AFRL", "Online-Y"):
        hyp = _lines(f"sys/{system}.en")
        ours = family.score(Side(system, hyp), prepared, DocumentIndex.single(N_FULL_SEGMENTS), ("TER",))["TER"]
        theirs = [sacrebleu.sentence_ter(hyp[i], [r[i] for r in refs]).score
                  for i in range(*SECOND_HALF.indices(N_FULL_SEGMENTS))]
        np.testing.assert_allclose(_second_half(ours), theirs, rtol=0, atol=1e-9, err_msg=system)


def _levenshtein(hyp: list[str], ref: list[str]) -> int:
    row = list(range(len(ref) + 1))
    for i, word in enumerate(hyp, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(ref, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1]


def _wer_per(hyp: str, ref: str) -> tuple[float, float]:
    """WER.pl / PER.pl of one segment (oracle README section 5), from the definitions."""
    h, r = hyp.split(), ref.split()
    correct = sum((Counter(h) & Counter(r)).values())
    return _levenshtein(h, r) / len(r), 1 - (correct - max(0, len(h) - len(r))) / len(r)


def test_wer_per_lines_501_1000_equal_the_definition() -> None:
    family = ErrorRates()
    prepared = _references(family)
    refs = {r: _lines(f"refs/{r}.en") for r in ("A", "B")}
    indices = range(*SECOND_HALF.indices(N_FULL_SEGMENTS))
    for system in _systems():
        hyp = _lines(f"sys/{system}.en")
        by_ref = {r: np.array([_wer_per(hyp[i], refs[r][i]) for i in indices]) for r in ("A", "B")}
        for refset in REFSETS:
            ours = family.score(Side(system, hyp), prepared[refset], DocumentIndex.single(N_FULL_SEGMENTS),
                                ("-WER", "-PER"))
            for column, variant in enumerate(("-WER", "-PER")):
                expected = np.max([-by_ref[r][:, column] for r in refset.split("+")], axis=0)
                np.testing.assert_allclose(_second_half(ours[variant]), expected, rtol=0, atol=1e-12,
                                           err_msg=f"{system} {refset} {variant}")


def _second_half_lines(path: str) -> list[str]:
    return _lines(path)[SECOND_HALF]


def test_live_rouge_lines_501_1000() -> None:
    script = _live_tool("ROUGE_155", ("XML::DOM", "DB_File"))
    family = RougeFamily()
    refs = [_second_half_lines("refs/A.en"), _second_half_lines("refs/B.en")]
    prepared = family.prepare([Side("A", refs[0]), Side("B", refs[1])])
    n = len(refs[0])
    for system in ("AFRL", "Online-W"):
        hyp = _second_half_lines(f"sys/{system}.en")
        segments, averages = _tool_module("reference_runs").run_rouge(script, hyp, refs)
        ours = family.score(Side(system, hyp), prepared, DocumentIndex.single(n), family.variants)
        for variant in family.variants:
            name = "ROUGE-W-1.2" if variant == "ROUGE-W" else variant
            want = [segments[(name, i)] for i in range(1, n + 1)]
            np.testing.assert_allclose(np.round(ours[variant].segments, 5), want, rtol=0, atol=5e-6,
                                       err_msg=f"{system} {variant}")
            assert round(ours[variant].system, 5) == pytest.approx(averages[name], abs=5e-6), (system, variant)


def test_live_meteor_lines_501_1000() -> None:
    jar = _live_tool("METEOR_JAR", program="java")
    table = os.environ.get("METEOR_PARAPHRASE", "")
    modules = {"METEOR-ex": "exact", "METEOR-sy": "exact stem synonym"}
    if table:
        modules["METEOR-pa"] = "exact stem paraphrase"
    family = MeteorFamily()
    refs = {r: _second_half_lines(f"refs/{r}.en") for r in ("A", "B")}
    prepared = family.prepare([Side(r, refs[r]) for r in refs])
    systems = {s: _second_half_lines(f"sys/{s}.en") for s in ("AFRL", "NiuTrans", "Online-Y")}
    n = len(refs["A"])
    for variant, names in modules.items():
        segments, system_scores = _tool_module("reference_runs").run_meteor(
            jar, systems, refs, names, Path(table) if "paraphrase" in names else None)
        for system, hyp in systems.items():
            ours = family.score(Side(system, hyp), prepared, DocumentIndex.single(n), [variant])[variant]
            want = [segments[(system, i)] for i in range(1, n + 1)]
            np.testing.assert_allclose(ours.segments, want, rtol=0, atol=1e-12, err_msg=f"{system} {variant}")
            assert ours.system == pytest.approx(system_scores[system], abs=1e-12), (system, variant)


def test_live_wer_per_every_line() -> None:
    scripts = {"WER": _live_tool("WER_PL"), "PER": _live_tool("PER_PL")}
    family = ErrorRates()
    prepared = _references(family)
    refs = {r: _lines(f"refs/{r}.en") for r in ("A", "B")}
    run = _tool_module("reference_runs").run_error_rate
    for system in _systems():
        hyp = _lines(f"sys/{system}.en")
        perl = {(m, r): run(script, hyp, refs[r]) for m, script in scripts.items() for r in refs}
        for refset in REFSETS:
            names = refset.split("+")
            ours = family.score(Side(system, hyp), prepared[refset], DocumentIndex.single(N_FULL_SEGMENTS),
                                ("-WER", "-PER"))
            for metric in scripts:
                got = ours[f"-{metric}"]
                assert got.system == pytest.approx(max(-perl[(metric, r)][0] for r in names), abs=1e-12)
                want = np.max([-np.array(perl[(metric, r)][1]) for r in names], axis=0)
                np.testing.assert_allclose(got.segments, want, rtol=0, atol=1e-12, err_msg=f"{system} {refset}")
