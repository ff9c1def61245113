"""Validity study driver (issue 14, item 4; ``docs/validity.md``): build, score, correlate, tune.

Builds three experiments from ``../shared/data`` (WMT21 ru-en DA, zh-en MQM, en-de MQM) under an
output folder, runs ``iqsetup``, ``iqeval -assessments`` (segment Kendall tau-b within source lines
and system Pearson r, with bootstrap CIs and PERM-BOTH against chrF) and ``mteval tune`` (nested CV
by document; ridge and ULC; all metrics and lexical only), and collects the numbers into TSVs::

    python research/validity_study.py build  --out out/validity
    python research/validity_study.py setup  --out out/validity [--only ruen,zhen] [-j 2]
    python research/validity_study.py eval   --out out/validity
    python research/validity_study.py tune   --out out/validity     # also the per-family gains (step families)
    python research/validity_study.py seeds  --out out/validity     # ridge and greedy ULC under fold seeds 1-4
    python research/validity_study.py tables --out out/validity     # markdown tables of docs/validity.md
    python research/validity_study.py all    --out out/validity
    python research/validity_study.py all    --out out/validity-new --model-paths new-models.json  # other parses

Run from the project root with ``PYTHONPATH=.``. zh-en and en-de have no document ids in the shared
data: their documents are blocks of ``BLOCK`` consecutive source lines (news documents are
contiguous runs of lines, so a block rarely spans two documents but a document may span blocks).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
BLOCK = 10
LEXICAL = ["BLEU", "NIST", "chrF", "chrF++", "TER", "WER", "PER", "GTM-1", "GTM-2",
           "ROUGE-L", "ROUGE-1", "ROUGE-2", "ROUGE-SU*", "METEOR-ex"]
SYNTACTIC = ["SP-Op(*)", "SP-pNIST-5", "DP-HWCM_w-4", "DP-Or(*)", "CP-STM-4", "NE-Oe(**)",
             "SR-Or(*)", "SEPIA", "EDPM", "CESM"]
FAMILY = {"SP": "SP", "DP": "DP", "CP": "CP", "NE": "NE", "SR": "SR", "SEPIA": "SEPIA",
          "EDPM": "EDPM", "CESM": "CESM"}


@dataclass
class Dataset:
    """One experiment of the study: texts (line-aligned), judgements and documents."""

    name: str
    language: str
    source: list[str]
    references: dict[str, list[str]]
    systems: dict[str, list[str]]
    judgements: list[tuple[str, int, float]]          # (system, line in the experiment, score)
    docids: list[str]
    lines: list[int] = field(default_factory=list)    # original line of each experiment line
    kind: str = ""

    @property
    def metrics(self) -> list[str]:
        """The metric set: lexical, plus the syntactic families for English targets."""
        return LEXICAL + (SYNTACTIC if self.language == "en" else [])


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 text file (one segment a line)."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _subset(ds_lines: list[int], texts: list[str]) -> list[str]:
    return [texts[k - 1] for k in ds_lines]


def ruen(shared: Path = SHARED) -> Dataset:
    """WMT21 ru-en: all 1000 lines, reference A, the 10 systems, DA z by line (ref B = HUMAN left out)."""
    src = shared / "wmt21-ruen"
    names = sorted(p.name[:-3] for p in (src / "sys").glob("*.en"))
    judgements = []
    with open(src / "human" / "da_seg_scores.by_line.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["system"] in names:
                judgements.append((row["system"], int(row["line"]), float(row["z"])))
    docs = [r.split("\t")[1] for r in read_lines(src / "docids.tsv")[1:]]
    source = read_lines(src / "src.ru")
    return Dataset("wmt21-ruen", "en", source, {"A": read_lines(src / "refs" / "A.en")},
                   {n: read_lines(src / "sys" / f"{n}.en") for n in names}, sorted(judgements, key=_order),
                   docs, list(range(1, len(source) + 1)), "DA z")


def _order(j: tuple[str, int, float]) -> tuple[str, int]:
    return j[0], j[1]


def read_mqm(path: Path) -> dict[str, dict[int, float]]:
    """MQM averages: {system: {line: score}}, 'None' (not rated) left out."""
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for row in read_lines(path)[1:]:
        system, score, seg = row.split()
        if score != "None":
            scores[system][int(seg)] = float(score)
    return scores


def mqm_dataset(pair: str, language: str, refs: Sequence[str], rename: dict[str, str] | None = None,
                shared: Path = SHARED) -> Dataset:
    """An MQM pair restricted to its rated lines and to the rated systems that have text."""
    src = shared / f"wmt21-{pair}"
    mqm = read_mqm(src / "human" / f"mqm_newstest2021_{pair}.avg_seg_scores.tsv")
    rename = rename or {}
    with_text = {p.name.rsplit(".", 1)[0] for p in (src / "sys").glob(f"*.{language}")}
    systems = sorted(s for s in with_text if rename.get(s, s) in mqm)
    rated = sorted(set.intersection(*(set(mqm[rename.get(s, s)]) for s in systems)))
    position = {k: i for i, k in enumerate(rated, start=1)}
    judgements = sorted(((s, position[k], mqm[rename.get(s, s)][k]) for s in systems for k in rated), key=_order)
    source_file = next(src.glob("src.*"))
    return Dataset(f"wmt21-{pair}", language, _subset(rated, read_lines(source_file)),
                   {r: _subset(rated, read_lines(src / "refs" / f"{r}.{language}")) for r in refs},
                   {s: _subset(rated, read_lines(src / "sys" / f"{s}.{language}")) for s in systems},
                   judgements, [f"block{(k - 1) // BLOCK:04d}" for k in rated], rated, "MQM")


def datasets(shared: Path = SHARED) -> dict[str, Dataset]:
    """The study's three data sets, keyed ruen, zhen, ende."""
    return {"ruen": ruen(shared),
            "zhen": mqm_dataset("zhen", "en", ["A"], shared=shared),
            "ende": mqm_dataset("ende", "de", ["A", "C", "D"], {"NVIDIA-NeMo": "Nemo"}, shared=shared)}


def write_lines(path: Path, rows: Sequence[str]) -> None:
    """Write one row a line (UTF-8, '\\n')."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")


def build(ds: Dataset, out: Path, model_paths: dict[str, str] | None = None) -> Path:
    """Write the texts, judgement TSV, docids and experiment YAML of ``ds``; return the YAML path.
    ``model_paths`` (processor -> model file) parses with other models than the embedded ones
    (issue 15: old and new parsers side by side, each study in its own ``--out`` folder)."""
    folder = (out / ds.name).resolve()
    write_lines(folder / "src.txt", ds.source)
    for ref, texts in ds.references.items():
        write_lines(folder / "refs" / f"{ref}.{ds.language}", texts)
    for name, texts in ds.systems.items():
        write_lines(folder / "sys" / f"{name}.{ds.language}", texts)
    write_lines(folder / "human.tsv", ["system\tsegment\tscore"] + [f"{s}\t{i}\t{v!r}" for s, i, v in ds.judgements])
    write_lines(folder / "docids.tsv", ["line\tdocid\toriginal_line"]
                + [f"{i}\t{d}\t{k}" for i, (d, k) in enumerate(zip(ds.docids, ds.lines, strict=True), 1)])
    config = {"name": ds.name, "cache": str(folder / "cache"),
              "source": {"path": str(folder / "src.txt"), "format": "plain"},
              "docids": {"path": str(folder / "docids.tsv"), "column": "docid"},
              "language": ds.language,
              "references": {r: str(folder / "refs" / f"{r}.{ds.language}") for r in ds.references},
              "systems": {s: str(folder / "sys" / f"{s}.{ds.language}") for s in ds.systems},
              "metrics": ds.metrics}
    if model_paths:
        config["annotation"] = {"model_paths": {k: str(Path(v).resolve()) for k, v in model_paths.items()}}
    path = folder / "experiment.yaml"
    path.write_text(json.dumps(config, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")  # JSON is YAML
    return path


def run_cli(main: str, argv: list[str], out: Path) -> str:
    """Run an mteval command line in-process (``iqeval``/``mteval``), its stdout saved to ``out``."""
    import contextlib
    import io
    module = {"iqeval": "mteval.cli.iqeval", "mteval": "mteval.cli.main"}[main]
    entry = __import__(module, fromlist=["main"]).main
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = entry(argv)
    if code:
        raise SystemExit(f"{main} {' '.join(argv)}: exit {code}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(buffer.getvalue(), encoding="utf-8")
    return buffer.getvalue()


# iqsetup of this interpreter's mteval (a bare ``iqsetup`` may be another environment's on PATH)
IQSETUP = [sys.executable, "-m", "mteval.cli.iqsetup"]


def setup(out: Path, names: Sequence[str], jobs: int = 2) -> None:
    """``iqsetup -j JOBS`` of every experiment (parsing happens here, once per distinct sentence)."""
    for name in names:
        config = out / f"wmt21-{name}" / "experiment.yaml"
        subprocess.run([*IQSETUP, "-q", "-j", str(jobs), str(config)], check=True)


def _records(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(text.splitlines(), delimiter="\t"))


def evaluate(out: Path, name: str, metrics: Sequence[str], resamples: int = 1000) -> list[dict[str, object]]:
    """Segment tau-b (within lines) and system Pearson r with 95 % CIs; PERM-BOTH and paired bootstrap
    of every metric against chrF (segment level). One row per metric."""
    folder = out / f"wmt21-{name}"
    config, human = str(folder / "experiment.yaml"), str(folder / "human.tsv")
    common = ["-q", "-assessments", human, "--tsv", "--resamples", str(resamples)]
    seg = _records(run_cli("iqeval", [*common, "-G", "seg", "--corr", "kendall", "--average", "item",
                                      "-M", ",".join(metrics), config], folder / "eval" / "seg.tsv"))
    sys_ = _records(run_cli("iqeval", [*common, "-G", "sys", "--corr", "pearson", "-M", ",".join(metrics), config],
                            folder / "eval" / "sys.tsv"))
    rows: dict[str, dict[str, object]] = {m: {"dataset": name, "metric": m, "family": family(m)} for m in metrics}
    for level, records in (("seg_tau", seg), ("sys_r", sys_)):
        for r in records:
            if r["variant"] == "plain" and r["metric"] in rows:
                rows[r["metric"]].update({level: float(r["score"]), f"{level}_low": float(r["ci_low"]),
                                          f"{level}_high": float(r["ci_high"])})
    for m in metrics:
        if m == "chrF":
            continue
        tests = _records(run_cli("iqeval", [*common, "-G", "seg", "--corr", "kendall", "--average", "item",
                                            "--significance", "-M", f"{m},chrF", config],
                                 folder / "eval" / "vs-chrF" / f"{safe(m)}.tsv"))
        for r in tests:
            if r["metric"] == f"{m}>chrF" and r["test"] == "perm-both":
                rows[m]["perm_p_vs_chrF"] = float(r["p_value"])
            elif r["metric"] == f"{m}>chrF" and r["test"] == "bootstrap":
                rows[m].update({"delta_vs_chrF": float(r["score"]), "delta_low": float(r["ci_low"]),
                                "delta_high": float(r["ci_high"]), "boot_p_vs_chrF": float(r["p_value"])})
    return list(rows.values())


def safe(metric: str) -> str:
    """A file name for a metric name."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", metric)


def family(metric: str) -> str:
    """The metric's family: lexical, or the syntactic family prefix (SP, DP, CP, NE, SR, SEPIA, EDPM, CESM)."""
    head = metric.split("-")[0].split("(")[0]
    return head if head in FAMILY else "lexical"


def write_tsv(path: Path, rows: Sequence[dict[str, object]]) -> None:
    """Rows as a TSV (columns: the union of keys, in first-seen order; floats with 4 decimals)."""
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    fmt = lambda v: f"{v:.4f}" if isinstance(v, float) else ("" if v is None else str(v))  # noqa: E731
    write_lines(path, ["\t".join(columns)] + ["\t".join(fmt(r.get(c)) for c in columns) for r in rows])


LEARNERS = {  # name -> (method, objective, select, greedy); "ridge" is the study's primary combination
    "ridge": ("ridge", "mean-removed", False, True),
    "ridge-select": ("ridge", "mean-removed", True, True),
    "ridge-ranking": ("ridge", "ranking", False, True),
    "ulc-greedy": ("ulc", "mean-removed", False, True),
    "ulc-all": ("ulc", "mean-removed", False, False),
}


def judged_points(out: Path, name: str, features: Sequence[str]):  # type: ignore[no-untyped-def]
    """The judged points of an experiment with ``features`` (as ``mteval tune`` builds them) and chrF."""
    from mteval.evaluate.tuning import _judged, document_labels
    from mteval.experiment.loading import load
    from mteval.experiment.texts import load_texts
    from mteval.store.cache import ScoreCache

    folder = out / f"wmt21-{name}"
    experiment = load(str(folder / "experiment.yaml"))
    texts = load_texts(experiment)
    documents = document_labels(experiment, texts)
    data, _, baseline = _judged(experiment, texts, ScoreCache(experiment.cache), tuple(features),
                                str(folder / "human.tsv"), documents)
    return data, baseline


def columns(data, keep: Sequence[str]):  # type: ignore[no-untyped-def]
    """The same points with only the features ``keep``."""
    import dataclasses

    import numpy as np
    index = [data.names.index(f) for f in keep]
    return dataclasses.replace(data, x=data.x[:, index], names=tuple(keep), signs=np.asarray(data.signs)[index])


def compare(label: str, data, a, b, by_documents: bool, n: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """A - B on the points (tau_b within lines, segment r, system r) with paired bootstrap CIs."""
    from mteval.meta.learn.tune_stats import paired_differences
    units = data.documents if by_documents else None
    diff = paired_differences(data.human, a, b, data.items, data.systems, units=units, n=n)
    row: dict[str, object] = {"comparison": label, "resample": "documents" if by_documents else "lines"}
    for stat, c in diff.items():
        row.update({stat: c.delta, f"{stat}_low": c.low, f"{stat}_high": c.high, f"{stat}_p": c.p_value})
    return row


def ablation(out: Path, name: str, metrics: Sequence[str], folds: int = 5, n: int = 1000
             ) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Every learner on all metrics and on the lexical ones (same points, same document folds):
    test-fold statistics, and differences (full - chrF, full - lexical, lexical - chrF) with CIs."""
    from mteval.evaluate.tuning import TuneOptions, learner_of
    from mteval.meta.learn.nested_cv import nested_cv
    from mteval.meta.learn.tune_stats import statistics

    data, chrf = judged_points(out, name, metrics)
    sets = {"all": list(metrics), "lexical": [m for m in metrics if family(m) == "lexical"]}
    if sets["all"] == sets["lexical"]:
        del sets["all"]
    scores = [{"dataset": name, "model": "chrF", **statistics(data.human, chrf, data.items, data.systems)}]
    diffs: list[dict[str, object]] = []
    for learner, (method, objective, select, greedy) in LEARNERS.items():
        predictions = {}
        for set_name, features in sets.items():
            options = TuneOptions(method=method, objective=objective, folds=folds, select=select, greedy=greedy)
            nested = nested_cv(columns(data, features), learner_of(options), folds, options.seed)
            predictions[set_name] = nested.predictions
            for label, values in ((f"{learner}/{set_name}", nested.predictions),
                                  (f"best-single/{set_name}", nested.single_predictions)):
                if not any(r["model"] == label for r in scores):
                    scores.append({"dataset": name, "model": label,
                                   **statistics(data.human, values, data.items, data.systems)})
        for by_documents in (False, True):
            for set_name, values in predictions.items():
                diffs.append({"dataset": name, **compare(f"{learner}/{set_name} - chrF", data, values, chrf,
                                                         by_documents, n)})
            if "all" in predictions:
                diffs.append({"dataset": name, **compare(f"{learner}/all - {learner}/lexical", data,
                                                         predictions["all"], predictions["lexical"], by_documents, n)})
    return scores, diffs


def family_gains(out: Path, name: str, metrics: Sequence[str], folds: int = 5, n: int = 1000
                 ) -> list[dict[str, object]]:
    """What each syntactic family adds: the primary ridge on lexical + that family vs lexical only
    (same points and folds), and on all metrics but that family vs all; test-fold tau_b differences."""
    from mteval.evaluate.tuning import TuneOptions, learner_of
    from mteval.meta.learn.nested_cv import nested_cv

    data, _ = judged_points(out, name, metrics)
    lexical = [m for m in metrics if family(m) == "lexical"]
    families = sorted({family(m) for m in metrics} - {"lexical"})
    if not families:
        return []
    learner = learner_of(TuneOptions(folds=folds))

    def predict(features: list[str]):  # type: ignore[no-untyped-def]
        return nested_cv(columns(data, features), learner, folds, 0).predictions

    base, full = predict(lexical), predict(list(metrics))
    rows: list[dict[str, object]] = []
    for fam in families:
        own = [m for m in metrics if family(m) == fam]
        rows.append({"dataset": name, "family": fam, "metrics": ",".join(own),
                     **compare(f"ridge/lexical+{fam} - ridge/lexical", data, predict(lexical + own), base, False, n)})
        rows.append({"dataset": name, "family": fam, "metrics": ",".join(own),
                     **compare(f"ridge/all - ridge/all-but-{fam}", data, full,
                               predict([m for m in metrics if family(m) != fam]), False, n)})
    return rows


def fold_seeds(out: Path, name: str, metrics: Sequence[str], folds: int = 5, seeds: Sequence[int] = (1, 2, 3, 4),
               n: int = 1000, learners: Sequence[str] = ("ridge", "ulc-greedy")) -> list[dict[str, object]]:
    """Learners under other fold assignments (seed 0 is the main run): all - chrF and all - lexical."""
    from mteval.evaluate.tuning import TuneOptions, learner_of
    from mteval.meta.learn.nested_cv import nested_cv

    data, chrf = judged_points(out, name, metrics)
    lexical = [m for m in metrics if family(m) == "lexical"]
    rows: list[dict[str, object]] = []
    for label in learners:
        method, objective, select, greedy = LEARNERS[label]
        for seed in seeds:
            learner = learner_of(TuneOptions(method=method, objective=objective, folds=folds, select=select,
                                             greedy=greedy, seed=seed))
            full = nested_cv(data, learner, folds, seed).predictions
            rows.append({"dataset": name, "seed": seed, **compare(f"{label}/all - chrF", data, full, chrf, False, n)})
            if lexical != list(metrics):
                lex = nested_cv(columns(data, lexical), learner, folds, seed).predictions
                rows.append({"dataset": name, "seed": seed,
                             **compare(f"{label}/all - {label}/lexical", data, full, lex, False, n)})
    return rows


def parse_effect(out: Path, baseline: Path, name: str, metrics: Sequence[str], n: int = 1000
                 ) -> list[dict[str, object]]:
    """Issue 15, item 3: each syntactic metric with the parses of ``out`` (other models) against the same
    metric with those of ``baseline`` (the experiments of both built from the same data), on the same
    judged points: both statistics and the paired bootstrap difference (new - old, lines resampled)."""
    import numpy as np

    from mteval.meta.learn.tune_stats import statistics

    syntactic = [m for m in metrics if family(m) != "lexical"]
    new, _ = judged_points(out, name, syntactic)
    old, _ = judged_points(baseline, name, syntactic)
    if not all(np.array_equal(np.asarray(getattr(old, k)), np.asarray(getattr(new, k)))
               for k in ("items", "systems", "human")):
        raise SystemExit(f"{out} and {baseline} do not have the same judged points")
    rows: list[dict[str, object]] = []
    for k, metric in enumerate(syntactic):
        a, b = new.x[:, k], old.x[:, k]
        stats_new, stats_old = (statistics(new.human, v, new.items, new.systems) for v in (a, b))
        rows.append({"dataset": name, "metric": metric, "family": family(metric),
                     "tau_b_old": stats_old["tau_b"], "tau_b_new": stats_new["tau_b"],
                     "system_r_old": stats_old["system_r"], "system_r_new": stats_new["system_r"],
                     "changed_points": int(np.sum(~np.isclose(a, b, rtol=0, atol=1e-12))),
                     **compare("new - old", new, a, b, False, n)})
    return rows


def parse_effect_markdown(rows: Sequence[dict[str, str]]) -> str:
    """The table of :func:`parse_effect` (from its TSV)."""
    lines = ["| family | metric | τb old | τb new | Δτb new − old [95 % CI] | p | system r old | system r new | "
             "Δ system r [95 % CI] | points changed |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['family']} | {r['metric']} | {float(r['tau_b_old']):.3f} | {float(r['tau_b_new']):.3f} | "
                     f"{_ci(r, 'tau_b', 'tau_b_low', 'tau_b_high', True)} | {float(r['tau_b_p']):.3f} | "
                     f"{float(r['system_r_old']):.3f} | {float(r['system_r_new']):.3f} | "
                     f"{_ci(r, 'system_r', 'system_r_low', 'system_r_high', True)} | {r['changed_points']} |")
    return "\n".join(lines) + "\n"


def tune_reports(out: Path, name: str, metrics: Sequence[str], folds: int = 5) -> None:
    """``mteval tune`` itself (ridge and ULC, all metrics; model files), reports saved under tune/."""
    folder = out / f"wmt21-{name}"
    (folder / "tune").mkdir(parents=True, exist_ok=True)
    for method in ("ridge", "ulc"):
        model = folder / "tune" / f"{method}.json"
        run_cli("mteval", ["tune", str(folder / "experiment.yaml"), "--assessments", str(folder / "human.tsv"),
                           "-M", ",".join(metrics), "--folds", str(folds), "--method", method,
                           "--name", f"VALIDITY-{method.upper()}", "--save-model", str(model)],
                folder / "tune" / f"{method}.txt")


def _read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _ci(row: dict[str, str], key: str, low: str, high: str, signed: bool = False) -> str:
    if not row.get(key):
        return ""
    f = "{:+.3f}" if signed else "{:.3f}"
    return f"{f.format(float(row[key]))} [{f.format(float(row[low]))}, {f.format(float(row[high]))}]"


def markdown(out: Path, name: str) -> str:
    """The doc's tables of one data set, from the TSVs (metrics; combinations; differences)."""
    rows = _read_tsv(out / "tables" / f"{name}.metrics.tsv")
    lines = ["| family | metric | segment τb [95 % CI] | system r [95 % CI] | τb − chrF [95 % CI] | PERM-BOTH p |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        p = f"{float(r['perm_p_vs_chrF']):.3f}" if r.get("perm_p_vs_chrF") else ""
        lines.append(f"| {r['family']} | {r['metric']} | {_ci(r, 'seg_tau', 'seg_tau_low', 'seg_tau_high')} | "
                     f"{_ci(r, 'sys_r', 'sys_r_low', 'sys_r_high')} | "
                     f"{_ci(r, 'delta_vs_chrF', 'delta_low', 'delta_high', True)} | {p} |")
    lines += ["", "| model (test folds) | τb | segment r | system r |", "|---|---|---|---|"]
    for r in _read_tsv(out / "tables" / f"{name}.combination.tsv"):
        lines.append(f"| {r['model']} | {float(r['tau_b']):.4f} | {float(r['segment_r']):.4f} | "
                     f"{float(r['system_r']):.4f} |")
    lines += ["", "| comparison | resampled | Δτb [95 % CI] | p | Δ system r [95 % CI] |", "|---|---|---|---|---|"]
    for r in _read_tsv(out / "tables" / f"{name}.differences.tsv"):
        if r["resample"] == "documents" and not r["comparison"].startswith("ridge/"):
            continue  # documents-resampled intervals: the primary ridge only (all are in the TSV)
        lines.append(f"| {r['comparison']} | {r['resample']} | {_ci(r, 'tau_b', 'tau_b_low', 'tau_b_high', True)} | "
                     f"{float(r['tau_b_p']):.3f} | {_ci(r, 'system_r', 'system_r_low', 'system_r_high', True)} |")
    lines += _delta_rows(out / "tables" / f"{name}.families.tsv", "family", "family", "comparison (ridge, test folds)")
    lines += _delta_rows(out / "tables" / f"{name}.seeds.tsv", "fold seed", "seed", "comparison (test folds)")
    return "\n".join(lines) + "\n"


def _delta_rows(path: Path, kind: str, column: str, comparison: str) -> list[str]:
    """A markdown table of per-family or per-seed differences (none when the TSV is absent)."""
    rows = _read_tsv(path) if path.exists() else []
    if not rows:
        return []
    lines = ["", f"| {kind} | {comparison} | Δτb [95 % CI] | p |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[column]} | {r['comparison']} | {_ci(r, 'tau_b', 'tau_b_low', 'tau_b_high', True)} | "
                     f"{float(r['tau_b_p']):.3f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build | setup | eval | tune | tables | all."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["build", "setup", "eval", "tune", "families", "seeds", "tables", "all",
                                         "parses"])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "validity")
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--model-paths", type=Path, metavar="JSON",
                        help="build: a JSON object of processor -> model file to parse with "
                             "(default: the embedded models)")
    parser.add_argument("--only", default="ruen,zhen,ende", help="comma-separated data sets")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--baseline", type=Path, help="parses: the output folder of the same study with the "
                                                      "embedded models, to compare --out's parses with")
    args = parser.parse_args(argv)
    names = args.only.split(",")
    all_sets = datasets(args.shared)
    if args.step in ("build", "all"):
        for name in names:
            models = json.loads(args.model_paths.read_text(encoding="utf-8")) if args.model_paths else None
            print(f"built {build(all_sets[name], args.out, models)}")
    if args.step in ("setup", "all"):
        setup(args.out, names, args.jobs)
    for name in names:
        metrics = all_sets[name].metrics
        if args.step in ("eval", "all"):
            write_tsv(args.out / "tables" / f"{name}.metrics.tsv", evaluate(args.out, name, metrics, args.resamples))
        if args.step in ("tune", "all"):
            scores, diffs = ablation(args.out, name, metrics, args.folds, args.resamples)
            write_tsv(args.out / "tables" / f"{name}.combination.tsv", scores)
            write_tsv(args.out / "tables" / f"{name}.differences.tsv", diffs)
            tune_reports(args.out, name, metrics, args.folds)
        if args.step in ("families", "tune", "all"):
            write_tsv(args.out / "tables" / f"{name}.families.tsv",
                      family_gains(args.out, name, metrics, args.folds, args.resamples))
        if args.step in ("seeds", "all"):
            write_tsv(args.out / "tables" / f"{name}.seeds.tsv", fold_seeds(args.out, name, metrics, args.folds,
                                                                               n=args.resamples))
        if args.step == "parses":
            if args.baseline is None:
                parser.error("parses needs --baseline")
            path = args.out / "tables" / f"{name}.parses.tsv"
            write_tsv(path, parse_effect(args.out, args.baseline, name, metrics, args.resamples))
            print(f"## {name}: parses of {args.out} - parses of {args.baseline}\n\n"
                  + parse_effect_markdown(_read_tsv(path)))
        if args.step in ("tables", "all"):
            text = markdown(args.out, name)
            (args.out / "tables" / f"{name}.md").write_text(text, encoding="utf-8")
            print(f"## {name}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
