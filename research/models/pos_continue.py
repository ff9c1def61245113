"""Continue training Stanza's tagger from a saved model (stanza 1.15 has no ``--continue_from``).

Builds the trainer exactly as ``run_pos`` does (same vocabulary, from the same train file) and
copies in the weights of ``$POS_INIT``; Adam state starts fresh. From TRAINING_LOG.md.
"""

from __future__ import annotations

import os
import sys

import stanza.models.tagger as tagger
import torch
from stanza.models.pos.trainer import Trainer as PosTrainer

INIT = os.environ["POS_INIT"]


class ContinueTrainer(PosTrainer):
    """A tagger trainer whose fresh model starts from ``$POS_INIT``'s weights."""

    def __init__(self, args=None, vocab=None, pretrain=None, model_file=None, device=None,  # type: ignore[no-untyped-def]
                 foundation_cache=None):
        super().__init__(args=args, vocab=vocab, pretrain=pretrain, model_file=model_file, device=device,
                         foundation_cache=foundation_cache)
        if model_file is None:
            ckpt = torch.load(INIT, map_location="cpu", weights_only=True)
            new = self.vocab.state_dict()
            for key in new:
                assert ckpt["vocab"][key] == new[key], "vocab mismatch in " + key
            # strict=False as stanza leaves unsaved modules (pretrained vectors, charlm) out of model files;
            # anything else that does not match would silently restart the tagger from scratch
            result = self.model.load_state_dict(ckpt["model"], strict=False)
            missing = [k for k in result.missing_keys if k.split(".")[0] not in self.model.unsaved_modules]
            if missing or result.unexpected_keys:
                raise RuntimeError(f"{INIT} does not fit the tagger: missing {missing}, "
                                   f"unexpected {result.unexpected_keys}")


tagger.Trainer = ContinueTrainer  # type: ignore[misc]

if __name__ == "__main__":
    from stanza.utils.training import run_pos

    sys.argv = ["run_pos"] + sys.argv[1:]
    run_pos.main()
