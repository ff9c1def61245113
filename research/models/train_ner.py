"""Train the embedded English NER model (``ner.npz``) on Universal NER English-EWT and report it.

Universal NER (Mayhew et al. 2024) annotates the EWT dev and test sentences (PER, LOC, ORG; the
train file is not available offline). Every sentence is first annotated with the embedded
pipeline from its gold words (``tokenize_pretokenized``: UPOS, XPOS, lemma, parse), exactly the
information the tagger sees at run time; the lexicon comes from EWT train (gold), which shares no
sentence with UNER's. Three measurements, all by *document*:

1. the fixed split of ``research/models/uner_split.py`` (train / dev / test = documents i % 10 not in
   {0, 5} / == 5 / == 0): passes chosen on dev, F1 on test - the split the earlier Stanza NER
   model was trained and scored on, so the two compare directly;
2. 10-fold cross-validation (fold = document i % 10), entity counts pooled over the folds;
3. the shipped model: trained on every document with the chosen number of passes.

Usage: python research/models/train_ner.py SHARED_DIR WORK_DIR OUT_FILE
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # the repository root (mteval)

import ner_gazetteer  # noqa: E402
from uner_split import part_of, read_documents  # noqa: E402

from mteval.annotate.entity_tagger import Gazetteer, Lexicon  # noqa: E402
from mteval.annotate.entity_training import Example, build_lexicon, score_entities, train  # noqa: E402
from mteval.annotate.model import Sentence, parse_conllu, to_conllu  # noqa: E402

MODELS = HERE.parents[1] / "mteval" / "resources" / "models" / "en_ewt"
PASSES = (4, 6, 8, 10, 12, 15, 20)
Document = list[tuple[Sentence, list[str]]]


def models_digest(models: Path) -> str:
    """SHA-256 prefix of the pipeline's model files (names the parse cache)."""
    h = hashlib.sha256()
    for name in ("tokenize", "pos", "lemma", "depparse"):
        h.update((models / f"{name}.pt").read_bytes())
    return h.hexdigest()[:12]


def parse_words(sentences: list[list[str]], cache: Path, models: Path = MODELS) -> list[Sentence]:
    """Annotate pre-split sentences with the pipeline in ``models`` (cached in ``cache``)."""
    if cache.is_file():
        parsed = parse_conllu(cache.read_text(encoding="utf-8"), str(cache))
        if [[w.form for w in s.words] for s in parsed] == sentences:
            return parsed
    import stanza

    from mteval.annotate.convert import words_of

    procs = "tokenize,pos,lemma,depparse"
    paths = {f"{p}_model_path": str(models / f"{p}.pt") for p in procs.split(",")}
    nlp = stanza.Pipeline(lang="en", processors=procs, dir=str(models), download_method=None, logging_level="ERROR",
                          allow_unknown_language=True, tokenize_pretokenized=True, **paths)
    doc = nlp(sentences)
    parsed = [Sentence(tuple(words_of([s])), " ".join(w)) for s, w in zip(doc.sentences, sentences, strict=True)]
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(to_conllu(parsed), encoding="utf-8")
    tmp.replace(cache)
    return parsed


def load_documents(shared: Path, work: Path, models: Path = MODELS) -> list[Document]:
    """UNER documents (dev file, then test file) of (parsed sentence, gold BIO tags), annotated by
    the pipeline in ``models``."""
    raw = [d for name in ("en_ewt-ud-dev.iob2", "en_ewt-ud-test.iob2")
           for d in read_documents(shared / "ud" / "uner_en_ewt" / name)]
    flat = [s for d in raw for s in d]
    cache = work / f"uner_parsed-{models_digest(models)}.conllu"
    parsed = iter(parse_words([[w for w, _ in s] for s in flat], cache, models))
    return [[(next(parsed), [t for _, t in s]) for s in d] for d in raw]


def fixed_split(docs: list[Document]) -> dict[str, list[Document]]:
    """The documents of each part of the fixed split (``uner_split.part_of``)."""
    return {k: [d for i, d in enumerate(docs) if part_of(i) == k] for k in ("train", "dev", "test")}


def examples(docs: list[Document]) -> list[Example]:
    return [(s.words, tags) for d in docs for s, tags in d]


def evaluate(train_docs: list[Document], test_docs: list[Document], lexicon: Lexicon, gazetteer: Gazetteer,
             passes: int) -> tuple[list[list[str]], list[list[str]]]:
    """Train on ``train_docs``; (gold, predicted) tag sequences of ``test_docs``."""
    tagger = train(examples(train_docs), lexicon, epochs=passes, gazetteer=gazetteer)
    gold = [tags for d in test_docs for _, tags in d]
    pred = [tagger.tag_words(s.words) for d in test_docs for s, _ in d]
    return gold, pred


def cross_validate(docs: list[Document], lexicon: Lexicon, gazetteer: Gazetteer, passes: int,
                   folds: int = 10) -> tuple[list[list[str]], list[list[str]]]:
    """Pooled (gold, predicted) tags of a ``folds``-fold cross-validation by document."""
    gold: list[list[str]] = []
    pred: list[list[str]] = []
    for fold in range(folds):
        held = [d for i, d in enumerate(docs) if i % folds == fold]
        g, p = evaluate([d for i, d in enumerate(docs) if i % folds != fold], held, lexicon, gazetteer, passes)
        gold += g
        pred += p
    return gold, pred


def report(name: str, gold: list[list[str]], pred: list[list[str]]) -> dict[str, object]:
    sc = score_entities(pred, gold)
    p, r, f = sc.prf(sc.correct, sc.predicted, sc.gold)
    types = {t: round(100 * sc.prf(*c)[2], 2) for t, c in sc.per_type.items()}
    print(f"{name}: {sc.gold} entities  P {100 * p:.2f}  R {100 * r:.2f}  F1 {100 * f:.2f}  {types}", flush=True)
    return {"entities": sc.gold, "P": round(100 * p, 2), "R": round(100 * r, 2), "F1": round(100 * f, 2), **types}


def main(argv: list[str]) -> int:
    shared, work, out = Path(argv[1]), Path(argv[2]), Path(argv[3])
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    docs = load_documents(shared, work, out.parent if (out.parent / "depparse.pt").is_file() else MODELS)
    ewt = (shared / "ud" / "en_ewt" / "en_ewt-ud-train.conllu").read_text(encoding="utf-8")
    lexicon = build_lexicon(parse_conllu(ewt))
    gazetteer = ner_gazetteer.build(ner_gazetteer.fetch(work))
    part = fixed_split(docs)
    results: dict[str, object] = {"documents": len(docs), "sentences": sum(map(len, docs))}
    dev_f1 = {n: report(f"fixed split, dev, {n} passes",
                        *evaluate(part["train"], part["dev"], lexicon, gazetteer, n))["F1"] for n in PASSES}
    best = max(PASSES, key=lambda n: (dev_f1[n], -n))
    results["passes"] = best
    results["fixed_test"] = report(f"fixed split, test, {best} passes",
                                   *evaluate(part["train"], part["test"], lexicon, gazetteer, best))
    results["cv10"] = report(f"10-fold CV by document, {best} passes",
                             *cross_validate(docs, lexicon, gazetteer, best))
    tagger = train(examples(docs), lexicon, epochs=best, gazetteer=gazetteer)
    tagger.meta = {"trained_on": "UNER English-EWT dev+test, all documents", "passes": best,
                   "gazetteer": list(ner_gazetteer.SOURCES), "lexicon": "UD English-EWT train",
                   "fixed_split_test": results["fixed_test"], "cv10": results["cv10"]}
    with tempfile.NamedTemporaryFile(dir=out.parent, suffix=".npz", delete=False) as fh:
        tmp = Path(fh.name)
    tagger.save(tmp)
    tmp.chmod(0o644)  # NamedTemporaryFile makes it private
    os.replace(tmp, out)
    results.update(features=len(tagger.features), bytes=out.stat().st_size, seconds=round(time.perf_counter() - start))
    (work / "ner_report.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
