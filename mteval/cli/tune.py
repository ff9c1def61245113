"""mteval tune: learn a metric combination from human judgements, cross-validated by document
(EDPM paper §6; nested CV, ULC, objectives: docs/tuning.md).

    mteval tune configs/example-docids.yaml --assessments data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST

--assessments is also spelled -assessments, as in iqeval and mteval report.
"""

from __future__ import annotations

import argparse
from typing import Any

from mteval.cli.common import add_judgement_options


def add_parser(commands: Any) -> None:
    """The ``tune`` subcommand and its options."""
    tune = commands.add_parser("tune", help="learn a metric combination from human judgements (EDPM paper §6)",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tune.add_argument("config", help="experiment file (as iqeval)")
    tune.add_argument("--assessments", "-assessments", metavar="FILE", required=True,
                      help="human judgements: Asiya CSV or 'system segment score' TSV")
    tune.add_argument("-M", dest="metrics", required=True, help="feature metrics: a set name or comma-separated")
    tune.add_argument("--name", default="TUNED", help="name of the learned metric in the cache")
    tune.add_argument("--folds-by-line", action="store_true",
                      help="texts with one document (plain text without docids:): every line its own "
                           "document (warned: optimistic test statistics)")
    tune.add_argument("--method", choices=("ridge", "ulc"), default="ridge",
                      help="ridge: weights learned with the ridge strength chosen by inner CV; ulc: uniform "
                           "linear combination (Gimenez & Marquez 2008) of normalised metrics")
    tune.add_argument("--objective", choices=("mean-removed", "pearson", "ranking"), default="mean-removed",
                      help="mean-removed: weighted mean-removed r (EDPM paper sec. 6); pearson: pooled r; "
                           "ranking: pairwise logistic loss within source lines (aimed at Kendall)")
    tune.add_argument("--folds", type=int, default=2, help="outer folds by document (default 2, the paper's halves)")
    tune.add_argument("--inner-folds", type=int, default=3, help="inner folds by document (default 3)")
    tune.add_argument("--nonneg", action="store_true", help="ridge: non-negative weights on oriented features")
    tune.add_argument("--l1-ratio", type=float, default=0.0,
                      help="ridge with pearson/mean-removed: elastic net with this L1 share (default 0: ridge)")
    tune.add_argument("--all-metrics", action="store_true", help="ulc: all features, no greedy selection")
    tune.add_argument("--select", action="store_true",
                      help="ridge: greedy forward selection of the metric set (on training folds only)")
    tune.add_argument("--bootstrap-documents", action="store_true",
                      help="bootstrap CIs resample documents (default: source lines)")
    tune.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    tune.add_argument("--seed", type=int, default=0, help="seed of the folds")
    tune.add_argument("--save-model", help="also write the learned metric as a portable JSON model file")
    add_judgement_options(tune)


def run(args: argparse.Namespace) -> int:
    """Cross-validated tuning, then the learned metric stored in the cache."""
    from mteval.evaluate.campaign import Campaign
    from mteval.evaluate.selection import default_metrics
    from mteval.evaluate.tuning import TuneOptions, report_lines, tune_metric
    from mteval.experiment.sets import resolve
    from mteval.store.cache import ScoreCache

    campaign = Campaign.open(args.config)
    experiment = campaign.experiment
    features = resolve(experiment, "-M", args.metrics, default_metrics(experiment, ScoreCache(experiment.cache)))
    options = TuneOptions(method=args.method, objective=args.objective, folds=args.folds, inner_folds=args.inner_folds,
                          nonneg=args.nonneg, greedy=not args.all_metrics, by_documents=args.bootstrap_documents,
                          n_boot=args.resamples, seed=args.seed, save_model=args.save_model, l1_ratio=args.l1_ratio,
                          select=args.select, unknown_systems=args.unknown_systems,
                          human_lower_better=args.human_lower_better)
    result = tune_metric(experiment, campaign.texts, tuple(features), args.assessments, args.name,
                         folds_by_line=args.folds_by_line, options=options)
    print("\n".join(report_lines(result)))
    print(f"{args.objective} criterion per test fold: "
          + " / ".join(f"{t:.4f}" for t in result.validation.test) + f" (mean {result.validation.mean_test:.4f})")
    print(f"learned on all {result.points} judged segments ({result.combination.kind}"
          + ("" if result.combination.ridge is None else f", ridge {result.combination.ridge:g}") + "):")
    for feature, weight in result.combination.to_dict().items():
        print(f"  {feature:<24} {weight:+.6g}")
    print(f"stored metric {args.name} for {result.files} target/reference pairs (trained on {result.identity})")
    if args.save_model:
        print(f"model file: {args.save_model}")
    return 0
