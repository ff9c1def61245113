"""Run the Meteor 1.4 jar with ``-l LANG`` (Asiya's invocation outside English) and save its scores as an oracle.

For every test set of :data:`SETS` and every reference set of it, the jar scores all the set's systems in one
run per variant, as ``../shared/oracles/wmt21-ruen/README.md`` section 4 describes for English
(``tools/reference_runs.run_meteor``: SGML with one document, ``-sgml -l LANG -m "<modules>"``, no ``-norm``),
and one xz-compressed TSV keeps what it printed:

    set  language  references  target  metric  segment  score

``language`` is the ISO code mteval's ``language:`` takes (the jar's ``-l`` code is in :data:`SETS`),
XX
``Double.toString`` as the jar wrote it. The jar is not part of this repository. Usage::

    python tools/meteor_language_oracle.py --jar /tmp/m14/meteor-1.4.jar --shared ../shared \
        --out tests/data/oracles/meteor-1.4-languages.tsv.xz
"""

from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_runs import run_meteor  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"METEOR-ex": "exact", "METEOR-st": "exact stem"}
COLUMNS = ("set", "language", "references", "target", "metric", "segment", "score")


class OracleSet(NamedTuple):
    """One test set: where (``{shared}`` or the repository), its language, systems, references, lines."""

    name: str
    folder: str
    language: str  # ISO 639-1, the file extension
    jar_code: str  # the jar's -l (Asiya's code)
    systems: tuple[str, ...]
    reference_sets: tuple[tuple[str, ...], ...]
    lines: int
    variants: tuple[str, ...]


SETS = (
    OracleSet("wmt21-ende-sample", "data/wmt21-ende-sample", "de", "de",
            ("Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "eTranslation"),
            (("A",), ("C",), ("D",), ("A", "C", "D")), 100, ("METEOR-ex", "METEOR-st")),
    OracleSet("wmt12-enfr", "{shared}/data/wmt12-enxx", "fr", "fr",
            ("LIMSI-Ncode-Constrained-Primary", "PROMT_DeepHybrid", "onlineB", "uedin-wmt12"),
            (("A",),), 300, ("METEOR-ex", "METEOR-st")),
    OracleSet("wmt12-enes", "{shared}/data/wmt12-enxx", "es", "es",
            ("PROMT_DeepHybrid", "UPC", "onlineB", "uedin-wmt12"), (("A",),), 300, ("METEOR-ex", "METEOR-st")),
    OracleSet("wmt12-encs", "{shared}/data/wmt12-enxx", "cs", "cz",
            ("CU_TectoMT", "cu-bojar_2012", "onlineB", "uedin-wmt12"), (("A",),), 300, ("METEOR-ex",)),
    OracleSet("wmt21-enru", "{shared}/data/wmt21-enru", "ru", "ru",
            ("Facebook-AI", "Nemo", "Online-B"), (("A",), ("B",), ("A", "B")), 300, ("METEOR-ex", "METEOR-st")),
)


def lines_of(path: Path, n: int) -> list[str]:
    """The first ``n`` lines of a text file as mteval's tests read them (split on ``\\n`` only)."""
    return path.read_text(encoding="utf-8").split("\n")[:n]


def folder_of(test_set: OracleSet, shared: Path) -> Path:
    """The test set's folder (``{shared}`` replaced)."""
    return Path(test_set.folder.format(shared=shared)) if "{shared}" in test_set.folder else ROOT / test_set.folder


def oracle_rows(jar: Path, test_set: OracleSet, shared: Path) -> list[tuple[str, ...]]:
    """The jar's system and segment scores of every system x reference set x variant of a test set."""
    folder, ext = folder_of(test_set, shared), test_set.language
    systems = {s: lines_of(folder / "sys" / f"{s}.{ext}", test_set.lines) for s in test_set.systems}
    rows: list[tuple[str, ...]] = []
    for refs in test_set.reference_sets:
        references = {r: lines_of(folder / "refs" / f"{r}.{ext}", test_set.lines) for r in refs}
        for variant in test_set.variants:
            segments, system = run_meteor(jar, systems, references, VARIANTS[variant], language=test_set.jar_code)
            for target in test_set.systems:
                head = (test_set.name, test_set.language, "+".join(refs), target, variant)
                rows.append((*head, "-", repr(system[target])))
                rows += [(*head, str(i), repr(segments[(target, i)])) for i in range(1, test_set.lines + 1)]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jar", type=Path, required=True, help="meteor-1.4.jar")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared data folder")
    parser.add_argument("--out", type=Path, required=True, help="the .tsv.xz to write")
    args = parser.parse_args(argv)
    rows = [row for test_set in SETS for row in oracle_rows(args.jar, test_set, args.shared)]
    text = "\t".join(COLUMNS) + "\n" + "".join("\t".join(row) + "\n" for row in rows)
    args.out.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"{args.out}: {len(rows)} rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
