"""The one-line warnings about texts that the metrics would read wrongly, for whoever shows scores.

``iqsetup`` and ``mteval score`` give them for what they compute (:mod:`mteval.setup.run`); ``iqeval``,
``mteval report`` and :meth:`mteval.Campaign.warnings` for what they show (:func:`selection_warnings`
callers in :mod:`mteval.evaluate`), so that a cached campaign shown later, in a Makefile whose
``iqsetup`` log nobody read, is not shown silently. Two kinds (``docs/usage.md``):

- a family that will make little of these texts (:func:`family_warnings`: an ASCII tokenizer on other
  letters, words between spaces in unsegmented Chinese or Thai, METEOR's English resources;
  :mod:`mteval.setup.scripts`);
- a text that is not what it should be (:func:`text_warnings`: a system tokenized, escaped or
  lower-cased otherwise than the references, :mod:`mteval.setup.preparation`; a text copying a
  reference it is scored against or the source, :mod:`mteval.setup.copies`; lines shifted,
  :mod:`mteval.setup.shifted`, or not corresponding to the reference's at all, :mod:`mteval.setup.unrelated`).

The scores are computed and shown as asked; these only say what will make them wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from mteval.experiment.texts import LoadedTexts
from mteval.metrics import registry
from mteval.metrics.base import MetricFamily
from mteval.setup.copies import copy_warnings, source_copy_warnings
from mteval.setup.line_overlap import LineFits
from mteval.setup.preparation import preparation_warnings
from mteval.setup.scripts import ascii_tokenizer_warnings, english_only_warnings, unspaced_script_warnings
from mteval.setup.shifted import shift_warnings
from mteval.setup.unrelated import unrelated_warnings

Variant = tuple[MetricFamily, str]  # a family and a variant name as the user wrote it


def family_warnings(variants: Iterable[Variant], texts: LoadedTexts, language: str) -> list[str]:
    """:mod:`mteval.setup.scripts`' warnings for these variants (each canonical variant once)."""
    chosen: dict[str, Variant] = {}
    for family, name in variants:
        chosen.setdefault(registry.canonical(name), (family, name))
    families = list(dict.fromkeys(family.family for family, _ in chosen.values()))
    ascii_lines = ascii_tokenizer_warnings(families, texts, language)
    warned = {line.split(":", 1)[0] for line in ascii_lines}
    return ascii_lines + unspaced_script_warnings(chosen.values(), texts, warned) + english_only_warnings(families,
                                                                                                           language)


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
