"""Benchmark and identity check of GPU parsing (issue 32), for a session lent a GPU.

On the distinct cleaned segments of WMT21 ru-en (references and systems; 9,620), rows in this order
(each printed as it comes, so a run cut by its limit still has the first ones):

* ``pool`` (``--pool``, ``--pool-segments``): the workers' steady rate: 24,000 segments (the distinct
  ones repeated) in calls of 500 to each of ``--pool`` worker processes driving the GPU, timed after
  every worker has loaded its models and parsed a warm-up call (a long job's rate: the models load
  once per run, not per segment); ``12b``: with Stanza's batch sizes inside a call raised; ``12h``:
  the tokenizer, MWT and lemmatizer on the CPU, the POS tagger and the parser on the GPU; ``12bh``: both;
* ``annotator``: ``--annotator N`` segments through the annotator (cache written, load included) with
  each of ``--workers`` processes driving the GPU; are the caches identical?
* ``gpu float64 batched``: the GPU scheme (``mteval/annotate/parser_float64.py``), every segment in
  the annotator's calls of 500; model load and a 64-segment warm-up timed apart; then one line of
  where that pass spent its time (each Stanza processor, the tree decoder, mteval's NER tagger, the
  rest: wall seconds, the GPU synchronised at each stage's end, so a stage's kernels count in it);
* ``gpu float64 shuffled``: the first ``--shuffled`` segments again, shuffled, in other call sizes
  (does a segment's result depend on its companions? every model is float64 since the last GPU run);
* ``gpu OOM``: the 512 longest with the GPU's memory capped (the parser must retry in halves, same bytes);
* ``gpu float64 alone``: the first ``--subset`` segments, one per call, the parser one sentence a batch;
* ``gpu float32 today``: the same subset the way a GPU parsed before this scheme (float32, parser batch 1);
* ``cpu float64 batched`` / ``cpu float32 today``: the subset on this machine's CPU, one torch thread.

Prints one table (sentences/s, identical segments against the GPU scheme's first pass) and pickles the
subset's fingerprints (``--out``), so that another machine's CPU can be compared with them.

    python bench/bench_parse_gpu.py --data ../shared/data/wmt21-ruen [--subset 100] [--annotator 3000]
        [--workers 1,4,8] [--pool 16,8] [--first 2000] [--shuffled 3000] [--out DIR]
        [--device cpu: try the script without a GPU]
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bench_parse_batch import Fingerprint, fingerprint  # noqa: E402
from common import table  # noqa: E402

from mteval.annotate.parser_float64 import CPU_STAGES, LARGE_BATCHES, check_layout  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    ModelChoice,
    StanzaParser,
    available_processors,
    model_identity,
    on_device,
    resolve_models,
)
from mteval.annotate.textprep import MAX_WORDS, prepare_text  # noqa: E402

CALL = 500  # segments per parse call, as the annotator's cache shards


def segments(data: Path) -> list[str]:
    """The distinct, cleaned, non-empty segments of the references and systems under ``data``."""
    files = [*sorted((data / "refs").glob("*.en")), *sorted((data / "sys").glob("*.en"))]
    raw = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    return list(dict.fromkeys(t for t in (prepare_text(x, MAX_WORDS).text for x in raw) if t))


def parse_all(parser: StanzaParser, texts: Sequence[str], call: int) -> tuple[float, list[Fingerprint]]:
    """Parse in calls of ``call`` segments; the seconds (GPU synchronised) and the fingerprints."""
    import torch

    start = time.perf_counter()
    out: list[Fingerprint] = []
    for first in range(0, len(texts), call):
        out += [fingerprint(p) for p in parser.parse(texts[first: first + call])]
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - start, out


def loaded(choice: ModelChoice, batch: int | None = None) -> tuple[float, StanzaParser]:
    start = time.perf_counter()
    parser = StanzaParser(choice, batch)
    return time.perf_counter() - start, parser


def same(a: Sequence[Fingerprint], b: Sequence[Fingerprint]) -> str:
    """``identical all bytes / identical CoNLL-U / n``."""
    pairs = list(zip(a, b, strict=True))
    return f"{sum(x == y for x, y in pairs)} / {sum(x[0] == y[0] for x, y in pairs)} / {len(a)}"


class Rows(list):  # type: ignore[type-arg]
    """The table's rows, each printed as it comes (a run cut by its time limit still tells)."""

    def add(self, row: list[str]) -> None:
        self.append(row)
        print(" | ".join(row), flush=True)


def first_pass(texts: list[str], subset: int, rows: Rows, kept: dict[str, list[Fingerprint]],
               device: str = "cuda") -> tuple[StanzaParser, list[Fingerprint]]:
    """The scheme over every segment in the annotator's calls: the loaded parser and the bytes
    (``device`` cpu: the same on the CPU, to try the script)."""
    base = resolve_models("en", available_processors("en"))
    gpu = replace(on_device(base, device), float64_parser=True)
    print("identity:", model_identity(gpu), flush=True)
    load, parser = loaded(gpu)
    warm, _ = parse_all(parser, texts[:64], 64)
    with StageClock(parser) as clock:
        seconds, first = parse_all(parser, texts, CALL)
    kept["gpu64"] = first[:subset]
    rows.add(["gpu float64 batched", str(len(texts)), f"{load:.1f} (+{warm:.1f} warm-up)",
              f"{len(texts) / seconds:.0f}", "reference"])
    print(clock.line(seconds, len(texts)), flush=True)
    return parser, first


class StageClock:
    """Wall time of each stage of a parse (Stanza's processors, the tree decoder, mteval's NER
    tagger), the GPU synchronised at each stage's end; the stages' wrappers are removed on exit."""

    def __init__(self, parser: StanzaParser) -> None:
        from stanza.models.depparse import model as depparse_model

        self.seconds: dict[str, float] = {}
        self.places = [(proc, "process", name) for name, proc in parser.pipeline.processors.items()]
        self.places.append((depparse_model, "chuliu_edmonds_one_root", "decoder (in depparse)"))
        if parser.entity_tagger is not None:
            self.places.append((parser.entity_tagger, "tag", "mteval NER"))
        self.saved: list[tuple[object, str, object]] = []

    def __enter__(self) -> StageClock:
        import torch

        sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
        for owner, attribute, name in self.places:
            original = getattr(owner, attribute)
            self.saved.append((owner, attribute, original))

            def timed(*args: object, _f: object = original, _name: str = name, **kwargs: object) -> object:
                start = time.perf_counter()
                out = _f(*args, **kwargs)  # type: ignore[operator]
                sync()
                self.seconds[_name] = self.seconds.get(_name, 0.0) + time.perf_counter() - start
                return out

            setattr(owner, attribute, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, attribute, original in reversed(self.saved):
            setattr(owner, attribute, original)

    def line(self, total: float, n: int) -> str:
        """``stages (ms a sentence): tokenize 2.1, pos 1.0, ..., rest 0.4 of 17.2``."""
        outer = sum(v for k, v in self.seconds.items() if not k.startswith("decoder"))
        parts = [f"{k} {1000 * v / n:.2f}" for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1])]
        return (f"stages, ms a sentence: {', '.join(parts)}, rest {1000 * (total - outer) / n:.2f} "
                f"of {1000 * total / n:.2f}")


def shuffled_check(parser: StanzaParser, texts: list[str], first: list[Fingerprint], shuffled: int,
                   rows: Rows) -> None:
    """The first ``shuffled`` segments again in a shuffled order and other call sizes."""
    order = list(range(min(shuffled, len(texts))))
    random.Random(7).shuffle(order)
    seconds, again = parse_all(replace_batch(parser, 128), [texts[i] for i in order], 256)
    rows.add(["gpu float64 shuffled, calls 256, tag batch 128", str(len(order)), "",
              f"{len(order) / seconds:.0f}", same(first[:len(order)], _unshuffle(again, order))])


def gpu_checks(parser: StanzaParser, texts: list[str], first: list[Fingerprint], subset: int,
               rows: Rows, kept: dict[str, list[Fingerprint]]) -> None:
    """The out-of-memory retry, one segment per call, and the float32 per-sentence parse of before."""
    if parser.choice.device != "cpu":
        run_oom(replace_batch(parser, 1024), texts, first, rows)
    replace_batch(parser, 1).pipeline.processors["depparse"].config["batch_size"] = 1
    seconds, alone = parse_all(parser, texts[:subset], 1)
    rows.add(["gpu float64 alone (one per call)", str(subset), "", f"{subset / seconds:.1f}",
              same(first[:subset], alone)])
    load, today = loaded(replace(parser.choice, float64_parser=False))
    seconds, old = parse_all(today, texts[:subset], 64)
    kept["gpu32"] = old
    rows.add(["gpu float32 today (parser batch 1)", str(subset), f"{load:.1f}", f"{subset / seconds:.1f}",
              same(first[:subset], old)])


def run_oom(parser: StanzaParser, texts: list[str], reference: list[Fingerprint], rows: Rows) -> None:
    """The 512 longest segments with the GPU's memory capped 64 MB above the models: the parser
    runs out of memory and parses in halves; are the results those of the first pass?"""
    import torch

    longest = sorted(range(len(texts)), key=lambda i: -len(texts[i]))[:512]
    torch.cuda.empty_cache()
    cap = torch.cuda.memory_allocated() + (64 << 20)
    torch.cuda.set_per_process_memory_fraction(cap / torch.cuda.get_device_properties(0).total_memory)
    on_cpu: set[str] = set()
    cpu_parse = parser._parse_on_cpu

    def noted(part: Sequence[str]) -> list:  # type: ignore[type-arg]
        on_cpu.update(part)
        return cpu_parse(part)

    parser._parse_on_cpu = noted  # type: ignore[method-assign,assignment]
    try:
        seconds, out = parse_all(parser, [texts[i] for i in longest], 512)
        result = f"{same([reference[i] for i in longest], out)}; {differences(longest, texts, reference, out, on_cpu)}"
    except Exception as exc:  # the row says what happened
        seconds, result = float("nan"), f"{type(exc).__name__}: {str(exc)[:120]}"
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
        del parser._parse_on_cpu
    words = parser.pipeline.processors["depparse"].config["batch_size"]
    rows.add([f"gpu OOM: memory capped at models + 64 MB, longest 512 (parser batch now {words} words)",
              "512", "", f"{512 / seconds:.0f}", result])


def differences(chosen: list[int], texts: list[str], reference: list[Fingerprint], out: list[Fingerprint],
                on_cpu: set[str]) -> str:
    """Which stored parts differ (CoNLL-U, arcs, label heads, label log-probabilities), in how many of
    the segments parsed on the CPU, and the largest differences of the float scores."""
    import numpy as np

    pairs = [(texts[i] in on_cpu, reference[i], o) for i, o in zip(chosen, out, strict=True)]
    differ = [(cpu, a, b) for cpu, a, b in pairs if a != b]
    parts = [sum(a[k] != b[k] for _, a, b in differ) for k in range(4)]

    def largest(k: int, dtype: type) -> float:
        def values(part: str | bytes) -> np.ndarray:
            return np.frombuffer(part if isinstance(part, bytes) else part.encode(), dtype).astype(np.float64)

        return max((float(np.max(np.abs(values(a[k]) - values(b[k]))))
                    for _, a, b in differ if a[k] != b[k] and len(a[k]) == len(b[k])), default=0.0)

    return (f"{len(on_cpu)} on the CPU, {sum(cpu for cpu, _, _ in differ)} of the {len(differ)} differing; "
            f"parts differing {parts}; max |diff| arcs {largest(1, np.float32):.2g}, "
            f"label logp {largest(3, np.float16):.2g}")


def replace_batch(parser: StanzaParser, batch: int) -> StanzaParser:
    parser.batch = batch
    return parser


def _unshuffle(parsed: list[Fingerprint], order: list[int]) -> list[Fingerprint]:
    back: list[Fingerprint | None] = [None] * len(order)
    for position, index in enumerate(order):
        back[index] = parsed[position]
    return [b for b in back if b is not None]


def run_cpu(texts: list[str], subset: int, rows: Rows, kept: dict[str, list[Fingerprint]]) -> None:
    """The CPU rows on the subset: the float64 scheme and today's float32 per-sentence parser."""
    base = resolve_models("en", available_processors("en"))
    for name, choice in (("cpu64", replace(base, float64_parser=True)), ("cpu32", base)):
        load, parser = loaded(choice)
        seconds, parsed = parse_all(parser, texts[:subset], 64)
        kept[name] = parsed
        against = kept.get("gpu64")
        rows.add([f"cpu {'float64 batched' if name == 'cpu64' else 'float32 today'} (1 thread)", str(subset),
                  f"{load:.1f}", f"{subset / seconds:.1f}", same(against, parsed) if against else "-"])


def describe_variant(flags: str) -> str:
    """The words a row's name gets for its layout: the models on the CPU, the batch sizes raised."""
    on_cpu = CPU_STAGES if "h" in flags else ()
    words = [f"{'/'.join(on_cpu)} on the CPU"] if on_cpu else []
    if "b" in flags:
        sizes = [f"{name} {size}" for name, size in LARGE_BATCHES.items() if name.split("_")[0] not in on_cpu]
        words.append("Stanza's batches " + " ".join(sizes))
    return "".join(", " + w for w in words)


def split_spec(spec: str) -> tuple[int, str]:
    """``12bh`` -> ``(12, "bh")``: a worker count and a GPU layout (ValueError otherwise)."""
    flags = spec.lstrip("0123456789")
    digits = spec[: len(spec) - len(flags)]
    if not digits:
        raise ValueError(f"row {spec!r}: a worker count, then the layout's letters")
    return int(digits), check_layout(flags)


def _start_pool(choice: object, parent: int, logs: object, ready: object, warm: list[str]) -> None:
    """A pool worker: the annotator's initialiser (its parser gets the row's layout from ``choice``),
    a warm-up call, then wait at ``ready`` (a barrier with the parent) so that the clock starts with
    every worker loaded."""
    from mteval.annotate import workers

    workers._start(choice, parent, logs)  # type: ignore[arg-type]
    workers._parse(warm)
    ready.wait()  # type: ignore[attr-defined]


def run_pool(texts: list[str], device: str, spec: str, rows: Rows) -> None:
    """``spec`` (``12``; ``12b``, ``12h``, ``12bh``: with a GPU layout, :func:`split_spec`) worker
    processes (the annotator's: spawn, one torch thread, one pipeline each) on ``device``; the clock
    starts once every worker has loaded its models and parsed a warm-up call, and runs over ``texts``
    in calls of 500 (the annotator's shards)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from mteval.annotate import workers
    from mteval.processes import LogForwarding

    count, flags = split_spec(spec)
    choice = replace(on_device(resolve_models("en", available_processors("en")), device), float64_parser=True,
                     gpu_layout=flags)
    calls = [texts[i: i + CALL] for i in range(0, len(texts), CALL)]
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Barrier(count + 1)
    start = time.perf_counter()
    with LogForwarding(ctx) as logs, ProcessPoolExecutor(
            count, mp_context=ctx, initializer=_start_pool,
            initargs=(choice, os.getpid(), logs.queue, ready, texts[:16])) as pool:
        started = [pool.submit(workers._parse, []) for _ in range(count)]  # one submit, one worker started
        futures = [pool.submit(workers._parse, c) for c in calls]
        ready.wait(timeout=120)  # a worker that failed to start breaks the barrier then
        loaded_at = time.perf_counter()
        parsed = sum(len(f.result()) for f in futures) + sum(len(f.result()) for f in started)
    seconds = time.perf_counter() - loaded_at
    name = f"pool {device}, {count} worker(s){describe_variant(flags)}, steady (after load + warm-up)"
    rows.add([name, str(len(texts)), f"{loaded_at - start:.1f}", f"{len(texts) / seconds:.0f}", f"{parsed} parsed"])


def run_annotator(texts: list[str], device: str, specs: list[str], rows: Rows, folder: Path) -> None:
    """The annotator (its cache written) on ``device`` with each number of worker processes (on a
    GPU each drives it: the CPU-side work, two thirds of the time, then runs side by side), ``12bh``:
    12 with that GPU layout (:func:`split_spec`); are the caches' shards byte-identical to the first's?"""
    from mteval.annotate.annotator import Annotator

    digests = []
    for spec in specs:
        count, flags = split_spec(spec)
        cache = folder / f"cache-{spec}"
        start = time.perf_counter()
        annotator = Annotator(cache, device=device, workers=count)
        if flags:
            assert isinstance(annotator.choice, ModelChoice)
            annotator.choice = replace(annotator.choice, gpu_layout=flags)
        annotator.annotate_with_scores(texts)
        seconds = time.perf_counter() - start
        digests.append(sorted((f.name.rsplit("-", 1)[1], f.read_bytes())  # without the writer's pid
                              for f in cache.rglob("*") if f.suffix in (".keys", ".conllu", ".npz")))
        rows.add([f"annotator {device}, {count} worker(s){describe_variant(flags)} (cache written, load included)",
                  str(len(texts)), "", f"{len(texts) / seconds:.0f}",
                  f"shards identical to the first's: {digests[0] == digests[-1]} ({len(digests[-1])} files)"])


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--data", type=Path, required=True, help="the WMT21 ru-en folder (refs/, sys/)")
    args.add_argument("--subset", type=int, default=100, help="segments of the alone/CPU rows (default 100)")
    args.add_argument("--limit", type=int, default=0, help="only the first N segments (default all)")
    args.add_argument("--cpu-only", action="store_true", help="skip the GPU rows")
    args.add_argument("--device", default="cuda", help="device of the GPU rows (cpu: try the script)")
    args.add_argument("--out", type=Path, help="pickle the subset's fingerprints here")
    args.add_argument("--annotator", type=int, default=0, help="also run the annotator on N segments")
    args.add_argument("--workers", default="1,4", help="the annotator's worker counts (default 1,4; "
                      "12bh: 12 with that GPU layout)")
    args.add_argument("--shuffled", type=int, default=3000, help="segments parsed again shuffled (default 3000)")
    args.add_argument("--pool", default="", help="worker counts of the steady-rate rows (default none; "
                      "12b: 12 with parser_float64.LARGE_BATCHES; 12h: 12 with its CPU_STAGES on the CPU; 12bh: both)")
    args.add_argument("--pool-segments", type=int, default=24000,
                      help="segments of each pool row, the distinct ones repeated (default 24000: 48 calls, "
                           "whole rounds for 8, 12, 16 and 24 workers)")
    args.add_argument("--first", type=int, default=0, help="segments of the first pass (default all)")
    opts = args.parse_args()
    texts = segments(opts.data)
    texts = texts[: opts.limit] if opts.limit else texts
    import torch

    print("torch", torch.__version__, "CUDA", torch.version.cuda,
          "GPU", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, f"{os.cpu_count()} cores",
          flush=True)
    rows = Rows([["run", "segments", "model load s", "sent/s", "identical bytes / CoNLL-U / n (vs first row)"]])
    kept: dict[str, list[Fingerprint]] = {}
    try:  # the most wanted rows first: a run cut short still has them
        cycled = [texts[i % len(texts)] for i in range(opts.pool_segments)]  # repeats parse alike
        for spec in (w for w in opts.pool.split(",") if w and not opts.cpu_only):
            try:  # a failed row says why, and the others still run
                run_pool(cycled, opts.device, spec, rows)
            except Exception as exc:
                rows.add([f"pool {opts.device}, {spec}", str(len(cycled)), "", "-",
                          f"{type(exc).__name__}: {str(exc)[:200]}"])
        if opts.annotator and not opts.cpu_only:
            import tempfile

            with tempfile.TemporaryDirectory() as folder:
                run_annotator(texts[: opts.annotator], opts.device, opts.workers.split(","), rows, Path(folder))
        texts = texts[: opts.first] if opts.first else texts
        parser, first = (None, []) if opts.cpu_only else first_pass(texts, opts.subset, rows, kept, opts.device)
        if parser is not None:
            shuffled_check(parser, texts, first, opts.shuffled, rows)
            gpu_checks(parser, texts, first, opts.subset, rows, kept)
        run_cpu(texts, opts.subset, rows, kept)
    finally:
        print(table(rows), flush=True)
        if opts.out:
            opts.out.mkdir(parents=True, exist_ok=True)
            (opts.out / "fingerprints.pkl").write_bytes(pickle.dumps({"texts": texts[: opts.subset], **kept}))


if __name__ == "__main__":
    main()
