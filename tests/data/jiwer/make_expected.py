"""Write ``expected.tsv``: jiwer's measures on bundled sample texts (run with jiwer installed).

    python tests/data/jiwer/make_expected.py

Per (system, reference) pair of ``data/``: every segment's ``jiwer.process_words(ref, hyp)``
``wer``, ``mer``, ``wil``, ``wip`` and ``jiwer.cer(ref, hyp)``, then the pair's pooled values
(segment ``-``: ``jiwer.process_words(refs, hyps)`` of the lists), printed with ``repr`` (exact).
"""

from __future__ import annotations

import csv
import sys
from importlib.metadata import version
from pathlib import Path

import jiwer

ROOT = Path(__file__).resolve().parents[3]
PAIRS = (("wmt21-ruen-sample", "AFRL.en", "A.en"), ("wmt21-ruen-sample", "Online-Y.en", "B.en"),
         ("wmt21-ende-sample", "UEdin.de", "C.de"))
COLUMNS = ("sample", "system", "reference", "segment", "wer", "mer", "wil", "wip", "cer")


def lines(path: Path) -> list[str]:
    """One segment a line."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def rows() -> list[list[str]]:
    """The table's rows (without the header)."""
    out = []
    for sample, system, reference in PAIRS:
        hyps = lines(ROOT / "data" / sample / "sys" / system)
        refs = lines(ROOT / "data" / sample / "refs" / reference)
        pairs = [(str(k), [r], [h]) for k, (r, h) in enumerate(zip(refs, hyps, strict=True), start=1)]
        for segment, r, h in [*pairs, ("-", refs, hyps)]:
            words = jiwer.process_words(r, h)
            values = (words.wer, words.mer, words.wil, words.wip, jiwer.cer(r, h))
            out.append([sample, system, reference, segment, *(repr(float(v)) for v in values)])
    return out


if __name__ == "__main__":
    with open(Path(__file__).with_name("expected.tsv"), "w", encoding="utf-8", newline="") as f:
        f.write(f"# jiwer {version('jiwer')} (default transforms) on data/ samples; made by make_expected.py\n")
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows())
    sys.exit(0)
