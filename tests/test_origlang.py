"""Segment sets of SGML documents' origlang/genre/domain (mteval.experiment.doc_sets): -T origlang_en,
origlang_non-en, genre_X as sacreBLEU 2.6.0's --origlang/--subset select them (its own filter_subset run
on the same files), mteval score --origlang/--subset, the one-line errors, and the WMT17 en-fi parity."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SHARED, needs_shared
from helpers import RUEN, run

# (docid, origlang, genre, segments): en twice, de once, a document without origlang, one with origlang=""
DOCS = [("d1", "en", "news", ["The cat sat on the mat .", "It was a sunny day ."]),
        ("d2", "de", "politics", ["The parliament voted today .", "The vote was close ."]),
        ("d3", None, "news", ["A dog barked loudly ."]),
        ("d4", "en", "sport", ["The team won the cup .", "Fans cheered all night ."]),
        ("d5", "", "news", ["Rain is expected tomorrow ."])]


def sgml(path: Path, tag: str, rewrite: Any = None, origlang: dict[str, str | None] | None = None) -> Path:
    """DOCS as an SGML file (``rewrite``: each segment's text changed; ``origlang``: other values)."""
    lines = [f'<{tag} setid="t" srclang="any">']
    for doc, lang, genre, segments in DOCS:
        lang = (origlang or {}).get(doc, lang)
        attrs = f' docid="{doc}" genre="{genre}"' + (f' origlang="{lang}"' if lang is not None else "")
        lines += [f'<doc sysid="x"{attrs}>', "<p>"]
        lines += [f'<seg id="{i}">{rewrite(s) if rewrite else s}</seg>' for i, s in enumerate(segments, start=1)]
        lines += ["</p>", "</doc>"]
    path.write_text("\n".join(lines + [f"</{tag}>"]) + "\n", encoding="utf-8")
    return path


def system_of(text: str) -> str:
    return text.replace("The", "A").replace(".", "!")


def experiment(tmp: Path, **overrides: Any) -> Path:
    config = {"name": "o", "cache": str(tmp / "cache"), "source": str(sgml(tmp / "src.sgm", "srcset")),
              "references": {"A": str(sgml(tmp / "ref.sgm", "refset"))},
              "systems": {"S": str(sgml(tmp / "sys.sgm", "tstset", system_of))},
              "metrics": ["sacreBLEU", "chrF"], **overrides}
    path = tmp / "o.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from mteval.api import Campaign

    found = Campaign.open(experiment(tmp_path_factory.mktemp("origlang")))
    found.compute(jobs=1)
    return found


def test_reader_keeps_the_document_attributes(tmp_path: Path) -> None:
    from mteval.io.sgml import read_sgml

    text = read_sgml(sgml(tmp_path / "s.sgm", "srcset"))[0]
    assert text.doc_attributes == {"d1": {"origlang": "en", "genre": "news"},
                                   "d2": {"origlang": "de", "genre": "politics"}, "d3": {"genre": "news"},
                                   "d4": {"origlang": "en", "genre": "sport"},
                                   "d5": {"genre": "news"}}  # origlang="" counts as absent


def sacrebleu_selection(tmp: Path, source: Path, origlang: str) -> list[int]:
    """The 1-based lines sacreBLEU's own filter_subset keeps of ``source`` (placed where it reads wmt17 en-fi)."""
    utils = pytest.importorskip("sacrebleu.utils")
    from sacrebleu.dataset import DATASETS

    raw = tmp / "sacrebleu" / "wmt17" / "raw" / DATASETS["wmt17"].langpairs["en-fi"][0]
    raw.parent.mkdir(parents=True, exist_ok=True)
    if not raw.exists():
        os.symlink(source, raw)
    n = sum(line.startswith("<seg ") for line in source.read_text(encoding="utf-8").splitlines())
    old = utils.SACREBLEU_DIR
    utils.SACREBLEU_DIR = str(tmp / "sacrebleu")
    try:
        return utils.filter_subset([list(range(1, n + 1))], "wmt17", "en-fi", origlang)[0]
    finally:
        utils.SACREBLEU_DIR = old


@pytest.mark.parametrize("name, origlang", [("origlang_en", "en"), ("origlang_non-en", "non-en"),
                                            ("origlang_de", "de"), ("origlang_non-de", "non-de")])
def test_sets_are_the_segments_sacrebleu_selects(campaign: Any, tmp_path: Path, name: str, origlang: str) -> None:
    chosen = list(campaign.selection(segments=name).segments)
    assert chosen == sacrebleu_selection(tmp_path, campaign.experiment.source.path, origlang)
    expected = {"origlang_en": [1, 2, 6, 7], "origlang_non-en": [3, 4, 5, 8], "origlang_de": [3, 4],
                "origlang_non-de": [1, 2, 5, 6, 7, 8]}  # d3 (no origlang) and d5 (empty) only in non-
    assert chosen == expected[name]


def test_a_set_scores_as_its_ranges(campaign: Any) -> None:
    by_name = campaign.scores("sys", segments="origlang_non-en")
    by_range = campaign.scores("sys", segments="3-5, 8")
    assert [r["score"] for r in by_name] == [r["score"] for r in by_range]
    assert [r["score"] for r in campaign.scores("sys", segments="genre_news")] == \
        [r["score"] for r in campaign.scores("sys", segments="1-2, 5, 8")]


def test_unknown_value_lists_the_sets(campaign: Any) -> None:
    from mteval.errors import ConfigError

    with pytest.raises(ConfigError, match=r"-T 'origlang_fr': no document of .*src.sgm has origlang 'fr'; sets "
                       r"of its documents: origlang_de, origlang_non-de, origlang_en, origlang_non-en$"):
        campaign.selection(segments="origlang_fr")
    with pytest.raises(ConfigError, match="sets of the SGML documents: origlang_de, .*genre_news"):
        campaign.selection(segments="nonsuch")


def test_user_sets_win_and_plain_texts_have_none(tmp_path: Path) -> None:
    from mteval.api import Campaign
    from mteval.errors import ConfigError

    mine = Campaign.open(experiment(tmp_path, sets={"origlang_en": "1"}))
    assert mine.selection(segments="origlang_en").segments == (1,)
    assert mine.selection(segments="origlang_de").segments == (3, 4)
    plain = tmp_path / "plain.txt"
    plain.write_text("".join(s + "\n" for *_, segments in DOCS for s in segments), encoding="utf-8")
    bare = Campaign.open(experiment(tmp_path, source=None, references={"A": str(plain)}, systems={"S": str(plain)}))
    with pytest.raises(ConfigError, match=r"-T 'origlang_en': no SGML source or reference carries <doc origlang"):
        bare.selection(segments="origlang_en")


def test_the_source_wins_over_a_disagreeing_reference(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mteval.api import Campaign

    ref = sgml(tmp_path / "other.sgm", "refset", origlang={"d2": "en"})
    found = Campaign.open(experiment(tmp_path, references={"A": str(ref)}))
    with caplog.at_level(logging.WARNING):
        assert found.selection(segments="origlang_de").segments == (3, 4)
    assert "other.sgm: 1 document attribute(s) differ from" in caplog.text
    assert "src.sgm, whose are used (first: origlang of document 'd2' is 'de' there, 'en' here)" in caplog.text
    caplog.clear()
    silent = sgml(tmp_path / "silent.sgm", "refset", origlang={"d2": None})  # a value missing: no disagreement
    with caplog.at_level(logging.WARNING):
        Campaign.open(experiment(tmp_path, references={"A": str(silent)})).selection(segments="origlang_de")
    assert "differ" not in caplog.text
    no_source = Campaign.open(experiment(tmp_path, source=None, references={"A": str(ref)}))
    assert no_source.selection(segments="origlang_en").segments == (1, 2, 3, 4, 6, 7)  # the reference's then


def test_committed_sample_is_all_russian_original(tmp_path: Path) -> None:
    from mteval.api import Campaign
    from mteval.errors import ConfigError

    folder = RUEN / "sgml"
    config = {"name": "s", "cache": str(tmp_path / "cache"), "source": str(folder / "src.ru.sgm"),
              "references": {"A": {"path": str(folder / "refs.en.sgm"), "sysid": "A"}},
              "systems": {"AFRL": str(folder / "AFRL.en.sgm")}, "metrics": ["sacreBLEU"]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    found = Campaign.open(tmp_path / "s.yaml")
    assert found.selection(segments="origlang_ru").segments == tuple(range(1, len(found.texts) + 1))
    with pytest.raises(ConfigError, match="origlang_non-ru'.*selects no segment"):
        found.selection(segments="origlang_non-ru")
    with pytest.raises(ConfigError, match="sets of its documents: origlang_ru$"):
        found.selection(segments="origlang_en")


def test_score_origlang_and_subset(campaign: Any, tmp_path: Path) -> None:
    src = campaign.experiment
    ref, system = str(src.references[0].path), str(src.systems[0].path)
    done = run("mteval", "score", "-r", ref, "-i", system, "-m", "sacreBLEU,chrF", "--origlang", "non-en",
               "-f", "json", "-q")
    assert done.returncode == 0, done.stderr
    records = {r["metric"]: r for r in json.loads(done.stdout)}
    expected = {r["metric"]: r["score"] for r in campaign.scores("sys", segments="origlang_non-en")}
    assert {m: r["score"] for m, r in records.items()} == expected
    assert records["sacreBLEU"]["signature"].startswith("nrefs:1|origlang:non-en|case:mixed")
    done = run("mteval", "score", "-r", ref, "-i", system, "-m", "chrF", "--origlang", "en", "--subset", "^sp",
               "--segments", "-q")
    assert done.returncode == 0, done.stderr
    assert [line.split()[1] for line in done.stdout.splitlines()[:3]] == ["corpus", "6", "7"]  # d4 alone
    plain = tmp_path / "plain.txt"
    plain.write_text("a\n" * 8, encoding="utf-8")
    done = run("mteval", "score", "-r", str(plain), "-i", system, "--origlang", "en", "-q")
    assert done.returncode == 2
    assert done.stderr.strip().endswith(f"--origlang: {plain} is plain text; --origlang selects documents by the "
                                        "<doc origlang genre domain> attributes of an SGML reference")
    done = run("mteval", "score", "-r", ref, "-i", system, "--origlang", "fr", "-q")
    assert "--origlang 'fr': no document of" in done.stderr and "its origlang values: de, en" in done.stderr


WMT17 = SHARED / "data" / "wmt17-enfi-sgml"


@needs_shared
@pytest.mark.slow
def test_wmt17_enfi_parity_with_sacrebleu(tmp_path: Path) -> None:
    """refB (and one Helsinki system) against ref A on newstest2017 en-fi, origlang en / non-en: the
    segments sacreBLEU's filter_subset keeps and its corpus_bleu/corpus_chrf on them, equal floats."""
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.dataset import DATASETS

    from mteval.api import Campaign

    sgm = WMT17 / "sgm"
    systems = {"B": sgm / "newstestB2017-enfi-ref.fi.sgm", "HY": WMT17 / "mt" / "helsinki" / "preMT-ensemble.sgm"}
    config = {"name": "enfi", "cache": str(tmp_path / "cache"), "language": "fi",
              "source": str(sgm / "newstest2017-enfi-src.en.sgm"),
              "references": {"A": str(sgm / "newstest2017-enfi-ref.fi.sgm")},
              "systems": {k: str(v) for k, v in systems.items()}, "metrics": ["sacreBLEU", "chrF"]}
    (tmp_path / "enfi.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    campaign = Campaign.open(tmp_path / "enfi.yaml")
    campaign.compute(jobs=1)

    def lines(path: Path) -> list[str]:  # sacreBLEU's own reading of an .sgm file
        out = tmp_path / f"{path.name}.txt"
        DATASETS["wmt17"]._convert_format(str(path), str(out))
        return out.read_text(encoding="utf-8").split("\n")[:-1]

    ref = lines(sgm / "newstest2017-enfi-ref.fi.sgm")
    counts = {}
    for origlang in ("en", "non-en"):
        rows = sacrebleu_selection(tmp_path, sgm / "newstest2017-enfi-src.en.sgm", origlang)
        assert list(campaign.selection(segments=f"origlang_{origlang}").segments) == rows
        counts[origlang] = len(rows)
        records = campaign.scores("sys", segments=f"origlang_{origlang}")
        found = {(r["target"], r["metric"]): r["score"] for r in records}
        for name, path in systems.items():
            hyp = lines(path)
            assert found[name, "sacreBLEU"] == sacrebleu.corpus_bleu([hyp[i - 1] for i in rows],
                                                                     [[ref[i - 1] for i in rows]]).score
            assert found[name, "chrF"] == sacrebleu.corpus_chrf([hyp[i - 1] for i in rows],
                                                                [[ref[i - 1] for i in rows]]).score
    assert counts == {"en": 1502, "non-en": 1500}
