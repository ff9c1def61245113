"""mteval: utility commands beside iqsetup/iqeval.

Examples::

    mteval metrics                      # one line per metric: family, direction, range, aliases
    mteval metrics --long               # every registered family, its variants and their aliases
    mteval metrics SP-Op-NN             # what one name denotes (IQMT manual spellings are aliases)
    mteval metrics 'chrF(beta=3)'       # a parametric name: the variant and every parameter's value
    mteval models info                  # every language: backend, model, licence, installed or not
    mteval models info en               # which models an experiment in English would use
    mteval models download en           # Stanza's official models (needs internet)
    mteval hybridize configs/example-syntax.yaml --out hyb/   # write extended references + Table 5
    mteval report configs/example.yaml -assessments data/wmt21-ende-sample/human/mqm.tsv -o report.html
    mteval import-mtme ~/.mt-metrics-eval/mt-metrics-eval-v2 --testset wmt22 --lp en-de --out wmt22-ende
    mteval tune configs/example-docids.yaml --assessments data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST
    mteval global-accuracy configs/example.yaml data/wmt21-ende-sample/human/mqm.tsv \\
        configs/example-docids.yaml data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST-5
    mteval wmt-ranking --tasks wmt24 configs/example.yaml data/wmt21-ende-sample/human/mqm.tsv \\
        configs/example-docids.yaml data/wmt21-ruen-sample/human/da.tsv -M BLEU,NIST-5

Every command takes --version; every single-dash option longer than one letter also takes two
dashes (-assessments or --assessments).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from mteval.cli import global_accuracy as global_accuracy_command
from mteval.cli import import_mtme
from mteval.cli import report as report_command
from mteval.cli import score as score_command
from mteval.cli import tune as tune_command
from mteval.cli import wmt_ranking as wmt_ranking_command
from mteval.cli.common import finish_parser, run_command, verbatim_values

if TYPE_CHECKING:
    from mteval.metrics.base import MetricFamily, MetricInfo

METRICS_DESCRIPTION = """List the registered metrics, one line per metric: its name, family, which direction
is better, its range and its aliases (the IQMT manual's spellings); a variant that takes parameters
(VARIANT(key=value,...), e.g. chrF(beta=3)) is named in a note below. --long lists them by family,
each parametric variant's parameters with their values and defaults; NAME... says what each name
denotes (an unknown name: the closest names, exit 2)."""
MODELS_DESCRIPTION = """Annotation models. 'info' lists every language with its default backend, model,
licence, the extra that installs it and whether it is installed; 'info LANGUAGE' says which models an
experiment in that language would use (backend, source, processors, identity; --backend/--model as
the experiment's annotation: section); 'download LANGUAGE' fetches Stanza's official models (needs
internet)."""
HYBRIDIZE_DESCRIPTION = """Write syntactically hybridized references (Wang et al. 2009) of an experiment as files,
then print the paper's Table 5 statistics. The experiment's 'hybridize' section gives the options;
--cap and --references override it."""


def build_parser() -> argparse.ArgumentParser:
    """mteval's parser: the subcommands and their options."""
    parser = argparse.ArgumentParser(prog="mteval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    score_command.add_parser(commands)
    listing = commands.add_parser("metrics", help="list registered metrics: family, direction, range, aliases",
                                  description=METRICS_DESCRIPTION)
    listing.add_argument("names", nargs="*", help="only say what these metric names denote")
    listing.add_argument("--long", action="store_true",
                         help="by family: every variant, the families that need annotation, aliases as alias=variant")
    models = commands.add_parser("models", help="annotation models: info or download", description=MODELS_DESCRIPTION)
    models.add_argument("action", choices=("info", "download"))
    models.add_argument("language", nargs="?")
    models.add_argument("--backend", help="annotation backend (stanza, spacy, natasha; default: the language's)")
    models.add_argument("--model", help="the backend's model (a spaCy package or folder)")
    models.add_argument("--processors", help="comma-separated Stanza processors")
    models.add_argument("--dir", help="download folder (default: Stanza's resources folder)")
    hyb = commands.add_parser("hybridize", help="write syntactically hybridized references (Wang et al. 2009)",
                              description=HYBRIDIZE_DESCRIPTION)
    hyb.add_argument("config", help="experiment file with a 'hybridize' section (or give --references)")
    hyb.add_argument("--out", help="output folder (default: CACHE/.hybrid)")
    hyb.add_argument("--cap", type=int, help="override the cap on new references per segment")
    hyb.add_argument("--references", help="comma-separated references to hybridize (default: the config's)")
    tune_command.add_parser(commands)
    report_command.add_parser(commands)
    import_mtme.add_parser(commands)
    global_accuracy_command.add_parser(commands)
    wmt_ranking_command.add_parser(commands)
    return finish_parser(parser)  # --version and the -- spelling of single-dash options, everywhere


def hybridize(args: argparse.Namespace) -> int:
    """Write the extended references as files and print the paper's Table 5 statistics."""
    import dataclasses
    from pathlib import Path

    from mteval.experiment import hybrid_set
    from mteval.experiment.loading import load
    from mteval.experiment.texts import load_texts
    from mteval.hybridize.stats import table5
    from mteval.setup import hybrid
    from mteval.setup.annotation import AnnotationProvider

    experiment = load(args.config)
    options = dict(experiment.hybridize or {})
    if args.cap is not None:
        options["cap"] = args.cap
    if args.references:
        options["references"] = [r.strip() for r in args.references.split(",")]
    spec = hybrid_set.spec_of(dataclasses.replace(experiment, hybridize=options))
    assert spec is not None
    texts = load_texts(experiment)
    provider = AnnotationProvider(experiment, {r: texts.text(r).segments for r in spec.references})
    out = Path(args.out) if args.out else experiment.cache / ".hybrid"
    generated, result = hybrid.build(spec, provider, out)
    print(f"wrote {len(generated)} reference files {spec.name}.1..{spec.name}.{len(generated)} to {out}")
    for name, value in table5(result).rows():
        print(f"{name:<34} {value}")
    return 0


def list_metrics(names: list[str] | None = None, long: bool = False) -> int:
    """Print the metric table (:func:`metric_table`), each family in full with ``long``, or what
    each of ``names`` denotes (an unknown name: one line with the closest names, exit 2)."""
    from mteval.metrics import registry

    table = registry.alias_table()
    if names:
        for name in names:
            print(_denotes(name, table))
        return 0
    print("\n".join(_by_family() if long else metric_table()))
    return 0


def _denotes(name: str, aliases: dict[str, str]) -> str:
    """What a metric name denotes: an alias, a variant (with its parameters' defaults) or a
    parametric name (with every parameter's value), and its family."""
    from mteval.metrics import registry

    family = registry.family_of(name)
    canonical = registry.canonical(name)
    cls = registry.families()[family]
    base, values = cls.settings(canonical)
    opened = registry.open_label(name) if canonical not in registry.all_variants() else None
    if name in aliases:
        what = f"alias of {aliases[name]}"
    elif opened is not None:
        what = f"{opened[0]} of the parser's label {opened[1]!r}, not in the English label sets (the experiment's " \
               "parser must give it: docs/languages.md)"
    elif base != canonical or base != name:
        what = f"variant {base} with " + " ".join(f"{k}={v}" for k, v in values.items())
        what += "" if canonical == name else f" (canonical name {canonical})"
    else:
        what = "variant" + (f"; parameters (defaults): {' '.join(f'{k}={v}' for k, v in values.items())}"
                            if values else "")
    return f"{name}: {what} (family {family})"


def _parameter_lines(family_class: type[MetricFamily]) -> list[str]:
    """``--long``: a family's parametric variants and, a line each, their parameters' names,
    allowed values, defaults and meaning."""
    takers = [v for v in family_class.variants if family_class.parameters_of(v)]
    if not takers:
        return []
    params = family_class.parameters_of(takers[0])
    width = max(len(k) for k in params)
    ranges = {k: p.range() for k, p in params.items()}
    span = max(len(r) for r in ranges.values())
    defaults = {k: _default_of(family_class, takers, k) for k in params}
    fill = max(len(d) for d in defaults.values())
    lines = [f"  parameters of {' '.join(takers)}, as NAME(key=value,...):"]
    lines += [f"    {k:<{width}}  {ranges[k]:<{span}}  default {defaults[k]:<{fill}}  {p.help}".rstrip()
              for k, p in params.items()]
    return lines


def _default_of(family_class: type[MetricFamily], takers: list[str], key: str) -> str:
    """A parameter's default, with a variant's own where it differs: ``0 (chrF++: 2)``."""
    first = family_class.parameters_of(takers[0])[key].default
    own = {v: family_class.parameters_of(v)[key].default for v in takers[1:]}
    return first + "".join(f" ({v}: {d})" for v, d in own.items() if d != first)


def _by_family() -> list[str]:
    """``mteval metrics --long``: each family with its variants, annotation needs and aliases
    (``alias=variant``)."""
    from mteval.metrics import registry

    table = registry.alias_table()
    by_family: dict[str, list[str]] = {}
    order = {v: k for k, v in enumerate(registry.all_variants())}
    for alias, target in sorted(table.items(), key=lambda item: (order[item[1]], item[0])):
        by_family.setdefault(registry.family_of(target), []).append(f"{alias}={target}")
    lines = []
    for name, family_class in registry.families().items():
        needs = " (needs annotation)" if family_class.needs_annotation else ""
        lines.append(f"{name}{needs}: {' '.join(v for v in family_class.variants if v not in table)}")
        if by_family.get(name):
            lines.append(f"  aliases: {' '.join(by_family[name])}")
        lines += _parameter_lines(family_class)
    return lines


def metric_table(width: int = 120) -> list[str]:
    """``mteval metrics``: one line per metric (name, family, direction, range, aliases), the
    aliases wrapped under their column so that no line is longer than ``width``."""
    from mteval.metrics import registry

    rows = [("NAME", "FAMILY", "BETTER", "RANGE", "ALIASES")] + _metric_rows()
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    indent = sum(widths) + 2 * len(widths)
    lines = []
    for row in rows:
        head = "".join(f"{cell:<{w}}  " for cell, w in zip(row, widths, strict=False))
        wrapped = textwrap.wrap(row[4], max(width - indent, 20), break_long_words=False,
                                break_on_hyphens=False) or [""]
        lines.append((head + wrapped[0]).rstrip())
        lines.extend(" " * indent + more for more in wrapped[1:])
    annotated = [name for name, cls in registry.families().items() if cls.needs_annotation]
    parametric = [f"{v}({','.join(cls.parameters_of(v))})" for cls in registry.families().values()
                  for v in cls.variants if cls.parameters_of(v)]
    lines.append("")
    for note in (f"needs annotation (a Stanza parse of the texts): {', '.join(annotated)}",
                 f"take parameters, as NAME(key=value,...): {' '.join(parametric)} (values and defaults: "
                 "mteval metrics --long)",
                 f"take any label of the parser, as NAME(label): {' '.join(registry.open_prefixes())} (e.g. "
                 "DP-Or(obl:mod) for French; the registered labels are English's)",
                 f"{len(rows) - 1} metrics; mteval metrics --long: by family; mteval metrics NAME: what it denotes"):
        lines.extend(textwrap.wrap(note, width, break_on_hyphens=False))
    return lines


def _metric_rows() -> list[tuple[str, str, str, str, str]]:
    """(name, family, direction, range, aliases) of every canonical variant, in registry order."""
    from mteval.metrics import registry

    table = registry.alias_table()
    aliases: dict[str, list[str]] = {}
    for alias, target in sorted(table.items()):
        aliases.setdefault(target, []).append(alias)
    rows = []
    for family, family_class in registry.families().items():
        metric = registry.create(family)
        for variant in (v for v in family_class.variants if v not in table):
            info = metric.info(variant)
            rows.append((variant, family, "higher" if info.higher_is_better else "lower", _range(info),
                         " ".join(aliases.get(variant, []))))
    return rows


def _range(info: MetricInfo) -> str:
    """A variant's range as ``0..1``, ``>=0``, ``<=0`` or ``any``."""
    low, high = info.lower_bound, info.upper_bound
    if low is None and high is None:
        return "any"
    if high is None:
        return f">={low:g}"
    if low is None:
        return f"<={high:g}"
    return f"{low:g}..{high:g}"


def models(args: argparse.Namespace) -> int:
    """``models info`` / ``models download``."""
    from mteval.annotate import backends, stanza_adapter

    if args.action == "download":
        target = stanza_adapter.download(args.language or "en", args.processors, args.dir)
        print(f"downloaded Stanza models for {args.language or 'en'} into {target}")
        return 0
    if args.language is None:
        print("\t".join(("language", "backend", "model", "version", "licence", "install", "installed", "note")))
        for row in backends.language_table():
            print("\t".join(row))
        return 0
    chosen = backends.select(args.language, args.backend, args.model)
    if chosen is not None:
        print(f"backend: {chosen.name}\nmodel: {chosen.model}\nprocessors: {chosen.processors}")
        print(f"identity: {chosen.identity()}")
        return 0
    processors = stanza_adapter.available_processors(args.language, args.processors or
                                                     stanza_adapter.DEFAULT_PROCESSORS)
    choice = stanza_adapter.resolve_models(args.language, processors)
    print(f"source: {choice.source}\nfolder: {choice.directory}\nprocessors: {','.join(choice.processors)}")
    print(f"identity: {stanza_adapter.model_identity(choice)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(verbatim_values(sys.argv[1:] if argv is None else argv, ("-M", "-m", "--metrics")))
    if args.command == "metrics":
        return run_command("mteval", lambda: list_metrics(args.names, args.long))
    if args.command == "tune":
        return run_command("mteval", lambda: tune_command.run(args))
    if args.command == "hybridize":
        return run_command("mteval", lambda: hybridize(args))
    if args.command == "score":
        return run_command("mteval", lambda: score_command.run(args))
    if args.command == "report":
        return run_command("mteval", lambda: report_command.run(args))
    if args.command == "import-mtme":
        return run_command("mteval", lambda: import_mtme.run(args))
    if args.command == "global-accuracy":
        return run_command("mteval", lambda: global_accuracy_command.run(args))
    if args.command == "wmt-ranking":
        return run_command("mteval", lambda: wmt_ranking_command.run(args))
    return run_command("mteval", lambda: models(args))


if __name__ == "__main__":
    sys.exit(main())
