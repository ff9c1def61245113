"""``make models-eval``: score the shipped English models the way their model card does.

1. UD English-EWT test from **raw text** through tokenize,mwt,pos,lemma,depparse (sentence
   splitting on, as in the card), scored with Stanza's copy of the CoNLL 2018 shared-task
   evaluation (``stanza.models.common.utils.ud_scores``): Tokens, Sentences, Words, UPOS, XPOS,
   Lemmas, UAS, LAS (F1). The raw text is rebuilt from the gold ``# text`` comments, paragraphs
   (``# newpar``/``# newdoc``) separated by blank lines.
2. NER: the held-out UNER documents (``models/uner_split.py`` test part) tagged from gold tokens,
   entity-level precision/recall/F1 (Stanza's ``score_by_entity``, exact span and type).

Usage: python models/eval_models.py [SHARED_DIR]   (default ../shared)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "mteval" / "resources" / "models" / "en_ewt"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def raw_text(conllu: Path) -> str:
    """The raw text of a CoNLL-U file: sentence texts, blank lines between paragraphs."""
    paragraphs: list[list[str]] = []
    for line in conllu.read_text(encoding="utf-8").splitlines():
        if line.startswith(("# newpar", "# newdoc")) or not paragraphs:
            if not paragraphs or paragraphs[-1]:
                paragraphs.append([])
        if line.startswith("# text = "):
            paragraphs[-1].append(line[len("# text = "):])
    return "\n\n".join(" ".join(p) for p in paragraphs if p) + "\n"


def pipeline(processors: str, **options: object) -> object:
    """The embedded models as a ``stanza.Pipeline`` (offline)."""
    import stanza

    paths = {f"{p}_model_path": str(MODELS / f"{p}.pt") for p in processors.split(",")}
    return stanza.Pipeline(lang="en", processors=processors, dir=str(MODELS), download_method=None,
                           logging_level="ERROR", allow_unknown_language=True, **paths, **options)


def eval_parser(shared: Path) -> None:
    """Print the CoNLL 2018 scores of the whole pipeline on EWT test from raw text."""
    from stanza.models.common.utils import ud_scores
    from stanza.utils.conll import CoNLL

    gold = shared / "ud" / "en_ewt" / "en_ewt-ud-test.conllu"
    nlp = pipeline("tokenize,mwt,pos,lemma,depparse", tokenize_max_seqlen=1000)
    start = time.perf_counter()
    doc = nlp(raw_text(gold))  # type: ignore[operator]
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        pred = Path(tmp) / "pred.conllu"
        CoNLL.write_doc2conll(doc, str(pred))
        scores = ud_scores(str(gold), str(pred))
    names = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas", "UAS", "LAS"]
    print(f"UD English-EWT test, raw text, whole pipeline ({seconds:.0f} s):")
    print("  " + "  ".join(f"{n} {100 * scores[n].f1:.2f}" for n in names))


def eval_ner(shared: Path) -> None:
    """Print entity-level P/R/F1 of the NER model on the held-out UNER documents."""
    if not (MODELS / "ner.pt").is_file():
        print("NER: no ner.pt shipped; skipped")
        return
    from stanza.models.ner.scorer import score_by_entity
    from uner_split import split_documents

    test = split_documents(shared / "ud" / "uner_en_ewt")["test"]
    nlp = pipeline("tokenize,ner", tokenize_pretokenized=True)
    doc = nlp([[w for w, _ in s] for s in test])  # type: ignore[operator]
    pred = [[t.ner for t in s.tokens] for s in doc.sentences]
    gold = [[tag for _, tag in s] for s in test]
    p, r, f, per_type = score_by_entity(pred, gold, verbose=False)
    n = sum(tag.startswith("B-") for s in gold for tag in s)
    print(f"NER (held-out UNER EWT documents: {len(test)} sentences, {n} entities, gold tokens):")
    print(f"  P {100 * p:.2f}  R {100 * r:.2f}  F1 {100 * f:.2f}  (F1 per type: "
          + ", ".join(f"{t} {100 * v:.2f}" for t, v in sorted(per_type.items())) + ")")


def main(argv: list[str]) -> int:
    """Run both evaluations; skip with a message when ../shared is absent."""
    shared = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared"
    if not (shared / "ud").is_dir():
        print(f"models-eval: skipped ({shared}/ud is absent)")
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    eval_parser(shared)
    eval_ner(shared)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
