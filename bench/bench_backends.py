"""Benchmark: parse speed of each language's default backend (docs/languages.md, "Speed").

For en (Stanza, embedded models), ru (natasha), fr, es and cs (spaCy), each when its backend and
data are here (else one line says why it is skipped): the first N distinct non-empty segments of
the language's reference (``MTEVAL_BENCH_BACKEND_SEGMENTS``, default 400: enough for the
annotator's default workers, which start at 200 segments), WMT21 ru-en reference A for en, WMT21
en-ru A for ru, WMT12 en-xx A for fr, es, cs. Two fresh processes per language, each on an empty
annotation cache (what ``iqsetup`` does):

* ``one``: the Annotator with one worker; its first segment (a short one) is timed alone as the
  model load; then sentences/s, words/s and CPU milliseconds per sentence over the others; peak
  RSS of the process;
* ``default``: the Annotator with its default workers (min(cores, 4) processes from 200
  segments); sentences/s and CPU ms per sentence (all processes) over the whole run, model loads,
  worker start-up and cache included; peak RSS of the largest process (the parent or one worker).

``MTEVAL_BENCH_BACKENDS=ru,fr`` limits the languages. Wall seconds depend on what else runs (the
load average is printed beside the table); CPU milliseconds per sentence are the steadier figure.
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
from common import SHARED, WMT21_RUEN, table  # noqa: E402

LANGUAGES = ("en", "ru", "fr", "es", "cs")
DATA = {"en": WMT21_RUEN / "refs" / "A.en", "ru": SHARED / "data" / "wmt21-enru" / "refs" / "A.ru",
        **{x: SHARED / "data" / "wmt12-enxx" / "refs" / f"A.{x}" for x in ("fr", "es", "cs")}}
WARM_UP = "OK."  # the first segment of the one-worker run: its time is the model load


def texts_of(language: str) -> list[str]:
    """The first N distinct non-empty segments of ``language``'s reference."""
    limit = int(os.environ.get("MTEVAL_BENCH_BACKEND_SEGMENTS", "400"))
    lines = DATA[language].read_text(encoding="utf-8", errors="replace").splitlines()
    return list(dict.fromkeys(t.strip() for t in lines if t.strip() and t.strip() != WARM_UP))[:limit]


def _peak_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children (the workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def phase(name: str, language: str, cache: Path) -> dict[str, float]:
    """One run of the Annotator on ``language``'s segments (``one`` worker or the ``default``)."""
    from mteval.annotate.annotator import Annotator

    texts = texts_of(language)
    result: dict[str, float] = {"segments": len(texts)}
    start, cpu = time.perf_counter(), _cpu()
    annotator = Annotator(cache, language=language, workers=1 if name == "one" else None)
    if name == "one":
        annotator.annotate([WARM_UP])
        result["load"] = time.perf_counter() - start
        start, cpu = time.perf_counter(), _cpu()
    before = annotator.parsed
    sentences = annotator.annotate(texts)
    result.update(seconds=time.perf_counter() - start, cpu=_cpu() - cpu, parsed=annotator.parsed - before,
                  words=sum(len(s) for s in sentences), peak_mib=_peak_mib(),
                  child_mib=_peak_mib(resource.RUSAGE_CHILDREN),
                  workers=annotator._workers_for(len(texts)))  # noqa: SLF001
    return result


def run_phase(name: str, language: str) -> dict[str, float]:
    """``phase`` in a fresh interpreter on an empty cache; its JSON result."""
    with tempfile.TemporaryDirectory(prefix="mteval-backbench-") as tmp:
        out = subprocess.run([sys.executable, __file__, name, language, tmp], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{language} {name} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def skipped(language: str) -> str | None:
    """Why ``language`` cannot be measured here, or None."""
    from mteval.annotate import backends

    entry = backends.LANGUAGES.get(language)
    if entry is None:
        return "no annotation backend for this language (docs/languages.md)"
    if not backends.installed(entry):
        return f"{entry.backend} model not installed ({entry.install})"
    if not DATA[language].exists():
        return f"no data ({DATA[language]} is absent)"
    return None


def row(language: str, one: dict[str, float], default: dict[str, float]) -> list[str]:
    """One line of the table."""
    from mteval.annotate import backends

    entry = backends.LANGUAGES[language]
    rate = one["parsed"] / one["seconds"]
    return [language, f"{entry.backend} {entry.model}", f"{one['parsed']:.0f}", f"{one['words']:.0f}",
            f"{one['load']:.1f}", f"{rate:.1f}", f"{one['words'] / one['seconds']:.0f}",
            f"{1000 * one['cpu'] / one['parsed']:.0f}", f"{one['peak_mib']:.0f}", f"{default['workers']:.0f}",
            f"{default['parsed'] / default['seconds']:.1f}", f"{1000 * default['cpu'] / default['parsed']:.0f}",
            f"{max(default['peak_mib'], default['child_mib']):.0f}"]


def main() -> int:
    """Measure every language in turn and print the table."""
    wanted = [x for x in os.environ.get("MTEVAL_BENCH_BACKENDS", ",".join(LANGUAGES)).split(",") if x]
    rows = [["lang", "backend, model", "segments", "words", "load s", "1 worker sent/s", "words/s", "CPU ms/sent",
             "peak MiB", "default workers", "sent/s (incl. loads)", "CPU ms/sent", "peak MiB (largest process)"]]
    loads = []
    for language in wanted:
        why = skipped(language)
        if why is not None:
            print(f"bench_backends: {language} skipped: {why}", flush=True)
            continue
        one = run_phase("one", language)
        default = run_phase("default", language)
        loads.append(os.getloadavg()[0])
        rows.append(row(language, one, default))
    if len(rows) > 1:
        print(f"Parse speed per backend ({os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f})")
        print(table(rows))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4:
        print(json.dumps(phase(sys.argv[1], sys.argv[2], Path(sys.argv[3]))))
        sys.exit(0)
    sys.exit(main())
