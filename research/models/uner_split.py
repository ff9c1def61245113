"""Split Universal NER English-EWT (dev + test, IOB2) into train/dev/test by *document*.

Mayhew et al. 2024 (NAACL), "Universal NER". Only the EWT dev and test files are available
offline, so we pool them and hold out whole documents: document ``i`` (in file order) goes to
test when ``i % 10 == 0``, to dev when ``i % 10 == 5``, else to train (about 80/10/10).
Writes Stanza's NER JSON format (a list of sentences, each a list of ``{"text", "ner"}``).

Usage: python research/models/uner_split.py ../shared/ud/uner_en_ewt OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

Tagged = list[tuple[str, str]]  # one sentence: (word, IOB2 tag)


def read_documents(path: Path) -> list[list[Tagged]]:
    """Documents -> sentences -> (word, IOB2 tag), from a UNER ``.iob2`` file."""
    docs: list[list[Tagged]] = []
    sent: Tagged = []
    for line in path.read_text(encoding="utf-8").splitlines():
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


def part_of(index: int) -> str:
    """The part of document ``index`` (file order): ``test``, ``dev`` or ``train``."""
    return "test" if index % 10 == 0 else "dev" if index % 10 == 5 else "train"


def split_documents(src: Path) -> dict[str, list[Tagged]]:
    """Sentences of the train/dev/test parts (document ``i``: test if i%10==0, dev if i%10==5)."""
    docs = [d for name in ("en_ewt-ud-dev.iob2", "en_ewt-ud-test.iob2") for d in read_documents(src / name)]
    split: dict[str, list[Tagged]] = {"train": [], "dev": [], "test": []}
    for i, doc in enumerate(docs):
        split[part_of(i)].extend(doc)
    return split


def main(argv: list[str]) -> int:
    """Write ``{train,dev,test}.json`` under OUT_DIR and print the split sizes."""
    out = Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for part, sents in split_documents(Path(argv[1])).items():
        data = [[{"text": w, "ner": t} for w, t in s] for s in sents]
        (out / f"{part}.json").write_text(json.dumps(data), encoding="utf-8")
        n_ent = sum(t.startswith("B-") for s in sents for _, t in s)
        print(f"{part}: {len(sents)} sentences, {n_ent} entities")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
