"""Continue training Stanza's parser on predicted tags, reusing the saved model's vocabulary.

stanza 1.15's ``--continue_from`` rebuilds the vocabulary from the new train file, which no
longer matches the saved model when predicted FEATS differ from gold ones (IndexError in the
feats embedding); here the data loaders reuse the checkpoint's vocabulary. From TRAINING_LOG.md.
"""

from __future__ import annotations

import sys
from typing import Any

import stanza.models.parser as parser
import torch
from stanza.models.pos.vocab import MultiVocab

_CONT = sys.argv[sys.argv.index("--continue_from") + 1]
VOCAB = MultiVocab.load_state_dict(torch.load(_CONT, map_location="cpu", weights_only=True)["vocab"])
_DataLoader = parser.DataLoader


def data_loader(doc: Any, batch_size: int, args: Any, pretrain: Any, vocab: Any = None, **kw: Any) -> Any:
    """Stanza's DataLoader, with the checkpoint's vocabulary unless one is given."""
    return _DataLoader(doc, batch_size, args, pretrain, vocab=VOCAB if vocab is None else vocab, **kw)


parser.DataLoader = data_loader  # type: ignore[assignment]

if __name__ == "__main__":
    parser.main(sys.argv[1:])
