"""Other names of registered metrics: the IQMT 2.0 manual's spellings (§5) and duplicate names.

Every alias denotes exactly one *canonical* variant (a registered name, Asiya's spelling where
Asiya has the metric); the pipeline computes the canonical variant once and stores it under the
spelling the user wrote. Three sources:

* :data:`DUPLICATES`: registered names that compute the same numbers as another variant
  (``BLEU`` = ``BLEU-4``, ``NIST`` = ``NIST-5``, ``NISTi-1`` = ``NIST-1``, ``SP-xNIST`` =
  ``SP-xNIST-5``; IQMT's ``RG-*`` and ``MTR-*`` names of ROUGE and METEOR);
* :func:`manual_spellings`: the manual's nomenclature (§5.2.2, "abbreviated nomenclature"),
  generated from the registered variants: ``SP-Op-NN`` for ``SP-Op(NN)`` (every ``FAM-K(t)``),
  ``SP-NIST_l-5`` / ``SP-NISTi_p-5`` for ``SP-lNIST-5`` / ``SP-pNISTi-5``, ``DP-HWC_w-4`` /
  ``DP-HWCi_w-4`` for ``DP-HWCM_w-4`` / ``DP-HWCMi_w-4``, and the four names the manual gives for
  lexical overlapping by semantic role, ``SR-Or,w-t``, ``SR-Or-t``, ``SR-Ow-t``, ``SR-O-t``
  (``SR-Or(t)``);
* :data:`MANUAL`: spellings that no rule gives. ``RG-SUs``/``RG-Ss`` are the manual's (Table 13)
  ``RG-SU*``/``RG-S*``. ``NE-Oe-*`` and ``NE-Oe-**`` map **by meaning**: the manual's ``NE-Oe-*``
  includes the non-entity type ``O`` and ``NE-Oe-**`` counts actual entities only (§5.5.1), while
  Asiya (whose names we keep, see :mod:`mteval.metrics.entities`) has them the other way round, so
  ``NE-Oe-*`` = ``NE-Oe(**)`` and ``NE-Oe-**`` = ``NE-Oe(*)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

DUPLICATES: dict[str, str] = {
    "BLEU": "BLEU-4", "NIST": "NIST-5", "NISTi-1": "NIST-1",
    **{f"SP-{layer}NIST": f"SP-{layer}NIST-5" for layer in ("l", "p", "c", "iob")},
    "RG-1": "ROUGE-1", "RG-2": "ROUGE-2", "RG-3": "ROUGE-3", "RG-4": "ROUGE-4", "RG-L": "ROUGE-L",
    "RG-W-1.2": "ROUGE-W", "RG-S*": "ROUGE-S*", "RG-SU*": "ROUGE-SU*",
    "MTR-exact": "METEOR-ex", "MTR-stem": "METEOR-st", "MTR-wnsyn": "METEOR-sy", "MTR-para": "METEOR-stsypa",
}
MANUAL: dict[str, str] = {
    "RG-SUs": "ROUGE-SU*", "RG-Ss": "ROUGE-S*",
    "NE-Oe-*": "NE-Oe(**)", "NE-Oe-**": "NE-Oe(*)",
    # rouge-score's summary-level LCS in the ROUGE-N spelling (mteval.metrics.rouge_scorer: rouge-score's
    # tokens, no stemming unless rougeLsum(stem=yes)); ROUGE-1.5.5 as Asiya runs it has no variant of its own
    "ROUGE-Lsum": "rougeLsum",
}
_TYPED = re.compile(r"([A-Z]+-[A-Za-z]+)\((.+)\)")  # SP-Op(NN), DP-Or(nsubj), SR-Mr(AM-MOD)
_SP_NIST = re.compile(r"SP-(l|p|c|iob)NIST(i?)(-\d+)?")  # SP-lNIST-5, SP-pNISTi-5
_HWC = re.compile(r"DP-HWCM(i?)_([wcr])-(\d+)")  # DP-HWCM_w-4, DP-HWCMi_w-4
SR_WORD_OVERLAP = ("SR-Or,w", "SR-Ow", "SR-O")  # manual §5.2.2: all valid names of SR-Or-t


def manual_spellings(variants: Iterable[str]) -> dict[str, str]:
    """The manual's spelling of every registered variant that has one (module docstring)."""
    out: dict[str, str] = {}
    for v in variants:
        if m := _TYPED.fullmatch(v):
            out[f"{m[1]}-{m[2]}"] = v
            if m[1] == "SR-Or":
                out.update({f"{prefix}-{m[2]}": v for prefix in SR_WORD_OVERLAP})
        elif m := _SP_NIST.fullmatch(v):
            out[f"SP-NIST{m[2]}_{m[1]}{m[3] or ''}"] = v
        elif m := _HWC.fullmatch(v):
            out[f"DP-HWC{m[1]}_{m[2]}-{m[3]}"] = v
    return out


def build(variants: Iterable[str]) -> dict[str, str]:
    """Every alias -> its canonical variant, given the registered names (aliases of duplicates
    followed to the end). Raises ``ValueError`` when a generated or manual alias is itself a
    registered name or a name points to nothing registered (a registry bug, not user input)."""
    ordered = list(variants)
    registered = set(ordered)
    table = {**manual_spellings(ordered), **MANUAL}
    clashes = sorted(a for a in table if a in registered)
    if clashes:
        raise ValueError(f"metric aliases {clashes} are also registered variants")
    table.update(DUPLICATES)
    canonical = {a: t for a, t in table.items() if a != t}
    for alias, target in canonical.items():
        seen = {alias}
        while target in canonical:
            target = canonical[target]
            if target in seen:
                raise ValueError(f"metric alias cycle through {alias!r}")
            seen.add(target)
        if target not in registered or target in DUPLICATES:
            raise ValueError(f"metric alias {alias!r} -> {target!r}: no such canonical variant")
        canonical[alias] = target
    return canonical
