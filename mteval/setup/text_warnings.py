"""The one-line warnings about texts that the metrics would read wrongly, for whoever shows scores.

``iqsetup`` and ``mteval score`` give them for what they compute (:mod:`mteval.setup.run`); ``iqeval``,
``mteval report`` and :meth:`mteval.Campaign.warnings` for what they show
(:func:`mteval.evaluate.selection.warnings_of`), so that a cached campaign shown later, in a Makefile whose
``iqsetup`` log nobody read, is not shown silently. Two kinds (``docs/usage.md``):

- a family that will make little of these texts (:func:`family_warnings`: an ASCII tokenizer on other
  letters, words between spaces in unsegmented Chinese or Thai, METEOR's English resources;
  :mod:`mteval.setup.scripts`; references that are not in ``language:``, :mod:`mteval.setup.language_words`);
- a text that is not what it should be (:func:`text_warnings`: a system tokenized, escaped,
  lower-cased or decomposed (NFD) otherwise than the references, :mod:`mteval.setup.preparation`; a text copying a
  reference it is scored against or the source, :mod:`mteval.setup.copies`; empty lines where the source
  has text, :mod:`mteval.setup.empty_lines`; lines shifted,
  :mod:`mteval.setup.shifted`, or not corresponding to the reference's at all, :mod:`mteval.setup.unrelated`).

The scores are computed and shown as asked; these only say what will make them wrong. :func:`warnings_for`
runs both and keeps the result in the user cache (:func:`mteval.user_cache.remembered`) under a digest of
every text, name, setting and line of code they read, so that the ``iqeval`` runs after the first one
on the same texts and selection take a hash of the texts (~20 ms on WMT21 zh-en's 24 texts) instead of
the checks (~0.3-1 s: ``bench/bench_text_checks.py``).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily
from mteval.setup.copies import copy_warnings, source_copy_warnings
from mteval.setup.duplicate_metrics import duplicate_warnings
from mteval.setup.empty_lines import empty_line_warnings
from mteval.setup.label_inventory import label_warnings, labels_key
from mteval.setup.language_words import language_warnings
from mteval.setup.line_overlap import LineFits
from mteval.setup.preparation import preparation_warnings
from mteval.setup.scripts import ascii_tokenizer_warnings, english_only_warnings, unspaced_script_warnings
from mteval.setup.shifted import shift_warnings
from mteval.setup.unrelated import unrelated_warnings
from mteval.user_cache import remembered

Variant = tuple[MetricFamily, str]  # a family and a variant name as the user wrote it


def warnings_for(variants: Iterable[Variant], scored: Mapping[str, Sequence[str]], texts: LoadedTexts,
                 language: str, case_sensitive: bool | None, references: Sequence[str] | None = None,
                 annotation: Mapping[str, Any] | None = None) -> list[str]:
    """:func:`family_warnings` of ``variants`` and :func:`text_warnings`, remembered (module docstring);
    ``annotation``: the experiment's ``annotation:`` (its backend and model)."""
    chosen = list(variants)
    settings = (language, case_sensitive, None if references is None else list(references),
                sorted((str(k), str(v)) for k, v in (annotation or {}).items()),
                labels_key([name for _, name in chosen], language, annotation))
    key = _digest(chosen, scored, texts, settings)
    return remembered("text-warnings", key, lambda: family_warnings(chosen, texts, language, annotation)
                      + text_warnings(scored, texts, case_sensitive, references))


def _digest(variants: list[Variant], scored: Mapping[str, Sequence[str]], texts: LoadedTexts,
            settings: tuple[object, ...]) -> str:
    """A digest of all the checks read: the code, the settings, the variants, who is scored against
    whom, and every text (name, file, lines) they may look at."""
    digest = hashlib.sha256(_code())
    named = [(family.family, name, registry.canonical(name), sorted(family.segmented_scripts(name) or ()),
              family.segmented_scripts(name) is None) for family, name in variants]
    digest.update(repr((settings, named, {k: list(v) for k, v in scored.items()})).encode())
    read = [texts.systems[name] for name in scored] + list(texts.references.values())
    for text in read + ([texts.source] if texts.source is not None else []):
        digest.update(repr((text.name, text.where, len(text.segments))).encode())
        digest.update("\n".join(text.segments).encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:40]


@cache
def _code() -> bytes:
    """The source of the modules that make the warnings (a change to any of them is a new key)."""
    from mteval.experiment import parser_labels  # the label warning's hints
    from mteval.metrics import stemmers  # METEOR's warning names the language's stemmer
    from mteval.setup import (
        copies,
        duplicate_metrics,
        empty_lines,
        label_inventory,
        language_words,
        line_overlap,
        preparation,
        scripts,
        shifted,
        unrelated,
    )

    modules = (sys.modules[__name__], copies, empty_lines, language_words, line_overlap, preparation, scripts, shifted,
               unrelated, stemmers, label_inventory, duplicate_metrics, parser_labels)
    meteor = Path(stemmers.__file__ or "").with_name("meteor")  # what Meteor 1.4 has (read, not imported: lazy)
    files = [Path(module.__file__ or "") for module in modules] + [meteor / "languages.py", meteor / "jar_stemmers.py"]
    return b"".join(path.read_bytes() for path in files)


def family_warnings(variants: Iterable[Variant], texts: LoadedTexts, language: str,
                    annotation: Mapping[str, Any] | None = None) -> list[str]:
    """:mod:`mteval.setup.scripts`' warnings for these variants (each canonical variant once), and
    :mod:`mteval.setup.label_inventory`'s and :mod:`mteval.setup.duplicate_metrics`'."""
    chosen: dict[str, Variant] = {}
    for family, name in variants:
        chosen.setdefault(registry.canonical(name), (family, name))
    families = list(dict.fromkeys(family.family for family, _ in chosen.values()))
    ascii_lines = ascii_tokenizer_warnings(families, texts, language)
    warned = {line.split(":", 1)[0] for line in ascii_lines}
    by_language = [family.family for family, _ in chosen.values() if family.needs_annotation or family.by_language]
    return (ascii_lines + unspaced_script_warnings(chosen.values(), texts, warned)
            + language_warnings(by_language, texts, language)
            + english_only_warnings([name for name, (family, _) in chosen.items() if family.family == "METEOR"],
                                    language)
            + label_warnings([name for _, name in chosen.values()], language, annotation)
            + duplicate_warnings([name for _, name in chosen.values()], language, annotation))


def text_warnings(scored: Mapping[str, Sequence[str]], texts: LoadedTexts, case_sensitive: bool | None,
                  references: Sequence[str] | None = None) -> list[str]:
    """The warnings about the systems of ``scored`` (name -> the references it is scored against) and
    about ``references`` (default: every one)."""
    systems = [texts.systems[name] for name in scored]
    shown = [texts.references[name] for name in (texts.references if references is None else references)]
    against = [(texts.systems[name], [texts.references[r] for r in refs]) for name, refs in scored.items()]
    lines = LineFits()  # each text's line features once, for both checks
    unrelated, flagged = unrelated_warnings(against, shown, texts.source, lines)
    return (preparation_warnings(systems, list(texts.references.values()), case_sensitive) + copy_warnings(against)
            + source_copy_warnings([*(("reference", t) for t in shown), *(("system", t) for t in systems)],
                                   texts.source)
            + empty_line_warnings(shown, [t for t in systems if id(t) not in flagged], texts.source)
            + shift_warnings(against, shown, lines, flagged) + unrelated)


def shown_variants(metrics: Iterable[str], case_sensitive: bool | None, language: str) -> list[Variant]:
    """The registered metrics among ``metrics`` (users' own files and learned metrics are not mteval's
    families), each with an instance of its family."""
    names = [name for name in metrics if registry.is_metric(name)]
    return [(registry.create(family, case_sensitive, language), name)
            for family, members in registry.group_by_family(names).items() for name in members]


def shown_references(references: Sequence[str], texts: LoadedTexts) -> list[str]:
    """The references (read from files) among ``references``, or every one when none is (a generated set)."""
    return [name for name in references if name in texts.references] or list(texts.references)


def scored_systems(systems: Iterable[str], references: Sequence[str], texts: LoadedTexts) -> dict[str, list[str]]:
    """Each system among ``systems`` with the references it is shown against (:func:`shown_references`)."""
    read = shown_references(references, texts)
    return {name: read for name in systems if name in texts.systems}
