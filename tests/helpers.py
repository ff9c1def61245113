"""Test helpers: write experiment configs in a temporary folder, run the installed commands."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ENDE = ROOT / "data" / "wmt21-ende-sample"
RUEN = ROOT / "data" / "wmt21-ruen-sample"
# Written without spaces between words (the tests' own sentences): Chinese, Japanese, Thai.
CHINESE = ["今天上午，市政府召开新闻发布会，介绍了今年城市交通建设的主要进展。",
           "专家认为，这项新技术将大大提高农业生产效率，并减少对环境的影响。",
           "由于天气原因，原定于明天举行的足球比赛将推迟到下周末进行。"]
JAPANESE = ["昨日は東京の大きな図書館で友達と一緒に日本の歴史についての本を読みました。",
            "この問題はとても難しいですが、みんなで協力すれば必ず解決できると思います。"]
THAI = ["วันนี้อากาศดีมากเราจึงตัดสินใจไปเดินเล่นที่สวนสาธารณะใกล้บ้านกับครอบครัว",
        "รัฐบาลประกาศมาตรการใหม่เพื่อช่วยเหลือเกษตรกรที่ได้รับผลกระทบจากน้ำท่วม"]


def file_lines(path: Path) -> list[str]:
    """A UTF-8 text file's lines."""
    return path.read_text(encoding="utf-8").splitlines()


def in_memory(name: str, segments: Sequence[str]) -> Any:
    """A :class:`mteval.io.corpus.Text` of these segments, one document, its file ``NAME.txt``."""
    from mteval.io.corpus import DocumentIndex, Text

    return Text(name, tuple(segments), DocumentIndex.single(len(segments)), f"{name}.txt")


def ctrl_c_reaches() -> None:
    """A child's ``preexec_fn``: SIGINT at its default, as a terminal's command has it. A test suite
    started in the background by a non-interactive shell (``make test &`` in a script) inherits
    SIGINT ignored, and so would every command it starts, which would then survive the Ctrl-C that
    a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ende_config(tmp: Path, **overrides: Any) -> Path:
    """The bundled en-de sample as a YAML experiment in ``tmp`` (cache inside ``tmp``)."""
    config: dict[str, Any] = {
        "name": "test", "cache": str(tmp / "cache"), "source": str(ENDE / "src.en"),
        "references": {r: str(ENDE / "refs" / f"{r}.de") for r in ("A", "C", "D")},
        "systems": {s: str(ENDE / "sys" / f"{s}.de") for s in ("Facebook-AI", "UEdin", "Online-W")},
        "metrics": ["BLEU", "NIST", "BLEU-2"],
        "sets": {"two": ["Facebook-AI", "UEdin"], "m": ["BLEU", "NIST"], "segs": "1-3, 10", "refs2": ["A", "C"]},
    }
    config.update(overrides)
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def ruen_experiment(tmp: Path, name: str, systems: Sequence[str], metrics: Sequence[str]) -> Path:
    """The bundled ru-en sample's ``systems`` against references A and B, ``metrics`` computed by
    ``iqsetup -q``: the experiment file (cache inside ``tmp``)."""
    config = {"name": name, "cache": str(tmp / "cache"),
              "references": {r: str(RUEN / "refs" / f"{r}.en") for r in ("A", "B")},
              "systems": {s: str(RUEN / "sys" / f"{s}.en") for s in systems}, "metrics": list(metrics)}
    path = tmp / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    done = run("iqsetup", "-q", str(path))
    assert done.returncode == 0, done.stderr
    return path


def setup_with_system(tmp: Path, segments: list[str], metric: str
                      ) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """``iqsetup -q`` of the bundled en-de sample's UEdin beside a system ``T`` of ``segments``
    (written to ``tmp/T.de``), scored with one metric: ``(T's file, the experiment, the run)``."""
    system = tmp / "T.de"
    system.write_text("\n".join(segments) + "\n", encoding="utf-8")
    config = ende_config(tmp, systems={"UEdin": str(ENDE / "sys" / "UEdin.de"), "T": str(system)}, metrics=[metric],
                         sets={})
    return system, config, run("iqsetup", "-q", str(config))


def run(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run an installed command; never raises on a non-zero exit. The command runs in a process group
    of its own, killed whole when this call ends otherwise (Ctrl-C of the test run, the timeout): no
    worker process of the command (iqsetup's pool, parse workers) outlives the test."""
    with subprocess.Popen(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                          start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:  # KeyboardInterrupt, TimeoutExpired: before the command is reaped
            kill_group(process)
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL to the process group a ``start_new_session`` child leads (gone already: nothing)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def small_experiment(folder: Path, metrics: Sequence[str], segments: int = 20, **overrides: Any) -> Path:
    """The first ``segments`` lines of the ru-en sample (2 references, 5 systems) with its own caches."""
    folder.mkdir(parents=True)
    texts = {p.stem: p for p in sorted((RUEN / "refs").glob("*.en")) + sorted((RUEN / "sys").glob("*.en"))}
    for name, source in texts.items():
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)[:segments]
        (folder / f"{name}.txt").write_text("".join(lines), encoding="utf-8")
    config = {"name": "parallel", "cache": str(folder / "cache"), "language": "en",
              "references": {r: str(folder / f"{r}.txt") for r in ("A", "B")},
              "systems": {s: str(folder / f"{s}.txt") for s in texts if s not in ("A", "B")},
              "annotation": {"cache": str(folder / "cache" / "annotation")}, "metrics": list(metrics), **overrides}
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def cache_tree(cache: Path) -> dict[str, bytes]:
    """Every file under a cache (scores and annotation) by relative path; the lock file, which
    holds a process id, aside, the annotation shards' names without the id of the process
    that wrote them (``PID-SEQ-HASH.conllu``: mteval.annotate.conllu_cache), and the stamp indexes without
    the path of the experiment file that wrote them (and so their checksum: mteval.store.stamps)."""
    return {re.sub(r"/\d+-(\d+-\w+\.\w+)$", r"/\1", str(p.relative_to(cache))): _without_writer(p)
            for p in sorted(cache.rglob("*")) if p.is_file() and p.name != ".lock"}


def _without_writer(path: Path) -> bytes:
    data = path.read_bytes()
    if path.name != ".stamps.json":
        return data
    return re.sub(rb'"(writer|check)": "[^"]*"', rb'"\1": "-"', data)


WMT21_MQM_SETS = {  # folder: (language, source, references (en-ru's B is shifted at lines 743-753), systems)
    "wmt21-zhen": ("en", "src.zh", ["A"],
                   ["Borderline", "DIDI-NLP", "Facebook-AI", "IIE-MT", "MiSS", "NiuTrans", "Online-W", "SMU"]),
    "wmt21-ende": ("de", "src.en", ["A", "C", "D"],
                   ["Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT",
                    "eTranslation"]),
    "wmt21-enru": ("ru", "src.en", ["A"],
                   ["Facebook-AI", "Manifold", "Nemo", "NiuTrans", "Online-A", "Online-B", "Online-G", "Online-W",
                    "Online-Y"]),
}


def _mqm_tsv(source: Path, target: Path, rename: dict[str, str]) -> Path:
    """Google's ``system<TAB>score seg_id`` MQM file as ``system segment score`` rows (None: not rated)."""
    rows = ["system\tsegment\tscore"]
    for line in source.read_text(encoding="utf-8").splitlines()[1:]:
        system, score, segment = line.replace("\t", " ").split()
        if score != "None":
            rows.append(f"{rename.get(system, system)}\t{segment}\t{score}")
    target.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return target


def wmt21_mqm_sets(data: Path, tmp: Path, metrics: Sequence[str], enru: str = "seg") -> list[tuple[Path, Path]]:
    """(experiment, MQM judgements) of WMT21 zh-en, en-de and en-ru in ``data`` (../shared/data), each
    scored with ``metrics`` by ``iqsetup -q`` in ``tmp``; en-ru's judgements at ``enru`` level (seg or sys)."""
    configs = {}
    for folder, (lang, source, refs, systems) in WMT21_MQM_SETS.items():
        (tmp / folder).mkdir(parents=True)
        config = {"name": folder, "cache": str(tmp / folder / "cache"), "language": lang,
                  "source": str(data / folder / source),
                  "references": {r: str(data / folder / "refs" / f"{r}.{lang}") for r in refs},
                  "systems": {s: str(data / folder / "sys" / f"{s}.{lang}") for s in systems}, "metrics": list(metrics)}
        configs[folder] = tmp / folder / f"{folder}.yaml"
        configs[folder].write_text(yaml.safe_dump(config), encoding="utf-8")
        done = run("iqsetup", "-q", str(configs[folder]))
        assert done.returncode == 0, done.stderr
    return [(configs["wmt21-zhen"], _mqm_tsv(data / "wmt21-zhen/human/mqm_newstest2021_zhen.avg_seg_scores.tsv",
                                             tmp / "zhen.tsv", {})),
            (configs["wmt21-ende"], _mqm_tsv(data / "wmt21-ende/human/mqm_newstest2021_ende.avg_seg_scores.tsv",
                                             tmp / "ende.tsv", {"Nemo": "NVIDIA-NeMo"})),
            (configs["wmt21-enru"], data / f"wmt21-enru/human/mqm.{enru}.tsv")]
