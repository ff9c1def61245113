"""Word and character alignments as jiwer 4.0 computes and prints them.

jiwer's ``process_words`` / ``process_characters`` (with their default transforms ``wer_default``
and ``cer_default``) align each reference with its hypothesis by rapidfuzz's Levenshtein
``opcodes`` (reference first) and count hits H, substitutions S, deletions D and insertions I from
that one alignment; the measures follow from the counts pooled over the sentences (Morris et al.
2004, "From WER and RIL to MER and WIL"):

* WER = (S + D + I) / (H + S + D), CER the same on characters;
* MER = (S + D + I) / (H + S + D + I);
* WIP = (H / N_ref) * (H / N_hyp), WIL = 1 - WIP;
* no reference word at all: WER = I (a count, not a rate), MER = 1 and WIP = 0 unless the
  hypothesis is empty too (MER = 0, WIP = 1).

Tokens: jiwer's ``wer_default`` (runs of two or more whitespace characters become one space, the
text is stripped, words are split on the space character only: a single tab stays inside a word)
and ``cer_default`` (stripped, every character a token, spaces included).

:func:`edit_counts` gives (H, S, D, I) from rapidfuzz's ``editops``, the alignment rapidfuzz's
``opcodes`` is made of; :func:`process` keeps the opcodes and :func:`visualize` prints them in
jiwer's ``visualize_alignment`` format (``mteval score --align``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

__all__ = ["Alignment", "Chunk", "edit_counts", "jiwer_chars", "jiwer_words", "measures", "process", "visualize"]

_RUNS = re.compile(r"\s\s+")
Chunk = tuple[str, int, int, int, int]  # (type, ref_start, ref_end, hyp_start, hyp_end), jiwer's AlignmentChunk
Counts = tuple[int, int, int, int]  # (hits, substitutions, deletions, insertions)


def jiwer_words(text: str) -> list[str]:
    """jiwer's ``wer_default``: ``RemoveMultipleSpaces``, ``Strip``, ``ReduceToListOfListOfWords``."""
    return [w for w in _RUNS.sub(" ", text).strip().split(" ") if w]


def jiwer_chars(text: str) -> str:
    """jiwer's ``cer_default`` (``Strip``, ``ReduceToListOfListOfChars``): the characters to align."""
    return text.strip()


def edit_counts(ref: Sequence[Hashable], hyp: Sequence[Hashable]) -> Counts:
    """(H, S, D, I) of rapidfuzz's Levenshtein alignment of ``ref`` to ``hyp``, as jiwer's
    ``process_words`` counts them from ``opcodes`` (the same alignment as ``editops``)."""
    if ref == hyp:
        return len(ref), 0, 0, 0
    if not ref or not hyp:
        return 0, 0, len(ref), len(hyp)
    ops = Levenshtein.editops(ref, hyp).as_list()
    subs = [tag for tag, _, _ in ops].count("replace")
    dels = (len(ops) - subs + len(ref) - len(hyp)) // 2  # D + I = edits - S, D - I = |ref| - |hyp|
    ins = len(ops) - subs - dels
    return len(ref) - subs - dels, subs, dels, ins


def measures(hits: int, subs: int, dels: int, ins: int) -> dict[str, float]:
    """jiwer's ``wer``, ``mer``, ``wil``, ``wip`` of pooled counts, computed in jiwer's order."""
    n_ref, n_hyp = hits + subs + dels, hits + subs + ins
    if n_ref == 0:
        wer: float = ins
        mer, wip = (0.0, 1.0) if n_hyp == 0 else (1.0, 0.0)
    else:
        wer = float(subs + dels + ins) / float(hits + subs + dels)
        mer = float(subs + dels + ins) / float(hits + subs + dels + ins)
        wip = (float(hits) / n_ref) * (float(hits) / n_hyp) if n_hyp >= 1 else 0.0
    return {"wer": wer, "mer": mer, "wil": 1 - wip, "wip": wip}


@dataclass(frozen=True)
class Alignment:
    """jiwer's ``WordOutput`` / ``CharacterOutput``: tokens, chunks per sentence, pooled counts."""

    references: list[list[str]]
    hypotheses: list[list[str]]
    chunks: list[list[Chunk]]
    chars: bool

    def counts(self) -> Counts:
        """Pooled (H, S, D, I) over the sentences."""
        hits = subs = dels = ins = 0
        for sentence in self.chunks:
            for kind, r1, r2, h1, h2 in sentence:
                if kind == "equal":
                    hits += r2 - r1
                elif kind == "substitute":
                    subs += r2 - r1
                elif kind == "delete":
                    dels += r2 - r1
                else:
                    ins += h2 - h1
        return hits, subs, dels, ins


def process(references: Sequence[str], hypotheses: Sequence[str], chars: bool = False,
            lower: bool = False) -> Alignment:
    """jiwer's ``process_words`` (``process_characters`` with ``chars``) of sentence lists with the
    default transforms (``lower``: ``ToLowerCase`` first); one chunk list per sentence pair."""
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} reference sentences but {len(hypotheses)} hypothesis sentences")
    split = (lambda t: list(jiwer_chars(t))) if chars else jiwer_words
    refs = [split(t.lower() if lower else t) for t in references]
    hyps = [split(t.lower() if lower else t) for t in hypotheses]
    ids: dict[str, int] = {}
    chunks = []
    for ref, hyp in zip(refs, hyps, strict=True):
        ref_ids = [ids.setdefault(w, len(ids)) for w in ref]
        hyp_ids = [ids.setdefault(w, len(ids)) for w in hyp]
        chunks.append([("substitute" if op.tag == "replace" else op.tag, op.src_start, op.src_end,
                        op.dest_start, op.dest_end) for op in Levenshtein.opcodes(ref_ids, hyp_ids)])
    return Alignment(refs, hyps, chunks, chars)


def visualize(alignment: Alignment, show_measures: bool = True, skip_correct: bool = True,
              line_width: int | None = None) -> str:
    """jiwer's ``visualize_alignment``: a REF/HYP/marker block per sentence with an error (S, D, I
    under the words), then the pooled counts and measures."""
    out = []
    rows = zip(alignment.references, alignment.hypotheses, alignment.chunks, strict=True)
    for number, (ref, hyp, chunks) in enumerate(rows, start=1):
        if skip_correct and (not chunks or (len(chunks) == 1 and chunks[0][0] == "equal")):
            continue
        out.append(f"=== SENTENCE {number} ===\n\n")
        out.append(_block(ref, hyp, chunks, not alignment.chars, line_width) + "\n")
    text = "".join(out)
    if not show_measures:
        return text[:-1]
    return text + _summary(alignment)


def _summary(alignment: Alignment) -> str:
    """The ``=== SUMMARY ===`` part of :func:`visualize`."""
    hits, subs, dels, ins = alignment.counts()
    head = (f"=== SUMMARY ===\nnumber of sentences: {len(alignment.chunks)}\n"
            f"substitutions={subs} deletions={dels} insertions={ins} hits={hits}\n")
    found = measures(hits, subs, dels, ins)
    if alignment.chars:
        return head + f"\ncer={found['wer'] * 100:.2f}%\n"
    return head + "".join(f"\n{name}={found[name] * 100:.2f}%" for name in ("mer", "wil", "wip", "wer")) + "\n"


def _cells(ref: list[str], hyp: list[str], chunk: Chunk) -> list[tuple[str, str, str]]:
    """(reference token, hypothesis token, marker) of each column of one chunk; ``*`` fills a gap."""
    kind, r1, r2, h1, h2 = chunk
    if kind == "insert":
        return [("*", word, "I") for word in hyp[h1:h2]]
    if kind == "delete":
        return [(word, "*", "D") for word in ref[r1:r2]]
    marker = " " if kind == "equal" else "S"
    return list(zip(ref[r1:r2], hyp[h1:h2], [marker] * (r2 - r1), strict=True))


def _block(ref: list[str], hyp: list[str], chunks: list[Chunk], spaced: bool, line_width: int | None) -> str:
    """The REF/HYP/marker lines of one sentence, wrapped before ``line_width`` as jiwer wraps them."""
    sep = " " if spaced else ""
    lines = [["REF: "], ["HYP: "], ["     "]]
    done = []
    for chunk in chunks:
        for r, h, marker in _cells(ref, hyp, chunk):
            width = max(len(r), len(h), 1)
            if line_width is not None and sum(map(len, lines[0])) + width > line_width:
                done.append("\n".join(_joined(line, spaced) for line in lines) + "\n\n")
                lines = [["REF: "], ["HYP: "], ["     "]]
            if r == "*":
                r = "*" * width
            elif h == "*":
                h = "*" * width
            for line, cell in zip(lines, (r, h, marker), strict=True):
                line.append(cell.rjust(width) + sep)
    return "".join(done) + "\n".join(_joined(line, spaced) for line in lines) + "\n"


def _joined(parts: list[str], spaced: bool) -> str:
    """One line of a block: its cells, without the separator after the last one."""
    text = "".join(parts)
    return text[:-1] if spaced else text
