"""SR: similarity over semantic roles (IQMT manual §5.5.2).

The manual's SwiRL frames become the predicate-argument structures of
:mod:`mteval.annotate.layers.roles` (PropBank-like labels mapped from UD relations; read its
mapping table and limits). Items are lower-cased word forms (and verb lemmas) unless
``case_sensitive``. Variants (Asiya's names):

========================  ========================================================================
variant                   measure (:mod:`mteval.metrics.overlap`)
========================  ========================================================================
``SR-Or(t)``, ``(*)``     Overlapping of the words of the arguments of role t (all verbs together)
``SR-Mr(t)``, ``(*)``     Matching of whole arguments (word sequences) of role t
``SR-Or``                 role overlapping: Overlapping of the bags of role labels (one per argument)
``SR-Orv(t)``, ``(*)``    as ``SR-Or(t)`` with items bound to their verb: ``(verb lemma, word)``
``SR-Mrv(t)``, ``(*)``    as ``SR-Mr(t)`` with elements ``(verb lemma, word sequence)``
``SR-Orv``                as ``SR-Or`` with items ``(verb lemma, role)``
========================  ========================================================================

The manual's spellings are aliases (:mod:`mteval.metrics.aliases`): ``SR-Or-t``, ``SR-Mr-t``,
``SR-Orv-t``, ``SR-Mrv-t`` for ``SR-Or(t)`` ..., and the other names §5.2.2 gives for lexical
overlapping by role, ``SR-Or,w-t``, ``SR-Ow-t`` and ``SR-O-t`` (all ``SR-Or(t)``).
"""

from __future__ import annotations

from mteval.annotate.layers.roles import ROLE_TYPES, predicates
from mteval.annotate.model import Sentence
from mteval.metrics.base import MetricInfo
from mteval.metrics.overlap import Features, OverlapFamily, Selector, per_type
from mteval.metrics.registry import register

SELECTORS: dict[str, Selector] = {"SR-Or": Selector("R"), "SR-Orv": Selector("Rv")}
for _kind in ("Or", "Mr", "Orv", "Mrv"):
    SELECTORS[f"SR-{_kind}(*)"] = Selector(_kind)
    SELECTORS.update(per_type(f"SR-{_kind}", _kind, ROLE_TYPES))


@register
class SemanticRoles(OverlapFamily):
    """SR-* (manual §5.5.2): overlapping and matching by semantic role, free or bound to the verb."""

    family = "SR"
    # 2: adjunct subtypes (AM-TMP, AM-LOC, AM-NEG, AM-MOD...) per language (annotate/layers/role_lexicon.py);
    # English scores are unchanged, but SR files cached for ru/cs/fr/es by version 1 are stale, not current
    # 3: Czech verb negation is the item "ne", not the verb form, and only on ne- forms (roles.Role.text);
    # English scores are unchanged
    version = "3"
    selectors = SELECTORS
    variants = tuple(SELECTORS)

    def info(self, variant: str) -> MetricInfo:
        """Higher is better; Overlapping/Matching in [0, 1] (NIST: [0, inf))."""
        return MetricInfo(variant, self.family, description="IQMT §5.5.2 over UD-derived roles")

    def features(self, sentence: Sentence) -> Features:
        """Typed bags of the groups Or, Mr, R (labels) and their verb-bound forms Orv, Mrv, Rv."""
        forms = [""] + [self.norm(w.form) for w in sentence.words]
        free: dict[str, list] = {"Or": [], "Mr": [], "R": [], "Orv": [], "Mrv": [], "Rv": []}
        for pred in predicates(sentence):
            verb = self.norm(pred.lemma)
            for role in pred.roles:
                words = tuple(self.norm(t) for t in role.text) or tuple(forms[i] for i in role.words)
                free["Or"].extend((role.label, w) for w in words)
                free["Orv"].extend((role.label, (verb, w)) for w in words)
                free["Mr"].append((role.label, words))
                free["Mrv"].append((role.label, (verb, words)))
                free["R"].append(("roles", role.label))
                free["Rv"].append(("roles", (verb, role.label)))
        return {group: self.bags(pairs) for group, pairs in free.items()}
