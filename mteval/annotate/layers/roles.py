"""Predicate-argument structures with PropBank-style role labels, mapped from UD relations.

This approximates semantic role labelling (SwiRL in the IQMT manual, §5.5.2) from the dependency
tree alone: every word with UPOS ``VERB`` is a predicate, and each of its dependents listed below
is an argument whose span is the dependent's whole subtree (word ids in order).

Mapping (relation of the dependent, then a condition; first matching row wins):

=====================  ====================================================  ==========
relation               condition                                             role
=====================  ====================================================  ==========
nsubj, csubj           —                                                     A0
nsubj:pass, csubj:pass —                                                     A1
obj, ccomp             —                                                     A1
xcomp                  the verb has no ``obj``                               A1
xcomp                  the verb has an ``obj``                               A2
iobj, obl:arg          —                                                     A2
obl:agent              (passive ``by``-phrase)                                A0
obl, obl:unmarked,     head lemma temporal (TEMPORAL_NOUNS) or case word     AM-TMP
obl:tmod, nmod:tmod    in TEMPORAL_CASES; also every ``obl:tmod``
obl                    case word in LOCATIVE_CASES                           AM-LOC
obl                    case word in DIRECTIONAL_CASES                        AM-DIR
obl                    case word in CAUSAL_CASES                             AM-CAU
obl                    case word in PURPOSE_CASES                            AM-PNC
obl                    case word in MANNER_CASES                             AM-MNR
obl, obl:unmarked,     anything else                                         AM-ADV
obl:npmod
advmod                 negation (not, n't, never)                            AM-NEG
advmod                 lemma in TEMPORAL_ADVERBS                             AM-TMP
advmod                 lemma in LOCATIVE_ADVERBS                             AM-LOC
advmod                 lemma ends in ``ly``                                  AM-MNR
advmod                 anything else                                         AM-ADV
aux                    XPOS ``MD`` (modal)                                   AM-MOD
advcl                  mark in TEMPORAL_CASES                                AM-TMP
advcl                  mark in CAUSAL_CASES                                  AM-CAU
advcl                  mark in PURPOSE_CASES, or a ``to``-infinitive         AM-PNC
advcl                  anything else                                         AM-ADV
discourse              —                                                     AM-DIS
=====================  ====================================================  ==========

Subjects are propagated as in enhanced UD (:func:`shared_subject`): a coordinated verb without a
subject shares its first conjunct's, an ``xcomp`` verb takes its controller's (the head's object if
any, else its subject); A1 for a passive verb, else A0.

Limits: the numbered arguments follow syntax, not the verb's frame (unaccusative subjects come
out A0; A3-A5 are never produced); objects shared by coordinated verbs are not propagated; nominal
and adjectival predicates get no frame; the case words (``in`` of ``in Israel``) are inside the
argument span, as in PropBank.
"""

from __future__ import annotations

from dataclasses import dataclass

from mteval.annotate.model import Sentence, Word

ROLE_TYPES = ("A0", "A1", "A2", "A3", "A4", "A5", "AA", "AM-ADV", "AM-CAU", "AM-DIR", "AM-DIS",
              "AM-EXT", "AM-LOC", "AM-MNR", "AM-MOD", "AM-NEG", "AM-PNC", "AM-PRD", "AM-REC", "AM-TMP")
NEGATION = {"not", "n't", "never"}
TEMPORAL_NOUNS = {"today", "yesterday", "tomorrow", "tonight", "now", "time", "day", "week", "month",
                  "year", "hour", "minute", "second", "morning", "afternoon", "evening", "night",
                  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                  "january", "february", "march", "april", "may", "june", "july", "august",
                  "september", "october", "november", "december", "decade", "century", "period",
                  "season", "spring", "summer", "autumn", "fall", "winter", "weekend", "moment"}
TEMPORAL_CASES = {"during", "before", "after", "since", "until", "till", "when", "while", "whenever",
                  "once", "as soon as"}
LOCATIVE_CASES = {"in", "at", "on", "near", "inside", "outside", "within", "under", "over", "across",
                  "through", "throughout", "between", "among", "behind", "beside", "above", "below",
                  "around", "along", "beyond"}
DIRECTIONAL_CASES = {"to", "toward", "towards", "into", "onto", "from", "out"}
CAUSAL_CASES = {"because", "due", "since", "as"}
PURPOSE_CASES = {"for", "so", "in order"}
MANNER_CASES = {"with", "without", "by", "like", "via"}
TEMPORAL_ADVERBS = {"now", "then", "today", "yesterday", "tomorrow", "already", "soon", "still", "later",
                    "recently", "again", "ever", "always", "often", "never", "once", "yet", "early",
                    "late", "currently", "previously", "finally", "sometimes", "meanwhile"}
LOCATIVE_ADVERBS = {"here", "there", "where", "everywhere", "abroad", "nearby", "somewhere", "anywhere"}


@dataclass(frozen=True)
class Role:
    """One argument or adjunct: its role label and the 1-based ids of its words, in order."""

    label: str
    words: tuple[int, ...]


@dataclass(frozen=True)
class Predicate:
    """A verb predicate: its word id, lemma and roles (in the order of their first word)."""

    word: int
    lemma: str
    roles: tuple[Role, ...]


def _marker(dependent: int, sentence: Sentence, kids: list[list[int]], rel: str) -> str:
    """The lower-cased case/mark word(s) of a dependent (``in``, ``because of``), or ''."""
    for k in kids[dependent]:
        w = sentence.word(k)
        if w.deprel == rel:
            fixed = [sentence.word(f).form.lower() for f in kids[k] if sentence.word(f).deprel == "fixed"]
            return " ".join([w.form.lower()] + fixed)
    return ""


def _oblique_role(dep: Word, sentence: Sentence, kids: list[list[int]]) -> str:
    """Adjunct role of an ``obl``/``obl:*`` dependent (rows obl... of the mapping table)."""
    case = _marker(dep.id, sentence, kids, "case")
    first = case.split(" ")[0]
    if dep.deprel in ("obl:tmod", "nmod:tmod") or dep.lemma.lower() in TEMPORAL_NOUNS or case in TEMPORAL_CASES:
        return "AM-TMP"
    for cases, role in ((LOCATIVE_CASES, "AM-LOC"), (DIRECTIONAL_CASES, "AM-DIR"), (CAUSAL_CASES, "AM-CAU"),
                        (PURPOSE_CASES, "AM-PNC"), (MANNER_CASES, "AM-MNR")):
        if dep.deprel == "obl" and (case in cases or first in cases):
            return role
    return "AM-ADV"


def _adverb_role(dep: Word) -> str:
    """Adjunct role of an ``advmod`` dependent."""
    lemma = dep.lemma.lower() if dep.lemma not in ("_", "") else dep.form.lower()
    if lemma in NEGATION or dep.form.lower() in NEGATION:
        return "AM-NEG"
    if lemma in TEMPORAL_ADVERBS:
        return "AM-TMP"
    if lemma in LOCATIVE_ADVERBS:
        return "AM-LOC"
    return "AM-MNR" if lemma.endswith("ly") else "AM-ADV"


def _clause_role(dep: Word, sentence: Sentence, kids: list[list[int]]) -> str:
    """Adjunct role of an ``advcl`` dependent, from its subordinator."""
    mark = _marker(dep.id, sentence, kids, "mark")
    if mark in TEMPORAL_CASES:
        return "AM-TMP"
    if mark in CAUSAL_CASES:
        return "AM-CAU"
    if mark in PURPOSE_CASES or mark == "to":
        return "AM-PNC"
    return "AM-ADV"


def role_of(dep: Word, verb_kids: list[int], sentence: Sentence, kids: list[list[int]]) -> str | None:
    """The role label of a verb's dependent, or None (the mapping table of the module docstring)."""
    rel = dep.deprel
    direct = {"nsubj": "A0", "csubj": "A0", "nsubj:pass": "A1", "csubj:pass": "A1", "obj": "A1",
              "ccomp": "A1", "iobj": "A2", "obl:arg": "A2", "obl:agent": "A0", "discourse": "AM-DIS"}
    if rel in direct:
        return direct[rel]
    if rel == "xcomp":
        return "A2" if any(sentence.word(k).deprel == "obj" for k in verb_kids) else "A1"
    if rel.split(":")[0] == "obl" or rel == "nmod:tmod":
        return _oblique_role(dep, sentence, kids)
    if rel == "advmod":
        return _adverb_role(dep)
    if rel == "aux" and dep.xpos == "MD":
        return "AM-MOD"
    if rel == "advcl":
        return _clause_role(dep, sentence, kids)
    return None


def subtree(i: int, kids: list[list[int]]) -> tuple[int, ...]:
    """Word ids of the subtree rooted at ``i`` (``i`` included), in order."""
    stack, found = [i], []
    while stack:
        k = stack.pop()
        found.append(k)
        stack.extend(kids[k])
    return tuple(sorted(found))


def shared_subject(word: Word, sentence: Sentence, kids: list[list[int]]) -> Role | None:
    """The subject a verb without one shares with its head (enhanced-UD propagation): a ``conj``
    verb takes its first conjunct's subject, an ``xcomp`` verb its controller's (the head's object
    if it has one, else its subject). A1 when the verb is passive (has ``aux:pass``), else A0."""
    if word.deprel not in ("conj", "xcomp") or not word.head:
        return None
    if any(sentence.word(k).deprel.split(":")[0] in ("nsubj", "csubj", "expl") for k in kids[word.id]):
        return None
    head_kids = [sentence.word(k) for k in kids[word.head]]
    wanted = ("obj",) if word.deprel == "xcomp" and any(w.deprel == "obj" for w in head_kids) else (
        "nsubj", "nsubj:pass", "csubj", "csubj:pass")
    subject = next((w for w in head_kids if w.deprel in wanted), None)
    if subject is None:
        return None
    passive = any(sentence.word(k).deprel == "aux:pass" for k in kids[word.id])
    return Role("A1" if passive else "A0", subtree(subject.id, kids))


def predicates(sentence: Sentence) -> list[Predicate]:
    """Predicate-argument structures of every verb of a sentence, left to right."""
    kids = sentence.children()
    found = []
    for word in sentence.words:
        if word.upos != "VERB":
            continue
        roles = []
        shared = shared_subject(word, sentence, kids)
        if shared is not None:
            roles.append(shared)
        for k in kids[word.id]:
            label = role_of(sentence.word(k), kids[word.id], sentence, kids)
            if label is not None:
                roles.append(Role(label, subtree(k, kids)))
        roles.sort(key=lambda r: r.words[0])
        lemma = word.lemma if word.lemma not in ("_", "") else word.form
        found.append(Predicate(word.id, lemma, tuple(roles)))
    return found
