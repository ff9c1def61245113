"""Segment cleaning before parsing: control characters, whitespace, length cap."""

from __future__ import annotations

from mteval.annotate.textprep import prepare_text


def test_control_characters_are_removed_and_reported() -> None:
    p = prepare_text("a\x00b\x1bc d")
    assert p.text == "abc d" and p.had_control and not p.truncated


def test_line_breaks_and_tabs_become_one_space() -> None:
    p = prepare_text("  one\n\ntwo\tthree\r\n")
    assert p.text == "one two three" and not p.had_control


def test_long_segments_are_capped() -> None:
    p = prepare_text("w " * 1000, max_words=250)
    assert p.truncated and len(p.text.split()) == 250


def test_empty_and_blank_segments() -> None:
    assert prepare_text("").text == ""
    assert prepare_text(" \n\t ").text == ""
