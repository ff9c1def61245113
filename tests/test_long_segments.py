"""Very long segments: ROUGE, GTM, METEOR, DP, CP, CESM and DPM stay within memory and time, and their
bounded algorithms give the numbers of the plain ones.

Each family scores a pair of ~2,000-3,000 words in a child process whose address space is capped
a few hundred MB above its own baseline (after imports) and whose run time is limited, so that a
regression fails instead of exhausting the machine. The plain algorithms the bounded ones replaced
(ROUGE-1.5.5's full WLCS table and skip-bigram Counters, GTM 1.4's list of every candidate run,
Meteor's copy of every candidate path, listing every subtree) are written out below and compared on
small random inputs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from helpers import RUEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mteval.annotate.model import Sentence, Word
from mteval.metrics import cesm, constituency, dependency, edpm, gtm, rouge
from mteval.metrics.meteor import alignment, matchers

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
LINES = (RUEN / "refs" / "A.en").read_text(encoding="utf-8").splitlines()
OTHER = (RUEN / "sys" / sorted(p.name for p in (RUEN / "sys").iterdir())[0]).read_text(encoding="utf-8").splitlines()

# The child: cap the address space ``extra`` MB above what the interpreter holds after the imports,
# run ``body`` (which sets ``result``), print it as JSON.
CHILD = """
import json, resource, sys, time
sys.path.insert(0, {tests!r})
import numpy as np
import test_long_segments as T
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry
from mteval.metrics.base import Side
from mteval.annotate.model import Sentence, Word
registry.families()
vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + {extra} * 2**20, resource.RLIM_INFINITY))
start = time.perf_counter()
{body}
result["seconds"] = time.perf_counter() - start
print(json.dumps(result))
"""


def run_child(body: str, extra_mb: int, timeout: float) -> dict:
    """Run ``body`` in a capped child process (see ``CHILD``); its ``result`` dict."""
    code = CHILD.format(tests=os.path.dirname(__file__), extra=extra_mb, body=textwrap.dedent(body))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def real_words(n: int, lines: Sequence[str] = LINES) -> list[str]:
    """The first ``n`` words of consecutive real sentences (one long segment; the sample's
    sentences again from the start if it has fewer)."""
    words = " ".join(lines).split()
    return (words * (n // len(words) + 1))[:n]


def score_pair(family: str, hyp: str, ref: str, variants: list[str], **options: object) -> dict:
    """Segment scores of one lexical pair (used in the child)."""
    from mteval.io.corpus import DocumentIndex
    from mteval.metrics import registry
    from mteval.metrics.base import Side
    fam = registry.families()[family](**options)
    out = fam.score(Side("h", [hyp]), fam.prepare([Side("r", [ref])]), DocumentIndex.single(1), variants)
    return {v: float(out[v].segments[0]) for v in variants}


# --------------------------------------------------------------------------- ROUGE

def wlcs_reference(model: Sequence[str], peer: Sequence[str], weight: float = 1.2) -> float:
    """ROUGE-1.5.5's weighted LCS hit with the full tables (the plain algorithm)."""
    m, n = len(model), len(peer)
    if m == 0 or n == 0:
        return 0.0
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    run = [[0] * (n + 1) for _ in range(m + 1)]
    back = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if model[i - 1] == peer[j - 1]:
                k = run[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + (k + 1) ** weight - k ** weight
                run[i][j], back[i][j] = k + 1, 1
            elif c[i - 1][j] >= c[i][j - 1]:
                c[i][j], back[i][j] = c[i - 1][j], 2
            else:
                c[i][j], back[i][j] = c[i][j - 1], 3
    marked, i, j = [False] * m, m, n
    while i and j:
        if back[i][j] == 1:
            i, j = i - 1, j - 1
            marked[i] = True
        elif back[i][j] == 2:
            i -= 1
        else:
            j -= 1
    hit, length = 0.0, 0
    for flag in marked + [False]:
        if flag:
            length += 1
        elif length:
            hit, length = hit + length ** weight, 0
    return hit


def skip_reference(model: Sequence[str], peer: Sequence[str]) -> int:
    """Clipped skip-bigram hits from Counters of every pair (the plain algorithm)."""
    def pairs(t: Sequence[str]) -> Counter:
        return Counter((a, b) for i, a in enumerate(t) for b in t[i + 1:])
    pm, pp = pairs(model), pairs(peer)
    return sum(min(c, pp[g]) for g, c in pm.items())


TOKENS = st.lists(st.sampled_from("a b c d e".split()), max_size=30)


@SETTINGS
@given(TOKENS, TOKENS, st.sampled_from([1.2, 1.0, 2.0]), st.sampled_from([1, 2, 256]))
def test_rouge_bounded_algorithms_equal_plain_ones(a: list[str], b: list[str], weight: float, block: int) -> None:
    assert rouge.wlcs_hit(a, b, weight) == wlcs_reference(a, b, weight)
    assert rouge.skip_hits_blocked(a, b, block) == skip_reference(a, b)


def test_rouge_long_pair_bounded() -> None:
    result = run_child("""
        hyp, ref = " ".join(T.real_words(3000, T.OTHER)), " ".join(T.real_words(3000))
        v = ["ROUGE-L", "ROUGE-W", "ROUGE-S*", "ROUGE-SU*"]
        result = {"pair": T.score_pair("ROUGE", hyp, ref, v), "same": T.score_pair("ROUGE", ref, ref, v)}
        toks = T.rouge.rouge_tokens(ref)
        result["hit"] = T.rouge.skip_hits(toks, toks)
        result["n"] = len(toks)
    """, extra_mb=250, timeout=60)
    assert result["seconds"] < 20
    n = result["n"]
    assert result["hit"] == n * (n - 1) // 2  # every skip bigram of a text matches itself
    assert result["same"]["ROUGE-S*"] == 1.0 and result["same"]["ROUGE-L"] == 1.0
    assert all(0 < x < 1 for x in result["pair"].values())


# --------------------------------------------------------------------------- GTM

def gtm_reference(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> list[float]:
    """GTM 1.4's greedy matching over the list of every candidate run (the plain algorithm, which
    short segments take: ``gtm._candidate_list_runs``; ``test_lex_gtm`` checks it against GTM 1.4)."""
    grid: list[str | None] = []
    for ref in refs:
        grid += list(ref) + [None]
    cap = min(float(len(hyp)), sum(len(r) for r in refs) / len(refs)) if refs else 0.0
    return gtm._candidate_list_runs(tuple(hyp), grid, cap)


@SETTINGS
@given(TOKENS, st.lists(TOKENS, min_size=1, max_size=3), st.sampled_from([1, 2, 4096]),
       st.sampled_from([0, 10**9]), st.sampled_from([-1, 10**9]))
def test_gtm_bounded_greedy_equals_candidate_list(hyp: list[str], refs: list[list[str]], chunk: int,
                                                  literal: int, dense: int) -> None:
    """Every path of ``greedy_runs`` (GTM's candidate list for short segments, the interval search
    with its diagonals found one at a time or all at once, any chunk size) takes GTM's runs."""
    saved = gtm.CHUNK, gtm.LITERAL_CELLS, gtm.DENSE_CELLS
    gtm.CHUNK, gtm.LITERAL_CELLS, gtm.DENSE_CELLS = chunk, literal, dense
    try:
        assert gtm.greedy_runs(tuple(hyp), [tuple(r) for r in refs]) == gtm_reference(hyp, refs)
    finally:
        gtm.CHUNK, gtm.LITERAL_CELLS, gtm.DENSE_CELLS = saved


def test_gtm_long_pairs_bounded() -> None:
    result = run_child("""
        ref = " ".join(T.real_words(3000))
        alt = " ".join((["a", "a", "b"] * 1000)[:2000])
        result = {"same": T.score_pair("GTM", ref, ref, ["GTM-2"]),
                  "pair": T.score_pair("GTM", " ".join(T.real_words(3000, T.OTHER)), ref, ["GTM-2"]),
                  "alt": T.score_pair("GTM", alt, " ".join(["a"] * 2000), ["GTM-1", "GTM-2"]),
                  "alt3": T.score_pair("GTM", " ".join((["a", "a", "a", "b"] * 750)[:3000]),
                                       " ".join(["a"] * 3000), ["GTM-1"])}
    """, extra_mb=250, timeout=60)
    assert result["seconds"] < 20
    assert result["same"]["GTM-2"] == 1.0  # GTM 1.4 listed 4.5 M candidate runs here
    matched = sum(1 for k in range(2000) if k % 3 != 2)  # the hypothesis' a's, each matched once
    assert result["alt"]["GTM-1"] == pytest.approx(2 * matched / 4000)
    assert result["alt3"]["GTM-1"] == pytest.approx(2 * 2250 / 6000)  # millions of 3-cell runs
    assert 0 < result["pair"]["GTM-2"] < 1


# --------------------------------------------------------------------------- METEOR

def meteor_reference(stage: alignment.Stage, fixed: dict, beam: int) -> list:
    """Meteor's beam search copying every candidate path, then sorting them all (the plain one)."""
    start = alignment.PartialPath()
    for m in fixed.values():
        mask1, mask2 = alignment._masks(m)
        start.used1, start.used2 = start.used1 | mask1, start.used2 | mask2
    next_paths, n = [start], len(stage.ref)
    for current in range(n + 1):
        paths, next_paths = sorted(next_paths, key=alignment._rank), []
        for path in paths[:beam]:
            if current == n:
                path.chunks += path.last_end != -1
                next_paths.append(path)
                continue
            if path.used2 >> current & 1:
                kept = alignment._advance_used(path, current, fixed)
                next_paths += [kept] if kept is not None else []
                continue
            for m in stage.candidates(current):
                mask1, mask2 = alignment._masks(m)
                if path.used1 & mask1 or path.used2 & mask2:
                    continue
                new = path.copy()
                new.used1, new.used2, new.chain = new.used1 | mask1, new.used2 | mask2, (m, path.chain)
                new.take(m)
                path.distance += abs(m.start - m.match_start)
                next_paths.append(new)
            alignment._skip(path)
            next_paths.append(path)
        if not next_paths:
            next_paths.append(paths[0])
    best, chain, out = min(next_paths, key=alignment._rank), None, [None] * n
    for j, m in fixed.items():
        out[j] = m
    chain = best.chain
    while chain is not None:
        out[chain[0].start], chain = chain[0], chain[1]
    return out


WORDS = st.lists(st.sampled_from("the cat cats sat sit on a mat dog dogs run ran big large .".split()), max_size=25)


@SETTINGS
@given(WORDS, WORDS, st.sampled_from([1, 2, 3, 40]), st.sampled_from([1, 2, 16]), st.integers(1, 3))
def test_meteor_pruned_beam_equals_full_copies(hyp: list[str], ref: list[str], beam: int, vector_min: int,
                                               stages: int) -> None:
    saved, alignment.VECTOR_MIN = alignment.VECTOR_MIN, vector_min
    try:
        found = []
        for _ in range(2):
            stage = alignment.Stage(tuple(hyp), tuple(ref))
            for k, name in enumerate(("exact", "stem", "synonym")[:stages]):
                getattr(matchers, name)(k, stage)
            found.append(stage)
        plain = meteor_reference(found[0], alignment.definite_matches(found[0]), beam)
        assert alignment.resolve(found[1], alignment.definite_matches(found[1]), beam) == plain
    finally:
        alignment.VECTOR_MIN = saved


@pytest.mark.slow
def test_meteor_long_pair_bounded() -> None:
    result = run_child("""
        hyp, ref = " ".join(T.real_words(2500, T.OTHER)), " ".join(T.real_words(2500))
        result = {"pair": T.score_pair("METEOR", hyp, ref, ["MTR-exact", "MTR-stem"]),
                  "same": T.score_pair("METEOR", ref, ref, ["MTR-exact", "MTR-wnsyn"]),
                  "the": T.score_pair("METEOR", " ".join(["the"] * 2500), ref, ["MTR-exact"])}
    """, extra_mb=300, timeout=90)
    assert result["seconds"] < 15  # copying every candidate path: ~25 s here
    assert result["same"]["MTR-exact"] == result["same"]["MTR-wnsyn"] > 0.99  # one alignment, one chunk
    assert 0 < result["pair"]["MTR-exact"] <= result["pair"]["MTR-stem"] < 1
    assert 0 < result["the"]["MTR-exact"] < 0.1  # a degenerate output: 2,500 x 'the' (each a candidate)


# --------------------------------------------------------------------------- DP, CP

def tree_sentence(forms: Sequence[str], heads: Sequence[int], seed: int = 0) -> Sentence:
    """A parsed sentence with the given heads and varied tags and relations."""
    rng = random.Random(seed)
    tags = [("NOUN", "NN"), ("VERB", "VBD"), ("DET", "DT"), ("ADJ", "JJ"), ("ADP", "IN"), ("ADV", "RB")]
    rels = ["nsubj", "obj", "det", "amod", "case", "obl", "advmod", "conj"]
    words = []
    for i, (f, h) in enumerate(zip(forms, heads, strict=True), 1):
        upos, xpos = rng.choice(tags)
        words.append(Word(i, f, f.lower(), upos, xpos, "_", h, "root" if h == 0 else rng.choice(rels)))
    return Sentence(tuple(words), " ".join(forms))


def random_heads(n: int, rng: random.Random) -> list[int]:
    """Heads of a random tree: each word hangs from an earlier one (word 1 from the root)."""
    return [0] + [rng.randrange(1, i) if rng.random() < 0.5 else i - 1 for i in range(2, n + 1)]


@SETTINGS
@given(st.integers(1, 30), st.integers(0, 10_000))
def test_subtree_counts_equal_listed_subtrees(n: int, seed: int) -> None:
    rng = random.Random(seed)
    s = tree_sentence([rng.choice("a b c".split()) for _ in range(n)], random_heads(n, rng), seed)
    kids = s.children()
    forms = [""] + [w.form.lower() for w in s.words]
    rels = [""] + [w.deprel for w in s.words]

    def subtree(i: int) -> list[int]:
        return [i] + [k for c in kids[i] for k in subtree(c)]
    listed = Counter((rels[i], forms[k]) for i in range(1, n + 1) for k in subtree(i))
    assert dependency.relation_words(rels, forms, kids) == listed
    tree = constituency.project(s)

    def phrases(node) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
        if node.is_leaf:
            return []
        own = [(node.label, i) for i in node.leaves()] if node.label != "ROOT" else []
        return own + [p for c in node.children for p in phrases(c)]
    assert constituency.phrase_words(tree, forms) == Counter((t, forms[i]) for t, i in phrases(tree))

    def leaves(node) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
        return [(node.label, node.word)] if node.is_leaf else [x for c in node.children for x in leaves(c)]
    assert constituency.preterminals(tree) == leaves(tree)


def test_dp_deep_tree_bounded() -> None:
    result = run_child("""
        n = 5000
        forms = T.real_words(n)
        s = T.tree_sentence(forms, list(range(n)))  # a chain: word i hangs from word i-1
        fam = registry.families()["DP"]()
        side = Side("h", [s.text], [s])
        out = fam.score(side, fam.prepare([side]), DocumentIndex.single(1), ["DP-Or(*)", "DP-HWCM_w-4"])
        result = {v: float(x.segments[0]) for v, x in out.items()}
    """, extra_mb=100, timeout=60)
    assert result["seconds"] < 20  # listing the subtrees of a 5,000-word chain is 12.5 M pairs (> 100 MB)
    assert result["DP-Or(*)"] == 1.0 and result["DP-HWCM_w-4"] == 1.0


# --------------------------------------------------------------------------- CESM

def random_tree(rng: random.Random, n: int, labels: int) -> cesm.OrderedTree:
    parents = [-1] + [rng.randrange(0, i) if rng.random() < 0.5 else i - 1 for i in range(1, n)]
    return cesm.tree_from_parents([rng.randrange(labels) for _ in range(n)], parents)


@SETTINGS
@given(st.integers(0, 10_000), st.sampled_from([0, 10, 200]))
def test_cesm_chunked_sweep_equals_one_sweep(seed: int, cells: int) -> None:
    rng = random.Random(seed)
    t1, t2 = random_tree(rng, rng.randrange(1, 40), rng.choice([1, 2, 4])), random_tree(rng, rng.randrange(1, 40), 2)
    whole = cesm.acet(t1, t2)
    saved, cesm.MAX_CELLS = cesm.MAX_CELLS, cells
    try:
        assert cesm.acet(t1, t2) == whole
    finally:
        cesm.MAX_CELLS = saved


@pytest.mark.slow  # ~3 s: in make test-all (the fast tier stays near 8 minutes)
def test_cesm_work_bound_gives_nan_not_a_crash() -> None:
    """A 2,000-word chain (DP of ~5e10 cells) is refused at once; a 2,000-word multi-sentence
    segment (counts past float64: long double) is scored within the memory cap."""
    result = run_child("""
        n = 2000
        forms = T.real_words(n)
        chain = T.tree_sentence(forms, list(range(n)))
        heads = [0 if i % 25 == 1 else i - 1 for i in range(1, n + 1)]  # 80 sentences of 25 words
        multi = T.tree_sentence(forms, heads)
        fam = registry.families()["CESM"]()
        out = {}
        for name, s in (("chain", chain), ("multi", multi)):
            side = Side("h", [s.text], [s])
            scored = fam.score(side, fam.prepare([side]), DocumentIndex.single(1), ["CESM", "CESM-anyroot"])
            out[name] = {v: float(x.segments[0]) for v, x in scored.items()}
        result = {"scores": out, "signature": fam.signature("CESM")}
    """, extra_mb=450, timeout=90)
    assert result["seconds"] < 40
    chain, multi = result["scores"]["chain"], result["scores"]["multi"]
    assert all(x != x for x in chain.values())  # NaN: over the bound, said in the log
    assert multi == {"CESM": pytest.approx(1.0), "CESM-anyroot": pytest.approx(1.0)}
    assert f"maxwork:{cesm.MAX_WORK}" in result["signature"]


# --------------------------------------------------------------------------- DPM

@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_dpm_sparse_pairs_match_dense_tables(seed: int, labels: int) -> None:
    rng = random.Random(seed)
    size, n = rng.randrange(1, 8), rng.randrange(0, 30)
    rows = [rng.randrange(size) * labels + rng.randrange(labels) for _ in range(n)]
    cols = [rng.randrange(size) for _ in range(n)]
    other_rows = [rng.randrange(size) * labels + rng.randrange(labels) for _ in range(n)]
    a = edpm.Pairs.count(np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), size, labels)
    b = edpm.Pairs.count(np.array(other_rows, dtype=np.int64), np.array(cols[::-1], dtype=np.int64), size, labels)
    common = np.array(sorted(rng.sample(range(size), rng.randrange(size + 1))), dtype=np.intp)
    mine = rng.sample(range(size), len(common))
    dense = np.minimum(a.dense()[common][:, :, common], b.dense()[mine][:, :, mine]).sum()
    assert a.match(b, common, np.array(mine, dtype=np.intp), labels) == dense


def test_dpm_long_pair_bounded() -> None:
    result = run_child("""
        n = 5000
        hyp = T.tree_sentence(T.real_words(n, T.OTHER), list(range(n)), 1)
        ref = T.tree_sentence(T.real_words(n), [0 if i % 25 == 1 else i - 1 for i in range(1, n + 1)], 2)
        fam = registry.families()["DPM"]()
        out = fam.score(Side("h", [hyp.text], [hyp]), fam.prepare([Side("r", [ref.text], [ref])]),
                        DocumentIndex.single(1), ["DPM", "DPM-dlh", "DPM-dh", "DPM-2g"])
        result = {v: float(x.segments[0]) for v, x in out.items()}
    """, extra_mb=150, timeout=60)
    assert result["seconds"] < 10  # the dense (types x labels x types) dlh table alone was GBs
    assert all(0 < result[v] < 1 for v in ("DPM", "DPM-dlh", "DPM-dh", "DPM-2g"))


def test_edpm_over_long_sentence_counts_its_tree() -> None:
    """A 1,500-word sentence (one part of its arc scores) is past ``MAX_PART``: EDPM counts its
    1-best tree (DPM's number) instead of an O(n^3) expectation, and says so in the signature."""
    result = run_child("""
        from mteval.annotate.model import ArcScores
        n = 1500
        heads = [0 if i % 25 == 1 else i - 1 for i in range(1, n + 1)]
        sents = []
        for seed, lines in ((1, T.OTHER), (2, T.LINES)):
            s = T.tree_sentence(T.real_words(n, lines), heads, seed)
            arcs = np.random.default_rng(seed).normal(size=(n + 1, n + 1)).astype(np.float32)
            arcs[heads, np.arange(1, n + 1)] += 5
            labels = ("nsubj", "obj", "det", "amod", "case", "obl", "advmod", "conj", "root")
            logp = np.full((n, 1, len(labels)), np.log(1 / len(labels)), dtype=np.float16)
            sents.append(Sentence(s.words, s.text, (), ArcScores(arcs, labels, np.array(heads)[:, None], logp)))
        hyp, ref = (Side(k, [s.text], [s]) for k, s in zip("hr", sents))
        result = {}
        for family in ("EDPM", "DPM"):
            fam = registry.families()[family]()
            out = fam.score(hyp, fam.prepare([ref]), DocumentIndex.single(1), [family])
            result[family] = float(out[family].segments[0])
            result[family + "_signature"] = fam.signature(family)
    """, extra_mb=300, timeout=60)
    assert result["seconds"] < 10
    assert result["EDPM"] == result["DPM"] and 0 < result["DPM"] < 1
    assert f"maxpart:{edpm.MAX_PART}" in result["EDPM_signature"]
