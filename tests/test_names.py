"""Names that become cache folders (mteval/names.py): the rule, collisions, path components."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mteval.errors import quote
from mteval.names import check_component, collisions, name_problem


@pytest.mark.parametrize("name", ["A", "Online-W", "nuclear_trans", "HYB.1", "Übersetzer", "sys+bpe@2=x", "1"])
def test_good_names(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize("name", ["", ".", "..", ".hidden", "-flag", "_x", "a/b", "a\\b", "a b", "$(rm -rf x)",
                                  ";", "tab\there", "new\nline", "x" * 101, "e\u0301"])
def test_bad_names(name: str) -> None:
    assert name_problem(name) is not None


def test_collisions_up_to_case_and_normalisation() -> None:
    assert collisions(["Sys", "other", "sys"]) == [("Sys", "sys")]
    assert collisions(["Sys", "Sys"]) == []


def test_messages_are_short() -> None:
    problem = name_problem("x" * 300)
    assert problem is not None and len(problem) < 200
    assert len(quote("y" * 1000)) == 60


@given(st.text(min_size=1, max_size=120))
def test_an_allowed_name_stays_inside_the_cache(name: str) -> None:
    if name_problem(name) is None:
        assert check_component(name) is None
        root = Path("/cache/root")
        path = Path(os.path.normpath(root / name / "A" / "BLEU.xml"))
        assert path.parent.parent.parent == root and not name.startswith(".")


@given(st.text(max_size=60))
def test_a_component_never_leaves_its_folder(component: str) -> None:
    if check_component(component) is None:
        root = Path("/cache/root")
        assert Path(os.path.normpath(root / component)).parent == root


@pytest.mark.parametrize("name", ["sys\n", "0\n", "A\r"])
def test_a_final_newline_is_not_a_name(name: str) -> None:
    assert name_problem(name) is not None
