"""Rebuild the bundled samples from ../shared/data (run from the project root; needs ../shared).

wmt21-ende-sample: the first 100 MQM-rated lines of WMT21 en-de newstest (3 German references
A, C, D; 6 systems; MQM averages). wmt21-ruen-sample: the first whole documents (>= 100 lines) of
WMT21 ru-en newstest (2 English references; 5 systems; DA judgements by line), also as NIST SGML.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from xml.sax.saxutils import escape

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parent


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def write(path: Path, rows: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")


def ende() -> None:
    src = SHARED / "wmt21-ende"
    mqm: dict[int, dict[str, float]] = defaultdict(dict)
    for row in lines(src / "human" / "mqm_newstest2021_ende.avg_seg_scores.tsv")[1:]:
        system, score, seg = row.split()
        if score != "None":
            mqm[int(seg)][system] = float(score)
    systems = {"Facebook-AI": "Facebook-AI", "HuaweiTSC": "HuaweiTSC", "Online-W": "Online-W",
               "UEdin": "UEdin", "eTranslation": "eTranslation", "NVIDIA-NeMo": "Nemo"}
    keep = [k for k in sorted(mqm) if all(v in mqm[k] for v in systems.values())][:100]
    out = OUT / "wmt21-ende-sample"
    pick = lambda p: [lines(p)[k - 1] for k in keep]  # noqa: E731
    write(out / "src.en", pick(src / "src.en"))
    for ref in ("A", "C", "D"):
        write(out / "refs" / f"{ref}.de", pick(src / "refs" / f"{ref}.de"))
    for name in systems:
        write(out / "sys" / f"{name}.de", pick(src / "sys" / f"{name}.de"))
    human = ["system\tsegment\tscore"]
    human += [f"{name}\t{i}\t{mqm[k][mqm_name]}" for name, mqm_name in systems.items()
              for i, k in enumerate(keep, start=1)]
    write(out / "human" / "mqm.tsv", human)
    write(out / "lines.txt", [str(k) for k in keep])


def ruen() -> None:
    src = SHARED / "wmt21-ruen"
    docs = [r.split("\t") for r in lines(src / "docids.tsv")[1:]]
    n, last = 0, None
    for i, row in enumerate(docs):
        if n >= 100 and row[1] != last:
            break
        n, last = i + 1, row[1]
    out = OUT / "wmt21-ruen-sample"
    systems = ["AFRL", "Facebook-AI", "Online-B", "Online-W", "Online-Y"]
    texts = {"src": lines(src / "src.ru")[:n]}
    write(out / "src.ru", texts["src"])
    for ref in ("A", "B"):
        texts[ref] = lines(src / "refs" / f"{ref}.en")[:n]
        write(out / "refs" / f"{ref}.en", texts[ref])
    for name in systems:
        texts[name] = lines(src / "sys" / f"{name}.en")[:n]
        write(out / "sys" / f"{name}.en", texts[name])
    write(out / "docids.tsv", ["line\tdocid"] + [f"{i + 1}\t{docs[i][1]}" for i in range(n)])
    with open(src / "human" / "da_seg_scores.by_line.tsv", encoding="utf-8") as f:
        da = [r for r in csv.DictReader(f, delimiter="\t") if int(r["line"]) <= n and r["system"] in systems]
    write(out / "human" / "da.tsv", ["system\tsegment\tscore"] + [f"{r['system']}\t{r['line']}\t{r['z']}" for r in da])
    doc_ids = [docs[i][1] for i in range(n)]
    sgml(out / "sgml" / "src.ru.sgm", "srcset", {"src": texts["src"]}, doc_ids)
    sgml(out / "sgml" / "refs.en.sgm", "refset", {r: texts[r] for r in ("A", "B")}, doc_ids)
    for name in systems:
        sgml(out / "sgml" / f"{name}.en.sgm", "tstset", {name: texts[name]}, doc_ids)


def sgml(path: Path, kind: str, texts: dict[str, list[str]], doc_ids: list[str]) -> None:
    rows = [f'<{kind} setid="newstest2021" srclang="ru" trglang="en">']
    for sysid, segs in texts.items():
        current = None
        for seg, doc in zip(segs, doc_ids, strict=True):
            if doc != current:
                if current is not None:
                    rows.append("</doc>")
                rows.append(f'<doc sysid="{sysid}" docid="{doc}" genre="news" origlang="ru">')
                current, seg_no = doc, 0
            seg_no += 1
            rows.append(f'<seg id="{seg_no}">{escape(seg)}</seg>')
        rows.append("</doc>")
    rows.append(f"</{kind}>")
    write(path, rows)


if __name__ == "__main__":
    ende()
    ruen()
