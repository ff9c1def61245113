"""mteval wmt-ranking: the overall metric ranking of the WMT23 or WMT24 metrics shared task (Freitag
et al. 2023, 2024) over several test sets, each an experiment with its human judgements
(mt-metrics-eval's TaskSet, AverageCorrs and AverageCorrMatrix; docs/meta-evaluation.md).

    mteval wmt-ranking --tasks wmt24 configs/example.yaml data/wmt21-ende-sample/human/mqm.tsv \\
        configs/example-docids.yaml data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST-5

Each CONFIG JUDGEMENTS pair is one set, a language pair of WMT's (run iqsetup CONFIG first; the
judgements need segment rows). wmt23: system-level global accuracy over all sets (weight = the
number of sets), then per set system-level Pearson, segment-level Pearson and segment-level acc_eq
(weight 1 each). wmt24: per set system-level soft pairwise accuracy (SPA) and segment-level acc_eq
(equal weights). A metric's average = the weighted sum of its task values normalised to [0, 1]
(Pearson from [-1, 1]); each task ranks its metrics by permutation tests (--resamples, --seed,
--early-stop; WMT used 1000 and 100,0.02,0.5), whose draws, averaged as the values are, give the
p-values of the averages; a metric opens a new rank when one of the current rank is better with
p <= --alpha.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mteval.cli.common import add_judgement_options
from mteval.evaluate.correlate import ASSESSMENT_SEED


def add_parser(commands: Any) -> None:
    """The ``wmt-ranking`` subcommand and its options."""
    parser = commands.add_parser("wmt-ranking", help="the WMT23/WMT24 metrics tasks' overall ranking over test sets "
                                 "(weighted average of task results, significance clusters)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", metavar="CONFIG JUDGEMENTS",
                        help="pairs: an experiment file and its human judgements ('system segment score' TSV or "
                             "Asiya CSV, with segment rows)")
    parser.add_argument("--tasks", default="wmt23", metavar="wmt23|wmt24", help="the task set (wmt23)")
    parser.add_argument("-M", dest="metrics", help="metrics: a set name or comma-separated (default: those every "
                                                   "set has; the others are named in a warning)")
    parser.add_argument("--resamples", type=int, default=1000, help="permutations per task and pair of metrics "
                                                                    "(1000)")
    parser.add_argument("--seed", type=int, default=ASSESSMENT_SEED, help=f"seed of each test ({ASSESSMENT_SEED})")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the ranks (0.05)")
    parser.add_argument("--early-stop", default=None, metavar="BLOCK,MIN,MAX",
                        help="stop a test after a block of BLOCK permutations when p < MIN or p > MAX "
                             "(mt-metrics-eval's early stopping; WMT23/24: 100,0.02,0.5; default: none)")
    add_judgement_options(parser)
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--tsv", action="store_true", help="tidy tab-separated records")
    fmt.add_argument("--json", action="store_true", help="records as a JSON list")


def run(args: argparse.Namespace) -> int:
    """Read the sets, run the tasks, print."""
    from mteval.api import wmt_ranking
    from mteval.cli import output
    from mteval.cli.global_accuracy import pairs_of

    records = wmt_ranking(pairs_of(args.sets), tasks=args.tasks, metrics=args.metrics, resamples=args.resamples,
                          seed=args.seed, alpha=args.alpha, early_stop=args.early_stop,
                          unknown_systems=args.unknown_systems, human_lower_better=args.human_lower_better)
    if args.tsv:
        output.write_tsv(records, sys.stdout)
    elif args.json:
        output.write_json(records, sys.stdout)
    else:
        output.write_wmt_ranking(records, sys.stdout)
    return 0
