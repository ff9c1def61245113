"""Linguistic annotation: the data model metrics read, the Stanza adapter (imported lazily),
the CoNLL-U cache and the derived layers (chunks, phrase structure, predicate-argument, entities)."""
