"""The warnings about texts (``mteval.setup.text_warnings``) on real campaigns: what they add to every
``iqsetup`` that computes and every ``iqeval`` / ``mteval report`` that shows scores.

Each row: one campaign of ../shared's WMT data (every system against every reference of its
language), the time to read its texts (``load_texts``, which iqeval does anyway), the time of
the checks for all its systems and the experiment's lexical metrics (the families' checks, the
preparation, copy, shift and unrelated-lines checks) with an empty user cache, and again once
remembered there (a digest of the texts), best of ``--repeat`` runs. No peer tool runs
such checks (sacreBLEU's one check, a tokenized system, is a share of lines), so there is no
reference row. Skips without ../shared.

    python bench/bench_text_checks.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import yaml
from common import SHARED, table

CAMPAIGNS = {  # folder, target language (file suffix)
    "WMT21 en-ru": ("wmt21-enru", "ru"), "WMT21 zh-en": ("wmt21-zhen", "en"), "WMT24 en-cs": ("wmt24-encs", "cs"),
    "WMT12 en-fr": ("wmt12-enxx", "fr"),
}
METRICS = ["BLEU", "chrF", "TER", "METEOR-ex", "ROUGE-L"]


def experiment(folder: str, language: str, where: Path) -> Path:
    """An experiment file of the campaign's systems and references in ``language``."""
    root = SHARED / "data" / folder
    config = {"name": folder, "cache": str(where / "cache"), "language": language, "metrics": METRICS,
              "references": {p.stem: str(p) for p in sorted((root / "refs").glob(f"*.{language}"))},
              "systems": {p.stem: str(p) for p in sorted((root / "sys").glob(f"*.{language}"))}}
    if (root / "src.en").is_file() and language != "en":
        config["source"] = str(root / "src.en")
    path = where / f"{folder}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def best(seconds: list[float]) -> str:
    return f"{min(seconds):.3f}"


def row(name: str, folder: str, language: str, repeat: int, where: Path) -> list[str]:
    """Read the texts, run the checks with an empty user cache, then again (remembered): ``repeat``
    times, the best of each."""
    import mteval
    from mteval.evaluate.selection import warnings_of
    from mteval.experiment.texts import load_texts

    campaign = mteval.load(experiment(folder, language, where))
    sel = campaign.selection("sys", metrics=METRICS)
    reading, first, again, found = [], [], [], []
    for attempt in range(repeat):
        os.environ["MTEVAL_CACHE_DIR"] = str(where / f"user-cache-{folder}-{attempt}")  # empty: computed
        start = time.perf_counter()
        load_texts(campaign.experiment)
        reading.append(time.perf_counter() - start)
        for times in (first, again):
            start = time.perf_counter()
            found = warnings_of(campaign.experiment, campaign.texts, sel)
            times.append(time.perf_counter() - start)
    texts = campaign.texts
    return [name, str(len(texts.systems)), str(len(texts.references)), str(len(texts)), best(reading),
            best(first), best(again), str(len(found))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (SHARED / "data").is_dir():
        print("skipped: needs ../shared/data")
        return 0
    rows = [["campaign", "systems", "refs", "lines", "read texts (s)", "checks (s)", "remembered (s)", "warnings"]]
    with tempfile.TemporaryDirectory() as folder:
        for name, (data, language) in CAMPAIGNS.items():
            rows.append(row(name, data, language, args.repeat, Path(folder)))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
