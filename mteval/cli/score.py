"""mteval score: score system outputs against references in one line, as sacreBLEU does.

    mteval score -r ref.txt -i sys.txt                       # BLEU, chrF and TER
    mteval score -r ref.txt -r ref2.txt -i sys1.txt sys2.txt -m BLEU,chrF,DP-HWCM_w-4
    mteval score -r ref.txt -m BLEU -f json < sys.txt        # one system on standard input
    mteval score -r ref.txt -i sys.txt -m WER,MER --align     # and jiwer's word alignments
    mteval score -r ref.txt -i sys.txt --confidence           # each score's 95% bootstrap interval
    mteval score -r ref.txt -i base.txt sys2.txt --paired-bs  # significance against the first (or --paired-ar)

Plain text (one segment a line; SGML is read too), every -r file one reference. The scores are
computed by the metrics' own code with iqsetup's cache rules (the numbers are those iqeval -doOQ
shows for an experiment of the same texts): in a temporary folder, or with --cache DIR in DIR,
laid out as iqsetup's (DIR/SYSTEM/REFSET/METRIC.xml), a file still current reused. Text output:
one line per system and metric, then one signature line per metric (nrefs and what computed it,
as sacreBLEU's); -f tsv and -f json give iqeval's records with the signature. --align (text output)
then prints jiwer's alignment of each system with each reference (visualize_alignment: REF/HYP
lines, S/D/I under the errors, the pooled counts and measures), of words or (--align chars) of
characters. --confidence, --paired-bs and --paired-ar are sacreBLEU's, with its numbers
(mteval.cli.score_stats).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from mteval.cli import score_stats, text_width

if TYPE_CHECKING:
    from mteval.api import Campaign, Score

DEFAULT_METRICS = "BLEU,chrF,TER"  # sacreBLEU's three
# A target language written without spaces between words: as sacrebleu -l en-zh / en-ja picks its zh /
# ja-mecab tokenizer for BLEU, so does mteval score, and TER with tercom's Asian support (each Han
# character a word), where BLEU and TER would take a whole phrase for a word (mteval.setup.scripts).
LANGUAGE_METRICS = {"zh": "sacreBLEU(tok=zh),chrF,TER(normalized=yes,asian_support=yes)",
                    "ja": "sacreBLEU(tok=ja-mecab),chrF,TER(normalized=yes,asian_support=yes)"}
STDIN = "<stdin>"  # what messages and the output call a system read from standard input


def add_parser(commands: Any) -> None:
    """The ``score`` subcommand and its options."""
    parser = commands.add_parser("score", help="score system outputs against references in one line (sacreBLEU style)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-r", "--ref", dest="refs", action="append", required=True, metavar="FILE",
                        help="a reference file, one segment a line; repeat for more references (-r A -r B)")
    parser.add_argument("-i", "--input", dest="inputs", nargs="+", metavar="FILE",
                        help="system output file(s), one segment a line; '-' or none: standard input (one system)")
    parser.add_argument("-m", "--metrics",
                        help=f"comma-separated metric names (default {DEFAULT_METRICS}; with -l zh or ja, BLEU with "
                        "sacreBLEU's tokenizer for the language and TER with Asian support, as "
                        f"{LANGUAGE_METRICS['zh']}; a family name: all its variants; 'mteval metrics' lists them)")
    parser.add_argument("-f", "--format", choices=("text", "tsv", "json"), default="text",
                        help="text (default): a line per system and metric, then the signatures; tsv, json: "
                        "iqeval's records with the signature")
    parser.add_argument("--segments", action="store_true", help="also every segment's score")
    parser.add_argument("--case", choices=("cs", "ci"),
                        help="cs: case-sensitive, ci: case-insensitive for every metric (default: each metric's "
                        "reference default: cs, TER ci)")
    parser.add_argument("-l", "--language", default="en",
                        help="language of the texts, for the syntactic metrics' parser and the default metrics "
                        "(default en)")
    parser.add_argument("--cache", metavar="DIR",
                        help="keep the score files (and parses) in DIR, as iqsetup's cache; a file still current is "
                        "reused (default: a temporary folder)")
    parser.add_argument("--align", nargs="?", const="words", choices=("words", "chars"),
                        help="text output: then jiwer's alignment (visualize_alignment) of each system with each "
                        "reference, of words (default) or characters")
    parser.add_argument("-w", "--width", type=int, default=4, metavar="N",
                        help="text output: decimals of the scores (4; -f tsv and json give full precision)")
    parser.add_argument("-b", "--score-only", action="store_true",
                        help="text output: the scores alone, one a line (system by system, metric by metric), no "
                        "names and no signatures (sacreBLEU's -b)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars (shown only on a terminal)")
    parser.add_argument("--origlang", "-ol", metavar="LANG",
                        help="score only the segments of documents whose <doc origlang> is LANG ('non-LANG': is not, "
                        "or has none), as sacreBLEU's --origlang; read from the first SGML reference")
    parser.add_argument("--subset", metavar="REGEX",
                        help="score only the segments of documents whose <doc domain> (else genre) matches REGEX "
                        "(SGML references)")
    score_stats.add_arguments(parser)


def default_metrics(language: str) -> str:
    """The metrics of ``mteval score`` without ``-m``: :data:`DEFAULT_METRICS`, or the language's
    (:data:`LANGUAGE_METRICS`); ja's needs MeCab, or one line saying so."""
    from importlib.util import find_spec

    from mteval.errors import ConfigError
    from mteval.metrics.stemmers import base_language

    chosen = LANGUAGE_METRICS.get(base_language(language), DEFAULT_METRICS)
    if "ja-mecab" in chosen and (find_spec("MeCab") is None or find_spec("ipadic") is None):
        raise ConfigError(f"-l {language}: the default metrics score BLEU with sacreBLEU's ja-mecab tokenizer (as "
                          "sacrebleu -l en-ja), which needs MeCab: pip install 'mteval[ja]', or choose the metrics "
                          "with -m (chrF needs nothing)")
    return chosen


def run(args: argparse.Namespace) -> int:
    """Score every system with every metric and print the scores."""
    from mteval import api, progress

    progress.set_quiet(args.quiet)
    _check_text_options(args)
    systems = _systems(args.inputs)
    score_stats.check(args, len(systems))
    references = [Path(ref) for ref in args.refs]
    metrics = args.metrics or default_metrics(args.language)
    with api.scored(systems, references, metrics, case=args.case, language=args.language,
                    cache=args.cache, jobs=None) as campaign:
        rows = subset_rows(campaign, args.origlang, args.subset)
        signature = subset_signature(args.origlang, args.subset)
        scores = {s: {m: subset_score(campaign, m, s, rows, signature) for m in campaign.metrics}
                  for s in campaign.systems}
        if score_stats.paired(args):
            _write_comparisons(campaign, scores, args, rows)
        elif args.format == "text":
            view = TextView(args.width, args.score_only, score_stats.intervals(campaign, args, rows))
            write_text(campaign, scores, args.segments, sys.stdout, view, rows)
            if args.align:
                write_alignments(campaign, args.align == "chars", args.case == "ci", sys.stdout, rows)
        else:
            _write_records(records(campaign, scores, args.segments, score_stats.intervals(campaign, args, rows), rows),
                           args.format)
    return 0


def subset_rows(campaign: Campaign, origlang: str | None, subset: str | None) -> list[int] | None:
    """The segments (1-based) --origlang and --subset keep (None: both absent), from the documents of
    the first SGML reference that carries origlang, genre or domain (:mod:`mteval.experiment.doc_sets`)."""
    if origlang is None and subset is None:
        return None
    from mteval.errors import ConfigError
    from mteval.experiment import doc_sets

    option = "--origlang" if origlang is not None else "--subset"
    references = list(campaign.texts.references.values())
    text = doc_sets.annotated(references)
    if text is None:
        first = references[0]
        kind = "SGML whose documents carry no origlang, genre or domain" if first.keyed else "plain text"
        raise ConfigError(f"{option}: {first.where} is {kind}; {option} selects documents by the "
                          "<doc origlang genre domain> attributes of an SGML reference")
    doc_ids = campaign.texts.documents.doc_ids
    rows = list(range(1, len(doc_ids) + 1))
    if origlang is not None:
        kept = set(doc_sets.attribute_segments(text, doc_ids, "origlang", origlang))
        rows = [r for r in rows if r in kept]
    if subset is not None:
        kept = set(doc_sets.subset_segments(text, doc_ids, subset))
        rows = [r for r in rows if r in kept]
    if not rows:
        given = " ".join(f"--{key} {value}" for key, value in (("origlang", origlang), ("subset", subset)) if value)
        raise ConfigError(f"{given}: selects no segment of {text.where}")
    return rows


def subset_signature(origlang: str | None, subset: str | None) -> str:
    """``origlang:LANG|subset:REGEX`` (those given), as sacreBLEU's signature has them."""
    given = (("origlang", origlang), ("subset", subset))
    return "|".join(f"{key}:{value}" for key, value in given if value is not None)


def subset_score(campaign: Campaign, metric: str, system: str, rows: list[int] | None, signature: str) -> Score:
    """``campaign.score``, or with ``rows`` the score of those segments (the metric's own rule for part
    of the test set, as iqeval -T), its signature with ``signature`` after ``nrefs``."""
    full = campaign.score(metric, system)
    if rows is None:
        return full
    from mteval.api import Score

    record = campaign.scores("sys", metrics=[metric], systems=[system], segments=rows)[0]
    nrefs, _, rest = full.signature.partition("|")
    return Score(metric, float(record["score"]), [full.segments[r - 1] for r in rows], f"{nrefs}|{signature}|{rest}",
                 full.higher_is_better)


def _check_text_options(args: argparse.Namespace) -> None:
    """Options of the text output: refused in one line with another format (or -b with --align, --paired-*)."""
    from mteval.errors import ConfigError

    text_only = [name for name, given in (("--align", args.align), ("-b", args.score_only)) if given]
    if text_only and args.format != "text":
        raise ConfigError(f"{text_only[0]} prints text; it cannot be combined with -f {args.format}")
    if args.score_only and (args.align or score_stats.paired(args)):
        raise ConfigError(f"-b prints the scores alone; it cannot be combined with "
                          f"{'--align' if args.align else '--paired-' + str(score_stats.paired(args))}")
    if not 0 <= args.width <= 16:
        raise ConfigError(f"-w {args.width}: the number of decimals is 0 to 16")


def _write_records(found: list[dict[str, Any]], form: str) -> None:
    """-f tsv or json."""
    from mteval.cli import output

    (output.write_tsv if form == "tsv" else output.write_json)(found, sys.stdout)


def _write_comparisons(campaign: Campaign, scores: dict[str, dict[str, Score]], args: argparse.Namespace,
                       rows: list[int] | None = None) -> None:
    """--paired-bs / --paired-ar: iqeval -compare's view (text, then the signatures) or records."""
    found = score_stats.comparisons(campaign, args, rows)
    if args.format != "text":
        _write_records(found, args.format)
        return
    from mteval.cli import compare_view

    compare_view.write_comparisons(found, sys.stdout)
    _write_signatures(scores, sys.stdout)
    if args.align:
        write_alignments(campaign, args.align == "chars", args.case == "ci", sys.stdout, rows)


def _systems(inputs: list[str] | None) -> dict[str, Any]:
    """The systems to score: each file by its name as given (a Path), standard input as its lines."""
    files = inputs or ["-"]
    if files.count("-") > 1:
        from mteval.errors import ConfigError

        raise ConfigError("-i: '-' (standard input) can be given once")
    return {STDIN if f == "-" else f: _stdin() if f == "-" else Path(f) for f in files}


def _stdin() -> list[str]:
    """Standard input's lines, read as a file is (UTF-8, no control characters, at most the size
    of an input file); refused when it is a terminal (nothing was piped)."""
    from mteval.errors import ConfigError, InputError
    from mteval.io.plain import MAX_BYTES, decode_lines

    if sys.stdin is None or sys.stdin.isatty():
        raise ConfigError("no system output: give -i FILE, or pipe one system's output to standard input")
    data = sys.stdin.buffer.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise InputError(f"more than {MAX_BYTES >> 20} MiB; an input text is limited to {MAX_BYTES >> 20} MiB", STDIN)
    return decode_lines(data, STDIN)


@dataclass(frozen=True)
class TextView:
    """How the text output shows scores: ``width`` decimals (-w), the numbers only (-b), intervals
    (--confidence: (system, metric) -> its record)."""

    width: int = 4
    score_only: bool = False
    intervals: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def number(self, value: float) -> str:
        return f"{value:.{self.width}f}"


def write_text(campaign: Campaign, scores: dict[str, dict[str, Score]], segments: bool, out: TextIO,
               view: TextView | None = None, rows: list[int] | None = None) -> None:
    """A line per system (named when there are several) and metric (with its interval), the
    segments' lines after it with ``segments`` (numbered as in the files: ``rows``, else 1, 2, ...),
    then a ``METRIC|SIGNATURE`` line per metric; with ``view.score_only`` the numbers alone, a line
    each (sacreBLEU's -b)."""
    view, several = view or TextView(), len(scores) > 1
    numbers = rows or range(1, len(campaign.texts) + 1)
    table: list[list[str]] = []
    for system, per_metric in scores.items():
        head = [campaign.label(system)] if several else []
        for metric, found in per_metric.items():
            interval = score_stats.interval_text(view.intervals.get((system, metric)), view.width)
            table.append([*head, metric, *(["corpus"] if segments else []), view.number(found.score) + interval])
            if segments:
                table += [[*head, metric, str(k), view.number(v)] for k, v in zip(numbers, found.segments, strict=True)]
    if view.score_only:
        out.write("".join(row[-1] + "\n" for row in table))
        return
    widths = [max(text_width.width(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    for row in table:
        cells = zip(row, widths, strict=False)  # the last cell is written as it is; padded to display cells
        out.write("  ".join(text_width.ljust(cell, cells_wide) for cell, cells_wide in cells) + "  " + row[-1] + "\n")
    _write_signatures(scores, out)


def _write_signatures(scores: dict[str, dict[str, Score]], out: TextIO) -> None:
    """A ``METRIC|SIGNATURE`` line per metric."""
    for metric, found in next(iter(scores.values())).items():
        out.write(f"{metric}|{found.signature}\n")


def write_alignments(campaign: Campaign, chars: bool, lower: bool, out: TextIO, rows: list[int] | None = None) -> None:
    """jiwer's ``visualize_alignment`` of each system against each reference (words or
    characters; ``lower``: lower-cased first; ``rows``: of these segments only), each after a
    ``=== SYSTEM vs REFERENCE ===`` line."""
    from mteval.metrics.alignment import process, visualize

    def chosen(segments: tuple[str, ...]) -> list[str]:
        return list(segments) if rows is None else [segments[r - 1] for r in rows]

    for system in campaign.systems:
        hypotheses = chosen(campaign.texts.systems[system].segments)
        for reference in campaign.references:
            references = chosen(campaign.texts.references[reference].segments)
            unit = "characters" if chars else "words"
            out.write(f"\n=== {campaign.label(system)} vs {campaign.label(reference)} ({unit}) ===\n\n")
            out.write(visualize(process(references, hypotheses, chars=chars, lower=lower)))


def records(campaign: Campaign, scores: dict[str, dict[str, Score]], segments: bool,
            intervals: dict[tuple[str, str], dict[str, Any]] | None = None,
            rows: list[int] | None = None) -> list[dict[str, Any]]:
    """iqeval's -doOQ records (sys, then seg with ``segments``), each system as given (its file or
    ``<stdin>``), the references as given joined with ``+``, the signature on the sys records (and
    with ``intervals`` the bootstrap ``mean``, ``ci_low``, ``ci_high``, ``resamples`` and ``seed``; ``rows``:
    of these segments only)."""
    chosen = list(campaign.metrics)  # not other metrics a kept --cache may hold
    found = campaign.scores("sys", metrics=chosen, segments=rows) + (
        campaign.scores("seg", metrics=chosen, segments=rows) if segments else [])
    refset = "+".join(campaign.label(r) for r in campaign.references)
    out = []
    for record in found:
        extra = {"signature": scores[record["target"]][record["metric"]].signature} if record["level"] == "sys" else {}
        interval = (intervals or {}).get((record["target"], record["metric"])) if record["level"] == "sys" else None
        if interval is not None:
            extra.update({k: interval[k] for k in ("mean", "ci_low", "ci_high", "resamples", "seed")})
        out.append({**record, "target": campaign.label(record["target"]), "refset": refset, **extra})
    return out
