"""Benchmark: Stanza annotation of WMT21 ru-en (10 systems + 2 references x 1000 segments).

Phases, each in its own process (so each has its own peak memory and the warm run shows that
torch is never imported):

* ``cold``  - ``Annotator.annotate`` on every segment with an empty cache (deduplicates, parses
  the distinct segments, writes the CoNLL-U/npz cache);
* ``bare``  - plain ``stanza.Pipeline`` (same models and options, tokenize..depparse) on the same
  distinct cleaned segments, batched 500 at a time as Stanza likes it, torch's default threads,
  nothing else (the overhead baseline);
* ``bare1`` - the same with one torch thread: the annotator parses each segment on its own with one
  thread (``stanza_adapter.PARSE_SCHEME``, so results never depend on batching or the machine's
  cores), and cold vs bare1 is the price of that per-segment parsing;
* ``warm``  - a new ``Annotator`` on the same cache: parses nothing; then the embedded NER tagger
  alone is timed on the distinct sentences, so the cold run's overhead over bare Stanza splits
  into NER tagging (work bare Stanza does not do) and the rest (cache, arc capture, conversion).

``MTEVAL_BENCH_SEGMENTS=N`` limits every file to its first N segments (default: all 1000). Each phase
reports wall seconds and CPU seconds (user + system of the process, all threads): on a shared,
loaded machine the CPU seconds are the steadier comparison.

``MTEVAL_BENCH_LANGUAGE=ru|fr|es|cs`` benchmarks that language's default backend (docs/languages.md)
instead: the cold and warm annotator on the target side of WMT21 en-ru (ru: 2 references + 9
systems) or WMT12 en-xx (fr, es, cs: the reference and every system), no bare-Stanza phases.
``bench_backends.py`` measures every backend side by side (load time, sentences/s, peak memory).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WMT21_RUEN, ruen_texts, table  # noqa: E402

LANGUAGE = os.environ.get("MTEVAL_BENCH_LANGUAGE", "en")
TARGETS = {"ru": WMT21_RUEN.parent / "wmt21-enru", **{x: WMT21_RUEN.parent / "wmt12-enxx" for x in ("fr", "es", "cs")}}


def target_texts() -> list[str]:
    """The references' and systems' segments of LANGUAGE's target-side data (limited by the env var)."""
    limit = int(os.environ.get("MTEVAL_BENCH_SEGMENTS", "0")) or None
    folder = TARGETS[LANGUAGE]
    files = sorted((folder / "refs").glob(f"*.{LANGUAGE}")) + sorted((folder / "sys").glob(f"*.{LANGUAGE}"))
    return [t for f in files for t in f.read_text(encoding="utf-8", errors="replace").splitlines()[:limit]]


def all_texts() -> list[str]:
    """Every segment of every system and reference, in file order (limited by the env var)."""
    if LANGUAGE != "en":
        return target_texts()
    limit = int(os.environ.get("MTEVAL_BENCH_SEGMENTS", "0")) or None
    refs, systems = ruen_texts()
    return [t for side in (*refs.values(), *systems.values()) for t in side[:limit]]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase_annotator(cache: Path) -> dict[str, float]:
    """Cold or warm run (depending on the cache) of the Annotator on all segments."""
    from mteval.annotate.annotator import Annotator

    texts = all_texts()
    start, cpu = time.perf_counter(), time.process_time()
    ann = Annotator(cache, language=LANGUAGE)
    sentences = ann.annotate(texts)
    seconds = time.perf_counter() - start
    result = {"seconds": seconds, "cpu": time.process_time() - cpu, "segments": len(texts), "parsed": ann.parsed,
              "words": sum(len(s) for s in sentences), "peak_mib": _peak_mib(),
              "torch_loaded": float("torch" in sys.modules)}
    if not ann.parsed:  # warm: also time the NER tagger alone on the distinct sentences
        result["ner_seconds"] = _ner_seconds(ann, sentences)
    return result


def _ner_seconds(ann: object, sentences: list) -> float:
    """Seconds the embedded NER tagger takes on the distinct sentences (part of a cold run)."""
    from mteval.annotate.entity_tagger import EntityTagger
    from mteval.annotate.stanza_adapter import uses_entity_tagger

    choice = ann.choice  # type: ignore[attr-defined]
    if LANGUAGE != "en" or not uses_entity_tagger(choice):
        return 0.0
    distinct = list({id(s): s for s in sentences}.values())
    tagger = EntityTagger.load(Path(choice.paths["ner"]))
    start = time.perf_counter()
    for sentence in distinct:
        tagger.tag(sentence)
    return time.perf_counter() - start


def phase_bare(threads: int | None) -> dict[str, float]:
    """Bare Stanza on the distinct cleaned non-empty segments, same options, batches of 500."""
    from mteval.annotate.annotator import BATCH_SIZE
    from mteval.annotate.stanza_adapter import _load_pipeline, available_processors, resolve_models
    from mteval.annotate.textprep import prepare_text

    distinct = list(dict.fromkeys(prepare_text(t).text for t in dict.fromkeys(all_texts())))
    distinct = [t for t in distinct if t]
    start, cpu = time.perf_counter(), time.process_time()
    import torch
    from stanza.models.common.doc import Document

    if threads:
        torch.set_num_threads(threads)
    nlp = _load_pipeline(resolve_models("en", available_processors("en")))
    for i in range(0, len(distinct), BATCH_SIZE):
        nlp([Document([], text=t) for t in distinct[i: i + BATCH_SIZE]])
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu, "parsed": len(distinct),
            "peak_mib": _peak_mib(), "threads": float(torch.get_num_threads())}


def run_phase(name: str, cache: Path) -> dict[str, float]:
    """Run one phase in a fresh interpreter and return its JSON result."""
    out = subprocess.run([sys.executable, __file__, name, str(cache)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"phase {name} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    """Run the three phases and print the table."""
    if LANGUAGE != "en":
        return main_backend()
    if not WMT21_RUEN.exists():
        print("bench_annotate: skipped (../shared/data/wmt21-ruen is absent)")
        return 0
    with tempfile.TemporaryDirectory(prefix="mteval-annbench-") as tmp:
        cold = run_phase("cold", Path(tmp))
        bare = run_phase("bare", Path(tmp))
        bare1 = run_phase("bare1", Path(tmp))
        warm = run_phase("warm", Path(tmp))
    print(f"Annotation of WMT21 ru-en ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    print(table(rows(cold, bare, bare1, warm)))
    return 0


def main_backend() -> int:
    """Cold and warm annotator runs for LANGUAGE's default backend."""
    if LANGUAGE not in TARGETS or not TARGETS[LANGUAGE].exists():
        print(f"bench_annotate: skipped (no target-side data for {LANGUAGE!r} in ../shared/data)")
        return 0
    with tempfile.TemporaryDirectory(prefix="mteval-annbench-") as tmp:
        cold = run_phase("cold", Path(tmp))
        warm = run_phase("warm", Path(tmp))
    print(f"Annotation of {TARGETS[LANGUAGE].name} ({LANGUAGE}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f})")
    print(table([["run", "segments", "parsed", "words", "seconds", "CPU s", "peak MiB", "note"],
                 *[[name, f"{r['segments']:.0f}", f"{r['parsed']:.0f}", f"{r['words']:.0f}", f"{r['seconds']:.2f}",
                    f"{r['cpu']:.2f}", f"{r['peak_mib']:.0f}", f"{r['words'] / r['seconds']:.0f} words/s"]
                   for name, r in (("annotator cold", cold), ("annotator warm", warm))]]))
    return 0


def rows(cold: dict[str, float], bare: dict[str, float], bare1: dict[str, float],
         warm: dict[str, float]) -> list[list[str]]:
    """The result table."""
    def vs(base: dict[str, float]) -> str:
        return f"cold vs this: {100 * (cold['seconds'] / base['seconds'] - 1):+.0f} % wall, " \
               f"{100 * (cold['cpu'] / base['cpu'] - 1):+.0f} % CPU"

    ner = 100 * warm["ner_seconds"] / bare1["cpu"]
    return [["run", "segments", "parsed", "seconds", "CPU s", "peak MiB", "note"],
            ["annotator cold", f"{cold['segments']:.0f}", f"{cold['parsed']:.0f}", f"{cold['seconds']:.1f}",
             f"{cold['cpu']:.1f}", f"{cold['peak_mib']:.0f}",
             f"{cold['words'] / cold['seconds']:.0f} words/s (incl. model load); NER tagging {ner:.1f} % of bare1"],
            [f"bare stanza, {bare['threads']:.0f} threads", f"{bare['parsed']:.0f}", f"{bare['parsed']:.0f}",
             f"{bare['seconds']:.1f}", f"{bare['cpu']:.1f}", f"{bare['peak_mib']:.0f}", vs(bare)],
            ["bare stanza, 1 thread", f"{bare1['parsed']:.0f}", f"{bare1['parsed']:.0f}", f"{bare1['seconds']:.1f}",
             f"{bare1['cpu']:.1f}", f"{bare1['peak_mib']:.0f}", vs(bare1)],
            ["annotator warm", f"{warm['segments']:.0f}", f"{warm['parsed']:.0f}", f"{warm['seconds']:.2f}",
             f"{warm['cpu']:.2f}", f"{warm['peak_mib']:.0f}", f"{cold['seconds'] / warm['seconds']:.0f}x faster "
             f"than cold; torch loaded: {bool(warm['torch_loaded'])}"]]


if __name__ == "__main__":
    if len(sys.argv) == 3:
        phase = sys.argv[1]
        result = phase_bare(1 if phase == "bare1" else None) if phase.startswith("bare") \
            else phase_annotator(Path(sys.argv[2]))
        print(json.dumps(result))
        sys.exit(0)
    sys.exit(main())
