"""Batched parsing whose stored results do not depend on the batch: the GPU's scheme (issue 32).

Stanza's graph parser (Dozat & Manning 2017, eqs. 9-11) in eval mode takes a batch of sentences
padded to the longest one and normalises each dependent's head scores with a log-softmax over every
position of the padded row, the padding included: a sentence's head log-probabilities then depend
on its companions (by up to 0.45, ``stanza_adapter.PARSE_SCHEME``). Three changes make a batch's
result a function of each sentence alone, up to float rounding:

1. **Masking.** Head positions past a sentence's own length get ``-inf`` before the log-softmax,
   so its normalisation runs over its own words only, as when it is parsed alone. The LSTMs take
   packed sequences and the biaffine scorers work pair by pair, so nothing else sees the padding.
2. **float64, every model.** What is left is rounding: a matrix product's sums are split and
   ordered by the kernel that the batch's shape selects, on a CPU and on a GPU alike (and a GPU's
   cuDNN may use TF32 for float32). Every model (tokenizer, MWT, POS, lemmatizer, parser) computes
   in float64, rounding ~1e-16 a step. Labels (tokens, tags, lemmas, trees) are argmaxes: they move
   only when two candidates tie within that noise. The scores are stored as float32 (arcs) and
   float16 (label log-probabilities): two float64 results of one score round to the same stored
   value unless the score lies within their difference of a rounding boundary. This is a bound,
   not a proof: with differences ~1e-15 and float32 steps of ~6e-8 (relative), a stored score
   differs with probability ~1e-8.
3. **Signed zeros.** A log-probability of exactly 0 is stored as +0.0 (a GPU and a CPU may give
   -0.0 and +0.0).

Measured (docs/annotation.md, "Device and batched tagging"): on an H200, the 9,620 WMT21 ru-en
segments parsed in two orders and call sizes gave identical bytes for 9,619 with float32 taggers
(one tag flipped), hence float64 taggers; 300 segments parsed on that GPU and on a 2-core CPU gave
identical trees and arc scores (300/300), the label log-probabilities differing in signed zeros only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from mteval.errors import DeviceError, quote

LOG = logging.getLogger(__name__)

PARSER_BATCH_WORDS = 5000  # words per parser batch (Stanza's depparse_batch_size) in this scheme
SCHEME = "float64-batched"  # the parse scheme's name in the model identity

# The GPU's layout (issue 32): where each model runs and how large Stanza's batches inside a call
# are, as letters: ``b`` raises the batch sizes (LARGE_BATCHES) of the processors on the GPU: fewer,
# larger kernels a sentence; ``h`` keeps CPU_STAGES on each worker's CPU, the POS tagger and the
# parser on the GPU: the character-level models are many small kernels a sentence on a GPU (the
# tokenizer's LSTM steps over characters; the lemmatizer's greedy decoder reads the GPU once a word
# and step, 21-25 reads a sentence, each a synchronisation) and ~4 ms a sentence of a CPU core in
# float64. Neither changes a byte (this scheme's results depend neither on the batch nor on the
# device), so neither is part of the model identity. GPU_LAYOUT, the default on a GPU, stays ""
# (Stanza's batch sizes, every model on the GPU) until a lent GPU has timed the others side by side
# (bench/bench_parse_gpu.sh: pool rows 12bh, 16bh, 12b, 12; docs/scaling.md).
GPU_LAYOUT = ""
LAYOUT_LETTERS = "bh"
# Stanza's own defaults: tokenizer 32 paragraphs, MWT and lemmatizer 50 words, POS 100 sentences and
# 5,000 tokens. Larger: 500 / 500 shuffled WMT21 ru-en segments identical bytes on a CPU (where the
# padding makes them slower: 36.6 -> 30.2 sent/s).
LARGE_BATCHES = {"tokenize": 256, "mwt": 2000, "pos": 1000, "pos_tokens": 40000, "lemma": 4000}
CPU_STAGES = ("tokenize", "mwt", "lemma")


def sentence_lengths(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The ``sentlens`` argument of the parser's ``forward_scores`` (root included)."""
    return kwargs["sentlens"] if "sentlens" in kwargs else args[12]


def use_float64(pipeline: Any) -> None:
    """Turn every model of a loaded Stanza pipeline to float64, the graph parser's padding masked."""
    for name, processor in pipeline.processors.items():
        model = getattr(getattr(processor, "trainer", None), "model", None)
        if model is None:
            continue
        model.double()
        if hasattr(model, "zero_state"):  # the seq2seq lemmatizer makes float32 initial states
            _double_states(model)
        if name == "depparse":
            _mask_padding(model)


def check_layout(layout: str) -> str:
    """``layout`` if it is made of :data:`LAYOUT_LETTERS` (each once); else ValueError."""
    if set(layout) - set(LAYOUT_LETTERS) or len(set(layout)) != len(layout):
        raise ValueError(f"GPU layout {layout!r}: letters of {LAYOUT_LETTERS!r}, each once")
    return layout


def arrange(pipeline: Any, layout: str) -> None:
    """Apply a GPU layout to a loaded float64 pipeline: ``h`` moves :data:`CPU_STAGES`' models to
    the CPU (Stanza sends each batch to its model's device), ``b`` sets :data:`LARGE_BATCHES` for
    the processors that stay on the device."""
    on_cpu = CPU_STAGES if "h" in check_layout(layout) else ()
    procs = pipeline.processors
    for name in on_cpu:
        model = getattr(getattr(procs.get(name), "trainer", None), "model", None)
        if model is not None:  # None: no such processor, or a dictionary-only one
            model.cpu()
    if "b" not in layout:
        return
    sizes = {name: LARGE_BATCHES[name] for name in ("tokenize", "mwt", "pos", "lemma")
             if name in procs and name not in on_cpu}
    for name, size in sizes.items():
        procs[name].config["batch_size"] = size
    if "tokenize" in sizes:  # the tokenizer reads its trainer's copy
        procs["tokenize"].trainer.args["batch_size"] = sizes["tokenize"]
    if "pos" in sizes:
        procs["pos"].config["batch_maximum_tokens"] = LARGE_BATCHES["pos_tokens"]


def _double_states(model: Any) -> None:
    states: Callable[..., Any] = model.zero_state
    model.zero_state = lambda inputs: tuple(t.double() for t in states(inputs))


def _mask_padding(model: Any) -> None:
    """Wrap the graph parser's ``forward_scores``: head positions past each sentence get -inf."""
    import torch  # noqa: PLC0415 - only when parsing

    scores: Callable[..., Any] = model.forward_scores

    def masked(*args: Any, **kwargs: Any) -> Any:
        unlabeled, *rest = scores(*args, **kwargs)
        lengths = torch.as_tensor(sentence_lengths(args, kwargs), device=unlabeled.device)
        width = unlabeled.shape[-1]
        padding = torch.arange(width, device=unlabeled.device)[None, :] >= lengths[:, None]
        return (unlabeled.masked_fill(padding[:, None, :], float("-inf")), *rest)

    model.forward_scores = masked


def parse_halving(parse: Callable[[Sequence[str]], list[Any]], texts: Sequence[str],
                  reset: Callable[[], None], device: str,
                  on_cpu: Callable[[Sequence[str]], list[Any]] | None = None) -> list[Any]:
    """``parse(texts)``; on a GPU out-of-memory, ``reset()`` (which shrinks the parser's batches)
    and the two halves one after the other, down to one segment, which is then parsed by
    ``on_cpu`` (the same scheme on the CPU, one log line) or, without it, one line (DeviceError).
    Each result is the same whatever the batch and the device (module docstring), so retrying
    smaller or on the CPU changes no number. Another CUDA error (a GPU lost mid-run) is one line.
    The annotator commits nothing of a call that failed: what was committed stays, a new run resumes."""
    import torch  # noqa: PLC0415 - only when parsing

    try:
        return parse(texts)
    except RuntimeError as exc:  # Stanza's parser re-raises an out-of-memory as a RuntimeError
        if not any(isinstance(e, torch.cuda.OutOfMemoryError) for e in (exc, exc.__cause__)):
            if _cuda_failure(exc):
                raise DeviceError(f"annotation.device {device}: the GPU failed while parsing "
                                  f"({quote(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 100)}); "
                                  "the parses committed so far are kept: run again, or with device: cpu") from None
            raise
        torch.cuda.empty_cache()
        reset()
        if len(texts) < 2:
            return _alone_on_cpu(texts, device, on_cpu)
        _say_halving(device)
        half = len(texts) // 2
        return (parse_halving(parse, texts[:half], reset, device, on_cpu)
                + parse_halving(parse, texts[half:], reset, device, on_cpu))


def _alone_on_cpu(texts: Sequence[str], device: str, on_cpu: Callable[[Sequence[str]], list[Any]] | None) -> list[Any]:
    """One segment that does not fit on the GPU alone: parsed on the CPU, saying so (or one line)."""
    what = f"out of GPU memory parsing one segment ({len(texts[0])} characters) alone"
    if on_cpu is None:
        raise DeviceError(f"annotation.device {device}: {what}; free the GPU or use device: cpu")
    LOG.warning("annotation.device %s: %s; parsing it on the CPU (the same float64 scheme, the same "
                "results)", device, what)
    return on_cpu(texts)


def _cuda_failure(exc: BaseException) -> bool:
    """Whether an error comes from CUDA itself (a lost or faulty GPU), not from the parser's code."""
    import torch  # noqa: PLC0415

    accelerator = getattr(torch, "AcceleratorError", None)  # torch >= 2.8 raises it for CUDA errors
    found = [exc, exc.__cause__]
    return any((accelerator is not None and isinstance(e, accelerator))
               or (isinstance(e, RuntimeError) and str(e).startswith(("CUDA error", "CUDA driver error",
                                                                        "cuDNN error", "CUBLAS_STATUS")))
               for e in found if e is not None)


@cache
def _say_halving(device: str) -> None:
    """One log line per device and process: the GPU ran out of memory, batches are halved."""
    LOG.warning("annotation.device %s: out of GPU memory; parsing in smaller batches (same results)", device)
