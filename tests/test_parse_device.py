"""``annotation: {device: ...}`` and ``iqsetup --device`` (issue 32): which device parses, what a
missing GPU says, and that a GPU's parses get their own identity while a CPU's keep today's.

The GPU cases run on this CPU-only machine by standing in for torch's CUDA queries."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs Stanza and torch: pip install -e '.[syntax]'")
pytest.importorskip("stanza", reason="needs Stanza and torch: pip install -e '.[syntax]'")

from mteval.annotate import stanza_adapter  # noqa: E402
from mteval.annotate.annotator import _cpu_only, identity_of  # noqa: E402
from mteval.annotate.chunking import MAX_PARSE_WORDS, MAX_SEGMENT_WORDS  # noqa: E402
from mteval.annotate.conllu_cache import cache_key  # noqa: E402
from mteval.annotate.parser_float64 import SCHEME  # noqa: E402
from mteval.annotate.stanza_adapter import (  # noqa: E402
    ModelChoice,
    check_device,
    model_identity,
    on_device,
    resolve_device,
    resolve_models,
)
from mteval.cli import iqsetup  # noqa: E402
from mteval.errors import ConfigError  # noqa: E402
from mteval.experiment.loading import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def fake_cuda(monkeypatch: pytest.MonkeyPatch, build: str | None, gpus: int) -> None:
    """Make torch look like a CUDA ``build`` (None: a CPU build) that sees ``gpus`` GPUs."""
    monkeypatch.setattr(torch.version, "cuda", build)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: f"NVIDIA H100 #{index}")


@pytest.mark.parametrize("value", ["auto", "cpu", "cuda", "cuda:0", "cuda:12"])
def test_device_names_accepted(value: str) -> None:
    assert check_device(value) == value


@pytest.mark.parametrize("value", ["gpu", "CUDA", "cuda:", "cuda:x", "cuda:0 ", "mps", 1, None])
def test_device_names_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="annotation.device: expected one of auto, cpu, cuda or cuda:N"):
        check_device(value)


def test_cpu_and_default_need_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cuda(monkeypatch, "12.4", 1)
    assert resolve_device(None) == resolve_device("cpu") == ("cpu", "cpu")


def test_auto_takes_the_gpu_only_when_a_cuda_build_sees_one(monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    fake_cuda(monkeypatch, None, 0)
    assert resolve_device("auto") == ("cpu", "cpu")
    fake_cuda(monkeypatch, "12.4", 0)
    assert resolve_device("auto") == ("cpu", "cpu")
    fake_cuda(monkeypatch, "12.4", 2)
    stanza_adapter._say_gpu.cache_clear()
    with caplog.at_level(logging.WARNING, logger="mteval"):
        assert resolve_device("auto") == ("cuda:0", "cuda:NVIDIA H100 #0")
        assert resolve_device("auto") == ("cuda:0", "cuda:NVIDIA H100 #0")  # said once
    assert [r.getMessage() for r in caplog.records] == ["annotation.device auto: parsing on GPU cuda:0 "
                                                        "(NVIDIA H100 #0)"]


def test_cuda_without_a_cuda_build_or_gpu_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cuda(monkeypatch, None, 0)
    with pytest.raises(ConfigError, match=r"annotation.device cuda: this torch .* is a CPU build"):
        resolve_device("cuda")
    fake_cuda(monkeypatch, "12.4", 1)
    assert resolve_device("cuda:0") == ("cuda:0", "cuda:NVIDIA H100 #0")
    with pytest.raises(ConfigError, match=r"annotation.device cuda:1: torch \(CUDA 12.4\) sees 1 GPU"):
        resolve_device("cuda:1")


def test_the_cpu_identity_is_unchanged_and_a_gpu_has_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    choice = resolve_models("en", ("tokenize", "mwt", "pos", "lemma", "depparse"))
    today = model_identity(choice)
    assert "device" not in today and today.endswith(f"|parse:{stanza_adapter.PARSE_SCHEME}")
    assert model_identity(on_device(choice, "cpu")) == model_identity(on_device(choice, "auto")) == today
    fake_cuda(monkeypatch, "12.4", 1)
    gpu = model_identity(on_device(choice, "cuda"))
    gpu_scheme = f"|parse:{SCHEME},chunk={MAX_PARSE_WORDS},max={MAX_SEGMENT_WORDS}|device:cuda:NVIDIA H100 #0"
    assert gpu == today.replace(f"|parse:{stanza_adapter.PARSE_SCHEME}", gpu_scheme)
    assert cache_key("A text.", "en", gpu, "p") != cache_key("A text.", "en", today, "p")
    assert identity_of("en", device="cuda") == identity_of("en").replace(f"|parse:{stanza_adapter.PARSE_SCHEME}",
                                                                        gpu_scheme)


def test_a_gpu_gets_workers_by_its_cores_and_its_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """One worker per core up to AUTO_GPU_WORKERS, and per GPU_MEMORY_PER_WORKER of the card's
    memory (3.4-3.7 GB a worker measured on an H200): a 24 GB card gets 6, not 12 that would not fit."""
    from mteval.annotate import annotator as annotator_module

    fake_cuda(monkeypatch, "12.4", 1)
    monkeypatch.setattr(annotator_module.os, "cpu_count", lambda: 16)
    asked: list[str] = []
    for gib, expected in ((141, 12), (80, 12), (40, 10), (24, 6), (16, 4), (6, 1), (2, 1)):
        monkeypatch.setattr(annotator_module, "gpu_memory", lambda device, gib=gib: asked.append(device) or gib << 30)
        gpu = annotator_module.Annotator(tmp_path / "gpu", device="cuda")
        assert (gpu._workers_for(50_000), gpu._workers_for(10)) == (expected, 1), gib
        assert gpu._workers_for(1001) == min(3, expected)  # no more workers than shards of 500
    assert set(asked) == {"cuda:0"}
    monkeypatch.setattr(annotator_module.os, "cpu_count", lambda: 3)
    monkeypatch.setattr(annotator_module, "gpu_memory", lambda device: 141 << 30)
    assert gpu._workers_for(50_000) == 3  # 141 GB but 3 cores
    cpu = annotator_module.Annotator(tmp_path / "cpu")
    assert cpu._workers_for(5000) == min(3, annotator_module.AUTO_WORKERS)
    assert annotator_module.Annotator(tmp_path / "set", device="cuda", workers=20)._workers_for(500) == 20


def test_gpu_memory_asks_torch_for_that_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    class Properties:
        total_memory = 80 << 30

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: seen.append(device) or Properties())
    assert stanza_adapter.gpu_memory("cuda:1") == 80 << 30
    assert seen == [torch.device("cuda:1")]


def test_the_device_travels_with_the_model_choice() -> None:
    """Parse workers rebuild their pipeline from the ModelChoice: the device must be in it."""
    choice = ModelChoice("embedded", "en", ("tokenize",), Path("."), {}, "cuda:1", "cuda:X", True)
    assert (choice.device, choice.device_class, choice.float64_parser) == ("cuda:1", "cuda:X", True)


def test_other_backends_say_they_parse_on_the_cpu(caplog: pytest.LogCaptureFixture) -> None:
    class Backend:
        name, language = "spacy", "fr"

    with caplog.at_level(logging.WARNING, logger="mteval"):
        _cpu_only(Backend(), None)  # type: ignore[arg-type]
        _cpu_only(Backend(), "cpu")  # type: ignore[arg-type]
        assert caplog.records == []
        _cpu_only(Backend(), "cuda")  # type: ignore[arg-type]
    assert [r.getMessage() for r in caplog.records] == ["annotation.device cuda: the spacy backend (fr) parses "
                                                        "on the CPU here"]
    with pytest.raises(ConfigError):
        _cpu_only(Backend(), "gpu")  # type: ignore[arg-type]


def experiment_file(tmp_path: Path, annotation: str) -> Path:
    """The bundled ru-en sample with EDPM, its caches under ``tmp_path``."""
    data = ROOT / "data" / "wmt21-ruen-sample"
    path = tmp_path / "exp.yaml"
    path.write_text(f"name: t\ncache: {tmp_path / 'cache'}\nlanguage: en\nreferences: {{A: {data}/refs/A.en}}\n"
                    f"systems: {{S: {data}/sys/AFRL.en}}\nmetrics: [BLEU, EDPM]\n"
                    f"annotation: {{cache: {tmp_path / 'ann'}{annotation}}}\n", encoding="utf-8")
    return path


def test_config_checks_the_device(tmp_path: Path) -> None:
    assert load(experiment_file(tmp_path, ", device: cuda:1")).annotation["device"] == "cuda:1"
    with pytest.raises(ConfigError, match=r"exp.yaml:\d+: key 'annotation.device': expected one of auto, cpu"):
        load(experiment_file(tmp_path, ", device: gpu"))


@pytest.mark.parametrize(("option", "annotation", "message"), [
    (["--device", "cuda"], "", "iqsetup: error: option --device cuda: this torch"),
    ([], ", device: cuda:0", "iqsetup: error: annotation.device cuda:0: this torch"),
    (["--device", "gpu"], "", "iqsetup: error: option --device: expected one of auto, cpu, cuda or cuda:N"),
])
def test_iqsetup_without_a_gpu_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, option: list[str],
                                              annotation: str, message: str) -> None:
    fake_cuda(monkeypatch, None, 0)
    config = experiment_file(tmp_path, annotation)
    assert iqsetup.main([*option, "-q", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"]  # no score file, no cache folder


def test_iqeval_takes_iqsetups_device_option(tmp_path: Path) -> None:
    """iqeval --device (the installed command): the campaign parsed there; cpu reads a CPU run's files,
    a GPU this machine lacks or a bad name is one line, exit 2."""
    from tests.helpers import run

    config = experiment_file(tmp_path, "")
    config.write_text(config.read_text(encoding="utf-8").replace("[BLEU, EDPM]", "[BLEU]"), encoding="utf-8")
    assert run("iqsetup", "-q", str(config)).returncode == 0
    plain = run("iqeval", "-doOQ", "-G", "sys", str(config))
    on_cpu = run("iqeval", "--device", "cpu", "-doOQ", "-G", "sys", str(config))
    assert plain.returncode == on_cpu.returncode == 0 and on_cpu.stdout == plain.stdout and "BLEU" in plain.stdout
    bad = run("iqeval", "--device", "gpu", "-doOQ", str(config))
    assert bad.returncode == 2
    assert bad.stderr == "iqeval: error: option --device: expected one of auto, cpu, cuda or cuda:N, got 'gpu'\n"
    if not torch.cuda.is_available():
        missing = run("iqeval", "--device", "cuda", "-remake", "-doOQ", str(config))
        assert missing.returncode == 2 and missing.stderr.startswith("iqeval: error: option --device cuda: this torch")
        assert missing.stderr.count("\n") == 1
