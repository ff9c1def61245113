"""mteval: utility commands beside iqsetup/iqeval.

Examples::

    mteval metrics                      # every registered family and its variants
    mteval models info en               # which Stanza models an experiment in English would use
    mteval models download en           # Stanza's official models (needs internet)
"""

from __future__ import annotations

import argparse
import sys

from mteval.cli.common import run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mteval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("metrics", help="list registered metric families and variants")
    models = commands.add_parser("models", help="Stanza models: info or download")
    models.add_argument("action", choices=("info", "download"))
    models.add_argument("language", nargs="?", default="en")
    models.add_argument("--processors", help="comma-separated Stanza processors")
    models.add_argument("--dir", help="download folder (default: Stanza's resources folder)")
    return parser


def list_metrics() -> int:
    """Print each family with its variants, direction and annotation needs."""
    from mteval.metrics import registry

    for name, family_class in registry.families().items():
        needs = " (needs annotation)" if family_class.needs_annotation else ""
        print(f"{name}{needs}: {' '.join(family_class.variants)}")
    return 0


def models(args: argparse.Namespace) -> int:
    """``models info`` / ``models download``."""
    from mteval.annotate import stanza_adapter

    if args.action == "download":
        target = stanza_adapter.download(args.language, args.processors, args.dir)
        print(f"downloaded Stanza models for {args.language} into {target}")
        return 0
    processors = stanza_adapter.available_processors(args.language, args.processors or
                                                     stanza_adapter.DEFAULT_PROCESSORS)
    choice = stanza_adapter.resolve_models(args.language, processors)
    print(f"source: {choice.source}\nfolder: {choice.directory}\nprocessors: {','.join(choice.processors)}")
    print(f"identity: {stanza_adapter.model_identity(choice)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "metrics":
        return run_command("mteval", list_metrics)
    return run_command("mteval", lambda: models(args))


if __name__ == "__main__":
    sys.exit(main())
