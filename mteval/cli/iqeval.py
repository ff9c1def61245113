"""iqeval (or IQeval): evaluate from the score cache (IQMT manual §4.2). Reads the cache only, but
with -remake, which first recomputes the files of the selected metrics (-M; all by default) as
iqsetup -remake would (system/system files too with -doJACK).

Examples::

    iqeval -doOQ -G sys -O 0 configs/example.yaml
    iqeval -doOQ -G seg -O 1 -M some_metrics -S some_systems -T some_segs configs/example.yaml
    iqeval -doOQ -G doc --tsv configs/example.yaml > scores.tsv
    iqeval -doOQ -doref -R some_refs --json configs/example.yaml
    iqeval -doQUEEN -doKING -G seg -M some_metrics configs/example.yaml
    iqeval -optimizeKING --exhaustive -TT configs/example.yaml
    iqeval -assessments data/wmt21-ende-sample/human/mqm.tsv -G seg --tsv configs/example.yaml
    iqeval -compare -baseline UEdin -M BLEU,chrF configs/example.yaml   # paired significance, clusters
    iqeval -TRYall new_system.txt configs/example.yaml   # score one new output, computing only its files
    IQeval -doOQ -G sys -O 0 configs/IQeval.config        # the IQeval.config that IQsetup writes
    iqeval -doOQ -M -TER configs/example.yaml             # a value may start with '-' (-M=-TER too)
    iqeval -remake -doOQ -M BLEU configs/example.yaml     # recompute BLEU's files, then evaluate
    iqeval -remake --device cuda -doOQ -M DP-HWCM_w-4 configs/example-syntax.yaml  # re-parse on a GPU

Every IQMT single-dash option also takes two dashes, as the same option: -doOQ or --doOQ,
-assessments or --assessments, -remake or --remake. --version prints mteval's version.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from mteval import progress
from mteval.cli import compare_view, output
from mteval.cli.common import DEVICE_HELP, SET_OPTIONS, device_option, finish_parser, run_command, verbatim_values
from mteval.cli.iqeval_actions import ACTIONS, add_assessment_arguments, add_compare_arguments, add_qarla_arguments
from mteval.errors import MtevalError
from mteval.evaluate import compare, selection, trial
from mteval.evaluate.campaign import Campaign
from mteval.experiment.loading import load
from mteval.experiment.sets import resolve
from mteval.experiment.spec import computable
from mteval.metrics import registry
from mteval.setup.annotation import with_device
from mteval.setup.expected import StaleFile
from mteval.setup.verify import verifier_of
from mteval.store.cache import ScoreCache


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="iqeval", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", help="experiment file (YAML, IQMT's legacy key=value, or IQeval.config)")
    p.add_argument("-doOQ", action="store_true", help="metric scores outside QARLA")
    p.add_argument("-G", dest="level", default="sys", choices=selection.LEVELS, help="granularity")
    p.add_argument("-O", dest="layout", default="0", choices=("0", "1"),
                   help="0: score matrix; 1: one ranking list per metric")
    p.add_argument("-M", dest="metrics", help="metric set name (or comma-separated metrics)")
    p.add_argument("-S", dest="systems", help="system set name (or comma-separated systems)")
    p.add_argument("-R", dest="references", help="reference set name (or comma-separated references)")
    p.add_argument("-T", dest="segments", help="segment set name (or a range like '1-3,10')")
    p.add_argument("-doref", action="store_true", help="also score each reference against the others")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars (shown only on a terminal)")
    p.add_argument("-remake", action="store_true",
                   help="first recompute the selected metrics' files (the setup stage; -doJACK: system/system too)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--tsv", action="store_true", help="tidy tab-separated records")
    fmt.add_argument("--json", action="store_true", help="records as a JSON list")
    tries = p.add_mutually_exclusive_group()
    tries.add_argument("-TRY", metavar="FILE", help="add a new system and compute its QUEEN")
    tries.add_argument("-TRYoq", metavar="FILE", help="add a new system and compute its metrics outside QARLA")
    tries.add_argument("-TRYall", metavar="FILE", help="add a new system and compute both")
    p.add_argument("--try-name", help="name of the -TRY system (default: the file name without extension)")
    p.add_argument("--device", metavar="DEVICE",
                   help="as iqsetup --device: the campaign parsed there (-remake and -TRY parse there; the "
                        "syntactic files read are those such a run wrote). " + DEVICE_HELP)
    add_qarla_arguments(p)  # -doQUEEN -doKING -doJACK -optimizeKING -TT
    add_assessment_arguments(p)  # -assessments FILE and its options
    add_compare_arguments(p)  # -compare (-compareSystems) -baseline SYS and its options
    return finish_parser(p)  # --doOQ for -doOQ, --assessments for -assessments, ...; --version


def render(records: list[dict], args: argparse.Namespace) -> None:
    """Write records in the requested layout to stdout (-compare's text view after the others)."""
    if args.tsv:
        output.write_tsv(records, sys.stdout)
        return
    if args.json:
        output.write_json(records, sys.stdout)
        return
    compared = [r for r in records if r.get("_view") == compare.VIEW]
    others = [r for r in records if r.get("_view") != compare.VIEW]
    if others and args.layout == "1":
        output.write_rankings(others, sys.stdout, registry.higher_is_better)
    elif others:
        output.write_matrix(others, sys.stdout, {"sys": "SYS", "doc": "SYS:DOC", "seg": "SYS:SEG"}[args.level])
    if compared:
        if others:
            sys.stdout.write("\n")
        compare_view.write_comparisons(compared, sys.stdout)


def remake(args: argparse.Namespace, campaign: Campaign) -> None:
    """-remake (manual §4.2: "remake metric computations"): recompute every file of the selected
    metrics (a learned one with its features; users' own metrics, which mteval does not compute,
    are read as they are)."""
    experiment = campaign.experiment
    cache = ScoreCache(experiment.cache)
    chosen = resolve(experiment, "-M", args.metrics, selection.default_metrics(experiment, cache))
    learned = tuple(spec for spec in experiment.learned if spec.name in chosen)
    target = computable(dataclasses.replace(experiment, metrics=tuple(chosen), learned=learned))
    kept = [m for m in chosen if m not in target.metrics and m not in target.learned_names]
    if kept:
        print(f"iqeval: -remake: not computed by mteval, read as they are: {', '.join(kept)}", file=sys.stderr)
    if target.metrics or target.learned:
        report = Campaign(target, campaign.texts).compute(jack=args.doJACK, remake=True)
        print(f"iqeval: -remake: {report.computed} file(s) computed", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(verbatim_values(words, (*SET_OPTIONS, "-baseline", "--baseline")))
    progress.set_quiet(args.quiet)

    def body() -> int:
        chosen = [name for name in ACTIONS if getattr(args, name, False)]
        tried = next(((flag, getattr(args, flag)) for flag in trial.TRY_ACTIONS if getattr(args, flag)), None)
        if tried:
            chosen += [a for a in trial.TRY_ACTIONS[tried[0]] if a not in chosen]
        if not chosen:
            raise MtevalError("no action given; use one of " + ", ".join(f"-{a}" for a in ACTIONS))
        campaign = Campaign.of(with_device(load(args.config), device_option(args.device)))  # texts read once
        systems = args.systems
        if args.remake:
            remake(args, campaign)
        if tried:
            experiment = trial.with_trial_system(campaign.experiment, tried[1], args.try_name)
            systems = experiment.systems[-1].name
            campaign = Campaign(experiment, trial.score_trial(experiment, systems)[0])
        experiment, texts = campaign.experiment, campaign.texts
        cache = campaign.cache  # every file read is checked against the texts and settings
        metrics = args.metrics if args.metrics or not tried else ",".join(experiment.metrics
                                                                           + experiment.learned_names)
        sel = selection.select(experiment, cache, len(texts), metrics, systems, args.references,
                               args.segments, args.level, args.doref, texts)
        try:
            records = [r for name in chosen for r in ACTIONS[name](args, experiment, cache, sel, texts)]
        except StaleFile as stale:  # name every stale file of the selection in the one line
            raise verifier_of(cache).summary(stale, selection.selected_files(sel)) from None
        selection.warn_about_texts(experiment, texts, sel)  # what iqsetup said of them, said again where shown
        render(records, args)
        return 0

    return run_command("iqeval", body)


if __name__ == "__main__":
    sys.exit(main())
