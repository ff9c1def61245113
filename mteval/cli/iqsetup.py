"""iqsetup: compute and cache every requested similarity metric of an experiment.

Examples::

    iqsetup configs/example.yaml            # all pairs; skips what is cached and up to date
    iqsetup -JACK configs/example.yaml      # also system/system files (for -doJACK)
    iqsetup -remake configs/example.yaml    # recompute everything
"""

from __future__ import annotations

import argparse
import sys
import time

from mteval.cli.common import run_command
from mteval.pipeline.config import load
from mteval.pipeline.setup import run_setup
from mteval.pipeline.texts import load_texts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iqsetup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="experiment file (YAML, or IQMT's legacy key=value)")
    parser.add_argument("-JACK", "--jack", action="store_true", help="also compute system/system files")
    parser.add_argument("-remake", "--remake", action="store_true", help="recompute existing files")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    def body() -> int:
        started = time.perf_counter()
        experiment = load(args.config)
        texts = load_texts(experiment)

        def progress(message: str) -> None:
            if not args.quiet:
                print(f"iqsetup: [{time.perf_counter() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

        report = run_setup(experiment, texts, jack=args.jack, remake=args.remake, progress=progress)
        if not args.quiet:
            print(f"iqsetup: {report.computed} file(s) computed, {report.skipped} up to date, in "
                  f"{time.perf_counter() - started:.1f}s; cache: {experiment.cache}", file=sys.stderr)
        return 0

    return run_command("iqsetup", body)


if __name__ == "__main__":
    sys.exit(main())
