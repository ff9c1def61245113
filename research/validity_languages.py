"""Validity per target language (issue 36, deliverable 4; ``docs/validity-languages.md``).

The study of ``docs/validity.md`` (``research/validity_study.py``, whose functions are reused) for
the non-English targets of ``../shared/data``:

* ``enru``: WMT21 en-ru, the 527 MQM-rated lines, reference A, 9 systems, MQM (natasha parses);
* ``enru-da``: the same experiment (same texts and cache) judged by WMT DA z on those lines;
* ``encs``: WMT24 en-cs, the 297 ESA-rated paragraphs (canary line 1 excluded), reference A, the 15
  ESA-rated systems, documents from ``docids.tsv`` (spaCy cs_core_news_sm);
* ``enfr``, ``enes``, ``encs12``: WMT12 en-fr / en-es / en-cs newstest2012, the lines that appear in
  the 5-way rankings, reference A, every system (spaCy fr/es/cs) but ``pctrans2010`` (en-cs), whose
  text has U+001F, refused by mteval's reader: its outputs are taken out of the events, the
  comparisons between the other systems of those events stay. Judged by WMT12's Kendall tau over
  the pairwise rankings (``mteval.meta.stats.wmt12_kendall``; ``iqeval -assessments rankings.tsv --corr wmt12``) and at
  system level by the WMT12 score (wins / (wins + losses)). For segment tau-b and ``mteval tune``,
  which need a score per (system, line), each output gets its *relative score*: the mean over the
  events that ranked it of (outputs it beat - outputs that beat it) / (outputs in the event - 1).

Steps (from the project root, ``PYTHONPATH=.``)::

    python research/validity_languages.py build  --out out/validity-languages
    python research/validity_languages.py setup  --out out/validity-languages [--only enru,encs] [-j 2]
    python research/validity_languages.py eval   --out out/validity-languages [--metrics 'SR-Or(*)']
    python research/validity_languages.py tune   --out out/validity-languages
    python research/validity_languages.py seeds  --out out/validity-languages   # fold seeds 1-4
    python research/validity_languages.py tables --out out/validity-languages

``validity_study``'s helpers address an experiment as ``OUT/wmt21-KEY``; the experiments here live in
folders named after their real test set (``wmt24-encs``, ``wmt12-enfr``) and ``build`` adds the
``wmt21-KEY`` alias as a symbolic link. ``enru-da`` shares ``wmt21-enru``'s experiment file (a link).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validity_study as vs  # noqa: E402

from mteval.io.rankings import RankingEvent, read_rankings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
KEYS = ("enru", "enru-da", "encs", "enfr", "enes", "encs12")
FOLDER = {"enru": "wmt21-enru", "enru-da": "wmt21-enru-da", "encs": "wmt24-encs",
          "enfr": "wmt12-enfr", "enes": "wmt12-enes", "encs12": "wmt12-encs"}
RANKED = ("enfr", "enes", "encs12")
LEFT_OUT = {"cs": ("pctrans2010",)}  # WMT12 en-cs: its text has U+001F, which mteval's reader refuses


@dataclass
class LangDataset(vs.Dataset):
    """A data set with a non-English target: every lexical and linguistic metric of the study."""

    rankings: list[RankingEvent] | None = None
    system_scores: dict[str, float] | None = None

    @property
    def metrics(self) -> list[str]:
        """The study's 14 lexical and 10 linguistic metrics (every family runs in ru, fr, es, cs)."""
        return vs.LEXICAL + vs.SYNTACTIC


def _scores(path: Path) -> dict[tuple[str, int], float]:
    """A ``system line score`` TSV (header skipped) as {(system, line): score}."""
    with open(path, encoding="utf-8") as f:
        return {(r["system"], int(r["line"])): float(r["score"]) for r in csv.DictReader(f, delimiter="\t")
                if r["line"] != "-"}


def _dataset(name: str, language: str, src: Path, lines: list[int], systems: Sequence[str],
             scores: dict[tuple[str, int], float], docids: list[str], kind: str) -> LangDataset:
    """Texts of ``lines`` (original, 1-based, renumbered 1..n), judgements of ``systems`` on them."""
    position = {k: i for i, k in enumerate(lines, start=1)}
    judgements = sorted((s, position[k], scores[s, k]) for s in systems for k in lines if (s, k) in scores)
    source = next(src.glob("src.*"))
    return LangDataset(name, language, vs._subset(lines, vs.read_lines(source)),
                       {"A": vs._subset(lines, vs.read_lines(src / "refs" / f"A.{language}"))},
                       {s: vs._subset(lines, vs.read_lines(src / "sys" / f"{s}.{language}")) for s in systems},
                       judgements, docids, lines, kind)


def enru(shared: Path, human: str = "mqm") -> LangDataset:
    """WMT21 en-ru on the MQM-rated lines; ``human``: mqm or da-z (on the same lines)."""
    src = shared / "wmt21-enru"
    systems = sorted(p.name[:-3] for p in (src / "sys").glob("*.ru"))
    mqm = _scores(src / "human" / "mqm.seg.tsv")
    lines = sorted({k for _, k in mqm})
    scores = mqm if human == "mqm" else _scores(src / "human" / "da-z.seg.tsv")
    name = "wmt21-enru" if human == "mqm" else "wmt21-enru-da"
    return _dataset(name, "ru", src, lines, systems, scores,
                    [f"block{(k - 1) // vs.BLOCK:04d}" for k in lines], "MQM" if human == "mqm" else "DA z")


def encs(shared: Path) -> LangDataset:
    """WMT24 en-cs on the ESA-rated paragraphs (never line 1, the canary), documents of docids.tsv."""
    src = shared / "wmt24-encs"
    esa = _scores(src / "human" / "esa.seg.tsv")
    systems = sorted({s for s, _ in esa})
    lines = sorted({k for _, k in esa if k != 1})
    docs = vs.read_lines(src / "docids.tsv")
    return _dataset("wmt24-encs", "cs", src, lines, systems, esa, [docs[k - 1] for k in lines], "ESA")


def relative_scores(events: Sequence[RankingEvent]) -> dict[tuple[str, int], float]:
    """(system, line) -> mean over its events of (outputs beaten - outputs beating it) / (outputs - 1)."""
    values: dict[tuple[str, int], list[float]] = defaultdict(list)
    for e in events:
        if len(e.ranks) < 2:
            continue
        for s, r in e.ranks:
            net = sum((r2 > r) - (r2 < r) for s2, r2 in e.ranks if s2 != s)
            values[s, e.line].append(net / (len(e.ranks) - 1))
    return {k: sum(v) / len(v) for k, v in values.items()}


def wmt12(shared: Path, language: str) -> LangDataset:
    """WMT12 en-LANG on the lines of its rankings; rankings renumbered to the experiment's lines. The
    outputs of a system of :data:`LEFT_OUT` are taken out of every event (the other pairs stay)."""
    src = shared / "wmt12-enxx"
    pair = f"en-{language}"
    every = sorted(p.name[: -len(language) - 1] for p in (src / "sys").glob(f"*.{language}"))
    systems = [s for s in every if s not in LEFT_OUT.get(language, ())]
    events = [RankingEvent(e.event, e.pair, e.line, e.judge, tuple((s, r) for s, r in e.ranks if s in systems))
              for e in read_rankings(src / "human" / "rankings.tsv", pair=pair, systems=every)]
    events = [e for e in events if len(e.ranks) >= 2]
    lines = sorted({e.line for e in events})
    position = {k: i for i, k in enumerate(lines, start=1)}
    ds = _dataset(f"wmt12-en{language}", language, src, lines, systems, relative_scores(events),
                  [f"block{(k - 1) // vs.BLOCK:04d}" for k in lines], "WMT12 relative ranking")
    ds.rankings = [RankingEvent(e.event, e.pair, position[e.line], e.judge, e.ranks) for e in events]
    scores = _read_system_scores(src / "human" / f"wmt12-score.{pair}.sys.tsv")  # WMT12's, all systems
    ds.system_scores = {s: v for s, v in scores.items() if s in systems}
    return ds


def _read_system_scores(path: Path) -> dict[str, float]:
    with open(path, encoding="utf-8") as f:
        return {r["system"]: float(r["score"]) for r in csv.DictReader(f, delimiter="\t") if r["line"] == "-"}


def datasets(shared: Path, keys: Sequence[str]) -> dict[str, LangDataset]:
    """The data sets of ``keys`` (see the module docstring)."""
    makers = {"enru": lambda: enru(shared), "enru-da": lambda: enru(shared, "da-z"), "encs": lambda: encs(shared),
              "enfr": lambda: wmt12(shared, "fr"), "enes": lambda: wmt12(shared, "es"),
              "encs12": lambda: wmt12(shared, "cs")}
    return {k: makers[k]() for k in keys}


def build(key: str, ds: LangDataset, out: Path) -> Path:
    """Write the experiment of ``ds`` (``validity_study.build``), its rankings and the wmt21-KEY alias."""
    folder = out / FOLDER[key]
    if key == "enru-da":  # same experiment as enru: a link to its file, its own judgements
        vs.write_lines(folder / "human.tsv", ["system\tsegment\tscore"]
                       + [f"{s}\t{i}\t{v!r}" for s, i, v in ds.judgements])
        _link(folder / "experiment.yaml", Path("..") / FOLDER["enru"] / "experiment.yaml")
        path = folder / "experiment.yaml"
    else:
        path = vs.build(ds, out)
    if ds.rankings is not None:
        rows = [f"{e.event}\t{e.pair}\t{e.line}\t{e.judge}\t{slot}\t{s}\t{r}"
                for e in ds.rankings for slot, (s, r) in enumerate(e.ranks, start=1)]
        vs.write_lines(folder / "rankings.tsv", ["event\tpair\tline\tjudge\tslot\tsystem\trank", *rows])
        vs.write_lines(folder / "human.sys.tsv", ["system\tline\tscore"]
                       + [f"{s}\t-\t{v!r}" for s, v in sorted((ds.system_scores or {}).items())])
    if FOLDER[key] != f"wmt21-{key}":
        _link(out / f"wmt21-{key}", Path(FOLDER[key]))
    return path


def _link(link: Path, target: Path) -> None:
    """A relative symbolic link ``link`` -> ``target`` (replaced when present)."""
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(target, link)


def setup(out: Path, keys: Sequence[str], jobs: int) -> None:
    """``iqsetup -j JOBS`` of each experiment, timed (parsing happens here); times in tables/timings.tsv."""
    import subprocess
    for key in keys:
        if key == "enru-da":
            continue
        start, cpu = time.time(), os.times()
        subprocess.run([*vs.IQSETUP, "-q", "-j", str(jobs), str(out / FOLDER[key] / "experiment.yaml")], check=True)
        end = os.times()
        used = (end.children_user - cpu.children_user) + (end.children_system - cpu.children_system)
        path = out / "tables" / "timings.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{key}\tiqsetup -j {jobs}\t{time.time() - start:.1f}\t{used:.1f}\n")


def evaluate_rankings(out: Path, key: str, metrics: Sequence[str], resamples: int = 1000) -> list[dict[str, object]]:
    """WMT12 tau of every metric over the rankings (CI over events), its paired bootstrap difference from
    chrF, and the system-level Spearman rho / Pearson r with the WMT12 score (CI over systems)."""
    folder = out / f"wmt21-{key}"
    config = str(folder / "experiment.yaml")
    common = ["-q", "--tsv", "--resamples", str(resamples)]
    rank = ["-assessments", str(folder / "rankings.tsv"), "--corr", "wmt12", "-G", "seg"]
    seg = vs._records(vs.run_cli("iqeval", [*common, *rank, "-M", ",".join(metrics), config],
                                 folder / "eval" / "wmt12.tsv"))
    sys_ = vs._records(vs.run_cli("iqeval", [*common, "-assessments", str(folder / "human.sys.tsv"), "-G", "sys",
                                             "--corr", "spearman,pearson", "-M", ",".join(metrics), config],
                                  folder / "eval" / "wmt12-sys.tsv"))
    rows: dict[str, dict[str, object]] = {m: {"dataset": key, "metric": m, "family": vs.family(m)} for m in metrics}
    for r in seg:
        rows[r["metric"]].update({"wmt12_tau": float(r["score"]), "wmt12_tau_low": float(r["ci_low"]),
                                  "wmt12_tau_high": float(r["ci_high"]), "pairs": int(r["n"]),
                                  "metric_ties": int(r["metric_ties"])})
    for r in sys_:
        name = {"spearman": "sys_rho", "pearson": "sys_r"}[r["correlation"]]
        rows[r["metric"]].update({name: float(r["score"]), f"{name}_low": float(r["ci_low"]),
                                  f"{name}_high": float(r["ci_high"])})
    tested = [*metrics, *([] if "chrF" in metrics else ["chrF"])]
    tests = vs._records(vs.run_cli("iqeval", [*common, *rank, "--significance", "-M", ",".join(tested), config],
                                   folder / "eval" / "wmt12-vs.tsv"))
    for r in tests:
        a, _, b = r["metric"].partition(">")
        if b == "chrF" and a in rows:
            rows[a].update({"delta_vs_chrF": float(r["score"]), "delta_low": float(r["ci_low"]),
                            "delta_high": float(r["ci_high"]), "boot_p_vs_chrF": float(r["p_value"])})
    return list(rows.values())


def _matrix(values, data, n_systems: int, n_rows: int):  # type: ignore[no-untyped-def]
    """Point values of judged ``data`` as a (system, row) matrix, NaN where there is no point."""
    import numpy as np
    out = np.full((n_systems, n_rows), np.nan)
    out[np.asarray(data.systems), np.asarray(data.items)] = values
    return out


def ranking_combination(out: Path, key: str, metrics: Sequence[str], folds: int = 5, n: int = 1000
                        ) -> list[dict[str, object]]:
    """The nested-CV test-fold predictions of every learner (all metrics, lexical only; trained on the
    relative scores) judged by the WMT12 tau over the rankings, against chrF (paired bootstrap over events)."""
    from mteval.evaluate.tuning import TuneOptions, learner_of
    from mteval.experiment.loading import load
    from mteval.meta.learn.nested_cv import nested_cv
    from mteval.meta.stats.wmt12_kendall import comparisons, paired_difference, wmt12_tau

    folder = out / f"wmt21-{key}"
    experiment = load(str(folder / "experiment.yaml"))
    n_rows = len(vs.read_lines(folder / "src.txt"))
    data, chrf = vs.judged_points(out, key, metrics)
    systems = list(experiment.system_names)  # every system has relative scores: rated = all, in this order
    pairs = comparisons(read_rankings(folder / "rankings.tsv", n_rows), systems)
    base = _matrix(chrf, data, len(systems), n_rows)
    rows: list[dict[str, object]] = [{"dataset": key, "model": "chrF", **_tau_row(wmt12_tau(pairs, base, n=n))}]
    sets = {"all": list(metrics), "lexical": [m for m in metrics if vs.family(m) == "lexical"]}
    for learner, (method, objective, select, greedy) in vs.LEARNERS.items():
        for set_name, features in sets.items():
            options = TuneOptions(method=method, objective=objective, folds=folds, select=select, greedy=greedy)
            nested = nested_cv(vs.columns(data, features), learner_of(options), folds, options.seed)
            values = _matrix(nested.predictions, data, len(systems), n_rows)
            diff = paired_difference(pairs, values, base, n=n)
            rows.append({"dataset": key, "model": f"{learner}/{set_name}", **_tau_row(wmt12_tau(pairs, values, n=n)),
                         "delta_vs_chrF": diff.delta, "delta_low": diff.low, "delta_high": diff.high,
                         "p": diff.p_value})
    return rows


def _tau_row(tau) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {"wmt12_tau": tau.value, "wmt12_tau_low": tau.low, "wmt12_tau_high": tau.high,
            "concordant": tau.concordant, "discordant": tau.discordant, "metric_ties": tau.metric_ties}


def tune(out: Path, key: str, metrics: Sequence[str], folds: int, resamples: int) -> None:
    """Combinations (validity_study's ablation, per-family gains, ``mteval tune`` reports) and, for the
    WMT12 sets, the learned combinations judged by the WMT12 tau."""
    tables = out / "tables"
    start = time.time()
    scores, diffs = vs.ablation(out, key, metrics, folds, resamples)
    vs.write_tsv(tables / f"{key}.combination.tsv", scores)
    vs.write_tsv(tables / f"{key}.differences.tsv", diffs)
    vs.write_tsv(tables / f"{key}.families.tsv", vs.family_gains(out, key, metrics, folds, resamples))
    if key in RANKED:
        vs.write_tsv(tables / f"{key}.combination-wmt12.tsv", ranking_combination(out, key, metrics, folds, resamples))
    if key != "enru-da":  # the same experiment as enru: one set of model files
        vs.tune_reports(out, key, metrics, folds)
    _time(out, key, "tune", time.time() - start)


def _time(out: Path, key: str, step: str, seconds: float) -> None:
    path = out / "tables" / "timings.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{key}\t{step}\t{seconds:.1f}\t\n")


def evaluate(out: Path, key: str, metrics: Sequence[str], resamples: int, only: Sequence[str] = ()) -> None:
    """validity_study's metric table (segment tau-b within lines, system r, PERM-BOTH/bootstrap against
    chrF) on the experiment's human scores; for WMT12 sets also the rankings table. ``only``: evaluate
    these metrics and replace their rows in the existing tables (e.g. after one metric's version changed)."""
    start = time.time()
    jobs = [(f"{key}.metrics.tsv", vs.evaluate)] + ([(f"{key}.wmt12.tsv", evaluate_rankings)] if key in RANKED else [])
    for name, function in jobs:
        rows = function(out, key, list(only or metrics), resamples)
        if only:
            new = {str(r["metric"]): r for r in rows}
            old: list[dict[str, object]] = [dict(r) for r in vs._read_tsv(out / "tables" / name)]
            rows = [new.get(str(r["metric"]), r) for r in old]
        vs.write_tsv(out / "tables" / name, rows)
    _time(out, key, "eval" + (f" ({','.join(only)})" if only else ""), time.time() - start)


def markdown(out: Path, key: str) -> str:
    """The tables of one data set: validity_study's (metrics, combinations, differences, families) and,
    for the WMT12 sets, the WMT12 tau of every metric and of every learned combination."""
    text = vs.markdown(out, key)
    if key not in RANKED:
        return text
    lines = ["", "| family | metric | WMT12 τ [95 % CI] | metric ties | τ − chrF [95 % CI] | p | "
             "system ρ [95 % CI] | system r [95 % CI] |", "|---|---|---|---|---|---|---|---|"]
    for r in vs._read_tsv(out / "tables" / f"{key}.wmt12.tsv"):
        p = f"{float(r['boot_p_vs_chrF']):.3f}" if r.get("boot_p_vs_chrF") else ""
        lines.append(f"| {r['family']} | {r['metric']} | {vs._ci(r, 'wmt12_tau', 'wmt12_tau_low', 'wmt12_tau_high')} | "
                     f"{r['metric_ties']} | {vs._ci(r, 'delta_vs_chrF', 'delta_low', 'delta_high', True)} | {p} | "
                     f"{vs._ci(r, 'sys_rho', 'sys_rho_low', 'sys_rho_high')} | "
                     f"{vs._ci(r, 'sys_r', 'sys_r_low', 'sys_r_high')} |")
    path = out / "tables" / f"{key}.combination-wmt12.tsv"
    if path.exists():
        lines += ["", "| model (test folds) | WMT12 τ [95 % CI] | − chrF [95 % CI] | p |", "|---|---|---|---|"]
        for r in vs._read_tsv(path):
            p = f"{float(r['p']):.3f}" if r.get("p") else ""
            lines.append(f"| {r['model']} | {vs._ci(r, 'wmt12_tau', 'wmt12_tau_low', 'wmt12_tau_high')} | "
                         f"{vs._ci(r, 'delta_vs_chrF', 'delta_low', 'delta_high', True)} | {p} |")
    return text + "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build | setup | eval | tune | seeds | tables | all."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("step", choices=["build", "setup", "eval", "tune", "seeds", "tables", "all"])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "validity-languages")
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--only", default=",".join(KEYS), help="comma-separated data sets: " + ",".join(KEYS))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--metrics", default="", help="eval: only these metrics (comma-separated), their rows "
                                                      "replaced in the existing tables")
    args = parser.parse_args(argv)
    keys = [k for k in args.only.split(",") if k]
    unknown = [k for k in keys if k not in KEYS]
    if unknown:
        parser.error(f"--only: unknown data set(s) {unknown}; known: {', '.join(KEYS)}")
    out = args.out.resolve()
    all_sets = datasets(args.shared, keys)
    if args.step in ("build", "all"):
        for key in keys:
            print(f"built {build(key, all_sets[key], out)}")
    if args.step in ("setup", "all"):
        setup(out, keys, args.jobs)
    for key in keys:
        metrics = all_sets[key].metrics
        if args.step in ("eval", "all"):
            evaluate(out, key, metrics, args.resamples, [m for m in args.metrics.split(",") if m])
        if args.step in ("tune", "all"):
            tune(out, key, metrics, args.folds, args.resamples)
        if args.step in ("seeds", "all"):  # ridge and greedy ULC under fold seeds 1-4 (validity_study.fold_seeds)
            start = time.time()
            vs.write_tsv(out / "tables" / f"{key}.seeds.tsv", vs.fold_seeds(out, key, metrics, args.folds,
                                                                             n=args.resamples))
            _time(out, key, "seeds", time.time() - start)
        if args.step in ("tables", "all"):
            text = markdown(out, key)
            (out / "tables" / f"{key}.md").write_text(text, encoding="utf-8")
            print(f"## {key}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
