"""Predicate-argument structures with PropBank-style role labels, mapped from UD relations.

This approximates semantic role labelling (SwiRL in the IQMT manual, §5.5.2) from the dependency
tree alone: every word with UPOS ``VERB`` is a predicate, and each of its dependents listed below
is an argument whose span is the dependent's whole subtree (word ids in order).

Mapping (relation of the dependent, then a condition; first matching row wins). The word lists
are the sentence's language's (:mod:`~mteval.annotate.layers.role_lexicon`: en, ru, fr, es, cs;
English for any other or no language); the rows marked * apply only where the table has them:

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
obl, obl:*             head lemma in temporal_nouns, case word in            AM-TMP
                       temporal_cases, every ``obl:tmod``; * a year
                       (``en 2010``), * a time frame (``до конца недели``)
obl (* obl:mod)        case word (* with the noun's Case: ``в|Acc``) in      AM-LOC
                       locative_cases
obl (* obl:mod)        case word in directional_cases                        AM-DIR
obl (* obl:mod)        case word in causal_cases                             AM-CAU
obl (* obl:mod)        case word in purpose_cases                            AM-PNC
obl (* obl:mod)        case word in manner_cases                             AM-MNR
obl, obl:*             anything else                                         AM-ADV
advmod                 lemma in negation (not, n't, never; не, ne, pas,      AM-NEG
                       no...); * Polarity=Neg with UPOS in negation_upos
advmod                 lemma in temporal_adverbs                             AM-TMP
advmod                 lemma in locative_adverbs                             AM-LOC
advmod                 * lemma in directional_adverbs                        AM-DIR
advmod                 lemma ends in a manner suffix (``ly``; * ``ment``,    AM-MNR
                       ``mente``) and is not in not_manner
advmod                 anything else                                         AM-ADV
aux                    XPOS ``MD`` (modal); * lemma in modal_lemmas or       AM-MOD
                       form in modal_forms (бы, будет, by, bude; poder)
advcl                  mark in temporal_cases                                AM-TMP
advcl                  mark in causal_cases                                  AM-CAU
advcl                  mark in purpose_cases, or a ``to``-infinitive         AM-PNC
advcl                  anything else                                         AM-ADV
discourse              —                                                     AM-DIS
=====================  ====================================================  ==========

* Modal heads (ru, fr, es, cs): a verb in modal_heads (*мочь*, *pouvoir*, *moci*) with an
  infinitive ``xcomp``/``csubj`` is no predicate; the infinitive gets AM-MOD spanning it and takes
  its other dependents (``Вчера он не смог приехать``: приехать has AM-TMP, A0, AM-NEG, AM-MOD).
* Verb negation (cs): a verb without an AM-NEG whose own word, auxiliary or modal has
  ``Polarity=Neg`` and starts with ``ne`` (*nepřijde*, *nebude*) gets AM-NEG spanning that word,
  whose item is ``ne`` (not the verb form: *nepodpořil* and *nepodporuje* agree on negation).

Subjects are propagated as in enhanced UD (:func:`shared_subject`): a coordinated verb without a
subject shares its first conjunct's, an ``xcomp`` verb takes its controller's (the head's object if
any, else its subject); A1 for a passive verb, else A0.

Limits: the numbered arguments follow syntax, not the verb's frame (unaccusative subjects come
out A0; A3-A5 are never produced); objects shared by coordinated verbs are not propagated; nominal
and adjectival predicates get no frame; the case words (``in`` of ``in Israel``) are inside the
argument span, as in PropBank. Outside English the lists are short and a case word has one role
(``à``, ``en``, ``в`` are locative unless the noun is temporal), so an idiom (*в результате*, *de
façon*) or a restrictive *ne ... que* is mistyped; measured in docs/languages.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from mteval.annotate.layers.phrase import is_subject
from mteval.annotate.layers.role_lexicon import ENGLISH, RoleLexicon, lexicon
from mteval.annotate.model import Sentence, Word

ROLE_TYPES = ("A0", "A1", "A2", "A3", "A4", "A5", "AA", "AM-ADV", "AM-CAU", "AM-DIR", "AM-DIS",
              "AM-EXT", "AM-LOC", "AM-MNR", "AM-MOD", "AM-NEG", "AM-PNC", "AM-PRD", "AM-REC", "AM-TMP")
# the English lists under their former names (the tables of every language: role_lexicon)
NEGATION, TEMPORAL_NOUNS, TEMPORAL_CASES = ENGLISH.negation, ENGLISH.temporal_nouns, ENGLISH.temporal_cases
LOCATIVE_CASES, DIRECTIONAL_CASES = ENGLISH.locative_cases, ENGLISH.directional_cases
CAUSAL_CASES = ENGLISH.causal_cases
PURPOSE_CASES, MANNER_CASES = ENGLISH.purpose_cases, ENGLISH.manner_cases
TEMPORAL_ADVERBS, LOCATIVE_ADVERBS = ENGLISH.temporal_adverbs, ENGLISH.locative_adverbs
SUBJECTS = ("nsubj", "nsubj:pass", "csubj", "csubj:pass")
NEGATION_PREFIX = "ne"  # Czech verb negation (role_lexicon's verb_negation)


@dataclass(frozen=True)
class Role:
    """One argument or adjunct: its role label and the 1-based ids of its words, in order.

    ``text``, when given, is what the role's items are instead of the words' forms: a negation
    written as a verb prefix (Czech *nepřijde*) spans the verb but is the item ``ne``, so two
    negated verbs agree on AM-NEG whatever their tense or person, as ``not``/``не`` do."""

    label: str
    words: tuple[int, ...]
    text: tuple[str, ...] = ()


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


def _is_year(word: Word) -> bool:
    """A bare year, 1000-2099 (``en 2010``)."""
    return len(word.form) == 4 and word.form.isdigit() and 1000 <= int(word.form) <= 2099


def _time_phrase(dep: Word, sentence: Sentence, kids: list[list[int]], lex: RoleLexicon) -> bool:
    """A year, or a time frame noun with a temporal ``nmod`` (``до конца недели``), where ``lex`` has them."""
    if lex.year_numbers and _is_year(dep):
        return True
    if dep.lemma.lower() not in lex.time_frames:
        return False
    nmods = [sentence.word(k) for k in kids[dep.id] if sentence.word(k).deprel.split(":")[0] == "nmod"]
    return any(w.lemma.lower() in lex.temporal_nouns or (lex.year_numbers and _is_year(w)) for w in nmods)


def _feature(word: Word, name: str) -> str:
    """The value of one UD feature of a word (``Case`` -> ``Acc``), or ''."""
    for item in word.feats.split("|"):
        key, _, value = item.partition("=")
        if key == name:
            return value
    return ""


def _oblique_role(dep: Word, sentence: Sentence, kids: list[list[int]], lex: RoleLexicon = ENGLISH) -> str:
    """Adjunct role of an ``obl``/``obl:*`` dependent (rows obl... of the mapping table)."""
    case = _marker(dep.id, sentence, kids, "case")
    first = case.split(" ")[0]
    if dep.deprel in ("obl:tmod", "nmod:tmod") or dep.lemma.lower() in lex.temporal_nouns \
            or case in lex.temporal_cases or _time_phrase(dep, sentence, kids, lex):
        return "AM-TMP"
    if dep.deprel not in lex.oblique_relations:
        return "AM-ADV"
    table = ((lex.locative_cases, "AM-LOC"), (lex.directional_cases, "AM-DIR"), (lex.causal_cases, "AM-CAU"),
             (lex.purpose_cases, "AM-PNC"), (lex.manner_cases, "AM-MNR"))
    morph = _feature(dep, "Case")
    keyed = {f"{case}|{morph}", f"{first}|{morph}"} if morph else set()
    for cases, role in table:  # case word and the noun's case first (в|Acc), then the case word
        if keyed & cases:
            return role
    for cases, role in table:
        if case in cases or first in cases:
            return role
    return "AM-ADV"


def _adverb_role(dep: Word, lex: RoleLexicon = ENGLISH) -> str:
    """Adjunct role of an ``advmod`` dependent."""
    lemma = dep.lemma.lower() if dep.lemma not in ("_", "") else dep.form.lower()
    if lemma in lex.negation or dep.form.lower() in lex.negation or (
            dep.upos in lex.negation_upos and _feature(dep, "Polarity") == "Neg"):
        return "AM-NEG"
    for words, role in ((lex.temporal_adverbs, "AM-TMP"), (lex.locative_adverbs, "AM-LOC"),
                        (lex.directional_adverbs, "AM-DIR")):
        if lemma in words:
            return role
    return "AM-MNR" if lemma.endswith(lex.manner_suffixes) and lemma not in lex.not_manner else "AM-ADV"


def _clause_role(dep: Word, sentence: Sentence, kids: list[list[int]], lex: RoleLexicon = ENGLISH) -> str:
    """Adjunct role of an ``advcl`` dependent, from its subordinator."""
    mark = _marker(dep.id, sentence, kids, "mark")
    if mark in lex.temporal_cases:
        return "AM-TMP"
    if mark in lex.causal_cases:
        return "AM-CAU"
    if mark in lex.purpose_cases or mark in lex.infinitive_purpose:
        return "AM-PNC"
    return "AM-ADV"


def _is_modal(dep: Word, lex: RoleLexicon) -> bool:
    """An auxiliary that is a modal: PTB ``MD`` in English, else by lemma or form."""
    return dep.xpos in lex.modal_xpos or dep.lemma.lower() in lex.modal_lemmas or dep.form.lower() in lex.modal_forms


def role_of(dep: Word, verb_kids: list[int], sentence: Sentence, kids: list[list[int]],
            lex: RoleLexicon = ENGLISH) -> str | None:
    """The role label of a verb's dependent, or None (the mapping table of the module docstring)."""
    rel = dep.deprel
    direct = {"nsubj": "A0", "csubj": "A0", "nsubj:pass": "A1", "csubj:pass": "A1", "obj": "A1",
              "ccomp": "A1", "iobj": "A2", "obl:arg": "A2", "obl:agent": "A0", "discourse": "AM-DIS"}
    if rel in direct:
        return direct[rel]
    if rel == "xcomp":
        return "A2" if any(sentence.word(k).deprel == "obj" for k in verb_kids) else "A1"
    if rel.split(":")[0] == "obl" or rel == "nmod:tmod":
        return _oblique_role(dep, sentence, kids, lex)
    if rel == "advmod":
        return _adverb_role(dep, lex)
    if rel == "aux" and _is_modal(dep, lex):
        return "AM-MOD"
    if rel == "advcl":
        return _clause_role(dep, sentence, kids, lex)
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
    if any(is_subject(sentence.word(k).deprel) for k in kids[word.id]):
        return None
    head_kids = [sentence.word(k) for k in kids[word.head]]
    wanted = ("obj",) if word.deprel == "xcomp" and any(w.deprel == "obj" for w in head_kids) else (
        "nsubj", "nsubj:pass", "csubj", "csubj:pass")
    subject = next((w for w in head_kids if w.deprel in wanted), None)
    if subject is None:
        return None
    passive = any(sentence.word(k).deprel == "aux:pass" for k in kids[word.id])
    return Role("A1" if passive else "A0", subtree(subject.id, kids))


def modal_head(word: Word, sentence: Sentence, lex: RoleLexicon) -> Word | None:
    """The modal verb heading ``word`` when ``word`` is its infinitive (``может`` of ``может прийти``;
    ``lex.modal_heads``), else None."""
    if not word.head or word.deprel not in ("xcomp", "csubj") or _feature(word, "VerbForm") != "Inf":
        return None
    head = sentence.word(word.head)
    return head if head.lemma.lower() in lex.modal_heads else None


def _is_modal_head(word: Word, sentence: Sentence, kids: list[list[int]], lex: RoleLexicon) -> bool:
    """A modal verb with an infinitive below it: an auxiliary of that infinitive, not a predicate."""
    return bool(lex.modal_heads) and word.lemma.lower() in lex.modal_heads and any(
        modal_head(sentence.word(k), sentence, lex) is not None for k in kids[word.id])


def _negated_word(word: Word, others: list[int], sentence: Sentence) -> Role | None:
    """AM-NEG spanning the verb, or one of its auxiliaries or its modal, marked ``Polarity=Neg``
    and written with the prefix (Czech ``nepřijde``: a parser's ``Polarity=Neg`` on ``narostlo``
    is no negation); its item is the prefix ``ne`` (:class:`Role`)."""
    for w in [word, *(sentence.word(k) for k in others)]:
        if (w is word or w.deprel.split(":")[0] in ("aux", "cop") or w.id == word.head) \
                and _feature(w, "Polarity") == "Neg" and w.form.lower().startswith(NEGATION_PREFIX):
            return Role("AM-NEG", (w.id,), (NEGATION_PREFIX,))
    return None


def _frame(word: Word, sentence: Sentence, kids: list[list[int]], lex: RoleLexicon) -> list[Role]:
    """The roles of one verb (unsorted); an infinitive under a modal also takes the modal's
    dependents (its subject through :func:`shared_subject`) and an AM-MOD spanning the modal."""
    roles = []
    shared = shared_subject(word, sentence, kids)
    if shared is not None:
        roles.append(shared)
    dependents = kids[word.id]
    modal = modal_head(word, sentence, lex)
    if modal is not None:
        roles.append(Role("AM-MOD", (modal.id,)))
        dependents = dependents + [k for k in kids[modal.id]
                                   if k != word.id and sentence.word(k).deprel not in SUBJECTS]
    for k in dependents:
        label = role_of(sentence.word(k), dependents, sentence, kids, lex)
        if label is not None:
            roles.append(Role(label, subtree(k, kids)))
    if lex.verb_negation and not any(r.label == "AM-NEG" for r in roles):
        negated = _negated_word(word, dependents + ([modal.id] if modal is not None else []), sentence)
        if negated is not None:
            roles.append(negated)
    return roles


def predicates(sentence: Sentence) -> list[Predicate]:
    """Predicate-argument structures of every verb of a sentence, left to right, with the word
    lists of the sentence's language (:func:`~mteval.annotate.layers.role_lexicon.lexicon`)."""
    lex = lexicon(sentence.language)
    kids = sentence.children()
    found = []
    for word in sentence.words:
        if word.upos != "VERB" or _is_modal_head(word, sentence, kids, lex):
            continue
        roles = _frame(word, sentence, kids, lex)
        roles.sort(key=lambda r: r.words[0])
        lemma = word.lemma if word.lemma not in ("_", "") else word.form
        found.append(Predicate(word.id, lemma, tuple(roles)))
    return found
