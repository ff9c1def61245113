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
from typing import Any

from mteval.cli.global_accuracy import add_set_options


def add_parser(commands: Any) -> None:
    """The ``wmt-ranking`` subcommand and its options."""
    parser = commands.add_parser("wmt-ranking", help="the WMT23/WMT24 metrics tasks' overall ranking over test sets "
                                 "(weighted average of task results, significance clusters)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", metavar="CONFIG JUDGEMENTS",
                        help="pairs: an experiment file and its human judgements ('system segment score' TSV or "
                             "Asiya CSV, with segment rows)")
    parser.add_argument("--tasks", default="wmt23", metavar="wmt23|wmt24", help="the task set (wmt23)")
    add_set_options(parser, "permutations per task and pair of metrics (1000)")


def run(args: argparse.Namespace) -> int:
    """Read the sets, run the tasks, print."""
    from mteval.api import wmt_ranking
    from mteval.cli import output
    from mteval.cli.global_accuracy import emit, pairs_of

    records = wmt_ranking(pairs_of(args.sets), tasks=args.tasks, metrics=args.metrics, resamples=args.resamples,
                          seed=args.seed, alpha=args.alpha, early_stop=args.early_stop,
                          unknown_systems=args.unknown_systems, human_lower_better=args.human_lower_better)
    emit(records, args, output.write_wmt_ranking)
    return 0
