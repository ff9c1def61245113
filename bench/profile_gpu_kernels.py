"""Where a GPU parse's time goes on the device (issue 32): one process, the GPU's scheme, calls of
500 WMT21 ru-en segments under ``torch.profiler``: the GPU's busy time per sentence (its kernels'
own time, summed), the kernels launched per sentence, and the kernels that take the most time;
then the same with Stanza's batch sizes inside a call raised (``parser_float64.LARGE_BATCHES``), then
with the tokenizer, MWT and lemmatizer on the CPU besides (``parser_float64.CPU_STAGES``). If
the kernels' own time per sentence is what several workers together are bounded by, more processes
cannot pass ``1000 / (kernel ms a sentence)`` sentences a second on that card.

    python bench/profile_gpu_kernels.py --data .gpu/wmt21-ruen [--segments 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bench_parse_gpu import CALL, describe_variant, parse_all, segments  # noqa: E402

from mteval.annotate.parser_float64 import CPU_STAGES, arrange  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    StanzaParser,
    available_processors,
    on_device,
    resolve_models,
)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--data", type=Path, required=True, help="the WMT21 ru-en folder (refs/, sys/)")
    args.add_argument("--segments", type=int, default=1000, help="segments profiled (default 1000)")
    args.add_argument("--device", default="cuda", help="cpu: try the script")
    opts = args.parse_args()

    texts = segments(opts.data)[: opts.segments]
    choice = replace(on_device(resolve_models("en", available_processors("en")), opts.device), float64_parser=True)
    parser = StanzaParser(choice)
    parse_all(parser, texts[:64], 64)
    profile_once(parser, texts, "Stanza's batch sizes")
    stanzas = {name: dict(parser.pipeline.processors[name].config) for name in CPU_STAGES}
    arrange(parser.pipeline, "b")
    profile_once(parser, texts, describe_variant("b")[2:])
    arrange(parser.pipeline, "bh")  # the POS tagger and the parser keep the larger batches, the CPU's models
    for name, config in stanzas.items():  # get Stanza's back
        parser.pipeline.processors[name].config.update(config)
    parser.pipeline.processors["tokenize"].trainer.args["batch_size"] = stanzas["tokenize"]["batch_size"]
    profile_once(parser, texts, describe_variant("bh")[2:])


def profile_once(parser: StanzaParser, texts: list[str], label: str) -> None:
    """One timed pass, then one under the profiler: a line of figures and the costliest kernels."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    seconds, _ = parse_all(parser, texts, CALL)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    with profile(activities=activities) as prof:
        start = time.perf_counter()
        parse_all(parser, texts, CALL)
        profiled = time.perf_counter() - start
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    busy = sum(e.time_range.elapsed_us() for e in kernels) / 1000  # ms
    by_ops = sum(e.self_device_time_total for e in prof.key_averages()) / 1000  # ms, the same sum seen by op
    n = len(texts)
    print(f"{label}: {n} segments: wall {1000 * seconds / n:.2f} ms a sentence ({n / seconds:.0f} sent/s; "
          f"{1000 * profiled / n:.2f} profiled); GPU kernels {busy / n:.3f} ms a sentence ({by_ops / n:.3f} by op), "
          f"{len(kernels) / n:.0f} launches a sentence; bound for any number of processes: "
          f"{1000 * n / busy if busy else float('inf'):.0f} sent/s", flush=True)
    print(prof.key_averages().table(sort_by="self_device_time_total" if kernels else "self_cpu_time_total",
                                    row_limit=12, max_name_column_width=60), flush=True)


if __name__ == "__main__":
    main()
