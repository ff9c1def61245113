"""The one module that imports Stanza (and so torch), lazily: model resolution, parsing, download.

Models are resolved in this order (Qi et al. 2020, "Stanza: A Python NLP toolkit for many human
languages"):

1. explicit per-processor paths from the configuration (``model_paths: {depparse: ...}``),
   which override the processors they name on top of the next source;
2. Stanza's resources directory (``$STANZA_RESOURCES_DIR``, default ``~/stanza_resources``) if it
   holds official models for the language (a ``resources.json`` and a ``<lang>/`` folder, as
   ``mteval models download <lang>`` leaves them);
3. the models embedded in this package (English: ``mteval/resources/models/en_ewt``).

:func:`model_identity` names the choice (source, language, processors, a hash of every model
file) and goes into every score signature and every annotation-cache key.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import logging
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from mteval.annotate import fast_decode
from mteval.annotate.arc_capture import ArcRecorder
from mteval.annotate.backends.common import Labels
from mteval.annotate.chunking import MAX_PARSE_WORDS, MAX_SEGMENT_WORDS, bound
from mteval.annotate.convert import join_arc_scores, to_sentence
from mteval.annotate.entity_tagger import EntityTagger
from mteval.annotate.layers.labels import RELATIONS, XPOS_TAGS
from mteval.annotate.model import ArcScores, Sentence
from mteval.annotate.parser_float64 import (
    GPU_LAYOUT,
    PARSER_BATCH_WORDS,
    SCHEME,
    arrange,
    parse_halving,
    use_float64,
)
from mteval.errors import ConfigError, quote
from mteval.files import content_digest

LOG = logging.getLogger(__name__)
EMBEDDED = {"en": Path(__file__).resolve().parents[1] / "resources" / "models" / "en_ewt"}
PARSE_PROCESSORS = "tokenize,mwt,pos,lemma,depparse"
DEFAULT_PROCESSORS = PARSE_PROCESSORS + ",ner"
# the embedded NER model is not a Stanza model but mteval's own tagger over the parse
# (mteval.annotate.entity_tagger); a `ner` model path ending in .npz selects it, any other Stanza's
TAGGER_SUFFIX = ".npz"
EMBEDDED_FILES = {"ner": "ner.npz"}
MAX_SEQLEN = 1000  # tokenizer window in characters (Stanza's default 300 turns long tokens into <UNK>)
# Canonical parsing: a segment's annotation must not depend on what else is parsed with it, nor on
# the machine's core count. Stanza batches sentences (padding them to the batch's longest one and
# normalising head scores over the padded positions too) and torch's float reductions depend on
# the batch shape and on the number of threads (measured: arc scores of most segments differ in
# the last bits, the head log-probabilities by up to 0.45 from the padding). So every segment goes
# through its own pipeline call, each sentence of it in its own parser batch (depparse_batch_size
# 1, in words: a batch never takes a second sentence), with one torch thread (parallelism comes
# from `workers`); sentences over MAX_PARSE_WORDS words are parsed in chunks (chunking.py).
PARSE_THREADS = 1
PARSE_SCHEME = f"one-segment-per-call,threads={PARSE_THREADS},chunk={MAX_PARSE_WORDS},max={MAX_SEGMENT_WORDS}"
TOKENIZE_STAGE = ("tokenize", "mwt")
# Batched tokenizing and tagging (issue 32): up to TAG_BATCH segments go through one tokenizer call
# (as paragraphs), and up to TAG_BATCH one-sentence segments, sorted by length, through one call of
# the taggers (pos, lemma, a Stanza ner): their outputs are discrete labels. The parser keeps one
# sentence per batch (depparse_batch_size 1): its float32 scores change with the batch's shape even
# for two copies of one sentence (measured: 40 of 40 arc-score arrays differ), so on a CPU it is
# never batched. Measured byte-identical CoNLL-U and arc scores: docs/annotation.md.
TAG_BATCH = 128
# On a GPU (ModelChoice.float64_parser) every model runs in float64 and the parser is batched too,
# its padding masked (parser_float64.py, PARSER_BATCH_WORDS words a batch), and up to GPU_TAG_BATCH
# segments share a call: one sentence per launch wasted the GPU. Its own identity (parse_scheme).
GPU_TAG_BATCH = 1024
WORDS_CUT = "words_cut"  # CoNLL-U comment: syntactic words dropped after MAX_SEGMENT_WORDS


@dataclass(frozen=True)
class ModelChoice:
    """Where the models come from: ``source`` is ``config``, ``stanza`` or ``embedded``."""

    source: str
    language: str
    processors: tuple[str, ...]
    directory: Path
    paths: Mapping[str, str] = field(default_factory=dict)  # processor -> model file
    device: str = "cpu"  # torch device the models run on: cpu or cuda:N (see resolve_device)
    device_class: str = "cpu"  # cpu, or cuda:<GPU name>: part of the identity on a GPU
    float64_parser: bool = False  # batched float64 parser (parser_float64.py): set on a GPU
    # that scheme's GPU layout (parser_float64.arrange): None, GPU_LAYOUT on a GPU and nothing on a
    # CPU; a string, that layout on any device (the bench and tests). Not in the identity: no byte changes.
    gpu_layout: str | None = None


def stanza_resources_dir() -> Path:
    """Stanza's resources directory (without importing stanza)."""
    default = Path.home() / "stanza_resources"
    return Path(os.environ.get("STANZA_RESOURCES_DIR", str(default)))


def _has_official(directory: Path, language: str) -> bool:
    """Whether ``directory`` holds official Stanza models for ``language``."""
    return (directory / "resources.json").is_file() and (directory / language).is_dir()


def resolve_models(language: str, processors: Sequence[str],
                   model_paths: Mapping[str, str] | None = None) -> ModelChoice:
    """Pick the models (order in the module docstring); raise ConfigError if there are none."""
    explicit = {k: str(v) for k, v in (model_paths or {}).items()}
    for proc, path in explicit.items():
        if proc not in processors:
            raise ConfigError(f"model_paths: '{proc}' is not one of the processors {','.join(processors)}")
        if not Path(path).is_file():
            raise ConfigError(f"model_paths: {proc} model file not found: {path}")
    official = stanza_resources_dir()
    if _has_official(official, language):
        base = ModelChoice("stanza", language, tuple(processors), official)
    elif language in EMBEDDED:
        folder = EMBEDDED[language]
        files = {p: folder / EMBEDDED_FILES.get(p, f"{p}.pt") for p in processors}
        paths = {p: str(f) for p, f in files.items() if f.is_file()}
        missing = [p for p in processors if p not in paths and p not in explicit]
        if missing:
            raise ConfigError(f"the embedded {language} models have no {','.join(missing)} model; "
                              f"drop it from processors or give model_paths")
        base = ModelChoice("embedded", language, tuple(processors), folder, paths)
    elif explicit and all(p in explicit for p in processors):
        base = ModelChoice("config", language, tuple(processors), Path(next(iter(explicit.values()))).parent)
    else:
        raise ConfigError(f"no Stanza models for language '{language}': run `mteval models download "
                          f"{language}` (or set model_paths)")
    if explicit:
        return ModelChoice("config", language, base.processors, base.directory, {**base.paths, **explicit})
    return base


def _has_ner(language: str) -> bool:
    """Whether the models that :func:`resolve_models` would pick include an NER model."""
    official = stanza_resources_dir()
    if _has_official(official, language):
        return (official / language / "ner").is_dir()
    return language in EMBEDDED and (EMBEDDED[language] / EMBEDDED_FILES["ner"]).is_file()


def available_processors(language: str, wanted: str = DEFAULT_PROCESSORS,
                         model_paths: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """``wanted`` minus ``ner`` (with a warning) when no NER model is there for ``language``."""
    procs = tuple(p.strip() for p in wanted.split(",") if p.strip())
    if "ner" in procs and "ner" not in (model_paths or {}) and not _has_ner(language):
        LOG.warning("no NER model for '%s': annotating without named entities", language)
        procs = tuple(p for p in procs if p != "ner")
    return procs


def embedded_labels(language: str, processors: str | None = None,
                    model_paths: Mapping[str, str] | None = None) -> Labels | None:
    """The labels the embedded models give (English: UD English-EWT's XPOS tags and relations, on which
    they were trained, and the entity tagger's types, read from its file; none without ``ner``);
    None when other models would be used (Stanza's own or ``model_paths``: their inventory is not read)."""
    wanted = [p.strip() for p in (processors or DEFAULT_PROCESSORS).split(",") if p.strip()]
    try:
        choice = resolve_models(language, wanted, model_paths)
    except ConfigError:
        return None
    if choice.source != "embedded":
        return None
    ner = choice.paths.get("ner")
    tags = EntityTagger.label_names(Path(ner)) if ner else ()
    return Labels(frozenset(XPOS_TAGS), frozenset(RELATIONS), frozenset(t[2:] for t in tags if t[:2] in ("B-", "I-")))


def uses_entity_tagger(choice: ModelChoice) -> bool:
    """Whether NER is done by mteval's own tagger (an ``.npz`` model) rather than by Stanza."""
    return "ner" in choice.processors and choice.paths.get("ner", "").endswith(TAGGER_SUFFIX)


def stanza_processors(choice: ModelChoice) -> tuple[str, ...]:
    """The processors Stanza itself runs (``ner`` is left out when our tagger does it)."""
    return tuple(p for p in choice.processors if p != "ner" or not uses_entity_tagger(choice))


def _digest(path: Path) -> str:
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):  # never opened: a FIFO would block
        raise ConfigError("is not a regular file; a model is a file", path)
    return content_digest(str(path), st.st_size, st.st_mtime)[:16]  # first 16 hex digits


def _folder_digest(directory: Path, language: str) -> str:
    """Hash of an official Stanza folder: ``resources.json`` and the language folder's listing."""
    folder = directory / language
    listing = sorted(f"{p.relative_to(folder)}:{p.stat().st_size}" for p in folder.rglob("*") if p.is_file())
    res = directory / "resources.json"
    resources = _digest(res) if res.is_file() else "-"
    return f"resources={resources},dir={hashlib.sha256('|'.join(listing).encode()).hexdigest()[:16]}"


def model_identity(choice: ModelChoice) -> str:
    """``stanza<version>:<source>|lang:en|proc:tokenize,...|tokenize=<sha>,...``: names every model."""
    files = [f"{p}={_digest(Path(choice.paths[p]))}" for p in choice.processors if p in choice.paths]
    if len(files) < len(choice.processors):  # some models come from Stanza's own folder
        files.insert(0, _folder_digest(choice.directory, choice.language))
    # a GPU's float results differ from the CPU's in the last bits (arc scores up to 3.8e-6 with the
    # same trees, issue 32), so a GPU run names its device class; CPU identities are unchanged
    device = "" if choice.device_class == "cpu" else f"|device:{choice.device_class}"
    return f"stanza{stanza_version()}:{choice.source}|lang:{choice.language}|proc:{','.join(choice.processors)}|" \
        + ",".join(files) + f"|parse:{parse_scheme(choice)}" + device


def batches_parser(choice: ModelChoice) -> bool:
    """Whether the parser takes batches (float64, padding masked: parser_float64.py)."""
    return choice.float64_parser


def parse_scheme(choice: ModelChoice) -> str:
    """The parse scheme in the identity: :data:`PARSE_SCHEME` on a CPU, the float64 one on a GPU."""
    if batches_parser(choice):
        return f"{SCHEME},chunk={MAX_PARSE_WORDS},max={MAX_SEGMENT_WORDS}"
    return PARSE_SCHEME


DEVICE_CHOICES = "auto, cpu, cuda or cuda:N"
DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(:\d{1,2})?")


def check_device(value: object, what: str = "annotation.device") -> str:
    """``value`` if it names a device (auto, cpu, cuda, cuda:N); else one line (ConfigError)."""
    if not isinstance(value, str) or not DEVICE_PATTERN.fullmatch(value):
        raise ConfigError(f"{what}: expected one of {DEVICE_CHOICES}, got {quote(value)}")
    return value


def resolve_device(requested: str | None, what: str = "annotation.device") -> tuple[str, str]:
    """``(torch device, device class)`` for a requested device: ``cpu`` (the default) needs no
    torch; ``auto`` takes GPU 0 only when the CUDA build of torch sees one (and says so in one log
    line); ``cuda[:N]`` without a CUDA build or that GPU is one line (ConfigError)."""
    wanted = check_device(requested or "cpu", what)
    if wanted == "cpu":
        return "cpu", "cpu"
    import torch  # noqa: PLC0415 - only when a GPU may be used

    build, count = torch.version.cuda, torch.cuda.device_count() if torch.version.cuda else 0
    if wanted == "auto":
        if not count:
            return "cpu", "cpu"
        wanted = "cuda:0"
    index = int(wanted.partition(":")[2] or 0)
    if build is None:
        raise ConfigError(f"{what} {wanted}: this torch {torch.__version__} is a CPU build; install a CUDA "
                          f"build of torch or use device: cpu")
    if index >= count:
        raise ConfigError(f"{what} {wanted}: torch (CUDA {build}) sees {count} GPU(s); use device: cpu or auto")
    name = torch.cuda.get_device_name(index)
    if requested == "auto":
        _say_gpu(index, name)
    return f"cuda:{index}", f"cuda:{name}"


def gpu_memory(device: str) -> int:
    """The total memory of the GPU ``device`` (``cuda:N``), in bytes."""
    import torch  # noqa: PLC0415 - only on a GPU

    return int(torch.cuda.get_device_properties(torch.device(device)).total_memory)


@cache
def _say_gpu(index: int, name: str) -> None:
    """The one log line of ``device: auto`` finding a GPU (once per process)."""
    LOG.warning("annotation.device auto: parsing on GPU cuda:%d (%s)", index, name)


def on_device(choice: ModelChoice, requested: str | None) -> ModelChoice:
    """``choice`` with the requested device resolved (see :func:`resolve_device`)."""
    device, device_class = resolve_device(requested)
    return replace(choice, device=device, device_class=device_class, float64_parser=device != "cpu")


def _load_pipeline(choice: ModelChoice) -> Any:
    """Build the ``stanza.Pipeline`` (offline: ``download_method=None``)."""
    import stanza  # noqa: PLC0415 - heavy, imported only when parsing is needed

    processors = stanza_processors(choice)
    kwargs: dict[str, Any] = {f"{p}_model_path": path for p, path in choice.paths.items() if p in processors}
    if "depparse" in processors:  # on a CPU each sentence alone: no padding (see PARSE_SCHEME)
        kwargs["depparse_batch_size"] = PARSER_BATCH_WORDS if batches_parser(choice) else 1
    # allow_unknown_language: the embedded resources.json is empty (harmless for official models);
    # logging ERROR: otherwise Stanza warns "unsupported language" for that empty resources.json
    return stanza.Pipeline(lang=choice.language, processors=",".join(processors),
                           dir=str(choice.directory), download_method=None, logging_level="ERROR",
                           tokenize_no_ssplit=True, tokenize_max_seqlen=MAX_SEQLEN,
                           allow_unknown_language=True, device=choice.device, **kwargs)


def set_threads(n: int) -> None:
    """Limit torch's intra-op threads (each parallel worker uses one)."""
    import torch  # noqa: PLC0415

    torch.set_num_threads(n)


def _recorder(pipeline: Any) -> ArcRecorder | None:
    """Hook the graph parser for arc scores (None when there is no graph parser)."""
    proc = pipeline.processors.get("depparse")
    model = getattr(getattr(proc, "trainer", None), "model", None)
    if model is None or not hasattr(model, "decode_graph_predictions"):
        return None
    from stanza.models.common.vocab import VOCAB_PREFIX_SIZE  # noqa: PLC0415

    vocab = model.vocab["deprel"]
    labels = tuple(vocab.unmap(list(range(VOCAB_PREFIX_SIZE, len(vocab)))))
    return ArcRecorder(model, labels)


class StanzaParser:
    """A loaded Stanza pipeline that parses each text as exactly one :class:`Sentence`
    (named entities from mteval's own tagger when the NER model is an ``.npz``).

    ``batch`` (default :data:`TAG_BATCH`) segments share one call of the tokenizer and of the
    taggers (POS, lemma, NER) while the parser still takes one sentence per batch (see :data:`TAG_BATCH`); 1 parses each
    segment in its own pipeline call throughout. Both give the same bytes."""

    def __init__(self, choice: ModelChoice, batch: int | None = None) -> None:
        self.choice = choice
        default = GPU_TAG_BATCH if batches_parser(choice) else TAG_BATCH
        self.batch = default if batch is None else max(1, batch)
        set_threads(PARSE_THREADS)
        self.pipeline = _load_pipeline(choice)
        fast_decode.install()  # the same trees, decoded faster
        self.recorder = _recorder(self.pipeline)
        if batches_parser(choice):
            use_float64(self.pipeline)
            if self.recorder is not None:
                self.recorder.plus_zero = True
            layout = (GPU_LAYOUT if choice.device != "cpu" else "") if choice.gpu_layout is None else choice.gpu_layout
            arrange(self.pipeline, layout)
        self.entity_tagger = EntityTagger.load(Path(choice.paths["ner"])) if uses_entity_tagger(choice) else None
        self._cpu: StanzaParser | None = None  # the same scheme on the CPU (_parse_on_cpu)
        loaded = [p for p in stanza_processors(choice) if p in self.pipeline.processors]
        self._first = [p for p in loaded if p in TOKENIZE_STAGE]
        self._rest = [p for p in loaded if p not in TOKENIZE_STAGE]

    def parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """Parse non-empty, whitespace-flattened texts; one (sentence, arc scores) per text.

        Each text's result is the same whatever else is in ``texts`` (see ``PARSE_SCHEME``,
        :data:`TAG_BATCH` and ``parser_float64``); on a GPU that runs out of memory, in halves."""
        if batches_parser(self.choice):
            return parse_halving(self._parse, texts, self._shrink, self.choice.device, self._parse_on_cpu)
        return self._parse(texts)

    def _parse_on_cpu(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """Parse with the same models and scheme on the CPU (loaded once, when a segment does not
        fit on the GPU alone: ``parser_float64.parse_halving``)."""
        if self._cpu is None:
            self._cpu = StanzaParser(replace(self.choice, device="cpu", device_class="cpu", gpu_layout=""), self.batch)
        return self._cpu.parse(texts)

    def _shrink(self) -> None:
        """After a GPU out-of-memory: forget partial records, halve the parser's words a batch."""
        if self.recorder is not None:
            self.recorder.clear()
        config = self.pipeline.processors["depparse"].config
        config["batch_size"] = max(100, config["batch_size"] // 2)

    def _parse(self, texts: Sequence[str]) -> list[tuple[Sentence, ArcScores | None]]:
        """:meth:`parse` without the out-of-memory retries."""
        if self.batch < 2 or len(texts) < 2 or not self._rest or self.recorder is None:
            return [self.parse_one(t) for t in texts]
        out: dict[int, tuple[Sentence, ArcScores | None]] = {}
        single: list[tuple[int, list[dict[str, Any]]]] = []
        for i, sentences in enumerate(self._tokenize(texts)):
            if len(sentences) == 1 and bound(sentences)[0] is None:
                single.append((i, sentences[0]))
            else:  # several sentences or over-long: parsed alone, as before
                out[i] = self.parse_one(texts[i])
        single.sort(key=lambda item: len(item[1]))  # neighbours of similar length
        for start in range(0, len(single), self.batch):
            out.update(self._parse_group(texts, single[start: start + self.batch]))
        return [out[i] for i in range(len(texts))]

    def _tokenize(self, texts: Sequence[str]) -> list[list[list[dict[str, Any]]]]:
        """Each text's tokenized sentences (Stanza's dicts), up to ``batch`` texts per tokenizer
        call as paragraphs of one document, the character offsets then made the text's own: the
        tokenizer's outputs are labels (token and word boundaries, the same as one text per call)."""
        from stanza.models.common.doc import Document  # noqa: PLC0415

        out: list[list[list[dict[str, Any]]]] = []
        for first in range(0, len(texts), self.batch):
            part = texts[first: first + self.batch]
            starts = list(itertools.accumulate((len(t) + 2 for t in part[:-1]), initial=0))
            per_text: list[list[list[dict[str, Any]]]] = [[] for _ in part]
            if not any("\n" in t for t in part):  # flattened: each text is one paragraph
                doc = self.pipeline(Document([], text="\n\n".join(part)), processors=self._first)
                for sentence in doc.sentences:
                    index = bisect.bisect_right(starts, sentence.tokens[0].start_char) - 1
                    if sentence.tokens[-1].end_char > starts[index] + len(part[index]):
                        break  # a sentence across two texts: tokenize them one by one
                    per_text[index].append(_shifted(sentence.to_dict(), starts[index]))
                else:
                    out += per_text
                    continue
            out += [self.pipeline(Document([], text=t), processors=self._first).to_dict() for t in part]
        return out

    def _parse_group(self, texts: Sequence[str], group: list[tuple[int, list[dict[str, Any]]]]
                     ) -> dict[int, tuple[Sentence, ArcScores | None]]:
        """Tag one group of one-sentence segments together, parse each sentence alone.

        The parser records its scores under the word forms it saw, which Stanza simplifies
        (``!!!`` as ``!``: :func:`parser_forms`, Stanza's own function). A sentence takes the record
        under its own words when no other sentence of the group with other words has the same
        parser forms (then that record is its own: equal words get equal tags and scores, so
        duplicates share one). Sentences whose forms the parser simplified, and those whose parser
        forms another sentence's words share, are parsed alone, as before: the bytes of every
        segment are those of parsing it alone. Should the records not be exactly the group's parser
        forms (a Stanza that simplifies more), every sentence is parsed alone. (Until 2026-11-27 one
        such sentence, or two texts tokenized alike, sent the whole group, up to 1,024 segments on
        a GPU, to be parsed one by one: the same bytes, twice the work; 2,000 parses for 1,000
        WMT21 segments.)"""
        from stanza.models.common.doc import Document  # noqa: PLC0415

        assert self.recorder is not None
        doc = self.pipeline(Document([tokens for _, tokens in group], text="\n\n".join(texts[i] for i, _ in group)),
                            processors=self._rest)
        keys = [tuple(w.text for w in s.words) for s in doc.sentences]
        forms = parser_forms(keys)
        words_of: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        for key, form in zip(keys, forms, strict=True):
            words_of.setdefault(form, set()).add(key)
        recorded = dict(self.recorder.scores)
        if set(recorded) != set(forms):  # the parser saw other forms than parser_forms says: all alone
            recorded = {}
        self.recorder.clear()
        out: dict[int, tuple[Sentence, ArcScores | None]] = {}
        for (i, _), sent, key, form in zip(group, doc.sentences, keys, forms, strict=True):
            if key != form or key not in recorded or len(words_of[form]) > 1:
                out[i] = self.parse_one(texts[i])
                continue
            sentence = to_sentence(texts[i], [sent])
            out[i] = (self.entity_tagger.tag(sentence) if self.entity_tagger else sentence, recorded[key])
        return out

    def parse_one(self, text: str) -> tuple[Sentence, ArcScores | None]:
        """Tokenize, split over-long sentences into chunks, tag and parse one text."""
        from stanza.models.common.doc import Document  # noqa: PLC0415

        doc = self.pipeline(Document([], text=text), processors=self._first)
        chunks, dropped = bound(doc.to_dict())
        if chunks is not None:
            doc = Document(chunks, text=text)
        if self._rest:
            doc = self.pipeline(doc, processors=self._rest)
        sentence = to_sentence(text, doc.sentences)
        if dropped:
            sentence = replace(sentence, meta=(*sentence.meta, (WORDS_CUT, str(dropped))))
        if self.entity_tagger is not None:
            sentence = self.entity_tagger.tag(sentence)
        scores = self._scores(doc.sentences)
        if self.recorder is not None:
            self.recorder.clear()
        return sentence, scores

    def _scores(self, stanza_sentences: Sequence[Any]) -> ArcScores | None:
        """The recorded arc scores of one segment's sentences, joined (None if unavailable)."""
        if self.recorder is None or not stanza_sentences:
            return None
        words = [tuple(w.text for w in s.words) for s in stanza_sentences]
        parts = [self.recorder.get(w, form) for w, form in zip(words, parser_forms(words), strict=True)]
        if any(p is None for p in parts):
            return None
        return join_arc_scores([p for p in parts if p is not None])


def parser_forms(sentences: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Each sentence's word forms as Stanza's parser sees them (its ``simplify_punct``: runs of
    ``?``/``!`` as one mark; Stanza 1.9 and 1.10 have none and parse the forms as they are), the
    keys under which :class:`ArcRecorder` records its scores."""
    try:
        from stanza.models.common.utils import simplify_punct  # noqa: PLC0415
    except ImportError:
        return [tuple(sentence) for sentence in sentences]
    data = simplify_punct([[[word] for word in sentence] for sentence in sentences])
    return [tuple(word[0] for word in sentence) for sentence in data]


SEPARATOR_MISC = "SpacesAfter=\\n\\n"  # Stanza's note after a paragraph's last token ...
END_MISC = "SpaceAfter=No"  # ... and after the last token of a text tokenized alone


def _shifted(entries: list[dict[str, Any]], offset: int) -> list[dict[str, Any]]:
    """Tokenized entries as if their text had been tokenized alone: character offsets moved back by
    ``offset``, the paragraph separator noted in the MISC column as the end of the text."""
    out = [{**e, **{k: e[k] - offset for k in ("start_char", "end_char") if k in e}} for e in entries]
    for entry in out:
        if "misc" in entry:
            entry["misc"] = "|".join(END_MISC if m == SEPARATOR_MISC else m for m in entry["misc"].split("|"))
    return out


def download(language: str, processors: str | None = None, model_dir: str | Path | None = None) -> Path:
    """Download Stanza's official models for ``language`` (``mteval models download <lang>``).

    Needs internet; afterwards :func:`resolve_models` prefers them over the embedded models.
    """
    import stanza  # noqa: PLC0415

    target = Path(model_dir) if model_dir else stanza_resources_dir()
    kwargs: dict[str, Any] = {"processors": processors} if processors else {}
    try:
        stanza.download(language, model_dir=str(target), **kwargs)
    except Exception as exc:  # network or unknown language: one clear line for the CLI
        raise ConfigError(f"could not download Stanza models for '{language}' into {target}: {exc}") from exc
    return target


SYNTAX_EXTRA = ("the linguistic metrics parse with Stanza, which is not installed here: "
                "pip install 'mteval[syntax]' (docs/install.md)")


def require_stanza() -> None:
    """One clear line (ConfigError) when Stanza is not installed: a lexical-only install."""
    from importlib.util import find_spec  # noqa: PLC0415

    if find_spec("stanza") is None:
        raise ConfigError(SYNTAX_EXTRA)


def stanza_version() -> str:
    """The installed Stanza version, read without importing it."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("stanza")
    except PackageNotFoundError:
        raise ConfigError(SYNTAX_EXTRA) from None


def describe(choice: ModelChoice) -> str:
    """A JSON line describing the model choice (for logs and ``mteval models``)."""
    return json.dumps({"source": choice.source, "language": choice.language,
                       "processors": list(choice.processors), "directory": str(choice.directory),
                       "stanza": stanza_version()})
