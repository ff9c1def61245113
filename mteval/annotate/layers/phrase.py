"""Phrase-structure projection of a dependency tree (after Xia & Palmer 2001, flat variant).

Every word is a preterminal labelled with its XPOS (UPOS when XPOS is ``_``). A word *projects* a
phrase when the table below says so; the phrase's children are, in surface order, the word's own
preterminal and the projections of its dependents (one projection level per head: no X-bar
intermediate levels, so the trees are flat). A word that does not project is a bare preterminal
in its head's phrase. Two wrappers add the function-word phrases PTB trees have:

* a nominal with ``case`` dependents (not the possessive ``'s``) projects ``PP``: the case words'
  preterminals and an inner phrase holding everything else (``(PP (IN of) (NP (DT the) (NN bench)))``);
* a clause with a ``mark`` subordinator (SCONJ or ADP) projects ``SBAR`` over the mark words and the
  inner clause.

A dependent that comes before the last case or mark word (the comma of ``waited, at the station``,
the ``and`` of ``and for the people``) is a child of the wrapper, before it:
``(PP (, ,) (IN at) (NP (DT the) (NN station)))``. Every word of the sentence is a leaf of the tree
(before CP v2, such a case or mark word fell out of it: 33 words of 160 WMT21 reference sentences).

Projection table (the phrase of word w; first matching row wins):

==========================================================  =================================
condition                                                   phrase
==========================================================  =================================
w has a subject dependent (nsubj*, csubj*, expl, expl:subj)  S
no dependents and relation compound/flat/fixed/goeswith    (no phrase)
no dependents, UPOS PRON, relation nmod:poss (``his``)      (no phrase)
UPOS VERB                                                   VP
UPOS NOUN, PROPN, PRON                                      NP
UPOS AUX, with dependents                                   VP
UPOS ADJ, unless it is a dependent-less ``amod``            ADJP
UPOS ADV, unless a dependent-less modifier of ADJ/ADV/NUM   ADVP
UPOS NUM with dependents                                    QP
UPOS NUM without dependents, not ``nummod``                 NP
UPOS ADP with dependents (a preposition heading a phrase)   PP
UPOS SCONJ with dependents                                  SBAR
UPOS DET with dependents, or DET not ``det``/``det:*``      NP
UPOS INTJ                                                   INTJ
relation ``compound:prt``                                   PRT
anything else with dependents                               X
anything else                                               (no phrase)
==========================================================  =================================

The root of the returned tree is ``ROOT`` over the projections of the words hanging from 0.
Limits: no empty elements, no traces; a non-projective arc gives a discontinuous phrase (its leaves
are not in surface order; label chains, all CP measures use, are unaffected); coordination is not
grouped (conjuncts hang from the first conjunct, as in UD); an ``S`` is flat (subject, verb and
objects are siblings, no VP inside).
"""

from __future__ import annotations

from mteval.annotate.model import Sentence, Tree, Word

SUBJECTS = ("nsubj", "csubj")  # with their subtypes (nsubj:pass, csubj:outer...)
# expletive subjects (English "there", French impersonal "il"); not the reflexive clitics of
# expl:pv (Czech "se"), expl:comp or expl:pass (French "se"), which are no subject
EXPLETIVE_SUBJECTS = ("expl", "expl:subj")


def is_subject(rel: str) -> bool:
    """Whether a dependency relation makes its head a clause with a subject (projection table)."""
    return rel.split(":")[0] in SUBJECTS or rel in EXPLETIVE_SUBJECTS
NAME_PARTS = ("compound", "flat", "fixed", "goeswith")
PHRASE_TYPES = ("S", "SBAR", "VP", "NP", "PP", "ADJP", "ADVP", "QP", "INTJ", "PRT", "X", "ROOT")


def _label(word: Word, kids: list[int], sentence: Sentence) -> str | None:
    """Phrase label a word projects, or None (the projection table of the module docstring)."""
    upos, rel, has = word.upos, word.deprel, bool(kids)
    if any(is_subject(sentence.word(k).deprel) for k in kids):
        return "S"
    fixed = {"VERB": "VP", "NOUN": "NP", "PROPN": "NP", "PRON": "NP", "INTJ": "INTJ"}
    possessive = rel == "nmod:poss" and upos == "PRON"
    if not has and (possessive or rel != "compound:prt" and rel.split(":")[0] in NAME_PARTS):
        return None
    if upos in fixed:
        return fixed[upos]
    if rel == "compound:prt":
        return "PRT"
    head_upos = sentence.word(word.head).upos if word.head else ""
    rules = {
        "AUX": "VP" if has else None,
        "ADJ": "ADJP" if has or rel != "amod" else None,
        "ADV": "ADVP" if has or head_upos not in ("ADJ", "ADV", "NUM") else None,
        "NUM": "QP" if has else (None if rel == "nummod" else "NP"),
        "ADP": "PP" if has else None,
        "SCONJ": "SBAR" if has else None,
        "DET": "NP" if has or rel.split(":")[0] != "det" else None,
    }
    if upos in rules:
        return rules[upos]
    return "X" if has else None


def preterminal(word: Word) -> Tree:
    """The leaf of a word: its XPOS (UPOS when XPOS is missing) over the 1-based word id."""
    return Tree(word.xpos if word.xpos not in ("_", "") else word.upos, (), word.id)


def _project(i: int, sentence: Sentence, kids: list[list[int]]) -> Tree:
    """The projection of word ``i`` (a phrase, or its bare preterminal)."""
    word = sentence.word(i)
    label = _label(word, kids[i], sentence)
    parts = {k: _project(k, sentence, kids) for k in kids[i]}
    parts[i] = preterminal(word)
    if label is None:
        return parts[i]
    wrapper, outer = _wrapper(word, label, kids[i], sentence)
    if not outer:
        return Tree(label, tuple(parts[k] for k in sorted(parts)))
    # the case/mark words precede the head (_wrapper); a dependent before the last of them (the comma
    # of "waited, at the station") goes into the wrapper before it, so that every word stays in the tree
    rest = [k for k in sorted(parts) if k not in outer]
    lead = [k for k in rest if k < max(outer)]
    inner = Tree(label, tuple(parts[k] for k in rest if k not in lead))
    return Tree(wrapper, tuple(parts[k] for k in sorted(lead + outer)) + (inner,))


def _wrapper(word: Word, label: str, kids: list[int], sentence: Sentence) -> tuple[str, list[int]]:
    """PP over a nominal with case markers, SBAR over a clause with a subordinator (or none)."""
    if label in ("NP", "QP") and word.upos != "ADP":
        cases = [k for k in kids if sentence.word(k).deprel == "case" and sentence.word(k).xpos != "POS"]
        if cases and all(c < word.id for c in cases):
            return "PP", cases
    if label in ("S", "VP", "ADJP"):
        marks = [k for k in kids if sentence.word(k).deprel == "mark" and sentence.word(k).upos in ("SCONJ", "ADP")]
        if marks and all(m < word.id for m in marks):
            return "SBAR", marks
    return "", []


def project(sentence: Sentence) -> Tree:
    """The flat phrase-structure tree of a dependency-parsed sentence, rooted in ``ROOT``."""
    kids = sentence.children()
    return Tree("ROOT", tuple(_project(r, sentence, kids) for r in kids[0]))


def bracketed(tree: Tree, sentence: Sentence | None = None) -> str:
    """Penn-style bracketing, with word forms when the sentence is given (for tests and docs)."""
    if tree.is_leaf:
        form = sentence.word(tree.word).form if sentence is not None and tree.word else str(tree.word)
        return f"({tree.label} {form})"
    return f"({tree.label} " + " ".join(bracketed(c, sentence) for c in tree.children) + ")"
