"""Word vectors trained here for the en_ewt tagger (issue 15), and a tagger widened to read them.

Stanza's official English tagger reads word vectors pretrained on billions of words; ours reads none, and a
third of its dev UPOS errors fall on words it never saw in training (``research/models/README.md``). This script
tries the one source of vectors the project may ship under the models' CC BY-SA 4.0 licence (see
``research/models/README.md``, "Not done yet"): the words of UD EWT train (CC BY-SA 4.0) plus about 112k words of
English text in ``../shared/data`` whose licences allow it: the four hi-en crowd references (CC BY-SA 3.0,
adaptable under 4.0) and the English side of newstest2017 en-fi (CC BY 4.0).

- ``vectors``: tokenises that extra text with the shipped tokenizer (UD word forms, as the tagger sees
  them), lowercases everything (stanza looks pretrained vectors up by the lowercased word), trains
  skip-gram fastText vectors with gensim (Bojanowski et al. 2017; subwords give rare words usable
  vectors) and writes them as a stanza pretrain file (``pretrain.pt``) plus its record (``vectors.json``).
- ``widen``: a copy of a tagger that also reads those vectors and computes exactly what the original
  computes (function-preserving widening, as Net2Net, Chen et al. 2016): stanza's tagger concatenates
  [word embedding, transformed pretrained vector, character representation] into its first BiLSTM layer;
  the new pretrained block gets a fresh projection (``trans_pretrained``) and zero columns in every
  first-layer weight that reads the concatenation, so the widened model starts from the shipped model's
  accuracy and training decides how much to use the vectors.

Then train it as any tagger: ``train_long.py --phases pos --pos-init WIDE.pt --pos-pretrain pretrain.pt``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_long import ROOT, SHIPPED, sha256  # noqa: E402  (a sibling script, not a package)

SHARED = ROOT.parent / "shared"
# (path under ../shared/data, format, licence); see research/models/README.md for why these and no others
EXTRA_TEXT = [
    ("hien-4ref/test.hi-en.en.0", "plain", "CC BY-SA 3.0"),
    ("hien-4ref/test.hi-en.en.1", "plain", "CC BY-SA 3.0"),
    ("hien-4ref/test.hi-en.en.2", "plain", "CC BY-SA 3.0"),
    ("hien-4ref/test.hi-en.en.3", "plain", "CC BY-SA 3.0"),
    ("wmt17-enfi-sgml/sgm/newstest2017-enfi-src.en.sgm", "sgml", "CC BY 4.0"),
]
# the first BiLSTM layer's weights that read the concatenated input (both directions, highway and gate)
FIRST_LAYER_INPUTS = ("taggerlstm.lstm.0.lstm.weight_ih_l0", "taggerlstm.lstm.0.lstm.weight_ih_l0_reverse",
                      "taggerlstm.highway.0.weight", "taggerlstm.gate.0.weight")
SEGMENT = re.compile(r"<seg[^>]*>(.*?)</seg>")


def read_ud_rows(conllu: Path) -> list[list[list[str]]]:
    """Each sentence of a CoNLL-U file as its words' columns (multi-word token lines and empty nodes
    skipped)."""
    sentences: list[list[list[str]]] = []
    words: list[list[str]] = []
    for line in conllu.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            if words:
                sentences.append(words)
            words = []
        elif not line.startswith("#"):
            cols = line.split("\t")
            if cols[0].isdigit():
                words.append(cols)
    if words:
        sentences.append(words)
    return sentences


def read_ud_words(conllu: Path) -> list[list[str]]:
    """The word forms of each sentence of a CoNLL-U file."""
    return [[cols[1] for cols in sentence] for sentence in read_ud_rows(conllu)]


def read_extra_lines(shared: Path) -> list[str]:
    """The raw segments of the extra text, in EXTRA_TEXT's order (SGML entities left as they are: few)."""
    lines: list[str] = []
    for rel, kind, _licence in EXTRA_TEXT:
        text = (shared / "data" / rel).read_text(encoding="utf-8")
        found = SEGMENT.findall(text) if kind == "sgml" else text.splitlines()
        lines += [seg.strip() for seg in found if seg.strip()]
    return lines


def tokenize(lines: list[str], models: Path = SHIPPED) -> list[list[str]]:
    """UD word forms of each line by the shipped tokenizer and MWT expander (one line, one sentence)."""
    import stanza

    nlp = stanza.Pipeline("en", processors="tokenize,mwt", dir=str(models), download_method=None,
                          tokenize_model_path=str(models / "tokenize.pt"), mwt_model_path=str(models / "mwt.pt"),
                          tokenize_no_ssplit=True, logging_level="WARN")
    docs = nlp.bulk_process(lines)
    return [[w.text for s in doc.sentences for w in s.words] for doc in docs]


def train_vectors(sentences: list[list[str]], dim: int, epochs: int, seed: int) -> Any:
    """Skip-gram fastText vectors (gensim) of the lowercased sentences; one worker, so runs repeat exactly."""
    from gensim.models import FastText

    lowered = [[w.lower() for w in s] for s in sentences]
    model = FastText(vector_size=dim, window=5, min_count=1, sg=1, negative=10, min_n=3, max_n=6,
                     epochs=epochs, seed=seed, workers=1)
    model.build_vocab(corpus_iterable=lowered)
    model.train(corpus_iterable=lowered, total_examples=len(lowered), epochs=epochs)
    return model.wv


def write_pretrain(wv: Any, out: Path) -> int:
    """Write the vectors of every corpus word as a stanza pretrain file; returns the vocabulary size."""
    from stanza.models.common.pretrain import Pretrain

    words = [w for w in wv.index_to_key if w and not any(c.isspace() for c in w)]
    with tempfile.TemporaryDirectory() as tmp:
        vec = Path(tmp) / "vectors.vec"
        with vec.open("w", encoding="utf-8") as handle:
            handle.write(f"{len(words)} {wv.vector_size}\n")
            for word in words:
                handle.write(word + " " + " ".join(f"{x:.6f}" for x in wv[word]) + "\n")
        part = out.with_name(out.name + ".part")
        Pretrain(filename=str(part), vec_filename=str(vec)).load()
        part.replace(out)
    return len(words)


def build_vectors(args: argparse.Namespace) -> dict[str, Any]:
    """The ``vectors`` command: corpus, vectors, pretrain file and record."""
    ud_train = args.ud / "en_ewt-ud-train.conllu"
    ewt = read_ud_words(ud_train)
    extra = tokenize(read_extra_lines(args.shared))
    args.out.mkdir(parents=True, exist_ok=True)
    wv = train_vectors(ewt + extra, args.dim, args.epochs, args.seed)
    pretrain = args.out / "pretrain.pt"
    vocab = write_pretrain(wv, pretrain)
    record = {"pretrain": pretrain.name, "sha256": sha256(pretrain), "vocabulary": vocab, "dim": args.dim,
              "epochs": args.epochs, "seed": args.seed, "method": "gensim FastText skip-gram, lowercased",
              "ewt_train": {"file": ud_train.name, "sha256": sha256(ud_train), "sentences": len(ewt),
                            "words": sum(map(len, ewt))},
              "extra_text": {"files": [[rel, lic] for rel, _, lic in EXTRA_TEXT], "segments": len(extra),
                             "words": sum(map(len, extra))}}
    (args.out / "vectors.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def insert_zero_columns(weight: Any, at: int, count: int) -> Any:
    """``weight`` (out x in) with ``count`` zero input columns inserted before column ``at``."""
    import torch

    zeros = weight.new_zeros(weight.shape[0], count)
    return torch.cat([weight[:, :at], zeros, weight[:, at:]], dim=1)


def widen_tagger(tagger: Path, pretrain: Path, out: Path, seed: int) -> dict[str, Any]:
    """Write a copy of ``tagger`` that reads ``pretrain``'s vectors and predicts exactly as ``tagger`` does."""
    import torch
    from stanza.models.common.pretrain import Pretrain

    saved = torch.load(tagger, map_location="cpu", weights_only=False)
    config, state = dict(saved["config"]), dict(saved["model"])
    if config.get("pretrain"):
        raise SystemExit(f"{tagger}: already reads pretrained vectors")
    if config.get("bert_model") or config.get("charlm"):
        raise SystemExit(f"{tagger}: widening handles only word + character inputs")
    dim = Pretrain(str(pretrain)).emb.shape[1]
    width = int(config["transformed_dim"])
    at = int(config["word_emb_dim"])  # the pretrained block comes right after the word embedding
    generator = torch.Generator().manual_seed(seed)
    bound = 1.0 / dim ** 0.5  # nn.Linear's default initialisation range
    state["trans_pretrained.weight"] = (torch.rand(width, dim, generator=generator) * 2 - 1) * bound
    for name in FIRST_LAYER_INPUTS:
        state[name] = insert_zero_columns(state[name], at, width)
    old = state["drop_replacement"]  # what word dropout puts in a dropped word's place (training only)
    new = torch.randn(width, generator=generator) / (old.numel() + width) ** 0.5
    state["drop_replacement"] = torch.cat([old[:at], new, old[at:]])
    config.update(pretrain=True, wordvec_pretrain_file=pretrain.name)
    saved.update(config=config, model=state)
    saved.pop("long_training", None)
    saved["widened"] = {"from": tagger.name, "from_sha256": sha256(tagger), "pretrain_sha256": sha256(pretrain),
                        "transformed_dim": width, "seed": seed}
    part = out.with_name(out.name + ".part")
    torch.save(saved, part)
    part.replace(out)
    return dict(saved["widened"])


def tag_words(tagger: Path, pretrain: Path | None, sentences: Iterable[list[str]]) -> list[list[str]]:
    """UPOS of pretokenised sentences by a tagger file (for the widening check)."""
    import stanza

    kwargs = {"pos_pretrain_path": str(pretrain)} if pretrain else {}
    nlp = stanza.Pipeline("en", processors="tokenize,pos", dir=str(SHIPPED), download_method=None,
                          tokenize_pretokenized=True, tokenize_model_path=str(SHIPPED / "tokenize.pt"),
                          pos_model_path=str(tagger), logging_level="WARN", **kwargs)
    doc = nlp([list(s) for s in sentences])
    return [[w.upos for w in s.words] for s in doc.sentences]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    vec = sub.add_parser("vectors", help="train the vectors and write DIR/pretrain.pt and DIR/vectors.json")
    vec.add_argument("--out", type=Path, required=True)
    vec.add_argument("--ud", type=Path, default=SHARED / "ud" / "en_ewt")
    vec.add_argument("--shared", type=Path, default=SHARED)
    vec.add_argument("--dim", type=int, default=100)
    vec.add_argument("--epochs", type=int, default=20)
    vec.add_argument("--seed", type=int, default=1234)
    wide = sub.add_parser("widen", help="a copy of a tagger that also reads a pretrain file")
    wide.add_argument("--tagger", type=Path, default=SHIPPED / "pos.pt")
    wide.add_argument("--pretrain", type=Path, required=True)
    wide.add_argument("--out", type=Path, required=True)
    wide.add_argument("--seed", type=int, default=1234)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "vectors":
        print(json.dumps(build_vectors(args), indent=1))
    else:
        print(json.dumps(widen_tagger(args.tagger, args.pretrain, args.out, args.seed), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
