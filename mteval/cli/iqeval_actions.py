"""iqeval's measure options and actions (IQMT manual §4.2): the argparse options of -doQUEEN -doKING
-doJACK -optimizeKING, -assessments and -compare, and one function per action flag turning the
parsed arguments into a call of the measure (:mod:`mteval.evaluate`), which returns records."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any

from mteval.cli.common import add_judgement_options
from mteval.evaluate import compare, correlate, outside_qarla, qarla
from mteval.evaluate.selection import Selection
from mteval.experiment.spec import Experiment
from mteval.meta.stats.significance import WMT_EARLY_STOP
from mteval.store.cache import ScoreCache, refset_name

Record = dict[str, Any]
Action = Callable[[argparse.Namespace, Experiment, ScoreCache, Selection, Any], list[Record]]


def _do_oq(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache, sel: Selection,
           texts: Any) -> list[Record]:
    """iqeval -doOQ: metric scores outside QARLA."""
    return outside_qarla.outside_qarla(cache, sel, texts.documents, outside_qarla.SubsetTexts.of(experiment, texts))


def add_qarla_arguments(parser: argparse.ArgumentParser) -> None:
    """The QARLA options of iqeval (IQMT manual §4.2)."""
    parser.add_argument("-doQUEEN", action="store_true", help="QUEEN of every system (manual §3.1.1)")
    parser.add_argument("-doKING", action="store_true", help="KING of every metric and of the set (§3.1.2)")
    parser.add_argument("-doJACK", action="store_true", help="JACK of the test set (§3.1.3; iqsetup -JACK)")
    parser.add_argument("-optimizeKING", action="store_true", help="greedy KING metric-set search (§3.3)")
    parser.add_argument("-TT", dest="trans_topic", action="store_true",
                        help="trans-topic mode: reference-pair similarities pooled over all segments")
    parser.add_argument("--exhaustive", action="store_true",
                        help="with -optimizeKING: also search all subsets (at most 12 metrics)")


def _do_queen(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache,
              sel: Selection, texts: Any) -> list[Record]:
    """iqeval -doQUEEN."""
    return qarla.queen_records(qarla.selection_data(cache, sel, texts), sel.level, sel.segments, args.trans_topic,
                         sel.with_references)


def _do_king(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache,
              sel: Selection, texts: Any) -> list[Record]:
    """iqeval -doKING."""
    return qarla.king_records(qarla.selection_data(cache, sel, texts), sel.level, args.trans_topic)


def _do_jack(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache,
              sel: Selection, texts: Any) -> list[Record]:
    """iqeval -doJACK (needs iqsetup -JACK)."""
    return qarla.jack_records(qarla.jack_data(cache, sel, texts), sel.level, sel.segments, args.trans_topic)


def _do_optimize(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache,
              sel: Selection, texts: Any) -> list[Record]:
    """iqeval -optimizeKING."""
    return qarla.optimize_records(qarla.selection_data(cache, sel, texts), sel.level, args.trans_topic, args.exhaustive)


def add_assessment_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``iqeval -assessments FILE``."""
    parser.add_argument("-assessments", metavar="FILE",
                        help="correlate metrics with human judgements (Asiya CSV or 'system segment score')")
    parser.add_argument("--corr", default=",".join(correlate.DEFAULT_CORRELATIONS),
                        help=f"correlations, comma-separated (known: {', '.join(correlate.KNOWN)})")
    parser.add_argument("--average", default=None, choices=("none", "item", "sys"),
                        help="segment level grouping of pearson/spearman/kendall (default: none) "
                             "and of acc_eq/tau_eq (default: item, as WMT23/24)")
    parser.add_argument("--mean-removed", action="store_true", help="also mean-removed correlations (seg)")
    parser.add_argument("--weighted", action="store_true",
                        help="also reference-length-weighted Pearson (seg)")
    parser.add_argument("--significance", action="store_true",
                        help="metric-vs-metric tests on the first --corr: PERM-BOTH and paired bootstrap; "
                             "acc_eq/tau_eq/spa: mt-metrics-eval's permutation tests of WMT23/24")
    wmt = WMT_EARLY_STOP
    parser.add_argument("--early-stop", default=None, metavar="BLOCK,MIN,MAX",
                        help="--significance on acc_eq/tau_eq/spa: stop a test after a block of BLOCK permutations "
                             "when p < MIN or p > MAX (mt-metrics-eval's early stopping; WMT23/24: "
                             f"{wmt.block_size},{wmt.early_min},{wmt.early_max}; default: none)")
    parser.add_argument("--resamples", type=int, default=correlate.AssessOptions.resamples,
                        help="bootstrap/permutation draws (1000; -compare: paired bootstrap resamples; "
                             "at most 1,000,000)")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"random seed for resampling (-assessments: {correlate.ASSESSMENT_SEED}; "
                             "-compare: 12345)")
    parser.add_argument("--thresh", type=float, default=correlate.AssessOptions.thresh,
                        help="kendall-wmt20 human threshold")
    add_judgement_options(parser)


def assessment_options(args: argparse.Namespace) -> correlate.AssessOptions:
    """-assessments' options from iqeval's (or the report's) arguments."""
    names = [f.name for f in dataclasses.fields(correlate.AssessOptions)]
    return correlate.AssessOptions(**{name: getattr(args, name) for name in names})


def _do_assessments(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache, sel: Selection,
                    texts: Any) -> list[Record]:
    """iqeval -assessments FILE."""
    return correlate.assess(args.assessments, cache, sel, texts, assessment_options(args), experiment.language,
                            outside_qarla.SubsetTexts.of(experiment, texts))


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``iqeval -compare`` (``--resamples`` and ``--seed`` are shared with -assessments,
    registered by :func:`add_assessment_arguments`)."""
    parser.add_argument("-compare", "-compareSystems", dest="compare", action="store_true",
                        help="paired significance of every pair of systems, for every metric "
                             "(-compareSystems: the older name)")
    parser.add_argument("-baseline", metavar="SYS", help="-compare: the system the others are compared with")
    parser.add_argument("--test", default="both", choices=compare.TESTS,
                        help="-compare: bs (paired bootstrap: intervals, p), ar (approximate randomisation: p) "
                             "or both (default: bs intervals, ar p-values)")
    parser.add_argument("--trials", type=int, default=compare.AR_TRIALS,
                        help=f"-compare: approximate randomisation trials ({compare.AR_TRIALS}; at most 1,000,000)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level of -compare and of -assessments --significance's metric ranks (0.05)")
    parser.add_argument("--correction", default="holm", choices=compare.CORRECTIONS,
                        help="-compare: multiple-comparison correction of the p-values (holm)")
    parser.add_argument("--ties", default="sacrebleu", choices=tuple(compare.TIES),
                        help="-compare: p-values count resampled differences beyond the observed one "
                             "(sacrebleu, the default: identical systems get p = 1/(n+1)) or at least as "
                             "large (count: ties count, identical systems get p = 1)")


def options_of(args: argparse.Namespace) -> compare.Options:
    """-compare's options from iqeval's arguments (``--seed`` defaults to sacreBLEU's 12345)."""
    seed = compare.DEFAULT_SEED if getattr(args, "seed", None) is None else args.seed
    return compare.Options(args.baseline, args.test, args.resamples, args.trials, seed, args.alpha, args.correction,
                   getattr(args, "ties", "sacrebleu"))


def _do_compare(args: argparse.Namespace, experiment: Experiment, cache: ScoreCache, sel: Selection,
                texts: Any) -> list[Record]:
    """iqeval -compare (or -compareSystems)."""
    options = options_of(args)
    results = compare.compare_systems(experiment, cache, sel, texts, options)
    return compare.comparison_records(results, options, refset_name(sel.references), len(sel.segments))


# action flag -> its function, in the order iqeval prints their records
ACTIONS: dict[str, Action] = {"doOQ": _do_oq, "doQUEEN": _do_queen, "doKING": _do_king, "doJACK": _do_jack,
                              "optimizeKING": _do_optimize, "assessments": _do_assessments, "compare": _do_compare}
