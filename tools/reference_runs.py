"""Run the reference implementations of ROUGE, METEOR, WER and PER as Asiya runs them, for live parity checks.

The procedures are those of ``../shared/oracles/wmt21-ruen/README.md`` (sections 3-5); the tools are not
part of this repository (ROUGE-1.5.5.pl with its ``data`` folder, the Meteor 1.4 jar and Meteor's English
``paraphrase-en.gz``, Asiya's WER.pl / PER.pl: see ``tests/data/oracles/README.md``). Used by
``tests/test_parity_full_lines.py`` when environment variables name the tools.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

EMPTY_ITEM = "***EMPTY***"
ROUGE_FLAGS = ("-z", "SPL", "-2", "-1", "-U", "-r", "1000", "-n", "4", "-w", "1.2", "-c", "95", "-d", "-m")
_ROUGE_SEG = re.compile(r"X (ROUGE-\S+) Eval (\d+)\.X R:\S+ P:\S+ F:(\S+)")
_ROUGE_SYS = re.compile(r"X (ROUGE-\S+) Average_F: (\S+)")
_XML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"})
SegmentScores = dict[tuple[str, int], float]


def run_rouge(script: Path, hypothesis: Sequence[str], references: Sequence[Sequence[str]]
              ) -> tuple[SegmentScores, dict[str, float]]:
    """ROUGE-1.5.5.pl with Asiya's flags (one evaluation per segment): ({(metric, i): F}, {metric: Average_F})."""
    def clean(line: str) -> str:
        line = line.strip()
        return EMPTY_ITEM if line in ("", "?", "!", ".") else line

    with tempfile.TemporaryDirectory(prefix="rouge-") as tmp:
        folder, config = Path(tmp), []
        for i, hyp in enumerate(hypothesis, 1):
            (folder / f"sys.{i}").write_text(clean(hyp) + "\n", encoding="utf-8")
            names = [folder / f"sys.{i}"]
            for k, ref in enumerate(references):
                names.append(folder / f"ref{k}.{i}")
                names[-1].write_text(clean(ref[i - 1]) + "\n", encoding="utf-8")
            config.append(" ".join(str(n) for n in names))
        (folder / "config").write_text("\n".join(config) + "\n", encoding="utf-8")
        report = subprocess.run(["perl", str(script), "-e", str(script.parent / "data"), *ROUGE_FLAGS,
                                 str(folder / "config")], capture_output=True, text=True, check=True).stdout
    segments = {(m[1], int(m[2])): float(m[3]) for m in _ROUGE_SEG.finditer(report)}
    return segments, {m[1]: float(m[2]) for m in _ROUGE_SYS.finditer(report)}


def _meteor_sgml(kind: str, sets: Mapping[str, Sequence[str]], target: str = "en") -> str:
    """Asiya's ``NISTXML::f_create_mteval_doc`` layout: one set and one document per system/reference."""
    label = "sysid" if kind == "tstset" else "refid"
    source = "ru" if target == "en" else "en"
    parts = ["<mteval>\n"]
    for name, lines in sets.items():
        extra = f' sysid="{name}"' if kind == "refset" else ""
        parts.append(f'<{kind} setid="set1" srclang="{source}" trglang="{target}" {label}="{name}">\n'
                     f'<doc docid="doc1" {label}="{name}"{extra}>\n')
        parts += [f'<seg id="{i}">{(line.rstrip() or EMPTY_ITEM).translate(_XML)}</seg>\n'
                  for i, line in enumerate(lines, 1)]
        parts.append(f"</doc>\n</{kind}>\n")
    return "".join(parts) + "</mteval>\n"


def run_meteor(jar: Path, systems: Mapping[str, Sequence[str]], references: Mapping[str, Sequence[str]],
               modules: str, paraphrase: Path | None = None, language: str = "en"
               ) -> tuple[SegmentScores, dict[str, float]]:
    """Meteor ``-sgml -l LANGUAGE -m MODULES [-a TABLE]`` (``language``: the jar's code, ``cz`` for
    Czech): ({(system, i): score}, {system: score})."""
    with tempfile.TemporaryDirectory(prefix="meteor-") as tmp:
        folder = Path(tmp)
        (folder / "tst.sgm").write_text(_meteor_sgml("tstset", systems, language), encoding="utf-8")
        (folder / "ref.sgm").write_text(_meteor_sgml("refset", references, language), encoding="utf-8")
        command = ["java", "-Dfile.encoding=UTF-8", "-Xms1024M", "-Xmx2048M", "-jar", str(jar), "tst.sgm",
                   "ref.sgm", "-sgml", "-f", "out", "-l", language, "-m", modules]
        if paraphrase is not None:
            command += ["-a", str(paraphrase)]
        subprocess.run(command, cwd=folder, capture_output=True, check=True)
        segments = {(f[1], int(f[3])): float(f[4]) for f in _fields(folder / "out-seg.scr")}
        system = {f[1]: float(f[2]) for f in _fields(folder / "out-sys.scr")}
    return segments, system


def _fields(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]


def run_error_rate(script: Path, hypothesis: Sequence[str], reference: Sequence[str]) -> tuple[float, list[float]]:
    """Asiya's WER.pl or PER.pl ``-s`` on one reference (input as ``WER_f_create_doc``): (system, segments)."""
    def prepare(lines: Sequence[str]) -> str:
        return "".join(line.replace("\r", "", 1).rstrip(" ") + "\n" for line in lines)

    with tempfile.TemporaryDirectory(prefix="wer-per-") as tmp:
        hyp, ref = Path(tmp) / "sys.txt", Path(tmp) / "ref.txt"
        hyp.write_text(prepare(hypothesis), encoding="utf-8")
        ref.write_text(prepare(reference), encoding="utf-8")
        out = subprocess.run(["perl", str(script), "-s", "-t", str(hyp), "-r", str(ref)],
                             capture_output=True, text=True, check=True).stdout.split("\n")
    segments = [float(line.split()[2]) for line in out if line.startswith("LINE ")]
    return float(next(line for line in out if line and not line.startswith("LINE "))), segments
