"""The training lab's tests (``make research-test``; ``make test-all`` and CI run them, ``make test`` does not).

tests/conftest.py's session setup (the user cache in a temporary folder, SIGTERM and SIGHUP ending the
session as Ctrl-C does) and names (``ROOT``, ``SHARED``, ``needs_shared``...) hold here too, tests/ is
on the path (``helpers.py``, ``oracles.py``), and :func:`load_model_script` imports research/models'
scripts. The test modules import these names ``from conftest``, as tests/'s do.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

_THIS = sys.modules[__name__]
_TESTS = Path(__file__).resolve().parents[2] / "tests"
if str(_TESTS) not in sys.path:
    sys.path.append(str(_TESTS))  # after research/tests: helpers.py, oracles.py

# tests/conftest.py once more under a name of its own (its setup is idempotent), then its names here: when
# both folders run, the module named ``conftest`` is whichever pytest loaded last (see pytest_collectstart)
_BASE = "mteval_tests_conftest"
if _BASE not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_BASE, _TESTS / "conftest.py")
    assert _spec is not None and _spec.loader is not None
    sys.modules[_BASE] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules[_BASE])
globals().update({k: v for k, v in vars(sys.modules[_BASE]).items() if not k.startswith("_")})

ROOT: Path = sys.modules[_BASE].ROOT
LAB = ROOT / "research" / "models"


def load_model_script(name: str):
    """``research/models/NAME.py`` imported as module ``NAME`` (its folder on the path, as the scripts
    import each other; registered in ``sys.modules``, which its dataclasses need)."""
    folder = str(LAB)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def pytest_collectstart(collector: pytest.Collector) -> None:
    """This module is ``conftest`` while pytest imports research/tests' modules (it holds tests/conftest.py's
    names too, so tests/'s modules, imported before or after, find theirs in it as well)."""
    if isinstance(collector, pytest.Module) and collector.path.parent == Path(__file__).resolve().parent:
        sys.modules["conftest"] = _THIS
