"""Write ``expected.tsv`` and ``porter_nltk.tsv`` (run with rouge-score and NLTK installed).

    python tests/data/rouge_score/make_expected.py

``expected.tsv``: per (system, references, use_stemmer) of ``data/``'s samples, the first
``LINES`` segments' ``RougeScorer(TYPES, use_stemmer=...)`` scores (``score_multi`` with two
references) -- F of every type, P and R of rouge2 and rougeL -- and their mean (segment ``-``: the
F's mean, what rouge-score users report), printed with ``repr`` (exact). ``porter_nltk.tsv``:
``nltk.stem.porter.PorterStemmer().stem(word)`` of Porter's (1980) examples, NLTK's irregular
forms and every distinct token of the samples' English texts longer than 3 characters.
"""

from __future__ import annotations

import csv
import re
from importlib.metadata import version
from pathlib import Path

import numpy as np
from nltk.stem.porter import PorterStemmer
from rouge_score import rouge_scorer

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
LINES = 40
TYPES = ("rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum")
PAIRS = (("wmt21-ruen-sample", "AFRL.en", ("A.en",)), ("wmt21-ruen-sample", "Online-Y.en", ("A.en", "B.en")),
         ("wmt21-ende-sample", "UEdin.de", ("C.de",)))
PORTER_EXAMPLES = (
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized "
    "hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci "
    "hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication "
    "operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate "
    "formative formalize electriciti electrical hopeful goodness revival allowance inference airliner "
    "gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism "
    "activate angulariti homologous effective bowdlerize probate rate cease controll roll generalizations "
    "oscillators dying lying tying skies news innings outings cannings howe proceed exceed succeed "
    "friends meeting enjoy spied flies yyyy").split()


def lines(path: Path) -> list[str]:
    """One segment a line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def rouge_rows() -> list[list[str]]:
    """Rows of ``expected.tsv`` (without the header)."""
    out = []
    for sample, system, references in PAIRS:
        hyps = lines(ROOT / "data" / sample / "sys" / system)[:LINES]
        refs = [lines(ROOT / "data" / sample / "refs" / r)[:LINES] for r in references]
        for stem in (False, True):
            scorer = rouge_scorer.RougeScorer(list(TYPES), use_stemmer=stem)
            found = [scorer.score_multi([r[k] for r in refs], h) for k, h in enumerate(hyps)]
            head = [sample, system, "+".join(references), "yes" if stem else "no"]
            for k, score in enumerate(found, start=1):
                values = [score[t].fmeasure for t in TYPES]
                values += [score[t].precision for t in ("rouge2", "rougeL")]
                values += [score[t].recall for t in ("rouge2", "rougeL")]
                out.append([*head, str(k), *(repr(float(v)) for v in values)])
            means = [np.mean([s[t].fmeasure for s in found]) for t in TYPES]
            out.append([*head, "-", *(repr(float(v)) for v in means), *[""] * 4])
    return out


def porter_rows() -> list[list[str]]:
    """Rows of ``porter_nltk.tsv``: word, NLTK's stem."""
    words = dict.fromkeys(PORTER_EXAMPLES)
    for path in sorted((ROOT / "data").glob("*/*/*.en")) + sorted((ROOT / "data").glob("*/*.en")):
        words.update(dict.fromkeys(w for w in re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8").lower())
                                   if len(w) > 3))
    stemmer = PorterStemmer()
    return [[w, stemmer.stem(w)] for w in words]


def write(name: str, comment: str, header: list[str], rows: list[list[str]]) -> None:
    with open(HERE / name, "w", encoding="utf-8", newline="") as f:
        f.write(f"# {comment}; made by make_expected.py\n")
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    header = ["sample", "system", "references", "stem", "segment", *(f"{t}.f" for t in TYPES),
              "rouge2.p", "rougeL.p", "rouge2.r", "rougeL.r"]
    write("expected.tsv", f"rouge-score {version('rouge-score')} (nltk {version('nltk')}) on data/ samples",
          header, rouge_rows())
    write("porter_nltk.tsv", f"nltk {version('nltk')} PorterStemmer() (NLTK_EXTENSIONS)", ["word", "stem"],
          porter_rows())
