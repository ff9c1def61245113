"""Label sets of the annotation our linguistic metrics read (one variant is registered per label).

* ``UPOS_TAGS``: the 17 Universal Dependencies part-of-speech tags.
* ``XPOS_TAGS``: the Penn Treebank tags of UD English-EWT (Stanza's English XPOS), as found in the
  EWT training data, plus ``#``.
* ``RELATIONS``: the dependency relations (with subtypes) of UD English-EWT 2.x training data.
* ``NE_TYPES``: Stanza's English NER types: OntoNotes (18) and CoNLL-2003 (PER, LOC, ORG, MISC).

A label outside these sets still counts in the (*) aggregations; it only has no variant of its own.
"""

from __future__ import annotations

UPOS_TAGS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
             "PUNCT", "SCONJ", "SYM", "VERB", "X")
XPOS_TAGS = ("#", "$", "''", ",", "-LRB-", "-RRB-", ".", ":", "ADD", "AFX", "CC", "CD", "DT", "EX", "FW", "GW",
             "HYPH", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NFP", "NN", "NNP", "NNPS", "NNS", "PDT", "POS",
             "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP",
             "VBZ", "WDT", "WP", "WP$", "WRB", "XX", "``")
RELATIONS = ("acl", "acl:relcl", "advcl", "advcl:relcl", "advmod", "amod", "appos", "aux", "aux:pass", "case",
             "cc", "cc:preconj", "ccomp", "compound", "compound:prt", "conj", "cop", "csubj", "csubj:outer",
             "csubj:pass", "dep", "det", "det:predet", "discourse", "dislocated", "expl", "fixed", "flat",
             "goeswith", "iobj", "list", "mark", "nmod", "nmod:desc", "nmod:poss", "nmod:unmarked", "nsubj",
             "nsubj:outer", "nsubj:pass", "nummod", "obj", "obl", "obl:agent", "obl:unmarked", "orphan",
             "parataxis", "punct", "reparandum", "root", "vocative", "xcomp")
NE_TYPES = ("CARDINAL", "DATE", "EVENT", "FAC", "GPE", "LANGUAGE", "LAW", "LOC", "MONEY", "NORP", "ORDINAL",
            "ORG", "PERCENT", "PERSON", "PRODUCT", "QUANTITY", "TIME", "WORK_OF_ART", "PER", "MISC")
