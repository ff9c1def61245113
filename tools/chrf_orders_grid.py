"""chrF's orders against sacreBLEU 2.6.0: every segment, document and system score of a grid of
``CHRF(char_order, word_order, beta, whitespace, eps_smoothing, lowercase)`` settings, compared as floats.

sacreBLEU's numbers are its public calls: ``sentence_score`` per segment, ``corpus_score`` of the
system's lines and of each document's lines; mteval's are ``chrF(...)`` names scored by the family
(the experiment's ``case: ci`` for ``lowercase``). Datasets: the bundled ``data/wmt21-ende-sample``
(German, references A, C, D; documents: blocks of 10 lines, the sample having no document ids) and
``../shared/data/wmt21-ruen`` (references A, B; WMT's documents), skipped when absent.

    python tools/chrf_orders_grid.py [--dataset ende|ruen|both] [--systems 2] [--lines 1000] [--full]

``--full``: every setting (beta 1, 2, 3 x whitespace x eps_smoothing x lowercase) for every order
pair; otherwise each order pair gets 6 of the 24 settings in turn (each setting 8 times or more).
Prints the max |diff|, the number of values compared and the number not equal.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side
from mteval.metrics.chrf import ChrF

ROOT = Path(__file__).resolve().parents[1]
ENDE = ROOT / "data" / "wmt21-ende-sample"
RUEN = ROOT.parent / "shared" / "data" / "wmt21-ruen"
Config = tuple[int, int, int, bool, bool, bool]  # char_order, word_order, beta, whitespace, eps, lowercase
SETTINGS = list(itertools.product((1, 2, 3), (False, True), (False, True), (False, True)))
ORDERS = [(c, w) for c in range(0, 9) for w in range(0, 4) if c + w]


def lines(path: Path, n: int | None = None) -> list[str]:
    """The lines of a UTF-8 file without their newline (the first ``n``)."""
    text = path.read_text(encoding="utf-8").split("\n")
    return (text[:-1] if text and text[-1] == "" else text)[:n]


def dataset(name: str, n_systems: int, n_lines: int) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """Systems, references and each line's document of a dataset."""
    if name == "ende":
        refs = {r: lines(ENDE / "refs" / f"{r}.de") for r in "ACD"}
        systems = {s: lines(ENDE / "sys" / f"{s}.de") for s in ("UEdin", "Online-W", "Facebook-AI")[:n_systems]}
        docs = [f"block{i // 10}" for i in range(len(refs["A"]))]
        return systems, refs, docs
    refs = {r: lines(RUEN / "refs" / f"{r}.en", n_lines) for r in "AB"}
    systems = {s: lines(RUEN / "sys" / f"{s}.en", n_lines) for s in ("AFRL", "Online-B", "NiuTrans")[:n_systems]}
    docs = [row.split("\t")[1] for row in lines(RUEN / "docids.tsv")[1:]][:n_lines]
    return systems, refs, docs


def configs(full: bool) -> Iterator[Config]:
    """The grid: every order pair with all 24 settings (``full``) or 6 of them in turn."""
    for k, (c, w) in enumerate(ORDERS):
        chosen = SETTINGS if full else [SETTINGS[(6 * k + j) % len(SETTINGS)] for j in range(6)]
        for beta, space, eps, lc in chosen:
            yield c, w, beta, space, eps, lc


def name_of(config: Config) -> str:
    """mteval's canonical name of a setting (lowercase aside: the experiment's case)."""
    c, w, beta, space, eps, _ = config
    yes = {True: "yes", False: "no"}
    return registry.canonical(f"chrF(char_order={c},word_order={w},beta={beta},whitespace={yes[space]},"
                              f"eps_smoothing={yes[eps]})")


def sacrebleu_scores(config: Config, hyps: list[str], refs: list[list[str]], docs: DocumentIndex) -> np.ndarray:
    """sacreBLEU's system score, document scores (in ``docs`` order) and segment scores, in one array."""
    from sacrebleu.metrics import CHRF

    c, w, beta, space, eps, lc = config
    metric = CHRF(char_order=c, word_order=w, beta=beta, whitespace=space, eps_smoothing=eps, lowercase=lc)
    out = [metric.corpus_score(hyps, refs).score]
    for doc in docs.documents:
        rows = docs.rows(doc)
        out.append(metric.corpus_score([hyps[i] for i in rows], [[r[i] for i in rows] for r in refs]).score)
    out += [metric.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyps)]
    return np.array(out)


def ours(grid: list[Config], hyp: list[str], refs: dict[str, list[str]],
         docs: DocumentIndex) -> dict[Config, np.ndarray]:
    """mteval's scores of every setting, laid out as :func:`sacrebleu_scores`' (one family call per case)."""
    out = {}
    for lc in (False, True):
        chosen = {name_of(cfg): cfg for cfg in grid if cfg[5] == lc}
        family = ChrF(case_sensitive=not lc)
        prepared = family.prepare([Side(k, v) for k, v in refs.items()])
        for name, scores in family.score(Side("h", hyp), prepared, docs, list(chosen)).items():
            out[chosen[name]] = np.array([scores.system, *(scores.documents[d] for d in docs.documents),
                                          *scores.segments])
    return out


def run(name: str, args: argparse.Namespace) -> tuple[float, int, int]:
    """Max |diff|, values compared and values not equal on one dataset."""
    systems, refs, doc_of = dataset(name, args.systems, args.lines)
    docs = DocumentIndex(tuple(doc_of))
    grid = list(configs(args.full or name == "ende"))
    worst, count, unequal = 0.0, 0, 0
    for refset in ([list(refs)[0]], list(refs)):
        chosen = {r: refs[r] for r in refset}
        for system, hyp in systems.items():
            mine, start = ours(grid, hyp, chosen, docs), time.time()
            for cfg in grid:
                theirs = sacrebleu_scores(cfg, hyp, list(chosen.values()), docs)
                diff = np.abs(mine[cfg] - theirs)
                worst, count = max(worst, float(diff.max())), count + len(diff)
                unequal += int((diff > 0).sum())
            print(f"{name} {system} refs {'+'.join(refset)}: {len(grid)} settings, {time.time() - start:.0f} s, "
                  f"max |diff| so far {worst:.1e}", flush=True)
    return worst, count, unequal


def main() -> int:
    """Run the grid on the datasets asked for and print the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("ende", "ruen", "both"), default="both")
    parser.add_argument("--systems", type=int, default=2)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--full", action="store_true", help="every setting for every order pair on ru-en too")
    args = parser.parse_args()
    for name in ("ende", "ruen") if args.dataset == "both" else (args.dataset,):
        if name == "ruen" and not RUEN.exists():
            print(f"ruen: skipped, {RUEN} is absent")
            continue
        worst, count, unequal = run(name, args)
        print(f"{name}: max |diff| {worst:.1e} over {count} values ({unequal} not equal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
