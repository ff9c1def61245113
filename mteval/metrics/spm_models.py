"""sacreBLEU 2.6.0's SentencePiece tokenisers (spBLEU; Goyal et al. 2022, "The FLORES-101 evaluation
benchmark", and NLLB Team 2022 for FLORES-200): their models, where they are found, their download.

``flores101`` and ``flores200`` (and ``spBLEU-1K``, Elmadany et al.'s) split a line into the pieces of
a SentencePiece model trained on the FLORES languages, as sacreBLEU's ``tokenizer_spm.py``; ``spm`` is
sacreBLEU's older name of ``flores101`` (its signature says ``flores101``). The ``sentencepiece``
package is imported when such a tokeniser is first used (the extra ``mteval[spm]``).

A model file keeps sacreBLEU's file name (the last part of its URL) and is looked for

1. in ``$MTEVAL_SPM_DIR`` when set (a folder of model files put there by hand: an offline machine,
   a read-only shared copy);
2. in sacreBLEU's own cache, ``$SACREBLEU/models`` or else ``~/.sacrebleu/models``, where sacreBLEU
   stores them: a user who ran sacreBLEU does not download them again;

and else downloaded into that second folder at first use (from ``$MTEVAL_SPM_MIRROR/FILE`` when set,
else sacreBLEU's URL), written to a temporary file, checked to load as a SentencePiece model, then
renamed: never a half-written model, and sacreBLEU finds it too. A failed download is one line naming
the URL and the path where the file can be put by hand (:class:`~mteval.errors.ConfigError`).
"""

from __future__ import annotations

import http.client
import logging
import os
import tempfile
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from mteval.errors import ConfigError

LOG = logging.getLogger(__name__)
EXTRA = "spm"
DOWNLOAD_TIMEOUT = 60.0  # seconds without an answer before a download is given up


@dataclass(frozen=True)
class SpmModel:
    """One of sacreBLEU's SentencePiece models: the name its signature says and where it downloads from."""

    name: str
    url: str

    @property
    def file_name(self) -> str:
        """sacreBLEU's file name for it (the URL's last part)."""
        return self.url.rsplit("/", 1)[-1]


_FLORES101 = "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"
SPM_MODELS: dict[str, SpmModel] = {  # sacreBLEU 2.6.0's SPM_MODELS
    "flores101": SpmModel("flores101", _FLORES101),
    "flores200": SpmModel("flores200", "https://tinyurl.com/flores200sacrebleuspm"),
    "spBLEU-1K": SpmModel("spBLEU-1K", "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model"),
}
SPM_ALIASES = {"spm": "flores101"}  # sacreBLEU's older name (it warns that it may be removed)


def require_sentencepiece(name: str) -> None:
    """A one-line ConfigError naming the extra when ``sentencepiece`` is not installed (not imported here)."""
    if find_spec("sentencepiece") is None:
        raise ConfigError(f"tokenizer {name} needs SentencePiece (the sentencepiece package): "
                          f"pip install 'mteval[{EXTRA}]'")


def sacrebleu_models_dir() -> Path:
    """The folder where sacreBLEU keeps its models: ``$SACREBLEU/models``, else ``~/.sacrebleu/models``."""
    return Path(os.environ.get("SACREBLEU", str(Path.home() / ".sacrebleu"))) / "models"


def candidates(model: SpmModel) -> list[Path]:
    """Where the model file is looked for, in order (``$MTEVAL_SPM_DIR``'s, then sacreBLEU's)."""
    own = os.environ.get("MTEVAL_SPM_DIR")
    return [*([Path(own) / model.file_name] if own else []), sacrebleu_models_dir() / model.file_name]


def download_url(model: SpmModel) -> str:
    """``$MTEVAL_SPM_MIRROR/FILE`` when that is set, else sacreBLEU's URL."""
    mirror = os.environ.get("MTEVAL_SPM_MIRROR")
    return f"{mirror.rstrip('/')}/{model.file_name}" if mirror else model.url


def model_path(name: str) -> Path:
    """The model file of tokeniser ``name``: found (a non-empty file), else downloaded."""
    model = SPM_MODELS[name]
    places = candidates(model)
    for place in places:
        if place.is_file() and place.stat().st_size > 0:
            return place
    target = places[-1]
    download(model, download_url(model), target)
    return target


def download(model: SpmModel, url: str, target: Path) -> None:
    """Fetch ``url`` into ``target`` through a temporary file in its folder, renamed once it loads as
    a SentencePiece model; a ConfigError naming the URL and ``target`` when anything fails."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise ConfigError(f"tokenizer {model.name}: cannot write its SentencePiece model to {target} "
                          f"({_reason(exc)}); download {url} by hand into a folder named by $MTEVAL_SPM_DIR") from None
    LOG.info("downloading %s to %s", url, target)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as answer:
            while block := answer.read(1 << 20):
                out.write(block)
        _load(temporary)  # an error page, a cut file: not a model
        os.replace(temporary, target)
    except (OSError, ValueError, RuntimeError, http.client.HTTPException) as exc:
        raise ConfigError(f"tokenizer {model.name}: its SentencePiece model could not be downloaded from {url} "
                          f"({_reason(exc)}); save that file by hand as {target} (or in $MTEVAL_SPM_DIR)") from None
    finally:
        Path(temporary).unlink(missing_ok=True)


def _reason(exc: BaseException) -> str:
    """A download error in a few words (urllib's ``reason`` when it has one)."""
    reason = getattr(exc, "reason", None) or exc
    return " ".join(str(reason).split()) or type(exc).__name__


def _load(path: str | Path) -> Any:
    """A ``SentencePieceProcessor`` of the model file ``path`` (OSError/RuntimeError when it is not one)."""
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor()
    if not processor.Load(str(path)):
        raise RuntimeError(f"{path} is not a SentencePiece model")
    return processor


@lru_cache(maxsize=4)
def processor(name: str) -> Any:
    """The loaded model of tokeniser ``name`` (``sentencepiece`` imported here, the file found or downloaded)."""
    require_sentencepiece(name)
    path = model_path(name)
    try:
        return _load(path)
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"tokenizer {name}: {path} is not a SentencePiece model ({_reason(exc)}); remove it "
                          f"to download it again from {download_url(SPM_MODELS[name])}") from None
