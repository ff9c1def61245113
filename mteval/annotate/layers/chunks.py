"""Base-phrase chunks (CoNLL-2000 style) derived from a Universal Dependencies tree.

A chunk is a non-recursive, contiguous phrase: its *head* word plus the contiguous dependents that
CoNLL-2000 puts in the same chunk. The words are scanned right to left; a word not yet in a chunk
starts one, typed by its head rule, and the chunk then grows:

* **leftwards** over word ``k`` while ``k`` hangs from a word already in the chunk with a relation
  of the chunk type's ``LEFT`` set (and passes that rule's condition);
* **rightwards** over word ``k`` while ``k`` hangs from a word in the chunk with a ``RIGHT``
  relation (``flat``, ``fixed``, ``goeswith``, and possessive ``'s`` (XPOS ``POS``) on a nominal).

Head rules (the chunk type of a word that starts a chunk):

=================================================  =========
word                                               chunk
=================================================  =========
UPOS NOUN, PROPN, PRON, NUM, SYM; DET not ``det``   NP
UPOS VERB; AUX (copula or an auxiliary left alone)  VP
relation ``compound:prt``                           PRT
UPOS ADP (``case``, ``mark`` or heading a phrase)   PP
UPOS SCONJ                                          SBAR
UPOS ADJ                                            ADJP
UPOS ADV                                            ADVP
UPOS INTJ                                           INTJ
UPOS CCONJ with a ``fixed`` dependent               CONJP
anything else (PUNCT, CCONJ, PART, X, ...)          O
=================================================  =========

Growth sets (relations of words absorbed on the left):

========  ======================================================================================
chunk     LEFT relations
========  ======================================================================================
NP        det, det:predet, det:poss, amod, nummod, compound, nmod:poss (no ``'s``: it ends the
          possessor chunk first), flat, fixed; advmod of an ADJ/NUM already in the chunk
VP        aux and its subtypes (aux:pass; French aux:tense, aux:caus); advmod of negation (not,
          n't, never, or any ADV/PART marked ``Polarity=Neg``: ``n’t``, ``ne``/``pas``, ``не``,
          ``no``); mark with XPOS ``TO``; advmod ADV directly preceded by an aux of the same verb
          (``has already left``, ``a pas ratifié``)
ADJP      advmod
ADVP      advmod
PP, SBAR  fixed
========  ======================================================================================

IOB labels (CoNLL-2000): ``B-X`` on the first word of a chunk of type X, ``I-X`` on the others,
``O`` on words outside chunks. Limits: coordination inside NPs gives separate NP chunks (CoNLL-2000
joins ``[NP cats and dogs]`` only when the parser made it flat); quantifier phrases are NPs.
"""

from __future__ import annotations

from dataclasses import dataclass

from mteval.annotate.model import Sentence, Word

NOMINAL = {"NOUN", "PROPN", "PRON", "NUM", "SYM"}
NEGATION = {"not", "n't", "never"}
RIGHT = {"flat", "flat:name", "flat:foreign", "fixed", "goeswith"}
LEFT: dict[str, set[str]] = {
    "NP": {"det", "det:predet", "det:poss", "amod", "nummod", "compound", "nmod:poss", "flat", "fixed",
           "advmod"},
    "VP": {"aux", "advmod", "mark"},  # aux with its subtypes (_is_aux)
    "ADJP": {"advmod"},
    "ADVP": {"advmod"},
    "PP": {"fixed"},
    "SBAR": {"fixed"},
}
CHUNK_TYPES = ("NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "INTJ", "CONJP", "O")


@dataclass(frozen=True)
class Chunk:
    """A base phrase: its type (``O`` for a word outside chunks) and its 1-based word ids."""

    type: str
    words: tuple[int, ...]


def head_type(word: Word, has_fixed: bool) -> str:
    """Chunk type of a word that starts a chunk (the head-rule table of the module docstring)."""
    if word.deprel == "compound:prt":
        return "PRT"
    upos = word.upos
    if upos in NOMINAL or (upos == "DET" and word.deprel != "det"):
        return "NP"
    if upos in ("VERB", "AUX"):
        return "VP"
    simple = {"ADP": "PP", "SCONJ": "SBAR", "ADJ": "ADJP", "ADV": "ADVP", "INTJ": "INTJ"}
    if upos in simple:
        return simple[upos]
    if upos == "CCONJ" and has_fixed:
        return "CONJP"
    return "O"


def _absorbs_left(kind: str, word: Word, sentence: Sentence, members: set[int]) -> bool:
    """Whether a left neighbour ``word`` joins a chunk of type ``kind`` (growth table)."""
    rel = word.deprel
    if word.head not in members or ("aux" if _is_aux(rel) else rel) not in LEFT.get(kind, ()):
        return False
    if kind == "NP":
        if rel == "advmod":
            return sentence.word(word.head).upos in ("ADJ", "NUM")
        return word.upos != "PUNCT"
    if kind == "VP":
        if rel == "mark":
            return word.xpos == "TO"
        if rel == "advmod":
            return _is_negation(word) or (word.upos == "ADV" and _after_aux(word, sentence))
    return True


def _is_negation(word: Word) -> bool:
    """``not``, ``n't``, ``never``, or an adverb or particle marked ``Polarity=Neg`` (UD: ``n’t``,
    French ``ne``/``pas``, Spanish ``no``, Russian ``не``)."""
    if word.lemma.lower() in NEGATION or word.form.lower() in NEGATION:
        return True
    return word.upos in ("ADV", "PART") and "Polarity=Neg" in word.feats.split("|")


def _is_aux(rel: str) -> bool:
    """``aux`` or one of its subtypes (``aux:pass``; French ``aux:tense``, ``aux:caus``)."""
    return rel.split(":")[0] == "aux"


def _after_aux(word: Word, sentence: Sentence) -> bool:
    """An adverb inside a verb group: preceded, over adverbs of the same verb, by one of its auxiliaries."""
    k = word.id - 1
    while k >= 1:
        before = sentence.word(k)
        if before.head != word.head:
            return False
        if _is_aux(before.deprel):
            return True
        if before.deprel != "advmod":
            return False
        k -= 1
    return False


def _absorbs_right(kind: str, word: Word, members: set[int]) -> bool:
    """Whether a right neighbour joins the chunk (``flat``/``fixed``/``goeswith``, possessive 's)."""
    if word.head not in members:
        return False
    return word.deprel in RIGHT or (kind == "NP" and word.deprel == "case" and word.xpos == "POS")


def chunks(sentence: Sentence) -> list[Chunk]:
    """Base-phrase chunks of a sentence, left to right; each word is in exactly one chunk."""
    n = len(sentence)
    owner = [-1] * (n + 1)
    has_fixed = {w.head for w in sentence.words if w.deprel == "fixed"}
    found: list[tuple[str, int, int]] = []
    for i in range(n, 0, -1):
        if owner[i] >= 0:
            continue
        word = sentence.word(i)
        if _right_attached(word) and 0 < word.head < i:
            continue  # joins its head's chunk, formed later in this right-to-left scan
        kind = head_type(word, i in has_fixed)
        start, end, members = i, i, {i}
        if kind == "VP" and (word.deprel == "cop" or _is_aux(word.deprel)):
            members.add(word.head)  # a verb group around a copula: its auxiliaries hang from the predicate
        if kind != "O":
            while end < n and owner[end + 1] < 0 and _absorbs_right(kind, sentence.word(end + 1), members):
                end += 1
                members.add(end)
            while start > 1 and owner[start - 1] < 0 and _absorbs_left(kind, sentence.word(start - 1),
                                                                        sentence, members):
                start -= 1
                members.add(start)
        for j in range(start, end + 1):
            owner[j] = len(found)
        found.append((kind, start, end))
    return _with_leftovers(found, owner, sentence, has_fixed)


def _right_attached(word: Word) -> bool:
    """A word that joins its (left) head's chunk: flat/fixed/goeswith or a possessive 's."""
    return word.deprel in RIGHT or (word.deprel == "case" and word.xpos == "POS")


def _with_leftovers(found: list[tuple[str, int, int]], owner: list[int], sentence: Sentence,
                    has_fixed: set[int]) -> list[Chunk]:
    """Chunks in order; a right-attached word its head's chunk did not take is a chunk of its own."""
    spans = [(start, end, kind) for kind, start, end in found]
    spans += [(j, j, head_type(sentence.word(j), j in has_fixed))
              for j in range(1, len(sentence) + 1) if owner[j] < 0]
    spans.sort()
    return [Chunk(kind, tuple(range(start, end + 1))) for start, end, kind in spans]


def iob_labels(sentence: Sentence) -> list[str]:
    """CoNLL-2000 IOB label of every word (``B-NP``, ``I-NP``, ``O``, ...), in word order."""
    labels = ["O"] * len(sentence)
    for chunk in chunks(sentence):
        if chunk.type == "O":
            continue
        for k, i in enumerate(chunk.words):
            labels[i - 1] = ("B-" if k == 0 else "I-") + chunk.type
    return labels
