"""mteval global-accuracy: the WMT metrics tasks' system-level global pairwise accuracy (Kocmi et al.
2021) over several test sets, each an experiment with its human judgements, and the metrics'
significance ranks (mt-metrics-eval's CompareMetricsWithGlobalAccuracy; docs/meta-evaluation.md).

    mteval global-accuracy configs/example.yaml data/wmt21-ende-sample/human/mqm.tsv \\
        configs/example-docids.yaml data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST-5

Each CONFIG JUDGEMENTS pair is one set (run iqsetup CONFIG first): its systems with a human system
score (as iqeval -assessments FILE -G sys), all its references. A metric's global accuracy is the
share of system pairs (within a set, pooled over the sets) that it orders as the humans do; the
metrics are those of every set (-M: each must be in every set). Ranks: PERM-BOTH on the pooled
accuracy (--resamples, --seed, --early-stop) for each pair of metrics in accuracy order; a metric
opens a new rank when one of the current rank is better with p <= --alpha. --unknown-systems and
--human-lower-better apply to every judgements file.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mteval.cli.common import add_judgement_options
from mteval.evaluate.correlate import ASSESSMENT_SEED


def add_parser(commands: Any) -> None:
    """The ``global-accuracy`` subcommand and its options."""
    parser = commands.add_parser("global-accuracy", help="system-level pairwise accuracy pooled over test sets, "
                                 "with significance ranks (WMT metrics tasks)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", metavar="CONFIG JUDGEMENTS",
                        help="pairs: an experiment file and its human judgements (Asiya CSV or 'system segment "
                             "score' TSV, system-level rows with segment '-')")
    add_set_options(parser, "permutations per pair of metrics (1000)")


def add_set_options(parser: argparse.ArgumentParser, resamples_help: str) -> None:
    """The options of the commands over CONFIG JUDGEMENTS sets (global-accuracy, wmt-ranking)."""
    parser.add_argument("-M", dest="metrics", help="metrics: a set name or comma-separated (default: those every "
                                                   "set has; the others are named in a warning)")
    parser.add_argument("--resamples", type=int, default=1000, help=resamples_help)
    parser.add_argument("--seed", type=int, default=ASSESSMENT_SEED, help=f"seed of each test ({ASSESSMENT_SEED})")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the ranks (0.05)")
    parser.add_argument("--early-stop", default=None, metavar="BLOCK,MIN,MAX",
                        help="stop a test after a block of BLOCK permutations when p < MIN or p > MAX "
                             "(mt-metrics-eval's early stopping; WMT23/24: 100,0.02,0.5; default: none)")
    add_judgement_options(parser)
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--tsv", action="store_true", help="tidy tab-separated records")
    fmt.add_argument("--json", action="store_true", help="records as a JSON list")


def emit(records: list[Any], args: argparse.Namespace, text: Any) -> None:
    """``--tsv``, ``--json`` or the ``text`` view of the records on standard output."""
    from mteval.cli import output

    if args.tsv:
        output.write_tsv(records, sys.stdout)
    elif args.json:
        output.write_json(records, sys.stdout)
    else:
        text(records, sys.stdout)


def pairs_of(words: list[str]) -> list[tuple[str, str]]:
    """CONFIG JUDGEMENTS pairs of the positional words; an odd count or a missing file is one error."""
    from pathlib import Path

    from mteval.errors import ConfigError

    if len(words) % 2:
        raise ConfigError(f"give CONFIG JUDGEMENTS pairs: {len(words)} file names, the last ({words[-1]}) has no "
                          "partner")
    for word in words:
        if not Path(word).is_file():
            raise ConfigError("no such file", word)
    return list(zip(words[::2], words[1::2], strict=True))


def run(args: argparse.Namespace) -> int:
    """Read the sets, compute, print."""
    from mteval.api import global_accuracy
    from mteval.cli import output

    records = global_accuracy(pairs_of(args.sets), metrics=args.metrics, resamples=args.resamples, seed=args.seed,
                              alpha=args.alpha, early_stop=args.early_stop, unknown_systems=args.unknown_systems,
                              human_lower_better=args.human_lower_better)
    emit(records, args, output.write_global_accuracy)
    return 0

