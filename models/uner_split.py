"""Split Universal NER English-EWT (dev + test, IOB2) into train/dev/test by *document*.

Mayhew et al. 2024 (NAACL), "Universal NER". Only the EWT dev and test files are available
offline, so we pool them and hold out whole documents: document ``i`` (in file order) goes to
test when ``i % 10 == 0``, to dev when ``i % 10 == 5``, else to train (about 80/10/10).
Writes Stanza's NER JSON format (a list of sentences, each a list of ``{"text", "ner"}``).

Usage: python models/uner_split.py ../shared/ud/uner_en_ewt OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def read_documents(path: Path) -> list[list[list[tuple[str, str]]]]:
    """Documents -> sentences -> (word, IOB2 tag), from a UNER ``.iob2`` file."""
    docs: list[list[list[tuple[str, str]]]] = []
    sent: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# newdoc") or not docs:
            if line.startswith("# newdoc") or (not docs and line and not line.startswith("#")):
                docs.append([])
        if not line.strip():
            if sent:
                docs[-1].append(sent)
                sent = []
        elif not line.startswith("#"):
            cols = line.split("\t")
            sent.append((cols[1], cols[2]))
    if sent:
        docs[-1].append(sent)
    return [d for d in docs if d]


def main(argv: list[str]) -> int:
    """Write ``{train,dev,test}.json`` under OUT_DIR and print the split sizes."""
    src, out = Path(argv[1]), Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    docs = [d for name in ("en_ewt-ud-dev.iob2", "en_ewt-ud-test.iob2") for d in read_documents(src / name)]
    split: dict[str, list[list[dict[str, str]]]] = {"train": [], "dev": [], "test": []}
    for i, doc in enumerate(docs):
        part = "test" if i % 10 == 0 else "dev" if i % 10 == 5 else "train"
        split[part].extend([{"text": w, "ner": t} for w, t in s] for s in doc)
    for part, sents in split.items():
        (out / f"{part}.json").write_text(json.dumps(sents), encoding="utf-8")
        n_ent = sum(t["ner"].startswith("B-") for s in sents for t in s)
        print(f"{part}: {len(sents)} sentences, {n_ent} entities")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
