"""Rebuild the mt-metrics-eval layout fixture from the bundled samples in ``data/`` (run from the
project root). Only the first segments are kept; see README.md beside this file."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "data"
OUT = Path(__file__).resolve().parent / "wmt21.news"
NO_SCORE = "None"


def lines(path: Path, n: int) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:n]


def write(path: Path, rows: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")


def human(path: Path, n: int) -> dict[str, dict[int, float]]:
    """``system segment score`` rows of a sample's human TSV, segments 1..n."""
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for row in path.read_text(encoding="utf-8").splitlines()[1:]:
        system, segment, score = row.split("\t")
        if int(segment) <= n:
            scores[system][int(segment)] = float(score)
    return scores


def scores_files(lp: str, name: str, systems: list[str], scores: dict[str, dict[int, float]], n: int) -> None:
    """Segment-level blocks (None where unjudged) and system-level means over the kept segments."""
    seg = [f"{s}\t{scores[s].get(i, NO_SCORE)}" for s in systems for i in range(1, n + 1)]
    write(OUT / "human-scores" / f"{lp}.{name}.seg.score", seg)
    sys = [f"{s}\t{sum(scores[s].values()) / len(scores[s])!r}" for s in systems if scores[s]]
    write(OUT / "human-scores" / f"{lp}.{name}.sys.score", sys)


def pair(lp: str, sample: Path, src: str, tgt: str, refs: dict[str, str], n: int, human_refs: list[str],
         judgements: str, name: str) -> None:
    write(OUT / "sources" / f"{lp}.txt", lines(sample / f"src.{src}", n))
    for ref, file in refs.items():
        text = lines(sample / "refs" / f"{file}.{tgt}", n)
        write(OUT / "references" / f"{lp}.{ref}.txt", text)
        if ref in human_refs:  # mt-metrics-eval copies scored references into system-outputs
            write(OUT / "system-outputs" / lp / f"{ref}.txt", text)
    systems = sorted(p.stem for p in (sample / "sys").glob(f"*.{tgt}"))
    for system in systems:
        write(OUT / "system-outputs" / lp / f"{system}.txt", lines(sample / "sys" / f"{system}.{tgt}", n))
    scores_files(lp, name, systems, human(sample / "human" / judgements, n), n)


def main() -> None:
    pair("ru-en", DATA / "wmt21-ruen-sample", "ru", "en", {"refA": "A", "refB": "B"}, 16, ["refB"],
         "da.tsv", "wmt-z")
    docids = [row.split("\t")[1] for row in lines(DATA / "wmt21-ruen-sample" / "docids.tsv", 17)[1:]]
    write(OUT / "documents" / "ru-en.docs", [f"news\t{d}" for d in docids])
    pair("en-de", DATA / "wmt21-ende-sample", "en", "de", {"refA": "A", "refC": "C", "refD": "D"}, 8,
         ["refA", "refD"], "mqm.tsv", "mqm")


if __name__ == "__main__":
    main()
