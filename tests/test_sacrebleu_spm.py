"""spBLEU: ``sacreBLEU(tok=flores200|flores101|spBLEU-1K)`` against sacreBLEU 2.6.0's own SentencePiece
tokenisers, and where their models come from.

sacreBLEU's models cannot be downloaded here, so each test trains small SentencePiece models on the
bundled sample texts (deterministic, about a second each; a different vocabulary per tokeniser, so a
mix-up shows) and puts them under sacreBLEU's file names in a ``$SACREBLEU/models`` folder, where
sacreBLEU and mteval both look. Every download goes to a local address: a local HTTP server, or a
closed port for "offline" (``$MTEVAL_SPM_MIRROR``), never the internet.
"""

from __future__ import annotations

import http.server
import io
import json
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import ENDE, RUEN, file_lines, ruen_experiment, run

from mteval.errors import ConfigError
from mteval.io.corpus import DocumentIndex
from mteval.metrics import registry, sacre_tokenizers, spm_models
from mteval.metrics.base import ScoreSet, Side
from mteval.metrics.sacrebleu_bleu import SacreBleu

VOCAB = {"flores200": 1000, "flores101": 600, "spBLEU-1K": 800}
SAMPLES = {"en-de": (ENDE, "de", ("A", "C", "D")), "ru-en": (RUEN, "en", ("A", "B"))}
TEXTS = sorted(ENDE.glob("*/*.de")) + sorted(RUEN.glob("*/*.en")) + [ENDE / "src.en", RUEN / "src.ru"]
LINES = [line for path in TEXTS for line in file_lines(path)]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _train(vocab: int) -> bytes:
    """A unigram SentencePiece model of the bundled texts (the same bytes at every run)."""
    sentencepiece = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (mteval[spm])")
    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES), model_writer=out, vocab_size=vocab, model_type="unigram",
        character_coverage=1.0, input_sentence_size=0, shuffle_input_sentence=False, num_threads=1, minloglevel=2)
    return out.getvalue()


@pytest.fixture(scope="module")
def trained() -> dict[str, bytes]:
    """Each tokeniser's model file's bytes."""
    return {name: _train(vocab) for name, vocab in VOCAB.items()}


def _forget() -> None:
    """Drop the models this process loaded (each test places its own)."""
    spm_models.processor.cache_clear()
    for name in spm_models.SPM_MODELS:
        sacre_tokenizers._LOADED.pop(name, None)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty ``$SACREBLEU`` (sacreBLEU's read at its import: patched too), no ``$MTEVAL_SPM_DIR``,
    and downloads pointed at a closed local port."""
    folder = tmp_path / "sacrebleu"
    monkeypatch.setenv("SACREBLEU", str(folder))
    monkeypatch.delenv("MTEVAL_SPM_DIR", raising=False)
    monkeypatch.setenv("MTEVAL_SPM_MIRROR", f"http://127.0.0.1:{_closed_port()}/models")
    if "sacrebleu" in sys.modules or _has_sacrebleu():
        from sacrebleu.tokenizers import tokenizer_spm
        monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(folder))
    _forget()
    yield folder
    _forget()


def _has_sacrebleu() -> bool:
    try:
        import sacrebleu  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture
def placed(home: Path, trained: dict[str, bytes]) -> Path:
    """The trained models in ``$SACREBLEU/models`` under sacreBLEU's file names."""
    models = home / "models"
    models.mkdir(parents=True)
    for name, data in trained.items():
        (models / spm_models.SPM_MODELS[name].file_name).write_bytes(data)
    return models


def ours(metric: str, hyps: list[str], refs: list[list[str]]) -> ScoreSet:
    name = registry.canonical(metric)
    family = registry.create(registry.family_of(name))
    prepared = family.prepare([Side(f"r{k}", r) for k, r in enumerate(refs)])
    return family.score(Side("h", hyps), prepared, DocumentIndex(("d",) * len(hyps)), [name])[name]


def test_pieces_are_sacrebleus(placed: Path) -> None:
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    for tok in [*VOCAB, "spm"]:
        theirs = sacrebleu.BLEU(tokenize=tok).tokenizer
        mine = sacre_tokenizers.bleu_tokenizer(tok)
        expected = [theirs(line) for line in LINES]
        assert [mine(line) for line in LINES] == expected, tok
        assert sacre_tokenizers.bleu_tokens(tok, LINES) == [line.split() for line in expected], tok
    assert len(set(sacre_tokenizers.bleu_tokenizer(tok)(LINES[0]) for tok in VOCAB)) > 1  # three models


# flores200 on ru-en in the fast tier (~2.5 s); the others take 4-9 s each (sacreBLEU's side mostly)
SWEEP = [pytest.param(tok, sample, marks=() if (tok, sample) == ("flores200", "ru-en") else pytest.mark.slow)
         for tok in VOCAB for sample in SAMPLES]


@pytest.mark.parametrize(("tok", "sample"), SWEEP)
def test_system_and_segment_scores_are_sacrebleus(placed: Path, sample: str, tok: str) -> None:
    """Every system, the first reference alone and all of them, mixed case and ``lc=yes``: the system
    score equals ``corpus_score``, each segment's ``sentence_score`` (``eff=yes``, sentence_bleu's;
    every system's under flores200, two systems' under the others)."""
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    folder, language, names = SAMPLES[sample]
    references = [file_lines(folder / "refs" / f"{r}.{language}") for r in names]
    systems = sorted((folder / "sys").glob(f"*.{language}"))
    compared = 0
    for lowercase in (False, True):
        lc = ",lc=yes" if lowercase else ""
        corpus = sacrebleu.BLEU(tokenize=tok, lowercase=lowercase)
        sentence = sacrebleu.BLEU(tokenize=tok, lowercase=lowercase, effective_order=True)
        for refs in (references[:1], references):
            for k, system in enumerate(systems):
                hyps = file_lines(system)
                assert ours(f"sacreBLEU(tok={tok}{lc})", hyps, refs).system == corpus.corpus_score(hyps, refs).score
                compared += 1
                if tok != "flores200" and k >= 2:
                    continue
                segments = ours(f"sacreBLEU(tok={tok},eff=yes{lc})", hyps, refs).segments
                expected = [sentence.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyps)]
                assert segments.tolist() == expected, (system.name, len(refs), lowercase)
                compared += len(hyps)
    assert compared >= 4 * (len(systems) + 2 * 100)


def test_signatures_are_sacrebleus(placed: Path) -> None:
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    for tok in [*VOCAB, "spm"]:
        bleu = sacrebleu.BLEU(tokenize=tok, lowercase=True)
        bleu.corpus_score(["a line"], [["a line"]])  # its signature says nrefs once it has scored
        theirs = bleu.get_signature().format()
        mine = SacreBleu().signature(registry.canonical(f"sacreBLEU(tok={tok},lc=yes)"))
        assert mine.startswith(theirs.removeprefix("nrefs:1|") + "|"), (mine, theirs)
    assert registry.canonical("sacreBLEU(tok=spm)") == "sacreBLEU(tok=flores101)"  # one computation, one name


def test_a_missing_sentencepiece_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """At configuration time (the signature), before any model is looked for."""
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # find_spec says None, import raises
    with pytest.raises(ConfigError, match=r"^tokenizer flores200 needs SentencePiece .*pip install 'mteval\[spm\]'$"):
        SacreBleu().signature("sacreBLEU(tok=flores200)")
    with pytest.raises(ConfigError, match=r"tokenizer flores101 needs SentencePiece"):
        sacre_tokenizers.bleu_tokens("spm", ["a line"])


def test_mteval_spm_dir_comes_first(placed: Path, tmp_path: Path, trained: dict[str, bytes],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "own"
    own.mkdir()
    (own / "flores200sacrebleuspm").write_bytes(trained["flores101"])  # another model than sacreBLEU's cache has
    monkeypatch.setenv("MTEVAL_SPM_DIR", str(own))
    assert spm_models.model_path("flores200") == own / "flores200sacrebleuspm"
    lines = LINES[:50]
    assert sacre_tokenizers.bleu_tokens("flores200", lines) == sacre_tokenizers.bleu_tokens("flores101", lines)


class _Server:
    """A local HTTP server of ``files`` (name: bytes; others 404), counting the requests."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                outer.requests.append(self.path)
                body = files.get(self.path.rsplit("/", 1)[-1])
                self.send_response(200 if body is not None else 404)
                self.end_headers()
                self.wfile.write(body if body is not None else b"not here")

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mirror"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[dict[str, bytes]], _Server]]:
    """Start local HTTP servers of given files (closed after the test)."""
    started: list[_Server] = []

    def start(files: dict[str, bytes]) -> _Server:
        started.append(_Server(files))
        return started[-1]

    yield start
    for served in started:
        served.close()


def test_a_missing_model_is_downloaded_once_into_sacrebleus_cache(home: Path, serve: Callable[..., _Server],
                                                                  trained: dict[str, bytes],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve({"flores200sacrebleuspm": trained["flores200"]})
    monkeypatch.setenv("MTEVAL_SPM_MIRROR", served.url)
    tokens = sacre_tokenizers.bleu_tokens("flores200", LINES[:20])
    target = home / "models" / "flores200sacrebleuspm"
    assert target.read_bytes() == trained["flores200"] and served.requests == ["/mirror/flores200sacrebleuspm"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["flores200sacrebleuspm"]  # no temporary left
    _forget()
    assert sacre_tokenizers.bleu_tokens("flores200", LINES[:20]) == tokens and len(served.requests) == 1
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    theirs = sacrebleu.BLEU(tokenize="flores200").tokenizer  # finds mteval's download, downloads nothing
    assert [theirs(line).split() for line in LINES[:20]] == tokens


def test_a_download_that_is_no_model_is_not_kept(home: Path, serve: Callable[..., _Server],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (mteval[spm])")
    served = serve({"flores200sacrebleuspm": b"<html>Moved</html>"})
    monkeypatch.setenv("MTEVAL_SPM_MIRROR", served.url)
    with pytest.raises(ConfigError, match="could not be downloaded from " + served.url + "/flores200sacrebleuspm"):
        sacre_tokenizers.bleu_tokens("flores200", ["a line"])
    assert list((home / "models").iterdir()) == []


def test_offline_is_one_line_naming_the_url_and_the_path(home: Path) -> None:
    pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (mteval[spm])")
    url = spm_models.download_url(spm_models.SPM_MODELS["flores200"])
    target = home / "models" / "flores200sacrebleuspm"
    with pytest.raises(ConfigError) as raised:
        sacre_tokenizers.bleu_tokens("flores200", ["a line"])
    message = str(raised.value)
    assert message.startswith(f"tokenizer flores200: its SentencePiece model could not be downloaded from {url} (")
    assert message.endswith(f"save that file by hand as {target} (or in $MTEVAL_SPM_DIR)") and "\n" not in message
    assert list(target.parent.iterdir()) == []


def test_without_a_mirror_the_download_is_sacrebleus_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MTEVAL_SPM_MIRROR")
    assert spm_models.download_url(spm_models.SPM_MODELS["flores200"]) == "https://tinyurl.com/flores200sacrebleuspm"
    monkeypatch.setenv("MTEVAL_SPM_MIRROR", "https://mirror.example/spm/")
    assert spm_models.download_url(spm_models.SPM_MODELS["flores101"]) == \
        "https://mirror.example/spm/sacrebleu_tokenizer_spm.model"


def test_mteval_score_gives_sacrebleus_spbleu(placed: Path) -> None:
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    refs = [ENDE / "refs" / "A.de", ENDE / "refs" / "C.de"]
    system = ENDE / "sys" / "UEdin.de"
    done = run("mteval", "score", "-q", "-f", "json", "-r", str(refs[0]), "-r", str(refs[1]), "-i", str(system),
               "-m", "sacreBLEU(tok=flores200),sacreBLEU(tok=spm,lc=yes)")
    assert done.returncode == 0, done.stderr
    found = {r["metric"]: r for r in json.loads(done.stdout)}
    hyps, texts = file_lines(system), [file_lines(r) for r in refs]
    for metric, tok, lowercase in (("sacreBLEU(tok=flores200)", "flores200", False),
                                   ("sacreBLEU(tok=flores101,lc=yes)", "flores101", True)):  # tok=spm's name
        bleu = sacrebleu.BLEU(tokenize=tok, lowercase=lowercase)
        assert found[metric]["score"] == bleu.corpus_score(hyps, texts).score
        assert found[metric]["signature"].startswith(bleu.get_signature().format() + "|")


def test_mteval_score_offline_exits_2_with_one_line(home: Path) -> None:
    pytest.importorskip("sentencepiece", reason="sentencepiece is not installed (mteval[spm])")
    done = run("mteval", "score", "-q", "-r", str(ENDE / "refs" / "A.de"), "-i", str(ENDE / "sys" / "UEdin.de"),
               "-m", "sacreBLEU(tok=flores200)")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("mteval: error: tokenizer flores200: its SentencePiece model could not be "
                                  "downloaded from http://127.0.0.1:") and done.stderr.count("\n") == 1
    assert str(home / "models" / "flores200sacrebleuspm") in done.stderr
    assert not (home / "models").exists() or list((home / "models").iterdir()) == []


def test_iqsetup_and_iqeval_give_sacrebleus_spbleu(placed: Path, tmp_path: Path) -> None:
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacreBLEU is not installed")
    experiment = ruen_experiment(tmp_path, "spbleu", ["AFRL", "Online-B"], ["sacreBLEU(tok=flores200)"])
    done = run("iqeval", "-doOQ", "--json", "-G", "sys", str(experiment))
    assert done.returncode == 0, done.stderr
    refs = {r: file_lines(RUEN / "refs" / f"{r}.en") for r in "AB"}
    rows = json.loads(done.stdout)
    assert {(r["target"], r["refset"]) for r in rows} == {(s, "A_B") for s in ("AFRL", "Online-B")}
    for row in rows:
        hyps = file_lines(RUEN / "sys" / f"{row['target']}.en")
        assert row["score"] == sacrebleu.BLEU(tokenize="flores200").corpus_score(hyps, list(refs.values())).score
