"""Stem words with Meteor 1.4's own Snowball stemmers (inside the jar) and save a sample as an oracle.

A 15-line Java class (:data:`HARNESS`, compiled with ``javac`` against the jar) stems one word a line with
``edu.cmu.meteor.util.Constants.newStemmer(language)``, the call Meteor's aligner makes, on:

* every distinct whitespace token of the given text files and UD CoNLL-U files (forms, lemmas and the
  ``# text`` lines), with their lower-cased forms;
* synthetic words, seeded: random letters of the language and 0-3 suffixes of the stemmer's own tables
  in ``snowballstemmer`` (100,000 a language), and, for the languages :mod:`mteval.metrics.meteor.jar_stemmers`
  corrects, 50,000 more ending in the forms it corrects (:data:`TARGETED`); some capitalised or upper-cased.

It prints, per language, how many words snowballstemmer's stemmer and :func:`jar_stemmer` stem otherwise
than the jar, and writes an xz-compressed TSV ``language  source  word  stem`` (``stem``: the jar's): every
word whose snowballstemmer stem differs from the jar's, up to ``--differ`` a language and source, and
``--agree`` of the others. The jar is not part of this repository. Usage::

    python tools/meteor_stem_oracle.py --jar /tmp/m14/meteor-1.4.jar --out tests/data/oracles/meteor-1.4-stems.tsv.xz \
        --words 'de:../shared/ud/multilingual/UD_German-*/*.conllu' --words 'de:../shared/data/wmt21-ende/**/*.de' ...

(the full command: ``tests/data/oracles/README.md``).
"""

from __future__ import annotations

import argparse
import lzma
import random
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from glob import glob
from importlib.metadata import version
from pathlib import Path

import snowballstemmer

from mteval.metrics.meteor.jar_stemmers import jar_stemmer
from mteval.metrics.meteor.languages import JAR_LANGUAGES
from mteval.metrics.stemmers import snowball

HARNESS = """import java.io.*;
import java.nio.charset.StandardCharsets;
import org.tartarus.snowball.SnowballStemmer;
public class MeteorStem {
  public static void main(String[] args) throws Exception {
    SnowballStemmer s = edu.cmu.meteor.util.Constants.newStemmer(args[0]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
    String w;
    while ((w = in.readLine()) != null) { s.setCurrent(w); s.stem(); out.println(s.getCurrent()); }
    out.flush();
  }
}
"""
_WS = re.compile(r"[ \t\n\r\f]+")
EXTRA_LETTERS = {"da": "æøå", "no": "æøå", "sv": "åäö", "de": "ßäöü", "fr": "àâæçéèêëîïôœùûüÿHIUY", "es": "ñüáéíóú",
                 "pt": "àãõçâêôáéíóú", "it": "àèéìíîòóùú", "ro": "șțşţăâî", "hu": "áéíóöőõúüűû", "fi": "åäö",
                 "tr": "çğıöşüâî", "nl": "äëïöüáéíóú", "en": "'", "ru": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"}
TARGETED = {  # letters and endings of the words :mod:`jar_stemmers` corrects
    "fr": ("abcdeghilmnopqrstuvyzàâçèéêëîïôùûœHIUY",
           "guë guës gUë quë ë ës ï ïs Hi He H ier ière e es ement ïf ïve ëment s ion".split()),
    "de": ("abdeghiklmnorstuyäöüßUYE",
           "nisse nissen nisses nißen niße nisser nis niss e en es s ern st ung keit".split()),
    "ru": ("аеёиоуыэюябвгджзклмнпрстхцчшщьъйЁ", "ё ёт ём ёй ого ая ые ость ёнок ство ешь ёшь ся сь".split()),
    "hu": ("aábeéiíoóöőõuúüűûkmnlrstzv", "ből bõl ről rõl től tõl nek ért ű û ő õ képpen jai ái".split()),
}
LANGUAGES = [iso for iso, jar in JAR_LANGUAGES.items() if jar.stemmer and iso != "nb"]


def tokens_of(path: Path) -> set[str]:
    """Distinct whitespace tokens of a text file, or of a CoNLL-U file's forms, lemmas and ``# text`` lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".conllu":
        return set(_WS.split(text)) - {""}
    words: set[str] = set()
    for line in text.split("\n"):
        if line.startswith("# text = "):
            words.update(_WS.split(line[9:]))
        elif line[:1].isdigit() and line.count("\t") > 2:
            words.update(line.split("\t")[1:3])
    return words - {""}


def _suffixes(iso: str) -> list[str]:
    """The suffixes of snowballstemmer's stemmer of a language (its ``Among`` tables)."""
    name = JAR_LANGUAGES[iso].name
    source = Path(snowballstemmer.__file__).with_name(f"{name}_stemmer.py").read_text(encoding="utf-8")
    found = {m.encode().decode("unicode_escape") for m in re.findall(r'Among\(u"((?:[^"\\]|\\.)*)"', source)}
    return sorted(found - {""})


def synthetic(iso: str, n: int, letters: str, suffixes: list[str], seed: str, most: int = 3) -> set[str]:
    """``n`` seeded random words: 1-8 letters and up to ``most`` suffixes, some capitalised or upper-cased."""
    rnd, words = random.Random(seed), set[str]()
    alphabet = sorted(set(letters))
    while len(words) < n:
        word = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 8)))
        word += "".join(rnd.choice(suffixes) for _ in range(rnd.randint(0 if most == 3 else 1, most)))
        r = rnd.random()
        words.add(word.capitalize() if r < 0.1 else word.upper() if r < 0.13 else word)
    return words


def jar_stems(jar: Path, folder: Path, iso: str, words: list[str]) -> list[str]:
    """The jar's stems of ``words`` (its stemmer for the language, through :data:`HARNESS`)."""
    done = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-cp", f"{jar}:{folder}", "MeteorStem",
                           JAR_LANGUAGES[iso].name], input="\n".join(words) + "\n", capture_output=True,
                          text=True, encoding="utf-8", check=True)
    stems = done.stdout.split("\n")[:-1]
    assert len(stems) == len(words), (iso, len(stems), len(words))
    return stems


def word_sets(iso: str, real: set[str]) -> dict[str, set[str]]:
    """The words to stem for a language, by source (``data``, ``synthetic``)."""
    latin = "" if iso == "ru" else "abcdefghijklmnopqrstuvwxyz"
    suffixes = _suffixes(iso)
    out = {"data": real | {w.lower() for w in real},
           "synthetic": synthetic(iso, 100_000, latin + "".join(suffixes) + EXTRA_LETTERS.get(iso, ""), suffixes, iso)}
    if iso in TARGETED:
        letters, endings = TARGETED[iso]
        out["synthetic"] |= synthetic(iso, 50_000, letters, endings, iso + "2", most=2)
    out = {k: {w for w in v if "\r" not in w and "\n" not in w} for k, v in out.items()}
    return {k: v for k, v in out.items() if v}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jar", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--words", action="append", default=[], help="ISO:GLOB, text or .conllu files")
    parser.add_argument("--differ", type=int, default=300)
    parser.add_argument("--agree", type=int, default=150)
    args = parser.parse_args(argv)
    real: dict[str, set[str]] = defaultdict(set)
    for item in args.words:
        iso, pattern = item.split(":", 1)
        for path in sorted(glob(pattern, recursive=True)):
            real[iso] |= tokens_of(Path(path))
    rows = []
    with tempfile.TemporaryDirectory(prefix="meteor-stem-") as tmp:
        (Path(tmp) / "MeteorStem.java").write_text(HARNESS, encoding="utf-8")
        subprocess.run(["javac", "-cp", str(args.jar), "-d", tmp, str(Path(tmp) / "MeteorStem.java")], check=True)
        for iso in LANGUAGES:
            for source, words in word_sets(iso, real[iso]).items():
                rows += _compare(iso, source, sorted(words), jar_stems(args.jar, Path(tmp), iso, sorted(words)), args)
    text = "language\tsource\tword\tstem\n" + "".join("\t".join(row) + "\n" for row in rows)
    args.out.write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"{args.out}: {len(rows)} rows", file=sys.stderr)
    return 0


def _compare(iso: str, source: str, words: list[str], stems: list[str],
             args: argparse.Namespace) -> list[tuple[str, ...]]:
    """Print the counts of one language and source; the rows kept for the oracle."""
    plain, ours = snowball(iso) if iso != "en" else jar_stemmer("en"), jar_stemmer(iso)
    assert plain is not None and ours is not None
    differ = [i for i, (w, s) in enumerate(zip(words, stems, strict=True)) if plain(w) != s]
    wrong = sum(ours(w) != s for w, s in zip(words, stems, strict=True))
    print(f"{iso} {source}: {len(words)} words; snowballstemmer {version('snowballstemmer')} stems {len(differ)} "
          f"otherwise than the jar, jar_stemmer {wrong}")
    rnd = random.Random(f"{iso}-{source}")
    agree = sorted(set(range(len(words))) - set(differ))
    keep = sorted(rnd.sample(differ, min(args.differ, len(differ))) + rnd.sample(agree, min(args.agree, len(agree))))
    return [(iso, source, words[i], stems[i]) for i in keep]


if __name__ == "__main__":
    raise SystemExit(main())
