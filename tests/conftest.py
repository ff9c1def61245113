"""Shared fixtures: where ../shared is, and skipping tests that need it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = ROOT / "data"

needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="../shared (WMT data and oracles) is absent")


# The user cache of derived resources (mteval/user_cache.py) goes to a folder of this test session,
# not the user's ~/.cache: the installed commands the tests run inherit it. Removed at exit.
if "MTEVAL_CACHE_DIR" not in os.environ:
    _USER_CACHE = tempfile.TemporaryDirectory(prefix="mteval-user-cache-")
    os.environ["MTEVAL_CACHE_DIR"] = _USER_CACHE.name


def load_model_script(name: str):
    """``models/NAME.py`` imported as module ``NAME`` (``models/`` on the path, as the scripts import each
    other; registered in ``sys.modules``, which its dataclasses need)."""
    import importlib
    import sys

    folder = str(ROOT / "models")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)
