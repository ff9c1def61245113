"""``mteval import-mtme``: one test set and language pair of mt-metrics-eval's data (read by
:mod:`mteval.io.mtme`) as an mteval experiment folder ``OUT`` (docs/mtme.md):

- ``OUT/experiment.yaml``: the source, references and systems at their original (absolute) paths,
  ``format: plain``, the target language, ``cache: cache``, the metrics, per-domain segment sets
  when there are several domains, and a comment saying what was imported;
- ``OUT/docids``: the document id of every segment, from ``documents/LP.docs`` (when present);
- ``OUT/human/NAME.seg.tsv`` and ``NAME.sys.tsv``: the human scores in the
  ``system segment score`` TSV of ``iqeval -assessments`` (``-`` as the segment of a system-level
  score; ``None`` scores left out); ``doc`` and ``domain`` level scores have no such format and
  are listed as not imported;
- ``OUT/texts/NAME.txt`` (``OUT/source.txt``): copies, only of texts holding mt-metrics-eval's
  ``[No translation supplied]`` lines, with those lines blank (an empty output), or lines ending in
  whitespace, stripped as mt-metrics-eval reads every line (``rstrip()``: one segment of WMT21 zh-en's
  Borderline ends in a space; ``-WER`` would count a trailing U+3000 as a word).

References: the standard reference (``--ref``; default: WMT's choice for the known test sets,
else the only reference, else ``refA``) comes first; ``--refs all`` adds the others (multi-
reference metrics, QUEEN/KING). Human outputs (``system-outputs`` files named like a reference)
are left out unless ``include_human``; a reference of the experiment is never also a system.
System names outside :func:`mteval.names.name_problem`'s rule are mapped (other characters to
``_``) and the mapping is listed; a clash after mapping is refused.

Everything is read and checked, and the YAML validated by mteval's own loader, before the first
file is written; each file is written atomically.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mteval import names
from mteval.errors import ConfigError, quote
from mteval.files import write_atomic
from mteval.io import mtme

DEFAULT_METRICS = ("BLEU", "chrF", "-TER")
IMPORTED_LEVELS = ("seg", "sys")
# WMT's standard reference where it is not refA (mt-metrics-eval's meta_info.py); test sets not
# listed use TESTSET_REFS, then the rule in standard_reference
STD_REFS = {("wmt21.news", "en-de"): "refC", ("wmt21.news", "zh-en"): "refB", ("wmt21.tedtalks", "zh-en"): "refB",
            ("wmt22", "cs-en"): "refB", ("wmt22", "en-cs"): "refB", ("wmt23", "he-en"): "refB",
            ("wmt23", "en-he"): "refB", ("wmt24", "en-de"): "refB", ("wmt24pp", "en-de_DE"): "posteditB",
            ("wmt24pp", "en-is_IS"): "refA"}
TESTSET_REFS = {"wmt19": "ref", "wmt20": "ref", "wmt24pp": "posteditA"}
_UNSAFE = re.compile(r"[^\w.+@=-]")


@dataclass(frozen=True)
class ImportOptions:
    """What to import and where (the command's options)."""

    root: Path
    testset: str
    lp: str
    out: Path
    reference: str | None = None  # the standard reference; None: standard_reference's default
    all_references: bool = False
    include_human: bool = False
    systems: tuple[str, ...] | None = None  # None: every system
    human: tuple[str, ...] | None = None  # human score names; None: all
    metrics: tuple[str, ...] = DEFAULT_METRICS
    language: str | None = None  # None: the target language of the pair
    force: bool = False


@dataclass
class Plan:
    """Everything the import writes, computed before writing."""

    references: dict[str, Path]
    systems: dict[str, Path]  # mteval name -> path
    kept: dict[str, str] = field(default_factory=dict)  # mt-metrics-eval name -> mteval name, imported systems
    renamed: dict[str, str] = field(default_factory=dict)  # the kept names that differ
    human_outputs: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # human outputs not imported
    copies: dict[str, list[str]] = field(default_factory=dict)  # texts/NAME.txt -> lines
    docids: list[str] | None = None
    domains: dict[str, str] = field(default_factory=dict)  # set name -> segment ranges
    tables: dict[str, str] = field(default_factory=dict)  # human/NAME.LEVEL.tsv -> content
    skipped: list[str] = field(default_factory=list)


def standard_reference(testset: str, lp: str, available: list[str], chosen: str | None) -> str:
    """The standard reference: ``chosen``, else WMT's for a known set, else the only one, else refA."""
    shown = ", ".join(available)
    if chosen is not None:
        if chosen not in available:
            raise ConfigError(f"--ref {quote(chosen)}: no such reference (references: {shown})")
        return chosen
    known = STD_REFS.get((testset, lp))
    if known is not None and known not in available:
        raise ConfigError(f"WMT's standard reference of {testset} {lp} is {known}, which is absent (references: "
                          f"{shown}); say which one with --ref NAME")
    for candidate in (known, TESTSET_REFS.get(testset)):
        if candidate in available:
            return candidate
    if len(available) == 1:
        return available[0]
    if "refA" in available:
        return "refA"
    raise ConfigError(f"several references ({shown}) and none is known as standard; say which with --ref NAME")


def mteval_name(name: str) -> str:
    """``name`` made a valid mteval name: NFC, other characters as ``_``, a letter or digit first."""
    safe = _UNSAFE.sub("_", unicodedata.normalize("NFC", name))
    return safe if re.match(r"[^\W_]", safe) else f"s{safe}"


def _selected(available: dict[str, Path], wanted: tuple[str, ...] | None, what: str) -> list[str]:
    if wanted is None:
        return list(available)
    unknown = [w for w in wanted if w not in available]
    if unknown:
        raise ConfigError(f"--{what}: unknown {quote(unknown[0])} (available: {', '.join(available)})")
    return list(dict.fromkeys(wanted))


def plan_texts(files: mtme.EvalSetFiles, options: ImportOptions) -> Plan:
    """References and systems of the experiment, with names mapped and human outputs sorted out."""
    std = standard_reference(options.testset, options.lp, list(files.references), options.reference)
    refs = [std] + ([r for r in files.references if r != std] if options.all_references else [])
    human = tuple(s for s in files.systems if s in files.references)
    chosen = _selected(files.systems, options.systems, "systems")
    left_out = tuple(s for s in chosen if s in human and (s in refs or not options.include_human))
    plan = Plan({r: files.references[r] for r in refs}, {}, human_outputs=human, left_out=left_out)
    for system in chosen:
        if system in left_out:
            continue
        name = mteval_name(system)
        if name != system:
            plan.renamed[system] = name
        if name in plan.systems or name in plan.references:
            raise ConfigError(f"systems {quote(system)} and {quote(_original(plan, name))} both map to the "
                              f"mteval name {quote(name)}", files.systems[system])
        plan.systems[name] = files.systems[system]
        plan.kept[system] = name
    _check_names(plan, files)
    return plan


def _original(plan: Plan, name: str) -> str:
    return next((old for old, new in plan.renamed.items() if new == name), name)


def _check_names(plan: Plan, files: mtme.EvalSetFiles) -> None:
    for name, path in [*plan.references.items(), *plan.systems.items()]:
        problem = names.name_problem(name)
        if problem is not None:
            raise ConfigError(f"cannot be imported: {problem}", path)
    clash = names.collisions([*plan.references, *plan.systems])
    if clash:
        raise ConfigError(f"names {quote(clash[0][0])} and {quote(clash[0][1])} differ only in case; they would "
                          "share a cache folder", files.folder)
    if not plan.systems:
        raise ConfigError("no system left to import (check --systems and --include-human-refs)",
                          files.folder / "system-outputs" / files.lp)


def read_texts(files: mtme.EvalSetFiles, plan: Plan) -> int:
    """Check every text's line count against the source; plan copies of texts with missing lines."""
    source = mtme.read_segments(files.source)
    n = len(source)
    if any(ln != ln.rstrip() for ln in source):
        plan.copies["source.txt"] = [ln.rstrip() for ln in source]  # beside texts/: a system may be "source"
    for name, path in [*plan.references.items(), *plan.systems.items()]:
        lines = mtme.read_segments(path, n)
        if mtme.NO_TRANSLATION in lines or any(ln != ln.rstrip() for ln in lines):
            plan.copies[f"texts/{name}.txt"] = ["" if ln == mtme.NO_TRANSLATION else ln.rstrip() for ln in lines]
    if files.documents is not None:
        rows = mtme.read_documents(files.documents, n)
        plan.docids = [doc for _, doc in rows]
        plan.domains = _domain_sets([domain for domain, _ in rows], files.documents)
    return n


def _domain_sets(domains: list[str], path: Path) -> dict[str, str]:
    """``domain_NAME: "1-9, 20-30"`` segment sets, when there are several domains (two domains whose
    mteval names would be one set are refused: ``sport/express`` and ``sport_express``)."""
    if len(set(domains)) < 2:
        return {}
    named: dict[str, str] = {}
    for domain in dict.fromkeys(domains):
        other = named.setdefault(mteval_name(domain), domain)
        if other != domain:
            raise ConfigError(f"domains {quote(other)} and {quote(domain)} would both be the segment set "
                              f"{quote('domain_' + mteval_name(domain))}; rename one", path)
    ranges: dict[str, list[str]] = {}
    start = 0
    for i in range(1, len(domains) + 1):
        if i == len(domains) or domains[i] != domains[start]:
            span = f"{start + 1}" if i == start + 1 else f"{start + 1}-{i}"
            ranges.setdefault(domains[start], []).append(span)
            start = i
    return {f"domain_{mteval_name(d)}": ", ".join(spans) for d, spans in sorted(ranges.items())}


def plan_human(files: mtme.EvalSetFiles, options: ImportOptions, plan: Plan, n: int) -> None:
    """The human-score TSVs (the experiment's systems only) and the files not imported."""
    available = sorted({h.name for h in files.human})
    if options.human is not None:
        unknown = [h for h in options.human if h not in available]
        if unknown:
            raise ConfigError(f"--human: no human scores named {quote(unknown[0])} (available: "
                              f"{', '.join(available) or 'none'})", files.folder / "human-scores")
    for human in files.human:
        if options.human is not None and human.name not in options.human:
            continue
        if human.level not in IMPORTED_LEVELS:
            plan.skipped.append(f"{human.path.name} ({human.level} level: no assessments format)")
            continue
        label = f"human/{human.name}.{human.level}.tsv"
        problem = names.check_component(f"{human.name}.{human.level}.tsv")
        if problem is not None:
            raise ConfigError(f"cannot name the output: {problem}", human.path)
        rows = _human_rows(human, files, plan.kept, n)
        if rows:
            plan.tables[label] = "system\tsegment\tscore\n" + "".join(f"{r}\n" for r in rows)
        else:
            plan.skipped.append(f"{human.path.name} (no score of an imported system)")


def _human_rows(human: mtme.HumanScores, files: mtme.EvalSetFiles, kept: dict[str, str], n: int) -> list[str]:
    """``system segment score`` lines of one human-score file, for the kept systems."""
    if human.level == "sys":
        scores = mtme.read_system_scores(human.path, files.systems)
        return [f"{kept[s]}\t-\t{v!r}" for s, v in scores.items() if s in kept and v is not None]
    blocks = mtme.read_segment_scores(human.path, files.systems, n)
    return [f"{kept[s]}\t{i}\t{v!r}" for s, block in blocks.items() if s in kept
            for i, v in enumerate(block, start=1) if v is not None]


def target_language(lp: str) -> str:
    """The target language code of ``lp`` (``en-de`` -> ``de``, ``en-ko_KR`` -> ``ko``)."""
    target = lp.split("-", 1)[-1]
    return target.split("_", 1)[0].lower()


def experiment_mapping(files: mtme.EvalSetFiles, options: ImportOptions, plan: Plan) -> dict:
    """The ``experiment.yaml`` mapping (paths of copies, docids and cache relative to OUT)."""
    def text(name: str, path: Path) -> str:
        return f"texts/{name}.txt" if f"texts/{name}.txt" in plan.copies else str(path.resolve())

    mapping: dict = {"name": f"{options.testset}.{options.lp}", "cache": "cache",
                     "source": "source.txt" if "source.txt" in plan.copies else str(files.source.resolve()),
                     "format": "plain",
                     "language": options.language or target_language(options.lp)}
    if plan.docids is not None:
        mapping["docids"] = "docids"
    mapping["references"] = {name: text(name, path) for name, path in plan.references.items()}
    mapping["systems"] = {name: text(name, path) for name, path in plan.systems.items()}
    mapping["metrics"] = list(options.metrics)
    if plan.domains:
        mapping["sets"] = dict(plan.domains)
    return mapping


def header(files: mtme.EvalSetFiles, options: ImportOptions, plan: Plan) -> str:
    """The comment that opens ``experiment.yaml``: what was imported and how to use it."""
    refs = list(plan.references)
    lines = [f"mteval experiment imported by `mteval import-mtme` from mt-metrics-eval data: {files.folder.resolve()}"
             f", language pair {options.lp}.",
             f"Reference: {refs[0]} (standard)" + (f"; also {', '.join(refs[1:])}" if refs[1:] else "") + ".",
             f"Systems: {len(plan.systems)}; human outputs (references in system-outputs): "
             f"{', '.join(plan.human_outputs) or 'none'}"
             + (f"; not scored as systems: {', '.join(plan.left_out)}." if plan.left_out else ".")]
    if plan.renamed:
        lines.append("Renamed: " + ", ".join(f"{quote(old)} -> {new}" for old, new in plan.renamed.items()) + ".")
    if plan.copies:
        lines.append(f"Copied with '{mtme.NO_TRANSLATION}' lines blank and trailing whitespace removed (as "
                     f"mt-metrics-eval reads them): {', '.join(plan.copies)}.")
    lines.append(f"Documents: {'docids (from documents/' + options.lp + '.docs)' if plan.docids else 'none'}.")
    lines.append("Run: iqsetup experiment.yaml (in this folder; then iqeval ... experiment.yaml).")
    if plan.tables:
        lines.append(f"Human scores (iqeval -assessments FILE -G seg|sys): {', '.join(plan.tables)}.")
    if plan.skipped:
        lines.append("Not imported: " + "; ".join(plan.skipped) + ".")
    return "".join("# " + " ".join(line.splitlines()) + "\n" for line in lines)  # a path may hold a newline


def validate(text: str) -> None:
    """Load the YAML with mteval's own loader (in a scratch folder) before anything is written."""
    from mteval.experiment.loading import load

    with tempfile.TemporaryDirectory(prefix="mteval-import-") as scratch:
        path = Path(scratch) / "experiment.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load(path)
        except ConfigError as exc:
            raise ConfigError(f"the imported experiment would be refused: {exc.problem}") from None


def write_experiment(out: Path, text: str, plan: Plan) -> list[Path]:
    """Write the planned files, ``experiment.yaml`` last; the paths written."""
    written = []
    contents = {**{k: "".join(f"{ln}\n" for ln in v) for k, v in plan.copies.items()}, **plan.tables}
    if plan.docids is not None:
        contents["docids"] = "".join(f"{d}\n" for d in plan.docids)
    contents["experiment.yaml"] = text
    for relative, content in contents.items():
        path = out / relative
        write_atomic(path, content.encode("utf-8"))
        written.append(path)
    return written


def import_mtme(options: ImportOptions) -> list[Path]:
    """Read, check and write (module docstring); the paths written."""
    target = options.out / "experiment.yaml"
    if target.exists() and not options.force:
        raise ConfigError("already exists; give another --out folder, or --force to overwrite", target)
    if options.out.exists() and not options.out.is_dir():
        raise ConfigError("exists and is not a folder", options.out)
    files = mtme.locate(options.root, options.testset, options.lp)
    plan = plan_texts(files, options)
    n = read_texts(files, plan)
    plan_human(files, options, plan, n)
    mapping = experiment_mapping(files, options, plan)
    text = header(files, options, plan) + yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True)
    validate(text)
    return write_experiment(options.out, text, plan)

