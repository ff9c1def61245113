"""Metrics equal on every segment by construction (mteval/setup/duplicate_metrics.py): the groups, the
warning line, and, on real parses, that the grouped metrics are equal and the others are not."""

from __future__ import annotations

import pytest

from mteval.setup import duplicate_metrics
from mteval.setup.duplicate_metrics import duplicate_groups, duplicate_warnings


def test_groups_in_every_language_and_where_xpos_is_upos_or_one_tree() -> None:
    names = ["SP-Op(*)", "SP-Opu(*)", "DP-Oc(*)", "CP-Op(*)", "SP-Op(NN)", "CP-Op(NN)", "EDPM-1g", "DPM-1g", "BLEU"]
    assert duplicate_groups(names) == [["SP-Op(*)", "CP-Op(*)"], ["SP-Opu(*)", "DP-Oc(*)"], ["SP-Op(NN)", "CP-Op(NN)"]]
    assert duplicate_groups(names, xpos_is_upos=True, one_tree=True) == [
        ["SP-Op(*)", "SP-Opu(*)", "DP-Oc(*)", "CP-Op(*)"], ["SP-Op(NN)", "CP-Op(NN)"], ["EDPM-1g", "DPM-1g"]]
    assert duplicate_groups(["EDPM", "DPM", "SP-Oc(*)", "DP-Or(*)"]) == []


def test_one_line_for_english_without_loading_a_model() -> None:
    [line] = duplicate_warnings(["SP-Op(*)", "CP-Op(*)", "EDPM", "DPM", "BLEU"], "en")
    assert line.startswith("SP-Op(*) = CP-Op(*): equal on every segment by construction")
    assert "counts one twice" in line
    assert duplicate_warnings(["SP-Op(*)", "SP-Opu(*)", "BLEU"], "en") == []


def test_many_groups_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duplicate_metrics, "backend_labels", lambda language, annotation=None: None)
    tags = ("NN", "NNS", "VB", "VBD", "VBZ", "JJ")
    [line] = duplicate_warnings([f"{m}({t})" for t in tags for m in ("SP-Op", "CP-Op")], "en")
    assert line.startswith("SP-Op(NN) = CP-Op(NN); SP-Op(NNS) = CP-Op(NNS); SP-Op(VB) = CP-Op(VB); "
                           "SP-Op(VBD) = CP-Op(VBD) and 2 more such groups: ")


@pytest.mark.models
@pytest.mark.slow  # parses 10 English segments (~15 s)
def test_grouped_metrics_are_equal_on_real_parses() -> None:
    """On WMT-like English text: each group's metrics equal segment by segment, and metrics of
    different groups differ somewhere (so the rule names exactly the coincidences)."""
    import mteval

    names = ["SP-Op(*)", "CP-Op(*)", "SP-Opu(*)", "DP-Oc(*)", "SP-Opu(NOUN)", "DP-Oc(NOUN)", "SP-Op(NN)", "CP-Op(NN)"]
    refs = ["The parliament did not ratify the treaty on Friday.", "Prices rose sharply in the north of the country.",
            "She said that the new factory would open next year.", "Two men were arrested at the station.",
            "He cut the rope yesterday."]
    hyps = ["Parliament has not ratified the agreement on Friday.", "The prices went up strongly in northern regions.",
            "She told that a new plant will be opened next year.", "Two men have been arrested at a station.",
            "He has cut the rope."]  # cut: VBD in the reference, VBN here: SP-Op differs, SP-Opu not
    scores = {n: mteval.score(n, hyps, [refs]).segments for n in names}
    for group in duplicate_groups(names):
        assert all(scores[n] == scores[group[0]] for n in group), group
    assert scores["SP-Op(*)"] != scores["SP-Opu(*)"]
