"""Sufficient statistics in the score cache and exact corpus scores on any subset (issue 11, item 1;
``docs/statistics.md``).

Through the installed commands on the bundled en-de sample: ``iqeval -doOQ -T`` at ``-G sys`` equals
sacreBLEU 2.6.0 run on those lines (chrF, chrF++, TER) and each family run in-process on those lines
alone (BLEU, WER, PER, GTM, ROUGE's bootstrap); a partly selected document follows the same rule;
users' metrics keep the mean and say so; a statistics-less file of a statistics family is an error
for a subset (one line, exit 2) and is computed again by ``iqsetup``. In-process: statistics survive
the write/read round trip bit for bit, the digest covers them, damaged statistics are one-line
errors, and every family's rule over all segments gives back its own system and document scores.
NIST of a subset is recomputed on those lines (its information weights are those of the run's
reference lines). With ``../shared``: ``-T 1-500`` of the full 1000-line WMT21 ru-en equals the
oracles (the tools run on lines 1-500 alone), NIST included.
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_shared
from helpers import ENDE, ende_config, run
from test_bad_input import assert_user_error

from mteval.errors import CacheError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side, StatsFamily
from mteval.scores import ScoreSet
from mteval.store.cache import ScoreCache
from mteval.store.iqxml import ScoreFile, content_digest, parse, to_xml

sacrebleu = pytest.importorskip("sacrebleu")

SYSTEMS = ("Facebook-AI", "UEdin", "Online-W")
REFS = ("A", "C", "D")
METRICS = ["BLEU", "NIST", "NIST-2", "NISTi-3", "chrF", "chrF++", "TER", "-WER", "PER", "GTM-2", "RG-L"]
FIRST = 30  # -T 1-30
DOCS = ("d1",) * 40 + ("d2",) * 30 + ("d3",) * 30  # documents of the sample for the -G doc tests


def lines(path: Path, n: int | None = None) -> list[str]:
    with open(path, encoding="utf-8") as f:
        out = [line.rstrip("\n") for line in f]
    return out if n is None else out[:n]


def tsv(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """iqsetup of the en-de sample (three documents) for every statistics family and ROUGE."""
    tmp = tmp_path_factory.mktemp("subset")
    docids = tmp / "docids.txt"
    docids.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    config = ende_config(tmp, metrics=METRICS, docids=str(docids))
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def oq(config: Path, *extra: str) -> list[dict[str, str]]:
    result = run("iqeval", "-doOQ", "--tsv", *extra, str(config))
    assert result.returncode == 0, result.stderr
    return tsv(result.stdout)


def own_system(metric: str, system: str, n: int) -> float:
    """The family run in-process on the first ``n`` lines alone (all three references)."""
    family = registry.create(registry.family_of(metric))
    refs = [Side(r, lines(ENDE / "refs" / f"{r}.de", n)) for r in REFS]
    hyp = Side(system, lines(ENDE / "sys" / f"{system}.de", n))
    variant = registry.canonical(metric)
    return family.score(hyp, family.prepare(refs), DocumentIndex.single(n), [variant])[variant].system


def test_sys_subset_equals_sacrebleu_run_on_those_lines(experiment: Path) -> None:
    rows = {(r["target"], r["metric"]): r for r in oq(experiment, "-G", "sys", "-T", f"1-{FIRST}")}
    refs = [lines(ENDE / "refs" / f"{r}.de", FIRST) for r in REFS]
    tools = {"chrF": sacrebleu.metrics.CHRF(), "chrF++": sacrebleu.metrics.CHRF(word_order=2),
             "TER": sacrebleu.metrics.TER()}
    for system in SYSTEMS:
        hyps = lines(ENDE / "sys" / f"{system}.de", FIRST)
        for metric, tool in tools.items():
            row = rows[(system, metric)]
            assert row["aggregate"] == "stats"
            assert float(row["score"]) == pytest.approx(tool.corpus_score(hyps, refs).score, abs=1e-9), (system, metric)


def test_sys_subset_equals_each_family_run_on_those_lines(experiment: Path) -> None:
    rows = {(r["target"], r["metric"]): r for r in oq(experiment, "-G", "sys", "-T", f"1-{FIRST}")}
    whole = {r["target"]: float(r["score"]) for r in oq(experiment, "-G", "sys", "-M", "BLEU")}
    for system in SYSTEMS:
        for metric in ("BLEU", "-WER", "PER", "GTM-2", "RG-L"):
            row = rows[(system, metric)]
            assert row["aggregate"] == ("bootstrap" if metric == "RG-L" else "stats")
            assert float(row["score"]) == own_system(metric, system, FIRST), (system, metric)
        assert float(rows[(system, "BLEU")]["score"]) != whole[system]  # a subset, not the stored score


def test_nist_subset_is_recomputed_on_those_lines(experiment: Path) -> None:
    """NIST's information weights come from the reference lines of the run: a -T subset's NIST is
    the family run on those lines alone, not the summed statistics (weights of all 100 lines)."""
    rows = {(r["target"], r["metric"]): r for r in oq(experiment, "-G", "sys", "-T", f"1-{FIRST}",
                                                        "-M", "NIST,NIST-2,NISTi-3,BLEU")}
    family = registry.create("mteval-v13a")
    assert isinstance(family, StatsFamily)
    refs = [Side(r, lines(ENDE / "refs" / f"{r}.de")) for r in REFS]
    for system in SYSTEMS:
        for metric in ("NIST", "NIST-2", "NISTi-3"):
            assert rows[(system, metric)]["aggregate"] == "recompute"
            assert float(rows[(system, metric)]["score"]) == own_system(metric, system, FIRST), (system, metric)
        assert rows[(system, "BLEU")]["aggregate"] == "stats"
    stats = family.segment_stats(Side("UEdin", lines(ENDE / "sys" / "UEdin.de")), family.prepare(refs))
    assert float(rows[("UEdin", "NIST")]["score"]) != family.score_from_stats(stats[:FIRST].sum(axis=0), "NIST")


def test_nist_documents_of_a_subset_are_recomputed_on_those_lines(experiment: Path) -> None:
    """At -G doc with -T, every document's NIST (d1 partly, d2 partly selected here) is mteval-v13a's
    document score of a run on the selected lines; without -T the stored ones, from the file."""
    doc = {(r["target"], r["doc"]): r for r in oq(experiment, "-G", "doc", "-T", "31-70", "-M", "NIST")}
    family = registry.create("mteval-v13a")
    refs = [Side(r, lines(ENDE / "refs" / f"{r}.de")[30:70]) for r in REFS]
    for system in SYSTEMS:
        hyp = Side(system, lines(ENDE / "sys" / f"{system}.de")[30:70])
        own = family.score(hyp, family.prepare(refs), DocumentIndex(DOCS[30:70]), ["NIST"])["NIST"].documents
        assert {d for t, d in doc if t == system} == {"d1", "d2"}
        for name in ("d1", "d2"):  # d2 (rows 41-70) is whole, yet its weights are those of lines 31-70
            assert doc[(system, name)]["aggregate"] == "recompute"
            assert float(doc[(system, name)]["score"]) == own[name], (system, name)
    whole = {(r["target"], r["doc"]): r for r in oq(experiment, "-G", "doc", "-M", "NIST")}
    assert {r["aggregate"] for r in whole.values()} == {"stats"}
    stored = parse(experiment.parent / "cache" / "UEdin" / "A_C_D" / "NIST.xml").scores.documents
    assert {d: float(whole[("UEdin", d)]["score"]) for d in ("d1", "d2", "d3")} == stored


def test_nist_of_a_reference_against_the_others_is_recomputed_too(experiment: Path) -> None:
    rows = oq(experiment, "-G", "sys", "-T", "1-20", "-M", "NIST", "-doref")
    found = {r["target"]: r for r in rows}
    family = registry.create("mteval-v13a")
    others = [Side(r, lines(ENDE / "refs" / f"{r}.de", 20)) for r in ("C", "D")]
    own = family.score(Side("A", lines(ENDE / "refs" / "A.de", 20)), family.prepare(others),
                       DocumentIndex.single(20), ["NIST"])["NIST"].system
    assert found["A"]["refset"] == "C_D" and found["A"]["aggregate"] == "recompute"
    assert float(found["A"]["score"]) == own


def test_nist_recomputed_with_the_experiments_case_setting(tmp_path: Path) -> None:
    """An experiment with ``case: ci`` recomputes a subset's NIST case-insensitively, as iqsetup scored it."""
    config = ende_config(tmp_path, metrics=["NIST"], systems={"UEdin": str(ENDE / "sys" / "UEdin.de")},
                         references={"A": str(ENDE / "refs" / "A.de")}, sets={}, case="ci")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    found = float(oq(config, "-G", "sys", "-T", "1-20")[0]["score"])
    refs = [Side("A", lines(ENDE / "refs" / "A.de", 20))]
    hyp = Side("UEdin", lines(ENDE / "sys" / "UEdin.de", 20))
    scores = {}
    for case_sensitive in (False, True):
        family = registry.create("mteval-v13a", case_sensitive)
        scores[case_sensitive] = family.score(hyp, family.prepare(refs), DocumentIndex.single(20), ["NIST"])["NIST"]
    assert found == scores[False].system != scores[True].system


def test_a_generated_reference_set_is_read_from_its_files(experiment: Path, tmp_path: Path) -> None:
    """-R HYB: the set's parallel texts CACHE/.hybrid/HYB.1..K are its references; missing or
    short files are one-line errors naming the file."""
    from mteval.evaluate.outside_qarla import SubsetTexts
    from mteval.experiment.loading import load
    from mteval.experiment.texts import load_texts

    texts = load_texts(load(experiment))
    for k, ref in enumerate(("A", "C"), start=1):
        (tmp_path / f"HYB.{k}").write_text("\n".join(lines(ENDE / "refs" / f"{ref}.de")) + "\n", encoding="utf-8")
    rows = np.arange(10, 40)
    found = SubsetTexts(texts, None, tmp_path).statistics("mteval-v13a", "UEdin", ("HYB",), rows)
    family = registry.create("mteval-v13a")
    assert isinstance(family, StatsFamily)
    own = family.subset_stats(Side("UEdin", lines(ENDE / "sys" / "UEdin.de")),
                              [Side(r, lines(ENDE / "refs" / f"{r}.de")) for r in ("A", "C")], rows)
    assert found.tolist() == own.tolist()
    with pytest.raises(CacheError, match="no text of 'OTHER'") as caught:
        SubsetTexts(texts, None, tmp_path).statistics("mteval-v13a", "UEdin", ("OTHER",), rows)
    assert str(tmp_path / "OTHER.1") in caught.value.format()
    (tmp_path / "HYB.2").write_text("one line\n", encoding="utf-8")
    with pytest.raises(CacheError, match="1 lines, the test set has 100"):
        SubsetTexts(texts, None, tmp_path).statistics("mteval-v13a", "UEdin", ("HYB",), rows)


def test_whole_set_never_touches_the_texts(experiment: Path) -> None:
    """Without -T the stored scores are read as they are: the texts are not even looked at."""
    from mteval.evaluate.outside_qarla import SubsetTexts, outside_qarla
    from mteval.evaluate.selection import select
    from mteval.experiment.loading import load

    class Untouchable:
        def __getattr__(self, name: str) -> None:
            raise AssertionError(f"texts used: {name}")

        def __len__(self) -> int:
            raise AssertionError("texts used")

    cache = ScoreCache(experiment.parent / "cache")
    documents = DocumentIndex(DOCS)
    for level in ("sys", "doc"):
        sel = select(load(experiment), cache, len(DOCS), "NIST", level=level)
        records = outside_qarla(cache, sel, documents, SubsetTexts(Untouchable()))  # type: ignore[arg-type]
        assert records and {r["aggregate"] for r in records} == {"stats"}
        assert not any(r["_subset"] for r in records)


def test_partly_selected_documents_follow_the_rule(experiment: Path) -> None:
    doc = {(r["target"], r["metric"], r["doc"]): r for r in oq(experiment, "-G", "doc", "-T", "31-50")}
    sys_rows = {(r["target"], r["metric"]): r for r in oq(experiment, "-G", "sys", "-T", "31-40")}
    seg = {(r["target"], r["metric"], int(r["segment"])): float(r["score"])
           for r in oq(experiment, "-G", "seg", "-T", "31-40")}
    whole = {(r["target"], r["metric"], r["doc"]): r for r in oq(experiment, "-G", "doc")}
    for system in SYSTEMS:
        assert {d for t, m, d in doc if t == system and m == "BLEU"} == {"d1", "d2"}
        for metric in ("BLEU", "chrF", "TER"):  # d1 rows 31-40: the statistics of those rows
            assert doc[(system, metric, "d1")]["score"] == sys_rows[(system, metric)]["score"]
            assert doc[(system, metric, "d1")]["aggregate"] == "stats"
        for metric in ("GTM-2", "-WER", "RG-L"):  # Asiya's documents: the mean of their segments
            mean = float(np.mean([seg[(system, metric, n)] for n in range(31, 41)]))
            assert float(doc[(system, metric, "d1")]["score"]) == pytest.approx(mean, abs=1e-15)
            assert doc[(system, metric, "d1")]["aggregate"] == "mean"
        for metric in METRICS:  # d2 (rows 41-70) partly selected, d3 not at all
            assert doc[(system, metric, "d2")]["score"] != whole[(system, metric, "d2")]["score"], metric
            assert (system, metric, "d3") not in doc


def test_text_view_names_the_rules_of_subset_scores(experiment: Path) -> None:
    result = run("iqeval", "-doOQ", "-G", "sys", "-T", "1-30", "-M", "BLEU,GTM-2,RG-L", str(experiment))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == ("note: sys scores of part of the test set: BLEU, GTM-2 from summed "
                                              "statistics; RG-L as ROUGE's bootstrap average of segment scores")
    whole = run("iqeval", "-doOQ", "-G", "sys", "-M", "BLEU", str(experiment))
    assert "note:" not in whole.stdout
    assert {r["aggregate"] for r in oq(experiment, "-G", "sys", "-M", "BLEU")} == {"stats"}


def _drop_user_metric(config: Path) -> dict[str, np.ndarray]:
    """A user's MINE.xml (no statistics, a system score that is not the mean) for every system."""
    cache, values = ScoreCache(config.parent / "cache"), {}
    for k, system in enumerate(SYSTEMS):
        segments = np.array([((i * 37 + k) % 1000) / 1000 for i in range(1, 101)])
        segments[4] = np.nan
        values[system] = segments
        cache.save(system, "A_C_D", "MINE", ScoreSet(0.5, {}, segments), DOCS)
    return values


def test_user_metric_keeps_the_mean_and_says_so(experiment: Path) -> None:
    values = _drop_user_metric(experiment)
    rows = oq(experiment, "-G", "sys", "-M", "MINE", "-T", "1-30")
    for row in rows:
        assert row["aggregate"] == "mean"
        assert float(row["score"]) == float(np.nanmean(values[row["target"]][:30]))
    assert {r["aggregate"] for r in oq(experiment, "-G", "sys", "-M", "MINE")} == {"file"}
    text = run("iqeval", "-doOQ", "-G", "sys", "-T", "1-30", "-M", "MINE,chrF", str(experiment)).stdout
    assert text.splitlines()[-1] == ("note: sys scores of part of the test set: MINE as the mean of segment "
                                     "scores; chrF from summed statistics")


def _without_stats(path: Path) -> None:
    """Rewrite a computed file as mteval wrote it before statistics were stored (same signature)."""
    found = parse(path)
    s = found.scores
    old = ScoreFile(found.metric, found.target, found.refset, ScoreSet(s.system, s.documents, s.segments),
                    found.signature, found.inputs)
    path.write_bytes(to_xml(old, DOCS))


def test_file_without_statistics_is_an_error_for_a_subset_then_recomputed(experiment: Path) -> None:
    path = experiment.parent / "cache" / "UEdin" / "A_C_D" / "chrF.xml"
    _without_stats(path)
    assert parse(path).scores.stats is None
    subset = run("iqeval", "-doOQ", "-G", "sys", "-T", "1-30", "-M", "chrF", "-S", "UEdin", str(experiment))
    assert_user_error(subset, str(path), "no sufficient statistics", "run iqsetup again")
    assert_user_error(run("iqeval", "-doOQ", "-G", "doc", "-T", "1-50", "-M", "chrF", "-S", "UEdin", str(experiment)),
                      str(path), "the doc score of part of the test set")
    assert oq(experiment, "-G", "sys", "-M", "chrF", "-S", "UEdin")[0]["aggregate"] == "stats"  # whole set: stored
    assert len(oq(experiment, "-G", "seg", "-T", "1-30", "-M", "chrF", "-S", "UEdin")) == 30
    assert len(oq(experiment, "-G", "doc", "-T", "1-40", "-M", "chrF,GTM-2", "-S", "UEdin")) == 2  # d1 whole
    rerun = run("iqsetup", str(experiment))
    assert rerun.returncode == 0, rerun.stderr
    assert re.search(r"\b1 file\(s\) computed", rerun.stderr), rerun.stderr
    assert parse(path).scores.stats is not None
    assert len(oq(experiment, "-G", "sys", "-T", "1-30", "-M", "chrF", "-S", "UEdin")) == 1


def test_statistics_of_another_family_version_are_refused(experiment: Path, tmp_path: Path) -> None:
    config = ende_config(tmp_path, metrics=METRICS, docids=str(experiment.parent / "docids.txt"))
    source = experiment.parent / "cache" / "UEdin" / "A_C_D" / "TER.xml"
    target = tmp_path / "cache" / "UEdin" / "A_C_D" / "TER.xml"
    target.parent.mkdir(parents=True)
    found = parse(source)
    changed = ScoreFile(found.metric, found.target, found.refset, found.scores,
                        found.signature.replace("|v:2|", "|v:0|"), found.inputs, aggregate=found.aggregate)
    target.write_bytes(to_xml(changed, DOCS))
    result = run("iqeval", "-doOQ", "-G", "sys", "-T", "1-30", "-M", "TER", "-S", "UEdin", "-R", "A,C,D", str(config))
    # refused before its statistics are used: iqeval checks every file's signature (mteval.setup.verify)
    assert_user_error(result, str(target), "computed with other settings (v:0 in the file, v:2 now)", "run iqsetup")


# ---- the score file ----

def test_each_file_stores_what_its_variant_needs(experiment: Path) -> None:
    folder = experiment.parent / "cache" / "UEdin" / "A_C_D"
    widths = {"BLEU": 18, "NIST": 18, "chrF": 18, "chrF++": 24, "TER": 2, "-WER": 12, "GTM-2": 9}
    for metric, width in widths.items():
        found = parse(folder / f"{metric}.xml")
        assert found.scores.stats is not None and found.scores.stats.shape == (100, width), metric
        assert found.aggregate == ("sys:stats doc:mean" if metric in ("-WER", "GTM-2") else "sys:stats doc:stats")
    rouge = parse(folder / "RG-L.xml")
    assert rouge.scores.stats is None and rouge.aggregate == "sys:bootstrap doc:mean"


def test_statistics_round_trip_bit_for_bit(tmp_path: Path) -> None:
    stats = np.array([[20, 23, 24.666666666666668, 1 / 3, 0.1 + 0.2, 123456789012.25],
                      [0, -0.0, 1e-300, 123456789, 7.5, math.pi]])
    scores = ScoreSet(0.25, {"d1": 0.5}, np.array([0.1, np.nan]), stats)
    path = tmp_path / "X.xml"
    path.write_bytes(to_xml(ScoreFile("X", "S", "A", scores, "family:F|v:1", aggregate="sys:stats doc:stats"),
                            ("d1", "d1")))
    found = parse(path)
    assert found.scores.stats is not None
    assert found.scores.stats.view(np.int64).tolist() == stats.view(np.int64).tolist()
    assert found.aggregate == "sys:stats doc:stats"
    text = path.read_text()
    assert 'stats="20 23 24.666666666666668 0.3333333333333333 0.30000000000000004 123456789012.25"' in text
    assert 'stats="0 -0.0 1e-300 123456789 7.5 3.141592653589793"' in text


def test_the_digest_covers_the_statistics(tmp_path: Path) -> None:
    scores = ScoreSet(0.25, {"d1": 0.5}, np.array([0.1, 0.2]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert content_digest(scores) != content_digest(ScoreSet(0.25, {"d1": 0.5}, np.array([0.1, 0.2])))
    path = tmp_path / "X.xml"
    path.write_bytes(to_xml(ScoreFile("X", "S", "A", scores), ("d1", "d1")))
    path.write_text(path.read_text().replace('stats="3 4"', 'stats="3 5"'))
    with pytest.raises(CacheError, match="digest"):
        parse(path)


@pytest.mark.parametrize("change, fragment", [
    (('stats="3 4"', 'stats="3"'), "segment 2 has 1 statistics, the file declares n_stats=2"),
    ((' stats="3 4"', ""), "segment 2 has no stats"),
    (('stats="3 4"', 'stats="3 x"'), "segment 2 stats: 'x' is not a number"),
    (('stats="3 4"', 'stats="3 inf"'), "out of range"),
    (('stats="3 4"', 'stats="3 1e13"'), "out of range"),
    (('stats="3 4"', 'stats="3 nan"'), "not a number"),
    (('stats="3 4"', 'stats=""'), "stats has 0 values"),
    (('n_stats="2"', 'n_stats="two"'), "n_stats='two'"),
])
def test_damaged_statistics_are_one_line_errors(tmp_path: Path, change: tuple[str, str], fragment: str) -> None:
    scores = ScoreSet(0.25, {"d1": 0.5}, np.array([0.1, 0.2]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    path = tmp_path / "X.xml"
    path.write_bytes(to_xml(ScoreFile("X", "S", "A", scores), ("d1", "d1")))
    path.write_text(re.sub(r' digest="[^"]*"', "", path.read_text()).replace(*change))  # a user's edit
    with pytest.raises(CacheError, match=re.escape(fragment)) as caught:
        parse(path)
    assert str(path) in caught.value.format() and "\n" not in caught.value.format()


# ---- every family's rule over all segments gives back its own scores ----

@pytest.mark.parametrize("metric", ["BLEU", "NIST-3", "chrF++", "TER", "-WER", "1-PER", "GTM-3", "RG-L", "RG-2"])
def test_the_rule_over_whole_sets_gives_the_familys_scores(metric: str) -> None:
    family = registry.create(registry.family_of(metric))
    variant = registry.canonical(metric)
    documents = DocumentIndex(DOCS)
    refs = [Side(r, lines(ENDE / "refs" / f"{r}.de")) for r in REFS[:2]]
    scores = family.score(Side("UEdin", lines(ENDE / "sys" / "UEdin.de")), family.prepare(refs), documents,
                          [variant])[variant]
    assert (scores.stats is not None) == isinstance(family, StatsFamily)
    assert family.subset_score(scores, np.arange(len(documents)), variant, "sys") == scores.system
    for doc in documents.documents:
        assert family.subset_score(scores, documents.rows(doc), variant, "doc") == scores.documents[doc], doc


# ---- the full WMT21 ru-en: -T 1-500 equals the tools run on lines 1-500 alone ----

@pytest.mark.shared
@pytest.mark.slow
@needs_shared
def test_first_500_of_1000_lines_equal_the_oracles(tmp_path: Path) -> None:
    from oracles import ORACLES, RUEN, read_oracle
    systems = ("AFRL", "Online-W", "NiuTrans")
    config = ende_config(tmp_path, source=str(RUEN / "src.ru"), references={"A": str(RUEN / "refs" / "A.en")},
                         systems={s: str(RUEN / "sys" / f"{s}.en") for s in systems}, sets={}, language="en",
                         metrics=["BLEU", "NIST", "NIST-3", "NISTi-2", "chrF", "chrF++", "TER", "-WER", "-PER",
                                  "ROUGE-L", "METEOR-ex"])
    assert run("iqsetup", "-q", str(config)).returncode == 0
    rows = {(r["target"], r["metric"]): float(r["score"]) for r in oq(config, "-G", "sys", "-T", "1-500")}
    mteval = read_oracle(ORACLES / "mteval.tsv", ["BLEU", "NIST", "NIST-3", "NISTi-2"])
    sacre = read_oracle(ORACLES / "sacrebleu.tsv", ["sacrebleu-chrF", "sacrebleu-chrF++", "sacrebleu-TER"])
    asiya = read_oracle(ORACLES / "wer_per.tsv", ["-WER", "-PER"])
    asiya.update(read_oracle(ORACLES / "rouge.tsv", ["ROUGE-L"]))
    asiya.update(read_oracle(ORACLES / "meteor.tsv", ["METEOR-ex"]))
    for system in systems:
        assert rows[(system, "BLEU")] == pytest.approx(float(mteval[("BLEU", system, "A")]["-"]), rel=1e-12)
        for metric in ("chrF", "chrF++", "TER"):
            expected = float(sacre[(f"sacrebleu-{metric}", system, "A")]["-"])
            assert rows[(system, metric)] == pytest.approx(expected, abs=1e-9), (system, metric)
        for metric in ("-WER", "-PER", "ROUGE-L", "METEOR-ex"):  # ROUGE: bootstrap of lines 1-500
            assert rows[(system, metric)] == pytest.approx(float(asiya[(metric, system, "A")]["-"]), abs=1e-12), metric
        # NIST: recomputed on lines 1-500 (their information weights), as mteval-v13a run on them
        for metric in ("NIST", "NIST-3", "NISTi-2"):  # at the printed precision (15 digits; 4 decimals)
            printed = mteval[(metric, system, "A")]["-"]
            tolerance = 0.5 * 10.0 ** -len(printed.partition(".")[2]) + 1e-12 * abs(float(printed))
            assert abs(rows[(system, metric)] - float(printed)) <= tolerance, (system, metric, printed)


def test_mean_rule_counts_a_missing_segment_as_zero_like_the_familys_own_scores() -> None:
    """Registered mean-rule families (CESM may leave a segment unscored) aggregate as
    ``mean_score_set`` does; users' own metrics skip such segments (``nan_mean``)."""
    from mteval.metrics.base import mean_score_set, nan_mean
    segments = np.array([0.5, np.nan, 0.25, 1.0])
    own = mean_score_set(segments, DocumentIndex(("a", "a", "b", "b")))
    family = registry.create("CESM")
    variant = family.variants[0]
    assert family.aggregation("sys") == family.aggregation("doc") == "mean"
    assert family.subset_score(own, np.arange(4), variant, "sys") == own.system == 0.4375
    assert family.subset_score(own, np.array([0, 1]), variant, "doc") == own.documents["a"] == 0.25
    assert nan_mean(segments[:2]) == 0.5


@pytest.mark.models
@pytest.mark.slow  # parses 10 lines of the ru-en sample (~15 s)
def test_sepia_of_a_subset_follows_its_weighted_rule(tmp_path: Path) -> None:
    """SEPIA's system score weighs documents by their segments and segments by their length (§2.2):
    ``-T`` and a partly selected document follow that rule on the selected segments and say
    ``weighted`` (version 1 gave them the plain mean and said ``mean``)."""
    from helpers import small_experiment  # noqa: PLC0415

    from mteval.annotate.annotator import Annotator  # noqa: PLC0415

    ids = ["d1"] * 6 + ["d2"] * 4
    (tmp_path / "ids").write_text("\n".join(ids) + "\n", encoding="utf-8")
    config = small_experiment(tmp_path / "x", ["SEPIA"], segments=10, docids=str(tmp_path / "ids"))
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    picked = [1, 2, 3, 7, 8]  # -T 1-3,7-8: part of both documents
    records = oq(config, "-G", "seg", "-M", "SEPIA", "-R", "A")
    seg = {(r["target"], int(r["segment"])): float(r["score"]) for r in records}
    texts = {s: lines(tmp_path / "x" / f"{s}.txt") for s, _ in seg}
    ann = Annotator(tmp_path / "x" / "cache" / "annotation")
    for level in ("sys", "doc"):
        rows = oq(config, "-G", level, "-M", "SEPIA", "-R", "A", "-T", "1-3,7-8")
        assert rows and {r["aggregate"] for r in rows} == {"weighted"}
        for row in rows:
            system = row["target"]
            length = [len(s) for s in ann.annotate(texts[system])]
            docs = {d: [n for n in picked if ids[n - 1] == d] for d in ("d1", "d2")}
            mean = {d: sum(seg[(system, n)] * length[n - 1] for n in ns) / sum(length[n - 1] for n in ns)
                    for d, ns in docs.items()}
            expected = mean[row["doc"]] if level == "doc" else sum(len(docs[d]) * mean[d] for d in docs) / len(picked)
            assert float(row["score"]) == pytest.approx(expected, abs=1e-12), (level, row)
            assert ann.parsed == 0  # iqsetup parsed them: read from its cache
