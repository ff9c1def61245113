"""Reference-set folder names (mteval/store/refsets.py): injective, invertible, cache-safe."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mteval.errors import CacheError
from mteval.names import check_component, name_problem
from mteval.store import refsets
from mteval.store.cache import ScoreCache

NAMES = st.from_regex(r"[^\W_][\w.+@=-]{0,15}", fullmatch=True).filter(lambda n: name_problem(n) is None)
NAME_LISTS = st.lists(NAMES, min_size=1, max_size=5)


@given(NAME_LISTS, NAME_LISTS)
def test_join_is_injective_on_names(a: list[str], b: list[str]) -> None:
    assert (refsets.join(a) == refsets.join(b)) == (a == b)


@given(st.lists(st.text(max_size=12), min_size=1, max_size=5))
def test_split_inverts_join_for_any_text(names: list[str]) -> None:
    assert refsets.split(refsets.join(names)) == tuple(names)


@given(NAME_LISTS)
def test_an_encoded_folder_is_a_cache_path_component(names: list[str]) -> None:
    folder = refsets.join(names)
    if len(folder.encode("utf-8")) <= 200:  # the component limit; longer sets are refused as before
        assert check_component(folder) is None


def test_names_without_underscore_keep_the_manual_folder_names() -> None:
    assert refsets.join(["A", "C", "D"]) == "A_C_D"  # manual §4.1.2: R0_R1_R2
    assert refsets.join(["R0"]) == "R0"


def test_the_manual_reference_names() -> None:
    names = ["reference_file.txt.1", "reference_file.txt.2"]
    folder = refsets.join(names)
    assert folder == "reference%5Ffile.txt.1_reference%5Ffile.txt.2"
    assert refsets.split(folder) == tuple(names)
    assert refsets.join(["a_b", "c"]) != refsets.join(["a", "b_c"]) != refsets.join(["a_b_c"])


def test_the_cache_accepts_an_encoded_folder(tmp_path: Path) -> None:
    path = ScoreCache(tmp_path).path("S", refsets.join(["ref_1", "ref_2"]), "BLEU")
    assert path == tmp_path / "S" / "ref%5F1_ref%5F2" / "BLEU.xml"


@pytest.mark.parametrize("folder", ["a%", "a%5", "a%41b", "x_%zz"])
def test_a_stray_percent_is_refused(folder: str) -> None:
    with pytest.raises(CacheError, match="'%' not followed"):
        refsets.split(folder)


def test_an_empty_set_has_no_folder() -> None:
    with pytest.raises(ValueError):
        refsets.join([])
