"""A consistent command line (issue 30, deliverable 6): ``--version`` and a ``--help`` description
everywhere, the ``--`` spelling of every IQMT single-dash long option (``-assessments`` and
``--assessments``), selection errors that say what is wrong, and ``mteval metrics`` as a table."""

from __future__ import annotations

import argparse
import dataclasses
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ENDE, ende_config, run

from mteval import __version__
from mteval.cli import iqeval, iqsetup
from mteval.cli import main as mteval_main
from mteval.cli.common import is_single_dash_long
from mteval.errors import ConfigError
from mteval.experiment.loading import load
from mteval.experiment.sets import resolve

SYSTEMS = ("Facebook-AI", "UEdin", "Online-W")  # ende_config's systems, in its order


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """``mteval``'s subcommands (whatever is registered now) and their parsers."""
    parser = mteval_main.build_parser()
    found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser of every command: iqsetup, iqeval, mteval and each mteval subcommand."""
    yield "iqsetup", iqsetup.build_parser()
    yield "iqeval", iqeval.build_parser()
    yield "mteval", mteval_main.build_parser()
    for name, parser in subcommands().items():
        yield f"mteval {name}", parser


def one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one ``prog: error:`` line of a failed command (exit 2), checked to hold ``words``."""
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and re.match(r"^(iqeval|mteval): error: ", lines[0]), lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# ---- --version and --help ----

COMMANDS = [("iqsetup",), ("iqeval",), ("IQsetup",), ("IQeval",), ("mteval",),
            *(("mteval", name) for name in subcommands())]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_version_everywhere(command: tuple[str, ...]) -> None:
    done = run(*command, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mteval {__version__}"
    assert re.fullmatch(r"mteval \d+\.\d+\.\d+\S*", done.stdout.strip())


@pytest.mark.parametrize("module", ["mteval.cli.report", "mteval.cli.import_mtme"])
def test_version_of_the_python_m_entry_points(module: str) -> None:
    done = run(sys.executable, "-m", module, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"mteval {__version__}", done.stderr


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_subcommand_help_has_a_description(name: str) -> None:
    description = subcommands()[name].description
    assert description and description.strip(), name
    shown = run("mteval", name, "--help")
    assert shown.returncode == 0, shown.stderr
    assert " ".join(description.split()[:6]) in " ".join(shown.stdout.split()), shown.stdout[:400]


# ---- --name for every single-dash long option ----

@pytest.mark.parametrize("name,parser", list(parsers()), ids=[name for name, _ in parsers()])
def test_single_dash_long_options_have_their_double_dash_spelling(name: str, parser: argparse.ArgumentParser) -> None:
    table = parser._option_string_actions
    singles = [option for option in table if is_single_dash_long(option)]
    for option in singles:
        assert table.get("-" + option) is table[option], f"{name}: {option} has no -{option}"
    assert "--version" in table, name


def test_the_iqmt_spellings_are_all_kept() -> None:
    table = iqeval.build_parser()._option_string_actions
    for option in ("-doOQ", "-doQUEEN", "-doKING", "-doJACK", "-optimizeKING", "-TT", "-doref", "-remake",
                   "-assessments", "-compare", "-compareSystems", "-baseline", "-TRY", "-TRYoq", "-TRYall",
                   "-G", "-O", "-M", "-S", "-R", "-T"):
        assert option in table, option
    assert {"-JACK", "--JACK", "--jack", "-remake", "--remake"} <= set(iqsetup.build_parser()._option_string_actions)


def test_both_spellings_parse_alike() -> None:
    parse = iqeval.build_parser().parse_args
    single = parse(["-doOQ", "-doref", "-remake", "-assessments", "h.tsv", "-TRYoq", "x.txt", "c.yaml"])
    double = parse(["--doOQ", "--doref", "--remake", "--assessments", "h.tsv", "--TRYoq", "x.txt", "c.yaml"])
    assert vars(single) == vars(double)
    assert single.doOQ and single.doref and single.remake and single.assessments == "h.tsv"
    tune = mteval_main.build_parser().parse_args
    assert (tune(["tune", "c.yaml", "-assessments", "h.tsv", "-M", "BLEU"]).assessments
            == tune(["tune", "c.yaml", "--assessments", "h.tsv", "-M", "BLEU"]).assessments == "h.tsv")


# ---- -assessments / --assessments: real runs ----

@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The en-de sample with BLEU and chrF computed, and MQM judgements of its systems."""
    tmp = tmp_path_factory.mktemp("consistency")
    config = ende_config(tmp, metrics=["BLEU", "chrF"])
    rows = (ENDE / "human" / "mqm.tsv").read_text(encoding="utf-8").splitlines()
    kept = [rows[0], *(r for r in rows[1:] if r.split("\t")[0] in SYSTEMS)]
    (tmp / "human.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    done = run("iqsetup", "-q", str(config))
    assert done.returncode == 0, done.stderr
    return config


def test_iqeval_takes_both_assessments_spellings(experiment: Path) -> None:
    human = str(experiment.parent / "human.tsv")
    single = run("iqeval", "-assessments", human, "-G", "seg", "--tsv", str(experiment))
    double = run("iqeval", "--assessments", human, "--doOQ", "-G", "seg", "--tsv", str(experiment))
    assert single.returncode == 0 and double.returncode == 0, single.stderr + double.stderr
    assert single.stdout and set(single.stdout.splitlines()) <= set(double.stdout.splitlines())


@pytest.mark.slow  # ~5 s: in make test-all (the fast tier stays near 8 minutes)
def test_report_takes_both_assessments_spellings(experiment: Path) -> None:
    human, out = str(experiment.parent / "human.tsv"), experiment.parent
    for option, name in (("-assessments", "single.html"), ("--assessments", "double.html")):
        done = run("mteval", "report", str(experiment), option, human, "--resamples", "20", "-o", str(out / name))
        assert done.returncode == 0, done.stderr
    assert (out / "single.html").read_bytes() == (out / "double.html").read_bytes()


def test_tune_takes_both_assessments_spellings(experiment: Path, tmp_path: Path) -> None:
    copy = tmp_path / "experiment.yaml"  # tune stores its metric in the cache: a cache of its own
    shutil.copytree(experiment.parent / "cache", tmp_path / "cache")
    copy.write_text(experiment.read_text(encoding="utf-8").replace(str(experiment.parent / "cache"),
                                                                    str(tmp_path / "cache")), encoding="utf-8")
    human = str(experiment.parent / "human.tsv")
    reports = []
    for option, name in (("-assessments", "T1"), ("--assessments", "T2")):
        done = run("mteval", "tune", str(copy), option, human, "-M", "BLEU,chrF", "--folds-by-line",
                   "--resamples", "20", "--name", name)
        assert done.returncode == 0, done.stderr
        reports.append([line for line in done.stdout.splitlines() if not line.startswith("stored metric")])
    assert reports[0] == reports[1] and reports[0]


# ---- selection errors ----

def test_known_metric_not_computed(experiment: Path) -> None:
    line = one_line_error(run("iqeval", "-doOQ", "-M", "chrF++", str(experiment)), "-M 'chrF++'",
                          "metric 'chrF++' is known but not in the cache: add it to metrics: and run iqsetup")
    assert "did you mean" not in line and "unknown set name" not in line
    one_line_error(run("iqeval", "-doOQ", "-M", "BLEU,chrF++,TER", str(experiment)),
                   "metrics 'chrF++', 'TER' are known but not in the cache: add them to metrics:")
    one_line_error(run("mteval", "tune", str(experiment), "--assessments", "x.tsv", "-M", "BLEU,TER"),
                   "metric 'TER' is known but not in the cache")


def test_unknown_item_of_a_list_is_named(experiment: Path) -> None:
    line = one_line_error(run("iqeval", "-doOQ", "-S", "UEdin,Foo", str(experiment)),
                          "-S 'UEdin,Foo': unknown system 'Foo'", "systems: Facebook-AI, UEdin, Online-W")
    assert "'UEdin'" not in line.split("systems:")[0]
    one_line_error(run("iqeval", "-doOQ", "-M", "BLEU,Foo,Bar", str(experiment)),
                   "unknown metrics 'Foo', 'Bar'", "metrics: BLEU, chrF")
    one_line_error(run("iqeval", "-doOQ", "-S", "two,Online-W", str(experiment)),
                   "unknown system 'two'", "'two' is a set name: a list takes system names only")
    one_line_error(run("iqeval", "-doOQ", "-S", "UEdin,UEdn", str(experiment)), "did you mean 'UEdin'?")
    one_line_error(run("mteval", "report", str(experiment), "-S", "UEdin,Foo", "-o", "x.html"),
                   "unknown system 'Foo'")


def test_unknown_single_name_lists_the_valid_names(experiment: Path) -> None:
    one_line_error(run("iqeval", "-doOQ", "-R", "B", str(experiment)), "-R 'B': unknown set name or reference",
                   "references: A, C, D", "sets defined under 'sets': two, m, segs, refs2")
    one_line_error(run("iqeval", "-doOQ", "-S", "nosuchset", str(experiment)), "unknown set name or system",
                   "systems: Facebook-AI, UEdin, Online-W")
    one_line_error(run("iqeval", "-doOQ", "-T", "seg", str(experiment)), "-T 'seg': unknown set name",
                   "did you mean 'segs'?")
    one_line_error(run("iqeval", "-doOQ", "-T", "5-3", str(experiment)), "reversed range; did you mean 3-5?")


def test_long_lists_of_valid_names_are_cut(experiment: Path) -> None:
    many = [f"System-{i}" for i in range(30)]
    with pytest.raises(ConfigError) as raised:
        resolve(load(experiment), "-S", "System-1,Nobody", many)
    message = raised.value.format()
    assert "unknown system 'Nobody'" in message and "System-9, ... (30 in all)" in message
    assert "System-10," not in message and len(message) < 400


# ---- mteval metrics ----

def test_metrics_table() -> None:
    listing = run("mteval", "metrics")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert max(len(line) for line in lines) <= 120
    assert lines[0].split() == ["NAME", "FAMILY", "BETTER", "RANGE", "ALIASES"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line and not line.startswith(" ")}
    assert rows["BLEU-4"] == ["BLEU-4", "mteval-v13a", "higher", "0..1", "BLEU"]
    assert rows["TER"][:4] == ["TER", "TER", "lower", ">=0"] and rows["-TER"][2:4] == ["higher", "<=0"]
    assert rows["chrF++"][3] == "0..100" and rows["ROUGE-L"][4] == "RG-L"
    assert "BLEU" not in rows and "SP-Op(NN)" in rows  # aliases are not rows of their own
    assert any(line.startswith("needs annotation") and "SP" in line for line in lines)


def test_metrics_table_wraps_aliases() -> None:
    lines = mteval_main.metric_table(width=80)
    assert max(len(line) for line in lines) <= 80
    at = next(i for i, line in enumerate(lines) if line.startswith("SR-Or(A0) "))
    assert lines[at + 1].startswith(" " * 40)  # the aliases go on under their column
    words = " ".join(lines[at:at + 3]).split()
    assert {"SR-O-A0", "SR-Or,w-A0", "SR-Or-A0", "SR-Ow-A0"} <= set(words)


def test_metrics_long_keeps_the_family_listing() -> None:
    listing = run("mteval", "metrics", "--long")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].startswith("mteval-v13a: BLEU-1 BLEU-2 ")
    assert "  aliases: BLEU=BLEU-4 NISTi-1=NIST-1 NIST=NIST-5" in lines
    assert any(line.startswith("SP (needs annotation): SP-Op(*) ") for line in lines)
    assert max(len(line) for line in lines) > 1000  # today's detail: every variant of a family on one line


def test_named_set_with_a_metric_not_computed(experiment: Path) -> None:
    config = dataclasses.replace(load(experiment), sets={"bad": ("BLEU", "chrF++"), "worse": ("chrF++", "Foo")})
    with pytest.raises(ConfigError, match=r"set 'bad' \(-M\): metric 'chrF\+\+' is known but not in the cache"):
        resolve(config, "-M", "bad", ["BLEU", "chrF"])
    with pytest.raises(ConfigError, match=r"set 'worse' \(-M\) names unknown items Foo; known: BLEU, chrF; "
                                          r"metric 'chrF\+\+' is known but not in the cache"):
        resolve(config, "-M", "worse", ["BLEU", "chrF"])
