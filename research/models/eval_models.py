"""``make models-eval``: check and score the shipped English models the way their training log does.

0. The embedded model files are the ones ``PROVENANCE.json`` records (``research/models/ship_long.py verify``:
   SHA-256 of each, and the long training's selected models where its state is here).
1. UD English-EWT test from **raw text** through tokenize,mwt,pos,lemma,depparse (sentence
   splitting on, as in the log), scored with Stanza's copy of the CoNLL 2018 shared-task
   evaluation (``stanza.models.common.utils.ud_scores``): Tokens, Sentences, Words, UPOS, XPOS,
   Lemmas, UAS, LAS (F1). The raw text is rebuilt from the gold ``# text`` comments, paragraphs
   (``# newpar``/``# newdoc``) separated by blank lines. Then the same with one gold sentence per
   paragraph and ``tokenize_no_ssplit``: how mteval parses a segment (never split into sentences).
2. NER: entity-level precision/recall/F1 (exact span and type) of the NER recipe on held-out UNER
   documents (the fixed split of ``research/models/uner_split.py`` and 10-fold cross-validation), and a
   check that the recipe rebuilds the shipped ``ner.npz``.

Usage: python research/models/eval_models.py [SHARED_DIR] [--tokenize FILE] [--pos FILE] [--depparse FILE]
       [--parser-only]
(default ../shared and the shipped files; ``--tokenize``/``--pos``/``--depparse`` score other tokenizer/tagger/
parser files, e.g. ``build/models-long/*/best.pt``, in the same pipeline; ``--parser-only`` skips the NER part).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


def pipeline(processors: str, replace: dict[str, Path] | None = None, **options: object) -> object:
    """The embedded models as a ``stanza.Pipeline`` (offline), with ``replace`` files instead of some."""
    import stanza

    files = {p: MODELS / f"{p}.pt" for p in processors.split(",")} | (replace or {})
    paths = {f"{p}_model_path": str(path) for p, path in files.items()}
    return stanza.Pipeline(lang="en", processors=processors, dir=str(MODELS), download_method=None,
                           logging_level="ERROR", allow_unknown_language=True, **paths, **options)


def sentence_text(conllu: Path) -> str:
    """One gold sentence per paragraph: how mteval hands its segments to Stanza (one segment, one
    sentence, ``tokenize_no_ssplit``), so sentence boundaries are gold and tokenisation, tagging and
    parsing are scored as mteval's parses see them."""
    texts = [line[len("# text = "):] for line in conllu.read_text(encoding="utf-8").splitlines()
             if line.startswith("# text = ")]
    return "\n\n".join(texts) + "\n"


PARSER_SCORES = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas", "UAS", "LAS"]


def eval_parser(shared: Path, replace: dict[str, Path] | None = None) -> None:
    """Print the CoNLL 2018 scores of the whole pipeline on EWT test from raw text (sentence splitting
    on, the log's and issue 15's measure), then with one sentence per segment as mteval parses."""
    gold = shared / "ud" / "en_ewt" / "en_ewt-ud-test.conllu"
    processors = "tokenize,mwt,pos,lemma,depparse"
    runs = [("raw text, whole pipeline", raw_text(gold), {}),
            ("one sentence per segment (tokenize_no_ssplit, as mteval parses)", sentence_text(gold),
             {"tokenize_no_ssplit": True})]
    for label, text, options in runs:
        nlp = pipeline(processors, replace, tokenize_max_seqlen=1000, **options)
        scores, seconds = _scores(nlp, text, gold)
        print(f"UD English-EWT test, {label} ({seconds:.0f} s):")
        print("  " + "  ".join(f"{n} {100 * scores[n].f1:.2f}" for n in PARSER_SCORES))


def _scores(nlp: object, text: str, gold: Path) -> tuple[dict, float]:
    """``ud_scores`` of ``nlp(text)`` against ``gold``, and the seconds the pipeline took."""
    from stanza.models.common.utils import ud_scores
    from stanza.utils.conll import CoNLL

    start = time.perf_counter()
    doc = nlp(text)  # type: ignore[operator]
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        pred = Path(tmp) / "pred.conllu"
        CoNLL.write_doc2conll(doc, str(pred))
        return ud_scores(str(gold), str(pred)), seconds


def eval_ner(shared: Path) -> None:
    """Held-out entity P/R/F1 of the NER recipe, and a check that it rebuilds the shipped model.

    The shipped ``ner.npz`` is trained on every UNER document, so it is scored the way it was
    selected: trained with the same settings on the fixed split's train documents and scored on
    its test documents, and by 10-fold cross-validation by document (``research/models/train_ner.py``).
    """
    import numpy as np
    import train_ner
    from ner_gazetteer import build, fetch

    from mteval.annotate.entity_tagger import EntityTagger
    from mteval.annotate.entity_training import build_lexicon, train
    from mteval.annotate.model import parse_conllu

    shipped = EntityTagger.load(MODELS / "ner.npz")
    passes = int(shipped.meta["passes"])
    work = ROOT / "build" / "models" / "ner"
    work.mkdir(parents=True, exist_ok=True)
    docs = train_ner.load_documents(shared, work)
    lexicon = build_lexicon(parse_conllu((shared / "ud" / "en_ewt" / "en_ewt-ud-train.conllu").read_text("utf-8")))
    gazetteer = build(fetch(work))
    part = train_ner.fixed_split(docs)
    print(f"NER (UNER English-EWT, {len(docs)} documents, gold words, predicted tags and parse; {passes} passes):")
    train_ner.report("  fixed split, held-out test documents",
                     *train_ner.evaluate(part["train"], part["test"], lexicon, gazetteer, passes))
    train_ner.report("  10-fold cross-validation by document",
                     *train_ner.cross_validate(docs, lexicon, gazetteer, passes))
    rebuilt = train(train_ner.examples(docs), lexicon, epochs=passes, gazetteer=gazetteer)
    same = rebuilt.features == shipped.features and np.allclose(rebuilt.weights, shipped.weights, atol=1e-5)
    print(f"  the recipe rebuilds the shipped ner.npz: {'yes' if same else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    """Run both evaluations; skip with a message when ../shared is absent."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", nargs="?", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--tokenize", type=Path, help="score this tokenizer file instead of the shipped tokenize.pt")
    parser.add_argument("--pos", type=Path, help="score this tagger file instead of the shipped pos.pt")
    parser.add_argument("--depparse", type=Path, help="score this parser file instead of the shipped depparse.pt")
    parser.add_argument("--parser-only", action="store_true", help="skip the NER evaluation")
    args = parser.parse_args(argv)
    import ship_long

    problems = ship_long.verify(ship_long.WORK, MODELS)  # the shipped files are the recorded ones
    for problem in problems:
        print(f"models-eval: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"models-eval: the embedded model files are the ones {ship_long.PROVENANCE} records")
    if not (args.shared / "ud").is_dir():
        print(f"models-eval: scores skipped ({args.shared}/ud is absent)")
        return 0
    replace = {name: path for name, path in (("tokenize", args.tokenize), ("pos", args.pos),
                                                 ("depparse", args.depparse)) if path}
    for path in replace.values():
        if not path.is_file():
            parser.error(f"{path} does not exist")
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    eval_parser(args.shared, replace)
    if not args.parser_only:
        eval_ner(args.shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
