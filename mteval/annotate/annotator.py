"""Annotate segment texts once per campaign: deduplicate, read the cache, parse what is missing.

The API every syntactic metric and the pipeline code against::

    ann = Annotator(cache_dir)            # language "en", embedded models unless others are found
    sentences = ann.annotate(texts)       # one Sentence per text, in order
    scores = ann.arc_scores(texts)        # one ArcScores per text (EDPM)
    full = ann.annotate_with_scores(texts)  # Sentences whose .scores are set
    ann.identity()                        # goes into every score signature

Texts are cleaned first (:mod:`mteval.annotate.textprep`: control characters removed, whitespace
flattened so a segment is one sentence, at most 250 words and 5,000 characters); equal cleaned
texts are parsed once. Each distinct text is parsed on its own (``stanza_adapter.PARSE_SCHEME``;
only the tokenizer and the taggers, whose outputs are labels, see several at once:
``stanza_adapter.TAG_BATCH``), so its annotation never depends on what else is parsed with it, the
batch size or the workers.
``device`` (``auto``, ``cpu``, ``cuda[:N]``: :func:`stanza_adapter.resolve_device`) is where Stanza
runs; a GPU's parses have their own identity.
Empty texts give an empty Sentence without calling the parser. Stanza is loaded only when some
text is not in the cache, so a warm re-run never imports torch.

The backend (``backend=``/``model=``, else the language's default: :mod:`mteval.annotate.backends`)
is Stanza or one of the others (spaCy, natasha); all give the same Sentences and cache, and the
backend's identity is in every cache key, so caches of different backends never mix.
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from mteval import progress
from mteval.annotate.backends import Backend, Parser
from mteval.annotate.backends import select as select_backend
from mteval.annotate.chunking import MAX_SEGMENT_WORDS
from mteval.annotate.conllu_cache import AnnotationCache, cache_key
from mteval.annotate.model import ArcScores, Sentence
from mteval.annotate.remote import ModelSpec, Parsed, RemoteParser
from mteval.annotate.stanza_adapter import (
    DEFAULT_PROCESSORS,
    WORDS_CUT,
    ModelChoice,
    StanzaParser,
    available_processors,
    check_device,
    gpu_memory,
    model_identity,
    on_device,
    require_stanza,
    resolve_models,
)
from mteval.annotate.textprep import MAX_WORDS, max_chars, prepare_text
from mteval.errors import ConfigError, MtevalError

LOG = logging.getLogger(__name__)
BATCH_SIZE = 500  # segments per parse call and per cache shard
# workers=None: parse in min(cores, AUTO_WORKERS) single-thread processes when at least
# AUTO_PARALLEL_MIN segments are to be parsed (each worker loads the models: ~600 MB, a few seconds)
AUTO_WORKERS = 4
# On a GPU one process leaves it idle between its Python steps (one process: 140-147 sent/s on an
# H200), so several processes drive the one GPU. Measured on an H200 with 16 cores
# (bench/bench_parse_gpu.sh, pool rows: steady rate after the models load), 2026-11-28: 8 workers
# 501 sent/s, 12 576-657, 16 602-638; the GPU then reads 95-99 % busy, its time sliced between the
# processes' contexts. 12: as fast as 16 within the runs' spread, cores left for the parent
# (docs/scaling.md). Each worker holds its CUDA context, the float64 models and what PyTorch's
# caching allocator kept of its largest call: 3.4-3.7 GB at peak on that run (nvidia-smi: 44 GB for
# 12 workers, 54 GB for 16), so a smaller card gets one worker per GPU_MEMORY_PER_WORKER of its memory.
AUTO_GPU_WORKERS = 12
GPU_MEMORY_PER_WORKER = 4 << 30  # bytes
AUTO_PARALLEL_MIN = 200
REMOTE_BATCHES_PER_SLOT = 4  # with a remote engine: batches per parallel slot (a lost worker costs little)
# texts per parse call, here and per piece sent to a local worker, and between two moves of the parse
# bar (every 2-3 s on one CPU worker): large enough for the batched taggers (stanza_adapter.TAG_BATCH),
# whose results do not depend on the step (bench_parse_batch.py, 600 segments: 1.62x the per-segment
# rate with 64, 1.65x with 256; the cache's shards stay BATCH_SIZE texts)
PROGRESS_STEP = 64


def auto_gpu_workers(cores: int, memory: int) -> int:
    """Worker processes on one GPU of ``memory`` bytes when ``workers`` is unset: one per core, up
    to :data:`AUTO_GPU_WORKERS`, and one per :data:`GPU_MEMORY_PER_WORKER` (at least one)."""
    return max(1, min(cores, AUTO_GPU_WORKERS, memory // GPU_MEMORY_PER_WORKER))


def identity_of(language: str = "en", model_paths: dict[str, str] | None = None,
                processors: str | None = None, backend: str | None = None, model: str | None = None,
                device: str | None = None) -> str:
    """The model identity an :class:`Annotator` with these options has, without creating its cache
    folder or loading a model (iqeval checks score files against it: it only reads)."""
    chosen = select_backend(language, backend or ("stanza" if model_paths else None), model)
    if chosen is not None:
        _stanza_only(chosen, model_paths, processors, None)
        _cpu_only(chosen, device)
        return chosen.identity()
    require_stanza()
    wanted = available_processors(language, processors or DEFAULT_PROCESSORS, model_paths)
    return model_identity(on_device(resolve_models(language, wanted, model_paths), device))


def _cpu_only(backend: Backend, device: str | None) -> None:
    """Check ``device``; say in one log line that this backend parses on the CPU anyway."""
    if check_device(device or "cpu") != "cpu":
        LOG.warning("annotation.device %s: the %s backend (%s) parses on the CPU here", device, backend.name,
                    backend.language)


def _stanza_only(backend: Backend, model_paths: dict[str, str] | None, processors: str | None,
                 remote: RemoteParser | None) -> None:
    """Refuse the options only the Stanza backend has (one line each)."""
    for key, value in (("model_paths", model_paths), ("processors", processors)):
        if value:
            raise ConfigError(f"annotation.{key} applies to the stanza backend only; this experiment "
                              f"annotates with {backend.name} ({backend.language})")
    if remote is not None:
        raise ConfigError(f"parsing on a Dask cluster supports the stanza backend only, not {backend.name}; "
                          f"run without --scheduler")


class Annotator:
    """Cached annotation of segment texts by one backend (see the module docstring)."""

    def __init__(self, cache_dir: Path, language: str = "en", model_paths: dict[str, str] | None = None,
                 processors: str | None = None, workers: int | None = None,
                 max_words: int = MAX_WORDS, batch_size: int = BATCH_SIZE,
                 remote: RemoteParser | None = None, backend: str | None = None,
                 model: str | None = None, device: str | None = None) -> None:
        self.language = language
        self.remote = remote  # parse there (a Dask cluster) instead of in local processes
        self.model_paths = tuple(sorted((k, str(v)) for k, v in (model_paths or {}).items()))
        # None: Stanza (explicit Stanza model files choose it for any language, as before)
        self.backend = select_backend(language, backend or ("stanza" if model_paths else None), model)
        self.choice: ModelChoice | Backend
        if self.backend is not None:
            _stanza_only(self.backend, model_paths, processors, remote)
            _cpu_only(self.backend, device)
            self.choice = self.backend
            self.processors = self.backend.processors
            self._identity = self.backend.identity()
        else:
            require_stanza()
            choice = resolve_models(language, available_processors(language, processors or DEFAULT_PROCESSORS,
                                                                   model_paths), model_paths)
            if remote is not None and check_device(device or "cpu") != "cpu":
                raise ConfigError(f"annotation.device {device}: parsing on a Dask cluster runs on the CPU; "
                                  f"run without --scheduler or use device: cpu")
            self.choice = on_device(choice, device)  # before the cache folder: a bad device writes nothing
            self.processors = ",".join(self.choice.processors)
            self._identity = model_identity(self.choice)
        self.cache = AnnotationCache(Path(cache_dir))
        self.workers = workers if workers is None else max(1, int(workers))
        self.max_words = max_words
        self.batch_size = batch_size
        self._parser: StanzaParser | Parser | None = None
        self.parsed = 0  # distinct texts actually parsed by this instance (for benchmarks and tests)
        self._keys: dict[str, str] = {}  # raw text -> cache key (each text is cleaned once)
        self._texts: dict[str, str] = {}  # cache key -> cleaned text
        self._raw: dict[str, str] = {}  # cache key -> a raw text that gives it

    def identity(self) -> str:
        """The model identity (source, language, processors, model-file hashes)."""
        return self._identity

    def annotate(self, texts: Sequence[str]) -> list[Sentence]:
        """One :class:`Sentence` per text, in order (parsing only texts missing from the cache), its
        ``language`` set to the annotator's."""
        keys = self._ensure(texts)
        found = self.cache.sentences(set(keys))
        if len(found) < len(set(keys)):  # a damaged shard was dropped: parse its segments again
            self._parse_missing(set(keys) - set(found))
            found.update(self.cache.sentences(set(keys) - set(found)))
        found = {k: replace(s, language=self.language) for k, s in found.items()}  # for the layers (roles)
        return [found[k] for k in keys]

    def arc_scores(self, texts: Sequence[str]) -> list[ArcScores]:
        """The parser's :class:`ArcScores` per text, in order (same caching as :meth:`annotate`)."""
        keys = self._ensure(texts)
        found = self.cache.arc_scores(set(keys))
        lost = {k for k in keys if k not in self.cache}
        if lost:  # a damaged shard was dropped: parse its segments again
            self._parse_missing(lost)
            found.update(self.cache.arc_scores(lost))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            found.update(self._rescore(missing, found))
        return [found[k] for k in keys]

    def _rescore(self, keys: list[str], found: dict[str, ArcScores]) -> dict[str, ArcScores]:
        """Arc scores for cached segments that have none: a bare root for an empty one; the others
        are parsed again and stored in a repair shard (a cache written before 2026-11-28 lacks them
        for short sentences with two marks the parser simplifies, ``Wow!!! Really???``); a parser
        that still gives none (no graph parser) is one line."""
        cached = self.cache.sentences(set(keys))
        todo = [k for k in keys if len(cached[k])]
        out: dict[str, ArcScores] = {}
        if todo:
            LOG.info("annotation cache: %d segment(s) without arc scores are parsed again", len(todo))
            with self.cache.locked():
                self.cache.refresh()  # another run may have repaired them meanwhile
                out = self.cache.arc_scores(todo)
                todo = [k for k in todo if k not in out]
                parsed = self._get_parser().parse([self._texts[k] for k in todo]) if todo and self._graph else []
                if len(parsed) < len(todo) or any(a is None or s.words != cached[k].words
                                                  for k, (s, a) in zip(todo, parsed, strict=True)):
                    raise MtevalError(f"the parser gave no arc scores ({self.processors}); EDPM needs the "
                                      f"biaffine graph parser (depparse)")
                out.update((k, a) for k, (_, a) in zip(todo, parsed, strict=True) if a is not None)
                self.cache.add(todo, [cached[k] for k in todo], [out[k] for k in todo], repair=True)
        labels = next(iter({**found, **out}.values())).labels if found or out else ()
        for k in keys:  # empty segments: a root and nothing else
            out.setdefault(k, ArcScores(np.full((1, 1), -np.inf, np.float32), labels,
                                        np.zeros((0, 1), np.int16), np.zeros((0, 1, len(labels)), np.float16)))
        return out

    @property
    def _graph(self) -> bool:
        """Whether the processors include a dependency parser (which may give arc scores)."""
        return "depparse" in self.processors.split(",")

    def annotate_with_scores(self, texts: Sequence[str]) -> list[Sentence]:
        """:meth:`annotate` with each Sentence's ``scores`` set from :meth:`arc_scores` (for EDPM)."""
        return [replace(s, scores=a) for s, a in zip(self.annotate(texts), self.arc_scores(texts), strict=True)]

    def _ensure(self, texts: Sequence[str]) -> list[str]:
        """Clean the texts, parse the distinct ones not cached, return each text's key."""
        new = [t for t in dict.fromkeys(texts) if t not in self._keys]
        for raw, text in zip(new, self._clean(new), strict=True):
            key = self._keys[raw] = cache_key(text, self.language, self._identity, self.processors)
            self._texts[key] = text
            self._raw.setdefault(key, raw)
        self._parse_missing({self._keys[t] for t in texts})
        return [self._keys[t] for t in texts]

    def _parse_missing(self, keys: set[str]) -> None:
        """Parse and cache the keys not in the cache, holding the cache's lock (a concurrent run
        on the same cache waits, then finds what the other one parsed and parses only the rest)."""
        if all(k in self.cache for k in keys):
            return
        with self.cache.locked():
            self.cache.refresh()
            todo = sorted((k, self._texts[k]) for k in keys if k not in self.cache)
            with progress.bar(len(todo), "parsing", unit="sent") as shown:
                self._parse_todo(todo, shown)

    def _parse_todo(self, todo: list[tuple[str, str]], shown: progress.Bar) -> None:
        """Parse here, in local worker processes (a large job) or on the remote engine; the cache
        gets the same shards (``batch_size`` texts each, in key order) however the work is cut."""
        shards = _batches(todo, self.batch_size)
        if self.remote is not None and isinstance(self.choice, ModelChoice):
            remote, spec = self.remote, ModelSpec(self.language, self.choice.processors, self.model_paths,
                                                  self._identity)
            self._parse_pieces(shards, remote.threads() * REMOTE_BATCHES_PER_SLOT,
                               lambda texts: remote.parse(spec, texts), shown)
            return
        workers = self._workers_for(len(todo))
        size = self.batch_size if self._on_gpu() else PROGRESS_STEP  # a GPU wants whole shards
        if workers > 1 and len(todo) > 1:
            from mteval.annotate.workers import parse_parallel  # noqa: PLC0415

            self._parse_pieces(shards, workers, lambda texts: parse_parallel(self.choice, texts,
                                                                             min(workers, len(texts))), shown,
                               most=size)
            return
        for shard in shards:  # the bar moves every `size` texts; the shard is committed whole
            parsed: list[tuple[Sentence, ArcScores | None]] = []
            for start in range(0, len(shard), size):
                step = shard[start: start + size]
                nonempty = [t for _, t in step if t]
                parsed += self._get_parser().parse(nonempty) if nonempty else []
                shown.update(len(step))
            self._commit(shard, parsed)

    def _parse_pieces(self, shards: list[list[tuple[str, str]]], slots: int,
                      parse: Callable[[list[list[str]]], Iterator[tuple[int, Parsed]]], shown: progress.Bar,
                      most: int | None = None) -> None:
        """Cut the shards into pieces for ``slots`` parallel parsers (of at most ``most`` texts: the
        parse bar moves as each comes back), parse them (results in any order) and commit each
        shard, in order, once all its pieces are back."""
        size = max(1, min(self.batch_size, most or self.batch_size, -(-sum(map(len, shards)) // slots)))
        pieces = [(i, shard[start: start + size]) for i, shard in enumerate(shards)
                  for start in range(0, len(shard), size)]
        needed = Counter(i for i, _ in pieces)
        back: dict[int, dict[int, Parsed]] = defaultdict(dict)  # shard -> piece -> parses
        next_shard = 0
        for index, parsed in parse([[t for _, t in piece if t] for _, piece in pieces]):
            back[pieces[index][0]][index] = parsed
            shown.update(len(pieces[index][1]))
            while next_shard < len(shards) and len(back[next_shard]) == needed[next_shard]:
                parts = back.pop(next_shard)
                self._commit(shards[next_shard], [p for k in sorted(parts) for p in parts[k]])
                next_shard += 1

    def _workers_for(self, n_texts: int) -> int:
        """The configured workers, or (None) for large jobs one per core up to AUTO_WORKERS, on a
        GPU :func:`auto_gpu_workers` but no more than the job's shards; the parses are the same
        either way (on a CPU each segment is parsed alone with one torch thread; on a GPU, where
        each worker drives the GPU, batches do not change a result: parser_float64)."""
        if self.workers is not None:
            return self.workers
        if n_texts < AUTO_PARALLEL_MIN:
            return 1
        if isinstance(self.choice, ModelChoice) and self.choice.device != "cpu":
            # and no more workers than whole shards: the workers' loads make a fixed cost (H200: one
            # process 140 sent/s after a 7-9 s load, 12 workers 576-665 after 11-14 s, so 1,000
            # segments take ~15 s either way), paid back only by shards of work each
            shards = -(-n_texts // self.batch_size)
            return min(shards, auto_gpu_workers(os.cpu_count() or 1, gpu_memory(self.choice.device)))
        return min(os.cpu_count() or 1, AUTO_WORKERS)

    def _on_gpu(self) -> bool:
        """Whether Stanza parses on a GPU here."""
        return isinstance(self.choice, ModelChoice) and self.choice.device != "cpu"

    def _clean(self, texts: Sequence[str]) -> list[str]:
        """Prepare distinct texts; warn (once per call) about what was changed."""
        prepared = [prepare_text(t, self.max_words) for t in texts]
        control = sum(p.had_control for p in prepared)
        long = sum(p.truncated for p in prepared)
        if control:
            LOG.warning("%d distinct segment(s) contained control characters; they were removed", control)
        if long:
            LOG.warning("%d distinct segment(s) longer than %d words or %d characters were cut there for parsing",
                        long, self.max_words, max_chars(self.max_words))
        return [p.text for p in prepared]

    def _commit(self, items: list[tuple[str, str]], parsed: Sequence[tuple[Sentence, ArcScores | None]]) -> None:
        """Write one parsed batch of (key, text) to the cache (empty texts need no parse)."""
        results = iter(parsed)
        sentences: list[Sentence] = []
        scores: list[ArcScores | None] = []
        for _, text in items:
            sentence, arc = next(results) if text else (Sentence((), ""), None)
            cut = tuple(m for m in sentence.meta if m[0] == WORDS_CUT)
            sentences.append(Sentence(sentence.words, text, (("text", text), *cut)))
            scores.append(arc)
        cut_count = sum(any(k == WORDS_CUT for k, _ in s.meta) for s in sentences)
        if cut_count:
            LOG.warning("%d distinct segment(s) of more than %d words after tokenization were cut there for "
                        "parsing", cut_count, MAX_SEGMENT_WORDS)
        self.cache.add([k for k, _ in items], sentences, scores)
        self.parsed += len(items)

    def _get_parser(self) -> StanzaParser | Parser:
        """Load the backend's models on first need."""
        if self._parser is None:
            self._parser = StanzaParser(self.choice) if isinstance(self.choice, ModelChoice) else self.choice.load()
        return self._parser


def _batches(todo: list[tuple[str, str]], size: int) -> list[list[tuple[str, str]]]:
    return [todo[start: start + size] for start in range(0, len(todo), size)]
