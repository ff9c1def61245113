"""Annotation layers derived deterministically from a dependency-parsed :class:`Sentence`.

Each module has one job and documents its rule table in its docstring:

- :mod:`.chunks`: base-phrase chunks with CoNLL-2000 IOB labels (SP metrics);
- :mod:`.phrase`: a flat phrase-structure projection of the dependency tree (CP metrics);
- :mod:`.roles`: predicate-argument structures with PropBank-like role labels (SR metrics), its
  adjuncts typed with the word lists of :mod:`.role_lexicon` (one table per language);
- :mod:`.entities`: typed named-entity spans from the per-word NER tags (NE metrics).

All functions are pure: the same sentence always gives the same layer.
"""
