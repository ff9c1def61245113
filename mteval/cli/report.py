"""mteval report: one self-contained HTML file of a campaign, read from the score cache.

Examples::

    mteval report configs/example.yaml -o report.html
    mteval report configs/example-docids.yaml -assessments data/wmt21-ruen-sample/human/da.tsv -o ruen.html
    mteval report configs/example.yaml -M some_metrics -S some_systems --resamples 200 -o small.html

-assessments is also spelled --assessments (every single-dash option takes two dashes too).

An incomplete cache gives a report marked partial (the unreadable files named in it and counted in
a warning); no cache at all is an error (exit 2).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from mteval import progress
from mteval.cli.common import add_judgement_options, finish_parser, run_command, verbatim_values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mteval report``."""
    parser.add_argument("config", help="experiment file (as iqeval)")
    parser.add_argument("-assessments", metavar="FILE", help="human judgements (Asiya CSV or 'system segment score')")
    add_judgement_options(parser)
    parser.add_argument("-o", dest="output", default="report.html", help="output HTML file (default report.html)")
    parser.add_argument("-M", dest="metrics", help="metric set name (or comma-separated metrics)")
    parser.add_argument("-S", dest="systems", help="system set name (or comma-separated systems)")
    parser.add_argument("-R", dest="references", help="reference set name (or comma-separated references)")
    parser.add_argument("-T", dest="segments", help="segment set name (or a range like '1-3,10')")
    # The significance tests are iqeval -compare's, with its defaults (mteval.evaluate.compare.Options):
    # the report's clusters and p-values are the ones -compare prints for the same selection.
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    parser.add_argument("--trials", type=int, default=10000, help="approximate randomisation trials (10000)")
    parser.add_argument("--seed", type=int, default=12345, help="random seed (12345, sacreBLEU's)")
    parser.add_argument("--test", default="both", choices=("both", "bs", "ar"),
                        help="the test deciding significance: both (default: bootstrap intervals, randomisation "
                        "p-values, as iqeval -compare), bs or ar")
    parser.add_argument("--correction", default="holm", choices=("holm", "bonferroni", "none"),  # meta.clusters
                        help="multiple-comparison correction of the clusters' p-values (holm, as iqeval -compare; "
                        "none: WMT's uncorrected clusters)")
    parser.add_argument("--ties", default="sacrebleu", choices=("sacrebleu", "count"),
                        help="tie rule of the p-values, as iqeval -compare (sacrebleu, the default, or count)")
    parser.add_argument("--drill-metric", help="metric of the segment drill-down (default: the first)")
    parser.add_argument("--segments-per-system", dest="per_system", type=int, default=5,
                        help="drill-down segments per system (5)")
    parser.add_argument("--pair", metavar="A,B", help="the two systems of the pair analyses (compare-mt's, and "
                        "the linguistic one with parsed metrics; default: the two best on the first metric)")
    parser.add_argument("--freq-corpus", metavar="FILE", help="word frequencies of the word-accuracy buckets "
                        "(one sentence a line; default: the references)")
    parser.add_argument("--json", metavar="FILE", help="also write everything the page shows as one JSON file "
                        "(records as iqeval -compare/-assessments --json print them)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars (shown only on a terminal)")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``report`` on ``mteval``'s sub-command parsers."""
    parser = subparsers.add_parser("report", help="campaign report: one self-contained HTML file",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Build, render and write the report; a partial one is written with a warning line."""
    from mteval.report.build import Options, build, write
    from mteval.report.html import render

    progress.set_quiet(args.quiet)
    start = time.perf_counter()
    report = build(args.config, Options(args.assessments, args.metrics, args.systems, args.references,
                                        args.segments, args.resamples, args.seed, args.drill_metric,
                                        args.per_system, args.correction, args.test, args.trials, args.ties,
                                        args.pair, args.freq_corpus, args.unknown_systems,
                                        args.human_lower_better))
    write(render(report), args.output)
    if args.json:
        from mteval.files import write_atomic
        from mteval.report.export import dumps

        write_atomic(Path(args.json), dumps(report).encode("utf-8"))
    if report.partial:
        print(f"mteval: warning: partial report: {report.missing_total} score file(s) could not be read "
              f"(first: {report.missing[0]}); they are listed in {args.output}", file=sys.stderr)
    print(f"wrote {args.output} ({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m mteval.cli.report`` (also ``mteval report``)."""
    parser = argparse.ArgumentParser(prog="mteval report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = finish_parser(parser).parse_args(verbatim_values(sys.argv[1:] if argv is None else argv))
    return run_command("mteval", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
