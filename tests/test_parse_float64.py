"""The GPU's parse scheme (issue 32, ``mteval/annotate/parser_float64.py``): every model in float64,
the parser batched with its padding masked. A segment's bytes must not depend on its companions, the
call size or the number of workers; a GPU out of memory retries in halves, then says so in one line.

The scheme runs here on the CPU (``float64_parser=True``): the same code a GPU runs, with the CPU's
kernels. The GPU's own figures come from ``bench/bench_parse_gpu.py`` (docs/annotation.md)."""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs Stanza and torch: pip install -e '.[syntax]'")
pytest.importorskip("stanza", reason="needs Stanza and torch: pip install -e '.[syntax]'")
from test_parse_batching import cache_digest, fingerprint, texts  # noqa: E402

from mteval.annotate import annotator as annotator_module  # noqa: E402
from mteval.annotate import parser_float64  # noqa: E402
from mteval.annotate.annotator import Annotator  # noqa: E402
from mteval.annotate.arc_capture import ArcRecorder  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    GPU_TAG_BATCH,
    ModelChoice,
    StanzaParser,
    available_processors,
    model_identity,
    on_device,
    resolve_models,
)
from mteval.errors import DeviceError  # noqa: E402

pytestmark = pytest.mark.models


def float64_choice() -> ModelChoice:
    return replace(resolve_models("en", available_processors("en")), float64_parser=True)


def in_order(parser: StanzaParser, segments: list[str], order: list[int], call: int) -> list[tuple]:
    """Parse ``segments`` in ``order``, ``call`` at a time; the fingerprints back in segment order."""
    back: dict[int, tuple] = {}
    for start in range(0, len(order), call):
        part = order[start: start + call]
        back.update(zip(part, map(fingerprint, parser.parse([segments[i] for i in part])), strict=True))
    return [back[i] for i in range(len(segments))]


@pytest.mark.slow  # ~8 s (the over-long segment parsed alone): in make test-all
def test_a_segments_bytes_do_not_depend_on_its_batch() -> None:
    segments = texts()[:16] + texts()[-7:]  # real ones, and the over-long, normalised, two-sentence ones
    parser = StanzaParser(float64_choice())
    assert parser.batch == GPU_TAG_BATCH and parser.pipeline.processors["depparse"].config["batch_size"] > 1
    batched = in_order(parser, segments, list(range(len(segments))), len(segments))
    shuffled = list(range(len(segments)))
    random.Random(5).shuffle(shuffled)
    parser.batch = 8
    assert in_order(parser, segments, shuffled, 13) == batched
    parser.batch = 1
    parser.pipeline.processors["depparse"].config["batch_size"] = 1  # each sentence alone
    assert in_order(parser, segments, list(range(len(segments))), 1) == batched
    assert all(f[1] for f in batched[:16])  # arc scores were recorded


def test_every_model_computes_in_float64() -> None:
    parser = StanzaParser(float64_choice())
    models = [p.trainer.model for p in parser.pipeline.processors.values() if hasattr(p, "trainer")]
    assert len(models) == 5 and all(next(m.parameters()).dtype == torch.float64 for m in models)


def test_the_cpu_keeps_its_scheme() -> None:
    choice = on_device(resolve_models("en", available_processors("en")), "cpu")
    assert not choice.float64_parser and "float64" not in model_identity(choice)
    parser = StanzaParser(choice)
    assert parser.pipeline.processors["depparse"].config["batch_size"] == 1
    assert next(parser.pipeline.processors["pos"].trainer.model.parameters()).dtype == torch.float32


def sizes(parser: StanzaParser) -> dict[str, int]:
    procs = parser.pipeline.processors
    return {"tokenize": procs["tokenize"].trainer.args["batch_size"], "mwt": procs["mwt"].config["batch_size"],
            "pos": procs["pos"].config["batch_size"], "lemma": procs["lemma"].config["batch_size"]}


STANZAS = {"tokenize": 32, "mwt": 50, "pos": 100, "lemma": 50}  # Stanza's own batch sizes inside a call


def test_a_gpu_layout_is_applied_where_asked() -> None:
    """``gpu_layout``: unset, the GPU's default (GPU_LAYOUT) on a GPU and nothing on a CPU; a string,
    that layout anywhere. ``b`` raises only the batch sizes of the processors left on the device."""
    assert sizes(StanzaParser(float64_choice())) == STANZAS  # the CPU, unset: nothing changes
    assert sizes(StanzaParser(replace(float64_choice(), gpu_layout="b"))) == {
        "tokenize": 256, "mwt": 2000, "pos": 1000, "lemma": 4000}
    both = StanzaParser(replace(float64_choice(), gpu_layout="bh"))
    assert sizes(both) == {**STANZAS, "pos": 1000}
    assert both.pipeline.processors["pos"].config["batch_maximum_tokens"] == 40000
    assert both._cpu is None and replace(both.choice, device="cpu").gpu_layout == "bh"
    both._parse_on_cpu(["One."])
    assert both._cpu is not None and sizes(both._cpu) == STANZAS  # the CPU fallback: Stanza's sizes


def test_a_gpu_layout_moves_only_the_character_level_models() -> None:
    """``h`` sends the tokenizer's, MWT's and lemmatizer's models to the CPU (seen here with a
    pipeline whose models record where they are sent); other letters are refused."""
    from types import SimpleNamespace

    class Model:
        def __init__(self) -> None:
            self.moved = False

        def cpu(self) -> None:
            self.moved = True

    names = ("tokenize", "mwt", "pos", "lemma", "depparse")
    procs = {n: SimpleNamespace(trainer=SimpleNamespace(model=Model(), args={}), config={}) for n in names}
    procs["mwt"].trainer.model = None  # a dictionary-only processor
    parser_float64.arrange(SimpleNamespace(processors=procs), "h")
    assert [n for n in names if procs[n].trainer.model is not None and procs[n].trainer.model.moved] == [
        "tokenize", "lemma"]
    assert all(not p.config for p in procs.values())  # no b: no batch size set
    for bad in ("x", "bb", "B"):
        with pytest.raises(ValueError, match="GPU layout"):
            parser_float64.check_layout(bad)
    assert parser_float64.GPU_LAYOUT == parser_float64.check_layout(parser_float64.GPU_LAYOUT)


@pytest.mark.slow  # ~25 s: three float64 pipelines over 60 segments
def test_no_gpu_layout_changes_a_byte() -> None:
    """The layouts may become the GPU's default only if the bytes stay (here: the float64 scheme on
    the CPU's kernels, real segments of both samples in two calls; the GPU's own check is the bench's
    annotator rows 12 and 12bh)."""
    segments = texts()[:60]

    def parsed(layout: str) -> list[tuple]:
        parser = StanzaParser(replace(float64_choice(), gpu_layout=layout))
        return [fingerprint(p) for first in (0, 30) for p in parser.parse(segments[first: first + 30])]

    plain = parsed("")
    assert parsed("b") == plain and parsed("bh") == plain


def test_signed_zeros_are_stored_as_plus_zero() -> None:
    class Model:
        predict = decode_graph_predictions = staticmethod(lambda *a, **k: None)

    recorder = ArcRecorder(Model(), ("root", "nsubj"))
    recorder.plus_zero = True
    for zero in (-0.0, -1e-50, -1e-9):  # -0.0 itself, and what casts to it (float32 arcs, float16 labels)
        heads = np.array([[[-np.inf, zero], [zero, -np.inf]]])  # a batch of one sentence of one word
        labels = np.full((1, 2, 2, 2), zero)
        recorder._texts = [["word"]]
        recorder._record([heads, np.zeros(1), labels], [2])
        scores = recorder.scores[("word",)]
        assert scores.arcs.dtype == np.float32 and scores.label_logp.dtype == np.float16
        stored = [scores.label_logp, scores.arcs[np.isfinite(scores.arcs)]]
        assert not any(np.signbit(x[x == 0]).any() for x in stored), zero
        if zero == -1e-9:
            assert np.signbit(scores.arcs[np.isfinite(scores.arcs)]).all()  # a float32 -1e-9 is kept


def oom(message: str = "CUDA out of memory. Tried to allocate 2.00 GiB") -> RuntimeError:
    return torch.cuda.OutOfMemoryError(message)


def test_out_of_memory_parses_in_halves(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[list[str]] = []
    resets: list[int] = []

    def parse(part: list[str]) -> list[str]:
        calls.append(list(part))
        if len(part) > 2:  # Stanza's parser re-raises an out-of-memory as a RuntimeError
            raise RuntimeError("CUDA out of memory ... depparse_batch_size=400.") from oom()
        return [t.upper() for t in part]

    parser_float64._say_halving.cache_clear()
    with caplog.at_level(logging.WARNING):
        got = parser_float64.parse_halving(parse, list("abcdefg"), lambda: resets.append(1), "cuda:0")
    assert got == list("ABCDEFG") and ["".join(c) for c in calls] == ["abcdefg", "abc", "a", "bc", "defg", "de", "fg"]
    assert caplog.messages == ["annotation.device cuda:0: out of GPU memory; parsing in smaller batches "
                               "(same results)"] and resets


def test_out_of_memory_on_one_segment_is_one_line() -> None:
    def parse(part: list[str]) -> list[str]:
        raise oom()

    with pytest.raises(DeviceError, match=r"^annotation.device cuda:1: out of GPU memory parsing one segment "
                                          r"\(5 characters\) alone; free the GPU or use device: cpu$"):
        parser_float64.parse_halving(parse, ["hello"], lambda: None, "cuda:1")


def test_a_segment_too_big_for_the_gpu_alone_is_parsed_on_the_cpu(caplog: pytest.LogCaptureFixture) -> None:
    """The issue's ladder: smaller batches, then the CPU for the one segment, saying so."""
    def parse(part: list[str]) -> list[str]:
        if "long" in "".join(part):
            raise RuntimeError("CUDA out of memory") from oom()
        return [t.upper() for t in part]

    on_cpu: list[list[str]] = []
    parser_float64._say_halving.cache_clear()
    with caplog.at_level(logging.WARNING):
        got = parser_float64.parse_halving(parse, ["a", "long one", "b"], lambda: None, "cuda:0",
                                           lambda part: on_cpu.append(list(part)) or [f"cpu:{t}" for t in part])
    assert got == ["A", "cpu:long one", "B"] and on_cpu == [["long one"]]
    assert caplog.messages[-1] == ("annotation.device cuda:0: out of GPU memory parsing one segment (8 characters) "
                                   "alone; parsing it on the CPU (the same float64 scheme, the same results)")


def test_the_cpu_fallback_gives_the_float64_schemes_bytes() -> None:
    """StanzaParser's fallback: the same models and scheme on the CPU, loaded once."""
    parser = StanzaParser(float64_choice())
    segments = texts()[:4]
    direct = [fingerprint(p) for p in parser.parse(segments)]
    assert [fingerprint(p) for p in parser._parse_on_cpu(segments)] == direct
    first = parser._cpu
    parser._parse_on_cpu(segments[:1])
    assert parser._cpu is first and first is not None and first.choice.device == "cpu"


@pytest.mark.parametrize("failure", [
    RuntimeError("CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be ..."),
    torch.AcceleratorError("CUDA error: unspecified launch failure"),
])
def test_a_gpu_lost_mid_run_is_one_line(failure: RuntimeError) -> None:
    def parse(part: list[str]) -> list[str]:
        raise failure

    with pytest.raises(DeviceError) as caught:
        parser_float64.parse_halving(parse, ["a", "b"], lambda: None, "cuda:0")
    message = str(caught.value)
    assert message.startswith("annotation.device cuda:0: the GPU failed while parsing ('CUDA error: ")
    assert message.endswith("the parses committed so far are kept: run again, or with device: cpu")
    assert "\n" not in message


def test_a_gpu_lost_leaves_the_committed_shards_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The annotator commits each shard once parsed: a failure in the second shard keeps the first,
    writes nothing of the second, and the next run parses only what is missing."""
    segments = texts()[:6]
    calls: list[int] = []

    def failing(self: StanzaParser, part: list[str]) -> list:
        calls.append(len(part))
        if len(calls) == 2:
            raise DeviceError("annotation.device cuda:0: the GPU failed while parsing")
        return [self.parse_one(t) for t in part]

    monkeypatch.setattr(StanzaParser, "parse", failing)
    with pytest.raises(DeviceError):
        Annotator(tmp_path, workers=1, batch_size=3).arc_scores(segments)
    assert len(list(tmp_path.rglob("*.keys"))) == 1
    again = Annotator(tmp_path, workers=1, batch_size=3)
    again.arc_scores(segments)
    assert again.parsed == 3 and len(list(tmp_path.rglob("*.keys"))) == 2


def test_other_errors_pass_through() -> None:
    def parse(part: list[str]) -> list[str]:
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        parser_float64.parse_halving(parse, ["a", "b"], lambda: None, "cuda:0")


def test_the_parser_shrinks_its_batches_after_an_out_of_memory() -> None:
    parser = StanzaParser(float64_choice())
    config = parser.pipeline.processors["depparse"].config
    before = config["batch_size"]
    parser._shrink()
    assert config["batch_size"] == before // 2


@pytest.mark.slow  # ~10 s: two annotators, one of them with two spawned workers
def test_one_and_two_workers_write_the_same_float64_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a GPU box does with ``workers: 2`` (each worker drives the GPU), with the CPU's kernels."""
    monkeypatch.setattr(annotator_module, "on_device",
                        lambda choice, device: replace(choice, float64_parser=True))
    segments = texts()[:80]
    for workers in (1, 2):
        ann = Annotator(tmp_path / f"j{workers}", workers=workers, batch_size=32)
        assert "float64-batched" in ann.identity()
        ann.arc_scores(segments)
    one, two = cache_digest(tmp_path / "j1"), cache_digest(tmp_path / "j2")
    assert len([k for k in one if k.endswith(".keys")]) == 3 and one == two
