"""Run NIST's mteval-v13a.pl (Asiya's copy) on a WMT21-style folder and save BLEU/NIST as an oracle.

Reproduces the procedure of ``../shared/oracles/wmt21-ruen/README.md`` section 1 (SGML layout with one
document, ``perl mteval-v13a.pl -c -d 2 --metricsMATR``, ``PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0``) for
lines 1..N of every system against references ``A``, ``B`` and ``A+B``, and writes one xz-compressed TSV:

    references  target  segment  BLEU  NIST  NISTi-1 .. NISTi-5  BLEUi-1 .. BLEUi-4

``segment`` is ``-`` for the system row; ``BLEU``/``NIST`` are the metricsMATR ``*-seg.scr`` /
``*-sys.scr`` numbers as Perl printed them (``%.15g``); the per-order individual scores are the 4-decimal
``-d 2`` report lines of the Asiya-modified script, kept for reference ``A`` segment rows only (``''``
elsewhere, to keep the file small).

The Perl script is not part of this repository: pass its path (``--script`` or ``$MTEVAL_V13A``).
Usage::

    python tools/mteval_v13a_oracle.py --data ../shared/data/wmt21-ruen --lines 1000 \
        --script /tmp/mteval-v13a.pl --out tests/data/oracles/mteval-v13a-wmt21ruen-1000.tsv.xz
"""

from __future__ import annotations

import argparse
import lzma
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

REFERENCE_SETS = (("A",), ("B",), ("A", "B"))
PER_ORDER_REFS = ("A",)
PER_ORDER = tuple(f"NISTi-{n}" for n in range(1, 6)) + tuple(f"BLEUi-{n}" for n in range(1, 5))
COLUMNS = ("references", "target", "segment", "BLEU", "NIST") + PER_ORDER
_INDIVIDUAL = re.compile(r'^  individual-(BLEU|NIST) score using [45]-grams = ([-0-9. ]+?) '
                         r'for system "([^"]+)" on segment (\d+) of document')
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _segments(lines: Sequence[str]) -> str:
    return "".join(f'<seg id="{i}">{line.translate(_ESCAPES)}</seg>\n' for i, line in enumerate(lines, 1))


def write_sgml(folder: Path, source: Sequence[str], refs: Mapping[str, Sequence[str]],
               systems: Mapping[str, Sequence[str]]) -> None:
    """``src.sgm``, ``ref.sgm`` and ``tst.sgm`` as the oracle README describes (one document each)."""
    (folder / "src.sgm").write_text(
        '<srcset setid="set1" srclang="ru">\n<doc docid="doc1" sysid="src">\n'
        + _segments(source) + "</doc>\n</srcset>\n", encoding="utf-8")
    docs = "".join(f'<doc docid="doc1" sysid="{name}" genre="news">\n{_segments(lines)}</doc>\n'
                   for name, lines in refs.items())
    (folder / "ref.sgm").write_text(f'<refset setid="set1" srclang="ru" trglang="en">\n{docs}</refset>\n',
                                    encoding="utf-8")
    docs = "".join(f'<doc docid="doc1" sysid="{name}">\n{_segments(lines)}</doc>\n'
                   for name, lines in systems.items())
    (folder / "tst.sgm").write_text(f'<tstset setid="set1" srclang="ru" trglang="en">\n{docs}</tstset>\n',
                                    encoding="utf-8")


def _read_scr(path: Path, level: str) -> dict[tuple[str, str], str]:
    """metricsMATR file -> {(system, segment or '-'): printed score}."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        segment = fields[3] if level == "seg" else "-"
        out[(fields[1], segment)] = fields[-1]
    return out


def _read_report(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """``-d 2`` report -> {(system, segment): {NISTi-n/BLEUi-n: 4-decimal text}}."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for line in text.splitlines():
        match = _INDIVIDUAL.match(line)
        if match:
            metric, values, system, segment = match.groups()
            row = out.setdefault((system, segment), {})
            row.update({f"{metric}i-{n}": v for n, v in enumerate(values.split(), 1)})
    return out


def run_mteval(script: Path, source: Sequence[str], refs: Mapping[str, Sequence[str]],
               systems: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """One mteval-v13a run (all systems, one reference set) -> oracle rows (without ``references``)."""
    env = dict(os.environ, PERL_HASH_SEED="0", PERL_PERTURB_KEYS="0")
    with tempfile.TemporaryDirectory(prefix="mteval-v13a-") as tmp:
        folder = Path(tmp)
        write_sgml(folder, source, refs, systems)
        report = subprocess.run(["perl", str(script), "-c", "-d", "2", "--metricsMATR", "-s", "src.sgm",
                                 "-r", "ref.sgm", "-t", "tst.sgm"], cwd=folder, env=env, check=True,
                                capture_output=True, text=True, encoding="utf-8").stdout
        scores = {metric: {**_read_scr(folder / f"{metric}-seg.scr", "seg"),
                           **_read_scr(folder / f"{metric}-sys.scr", "sys")} for metric in ("BLEU", "NIST")}
    per_order = _read_report(report)
    rows = []
    for system, segment in sorted(scores["BLEU"], key=lambda k: (k[0], k[1] != "-", int(k[1].strip("-") or 0))):
        extra = per_order.get((system, segment), {})
        rows.append({"target": system, "segment": segment, "BLEU": scores["BLEU"][(system, segment)],
                     "NIST": scores["NIST"][(system, segment)], **{k: extra.get(k, "") for k in PER_ORDER}})
    return rows


def _lines(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f][:n]


def build_oracle(script: Path, data: Path, n_lines: int) -> list[dict[str, str]]:
    """Rows for every system of ``data/sys`` against references A, B and A+B (lines 1..n_lines)."""
    systems = {p.stem: _lines(p, n_lines) for p in sorted((data / "sys").glob("*.en"))}
    refs = {name: _lines(data / "refs" / f"{name}.en", n_lines) for name in ("A", "B")}
    source = _lines(data / "src.ru", n_lines)
    rows = []
    for names in REFERENCE_SETS:
        for row in run_mteval(script, source, {n: refs[n] for n in names}, systems):
            if "+".join(names) not in PER_ORDER_REFS:
                row.update(dict.fromkeys(PER_ORDER, ""))
            rows.append({"references": "+".join(names), **row})
    return rows


def write_oracle(rows: Sequence[Mapping[str, str]], out: Path) -> None:
    """xz-compressed TSV with a header line; written to a temporary name, then renamed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    text = "\t".join(COLUMNS) + "\n" + "".join("\t".join(r[c] for c in COLUMNS) + "\n" for r in rows)
    partial.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    partial.replace(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", type=Path, default=os.environ.get("MTEVAL_V13A"))
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.script is None or not Path(args.script).is_file():
        print(f"mteval-v13a.pl not found: {args.script} (use --script or MTEVAL_V13A)", file=sys.stderr)
        return 2
    write_oracle(build_oracle(args.script, args.data, args.lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
