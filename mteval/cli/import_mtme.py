"""``mteval import-mtme DIR --testset T --lp L``: one test set and language pair of
mt-metrics-eval's data (``DIR`` holds the test-set folders, e.g. ``~/.mt-metrics-eval/
mt-metrics-eval-v2``) as an mteval experiment folder (docs/mtme.md).

Examples::

    mteval import-mtme ~/.mt-metrics-eval/mt-metrics-eval-v2 --testset wmt22 --lp en-de --out wmt22-ende
    iqsetup wmt22-ende/experiment.yaml
    iqeval -assessments wmt22-ende/human/mqm.seg.tsv -G seg wmt22-ende/experiment.yaml

Also runs as ``python -m mteval.cli.import_mtme DIR ...``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mteval.cli.common import finish_parser, run_command, verbatim_values
from mteval.experiment.from_mtme import DEFAULT_METRICS, ImportOptions, import_mtme


def _names(value: str | None) -> tuple[str, ...] | None:
    """A comma-separated option as a tuple (None when not given)."""
    if value is None:
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``import-mtme``."""
    parser.add_argument("root", metavar="DIR", help="mt-metrics-eval data folder holding TESTSET/ folders")
    parser.add_argument("--testset", required=True, help="test set folder name, e.g. wmt22 or wmt21.news")
    parser.add_argument("--lp", required=True, help="language pair, e.g. en-de")
    parser.add_argument("--out", help="experiment folder to write (default: TESTSET.LP)")
    parser.add_argument("--ref", help="the standard reference (default: WMT's for known sets, else the only one, "
                                      "else refA)")
    parser.add_argument("--refs", choices=("std", "all"), default="std",
                        help="references of the experiment: the standard one, or all (standard first)")
    human = parser.add_mutually_exclusive_group()
    human.add_argument("--include-human-refs", dest="include_human", action="store_true",
                       help="score human outputs (references in system-outputs) as systems, except the "
                            "experiment's references")
    human.add_argument("--exclude-human-refs", dest="include_human", action="store_false",
                       help="leave human outputs out (the default)")
    parser.add_argument("--systems", help="comma-separated systems to import (default: all)")
    parser.add_argument("--human", help="comma-separated human score names, e.g. mqm,wmt-z (default: all)")
    parser.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                        help=f"comma-separated metrics of the experiment (default: {','.join(DEFAULT_METRICS)}; "
                             "the value is taken as is, even when it starts with '-')")
    parser.add_argument("--language", help="target language code (default: from the language pair)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing OUT/experiment.yaml")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``import-mtme`` on ``mteval``'s subcommands."""
    parser = subparsers.add_parser("import-mtme", help="mt-metrics-eval data (WMT metrics tasks) as an experiment",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser


def options_of(args: argparse.Namespace) -> ImportOptions:
    """The command line as :class:`ImportOptions`."""
    return ImportOptions(
        root=Path(args.root), testset=args.testset, lp=args.lp,
        out=Path(args.out) if args.out else Path(f"{args.testset}.{args.lp}"),
        reference=args.ref, all_references=args.refs == "all", include_human=args.include_human,
        systems=_names(args.systems), human=_names(args.human), metrics=_names(args.metrics) or (),
        language=args.language, force=args.force)


def run(args: argparse.Namespace) -> int:
    """Import, then say what was written."""
    options = options_of(args)
    written = import_mtme(options)
    for path in written:
        print(f"wrote {path}")
    print(f"next: iqsetup {options.out / 'experiment.yaml'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mteval import-mtme", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = finish_parser(parser).parse_args(verbatim_values(sys.argv[1:] if argv is None else argv, ("--metrics",)))
    return run_command("mteval", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
