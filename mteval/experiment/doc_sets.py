"""Segment sets from the ``<doc origlang genre domain>`` attributes of SGML texts (sacreBLEU's
``--origlang`` and ``--subset``), offered to -T, ``mteval report -T`` and the API's ``segments=``
without being written under ``sets:``.

Which file: the experiment's source when its documents carry any of these attributes, else the
first reference that does (sacreBLEU reads its test set's source). A document whose attribute
differs in another SGML source or reference: the chosen file's value is used, with one warning.

Names (``-T NAME``): ``ATTRIBUTE_VALUE`` and ``ATTRIBUTE_non-VALUE`` for every value found, e.g.
``origlang_en``, ``origlang_non-en``, ``genre_news``, ``domain_social`` (import-mtme's
``domain_NAME`` style; characters a name may not hold in a value become ``_``). Semantics are
sacreBLEU 2.6.0's ``filter_subset``: ``origlang_en`` is every segment of a document whose origlang
is ``en`` (compared as written, case included); ``origlang_non-en`` every segment of a document
whose origlang is not ``en``, documents without origlang included (as sacreBLEU, whose
``non-`` test compares the whole ``<doc>`` line then). A set of the user's ``sets:`` of the same
name wins (it is what they wrote). A name of a value no document has is refused in one line that
lists the values found (sacreBLEU would select nothing, or with ``non-`` everything).

``--subset REGEX`` (:func:`subset_segments`): the segments of documents whose ``domain``
attribute (else ``genre``) matches REGEX (``re.search``); a document with neither is left out, as
sacreBLEU leaves out a WMT XML document without domain. (sacreBLEU reads SGML subsets from its own
table of WMT19/20 document tags, which mteval does not ship.)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from mteval.errors import ConfigError, quote
from mteval.io.corpus import Text
from mteval.io.sgml import DOC_ATTRIBUTES

LOG = logging.getLogger(__name__)
NEGATION = "non-"  # sacreBLEU's prefix: every document whose value is another (or none)
_UNSAFE = re.compile(r"[^\w.+@=-]")
Attributes = Mapping[str, Mapping[str, str]]  # docid -> attribute -> value


def set_name(attribute: str, value: str) -> str:
    """The -T name of the documents whose ``attribute`` is ``value`` (``non-VALUE``: is not)."""
    return f"{attribute}_{_UNSAFE.sub('_', value)}"


def annotated(texts: Sequence[Text | None]) -> Text | None:
    """The first of ``texts`` (the source, then the references) whose documents carry attributes."""
    return next((t for t in texts if t is not None and t.doc_attributes), None)


def matches(attribute: str, wanted: str, attributes: Attributes, doc: str) -> bool:
    """Whether document ``doc`` is selected by ``wanted`` (a value, or ``non-VALUE``)."""
    value = attributes.get(doc, {}).get(attribute)
    if wanted.startswith(NEGATION):
        return value != wanted[len(NEGATION):]
    return value == wanted


def values_of(attribute: str, attributes: Attributes) -> list[str]:
    """The values of ``attribute`` the documents carry, sorted."""
    return sorted({a[attribute] for a in attributes.values() if attribute in a})


def names_of(attributes: Attributes, doc_ids: Sequence[str]) -> list[str]:
    """Every -T name the documents offer (``non-VALUE`` where some document has another value or none)."""
    docs = set(doc_ids)
    found = []
    for attribute in DOC_ATTRIBUTES:
        for value in values_of(attribute, attributes):
            others = any(matches(attribute, NEGATION + value, attributes, doc) for doc in docs)
            found += [set_name(attribute, value)] + ([set_name(attribute, NEGATION + value)] if others else [])
    return found


def selected(doc_ids: Sequence[str], keep: Mapping[str, bool]) -> list[int]:
    """1-based numbers of the segments whose document is kept."""
    return [i for i, doc in enumerate(doc_ids, start=1) if keep[doc]]


def attribute_segments(text: Text, doc_ids: Sequence[str], attribute: str, wanted: str) -> list[int]:
    """Segments (1-based, in ``doc_ids``' order) of the documents ``wanted`` selects (one line if
    no document has its value, naming the values found)."""
    values = values_of(attribute, text.doc_attributes)
    value = wanted.removeprefix(NEGATION)
    if value not in values:
        found = ", ".join(values) if values else "none"
        raise ConfigError(f"--{attribute} {quote(wanted)}: no document of {text.where} has {attribute} {quote(value)}; "
                          f"its {attribute} values: {found} (and 'non-' before one: every other document)")
    keep = {doc: matches(attribute, wanted, text.doc_attributes, doc) for doc in dict.fromkeys(doc_ids)}
    if not any(keep.values()):
        raise ConfigError(f"--{attribute} {quote(wanted)}: selects no segment (every document of {text.where} "
                          f"has {attribute} {quote(value)})")
    return selected(doc_ids, keep)


def subset_segments(text: Text, doc_ids: Sequence[str], pattern: str) -> list[int]:
    """Segments of the documents whose ``domain`` (else ``genre``) matches ``pattern`` (``re.search``)."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"--subset {quote(pattern)}: not a regular expression ({exc})") from None
    keep = {}
    for doc in dict.fromkeys(doc_ids):
        tags = text.doc_attributes.get(doc, {})
        tag = tags.get("domain", tags.get("genre"))
        keep[doc] = tag is not None and compiled.search(tag) is not None
    return selected(doc_ids, keep)


def resolve(name: str, doc_ids: Sequence[str], candidates: Sequence[Text | None],
            config: Path | None = None) -> list[int] | None:
    """The segments of a -T ``name`` such as ``origlang_en`` (None: the name is of no attribute)."""
    attribute, sep, wanted = name.partition("_")
    if attribute not in DOC_ATTRIBUTES or not sep or not wanted:
        return None
    text = annotated(candidates)
    if text is None:
        raise ConfigError(f"-T {quote(name)}: no SGML source or reference carries <doc {attribute}=...>; "
                          f"these sets come from SGML documents' {', '.join(DOC_ATTRIBUTES)}", config)
    warn_disagreements(text, candidates)
    chosen = {set_name(attribute, prefix + value): prefix + value for value in values_of(attribute, text.doc_attributes)
              for prefix in ("", NEGATION)}
    if name not in chosen:
        found = ", ".join(n for n in names_of(text.doc_attributes, doc_ids) if n.startswith(attribute + "_")) or "none"
        raise ConfigError(f"-T {quote(name)}: no document of {text.where} has {attribute} "
                          f"{quote(wanted.removeprefix(NEGATION))}; sets of its documents: {found}", config)
    try:
        return attribute_segments(text, doc_ids, attribute, chosen[name])
    except ConfigError as exc:
        raise ConfigError(f"-T {quote(name)}: {exc.problem.partition(': ')[2]}", config) from None


def warn_disagreements(chosen: Text, candidates: Sequence[Text | None]) -> None:
    """One warning for each other text that gives a document another value than ``chosen`` does (a
    value only one of them has is no disagreement)."""
    mine = chosen.doc_attributes
    for other in candidates:
        if other is None or other is chosen or not other.doc_attributes:
            continue
        theirs = other.doc_attributes
        differ = [(doc, key) for doc in sorted(set(mine) & set(theirs)) for key in DOC_ATTRIBUTES
                  if key in mine[doc] and key in theirs[doc] and mine[doc][key] != theirs[doc][key]]
        if differ:
            doc, key = differ[0]
            LOG.warning("%s: %d document attribute(s) differ from %s, whose are used (first: %s of document %s is "
                        "%s there, %s here)", other.where, len(differ), chosen.where, key, quote(doc),
                        quote(mine[doc][key]), quote(theirs[doc][key]))
