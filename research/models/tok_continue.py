"""Continue training Stanza's tokenizer from a saved model.

stanza 1.15's ``--load_name`` cannot do it: ``Trainer.load`` is called with too few arguments, and
even if it were not, it swaps in a new network after the optimizer was built on the old one (Adam
would then update parameters the model no longer uses). This builds the trainer as ``run_tokenizer``
does (same vocabulary, from the same train file), then copies the weights of ``$TOK_INIT`` into that
trainer's own network, so the optimizer (fresh Adam state) trains them. Issue 15; same pattern as
``pos_continue.py``.
"""

from __future__ import annotations

import os
import sys

import stanza.models.tokenizer as tokenizer
import torch
from stanza.models.tokenization.trainer import Trainer as TokenizeTrainer

INIT = os.environ["TOK_INIT"]


class ContinueTrainer(TokenizeTrainer):
    """A tokenizer trainer whose fresh model starts from ``$TOK_INIT``'s weights."""

    def __init__(self, args=None, vocab=None, lexicon=None, dictionary=None, model_file=None,  # type: ignore[no-untyped-def]
                 device=None, foundation_cache=None, external_dict=None):
        super().__init__(args=args, vocab=vocab, lexicon=lexicon, dictionary=dictionary, model_file=model_file,
                         device=device, foundation_cache=foundation_cache, external_dict=external_dict)
        if model_file is None:
            ckpt = torch.load(INIT, map_location="cpu", weights_only=True)
            if ckpt["vocab"] != self.vocab.state_dict():
                raise RuntimeError(f"{INIT}: its character vocabulary differs from the train file's")
            for key in ("feat_funcs", "emb_dim", "hidden_dim", "conv_filters", "rnn_layers", "use_mwt"):
                if ckpt["config"].get(key) != self.args.get(key):
                    raise RuntimeError(f"{INIT}: {key} is {ckpt['config'].get(key)!r}, "
                                       f"the new run's is {self.args.get(key)!r}")
            self.model.load_state_dict(ckpt["model"], strict=True)  # raises on a missing or extra tensor


tokenizer.Trainer = ContinueTrainer  # type: ignore[misc]

if __name__ == "__main__":
    from stanza.utils.training import run_tokenizer

    sys.argv = ["run_tokenizer"] + sys.argv[1:]
    run_tokenizer.main()
