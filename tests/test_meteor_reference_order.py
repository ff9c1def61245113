"""METEOR with several references: ties go to the reference the Meteor jar tries first, in its own
order (a Java ``Hashtable`` keyed by reference name: ``mteval/metrics/meteor/reference_order.py``).

1. The orders printed by Java 17's ``Hashtable`` for a few name lists (oracle), and, where ``javac``
   is installed, against Java itself on random names (with rehashing and non-ASCII names).
2. The system score does not depend on the order in which the references are given, and follows
   the jar's first reference on a tie.
3. Live, when ``$METEOR_JAR`` names the Meteor 1.4 jar (``tests/data/oracles/README.md``): generated
   awkward segments with 1-4 references, every segment and system value equal to the jar's.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

from mteval.io.corpus import DocumentIndex
from mteval.metrics.base import Side
from mteval.metrics.meteor import MeteorFamily
from mteval.metrics.meteor.reference_order import java_hashtable_order, java_string_hash, meteor_reference_order

# printed by java.util.Hashtable (OpenJDK 17.0.15) after put() of each name in this order: keySet()
JAVA_ORDERS = [
    (["A", "B"], ["A", "B"]),
    (["RA", "RB"], ["RB", "RA"]),
    (["A", "C", "D"], ["A", "D", "C"]),
    (["ref.txt", "A_B", "x", "y", "z", "w", "v", "u", "t", "s", "r", "q"],
     ["r", "q", "A_B", "ref.txt", "z", "y", "x", "w", "v", "u", "t", "s"]),
]


@pytest.mark.parametrize(("names", "java"), JAVA_ORDERS)
def test_javas_printed_orders(names: list[str], java: list[str]) -> None:
    assert java_hashtable_order(names) == java
    assert [names[i] for i in meteor_reference_order(names)] == java


def test_string_hash_is_javas() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("A") == 65
    assert java_string_hash("hello") == 99162322  # "hello".hashCode()
    assert java_string_hash("polygenelubricants") == -2147483648  # Integer.MIN_VALUE, a known Java case
    assert java_string_hash("😀") == 0xD83D * 31 + 0xDE00  # two UTF-16 code units


_JAVA = """import java.util.*; import java.io.*; import java.nio.charset.StandardCharsets;
public class Order { public static void main(String[] a) throws Exception {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
  PrintStream out = new PrintStream(System.out, true, "UTF-8"); String line;
  while ((line = r.readLine()) != null) { Hashtable<String, Integer> t = new Hashtable<>();
    for (String s : line.split("\\t")) t.put(s, 1); out.println(String.join("\\t", t.keySet())); } } }
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compare with Java's Hashtable")
def test_order_equals_javas_hashtable_on_random_names(tmp_path: Path) -> None:
    rng = random.Random(7)
    letters = "ABCDEFabcxyz_0123-.%é中😀"
    lists = []
    for _ in range(300):
        size = rng.choice([1, 2, 3, 5, 8, 9, 12, 17, 18, 35])
        lists.append(list(dict.fromkeys("".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
                                        for _ in range(size))))
    (tmp_path / "Order.java").write_text(_JAVA, encoding="utf-8")
    subprocess.run(["javac", "-encoding", "UTF-8", "Order.java"], cwd=tmp_path, check=True)
    printed = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-cp", str(tmp_path), "Order"],
                             input="".join("\t".join(names) + "\n" for names in lists), capture_output=True,
                             text=True, encoding="utf-8", check=True).stdout.splitlines()
    assert [java_hashtable_order(names) for names in lists] == [line.split("\t") for line in printed]


def _score(refs: dict[str, list[str]], hyp: list[str], variant: str = "METEOR-ex") -> float:
    family = MeteorFamily()
    prepared = family.prepare([Side(name, lines) for name, lines in refs.items()])
    return family.score(Side("sys", hyp), prepared, DocumentIndex.single(len(hyp)), [variant])[variant].system


def test_a_tie_goes_to_the_reference_the_jar_tries_first() -> None:
    """Segment 1 matches neither reference (0 against both, other lengths); the jar tries RB
    first, so the system score is the one with RB alone, whichever order the references come in."""
    ra = ["a b", "the cat sat on the mat"]
    rb = ["c d e f g", "the cat sat on the mat"]
    hyp = ["q", "the cat sat on a mat"]
    with_rb = _score({"RB": rb}, hyp)
    assert with_rb != _score({"RA": ra}, hyp)
    assert _score({"RA": ra, "RB": rb}, hyp) == with_rb
    assert _score({"RB": rb, "RA": ra}, hyp) == with_rb


_WORDS = ("the a of to and in is was that it for on with as be at by this had not are but from or have an "
          "they which one you were her all she there would 0 00 's n't -- ... $ % & < > \" ' ( ) / @ # : ; , . ? ! "
          "well-known U.S. café naïve Zürich Привет мир 東京 ’ “ ” — … « » € ½ 🙂 O'Neil can't UPPER MiXeD").split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 12)))


def _perturb(rng: random.Random, text: str) -> str:
    words = [w if rng.random() > 0.3 else rng.choice(_WORDS) for w in text.split() if rng.random() > 0.15]
    return " ".join(words) or rng.choice(_WORDS)


def test_live_meteor_jar_on_generated_segments() -> None:
    jar = os.environ.get("METEOR_JAR", "")
    if not jar or shutil.which("java") is None:
        pytest.skip("live Meteor check: set METEOR_JAR to meteor-1.4.jar (tests/data/oracles/README.md), needs java")
    from importlib.util import module_from_spec, spec_from_file_location  # noqa: PLC0415

    spec = spec_from_file_location("reference_runs", ROOT / "tools" / "reference_runs.py")
    assert spec is not None and spec.loader is not None
    tool = module_from_spec(spec)
    spec.loader.exec_module(tool)
    rng = random.Random(11)
    base = [_sentence(rng) for _ in range(300)]
    names = ["RA", "RB", "A", "C"]
    refs = {name: [_perturb(rng, b) for b in base] for name in names}
    systems = {f"S{k}": [_perturb(rng, b) if rng.random() < 0.85 else _sentence(rng) for b in base] for k in range(3)}
    family = MeteorFamily()
    for chosen in (names[:1], names[:2], names[1::-1], names):
        segments, system = tool.run_meteor(Path(jar), systems, {n: refs[n] for n in chosen}, "exact stem synonym")
        prepared = family.prepare([Side(n, refs[n]) for n in chosen])
        for name, hyp in systems.items():
            ours = family.score(Side(name, hyp), prepared, DocumentIndex.single(len(hyp)), ["METEOR-sy"])["METEOR-sy"]
            assert list(ours.segments) == pytest.approx([segments[(name, i)] for i in range(1, len(hyp) + 1)],
                                                        abs=1e-12), (chosen, name)
            assert ours.system == pytest.approx(system[name], abs=1e-12), (chosen, name)
