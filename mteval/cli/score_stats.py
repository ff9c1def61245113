"""``mteval score``'s sacreBLEU statistics options: ``--confidence`` (each system's bootstrap interval,
one system) and ``--paired-bs`` / ``--paired-ar`` (paired significance of several systems against
the first), with sacreBLEU's option names, defaults and rules (Koehn 2004; Riezler & Maxwell 2005).

The numbers are :meth:`mteval.Campaign.confidence`'s and :meth:`mteval.Campaign.compare`'s (``iqeval
-compare``'s engine, equal to sacreBLEU's on its statistics: docs/significance-systems.md). As in
sacreBLEU, the p-values are not corrected for the number of comparisons (``iqeval -compare`` corrects
them, Holm by default) and ``*`` marks p < 0.05.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mteval.errors import ConfigError

if TYPE_CHECKING:
    from mteval.api import Campaign

Record = dict[str, Any]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, in a group of their own."""
    group = parser.add_argument_group("confidence and significance (sacreBLEU's options)")
    group.add_argument("-ci", "--confidence", action="store_true",
                       help="each system's 95%% bootstrap interval, printed as (μ = MEAN ± HALF-WIDTH); one "
                       "system: compare several with --paired-bs or --paired-ar")
    group.add_argument("-cin", "--confidence-n", type=int, default=1000, metavar="N",
                       help="bootstrap resamples of --confidence (1000)")
    paired = group.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", action="store_true",
                        help="paired bootstrap resampling of every system against the first -i (the baseline)")
    paired.add_argument("-par", "--paired-ar", action="store_true",
                        help="paired approximate randomisation of every system against the first -i")
    group.add_argument("-pbsn", "--paired-bs-n", type=int, default=1000, metavar="N",
                       help="resamples of --paired-bs (1000)")
    group.add_argument("-parn", "--paired-ar-n", type=int, default=10000, metavar="N",
                       help="trials of --paired-ar (10000)")
    group.add_argument("--seed", type=int, default=12345, help="random seed of the resampling (12345, sacreBLEU's)")


def paired(args: argparse.Namespace) -> str | None:
    """The paired test asked for: ``bs``, ``ar`` or None."""
    return "bs" if args.paired_bs else "ar" if args.paired_ar else None


def check(args: argparse.Namespace, n_systems: int) -> None:
    """sacreBLEU's rules, each refused in one line: --confidence is for one system, a paired test
    for two or more; neither prints segments."""
    from mteval.meta.stats.paired import check_count

    test = paired(args)
    if args.confidence and n_systems > 1:
        raise ConfigError(f"--confidence gives one system's interval; {n_systems} systems given: compare them with "
                          "--paired-bs or --paired-ar (as sacreBLEU)")
    if test and n_systems < 2:
        raise ConfigError(f"--paired-{test} compares systems with the first one: give two or more with -i")
    if (args.confidence or test) and args.segments:
        raise ConfigError(f"--segments prints segment scores; it cannot be combined with "
                          f"{'--confidence' if args.confidence else f'--paired-{test}'}")
    check_count(args.confidence_n, "--confidence-n")
    check_count(args.paired_bs_n, "--paired-bs-n")
    check_count(args.paired_ar_n, "--paired-ar-n")


def intervals(campaign: Campaign, args: argparse.Namespace,
              segments: list[int] | None = None) -> dict[tuple[str, str], Record]:
    """``--confidence``: (system, metric) -> its record (``mean``, ``ci_low``, ``ci_high``); empty without
    (``segments``: of these segments only, --origlang/--subset)."""
    if not args.confidence:
        return {}
    found = campaign.confidence(metrics=list(campaign.metrics), segments=segments, resamples=args.confidence_n,
                                seed=args.seed)
    return {(r["target"], r["metric"]): r for r in found}


def interval_text(record: Record | None, width: int = 4) -> str:
    """`` (μ = MEAN ± HALF)`` after a score, ``width`` decimals, as sacreBLEU prints it ("" without)."""
    if record is None:
        return ""
    return f" (μ = {record['mean']:.{width}f} ± {0.5 * (record['ci_high'] - record['ci_low']):.{width}f})"


def comparisons(campaign: Campaign, args: argparse.Namespace, segments: list[int] | None = None) -> list[Record]:
    """The paired test's records (``iqeval -compare --json``'s), the systems by their labels (``segments``:
    of these segments only)."""
    test = paired(args)
    assert test is not None
    records = campaign.compare(metrics=list(campaign.metrics), segments=segments, baseline=campaign.systems[0],
                               test=test, resamples=args.paired_bs_n, trials=args.paired_ar_n, seed=args.seed,
                               correction="none")
    refset = "+".join(campaign.label(r) for r in campaign.references)
    return [{**r, "target": campaign.label(r["target"]), "baseline": campaign.label(r["baseline"]), "refset": refset}
            for r in records]
