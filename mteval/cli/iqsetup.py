"""iqsetup (or IQsetup): compute and cache every requested similarity metric of an experiment
(IQMT manual §4.1).

Examples::

    iqsetup configs/example.yaml            # all pairs; skips what is cached and up to date
    iqsetup -JACK configs/example.yaml      # also system/system files (for -doJACK)
    iqsetup -remake configs/example.yaml    # recompute everything
    iqsetup -j 2 configs/example.yaml       # two worker processes (default: one per core)
    iqsetup --scheduler tcp://head:8786 configs/example.yaml   # on a Dask cluster
    iqsetup --device cuda configs/example.yaml   # parse with Stanza on the GPU (docs/annotation.md)
    IQsetup configs/IQsetup.config configs/IQeval.config   # the manual's form: also write IQeval.config

IQeval.config (the second file) names the experiment (setup=) and holds IQeval's predefined sets:
metrics= (shown without -M), metrics_FAMILY=, all_systems=, all_refs=, all_segs=. iqsetup rewrites
them on every run and keeps the sets you add below the line '# --- your sets ...'.

-j N (or 'engine: {jobs: N}' in the experiment file) computes in N processes; --scheduler ADDRESS
(or 'engine: {dask: ADDRESS}') on a Dask cluster. The files are the same byte for byte whatever N
or cluster (docs/scaling.md).

Every single-dash option also takes two dashes (-remake or --remake, -JACK or --JACK); --version
prints mteval's version.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mteval.cli.common import DEVICE_HELP, device_option, finish_parser, run_command
from mteval.errors import ConfigError, quote
from mteval.evaluate.campaign import Campaign
from mteval.experiment import legacy_eval_config
from mteval.experiment.config import MAX_JOBS
from mteval.experiment.loading import is_eval_config, load
from mteval.progress import set_quiet
from mteval.setup.annotation import with_device


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iqsetup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="experiment file (YAML, or IQMT's legacy key=value: IQsetup.config)")
    parser.add_argument("eval_config", nargs="?", metavar="IQeval.config",
                        help="also write this IQeval.config for iqeval (manual §4.1), keeping your sets in it")
    parser.add_argument("-JACK", "--jack", action="store_true", help="also compute system/system files")
    parser.add_argument("-remake", "--remake", action="store_true", help="recompute existing files")
    parser.add_argument("--take-over", action="store_true",
                        help="replace files that another experiment sharing the cache wrote with other texts or "
                             "settings (refused otherwise: docs/reliability.md)")
    parser.add_argument("-j", "--jobs", metavar="N",
                        help=f"worker processes, 1 to {MAX_JOBS} (default: the experiment's engine: {{jobs: N}}, "
                        "else one per core); the files are the same for any N")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="compute on a Dask cluster: a scheduler address (tcp://host:8786), a scheduler file "
                        "(.json), or 'local' for a local cluster of -j workers (default: the experiment's "
                        "engine: {dask: ...}; needs pip install 'mteval[dask]'); the files are the same")
    parser.add_argument("--device", metavar="DEVICE", help=DEVICE_HELP)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress messages or bars (bars show only on a terminal anyway)")
    return finish_parser(parser)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    set_quiet(args.quiet)

    def body() -> int:
        started = time.perf_counter()
        jobs = _jobs(args.jobs)
        experiment = with_device(load(args.config), device_option(args.device))
        kept = _check_eval_config(args)  # before computing: refuse a file iqsetup did not write
        if kept:
            experiment = legacy_eval_config.with_user_sets(experiment, kept, Path(args.eval_config))
        campaign = Campaign.of(experiment)

        def progress(message: str) -> None:
            if not args.quiet:
                print(f"iqsetup: [{time.perf_counter() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

        report = campaign.compute(jack=args.jack, remake=args.remake, progress=progress, jobs=jobs,
                                  dask=args.scheduler, take_over=args.take_over)
        if kept is not None:
            from mteval.evaluate.selection import default_metrics  # only for an IQeval.config
            from mteval.store.cache import ScoreCache

            out = Path(args.eval_config)
            legacy_eval_config.write_eval_config(experiment, Path(args.config), out,
                                                 default_metrics(experiment, ScoreCache(experiment.cache)),
                                                 len(campaign.texts), kept)
            progress(f"wrote {out}")
        if not args.quiet:
            print(f"iqsetup: {report.computed} file(s) computed, {report.skipped} up to date, in "
                  f"{time.perf_counter() - started:.1f}s; cache: {experiment.cache}", file=sys.stderr)
        return 0

    return run_command("iqsetup", body)


def _jobs(value: str | None) -> int | None:
    """The -j value, checked (one line and exit 2 otherwise)."""
    if value is None:
        return None
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if not 1 <= jobs <= MAX_JOBS:
        raise ConfigError(f"option -j: expected an integer from 1 to {MAX_JOBS}, got {quote(value)}")
    return jobs


def _check_eval_config(args: argparse.Namespace) -> str | None:
    """The user's lines of the IQeval.config to write (None when none is asked for)."""
    if args.eval_config is None:
        return None
    if is_eval_config(Path(args.config)):
        raise ConfigError("is an IQeval.config; give the experiment file (IQsetup.config) first, then the "
                          "IQeval.config to write", args.config)
    return legacy_eval_config.kept_lines(Path(args.eval_config))


if __name__ == "__main__":
    sys.exit(main())
