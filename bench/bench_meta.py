"""Benchmark of the meta-evaluation core (``make bench``): vectorised numpy vs the literal loops.

1. QUEEN for 20 systems x 3 references x 1000 segments x 30 metrics (synthetic random scores).
2. Greedy KING optimisation over the same 30 metrics (segment level).
3. With ../shared: the QARLA report on WMT21 en-de (20 systems, references A C D, lexical
   metrics BLEU, chrF, -TER, unigram P1/R1): QUEEN per system, KING per metric, the greedy trace
   and JACK on the greedy optimum. ``--ende N`` sets the number of segments (default 60; the
   system/system TER scores JACK needs take most of the time).
4. ``--correlations``: correlation tables with 95 % bootstrap CIs for the same lexical metrics on
   WMT21 ru-en (DA) and zh-en (MQM), system and segment level (about two minutes).

The literal loop implementations (``tests/test_meta_literal.py``, the specification the unit tests
check against) are far too slow for the full size, so they are timed on a slice of the segments
and extrapolated linearly (their cost is linear in the number of segments); the table says so.
Targets: QUEEN < 1 s, greedy KING < 10 s, >= 100x the loop.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_meta_lexical import ENDE, METRICS, LexicalScorer, with_sys_sys, wmt21_ende  # noqa: E402
from test_meta_literal import greedy_literal, queen_all  # noqa: E402

from mteval.evaluate.correlate import correlation_records, segment_points, system_points  # noqa: E402
from mteval.io.assessments import Assessments, read_assessments  # noqa: E402
from mteval.meta.qarla.jack import jack  # noqa: E402
from mteval.meta.qarla.king import king  # noqa: E402
from mteval.meta.qarla.optimize import greedy_king  # noqa: E402
from mteval.meta.qarla.queen import QarlaData, aggregate, queen, ratio  # noqa: E402
from mteval.metrics.base import ScoreSet  # noqa: E402

DATA = ENDE.parent

N_SYS, N_REF, N_SEG, N_MET = 20, 3, 1000, 30


def synthetic(n_seg: int, seed: int = 0) -> QarlaData:
    """Random similarities: references a bit closer to each other than systems are to them,
    metrics correlated through a shared per-segment quality (so KING is not trivial)."""
    rng = np.random.default_rng(seed)
    quality = rng.random((1, N_SYS, 1, n_seg))
    sys_ref = 0.3 + 0.5 * quality + 0.2 * rng.random((N_MET, N_SYS, N_REF, n_seg))
    ref_ref = 0.45 + 0.4 * rng.random((N_MET, N_REF, N_REF, n_seg))
    sys_ref, ref_ref = np.round(sys_ref, 2), np.round(ref_ref, 2)  # some ties
    return QarlaData(tuple(f"m{i}" for i in range(N_MET)), tuple(f"s{i}" for i in range(N_SYS)),
                     tuple(f"r{i}" for i in range(N_REF)), sys_ref, ref_ref, np.ones(N_MET, dtype=bool))


def timed(fn, repeat: int = 1) -> float:
    """Best wall time of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def speed() -> None:
    """Sections 1 and 2: the timing table."""
    data = synthetic(N_SEG)
    rows = []
    t_queen = timed(lambda: queen(data), repeat=3)
    loop_seg = 20
    small = QarlaData(data.metrics, data.systems, data.references, data.sys_ref[..., :loop_seg],
                      data.ref_ref[..., :loop_seg], data.higher_is_better)
    hits, trials = queen_all(small.sys_ref, small.ref_ref, list(small.higher_is_better))
    assert np.array_equal(hits, queen(small).hits) and np.array_equal(trials, queen(small).trials)
    t_loop = timed(lambda: queen_all(small.sys_ref, small.ref_ref, [True] * N_MET)) * N_SEG / loop_seg
    rows.append(("QUEEN 20x3x1000x30", t_queen, t_loop, f"loop on {loop_seg} segs x{N_SEG // loop_seg}", 1.0))

    t_greedy = timed(lambda: greedy_king(data, level="seg"))
    loop_seg = 10
    small = QarlaData(data.metrics, data.systems, data.references, data.sys_ref[..., :loop_seg],
                      data.ref_ref[..., :loop_seg], data.higher_is_better)
    start = time.perf_counter()
    names, value = greedy_literal(small.sys_ref, small.ref_ref, [True] * N_MET, small.metrics)
    t_loop = (time.perf_counter() - start) * N_SEG / loop_seg
    check = greedy_king(small, level="seg")
    assert list(check.metrics) == names and abs(check.king.value - value) < 1e-12
    rows.append(("greedy KING, 30 metrics", t_greedy, t_loop, f"loop on {loop_seg} segs x{N_SEG // loop_seg}",
                 10.0))

    print(f"{'task':26} {'numpy s':>9} {'loop s (est.)':>14} {'ratio':>8} {'target s':>9}  loop timing")
    ok = True
    for name, fast, slow, how, target in rows:
        ratio = slow / fast
        ok &= fast < target and ratio >= 100
        print(f"{name:26} {fast:9.3f} {slow:14.1f} {ratio:7.0f}x {target:9.1f}  {how}")
    result = greedy_king(data, level="seg")
    print(f"greedy optimum: {len(result.metrics)} metrics, KING {result.king.value:.4f} "
          f"({result.king.hits}/{result.king.trials})")
    print("targets met" if ok else "TARGETS NOT MET")


def ende_report(n_segments: int) -> None:
    """Section 3: QUEEN, KING, greedy trace and JACK on WMT21 en-de."""
    start = time.perf_counter()
    data, systems = wmt21_ende(n_segments)
    q = aggregate(queen(data), "sys")
    print(f"\nWMT21 en-de, first {n_segments} segments, refs {' '.join(data.references)}, "
          f"metrics {' '.join(METRICS)}")
    print(f"{'system':16} {'QUEEN':>7} {'hits':>7} {'triples':>8}")
    for i in np.argsort(-ratio(q)):
        print(f"{data.systems[i]:16} {ratio(q)[i]:7.4f} {q.hits[i]:7d} {q.trials[i]:8d}")
    print(f"\n{'metric':8} {'KING seg':>9} {'hits/trials':>12} {'KING sys':>9}")
    for metric in METRICS:
        seg, sys_level = king(data, [metric], "seg"), king(data, [metric], "sys")
        print(f"{metric:8} {seg.value:9.4f} {f'{seg.hits}/{seg.trials}':>12} {sys_level.value:9.4f}")
    greedy = greedy_king(data, level="seg")
    print("\ngreedy KING (seg): metric, own KING, set KING with it, accepted")
    for step in greedy.trace:
        print(f"  {step.metric:8} {step.single.value:.4f} {step.combined.value:.4f} "
              f"{'yes' if step.accepted else 'no'}")
    print(f"optimal set {{{', '.join(greedy.metrics)}}}: KING {greedy.king.value:.4f}")
    j = jack(with_sys_sys(data, systems, greedy.metrics))
    print(f"JACK on the optimal set: {j.hits.sum() / j.trials.sum():.4f} ({j.hits.sum()}/{j.trials.sum()})"
          f"   [{time.perf_counter() - start:.0f} s]")


def _human_file(rows: list[str], tmp: Path) -> Path:
    tmp.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp


def _lexical_scores(folder: Path, systems: list[str], ref: str, suffix: str) -> dict[str, dict[str, ScoreSet]]:
    """Segment scores (fast scorers) and corpus scores (sacreBLEU corpus BLEU/chrF, corpus TER from
    summed edit statistics; mean P1/R1)."""
    import sacrebleu

    refs = (folder / "refs" / f"{ref}.{suffix}").read_text(encoding="utf-8").splitlines()
    score = LexicalScorer()
    out: dict[str, dict[str, ScoreSet]] = {m: {} for m in METRICS}
    for system in systems:
        hyps = (folder / "sys" / f"{system}.{suffix}").read_text(encoding="utf-8").splitlines()
        segments = score(hyps, refs)
        corpus = {"BLEU": sacrebleu.corpus_bleu(hyps, [refs]).score / 100,
                  "chrF": sacrebleu.corpus_chrf(hyps, [refs]).score / 100,
                  "-TER": score.corpus_ter(hyps, refs)}
        for k, metric in enumerate(METRICS):
            out[metric][system] = ScoreSet(corpus.get(metric, float(segments[k].mean())), {}, segments[k])
    return out


def _table(title: str, records: list[dict]) -> None:
    names = list(dict.fromkeys(r["target"] for r in records))
    print(f"\n{title}\n{'metric':8} " + " ".join(f"{n:>26}" for n in names))
    for metric in METRICS:
        cells = {r["target"]: f"{r['score']:+.3f} [{r['ci_low']:+.3f},{r['ci_high']:+.3f}]"
                 for r in records if r["metric"] == metric}
        print(f"{metric:8} " + " ".join(f"{cells.get(n, '-'):>26}" for n in names))


def correlations(n_resamples: int = 1000) -> None:
    """Section 4: correlation tables on WMT21 ru-en (DA) and zh-en (MQM)."""
    import tempfile

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (human, systems, ref, suffix) in _human_sets(Path(tmp)).items():
            scores = _lexical_scores(DATA / name, systems, ref, suffix)
            n = len(next(iter(scores["BLEU"].values())).segments)
            seg = segment_points(human, scores, systems, lambda m: True, np.arange(n))
            sys_points = system_points(human, scores, systems, lambda m: True)
            stats = ["pearson", "spearman", "kendall", "accuracy"]
            _table(f"{name}: system level, {len(sys_points.human)} systems, 95% CI resampling segments",
                   correlation_records(sys_points, "sys", ref, stats, n_resamples=n_resamples))
            seg_stats = ["pearson", "kendall", "kendall-wmt12"] + (["kendall-wmt20"] if "ruen" in name else [])
            _table(f"{name}: segment level, {int((~np.isnan(seg.human)).sum())} rated translations, "
                   f"95% CI over segments", correlation_records(seg, "seg", ref, seg_stats,
                                                                n_resamples=n_resamples // 5))
    print(f"[{time.perf_counter() - start:.0f} s]")


def _human_sets(tmp: Path) -> dict[str, tuple[Assessments, list[str], str, str]]:
    """The DA (ru-en: raw segment DA, official system z) and MQM (zh-en) judgements as assessments."""
    out = {}
    ruen = DATA / "wmt21-ruen"
    lines = (ruen / "human" / "da_seg_scores.by_line.tsv").read_text(encoding="utf-8").splitlines()[1:]
    rows = [f"{c[0]} {c[3]} {c[6]}" for c in (line.split("\t") for line in lines) if c[0] != "ref-B"]
    names = {"Nemo": "NVIDIA-NeMo"}
    for line in (ruen / "human" / "ad-sys-scores-ru-en.csv").read_text(encoding="utf-8").splitlines()[1:]:
        z, system = line.split()[1], line.split()[3].rsplit(".", 1)[0]
        if system != "HUMAN":
            rows.append(f"{names.get(system, system)} - {z}")
    systems = sorted(p.stem for p in (ruen / "sys").glob("*.en"))
    out["wmt21-ruen"] = (read_assessments(_human_file(rows, tmp / "ruen.tsv"), 1000), systems, "A", "en")
    zhen = DATA / "wmt21-zhen"
    with_text = {p.stem for p in (zhen / "sys").glob("*.en")}
    rows = [f"{parts[0]} {parts[2]} {parts[1]}" for parts in (line.split() for line in
            (zhen / "human" / "mqm_newstest2021_zhen.avg_seg_scores.tsv").read_text().splitlines()[1:])
            if parts[1] != "None" and parts[0] in with_text]
    systems = sorted({r.split()[0] for r in rows})
    out["wmt21-zhen"] = (read_assessments(_human_file(rows, tmp / "zhen.tsv"), 1948), systems, "A", "en")
    return out


def main(argv: list[str]) -> int:
    speed()
    if not ENDE.exists():
        print("\n../shared/data is absent: WMT21 sections skipped")
        return 0
    ende_report(int(argv[argv.index("--ende") + 1]) if "--ende" in argv else 60)
    if "--correlations" in argv:
        correlations()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
